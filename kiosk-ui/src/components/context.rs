//! [`Ctx`], what every component may use, and [`use_ctx`]. Its own file so that the root
//! [`super::App`], which provides it, and the components it renders, which read it, do not
//! import each other.

use protocol::ClientMsg;
use yew::prelude::*;

use crate::i18n::{Lang, T};
use crate::route::Route;
use crate::state::{Action, AppState};

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

/// The shared context; every component below [`super::App`] has it.
#[hook]
pub fn use_ctx() -> Ctx {
    use_context::<Ctx>().expect("components are rendered inside App's ContextProvider")
}
