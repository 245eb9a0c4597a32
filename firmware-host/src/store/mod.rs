//! The redb store: accounts, sessions, finished games, ratings and open rooms, in one file.
//!
//! Reads open their own read transaction on the calling thread and block (they are short);
//! their functions end in `_blocking`. Writes go to ONE writer thread over a channel
//! (`writer`): it takes every request waiting in the channel, applies them in one write
//! transaction and commits once (group commit), so throughput grows with load instead of being
//! capped by the disk's sync latency. Each request is answered through a oneshot once the
//! commit that holds it is done: async callers await it without holding a thread, blocking
//! callers wait on it. A batch is committed durably when any request in it needs durability
//! (results, accounts, sessions); a batch of room saves only is committed with
//! [`Durability::None`](redb::Durability::None) and made durable within
//! [`DURABLE_WITHIN`] (a power cut loses at most that much of an open game).
//!
//! When the card fails (full, I/O errors) the failing writes get a [`StoreError`] whose
//! [`is_unavailable`](StoreError::is_unavailable) is true, [`Store::health`] reports it,
//! and the writer reopens the database (redb refuses every operation after an I/O error until
//! then) and probes with a small durable write every [`HEAL_EVERY`] until one commits: the
//! store heals by itself. Free space is watched so that a nearly full card is reported before
//! it is full.
//!
//! - `records`: the stored record types and their encoding.
//! - `owners`, `seasons`, `settings`, `reset_codes`, `backup`: owner mode's tables and
//!   writes (tables added beside schema 2's, which older releases ignore).
//! - `ratings`: every player's ratings in memory, kept true by the writer after each commit.
//! - `writer`: the writer thread, the durability deadline, healing.
//! - [`health`]: what `/api/health` and the status display say about the card.
//!
//! `meta` holds the schema version; `migrate` brings older files up to [`SCHEMA_VERSION`]
//! (tested against files written by every earlier version, `tests/fixtures/`).

mod backup;
pub mod fill;
pub mod health;
mod owners;
mod ratings;
mod records;
mod reset_codes;
mod seasons;
mod settings;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use engine::Game;
use protocol::records::{FinishedGame, RatingUpdate, UserId};
use redb::{
    Database, ReadTransaction, ReadableDatabase, ReadableTable, ReadableTableMetadata,
    TableDefinition, WriteTransaction,
};
use rooms::{Account, Persistence, StoreError, StoreFuture};
use tokio::sync::oneshot;

pub use backup::{
    BACKUP_FORMAT, BACKUP_FORMAT_VERSION, BackupContents, BackupError, BackupHeader,
    MAX_BACKUP_BYTES, REPLACED_DIR, remove_scratch,
};
pub use health::{StorageHealth, StorageState};
pub use owners::{DELETED_NAME, OwnerError, OwnerRecord};
pub use records::{LadderStats, StoredGame, UserRecord};
pub use reset_codes::{ResetCodeRecord, ResetGuess};
pub use seasons::{PlayerSeason, SeasonRecord, SeasonRow};
pub use settings::{SettingsRecord, StoredLanguage, StoredWifi};
pub use writer::{DURABLE_WITHIN, HEAL_EVERY, LOSS_BOUND};

use records::{VersionedSession, decode, decode_game, decode_user, u64_from_meta};
use writer::{Op, Outcome, Request, Writer};

/// user id → `VersionedUser`.
const USERS: TableDefinition<'_, u64, &[u8]> = TableDefinition::new("users");
/// lower-cased username → user id.
const USERNAMES: TableDefinition<'_, &str, u64> = TableDefinition::new("usernames");
/// SHA-256 of a session token → `VersionedSession`.
const SESSIONS: TableDefinition<'_, &[u8], &[u8]> = TableDefinition::new("sessions");
/// game id → `VersionedGame`.
const GAMES: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("games");
/// (user id, game sequence number) → game id: each registered player's games, oldest first.
const USER_GAMES: TableDefinition<'_, (u64, u64), &str> = TableDefinition::new("user_games");
/// (user id, game sequence number) → game id: the unrated ones among them, so that only the
/// newest [`UNRATED_KEPT`] are kept (schema 2).
const USER_UNRATED: TableDefinition<'_, (u64, u64), &str> = TableDefinition::new("user_unrated");
/// room id → the rooms crate's own encoding of an open room.
const OPEN_ROOMS: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("open_rooms");
/// Named values: [`META_SCHEMA`], [`META_NEXT_USER`], [`META_NEXT_GAME`],
/// [`META_LAST_PROBE`] (u64 little-endian).
const META: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("meta");

const META_SCHEMA: &str = "schema_version";
const META_NEXT_USER: &str = "next_user_id";
const META_NEXT_GAME: &str = "next_game_seq";
/// When the writer last probed a failing card with a write (milliseconds since the epoch).
const META_LAST_PROBE: &str = "last_probe_ms";

/// The layout this build reads and writes. A file with a higher version is refused; a lower
/// one is migrated at open (`migrate`).
///
/// - 1: the first release.
/// - 2: adds `user_unrated`, filled from the stored games.
pub const SCHEMA_VERSION: u64 = 2;

/// The database file inside the data directory.
pub const DB_FILE: &str = "xo-kiosk.redb";

/// Unrated games kept per registered player, newest first (issue 10.3): older ones are
/// forgotten, so that a player replaying bot games cannot fill the card. Rated games are all
/// kept: they are the ladder's history.
pub const UNRATED_KEPT: usize = 50;

/// Sessions kept per registered player, newest first (issue 10.3): a sign-in beyond them signs
/// the oldest device out, so that signing in again and again cannot fill the card.
pub const SESSIONS_KEPT: usize = 20;

/// How long a reopen waits for readers still holding the old database.
const REOPEN_WAIT: Duration = Duration::from_secs(2);

/// One row of a leaderboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaderboardRow {
    pub user: UserId,
    pub name: String,
    pub stats: LadderStats,
}

/// Why a registration was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterError {
    /// The name is taken, ignoring case (A1).
    NameTaken,
    Store(StoreError),
}

impl From<StoreError> for RegisterError {
    fn from(e: StoreError) -> Self {
        RegisterError::Store(e)
    }
}

impl std::fmt::Display for RegisterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RegisterError::NameTaken => f.write_str("username taken"),
            RegisterError::Store(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RegisterError {}

/// Opens the database file; called at start and again after a failure.
pub type Opener = Box<dyn Fn() -> Result<Database, redb::DatabaseError> + Send + Sync>;

/// What the handle and the writer thread share.
pub(crate) struct Core {
    /// `None` while the writer reopens the database after a failure.
    db: RwLock<Option<Arc<Database>>>,
    opener: Opener,
    path: PathBuf,
    data_dir: PathBuf,
    health: Mutex<health::Tracker>,
    /// Every player's ratings, for game starts (`ratings`).
    ratings: ratings::Ratings,
}

impl std::fmt::Debug for Core {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Core").field("path", &self.path).finish()
    }
}

impl Core {
    fn db(&self) -> Result<Arc<Database>, StoreError> {
        self.db
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
            .ok_or(StoreError::Reopening)
    }

    fn tracker(&self) -> std::sync::MutexGuard<'_, health::Tracker> {
        self.health
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn set_failing(&self, e: &StoreError) {
        self.tracker().failing(e);
    }

    fn set_working(&self) {
        self.tracker().working();
    }

    fn check_space(&self) -> StorageHealth {
        let space = health::free_space(&self.data_dir);
        self.tracker().report(space)
    }

    /// Closes the database and opens the file again (redb refuses every operation after an
    /// I/O error until then). Waits briefly for readers to let go of the old handle, since
    /// only one handle may hold the file.
    fn reopen(&self) -> Result<(), StoreError> {
        let old = self
            .db
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(mut db) = old {
            let until = Instant::now() + REOPEN_WAIT;
            loop {
                match Arc::try_unwrap(db) {
                    Ok(db) => {
                        drop(db);
                        break;
                    }
                    Err(shared) if Instant::now() < until => {
                        db = shared;
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(shared) => {
                        *self
                            .db
                            .write()
                            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(shared);
                        return Err(StoreError::Reopening);
                    }
                }
            }
        }
        let db = (self.opener)().map_err(store_err)?;
        tracing::info!(path = %self.path.display(), "database reopened");
        *self
            .db
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Arc::new(db));
        Ok(())
    }

    /// Runs `f` in a read transaction. A failure of the card is noted for the writer to heal.
    fn read<T>(
        &self,
        f: impl FnOnce(&ReadTransaction) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let db = self.db()?;
        let result = db.begin_read().map_err(store_err).and_then(|txn| f(&txn));
        if let Err(e) = &result
            && e.is_unavailable()
        {
            self.set_failing(e);
        }
        result
    }
}

/// A redb error by cause (see [`StoreError`]).
pub(crate) fn store_err(e: impl Into<redb::Error>) -> StoreError {
    match e.into() {
        redb::Error::Io(io) => io_error(&io),
        redb::Error::PreviousIo => StoreError::Io {
            kind: std::io::ErrorKind::Other,
            message: "an earlier I/O error; the database must be reopened".into(),
        },
        redb::Error::DatabaseClosed => StoreError::Reopening,
        redb::Error::Corrupted(m) => StoreError::Corrupted(m),
        redb::Error::ValueTooLarge(n) => {
            StoreError::Refused(format!("a value of {n} bytes is too large"))
        }
        other => StoreError::Internal(other.to_string()),
    }
}

/// ENOSPC and EDQUOT: the card (or the user's quota on it) is full.
const ENOSPC: i32 = 28;
const EDQUOT: i32 = 122;

fn io_error(e: &std::io::Error) -> StoreError {
    let full = matches!(
        e.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    ) || matches!(e.raw_os_error(), Some(ENOSPC | EDQUOT));
    if full {
        StoreError::Full(e.to_string())
    } else {
        StoreError::Io {
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}

#[derive(Debug)]
struct Inner {
    core: Arc<Core>,
    sender: Mutex<Option<Sender<Request>>>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

/// The database's page cache, in bytes. redb's default is 1 GiB: a kiosk running for months
/// would keep every page it ever read (an owner's backup reads them all) and its resident
/// memory would grow with the file. The pages every request touches (sessions, open rooms,
/// the right edge of the games tables) fit many times over; the rest are read again from the
/// operating system's page cache, which gives its memory back when it is needed.
pub const CACHE_BYTES: usize = 2 * 1024 * 1024;

/// How every database of the store is opened: with a bounded page cache ([`CACHE_BYTES`]).
#[must_use]
pub fn database_builder() -> redb::Builder {
    let mut builder = Database::builder();
    builder.set_cache_size(CACHE_BYTES);
    builder
}

/// The store: a cheap cloneable handle on the database and its writer thread.
#[derive(Debug, Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

impl Store {
    /// Opens (creating when missing) the data directory and its database file, migrates it to
    /// [`SCHEMA_VERSION`], and starts the writer thread.
    pub fn open_blocking(data_dir: &Path) -> Result<Store, StoreError> {
        let path = data_dir.join(DB_FILE);
        let file = path.clone();
        Store::open_with_blocking(data_dir, Box::new(move || database_builder().create(&file)))
    }

    /// [`Store::open_blocking`] with the database opened by `opener` (at start, and again
    /// after each failure): the fault-injection tests wrap the file in a `StorageBackend`
    /// that fails on command.
    pub fn open_with_blocking(data_dir: &Path, opener: Opener) -> Result<Store, StoreError> {
        std::fs::create_dir_all(data_dir).map_err(|e| {
            let mut err = io_error(&e);
            if let StoreError::Io { message, .. } = &mut err {
                *message = format!("cannot create data directory {}: {e}", data_dir.display());
            }
            err
        })?;
        let path = data_dir.join(DB_FILE);
        let db = opener().map_err(store_err)?;
        migrate(&db)?;
        let (purged, codes) = purge_expired(&db, crate::clock::now_ms())?;
        if purged > 0 {
            tracing::info!(purged, "expired sessions removed");
        }
        if codes > 0 {
            tracing::info!(codes, "expired password reset codes removed");
        }
        let core = Arc::new(Core {
            db: RwLock::new(Some(Arc::new(db))),
            opener,
            path,
            data_dir: data_dir.to_owned(),
            health: Mutex::new(health::Tracker::default()),
            ratings: ratings::Ratings::default(),
        });
        if let Some(db) = core.db().ok()
            && let Err(e) = core.ratings.load(&db)
        {
            // Not fatal: rating reads go to the file, as they would for a damaged record.
            tracing::warn!(error = %e, "loading the ratings into memory failed");
        }
        core.check_space();
        let (sender, receiver) = mpsc::channel();
        let writer = Writer::new(Arc::clone(&core));
        let writer = std::thread::Builder::new()
            .name("store-writer".into())
            .spawn(move || writer.run(&receiver))
            .map_err(|e| StoreError::Internal(format!("cannot start the store writer: {e}")))?;
        Ok(Store {
            inner: Arc::new(Inner {
                core,
                sender: Mutex::new(Some(sender)),
                writer: Mutex::new(Some(writer)),
            }),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.inner.core.path
    }

    /// The state of the card now: working, failing (with the reason), or nearly full.
    pub fn health(&self) -> StorageHealth {
        self.inner.core.check_space()
    }

    /// Commits every write sent before this call durably, then stops the writer. Later writes
    /// fail with [`StoreError::Stopped`]; reads still work. Idempotent.
    pub fn shutdown_blocking(&self) {
        let sender = self
            .inner
            .sender
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(sender) = sender {
            let (done, wait) = oneshot::channel();
            if sender.send(Request::Shutdown(done)).is_ok() {
                // An error means the writer already exited; nothing is left to wait for.
                let _ignored = wait.blocking_recv();
            }
        }
        let writer = self
            .inner
            .writer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(writer) = writer
            && writer.join().is_err()
        {
            tracing::error!("the store writer thread panicked");
        }
    }

    /// Hands `op` to the writer; the receiver gets the outcome after its commit.
    fn submit(&self, op: Op) -> Result<oneshot::Receiver<Result<Outcome, StoreError>>, StoreError> {
        let (reply, answer) = oneshot::channel();
        let sender = self
            .inner
            .sender
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let sender = sender.as_ref().ok_or(StoreError::Stopped)?;
        sender
            .send(Request::Write(op, reply))
            .map_err(|_| StoreError::Stopped)?;
        Ok(answer)
    }

    /// A write, awaited without holding a thread.
    fn write(&self, op: Op) -> impl Future<Output = Result<Outcome, StoreError>> + Send + 'static {
        let answer = self.submit(op);
        async move {
            match answer?.await {
                Ok(result) => result,
                // The writer dropped the request: it stopped.
                Err(_) => Err(StoreError::Stopped),
            }
        }
    }

    /// A write, for callers on a blocking thread (never on an async one).
    fn write_blocking(&self, op: Op) -> Result<Outcome, StoreError> {
        self.submit(op)?
            .blocking_recv()
            .map_err(|_| StoreError::Stopped)?
    }

    /// Creates a player and their first session in one durable transaction (A1: registering
    /// signs in). `name` must already be validated. Awaited without holding a thread.
    pub async fn register(
        &self,
        name: &str,
        password_hash: &str,
        token_hash: [u8; 32],
        now_ms: u64,
        expires_ms: u64,
    ) -> Result<UserId, RegisterError> {
        registered(
            self.write(Op::Register {
                name: name.to_owned(),
                password_hash: password_hash.to_owned(),
                token_hash,
                now_ms,
                expires_ms,
            })
            .await?,
        )
    }

    /// Stores a new session durably, awaited without holding a thread.
    pub async fn create_session(
        &self,
        token_hash: [u8; 32],
        user: UserId,
        now_ms: u64,
        expires_ms: u64,
    ) -> Result<(), StoreError> {
        self.write(Op::CreateSession {
            token_hash,
            user,
            now_ms,
            expires_ms,
        })
        .await
        .map(drop)
    }

    /// Forgets a session durably (sign-out), awaited without holding a thread.
    pub async fn delete_session(&self, token_hash: [u8; 32]) -> Result<(), StoreError> {
        self.write(Op::DeleteSession { token_hash }).await.map(drop)
    }

    /// [`Store::register`] for a blocking caller.
    pub fn register_blocking(
        &self,
        name: &str,
        password_hash: &str,
        token_hash: [u8; 32],
        now_ms: u64,
        expires_ms: u64,
    ) -> Result<UserId, RegisterError> {
        registered(self.write_blocking(Op::Register {
            name: name.to_owned(),
            password_hash: password_hash.to_owned(),
            token_hash,
            now_ms,
            expires_ms,
        })?)
    }

    /// [`Store::create_session`] for a blocking caller.
    pub fn create_session_blocking(
        &self,
        token_hash: [u8; 32],
        user: UserId,
        now_ms: u64,
        expires_ms: u64,
    ) -> Result<(), StoreError> {
        self.write_blocking(Op::CreateSession {
            token_hash,
            user,
            now_ms,
            expires_ms,
        })
        .map(drop)
    }

    /// Replaces `user`'s password hash and forgets every session of that user but `keep`,
    /// in one durable write (issue 11.5).
    pub async fn change_password(
        &self,
        user: UserId,
        password_hash: String,
        keep: [u8; 32],
    ) -> Result<(), StoreError> {
        self.write(Op::ChangePassword {
            user,
            password_hash,
            keep,
        })
        .await
        .map(drop)
    }

    /// [`Store::delete_session`] for a blocking caller. Unknown sessions are fine.
    pub fn delete_session_blocking(&self, token_hash: [u8; 32]) -> Result<(), StoreError> {
        self.write_blocking(Op::DeleteSession { token_hash })
            .map(drop)
    }

    /// [`Persistence::commit_game`] for a blocking caller (tests, tools).
    pub fn commit_game_blocking(
        &self,
        game: &FinishedGame,
    ) -> Result<Vec<RatingUpdate>, StoreError> {
        rated(self.write_blocking(Op::CommitGame(Box::new(game.clone())))?)
    }

    /// [`Persistence::save_room`] for a blocking caller (tests, tools).
    pub fn save_room_blocking(&self, room_id: &str, state: &[u8]) -> Result<(), StoreError> {
        self.write_blocking(Op::SaveRoom {
            id: room_id.to_owned(),
            state: state.to_vec(),
        })
        .map(drop)
    }

    /// [`Persistence::delete_room`] for a blocking caller (tests, tools).
    pub fn delete_room_blocking(&self, room_id: &str) -> Result<(), StoreError> {
        self.write_blocking(Op::DeleteRoom {
            id: room_id.to_owned(),
        })
        .map(drop)
    }

    /// The player a live session belongs to; `None` when unknown or expired at `now_ms`.
    pub fn session_account_blocking(
        &self,
        token_hash: &[u8; 32],
        now_ms: u64,
    ) -> Result<Option<Account>, StoreError> {
        self.inner.core.read(|txn| {
            let sessions = txn.open_table(SESSIONS).map_err(store_err)?;
            let Some(bytes) = sessions.get(token_hash.as_slice()).map_err(store_err)? else {
                return Ok(None);
            };
            let VersionedSession::V1(session) = decode(bytes.value(), "session")?;
            if session.expires_ms <= now_ms {
                return Ok(None);
            }
            let users = txn.open_table(USERS).map_err(store_err)?;
            let Some(user) = users.get(session.user).map_err(store_err)? else {
                return Ok(None);
            };
            let user = decode_user(user.value())?;
            Ok(Some(Account {
                id: session.user,
                name: user.name,
            }))
        })
    }

    /// A player by name, ignoring case.
    pub fn user_by_name_blocking(
        &self,
        name: &str,
    ) -> Result<Option<(UserId, UserRecord)>, StoreError> {
        self.inner.core.read(|txn| user_by_name_in(txn, name))
    }

    /// A player by id.
    pub fn user_blocking(&self, id: UserId) -> Result<Option<UserRecord>, StoreError> {
        self.inner.core.read(|txn| {
            let users = txn.open_table(USERS).map_err(store_err)?;
            users
                .get(id)
                .map_err(store_err)?
                .map(|bytes| decode_user(bytes.value()))
                .transpose()
        })
    }

    /// A finished game by id.
    pub fn game_blocking(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        self.inner.core.read(|txn| {
            let games = txn.open_table(GAMES).map_err(store_err)?;
            games
                .get(id)
                .map_err(store_err)?
                .map(|bytes| decode_game(bytes.value()).map(records::GameRecordV1::into_stored))
                .transpose()
        })
    }

    /// A player's most recent games, newest first, at most `limit`.
    pub fn recent_games_blocking(
        &self,
        user: UserId,
        limit: usize,
    ) -> Result<Vec<StoredGame>, StoreError> {
        self.inner.core.read(|txn| {
            let index = txn.open_table(USER_GAMES).map_err(store_err)?;
            let games = txn.open_table(GAMES).map_err(store_err)?;
            let mut out = Vec::new();
            for entry in index
                .range((user, 0)..=(user, u64::MAX))
                .map_err(store_err)?
                .rev()
                .take(limit)
            {
                let (_, id) = entry.map_err(store_err)?;
                let bytes = games.get(id.value()).map_err(store_err)?.ok_or_else(|| {
                    StoreError::Corrupted(format!("game index names missing game {}", id.value()))
                })?;
                out.push(decode_game(bytes.value())?.into_stored());
            }
            Ok(out)
        })
    }

    /// The ladder of `game`: players with at least one rated game on it, best rating first
    /// (then more points, then name), at most `limit`. Scans the users table, which is small on
    /// a kiosk.
    pub fn leaderboard_blocking(
        &self,
        game: Game,
        limit: usize,
    ) -> Result<Vec<LeaderboardRow>, StoreError> {
        let mut rows = self.inner.core.read(|txn| {
            let users = txn.open_table(USERS).map_err(store_err)?;
            let mut rows = Vec::new();
            for entry in users.iter().map_err(store_err)? {
                let (id, bytes) = entry.map_err(store_err)?;
                let user = decode_user(bytes.value())?;
                let stats = *user.ladder(game);
                if stats.games() > 0 {
                    rows.push(LeaderboardRow {
                        user: id.value(),
                        name: user.name,
                        stats,
                    });
                }
            }
            Ok(rows)
        })?;
        rank(&mut rows, limit);
        Ok(rows)
    }

    /// The ladder of `game` as archived season `number` ended, ordered as
    /// [`Store::leaderboard_blocking`]; `None` when that season was never archived.
    pub fn season_leaderboard_blocking(
        &self,
        number: u64,
        game: Game,
        limit: usize,
    ) -> Result<Option<Vec<LeaderboardRow>>, StoreError> {
        let Some(season) = self.season_blocking(number)? else {
            return Ok(None);
        };
        Ok(Some(seasons::season_ladder(&season, game, limit)))
    }

    /// How many open rooms are saved.
    pub fn open_room_count_blocking(&self) -> Result<u64, StoreError> {
        self.inner.core.read(|txn| {
            let rooms = txn.open_table(OPEN_ROOMS).map_err(store_err)?;
            rooms.len().map_err(store_err)
        })
    }

    /// How many players are registered.
    pub fn user_count_blocking(&self) -> Result<u64, StoreError> {
        self.inner.core.read(|txn| {
            let users = txn.open_table(USERS).map_err(store_err)?;
            users.len().map_err(store_err)
        })
    }

    /// How many games are stored, of every player.
    pub fn game_count_blocking(&self) -> Result<u64, StoreError> {
        self.inner.core.read(|txn| {
            let games = txn.open_table(GAMES).map_err(store_err)?;
            games.len().map_err(store_err)
        })
    }
}

/// A player by username (any case), within one read.
fn user_by_name_in(
    txn: &ReadTransaction,
    name: &str,
) -> Result<Option<(UserId, UserRecord)>, StoreError> {
    let names = txn.open_table(USERNAMES).map_err(store_err)?;
    let Some(id) = names
        .get(name.to_lowercase().as_str())
        .map_err(store_err)?
        .map(|g| g.value())
    else {
        return Ok(None);
    };
    let users = txn.open_table(USERS).map_err(store_err)?;
    match users.get(id).map_err(store_err)? {
        Some(bytes) => Ok(Some((id, decode_user(bytes.value())?))),
        None => Err(StoreError::Corrupted(format!(
            "username index names missing user {id}"
        ))),
    }
}

/// Best rating first, then more points, then name; at most `limit`.
fn rank(rows: &mut Vec<LeaderboardRow>, limit: usize) {
    rows.sort_by(|a, b| {
        b.stats
            .rating
            .cmp(&a.stats.rating)
            .then(b.stats.points.cmp(&a.stats.points))
            .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
    });
    rows.truncate(limit);
}

fn unexpected(outcome: &Outcome) -> StoreError {
    StoreError::Internal(format!("unexpected store outcome {outcome:?}"))
}

fn registered(outcome: Outcome) -> Result<UserId, RegisterError> {
    match outcome {
        Outcome::Registered(id) => Ok(id),
        Outcome::NameTaken => Err(RegisterError::NameTaken),
        other => Err(unexpected(&other).into()),
    }
}

fn rated(outcome: Outcome) -> Result<Vec<RatingUpdate>, StoreError> {
    match outcome {
        Outcome::Rated(updates) => Ok(updates),
        Outcome::Refused(e) => Err(e),
        other => Err(unexpected(&other)),
    }
}

impl Persistence for Store {
    fn commit_game(&self, game: &FinishedGame) -> StoreFuture<Vec<RatingUpdate>> {
        let outcome = self.write(Op::CommitGame(Box::new(game.clone())));
        Box::pin(async move { rated(outcome.await?) })
    }

    fn ratings_blocking(&self, game: Game, users: &[UserId]) -> Result<Vec<i32>, StoreError> {
        self.inner.core.read(|txn| {
            let table = txn.open_table(USERS).map_err(store_err)?;
            users
                .iter()
                .map(|&id| match table.get(id).map_err(store_err)? {
                    Some(bytes) => Ok(decode_user(bytes.value())?.ladder(game).rating),
                    None => Err(StoreError::Refused(format!("no user {id}"))),
                })
                .collect()
        })
    }

    fn ratings_in_memory(&self, game: Game, users: &[UserId]) -> Option<Vec<i32>> {
        self.inner.core.ratings.get(game, users)
    }

    fn save_room(&self, room_id: &str, state: Vec<u8>) -> StoreFuture<()> {
        let done = self.write(Op::SaveRoom {
            id: room_id.to_owned(),
            state,
        });
        Box::pin(async move { done.await.map(drop) })
    }

    fn delete_room(&self, room_id: &str) -> StoreFuture<()> {
        let done = self.write(Op::DeleteRoom {
            id: room_id.to_owned(),
        });
        Box::pin(async move { done.await.map(drop) })
    }

    fn load_rooms_blocking(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        self.inner.core.read(|txn| {
            let rooms = txn.open_table(OPEN_ROOMS).map_err(store_err)?;
            rooms
                .iter()
                .map_err(store_err)?
                .map(|entry| {
                    let (id, state) = entry.map_err(store_err)?;
                    Ok((id.value().to_owned(), state.value().to_vec()))
                })
                .collect()
        })
    }

    fn room_id_taken_blocking(&self, room_id: &str) -> Result<bool, StoreError> {
        self.inner.core.read(|txn| {
            let games = txn.open_table(GAMES).map_err(store_err)?;
            // Game ids are the room id, then `<room id>-<n>` for later games of the same
            // room; they sort right after the room id.
            for entry in games.range(room_id..).map_err(store_err)? {
                let (id, _) = entry.map_err(store_err)?;
                let Some(rest) = id.value().strip_prefix(room_id) else {
                    return Ok(false);
                };
                if rest.is_empty() || rest.starts_with('-') {
                    return Ok(true);
                }
            }
            Ok(false)
        })
    }
}

/// Creates every table, and checks the schema version, migrating an older file in the same
/// transaction (all of it or nothing). A file that already has every table at this schema is
/// left as it is: even a commit that changes nothing syncs the card, at every start.
fn migrate(db: &Database) -> Result<(), StoreError> {
    let txn = db.begin_write().map_err(store_err)?;
    let tables_before = count_tables(&txn)?;
    let mut changed = false;
    {
        txn.open_table(USERS).map_err(store_err)?;
        txn.open_table(USERNAMES).map_err(store_err)?;
        txn.open_table(SESSIONS).map_err(store_err)?;
        txn.open_table(GAMES).map_err(store_err)?;
        txn.open_table(USER_GAMES).map_err(store_err)?;
        txn.open_table(USER_UNRATED).map_err(store_err)?;
        txn.open_table(OPEN_ROOMS).map_err(store_err)?;
        txn.open_table(owners::OWNERS).map_err(store_err)?;
        txn.open_table(seasons::SEASONS).map_err(store_err)?;
        txn.open_table(settings::SETTINGS).map_err(store_err)?;
        txn.open_table(reset_codes::RESET_CODES)
            .map_err(store_err)?;
        let meta = txn.open_table(META).map_err(store_err)?;
        let found = meta
            .get(META_SCHEMA)
            .map_err(store_err)?
            .map(|v| u64_from_meta(v.value()))
            .transpose()?;
        drop(meta);
        match found {
            // A new file, or one written by this version.
            None | Some(SCHEMA_VERSION) => changed |= found.is_none(),
            Some(1) => {
                changed = true;
                let indexed = migrate_1_to_2(&txn)?;
                tracing::info!(indexed, "database migrated from schema 1 to 2");
            }
            Some(v) => {
                return Err(StoreError::NewerSchema {
                    found: v,
                    supported: SCHEMA_VERSION,
                });
            }
        }
        if changed {
            let mut meta = txn.open_table(META).map_err(store_err)?;
            meta.insert(META_SCHEMA, SCHEMA_VERSION.to_le_bytes().as_slice())
                .map_err(store_err)?;
        }
    }
    // A table this version added to a file of the same schema was just created.
    if changed || count_tables(&txn)? != tables_before {
        txn.commit().map_err(store_err)
    } else {
        txn.abort().map_err(store_err)
    }
}

fn count_tables(txn: &WriteTransaction) -> Result<usize, StoreError> {
    Ok(txn.list_tables().map_err(store_err)?.count())
}

/// Schema 2: indexes each registered player's unrated games in `user_unrated`. Returns how
/// many entries it made. Older games beyond [`UNRATED_KEPT`] are forgotten at that player's
/// next unrated game.
fn migrate_1_to_2(txn: &WriteTransaction) -> Result<u64, StoreError> {
    let games = txn.open_table(GAMES).map_err(store_err)?;
    let mut unrated = txn.open_table(USER_UNRATED).map_err(store_err)?;
    let mut indexed = 0;
    for entry in games.iter().map_err(store_err)? {
        let (id, bytes) = entry.map_err(store_err)?;
        let record = decode_game(bytes.value())?;
        if record.rated {
            continue;
        }
        let seq = record.seq;
        let game = record.into_stored().game;
        for user in writer::registered_seats(&game) {
            unrated.insert((user, seq), id.value()).map_err(store_err)?;
            indexed += 1;
        }
    }
    Ok(indexed)
}

/// Removes sessions that expired before `now_ms` (A2: 30 days), so the table does not grow
/// forever, and expired password reset codes. Runs at open, before the writer starts. An
/// unreadable session is kept, and logged. Returns how many sessions and codes went.
fn purge_expired(db: &Database, now_ms: u64) -> Result<(u64, u64), StoreError> {
    let txn = db.begin_write().map_err(store_err)?;
    let mut purged = 0;
    {
        let mut sessions = txn.open_table(SESSIONS).map_err(store_err)?;
        sessions
            .retain(
                |_, bytes| match decode::<VersionedSession>(bytes, "session") {
                    Ok(VersionedSession::V1(session)) if session.expires_ms <= now_ms => {
                        purged += 1;
                        false
                    }
                    Ok(VersionedSession::V1(_)) => true,
                    Err(e) => {
                        tracing::error!(error = %e, "keeping an unreadable session record");
                        true
                    }
                },
            )
            .map_err(store_err)?;
    }
    let codes = reset_codes::purge_expired(&txn, now_ms)?;
    // Nothing expired (the usual start): no commit, so no sync of the card.
    if purged + codes > 0 {
        txn.commit().map_err(store_err)?;
    } else {
        txn.abort().map_err(store_err)?;
    }
    Ok((purged, codes))
}
