//! The records as stored: this module's own types, postcard-encoded and wrapped in a version
//! enum (the variant index is the version), so that a change of the wire types cannot change
//! what is on disk. The records a write carries ([`super::op::Op`]) are here too, below the
//! nouns that store them, so that the write vocabulary names no noun.

use engine::{Cell, Game, Mark, Score};
use protocol::records::{FinishedGame, GameEnd, PlayerRef, RatingUpdate, UserId};
use rooms::StoreError;
use serde::{Deserialize, Serialize};

pub use rooms::event::{EventGame, SavedArena};

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

    pub(super) fn record(&mut self, score: Score, change: i32) {
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

    pub(super) fn ladder_mut(&mut self, game: Game) -> &mut LadderStats {
        match game {
            Game::Xo => &mut self.xo,
            Game::Infinite => &mut self.infinite,
        }
    }
}

#[derive(Serialize, Deserialize)]
pub(super) enum VersionedUser {
    V1(UserRecord),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct SessionRecord {
    pub(super) user: UserId,
    pub(super) created_ms: u64,
    pub(super) expires_ms: u64,
}

#[derive(Serialize, Deserialize)]
pub(super) enum VersionedSession {
    V1(SessionRecord),
}

/// A seat of a stored game (mirrors `PlayerRef`, whose JSON tagging postcard cannot decode).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum StoredPlayer {
    User { id: UserId, name: String },
    Guest { name: String },
    Bot { difficulty: u8 },
    Local { name: String },
}

/// How a stored game ended (mirrors `GameEnd`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(super) enum StoredEnd {
    Line { winner: Mark, line: [Cell; 3] },
    FullBoard,
    Repetition,
    Agreed,
    Resigned { loser: Mark },
    Timeout { loser: Mark },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct GameRecordV1 {
    pub(super) seq: u64,
    pub(super) id: String,
    pub(super) game: Game,
    pub(super) rated: bool,
    pub(super) x: StoredPlayer,
    pub(super) o: StoredPlayer,
    pub(super) moves: Vec<Cell>,
    pub(super) end: StoredEnd,
    pub(super) started_at_ms: u64,
    pub(super) ended_at_ms: u64,
    /// (user, mark, before, after), X first.
    pub(super) updates: Vec<(UserId, Mark, i32, i32)>,
}

#[derive(Serialize, Deserialize)]
pub(super) enum VersionedGame {
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

pub(super) fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, StoreError> {
    postcard::to_extend(value, Vec::with_capacity(RECORD_CAPACITY))
        .map_err(|e| StoreError::Internal(format!("encoding a record: {e}")))
}

/// Room for a record's postcard at once (a user's, with its password hash, and a game's are
/// each under this): `postcard::to_allocvec` starts with an empty buffer and reallocates it at
/// 8, 16, 32, 64 and 128 bytes, for every record a result writes.
const RECORD_CAPACITY: usize = 256;

pub(super) fn decode<'a, T: Deserialize<'a>>(bytes: &'a [u8], what: &str) -> Result<T, StoreError> {
    postcard::from_bytes(bytes)
        .map_err(|e| StoreError::Corrupted(format!("decoding a {what} record: {e}")))
}

pub(super) fn decode_user(bytes: &[u8]) -> Result<UserRecord, StoreError> {
    match decode(bytes, "user")? {
        VersionedUser::V1(user) => Ok(user),
    }
}

pub(super) fn decode_game(bytes: &[u8]) -> Result<GameRecordV1, StoreError> {
    match decode(bytes, "game")? {
        VersionedGame::V1(game) => Ok(game),
    }
}

pub(super) fn u64_from_meta(bytes: &[u8]) -> Result<u64, StoreError> {
    let array: [u8; 8] = bytes
        .try_into()
        .map_err(|_| StoreError::Corrupted("a meta counter is not 8 bytes".into()))?;
    Ok(u64::from_le_bytes(array))
}

pub(super) fn to_stored_player(p: &PlayerRef) -> StoredPlayer {
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

pub(super) fn from_stored_player(p: StoredPlayer) -> PlayerRef {
    match p {
        StoredPlayer::User { id, name } => PlayerRef::User { id, name },
        StoredPlayer::Guest { name } => PlayerRef::Guest { name },
        StoredPlayer::Bot { difficulty } => PlayerRef::Bot { difficulty },
        StoredPlayer::Local { name } => PlayerRef::Local { name },
    }
}

pub(super) fn to_stored_end(e: GameEnd) -> StoredEnd {
    match e {
        GameEnd::Line { winner, line } => StoredEnd::Line { winner, line },
        GameEnd::FullBoard => StoredEnd::FullBoard,
        GameEnd::Repetition => StoredEnd::Repetition,
        GameEnd::Agreed => StoredEnd::Agreed,
        GameEnd::Resigned { loser } => StoredEnd::Resigned { loser },
        GameEnd::Timeout { loser } => StoredEnd::Timeout { loser },
    }
}

pub(super) fn from_stored_end(e: StoredEnd) -> GameEnd {
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
    pub(super) fn from_finished(seq: u64, g: &FinishedGame, updates: &[RatingUpdate]) -> Self {
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

    pub(super) fn into_stored(self) -> StoredGame {
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

/// A language of the interface, as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StoredLanguage {
    En,
    Ar,
}

/// The guests' Wi-Fi network, as stored: no password means an open network.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoredWifi {
    pub ssid: String,
    pub password: Option<String>,
}

/// An owner's saved settings (`settings`); every value was validated before it was stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SettingsRecord {
    pub kiosk_idle_s: u64,
    /// `None`: automatic (the LAN IP address).
    pub public_url: Option<String>,
    pub default_language: StoredLanguage,
    pub wifi: Option<StoredWifi>,
    /// The screen's sleep settings, stored in a row of their own (`settings`), so that the
    /// record above keeps the bytes every earlier release reads. `None`: saved by a release
    /// without them (the flags' apply).
    #[serde(skip)]
    pub screen: Option<ScreenRecord>,
}

/// The screen's sleep settings (AP3), as stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScreenRecord {
    /// Sleep hours as minutes after midnight, `(from, until)`; `None`: none.
    pub sleep: Option<(u16, u16)>,
    /// Seconds without a touch before the screen sleeps; 0: never.
    pub off_idle_s: u64,
}

/// A live password reset code (`reset_codes`), as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResetCodeRecord {
    /// SHA-256 of the code.
    pub hash: [u8; 32],
    pub expires_ms: u64,
    /// Wrong guesses made against it so far.
    pub wrong: u32,
}

/// What a guess at a reset code found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResetGuess {
    /// The code was right and is now spent (give it back if the reset fails).
    Redeemed(ResetCodeRecord),
    /// No live code for the account, or a wrong guess (counted; `spent` when it was the last
    /// one allowed).
    Wrong { spent: bool },
}

/// An event as stored (EV1, EV7): its id, when it was created, and the arena's saved state
/// (its settings, phase, entrants and games in progress). Its finished games are stored apart,
/// each with its result (`events`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRecord {
    pub id: String,
    pub created_ms: u64,
    pub saved: SavedArena,
}
