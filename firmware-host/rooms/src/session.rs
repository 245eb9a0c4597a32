//! One WebSocket connection: hello, limits, decoding, routing intents to rooms, and sending
//! what rooms answer in the client's framing.

use std::sync::Arc;
use std::task::Poll;

use protocol::{
    ClientMsg, Frame, Framing, OLDEST_PROTOCOL_VERSION, PROTOCOL_VERSION, RequestId, RoomId,
    ServerMsg, decode_client_payload, v1,
};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

use crate::arena_actor::{ArenaHandle, EventOut};
use crate::create::create;
use crate::handle::{IntentMsg, Outbox, RoomHandle, RoomMsg, ToSession};
use crate::lobby::{LOBBY_UPDATE_INTERVAL, Watch, page_limit};
use crate::persistence::Identity;
use crate::puzzles::{PuzzleBook, PuzzleCtx, Solver, today};
use crate::refusal::{Reason, Refusal};
use crate::room::{Intent, Member};
use crate::shared::{Shared, wall_ms};
use crate::wire::{Incoming, OPCODE_BINARY, OPCODE_TEXT, ReadError, Wire, close};

/// A token bucket: `rate` messages per second sustained, `burst` at once.
#[derive(Debug)]
struct Bucket {
    tokens: f64,
    burst: f64,
    rate: f64,
    last: Instant,
}

impl Bucket {
    fn new(rate: u32, burst: u32) -> Bucket {
        Bucket {
            tokens: f64::from(burst),
            burst: f64::from(burst),
            rate: f64::from(rate),
            last: Instant::now(),
        }
    }

    fn take(&mut self) -> bool {
        let now = Instant::now();
        let elapsed = now.duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + elapsed * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// What a player asks of an event.
#[derive(Debug, Clone, Copy)]
enum EventAct {
    Join,
    Pause,
    Resume,
    Leave,
}

fn unknown_event(event: &str) -> Reason {
    Reason::UnknownEvent {
        event: event.to_owned(),
    }
}

/// Why the loop ends.
enum Stop {
    Continue,
    /// Close with this code (RFC 6455 §7.4) and reason.
    Close(u16, &'static str),
}

struct Session<S> {
    shared: Arc<Shared>,
    ws: Wire<S>,
    member: Arc<Member>,
    framing: Framing,
    hello: bool,
    /// The protocol version the client's hello named (the newest until then).
    version: u32,
    bad_frames: u32,
    /// Frames refused on this connection, for logging the 1st, 2nd, 4th, 8th …
    refused: u32,
    /// A send failed or timed out: the connection is finished.
    broken: bool,
    /// The lobby page this connection watches, if any.
    lobby: Option<Watch>,
    room: Option<RoomHandle>,
    outbox: Outbox,
    /// This connection's puzzle attempts and streak: nobody else's intents reach them.
    puzzles: PuzzleBook,
    /// Who a solved daily puzzle is counted for.
    solver: Solver,
    /// The arena event this connection watches, if it has a task.
    event: Option<EventWatch>,
}

/// A watched event: its task, and what the task sends this connection.
struct EventWatch {
    arena: ArenaHandle,
    rx: mpsc::Receiver<EventOut>,
}

/// What a watcher's task may queue for it before it is dropped as too slow.
const EVENT_QUEUE: usize = 64;

/// The next message of the watched event; `None` when the task let the watcher go.
async fn next_event(watch: &mut Option<EventWatch>) -> Option<EventOut> {
    watch.as_mut()?.rx.recv().await
}

pub(crate) async fn run<S>(shared: Arc<Shared>, ws: Wire<S>, identity: Identity)
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let member = Arc::new(Member::from_identity(shared.next_conn(), &identity));
    // The kiosk's own screen connects from the machine itself (as owner mode's kiosk code
    // does); its passers-by share one browser, so each of its daily solves counts.
    let solver = if identity
        .address
        .is_some_and(|a| a.to_canonical().is_loopback())
    {
        Solver::Kiosk
    } else {
        Solver::Person(member.key.clone())
    };
    let (outbox, mut inbox) = mpsc::channel(shared.config.outbox_capacity);
    let (_registered, signed_out) = shared.connect(
        member.conn,
        member.key.clone(),
        identity.session.clone(),
        identity.address,
        outbox.clone(),
    );
    let mut signed_out = Some(signed_out);
    let mut lobby = shared.lobby.subscribe();
    let mut stopping = shared.stopping.subscribe();
    let mut bucket = Bucket::new(shared.config.max_messages_per_s, shared.config.burst);
    let mut s = Session {
        shared: shared.clone(),
        ws,
        member,
        framing: Framing::Text,
        hello: false,
        version: PROTOCOL_VERSION,
        bad_frames: 0,
        refused: 0,
        broken: false,
        lobby: None,
        room: None,
        outbox,
        puzzles: PuzzleBook::default(),
        solver,
        event: None,
    };
    // The server's hello goes first, as JSON text: the client has not shown its framing yet.
    // The client's hello must come before any intent.
    let hello = ServerMsg::Hello {
        version: PROTOCOL_VERSION,
        user: s.member.user(),
        name: s.member.name.clone(),
        max_frame_bytes: u32::try_from(shared.config.max_frame_bytes).unwrap_or(u32::MAX),
        max_messages_per_s: shared.config.max_messages_per_s,
        you: s.member.name_kind(),
    };
    let mut stop = if s.send(hello).await {
        Stop::Continue
    } else {
        Stop::Close(close::AWAY, "")
    };
    // Made once, not at every turn of the loop: a watch's `changed` future adds
    // itself to the watch's waiters when polled and takes itself off when dropped, and a
    // `Sleep` is a timer entry, on every frame in and every message out. Each fires once, and
    // the loop ends when it does.
    let hello_timer = tokio::time::sleep(shared.config.hello_timeout);
    tokio::pin!(hello_timer);
    let server_stopping = stopping.changed();
    tokio::pin!(server_stopping);
    // A lobby watcher looks at the lobby at most once every `LOBBY_UPDATE_INTERVAL`: while it
    // rests it is not woken, and what changed meanwhile comes as one update when it ends (a
    // busy server changes its lobby thousands of times a second; a phone needs ten).
    let lobby_rest = tokio::time::sleep(std::time::Duration::ZERO);
    tokio::pin!(lobby_rest);
    let mut lobby_resting = false;
    while matches!(stop, Stop::Continue) && !s.broken {
        tokio::select! {
            // In this order, without drawing a random one first: the client's frames
            // (which the message limit bounds), then what rooms queued (up to `OUT_BATCH` a
            // turn), then the rest, which fire once.
            biased;
            incoming = s.ws.next() => {
                // The payload is decoded where it was read, not copied first.
                let framing = match incoming {
                    Ok(Incoming::Data { text: true }) => Framing::Text,
                    Ok(Incoming::Data { text: false }) => Framing::Binary,
                    Ok(Incoming::Close) => {
                        // The answering close frame is queued; the client is done.
                        s.flush().await;
                        break;
                    }
                    Err(ReadError::Eof) => break,
                    Err(ReadError::TooLarge { len }) => {
                        // Over the WebSocket layer's hard limit: refused before it is buffered
                        // whole; the stream cannot go on after it.
                        tracing::warn!(conn = s.member.conn, len, "WebSocket closed: frame over the hard size limit");
                        stop = Stop::Close(close::SIZE, "frame too large");
                        continue;
                    }
                    Err(ReadError::Protocol { code, reason }) => {
                        tracing::debug!(conn = s.member.conn, reason, "WebSocket closed: not a WebSocket frame");
                        stop = Stop::Close(code, reason);
                        continue;
                    }
                    Err(ReadError::Io(e)) => {
                        tracing::debug!(conn = s.member.conn, error = %e, "WebSocket read failed");
                        break;
                    }
                    // Pings are answered here, but count as messages.
                    Ok(incoming @ (Incoming::Ping | Incoming::Pong)) => {
                        if !bucket.take() {
                            stop = s.flood().await;
                        } else if incoming == Incoming::Ping && !s.flush().await {
                            break;
                        }
                        continue;
                    }
                };
                if !bucket.take() {
                    stop = s.flood().await;
                    continue;
                }
                stop = s.frame(framing).await;
            }
            () = &mut hello_timer, if !s.hello => {
                tracing::info!(conn = s.member.conn, timeout_s = shared.config.hello_timeout.as_secs(), "WebSocket closed: no hello in time");
                s.refuse(None, Reason::NoHelloInTime).await;
                stop = Stop::Close(close::POLICY, "no hello in time");
            }
            Some(next) = inbox.recv() => {
                if !s.deliver(next, &mut inbox).await {
                    break;
                }
            }
            out = next_event(&mut s.event), if s.event.is_some() => {
                let sent = match out {
                    Some(EventOut::Update(update)) => {
                        s.send(ServerMsg::EventUpdate(Box::new(update))).await
                    }
                    // The hub tells every connection of the player, with the room.
                    Some(EventOut::Paired(_)) => true,
                    // Dropped as too slow (or the task ended): a fresh snapshot instead of
                    // what was missed.
                    None => s.rewatch().await,
                };
                if !sent {
                    break;
                }
            }
            changed = lobby.changed(), if s.lobby.is_some() && !lobby_resting => {
                if changed.is_err() {
                    continue;
                }
                let update = s
                    .lobby
                    .as_mut()
                    .and_then(|watch| watch.refresh(&s.shared.lobby, &s.member));
                if let Some(update) = update
                    && !s.send_lobby(update).await
                {
                    break;
                }
                lobby_rest.as_mut().reset(Instant::now() + LOBBY_UPDATE_INTERVAL);
                lobby_resting = true;
            }
            () = &mut lobby_rest, if lobby_resting => {
                lobby_resting = false;
            }
            _ = &mut server_stopping => {
                stop = Stop::Close(close::RESTART, "server restarting");
            }
            ended = async { signed_out.as_mut().expect("guarded by the branch condition").await }, if signed_out.is_some() => {
                signed_out = None;
                if ended.is_err() {
                    // The registry let go without firing (it does not while this connection
                    // is registered): nothing ended.
                    continue;
                }
                // S3: the session ended elsewhere (sign-out, password change); the client
                // reconnects and is a guest once its cookie is gone.
                tracing::info!(conn = s.member.conn, "WebSocket closed: session ended");
                s.refuse(None, Reason::SignedOut).await;
                stop = Stop::Close(SIGNED_OUT_CLOSE, "signed_out");
            }
        }
    }
    if let Some(watch) = s.event.take() {
        watch.arena.unwatch(s.member.conn).await;
    }
    if let Some(room) = s.room.take() {
        // The room may have closed already; then there is nobody to tell.
        room.send(RoomMsg::Disconnect {
            conn: s.member.conn,
        })
        .await;
    }
    if let (Stop::Close(code, reason), false) = (stop, s.broken) {
        // The peer may be gone or not reading; closing is best effort, and bounded.
        s.ws.queue_close(code, reason);
        if s.flush().await {
            // Linger a moment, discarding what the peer still sends, until its close frame
            // or a short quiet: closing a socket with unread data resets it, and the peer
            // would lose the error and the close frame just sent (a flooding client never
            // saw `flood`).
            s.ws.linger(LINGER_QUIET, LINGER).await;
        }
    }
}

/// Whether `write` succeeded, or `Elapsed` when it did not finish within `timeout`. The timer
/// is made only when the write has to wait: a socket that takes the bytes at once (nearly
/// every write) costs no timer entry made and cancelled.
async fn bounded<F, E>(
    timeout: std::time::Duration,
    write: F,
) -> Result<bool, tokio::time::error::Elapsed>
where
    F: Future<Output = Result<(), E>>,
{
    let mut write = std::pin::pin!(write);
    match std::future::poll_fn(|cx| Poll::Ready(write.as_mut().poll(cx))).await {
        Poll::Ready(result) => Ok(result.is_ok()),
        Poll::Pending => tokio::time::timeout(timeout, write)
            .await
            .map(|r| r.is_ok()),
    }
}

/// Most queued messages one flush of the socket carries.
const OUT_BATCH: usize = 32;

/// A batch this large is written out before more is queued.
const OUT_FLUSH_BYTES: usize = 64 * 1024;

/// The close code of a connection whose sign-in session ended (S3).
pub(crate) const SIGNED_OUT_CLOSE: u16 = 4001;

/// At most how long a closing connection waits for the peer's close frame.
const LINGER: std::time::Duration = std::time::Duration::from_secs(2);
/// A closing connection stops waiting when the peer has been quiet this long.
const LINGER_QUIET: std::time::Duration = std::time::Duration::from_millis(200);

impl<S> Session<S>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    /// Sends one message in the client's framing; `false` when the connection is broken, or
    /// the client has not taken it within the send timeout (a reader that does not read:
    /// the session then ends, so its queue and buffers go with it).
    async fn send(&mut self, msg: ServerMsg) -> bool {
        let frame = msg.encode(self.framing);
        self.write(&frame).await && self.flush().await
    }

    /// Sends a lobby page or update in the client's protocol version: version 1's `lobby`
    /// has no `total` (its watch never makes a `lobby_update`).
    async fn send_lobby(&mut self, msg: ServerMsg) -> bool {
        match msg {
            ServerMsg::Lobby { id, rooms, .. } if self.version == v1::VERSION => {
                let frame = v1::Lobby { id, rooms }.encode(self.framing);
                self.write(&frame).await && self.flush().await
            }
            msg => self.send(msg).await,
        }
    }

    /// Sends what rooms queued: `first`, then whatever else is already waiting (up to
    /// [`OUT_BATCH`]), written to the socket with one flush; `false` when the connection is
    /// broken.
    async fn deliver(&mut self, first: ToSession, inbox: &mut mpsc::Receiver<ToSession>) -> bool {
        let mut next = Some(first);
        let mut taken = 0;
        while let Some(item) = next.take() {
            taken += 1;
            let queued = match item {
                ToSession::Msg(msg) => {
                    self.leaving(&msg);
                    self.write(&msg.encode(self.framing)).await
                }
                ToSession::Shared(out) => {
                    self.leaving(&out.msg);
                    self.write(out.frame(self.framing)).await
                }
                // Written straight into the write buffer: no text of its own made.
                ToSession::Room { room, id, you } => match self.framing {
                    Framing::Text => {
                        self.ws
                            .queue_built(OPCODE_TEXT, |out| room.text_into(out, id, you));
                        self.flush_if_full().await
                    }
                    Framing::Binary => {
                        self.ws
                            .queue_built(OPCODE_BINARY, |out| room.binary_into(out, id, you));
                        self.flush_if_full().await
                    }
                },
                ToSession::Follow(follow) => {
                    let (room, id) = *follow;
                    // M3.12: the old room has let this connection go; its next game becomes
                    // the current room.
                    self.room = Some(room);
                    self.forward(Intent::Open, id).await;
                    true
                }
                ToSession::Enter(enter) => {
                    let (paired, room) = *enter;
                    // EV3: `paired` first, then the game's room, which the player's seat
                    // already holds, becomes the current room (the old one is left).
                    let queued = self.write(&paired.encode(self.framing)).await;
                    self.switch(Some(room)).await;
                    self.forward(Intent::Open, None).await;
                    queued
                }
            };
            if !queued {
                return false;
            }
            if taken < OUT_BATCH {
                next = inbox.try_recv().ok();
            }
        }
        self.flush().await
    }

    /// A room let this connection go (exit, kick, closing): it is no longer the current room.
    fn leaving(&mut self, msg: &ServerMsg) {
        if let ServerMsg::Left { room, .. } = msg
            && self.room.as_ref().is_some_and(|r| r.id == *room)
        {
            self.room = None;
        }
    }

    /// Queues one message, framed, in this connection's write buffer; [`Session::flush`]
    /// writes it out.
    async fn write(&mut self, frame: &Frame) -> bool {
        match frame {
            Frame::Text(text) => self.ws.queue(OPCODE_TEXT, text.as_bytes()),
            Frame::Binary(bytes) => self.ws.queue(OPCODE_BINARY, bytes),
        }
        self.flush_if_full().await
    }

    /// Writes out a batch over [`OUT_FLUSH_BYTES`] before more is queued; `false` when the
    /// connection is broken.
    async fn flush_if_full(&mut self) -> bool {
        if self.broken {
            return false;
        }
        if self.ws.queued() >= OUT_FLUSH_BYTES {
            return self.flush().await;
        }
        true
    }

    /// Writes out everything queued (pongs and close frames included, in order).
    async fn flush(&mut self) -> bool {
        if self.broken {
            return false;
        }
        let timeout = self.shared.config.send_timeout;
        let flushed = bounded(timeout, self.ws.flush()).await;
        self.sent(flushed)
    }

    fn sent(&mut self, result: Result<bool, tokio::time::error::Elapsed>) -> bool {
        let sent = result.unwrap_or_else(|_| {
            tracing::warn!(
                conn = self.member.conn,
                timeout_s = self.shared.config.send_timeout.as_secs(),
                "WebSocket closed: the client does not read what it is sent"
            );
            false
        });
        self.broken |= !sent;
        sent
    }

    /// Over the message rate: `flood` for the sender, then the connection closes.
    async fn flood(&mut self) -> Stop {
        tracing::warn!(
            conn = self.member.conn,
            rate = self.shared.config.max_messages_per_s,
            burst = self.shared.config.burst,
            "WebSocket closed: message flood"
        );
        self.refuse(None, Reason::Flood).await;
        Stop::Close(close::POLICY, "flood")
    }

    /// Tells the client alone why something was refused.
    async fn refuse(&mut self, id: Option<RequestId>, refusal: impl Into<Refusal>) -> bool {
        let Refusal { code, message, .. } = refusal.into();
        self.send(ServerMsg::error(id, code, message)).await
    }

    async fn frame(&mut self, framing: Framing) -> Stop {
        // The reply uses the framing of the client's last frame.
        self.framing = framing;
        let max = self.shared.config.max_frame_bytes;
        let decoded = if self.version == v1::VERSION {
            v1::decode_client_frame(framing, self.ws.payload(), max)
        } else {
            decode_client_payload(framing, self.ws.payload(), max)
        };
        let msg = match decoded {
            Ok(msg) => msg,
            Err(e) => {
                self.bad_frames += 1;
                // Refusals are logged at powers of two, the rest at debug level only, so a
                // client cannot flood the log.
                self.refused += 1;
                if self.refused.is_power_of_two() {
                    tracing::info!(conn = self.member.conn, code = %e.code(), error = %e, refused = self.refused, "frame refused");
                } else {
                    tracing::debug!(conn = self.member.conn, code = %e.code(), error = %e, "frame refused");
                }
                self.refuse(None, Reason::Frame(e)).await;
                if self.bad_frames >= self.shared.config.max_bad_frames {
                    tracing::warn!(
                        conn = self.member.conn,
                        "WebSocket closed: too many bad frames in a row"
                    );
                    return Stop::Close(close::POLICY, "too many bad frames");
                }
                return Stop::Continue;
            }
        };
        self.bad_frames = 0;
        if !self.hello {
            return match msg {
                ClientMsg::Hello { version }
                    if (OLDEST_PROTOCOL_VERSION..=PROTOCOL_VERSION).contains(&version) =>
                {
                    self.hello = true;
                    self.version = version;
                    Stop::Continue
                }
                ClientMsg::Hello { version } => {
                    let versions = Reason::UnsupportedVersion {
                        version,
                        oldest: OLDEST_PROTOCOL_VERSION,
                        newest: PROTOCOL_VERSION,
                    };
                    self.refuse(None, versions).await;
                    Stop::Close(close::PROTOCOL, "unsupported protocol version")
                }
                other => {
                    self.refuse(other.id(), Reason::HelloRequired).await;
                    Stop::Continue
                }
            };
        }
        self.message(msg).await;
        Stop::Continue
    }

    async fn message(&mut self, msg: ClientMsg) {
        let id = msg.id();
        let intent = match msg {
            ClientMsg::Hello { .. } => {
                self.refuse(None, Reason::HelloAgain).await;
                return;
            }
            ClientMsg::Ping { id } => {
                self.send(ServerMsg::Pong { id }).await;
                return;
            }
            ClientMsg::WatchLobby { id, limit } => {
                let (watch, page) = if self.version == v1::VERSION {
                    Watch::start_whole(&self.shared.lobby, &self.member, id)
                } else {
                    Watch::start(&self.shared.lobby, &self.member, page_limit(limit), id)
                };
                self.lobby = Some(watch);
                self.send_lobby(page).await;
                return;
            }
            ClientMsg::UnwatchLobby { id } => {
                self.lobby = None;
                self.send(ServerMsg::Pong { id }).await;
                return;
            }
            ClientMsg::CreateRoom { id, room } => {
                match create(&self.shared, &self.member, &room) {
                    Ok(handle) => {
                        self.switch(Some(handle)).await;
                        self.forward(Intent::Open, id).await;
                    }
                    Err(refusal) => {
                        self.refuse(id, refusal).await;
                    }
                }
                return;
            }
            ClientMsg::Open { id, room } => {
                self.enter(&room, Intent::Open, id).await;
                return;
            }
            ClientMsg::Join { id, room, passcode } => {
                self.enter(&room, Intent::Join { passcode }, id).await;
                return;
            }
            ClientMsg::PuzzleStart { id, source } => {
                self.puzzle(id, |book, ctx| book.start(&source, ctx)).await;
                return;
            }
            ClientMsg::PuzzleMove { id, attempt, cell } => {
                self.puzzle(id, |book, ctx| book.play(attempt, cell, ctx))
                    .await;
                return;
            }
            ClientMsg::PuzzleRetry { id, attempt } => {
                self.puzzle(id, |book, ctx| book.retry(attempt, ctx)).await;
                return;
            }
            ClientMsg::WatchEvent { id, event } => {
                self.watch_event(id, &event).await;
                return;
            }
            ClientMsg::UnwatchEvent { id } => {
                self.stop_watching().await;
                self.send(ServerMsg::Pong { id }).await;
                return;
            }
            ClientMsg::JoinEvent { id, event } => {
                self.event_intent(id, &event, EventAct::Join).await;
                return;
            }
            ClientMsg::PauseEvent { id, event } => {
                self.event_intent(id, &event, EventAct::Pause).await;
                return;
            }
            ClientMsg::ResumeEvent { id, event } => {
                self.event_intent(id, &event, EventAct::Resume).await;
                return;
            }
            ClientMsg::LeaveEvent { id, event } => {
                self.event_intent(id, &event, EventAct::Leave).await;
                return;
            }
            ClientMsg::Close { .. } => Intent::Close,
            ClientMsg::CancelRequest { .. } => Intent::CancelRequest,
            ClientMsg::Accept { user, .. } => Intent::Accept { user },
            ClientMsg::Decline { user, .. } => Intent::Decline { user },
            ClientMsg::Kick { .. } => Intent::Kick,
            ClientMsg::Ready { ready, .. } => Intent::Ready { ready },
            ClientMsg::Start { .. } => Intent::Start,
            ClientMsg::Move { cell, .. } => Intent::Move { cell },
            ClientMsg::OfferDraw { .. } => Intent::OfferDraw,
            ClientMsg::AnswerDraw { accept, .. } => Intent::AnswerDraw { accept },
            ClientMsg::Resign { .. } => Intent::Resign,
            ClientMsg::Exit { .. } => Intent::Exit,
            ClientMsg::Hint { .. } => Intent::Hint,
            ClientMsg::Undo { .. } => Intent::Undo,
            ClientMsg::PlayAgain { .. } => Intent::PlayAgain,
            ClientMsg::OfferRematch { .. } => Intent::OfferRematch,
            ClientMsg::AnswerRematch { accept, .. } => Intent::AnswerRematch { accept },
        };
        self.forward(intent, id).await;
    }

    /// Answers a puzzle intent: the attempt's view, or the refusal, to this connection alone.
    /// The store is asked for the ratings when an attempt starts, and told of a signed-in
    /// player's attempt when it ends, before the player is (P3: a rating is stored before it
    /// is shown).
    async fn puzzle<F>(&mut self, id: Option<RequestId>, act: F)
    where
        F: FnOnce(
            &mut PuzzleBook,
            &mut PuzzleCtx<'_, rand::rngs::ThreadRng>,
        ) -> Result<protocol::PuzzleView, Refusal>,
    {
        let answer = {
            let mut rng = rand::rng();
            let mut ctx = PuzzleCtx {
                day: today(),
                solver: self.solver.clone(),
                daily: &self.shared.daily,
                rng: &mut rng,
            };
            act(&mut self.puzzles, &mut ctx)
        };
        match answer {
            Ok(view) => {
                let view = self.puzzle_store(view).await;
                self.send(ServerMsg::Puzzle {
                    id,
                    attempt: Box::new(view),
                })
                .await;
            }
            Err(refusal) => {
                self.refuse(id, refusal).await;
            }
        }
    }

    /// The event's task, or the refusal for an event without one: `event_over` for a stored
    /// event that is over, `unknown_event` for none.
    async fn live_event(&self, event: &str) -> Result<ArenaHandle, Reason> {
        let book = self.shared.events();
        if let Some(arena) = book.as_ref().and_then(|b| b.live(event)) {
            return Ok(arena);
        }
        let stored = match book {
            Some(book) => {
                let lookup = event.to_owned();
                tokio::task::spawn_blocking(move || book.stored_view_blocking(&lookup))
                    .await
                    .ok()
                    .and_then(Result::ok)
                    .flatten()
            }
            None => None,
        };
        Err(match stored {
            Some(_) => Reason::EventOver,
            None => unknown_event(event),
        })
    }

    /// `watch_event`: the snapshot now, and the event's changes from its task from then on.
    /// An event over before the server started has no task: its stored snapshot alone.
    /// A refused watch leaves the connection's watch as it was.
    async fn watch_event(&mut self, id: Option<RequestId>, event: &str) {
        let book = self.shared.events();
        if let Some(arena) = book.as_ref().and_then(|b| b.live(event)) {
            self.stop_watching().await;
            match self.start_watch(arena).await {
                Some(view) => {
                    self.send(ServerMsg::EventSnapshot {
                        id,
                        event: Box::new(view),
                    })
                    .await;
                }
                None => {
                    self.refuse(id, Reason::EventStopped).await;
                }
            }
            return;
        }
        let stored = match book {
            Some(book) => {
                let lookup = event.to_owned();
                tokio::task::spawn_blocking(move || book.stored_view_blocking(&lookup)).await
            }
            None => Ok(Ok(None)),
        };
        match stored {
            Ok(Ok(Some(view))) => {
                self.stop_watching().await;
                self.send(ServerMsg::EventSnapshot {
                    id,
                    event: Box::new(view),
                })
                .await;
            }
            Ok(Ok(None)) => {
                self.refuse(id, unknown_event(event)).await;
            }
            Ok(Err(e)) => {
                tracing::warn!(event, error = %e, "cannot read a stored event");
                self.refuse(id, Reason::EventUnreadable).await;
            }
            Err(e) => {
                tracing::error!(event, error = %e, "reading a stored event panicked");
                self.refuse(id, Reason::EventUnreadable).await;
            }
        }
    }

    async fn stop_watching(&mut self) {
        if let Some(watch) = self.event.take() {
            watch.arena.unwatch(self.member.conn).await;
        }
    }

    /// Watches `arena` (this connection's only event); its snapshot for this reader, or
    /// `None` when its task has ended.
    async fn start_watch(&mut self, arena: ArenaHandle) -> Option<protocol::event::EventView> {
        let (tx, rx) = mpsc::channel(EVENT_QUEUE);
        let view = arena
            .watch(self.member.conn, self.member.user(), tx)
            .await?;
        self.event = Some(EventWatch { arena, rx });
        Some(view)
    }

    /// The task let this connection's watch go (it fell behind): watch again and send the
    /// whole event; `false` when the connection is broken.
    async fn rewatch(&mut self) -> bool {
        let Some(watch) = self.event.take() else {
            return true;
        };
        match self.start_watch(watch.arena).await {
            Some(view) => {
                self.send(ServerMsg::EventSnapshot {
                    id: None,
                    event: Box::new(view),
                })
                .await
            }
            None => true,
        }
    }

    /// `join_event`, `pause_event`, `resume_event`, `leave_event` (EV2): signed-in players;
    /// answered by the event as the player now sees it. The connection watches the event.
    async fn event_intent(&mut self, id: Option<RequestId>, event: &str, act: EventAct) {
        let arena = match self.live_event(event).await {
            Ok(arena) => arena,
            Err(reason) => {
                self.refuse(id, reason).await;
                return;
            }
        };
        let Some(user) = self.member.user() else {
            self.refuse(id, Reason::EventSignIn).await;
            return;
        };
        if self
            .event
            .as_ref()
            .is_none_or(|w| w.arena.event() != arena.event())
        {
            self.stop_watching().await;
            // Its snapshot is not sent: the answer below is the newer one.
            let _answer_follows = self.start_watch(arena.clone()).await;
        }
        let done = match act {
            EventAct::Join => {
                let rating = self.rating(arena.game(), user).await;
                let player = crate::event::Player {
                    user,
                    name: self.member.name.clone(),
                    rating,
                };
                arena.join(player).await
            }
            EventAct::Pause => arena.pause(user).await,
            EventAct::Resume => arena.resume(user).await,
            EventAct::Leave => arena.leave(user).await,
        };
        match done {
            Some(Ok(view)) => {
                self.send(ServerMsg::EventSnapshot {
                    id,
                    event: Box::new(view),
                })
                .await;
            }
            Some(Err(e)) => {
                self.refuse(id, Reason::from(e)).await;
            }
            None => {
                self.refuse(id, Reason::EventStopped).await;
            }
        }
    }

    /// `user`'s rating on `game`'s ladder (E1), 1200 when it cannot be read.
    async fn rating(&self, game: engine::Game, user: protocol::records::UserId) -> i32 {
        let store = self.shared.store.clone();
        if let Some(r) = store.ratings_in_memory(game, &[user]) {
            return r.first().copied().unwrap_or(engine::INITIAL_RATING);
        }
        tokio::task::spawn_blocking(move || store.ratings_blocking(game, &[user]))
            .await
            .ok()
            .and_then(Result::ok)
            .and_then(|r| r.first().copied())
            .unwrap_or(engine::INITIAL_RATING)
    }

    /// What the store has to do with a puzzle answer (PZ3, PZ4), and the view after it.
    async fn puzzle_store(&mut self, view: protocol::PuzzleView) -> protocol::PuzzleView {
        use protocol::puzzle::{AttemptStatus, PuzzleOrigin, PuzzleStep};
        let attempt = view.attempt;
        let user = self.member.user();
        let store = self.shared.store.clone();
        if view.moves.is_empty() {
            // A new attempt: the ratings now, and whether it counts.
            let Ok(puzzle) = view.puzzle.parse::<tables::puzzle::PuzzleId>() else {
                return view;
            };
            let read =
                tokio::task::spawn_blocking(move || store.puzzle_standing_blocking(user, puzzle.0))
                    .await;
            match read {
                Ok(Ok(standing)) => self.puzzles.standing(attempt, &standing, user.is_some()),
                // The attempt stays unrated, at the puzzle's first rating.
                Ok(Err(e)) => tracing::warn!(error = %e, "cannot read puzzle ratings"),
                Err(e) => tracing::warn!(error = %e, "the puzzle ratings read failed"),
            }
        } else if view.status != AttemptStatus::Playing {
            if matches!(view.origin, PuzzleOrigin::Daily { .. })
                && matches!(view.last, Some(PuzzleStep::Solved { .. }))
            {
                let (day, counts) = self.shared.daily.snapshot();
                if let Err(e) = store.save_daily_solves(day, counts).await {
                    tracing::warn!(error = %e, "cannot store the daily puzzle solves");
                }
            }
            let result = user.and_then(|u| self.puzzles.result(attempt, u, wall_ms()));
            if let Some(result) = result {
                let recorded = match store.record_puzzle(&result).await {
                    Ok(recorded) => Some(recorded),
                    Err(e) => {
                        // Told as unrated: nothing of it was stored.
                        tracing::warn!(error = %e, "cannot store a puzzle attempt");
                        None
                    }
                };
                self.puzzles.rated(attempt, recorded);
            }
        } else {
            return view;
        }
        self.puzzles
            .view_of(attempt, &self.shared.daily)
            .unwrap_or(view)
    }

    /// Sends `intent` (open or join) to room `id`, which becomes the current room only when the
    /// room accepts it; a refused one leaves the current room as it was.
    async fn enter(&mut self, id: &RoomId, intent: Intent, request: Option<RequestId>) {
        if self.room.as_ref().is_some_and(|r| r.id == *id) {
            self.forward(intent, request).await;
            return;
        }
        let Some(handle) = self.shared.lobby.handle(id) else {
            self.refuse(request, Reason::UnknownRoom { room: id.clone() })
                .await;
            return;
        };
        let (accepted, answer) = oneshot::channel();
        let sent = handle
            .send(RoomMsg::Intent(Box::new(IntentMsg {
                member: Arc::clone(&self.member),
                intent,
                id: request,
                outbox: self.outbox.clone(),
                accepted: Some(accepted),
            })))
            .await;
        if !sent {
            self.refuse(request, Reason::RoomClosed).await;
            return;
        }
        // The room answers the client itself (snapshot or error); this only says whether the
        // connection now views it. A room that closed before answering leaves things as they
        // were.
        if answer.await == Ok(true) {
            self.switch(Some(handle)).await;
        }
    }

    async fn switch(&mut self, to: Option<RoomHandle>) {
        if let Some(old) = self.room.take() {
            // A closed room has nobody to tell.
            old.send(RoomMsg::Disconnect {
                conn: self.member.conn,
            })
            .await;
        }
        self.room = to;
    }

    async fn forward(&mut self, intent: Intent, id: Option<RequestId>) {
        // Borrowed, not cloned: a clone copies the room's id (an allocation every move).
        let Some(room) = self.room.as_ref() else {
            self.refuse(id, Reason::NoCurrentRoom).await;
            return;
        };
        let sent = room
            .send(RoomMsg::Intent(Box::new(IntentMsg {
                member: Arc::clone(&self.member),
                intent,
                id,
                outbox: self.outbox.clone(),
                accepted: None,
            })))
            .await;
        if !sent {
            self.room = None;
            self.refuse(id, Reason::RoomClosed).await;
        }
    }
}
