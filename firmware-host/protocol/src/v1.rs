//! Protocol version 1, still served beside the current version (docs/PROTOCOL.md,
//! "Versions", states how long each version is served).
//!
//! Version 1 differs from version 2 in the lobby alone: its `watch_lobby` has no `limit` (in
//! postcard, one field fewer), its `lobby` has no `total`, and it never receives
//! `lobby_update`: every change comes as a whole `lobby`. Every other message has the same
//! shape in both, so a version-1 connection uses [`crate::ServerMsg`] and [`crate::ClientMsg`]
//! for the rest. The page version-1 clients were written from is kept as a test fixture
//! (`tests/fixtures/PROTOCOL-v1.md`), and its examples are checked against this module.
//!
//! ```
//! use protocol::{ClientMsg, Frame, Framing, v1};
//!
//! // A version-1 `watch_lobby` in postcard: variant 2, then the id (Some(5)).
//! let msg = v1::decode_client(&Frame::Binary(vec![0x02, 0x01, 0x05]), 4096)?;
//! assert_eq!(msg, ClientMsg::WatchLobby { id: Some(5), limit: None });
//! let lobby = v1::Lobby { id: Some(5), rooms: Vec::new() };
//! assert_eq!(lobby.encode(Framing::Text), Frame::Text(r#"{"lobby":{"id":5,"rooms":[]}}"#.into()));
//! assert_eq!(lobby.encode(Framing::Binary), Frame::Binary(vec![0x02, 0x01, 0x05, 0x00]));
//! # Ok::<(), protocol::FrameError>(())
//! ```

use serde::{Deserialize, Serialize};

use crate::frame::{Frame, FrameError, Framing, decode_client_payload, decode_payload};
use crate::view::RoomSummary;
use crate::{ClientMsg, RequestId};

/// The version number a version-1 client's hello carries.
pub const VERSION: u32 = 1;

/// The postcard variant index of `watch_lobby` in [`ClientMsg`] (one byte: below 128); test
/// `variant_indices_are_the_current_types` holds it to the type.
const WATCH_LOBBY: u8 = 2;

/// The postcard variant index of `lobby` in [`crate::ServerMsg`].
const LOBBY: u8 = 2;

/// A version-1 `watch_lobby`'s fields: the id alone.
#[derive(Deserialize)]
struct WatchLobby {
    id: Option<RequestId>,
}

/// Decodes a frame from a version-1 client, refusing frames over `max` bytes.
pub fn decode_client(frame: &Frame, max: usize) -> Result<ClientMsg, FrameError> {
    match frame {
        Frame::Text(text) => decode_client_frame(Framing::Text, text.as_bytes(), max),
        Frame::Binary(bytes) => decode_client_frame(Framing::Binary, bytes, max),
    }
}

/// As [`crate::decode_client_payload`], for a version-1 client: a postcard `watch_lobby`
/// without `limit` is read as one that asks for no particular number.
pub fn decode_client_frame(
    framing: Framing,
    payload: &[u8],
    max: usize,
) -> Result<ClientMsg, FrameError> {
    match (framing, payload.split_first()) {
        (Framing::Binary, Some((&WATCH_LOBBY, fields))) if payload.len() <= max => {
            let WatchLobby { id } = decode_payload(Framing::Binary, fields, max)?;
            Ok(ClientMsg::WatchLobby { id, limit: None })
        }
        // JSON is the same in both versions: a version-1 `watch_lobby` has no `limit` key.
        _ => decode_client_payload(framing, payload, max),
    }
}

/// Version 1's `lobby`: the rooms the reader may see, whole, after `watch_lobby` (with its
/// id) and after every change (without).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lobby {
    pub id: Option<RequestId>,
    pub rooms: Vec<RoomSummary>,
}

/// How serde writes version 1's `lobby` in JSON: one key, `lobby`.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Json {
    Lobby(Lobby),
}

impl Lobby {
    /// The message in `framing`, as a version-1 client reads it.
    pub fn encode(&self, framing: Framing) -> Frame {
        match framing {
            Framing::Text => Frame::Text(
                serde_json::to_string(&Json::Lobby(self.clone()))
                    .expect("wire types always serialise to JSON"),
            ),
            Framing::Binary => {
                let mut bytes = vec![LOBBY];
                bytes.extend(
                    postcard::to_allocvec(self).expect("wire types always serialise to postcard"),
                );
                Frame::Binary(bytes)
            }
        }
    }

    /// Reads a version-1 `lobby` (a client's side); any other message is refused.
    pub fn decode(frame: &Frame) -> Result<Lobby, FrameError> {
        match frame {
            Frame::Text(text) => {
                let Json::Lobby(lobby) =
                    decode_payload(Framing::Text, text.as_bytes(), usize::MAX)?;
                Ok(lobby)
            }
            Frame::Binary(bytes) => match bytes.split_first() {
                Some((&LOBBY, fields)) => decode_payload(Framing::Binary, fields, usize::MAX),
                _ => Err(FrameError::Malformed("not a lobby message".into())),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ServerMsg;

    #[test]
    fn variant_indices_are_the_current_types() {
        let watch = ClientMsg::WatchLobby {
            id: None,
            limit: None,
        };
        let Frame::Binary(watch) = watch.encode(Framing::Binary) else {
            panic!("binary framing")
        };
        assert_eq!(watch[0], WATCH_LOBBY);
        let lobby = ServerMsg::Lobby {
            id: None,
            rooms: Vec::new(),
            total: 0,
        };
        let Frame::Binary(lobby) = lobby.encode(Framing::Binary) else {
            panic!("binary framing")
        };
        assert_eq!(lobby[0], LOBBY);
    }

    #[test]
    fn a_version_1_watch_lobby_with_trailing_bytes_is_refused() {
        let refused = decode_client(&Frame::Binary(vec![WATCH_LOBBY, 0x01, 0x05, 0x00]), 4096);
        assert!(
            matches!(refused, Err(FrameError::Malformed(_))),
            "{refused:?}"
        );
        let too_large = decode_client(&Frame::Binary(vec![WATCH_LOBBY, 0x00]), 1);
        assert!(
            matches!(too_large, Err(FrameError::TooLarge { .. })),
            "{too_large:?}"
        );
    }

    #[test]
    fn a_version_1_lobby_reads_back_in_both_framings() {
        let lobby = Lobby {
            id: None,
            rooms: Vec::new(),
        };
        for framing in [Framing::Text, Framing::Binary] {
            assert_eq!(Lobby::decode(&lobby.encode(framing)), Ok(lobby.clone()));
        }
        let current = ServerMsg::Pong { id: None }.encode(Framing::Binary);
        assert!(Lobby::decode(&current).is_err());
    }
}
