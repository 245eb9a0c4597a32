//! [`Hub`]: the rooms side of the server, as `firmware-host` sees it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use protocol::{CreateRoom, ErrorCode, RoomSummary};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_tungstenite::WebSocketStream;

use crate::actor::{self, RoomHandle, RoomMsg, wall_ms};
use crate::lobby::Lobby;
use crate::persistence::{Identity, Persistence};
use crate::room::{Ctx, Member, PlayerKey, Refusal, Room};
use crate::seats::{SeatBook, SharedSeats};
use crate::settings::Settings;

/// Limits and timings of the hub.
#[derive(Debug, Clone)]
pub struct HubConfig {
    /// Frames larger than this get `frame_too_large`. Also set the WebSocket's own
    /// `max_message_size`/`max_frame_size` at accept time (a little above this), so huge
    /// frames are refused before they are buffered whole.
    pub max_frame_bytes: usize,
    /// Sustained messages per second per connection; beyond it and the burst, the connection
    /// gets `flood` and is closed.
    pub max_messages_per_s: u32,
    /// How many messages a connection may send at once above the sustained rate.
    pub burst: u32,
    /// Undecodable frames in a row before the connection is closed.
    pub max_bad_frames: u32,
    /// A room nobody views closes after this long (finished rooms, abandoned bot and local
    /// games, waiting rooms); online games in progress run until their clocks end them.
    pub idle_room_close: Duration,
    /// Messages queued for one connection before it counts as too slow and is dropped.
    pub outbox_capacity: usize,
    /// A new connection that has not sent its hello within this is closed.
    pub hello_timeout: Duration,
    /// A connection whose socket takes longer than this to accept one message (a reader
    /// that does not read) is closed.
    pub send_timeout: Duration,
    /// Wrong passcodes one player may try in one room within [`HubConfig::passcode_window`]
    /// before further attempts are refused until the oldest leaves the window.
    pub passcode_attempts: usize,
    /// Wrong passcodes all players together may try in one room within the window.
    pub passcode_attempts_per_room: usize,
    pub passcode_window: Duration,
    /// Rooms one player (or guest id) may have open before creating another closes their
    /// oldest rooms that nobody views (bot and local games, finished games), as the idle
    /// timeout would later.
    pub rooms_per_host_soft: usize,
    /// Rooms one player (or guest id) may have open at once, finished ones included until
    /// they close; creating another is refused with `unavailable`.
    pub max_rooms_per_host: usize,
    /// Rooms open at once on the whole server (each holds memory until it closes). Past
    /// three quarters of it, creating a room closes the oldest rooms nobody views (finished,
    /// bot and local games); at the limit, creating one is refused with `unavailable`.
    pub max_rooms: usize,
}

impl Default for HubConfig {
    fn default() -> Self {
        HubConfig {
            max_frame_bytes: protocol::MAX_FRAME_BYTES,
            max_messages_per_s: 20,
            burst: 40,
            max_bad_frames: 10,
            idle_room_close: Duration::from_secs(30 * 60),
            outbox_capacity: 256,
            hello_timeout: Duration::from_secs(10),
            send_timeout: Duration::from_secs(10),
            passcode_attempts: 5,
            passcode_attempts_per_room: 50,
            passcode_window: Duration::from_secs(5 * 60),
            rooms_per_host_soft: 20,
            max_rooms_per_host: 50,
            max_rooms: 2000,
        }
    }
}

/// Counts for `/api/health` and the status display (P5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HubStats {
    pub rooms_waiting: usize,
    pub rooms_playing: usize,
    pub connections: usize,
    /// Distinct identities with at least one open connection.
    pub players_online: usize,
}

/// What rooms and sessions share.
pub(crate) struct Shared {
    pub(crate) store: Arc<dyn Persistence>,
    pub(crate) config: HubConfig,
    pub(crate) seats: SharedSeats,
    pub(crate) lobby: Lobby,
    /// The zero of the monotonic milliseconds rooms use for clocks.
    epoch: Instant,
    next_conn: AtomicU64,
    connections: AtomicUsize,
    online: Mutex<HashMap<PlayerKey, usize>>,
    /// Set to `true` once to stop every session.
    pub(crate) stopping: watch::Sender<bool>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

impl Shared {
    /// Whether a stored game uses `id` (issue 10.4: a new room must not clash with an old
    /// game, or its result could not be stored). One short read. When the store cannot be
    /// read the id counts as free: room creation must not wait on a failing card, and a clash
    /// among 31^6 ids is unlikely.
    fn id_of_stored_game(&self, id: &str) -> bool {
        self.store.room_id_taken_blocking(id).unwrap_or_else(|e| {
            tracing::warn!(room = id, error = %e, "cannot check a new room id against stored games");
            false
        })
    }

    pub(crate) fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    pub(crate) fn instant_at(&self, ms: u64) -> Instant {
        self.epoch + Duration::from_millis(ms)
    }

    pub(crate) fn track(&self, task: JoinHandle<()>) {
        let mut tasks = self
            .tasks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        tasks.retain(|t| !t.is_finished());
        tasks.push(task);
    }

    pub(crate) fn next_conn(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// Counts a connection of `key` until the returned guard drops.
    pub(crate) fn connect(self: &Arc<Self>, key: PlayerKey) -> ConnGuard {
        self.connections.fetch_add(1, Ordering::Relaxed);
        *self
            .online
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(key.clone())
            .or_insert(0) += 1;
        ConnGuard {
            shared: self.clone(),
            key,
        }
    }

    /// Creates a room from the creation box (M1, M2, M3.1) and starts its task.
    pub(crate) fn create(
        self: &Arc<Self>,
        member: &Member,
        req: &CreateRoom,
    ) -> Result<RoomHandle, Refusal> {
        if *self.stopping.borrow() {
            return Err(Refusal::new(
                ErrorCode::Unavailable,
                "the server is shutting down",
            ));
        }
        let settings = Settings::from_request(req, member.user().is_some())?;
        // Every room holds memory until it closes (up to 30 minutes after its last viewer).
        let (open, hosted) = self.lobby.count(&member.key);
        let soft = self.config.max_rooms / 4 * 3;
        if open >= soft {
            // Past three quarters of the limit, the oldest rooms nobody views close now
            // rather than 30 minutes after their last viewer, so that finished games cannot
            // fill the server while new ones are played.
            for room in self.lobby.oldest_closable((open + 1 - soft).min(64)) {
                // A full queue or a closed room: nothing to do.
                room.try_send(RoomMsg::CloseIfIdle);
            }
        }
        if open >= self.config.max_rooms {
            tracing::warn!(open, "room refused: the server has its most open rooms");
            return Err(Refusal::new(
                ErrorCode::Unavailable,
                "the server has too many open rooms; try again later",
            ));
        }
        if hosted >= self.config.rooms_per_host_soft {
            // Keep a kiosk that plays game after game well under the hard limit: its old
            // rooms nobody views close now rather than after the idle time.
            let excess = hosted + 1 - self.config.rooms_per_host_soft;
            for room in self.lobby.hosted(&member.key).into_iter().take(excess) {
                // A full queue or a closed room: nothing to do.
                room.try_send(RoomMsg::CloseIfIdle);
            }
        }
        if hosted >= self.config.max_rooms_per_host {
            tracing::warn!(
                conn = member.conn,
                hosted,
                "room refused: too many open rooms of one host"
            );
            return Err(Refusal::new(
                ErrorCode::Unavailable,
                format!("you have {hosted} rooms open; leave one (exit) before creating another"),
            ));
        }
        let mut rng = StdRng::from_rng(&mut rand::rng());
        let id = loop {
            let id = room_id(&mut rng);
            if !self.lobby.contains(&id) && !self.id_of_stored_game(&id) {
                break id;
            }
        };
        let mut seats = self.seats.clone();
        if let (true, Some(user)) = (settings.is_online(), member.user()) {
            // M3.4: a player sits in at most one waiting or active room.
            if let Err(place) = seats.claim(user, &id, false) {
                return Err(Refusal::new(
                    ErrorCode::AlreadySeated,
                    format!("you already sit in room {}; leave it first", place.room),
                ));
            }
        }
        let mut ctx = Ctx {
            now_ms: self.now_ms(),
            wall_ms: wall_ms(),
            rng: &mut rng,
            seats: &mut seats,
        };
        let mut room = Room::new(id, settings, member, &mut ctx);
        let fx = room.resume(&mut ctx);
        tracing::info!(room = %room.id(), game = %room.settings().game, "room created");
        Ok(actor::spawn(room, fx, self.clone()))
    }
}

/// Keeps a connection counted in the stats while it lives.
pub(crate) struct ConnGuard {
    shared: Arc<Shared>,
    key: PlayerKey,
}

impl Drop for ConnGuard {
    fn drop(&mut self) {
        self.shared.connections.fetch_sub(1, Ordering::Relaxed);
        let mut online = self
            .shared
            .online
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(n) = online.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                online.remove(&self.key);
            }
        }
    }
}

/// A short id that is easy to read aloud and type: no 0/o, 1/l/i.
fn room_id(rng: &mut StdRng) -> String {
    const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
    (0..6)
        .map(|_| char::from(*ALPHABET.choose(rng).expect("alphabet is not empty")))
        .collect()
}

/// A cloneable handle on every room and connection.
#[derive(Clone)]
pub struct Hub {
    shared: Arc<Shared>,
}

impl core::fmt::Debug for Hub {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Hub")
            .field("config", &self.shared.config)
            .field("stats", &self.stats())
            .finish()
    }
}

impl Hub {
    /// Starts the hub inside the current tokio runtime and restores every saved open room
    /// (seats, settings, moves and repetition history; the side to move gets a fresh full
    /// clock). Reading the saved rooms blocks briefly: call it at start-up, before serving.
    pub fn start(store: Arc<dyn Persistence>, config: HubConfig) -> Hub {
        let shared = Arc::new(Shared {
            store: store.clone(),
            config,
            seats: SharedSeats::default(),
            lobby: Lobby::new(),
            epoch: Instant::now(),
            next_conn: AtomicU64::new(1),
            connections: AtomicUsize::new(0),
            online: Mutex::new(HashMap::new()),
            stopping: watch::channel(false).0,
            tasks: Mutex::new(Vec::new()),
        });
        let saved = match store.load_rooms_blocking() {
            Ok(saved) => saved,
            Err(e) => {
                tracing::error!(error = %e, "cannot load saved rooms; starting without them");
                Vec::new()
            }
        };
        let mut rng = StdRng::from_rng(&mut rand::rng());
        for (id, bytes) in saved {
            let mut seats = shared.seats.clone();
            match Room::restore(&bytes, &mut seats) {
                Ok(mut room) => {
                    let fx = room.resume(&mut Ctx {
                        now_ms: shared.now_ms(),
                        wall_ms: wall_ms(),
                        rng: &mut rng,
                        seats: &mut seats,
                    });
                    tracing::info!(room = %id, phase = ?room.phase(), "room restored");
                    actor::spawn(room, fx, shared.clone());
                }
                // Kept in the store for inspection; a later version may read it.
                Err(e) => tracing::error!(room = %id, error = %e, "cannot restore saved room"),
            }
        }
        Hub { shared }
    }

    /// Drives one WebSocket connection until it closes: hello, then each frame decoded and
    /// routed, snapshots and events sent back in the client's framing.
    pub async fn serve<S>(&self, ws: WebSocketStream<S>, identity: Identity)
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        crate::session::run(self.shared.clone(), ws, identity).await;
    }

    /// The lobby list, for `GET /api/rooms`: waiting rooms, then games in progress, then
    /// finished ones. Never contains a passcode.
    pub fn lobby(&self) -> Vec<RoomSummary> {
        self.shared.lobby.list()
    }

    /// Counts for `/api/health` and the status display.
    pub fn stats(&self) -> HubStats {
        let (rooms_waiting, rooms_playing) = self.shared.lobby.counts();
        HubStats {
            rooms_waiting,
            rooms_playing,
            connections: self.shared.connections.load(Ordering::Relaxed),
            players_online: self
                .shared
                .online
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .len(),
        }
    }

    /// Stops every session and room. Each room saves its state (it is restored at the next
    /// start) before this returns.
    pub async fn shutdown(&self) {
        // 1. Sessions see the flag, close their WebSocket and stop sending intents.
        self.shared.stopping.send_replace(true);
        // 2. Each room writes its last state and answers.
        let mut waits = Vec::new();
        for room in self.shared.lobby.handles() {
            let (done, wait) = oneshot::channel();
            if room.send(RoomMsg::Shutdown { done }).await {
                waits.push(wait);
            }
        }
        for wait in waits {
            // An error means the room ended on its own meanwhile: nothing left to wait for.
            wait.await.ok();
        }
        // 3. Every task (rooms and their savers) has finished or is finishing; wait for them.
        let tasks: Vec<JoinHandle<()>> = std::mem::take(
            &mut *self
                .shared
                .tasks
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        );
        for task in tasks {
            if let Err(e) = task.await {
                tracing::error!(error = %e, "room task failed");
            }
        }
    }
}
