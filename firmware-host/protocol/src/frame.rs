//! Frames: text frames carry JSON, binary frames carry postcard. Decoding happens here and
//! nowhere else, one function per direction.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::client::ClientMsg;
use crate::error::ErrorCode;
use crate::server::ServerMsg;

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

fn decode_payload<T: DeserializeOwned>(
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
/// samples at 500 games went to this one allocation at 1,536 bytes (issue 13). The rare larger
/// message grows the buffer once.
const ENCODE_CAPACITY: usize = 1024;

fn encode<T: Serialize>(msg: &T, framing: Framing) -> Frame {
    match framing {
        Framing::Text => {
            let mut json = Vec::with_capacity(ENCODE_CAPACITY);
            serde_json::to_writer(&mut json, msg).expect("wire types always serialise to JSON");
            Frame::Text(String::from_utf8(json).expect("serde_json writes UTF-8"))
        }
        Framing::Binary => Frame::Binary(
            postcard::to_allocvec(msg).expect("wire types always serialise to postcard"),
        ),
    }
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
        encode(self, framing)
    }
}
