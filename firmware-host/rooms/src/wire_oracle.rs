//! tungstenite as the oracle for this crate's own WebSocket reading ([`crate::wire`]): the same
//! bytes, split anywhere, must give the same messages and pongs, or a close with the same code.
//! Used by the `wire` fuzz target (`fuzz/`) and by property tests here.
//!
//! Where the two may differ, and why that is right:
//! - A frame refused from its header: this crate refuses as soon as the header is in, tungstenite
//!   once the whole frame is. When the bytes end inside such a frame, tungstenite is given the
//!   rest of it (zeros) and must refuse it with the same code.
//! - A message in more than 256 fragments is refused here (1008); tungstenite has no such limit,
//!   and must have agreed on everything up to that frame.
//! - A client's close with code 1014 (Bad Gateway, registered after RFC 6455) is echoed here;
//!   tungstenite answers 1002.

use std::future::Future;
use std::io;
use std::pin::{Pin, pin};
use std::task::{Context, Poll, Waker};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tungstenite::protocol::{Role, WebSocket, WebSocketConfig};
use tungstenite::{Error, Message};

use crate::wire::{Incoming, MAX_WS_MESSAGE, ReadError, Wire, close};

/// Most fragments of one message this crate takes.
const MAX_FRAGMENTS: usize = 256;

/// A message or control frame the reader reported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Text(Vec<u8>),
    Binary(Vec<u8>),
    Ping,
    Pong,
}

/// A frame the reader wrote back of its own accord.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    Pong(Vec<u8>),
    Close(Option<u16>),
}

/// How reading ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The bytes ran out.
    Eof,
    /// The client closed and was answered.
    Closed,
    /// The connection fails with this close code.
    Failed(u16),
}

/// Everything one reader made of a byte stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    pub events: Vec<Event>,
    pub written: Vec<Written>,
    pub end: End,
}

/// Checks this crate's reader against tungstenite on `input`, which arrives in pieces ending
/// at `cuts` (positions, in any order; out-of-range ones are ignored). `Err` says how they
/// differ.
pub fn check(input: &[u8], cuts: &[usize]) -> Result<(), String> {
    let ours = ours(input, cuts);
    let theirs = tungstenite(input);
    if agree(&ours, &theirs) {
        return Ok(());
    }
    if let End::Failed(code) = ours.end {
        let frames = frames(input);
        // Refused from the header of the last frame, whose payload had not all come.
        if let Some(last) = frames.last().filter(|f| f.missing > 0) {
            let mut whole = input.to_vec();
            whole.resize(input.len() + last.missing, 0);
            if agree(&ours, &tungstenite(&whole)) {
                return Ok(());
            }
        }
        // This crate's own limit on fragments.
        if code == close::POLICY {
            if let Some(end) = over_fragment_limit(&frames) {
                let theirs = tungstenite(&input[..end]);
                if theirs.end == End::Eof
                    && theirs.events == ours.events
                    && theirs.written == ours.written
                {
                    return Ok(());
                }
            }
        }
    }
    Err(format!("this crate: {ours:?}\ntungstenite: {theirs:?}"))
}

fn agree(ours: &Transcript, theirs: &Transcript) -> bool {
    let answered = |w: &Written| match w {
        Written::Close(Some(1014)) => Written::Close(Some(close::PROTOCOL)),
        other => other.clone(),
    };
    ours.end == theirs.end
        && ours.events == theirs.events
        && ours
            .written
            .iter()
            .map(answered)
            .eq(theirs.written.iter().cloned())
}

/// The bytes as this crate's reader makes them out, read in the pieces `cuts` makes (the
/// first piece as the bytes read past the handshake).
pub fn ours(input: &[u8], cuts: &[usize]) -> Transcript {
    let mut cuts: Vec<usize> = cuts
        .iter()
        .copied()
        .filter(|&c| c > 0 && c < input.len())
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let first = cuts.first().copied().unwrap_or(input.len());
    let stream = Pieces {
        input,
        cuts,
        at: first,
        written: Vec::new(),
    };
    let mut wire = Wire::new(stream, input[..first].to_vec());
    let mut events = Vec::new();
    let end = loop {
        let next = now(wire.next());
        now(wire.flush()).expect("writing to memory");
        match next {
            Ok(Incoming::Data { text }) => {
                let payload = wire.payload().to_vec();
                events.push(if text {
                    Event::Text(payload)
                } else {
                    Event::Binary(payload)
                });
            }
            Ok(Incoming::Ping) => events.push(Event::Ping),
            Ok(Incoming::Pong) => events.push(Event::Pong),
            Ok(Incoming::Close) => break End::Closed,
            Err(ReadError::Eof) => break End::Eof,
            Err(ReadError::Protocol { code, .. }) => break End::Failed(code),
            Err(ReadError::TooLarge { .. }) => break End::Failed(close::SIZE),
            Err(ReadError::Io(e)) => panic!("reading from memory: {e}"),
        }
    };
    Transcript {
        events,
        written: written(&wire.io().written),
        end,
    }
}

/// The bytes as tungstenite, a server with this crate's size limits, makes them out.
pub fn tungstenite(input: &[u8]) -> Transcript {
    let config = WebSocketConfig::default()
        .max_message_size(Some(MAX_WS_MESSAGE))
        .max_frame_size(Some(MAX_WS_MESSAGE));
    let stream = Feed {
        input,
        at: 0,
        written: Vec::new(),
    };
    let mut ws = WebSocket::from_raw_socket(stream, Role::Server, Some(config));
    let mut events = Vec::new();
    let end = loop {
        match ws.read() {
            Ok(Message::Text(text)) => events.push(Event::Text(text.as_bytes().to_vec())),
            Ok(Message::Binary(bytes)) => events.push(Event::Binary(bytes.to_vec())),
            Ok(Message::Ping(_)) => events.push(Event::Ping),
            Ok(Message::Pong(_)) => events.push(Event::Pong),
            Ok(Message::Close(_)) => {
                // The next read writes the answer and reports the end.
                match ws.read() {
                    Err(Error::ConnectionClosed) => break End::Closed,
                    other => panic!("after a close: {other:?}"),
                }
            }
            Ok(Message::Frame(_)) => unreachable!("raw frames are only for writing"),
            Err(Error::Protocol(
                tungstenite::error::ProtocolError::ResetWithoutClosingHandshake,
            )) => {
                break End::Eof;
            }
            Err(Error::Capacity(_)) => break End::Failed(close::SIZE),
            Err(Error::Utf8(_)) => break End::Failed(close::INVALID_PAYLOAD),
            Err(Error::Protocol(_)) => break End::Failed(close::PROTOCOL),
            Err(other) => panic!("tungstenite over memory: {other:?}"),
        }
    };
    Transcript {
        events,
        written: written(&ws.get_ref().written),
        end,
    }
}

/// Polls a future that cannot wait: every stream here is in memory.
fn now<F: Future>(future: F) -> F::Output {
    let mut cx = Context::from_waker(Waker::noop());
    match pin!(future).poll(&mut cx) {
        Poll::Ready(out) => out,
        Poll::Pending => panic!("an in-memory stream never waits"),
    }
}

/// One frame as its header describes it.
#[derive(Debug, Clone, Copy)]
struct FrameSpan {
    opcode: u8,
    fin: bool,
    /// Where it ends in the input (or would end).
    end: usize,
    /// How many of its bytes are not in the input.
    missing: usize,
}

/// The input cut into frames by their headers alone, up to the first header whose length is
/// not all there or is over the limit (refused from its header by both readers).
fn frames(input: &[u8]) -> Vec<FrameSpan> {
    let mut frames = Vec::new();
    let mut at = 0;
    while let [b0, b1, ..] = input[at..] {
        let (extra, len) = match b1 & 0x7F {
            126 => (
                2,
                input
                    .get(at + 2..at + 4)
                    .map(|b| u64::from(u16::from_be_bytes([b[0], b[1]]))),
            ),
            127 => (
                8,
                input
                    .get(at + 2..at + 10)
                    .map(|b| u64::from_be_bytes(b.try_into().expect("eight bytes"))),
            ),
            short => (0, Some(u64::from(short))),
        };
        let Some(len) = len else {
            break;
        };
        let mask = if b1 & 0x80 != 0 { 4 } else { 0 };
        if len > MAX_WS_MESSAGE as u64 {
            // Refused from its header by both: only the header need be there.
            let end = at + 2 + extra + mask;
            frames.push(FrameSpan {
                opcode: b0 & 0x0F,
                fin: b0 & 0x80 != 0,
                end,
                missing: end.saturating_sub(input.len()),
            });
            break;
        }
        let end = at + 2 + extra + mask + usize::try_from(len).expect("under the limit");
        frames.push(FrameSpan {
            opcode: b0 & 0x0F,
            fin: b0 & 0x80 != 0,
            end,
            missing: end.saturating_sub(input.len()),
        });
        if end >= input.len() {
            break;
        }
        at = end;
    }
    frames
}

/// Where the frame that takes a message past [`MAX_FRAGMENTS`] ends, if one does.
fn over_fragment_limit(frames: &[FrameSpan]) -> Option<usize> {
    let mut fragments = 0;
    for frame in frames.iter().filter(|f| f.missing == 0) {
        match frame.opcode {
            1 | 2 if !frame.fin => fragments = 1,
            1 | 2 => fragments = 0,
            0 if fragments > 0 => {
                fragments += 1;
                if fragments > MAX_FRAGMENTS {
                    return Some(frame.end);
                }
                if frame.fin {
                    fragments = 0;
                }
            }
            _ => {}
        }
    }
    None
}

/// The pongs and close answers among the frames a server wrote.
fn written(bytes: &[u8]) -> Vec<Written> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let opcode = bytes[at] & 0x0F;
        let (extra, len) = match bytes[at + 1] {
            126 => (
                2,
                usize::from(u16::from_be_bytes([bytes[at + 2], bytes[at + 3]])),
            ),
            127 => panic!("a server's control frame is short"),
            short => (0, usize::from(short)),
        };
        let payload = &bytes[at + 2 + extra..at + 2 + extra + len];
        match opcode {
            0xA => out.push(Written::Pong(payload.to_vec())),
            0x8 => out.push(Written::Close(
                payload.get(..2).map(|c| u16::from_be_bytes([c[0], c[1]])),
            )),
            other => panic!("a reader wrote opcode {other}"),
        }
        at += 2 + extra + len;
    }
    out
}

/// An in-memory connection for this crate's reader: each read ends at the next cut.
#[derive(Debug)]
pub(crate) struct Pieces<'a> {
    input: &'a [u8],
    cuts: Vec<usize>,
    at: usize,
    pub(crate) written: Vec<u8>,
}

impl AsyncRead for Pieces<'_> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let at = self.at;
        let next = self
            .cuts
            .iter()
            .copied()
            .find(|&c| c > at)
            .unwrap_or(self.input.len());
        let n = (next - at).min(buf.remaining());
        buf.put_slice(&self.input[at..at + n]);
        self.at += n;
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for Pieces<'_> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.written.extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// An in-memory connection for tungstenite.
#[derive(Debug)]
struct Feed<'a> {
    input: &'a [u8],
    at: usize,
    written: Vec<u8>,
}

impl io::Read for Feed<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = (self.input.len() - self.at).min(buf.len());
        buf[..n].copy_from_slice(&self.input[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl io::Write for Feed<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.written.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// One client frame, for building streams in tests and seeds: masked with `mask` unless
/// `mask` is `None`.
pub fn client_frame(b0: u8, payload: &[u8], mask: Option<[u8; 4]>) -> Vec<u8> {
    let mut out = vec![b0];
    let bit = if mask.is_some() { 0x80 } else { 0 };
    match payload.len() {
        len @ 0..=125 => out.push(bit | u8::try_from(len).expect("short")),
        len @ 126..=0xFFFF => {
            out.push(bit | 126);
            out.extend_from_slice(&u16::try_from(len).expect("medium").to_be_bytes());
        }
        len => {
            out.push(bit | 127);
            out.extend_from_slice(&(len as u64).to_be_bytes());
        }
    }
    if let Some(mask) = mask {
        out.extend_from_slice(&mask);
        out.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    } else {
        out.extend_from_slice(payload);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const MASK: Option<[u8; 4]> = Some([0x12, 0x34, 0x56, 0x78]);

    fn stream(frames: &[Vec<u8>]) -> Vec<u8> {
        frames.concat()
    }

    /// Every split of `input` into two and three pieces agrees with tungstenite.
    fn agrees_at_every_split(input: &[u8]) {
        check(input, &[]).unwrap_or_else(|e| panic!("whole: {e}"));
        for a in 1..input.len() {
            check(input, &[a]).unwrap_or_else(|e| panic!("split at {a}: {e}"));
            let b = (a + 3).min(input.len() - 1);
            check(input, &[a, b]).unwrap_or_else(|e| panic!("split at {a}, {b}: {e}"));
        }
    }

    #[test]
    fn a_close_with_a_one_byte_body_fails_the_connection() {
        let input = client_frame(0x88, &[3], MASK);
        assert_eq!(ours(&input, &[]).end, End::Failed(close::PROTOCOL));
        agrees_at_every_split(&input);
    }

    #[test]
    fn a_close_whose_reason_is_not_utf8_fails_the_connection() {
        let input = client_frame(0x88, &[0x03, 0xE8, 0xFF], MASK);
        assert_eq!(ours(&input, &[]).end, End::Failed(close::INVALID_PAYLOAD));
        agrees_at_every_split(&input);
    }

    #[test]
    fn a_fragment_that_cannot_be_utf8_fails_before_what_follows() {
        // The first fragment starts with a byte no character starts with: refused there, not
        // after the ping and the rest of the message.
        let input = stream(&[
            client_frame(0x01, &[0xFF, b'a'], MASK),
            client_frame(0x89, b"hi", MASK),
            client_frame(0x80, b"b", MASK),
        ]);
        let read = ours(&input, &[]);
        assert_eq!(read.end, End::Failed(close::INVALID_PAYLOAD));
        assert!(read.events.is_empty(), "{read:?}");
        agrees_at_every_split(&input);
    }

    #[test]
    fn a_character_split_between_fragments_is_whole_text() {
        let e_acute = "é".as_bytes();
        let input = stream(&[
            client_frame(0x01, &[b'a', e_acute[0]], MASK),
            client_frame(0x89, b"", MASK),
            client_frame(0x80, &[e_acute[1], b'b'], MASK),
        ]);
        let read = ours(&input, &[]);
        assert_eq!(read.events, [Event::Ping, Event::Text("aéb".into())]);
        agrees_at_every_split(&input);
    }

    #[test]
    fn a_character_cut_off_by_the_message_end_is_not_text() {
        let input = stream(&[
            client_frame(0x01, b"a", MASK),
            client_frame(0x80, &"é".as_bytes()[..1], MASK),
        ]);
        assert_eq!(ours(&input, &[]).end, End::Failed(close::INVALID_PAYLOAD));
        agrees_at_every_split(&input);
    }

    #[test]
    fn an_oversized_frame_is_refused_for_its_size_whatever_else_is_wrong_with_it() {
        // Reserved bits, no mask, a ping: each also wrong, but the size is checked first, as
        // tungstenite does, once the header (its mask included) is in.
        let over = MAX_WS_MESSAGE as u64 + 1;
        for b0 in [0xC2u8, 0x89, 0x82] {
            for mask_bit in [0x80u8, 0] {
                let mut input = vec![b0, mask_bit | 127];
                input.extend_from_slice(&over.to_be_bytes());
                if mask_bit != 0 {
                    input.extend_from_slice(&[0; 4]);
                }
                assert_eq!(ours(&input, &[]).end, End::Failed(close::SIZE), "{b0:#x}");
                check(&input, &[]).expect("as tungstenite");
            }
        }
    }

    #[test]
    fn a_message_in_too_many_fragments_is_refused_where_tungstenite_agreed_so_far() {
        let mut frames = vec![client_frame(0x01, b"a", MASK)];
        frames.extend((0..MAX_FRAGMENTS).map(|_| client_frame(0x00, b"", MASK)));
        frames.push(client_frame(0x80, b"b", MASK));
        let input = stream(&frames);
        assert_eq!(ours(&input, &[]).end, End::Failed(close::POLICY));
        assert_eq!(tungstenite(&input).events, [Event::Text(b"ab".to_vec())]);
        check(&input, &[]).expect("tungstenite agrees up to the limit");
        check(&input, &[7, 300, 301]).expect("in pieces too");
    }

    #[test]
    fn an_unknown_opcode_is_refused_before_the_size() {
        let mut input = vec![0x83, 0x80 | 127];
        input.extend_from_slice(&(MAX_WS_MESSAGE as u64 * 2).to_be_bytes());
        input.extend_from_slice(&[0; 4]);
        assert_eq!(ours(&input, &[]).end, End::Failed(close::PROTOCOL));
        agrees_at_every_split(&input);
    }

    #[test]
    fn pings_closes_and_messages_agree_with_tungstenite() {
        let input = stream(&[
            client_frame(0x81, b"hello", MASK),
            client_frame(0x89, b"ping", MASK),
            client_frame(0x02, &[1, 2], MASK),
            client_frame(0x8A, b"", MASK),
            client_frame(0x80, &[3], MASK),
            client_frame(0x88, &[0x03, 0xE8, b'b', b'y', b'e'], MASK),
            client_frame(0x81, b"after the close", MASK),
        ]);
        let read = ours(&input, &[]);
        assert_eq!(read.end, End::Closed);
        assert_eq!(
            read.written,
            [Written::Pong(b"ping".to_vec()), Written::Close(Some(1000))]
        );
        agrees_at_every_split(&input);
    }

    /// A frame as a client might send it, right or wrong.
    fn any_frame() -> impl Strategy<Value = Vec<u8>> {
        let opcode = prop_oneof![
            6 => Just(0x0u8),
            6 => Just(0x1),
            4 => Just(0x2),
            1 => Just(0x3),
            2 => Just(0x8),
            3 => Just(0x9),
            2 => Just(0xA),
            1 => Just(0xB),
        ];
        let payload = prop_oneof![
            4 => proptest::collection::vec(any::<u8>(), 0..8),
            4 => "[a-zé€😀]{0,6}".prop_map(String::into_bytes),
            1 => proptest::collection::vec(any::<u8>(), 120..140),
            1 => (0usize..3).prop_map(|k| vec![b'x'; [0xFFFF, MAX_WS_MESSAGE, 40_000][k]]),
        ];
        let flags = prop_oneof![8 => Just(0u8), 1 => Just(0x40), 1 => Just(0x10)];
        let masked = prop_oneof![12 => Just(true), 1 => Just(false)];
        (
            opcode,
            any::<bool>(),
            flags,
            masked,
            payload,
            any::<[u8; 4]>(),
        )
            .prop_map(|(opcode, fin, flags, masked, payload, mask)| {
                let b0 = opcode | flags | if fin { 0x80 } else { 0 };
                client_frame(b0, &payload, masked.then_some(mask))
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// The reader agrees with tungstenite on any run of frames, cut short anywhere and
        /// read in any pieces.
        #[test]
        fn the_reader_agrees_with_tungstenite(
            frames in proptest::collection::vec(any_frame(), 0..12),
            keep in any::<prop::sample::Index>(),
            whole in any::<bool>(),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..6),
        ) {
            let mut input = frames.concat();
            if !whole && !input.is_empty() {
                input.truncate(keep.index(input.len()));
            }
            let cuts: Vec<usize> = if input.is_empty() {
                Vec::new()
            } else {
                cuts.iter().map(|c| c.index(input.len())).collect()
            };
            if let Err(e) = check(&input, &cuts) {
                prop_assert!(false, "{}", e);
            }
        }
    }
}
