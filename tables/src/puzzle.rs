//! The embedded puzzles (PZ1) and an attempt at one (PZ2), as a pure state machine.
//!
//! `build.rs` mines the puzzles from the solved tables ([`crate::mine`] says which positions
//! qualify and how they are rated); this module decodes them on first use and plays attempts.
//!
//! # Ids
//!
//! A [`PuzzleId`] is made of the game, the kind and the canonical rank of the position
//! ([`crate::index`]): never of the list's order. It stays the same across builds for as long
//! as the index numbering does (the table's stored form depends on that numbering too), so the
//! server may store attempts and puzzle ratings by id. Its text form is
//! `<game>-<kind>-<rank>`, e.g. `infinite-win-48213`.
//!
//! # The position shown
//!
//! A puzzle is shown as its canonical position (the representative of its symmetry class with
//! the smallest rank); cells are numbered on that board. In Infinite XO the position includes
//! each side's marks oldest first. Repetition (R-INF-4) counts from the puzzle's start: the
//! start occurs once.
//!
//! # An attempt
//!
//! [`Attempt::play`] takes the player's move and answers a [`Step`]:
//!
//! - The first move must be the puzzle's only right move. At the player's later turns (win
//!   puzzles) any move that keeps the fastest win is right: the win's distance must drop by
//!   exactly one ply.
//! - A right move that completes the win (or, in a hold puzzle, the one holding move) is
//!   [`Step::Solved`]. Otherwise the opponent answers at once with the table's best defence:
//!   the slowest loss, ties broken by the lowest cell number, the same for everyone.
//! - Any other move ends the attempt with [`Step::Wrong`]: the move's verdict for the player and
//!   the table's refutation played out from there until the game ends. In the refutation both
//!   sides play the table's optimal moves (the fastest win, else a move that keeps the draw,
//!   else the slowest loss), ties again broken by the lowest cell; a drawn line runs until the
//!   position repeats a third time (counting from the puzzle's start) or, in XO, the board fills.
//!
//! The distance of the puzzle ([`Attempt::distance`]) is revealed only once the attempt is over.

use std::fmt;
use std::sync::OnceLock;

use engine::{Cell, Game, GameRecord, IllegalMove, Mark, Position, RuleEnd};
use serde::{Deserialize, Serialize};

use crate::mine::{self, Probe};
pub use crate::mine::{Features, Kind};
use crate::{Table, Verdict, index, table};

static XO_PUZZLES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/xo.puzzles"));
static INFINITE_PUZZLES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/infinite.puzzles"));

/// The embedded puzzles of `game` in their packed form.
pub fn packed(game: Game) -> &'static [u8] {
    match game {
        Game::Xo => XO_PUZZLES,
        Game::Infinite => INFINITE_PUZZLES,
    }
}

/// A puzzle's stable id: game, kind and the canonical rank of its position (see the module
/// docs). Serialised as its `u32` value: bit 31 the game (0 XO, 1 Infinite XO), bit 30 the kind
/// (0 win, 1 hold), the low bits the rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PuzzleId(pub u32);

const GAME_BIT: u32 = 1 << 31;
const HOLD_BIT: u32 = 1 << 30;

impl PuzzleId {
    pub fn new(game: Game, kind: Kind, rank: u32) -> PuzzleId {
        let game = match game {
            Game::Xo => 0,
            Game::Infinite => GAME_BIT,
        };
        let kind = match kind {
            Kind::Win => 0,
            Kind::Hold => HOLD_BIT,
        };
        PuzzleId(game | kind | rank)
    }

    pub fn game(self) -> Game {
        if self.0 & GAME_BIT == 0 {
            Game::Xo
        } else {
            Game::Infinite
        }
    }

    pub fn kind(self) -> Kind {
        if self.0 & HOLD_BIT == 0 {
            Kind::Win
        } else {
            Kind::Hold
        }
    }

    /// The canonical rank of the puzzle's position.
    pub fn rank(self) -> u32 {
        self.0 & !(GAME_BIT | HOLD_BIT)
    }
}

impl fmt::Display for PuzzleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}-{}-{}",
            self.game().as_str(),
            self.kind().as_str(),
            self.rank()
        )
    }
}

/// Text that names no embedded puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownPuzzle(pub String);

impl fmt::Display for UnknownPuzzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "no puzzle `{}`", self.0)
    }
}

impl std::error::Error for UnknownPuzzle {}

impl std::str::FromStr for PuzzleId {
    type Err = UnknownPuzzle;

    /// Reads `<game>-<kind>-<rank>`; succeeds only for an embedded puzzle.
    fn from_str(s: &str) -> Result<PuzzleId, UnknownPuzzle> {
        let unknown = || UnknownPuzzle(s.to_owned());
        let mut parts = s.splitn(3, '-');
        let game: Game = parts
            .next()
            .and_then(|g| g.parse().ok())
            .ok_or_else(unknown)?;
        let kind = match parts.next() {
            Some("win") => Kind::Win,
            Some("hold") => Kind::Hold,
            _ => return Err(unknown()),
        };
        let rank: u32 = parts
            .next()
            .and_then(|r| r.parse().ok())
            .ok_or_else(unknown)?;
        let id = PuzzleId::new(game, kind, rank);
        if rank >= 1 << mine::RANK_BITS || puzzle(id).is_none() {
            return Err(unknown());
        }
        Ok(id)
    }
}

/// One embedded puzzle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Puzzle {
    id: PuzzleId,
    position: Position,
    rating: i32,
    features: Features,
}

impl Puzzle {
    pub fn id(&self) -> PuzzleId {
        self.id
    }

    pub fn game(&self) -> Game {
        self.id.game()
    }

    pub fn kind(&self) -> Kind {
        self.id.kind()
    }

    /// The position to solve (canonical; see the module docs).
    pub fn position(&self) -> Position {
        self.position
    }

    /// The side the solver plays.
    pub fn to_move(&self) -> Mark {
        self.position.turn()
    }

    /// The initial rating, from the puzzle's features (the formula in [`crate::mine`]).
    pub fn rating(&self) -> i32 {
        self.rating
    }

    /// The only right first move. Not for the player's eyes before the attempt ends.
    pub fn solution(&self) -> Cell {
        self.features.solution
    }

    /// Win puzzles: the plies to the win. Hold puzzles: the slowest loss among the wrong first
    /// moves. Reveal it only after the attempt ([`Attempt::distance`]).
    pub fn distance(&self) -> u8 {
        self.features.depth
    }

    /// What made the rating.
    pub fn features(&self) -> &Features {
        &self.features
    }
}

/// Every puzzle of `game`, decoded once, sorted by id: the packed form is sorted by kind then
/// rank, which is id order within a game.
fn decode(game: Game) -> Vec<Puzzle> {
    let t = table(game);
    let puzzles: Vec<Puzzle> = mine::from_bytes(packed(game))
        .map(|(rank, kind, rating)| {
            let position = index::unrank(game, rank).expect("an embedded puzzle is a position");
            let features = mine::analyse(t, &position)
                .expect("an embedded puzzle is a puzzle of the embedded table");
            Puzzle {
                id: PuzzleId::new(game, kind, rank),
                position,
                rating,
                features,
            }
        })
        .collect();
    assert!(
        puzzles.windows(2).all(|w| w[0].id < w[1].id),
        "the packed puzzles are in id order"
    );
    puzzles
}

/// Every embedded puzzle of `game`, sorted by id.
pub fn puzzles(game: Game) -> &'static [Puzzle] {
    static XO: OnceLock<Vec<Puzzle>> = OnceLock::new();
    static INFINITE: OnceLock<Vec<Puzzle>> = OnceLock::new();
    match game {
        Game::Xo => XO.get_or_init(|| decode(Game::Xo)),
        Game::Infinite => INFINITE.get_or_init(|| decode(Game::Infinite)),
    }
}

/// The embedded puzzle with this id, if there is one.
pub fn puzzle(id: PuzzleId) -> Option<&'static Puzzle> {
    let all = puzzles(id.game());
    all.binary_search_by_key(&id, |p| p.id)
        .ok()
        .map(|i| &all[i])
}

/// The table's move for the side to move in a line played out by the table: the fastest win,
/// else a move that keeps the draw, else the slowest loss; the lowest cell among equals.
/// `None` when the position is decided.
pub fn table_move(t: &Table, p: &Position) -> Option<Cell> {
    t.best_moves(p)
        .expect("puzzle lines stay in the table")
        .first()
        .copied()
}

/// The longest refutation line played out.
pub const MAX_LINE: usize = 256;

/// What one move of an attempt led to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// The move was right and the puzzle goes on: the opponent answered with `reply`, and it
    /// is the player's turn again.
    Right { reply: Cell },
    /// The move was right and completes the puzzle.
    Solved,
    /// The move was wrong; the attempt is over. `verdict` is the table's verdict of the move for
    /// the player; `refutation` the moves that follow it (the opponent's first), played out to
    /// the end of the game.
    Wrong {
        verdict: Verdict,
        refutation: Vec<Cell>,
    },
}

/// How an attempt ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Solved,
    /// The player's `ply`-th own move (0 the first) was wrong.
    Failed {
        ply: usize,
        cell: Cell,
        verdict: Verdict,
        refutation: Vec<Cell>,
    },
}

impl Outcome {
    /// The score for the rating update (PZ3).
    pub fn solved(&self) -> bool {
        matches!(self, Outcome::Solved)
    }
}

/// An attempt at one puzzle (PZ2). Pure: the caller feeds moves and shows the steps.
///
/// It serialises as the puzzle id and the player's own moves only; deserialising replays them,
/// so a stored attempt can never hold a state the rules would not reach.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "AttemptRecord", try_from = "AttemptRecord")]
pub struct Attempt {
    puzzle: &'static Puzzle,
    /// Every ply since the puzzle's start: the player's moves, the replies, and after a wrong
    /// move the refutation.
    record: GameRecordEq,
    /// The player's own moves.
    played: Vec<Cell>,
    outcome: Option<Outcome>,
}

/// [`GameRecord`] compared by its moves (it has no serde; the attempt stores moves instead).
#[derive(Debug, Clone)]
struct GameRecordEq(GameRecord);

impl PartialEq for GameRecordEq {
    fn eq(&self, other: &Self) -> bool {
        self.0.positions()[0] == other.0.positions()[0] && self.0.moves() == other.0.moves()
    }
}

impl Eq for GameRecordEq {}

/// The stored form of an [`Attempt`]: which puzzle, and the player's own moves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttemptRecord {
    pub puzzle: PuzzleId,
    pub played: Vec<Cell>,
}

/// Why an [`AttemptRecord`] could not be resumed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResumeError {
    UnknownPuzzle(PuzzleId),
    /// The `n`-th stored move was illegal, or came after the attempt had ended.
    Illegal {
        n: usize,
        error: IllegalMove,
    },
}

impl fmt::Display for ResumeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResumeError::UnknownPuzzle(id) => write!(f, "no puzzle {id}"),
            ResumeError::Illegal { n, error } => write!(f, "stored move {n}: {error}"),
        }
    }
}

impl std::error::Error for ResumeError {}

impl From<Attempt> for AttemptRecord {
    fn from(a: Attempt) -> AttemptRecord {
        AttemptRecord {
            puzzle: a.puzzle.id,
            played: a.played,
        }
    }
}

impl TryFrom<AttemptRecord> for Attempt {
    type Error = ResumeError;

    fn try_from(r: AttemptRecord) -> Result<Attempt, ResumeError> {
        Attempt::resume(&r)
    }
}

impl Attempt {
    /// A fresh attempt at `puzzle`.
    pub fn new(puzzle: &'static Puzzle) -> Attempt {
        Attempt {
            puzzle,
            record: GameRecordEq(GameRecord::starting_at(puzzle.position)),
            played: Vec::new(),
            outcome: None,
        }
    }

    /// Replays a stored attempt.
    pub fn resume(r: &AttemptRecord) -> Result<Attempt, ResumeError> {
        let puzzle = puzzle(r.puzzle).ok_or(ResumeError::UnknownPuzzle(r.puzzle))?;
        let mut a = Attempt::new(puzzle);
        for (n, &cell) in r.played.iter().enumerate() {
            a.play(cell)
                .map_err(|error| ResumeError::Illegal { n, error })?;
        }
        Ok(a)
    }

    /// The stored form (the same as serde writes).
    pub fn to_record(&self) -> AttemptRecord {
        AttemptRecord {
            puzzle: self.puzzle.id,
            played: self.played.clone(),
        }
    }

    pub fn puzzle(&self) -> &'static Puzzle {
        self.puzzle
    }

    /// The position on the board now (after a wrong move: at the end of the refutation).
    pub fn position(&self) -> Position {
        self.record.0.position()
    }

    /// The puzzle's moves so far, from its start: the player's, the replies and any refutation.
    pub fn record(&self) -> &GameRecord {
        &self.record.0
    }

    /// The player's own moves.
    pub fn played(&self) -> &[Cell] {
        &self.played
    }

    /// How the attempt ended, once it has.
    pub fn outcome(&self) -> Option<&Outcome> {
        self.outcome.as_ref()
    }

    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// The puzzle's distance ([`Puzzle::distance`]), revealed once the attempt is over.
    pub fn distance(&self) -> Option<u8> {
        self.outcome.as_ref().map(|_| self.puzzle.distance())
    }

    /// Plays the player's move. An illegal move (occupied, no such cell, or the attempt is
    /// over: [`IllegalMove::GameOver`]) changes nothing.
    pub fn play(&mut self, cell: Cell) -> Result<Step, IllegalMove> {
        if self.outcome.is_some() {
            return Err(IllegalMove::GameOver);
        }
        let t = table(self.puzzle.game());
        let before = self.position();
        let child = before.play(cell)?;
        let verdict = t.verdict(&child).for_mover(&child);
        let right = match self.puzzle.kind() {
            Kind::Win => {
                let Verdict::Win(now) = t.verdict(&before) else {
                    unreachable!("between the player's moves a win puzzle stays won")
                };
                verdict == Verdict::Win(now)
                    && (!self.played.is_empty() || cell == self.puzzle.solution())
            }
            Kind::Hold => cell == self.puzzle.solution(),
        };
        let ply = self.played.len();
        self.played.push(cell);
        let played = self.record.0.play(cell).expect("checked legal above");
        if !right {
            let refutation = self.play_out(t);
            self.outcome = Some(Outcome::Failed {
                ply,
                cell,
                verdict,
                refutation: refutation.clone(),
            });
            return Ok(Step::Wrong {
                verdict,
                refutation,
            });
        }
        if played.end.is_some() || self.puzzle.kind() == Kind::Hold {
            self.outcome = Some(Outcome::Solved);
            return Ok(Step::Solved);
        }
        let reply = table_move(t, &played.position).expect("a losing side has a move");
        let answered = self
            .record
            .0
            .play(reply)
            .expect("the table's move is legal");
        debug_assert!(
            answered.end.is_none(),
            "the slowest loss never ends the game"
        );
        Ok(Step::Right { reply })
    }

    /// Plays the table's line from the current position until the game ends; returns its
    /// moves. A drawn line in Infinite XO ends by repetition, since the table's choice depends
    /// on the position alone; every other line shortens its distance each ply. The bound only
    /// guards against a broken table: a test plays every refutation and finds none near it.
    fn play_out(&mut self, t: &Table) -> Vec<Cell> {
        let mut line = Vec::new();
        for _ in 0..MAX_LINE {
            if self.record.0.end().is_some() {
                break;
            }
            let cell = table_move(t, &self.position()).expect("an open position has a move");
            self.record.0.play(cell).expect("the table's move is legal");
            line.push(cell);
        }
        line
    }

    /// R-INF-4: the position on the board has occurred twice since the puzzle's start.
    pub fn repetition_warning(&self) -> bool {
        self.record.0.repetition_warning()
    }

    /// How the rules ended the game on the board, if they did.
    pub fn end(&self) -> Option<RuleEnd> {
        self.record.0.end()
    }
}
