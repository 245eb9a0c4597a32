//! Arena events (EV2, EV5, EV6): the kiosk's event board (the countdown or time left, the top
//! of the standings with streaks, the games in progress to watch, the QR code to the event's
//! page; after the end the podium), the phones' event list and event page (join, pause,
//! leave; the standings with the reader's row marked; after the end the podium and every game
//! with its replay), and the lobby's line for the event on now.

use gloo::timers::callback::Interval;
use protocol::ClientMsg;
use protocol::event::{EntrantState, EventPhase, EventRow, EventView};
use protocol::http::{EventGameRow, EventSummary};
use yew::prelude::*;

use crate::api;
use crate::dom;
use crate::event_model::{
    BOARD_ROWS, BoardPick, LiveEvent, clock, is_live, on_streak, pick_board, podium_due,
    podium_steps,
};
use crate::i18n::{Lang, T};
use crate::route::Route;
use crate::state::Conn;

use super::context::{Ctx, use_ctx};
use super::icon::{Icon, icon};
use super::link::Link;
use super::navbar::Navbar;
use super::qr::Qr;

/// How often the kiosk's home looks for the event on now.
const LIST_POLL_MS: u32 = 10_000;
/// How often a phone's lobby and event list are read again (many phones: less often).
const PHONE_LIST_POLL_MS: u32 = 30_000;

/// Re-renders the component every second (the clocks).
#[hook]
fn use_tick() {
    let tick = use_state(|| 0u32);
    use_effect_with((), move |_| {
        let interval = Interval::new(1000, move || tick.set(tick.wrapping_add(1)));
        move || drop(interval)
    });
}

/// Keeps event `id` in the app's state, watched over the WebSocket (its snapshot and every
/// change, again after a reconnection); its finished games are read over HTTP at once and
/// again when its phase changes (after the end: every game).
#[hook]
fn use_event(id: String) -> Option<Vec<EventGameRow>> {
    let ctx = use_ctx();
    let games = use_state_eq(|| None::<Vec<EventGameRow>>);
    let phase = live(&ctx, &id).map(|e| e.view.phase);
    {
        let games = games.clone();
        use_effect_with((id.clone(), phase), move |(id, _)| {
            let id = id.clone();
            wasm_bindgen_futures::spawn_local(async move {
                if let Ok(list) = api::event_games(&id).await {
                    games.set(Some(list));
                }
            });
        });
    }
    {
        let send = ctx.send.clone();
        use_effect_with((id, ctx.state.conn), move |(id, conn)| {
            let open = *conn == Conn::Open;
            if open {
                send.emit(ClientMsg::WatchEvent {
                    id: None,
                    event: id.clone(),
                });
            }
            move || {
                if open {
                    send.emit(ClientMsg::UnwatchEvent { id: None });
                }
            }
        });
    }
    (*games).clone()
}

/// The event the app holds, if it is `id`.
fn live<'a>(ctx: &'a Ctx, id: &str) -> Option<&'a LiveEvent> {
    ctx.state.event.as_ref().filter(|e| e.view.event == id)
}

/// Where an event is: the countdown, the time left, the last games, or over.
pub fn when(lang: Lang, phase: EventPhase, starts_in_ms: u64, ends_in_ms: u64) -> String {
    match phase {
        EventPhase::Announced => lang.f(T::EventStartsIn, &[&lang.num(clock(starts_in_ms))]),
        EventPhase::Running => lang.f(T::EventLeft, &[&lang.num(clock(ends_in_ms))]),
        EventPhase::Ending => lang.t(T::EventEnding).to_owned(),
        EventPhase::Finished => lang.t(T::PhaseFinished).to_owned(),
        EventPhase::Cancelled => lang.t(T::EventCancelledTag).to_owned(),
    }
}

/// [`when`] for the event on screen, now.
fn status(lang: Lang, e: &LiveEvent) -> String {
    let now = dom::now_ms();
    when(lang, e.view.phase, e.starts_in(now), e.ends_in(now))
}

/// "XO · Rated" or "Infinite XO · 10 s · Casual".
fn kind(lang: Lang, view: &EventView) -> String {
    let rated = lang.t(if view.rated {
        T::KindPlayer
    } else {
        T::EventCasual
    });
    match view.game {
        engine::Game::Xo => format!("{} · {rated}", lang.game(view.game)),
        engine::Game::Infinite => format!(
            "{} · {} · {rated}",
            lang.game(view.game),
            lang.f(T::Seconds, &[&lang.num(view.per_move_ms / 1000)])
        ),
    }
}

/// The streak mark: a flame and the wins in a row, said in words to screen readers.
fn streak(lang: Lang, row: &EventRow) -> Html {
    if !on_streak(row) {
        return html! {};
    }
    html! {
        <span class="streak" title={lang.f(T::EventStreak, &[&lang.num(row.streak)])}>
            { icon(Icon::Fire) }{ lang.num(row.streak) }
            <span class="sr-only">{ lang.f(T::EventStreak, &[&lang.num(row.streak)]) }</span>
        </span>
    }
}

/// The standings table: at most `limit` rows, then "and N more"; `me`'s row is marked.
fn standings(ctx: &Ctx, e: &LiveEvent, limit: usize, me: Option<u64>) -> Html {
    let lang = ctx.lang();
    let rows = &e.view.standings;
    if rows.is_empty() {
        return html! { <p class="note" id="standings-empty">{ ctx.t(T::EventNoStandings) }</p> };
    }
    let more = rows.len().saturating_sub(limit);
    html! {
        <>
            <table class="standings" id="standings">
                <thead><tr>
                    <th scope="col" class="rank">{ ctx.t(T::EventRank) }</th>
                    <th scope="col">{ ctx.t(T::EventColPlayer) }</th>
                    <th scope="col" class="num">{ ctx.t(T::EventColPoints) }</th>
                    <th scope="col" class="num">{ ctx.t(T::EventColGames) }</th>
                </tr></thead>
                <tbody>
                    { for rows.iter().take(limit).map(|r| {
                        let mine = me == Some(r.user);
                        html! {
                            <tr class={classes!("standing", mine.then_some("me"))} data-user={r.user.to_string()}
                                aria-current={mine.then_some("true")}>
                                <td class="rank">{ lang.num(r.rank) }</td>
                                <td class="who"><bdi>{ r.name.clone() }</bdi>{ streak(lang, r) }</td>
                                <td class="num pts">{ lang.num(r.points) }</td>
                                <td class="num">{ lang.num(r.games) }</td>
                            </tr>
                        }
                    }) }
                </tbody>
            </table>
            <p class="note standings-more" id="event-players">
                { lang.f(T::EventPlayers, &[&lang.num(e.view.players)]) }
                if more > 0 { { " · " }{ lang.f(T::EventMore, &[&lang.num(more)]) } }
            </p>
        </>
    }
}

/// The games in progress, each a link to watch it.
fn boards(ctx: &Ctx, e: &LiveEvent, kiosk: bool) -> Html {
    let lang = ctx.lang();
    if e.view.boards.is_empty() {
        return html! { <p class="note">{ ctx.t(T::EventNoBoards) }</p> };
    }
    html! {
        <ul class="room-list event-boards" id="event-boards">
            { for e.view.boards.iter().map(|b| html! {
                <li class="room-row">
                    <Link to={Route::Room { id: b.room.clone(), kiosk }} class="room-link">
                        <span class="room-main">{ lang.f(T::Versus, &[&e.name(b.x), &e.name(b.o)]) }</span>
                        <span class="room-action">{ ctx.t(T::Watch) }</span>
                    </Link>
                </li>
            }) }
        </ul>
    }
}

/// The podium: 2nd, 1st, 3rd side by side (ties share a step).
fn podium(ctx: &Ctx, e: &LiveEvent) -> Html {
    let lang = ctx.lang();
    let [first, second, third] = podium_steps(&e.view.podium);
    let step = |n: u32, rows: Vec<&EventRow>| {
        html! {
            <li class={format!("step step-{n}")}>
                <span class="place">{ lang.num(n) }</span>
                { for rows.iter().map(|r| html! {
                    <span class="podium-name"><bdi>{ r.name.clone() }</bdi>
                        <span class="podium-pts">{ lang.f(T::EventPoints, &[&lang.num(r.points)]) }</span>
                    </span>
                }) }
            </li>
        }
    };
    html! {
        <section class="podium-box" aria-labelledby="podium-title">
            <h2 id="podium-title">{ ctx.t(T::EventPodium) }</h2>
            if e.view.podium.is_empty() {
                <p class="note">{ ctx.t(T::EventNoGames) }</p>
            } else {
                <ol class="podium" id="podium">
                    { step(2, second) }{ step(1, first) }{ step(3, third) }
                </ol>
            }
        </section>
    }
}

/// The address of the event's page for phones, from the address they open.
fn event_url(public_url: &str, id: &str) -> String {
    format!(
        "{}{}",
        public_url.trim_end_matches('/'),
        Route::Event(id.to_owned()).path()
    )
}

/// Which event the kiosk's home shows (EV6), looked for every few seconds: the one running,
/// a finished one's podium for a few minutes, or the next one announced.
#[hook]
pub fn use_board_event() -> Option<String> {
    let shown = use_state_eq(|| None::<String>);
    {
        let shown = shown.clone();
        use_effect_with((), move |_| {
            let look = move || {
                let shown = shown.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    let Ok(events) = api::events().await else {
                        return;
                    };
                    // The kiosk's clock is the server's: it runs on the same machine.
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    let now = dom::now_ms() as u64;
                    let pick = match pick_board(&events, now) {
                        BoardPick::Live(id) => Some(id),
                        BoardPick::Recent(id) => match api::event_games(&id).await {
                            Ok(games) => {
                                let time_up = events
                                    .iter()
                                    .find(|e| e.id == id)
                                    .map_or(0, |e| e.starts_at_ms + e.duration_ms);
                                let last = games.iter().map(|g| g.ended_at_ms).max();
                                podium_due(time_up, last, now).then_some(id)
                            }
                            Err(_) => None,
                        },
                        BoardPick::None => None,
                    };
                    let pick = pick.or_else(|| {
                        events
                            .iter()
                            .filter(|e| e.phase == EventPhase::Announced)
                            .min_by_key(|e| e.starts_in_ms)
                            .map(|e| e.id.clone())
                    });
                    shown.set(pick);
                });
            };
            look();
            let interval = Interval::new(LIST_POLL_MS, look);
            move || drop(interval)
        });
    }
    (*shown).clone()
}

#[derive(Debug, Properties, PartialEq)]
pub struct BoardProps {
    pub id: AttrValue,
    /// Shows the kiosk's own home (Play a friend, the bot …) instead.
    pub on_play: Callback<MouseEvent>,
}

/// The kiosk's home while an event is on (EV6).
#[component]
pub fn EventBoard(props: &BoardProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let _games = use_event(props.id.to_string());
    use_tick();
    let Some(e) = live(&ctx, &props.id) else {
        return html! {
            <>
                <Navbar />
                <main id="main" class="event-board"><p role="status">{ ctx.t(T::Loading) }</p></main>
            </>
        };
    };
    let over = e.view.phase == EventPhase::Finished;
    let join = ctx.state.public_url.clone().map(|address| {
        let url = event_url(&address, &e.view.event);
        html! {
            <div class="qr-card event-qr">
                <Qr id="event-qr" text={AttrValue::from(url.clone())} label={AttrValue::from(lang.f(T::QrLabel, &[&url]))} />
                <div class="qr-text">
                    <h2>{ ctx.t(T::EventScanToJoin) }</h2>
                    <p class="note">{ ctx.t(T::EventScoring) }</p>
                </div>
            </div>
        }
    });
    // The kiosk's own games stay a touch away, in the navbar.
    let actions = html! {
        <button type="button" class="play-here" id="event-play-here" onclick={props.on_play.clone()}>{ ctx.t(T::EventPlayHere) }</button>
    };
    html! {
        <>
            <Navbar {actions} />
            <main id="main" class={classes!("event-board", over.then_some("over"))}>
                <header class="event-head">
                    <h1 id="event-name"><bdi>{ e.view.name.clone() }</bdi></h1>
                    <span class="event-kind">{ kind(lang, &e.view) }</span>
                    <span class="event-clock" id="event-clock" role="timer">{ status(lang, e) }</span>
                </header>
                <section class="event-main" aria-label={ctx.t(T::EventStandings)}>
                    if over {
                        { podium(&ctx, e) }
                    } else {
                        { standings(&ctx, e, BOARD_ROWS, None) }
                    }
                </section>
                <section class="event-side">
                    if over {
                        <h2>{ ctx.t(T::EventStandings) }</h2>
                        { standings(&ctx, e, BOARD_ROWS, None) }
                    } else {
                        { join.unwrap_or_default() }
                        <h2>{ ctx.t(T::EventPlayingNow) }</h2>
                        { boards(&ctx, e, true) }
                    }
                </section>
            </main>
        </>
    }
}

/// One event in a list: its name, where it is, its game and players.
fn summary_row(lang: Lang, e: &EventSummary) -> Html {
    let when = when(lang, e.phase, e.starts_in_ms, e.ends_in_ms);
    html! {
        <li class="room-row" data-event={e.id.clone()}>
            <Link to={Route::Event(e.id.clone())} class="room-link">
                <span class="room-main"><strong><bdi>{ e.name.clone() }</bdi></strong>{ " · " }{ when }</span>
                <span class="room-meta">{ format!("{} · {}", lang.game(e.game), lang.f(T::EventPlayers, &[&lang.num(e.players)])) }</span>
            </Link>
        </li>
    }
}

/// The events, asked again every few seconds.
#[hook]
fn use_events() -> Option<Vec<EventSummary>> {
    let events = use_state_eq(|| None::<Vec<EventSummary>>);
    {
        let events = events.clone();
        use_effect_with((), move |_| {
            let read = move || {
                let events = events.clone();
                wasm_bindgen_futures::spawn_local(async move {
                    if let Ok(list) = api::events().await {
                        events.set(Some(list));
                    }
                });
            };
            read();
            let interval = Interval::new(PHONE_LIST_POLL_MS, read);
            move || drop(interval)
        });
    }
    (*events).clone()
}

/// `/events`: the events on now or coming, then the finished ones, newest first.
#[component]
pub fn EventsPage() -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let events = use_events();
    let body = match &events {
        None => html! { <p role="status">{ ctx.t(T::Loading) }</p> },
        Some(list) if list.is_empty() => html! { <p class="note">{ ctx.t(T::EventsNone) }</p> },
        Some(list) => {
            let now = list.iter().filter(|e| is_live(e.phase));
            let past = list
                .iter()
                .rev()
                .filter(|e| e.phase == EventPhase::Finished);
            html! {
                <>
                    <ul class="room-list" id="events-live">{ for now.map(|e| summary_row(lang, e)) }</ul>
                    <h2>{ ctx.t(T::EventsPast) }</h2>
                    <ul class="room-list" id="events-past">{ for past.map(|e| summary_row(lang, e)) }</ul>
                </>
            }
        }
    };
    html! {
        <>
            <Navbar title={AttrValue::from(ctx.t(T::EventsTitle))} />
            <main id="main" class="page narrow events-page">
                <h1>{ ctx.t(T::EventsTitle) }</h1>
                { body }
            </main>
        </>
    }
}

/// The lobby's line for the event on now, with a way in.
#[component]
pub fn LobbyEvent() -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let events = use_events();
    let Some(e) = events
        .as_ref()
        .and_then(|l| l.iter().find(|e| is_live(e.phase)))
    else {
        return html! {};
    };
    let when = when(lang, e.phase, e.starts_in_ms, e.ends_in_ms);
    html! {
        <section class="lobby-event" id="lobby-event">
            <p><strong><bdi>{ e.name.clone() }</bdi></strong>{ " · " }{ lang.game(e.game) }{ " · " }{ when }</p>
            <Link to={Route::Event(e.id.clone())} class="button-link primary">{ ctx.t(T::EventJoin) }</Link>
        </section>
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct EventPageProps {
    pub id: AttrValue,
}

/// `/events/ID` on a phone (EV2, EV5): the event, the reader's place and actions, the
/// standings with their row marked, the games in progress; after the end the podium and every
/// game with its replay.
#[component]
pub fn EventPage(props: &EventPageProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let games = use_event(props.id.to_string());
    use_tick();
    let me = ctx.state.account.clone().flatten().map(|a| a.id);
    let Some(e) = live(&ctx, &props.id) else {
        return html! {
            <>
                <Navbar title={AttrValue::from(ctx.t(T::EventsTitle))} />
                <main id="main" class="page narrow"><p role="status">{ ctx.t(T::Loading) }</p></main>
            </>
        };
    };
    let over = matches!(e.view.phase, EventPhase::Finished | EventPhase::Cancelled);
    let game_rows = games.unwrap_or_default();
    html! {
        <>
            <Navbar title={AttrValue::from(ctx.t(T::EventsTitle))} />
            <main id="main" class="page narrow event-page">
                <h1 id="event-name"><bdi>{ e.view.name.clone() }</bdi></h1>
                <p class="event-meta">
                    <span>{ kind(lang, &e.view) }</span>{ " · " }
                    <span id="event-clock" role="timer">{ status(lang, e) }</span>
                </p>
                if !over {
                    { you_box(&ctx, e, me.is_some()) }
                    <p class="note">{ ctx.t(T::EventScoring) }</p>
                }
                if e.view.phase == EventPhase::Finished {
                    { podium(&ctx, e) }
                }
                <section aria-labelledby="standings-title">
                    <h2 id="standings-title">{ ctx.t(T::EventStandings) }</h2>
                    { standings(&ctx, e, usize::MAX, me) }
                </section>
                if !over {
                    <section>
                        <h2>{ ctx.t(T::EventPlayingNow) }</h2>
                        { boards(&ctx, e, false) }
                    </section>
                }
                if !game_rows.is_empty() {
                    <section>
                        <h2>{ ctx.t(T::EventGames) }</h2>
                        <ul class="room-list" id="event-games">
                            { for game_rows.iter().rev().map(|g| html! {
                                <li class="room-row">
                                    <Link to={Route::Replay(g.game_id.clone())} class="room-link">
                                        <span class="room-main">{ lang.f(T::Versus, &[&e.name(g.x), &e.name(g.o)]) }</span>
                                        <span class="room-action" dir="ltr">{ format!("{}–{}", lang.num(g.x_points), lang.num(g.o_points)) }</span>
                                    </Link>
                                </li>
                            }) }
                        </ul>
                    </section>
                }
            </main>
        </>
    }
}

/// The reader's place in the event and what they may do (EV2).
fn you_box(ctx: &Ctx, e: &LiveEvent, signed_in: bool) -> Html {
    if !signed_in {
        return html! {
            <div class="event-you" id="event-you">
                <Link to={Route::SignIn} class="button-link primary">{ ctx.t(T::EventSignInToJoin) }</Link>
            </div>
        };
    }
    let event = e.view.event.clone();
    let button = |id: &'static str, label: T, primary: bool, make: fn(String) -> ClientMsg| {
        let (send, event) = (ctx.send.clone(), event.clone());
        let onclick = Callback::from(move |_| send.emit(make(event.clone())));
        html! {
            <button type="button" class={classes!(primary.then_some("primary"))} {id} {onclick}>{ ctx.t(label) }</button>
        }
    };
    let join = || {
        button("event-join", T::EventJoin, true, |event| {
            ClientMsg::JoinEvent { id: None, event }
        })
    };
    let pause = || {
        button("event-pause", T::EventPause, false, |event| {
            ClientMsg::PauseEvent { id: None, event }
        })
    };
    let leave = || {
        button("event-leave", T::EventLeave, false, |event| {
            ClientMsg::LeaveEvent { id: None, event }
        })
    };
    let resume = || {
        button("event-resume", T::EventResume, true, |event| {
            ClientMsg::ResumeEvent { id: None, event }
        })
    };
    let joinable = e.view.phase != EventPhase::Ending;
    let body = match e.view.you.as_ref().map(|y| (y.state, y.room.clone())) {
        None => html! { if joinable { { join() } } },
        Some((EntrantState::Left, _)) => html! {
            <>
                <p id="event-you-state">{ ctx.t(T::EventYouLeft) }</p>
                if joinable { { join() } }
            </>
        },
        Some((EntrantState::Paused, _)) => html! {
            <>
                <p id="event-you-state">{ ctx.t(T::EventYouPaused) }</p>
                { resume() }{ leave() }
            </>
        },
        Some((state, room)) => {
            let said = match state {
                EntrantState::Playing => T::EventYouPlaying,
                EntrantState::Away => T::EventYouAway,
                _ => T::EventYouWaiting,
            };
            html! {
                <>
                    <p id="event-you-state">{ ctx.t(said) }</p>
                    if let Some(room) = room {
                        <Link to={Route::Room { id: room, kiosk: false }} class="button-link primary">{ ctx.t(T::EventToGame) }</Link>
                    }
                    { pause() }{ leave() }
                </>
            }
        }
    };
    html! { <div class="event-you" id="event-you">{ body }</div> }
}
