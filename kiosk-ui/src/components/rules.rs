//! Rules and tips for both games, with an example board that shows the glowing mark (and,
//! in Arabic, that the board never mirrors).

use engine::{Game, Position};
use yew::prelude::*;

use crate::board_model::BoardModel;
use crate::i18n::T;

use super::board::Board;
use super::context::use_ctx;
use super::navbar::Navbar;

/// The example: X holds top left, top centre and centre; O holds middle left, middle right
/// and bottom right; X to move, so X's top-left mark glows.
pub const EXAMPLE: &str = "X:0,1,4|O:3,5,8|T:X";

#[component]
pub fn Rules() -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let model = use_memo((), |_| {
        Position::parse(Game::Infinite, EXAMPLE)
            .map(|p| BoardModel::from_position(&p))
            .unwrap_or_default()
    });
    html! {
        <>
            <Navbar title={AttrValue::from(ctx.t(T::RulesTitle))} />
            <main id="main" class="page rules">
                <section class="panel">
                    <h2>{ lang.game(Game::Xo) }</h2>
                    <p>{ ctx.t(T::RulesXo1) }</p>
                    <p>{ ctx.t(T::RulesXo2) }</p>
                    <p class="tip">{ ctx.t(T::TipsXo) }</p>
                </section>
                <section class="panel">
                    <h2>{ lang.game(Game::Infinite) }</h2>
                    <p>{ ctx.t(T::RulesInf1) }</p>
                    <p>{ ctx.t(T::RulesInf2) }</p>
                    <p>{ ctx.t(T::RulesInf3) }</p>
                    <p>{ ctx.t(T::RulesInf4) }</p>
                    <p>{ ctx.t(T::RulesInf5) }</p>
                    <figure class="example">
                        <Board model={*model} may_move={false} id="example-board" />
                        <figcaption>{ ctx.t(T::RulesExample) }</figcaption>
                    </figure>
                    <p class="tip">{ ctx.t(T::TipsInf) }</p>
                </section>
                <section class="panel">
                    <p>{ ctx.t(T::RulesOnline) }</p>
                    <p>{ ctx.t(T::KeyboardHelp) }</p>
                </section>
            </main>
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_is_legal_and_its_caption_is_true() {
        let p = Position::parse(Game::Infinite, EXAMPLE).expect("legal");
        assert_eq!(p.glowing(), Some(0));
        let after = p.play(7).expect("bottom centre is empty");
        assert_eq!(
            after.status(),
            engine::Status::Won {
                winner: engine::Mark::X,
                line: [1, 4, 7]
            }
        );
    }
}
