//! Both games solved at build time (T1), embedded in the binary, the bot that plays from
//! them (T2–T5), and the puzzles mined from them (PZ1–PZ5).
//!
//! # Layout
//!
//! - [`index`]: dense numbering of positions and reduction by the board's symmetries.
//! - [`solve`]: the retrograde solver `build.rs` runs, and the stored form of a table.
//! - [`Table`] (this module): look-ups of value, distance and optimal moves.
//! - [`bot`]: Perfect, Win-Block-Random, difficulty and hints.
//! - [`mine`]: which positions are puzzles, their initial ratings, the packed form `build.rs`
//!   writes.
//! - [`puzzle`]: the embedded puzzles, their stable ids, and [`puzzle::Attempt`], an attempt
//!   as a pure state machine (PZ2).
//! - [`select`]: the puzzle of the day (PZ4), the streak (PZ5), the rating update (PZ3).
//!
//! ```
//! use engine::{Game, Position};
//! use tables::{Verdict, table};
//!
//! let xo = table(Game::Xo);
//! assert_eq!(xo.probe(&Position::start(Game::Xo))?, Verdict::Draw);
//! // X on 0 and 1, O on 4: O must block at 2, else X wins at once.
//! let p = Position::parse(Game::Xo, "X:0,1|O:4|T:O")?;
//! assert_eq!(xo.best_moves(&p)?, vec![2]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A puzzle attempt, as the server runs one:
//!
//! ```
//! use engine::Game;
//! use tables::puzzle::{Attempt, Step};
//! use tables::select;
//!
//! // The puzzle of 2026-12-04 (day 20,791 since 1970-01-01), the same for everybody.
//! let puzzle = select::daily(Game::Infinite, 20_791);
//! let mut attempt = Attempt::new(puzzle);
//! assert_eq!(attempt.distance(), None); // hidden until the attempt ends
//! // A wrong first move ends the attempt with the table's refutation.
//! let wrong = puzzle.position().legal_moves().find(|&c| c != puzzle.solution());
//! let wrong = wrong.expect("a puzzle has more than one legal move");
//! let Step::Wrong { verdict, refutation } = attempt.clone().play(wrong)? else {
//!     unreachable!("the first move has to be the only right one")
//! };
//! assert_ne!(verdict.name(), "win");
//! assert!(!refutation.is_empty());
//! // The right moves: the only winning first move, then (win puzzles) any fastest win.
//! let mut cell = puzzle.solution();
//! loop {
//!     match attempt.play(cell)? {
//!         Step::Right { reply: _ } => {
//!             let t = tables::table(Game::Infinite);
//!             cell = t.best_moves(&attempt.position())?[0];
//!         }
//!         Step::Solved => break,
//!         Step::Wrong { .. } => unreachable!("every move was right"),
//!     }
//! }
//! assert_eq!(attempt.distance(), Some(puzzle.distance()));
//! // Rated: the player (1200) against the puzzle's rating; the changes sum to zero.
//! let change = select::rate(1200, puzzle.rating(), true);
//! assert_eq!(change.player + change.puzzle, 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod bot;
pub mod index;
pub mod mine;
pub mod puzzle;
pub mod select;
pub mod solve;

/// Counts table look-ups on this thread, so tests can prove a strategy never uses the table.
#[cfg(test)]
pub(crate) mod probe_counter {
    use std::cell::Cell;

    thread_local! {
        static PROBES: Cell<u64> = const { Cell::new(0) };
    }

    pub(crate) fn count() {
        PROBES.with(|p| p.set(p.get() + 1));
    }

    pub(crate) fn probes() -> u64 {
        PROBES.with(|p| p.get())
    }
}

use std::sync::OnceLock;

use engine::{Cell, Game, Position};
use serde::Serialize;

use solve::Blob;
pub use solve::Verdict;

static XO_BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/xo.table"));
static INFINITE_BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/infinite.table"));

/// The position is not one the game can reach from its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unreachable;

impl core::fmt::Display for Unreachable {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("position is not reachable from the start")
    }
}

impl std::error::Error for Unreachable {}

/// Counts over every reachable position of one game (not only the canonical ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Stats {
    pub reachable: usize,
    pub terminal: usize,
    pub non_terminal: usize,
    pub win: usize,
    pub draw: usize,
    pub loss: usize,
    pub max_distance: u8,
    /// Canonical positions stored (one per class of symmetric positions).
    pub stored: usize,
    /// The embedded table's size in bytes.
    pub table_bytes: usize,
}

/// One game's solved table.
#[derive(Debug)]
pub struct Table {
    game: Game,
    /// The stored bit set as 64-bit words.
    words: Vec<u64>,
    /// `before[w]`: set bits in words `0..w`, so a look-up counts bits in one word only.
    before: Vec<u32>,
    entries: Vec<u8>,
    bytes: usize,
}

impl Table {
    fn decode(bytes: &'static [u8]) -> Table {
        let blob: Blob = postcard::from_bytes(bytes).expect("the embedded table decodes");
        let words: Vec<u64> = blob
            .bitmap
            .chunks(8)
            .map(|chunk| {
                let mut word = [0u8; 8];
                word[..chunk.len()].copy_from_slice(chunk);
                u64::from_le_bytes(word)
            })
            .collect();
        let mut before = Vec::with_capacity(words.len());
        let mut total = 0u32;
        for w in &words {
            before.push(total);
            total += w.count_ones();
        }
        assert_eq!(
            total as usize,
            blob.entries.len(),
            "one entry per stored position"
        );
        Table {
            game: blob.game,
            words,
            before,
            entries: blob.entries,
            bytes: bytes.len(),
        }
    }

    pub fn game(&self) -> Game {
        self.game
    }

    /// The entry byte of a canonical rank, if that rank is stored.
    fn entry_at(&self, rank: u32) -> Option<u8> {
        let (w, b) = ((rank / 64) as usize, rank % 64);
        let word = *self.words.get(w)?;
        if word & (1 << b) == 0 {
            return None;
        }
        let i = self.before[w] + (word & ((1u64 << b) - 1)).count_ones();
        Some(self.entries[i as usize])
    }

    /// The value and distance of `p` for the side to move.
    pub fn probe(&self, p: &Position) -> Result<Verdict, Unreachable> {
        if p.game() != self.game {
            return Err(Unreachable);
        }
        #[cfg(test)]
        probe_counter::count();
        let byte = self.entry_at(index::canonical_rank(p)).ok_or(Unreachable)?;
        Ok(Verdict::from_entry(byte))
    }

    /// What a move to `child` means for the player who made it: the child's verdict seen from
    /// the other side, with decided children resolved by the position itself.
    pub(crate) fn child_for_mover(&self, child: &Position) -> Result<Verdict, Unreachable> {
        Ok(self.probe(child)?.for_mover(child))
    }

    /// The optimal moves (T2), in cell order: every fastest win; else every move that keeps
    /// the draw; else every slowest loss. Empty for a decided position.
    pub fn best_moves(&self, p: &Position) -> Result<Vec<Cell>, Unreachable> {
        let verdict = self.probe(p)?;
        if verdict == Verdict::Over {
            return Ok(Vec::new());
        }
        let mut best = Vec::new();
        for cell in p.legal_moves() {
            let child = p.play(cell).expect("legal move");
            if self.child_for_mover(&child)? == verdict {
                best.push(cell);
            }
        }
        Ok(best)
    }

    /// Every stored (canonical) position with its verdict, in rank order.
    pub fn entries(&self) -> impl Iterator<Item = (Position, Verdict)> + '_ {
        self.words.iter().enumerate().flat_map(move |(w, &word)| {
            (0..64u32)
                .filter(move |b| word & (1 << b) != 0)
                .map(move |b| {
                    let rank = w as u32 * 64 + b;
                    let p =
                        index::unrank(self.game, rank).expect("stored ranks are legal positions");
                    let v = self.probe(&p).expect("stored position");
                    (p, v)
                })
        })
    }

    /// Counts over every reachable position, each canonical entry standing for its symmetric
    /// images.
    pub fn stats(&self) -> Stats {
        let mut s = Stats {
            table_bytes: self.bytes,
            ..Stats::default()
        };
        for (p, v) in self.entries() {
            let n = index::orbit_size(&p);
            s.stored += 1;
            s.reachable += n;
            match v {
                Verdict::Over => s.terminal += n,
                Verdict::Win(_) => s.win += n,
                Verdict::Draw => s.draw += n,
                Verdict::Loss(_) => s.loss += n,
            }
            s.max_distance = s.max_distance.max(v.distance().unwrap_or(0));
        }
        s.non_terminal = s.reachable - s.terminal;
        s
    }

    /// The embedded table's size in bytes.
    pub fn size_bytes(&self) -> usize {
        self.bytes
    }
}

impl mine::Probe for Table {
    fn game(&self) -> Game {
        self.game
    }

    fn verdict(&self, p: &Position) -> Verdict {
        self.probe(p).expect("only reachable positions are probed")
    }

    fn stored(&self) -> Vec<(u32, Verdict)> {
        self.words
            .iter()
            .enumerate()
            .flat_map(|(w, &word)| {
                (0..64u32)
                    .filter(move |b| word & (1 << b) != 0)
                    .map(move |b| w as u32 * 64 + b)
            })
            .map(|rank| {
                let byte = self.entry_at(rank).expect("a set bit has an entry");
                (rank, Verdict::from_entry(byte))
            })
            .collect()
    }
}

/// The solved table of `game`, decoded from the binary on first use.
pub fn table(game: Game) -> &'static Table {
    static XO: OnceLock<Table> = OnceLock::new();
    static INFINITE: OnceLock<Table> = OnceLock::new();
    match game {
        Game::Xo => XO.get_or_init(|| Table::decode(XO_BYTES)),
        Game::Infinite => INFINITE.get_or_init(|| Table::decode(INFINITE_BYTES)),
    }
}
