//! What rooms need from storage. `firmware-host` implements [`Persistence`] on its redb store;
//! every method blocks (redb is blocking), so rooms call them on `spawn_blocking`.

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
    /// The browser's device token (issue 11.2's device cookie), `None` when it has none. A kick
    /// bans it from the room with the account and the guest id (M3.5).
    pub device: Option<String>,
}

/// A storage failure, with a message for the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoreError(pub String);

impl core::fmt::Display for StoreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "storage error: {}", self.0)
    }
}

impl std::error::Error for StoreError {}

/// Storage as rooms see it.
pub trait Persistence: Send + Sync + 'static {
    /// Stores a finished game durably. When it is rated, the same write transaction also
    /// updates both players' ratings, points and win/draw/loss counts on that game's ladder
    /// (P3), and the updates are returned in X, O order. Unrated games return no updates.
    fn commit_game_blocking(&self, game: &FinishedGame) -> Result<Vec<RatingUpdate>, StoreError>;

    /// The current rating of each user on `game`'s ladder (E1: 1200 before any rated game).
    fn ratings_blocking(
        &self,
        game: engine::Game,
        users: &[UserId],
    ) -> Result<Vec<i32>, StoreError>;

    /// Saves the state of an open (waiting or active) room, replacing any earlier save. The
    /// bytes are the rooms crate's own versioned encoding. May be a non-durable commit that the
    /// next durable one makes permanent.
    fn save_room_blocking(&self, room_id: &str, state: &[u8]) -> Result<(), StoreError>;

    /// Forgets a room that closed or finished.
    fn delete_room_blocking(&self, room_id: &str) -> Result<(), StoreError>;

    /// Every saved open room, for restoring after a restart.
    fn load_rooms_blocking(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError>;
}
