//! The writer thread: group commits, the durability deadline, and healing after a failure.
//! What a write does is its noun's business: the writer hands every batch to `dispatch`.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use redb::{Database, Durability, ReadableDatabase, WriteTransaction};
use rooms::StoreError;

use super::error::store_err;
use super::journal::{self, Journal, JournalOpener, Position};
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
/// So under load the card syncs at most about 200 times a second however many games end (each
/// sync cost the server about as much CPU as a whole move), a result waits at most
/// this much longer for its sync, and a writer that was idle commits at once.
///
/// 5 ms, not the 10 ms it was: side by side (BENCHMARKS.md, "Issue 29: a commit window of
/// 5 ms"), 500 paced games' game-ending moves went from a p99 of 10–11 ms to 3.4–4.3 ms for 7 %
/// more syncs, and 10 games played back to back, which wait on the window between their game
/// ends, from 7,100 to 13,500 moves a second at a lower CPU cost a move.
pub const COMMIT_WINDOW: Duration = Duration::from_millis(5);

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
    /// A non-durable commit was made since the last durable one (without a journal).
    unsynced: bool,
    /// The play journal (`journal`), and how to open it again after a failure; `None` when
    /// every write is a durable commit (a store opened on a test's backend).
    journal: Option<Journal>,
    journal_opener: Option<JournalOpener>,
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
    pub(super) fn new(core: Arc<Core>, journal: Option<(Journal, JournalOpener)>) -> Writer {
        let (journal, journal_opener) = journal.unzip();
        Writer {
            core,
            flush_due: None,
            needs_reopen: false,
            heal_due: None,
            space_due: Instant::now(),
            rooms: BTreeMap::new(),
            rooms_since: None,
            unsynced: false,
            journal,
            journal_opener,
        }
    }

    fn next_wake(&self) -> Instant {
        let checkpoint = self.journal.as_ref().and_then(Journal::checkpoint_due);
        [self.flush_due, self.heal_due, checkpoint]
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
            let checkpoint = self.journal.as_ref().and_then(Journal::checkpoint_due);
            if self.heal_due.is_none() && checkpoint.is_some_and(|t| t <= now) {
                self.checkpoint();
            }
            if self.space_due <= now {
                self.core.check_space();
                self.space_due = now + SPACE_EVERY;
            }
            if shutdown.is_some() || disconnected {
                if self.journal.is_some() {
                    // The journal's records into the file: the next start applies none again.
                    self.checkpoint();
                } else if self.flush_due.is_some() {
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
    /// After a reopen the journal's records since the last durable commit are applied again
    /// (redb forgets its non-durable commits when it is closed).
    fn database(&mut self) -> Result<Arc<Database>, StoreError> {
        if self.needs_reopen {
            self.core.reopen()?;
            if let Some(opener) = &self.journal_opener {
                let db = self.core.db()?;
                self.journal = Some(journal::recover(&db, opener)?);
            }
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
    /// Writes of play go through the journal while the card works ([`Writer::journaled`]);
    /// any other durable commit is also a checkpoint of the journal.
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
        if self.journal.is_some()
            && self.heal_due.is_none()
            && batch.iter().all(|(op, _)| journal::takes(op))
        {
            let rooms = self.take_rooms();
            let mut all = room_ops(&rooms);
            all.extend(batch);
            match self.journaled(&db, all) {
                Ok(()) => self.succeeded(true),
                Err(e) => {
                    self.keep(rooms);
                    self.failed(&e);
                }
            }
            return;
        }
        let durable = batch.iter().any(|(op, _)| op.durable());
        let rooms = if durable {
            self.take_rooms()
        } else {
            BTreeMap::new()
        };
        let mut all = room_ops(&rooms);
        all.extend(batch);
        let checkpoint = self
            .journal
            .as_ref()
            .map(Journal::next_epoch)
            .filter(|_| durable);
        let result = commit_batch(&self.core, &db, all, durable, checkpoint);
        self.checkpointed(&db, checkpoint);
        match result {
            Ok(()) => self.succeeded(durable),
            Err(e) => {
                self.keep(rooms);
                self.failed(&e);
            }
        }
    }

    /// The open rooms' writes kept in memory, taken for a commit.
    fn take_rooms(&mut self) -> BTreeMap<String, RoomWrite> {
        self.rooms_since = None;
        std::mem::take(&mut self.rooms)
    }

    /// After a durable commit that was to start the journal's epoch `at`: whether it did
    /// (a batch retried write by write may have committed some of its writes), read back from
    /// the file.
    fn checkpointed(&mut self, db: &Database, at: Option<Position>) {
        let (Some(at), Some(journal)) = (at, self.journal.as_mut()) else {
            return;
        };
        let committed = db
            .begin_read()
            .map_err(store_err)
            .and_then(|txn| journal::position(&txn));
        if committed.is_ok_and(|p| p == at) {
            journal.checkpointed(at);
        }
    }

    /// Commits `batch` (writes of play only) without a sync and appends it to the journal,
    /// which is synced; answers after that. A checkpoint comes first when the journal is
    /// nearly full. On an error nothing was acknowledged; when the journal could not be
    /// written the caller reopens the database, which forgets the commit.
    fn journaled(&mut self, db: &Database, batch: Vec<(Op, Reply)>) -> Result<(), StoreError> {
        let Some(journal) = self.journal.as_ref() else {
            return commit_batch(&self.core, db, batch, true, None);
        };
        let Some(mut record) = journal.record(batch.iter().map(|(op, _)| op)) else {
            // Too large for the journal: a durable commit of its own, as without one.
            let checkpoint = Some(journal.next_epoch());
            let result = commit_batch(&self.core, db, batch, true, checkpoint);
            self.checkpointed(db, checkpoint);
            return result;
        };
        if !journal.fits(&record) {
            self.checkpoint_in(db)?;
            let Some(journal) = self.journal.as_ref() else {
                return Err(StoreError::Internal("the journal went away".into()));
            };
            record = journal
                .record(batch.iter().map(|(op, _)| op))
                .ok_or_else(|| StoreError::Internal("a journal record that fitted".into()))?;
        }
        let size = batch.len();
        match apply_all(db, &batch, false, Some(record.after)) {
            Ok(outcomes) => {
                let appended = match self.journal.as_mut() {
                    Some(journal) => journal.append(&record),
                    None => Err(StoreError::Internal("the journal went away".into())),
                };
                if let Err(e) = appended {
                    tracing::error!(error = %e, size, "journal write failed");
                    for (_, reply) in batch {
                        let _ignored = reply.send(Err(e.clone()));
                    }
                    return Err(e);
                }
                tracing::trace!(size, "journaled commit");
                answer(&self.core, db, batch, outcomes);
                Ok(())
            }
            Err(e) if size == 1 || e.is_unavailable() => {
                tracing::error!(error = %e, size, "store write failed");
                for (_, reply) in batch {
                    let _ignored = reply.send(Err(e.clone()));
                }
                if e.is_unavailable() { Err(e) } else { Ok(()) }
            }
            Err(e) => {
                tracing::warn!(error = %e, size, "group commit failed; retrying each write alone");
                let mut rest = batch.into_iter();
                while let Some(one) = rest.next() {
                    if let Err(e) = self.journaled(db, vec![one]) {
                        for (_, reply) in rest {
                            let _ignored = reply.send(Err(e.clone()));
                        }
                        return Err(e);
                    }
                }
                Ok(())
            }
        }
    }

    /// A checkpoint: one durable commit that holds every journaled write (and the open rooms'
    /// writes kept in memory) and starts the journal's next epoch.
    fn checkpoint_in(&mut self, db: &Database) -> Result<(), StoreError> {
        let Some(at) = self.journal.as_ref().map(Journal::next_epoch) else {
            return Ok(());
        };
        let rooms = self.take_rooms();
        let result = durable_commit(db, |txn| {
            for (id, write) in &rooms {
                dispatch::apply(txn, &write.op(id))?;
            }
            journal::set_position(txn, at)
        });
        match result {
            Ok(()) => {
                if let Some(journal) = self.journal.as_mut() {
                    journal.checkpointed(at);
                }
                tracing::debug!(epoch = at.epoch, "journal checkpoint");
                Ok(())
            }
            Err(e) => {
                self.keep(rooms);
                Err(e)
            }
        }
    }

    /// A checkpoint when one is due ([`journal::CHECKPOINT_AFTER`], and at shutdown).
    fn checkpoint(&mut self) {
        let result = self.database().and_then(|db| self.checkpoint_in(&db));
        match result {
            Ok(()) => self.succeeded(true),
            Err(e) => {
                tracing::error!(error = %e, "journal checkpoint failed");
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
        if self.journal.is_some() && self.heal_due.is_none() {
            let rooms = self.take_rooms();
            let result = self
                .database()
                .and_then(|db| self.journaled(&db, room_ops(&rooms)));
            match result {
                Ok(()) => self.succeeded(true),
                Err(e) => {
                    tracing::error!(error = %e, "journaling room saves failed");
                    self.keep(rooms);
                    self.failed(&e);
                }
            }
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
            let at = self.journal.as_ref().map(Journal::next_epoch);
            durable_commit(&db, |txn| {
                if let Some(at) = at {
                    journal::set_position(txn, at)?;
                }
                meta::set(txn, meta::LAST_PROBE, crate::clock::now_ms())
            })?;
            Ok(at)
        });
        match probe {
            Ok(at) => {
                if let (Some(at), Some(journal)) = (at, self.journal.as_mut()) {
                    journal.checkpointed(at);
                }
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

/// The open rooms' writes kept in memory as writes of a batch. Nobody waits on them: their
/// senders were answered when they arrived.
fn room_ops(rooms: &BTreeMap<String, RoomWrite>) -> Vec<(Op, Reply)> {
    rooms
        .iter()
        .map(|(id, write)| (write.op(id), tokio::sync::oneshot::channel().0))
        .collect()
}

/// Answers a committed batch, after bringing the ratings copy up to date.
fn answer(core: &Core, db: &Database, batch: Vec<(Op, Reply)>, outcomes: Vec<Outcome>) {
    // Before the answers, so that a caller who looks at the health or a rating next sees it.
    core.set_working();
    let touched = touched_by(batch.iter().map(|(op, _)| op), &outcomes);
    ladders::read_back(&core.ratings, db, touched);
    for ((_, reply), outcome) in batch.into_iter().zip(outcomes) {
        // A caller that stopped waiting does not need the answer.
        let _ignored = reply.send(Ok(outcome));
    }
}

/// Applies a batch in one transaction and answers after the commit. When the shared
/// transaction fails for what one write holds, each request is retried alone so one bad write
/// cannot sink the others; when the card fails, every request gets that error. Returns the
/// card's failure, if any. `checkpoint`: the journal position a durable commit leaves.
fn commit_batch(
    core: &Core,
    db: &Database,
    batch: Vec<(Op, Reply)>,
    durable: bool,
    checkpoint: Option<Position>,
) -> Result<(), StoreError> {
    let size = batch.len();
    match apply_all(db, &batch, durable, checkpoint) {
        Ok(outcomes) => {
            tracing::trace!(size, durable, "group commit");
            answer(core, db, batch, outcomes);
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
                let checkpoint = checkpoint.filter(|_| durable);
                if let Err(e) = commit_batch(core, db, vec![(op, reply)], durable, checkpoint) {
                    failure = Err(e);
                }
            }
            failure
        }
    }
}

/// One transaction of `batch`, committed durably or not; `position`: the journal position
/// the commit leaves (written last, so that a restore's tables cannot undo it).
fn apply_all(
    db: &Database,
    batch: &[(Op, Reply)],
    durable: bool,
    position: Option<Position>,
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
    if let Some(at) = position {
        journal::set_position(&txn, at)?;
    }
    txn.commit().map_err(store_err)?;
    Ok(outcomes)
}
