//! A session's WebSocket after the handshake (RFC 6455 §5): the client's frames read and
//! unmasked where they lie in one read buffer, the server's frames written into one write
//! buffer. Framed here rather than through tungstenite's stream: its per-poll waker
//! bookkeeping and conversions cost more than the rest of reading and writing a message, and
//! a session polls its socket at every wake-up, mostly to find nothing. tungstenite stays the
//! oracle: `wire_oracle` checks this reader against it (property tests here, the `wire` fuzz
//! target in `fuzz/`).

use std::io;
use std::ops::Range;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};

/// Largest WebSocket message or frame a connection buffers. The hub refuses frames above
/// `protocol::MAX_FRAME_BYTES` with a clear error; anything beyond this hard limit closes the
/// connection (1009) before it is buffered whole.
pub const MAX_WS_MESSAGE: usize = 64 * 1024;

/// Each connection's read buffer to begin with, and what it returns to after a larger frame.
/// Client frames are a few dozen bytes (a move is about 30), at most
/// `protocol::MAX_FRAME_BYTES`; a larger one grows the buffer to fit.
const READ_BUFFER: usize = 1024;

/// A write buffer that grew past this is let go once written.
const OUT_KEEP_BYTES: usize = 4 * 1024;

/// Most frames one message may come in: fragments are not messages, so the message limit does
/// not count them, and empty ones would never fill the size limit.
const MAX_FRAGMENTS: u32 = 256;

const FIN: u8 = 0x80;
const OPCODE_CONTINUATION: u8 = 0x0;
pub(crate) const OPCODE_TEXT: u8 = 0x1;
pub(crate) const OPCODE_BINARY: u8 = 0x2;
const OPCODE_CLOSE: u8 = 0x8;
const OPCODE_PING: u8 = 0x9;
const OPCODE_PONG: u8 = 0xA;

/// Close codes (RFC 6455 §7.4.1).
pub(crate) mod close {
    pub(crate) const AWAY: u16 = 1001;
    pub(crate) const PROTOCOL: u16 = 1002;
    pub(crate) const INVALID_PAYLOAD: u16 = 1007;
    pub(crate) const POLICY: u16 = 1008;
    pub(crate) const SIZE: u16 = 1009;
    pub(crate) const RESTART: u16 = 1012;
}

/// What a client sent.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Incoming {
    /// A whole text (`true`) or binary message; its payload is [`Wire::payload`] until the next
    /// read.
    Data {
        text: bool,
    },
    /// A ping: its pong is queued and goes out at the next flush.
    Ping,
    Pong,
    /// The client closes: the answering close frame is queued; nothing more is read.
    Close,
}

/// Why reading ended.
#[derive(Debug)]
pub(crate) enum ReadError {
    /// The client closed the socket.
    Eof,
    Io(io::Error),
    /// Not a well-formed client frame (RFC 6455 §5.2: reserved bits, an unmasked frame, an
    /// unknown opcode, a control frame fragmented or over 125 bytes, a continuation out of
    /// place); closed with `code`.
    Protocol {
        code: u16,
        reason: &'static str,
    },
    /// A frame or message over [`MAX_WS_MESSAGE`].
    TooLarge {
        len: u64,
    },
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Eof => f.write_str("the client closed the socket"),
            ReadError::Io(e) => write!(f, "{e}"),
            ReadError::Protocol { reason, .. } => f.write_str(reason),
            ReadError::TooLarge { len } => write!(
                f,
                "a message of {len} bytes is over the limit of {MAX_WS_MESSAGE}"
            ),
        }
    }
}

/// Where the last data message's payload lies.
#[derive(Debug, Clone)]
enum Payload {
    Buffer(Range<usize>),
    Assembled,
}

/// A fragmented message so far.
#[derive(Debug)]
struct Partial {
    text: bool,
    bytes: Vec<u8>,
    /// How much of a text message's bytes are checked UTF-8: a character may be split between
    /// fragments, but a sequence no character can start with fails the message at once, as
    /// RFC 6455 §8.1 asks and as tungstenite does.
    checked: usize,
}

/// One WebSocket connection after the handshake.
pub(crate) struct Wire<S> {
    io: S,
    /// Read buffer; `rbuf[start..filled]` is read and not yet parsed.
    rbuf: Vec<u8>,
    start: usize,
    filled: usize,
    /// The last data message, until the next read.
    payload: Payload,
    /// A fragmented message being put together.
    partial: Option<Partial>,
    /// Frames of the message being put together.
    fragments: u32,
    /// The last fragmented message, whole.
    assembled: Vec<u8>,
    /// Frames to write at the next flush.
    out: Vec<u8>,
    /// A close frame was sent or received: nothing more is read.
    closed: bool,
}

impl<S> Wire<S>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    /// The connection over `io`, whose first bytes (read past the handshake) are `read`.
    pub(crate) fn new(io: S, read: Vec<u8>) -> Wire<S> {
        let mut rbuf = read;
        let filled = rbuf.len();
        rbuf.resize(filled.max(READ_BUFFER), 0);
        Wire {
            io,
            rbuf,
            start: 0,
            filled,
            payload: Payload::Buffer(0..0),
            partial: None,
            fragments: 0,
            assembled: Vec::new(),
            out: Vec::new(),
            closed: false,
        }
    }

    /// The payload of the last [`Incoming::Data`].
    pub(crate) fn payload(&self) -> &[u8] {
        match &self.payload {
            Payload::Buffer(range) => &self.rbuf[range.clone()],
            Payload::Assembled => &self.assembled,
        }
    }

    /// The next message from the client. Cancel-safe: what was read stays buffered.
    pub(crate) async fn next(&mut self) -> Result<Incoming, ReadError> {
        std::future::poll_fn(|cx| self.poll_next(cx)).await
    }

    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Result<Incoming, ReadError>> {
        if self.closed {
            return Poll::Ready(Err(ReadError::Eof));
        }
        loop {
            if let Some(incoming) = self.parse()? {
                return Poll::Ready(Ok(incoming));
            }
            // Room to read into: what is left moves to the front; a frame longer than the
            // buffer grows it (to at most the limit and a header).
            if self.start > 0 {
                self.rbuf.copy_within(self.start..self.filled, 0);
                self.filled -= self.start;
                self.start = 0;
                self.payload = Payload::Buffer(0..0);
            }
            if self.filled == self.rbuf.len() {
                let grown = (self.rbuf.len() * 2).min(MAX_WS_MESSAGE + 14);
                if grown <= self.rbuf.len() {
                    return Poll::Ready(Err(ReadError::TooLarge {
                        len: self.rbuf.len() as u64,
                    }));
                }
                self.rbuf.resize(grown, 0);
            }
            let mut buf = ReadBuf::new(&mut self.rbuf[self.filled..]);
            match Pin::new(&mut self.io).poll_read(cx, &mut buf) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(e)) => return Poll::Ready(Err(ReadError::Io(e))),
                Poll::Ready(Ok(())) => {
                    let n = buf.filled().len();
                    if n == 0 {
                        return Poll::Ready(Err(ReadError::Eof));
                    }
                    self.filled += n;
                }
            }
        }
    }

    /// Parses frames from the buffer until a message is whole; `None` when more bytes are
    /// needed.
    fn parse(&mut self) -> Result<Option<Incoming>, ReadError> {
        loop {
            let Some((header, len)) = self.header()? else {
                self.settle();
                return Ok(None);
            };
            let (b0, at) = (self.rbuf[self.start], self.start + header);
            let (fin, opcode) = (b0 & FIN != 0, b0 & 0x0F);
            let end = at + len;
            // Unmasked where it lies (§5.3).
            let mask: [u8; 4] = self.rbuf[at - 4..at]
                .try_into()
                .expect("a header ends with its four-byte mask");
            for (i, byte) in self.rbuf[at..end].iter_mut().enumerate() {
                *byte ^= mask[i % 4];
            }
            self.start = end;
            match opcode {
                OPCODE_TEXT | OPCODE_BINARY if self.partial.is_some() => {
                    return Err(protocol_error("a new message inside a fragmented one"));
                }
                OPCODE_TEXT | OPCODE_BINARY if fin => {
                    let text = opcode == OPCODE_TEXT;
                    if text && std::str::from_utf8(&self.rbuf[at..end]).is_err() {
                        return Err(invalid_text());
                    }
                    self.payload = Payload::Buffer(at..end);
                    return Ok(Some(Incoming::Data { text }));
                }
                OPCODE_TEXT | OPCODE_BINARY => {
                    let text = opcode == OPCODE_TEXT;
                    let bytes = self.rbuf[at..end].to_vec();
                    let checked = if text { utf8_checked(&bytes, 0)? } else { 0 };
                    self.partial = Some(Partial {
                        text,
                        bytes,
                        checked,
                    });
                    self.fragments = 1;
                }
                OPCODE_CONTINUATION => {
                    let Some(mut partial) = self.partial.take() else {
                        return Err(protocol_error(
                            "a continuation frame with nothing to continue",
                        ));
                    };
                    partial.bytes.extend_from_slice(&self.rbuf[at..end]);
                    if partial.text {
                        partial.checked = utf8_checked(&partial.bytes, partial.checked)?;
                    }
                    self.fragments += 1;
                    if self.fragments > MAX_FRAGMENTS {
                        return Err(ReadError::Protocol {
                            code: close::POLICY,
                            reason: "a message in too many fragments",
                        });
                    }
                    if !fin {
                        self.partial = Some(partial);
                        continue;
                    }
                    if partial.text && partial.checked < partial.bytes.len() {
                        // A character cut off by the message's end.
                        return Err(invalid_text());
                    }
                    self.assembled = partial.bytes;
                    self.payload = Payload::Assembled;
                    return Ok(Some(Incoming::Data { text: partial.text }));
                }
                OPCODE_PING => {
                    let ping = self.rbuf[at..end].to_vec();
                    frame_into(&mut self.out, OPCODE_PONG, &ping);
                    return Ok(Some(Incoming::Ping));
                }
                OPCODE_PONG => return Ok(Some(Incoming::Pong)),
                OPCODE_CLOSE => {
                    // A body is a two-byte code and a UTF-8 reason (§5.5.1). The answer
                    // echoes the code, or says 1002 for one no endpoint may send (§7.4); a
                    // code-less close gets a code-less answer.
                    let body = &self.rbuf[at..end];
                    let code = match body {
                        [] => None,
                        [_] => return Err(protocol_error("a close frame with a one-byte body")),
                        [hi, lo, reason @ ..] => {
                            if std::str::from_utf8(reason).is_err() {
                                return Err(ReadError::Protocol {
                                    code: close::INVALID_PAYLOAD,
                                    reason: "a close reason that is not UTF-8",
                                });
                            }
                            Some(u16::from_be_bytes([*hi, *lo]))
                        }
                    };
                    self.out.push(FIN | OPCODE_CLOSE);
                    match code {
                        Some(code) => {
                            let code = if sendable(code) {
                                code
                            } else {
                                close::PROTOCOL
                            };
                            self.out.push(2);
                            self.out.extend_from_slice(&code.to_be_bytes());
                        }
                        None => self.out.push(0),
                    }
                    self.closed = true;
                    return Ok(Some(Incoming::Close));
                }
                _ => unreachable!("unknown opcodes are refused from the header"),
            }
        }
    }

    /// The header length and payload length of the frame at `start`, once the whole frame is
    /// in the buffer; refuses a malformed or oversized frame as soon as its header is.
    fn header(&self) -> Result<Option<(usize, usize)>, ReadError> {
        let bytes = &self.rbuf[self.start..self.filled];
        let [b0, b1, ..] = *bytes else {
            return Ok(None);
        };
        let opcode = b0 & 0x0F;
        let (extra, len) = match b1 & 0x7F {
            126 => (
                2,
                bytes
                    .get(2..4)
                    .map(|b| u64::from(u16::from_be_bytes([b[0], b[1]]))),
            ),
            127 => (
                8,
                bytes
                    .get(2..10)
                    .map(|b| u64::from_be_bytes(b.try_into().expect("eight bytes"))),
            ),
            short => (0, Some(u64::from(short))),
        };
        let Some(len) = len else {
            return Ok(None);
        };
        let header = 2 + extra + if b1 & 0x80 != 0 { 4 } else { 0 };
        if bytes.len() < header {
            return Ok(None);
        }
        // The checks in the order tungstenite makes them, so that a frame wrong in several
        // ways closes with the same code: the opcode and the frame's size once its header is
        // in, then the frame itself, then what it adds to a fragmented message.
        if !matches!(opcode, 0x0..=0x2 | 0x8..=0xA) {
            return Err(protocol_error("an unknown opcode"));
        }
        if len > MAX_WS_MESSAGE as u64 {
            return Err(ReadError::TooLarge { len });
        }
        if b1 & 0x80 == 0 {
            return Err(protocol_error("an unmasked frame from a client"));
        }
        if b0 & 0x70 != 0 {
            return Err(protocol_error(
                "reserved bits set (no extension was agreed)",
            ));
        }
        if opcode >= OPCODE_CLOSE && (b0 & FIN == 0 || len > 125) {
            return Err(protocol_error(
                "a control frame fragmented or over 125 bytes",
            ));
        }
        // A continuation counts with what came before it; a control frame between fragments
        // does not.
        if let (OPCODE_CONTINUATION, Some(partial)) = (opcode, &self.partial) {
            let whole = partial.bytes.len() as u64 + len;
            if whole > MAX_WS_MESSAGE as u64 {
                return Err(ReadError::TooLarge { len: whole });
            }
        }
        let len = usize::try_from(len).expect("under the limit");
        Ok((bytes.len() >= header + len).then_some((header, len)))
    }

    /// Between messages: a buffer that grew for a large frame goes back to its usual size
    /// once what it holds fits.
    fn settle(&mut self) {
        let held = self.filled - self.start;
        if self.rbuf.len() > READ_BUFFER && held <= READ_BUFFER {
            self.rbuf.copy_within(self.start..self.filled, 0);
            self.rbuf.truncate(READ_BUFFER);
            self.rbuf.shrink_to_fit();
            self.filled = held;
            self.start = 0;
            self.payload = Payload::Buffer(0..0);
        }
    }

    /// Queues a data frame with `payload`.
    pub(crate) fn queue(&mut self, opcode: u8, payload: &[u8]) {
        frame_into(&mut self.out, opcode, payload);
    }

    /// Queues a data frame whose payload `build` appends.
    pub(crate) fn queue_built(&mut self, opcode: u8, build: impl FnOnce(&mut Vec<u8>)) {
        frame_built(&mut self.out, opcode, build);
    }

    /// Queues a close frame with `code` and `reason` (at most 123 bytes of it).
    pub(crate) fn queue_close(&mut self, code: u16, reason: &str) {
        let mut payload = code.to_be_bytes().to_vec();
        let mut cut = reason.len().min(123);
        while !reason.is_char_boundary(cut) {
            cut -= 1;
        }
        payload.extend_from_slice(&reason.as_bytes()[..cut]);
        frame_into(&mut self.out, OPCODE_CLOSE, &payload);
        self.closed = true;
    }

    /// The connection underneath.
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn io(&self) -> &S {
        &self.io
    }

    /// How many bytes are queued.
    pub(crate) fn queued(&self) -> usize {
        self.out.len()
    }

    /// Writes out everything queued.
    pub(crate) async fn flush(&mut self) -> io::Result<()> {
        if self.out.is_empty() {
            return Ok(());
        }
        let written = self.io.write_all(&self.out).await;
        self.out.clear();
        if self.out.capacity() > OUT_KEEP_BYTES {
            // A lobby page or a long batch: not kept for the connection's lifetime.
            self.out = Vec::new();
        }
        written
    }

    /// Reads and drops what the client still sends until it closes or goes quiet, after this
    /// side's close frame (closing a socket with unread data resets it, and the client would
    /// lose the last frames).
    pub(crate) async fn linger(
        &mut self,
        quiet: std::time::Duration,
        at_most: std::time::Duration,
    ) {
        self.closed = false;
        let deadline = tokio::time::Instant::now() + at_most;
        while let Ok(Ok(incoming)) = tokio::time::timeout(quiet, self.next()).await {
            if incoming == Incoming::Close || tokio::time::Instant::now() >= deadline {
                break;
            }
        }
        self.closed = true;
    }
}

/// Whether a close frame may carry `code` (RFC 6455 §7.4.1-2: 1000-1003 and 1007-1014 are
/// defined, 3000-4999 are for libraries and applications; 1004-1006, 1015 and the rest are
/// not sent).
fn sendable(code: u16) -> bool {
    matches!(code, 1000..=1003 | 1007..=1014 | 3000..=4999)
}

fn protocol_error(reason: &'static str) -> ReadError {
    ReadError::Protocol {
        code: close::PROTOCOL,
        reason,
    }
}

/// How much of `bytes` is whole UTF-8 characters, checking on from `from` (a character's
/// start): a character cut off at the end is left for more bytes; anything else not UTF-8 is
/// refused (1007).
fn utf8_checked(bytes: &[u8], from: usize) -> Result<usize, ReadError> {
    match std::str::from_utf8(&bytes[from..]) {
        Ok(_) => Ok(bytes.len()),
        Err(e) if e.error_len().is_none() => Ok(from + e.valid_up_to()),
        Err(_) => Err(invalid_text()),
    }
}

fn invalid_text() -> ReadError {
    ReadError::Protocol {
        code: close::INVALID_PAYLOAD,
        reason: "a text message that is not UTF-8",
    }
}

/// Appends one final, unmasked WebSocket frame with `payload` to `out` (RFC 6455 §5.2).
pub(crate) fn frame_into(out: &mut Vec<u8>, opcode: u8, payload: &[u8]) {
    out.push(FIN | opcode);
    if let Ok(short @ 0..=125) = u8::try_from(payload.len()) {
        out.push(short);
    } else if let Ok(medium) = u16::try_from(payload.len()) {
        out.push(126);
        out.extend_from_slice(&medium.to_be_bytes());
    } else {
        out.push(127);
        out.extend_from_slice(&(payload.len() as u64).to_be_bytes());
    }
    out.extend_from_slice(payload);
}

/// Appends one final, unmasked WebSocket frame to `out` whose payload `build` appends, with
/// the shortest length encoding, as the RFC requires.
pub(crate) fn frame_built(out: &mut Vec<u8>, opcode: u8, build: impl FnOnce(&mut Vec<u8>)) {
    // Room for a two-byte length; a payload under 126 bytes moves up two, one over 64 KiB
    // is framed again (neither happens to a snapshot).
    let start = out.len();
    out.extend_from_slice(&[FIN | opcode, 126, 0, 0]);
    build(out);
    let len = out.len() - start - 4;
    if let Ok(short @ 0..=125) = u8::try_from(len) {
        out[start + 1] = short;
        out.copy_within(start + 4.., start + 2);
        out.truncate(out.len() - 2);
    } else if let Ok(medium) = u16::try_from(len) {
        out[start + 2..start + 4].copy_from_slice(&medium.to_be_bytes());
    } else {
        let payload = out.split_off(start + 4);
        out.truncate(start);
        frame_into(out, opcode, &payload);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::SinkExt;
    use tokio_tungstenite::WebSocketStream;
    use tokio_tungstenite::tungstenite::Message;
    use tokio_tungstenite::tungstenite::protocol::Role;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
    use tokio_tungstenite::tungstenite::protocol::frame::{Frame, FrameHeader};

    #[test]
    fn frames_the_server_writes_read_back_whole_with_every_length_encoding() {
        // One-byte, two-byte and eight-byte lengths, and their edges (RFC 6455 §5.2).
        let lengths = [0, 1, 125, 126, 0xffff, 0x1_0000, 70_000];
        let opcode = |i: usize| {
            if i % 2 == 0 {
                OPCODE_TEXT
            } else {
                OPCODE_BINARY
            }
        };
        let fill = |i: usize| b'a' + u8::try_from(i).expect("small");
        let mut out = Vec::new();
        for (i, &len) in lengths.iter().enumerate() {
            frame_into(&mut out, opcode(i), &vec![fill(i); len]);
        }
        let mut cursor = std::io::Cursor::new(&out[..]);
        for (i, &len) in lengths.iter().enumerate() {
            let (header, payload_len) = FrameHeader::parse(&mut cursor)
                .expect("a valid header")
                .expect("a whole header");
            assert!(header.is_final, "frame {i}");
            assert_eq!(header.mask, None, "a server's frames are not masked");
            let want = if i % 2 == 0 { Data::Text } else { Data::Binary };
            assert_eq!(header.opcode, OpCode::Data(want), "frame {i}");
            assert_eq!(payload_len, len as u64, "frame {i}");
            let at = usize::try_from(cursor.position()).expect("small");
            assert!(out[at..at + len].iter().all(|&b| b == fill(i)), "frame {i}");
            cursor.set_position((at + len) as u64);
        }
        assert_eq!(cursor.position() as usize, out.len(), "nothing else");
        // A payload written in place is framed exactly as one given whole.
        let mut built = Vec::new();
        for (i, &len) in lengths.iter().enumerate() {
            frame_built(&mut built, opcode(i), |o| o.resize(o.len() + len, fill(i)));
        }
        assert_eq!(built, out, "the same frames, byte for byte");
    }

    /// A real client's frames over an in-memory pipe: whole, fragmented, between pings.
    #[tokio::test]
    async fn a_clients_messages_read_whole_fragmented_or_between_pings() {
        let (server, client) = tokio::io::duplex(256 * 1024);
        let mut client = WebSocketStream::from_raw_socket(client, Role::Client, None).await;
        let mut wire = Wire::new(server, Vec::new());
        let big = vec![7u8; 60_000];
        client.feed(Message::text("hello")).await.expect("send");
        client
            .feed(Message::binary(big.clone()))
            .await
            .expect("send");
        client.flush().await.expect("flush");
        assert_eq!(
            wire.next().await.expect("text"),
            Incoming::Data { text: true }
        );
        assert_eq!(wire.payload(), b"hello");
        assert_eq!(
            wire.next().await.expect("binary"),
            Incoming::Data { text: false }
        );
        assert_eq!(wire.payload(), &big[..]);
        // Nothing more yet: the buffer that grew for the large message is let go.
        let wait = tokio::time::timeout(std::time::Duration::from_millis(20), wire.next());
        assert!(wait.await.is_err(), "nothing to read");
        assert_eq!(wire.rbuf.len(), READ_BUFFER, "back to its usual size");

        client
            .feed(Message::Ping(b"p?".to_vec().into()))
            .await
            .expect("send");
        let part =
            |bytes: &[u8], opcode, fin| Message::Frame(Frame::message(bytes.to_vec(), opcode, fin));
        client
            .feed(part(b"frag", OpCode::Data(Data::Text), false))
            .await
            .expect("send");
        // A control frame may come between the fragments (§5.4).
        client
            .feed(Message::Pong(b"!".to_vec().into()))
            .await
            .expect("send");
        client
            .feed(part(b"men", OpCode::Data(Data::Continue), false))
            .await
            .expect("send");
        client
            .feed(part(b"t", OpCode::Data(Data::Continue), true))
            .await
            .expect("send");
        client.feed(Message::Close(None)).await.expect("send");
        client.flush().await.expect("flush");

        assert_eq!(wire.next().await.expect("ping"), Incoming::Ping);
        assert_eq!(wire.next().await.expect("pong"), Incoming::Pong);
        assert_eq!(
            wire.next().await.expect("fragments"),
            Incoming::Data { text: true }
        );
        assert_eq!(wire.payload(), b"fragment");
        assert_eq!(wire.next().await.expect("close"), Incoming::Close);
        assert!(
            matches!(wire.next().await, Err(ReadError::Eof)),
            "nothing after a close"
        );
        // The pong and the answering close frame, in order, unmasked.
        assert_eq!(wire.out, [0x8A, 2, b'p', b'?', 0x88, 0]);

        // A close with a code is answered with the same code, one no endpoint may send with
        // 1002.
        for (sent, answered) in [(1000u16, 1000u16), (4001, 4001), (1005, 1002), (999, 1002)] {
            let mut bytes = vec![0x88, 0x82, 0, 0, 0, 0];
            bytes.extend_from_slice(&sent.to_be_bytes());
            let (server, _client) = tokio::io::duplex(1024);
            let mut wire = Wire::new(server, bytes);
            assert_eq!(wire.next().await.expect("close"), Incoming::Close, "{sent}");
            let mut want = vec![0x88, 2];
            want.extend_from_slice(&answered.to_be_bytes());
            assert_eq!(wire.out, want, "{sent}");
        }
    }

    /// A ping between the fragments of a message near the size limit is a ping, not part of
    /// the message's size.
    #[tokio::test]
    async fn a_ping_between_the_fragments_of_a_message_near_the_limit_is_answered() {
        // Zero masks leave payloads as they are.
        let frame = |b0: u8, payload: &[u8]| {
            let mut f = vec![b0, 0x80 | 126];
            f.extend_from_slice(&u16::try_from(payload.len()).expect("short").to_be_bytes());
            f.extend_from_slice(&[0, 0, 0, 0]);
            f.extend_from_slice(payload);
            f
        };
        let first = vec![b'a'; MAX_WS_MESSAGE - 50];
        let mut bytes = frame(0x02, &first);
        bytes.extend([0x89, 0x80 | 100, 0, 0, 0, 0]);
        bytes.extend([b'p'; 100]);
        bytes.extend([0x80, 0x80 | 50, 0, 0, 0, 0]);
        bytes.extend([b'b'; 50]);
        let (server, _client) = tokio::io::duplex(1024);
        let mut wire = Wire::new(server, bytes);
        assert_eq!(wire.next().await.expect("the ping"), Incoming::Ping);
        assert_eq!(
            wire.next().await.expect("the message"),
            Incoming::Data { text: false }
        );
        assert_eq!(wire.payload().len(), MAX_WS_MESSAGE, "exactly at the limit");
    }

    /// Bytes that are not a client's WebSocket frame close the connection with the right code.
    #[tokio::test]
    async fn frames_a_client_may_not_send_are_refused_with_their_close_code() {
        let masked = |b0: u8, payload: &[u8]| {
            let mut f = vec![b0, 0x80 | u8::try_from(payload.len()).expect("short")];
            f.extend_from_slice(&[0, 0, 0, 0]); // a zero mask leaves the payload as it is
            f.extend_from_slice(payload);
            f
        };
        let mut long_ping = vec![0x89, 0x80 | 126, 0, 126];
        long_ping.extend_from_slice(&[0; 4 + 126]);
        let mut over = vec![0x82, 0x80 | 127];
        over.extend_from_slice(&((MAX_WS_MESSAGE as u64) + 1).to_be_bytes());
        over.extend_from_slice(&[0, 0, 0, 0]);
        let cases: [(&str, Vec<u8>, Option<u16>); 8] = [
            (
                "unmasked",
                vec![0x81, 0x02, b'h', b'i'],
                Some(close::PROTOCOL),
            ),
            ("reserved bits", masked(0xC1, b"hi"), Some(close::PROTOCOL)),
            ("unknown opcode", masked(0x83, b"hi"), Some(close::PROTOCOL)),
            (
                "fragmented ping",
                masked(0x09, b"hi"),
                Some(close::PROTOCOL),
            ),
            ("long ping", long_ping, Some(close::PROTOCOL)),
            (
                "lone continuation",
                masked(0x80, b"hi"),
                Some(close::PROTOCOL),
            ),
            (
                "not UTF-8",
                masked(0x81, &[0xff, 0xfe]),
                Some(close::INVALID_PAYLOAD),
            ),
            // Refused from its header (the mask included), before any of the payload arrives.
            ("over the limit", over, None),
        ];
        // A message in endless empty fragments: never over the size limit, never a message.
        let mut fragments = masked(0x01, b"");
        for _ in 0..MAX_FRAGMENTS {
            fragments.extend(masked(0x00, b""));
        }
        let (server, _client) = tokio::io::duplex(1024);
        let mut wire = Wire::new(server, fragments);
        let read = tokio::time::timeout(std::time::Duration::from_secs(5), wire.next()).await;
        match read {
            Ok(Err(ReadError::Protocol { code, .. })) => assert_eq!(code, close::POLICY),
            other => panic!("endless fragments: {other:?}"),
        }
        for (what, bytes, code) in cases {
            let (server, _client) = tokio::io::duplex(1024);
            let mut wire = Wire::new(server, bytes);
            match (wire.next().await, code) {
                (Err(ReadError::Protocol { code: got, .. }), Some(want)) => {
                    assert_eq!(got, want, "{what}");
                }
                (Err(ReadError::TooLarge { .. }), None) => {}
                (other, _) => panic!("{what}: {other:?}"),
            }
        }
    }
}
