//! The redb store: accounts, sessions, finished games, ratings and open rooms, in one file.
//!
//! Every function that touches the database blocks and ends in `_blocking`; async code calls
//! them on `spawn_blocking`. Reads open their own read transaction on the calling thread.
//! Writes go to ONE writer thread over a channel: it takes every request waiting in the
//! channel, applies them in one write transaction and commits once (group commit), so
//! throughput grows with load instead of being capped by the disk's sync latency. A batch is
//! committed durably when any request in it needs durability (results, accounts, sessions);
//! a batch of room saves only is committed with [`Durability::None`], which the next durable
//! commit (or the final one at shutdown) makes permanent. Callers are answered only after the
//! commit that holds their write.
//!
//! Values are postcard-encoded records wrapped in a version enum (the variant index is the
//! version), stored in this module's own types so that a change of the wire types cannot change
//! what is on disk. `meta` holds the schema version.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use engine::{Cell, Game, Mark, Score};
use protocol::records::{FinishedGame, GameEnd, PlayerRef, RatingUpdate, UserId};
use redb::{
    Database, Durability, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition,
    WriteTransaction,
};
use rooms::{Account, Persistence, StoreError};
use serde::{Deserialize, Serialize};

/// user id → [`VersionedUser`].
const USERS: TableDefinition<'_, u64, &[u8]> = TableDefinition::new("users");
/// lower-cased username → user id.
const USERNAMES: TableDefinition<'_, &str, u64> = TableDefinition::new("usernames");
/// SHA-256 of a session token → [`VersionedSession`].
const SESSIONS: TableDefinition<'_, &[u8], &[u8]> = TableDefinition::new("sessions");
/// game id → [`VersionedGame`].
const GAMES: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("games");
/// (user id, game sequence number) → game id: each registered player's games, oldest first.
const USER_GAMES: TableDefinition<'_, (u64, u64), &str> = TableDefinition::new("user_games");
/// room id → the rooms crate's own encoding of an open room.
const OPEN_ROOMS: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("open_rooms");
/// Named values: [`META_SCHEMA`], [`META_NEXT_USER`], [`META_NEXT_GAME`] (u64 little-endian).
const META: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("meta");

const META_SCHEMA: &str = "schema_version";
const META_NEXT_USER: &str = "next_user_id";
const META_NEXT_GAME: &str = "next_game_seq";

/// The layout this build reads and writes. A file with a higher version is refused.
pub const SCHEMA_VERSION: u64 = 1;

/// The database file inside the data directory.
pub const DB_FILE: &str = "xo-kiosk.redb";

/// Most requests one group commit takes from the channel.
const MAX_BATCH: usize = 256;

/// One player's standing on one game's ladder (E1, E5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LadderStats {
    pub rating: i32,
    pub points: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Default for LadderStats {
    fn default() -> Self {
        LadderStats {
            rating: engine::INITIAL_RATING,
            points: 0,
            wins: 0,
            draws: 0,
            losses: 0,
        }
    }
}

impl LadderStats {
    /// Rated games played on this ladder.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    fn record(&mut self, score: Score, change: i32) {
        self.rating += change;
        self.points += score.points();
        match score {
            Score::Win => self.wins += 1,
            Score::Draw => self.draws += 1,
            Score::Loss => self.losses += 1,
        }
    }
}

/// A registered player as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserRecord {
    /// As the player typed it at registration.
    pub name: String,
    /// An argon2id PHC string.
    pub password_hash: String,
    pub created_ms: u64,
    pub xo: LadderStats,
    pub infinite: LadderStats,
}

impl UserRecord {
    pub fn ladder(&self, game: Game) -> &LadderStats {
        match game {
            Game::Xo => &self.xo,
            Game::Infinite => &self.infinite,
        }
    }

    fn ladder_mut(&mut self, game: Game) -> &mut LadderStats {
        match game {
            Game::Xo => &mut self.xo,
            Game::Infinite => &mut self.infinite,
        }
    }
}

#[derive(Serialize, Deserialize)]
enum VersionedUser {
    V1(UserRecord),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct SessionRecord {
    user: UserId,
    created_ms: u64,
    expires_ms: u64,
}

#[derive(Serialize, Deserialize)]
enum VersionedSession {
    V1(SessionRecord),
}

/// A seat of a stored game (mirrors `PlayerRef`, whose JSON tagging postcard cannot decode).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum StoredPlayer {
    User { id: UserId, name: String },
    Guest { name: String },
    Bot { difficulty: u8 },
    Local { name: String },
}

/// How a stored game ended (mirrors `GameEnd`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum StoredEnd {
    Line { winner: Mark, line: [Cell; 3] },
    FullBoard,
    Repetition,
    Agreed,
    Resigned { loser: Mark },
    Timeout { loser: Mark },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct GameRecordV1 {
    seq: u64,
    id: String,
    game: Game,
    rated: bool,
    x: StoredPlayer,
    o: StoredPlayer,
    moves: Vec<Cell>,
    end: StoredEnd,
    started_at_ms: u64,
    ended_at_ms: u64,
    /// (user, mark, before, after), X first.
    updates: Vec<(UserId, Mark, i32, i32)>,
}

#[derive(Serialize, Deserialize)]
enum VersionedGame {
    V1(GameRecordV1),
}

/// A finished game as stored, with the rating updates it caused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredGame {
    /// Order in which games were stored, from 0.
    pub seq: u64,
    pub game: FinishedGame,
    /// X then O; empty for unrated games.
    pub updates: Vec<RatingUpdate>,
}

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

fn store_err(e: impl std::fmt::Display) -> StoreError {
    StoreError(e.to_string())
}

fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, StoreError> {
    postcard::to_allocvec(value).map_err(|e| StoreError(format!("encoding a record: {e}")))
}

fn decode<'a, T: Deserialize<'a>>(bytes: &'a [u8], what: &str) -> Result<T, StoreError> {
    postcard::from_bytes(bytes).map_err(|e| StoreError(format!("decoding a {what} record: {e}")))
}

fn decode_user(bytes: &[u8]) -> Result<UserRecord, StoreError> {
    match decode(bytes, "user")? {
        VersionedUser::V1(user) => Ok(user),
    }
}

fn decode_game(bytes: &[u8]) -> Result<GameRecordV1, StoreError> {
    match decode(bytes, "game")? {
        VersionedGame::V1(game) => Ok(game),
    }
}

fn u64_from_meta(bytes: &[u8]) -> Result<u64, StoreError> {
    let array: [u8; 8] = bytes
        .try_into()
        .map_err(|_| StoreError("a meta counter is not 8 bytes".into()))?;
    Ok(u64::from_le_bytes(array))
}

fn to_stored_player(p: &PlayerRef) -> StoredPlayer {
    match p {
        PlayerRef::User { id, name } => StoredPlayer::User {
            id: *id,
            name: name.clone(),
        },
        PlayerRef::Guest { name } => StoredPlayer::Guest { name: name.clone() },
        PlayerRef::Bot { difficulty } => StoredPlayer::Bot {
            difficulty: *difficulty,
        },
        PlayerRef::Local { name } => StoredPlayer::Local { name: name.clone() },
    }
}

fn from_stored_player(p: StoredPlayer) -> PlayerRef {
    match p {
        StoredPlayer::User { id, name } => PlayerRef::User { id, name },
        StoredPlayer::Guest { name } => PlayerRef::Guest { name },
        StoredPlayer::Bot { difficulty } => PlayerRef::Bot { difficulty },
        StoredPlayer::Local { name } => PlayerRef::Local { name },
    }
}

fn to_stored_end(e: GameEnd) -> StoredEnd {
    match e {
        GameEnd::Line { winner, line } => StoredEnd::Line { winner, line },
        GameEnd::FullBoard => StoredEnd::FullBoard,
        GameEnd::Repetition => StoredEnd::Repetition,
        GameEnd::Agreed => StoredEnd::Agreed,
        GameEnd::Resigned { loser } => StoredEnd::Resigned { loser },
        GameEnd::Timeout { loser } => StoredEnd::Timeout { loser },
    }
}

fn from_stored_end(e: StoredEnd) -> GameEnd {
    match e {
        StoredEnd::Line { winner, line } => GameEnd::Line { winner, line },
        StoredEnd::FullBoard => GameEnd::FullBoard,
        StoredEnd::Repetition => GameEnd::Repetition,
        StoredEnd::Agreed => GameEnd::Agreed,
        StoredEnd::Resigned { loser } => GameEnd::Resigned { loser },
        StoredEnd::Timeout { loser } => GameEnd::Timeout { loser },
    }
}

impl GameRecordV1 {
    fn from_finished(seq: u64, g: &FinishedGame, updates: &[RatingUpdate]) -> Self {
        GameRecordV1 {
            seq,
            id: g.id.clone(),
            game: g.game,
            rated: g.rated,
            x: to_stored_player(&g.x),
            o: to_stored_player(&g.o),
            moves: g.moves.clone(),
            end: to_stored_end(g.end),
            started_at_ms: g.started_at_ms,
            ended_at_ms: g.ended_at_ms,
            updates: updates
                .iter()
                .map(|u| (u.user, u.mark, u.before, u.after))
                .collect(),
        }
    }

    fn into_stored(self) -> StoredGame {
        StoredGame {
            seq: self.seq,
            updates: self
                .updates
                .iter()
                .map(|&(user, mark, before, after)| RatingUpdate {
                    user,
                    mark,
                    before,
                    after,
                })
                .collect(),
            game: FinishedGame {
                id: self.id,
                game: self.game,
                rated: self.rated,
                x: from_stored_player(self.x),
                o: from_stored_player(self.o),
                moves: self.moves,
                end: from_stored_end(self.end),
                started_at_ms: self.started_at_ms,
                ended_at_ms: self.ended_at_ms,
            },
        }
    }
}

/// A write for the writer thread.
#[derive(Debug)]
enum Op {
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
    CommitGame(Box<FinishedGame>),
    SaveRoom {
        id: String,
        state: Vec<u8>,
    },
    DeleteRoom {
        id: String,
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
enum Outcome {
    Registered(UserId),
    NameTaken,
    Done,
    Rated(Vec<RatingUpdate>),
    /// Refused before writing anything (a malformed rated game, an id reused).
    Refused(StoreError),
}

type Reply = SyncSender<Result<Outcome, StoreError>>;

#[derive(Debug)]
enum Request {
    Write(Op, Reply),
    /// Commit everything before this request durably, answer, and stop.
    Shutdown(SyncSender<()>),
}

#[derive(Debug)]
struct Inner {
    db: Arc<Database>,
    path: PathBuf,
    sender: Mutex<Option<Sender<Request>>>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

/// The store: a cheap cloneable handle on the database and its writer thread.
#[derive(Debug, Clone)]
pub struct Store {
    inner: Arc<Inner>,
}

impl Store {
    /// Opens (creating when missing) the data directory and its database file, checks the
    /// schema version, and starts the writer thread.
    pub fn open_blocking(data_dir: &Path) -> Result<Store, StoreError> {
        std::fs::create_dir_all(data_dir).map_err(|e| {
            StoreError(format!(
                "cannot create data directory {}: {e}",
                data_dir.display()
            ))
        })?;
        let path = data_dir.join(DB_FILE);
        let db = Database::create(&path)
            .map_err(|e| StoreError(format!("cannot open {}: {e}", path.display())))?;
        init_schema(&db)?;
        let purged = purge_expired_sessions(&db, crate::accounts::now_ms())?;
        if purged > 0 {
            tracing::info!(purged, "expired sessions removed");
        }
        let db = Arc::new(db);
        let (sender, receiver) = mpsc::channel();
        let writer_db = Arc::clone(&db);
        let writer = std::thread::Builder::new()
            .name("store-writer".into())
            .spawn(move || writer_loop(&writer_db, &receiver))
            .map_err(|e| StoreError(format!("cannot start the store writer: {e}")))?;
        Ok(Store {
            inner: Arc::new(Inner {
                db,
                path,
                sender: Mutex::new(Some(sender)),
                writer: Mutex::new(Some(writer)),
            }),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Commits every write sent before this call durably, then stops the writer. Later writes
    /// fail with a "store is shut down" error; reads still work. Idempotent.
    pub fn shutdown_blocking(&self) {
        let sender = self
            .inner
            .sender
            .lock()
            .expect("store sender lock not poisoned")
            .take();
        if let Some(sender) = sender {
            let (done, wait) = mpsc::sync_channel(1);
            if sender.send(Request::Shutdown(done)).is_ok() {
                // An error means the writer already exited; nothing is left to wait for.
                let _ignored = wait.recv();
            }
        }
        let writer = self
            .inner
            .writer
            .lock()
            .expect("store writer lock not poisoned")
            .take();
        if let Some(writer) = writer
            && writer.join().is_err()
        {
            tracing::error!("the store writer thread panicked");
        }
    }

    fn write_blocking(&self, op: Op) -> Result<Outcome, StoreError> {
        let (reply, answer) = mpsc::sync_channel(1);
        {
            let sender = self
                .inner
                .sender
                .lock()
                .expect("store sender lock not poisoned");
            let sender = sender
                .as_ref()
                .ok_or_else(|| StoreError("the store is shut down".into()))?;
            sender
                .send(Request::Write(op, reply))
                .map_err(|_| StoreError("the store writer has stopped".into()))?;
        }
        answer
            .recv()
            .map_err(|_| StoreError("the store writer dropped a request".into()))?
    }

    /// Creates a player and their first session in one durable transaction (A1: registering
    /// signs in). `name` must already be validated.
    pub fn register_blocking(
        &self,
        name: &str,
        password_hash: &str,
        token_hash: [u8; 32],
        now_ms: u64,
        expires_ms: u64,
    ) -> Result<UserId, RegisterError> {
        match self.write_blocking(Op::Register {
            name: name.to_owned(),
            password_hash: password_hash.to_owned(),
            token_hash,
            now_ms,
            expires_ms,
        })? {
            Outcome::Registered(id) => Ok(id),
            Outcome::NameTaken => Err(RegisterError::NameTaken),
            other => Err(StoreError(format!("unexpected store outcome {other:?}")).into()),
        }
    }

    /// Stores a new session durably.
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

    /// Forgets a session durably (sign-out). Unknown sessions are fine.
    pub fn delete_session_blocking(&self, token_hash: [u8; 32]) -> Result<(), StoreError> {
        self.write_blocking(Op::DeleteSession { token_hash })
            .map(drop)
    }

    /// The player a live session belongs to; `None` when unknown or expired at `now_ms`.
    pub fn session_account_blocking(
        &self,
        token_hash: &[u8; 32],
        now_ms: u64,
    ) -> Result<Option<Account>, StoreError> {
        let txn = self.inner.db.begin_read().map_err(store_err)?;
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
    }

    /// A player by name, ignoring case.
    pub fn user_by_name_blocking(
        &self,
        name: &str,
    ) -> Result<Option<(UserId, UserRecord)>, StoreError> {
        let txn = self.inner.db.begin_read().map_err(store_err)?;
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
            None => Err(StoreError(format!(
                "username index names missing user {id}"
            ))),
        }
    }

    /// A player by id.
    pub fn user_blocking(&self, id: UserId) -> Result<Option<UserRecord>, StoreError> {
        let txn = self.inner.db.begin_read().map_err(store_err)?;
        let users = txn.open_table(USERS).map_err(store_err)?;
        users
            .get(id)
            .map_err(store_err)?
            .map(|bytes| decode_user(bytes.value()))
            .transpose()
    }

    /// A finished game by id.
    pub fn game_blocking(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        let txn = self.inner.db.begin_read().map_err(store_err)?;
        let games = txn.open_table(GAMES).map_err(store_err)?;
        games
            .get(id)
            .map_err(store_err)?
            .map(|bytes| decode_game(bytes.value()).map(GameRecordV1::into_stored))
            .transpose()
    }

    /// A player's most recent games, newest first, at most `limit`.
    pub fn recent_games_blocking(
        &self,
        user: UserId,
        limit: usize,
    ) -> Result<Vec<StoredGame>, StoreError> {
        let txn = self.inner.db.begin_read().map_err(store_err)?;
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
                StoreError(format!("game index names missing game {}", id.value()))
            })?;
            out.push(decode_game(bytes.value())?.into_stored());
        }
        Ok(out)
    }

    /// The ladder of `game`: players with at least one rated game on it, best rating first
    /// (then more points, then name), at most `limit`. Scans the users table, which is small on
    /// a kiosk.
    pub fn leaderboard_blocking(
        &self,
        game: Game,
        limit: usize,
    ) -> Result<Vec<LeaderboardRow>, StoreError> {
        let txn = self.inner.db.begin_read().map_err(store_err)?;
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
        rows.sort_by(|a, b| {
            b.stats
                .rating
                .cmp(&a.stats.rating)
                .then(b.stats.points.cmp(&a.stats.points))
                .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
        });
        rows.truncate(limit);
        Ok(rows)
    }

    /// How many open rooms are saved.
    pub fn open_room_count_blocking(&self) -> Result<u64, StoreError> {
        let txn = self.inner.db.begin_read().map_err(store_err)?;
        let rooms = txn.open_table(OPEN_ROOMS).map_err(store_err)?;
        rooms.len().map_err(store_err)
    }

    /// How many players are registered.
    pub fn user_count_blocking(&self) -> Result<u64, StoreError> {
        let txn = self.inner.db.begin_read().map_err(store_err)?;
        let users = txn.open_table(USERS).map_err(store_err)?;
        users.len().map_err(store_err)
    }
}

impl Persistence for Store {
    fn commit_game_blocking(&self, game: &FinishedGame) -> Result<Vec<RatingUpdate>, StoreError> {
        match self.write_blocking(Op::CommitGame(Box::new(game.clone())))? {
            Outcome::Rated(updates) => Ok(updates),
            Outcome::Refused(e) => Err(e),
            other => Err(StoreError(format!("unexpected store outcome {other:?}"))),
        }
    }

    fn ratings_blocking(&self, game: Game, users: &[UserId]) -> Result<Vec<i32>, StoreError> {
        let txn = self.inner.db.begin_read().map_err(store_err)?;
        let table = txn.open_table(USERS).map_err(store_err)?;
        users
            .iter()
            .map(|&id| match table.get(id).map_err(store_err)? {
                Some(bytes) => Ok(decode_user(bytes.value())?.ladder(game).rating),
                None => Err(StoreError(format!("no user {id}"))),
            })
            .collect()
    }

    fn save_room_blocking(&self, room_id: &str, state: &[u8]) -> Result<(), StoreError> {
        self.write_blocking(Op::SaveRoom {
            id: room_id.to_owned(),
            state: state.to_vec(),
        })
        .map(drop)
    }

    fn delete_room_blocking(&self, room_id: &str) -> Result<(), StoreError> {
        self.write_blocking(Op::DeleteRoom {
            id: room_id.to_owned(),
        })
        .map(drop)
    }

    fn load_rooms_blocking(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        let txn = self.inner.db.begin_read().map_err(store_err)?;
        let rooms = txn.open_table(OPEN_ROOMS).map_err(store_err)?;
        rooms
            .iter()
            .map_err(store_err)?
            .map(|entry| {
                let (id, state) = entry.map_err(store_err)?;
                Ok((id.value().to_owned(), state.value().to_vec()))
            })
            .collect()
    }
}

/// Creates every table, and checks or writes the schema version.
fn init_schema(db: &Database) -> Result<(), StoreError> {
    let txn = db.begin_write().map_err(store_err)?;
    {
        txn.open_table(USERS).map_err(store_err)?;
        txn.open_table(USERNAMES).map_err(store_err)?;
        txn.open_table(SESSIONS).map_err(store_err)?;
        txn.open_table(GAMES).map_err(store_err)?;
        txn.open_table(USER_GAMES).map_err(store_err)?;
        txn.open_table(OPEN_ROOMS).map_err(store_err)?;
        let mut meta = txn.open_table(META).map_err(store_err)?;
        let found = meta
            .get(META_SCHEMA)
            .map_err(store_err)?
            .map(|v| u64_from_meta(v.value()))
            .transpose()?;
        match found {
            None => {
                meta.insert(META_SCHEMA, SCHEMA_VERSION.to_le_bytes().as_slice())
                    .map_err(store_err)?;
            }
            Some(SCHEMA_VERSION) => {}
            Some(v) => {
                return Err(StoreError(format!(
                    "the database has schema version {v}; this build reads version {SCHEMA_VERSION}"
                )));
            }
        }
    }
    txn.commit().map_err(store_err)
}

/// Removes sessions that expired before `now_ms` (A2: 30 days), so the table does not grow
/// forever. Runs at open, before the writer starts. An unreadable record is kept, and logged.
fn purge_expired_sessions(db: &Database, now_ms: u64) -> Result<u64, StoreError> {
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
    txn.commit().map_err(store_err)?;
    Ok(purged)
}

/// The writer thread: group commits until shut down or every sender is gone.
fn writer_loop(db: &Database, receiver: &Receiver<Request>) {
    // Non-durable commits since the last durable one; the final commit makes them permanent.
    let mut pending_nondurable = false;
    loop {
        let mut batch = Vec::new();
        let mut shutdown = None;
        // Every sender gone: nothing more can arrive.
        let mut disconnected = false;
        match receiver.recv() {
            Ok(Request::Write(op, reply)) => batch.push((op, reply)),
            Ok(Request::Shutdown(done)) => shutdown = Some(done),
            Err(mpsc::RecvError) => disconnected = true,
        }
        while shutdown.is_none() && !batch.is_empty() && batch.len() < MAX_BATCH {
            match receiver.try_recv() {
                Ok(Request::Write(op, reply)) => batch.push((op, reply)),
                Ok(Request::Shutdown(done)) => shutdown = Some(done),
                Err(_) => break,
            }
        }
        if !batch.is_empty() {
            let durable = batch.iter().any(|(op, _)| op.durable());
            commit_batch(db, batch, durable);
            pending_nondurable = !durable;
        }
        if shutdown.is_some() || disconnected {
            if pending_nondurable {
                flush_durably(db);
            }
            tracing::info!("store writer stopped; every write is on disk");
            if let Some(done) = shutdown {
                // The caller may have given up waiting; nothing else to tell it.
                let _ignored = done.send(());
            }
            return;
        }
    }
}

fn flush_durably(db: &Database) {
    let result = db.begin_write().map_err(store_err).and_then(|mut txn| {
        txn.set_durability(Durability::Immediate)
            .map_err(store_err)?;
        txn.commit().map_err(store_err)
    });
    if let Err(e) = result {
        tracing::error!(error = %e, "final durable commit failed");
    }
}

/// Applies a batch in one transaction and answers after the commit. When the shared
/// transaction fails, each request is retried alone so one bad write cannot sink the others.
fn commit_batch(db: &Database, batch: Vec<(Op, Reply)>, durable: bool) {
    let size = batch.len();
    match apply_all(db, &batch, durable) {
        Ok(outcomes) => {
            tracing::trace!(size, durable, "group commit");
            for ((_, reply), outcome) in batch.into_iter().zip(outcomes) {
                // A caller that stopped waiting does not need the answer.
                let _ignored = reply.send(Ok(outcome));
            }
        }
        Err(e) if size == 1 => {
            tracing::error!(error = %e, "store write failed");
            for (_, reply) in batch {
                let _ignored = reply.send(Err(e.clone()));
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, size, "group commit failed; retrying each write alone");
            for (op, reply) in batch {
                let durable = op.durable();
                commit_batch(db, vec![(op, reply)], durable);
            }
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
    for (op, _) in batch {
        // On error the transaction is dropped, which aborts it: nothing of the batch is kept.
        outcomes.push(apply(&txn, op)?);
    }
    txn.commit().map_err(store_err)?;
    Ok(outcomes)
}

fn next_counter(txn: &WriteTransaction, key: &str) -> Result<u64, StoreError> {
    let mut meta = txn.open_table(META).map_err(store_err)?;
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
            Ok(Outcome::Done)
        }
        Op::DeleteSession { token_hash } => {
            let mut sessions = txn.open_table(SESSIONS).map_err(store_err)?;
            sessions.remove(token_hash.as_slice()).map_err(store_err)?;
            Ok(Outcome::Done)
        }
        Op::CommitGame(game) => commit_game(txn, game),
        Op::SaveRoom { id, state } => {
            // A room whose game is stored is over: a late save (racing the result) must not
            // bring it back at the next start.
            let games = txn.open_table(GAMES).map_err(store_err)?;
            if games.get(id.as_str()).map_err(store_err)?.is_some() {
                tracing::debug!(room = %id, "ignoring a save of a room whose game is stored");
                return Ok(Outcome::Done);
            }
            let mut rooms = txn.open_table(OPEN_ROOMS).map_err(store_err)?;
            rooms
                .insert(id.as_str(), state.as_slice())
                .map_err(store_err)?;
            Ok(Outcome::Done)
        }
        Op::DeleteRoom { id } => {
            let mut rooms = txn.open_table(OPEN_ROOMS).map_err(store_err)?;
            rooms.remove(id.as_str()).map_err(store_err)?;
            Ok(Outcome::Done)
        }
    }
}

/// P3: the game record, both ratings, points and W/D/L in the caller's one transaction, which
/// also forgets the saved open room of the same id (the room a game was played in has the
/// game's id).
fn commit_game(txn: &WriteTransaction, game: &FinishedGame) -> Result<Outcome, StoreError> {
    let mut games = txn.open_table(GAMES).map_err(store_err)?;
    if let Some(existing) = games.get(game.id.as_str()).map_err(store_err)? {
        // The same game sent twice (a retry) is answered with the updates of the first.
        let existing = decode_game(existing.value())?.into_stored();
        if existing.game == *game {
            return Ok(Outcome::Rated(existing.updates));
        }
        return Ok(Outcome::Refused(StoreError(format!(
            "a different game is already stored under id {:?}",
            game.id
        ))));
    }
    if game.moves.iter().any(|&c| c > 8) {
        return Ok(Outcome::Refused(StoreError(format!(
            "game {:?} has a move outside cells 0-8",
            game.id
        ))));
    }

    let mut users = txn.open_table(USERS).map_err(store_err)?;
    let mut updates = Vec::new();
    if game.rated {
        let (PlayerRef::User { id: x_id, .. }, PlayerRef::User { id: o_id, .. }) =
            (&game.x, &game.o)
        else {
            return Ok(Outcome::Refused(StoreError(format!(
                "rated game {:?} does not seat two registered players",
                game.id
            ))));
        };
        let (x_id, o_id) = (*x_id, *o_id);
        if x_id == o_id {
            return Ok(Outcome::Refused(StoreError(format!(
                "rated game {:?} seats user {x_id} twice",
                game.id
            ))));
        }
        let mut x_user = match users.get(x_id).map_err(store_err)? {
            Some(bytes) => decode_user(bytes.value())?,
            None => return Ok(Outcome::Refused(StoreError(format!("no user {x_id}")))),
        };
        let mut o_user = match users.get(o_id).map_err(store_err)? {
            Some(bytes) => decode_user(bytes.value())?,
            None => return Ok(Outcome::Refused(StoreError(format!("no user {o_id}")))),
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

    let seq = next_counter(txn, META_NEXT_GAME)?;
    let record = GameRecordV1::from_finished(seq, game, &updates);
    games
        .insert(
            game.id.as_str(),
            encode(&VersionedGame::V1(record))?.as_slice(),
        )
        .map_err(store_err)?;
    // The room the game was played in is no longer open: forgetting its saved state in the
    // same transaction means a crash can never restore a game whose result is stored.
    let mut rooms = txn.open_table(OPEN_ROOMS).map_err(store_err)?;
    rooms.remove(game.id.as_str()).map_err(store_err)?;
    let mut index = txn.open_table(USER_GAMES).map_err(store_err)?;
    let mut seated = Vec::new();
    for player in [&game.x, &game.o] {
        if let PlayerRef::User { id, .. } = player
            && !seated.contains(id)
        {
            seated.push(*id);
            index
                .insert((*id, seq), game.id.as_str())
                .map_err(store_err)?;
        }
    }
    Ok(Outcome::Rated(updates))
}
