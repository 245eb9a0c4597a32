//! A game with its full history: repetition counting (R-INF-4), undo (M1.3) and the position
//! after every ply for replay (U10).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde::{Deserialize, Serialize};

use crate::position::{Cell, Game, IllegalMove, Mark, Position, Status};

/// How the rules ended a game. Endings decided by people or clocks (resignation, agreement,
/// timeout) belong to the room, not to the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum RuleEnd {
    /// R-XO-2, R-INF-3: `winner` completed `line`.
    Line { winner: Mark, line: [Cell; 3] },
    /// R-XO-2: a full board with no line.
    FullBoard,
    /// R-INF-4: the same position occurred a third time.
    Repetition,
}

/// What happened when a move was played.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Played {
    /// The position after the move.
    pub position: Position,
    /// How many times that position has now occurred, this time included.
    pub occurrences: u8,
    /// R-INF-4: the position occurred for the second time; one more occurrence draws.
    pub repetition_warning: bool,
    /// The game ended with this move.
    pub end: Option<RuleEnd>,
}

/// Why an undo was refused; the record is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UndoTooFar {
    pub requested: usize,
    pub available: usize,
}

impl core::fmt::Display for UndoTooFar {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "cannot take back {} plies: only {} were played",
            self.requested, self.available
        )
    }
}

impl std::error::Error for UndoTooFar {}

/// A game from the start position with every move, the position after each, and how often
/// each position has occurred.
///
/// ```
/// use engine::{Game, GameRecord};
/// let mut game = GameRecord::new(Game::Infinite);
/// for cell in [0, 4, 1, 8] {
///     game.play(cell)?;
/// }
/// assert_eq!(game.position().to_string(), "X:0,1|O:4,8|T:X");
/// game.undo(2)?;
/// assert_eq!(game.position().to_string(), "X:0|O:4|T:X");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameRecord {
    moves: Vec<Cell>,
    /// `positions[0]` is the start; `positions[i]` follows `moves[i - 1]`.
    positions: Vec<Position>,
    occurrences: Occurrences,
    end: Option<RuleEnd>,
}

/// How often each position of a game occurred (R-INF-4).
type Occurrences = HashMap<Position, u8, BuildHasherDefault<PositionHasher>>;

/// Room for the positions of a usual game at once (an XO game has at most ten).
const USUAL_POSITIONS: usize = 16;

/// A multiply-rotate hasher (FxHash's step) for [`Occurrences`]: a few thousand positions of one
/// game at most, none of them an outsider's choice to collide, so SipHash's protection buys
/// nothing here and cost the server about 1 % of a move (a record is read at every
/// snapshot).
#[derive(Debug, Default, Clone, Copy)]
struct PositionHasher(u64);

impl PositionHasher {
    fn add(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Hasher for PositionHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(u64::from(b));
        }
    }

    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    fn write_u16(&mut self, n: u16) {
        self.add(u64::from(n));
    }

    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

impl GameRecord {
    /// A new game at the start position.
    pub fn new(game: Game) -> GameRecord {
        GameRecord::starting_at(Position::start(game))
    }

    /// A game that begins at `start` instead of the empty board, e.g. a puzzle: repetition is
    /// counted from `start` (which occurs once), and a decided `start` is already ended.
    pub fn starting_at(start: Position) -> GameRecord {
        GameRecord {
            moves: Vec::new(),
            positions: vec![start],
            occurrences: {
                let mut seen =
                    Occurrences::with_capacity_and_hasher(USUAL_POSITIONS, Default::default());
                seen.insert(start, 1);
                seen
            },
            end: match start.status() {
                Status::Won { winner, line } => Some(RuleEnd::Line { winner, line }),
                Status::Full => Some(RuleEnd::FullBoard),
                Status::Ongoing => None,
            },
        }
    }

    /// Replays `moves` from the start, e.g. to restore a stored game.
    pub fn from_moves(game: Game, moves: &[Cell]) -> Result<GameRecord, (usize, IllegalMove)> {
        let mut record = GameRecord::new(game);
        for (i, &cell) in moves.iter().enumerate() {
            record.play(cell).map_err(|e| (i, e))?;
        }
        Ok(record)
    }

    pub fn game(&self) -> Game {
        self.position().game()
    }

    /// The current position.
    pub fn position(&self) -> Position {
        *self
            .positions
            .last()
            .expect("a record always holds its start position")
    }

    /// Every move played, in order.
    pub fn moves(&self) -> &[Cell] {
        &self.moves
    }

    /// The start position followed by the position after every ply (U10).
    pub fn positions(&self) -> &[Position] {
        &self.positions
    }

    /// How the rules ended the game, if they did.
    pub fn end(&self) -> Option<RuleEnd> {
        self.end
    }

    /// How many times `position` has occurred so far.
    pub fn occurrences(&self, position: &Position) -> u8 {
        self.occurrences.get(position).copied().unwrap_or(0)
    }

    /// R-INF-4: the current position has occurred twice, so one more occurrence draws.
    pub fn repetition_warning(&self) -> bool {
        self.end.is_none() && self.occurrences(&self.position()) == 2
    }

    /// Plays a move for the side to move. A refused move leaves the record unchanged.
    pub fn play(&mut self, cell: Cell) -> Result<Played, IllegalMove> {
        if self.end.is_some() {
            return Err(IllegalMove::GameOver);
        }
        let position = self.position().play(cell)?;
        let count = self.occurrences.entry(position).or_insert(0);
        *count += 1;
        let occurrences = *count;
        self.moves.push(cell);
        self.positions.push(position);
        self.end = match position.status() {
            Status::Won { winner, line } => Some(RuleEnd::Line { winner, line }),
            Status::Full => Some(RuleEnd::FullBoard),
            Status::Ongoing if occurrences >= 3 => Some(RuleEnd::Repetition),
            Status::Ongoing => None,
        };
        Ok(Played {
            position,
            occurrences,
            repetition_warning: occurrences == 2 && self.end.is_none(),
            end: self.end,
        })
    }

    /// Takes back the last `plies` moves, rolling the repetition counts back with them (M1.3).
    pub fn undo(&mut self, plies: usize) -> Result<(), UndoTooFar> {
        if plies > self.moves.len() {
            return Err(UndoTooFar {
                requested: plies,
                available: self.moves.len(),
            });
        }
        for _ in 0..plies {
            let position = self.positions.pop().expect("one position per move");
            self.moves.pop();
            let count = self
                .occurrences
                .get_mut(&position)
                .expect("every played position is counted");
            *count -= 1;
            if *count == 0 {
                self.occurrences.remove(&position);
            }
        }
        // Taking back any ply returns to a position where play was still going on.
        if plies > 0 {
            self.end = None;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// X holds 0, 1, 5 and O holds 2, 3, 7 with X to move; no three of X's {0, 1, 5, 6} or O's
    /// {2, 3, 7, 8} make a line, so each side can rotate its marks through its fourth cell.
    const OPENING: [Cell; 6] = [0, 2, 1, 3, 5, 7];
    /// Eight plies that return to the position after [`OPENING`].
    const CYCLE: [Cell; 8] = [6, 8, 0, 2, 1, 3, 5, 7];

    fn cycling_game() -> GameRecord {
        GameRecord::from_moves(Game::Infinite, &OPENING).unwrap()
    }

    #[test]
    fn r_inf_4_start_position_is_counted() {
        let g = GameRecord::new(Game::Infinite);
        assert_eq!(g.occurrences(&Position::start(Game::Infinite)), 1);
    }

    #[test]
    fn r_inf_4_second_occurrence_warns_third_draws() {
        let mut g = cycling_game();
        let p = g.position();
        assert_eq!(g.occurrences(&p), 1);
        let mut reports = Vec::new();
        for &c in &CYCLE {
            reports.push(g.play(c).unwrap());
        }
        assert_eq!(g.position(), p);
        let last = reports.last().unwrap();
        assert_eq!(last.occurrences, 2);
        assert!(last.repetition_warning);
        assert!(g.repetition_warning());
        assert!(
            reports[..7]
                .iter()
                .all(|r| !r.repetition_warning && r.end.is_none())
        );
        for (i, &c) in CYCLE.iter().enumerate() {
            let r = g.play(c).unwrap();
            // Every position of the cycle now occurs for the second time.
            if i < 7 {
                assert!(r.repetition_warning, "ply {i}");
                assert_eq!(r.end, None);
            } else {
                assert_eq!(r.occurrences, 3);
                assert_eq!(r.end, Some(RuleEnd::Repetition));
                assert!(!r.repetition_warning);
            }
        }
        assert_eq!(g.play(4), Err(IllegalMove::GameOver));
    }

    #[test]
    fn m1_3_undo_rolls_back_repetition_counts() {
        let mut g = cycling_game();
        let before = g.clone();
        for &c in CYCLE.iter().chain(&CYCLE) {
            g.play(c).unwrap();
        }
        assert_eq!(g.end(), Some(RuleEnd::Repetition));
        g.undo(9).unwrap();
        assert_eq!(g.occurrences(&g.position()), 1);
        assert_eq!(g.end(), None);
        g.undo(7).unwrap();
        assert_eq!(g, before);
    }

    #[test]
    fn undo_too_far_is_refused_and_changes_nothing() {
        let mut g = cycling_game();
        let before = g.clone();
        assert_eq!(
            g.undo(7),
            Err(UndoTooFar {
                requested: 7,
                available: 6
            })
        );
        assert_eq!(g, before);
    }

    #[test]
    fn undo_reopens_a_finished_game() {
        let mut g = GameRecord::from_moves(Game::Xo, &[4, 1, 0, 2, 8]).unwrap();
        assert!(matches!(
            g.end(),
            Some(RuleEnd::Line {
                winner: Mark::X,
                ..
            })
        ));
        g.undo(1).unwrap();
        assert_eq!(g.end(), None);
        assert!(g.play(8).is_ok());
    }

    #[test]
    fn a_record_starting_at_a_position_counts_repetition_from_there() {
        let start = cycling_game().position();
        let mut g = GameRecord::starting_at(start);
        assert_eq!(g.occurrences(&start), 1);
        assert_eq!(g.positions(), &[start]);
        for &c in &CYCLE {
            g.play(c).unwrap();
        }
        assert!(g.repetition_warning());
        assert_eq!(g.occurrences(&start), 2);
        let won = GameRecord::from_moves(Game::Xo, &[4, 1, 0, 2, 8]).unwrap();
        assert_eq!(GameRecord::starting_at(won.position()).end(), won.end());
    }

    #[test]
    fn u10_positions_after_every_ply_keep_vanished_marks() {
        let g = GameRecord::from_moves(Game::Infinite, &[0, 4, 1, 8, 5, 3, 7]).unwrap();
        assert_eq!(g.positions().len(), 8);
        assert_eq!(g.positions()[6].cell(0), Some(Mark::X));
        assert_eq!(g.positions()[7].cell(0), None);
    }
}
