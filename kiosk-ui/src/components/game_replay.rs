//! A finished game from the store, replayed with analysis (U10, U11): the navbar names the
//! game, the side says how it ended and names both players with their rating changes, in two
//! lines above the moves.

use engine::Mark;
use protocol::records::PlayerRef;
use yew::prelude::*;

use crate::api::{self, ApiError, GameView};
use crate::i18n::{Lang, T, mark};
use crate::room_model::{change_class, player_name, signed};

use super::context::use_ctx;
use super::navbar::Navbar;
use super::replay::Replay;

#[derive(Debug, Properties, PartialEq)]
pub struct GameReplayProps {
    pub id: String,
}

/// How a stored game ended, in words, naming its players.
pub fn stored_result(g: &GameView, lang: Lang) -> String {
    let name = |m: Mark| {
        let p: &PlayerRef = if m == Mark::X { &g.game.x } else { &g.game.o };
        lang.f(T::NamedMark, &[&player_name(p, lang), mark(m)])
    };
    use protocol::records::GameEnd;
    match g.game.end {
        GameEnd::Line { winner, .. } => lang.f(T::ResultLine, &[&name(winner)]),
        GameEnd::FullBoard => lang.t(T::ResultFullBoard).to_owned(),
        GameEnd::Repetition => lang.t(T::ResultRepetition).to_owned(),
        GameEnd::Agreed => lang.t(T::ResultAgreed).to_owned(),
        GameEnd::Resigned { loser } => {
            lang.f(T::ResultResigned, &[&name(loser), &name(loser.other())])
        }
        GameEnd::Timeout { loser } => {
            lang.f(T::ResultTimeout, &[&name(loser), &name(loser.other())])
        }
    }
}

#[component]
pub fn GameReplay(props: &GameReplayProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let data = use_state(|| None::<Result<GameView, ApiError>>);
    {
        let data = data.clone();
        use_effect_with(props.id.clone(), move |id| {
            data.set(None);
            let id = id.clone();
            wasm_bindgen_futures::spawn_local(async move {
                data.set(Some(api::finished_game(&id).await));
            });
        });
    }
    let message = |t: T, role: &'static str| {
        html! { <main id="main" class="page"><p role={role}>{ ctx.t(t) }</p></main> }
    };
    let (title, body) = match &*data {
        None => (ctx.t(T::Replay).to_owned(), message(T::Loading, "status")),
        Some(Err(e)) if e.status == 404 => (
            ctx.t(T::Replay).to_owned(),
            message(T::GameNotFound, "alert"),
        ),
        Some(Err(_)) => (ctx.t(T::Replay).to_owned(), message(T::ErrNetwork, "alert")),
        Some(Ok(g)) => {
            let player = |m: Mark| {
                let p = if m == Mark::X { &g.game.x } else { &g.game.o };
                let change = g
                    .rating_updates
                    .iter()
                    .find(|u| u.mark == m)
                    .map(|u| u.change);
                html! {
                    <li>
                        <bdi>{ lang.f(T::NamedMark, &[&player_name(p, lang), mark(m)]) }</bdi>
                        if let Some(c) = change {
                            { " " }<span class={classes!("change", change_class(c))}>{ lang.num(signed(c)) }</span>
                        }
                    </li>
                }
            };
            (
                lang.game(g.game.game).to_owned(),
                html! {
                    <main id="main" class="room replaying replay-page">
                        // Phones' navbar has no room for the title.
                        <p class="room-game-line" id="stored-game">{ lang.game(g.game.game) }</p>
                        <Replay game={g.game.game} moves={g.game.moves.clone()} summary={html! {
                            <section class="stored-game" aria-label={ctx.t(T::Players)}>
                                <p class="result" id="result">{ stored_result(g, lang) }</p>
                                <ul class="stored-players">{ player(Mark::X) }{ player(Mark::O) }</ul>
                            </section>
                        }} />
                    </main>
                },
            )
        }
    };
    html! {
        <>
            <Navbar title={AttrValue::from(title)} />
            { body }
        </>
    }
}
