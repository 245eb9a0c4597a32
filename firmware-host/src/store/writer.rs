//! The writer thread: group commits, the durability deadline, and healing after a failure.
//! What a write does is its noun's business: the writer hands every batch to `dispatch`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use redb::{Database, Durability, ReadableDatabase, WriteTransaction};
use rooms::StoreError;

use super::error::store_err;
use super::op::{Op, Outcome, Reply, Request};
use super::ratings::{Touched, touched_by};
use super::shared::Core;
use super::{dispatch, ladders, meta};

/// The longest play of an open room a power cut can cost (P3, DESIGN "Storage"; README's
/// promise). A second is a move or two of a game, and at most one SD-card sync a second keeps
/// the card's wear and the writer's time small.
pub const LOSS_BOUND: Duration = Duration::from_secs(1);

/// While writes keep coming (the last commit was shared by several), the least time from the
/// end of one commit to the start of the next: what arrives meanwhile joins the next commit.
/// So under load the card syncs at most about 100 times a second however many games end (each
/// sync cost the server about as much CPU as a whole move), a result waits at most
/// this much longer for its sync, and a writer that was idle commits at once.
pub const COMMIT_WINDOW: Duration = Duration::from_millis(10);

/// How long an open room's save may wait in the writer's memory before a durable commit holds
/// it: [`LOSS_BOUND`] less the time a room waits after a change before its state is sent
/// ([`rooms::SAVE_COALESCE`]) and the time the commit may wait for its turn ([`COMMIT_WINDOW`]).
pub const DURABLE_WITHIN: Duration = LOSS_BOUND
    .saturating_sub(rooms::SAVE_COALESCE)
    .saturating_sub(COMMIT_WINDOW);

/// While the card fails, how often the writer reopens the database and tries a small durable
/// write, so that the store heals by itself when the card does.
pub const HEAL_EVERY: Duration = Duration::from_millis(500);

/// How often the writer looks at the free space of the card, to warn before it is full.
const SPACE_EVERY: Duration = Duration::from_secs(5);

/// Most requests one group commit takes from the channel.
const MAX_BATCH: usize = 256;

/// The writer thread's own state.
pub(super) struct Writer {
    core: Arc<Core>,
    /// When the oldest non-durable commit must be made durable; `None` when there is none.
    flush_due: Option<Instant>,
    /// The database must be reopened before the next write: redb keeps failing every
    /// operation after an I/O error until it is.
    needs_reopen: bool,
    /// While failing: when to try healing next.
    heal_due: Option<Instant>,
    space_due: Instant,
    /// Open rooms' saves and deletes not yet in the file, newest per room, with when the oldest
    /// arrived. They are not committed one by one: each commit rewrites a B-tree path of
    /// pages, so a room saved at every move wrote kilobytes a move to the card (SD cards wear
    /// by the page written). They ride on the next durable commit (a result, or the flush
    /// [`DURABLE_WITHIN`] after the oldest arrived), so a power cut or a crash loses at most the
    /// same last second of play as the non-durable commits they replace did (redb forgets
    /// those at a crash too).
    rooms: BTreeMap<String, RoomWrite>,
    rooms_since: Option<Instant>,
    /// A non-durable commit was made since the last durable one.
    unsynced: bool,
}

/// What the file is to hold for an open room.
#[derive(Debug, Clone)]
enum RoomWrite {
    Save(Vec<u8>),
    Delete,
}

impl RoomWrite {
    fn op(&self, id: &str) -> Op {
        match self {
            RoomWrite::Save(state) => Op::SaveRoom {
                id: id.to_owned(),
                state: state.clone(),
            },
            RoomWrite::Delete => Op::DeleteRoom { id: id.to_owned() },
        }
    }
}

impl Writer {
    pub(super) fn new(core: Arc<Core>) -> Writer {
        Writer {
            core,
            flush_due: None,
            needs_reopen: false,
            heal_due: None,
            space_due: Instant::now(),
            rooms: BTreeMap::new(),
            rooms_since: None,
            unsynced: false,
        }
    }

    fn next_wake(&self) -> Instant {
        [self.flush_due, self.heal_due]
            .into_iter()
            .flatten()
            .fold(self.space_due, Instant::min)
    }

    /// Group commits until shut down or every sender is gone.
    pub(super) fn run(mut self, receiver: &Receiver<Request>) {
        // When the last commit ended, if it was shared by several writes (the writer is busy):
        // the next one then starts at least COMMIT_WINDOW later. A lone writer waiting on
        // each of its writes in turn (a test, one person signing in) is never held back.
        let mut last_commit: Option<Instant> = None;
        loop {
            let mut batch = Vec::new();
            let mut shutdown = None;
            // Every sender gone: nothing more can arrive.
            let mut disconnected = false;
            let wait = self.next_wake().saturating_duration_since(Instant::now());
            match receiver.recv_timeout(wait) {
                Ok(Request::Write(op, reply)) => self.take(op, reply, &mut batch),
                Ok(Request::Shutdown(done)) => shutdown = Some(done),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => disconnected = true,
            }
            // Within the window of the last commit: sleep out the rest of it rather than
            // wait in `recv`, so that the writes arriving meanwhile queue without waking this
            // thread once each (on one core every wake-up is a context switch).
            if shutdown.is_none() && !batch.is_empty() {
                let now = Instant::now();
                if let Some(end) = last_commit.map(|end| end + COMMIT_WINDOW)
                    && end > now
                {
                    std::thread::sleep(end - now);
                }
            }
            while shutdown.is_none() && !batch.is_empty() && batch.len() < MAX_BATCH {
                match receiver.try_recv() {
                    Ok(Request::Write(op, reply)) => self.take(op, reply, &mut batch),
                    Ok(Request::Shutdown(done)) => shutdown = Some(done),
                    Err(_) => break,
                }
            }
            if !batch.is_empty() {
                let shared = batch.len() > 1;
                self.commit(batch);
                last_commit = shared.then(Instant::now);
            }
            let now = Instant::now();
            if self.heal_due.is_some_and(|t| t <= now) {
                self.heal();
            } else if self.flush_due.is_some_and(|t| t <= now) {
                self.flush();
            }
            if self.space_due <= now {
                self.core.check_space();
                self.space_due = now + SPACE_EVERY;
            }
            if shutdown.is_some() || disconnected {
                if self.flush_due.is_some() {
                    self.flush();
                }
                if self.flush_due.is_none() {
                    tracing::info!("store writer stopped; every write is on disk");
                } else {
                    tracing::error!(
                        "store writer stopped; the last moves of open rooms could not be made durable"
                    );
                }
                if let Some(done) = shutdown {
                    // The caller may have given up waiting; nothing else to tell it.
                    let _ignored = done.send(());
                }
                return;
            }
        }
    }

    /// Takes one write: an open room's save or delete is kept in memory (answered at once,
    /// as a non-durable commit was), every other write joins `batch`.
    fn take(&mut self, op: Op, reply: Reply, batch: &mut Vec<(Op, Reply)>) {
        let (id, write) = match op {
            Op::SaveRoom { id, state } => (id, RoomWrite::Save(state)),
            Op::DeleteRoom { id } => {
                self.rooms.remove(&id);
                if !self.in_file(&id) {
                    // Nothing to forget (a result's commit already did, or the room was
                    // never written): no commit, no sync.
                    if self.rooms.is_empty() {
                        self.rooms_since = None;
                    }
                    let _ignored = reply.send(Ok(Outcome::Done));
                    return;
                }
                (id, RoomWrite::Delete)
            }
            op => {
                batch.push((op, reply));
                return;
            }
        };
        self.rooms.insert(id, write);
        let since = *self.rooms_since.get_or_insert_with(Instant::now);
        let due = since + DURABLE_WITHIN;
        self.flush_due = Some(self.flush_due.map_or(due, |d| d.min(due)));
        // A caller that stopped waiting does not need the answer.
        let _ignored = reply.send(Ok(Outcome::Done));
    }

    /// Whether the file holds a save of room `id`; `true` when it cannot be read (a delete
    /// is then written, to be sure).
    fn in_file(&self, id: &str) -> bool {
        let found = self.core.db().and_then(|db| {
            let txn = db.begin_read().map_err(store_err)?;
            let rooms = txn
                .open_table(super::open_rooms::OPEN_ROOMS)
                .map_err(store_err)?;
            let found = redb::ReadableTable::get(&rooms, id)
                .map_err(store_err)?
                .is_some();
            Ok(found)
        });
        found.unwrap_or(true)
    }

    /// The database to write to, reopening it first when a failure requires it.
    fn database(&mut self) -> Result<Arc<Database>, StoreError> {
        if self.needs_reopen {
            self.core.reopen()?;
            self.needs_reopen = false;
        }
        self.core.db()
    }

    /// Notes a failure of the card: reported on `/api/health`, healed from the next tick.
    fn failed(&mut self, e: &StoreError) {
        if e.is_unavailable() {
            // A commit that failed may or may not have reached the file.
            self.core.ratings.distrust();
            self.needs_reopen = true;
            self.heal_due = Some(Instant::now() + HEAL_EVERY);
            self.core.set_failing(e);
        }
    }

    /// A commit went through: the card works.
    fn succeeded(&mut self, durable: bool) {
        self.unsynced = !durable;
        if durable && self.rooms.is_empty() {
            self.flush_due = None;
        } else if self.flush_due.is_none() {
            self.flush_due = Some(Instant::now() + DURABLE_WITHIN);
        }
        self.heal_due = None;
        self.core.set_working();
    }

    /// Commits `batch`; a durable one takes the open rooms' writes kept in memory along (they
    /// share its sync), first, so that a result in the batch forgets its room after them.
    fn commit(&mut self, batch: Vec<(Op, Reply)>) {
        let db = match self.database() {
            Ok(db) => db,
            Err(e) => {
                self.failed(&e);
                for (_, reply) in batch {
                    // A caller that stopped waiting does not need the answer.
                    let _ignored = reply.send(Err(e.clone()));
                }
                return;
            }
        };
        let durable = batch.iter().any(|(op, _)| op.durable());
        let rooms = if durable {
            self.rooms_since = None;
            std::mem::take(&mut self.rooms)
        } else {
            BTreeMap::new()
        };
        let mut all: Vec<(Op, Reply)> = Vec::with_capacity(rooms.len() + batch.len());
        for (id, write) in &rooms {
            // Nobody waits on these: their senders were answered when they arrived.
            all.push((write.op(id), tokio::sync::oneshot::channel().0));
        }
        all.extend(batch);
        match commit_batch(&self.core, &db, all, durable) {
            Ok(()) => self.succeeded(durable),
            Err(e) => {
                self.keep(rooms);
                self.failed(&e);
            }
        }
    }

    /// Open rooms' writes a failed commit held: kept for the next one, unless a newer write
    /// of the same room arrived meanwhile.
    fn keep(&mut self, rooms: BTreeMap<String, RoomWrite>) {
        if rooms.is_empty() {
            return;
        }
        for (id, write) in rooms {
            self.rooms.entry(id).or_insert(write);
        }
        self.rooms_since = Some(self.rooms_since.unwrap_or_else(Instant::now));
    }

    /// Writes the open rooms' writes kept in memory in one durable commit (an empty durable
    /// commit when there are none but an earlier commit was not durable).
    fn flush(&mut self) {
        self.rooms_since = None;
        if self.rooms.is_empty() && !self.unsynced {
            // What was kept has been forgotten since (its rooms deleted): nothing to write.
            self.flush_due = None;
            return;
        }
        let rooms = std::mem::take(&mut self.rooms);
        let result = self.database().and_then(|db| {
            durable_commit(&db, |txn| {
                for (id, write) in &rooms {
                    dispatch::apply(txn, &write.op(id))?;
                }
                Ok(())
            })
        });
        match result {
            Ok(()) => self.succeeded(true),
            Err(e) => {
                tracing::error!(error = %e, "making room saves durable failed");
                if e.is_unavailable() {
                    self.keep(rooms);
                }
                self.failed(&e);
            }
        }
    }

    /// While failing: reopen and try a small durable write; the store works again when it
    /// commits.
    fn heal(&mut self) {
        let probe = self.database().and_then(|db| {
            durable_commit(&db, |txn| {
                meta::set(txn, meta::LAST_PROBE, crate::clock::now_ms())
            })
        });
        match probe {
            Ok(()) => {
                tracing::info!("storage works again");
                self.succeeded(true);
                if let Ok(db) = self.core.db() {
                    // Loads the ratings copy again (dropped when the card failed).
                    ladders::read_back(&self.core.ratings, &db, Touched::Everyone);
                }
            }
            Err(e) => {
                tracing::debug!(error = %e, "storage still failing");
                self.failed(&e);
            }
        }
    }
}

fn durable_commit(
    db: &Database,
    write: impl FnOnce(&WriteTransaction) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let mut txn = db.begin_write().map_err(store_err)?;
    txn.set_durability(Durability::Immediate)
        .map_err(store_err)?;
    write(&txn)?;
    txn.commit().map_err(store_err)
}

/// Applies a batch in one transaction and answers after the commit. When the shared
/// transaction fails for what one write holds, each request is retried alone so one bad write
/// cannot sink the others; when the card fails, every request gets that error. Returns the
/// card's failure, if any.
fn commit_batch(
    core: &Core,
    db: &Database,
    batch: Vec<(Op, Reply)>,
    durable: bool,
) -> Result<(), StoreError> {
    let size = batch.len();
    match apply_all(db, &batch, durable) {
        Ok(outcomes) => {
            tracing::trace!(size, durable, "group commit");
            // Before the answers, so that a caller who looks at the health or a rating next
            // sees it.
            core.set_working();
            let touched = touched_by(batch.iter().map(|(op, _)| op), &outcomes);
            ladders::read_back(&core.ratings, db, touched);
            for ((_, reply), outcome) in batch.into_iter().zip(outcomes) {
                // A caller that stopped waiting does not need the answer.
                let _ignored = reply.send(Ok(outcome));
            }
            Ok(())
        }
        Err(e) if size == 1 || e.is_unavailable() => {
            tracing::error!(error = %e, size, "store write failed");
            if e.is_unavailable() {
                core.set_failing(&e);
            }
            for (_, reply) in batch {
                let _ignored = reply.send(Err(e.clone()));
            }
            if e.is_unavailable() { Err(e) } else { Ok(()) }
        }
        Err(e) => {
            tracing::warn!(error = %e, size, "group commit failed; retrying each write alone");
            let mut failure = Ok(());
            for (op, reply) in batch {
                let durable = op.durable();
                if let Err(e) = commit_batch(core, db, vec![(op, reply)], durable) {
                    failure = Err(e);
                }
            }
            failure
        }
    }
}

fn apply_all(
    db: &Database,
    batch: &[(Op, Reply)],
    durable: bool,
) -> Result<Vec<Outcome>, StoreError> {
    let mut txn = db.begin_write().map_err(store_err)?;
    let durability = if durable {
        Durability::Immediate
    } else {
        Durability::None
    };
    txn.set_durability(durability).map_err(store_err)?;
    // On error the transaction is dropped, which aborts it: nothing of the batch is kept.
    let outcomes = dispatch::apply_batch(&txn, batch.iter().map(|(op, _)| op))?;
    txn.commit().map_err(store_err)?;
    Ok(outcomes)
}
