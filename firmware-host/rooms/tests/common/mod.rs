//! Shared by the end-to-end tests: an in-memory `Persistence` (TEST ONLY: the real store is
//! `firmware-host`'s redb store) and a WebSocket test client.

#![allow(dead_code)] // each test file uses part of this
#![allow(clippy::unwrap_used)] // test support: a failure should panic loudly

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use engine::elo::{self, Score};
use engine::{Game, Mark};
use futures_util::{SinkExt, StreamExt};
use protocol::records::{FinishedGame, RatingUpdate, UserId};
use protocol::{ClientMsg, Frame, Framing, ServerMsg, decode_server};
use rooms::{Account, Hub, Identity, Persistence, StoreError, StoreFuture};
use tokio::io::{AsyncRead, AsyncWrite, DuplexStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::Role;

/// An in-memory store for tests of the rooms crate alone. Not durable, not the product's
/// store; it applies E2 itself so tests can check rating changes end to end.
#[derive(Debug, Default)]
pub struct MemoryStore {
    pub games: Mutex<Vec<FinishedGame>>,
    pub ratings: Mutex<HashMap<(Game, UserId), i32>>,
    pub rooms: Mutex<BTreeMap<String, Vec<u8>>>,
    /// Makes the store refuse every commit (for what it holds), to test that nothing is
    /// announced as stored.
    pub fail_commits: AtomicBool,
    /// Makes every commit fail as a full card does (`StoreError::Full`): a rated result waits.
    pub card_full: AtomicBool,
    /// Room saves and deletes asked of the store.
    pub room_writes: AtomicUsize,
    /// While set, a commit's answer waits (the game is recorded at once): the card is slow.
    pub hold: std::sync::Arc<AtomicBool>,
    /// Wakes the answers held by [`MemoryStore::hold`] once it is cleared.
    pub released: std::sync::Arc<tokio::sync::Notify>,
}

impl MemoryStore {
    fn rating(&self, game: Game, user: UserId) -> i32 {
        *self
            .ratings
            .lock()
            .unwrap()
            .get(&(game, user))
            .unwrap_or(&engine::INITIAL_RATING)
    }
}

impl MemoryStore {
    fn commit_now(&self, game: &FinishedGame) -> Result<Vec<RatingUpdate>, StoreError> {
        if self.fail_commits.load(Ordering::SeqCst) {
            return Err(StoreError::Refused("test store refuses commits".into()));
        }
        if self.card_full.load(Ordering::SeqCst) {
            return Err(StoreError::Full("test store: the card is full".into()));
        }
        let mut updates = Vec::new();
        if game.rated {
            let id = |p: &protocol::records::PlayerRef| match p {
                protocol::records::PlayerRef::User { id, .. } => *id,
                other => panic!("rated game with {other:?}"),
            };
            let (x, o) = (id(&game.x), id(&game.o));
            let (rx, ro) = (self.rating(game.game, x), self.rating(game.game, o));
            let score_x = match game.end.winner() {
                Some(Mark::X) => Score::Win,
                Some(Mark::O) => Score::Loss,
                None => Score::Draw,
            };
            let (dx, dy) = elo::changes(rx, ro, score_x);
            updates.push(RatingUpdate {
                user: x,
                mark: Mark::X,
                before: rx,
                after: rx + dx,
            });
            updates.push(RatingUpdate {
                user: o,
                mark: Mark::O,
                before: ro,
                after: ro + dy,
            });
            let mut ratings = self.ratings.lock().unwrap();
            ratings.insert((game.game, x), rx + dx);
            ratings.insert((game.game, o), ro + dy);
        }
        self.games.lock().unwrap().push(game.clone());
        Ok(updates)
    }
}

impl Persistence for MemoryStore {
    fn commit_game(&self, game: &FinishedGame) -> StoreFuture<Vec<RatingUpdate>> {
        let result = self.commit_now(game);
        let (hold, released) = (self.hold.clone(), self.released.clone());
        Box::pin(async move {
            loop {
                let woken = released.notified();
                tokio::pin!(woken);
                woken.as_mut().enable();
                if !hold.load(Ordering::SeqCst) {
                    return result;
                }
                woken.await;
            }
        })
    }

    fn ratings_blocking(&self, game: Game, users: &[UserId]) -> Result<Vec<i32>, StoreError> {
        Ok(users.iter().map(|u| self.rating(game, *u)).collect())
    }

    fn save_room(&self, room_id: &str, state: Vec<u8>) -> StoreFuture<()> {
        self.room_writes.fetch_add(1, Ordering::Relaxed);
        self.rooms.lock().unwrap().insert(room_id.to_owned(), state);
        Box::pin(std::future::ready(Ok(())))
    }

    fn delete_room(&self, room_id: &str) -> StoreFuture<()> {
        self.room_writes.fetch_add(1, Ordering::Relaxed);
        self.rooms.lock().unwrap().remove(room_id);
        Box::pin(std::future::ready(Ok(())))
    }

    fn room_id_taken_blocking(&self, room_id: &str) -> Result<bool, StoreError> {
        Ok(self.games.lock().unwrap().iter().any(|g| {
            g.id == room_id
                || g.id
                    .strip_prefix(room_id)
                    .is_some_and(|rest| rest.starts_with('-'))
        }))
    }

    fn load_rooms_blocking(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        Ok(self
            .rooms
            .lock()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect())
    }
}

pub fn user(id: UserId, name: &str) -> Identity {
    Identity {
        account: Some(Account {
            id,
            name: name.into(),
        }),
        guest_id: format!("g{id}"),
        session: Some(format!("s{id}")),
        device: None,
        address: None,
    }
}

pub fn guest(gid: &str) -> Identity {
    Identity {
        account: None,
        guest_id: gid.into(),
        session: None,
        device: None,
        address: None,
    }
}

/// A protocol client over any WebSocket stream, speaking JSON or postcard.
pub struct Client<S> {
    pub ws: WebSocketStream<S>,
    pub framing: Framing,
    next_id: u32,
    /// How long to wait for one message; long in paused-time tests, where waiting costs
    /// nothing and the server's clocks must fire first.
    pub wait: Duration,
    /// Messages skipped by [`Client::until`], searched by later calls.
    backlog: std::collections::VecDeque<ServerMsg>,
}

/// How long a test waits for one message before failing.
pub const WAIT: Duration = Duration::from_secs(5);

impl<S: AsyncRead + AsyncWrite + Unpin> Client<S> {
    /// Wraps a connected stream without any handshake.
    pub fn start_raw(ws: WebSocketStream<S>, framing: Framing) -> Client<S> {
        Client {
            ws,
            framing,
            next_id: 1,
            wait: WAIT,
            backlog: Default::default(),
        }
    }

    /// Wraps a connected stream: reads the server's hello and sends ours.
    pub async fn start(ws: WebSocketStream<S>, framing: Framing) -> (Client<S>, ServerMsg) {
        let mut c = Client {
            ws,
            framing,
            next_id: 1,
            wait: WAIT,
            backlog: Default::default(),
        };
        let hello = c.recv().await;
        assert!(
            matches!(
                hello,
                ServerMsg::Hello {
                    version: protocol::PROTOCOL_VERSION,
                    ..
                }
            ),
            "{hello:?}"
        );
        c.send(ClientMsg::Hello {
            version: protocol::PROTOCOL_VERSION,
        })
        .await;
        (c, hello)
    }

    pub fn id(&mut self) -> Option<u32> {
        self.next_id += 1;
        Some(self.next_id)
    }

    pub async fn send(&mut self, msg: ClientMsg) {
        let frame = match msg.encode(self.framing) {
            Frame::Text(t) => Message::text(t),
            Frame::Binary(b) => Message::binary(b),
        };
        self.ws.send(frame).await.expect("send");
    }

    pub async fn send_raw(&mut self, msg: Message) {
        self.ws.send(msg).await.expect("send raw");
    }

    /// The next protocol message, or `None` when the server closed the connection.
    pub async fn next(&mut self) -> Option<ServerMsg> {
        loop {
            let msg = tokio::time::timeout(self.wait, self.ws.next())
                .await
                .expect("a message in time");
            let frame = match msg {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return None,
                Some(Ok(Message::Text(t))) => {
                    // The server's hello is always text; everything else uses our framing.
                    if !t.as_str().starts_with("{\"hello\"") {
                        assert_eq!(self.framing, Framing::Text, "reply in the client's framing");
                    }
                    Frame::Text(t.as_str().to_owned())
                }
                Some(Ok(Message::Binary(b))) => {
                    assert_eq!(
                        self.framing,
                        Framing::Binary,
                        "reply in the client's framing"
                    );
                    Frame::Binary(b.to_vec())
                }
                Some(Ok(_)) => continue,
            };
            return Some(decode_server(&frame).expect("server frames decode"));
        }
    }

    pub async fn recv(&mut self) -> ServerMsg {
        self.next().await.expect("connection open")
    }

    /// The first message, skipped earlier or new, that matches; the others stay in the
    /// backlog. Fails after 100 new messages.
    pub async fn until(&mut self, what: &str, pred: impl Fn(&ServerMsg) -> bool) -> ServerMsg {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i).unwrap();
        }
        for _ in 0..100 {
            let msg = self.recv().await;
            if pred(&msg) {
                return msg;
            }
            self.backlog.push_back(msg);
        }
        panic!("no {what} within 100 messages");
    }

    /// Sends an intent and returns the reply carrying its id (a snapshot, hint, left, pong,
    /// lobby or error), skipping broadcasts.
    pub async fn ask(&mut self, make: impl FnOnce(Option<u32>) -> ClientMsg) -> ServerMsg {
        let id = self.id();
        self.send(make(id)).await;
        self.until("reply", |m| reply_id(m) == Some(id)).await
    }

    /// Opens room `room` (to play or watch it) and returns the answer: its snapshot or an
    /// error.
    pub async fn open(&mut self, room: &str) -> ServerMsg {
        let room = room.to_owned();
        self.ask(|id| ClientMsg::Open { id, room }).await
    }
}

pub fn reply_id(msg: &ServerMsg) -> Option<Option<u32>> {
    match msg {
        ServerMsg::Room { id, .. }
        | ServerMsg::Hint { id, .. }
        | ServerMsg::Left { id, .. }
        | ServerMsg::Pong { id }
        | ServerMsg::Lobby { id, .. }
        | ServerMsg::Error { id, .. } => id.map(Some),
        _ => None,
    }
}

pub fn room_of(msg: &ServerMsg) -> &protocol::RoomView {
    match msg {
        ServerMsg::Room { room, .. } => room,
        other => panic!("expected a room snapshot, got {other:?}"),
    }
}

pub fn error_code(msg: &ServerMsg) -> protocol::ErrorCode {
    match msg {
        ServerMsg::Error { code, .. } => *code,
        other => panic!("expected an error, got {other:?}"),
    }
}

/// A client of `hub` over an in-memory pipe (no socket), served as `who`.
pub async fn connect_duplex(hub: &Hub, who: Identity) -> Client<DuplexStream> {
    let (server_io, client_io) = tokio::io::duplex(64 * 1024);
    let hub = hub.clone();
    tokio::spawn(async move {
        hub.serve(server_io, Vec::new(), who).await;
    });
    let ws = WebSocketStream::from_raw_socket(client_io, Role::Client, None).await;
    let (c, _) = Client::start(ws, Framing::Text).await;
    c
}
