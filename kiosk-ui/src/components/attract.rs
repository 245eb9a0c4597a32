//! The idle kiosk's home (U13, "attract"): in place of the play controls it cycles slowly
//! through what is happening, each slide for several seconds: a game in progress on a live
//! mini-board, the latest rated results, the ladders' top, and a slot for the day's puzzle,
//! skipped while there is none. The QR code and the live rooms stay where they are; the kiosk
//! puts a sheet over the whole screen, so the next touch only brings the controls back.
//!
//! The mini-board follows its room over a WebSocket of its own: the app's connection follows
//! the route, and opening a room on it would take the kiosk there.

use std::cell::RefCell;
use std::rc::Rc;

use engine::Game;
use gloo::timers::callback::Interval;
use protocol::http::LeaderRow;
use protocol::{ClientMsg, Phase, RoomSummary, RoomView, ServerMsg};
use yew::prelude::*;

use crate::api::{self, GameView};
use crate::board_model::BoardModel;
use crate::i18n::T;
use crate::room_model;
use crate::state::Action;
use crate::ws::Socket;

use super::board::Board;
use super::context::use_ctx;
use super::game_replay::stored_result;

/// One slide of the cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slide {
    /// A game in progress, on a live mini-board.
    Game,
    /// The latest rated results.
    Results,
    /// The top of both ladders.
    Leaders,
    /// The day's puzzle, skipped while there is none.
    Puzzle,
}

impl Slide {
    /// The order of the cycle.
    pub const CYCLE: [Slide; 4] = [Slide::Game, Slide::Results, Slide::Leaders, Slide::Puzzle];

    /// Its name in the page (`data-slide`), for tests and styles.
    pub fn name(self) -> &'static str {
        match self {
            Slide::Game => "game",
            Slide::Results => "results",
            Slide::Leaders => "leaders",
            Slide::Puzzle => "puzzle",
        }
    }
}

/// The slide after `current` in the cycle that has something to show (`current` itself when
/// it is the only one); `None` when none has.
pub fn next_slide(current: Option<Slide>, has: impl Fn(Slide) -> bool) -> Option<Slide> {
    let start = current
        .and_then(|c| Slide::CYCLE.iter().position(|&s| s == c))
        .map_or(0, |i| i + 1);
    (0..Slide::CYCLE.len())
        .map(|k| Slide::CYCLE[(start + k) % Slide::CYCLE.len()])
        .find(|&s| has(s))
}

/// Seconds each slide stays: several, fewer on a kiosk whose idle time is short.
pub fn slide_seconds(kiosk_idle_s: u64) -> u32 {
    u32::try_from((kiosk_idle_s / 12).clamp(4, 10)).unwrap_or(10)
}

/// The room the game slide shows: the first one being played.
pub fn playing(lobby: &[RoomSummary]) -> Option<&RoomSummary> {
    lobby.iter().find(|r| r.phase == Phase::Playing)
}

/// How many results and leaders a slide lists: what 800×480 shows whole.
const RESULTS: usize = 4;
const LEADERS: usize = 3;

/// The ladders' top and the latest rated results, from the leaderboards and the leaders'
/// profiles.
#[derive(Debug, Clone, Default, PartialEq)]
struct Happenings {
    leaders: Vec<(Game, Vec<LeaderRow>)>,
    results: Vec<GameView>,
    /// The day's puzzles (PZ4).
    daily: Vec<protocol::http::DailyPuzzle>,
}

async fn fetch_boards() -> Happenings {
    let mut out = Happenings::default();
    if let Ok(d) = api::daily_puzzles().await {
        out.daily = d.puzzles;
    }
    let mut names: Vec<String> = Vec::new();
    for game in [Game::Xo, Game::Infinite] {
        let Ok(board) = api::leaderboard(game, None).await else {
            continue;
        };
        let top: Vec<LeaderRow> = board
            .players
            .into_iter()
            .filter(|p| p.games > 0)
            .take(LEADERS)
            .collect();
        for p in &top {
            if !names.contains(&p.username) {
                names.push(p.username.clone());
            }
        }
        if !top.is_empty() {
            out.leaders.push((game, top));
        }
    }
    // Every rated game has a player on a ladder; the leaders' recent games hold the latest.
    for name in names.iter().take(4) {
        if let Ok(profile) = api::profile(name).await {
            for g in profile.recent_games {
                if !out.results.iter().any(|r| r.game.id == g.game.id) {
                    out.results.push(g);
                }
            }
        }
    }
    out.results
        .sort_by_key(|g| std::cmp::Reverse(g.game.ended_at_ms));
    out.results.truncate(RESULTS);
    out
}

#[component]
pub fn Attract() -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let boards = use_state(Happenings::default);
    let tick = use_state(|| 0u32);
    {
        // Asked again every few slides: a result stored meanwhile joins the cycle.
        let boards = boards.clone();
        use_effect_with(*tick / 6, move |_| {
            wasm_bindgen_futures::spawn_local(async move { boards.set(fetch_boards().await) });
        });
    }
    let game_room = playing(&ctx.state.lobby).cloned();
    let has = {
        let (boards, live) = ((*boards).clone(), game_room.is_some());
        move |s: Slide| match s {
            Slide::Game => live,
            Slide::Results => !boards.results.is_empty(),
            Slide::Leaders => !boards.leaders.is_empty(),
            Slide::Puzzle => !boards.daily.is_empty(),
        }
    };
    let slide = use_state_eq(|| None::<Slide>);
    // The first slide as soon as there is one; then the next one every few seconds.
    if slide.is_none_or(|s| !has(s)) {
        let first = next_slide(*slide, &has);
        if first != *slide {
            slide.set(first);
        }
    }
    {
        let tick = tick.clone();
        let seconds = slide_seconds(ctx.state.kiosk_idle_s);
        use_effect_with(seconds, move |s| {
            let mut n = 0u32;
            let interval = Interval::new(s * 1000, move || {
                n = n.wrapping_add(1);
                tick.set(n);
            });
            move || drop(interval)
        });
    }
    {
        let slide = slide.clone();
        let has = has.clone();
        use_effect_with(*tick, move |t| {
            if *t > 0 {
                slide.set(next_slide(*slide, &has));
            }
        });
    }
    let body = match *slide {
        Some(Slide::Game) => match &game_room {
            Some(room) => html! { <LiveMini key={room.id.clone()} summary={room.clone()} /> },
            None => html! {},
        },
        Some(Slide::Results) => html! {
            <section class="attract-slide" id="attract-results" aria-labelledby="attract-results-title">
                <h2 id="attract-results-title">{ ctx.t(T::AttractResults) }</h2>
                <ol class="attract-list">
                    { for boards.results.iter().map(|g| html! {
                        <li class="attract-row">
                            <span class="attract-game">{ lang.game(g.game.game) }</span>
                            { " · " }
                            <span>{ lang.f(T::Versus, &[&room_model::player_name(&g.game.x, lang), &room_model::player_name(&g.game.o, lang)]) }</span>
                            <span class="attract-result">{ stored_result(g, lang) }</span>
                        </li>
                    }) }
                </ol>
            </section>
        },
        Some(Slide::Leaders) => html! {
            <section class="attract-slide" id="attract-leaders" aria-labelledby="attract-leaders-title">
                <h2 id="attract-leaders-title">{ ctx.t(T::AttractLeaders) }</h2>
                { for boards.leaders.iter().map(|(game, rows)| html! {
                    <>
                        <h3 class="attract-ladder">{ lang.game(*game) }</h3>
                        <ol class="attract-list">
                            { for rows.iter().map(|p| html! {
                                <li class="attract-row">
                                    // In the page's direction; the name and numbers are isolated.
                                    { lang.f(T::AttractRow, &[&lang.num(p.rank), &p.username, &lang.num(p.rating)]) }
                                </li>
                            }) }
                        </ol>
                    </>
                }) }
            </section>
        },
        // The day's puzzles take turns, one per pass of the cycle.
        Some(Slide::Puzzle) if !boards.daily.is_empty() => {
            let p = &boards.daily[(*tick as usize / Slide::CYCLE.len()) % boards.daily.len()];
            html! { <PuzzleMini key={p.puzzle.clone()} puzzle={p.clone()} /> }
        }
        // Nothing happening yet: the invitation alone.
        Some(Slide::Puzzle) | None => html! {
            <section class="attract-slide" id="attract-welcome">
                <h2>{ ctx.t(T::AttractWelcome) }</h2>
            </section>
        },
    };
    html! {
        <section class="attract" id="attract" data-slide={slide.map_or("welcome", Slide::name)}>
            { body }
            <p class="attract-touch">{ ctx.t(T::AttractTouch) }</p>
        </section>
    }
}

#[derive(Debug, Properties, PartialEq)]
struct PuzzleMiniProps {
    puzzle: protocol::http::DailyPuzzle,
}

/// The day's puzzle: its board and its task. The daily list has no board, so the slide starts
/// an attempt of its own, on a WebSocket of its own, to show the start.
#[component]
fn PuzzleMini(props: &PuzzleMiniProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let board = use_state(|| None::<BoardModel>);
    {
        let board = board.clone();
        use_effect_with(props.puzzle.game, move |game| {
            let game = *game;
            let socket: Rc<RefCell<Option<Socket>>> = Rc::new(RefCell::new(None));
            let on_action = {
                let socket = socket.clone();
                Callback::from(move |action: Action| match action {
                    Action::Connected => {
                        if let Some(s) = socket.borrow().as_ref() {
                            s.send(ClientMsg::PuzzleStart {
                                id: None,
                                source: protocol::PuzzleSource::Daily { game },
                            });
                        }
                    }
                    Action::Server {
                        msg: ServerMsg::Puzzle { attempt, .. },
                        ..
                    } => {
                        let start = crate::puzzle_model::positions(&attempt);
                        board.set(start.first().map(BoardModel::from_position));
                    }
                    _ => {}
                })
            };
            *socket.borrow_mut() = Some(Socket::connect(on_action));
            move || {
                if let Some(s) = socket.borrow_mut().take() {
                    s.close();
                }
            }
        });
    }
    let p = &props.puzzle;
    html! {
        <section class="attract-slide attract-game" id="attract-puzzle" aria-labelledby="attract-puzzle-title">
            <h2 id="attract-puzzle-title">{ ctx.t(T::PuzzleOfDay) }</h2>
            <div class="attract-game-body">
                <div class="attract-board">
                    if let Some(b) = *board {
                        <Board model={b} may_move={false} id="attract-puzzle-board" />
                    }
                </div>
                <div class="attract-caption">
                    <p class="attract-players"><strong>{ lang.game(p.game) }</strong></p>
                    <p class="attract-turn" id="attract-puzzle-task">{ crate::puzzle_model::task_of(p.kind, p.to_move, lang) }</p>
                    <p class="attract-players">{ lang.f(T::SolvedToday, &[&lang.num(p.solved_today)]) }</p>
                </div>
            </div>
        </section>
    }
}

#[derive(Debug, Properties, PartialEq)]
struct LiveMiniProps {
    summary: RoomSummary,
}

/// A game being played, on a board that follows it move by move.
#[component]
fn LiveMini(props: &LiveMiniProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let view = use_state(|| None::<RoomView>);
    {
        let view = view.clone();
        use_effect_with(props.summary.id.clone(), move |id| {
            let id = id.clone();
            let socket: Rc<RefCell<Option<Socket>>> = Rc::new(RefCell::new(None));
            let on_action = {
                let socket = socket.clone();
                Callback::from(move |action: Action| match action {
                    Action::Connected => {
                        if let Some(s) = socket.borrow().as_ref() {
                            s.send(ClientMsg::Open {
                                id: None,
                                room: id.clone(),
                            });
                        }
                    }
                    Action::Server {
                        msg: ServerMsg::Room { room, .. },
                        ..
                    } if room.id == id => view.set(Some(*room)),
                    _ => {}
                })
            };
            *socket.borrow_mut() = Some(Socket::connect(on_action));
            move || {
                if let Some(s) = socket.borrow_mut().take() {
                    s.close();
                }
            }
        });
    }
    let s = room_model::summary_text(&props.summary, lang);
    html! {
        <section class="attract-slide attract-game" id="attract-game" aria-labelledby="attract-game-title">
            <h2 id="attract-game-title">{ ctx.t(T::AttractPlaying) }</h2>
            <div class="attract-game-body">
                <div class="attract-board">
                    if let Some(v) = &*view {
                        <Board model={BoardModel::from_room(v)} may_move={false} id="attract-board" />
                    }
                </div>
                <div class="attract-caption">
                    <p class="attract-players"><strong>{ s.game }</strong></p>
                    <p class="attract-players">{ s.players }</p>
                    if let Some(v) = &*view {
                        <p class="attract-turn" id="attract-turn">{ room_model::rail_text(v, lang) }</p>
                    }
                </div>
            </div>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cycle_skips_slides_with_nothing_to_show_and_the_puzzle_until_there_is_one() {
        let all_but_puzzle = |s: Slide| s != Slide::Puzzle;
        assert_eq!(next_slide(None, all_but_puzzle), Some(Slide::Game));
        assert_eq!(
            next_slide(Some(Slide::Game), all_but_puzzle),
            Some(Slide::Results)
        );
        assert_eq!(
            next_slide(Some(Slide::Leaders), all_but_puzzle),
            Some(Slide::Game)
        );
        let no_game = |s: Slide| matches!(s, Slide::Results | Slide::Leaders);
        assert_eq!(next_slide(None, no_game), Some(Slide::Results));
        assert_eq!(
            next_slide(Some(Slide::Leaders), no_game),
            Some(Slide::Results)
        );
        let only_game = |s: Slide| s == Slide::Game;
        assert_eq!(next_slide(Some(Slide::Game), only_game), Some(Slide::Game));
        assert_eq!(next_slide(Some(Slide::Game), |_| false), None);
        // Once the day's puzzle exists, it has its place after the ladders.
        assert_eq!(
            next_slide(Some(Slide::Leaders), |_| true),
            Some(Slide::Puzzle)
        );
    }

    #[test]
    fn slides_stay_several_seconds() {
        assert_eq!(slide_seconds(120), 10);
        assert_eq!(slide_seconds(60), 5);
        assert_eq!(slide_seconds(3), 4);
    }
}
