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
use crate::route::Route;
use crate::state::{Action, AppState, Conn, idle_return_due};
use crate::ws::Socket;

use super::game_replay::GameReplay;
use super::home::Home;
use super::kiosk::Kiosk;
use super::leaderboard::LeaderboardPage;
use super::live_region::LiveRegion;
use super::navbar::Navbar;
use super::notice::NoticeBanner;
use super::profile::ProfilePage;
use super::room::RoomPage;
use super::rules::Rules;
use super::sign_in::SignIn;

/// What every component may use: the state, and ways to change it.
#[derive(Debug, Clone, PartialEq)]
pub struct Ctx {
    pub state: UseReducerHandle<AppState>,
    /// Sends an intent over the WebSocket.
    pub send: Callback<ClientMsg>,
    /// Re-opens the WebSocket (after signing in or out).
    pub reconnect: Callback<()>,
}

impl Ctx {
    pub fn lang(&self) -> Lang {
        self.state.lang
    }

    pub fn t(&self, key: T) -> &'static str {
        self.state.lang.t(key)
    }

    pub fn navigate(&self, route: Route) {
        self.state.dispatch(Action::Navigate(route));
    }

    pub fn dispatch(&self, action: Action) {
        self.state.dispatch(action);
    }
}

/// What the kiosk's idle timer reads; refreshed at every render.
#[derive(Default)]
struct IdleView {
    route: Route,
    room: Option<RoomView>,
    idle_s: u64,
}

#[component]
pub fn App() -> Html {
    let state = use_reducer(|| AppState {
        lang: dom::stored_lang(),
        route: Route::parse(&dom::current_path()),
        ..AppState::default()
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
                    d.dispatch(Action::Config {
                        kiosk_idle_s: config.kiosk_idle_s,
                        public_url: config.public_url,
                    });
                }
                match api::me().await {
                    Ok(account) => d.dispatch(Action::Account(account)),
                    Err(_) => d.dispatch(Action::Account(None)),
                }
            });
            move || {
                drop(popstate);
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

    // The language: stored, and the page's direction (U6).
    use_effect_with(state.lang, |lang| dom::apply_lang(*lang));

    // The address bar and the title follow the route.
    {
        let lang = state.lang;
        use_effect_with((state.route.clone(), lang), move |(route, lang)| {
            dom::push_path(&route.path());
            dom::set_kiosk_class(route.is_kiosk());
            dom::set_title(lang.t(T::AppName));
        });
    }

    // The server follows the route: the lobby list on home screens, the room on room screens.
    {
        let send = (*send).clone();
        let viewing: Rc<RefCell<Option<String>>> = use_mut_ref(|| None);
        use_effect_with((state.route.clone(), state.conn), move |(route, conn)| {
            if *conn == Conn::Open {
                if route.watches_lobby() {
                    send.emit(ClientMsg::WatchLobby { id: None });
                } else {
                    send.emit(ClientMsg::UnwatchLobby { id: None });
                }
                let wanted = route.room_id().map(str::to_owned);
                let mut viewing = viewing.borrow_mut();
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
        });
    }

    // U7: the kiosk returns home after the idle time when no game is in progress.
    {
        let last_activity = use_mut_ref(dom::now_ms);
        let idle_view = use_mut_ref(IdleView::default);
        *idle_view.borrow_mut() = IdleView {
            route: state.route.clone(),
            room: state.room.as_ref().map(|r| r.view.clone()),
            idle_s: state.kiosk_idle_s,
        };
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
                if idle_return_due(&view.route, view.room.as_ref(), idle, view.idle_s) {
                    if view.room.as_ref().is_some_and(crate::room_model::is_player) {
                        send.emit(ClientMsg::Exit { id: None });
                    }
                    *last_activity.borrow_mut() = dom::now_ms();
                    state.dispatch(Action::Navigate(Route::Kiosk));
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
    let page = match &state.route {
        Route::Home => html! { <Home /> },
        Route::Kiosk => html! { <Kiosk /> },
        Route::Room { id, kiosk } => html! { <RoomPage id={id.clone()} kiosk={*kiosk} /> },
        Route::Profile(name) => html! { <ProfilePage name={name.clone()} /> },
        Route::Leaderboard(game) => html! { <LeaderboardPage game={*game} /> },
        Route::SignIn => html! { <SignIn /> },
        Route::Rules => html! { <Rules /> },
        Route::Replay(id) => html! { <GameReplay id={id.clone()} /> },
        Route::NotFound(_) => html! {
            <>
                <Navbar />
                <main id="main" class="page"><p>{ ctx.t(T::NotFound) }</p></main>
            </>
        },
    };
    let conn_banner = match state.conn {
        Conn::Open => html! {},
        Conn::Connecting => html! { <p class="conn" role="status">{ ctx.t(T::Connecting) }</p> },
        Conn::Lost => html! { <p class="conn lost" role="status">{ ctx.t(T::Reconnecting) }</p> },
    };
    html! {
        <ContextProvider<Ctx> context={ctx}>
            { conn_banner }
            <NoticeBanner />
            { page }
            <LiveRegion />
        </ContextProvider<Ctx>>
    }
}

/// The shared context; every component below [`App`] has it.
#[hook]
pub fn use_ctx() -> Ctx {
    use_context::<Ctx>().expect("components are rendered inside App's ContextProvider")
}
