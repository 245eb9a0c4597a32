//! Finished games and rating updates: what the store keeps and the HTTP API serves.

use engine::{Cell, Game, Mark};
use serde::{Deserialize, Serialize};

/// A registered player's id in the store.
pub type UserId = u64;

/// Who sat in a seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlayerRef {
    /// A registered player.
    User { id: UserId, name: String },
    /// A guest, by the name shown in the room.
    Guest { name: String },
    /// The bot at a difficulty of 0–100 (T4).
    Bot { difficulty: u8 },
    /// One of the two names of a local game (M2.1).
    Local { name: String },
}

/// How a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GameEnd {
    /// A line was completed (R-XO-2, R-INF-3).
    Line { winner: Mark, line: [Cell; 3] },
    /// XO: a full board with no line.
    FullBoard,
    /// Infinite XO: a position occurred a third time (R-INF-4).
    Repetition,
    /// A draw offer was accepted (M3.8).
    Agreed,
    /// `loser` resigned or left an active game (M3.9).
    Resigned { loser: Mark },
    /// XO: `loser` did not move within two minutes (M3.7).
    Timeout { loser: Mark },
}

impl From<engine::RuleEnd> for GameEnd {
    fn from(end: engine::RuleEnd) -> GameEnd {
        match end {
            engine::RuleEnd::Line { winner, line } => GameEnd::Line { winner, line },
            engine::RuleEnd::FullBoard => GameEnd::FullBoard,
            engine::RuleEnd::Repetition => GameEnd::Repetition,
        }
    }
}

impl GameEnd {
    /// The winning mark, or `None` for a draw.
    pub fn winner(self) -> Option<Mark> {
        match self {
            GameEnd::Line { winner, .. } => Some(winner),
            GameEnd::Resigned { loser } | GameEnd::Timeout { loser } => Some(loser.other()),
            GameEnd::FullBoard | GameEnd::Repetition | GameEnd::Agreed => None,
        }
    }
}

/// A finished game with every move, for replay (U10) and the profile (E5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinishedGame {
    /// The id of the room it was played in; also the game's id.
    pub id: String,
    pub game: Game,
    /// Only online games between two registered players are rated (E2).
    pub rated: bool,
    pub x: PlayerRef,
    pub o: PlayerRef,
    /// Every move in order, cells 0–8 (automatic moves included).
    pub moves: Vec<Cell>,
    pub end: GameEnd,
    /// Milliseconds since the Unix epoch.
    pub started_at_ms: u64,
    pub ended_at_ms: u64,
}

/// One player's rating change from one rated game (E3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingUpdate {
    pub user: UserId,
    pub mark: Mark,
    pub before: i32,
    pub after: i32,
}

impl RatingUpdate {
    pub fn change(&self) -> i32 {
        self.after - self.before
    }
}
