//! The root: owns the reducer and the WebSocket, and runs the effects that keep the page,
//! the address bar, local storage and the server in step with the state.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::events::EventListener;
use gloo::timers::callback::Interval;
use protocol::{ClientMsg, RoomView};
use yew::prelude::*;

use crate::api;
use crate::dom;
use crate::i18n::{Lang, T};
use crate::route::{Bundle, OwnerSection, Route};
use crate::state::{
    Action, AppState, Conn, attract_due, idle_return_due, lang_reset_due, sleep_due,
    still_playing_left,
};
use crate::ws::Socket;

use super::context::Ctx;
use super::game_replay::GameReplay;
use super::home::Home;
use super::kiosk::Kiosk;
use super::leaderboard::LeaderboardPage;
use super::live_region::LiveRegion;
use super::navbar::Navbar;
use super::profile::ProfilePage;
use super::prompts::Prompts;
use super::room::RoomPage;
use super::rules::Rules;
use super::sign_in::SignIn;

/// The pages one bundle shows. Each entry point names its own function, so that the other
/// bundle's pages are never linked into its download.
#[derive(Debug, Clone, Copy)]
pub struct Pages {
    pub bundle: Bundle,
    /// The page of a route of this bundle; `None` for the other bundle's routes and "not
    /// found".
    pub render: fn(&Route) -> Option<Html>,
}

impl PartialEq for Pages {
    fn eq(&self, other: &Pages) -> bool {
        self.bundle == other.bundle
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct AppProps {
    pub pages: Pages,
}

/// Every page but the owner's (`kiosk-ui.js`).
pub fn main_page(route: &Route) -> Option<Html> {
    Some(match route {
        Route::Home => html! { <Home /> },
        Route::Kiosk => html! { <Kiosk /> },
        Route::Room { id, kiosk } => html! { <RoomPage id={id.clone()} kiosk={*kiosk} /> },
        Route::Puzzles => html! { <super::puzzle::PuzzlesPage /> },
        Route::Puzzle { what, kiosk } => {
            html! { <super::puzzle::PuzzlePage what={what.clone()} kiosk={*kiosk} /> }
        }
        Route::Replay(id) => html! { <GameReplay id={id.clone()} /> },
        // In the main bundle: a phone on an event's page is moved into each game it is paired
        // into, without a page load.
        Route::Events => html! { <super::event::EventsPage /> },
        Route::Event(id) => html! { <super::event::EventPage id={id.clone()} /> },
        // Its path starts with `/puzzles`, which loads the main bundle.
        Route::Streaks(game) => html! { <super::leaderboard::StreakBoardPage game={*game} /> },
        _ => return None,
    })
}

/// Sign-in, profiles, leaderboards and the rules (`kiosk-pages.js`).
pub fn pages_page(route: &Route) -> Option<Html> {
    Some(match route {
        Route::Profile(name) => html! { <ProfilePage name={name.clone()} /> },
        Route::PuzzleReplay { name, id } => {
            html! { <super::puzzle_replay::PuzzleReplay name={name.clone()} id={*id} /> }
        }
        Route::Leaderboard(game) => html! { <LeaderboardPage game={*game} /> },
        Route::SignIn => html! { <SignIn /> },
        Route::Rules => html! { <Rules /> },
        Route::ArchivedLeaderboard { game, season } => {
            html! { <LeaderboardPage game={*game} season={Some(*season)} /> }
        }
        _ => return None,
    })
}

/// The owner's pages (`kiosk-owner.js`).
pub fn owner_page(route: &Route) -> Option<Html> {
    use super::{owner, owner_backup, owner_players, owner_rooms, owner_seasons, owner_update};
    let Route::Owner(section) = route else {
        return None;
    };
    Some(match section {
        OwnerSection::Hub => html! { <owner::OwnerPage /> },
        OwnerSection::Players => html! { <owner_players::OwnerPlayersPage /> },
        OwnerSection::Rooms => html! { <owner_rooms::OwnerRoomsPage /> },
        OwnerSection::Seasons => html! { <owner_seasons::OwnerSeasonsPage /> },
        OwnerSection::Backup => html! { <owner_backup::OwnerBackupPage /> },
        OwnerSection::Update => html! { <owner_update::OwnerUpdatePage /> },
        OwnerSection::Health => html! { <owner_update::OwnerHealthPage /> },
        OwnerSection::Settings => html! { <super::owner_settings::OwnerSettings /> },
        OwnerSection::Events => html! { <super::owner_events::OwnerEventsPage /> },
    })
}

/// What the kiosk's idle timer reads; refreshed at every render.
#[derive(Default)]
struct IdleView {
    route: Route,
    room: Option<RoomView>,
    idle_s: u64,
    lang: Lang,
    lang_chosen: bool,
    attract: bool,
    asleep: bool,
    /// The screen's sleep hours, its own idle time.
    sleep: (Option<(u16, u16)>, u64),
}

/// Tells the server whether the kiosk's screen sleeps; a failure only costs the display's
/// power saving (the page is black either way), so it is logged, not shown.
fn report_screen(asleep: bool) {
    wasm_bindgen_futures::spawn_local(async move {
        if let Err(e) = api::report_screen(asleep).await {
            gloo::console::warn!(format!("reporting the screen's sleep: {e:?}"));
        }
    });
}

#[component]
pub fn App(props: &AppProps) -> Html {
    let pages = props.pages;
    let state = use_reducer(|| {
        let route = Route::parse(&dom::current_path());
        let stored = dom::stored_lang(route.is_kiosk());
        AppState {
            lang: stored.unwrap_or_default(),
            lang_chosen: stored.is_some(),
            route,
            ..AppState::default()
        }
    });
    let socket: Rc<RefCell<Option<Socket>>> = use_mut_ref(|| None);

    // Once: the connection, the back button, the configuration and the account.
    {
        let state = state.clone();
        let socket = socket.clone();
        use_effect_with((), move |_| {
            let dispatcher = state.dispatcher();
            let to_reducer = Callback::from(move |a: Action| dispatcher.dispatch(a));
            *socket.borrow_mut() = Some(Socket::connect(to_reducer));
            let d = state.dispatcher();
            let popstate = dom::window().map(|w| {
                EventListener::new(&w, "popstate", move |_| {
                    d.dispatch(Action::Navigate(Route::parse(&dom::current_path())));
                })
            });
            let d = state.dispatcher();
            wasm_bindgen_futures::spawn_local(async move {
                if let Ok(config) = api::config().await {
                    d.dispatch(Action::Config(config));
                }
                match api::me().await {
                    Ok(account) => d.dispatch(Action::Account(account)),
                    Err(_) => d.dispatch(Action::Account(None)),
                }
            });
            // The address phones should open may change (DHCP) or be unknown at first: ask
            // again every few seconds until it is known, then every half minute.
            let d = state.dispatcher();
            let known = Rc::new(RefCell::new(false));
            let ticks = Rc::new(RefCell::new(0u32));
            let refresh = Interval::new(5_000, move || {
                let tick = {
                    let mut t = ticks.borrow_mut();
                    *t = t.wrapping_add(1);
                    *t
                };
                if *known.borrow() && tick % 6 != 0 {
                    return;
                }
                let (d, known) = (d.clone(), known.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    if let Ok(config) = api::config().await {
                        *known.borrow_mut() = config.public_url.is_some();
                        d.dispatch(Action::Config(config));
                    }
                });
            });
            move || {
                drop(popstate);
                drop(refresh);
                socket.borrow_mut().take();
            }
        });
    }

    let send = {
        let socket = socket.clone();
        use_memo((), move |_| {
            Callback::from(move |msg: ClientMsg| {
                if let Some(s) = socket.borrow().as_ref() {
                    s.send(msg);
                }
            })
        })
    };
    let reconnect = {
        let socket = socket.clone();
        use_memo((), move |_| {
            Callback::from(move |()| {
                if let Some(s) = socket.borrow().as_ref() {
                    s.reconnect();
                }
            })
        })
    };

    // The language: the page's direction, and the visitor's choice remembered (U6) until the
    // kiosk hands the next visitor the owner's default language (`Action::ResetLang`).
    use_effect_with((state.lang, state.lang_chosen), |(lang, chosen)| {
        dom::apply_lang(*lang);
        if *chosen {
            dom::store_lang(*lang);
        } else {
            dom::forget_lang();
        }
    });

    // The address bar and the title follow the route.
    {
        let lang = state.lang;
        use_effect_with((state.route.clone(), lang), move |(route, lang)| {
            // The other bundle's page: load it (index.html picks the bundle by the path).
            if route.bundle().is_some_and(|b| b != pages.bundle) {
                dom::load(&route.path());
                return;
            }
            dom::push_path(&route.path());
            dom::set_kiosk_class(route.is_kiosk());
            dom::set_title(lang.t(T::AppName));
        });
    }

    // The server follows the route: the lobby list on home screens, the room on room screens.
    {
        let send = (*send).clone();
        let viewing: Rc<RefCell<Option<String>>> = use_mut_ref(|| None);
        let followed = state.followed.clone();
        use_effect_with(
            (state.route.clone(), state.conn, followed),
            move |(route, conn, followed)| {
                if *conn == Conn::Open {
                    if route.watches_lobby() {
                        send.emit(ClientMsg::WatchLobby {
                            id: None,
                            limit: None,
                        });
                    } else {
                        send.emit(ClientMsg::UnwatchLobby { id: None });
                    }
                    let wanted = route.room_id().map(str::to_owned);
                    let mut viewing = viewing.borrow_mut();
                    // After `next_room` the server already shows this connection the new room:
                    // closing the old one now would close the new one (M3.12).
                    if wanted.is_some() && wanted == *followed {
                        *viewing = wanted;
                        return;
                    }
                    // Leaving a room screen changes presence only (M3.10). After a `left` the
                    // server has already let go; its `not_in_room` answer is ignored.
                    if viewing.is_some() && *viewing != wanted {
                        send.emit(ClientMsg::Close { id: None });
                    }
                    if let Some(room) = &wanted {
                        send.emit(ClientMsg::Open {
                            id: None,
                            room: room.clone(),
                        });
                    }
                    *viewing = wanted;
                }
            },
        );
    }

    // U7: the kiosk returns home after the idle time when no game is in progress; a bot or
    // local game in progress asks "Still playing?" with a countdown, then ends (14.5). U13:
    // the end of a game the kiosk shows starts the idle time again, so a watched game's result
    // stays on screen for the idle time before the kiosk goes home; the home itself, left
    // alone for the idle time, shows what is happening (attract).
    let idle_left = use_state_eq(|| None::<u32>);
    let last_activity = use_mut_ref(dom::now_ms);
    {
        let last_activity = last_activity.clone();
        let idle_left = idle_left.clone();
        // Whether "Still playing?" is showing, for announcing it once.
        let asking = use_mut_ref(|| false);
        let idle_view = use_mut_ref(IdleView::default);
        let room = state.room.as_ref().map(|r| r.view.clone());
        {
            let mut view = idle_view.borrow_mut();
            let same_room = view.room.as_ref().map(|r| &r.id) == room.as_ref().map(|r| &r.id);
            if same_room
                && crate::room_model::in_progress(view.room.as_ref())
                && !crate::room_model::in_progress(room.as_ref())
            {
                *last_activity.borrow_mut() = dom::now_ms();
            }
            *view = IdleView {
                route: state.route.clone(),
                room,
                idle_s: state.kiosk_idle_s,
                lang: state.lang,
                lang_chosen: state.lang_chosen,
                attract: state.attract,
                asleep: state.asleep,
                sleep: (state.screen_sleep, state.screen_off_idle_s),
            };
        }
        let state = state.clone();
        let send = (*send).clone();
        use_effect_with((), move |_| {
            let listeners: Vec<EventListener> = dom::window()
                .and_then(|w| w.document())
                .map(|doc| {
                    ["pointerdown", "keydown", "touchstart"]
                        .into_iter()
                        .map(|kind| {
                            let last = last_activity.clone();
                            EventListener::new(&doc, kind, move |_| {
                                *last.borrow_mut() = dom::now_ms();
                            })
                        })
                        .collect()
                })
                .unwrap_or_default();
            let interval = Interval::new(1000, move || {
                let view = idle_view.borrow();
                let idle = dom::now_ms() - *last_activity.borrow();
                // AP3, beside the rest: a game left alone still ends under a sleeping screen.
                let (hours, off_idle_s) = view.sleep;
                if sleep_due(
                    &view.route,
                    view.asleep,
                    dom::minute_of_day(),
                    idle,
                    (hours, off_idle_s, view.idle_s),
                ) {
                    state.dispatch(Action::Sleep(true));
                    report_screen(true);
                }
                let left = still_playing_left(&view.route, view.room.as_ref(), idle, view.idle_s);
                if idle_return_due(&view.route, view.room.as_ref(), idle, view.idle_s)
                    || left == Some(0)
                {
                    if view.room.as_ref().is_some_and(crate::room_model::is_player) {
                        send.emit(ClientMsg::Exit { id: None });
                    }
                    *last_activity.borrow_mut() = dom::now_ms();
                    idle_left.set(None);
                    state.dispatch(Action::Navigate(Route::Kiosk));
                    state.dispatch(Action::ResetLang);
                } else if attract_due(&view.route, view.attract, idle, view.idle_s) {
                    state.dispatch(Action::Attract(true));
                    if view.lang_chosen {
                        state.dispatch(Action::ResetLang);
                    }
                } else if lang_reset_due(&view.route, view.lang_chosen, idle, view.idle_s) {
                    state.dispatch(Action::ResetLang);
                } else {
                    let was_asking = std::mem::replace(&mut *asking.borrow_mut(), left.is_some());
                    if left.is_some() && !was_asking {
                        state.dispatch(Action::Announce(view.lang.t(T::StillPlaying).to_owned()));
                    }
                    idle_left.set(left);
                }
            });
            move || {
                drop(listeners);
                drop(interval);
            }
        });
    }

    let ctx = Ctx {
        state: state.clone(),
        send: (*send).clone(),
        reconnect: (*reconnect).clone(),
    };
    let page = match ((pages.render)(&state.route), &state.route) {
        (Some(page), _) => page,
        (None, Route::NotFound(_)) => html! {
            <>
                <Navbar />
                <main id="main" class="page"><p>{ ctx.t(T::NotFound) }</p></main>
            </>
        },
        // The other bundle's page, being loaded.
        (None, _) => html! { <p role="status">{ ctx.t(T::Loading) }</p> },
    };
    let still_playing = match *idle_left {
        Some(left) => {
            let yes = {
                let idle_left = idle_left.clone();
                let last_activity = last_activity.clone();
                Callback::from(move |_| {
                    *last_activity.borrow_mut() = dom::now_ms();
                    idle_left.set(None);
                })
            };
            let lang = state.lang;
            html! {
                <div class="idle-prompt" data-prompt="idle" role="alertdialog"
                    aria-labelledby="idle-title" aria-describedby="idle-note">
                    <div class="idle-box">
                        <h2 id="idle-title">{ lang.t(T::StillPlaying) }</h2>
                        <p id="idle-note" role="timer">{ lang.f(T::StillPlayingNote, &[&lang.num(left)]) }</p>
                        <button type="button" class="primary huge" id="still-playing" onclick={yes}>{ lang.t(T::Yes) }</button>
                    </div>
                </div>
            }
        }
        None => html! {},
    };
    // AP3: a touch on a display the image has switched off never reaches the page (the
    // compositor has no output to place it on); the image's hook (xo-screen-power) sees it,
    // switches the display on and tells the server the screen woke. So while asleep the page
    // asks the server every second, and wakes when a wake newer than its own sleep was
    // reported, with the idle time counted from then. That touch did nothing else.
    {
        let (state, last_activity) = (state.clone(), last_activity.clone());
        use_effect_with(state.asleep, move |asleep| {
            let poll = asleep.then(|| {
                let slept_at = dom::now_ms();
                Interval::new(1000, move || {
                    let (state, last_activity) = (state.clone(), last_activity.clone());
                    wasm_bindgen_futures::spawn_local(async move {
                        let Ok(screen) = api::kiosk_screen().await else {
                            return;
                        };
                        // Both clocks are the kiosk's own (the page runs on the server's machine).
                        if !screen.asleep && screen.changed_ms as f64 > slept_at {
                            *last_activity.borrow_mut() = dom::now_ms();
                            state.dispatch(Action::Sleep(false));
                        }
                    });
                })
            });
            move || drop(poll)
        });
    }
    // AP3: a black sheet over everything, the navbar and any prompt included. The waking touch
    // ends on it (its click, the last event of a tap), so nothing under it acts; only then
    // does it go, with the idle time counted from that touch.
    let sleep_sheet = if state.asleep {
        let wake = {
            let (state, last_activity) = (state.clone(), last_activity.clone());
            move || {
                *last_activity.borrow_mut() = dom::now_ms();
                state.dispatch(Action::Sleep(false));
                report_screen(false);
            }
        };
        let onclick = {
            let wake = wake.clone();
            Callback::from(move |e: MouseEvent| {
                e.prevent_default();
                e.stop_propagation();
                wake();
            })
        };
        let onkeydown = Callback::from(move |e: KeyboardEvent| {
            e.prevent_default();
            e.stop_propagation();
            wake();
        });
        // The press and release of the waking touch stay on the sheet too.
        let swallow = Callback::from(|e: PointerEvent| {
            e.prevent_default();
            e.stop_propagation();
        });
        html! {
            <button type="button" class="screen-sleep" id="screen-sleep" data-prompt="sleep"
                {onclick} {onkeydown} onpointerdown={swallow.clone()} onpointerup={swallow}>
                <span class="sr-only">{ state.lang.t(T::ScreenAsleep) }</span>
            </button>
        }
    } else {
        html! {}
    };
    let conn_banner = match state.conn {
        Conn::Open => html! {},
        Conn::Connecting => html! {
            <p class="conn" role="status" data-prompt="connection">{ ctx.t(T::Connecting) }</p>
        },
        Conn::Lost => html! {
            <p class="conn lost" role="status" data-prompt="connection">{ ctx.t(T::Reconnecting) }</p>
        },
    };
    html! {
        <ContextProvider<Ctx> context={ctx}>
            { conn_banner }
            <Prompts />
            { page }
            { still_playing }
            <LiveRegion />
            { sleep_sheet }
        </ContextProvider<Ctx>>
    }
}
