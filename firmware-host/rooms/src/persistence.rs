//! What rooms need from storage. `firmware-host` implements [`Persistence`] on its redb store:
//! writes are answered through a future the store's writer completes, reads block.

use engine::Cell;
use protocol::puzzle::PuzzleRatingChange;
use protocol::records::{FinishedGame, RatingUpdate, UserId};

/// A signed-in player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Account {
    pub id: UserId,
    pub name: String,
}

/// Who is on the other end of a connection, as the HTTP layer established it from cookies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The signed-in player, if any.
    pub account: Option<Account>,
    /// A random anonymous id kept in a cookie, so a guest can return to their own bot or
    /// local game. Signed-in players have one too.
    pub guest_id: String,
    /// An opaque id of the sign-in session (hex of the first 16 bytes of the session token's
    /// hash); `None` for guests. [`crate::Hub::end_session`] closes the connections opened
    /// with it.
    pub session: Option<String>,
    /// The browser's device token (the device cookie), `None` when it has none. A kick
    /// bans it from the room with the account and the guest id (M3.5).
    pub device: Option<String>,
    /// The client's network address, `None` when it has none (an in-process connection).
    /// Rated games are budgeted per address ([`crate::rated`]).
    pub address: Option<std::net::IpAddr>,
}

/// Why the store could not do what was asked, by cause (as redb's own `error.rs` does), so
/// that callers choose an answer from the kind of failure, never from a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// The card is full: nothing more can be written until space is freed.
    Full(String),
    /// Reading or writing the card failed (an I/O error, a read-only file system, or an earlier
    /// I/O error that the database keeps reporting until it is reopened).
    Io {
        kind: std::io::ErrorKind,
        message: String,
    },
    /// The database is being reopened after a failure; try again shortly.
    Reopening,
    /// The store has shut down (the server is stopping).
    Stopped,
    /// A record or the file itself is damaged.
    Corrupted(String),
    /// The file was written by a newer version with a layout this build cannot read.
    NewerSchema { found: u64, supported: u64 },
    /// The write was refused for what it holds (a malformed rated game, an id already used by
    /// another game, an unknown player); nothing was written.
    Refused(String),
    /// Anything else: a bug or a failure outside the card (hashing, starting a thread).
    Internal(String),
}

impl StoreError {
    /// The card cannot be written now (full, failing, read-only, reopening, shutting down):
    /// the request was fine and may succeed later. HTTP answers these with
    /// `503 storage_unavailable`.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            StoreError::Full(_)
                | StoreError::Io { .. }
                | StoreError::Reopening
                | StoreError::Stopped
        )
    }
}

impl core::fmt::Display for StoreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            StoreError::Full(m) => write!(f, "storage is full: {m}"),
            StoreError::Io { message, .. } => write!(f, "storage I/O error: {message}"),
            StoreError::Reopening => f.write_str("storage is reopening after a failure"),
            StoreError::Stopped => f.write_str("storage is shut down"),
            StoreError::Corrupted(m) => write!(f, "storage is damaged: {m}"),
            StoreError::NewerSchema { found, supported } => write!(
                f,
                "the database has schema version {found}; this build reads up to version {supported}"
            ),
            StoreError::Refused(m) => write!(f, "storage refused the write: {m}"),
            StoreError::Internal(m) => write!(f, "storage error: {m}"),
        }
    }
}

impl std::error::Error for StoreError {}

/// A signed-in player's ended puzzle attempt, for the store (PZ3, PZ5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PuzzleResult {
    pub user: UserId,
    /// The puzzle's id (`tables::puzzle::PuzzleId`'s value).
    pub puzzle: u32,
    /// The player's own moves; the replies and any refutation follow from the tables.
    pub played: Vec<Cell>,
    pub solved: bool,
    /// Not a retry: it may count. The store rates it only when it is also the player's first
    /// attempt at this puzzle, which the store alone knows for certain (two tabs may race).
    pub rated: bool,
    /// A streak's attempt: the streak's length after it (for the best streak).
    pub streak: Option<u32>,
    /// When it ended, in milliseconds since the Unix epoch.
    pub ended_ms: u64,
}

/// What the store made of an ended attempt (PZ3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PuzzleRecorded {
    /// Both ratings before and after, when it was rated.
    pub change: Option<PuzzleRatingChange>,
    /// The player's puzzle rating in that game now.
    pub rating: i32,
}

/// Ratings as an attempt starts (PZ3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PuzzleStanding {
    /// The player's puzzle rating in the puzzle's game (1200 for a guest or a first attempt).
    pub player: i32,
    /// The puzzle's rating now: its initial one until rated attempts moved it.
    pub puzzle: i32,
    /// The player ended an attempt at this puzzle before: this one is unrated.
    pub tried: bool,
}

/// The answer to a write: the store's writer sends it once the commit holding the write is
/// done, so no thread waits for the disk on the caller's behalf.
pub type StoreFuture<T> =
    core::pin::Pin<Box<dyn core::future::Future<Output = Result<T, StoreError>> + Send>>;

/// Storage as rooms see it. Writes return a [`StoreFuture`]; reads block (redb reads are
/// short), so rooms call them on `spawn_blocking`.
pub trait Persistence: Send + Sync + 'static {
    /// Stores a finished game durably. When it is rated, the same write transaction also
    /// updates both players' ratings, points and win/draw/loss counts on that game's ladder
    /// (P3), and the updates are returned in X, O order. Unrated games return no updates; a
    /// game without a registered player is not written at all. Rooms call it from one place,
    /// `results`, which keeps and retries a result the card cannot take yet.
    fn commit_game(&self, game: &FinishedGame) -> StoreFuture<Vec<RatingUpdate>>;

    /// The current rating of each user on `game`'s ladder (E1: 1200 before any rated game).
    fn ratings_blocking(
        &self,
        game: engine::Game,
        users: &[UserId],
    ) -> Result<Vec<i32>, StoreError>;

    /// The same ratings from memory, without blocking, when the store holds them there;
    /// `None` sends the caller to [`Persistence::ratings_blocking`].
    fn ratings_in_memory(&self, _game: engine::Game, _users: &[UserId]) -> Option<Vec<i32>> {
        None
    }

    /// Saves the state of an open (waiting or active) room, replacing any earlier save. The
    /// bytes are the rooms crate's own versioned encoding. May be a non-durable commit; the
    /// store makes it durable within about a second.
    fn save_room(&self, room_id: &str, state: Vec<u8>) -> StoreFuture<()>;

    /// Forgets a room that closed or finished.
    fn delete_room(&self, room_id: &str) -> StoreFuture<()>;

    /// Every saved open room, for restoring after a restart.
    fn load_rooms_blocking(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError>;

    /// Whether a new room may not take `room_id` because a stored game uses it (or a game id
    /// derived from it), so that a new room never clashes with an old game.
    fn room_id_taken_blocking(&self, room_id: &str) -> Result<bool, StoreError>;

    /// PZ3: stores a signed-in player's ended puzzle attempt durably. When `result.rated` and
    /// it is the player's first attempt at that puzzle, the same transaction moves the
    /// player's and the puzzle's ratings, and the change is answered.
    fn record_puzzle(&self, _result: &PuzzleResult) -> StoreFuture<PuzzleRecorded> {
        Box::pin(core::future::ready(Ok(PuzzleRecorded {
            change: None,
            rating: engine::INITIAL_RATING,
        })))
    }

    /// PZ3: the ratings as an attempt at `puzzle` starts: `user`'s (`None`, a guest: 1200)
    /// and the puzzle's, and whether `user` tried it before.
    fn puzzle_standing_blocking(
        &self,
        _user: Option<UserId>,
        puzzle: u32,
    ) -> Result<PuzzleStanding, StoreError> {
        let initial = tables::puzzle::puzzle(tables::puzzle::PuzzleId(puzzle))
            .map_or(engine::INITIAL_RATING, tables::puzzle::Puzzle::rating);
        Ok(PuzzleStanding {
            player: engine::INITIAL_RATING,
            puzzle: initial,
            tried: false,
        })
    }

    /// PZ4: the counts of `day`'s daily solves (XO, Infinite XO), kept so that a restart does
    /// not start them again at 0. May be a non-durable commit, as a room's save.
    fn save_daily_solves(&self, _day: u32, _counts: [u32; 2]) -> StoreFuture<()> {
        Box::pin(core::future::ready(Ok(())))
    }

    /// The stored counts of `day`'s daily solves, `[0, 0]` when none.
    fn daily_solves_blocking(&self, _day: u32) -> Result<[u32; 2], StoreError> {
        Ok([0, 0])
    }
}
