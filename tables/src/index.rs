//! Dense indexing of positions and reduction by the eight board symmetries.
//!
//! Shared by `build.rs` (through `#[path]`) and the library, so that the table is written and
//! read with the same numbering.
//!
//! - XO: a position's rank is its board read as a base-3 number (X = 1, O = 2, cell 0 lowest);
//!   the side to move follows from the mark counts.
//! - Infinite XO: positions fall into eight classes by (X marks, O marks, side to move); within
//!   a class the rank numbers the sequence of X's cells then O's cells (oldest first) as a
//!   partial permutation of the nine cells.
//!
//! Both games' rules are unchanged by the symmetries of the square, so the table keeps one
//! *canonical* position per class of eight: the one with the smallest rank.

use engine::position::SYMMETRIES;
use engine::{Cell, Game, Mark, Position, Setup};

/// The Infinite XO classes `(X marks, O marks, side to move)` in rank order.
const INFINITE_CLASSES: [(usize, usize, Mark); 8] = [
    (0, 0, Mark::X),
    (1, 0, Mark::O),
    (1, 1, Mark::X),
    (2, 1, Mark::O),
    (2, 2, Mark::X),
    (3, 2, Mark::O),
    (3, 3, Mark::X),
    (3, 3, Mark::O),
];

/// Number of ordered selections of `n` cells out of nine: 9 × 8 × … × (9 − n + 1).
const fn arrangements(n: usize) -> u32 {
    let mut r = 1;
    let mut i = 0;
    while i < n {
        r *= 9 - i as u32;
        i += 1;
    }
    r
}

const fn class_offsets() -> [u32; 9] {
    let mut offsets = [0; 9];
    let mut i = 0;
    while i < 8 {
        let (x, o, _) = INFINITE_CLASSES[i];
        offsets[i + 1] = offsets[i] + arrangements(x + o);
        i += 1;
    }
    offsets
}

const INFINITE_OFFSETS: [u32; 9] = class_offsets();

/// How many ranks a game's numbering uses.
pub const fn space(game: Game) -> u32 {
    match game {
        Game::Xo => 19_683, // 3^9
        Game::Infinite => INFINITE_OFFSETS[8],
    }
}

const POW3: [u32; 9] = [1, 3, 9, 27, 81, 243, 729, 2187, 6561];

/// A position reduced to what ranking needs: its cells in rank order and the rank offset.
struct Key {
    game: Game,
    /// XO: X's cells then O's cells; Infinite XO: X's cells then O's cells, oldest first.
    cells: [Cell; 9],
    nx: usize,
    n: usize,
    /// Infinite XO: the offset of the position's class.
    offset: u32,
}

impl Key {
    fn of(p: &Position) -> Key {
        let x = p.marks(Mark::X).as_slice();
        let o = p.marks(Mark::O).as_slice();
        let mut cells = [0; 9];
        cells[..x.len()].copy_from_slice(x);
        cells[x.len()..x.len() + o.len()].copy_from_slice(o);
        let offset = match p.game() {
            Game::Xo => 0,
            Game::Infinite => {
                let class = INFINITE_CLASSES
                    .iter()
                    .position(|&(nx, no, t)| nx == x.len() && no == o.len() && t == p.turn())
                    .expect("a legal Infinite XO position falls in one class");
                INFINITE_OFFSETS[class]
            }
        };
        Key {
            game: p.game(),
            cells,
            nx: x.len(),
            n: x.len() + o.len(),
            offset,
        }
    }

    fn rank_under(&self, sym: usize) -> u32 {
        let map = &SYMMETRIES[sym];
        let cells = &self.cells[..self.n];
        match self.game {
            Game::Xo => cells
                .iter()
                .enumerate()
                .map(|(i, &c)| {
                    POW3[usize::from(map[usize::from(c)])] * if i < self.nx { 1 } else { 2 }
                })
                .sum(),
            Game::Infinite => {
                let mut used = 0u16;
                let mut rank = 0u32;
                for (i, &c) in cells.iter().enumerate() {
                    let c = map[usize::from(c)];
                    let below = (used & ((1 << c) - 1)).count_ones();
                    rank = rank * (9 - i as u32) + (u32::from(c) - below);
                    used |= 1 << c;
                }
                self.offset + rank
            }
        }
    }
}

/// The rank of `p` after applying symmetry `sym`, without building the transformed position.
pub fn rank_under(p: &Position, sym: usize) -> u32 {
    Key::of(p).rank_under(sym)
}

/// The rank of `p` itself.
pub fn rank(p: &Position) -> u32 {
    rank_under(p, 0)
}

/// The smallest rank among the eight images of `p`: the rank of its canonical position.
pub fn canonical_rank(p: &Position) -> u32 {
    let key = Key::of(p);
    match key.game {
        Game::Xo => (0..8)
            .map(|s| key.rank_under(s))
            .min()
            .expect("eight symmetries"),
        Game::Infinite => {
            // Within a class, rank order is the lexicographic order of the cell sequence (equal
            // prefixes leave equal sets of used cells), so the smallest mapped sequence names
            // the canonical symmetry and only that one needs ranking.
            let mapped = |s: usize| -> [Cell; 6] {
                let map = &SYMMETRIES[s];
                core::array::from_fn(|i| {
                    if i < key.n {
                        map[usize::from(key.cells[i])]
                    } else {
                        0
                    }
                })
            };
            let best = (1..8).fold((0, mapped(0)), |best, s| {
                let m = mapped(s);
                if m < best.1 { (s, m) } else { best }
            });
            key.rank_under(best.0)
        }
    }
}

/// The position with rank `r`, or `None` when `r` numbers no legal position (overlapping or
/// decided-too-early boards, or a rank outside the space).
pub fn unrank(game: Game, r: u32) -> Option<Position> {
    let setup = match game {
        Game::Xo => {
            if r >= space(game) {
                return None;
            }
            let (mut x, mut o) = (Vec::new(), Vec::new());
            let mut rest = r;
            for c in 0..9u8 {
                match rest % 3 {
                    1 => x.push(c),
                    2 => o.push(c),
                    _ => {}
                }
                rest /= 3;
            }
            let turn = if x.len() == o.len() { Mark::X } else { Mark::O };
            Setup { game, x, o, turn }
        }
        Game::Infinite => {
            let class = (0..8).find(|&i| r < INFINITE_OFFSETS[i + 1])?;
            let (nx, no, turn) = INFINITE_CLASSES[class];
            let n = nx + no;
            let mut within = r - INFINITE_OFFSETS[class];
            // Undo the mixed radix: digit i has radix 9 − i.
            let mut digits = [0u32; 6];
            for i in (0..n).rev() {
                let radix = 9 - i as u32;
                digits[i] = within % radix;
                within /= radix;
            }
            let mut used = 0u16;
            let mut cells: Vec<Cell> = Vec::with_capacity(n);
            for &d in &digits[..n] {
                // The d-th unused cell.
                let c = (0..9u8)
                    .filter(|c| used & (1 << c) == 0)
                    .nth(d as usize)
                    .expect("digit below the number of free cells");
                used |= 1 << c;
                cells.push(c);
            }
            let o = cells.split_off(nx);
            Setup {
                game,
                x: cells,
                o,
                turn,
            }
        }
    };
    Position::from_setup(&setup).ok()
}

/// How many distinct positions the eight symmetries make of `p`.
pub fn orbit_size(p: &Position) -> usize {
    let key = Key::of(p);
    let mut ranks: [u32; 8] = core::array::from_fn(|s| key.rank_under(s));
    ranks.sort_unstable();
    1 + ranks.windows(2).filter(|w| w[0] != w[1]).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_and_unrank_are_inverse_over_the_whole_space() {
        for game in Game::ALL {
            let mut legal = 0;
            for r in 0..space(game) {
                if let Some(p) = unrank(game, r) {
                    assert_eq!(rank(&p), r, "{p:?}");
                    legal += 1;
                }
            }
            assert!(legal > 0);
        }
    }

    #[test]
    fn rank_under_matches_the_transformed_position() {
        let p = Position::parse(Game::Infinite, "X:0,5,7|O:1,2,3|T:X").unwrap();
        for s in 0..8 {
            assert_eq!(rank_under(&p, s), rank(&p.transformed(s)));
        }
        let q = Position::parse(Game::Xo, "X:0,5,7|O:1,2|T:O").unwrap();
        for s in 0..8 {
            assert_eq!(rank_under(&q, s), rank(&q.transformed(s)));
        }
    }

    #[test]
    fn canonical_rank_is_the_smallest_rank_of_the_eight_images() {
        for game in Game::ALL {
            for r in (0..space(game)).step_by(7) {
                if let Some(p) = unrank(game, r) {
                    let min = (0..8).map(|s| rank_under(&p, s)).min().unwrap();
                    assert_eq!(canonical_rank(&p), min, "{p:?}");
                }
            }
        }
    }

    #[test]
    fn start_and_centre_have_orbit_one() {
        assert_eq!(orbit_size(&Position::start(Game::Xo)), 1);
        let centre = Position::start(Game::Xo).play(4).unwrap();
        assert_eq!(orbit_size(&centre), 1);
        let corner = Position::start(Game::Xo).play(0).unwrap();
        assert_eq!(orbit_size(&corner), 4);
    }
}
