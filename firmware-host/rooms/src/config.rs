//! [`HubConfig`]: the hub's limits and timings.

use std::time::Duration;

use crate::room::PasscodeLimits;

/// The default of [`HubConfig::rated_games_per_address`].
pub const RATED_GAMES_PER_ADDRESS: usize = 120;
/// Rooms open at once on the whole server by default ([`HubConfig::max_rooms`]).
pub const MAX_ROOMS: u32 = 2000;

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
    /// A rated XO player's time for a move before the game is forfeited (M3.7); rooms
    /// created from now on use it.
    pub xo_move_limit: Duration,
    /// Undecodable frames in a row before the connection is closed.
    pub max_bad_frames: u32,
    /// A room nobody views closes after this long (finished rooms, abandoned bot and local
    /// games, waiting rooms); online games in progress run until their clocks end them.
    pub idle_room_close: Duration,
    /// A bot or local game nobody views ends after this long (an abandoned game must
    /// not stay "Playing" in the lobby); long enough for a page reload to come back to it.
    pub unviewed_game_close: Duration,
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
    /// Rated games one client address may start within an hour ([`crate::rated`]); 0 means
    /// no limit. Rated games are kept for ever, so this bounds what one address can make the
    /// card keep. Two a minute for a whole hour is more than people play.
    pub rated_games_per_address: usize,
}

impl Default for HubConfig {
    fn default() -> Self {
        HubConfig {
            max_frame_bytes: protocol::MAX_FRAME_BYTES,
            max_messages_per_s: 20,
            burst: 40,
            xo_move_limit: Duration::from_millis(u64::from(crate::settings::XO_FORFEIT_MS)),
            max_bad_frames: 10,
            idle_room_close: Duration::from_secs(30 * 60),
            unviewed_game_close: Duration::from_secs(60),
            outbox_capacity: 256,
            hello_timeout: Duration::from_secs(10),
            send_timeout: Duration::from_secs(10),
            passcode_attempts: 5,
            passcode_attempts_per_room: 50,
            passcode_window: Duration::from_secs(5 * 60),
            rooms_per_host_soft: 20,
            max_rooms_per_host: 50,
            max_rooms: MAX_ROOMS as usize,
            rated_games_per_address: RATED_GAMES_PER_ADDRESS,
        }
    }
}

impl HubConfig {
    /// The wrong-passcode limits every room applies (M3.3).
    pub fn passcode_limits(&self) -> PasscodeLimits {
        PasscodeLimits {
            per_player: self.passcode_attempts,
            per_room: self.passcode_attempts_per_room,
            window_ms: u64::try_from(self.passcode_window.as_millis()).unwrap_or(u64::MAX),
        }
    }
}
