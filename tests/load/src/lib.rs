//! xo-load: a load generator for the XO Kiosk server, built on `xo-client`, and the plain
//! WebSocket forwarder it compares the server against. See `README.md` in this folder.

pub mod event;
pub mod forward;
pub mod game;
pub mod pace;
pub mod process;
pub mod run;
pub mod stats;
