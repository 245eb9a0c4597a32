//! Client frame decoding, as the server does it for every WebSocket frame (`decode_client`
//! with the 4096-byte limit), JSON text and postcard binary.
//!
//! Input: the first byte picks the framing (even: text when the rest is UTF-8, which the
//! WebSocket layer guarantees for text frames; odd: binary), the rest is the payload.
//!
//! - decoding never panics;
//! - a refusal is a clear [`FrameError`]: `TooLarge` exactly when the frame is over the
//!   limit, else `Malformed` with a non-empty reason, each with its wire code;
//! - whatever decodes re-encodes in both framings and decodes to the same message, and
//!   encoding is deterministic;
//! - the same for the client side's `decode_server` on the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use protocol::{
    ClientMsg, ErrorCode, Frame, FrameError, Framing, MAX_FRAME_BYTES, ServerMsg, decode_client,
    decode_server,
};

fn check_error(frame: &Frame, e: &FrameError, max: usize) {
    match e {
        FrameError::TooLarge { len, max: m } => {
            assert!(frame.len() > max, "TooLarge for {} bytes", frame.len());
            assert_eq!((*len, *m), (frame.len(), max));
            assert_eq!(e.code(), ErrorCode::FrameTooLarge);
        }
        FrameError::Malformed(why) => {
            assert!(frame.len() <= max, "a frame over the limit was parsed");
            assert!(!why.trim().is_empty(), "malformed without a reason");
            assert_eq!(e.code(), ErrorCode::BadFrame);
        }
    }
    assert!(!e.to_string().is_empty());
}

fn roundtrip_client(msg: &ClientMsg) {
    for framing in [Framing::Text, Framing::Binary] {
        let encoded = msg.encode(framing);
        assert_eq!(encoded.framing(), framing);
        assert_eq!(encoded, msg.encode(framing), "encoding is deterministic");
        match decode_client(&encoded, usize::MAX) {
            Ok(again) => assert_eq!(&again, msg, "{framing:?} round trip of {encoded:?}"),
            Err(e) => panic!("{msg:?} encodes as {encoded:?} which does not decode: {e}"),
        }
        // The id survives too.
        if let Some(id) = msg.id() {
            assert_eq!(msg.clone().with_id(id), *msg);
        }
    }
}

fn roundtrip_server(msg: &ServerMsg) {
    for framing in [Framing::Text, Framing::Binary] {
        let encoded = msg.encode(framing);
        match decode_server(&encoded) {
            Ok(again) => assert_eq!(&again, msg, "{framing:?} round trip of {encoded:?}"),
            Err(e) => panic!("{msg:?} encodes as {encoded:?} which does not decode: {e}"),
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&select, payload)) = data.split_first() else {
        return;
    };
    let frame = match (select % 2, std::str::from_utf8(payload)) {
        (0, Ok(text)) => Frame::Text(text.to_owned()),
        _ => Frame::Binary(payload.to_vec()),
    };
    match decode_client(&frame, MAX_FRAME_BYTES) {
        Ok(msg) => {
            assert!(frame.len() <= MAX_FRAME_BYTES);
            roundtrip_client(&msg);
        }
        Err(e) => check_error(&frame, &e, MAX_FRAME_BYTES),
    }
    // A smaller limit: the size check comes before parsing.
    let small = select as usize % 64;
    match decode_client(&frame, small) {
        Ok(msg) => {
            assert!(frame.len() <= small);
            roundtrip_client(&msg);
        }
        Err(e) => check_error(&frame, &e, small),
    }
    match decode_server(&frame) {
        Ok(msg) => roundtrip_server(&msg),
        Err(e) => check_error(&frame, &e, usize::MAX),
    }
});
