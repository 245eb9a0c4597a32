//! Rooms, the lobby, clocks, the bot inside rooms, and WebSocket sessions.
//!
//! # Layout
//!
//! - [`persistence`]: what rooms need from storage, implemented by `firmware-host`'s redb store.

pub mod persistence;

pub use persistence::{Account, Identity, Persistence, StoreError};
