//! The wire types of XO Kiosk, shared by `firmware-host`, `kiosk-ui` and test clients.
//!
//! Binary WebSocket frames carry postcard, text frames carry JSON; the server answers each
//! client in the framing of the client's last frame. See `docs/PROTOCOL.md`.
//!
//! Every enum is *externally tagged* (`{"move":{"id":1,"cell":4}}`) because postcard, which is
//! not self-describing, cannot decode internally tagged enums; one shape serves both encodings.
//!
//! # Layout
//!
//! - [`api`]: the HTTP API as data: every endpoint's method, path, status and types, which
//!   the server routes by and the UI calls by.
//! - [`client`]: [`ClientMsg`], the intents a client sends, and the room settings it asks for.
//! - [`server`]: [`ServerMsg`], what the server sends: hello, snapshots, lobby, events, errors.
//! - [`view`]: [`RoomView`] (a room as one reader may see it) and [`RoomSummary`] (a lobby row).
//! - [`error`]: [`ErrorCode`], the stable machine-readable error codes.
//! - [`event`]: arena events (EV1–EV7): the event snapshot, standings deltas and `paired`
//!   (the intents are `ClientMsg::*Event`).
//! - [`frame`]: [`Frame`], decoding and encoding of both framings in one place.
//! - [`records`]: finished games and rating updates, as stored and as served over HTTP.
//! - [`puzzle`]: puzzle attempts: [`PuzzleSource`] (what `puzzle_start` asks for) and
//!   [`PuzzleView`] (an attempt as its player sees it).
//! - [`http`]: the HTTP API's request and response bodies and its error codes.
//! - [`rules`]: what people may type: usernames and passwords (A1), local names (M2.1).
//! - [`v1`]: protocol version 1, still served: its lobby messages, the one part that differs.
//!
//! ```
//! use protocol::{ClientMsg, Frame, Framing, decode_client};
//!
//! let frame = Frame::Text(r#"{"move":{"id":7,"cell":4}}"#.into());
//! let msg = decode_client(&frame, 4096)?;
//! assert_eq!(msg, ClientMsg::Move { id: Some(7), cell: 4 });
//! assert_eq!(decode_client(&msg.encode(Framing::Binary), 4096)?, msg);
//! # Ok::<(), protocol::FrameError>(())
//! ```

pub mod api;
pub mod client;
pub mod error;
pub mod event;
pub mod frame;
pub mod http;
mod json_text;
pub mod puzzle;
pub mod records;
pub mod rules;
pub mod server;
pub mod v1;
pub mod view;

pub use client::{ClientMsg, CreateRoom, JoiningRequest, OpponentRequest};
pub use error::ErrorCode;
pub use frame::{Frame, FrameError, Framing, decode_client, decode_client_payload, decode_server};
pub use puzzle::{AttemptId, PuzzleSource, PuzzleView};
pub use server::{CloseReason, Event, ServerMsg};
pub use view::{
    ClockView, EloPreview, EncodedSeats, JoinRequestView, Joining, Name, Phase, PlayerView,
    ResultView, RoomKind, RoomSummary, RoomView, SeatView, SeatsJson, YouView, room_json,
    room_json_into, room_postcard_into,
};

/// The protocol version carried by both hellos. A change that a client written against the
/// earlier docs/PROTOCOL.md cannot follow raises it (that page's "Versions" lists them):
/// 2: the lobby is paged (`watch_lobby` gained `limit`, `lobby` gained `total`, changes come
/// as `lobby_update`).
pub const PROTOCOL_VERSION: u32 = 2;

/// The oldest protocol version the server still serves: every version from this one to
/// [`PROTOCOL_VERSION`] is answered (docs/PROTOCOL.md, "Versions": a version is served for at
/// least a year after the next one is published). Version 1 is [`v1`].
pub const OLDEST_PROTOCOL_VERSION: u32 = 1;

/// The largest frame the server accepts, in bytes; larger frames get `frame_too_large`.
pub const MAX_FRAME_BYTES: usize = 4096;

/// A room's id: short, URL-safe, chosen by the server.
pub type RoomId = String;

/// The client-chosen id of an intent, echoed by the reply or error that answers it.
pub type RequestId = u32;
