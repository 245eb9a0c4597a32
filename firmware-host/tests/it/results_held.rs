//! A room keeps serving while its result waits for the card (P3: announced only after its
//! durable commit; rooms' `results.rs`: the store's answer comes to the room as a message). On
//! the real store and the real redb file: a `StorageBackend` wrapper (redb's own trait, as in
//! `store_faults.rs`) holds every sync of the file on command, so the rated result's durable
//! commit waits in the writer thread while the test looks at the room.

use std::fs::OpenOptions;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use engine::Game;
use firmware_host::store::{DB_FILE, Store};
use futures_util::{SinkExt, StreamExt};
use protocol::{
    ClientMsg, CreateRoom, Event, Frame, Framing, JoiningRequest, OpponentRequest, Phase, RoomView,
    ServerMsg,
};
use redb::StorageBackend;
use redb::backends::FileBackend;
use rooms::{Account, Hub, HubConfig, Identity};
use tokio::io::DuplexStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::Role;

/// The longest a sync is held, so that a failing test cannot hang.
const HOLD_AT_MOST: Duration = Duration::from_secs(30);
/// How long a test waits for one message.
const WAIT: Duration = Duration::from_secs(10);

/// Syncs of the file wait while `held`.
#[derive(Debug, Default)]
struct Gate {
    held: Mutex<bool>,
    released: Condvar,
    /// Syncs that waited (or are waiting) at the gate.
    stopped: AtomicU64,
}

impl Gate {
    fn set(&self, held: bool) {
        *self.held.lock().expect("gate") = held;
        self.released.notify_all();
    }

    fn pass(&self) {
        let held = self.held.lock().expect("gate");
        if *held {
            self.stopped.fetch_add(1, Ordering::SeqCst);
            let (_held, _timeout) = self
                .released
                .wait_timeout_while(held, HOLD_AT_MOST, |held| *held)
                .expect("gate");
        }
    }
}

/// The file backend, its syncs held at the gate on command.
#[derive(Debug)]
struct Held {
    inner: FileBackend,
    gate: Arc<Gate>,
}

impl StorageBackend for Held {
    fn len(&self) -> Result<u64, std::io::Error> {
        self.inner.len()
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), std::io::Error> {
        self.inner.read(offset, out)
    }

    fn set_len(&self, len: u64) -> Result<(), std::io::Error> {
        self.inner.set_len(len)
    }

    fn sync_data(&self) -> Result<(), std::io::Error> {
        self.gate.pass();
        self.inner.sync_data()
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<(), std::io::Error> {
        self.inner.write(offset, data)
    }

    fn close(&self) -> Result<(), std::io::Error> {
        self.inner.close()
    }
}

/// The real store on `dir`, its syncs held at `gate` on command.
fn open_held(dir: &Path, gate: &Arc<Gate>) -> Store {
    let gate = Arc::clone(gate);
    let file_path = dir.join(DB_FILE);
    Store::open_with_blocking(
        dir,
        Box::new(move || {
            let file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&file_path)
                .map_err(|e| redb::DatabaseError::Storage(redb::StorageError::Io(e)))?;
            firmware_host::store::database_builder().create_with_backend(Held {
                inner: FileBackend::new(file)?,
                gate: Arc::clone(&gate),
            })
        }),
    )
    .expect("the store opens")
}

/// A WebSocket client of the hub over an in-memory pipe.
struct Client {
    ws: WebSocketStream<DuplexStream>,
    next_id: u32,
}

impl Client {
    async fn connect(hub: &Hub, account: Option<Account>, guest: &str) -> Client {
        let (server_io, client_io) = tokio::io::duplex(64 * 1024);
        let identity = Identity {
            account,
            guest_id: guest.to_owned(),
            session: None,
            device: None,
            address: Some(std::net::Ipv4Addr::LOCALHOST.into()),
        };
        let hub = hub.clone();
        tokio::spawn(async move { hub.serve(server_io, Vec::new(), identity).await });
        let ws = WebSocketStream::from_raw_socket(client_io, Role::Client, None).await;
        let mut c = Client { ws, next_id: 0 };
        let hello = c.recv().await;
        assert!(matches!(hello, ServerMsg::Hello { .. }), "{hello:?}");
        c.send(ClientMsg::Hello {
            version: protocol::PROTOCOL_VERSION,
        })
        .await;
        c
    }

    async fn send(&mut self, msg: ClientMsg) {
        let Frame::Text(text) = msg.encode(Framing::Text) else {
            panic!("text framing");
        };
        self.ws.send(Message::text(text)).await.expect("send");
    }

    async fn recv(&mut self) -> ServerMsg {
        loop {
            let msg = tokio::time::timeout(WAIT, self.ws.next())
                .await
                .expect("a message in time")
                .expect("connection open")
                .expect("a valid frame");
            if let Message::Text(text) = msg {
                return protocol::decode_server(&Frame::Text(text.as_str().to_owned()))
                    .expect("server messages decode");
            }
        }
    }

    /// The first message that matches (at most 100).
    async fn until(&mut self, what: &str, want: impl Fn(&ServerMsg) -> bool) -> ServerMsg {
        for _ in 0..100 {
            let msg = self.recv().await;
            if let ServerMsg::Error { .. } = msg {
                panic!("waiting for {what}: {msg:?}");
            }
            if want(&msg) {
                return msg;
            }
        }
        panic!("no {what} within 100 messages");
    }

    /// Sends an intent and returns the snapshot answering it.
    async fn ask(&mut self, make: impl FnOnce(Option<u32>) -> ClientMsg) -> RoomView {
        self.next_id += 1;
        let id = Some(self.next_id);
        self.send(make(id)).await;
        match self
            .until(
                "the answer",
                |m| matches!(m, ServerMsg::Room { id: got, .. } if *got == id),
            )
            .await
        {
            ServerMsg::Room { room, .. } => *room,
            _ => unreachable!("matched a room snapshot"),
        }
    }
}

/// A cell nobody has played in `view`'s board.
fn free_cell(view: &RoomView) -> u8 {
    (0..9u8)
        .find(|c| !view.x.contains(c) && !view.o.contains(c))
        .expect("a free cell")
}

fn is_result(msg: &ServerMsg) -> bool {
    matches!(msg, ServerMsg::Event(Event::Result { .. }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_serves_while_its_result_waits_for_the_card() {
    let dir = tempfile::tempdir().expect("temp dir");
    let gate = Arc::new(Gate::default());
    let store = {
        let (dir, gate) = (dir.path().to_owned(), Arc::clone(&gate));
        tokio::task::spawn_blocking(move || open_held(&dir, &gate))
            .await
            .expect("opened")
    };
    let mut accounts = Vec::new();
    for (n, name) in ["sara", "omar"].into_iter().enumerate() {
        let token = [u8::try_from(n).expect("small"); 32];
        let id = store
            .register(name, "not a password hash", token, 0, u64::MAX)
            .await
            .expect("registered");
        accounts.push(Account {
            id,
            name: name.to_owned(),
        });
    }
    let hub = Hub::start(Arc::new(store.clone()), HubConfig::default());
    let mut sara = Client::connect(&hub, Some(accounts[0].clone()), "g-sara").await;
    let mut omar = Client::connect(&hub, Some(accounts[1].clone()), "g-omar").await;
    let room = sara
        .ask(|id| ClientMsg::CreateRoom {
            id,
            room: CreateRoom {
                game: Game::Xo,
                opponent: OpponentRequest::Player {
                    joining: JoiningRequest::Open,
                },
                time_per_move_s: None,
            },
        })
        .await
        .id;
    omar.ask(|id| ClientMsg::Join {
        id,
        room: room.clone(),
        passcode: None,
    })
    .await;
    omar.ask(|id| ClientMsg::Ready { id, ready: true }).await;
    let started = sara.ask(|id| ClientMsg::Start { id }).await;
    assert_eq!(started.phase, Phase::Playing);

    let mut kiosk = Client::connect(&hub, None, "g-kiosk").await;
    let bot = kiosk
        .ask(|id| ClientMsg::CreateRoom {
            id,
            room: CreateRoom {
                game: Game::Xo,
                opponent: OpponentRequest::Bot {
                    difficulty: Some(0),
                    side: None,
                },
                time_per_move_s: None,
            },
        })
        .await;

    // The card holds its syncs: the rated result's durable commit waits in the writer (and
    // redb's reads with it: nothing below reads the store).
    gate.set(true);
    omar.send(ClientMsg::Resign { id: None }).await;
    let until = Instant::now() + WAIT;
    while gate.stopped.load(Ordering::SeqCst) == 0 {
        assert!(
            Instant::now() < until,
            "the result's commit reached the card"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }

    // Meanwhile the room serves: a spectator joins and sees the finished game, its result not
    // announced (nothing about it before its commit); another room plays on (a guest's bot
    // game, whose result is not stored: nobody registered played).
    let mut watcher = Client::connect(&hub, None, "g-watcher").await;
    let seen = watcher
        .ask(|id| ClientMsg::Open {
            id,
            room: room.clone(),
        })
        .await;
    assert_eq!(seen.phase, Phase::Finished);
    assert_eq!(seen.result, None, "no result before its commit: {seen:?}");
    let moved = kiosk
        .ask(|id| ClientMsg::Move {
            id,
            cell: free_cell(&bot),
        })
        .await;
    assert_eq!(moved.id, bot.id);
    // The room itself answers its own player too: a view of it.
    let view = sara
        .ask(|id| ClientMsg::Open {
            id,
            room: room.clone(),
        })
        .await;
    assert_eq!(view.result, None);

    // The card syncs again: the result is announced to everyone, with both rating changes.
    gate.set(false);
    for c in [&mut sara, &mut omar, &mut watcher] {
        let ServerMsg::Event(Event::Result { ratings, .. }) =
            c.until("the result", is_result).await
        else {
            unreachable!("matched a result");
        };
        assert_eq!(ratings.len(), 2, "{ratings:?}");
    }
    let stored = store
        .game_blocking(&room)
        .expect("read")
        .expect("the game is stored");
    assert!(stored.game.rated);

    hub.shutdown().await;
    tokio::task::spawn_blocking(move || store.shutdown_blocking())
        .await
        .expect("store stopped");
}
