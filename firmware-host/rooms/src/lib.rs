//! Rooms, the lobby, clocks, the bot inside rooms, and WebSocket sessions.
//!
//! # Layout
//!
//! - [`persistence`]: what rooms need from storage, implemented by `firmware-host`'s redb store.
//! - [`hub`]: [`Hub`], the handle `firmware-host` calls: start (restoring saved rooms), serve a
//!   WebSocket, lobby list, stats, shutdown.

pub mod hub;
pub mod persistence;

pub use hub::{Hub, HubConfig, HubStats};
pub use persistence::{Account, Identity, Persistence, StoreError};
