//! The XO Kiosk web app: yew with client-side rendering, compiled to WebAssembly, for the
//! kiosk's own screen (`/kiosk`) and for phones on the LAN. It talks to `firmware-host` over
//! one WebSocket (`/ws`, the `protocol` crate's messages) and a small JSON API.
//!
//! # Layout
//!
//! Pure modules, tested natively:
//! - [`i18n`]: every string in English and Arabic, the cell names, template filling.
//! - [`route`]: the app's addresses and their screens.
//! - [`state`]: the app's state as a reducer of server messages and user actions.
//! - [`create_form`]: the create-room box and its checks (M1–M3).
//! - [`board_model`]: what the board shows and says, and arrow-key focus movement (U1–U5).
//! - [`room_model`]: the rail, results, navbar controls, rating colours, ELO scenarios.
//! - [`analysis`]: replay positions and the solved table's verdict per move (U10, U11).
//! - [`credentials`]: A1's username and password rules.
//! - [`event_model`]: arena events: clocks, standings deltas, the podium, the kiosk's pick.
//!
//! Browser glue (compiles everywhere, runs only in a browser):
//! - [`ws`]: the WebSocket with hello, ids, keep-alive and reconnection.
//! - [`api`]: the HTTP JSON API.
//! - [`dom`]: the address bar, the document, local storage and time.
//! - [`components`]: one file per yew component; [`components::App`] is the root.
//!
//! ```
//! use kiosk_ui::board_model::{Nav, move_focus};
//! use kiosk_ui::i18n::{Lang, T};
//!
//! // The board never mirrors: Left moves towards column 0 in both languages.
//! assert_eq!(move_focus(4, Nav::Left), 3);
//! assert_eq!(Lang::Ar.dir(), "rtl");
//! assert_eq!(Lang::En.f(T::Seconds, &["7"]), "7 s");
//! ```

pub mod analysis;
pub mod api;
pub mod board_model;
pub mod components;
pub mod create_form;
pub mod credentials;
pub mod dom;
pub mod event_model;
pub mod i18n;
pub mod puzzle_model;
pub mod room_model;
pub mod route;
pub mod state;
pub mod ws;

/// Mounts the app with every page but the owner's on the page's `<body>` (`kiosk-ui.js`).
pub fn start() {
    mount(components::app::Pages {
        bundle: route::Bundle::Main,
        render: components::app::main_page,
    });
}

/// Mounts the app with sign-in, profiles, leaderboards and the rules (`kiosk-pages.js`,
/// loaded at `/signin`, `/profile…`, `/leaderboard…` and `/rules`).
pub fn start_pages() {
    mount(components::app::Pages {
        bundle: route::Bundle::Pages,
        render: components::app::pages_page,
    });
}

/// Mounts the app with the owner's pages (`kiosk-owner.js`, loaded at `/owner…`).
pub fn start_owner() {
    mount(components::app::Pages {
        bundle: route::Bundle::Owner,
        render: components::app::owner_page,
    });
}

fn mount(pages: components::app::Pages) {
    yew::Renderer::<components::App>::with_props(components::app::AppProps { pages }).render();
}
