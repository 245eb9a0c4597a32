//! The wire types of XO Kiosk, shared by `firmware-host`, `kiosk-ui` and test clients.
//!
//! Binary WebSocket frames carry postcard, text frames carry JSON; see `docs/PROTOCOL.md`.
//!
//! # Layout
//!
//! - [`records`]: finished games and rating updates, as stored and as served over HTTP.

pub mod records;

/// The protocol version carried by both hellos.
pub const PROTOCOL_VERSION: u32 = 1;
