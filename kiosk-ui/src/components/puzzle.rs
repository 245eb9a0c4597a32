//! Puzzles (PZ2, PZ4, PZ5): the puzzle screen, a game screen whose rail says the task, and
//! the phones' puzzles page. The server judges every move; the screen shows the attempt it
//! sends, stepping through the defence's reply and, after a wrong move, the refutation with a
//! short delay, each ply announced as in games.

use engine::Game;
use gloo::timers::callback::Timeout;
use protocol::http::DailyPuzzle;
use protocol::puzzle::AttemptStatus;
use protocol::{ClientMsg, PuzzleSource, PuzzleView};
use yew::prelude::*;

use crate::api;
use crate::board_model::BoardModel;
use crate::i18n::T;
use crate::puzzle_model as model;
use crate::room_model::{change_class, signed};
use crate::route::{PuzzleWhat, Route};
use crate::state::{Action, Conn};

use super::board::Board;
use super::context::{Ctx, use_ctx};
use super::link::Link;
use super::navbar::Navbar;

/// Milliseconds between the plies the screen plays for the other side.
const STEP_MS: u32 = 800;

#[derive(Debug, Properties, PartialEq)]
pub struct PuzzleProps {
    pub what: PuzzleWhat,
    pub kiosk: bool,
}

fn start(ctx: &Ctx, source: PuzzleSource) {
    ctx.send.emit(ClientMsg::PuzzleStart { id: None, source });
}

#[component]
pub fn PuzzlePage(props: &PuzzleProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    // Plies of the attempt on the board: the rest are played out one by one.
    let shown = use_state_eq(|| 0usize);
    let seen = use_mut_ref(|| (0u32, 0usize));
    {
        // A new screen or a new connection (attempts end with theirs) starts the attempt.
        let ctx = ctx.clone();
        let open = ctx.state.conn == Conn::Open;
        use_effect_with((props.what.clone(), open), move |(what, open)| {
            if *open {
                start(&ctx, what.source());
            }
        });
    }
    let view = ctx.state.puzzle.clone();
    let boards = view.as_ref().map(model::positions).unwrap_or_default();
    let total = boards.len().saturating_sub(1);
    {
        // A new attempt shows whole; in the same one the player's own move shows at once.
        let shown = shown.clone();
        let seen = seen.clone();
        let key = view.as_ref().map(|v| (v.attempt, total));
        use_effect_with(key, move |key| {
            if let Some((attempt, total)) = *key {
                let mut seen = seen.borrow_mut();
                if seen.0 != attempt {
                    shown.set(total);
                    *seen = (attempt, total);
                } else if total > seen.1 {
                    shown.set(seen.1 + 1);
                    seen.1 = total;
                }
            }
        });
    }
    {
        // The other side's plies follow, one every STEP_MS.
        let shown = shown.clone();
        let n = *shown;
        use_effect_with((n, total), move |&(n, total)| {
            let timer = (n < total).then(|| Timeout::new(STEP_MS, move || shown.set(n + 1)));
            move || drop(timer)
        });
    }
    {
        // Each ply as it appears, then what the attempt came to, in the live region (U5).
        let ctx = ctx.clone();
        let said = use_mut_ref(|| (0u32, 0usize));
        let n = (*shown).min(total);
        let key = view.as_ref().map(|v| (v.attempt, n));
        let view = view.clone();
        let boards = boards.clone();
        use_effect_with(key, move |_| {
            let Some(v) = view else { return };
            let mut said = said.borrow_mut();
            let mut parts: Vec<String> = Vec::new();
            if said.0 != v.attempt {
                *said = (v.attempt, n);
                parts.push(model::task(&v, lang));
            } else if n > said.1 && n <= v.moves.len() {
                parts.push(model::ply_text(
                    &boards[n - 1],
                    &boards[n],
                    v.moves[n - 1],
                    lang,
                ));
                if n == said.1 + 1 && n < total {
                    // The player's own move: what it led to, before the reply.
                    parts.extend(model::outcome(&v, lang));
                }
                said.1 = n;
            }
            if n == total && total > 0 && v.status != AttemptStatus::Playing {
                parts.extend(model::outcome(&v, lang));
                parts.extend(model::distance(&v, lang));
            } else if n == total && v.repetition_warning {
                parts.push(lang.t(T::RepetitionWarning).to_owned());
            }
            if !parts.is_empty() {
                ctx.dispatch(Action::Announce(parts.join(". ")));
            }
        });
    }

    let Some(view) = view else {
        return html! {
            <>
                <Navbar />
                <main id="main" class="page"><p role="status">{ ctx.t(T::Loading) }</p></main>
            </>
        };
    };
    let n = (*shown).min(total);
    let settled = n == total;
    let over = view.status != AttemptStatus::Playing;
    let mut board = boards
        .get(n)
        .map(BoardModel::from_position)
        .unwrap_or_default();
    if over && settled {
        // The attempt is over: nothing vanishes next.
        board.glowing = None;
    }
    let may_move = settled && !over;
    let on_move = {
        let ctx = ctx.clone();
        let attempt = view.attempt;
        Callback::from(move |cell| {
            ctx.send.emit(ClientMsg::PuzzleMove {
                id: None,
                attempt,
                cell,
            })
        })
    };
    let title_key = match props.what {
        PuzzleWhat::Daily(_) => T::PuzzleOfDayGame,
        PuzzleWhat::Streak(_) => T::PuzzleStreakGame,
        _ => T::PuzzleGame,
    };
    let title = lang.f(title_key, &[lang.game(view.game)]);

    let mut info: Vec<Html> = vec![
        html! { <p class="puzzle-rating">{ lang.f(T::PuzzleRating, &[&lang.num(view.rating)]) }</p> },
    ];
    if let Some(r) = view.player_rating {
        // A signed-in player: their rating, what this attempt did to it, or that it does not
        // count.
        let change = view.rating_change.map(|c| c.player.after - c.player.before);
        info.push(html! {
            <p class="puzzle-rating" id="puzzle-player-rating">
                { lang.f(T::YourPuzzleRating, &[&lang.num(r)]) }
                if let Some(c) = change {
                    { " " }<span class={classes!("change", change_class(c))}>{ lang.num(signed(c)) }</span>
                }
            </p>
        });
        if !view.rated && !over {
            info.push(
                html! { <p class="note" id="puzzle-unrated">{ ctx.t(T::PuzzleUnrated) }</p> },
            );
        }
    }
    if let Some(count) = view.solved_today {
        info.push(html! { <p class="puzzle-today" id="puzzle-today">{ lang.f(T::SolvedToday, &[&lang.num(count)]) }</p> });
    }

    let mut side: Vec<Html> = Vec::new();
    // The streak's length beside what the move led to: a phone shows it under the board.
    if let Some(s) = &view.streak {
        let t = if s.over {
            T::StreakOver
        } else {
            T::StreakSolved
        };
        side.push(html! { <p class="puzzle-streak" id="puzzle-streak">{ lang.f(t, &[&lang.num(s.solved)]) }</p> });
    }
    if let Some(text) = model::outcome(&view, lang) {
        let class = match view.status {
            AttemptStatus::Solved => "result gain",
            AttemptStatus::Failed => "result loss",
            AttemptStatus::Playing => "result",
        };
        side.push(html! { <p class={class} id="puzzle-outcome">{ text }</p> });
    }
    // The line and the distance go beside the board, so the side keeps Retry and Next in view.
    if view.status == AttemptStatus::Failed {
        info.push(
            html! { <p class="note" id="puzzle-refutation">{ ctx.t(T::PuzzleRefutation) }</p> },
        );
    }
    if over && settled {
        if let Some(d) = model::distance(&view, lang) {
            info.push(html! { <p class="note" id="puzzle-distance">{ d }</p> });
        }
        side.push(next_buttons(&ctx, &view, &props.what, props.kiosk));
    }

    html! {
        <>
            <Navbar title={AttrValue::from(title.clone())} />
            <main id="main" class={classes!("room", "puzzle", props.kiosk.then_some("kiosk-room"))}>
                <p class="room-game-line" id="room-game">{ title }</p>
                <div class={classes!("rail", may_move.then_some("my-turn"), over.then_some("over"))} id="rail">
                    <p class="rail-main"><span id="rail-text">{ model::task(&view, lang) }</span></p>
                    if view.repetition_warning && !over && settled {
                        <p class="warning" id="repetition-warning">{ ctx.t(T::RepetitionWarning) }</p>
                    } else {
                        <p class="warning-slot" aria-hidden="true"></p>
                    }
                </div>
                <aside class="cards puzzle-info" aria-label={ctx.t(T::NavPuzzles)}>{ for info }</aside>
                <section class="centre">
                    <div class="board-wrap">
                        <Board model={board} may_move={may_move} on_move={on_move} />
                    </div>
                </section>
                <aside class="side" id="puzzle-side">{ for side }</aside>
            </main>
        </>
    }
}

/// After an attempt: Retry, and Next (in a streak: its next puzzle, or Start again once it
/// ended).
fn next_buttons(ctx: &Ctx, view: &PuzzleView, what: &PuzzleWhat, kiosk: bool) -> Html {
    let game = view.game;
    let retry = {
        let ctx = ctx.clone();
        let attempt = view.attempt;
        Callback::from(move |_| ctx.send.emit(ClientMsg::PuzzleRetry { id: None, attempt }))
    };
    let (label, id, source) = match (what, &view.streak) {
        (PuzzleWhat::Streak(_), Some(s)) if !s.over && view.status == AttemptStatus::Solved => (
            T::NextPuzzle,
            "puzzle-next",
            Some(PuzzleSource::Streak {
                game,
                step: s.step + 1,
            }),
        ),
        (PuzzleWhat::Streak(_), _) => (
            T::StartAgain,
            "puzzle-start-again",
            Some(PuzzleSource::Streak { game, step: 0 }),
        ),
        (PuzzleWhat::Next(_), _) => (
            T::NextPuzzle,
            "puzzle-next",
            Some(PuzzleSource::Next { game }),
        ),
        _ => (T::NextPuzzle, "puzzle-next", None),
    };
    let next = {
        let ctx = ctx.clone();
        Callback::from(move |_| match &source {
            Some(source) => start(&ctx, source.clone()),
            None => ctx.navigate(Route::Puzzle {
                what: PuzzleWhat::Next(game),
                kiosk,
            }),
        })
    };
    html! {
        <div class="panel actions puzzle-actions">
            <button type="button" class="primary big" {id} onclick={next}>{ ctx.t(label) }</button>
            <button type="button" id="puzzle-retry" onclick={retry}>{ ctx.t(T::Retry) }</button>
        </div>
    }
}

/// Today's puzzles from `GET /api/puzzles/daily`, asked again whenever `refresh` changes;
/// `None` until they came.
#[hook]
pub fn use_daily(refresh: u32) -> Option<Vec<DailyPuzzle>> {
    let daily = use_state_eq(|| None::<Vec<DailyPuzzle>>);
    {
        let daily = daily.clone();
        use_effect_with(refresh, move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                if let Ok(d) = api::daily_puzzles().await {
                    daily.set(Some(d.puzzles));
                }
            });
        });
    }
    (*daily).clone()
}

/// The day's puzzles, one large link each: the game, the task, how many solved it today.
pub fn daily_list(ctx: &Ctx, puzzles: &[DailyPuzzle], kiosk: bool) -> Html {
    let lang = ctx.lang();
    if puzzles.is_empty() {
        return html! { <p class="note">{ ctx.t(T::PuzzlesNone) }</p> };
    }
    html! {
        <ul class="room-list daily-list">
            { for puzzles.iter().map(|p| {
                let to = Route::Puzzle { what: PuzzleWhat::Daily(p.game), kiosk };
                html! {
                    <li class="room-row" id={format!("daily-{}", p.game.as_str())}>
                        <Link to={to} class="room-link daily-link">
                            <span class="room-main"><strong>{ lang.game(p.game) }</strong>{ " · " }{ model::task_of(p.kind, p.to_move, lang) }</span>
                            <span class="room-meta">{ lang.f(T::SolvedToday, &[&lang.num(p.solved_today)]) }</span>
                        </Link>
                    </li>
                }
            }) }
        </ul>
    }
}

/// The phones' puzzles page: the day's puzzles, and a streak or the next puzzle per game.
#[component]
pub fn PuzzlesPage() -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let daily = use_daily(0);
    let go = |what: PuzzleWhat| Route::Puzzle { what, kiosk: false };
    html! {
        <>
            <Navbar title={AttrValue::from(ctx.t(T::NavPuzzles))} />
            <main id="main" class="page puzzles">
                <section aria-labelledby="daily-title">
                    <h2 id="daily-title">{ ctx.t(T::PuzzleOfDay) }</h2>
                    if let Some(puzzles) = daily {
                        { daily_list(&ctx, &puzzles, false) }
                    } else {
                        <p role="status">{ ctx.t(T::Loading) }</p>
                    }
                </section>
                { for [Game::Xo, Game::Infinite].into_iter().map(|game| html! {
                    <section class="panel puzzle-game" aria-label={lang.game(game)}>
                        <h2>{ lang.game(game) }</h2>
                        <div class="actions">
                            <Link to={go(PuzzleWhat::Streak(game))} class="button primary">{ ctx.t(T::PuzzleStreak) }</Link>
                            <Link to={go(PuzzleWhat::Next(game))} class="button">{ ctx.t(T::NextPuzzle) }</Link>
                            <Link to={Route::Streaks(game)} class="button">{ ctx.t(T::StreakBoardTitle) }</Link>
                        </div>
                    </section>
                }) }
            </main>
        </>
    }
}
