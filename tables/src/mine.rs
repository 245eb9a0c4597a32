//! Puzzle mining (PZ1): which positions are puzzles, what makes each hard, its initial rating,
//! and the packed form `build.rs` embeds.
//!
//! Shared by `build.rs` (through `#[path]`, judging positions with a [`Lookup`] over the table
//! it has just solved) and the library (judging them with the embedded [`crate::Table`]), so
//! the puzzles are mined and re-checked by the same rules.
//!
//! # Which positions are puzzles
//!
//! Every canonical position of the table (so symmetric duplicates never appear twice; every
//! stored position is reachable from the start by legal play) whose side to move
//!
//! - **wins** and has exactly one winning move (every other move draws or loses): a
//!   [`Kind::Win`] puzzle, "X to move and win"; or
//! - in Infinite XO only, **draws** and has exactly one move that does not lose (every other
//!   move loses): a [`Kind::Hold`] puzzle, "X to move and hold the draw".
//!
//! A position with a symmetry that maps the only good move elsewhere has two good moves, so it
//! is not a puzzle.
//!
//! Trivial ones are left out, as lichess leaves most mates in one out of its themes:
//!
//! - a win in one ply (complete your own line) is kept only in Infinite XO and only when
//!   another move *looks* like it completes a line but does not, because the mover's oldest
//!   mark vanishes first (R-INF-3): those teach the vanishing rule. XO keeps no win in one.
//! - a hold where every other move loses at once (the opponent completes a line next ply) and
//!   the holding move is a plain block is left out unless such a decoy exists.
//!
//! # Rating
//!
//! Each puzzle starts with a rating on the players' Elo scale, from what makes it hard
//! ([`Features`]):
//!
//! ```text
//! rating = 600
//!        + 150 × (depth − 1) / 2     Win: depth = the win's distance in plies (1, 3, 5 …)
//!        + 150 × (depth − 2) / 2     Hold: depth = the slowest loss among the other moves (2, 4 …)
//!        + 200  if the solution is quiet (it makes no threat to win next turn, wins nothing now
//!               and blocks nothing)
//!        +  80 × tempting            other moves that look natural (block a threat, make a
//!               threat, or seem to complete a line) yet lose or only draw; at most 4 count
//!        + 100  if a decoy exists     (Infinite XO: a move that would complete a line but for the
//!               mover's own vanishing mark)
//!        − 150  if the solution is a block (the opponent could win on that cell next ply)
//! clamped to 600 ..= 2200
//! ```
//!
//! # Packed form
//!
//! One little-endian `u32` per puzzle, sorted by rank within each kind: bits 0–17 the canonical
//! rank of the position ([`crate::index`]), bit 18 the kind (0 win, 1 hold), bits 19–31 the
//! initial rating. Everything else (the solution, distances, features) is recomputed from the
//! table when the library first decodes the puzzles.

use engine::position::line_in;
use engine::{Cell, Game, Position};
use serde::{Deserialize, Serialize};

use super::index;
use super::solve::{Blob, Verdict};

/// Bits of a packed puzzle holding the canonical rank.
pub const RANK_BITS: u32 = 18;
const KIND_BIT: u32 = 1 << RANK_BITS;
const RATING_SHIFT: u32 = RANK_BITS + 1;

/// The lowest and highest initial ratings.
pub const MIN_RATING: i32 = 600;
pub const MAX_RATING: i32 = 2200;

/// Anything that knows the verdict of every reachable position of one game.
pub trait Probe {
    fn game(&self) -> Game;
    /// The verdict of a reachable position; only reachable positions are ever asked about.
    fn verdict(&self, p: &Position) -> Verdict;
    /// Every stored (canonical) rank with its verdict, in rank order.
    fn stored(&self) -> Vec<(u32, Verdict)>;
}

/// A freshly solved table, expanded for look-ups by rank (used by `build.rs`).
#[derive(Debug)]
pub struct Lookup {
    game: Game,
    entries: Vec<Option<u8>>,
}

impl Lookup {
    pub fn new(blob: &Blob) -> Lookup {
        let mut entries = vec![None; blob.space as usize];
        let mut next = blob.entries.iter();
        for (r, slot) in entries.iter_mut().enumerate() {
            if blob.bitmap[r / 8] & (1 << (r % 8)) != 0 {
                *slot = Some(*next.next().expect("one entry per set bit"));
            }
        }
        Lookup {
            game: blob.game,
            entries,
        }
    }
}

impl Probe for Lookup {
    fn game(&self) -> Game {
        self.game
    }

    fn verdict(&self, p: &Position) -> Verdict {
        let byte = self.entries[index::canonical_rank(p) as usize]
            .expect("only reachable positions are probed");
        Verdict::from_entry(byte)
    }

    fn stored(&self) -> Vec<(u32, Verdict)> {
        (0u32..)
            .zip(&self.entries)
            .filter_map(|(r, e)| Some((r, Verdict::from_entry((*e)?))))
            .collect()
    }
}

/// The two kinds of puzzle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// The side to move wins, and only one move wins.
    Win,
    /// Infinite XO: the side to move draws, and only one move does not lose.
    Hold,
}

impl Kind {
    pub const ALL: [Kind; 2] = [Kind::Win, Kind::Hold];

    pub const fn as_str(self) -> &'static str {
        match self {
            Kind::Win => "win",
            Kind::Hold => "hold",
        }
    }
}

/// What makes a puzzle hard; the rating is computed from these alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Features {
    pub kind: Kind,
    /// The one right first move.
    pub solution: Cell,
    /// Win: the plies to the win under best play. Hold: the slowest loss among the other moves,
    /// in plies from the puzzle (how deep the deepest trap lies).
    pub depth: u8,
    /// Legal moves in the position.
    pub legal: u8,
    /// The solution makes no threat to win next turn, does not win now and blocks nothing.
    pub quiet: bool,
    /// The solution is a cell where the opponent would complete a line next ply.
    pub block: bool,
    /// Other moves that look natural (block, threaten, or seem to complete a line) but lose
    /// or, in a win puzzle, only draw.
    pub tempting: u8,
    /// Some move would complete a line but for the mover's own vanishing mark (R-INF-3).
    pub decoy: bool,
}

/// The cells where `p`'s side to move would make a line if it played there now.
fn wins_now(p: &Position) -> u16 {
    let me = p.turn();
    p.legal_moves()
        .filter(|&c| p.wins_by_playing(me, c))
        .fold(0, |m, c| m | 1 << c)
}

/// Whether playing `cell` would complete a line counting every mark the mover holds now,
/// vanishing one included, although the move does not actually win.
fn seems_to_complete_a_line(p: &Position, cell: Cell) -> bool {
    let me = p.turn();
    line_in(p.marks(me).mask() | 1 << cell).is_some() && !p.wins_by_playing(me, cell)
}

/// Whether `cell` threatens: after it, the mover could make a line on its next turn.
fn threatens(p: &Position, cell: Cell) -> bool {
    let me = p.turn();
    let child = p.play(cell).expect("legal move");
    !child.status().is_over() && child.legal_moves().any(|c| child.wins_by_playing(me, c))
}

/// Whether `cell` blocks: the opponent would make a line there, were it their turn.
fn blocks(p: &Position, cell: Cell) -> bool {
    p.wins_by_playing(p.turn().other(), cell)
}

/// The verdict of every legal move of `p`, for the mover, in cell order.
pub fn move_verdicts<P: Probe + ?Sized>(t: &P, p: &Position) -> Vec<(Cell, Verdict)> {
    p.legal_moves()
        .map(|c| {
            let child = p.play(c).expect("legal move");
            (c, t.verdict(&child).for_mover(&child))
        })
        .collect()
}

/// The puzzle `p` would be, or `None` when it is not one (including when it is trivial).
pub fn analyse<P: Probe + ?Sized>(t: &P, p: &Position) -> Option<Features> {
    let kind = match t.verdict(p) {
        Verdict::Win(_) => Kind::Win,
        Verdict::Draw if p.game() == Game::Infinite => Kind::Hold,
        _ => return None,
    };
    let good = |v: Verdict| match kind {
        Kind::Win => matches!(v, Verdict::Win(_)),
        Kind::Hold => !matches!(v, Verdict::Loss(_)),
    };
    // Most positions have several good moves: stop looking at the second.
    let mut moves = Vec::with_capacity(9);
    let mut solution = None;
    for c in p.legal_moves() {
        let child = p.play(c).expect("legal move");
        let v = t.verdict(&child).for_mover(&child);
        if good(v) {
            if solution.is_some() {
                return None;
            }
            solution = Some((c, v));
        }
        moves.push((c, v));
    }
    let (solution, solution_verdict) = solution?;
    let depth = match kind {
        Kind::Win => solution_verdict.distance().expect("a win has a distance"),
        Kind::Hold => moves
            .iter()
            .filter_map(|(_, v)| v.distance())
            .max()
            .expect("a hold puzzle has losing moves"),
    };
    let win_cells = wins_now(p);
    let block = blocks(p, solution);
    let quiet = win_cells & (1 << solution) == 0 && !block && !threatens(p, solution);
    let decoy =
        p.game() == Game::Infinite && p.legal_moves().any(|c| seems_to_complete_a_line(p, c));
    let tempting = moves
        .iter()
        .filter(|&&(c, _)| c != solution)
        .filter(|&&(c, _)| blocks(p, c) || threatens(p, c) || seems_to_complete_a_line(p, c))
        .count() as u8;
    let f = Features {
        kind,
        solution,
        depth,
        legal: moves.len() as u8,
        quiet,
        block,
        tempting,
        decoy,
    };
    let trivial = match kind {
        Kind::Win => depth == 1 && !decoy,
        Kind::Hold => depth == 2 && block && !decoy,
    };
    (!trivial).then_some(f)
}

/// The initial rating of a puzzle with these features (the formula in the module docs).
pub fn rating(f: &Features) -> i32 {
    let depth = i32::from(f.depth);
    let mut r = MIN_RATING
        + match f.kind {
            Kind::Win => 150 * (depth - 1) / 2,
            Kind::Hold => 150 * (depth - 2) / 2,
        };
    if f.quiet {
        r += 200;
    }
    r += 80 * i32::from(f.tempting.min(4));
    if f.decoy {
        r += 100;
    }
    if f.block {
        r -= 150;
    }
    r.clamp(MIN_RATING, MAX_RATING)
}

/// One mined puzzle as `build.rs` stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mined {
    /// The canonical rank of the position.
    pub rank: u32,
    pub features: Features,
    pub rating: i32,
}

impl Mined {
    pub fn pack(&self) -> u32 {
        let kind = match self.features.kind {
            Kind::Win => 0,
            Kind::Hold => KIND_BIT,
        };
        self.rank | kind | (self.rating as u32) << RATING_SHIFT
    }
}

/// A packed puzzle's rank, kind and rating.
pub fn unpack(word: u32) -> (u32, Kind, i32) {
    let kind = if word & KIND_BIT == 0 {
        Kind::Win
    } else {
        Kind::Hold
    };
    (word & (KIND_BIT - 1), kind, (word >> RATING_SHIFT) as i32)
}

/// Every puzzle of `t`'s game, sorted by kind then rank.
pub fn mine<P: Probe + ?Sized>(t: &P) -> Vec<Mined> {
    let game = t.game();
    // Stored positions are the canonical ones: one per class of symmetric positions.
    let mut out: Vec<Mined> = t
        .stored()
        .into_iter()
        .filter(|(_, v)| matches!(v, Verdict::Win(_) | Verdict::Draw))
        .filter_map(|(rank, _)| {
            let p = index::unrank(game, rank).expect("stored ranks are positions");
            let features = analyse(t, &p)?;
            Some(Mined {
                rank,
                features,
                rating: rating(&features),
            })
        })
        .collect();
    out.sort_by_key(|m| (m.features.kind, m.rank));
    out
}

/// The packed form of `puzzles`.
pub fn to_bytes(puzzles: &[Mined]) -> Vec<u8> {
    puzzles
        .iter()
        .flat_map(|m| m.pack().to_le_bytes())
        .collect()
}

/// Reads packed puzzles back.
pub fn from_bytes(bytes: &[u8]) -> impl Iterator<Item = (u32, Kind, i32)> + '_ {
    bytes.chunks_exact(4).map(|w| {
        unpack(u32::from_le_bytes(
            w.try_into().expect("chunks of exactly four bytes"),
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The game solved afresh and judged as `build.rs` judges it: the embedded table belongs
    /// to the crate root, which imports this file, so this file does not import it back.
    fn table(game: Game) -> &'static Lookup {
        static TABLES: std::sync::OnceLock<[Lookup; 2]> = std::sync::OnceLock::new();
        let tables = TABLES.get_or_init(|| {
            [Game::Xo, Game::Infinite].map(|g| Lookup::new(&super::super::solve::solve(g)))
        });
        &tables[usize::from(game == Game::Infinite)]
    }

    fn analyse_text(game: Game, text: &str) -> Option<Features> {
        let p = Position::parse(game, text).expect("a position");
        analyse(table(game), &p)
    }

    #[test]
    fn a_win_in_one_with_a_decoy_is_a_puzzle() {
        // X holds 0, 1, 4 with 0 oldest: 2 seems to complete the top row, but 0 vanishes
        // first; 7 makes the column 1, 4, 7 and is the only win.
        let f = analyse_text(Game::Infinite, "X:0,1,4|O:3,5,8|T:X").expect("a puzzle");
        assert_eq!((f.kind, f.solution, f.depth), (Kind::Win, 7, 1));
        assert!(f.decoy);
        assert!(!f.quiet, "a move that wins now is not quiet");
    }

    #[test]
    fn a_plain_win_in_one_is_left_out() {
        // XO: X completes the top row at 2, the only winning move (5 only blocks and draws).
        let p = Position::parse(Game::Xo, "X:0,1|O:3,4|T:X").expect("a position");
        let wins: Vec<Cell> = move_verdicts(table(Game::Xo), &p)
            .into_iter()
            .filter(|(_, v)| matches!(v, Verdict::Win(_)))
            .map(|(c, _)| c)
            .collect();
        assert_eq!(wins, vec![2]);
        assert_eq!(analyse(table(Game::Xo), &p), None);
    }

    #[test]
    fn an_xo_fork_is_a_win_in_five() {
        let f = analyse_text(Game::Xo, "X:3|O:2|T:X").expect("a puzzle");
        assert_eq!((f.kind, f.solution, f.depth), (Kind::Win, 0, 5));
    }

    #[test]
    fn positions_with_two_winning_moves_are_not_puzzles() {
        // X to move with two ways to complete a line.
        assert_eq!(analyse_text(Game::Xo, "X:0,1,3|O:4,5,8|T:X"), None);
    }

    #[test]
    fn rating_rises_with_depth_quietness_and_temptation() {
        let base = Features {
            kind: Kind::Win,
            solution: 0,
            depth: 5,
            legal: 6,
            quiet: false,
            block: false,
            tempting: 0,
            decoy: false,
        };
        let r = rating(&base);
        assert_eq!(r, 600 + 300);
        assert_eq!(rating(&Features { depth: 7, ..base }), r + 150);
        assert_eq!(
            rating(&Features {
                quiet: true,
                ..base
            }),
            r + 200
        );
        assert_eq!(
            rating(&Features {
                tempting: 2,
                ..base
            }),
            r + 160
        );
        assert_eq!(
            rating(&Features {
                tempting: 9,
                ..base
            }),
            r + 320
        );
        assert_eq!(
            rating(&Features {
                decoy: true,
                ..base
            }),
            r + 100
        );
        assert_eq!(
            rating(&Features {
                block: true,
                ..base
            }),
            r - 150
        );
        let hold = Features {
            kind: Kind::Hold,
            depth: 2,
            block: true,
            ..base
        };
        assert_eq!(rating(&hold), MIN_RATING, "clamped");
        let deepest = Features {
            depth: 17,
            quiet: true,
            tempting: 4,
            decoy: true,
            ..base
        };
        assert_eq!(rating(&deepest), MAX_RATING, "clamped");
    }

    #[test]
    fn packing_keeps_rank_kind_and_rating() {
        let f = analyse_text(Game::Xo, "X:3|O:2|T:X").expect("a puzzle");
        for (rank, kind, rating) in [
            (0, Kind::Win, 600),
            ((1 << RANK_BITS) - 1, Kind::Hold, 2200),
        ] {
            let m = Mined {
                rank,
                features: Features { kind, ..f },
                rating,
            };
            assert_eq!(unpack(m.pack()), (rank, kind, rating));
            assert_eq!(
                from_bytes(&to_bytes(&[m])).collect::<Vec<_>>(),
                vec![(rank, kind, rating)]
            );
        }
    }
}
