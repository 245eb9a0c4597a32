//! Positions of both games and the moves between them (G1, G2).

use core::fmt;

use serde::{Deserialize, Serialize};

/// A cell index, 0–8 row-major, 0 top left.
pub type Cell = u8;

/// The eight winning lines: three rows, three columns, two diagonals.
pub const LINES: [[Cell; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

/// Spoken names of the cells (SPEC "Games"), for labels and announcements.
pub const CELL_NAMES: [&str; 9] = [
    "top left",
    "top centre",
    "top right",
    "middle left",
    "centre",
    "middle right",
    "bottom left",
    "bottom centre",
    "bottom right",
];

/// Which game a position belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Game {
    /// G1: classic tic-tac-toe.
    Xo,
    /// G2: each player keeps three marks; the oldest vanishes when a fourth is placed.
    Infinite,
}

impl Game {
    /// Both games, in a fixed order.
    pub const ALL: [Game; 2] = [Game::Xo, Game::Infinite];

    /// The most marks one side can hold on the board.
    pub const fn max_marks(self) -> usize {
        match self {
            Game::Xo => 5,
            Game::Infinite => 3,
        }
    }

    /// The short name used on the command line and in URLs: `xo` or `infinite`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Game::Xo => "xo",
            Game::Infinite => "infinite",
        }
    }
}

impl fmt::Display for Game {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl core::str::FromStr for Game {
    type Err = UnknownGame;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "xo" => Ok(Game::Xo),
            "infinite" | "infinite_xo" | "infinite-xo" => Ok(Game::Infinite),
            _ => Err(UnknownGame),
        }
    }
}

/// A game name that is neither `xo` nor `infinite`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownGame;

impl fmt::Display for UnknownGame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown game: expected `xo` or `infinite`")
    }
}

impl std::error::Error for UnknownGame {}

/// A player's mark.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Mark {
    X,
    O,
}

impl Mark {
    /// The other mark.
    pub const fn other(self) -> Mark {
        match self {
            Mark::X => Mark::O,
            Mark::O => Mark::X,
        }
    }

    /// `'X'` or `'O'`.
    pub const fn as_char(self) -> char {
        match self {
            Mark::X => 'X',
            Mark::O => 'O',
        }
    }
}

impl fmt::Display for Mark {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.as_char())
    }
}

/// One side's marks, oldest first. In XO the order carries no meaning and is kept sorted,
/// so that equal boards are equal positions.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Marks {
    cells: [Cell; 5],
    len: u8,
}

impl Marks {
    const EMPTY: Marks = Marks {
        cells: [0; 5],
        len: 0,
    };

    /// The cells, oldest first.
    pub fn as_slice(&self) -> &[Cell] {
        &self.cells[..usize::from(self.len)]
    }

    /// How many marks.
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// No marks at all.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The cells as a bit set (bit `c` for cell `c`).
    pub fn mask(&self) -> u16 {
        self.as_slice().iter().fold(0, |m, &c| m | 1 << c)
    }

    fn push(&mut self, cell: Cell) {
        self.cells[usize::from(self.len)] = cell;
        self.len += 1;
    }

    fn remove_oldest(&mut self) -> Cell {
        let oldest = self.cells[0];
        self.cells.copy_within(1..usize::from(self.len), 0);
        self.len -= 1;
        self.cells[usize::from(self.len)] = 0;
        oldest
    }

    fn sort(&mut self) {
        self.cells[..usize::from(self.len)].sort_unstable();
    }

    fn from_slice(cells: &[Cell]) -> Marks {
        let mut m = Marks::EMPTY;
        for &c in cells {
            m.push(c);
        }
        m
    }
}

impl fmt::Debug for Marks {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

/// The first winning line fully covered by `mask`, if any.
pub fn line_in(mask: u16) -> Option<[Cell; 3]> {
    LINES
        .iter()
        .copied()
        .find(|line| line.iter().all(|&c| mask & (1 << c) != 0))
}

/// What a position says about the game, regardless of history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Status {
    /// The side to move has at least one legal move.
    Ongoing,
    /// `winner` completed `line` with the last move (R-XO-2, R-INF-3).
    Won { winner: Mark, line: [Cell; 3] },
    /// XO only: the board is full and nobody has a line (R-XO-2).
    Full,
}

impl Status {
    /// The game is decided by the position itself.
    pub fn is_over(self) -> bool {
        !matches!(self, Status::Ongoing)
    }
}

/// Why a move was refused. The position it was tried on is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IllegalMove {
    /// Cells are 0–8.
    NoSuchCell(u8),
    /// The cell holds a mark, the mover's own oldest included (R-INF-1).
    Occupied(Cell),
    /// The position is already decided.
    GameOver,
}

impl fmt::Display for IllegalMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalMove::NoSuchCell(c) => write!(f, "there is no cell {c}: cells are 0 to 8"),
            IllegalMove::Occupied(c) => {
                write!(f, "cell {c} ({}) is not empty", CELL_NAMES[usize::from(*c)])
            }
            IllegalMove::GameOver => f.write_str("the game is over"),
        }
    }
}

impl std::error::Error for IllegalMove {}

/// A position of either game: each side's marks oldest first, and the side to move (R-INF-4).
///
/// Only legal positions can be built: through [`Position::start`], [`Position::play`], or the
/// checked constructor [`Position::from_setup`].
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Position {
    game: Game,
    x: Marks,
    o: Marks,
    turn: Mark,
}

impl Position {
    /// The empty board with X to move.
    pub const fn start(game: Game) -> Position {
        Position {
            game,
            x: Marks::EMPTY,
            o: Marks::EMPTY,
            turn: Mark::X,
        }
    }

    pub fn game(&self) -> Game {
        self.game
    }

    /// The side to move.
    pub fn turn(&self) -> Mark {
        self.turn
    }

    /// One side's marks, oldest first (sorted in XO).
    pub fn marks(&self, mark: Mark) -> &Marks {
        match mark {
            Mark::X => &self.x,
            Mark::O => &self.o,
        }
    }

    /// The mark on a cell, if any.
    pub fn cell(&self, cell: Cell) -> Option<Mark> {
        if self.x.mask() & (1 << cell) != 0 {
            Some(Mark::X)
        } else if self.o.mask() & (1 << cell) != 0 {
            Some(Mark::O)
        } else {
            None
        }
    }

    /// The board as nine cells.
    pub fn board(&self) -> [Option<Mark>; 9] {
        core::array::from_fn(|c| self.cell(c as Cell))
    }

    /// Bit set of occupied cells.
    pub fn occupied(&self) -> u16 {
        self.x.mask() | self.o.mask()
    }

    /// How many plies were played to reach this position in XO; in Infinite XO the marks on
    /// the board (the count stops growing at six).
    pub fn mark_count(&self) -> usize {
        self.x.len() + self.o.len()
    }

    /// R-INF-5: in Infinite XO, when the side to move holds three marks, its oldest mark is the
    /// one that vanishes when it plays.
    pub fn glowing(&self) -> Option<Cell> {
        let own = self.marks(self.turn);
        (self.game == Game::Infinite && own.len() == 3).then(|| own.as_slice()[0])
    }

    /// What the position says about the game (R-XO-2, R-INF-3). Only the side that moved last
    /// can hold a line.
    pub fn status(&self) -> Status {
        let last = self.turn.other();
        if let Some(line) = line_in(self.marks(last).mask()) {
            return Status::Won { winner: last, line };
        }
        if self.game == Game::Xo && self.occupied() == 0x1ff {
            return Status::Full;
        }
        Status::Ongoing
    }

    /// Legal moves as a bit set: every empty cell while the game is not decided (R-XO-1, R-INF-1).
    pub fn legal_mask(&self) -> u16 {
        if self.status().is_over() {
            0
        } else {
            !self.occupied() & 0x1ff
        }
    }

    /// Legal moves in increasing cell order.
    pub fn legal_moves(&self) -> impl Iterator<Item = Cell> + use<> {
        cells_of(self.legal_mask())
    }

    /// Plays `cell` for the side to move (R-XO-1/2, R-INF-1/2/3). The position itself is not
    /// changed; an illegal move returns why.
    pub fn play(&self, cell: Cell) -> Result<Position, IllegalMove> {
        if cell > 8 {
            return Err(IllegalMove::NoSuchCell(cell));
        }
        if self.status().is_over() {
            return Err(IllegalMove::GameOver);
        }
        if self.occupied() & (1 << cell) != 0 {
            return Err(IllegalMove::Occupied(cell));
        }
        let mut next = *self;
        next.place(self.turn, cell);
        next.turn = self.turn.other();
        Ok(next)
    }

    /// Places `mark` on `cell` with the removal rule, whoever is to move. Caller checks legality.
    fn place(&mut self, mark: Mark, cell: Cell) {
        let game = self.game;
        let own = match mark {
            Mark::X => &mut self.x,
            Mark::O => &mut self.o,
        };
        own.push(cell);
        match game {
            Game::Xo => own.sort(),
            Game::Infinite => {
                if own.len() > 3 {
                    own.remove_oldest();
                }
            }
        }
    }

    /// Whether `mark` would complete a line by playing `cell` now, were it that side's turn
    /// (R-INF-3 applied: the oldest mark is removed first). Used by the bot's Win and Block (T3).
    pub fn wins_by_playing(&self, mark: Mark, cell: Cell) -> bool {
        if cell > 8 || self.occupied() & (1 << cell) != 0 {
            return false;
        }
        let mut next = *self;
        next.place(mark, cell);
        line_in(next.marks(mark).mask()).is_some()
    }

    /// The position with every cell moved by board symmetry `sym` (0–7, 0 is the identity).
    /// Both games' rules are unchanged by the eight symmetries of the square.
    pub fn transformed(&self, sym: usize) -> Position {
        let map = &SYMMETRIES[sym];
        let apply = |m: &Marks| {
            let mut t = Marks::EMPTY;
            for &c in m.as_slice() {
                t.push(map[usize::from(c)]);
            }
            if self.game == Game::Xo {
                t.sort();
            }
            t
        };
        Position {
            game: self.game,
            x: apply(&self.x),
            o: apply(&self.o),
            turn: self.turn,
        }
    }

    /// Checked constructor from untrusted cells (STYLE: parse, then validate).
    pub fn from_setup(setup: &Setup) -> Result<Position, SetupError> {
        setup.validate()
    }

    /// The unchecked description of this position.
    pub fn to_setup(&self) -> Setup {
        Setup {
            game: self.game,
            x: self.x.as_slice().to_vec(),
            o: self.o.as_slice().to_vec(),
            turn: self.turn,
        }
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({self})", self.game)
    }
}

/// Iterates the cells of a bit set in increasing order.
pub fn cells_of(mask: u16) -> impl Iterator<Item = Cell> + Clone {
    (0..9u8).filter(move |c| mask & (1 << c) != 0)
}

/// The eight symmetries of the square as cell maps: `SYMMETRIES[s][c]` is where cell `c` goes.
pub const SYMMETRIES: [[Cell; 9]; 8] = [
    [0, 1, 2, 3, 4, 5, 6, 7, 8], // identity
    [2, 5, 8, 1, 4, 7, 0, 3, 6], // rotate 90° anticlockwise
    [8, 7, 6, 5, 4, 3, 2, 1, 0], // rotate 180°
    [6, 3, 0, 7, 4, 1, 8, 5, 2], // rotate 90° clockwise
    [2, 1, 0, 5, 4, 3, 8, 7, 6], // mirror left-right
    [6, 7, 8, 3, 4, 5, 0, 1, 2], // mirror top-bottom
    [0, 3, 6, 1, 4, 7, 2, 5, 8], // main diagonal
    [8, 5, 2, 7, 4, 1, 6, 3, 0], // anti-diagonal
];

/// An unchecked description of a position, as parsed from notation or received from a client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Setup {
    pub game: Game,
    /// X's cells, oldest first.
    pub x: Vec<u8>,
    /// O's cells, oldest first.
    pub o: Vec<u8>,
    pub turn: Mark,
}

/// Why a [`Setup`] is not a position that can occur.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupError {
    /// Cells are 0–8.
    NoSuchCell(u8),
    /// The same cell is listed twice.
    Overlap(Cell),
    /// One side holds more marks than the game allows.
    TooManyMarks { mark: Mark, count: usize },
    /// The mark counts cannot occur with this side to move.
    WrongTurn { x: usize, o: usize, turn: Mark },
    /// Both sides hold a line, or the side to move does: play would have stopped earlier.
    AlreadyDecided,
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::NoSuchCell(c) => write!(f, "there is no cell {c}: cells are 0 to 8"),
            SetupError::Overlap(c) => write!(f, "cell {c} is listed more than once"),
            SetupError::TooManyMarks { mark, count } => {
                write!(f, "{mark} has {count} marks, more than the game allows")
            }
            SetupError::WrongTurn { x, o, turn } => write!(
                f,
                "X has {x} and O has {o} marks, which cannot happen with {turn} to move"
            ),
            SetupError::AlreadyDecided => f.write_str(
                "the game would have ended before this position: the side to move, or both \
                 sides, hold a line",
            ),
        }
    }
}

impl std::error::Error for SetupError {}

impl Setup {
    fn validate(&self) -> Result<Position, SetupError> {
        let mut seen = 0u16;
        for &c in self.x.iter().chain(&self.o) {
            if c > 8 {
                return Err(SetupError::NoSuchCell(c));
            }
            if seen & (1 << c) != 0 {
                return Err(SetupError::Overlap(c));
            }
            seen |= 1 << c;
        }
        let max = self.game.max_marks();
        for (mark, cells) in [(Mark::X, &self.x), (Mark::O, &self.o)] {
            let limit = if mark == Mark::O && self.game == Game::Xo {
                4
            } else {
                max
            };
            if cells.len() > limit {
                return Err(SetupError::TooManyMarks {
                    mark,
                    count: cells.len(),
                });
            }
        }
        let (nx, no) = (self.x.len(), self.o.len());
        // X moves first, so after any number of plies X holds as many marks as O (X to move)
        // or one more (O to move); in Infinite XO both stop at three, which allows 3–3 with O
        // to move once X has played its fourth mark.
        let counts_ok = match self.turn {
            Mark::X => nx == no,
            Mark::O => nx == no + 1 || (self.game == Game::Infinite && nx == 3 && no == 3),
        };
        if !counts_ok {
            return Err(SetupError::WrongTurn {
                x: nx,
                o: no,
                turn: self.turn,
            });
        }
        let position = Position {
            game: self.game,
            x: Marks::from_slice(&self.x),
            o: Marks::from_slice(&self.o),
            turn: self.turn,
        };
        let mut position = position;
        if self.game == Game::Xo {
            position.x.sort();
            position.o.sort();
        }
        if line_in(position.marks(self.turn).mask()).is_some() {
            return Err(SetupError::AlreadyDecided);
        }
        if self.game == Game::Xo {
            // The line must have been completed by the last move: some cell of the mover's
            // marks must be such that without it there is no line.
            let last = position.marks(self.turn.other());
            let mask = last.mask();
            if line_in(mask).is_some()
                && !cells_of(mask).any(|c| line_in(mask & !(1 << c)).is_none())
            {
                return Err(SetupError::AlreadyDecided);
            }
        }
        Ok(position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn play_all(game: Game, cells: &[Cell]) -> Position {
        cells.iter().fold(Position::start(game), |p, &c| {
            p.play(c).expect("legal move in test line")
        })
    }

    #[test]
    fn r_xo_1_x_moves_first_and_players_alternate() {
        let p = Position::start(Game::Xo);
        assert_eq!(p.turn(), Mark::X);
        let p = p.play(4).unwrap();
        assert_eq!(p.turn(), Mark::O);
        assert_eq!(p.cell(4), Some(Mark::X));
        assert_eq!(p.play(0).unwrap().turn(), Mark::X);
    }

    #[test]
    fn r_xo_1_occupied_cell_is_not_a_move() {
        let p = play_all(Game::Xo, &[4]);
        assert_eq!(p.play(4), Err(IllegalMove::Occupied(4)));
        assert_eq!(p.play(9), Err(IllegalMove::NoSuchCell(9)));
    }

    #[test]
    fn r_xo_2_line_wins_at_once() {
        // X: 4, 0, 8 diagonal; O: 1, 2.
        let p = play_all(Game::Xo, &[4, 1, 0, 2, 8]);
        assert_eq!(
            p.status(),
            Status::Won {
                winner: Mark::X,
                line: [0, 4, 8]
            }
        );
        assert_eq!(p.legal_mask(), 0);
        assert_eq!(p.play(3), Err(IllegalMove::GameOver));
    }

    #[test]
    fn r_xo_2_win_on_ninth_move_is_a_win_not_a_draw() {
        // X holds 0, 1, 5, 6 and fills the board with 2, completing the top row.
        let p = play_all(Game::Xo, &[0, 3, 1, 4, 5, 7, 6, 8, 2]);
        assert_eq!(p.occupied(), 0x1ff);
        assert!(matches!(
            p.status(),
            Status::Won {
                winner: Mark::X,
                ..
            }
        ));
    }

    #[test]
    fn r_xo_2_full_board_without_line_is_a_draw() {
        let p = play_all(Game::Xo, &[0, 1, 2, 4, 3, 5, 7, 6, 8]);
        assert_eq!(p.status(), Status::Full);
        assert_eq!(p.legal_moves().count(), 0);
    }

    #[test]
    fn r_inf_2_oldest_mark_removed_when_fourth_placed() {
        let p = play_all(Game::Infinite, &[0, 4, 1, 8, 5, 3]);
        assert_eq!(p.marks(Mark::X).as_slice(), &[0, 1, 5]);
        let p = p.play(7).unwrap();
        assert_eq!(p.marks(Mark::X).as_slice(), &[1, 5, 7]);
        assert_eq!(p.cell(0), None);
    }

    #[test]
    fn r_inf_1_own_oldest_mark_cell_is_not_empty() {
        let p = play_all(Game::Infinite, &[0, 4, 1, 8, 5, 3]);
        assert_eq!(p.glowing(), Some(0));
        assert_eq!(p.play(0), Err(IllegalMove::Occupied(0)));
    }

    #[test]
    fn r_inf_3_oldest_mark_removed_before_win_check() {
        // X holds 0, 1, 4 (oldest 0); playing 2 removes 0 first: 1, 4, 2 is no line.
        let p = play_all(Game::Infinite, &[0, 3, 1, 5, 4, 8]);
        assert_eq!(p.marks(Mark::X).as_slice(), &[0, 1, 4]);
        let next = p.play(2).unwrap();
        assert_eq!(next.status(), Status::Ongoing);
        assert!(!p.wins_by_playing(Mark::X, 2));
        // Playing 7 removes 0 and leaves 1, 4, 7: a column.
        let next = p.play(7).unwrap();
        assert_eq!(
            next.status(),
            Status::Won {
                winner: Mark::X,
                line: [1, 4, 7]
            }
        );
        assert!(p.wins_by_playing(Mark::X, 7));
    }

    #[test]
    fn r_inf_5_glowing_mark_is_oldest_of_side_to_move_with_three() {
        let p = play_all(Game::Infinite, &[0, 4, 1, 8]);
        assert_eq!(p.glowing(), None);
        let p = play_all(Game::Infinite, &[0, 4, 1, 8, 6]);
        assert_eq!(p.turn(), Mark::O);
        assert_eq!(p.glowing(), None, "O holds only two marks");
        let p = p.play(3).unwrap();
        assert_eq!(p.glowing(), Some(0));
        assert_eq!(play_all(Game::Xo, &[0, 4, 1, 8, 6, 3]).glowing(), None);
    }

    #[test]
    fn symmetries_are_permutations_mapping_lines_to_lines() {
        for map in SYMMETRIES {
            let mut seen = 0u16;
            for c in map {
                seen |= 1 << c;
            }
            assert_eq!(seen, 0x1ff);
            for line in LINES {
                let mask = line.iter().fold(0u16, |m, &c| m | 1 << map[usize::from(c)]);
                assert!(line_in(mask).is_some());
            }
        }
    }
}
