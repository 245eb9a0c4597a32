//! The writer thread: group commits, the durability deadline, and healing after a failure.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use engine::{Mark, Score};
use protocol::records::{FinishedGame, PlayerRef, RatingUpdate, UserId};
use redb::{Database, Durability, ReadableTable, WriteTransaction};
use rooms::StoreError;
use tokio::sync::oneshot;

use super::records::{
    GameRecordV1, SessionRecord, UserRecord, VersionedGame, VersionedSession, VersionedUser,
    decode, decode_game, decode_user, encode, u64_from_meta,
};
use super::{
    Core, GAMES, LadderStats, META, META_NEXT_GAME, META_NEXT_USER, OPEN_ROOMS, SESSIONS,
    SESSIONS_KEPT, UNRATED_KEPT, USER_GAMES, USER_UNRATED, USERNAMES, USERS, store_err,
};

/// The longest play of an open room a power cut can cost (P3, DESIGN "Storage"; README's
/// promise). A second is a move or two of a game, and at most one SD-card sync a second keeps
/// the card's wear and the writer's time small.
pub const LOSS_BOUND: Duration = Duration::from_secs(1);

/// While writes keep coming (the last commit was shared by several), the least time from the
/// end of one commit to the start of the next: what arrives meanwhile joins the next commit.
/// So under load the card syncs at most about 100 times a second however many games end (each
/// sync cost the server about as much CPU as a whole move, issue 13), a result waits at most
/// this much longer for its sync, and a writer that was idle commits at once.
pub const COMMIT_WINDOW: Duration = Duration::from_millis(10);

/// How long a non-durable commit (moves of open rooms) may stay non-durable: [`LOSS_BOUND`]
/// less the time a room waits after a change before its state is written
/// ([`rooms::SAVE_COALESCE`]) and the time the save may wait for its commit ([`COMMIT_WINDOW`]).
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

/// A write for the writer thread.
#[derive(Debug)]
pub(super) enum Op {
    Register {
        name: String,
        password_hash: String,
        token_hash: [u8; 32],
        now_ms: u64,
        expires_ms: u64,
    },
    CreateSession {
        token_hash: [u8; 32],
        user: UserId,
        now_ms: u64,
        expires_ms: u64,
    },
    DeleteSession {
        token_hash: [u8; 32],
    },
    /// A new password hash for `user`, and every session of that user but `keep` forgotten.
    ChangePassword {
        user: UserId,
        password_hash: String,
        keep: [u8; 32],
    },
    CommitGame(Box<FinishedGame>),
    SaveRoom {
        id: String,
        state: Vec<u8>,
    },
    DeleteRoom {
        id: String,
    },
    /// Owner mode (`owners`): `user` becomes an owner.
    AddOwner {
        user: UserId,
        now_ms: u64,
    },
    RemoveOwner {
        user: UserId,
    },
    /// An account and its personal data removed (`owners::delete_account`).
    DeleteAccount {
        user: UserId,
    },
    /// The current ladders archived as a season, and every player's reset (`seasons`).
    NewSeason {
        now_ms: u64,
    },
    /// Every backed-up table replaced by a verified backup's (`backup::apply_restore`).
    Restore {
        source: std::path::PathBuf,
        with_settings: bool,
    },
    /// An owner renames an account (`owners::rename`); `name` is already valid (A1).
    Rename {
        user: UserId,
        name: String,
    },
    /// An owner's settings saved whole, or forgotten (`settings`).
    SetSettings(Option<Box<super::settings::SettingsRecord>>),
    /// A password reset code stored for `user` (`reset_codes`).
    IssueResetCode {
        user: UserId,
        record: super::reset_codes::ResetCodeRecord,
        now_ms: u64,
    },
    /// A guess at `user`'s reset code: taken when right, counted when wrong.
    GuessResetCode {
        user: UserId,
        hash: [u8; 32],
        now_ms: u64,
    },
    /// A redeemed code returned after its reset failed.
    GiveBackResetCode {
        user: UserId,
        record: super::reset_codes::ResetCodeRecord,
    },
}

impl Op {
    /// Whether the caller may be answered before the data reaches the disk.
    fn durable(&self) -> bool {
        !matches!(self, Op::SaveRoom { .. })
    }
}

/// What a write produced.
#[derive(Debug)]
pub(super) enum Outcome {
    Registered(UserId),
    NameTaken,
    Done,
    Rated(Vec<RatingUpdate>),
    /// Refused before writing anything (a malformed rated game, an id reused).
    Refused(StoreError),
    /// Whether an owner-mode write changed anything.
    Changed(bool),
    /// Refused: it would leave the kiosk without an owner.
    LastOwner,
    /// Refused: no such account.
    UnknownUser,
    /// The account was deleted or renamed: the name it had.
    OldName(String),
    /// A season was archived: its number.
    Season(u64),
    /// What a guess at a reset code found.
    ResetGuess(super::reset_codes::ResetGuess),
}

pub(super) type Reply = oneshot::Sender<Result<Outcome, StoreError>>;

#[derive(Debug)]
pub(super) enum Request {
    Write(Op, Reply),
    /// Commit everything before this request durably, answer, and stop.
    Shutdown(oneshot::Sender<()>),
}

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
    /// The room saves committed non-durably since the last durable commit, newest per room. A
    /// reopen after a failure discards non-durable commits, so they are written again then.
    unsynced: BTreeMap<String, Vec<u8>>,
}

impl Writer {
    pub(super) fn new(core: Arc<Core>) -> Writer {
        Writer {
            core,
            flush_due: None,
            needs_reopen: false,
            heal_due: None,
            space_due: Instant::now(),
            unsynced: BTreeMap::new(),
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
                Ok(Request::Write(op, reply)) => batch.push((op, reply)),
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
                    Ok(Request::Write(op, reply)) => batch.push((op, reply)),
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

    /// The database to write to, reopening it first when a failure requires it.
    fn database(&mut self) -> Result<Arc<Database>, StoreError> {
        if self.needs_reopen {
            self.core.reopen()?;
            self.needs_reopen = false;
            let db = self.core.db()?;
            if !self.unsynced.is_empty() {
                let saves = std::mem::take(&mut self.unsynced);
                let written = durable_commit(&db, |txn| {
                    for (id, state) in &saves {
                        apply(
                            txn,
                            &Op::SaveRoom {
                                id: id.clone(),
                                state: state.clone(),
                            },
                        )?;
                    }
                    Ok(())
                });
                match written {
                    Ok(()) => tracing::info!(
                        rooms = saves.len(),
                        "room saves written again after reopening"
                    ),
                    Err(e) if e.is_unavailable() => {
                        self.unsynced = saves;
                        self.needs_reopen = true;
                        return Err(e);
                    }
                    Err(e) => tracing::error!(error = %e, "room saves lost after reopening"),
                }
            }
            return Ok(db);
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
        if durable {
            self.flush_due = None;
            self.unsynced.clear();
        } else if self.flush_due.is_none() {
            self.flush_due = Some(Instant::now() + DURABLE_WITHIN);
        }
        self.heal_due = None;
        self.core.set_working();
    }

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
        let saves: Vec<(String, Vec<u8>)> = if durable {
            Vec::new()
        } else {
            batch
                .iter()
                .filter_map(|(op, _)| match op {
                    Op::SaveRoom { id, state } => Some((id.clone(), state.clone())),
                    _ => None,
                })
                .collect()
        };
        match commit_batch(&self.core, &db, batch, durable) {
            Ok(()) => {
                self.unsynced.extend(saves);
                self.succeeded(durable);
            }
            Err(e) => self.failed(&e),
        }
    }

    /// Makes every non-durable commit durable (an empty durable commit does).
    fn flush(&mut self) {
        let result = self
            .database()
            .and_then(|db| durable_commit(&db, |_| Ok(())));
        match result {
            Ok(()) => self.succeeded(true),
            Err(e) => {
                tracing::error!(error = %e, "making room saves durable failed");
                self.failed(&e);
            }
        }
    }

    /// While failing: reopen and try a small durable write; the store works again when it
    /// commits.
    fn heal(&mut self) {
        let probe = self.database().and_then(|db| {
            durable_commit(&db, |txn| {
                let mut meta = txn.open_table(META).map_err(store_err)?;
                let now = crate::clock::now_ms();
                meta.insert(super::META_LAST_PROBE, now.to_le_bytes().as_slice())
                    .map_err(store_err)?;
                Ok(())
            })
        });
        match probe {
            Ok(()) => {
                tracing::info!("storage works again");
                self.succeeded(true);
                if let Ok(db) = self.core.db() {
                    // Loads the ratings copy again (dropped when the card failed).
                    self.core.ratings.reload(&db);
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
            core.ratings
                .committed(db, batch.iter().map(|(op, _)| op), &outcomes);
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
    let mut outcomes = Vec::with_capacity(batch.len());
    // A run of rated results and room saves shares its tables; any other write closes them
    // first.
    let mut results: Option<GameTables<'_>> = None;
    for (op, _) in batch {
        // On error the transaction is dropped, which aborts it: nothing of the batch is kept.
        let outcome = match in_shared_tables(op) {
            Some(write) => {
                let tables = match &mut results {
                    Some(tables) => tables,
                    None => results.insert(GameTables::open(&txn)?),
                };
                apply_in(tables, write)?
            }
            None => {
                results = None;
                apply(&txn, op)?
            }
        };
        outcomes.push(outcome);
    }
    drop(results);
    txn.commit().map_err(store_err)?;
    Ok(outcomes)
}

pub(super) fn next_counter(txn: &WriteTransaction, key: &str) -> Result<u64, StoreError> {
    let mut meta = txn.open_table(META).map_err(store_err)?;
    counter_in(&mut meta, key)
}

/// Takes the next value of counter `key` in the open meta table.
fn counter_in(
    meta: &mut redb::Table<'_, &'static str, &'static [u8]>,
    key: &str,
) -> Result<u64, StoreError> {
    let current = meta
        .get(key)
        .map_err(store_err)?
        .map(|v| u64_from_meta(v.value()))
        .transpose()?
        .unwrap_or(0);
    meta.insert(key, (current + 1).to_le_bytes().as_slice())
        .map_err(store_err)?;
    Ok(current)
}

fn insert_session(
    txn: &WriteTransaction,
    token_hash: &[u8; 32],
    session: SessionRecord,
) -> Result<(), StoreError> {
    let mut sessions = txn.open_table(SESSIONS).map_err(store_err)?;
    sessions
        .insert(
            token_hash.as_slice(),
            encode(&VersionedSession::V1(session))?.as_slice(),
        )
        .map_err(store_err)?;
    Ok(())
}

/// Applies one write. Domain refusals are decided before anything is written, so a refused
/// write leaves the shared transaction as it found it.
fn apply(txn: &WriteTransaction, op: &Op) -> Result<Outcome, StoreError> {
    if let Some(outcome) = super::owners::apply(txn, op) {
        return outcome;
    }
    if let Some(outcome) = super::reset_codes::apply(txn, op) {
        return outcome;
    }
    match op {
        Op::Register {
            name,
            password_hash,
            token_hash,
            now_ms,
            expires_ms,
        } => {
            let lower = name.to_lowercase();
            let mut names = txn.open_table(USERNAMES).map_err(store_err)?;
            if names.get(lower.as_str()).map_err(store_err)?.is_some() {
                return Ok(Outcome::NameTaken);
            }
            let id = next_counter(txn, META_NEXT_USER)?;
            names.insert(lower.as_str(), id).map_err(store_err)?;
            let user = UserRecord {
                name: name.clone(),
                password_hash: password_hash.clone(),
                created_ms: *now_ms,
                xo: LadderStats::default(),
                infinite: LadderStats::default(),
            };
            let mut users = txn.open_table(USERS).map_err(store_err)?;
            users
                .insert(id, encode(&VersionedUser::V1(user))?.as_slice())
                .map_err(store_err)?;
            insert_session(
                txn,
                token_hash,
                SessionRecord {
                    user: id,
                    created_ms: *now_ms,
                    expires_ms: *expires_ms,
                },
            )?;
            Ok(Outcome::Registered(id))
        }
        Op::CreateSession {
            token_hash,
            user,
            now_ms,
            expires_ms,
        } => {
            insert_session(
                txn,
                token_hash,
                SessionRecord {
                    user: *user,
                    created_ms: *now_ms,
                    expires_ms: *expires_ms,
                },
            )?;
            forget_old_sessions(txn, *user)?;
            Ok(Outcome::Done)
        }
        Op::DeleteSession { token_hash } => {
            let mut sessions = txn.open_table(SESSIONS).map_err(store_err)?;
            sessions.remove(token_hash.as_slice()).map_err(store_err)?;
            Ok(Outcome::Done)
        }
        Op::ChangePassword {
            user,
            password_hash,
            keep,
        } => {
            let mut users = txn.open_table(USERS).map_err(store_err)?;
            let Some(bytes) = users.get(*user).map_err(store_err)? else {
                return Ok(Outcome::Done);
            };
            let mut record = decode_user(bytes.value())?;
            drop(bytes);
            record.password_hash.clone_from(password_hash);
            users
                .insert(*user, encode(&VersionedUser::V1(record))?.as_slice())
                .map_err(store_err)?;
            let mut sessions = txn.open_table(SESSIONS).map_err(store_err)?;
            // A kiosk has a few hundred sessions at most: one scan is cheap.
            let mut others = Vec::new();
            for entry in sessions.iter().map_err(store_err)? {
                let (key, value) = entry.map_err(store_err)?;
                let VersionedSession::V1(session) = decode(value.value(), "session")?;
                if session.user == *user && key.value() != keep.as_slice() {
                    others.push(key.value().to_vec());
                }
            }
            for key in others {
                sessions.remove(key.as_slice()).map_err(store_err)?;
            }
            Ok(Outcome::Done)
        }
        Op::CommitGame(game) => commit_game(txn, game),
        Op::SaveRoom { id, state } => apply_in(
            &mut GameTables::open(txn)?,
            SharedWrite::SaveRoom(id, state),
        ),
        Op::DeleteRoom { id } => apply_in(&mut GameTables::open(txn)?, SharedWrite::DeleteRoom(id)),
        Op::Restore {
            source,
            with_settings,
        } => super::backup::apply_restore(txn, source, *with_settings),
        Op::NewSeason { now_ms } => super::seasons::apply_new_season(txn, *now_ms),
        Op::SetSettings(settings) => super::settings::apply_set(txn, settings.as_deref()),
        Op::AddOwner { .. }
        | Op::RemoveOwner { .. }
        | Op::DeleteAccount { .. }
        | Op::Rename { .. }
        | Op::IssueResetCode { .. }
        | Op::GuessResetCode { .. }
        | Op::GiveBackResetCode { .. } => Err(StoreError::Internal(
            "an owner-mode write reached the general writer".into(),
        )),
    }
}

/// A write that touches only the tables a batch's results share ([`GameTables`]).
enum SharedWrite<'o> {
    Rated(&'o FinishedGame),
    SaveRoom(&'o str, &'o [u8]),
    DeleteRoom(&'o str),
}

fn in_shared_tables(op: &Op) -> Option<SharedWrite<'_>> {
    match op {
        Op::CommitGame(game) if game.rated => Some(SharedWrite::Rated(game)),
        Op::SaveRoom { id, state } => Some(SharedWrite::SaveRoom(id, state)),
        Op::DeleteRoom { id } => Some(SharedWrite::DeleteRoom(id)),
        _ => None,
    }
}

/// Applies `write` in tables the caller opened (once for a batch's run of results and room
/// saves: opening tables is most of a save's cost).
fn apply_in(t: &mut GameTables<'_>, write: SharedWrite<'_>) -> Result<Outcome, StoreError> {
    match write {
        // A rated game has no unrated list entries.
        SharedWrite::Rated(game) => return Ok(commit_in(t, game)?.0),
        SharedWrite::SaveRoom(id, state) => {
            // A room whose game is stored is over: a late save (racing the result) must not
            // bring it back at the next start.
            if t.games.get(id).map_err(store_err)?.is_some() {
                tracing::debug!(room = %id, "ignoring a save of a room whose game is stored");
                return Ok(Outcome::Done);
            }
            t.rooms.insert(id, state).map_err(store_err)?;
        }
        SharedWrite::DeleteRoom(id) => {
            t.rooms.remove(id).map_err(store_err)?;
        }
    }
    Ok(Outcome::Done)
}

/// P3: the game record, both ratings, points and W/D/L in the caller's one transaction, which
/// also forgets the saved open room of the same id (the room a game was played in has the
/// game's id).
/// The tables a result writes, opened once for a run of rated results in one transaction
/// (issue 13: opening and closing five tables per game was a third of the writer's work).
pub(super) struct GameTables<'t> {
    games: redb::Table<'t, &'static str, &'static [u8]>,
    users: redb::Table<'t, u64, &'static [u8]>,
    meta: redb::Table<'t, &'static str, &'static [u8]>,
    rooms: redb::Table<'t, &'static str, &'static [u8]>,
    index: redb::Table<'t, (u64, u64), &'static str>,
}

impl<'t> GameTables<'t> {
    fn open(txn: &'t WriteTransaction) -> Result<GameTables<'t>, StoreError> {
        Ok(GameTables {
            games: txn.open_table(GAMES).map_err(store_err)?,
            users: txn.open_table(USERS).map_err(store_err)?,
            meta: txn.open_table(META).map_err(store_err)?,
            rooms: txn.open_table(OPEN_ROOMS).map_err(store_err)?,
            index: txn.open_table(USER_GAMES).map_err(store_err)?,
        })
    }
}

/// An unrated game's entries in its players' unrated lists, written after the shared tables
/// are closed (the oldest are then forgotten, which opens tables of its own).
struct UnratedEntries {
    seq: u64,
    players: Vec<UserId>,
}

fn commit_game(txn: &WriteTransaction, game: &FinishedGame) -> Result<Outcome, StoreError> {
    let mut tables = GameTables::open(txn)?;
    let (outcome, unrated) = commit_in(&mut tables, game)?;
    drop(tables);
    if let Some(UnratedEntries { seq, players }) = unrated {
        let mut list = txn.open_table(USER_UNRATED).map_err(store_err)?;
        for &id in &players {
            list.insert((id, seq), game.id.as_str())
                .map_err(store_err)?;
        }
        drop(list);
        for &id in &players {
            forget_old_unrated(txn, id)?;
        }
    }
    Ok(outcome)
}

/// Writes `game` through `t`; an unrated game's list entries are left to the caller.
fn commit_in(
    t: &mut GameTables<'_>,
    game: &FinishedGame,
) -> Result<(Outcome, Option<UnratedEntries>), StoreError> {
    let refused = |e| Ok((Outcome::Refused(e), None));
    if let Some(existing) = t.games.get(game.id.as_str()).map_err(store_err)? {
        // The same game sent twice (a retry) is answered with the updates of the first.
        let existing = decode_game(existing.value())?.into_stored();
        if existing.game == *game {
            return Ok((Outcome::Rated(existing.updates), None));
        }
        return refused(StoreError::Refused(format!(
            "a different game is already stored under id {:?}",
            game.id
        )));
    }
    let registered = registered_seats(game);
    if registered.is_empty() {
        // Issue 10.3: a game without a registered player is nobody's history; it is not
        // written, so guests cannot fill the card (its room shows the replay while it lives).
        t.rooms.remove(game.id.as_str()).map_err(store_err)?;
        return Ok((Outcome::Rated(Vec::new()), None));
    }
    if game.moves.iter().any(|&c| c > 8) {
        return refused(StoreError::Refused(format!(
            "game {:?} has a move outside cells 0-8",
            game.id
        )));
    }

    let users = &mut t.users;
    let mut updates = Vec::new();
    if game.rated {
        let (PlayerRef::User { id: x_id, .. }, PlayerRef::User { id: o_id, .. }) =
            (&game.x, &game.o)
        else {
            return refused(StoreError::Refused(format!(
                "rated game {:?} does not seat two registered players",
                game.id
            )));
        };
        let (x_id, o_id) = (*x_id, *o_id);
        if x_id == o_id {
            return refused(StoreError::Refused(format!(
                "rated game {:?} seats user {x_id} twice",
                game.id
            )));
        }
        let mut x_user = match users.get(x_id).map_err(store_err)? {
            Some(bytes) => decode_user(bytes.value())?,
            None => return refused(StoreError::Refused(format!("no user {x_id}"))),
        };
        let mut o_user = match users.get(o_id).map_err(store_err)? {
            Some(bytes) => decode_user(bytes.value())?,
            None => return refused(StoreError::Refused(format!("no user {o_id}"))),
        };
        let x_score = match game.end.winner() {
            Some(Mark::X) => Score::Win,
            Some(Mark::O) => Score::Loss,
            None => Score::Draw,
        };
        let x_before = x_user.ladder(game.game).rating;
        let o_before = o_user.ladder(game.game).rating;
        let (dx, d_o) = engine::elo::changes(x_before, o_before, x_score);
        x_user.ladder_mut(game.game).record(x_score, dx);
        o_user.ladder_mut(game.game).record(x_score.opposite(), d_o);
        users
            .insert(x_id, encode(&VersionedUser::V1(x_user))?.as_slice())
            .map_err(store_err)?;
        users
            .insert(o_id, encode(&VersionedUser::V1(o_user))?.as_slice())
            .map_err(store_err)?;
        updates.push(RatingUpdate {
            user: x_id,
            mark: Mark::X,
            before: x_before,
            after: x_before + dx,
        });
        updates.push(RatingUpdate {
            user: o_id,
            mark: Mark::O,
            before: o_before,
            after: o_before + d_o,
        });
    }

    let seq = counter_in(&mut t.meta, META_NEXT_GAME)?;
    let record = GameRecordV1::from_finished(seq, game, &updates);
    t.games
        .insert(
            game.id.as_str(),
            encode(&VersionedGame::V1(record))?.as_slice(),
        )
        .map_err(store_err)?;
    // The room the game was played in is no longer open: forgetting its saved state in the
    // same transaction means a crash can never restore a game whose result is stored.
    t.rooms.remove(game.id.as_str()).map_err(store_err)?;
    for &id in &registered {
        t.index
            .insert((id, seq), game.id.as_str())
            .map_err(store_err)?;
    }
    let unrated = (!game.rated).then_some(UnratedEntries {
        seq,
        players: registered,
    });
    Ok((Outcome::Rated(updates), unrated))
}

/// Keeps `user`'s newest [`SESSIONS_KEPT`] sessions and signs the older ones out, so that
/// signing in again and again cannot fill the card (issue 10.3). Scans the sessions table,
/// which this bound keeps small.
fn forget_old_sessions(txn: &WriteTransaction, user: UserId) -> Result<(), StoreError> {
    let mut sessions = txn.open_table(SESSIONS).map_err(store_err)?;
    let mut mine = Vec::new();
    for entry in sessions.iter().map_err(store_err)? {
        let (key, bytes) = entry.map_err(store_err)?;
        // An unreadable record is left alone (and logged when the store opens).
        if let Ok(VersionedSession::V1(s)) = decode::<VersionedSession>(bytes.value(), "session")
            && s.user == user
        {
            mine.push((s.created_ms, key.value().to_vec()));
        }
    }
    if mine.len() <= SESSIONS_KEPT {
        return Ok(());
    }
    mine.sort();
    let excess = mine.len() - SESSIONS_KEPT;
    for (_, key) in mine.into_iter().take(excess) {
        sessions.remove(key.as_slice()).map_err(store_err)?;
    }
    Ok(())
}

/// The registered players of a game, each once.
pub(super) fn registered_seats(game: &FinishedGame) -> Vec<UserId> {
    let mut seated = Vec::new();
    for player in [&game.x, &game.o] {
        if let PlayerRef::User { id, .. } = player
            && !seated.contains(id)
        {
            seated.push(*id);
        }
    }
    seated
}

/// Keeps `user`'s newest [`UNRATED_KEPT`] unrated games and forgets the older ones (issue
/// 10.3: undo-then-finish in a bot game makes a record each time). A forgotten game leaves
/// the other registered player's history only if it was theirs alone.
fn forget_old_unrated(txn: &WriteTransaction, user: UserId) -> Result<(), StoreError> {
    let mut unrated = txn.open_table(USER_UNRATED).map_err(store_err)?;
    let count = unrated
        .range((user, 0)..=(user, u64::MAX))
        .map_err(store_err)?
        .count();
    let excess = count.saturating_sub(UNRATED_KEPT);
    if excess == 0 {
        return Ok(());
    }
    let mut old = Vec::with_capacity(excess);
    for entry in unrated
        .range((user, 0)..=(user, u64::MAX))
        .map_err(store_err)?
        .take(excess)
    {
        let (key, id) = entry.map_err(store_err)?;
        old.push((key.value().1, id.value().to_owned()));
    }
    let mut index = txn.open_table(USER_GAMES).map_err(store_err)?;
    let mut games = txn.open_table(GAMES).map_err(store_err)?;
    for (seq, id) in old {
        unrated.remove((user, seq)).map_err(store_err)?;
        index.remove((user, seq)).map_err(store_err)?;
        let others: Vec<UserId> = match games.get(id.as_str()).map_err(store_err)? {
            Some(bytes) => registered_seats(&decode_game(bytes.value())?.into_stored().game)
                .into_iter()
                .filter(|&u| u != user)
                .collect(),
            None => continue,
        };
        let mut kept = false;
        for other in others {
            kept |= index.get((other, seq)).map_err(store_err)?.is_some();
        }
        if !kept {
            games.remove(id.as_str()).map_err(store_err)?;
        }
    }
    Ok(())
}
