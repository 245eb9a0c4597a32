//! Rooms, the lobby, clocks, the bot inside rooms, and WebSocket sessions.
//!
//! # Layout
//!
//! - [`persistence`]: what rooms need from storage, implemented by `firmware-host`'s redb store.
//! - [`settings`]: the creation box, checked once into valid [`settings::Settings`].
//! - [`room`]: [`room::Room`], one game's rules of play as a pure state machine.
//! - [`seats`]: the seat book shared by rooms: one seat per player (M3.4).
//! - [`saved`]: the versioned saved form of an open room, for restarts.
//! - [`lobby`] (private): the directory of open rooms and their lobby rows.
//! - [`actor`] (private): the task that owns one room, its clock and its bot.
//! - [`session`] (private): one WebSocket connection: hello, limits, decoding, routing.
//! - [`hub`]: [`Hub`], the handle `firmware-host` calls: start (restoring saved rooms), serve a
//!   WebSocket, lobby list, stats, shutdown.

mod actor;
pub mod hub;
mod lobby;
pub mod persistence;
pub mod room;
pub mod saved;
pub mod seats;
mod session;
pub mod settings;

pub use hub::{Hub, HubConfig, HubStats};
pub use persistence::{Account, Identity, Persistence, StoreError};
