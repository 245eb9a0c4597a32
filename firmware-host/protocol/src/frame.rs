//! Frames: text frames carry JSON, binary frames carry postcard. Decoding happens here and
//! nowhere else, one function per direction.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::client::ClientMsg;
use crate::error::ErrorCode;
use crate::json_text as json;
use crate::server::{Event, ServerMsg};

/// One WebSocket data frame, independent of the WebSocket library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// JSON.
    Text(String),
    /// postcard.
    Binary(Vec<u8>),
}

/// Which encoding a peer speaks; replies use the client's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Framing {
    #[default]
    Text,
    Binary,
}

impl Frame {
    pub fn framing(&self) -> Framing {
        match self {
            Frame::Text(_) => Framing::Text,
            Frame::Binary(_) => Framing::Binary,
        }
    }

    /// The payload size in bytes.
    pub fn len(&self) -> usize {
        match self {
            Frame::Text(s) => s.len(),
            Frame::Binary(b) => b.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Why a frame could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// The frame is larger than `max` bytes; it was not parsed.
    TooLarge { len: usize, max: usize },
    /// Not a valid message in the frame's encoding.
    Malformed(String),
}

impl FrameError {
    /// The wire error code for this failure.
    pub fn code(&self) -> ErrorCode {
        match self {
            FrameError::TooLarge { .. } => ErrorCode::FrameTooLarge,
            FrameError::Malformed(_) => ErrorCode::BadFrame,
        }
    }
}

impl core::fmt::Display for FrameError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            FrameError::TooLarge { len, max } => {
                write!(f, "frame of {len} bytes is over the limit of {max} bytes")
            }
            FrameError::Malformed(why) => write!(f, "malformed message: {why}"),
        }
    }
}

impl std::error::Error for FrameError {}

fn decode<T: DeserializeOwned>(frame: &Frame, max: usize) -> Result<T, FrameError> {
    match frame {
        Frame::Text(text) => decode_payload(Framing::Text, text.as_bytes(), max),
        Frame::Binary(bytes) => decode_payload(Framing::Binary, bytes, max),
    }
}

pub(crate) fn decode_payload<T: DeserializeOwned>(
    framing: Framing,
    payload: &[u8],
    max: usize,
) -> Result<T, FrameError> {
    if payload.len() > max {
        return Err(FrameError::TooLarge {
            len: payload.len(),
            max,
        });
    }
    match framing {
        Framing::Text => {
            serde_json::from_slice(payload).map_err(|e| FrameError::Malformed(e.to_string()))
        }
        Framing::Binary => {
            // Trailing bytes are refused: one frame holds exactly one message.
            let (msg, rest) = postcard::take_from_bytes(payload)
                .map_err(|e| FrameError::Malformed(e.to_string()))?;
            if rest.is_empty() {
                Ok(msg)
            } else {
                Err(FrameError::Malformed(format!(
                    "{} trailing bytes after the message",
                    rest.len()
                )))
            }
        }
    }
}

/// Room for a whole snapshot (760-1,000 bytes as JSON in a game) at once: `serde_json::to_string`
/// starts at 128 bytes and grows the buffer four times for one. No more than 1 KiB: glibc's
/// malloc serves blocks up to 1,032 bytes from its per-thread cache, and larger ones through its
/// sorted bins (`_int_malloc`, `unlink_chunk`, `malloc_consolidate`): 2.4 % of the server's
/// samples at 500 games went to this one allocation at 1,536 bytes. The rare larger
/// message grows the buffer once.
const ENCODE_CAPACITY: usize = 1024;

/// Room for a message's postcard at once (a move's event is 14 bytes, a result's about 30, a
/// refusal's with its text under 100): `postcard::to_allocvec` starts with an empty buffer and
/// grows it at 8, 16, 32 and 64 bytes, a reallocation each.
const BINARY_CAPACITY: usize = 96;

fn encode<T: Serialize>(msg: &T, framing: Framing) -> Frame {
    match framing {
        Framing::Text => Frame::Text(text(msg)),
        Framing::Binary => Frame::Binary(
            postcard::to_extend(msg, Vec::with_capacity(BINARY_CAPACITY))
                .expect("wire types always serialise to postcard"),
        ),
    }
}

/// `msg` as JSON text.
fn text<T: Serialize>(msg: &T) -> String {
    let mut json = Vec::with_capacity(ENCODE_CAPACITY);
    serde_json::to_writer(&mut json, msg).expect("wire types always serialise to JSON");
    String::from_utf8(json).expect("serde_json writes UTF-8")
}

/// Decodes a frame from a client (the server's side), refusing frames over `max` bytes.
pub fn decode_client(frame: &Frame, max: usize) -> Result<ClientMsg, FrameError> {
    decode(frame, max)
}

/// Decodes a client frame's payload in `framing` where it lies (the server's side: the
/// WebSocket layer's buffer, not a copy), refusing payloads over `max` bytes. Text payloads are
/// valid UTF-8 (the WebSocket layer checks); the result is as [`decode_client`]'s.
pub fn decode_client_payload(
    framing: Framing,
    payload: &[u8],
    max: usize,
) -> Result<ClientMsg, FrameError> {
    decode_payload(framing, payload, max)
}

/// Decodes a frame from the server (a client's side). Server frames have no size limit here.
pub fn decode_server(frame: &Frame) -> Result<ServerMsg, FrameError> {
    decode(frame, usize::MAX)
}

impl ClientMsg {
    pub fn encode(&self, framing: Framing) -> Frame {
        encode(self, framing)
    }
}

impl ServerMsg {
    pub fn encode(&self, framing: Framing) -> Frame {
        match (framing, self) {
            // Every move's event, to every viewer: written directly, the same text
            // as serde's (test `a_moved_event_written_by_hand_is_serdes_text`).
            (Framing::Text, ServerMsg::Event(moved @ Event::Moved { .. })) => {
                Frame::Text(moved_json(moved).unwrap_or_else(|| text(self)))
            }
            _ => encode(self, framing),
        }
    }
}

/// The JSON of a `moved` event (`{"event":{"moved":…}}`), written field by field; `None` for
/// any other event.
fn moved_json(event: &Event) -> Option<String> {
    let Event::Moved {
        room,
        mark,
        cell,
        removed,
        automatic,
        bot,
    } = event
    else {
        return None;
    };
    let mut j = Vec::with_capacity(MOVED_CAPACITY);
    j.extend_from_slice(b"{\"event\":{\"moved\":{\"room\":");
    json::string(&mut j, room);
    j.extend_from_slice(b",\"mark\":");
    json::mark(&mut j, *mark);
    j.extend_from_slice(b",\"cell\":");
    json::number(&mut j, *cell);
    j.extend_from_slice(b",\"removed\":");
    json::option(&mut j, *removed, json::number);
    j.extend_from_slice(b",\"automatic\":");
    json::flag(&mut j, *automatic);
    j.extend_from_slice(b",\"bot\":");
    json::flag(&mut j, *bot);
    j.extend_from_slice(b"}}}");
    Some(String::from_utf8(j).expect("written from UTF-8 pieces"))
}

/// Room for a `moved` event's JSON (about 100 bytes with a 6-letter room id).
const MOVED_CAPACITY: usize = 128;

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Mark;

    #[test]
    fn a_moved_event_written_by_hand_is_serdes_text() {
        for room in ["zd8yup", "", "a\"b\\c\u{1}", "سارة"] {
            for mark in [Mark::X, Mark::O] {
                for (cell, removed) in [(0, None), (8, Some(3)), (255, Some(0))] {
                    for (automatic, bot) in [(false, false), (true, false), (false, true)] {
                        let msg = ServerMsg::Event(Event::Moved {
                            room: room.to_owned(),
                            mark,
                            cell,
                            removed,
                            automatic,
                            bot,
                        });
                        let Frame::Text(by_hand) = msg.encode(Framing::Text) else {
                            panic!("text framing gives text");
                        };
                        assert_eq!(by_hand, text(&msg), "{msg:?}");
                    }
                }
            }
        }
    }
}
