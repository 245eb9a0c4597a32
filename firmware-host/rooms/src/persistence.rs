//! What rooms need from storage. `firmware-host` implements [`Persistence`] on its redb store:
//! writes are answered through a future the store's writer completes, reads block.

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
}
