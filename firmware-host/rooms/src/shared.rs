//! [`Shared`]: what rooms and sessions share: storage, limits, the seat book, the lobby, the
//! clock's zero, the open connections and the stop signal.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use protocol::records::UserId;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::arena_actor::EventBook;
use crate::config::HubConfig;
use crate::conns::Conns;
use crate::handle::Outbox;
use crate::lobby::Lobby;
use crate::persistence::Persistence;
use crate::rated::{RatedBudget, RatedGate};
use crate::room::{ConnId, PlayerKey};
use crate::seats::SharedSeats;

/// What rooms and sessions share.
pub(crate) struct Shared {
    pub(crate) store: Arc<dyn Persistence>,
    pub(crate) config: HubConfig,
    pub(crate) seats: SharedSeats,
    pub(crate) lobby: Lobby,
    /// The zero of the monotonic milliseconds rooms use for clocks.
    epoch: Instant,
    next_conn: AtomicU64,
    /// Every open connection.
    pub(crate) conns: Conns,
    /// Rated games started per client address.
    rated: RatedBudget,
    /// Today's daily puzzle solves (PZ4).
    pub(crate) daily: crate::puzzles::DailySolves,
    /// Set to `true` once to stop every session.
    pub(crate) stopping: watch::Sender<bool>,
    tasks: Mutex<Tasks>,
    /// The server's arena events, once it has set them ([`crate::Hub::set_events`]). Weak: the
    /// book's event tasks hold the hub.
    events: std::sync::OnceLock<std::sync::Weak<dyn EventBook>>,
}

/// The tasks shutdown waits on (each open room's). Finished ones are swept out when the list
/// has grown by an eighth (at least [`SWEEP_AT_LEAST`]) since the last sweep, not at every task
/// started: a sweep looks at every task, so sweeping at each room's start cost time that grew
/// with the rooms open, about eight looks per task started now. And not rarer: a
/// finished room's task keeps its memory (about 4.5 KB) until its handle here is dropped, and
/// sweeping only when the list had doubled kept up to one finished room per open room.
#[derive(Default)]
struct Tasks {
    list: Vec<JoinHandle<()>>,
    /// The list's length at which the next sweep happens.
    sweep_at: usize,
}

/// The least length of the task list at which a sweep happens.
const SWEEP_AT_LEAST: usize = 64;

impl Tasks {
    fn push(&mut self, task: JoinHandle<()>) {
        if self.list.len() >= self.sweep_at {
            self.list.retain(|t| !t.is_finished());
            self.sweep_at = self.list.len() + (self.list.len() / 8).max(SWEEP_AT_LEAST);
        }
        self.list.push(task);
    }
}

impl Shared {
    pub(crate) fn new(store: Arc<dyn Persistence>, config: HubConfig) -> Shared {
        Shared {
            store,
            rated: RatedBudget::new(config.rated_games_per_address),
            config,
            seats: SharedSeats::default(),
            lobby: Lobby::new(),
            epoch: Instant::now(),
            next_conn: AtomicU64::new(1),
            conns: Conns::default(),
            daily: crate::puzzles::DailySolves::default(),
            stopping: watch::channel(false).0,
            tasks: Mutex::new(Tasks::default()),
            events: std::sync::OnceLock::new(),
        }
    }

    /// Sets the server's arena events; `false` if they were set already.
    pub(crate) fn set_events(&self, book: &Arc<dyn EventBook>) -> bool {
        self.events.set(Arc::downgrade(book)).is_ok()
    }

    /// The server's arena events, if it has them.
    pub(crate) fn events(&self) -> Option<Arc<dyn EventBook>> {
        self.events.get().and_then(std::sync::Weak::upgrade)
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
        tasks.push(task);
    }

    /// Every task tracked so far, for shutdown to wait on.
    pub(crate) fn take_tasks(&self) -> Vec<JoinHandle<()>> {
        std::mem::take(
            &mut self
                .tasks
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .list,
        )
    }

    /// An id no open room and no stored game has (a new room must not clash with
    /// an old game, or its result could not be stored).
    pub(crate) fn fresh_room_id<R: rand::Rng>(&self, rng: &mut R) -> String {
        self.lobby.fresh_id(rng, |id| self.id_of_stored_game(id))
    }

    /// Whether a stored game uses `id`. One short read. When the store cannot be read the id
    /// counts as free: room creation must not wait on a failing card, and a clash among 31^6
    /// ids is unlikely.
    fn id_of_stored_game(&self, id: &str) -> bool {
        self.store.room_id_taken_blocking(id).unwrap_or_else(|e| {
            tracing::warn!(room = id, error = %e, "cannot check a new room id against stored games");
            false
        })
    }

    /// Open connections.
    pub(crate) fn connections(&self) -> usize {
        self.conns.len()
    }

    /// Distinct identities with at least one open connection.
    pub(crate) fn players_online(&self) -> usize {
        self.conns.people()
    }

    pub(crate) fn next_conn(&self) -> u64 {
        self.next_conn.fetch_add(1, Ordering::Relaxed)
    }

    /// Registers connection `conn` of `key` until the returned guard drops; the receiver
    /// fires when its sign-in session is ended.
    pub(crate) fn connect(
        self: &Arc<Self>,
        conn: ConnId,
        key: PlayerKey,
        session: Option<String>,
        address: Option<std::net::IpAddr>,
        outbox: Outbox,
    ) -> (ConnGuard, oneshot::Receiver<()>) {
        let signed_out = self.conns.insert(conn, key, session, address, outbox);
        (
            ConnGuard {
                shared: self.clone(),
                conn,
            },
            signed_out,
        )
    }
}

impl RatedGate for Shared {
    fn admit(&self, players: &[UserId], now_ms: u64) -> Result<(), u64> {
        let addresses = self.conns.addresses_of(players);
        self.rated.charge(&addresses, now_ms)
    }
}

/// Keeps a connection registered while it lives.
pub(crate) struct ConnGuard {
    shared: Arc<Shared>,
    conn: ConnId,
}

impl Drop for ConnGuard {
    fn drop(&mut self) {
        self.shared.conns.remove(self.conn);
    }
}

/// Milliseconds since the Unix epoch, for records.
pub(crate) fn wall_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn finished_tasks_are_swept_out_and_running_ones_kept() {
        let mut tasks = Tasks::default();
        let running: Vec<_> = (0..100)
            .map(|_| tokio::spawn(std::future::pending::<()>()))
            .collect();
        let aborts: Vec<_> = running.iter().map(JoinHandle::abort_handle).collect();
        for task in running {
            tasks.push(task);
        }
        for _ in 0..1_000 {
            let task = tokio::spawn(async {});
            while !task.is_finished() {
                tokio::task::yield_now().await;
            }
            tasks.push(task);
            // The running ones, and at most an eighth more (64 at least) that have finished.
            assert!(tasks.list.len() <= 100 + 64 + 1, "{}", tasks.list.len());
        }
        let still = tasks.list.iter().filter(|t| !t.is_finished()).count();
        assert_eq!(still, 100, "every running task is kept for shutdown");
        for abort in aborts {
            abort.abort();
        }
    }
}
