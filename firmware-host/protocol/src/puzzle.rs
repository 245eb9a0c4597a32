//! Puzzles (PZ2, PZ4, PZ5): what a client asks (`puzzle_start`, `puzzle_move`,
//! `puzzle_retry`) and the attempt it is shown after each, [`PuzzleView`].
//!
//! An attempt belongs to the connection that started it; the server plays the defence and
//! judges every move (P2). The view never holds the solution, and holds the puzzle's distance
//! only once the attempt is over.

use engine::{Cell, Game, Mark};
use serde::{Deserialize, Serialize};

/// The server's id of one attempt, unique on the server while it runs.
pub type AttemptId = u32;

/// Which puzzle `puzzle_start` asks for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PuzzleSource {
    /// The puzzle of the day of `game` (PZ4), from the server's UTC date.
    Daily { game: Game },
    /// A streak of `game` (PZ5): step 0 starts a new streak; step `n` continues this
    /// connection's streak once its puzzle `n - 1` is solved.
    Streak {
        game: Game,
        #[serde(default)]
        step: u32,
    },
    /// A puzzle of `game` the server picks, near this connection's level.
    Next { game: Game },
    /// The puzzle with this id, e.g. `infinite-win-48213`.
    ById { puzzle: String },
}

/// What a puzzle asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PuzzleKind {
    /// The side to move wins, and exactly one first move wins.
    Win,
    /// Infinite XO: exactly one move avoids losing.
    Hold,
}

/// Where an attempt came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PuzzleOrigin {
    /// The puzzle of day `day` (days since 1970-01-01, UTC).
    Daily { day: u32 },
    /// Step `step` (0 the first) of this connection's streak.
    Streak { step: u32 },
    /// Picked by the server (`next`).
    Next,
    /// Asked for by id, or a retry of a streak or `next` attempt.
    ById,
}

/// Where an attempt stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptStatus {
    /// The player is to move.
    Playing,
    Solved,
    /// A wrong move ended it.
    Failed,
}

/// A board: each side's marks oldest first, the side to move, and the mark that vanishes when
/// it plays (R-INF-5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PuzzleBoard {
    pub x: Vec<Cell>,
    pub o: Vec<Cell>,
    pub turn: Mark,
    pub glowing: Option<Cell>,
}

/// The tables' verdict of a move for the player who made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveVerdict {
    /// Wins in this many plies (counting the move) under best play.
    Win(u8),
    Draw,
    /// Loses in this many plies (counting the move) under best play.
    Loss(u8),
}

/// What the player's last move led to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PuzzleStep {
    /// Right; the defence answered `reply` and the player is to move again.
    Right { cell: Cell, reply: Cell },
    /// Right, and the puzzle is solved.
    Solved { cell: Cell },
    /// Wrong: the move's verdict, and the tables' refutation played out from it (the
    /// opponent's move first) to the end of the game.
    Wrong {
        cell: Cell,
        verdict: MoveVerdict,
        refutation: Vec<Cell>,
    },
}

/// This connection's streak, on the attempts that belong to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreakView {
    pub game: Game,
    /// The step of this attempt (0 the first).
    pub step: u32,
    /// Puzzles solved in this streak so far: its length once over.
    pub solved: u32,
    /// The streak ended: a wrong move, or its last puzzle solved.
    pub over: bool,
}

/// A rating before and after one rated attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingMove {
    pub before: i32,
    pub after: i32,
}

/// What a rated attempt changed (PZ3): the player's puzzle rating in the attempt's game and
/// the puzzle's own rating, as one Elo game the player wins by solving (K = 32).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PuzzleRatingChange {
    pub player: RatingMove,
    pub puzzle: RatingMove,
}

/// One attempt as its player sees it: sent whole after every change, like a room snapshot.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PuzzleView {
    pub attempt: AttemptId,
    /// The puzzle's id, e.g. `infinite-win-48213`.
    pub puzzle: String,
    pub game: Game,
    pub kind: PuzzleKind,
    pub origin: PuzzleOrigin,
    /// The player's mark: the side to move at the start.
    pub you: Mark,
    /// The puzzle's rating when the attempt started (puzzle ratings move with rated attempts).
    pub rating: i32,
    /// The position to solve.
    pub start: PuzzleBoard,
    /// The board now: after a wrong move, at the end of the refutation.
    pub board: PuzzleBoard,
    /// Every ply since the start: the player's moves, the replies, any refutation.
    pub moves: Vec<Cell>,
    /// R-INF-4, counted from the puzzle's start: the board's position occurred twice.
    pub repetition_warning: bool,
    pub status: AttemptStatus,
    /// What the last move led to; `null` before the first.
    pub last: Option<PuzzleStep>,
    /// Plies to the win (hold puzzles: the slowest loss a wrong move allows), once over.
    pub distance: Option<u8>,
    /// Whether the attempt counts for the player's puzzle rating (PZ3): a signed-in player's
    /// first attempt at this puzzle. Guests, retries and later attempts are unrated.
    pub rated: bool,
    /// A signed-in player's puzzle rating in this game: before the attempt, and after it once a
    /// rated attempt is over. `None` for guests.
    #[serde(default)]
    pub player_rating: Option<i32>,
    /// A rated attempt, once over and stored: both ratings before and after.
    #[serde(default)]
    pub rating_change: Option<PuzzleRatingChange>,
    pub streak: Option<StreakView>,
    /// Daily attempts: how many solved that day's puzzle of this game so far.
    pub solved_today: Option<u32>,
}
