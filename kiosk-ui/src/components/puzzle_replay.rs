//! One of a player's recent puzzle attempts, replayed from the puzzle's position with the
//! replay's analysis (PZ3, U10, U11): the side says the task, how the attempt ended and what
//! it did to the ratings.

use protocol::http::PuzzleAttemptView;
use protocol::puzzle::AttemptStatus;
use yew::prelude::*;

use crate::api::{self, ApiError};
use crate::i18n::T;
use crate::puzzle_model as model;
use crate::room_model::{change_class, signed};

use super::context::use_ctx;
use super::navbar::Navbar;
use super::replay::Replay;

#[derive(Debug, Properties, PartialEq)]
pub struct PuzzleReplayProps {
    /// The player whose profile lists the attempt.
    pub name: String,
    pub id: u64,
}

#[component]
pub fn PuzzleReplay(props: &PuzzleReplayProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let data = use_state(|| None::<Result<Option<PuzzleAttemptView>, ApiError>>);
    {
        let data = data.clone();
        use_effect_with((props.name.clone(), props.id), move |(name, id)| {
            data.set(None);
            let (name, id) = (name.clone(), *id);
            wasm_bindgen_futures::spawn_local(async move {
                let found = api::profile(&name)
                    .await
                    .map(|p| p.recent_puzzles.into_iter().find(|a| a.id == id));
                data.set(Some(found));
            });
        });
    }
    let message = |t: T, role: &'static str| {
        html! { <main id="main" class="page"><p role={role}>{ ctx.t(t) }</p></main> }
    };
    let body = match &*data {
        None => message(T::Loading, "status"),
        Some(Ok(None)) => message(T::GameNotFound, "alert"),
        Some(Err(_)) => message(T::ErrNetwork, "alert"),
        Some(Ok(Some(a))) => {
            let outcome = match a.status {
                AttemptStatus::Solved => ctx.t(T::PuzzlesSolved),
                _ => ctx.t(T::PuzzleMissed),
            };
            let change = a.rating_change.map(|c| c.player.after - c.player.before);
            html! {
                <main id="main" class="room replaying replay-page">
                    <p class="room-game-line" id="stored-game">{ lang.f(T::PuzzleGame, &[lang.game(a.game)]) }</p>
                    <Replay game={a.game} start={model::start(a.game, &a.start)} moves={a.moves.clone()} summary={html! {
                        <section class="stored-game" aria-label={ctx.t(T::NavPuzzles)}>
                            <p class="result" id="result">{ model::task_of(a.kind, a.you, lang) }{ " · " }{ outcome }</p>
                            if let (Some(c), Some(r)) = (change, a.rating_change) {
                                <p id="puzzle-replay-rating">
                                    { lang.f(T::YourPuzzleRating, &[&lang.num(r.player.after)]) }{ " " }
                                    <span class={classes!("change", change_class(c))}>{ lang.num(signed(c)) }</span>
                                </p>
                            }
                        </section>
                    }} />
                </main>
            }
        }
    };
    html! {
        <>
            <Navbar title={AttrValue::from(ctx.t(T::Replay))} />
            { body }
        </>
    }
}
