//! The retrograde solver (T1) and the table's stored form.
//!
//! `build.rs` runs [`solve`] for both games and writes [`Blob`]s with postcard into `OUT_DIR`;
//! the library reads them back. The benchmarks time the same function.
//!
//! The solver works on canonical positions only (one per class of eight symmetric positions,
//! see [`crate::index`]): it walks every position reachable from the start, then assigns values
//! backwards from the decided positions in order of distance, so wins are as fast and losses as
//! slow as possible. Positions never reached by that pass lie on cycles that never resolve:
//! they are draws.

use engine::{Game, Position, Status};
use serde::{Deserialize, Serialize};

use super::index;

/// Stored entry: the top two bits say what the entry is, the low six bits the distance.
pub const OVER: u8 = 0;
pub const WIN: u8 = 1 << 6;
pub const DRAW: u8 = 2 << 6;
pub const LOSS: u8 = 3 << 6;
pub const KIND_MASK: u8 = 3 << 6;
pub const DISTANCE_MASK: u8 = (1 << 6) - 1;

/// What the table says about a position, for the side to move.
///
/// Serialised externally tagged (`"draw"`, `{"win":3}` in JSON), which postcard can read back
/// too: puzzle steps carry verdicts in both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The game is already decided by the position.
    Over,
    /// The side to move wins in this many plies under best play.
    Win(u8),
    /// Best play by both sides never ends the game with a line (cycles count as draws).
    Draw,
    /// The side to move loses in this many plies under best play.
    Loss(u8),
}

impl Verdict {
    /// Decodes a stored entry byte.
    pub fn from_entry(byte: u8) -> Verdict {
        let d = byte & DISTANCE_MASK;
        match byte & KIND_MASK {
            OVER => Verdict::Over,
            WIN => Verdict::Win(d),
            DRAW => Verdict::Draw,
            LOSS => Verdict::Loss(d),
            _ => unreachable!("two bits have four values"),
        }
    }

    /// What a move into `child` means for the player who made it, `self` being the child's
    /// verdict (for the side to move there): seen from the other side, with decided children
    /// resolved by the position itself.
    pub fn for_mover(self, child: &Position) -> Verdict {
        match self {
            Verdict::Over => match child.status() {
                Status::Won { .. } => Verdict::Win(1),
                _ => Verdict::Draw,
            },
            Verdict::Win(d) => Verdict::Loss(d + 1),
            Verdict::Loss(d) => Verdict::Win(d + 1),
            Verdict::Draw => Verdict::Draw,
        }
    }

    /// `win`, `draw`, `loss` or `over`.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Over => "over",
            Verdict::Win(_) => "win",
            Verdict::Draw => "draw",
            Verdict::Loss(_) => "loss",
        }
    }

    /// Plies to the end under best play; none for draws and decided positions.
    pub fn distance(self) -> Option<u8> {
        match self {
            Verdict::Win(d) | Verdict::Loss(d) => Some(d),
            Verdict::Over | Verdict::Draw => None,
        }
    }
}

/// One game's solved table as stored: a bit per rank for "canonical and reachable", and one
/// entry byte per set bit, in rank order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blob {
    pub game: Game,
    pub space: u32,
    /// Little-endian bit set, `space` bits rounded up to whole bytes.
    pub bitmap: Vec<u8>,
    pub entries: Vec<u8>,
}

/// Solves `game` and returns its table.
pub fn solve(game: Game) -> Blob {
    let space = index::space(game) as usize;
    // Canonical positions reachable from the start, numbered in discovery order.
    let mut id_of_rank = vec![u32::MAX; space];
    let mut nodes: Vec<Position> = Vec::new();
    let start = Position::start(game);
    id_of_rank[index::canonical_rank(&start) as usize] = 0;
    nodes.push(start);
    // Children per node, as a compressed list: children[child_start[i]..child_start[i + 1]].
    let mut child_start = vec![0u32];
    let mut children: Vec<u32> = Vec::new();
    let mut next = 0;
    while next < nodes.len() {
        let p = nodes[next];
        let first = children.len();
        for cell in p.legal_moves() {
            let child = p.play(cell).expect("legal move");
            let r = index::canonical_rank(&child) as usize;
            let id = if id_of_rank[r] == u32::MAX {
                let id = nodes.len() as u32;
                id_of_rank[r] = id;
                nodes.push(child);
                id
            } else {
                id_of_rank[r]
            };
            // Symmetric moves lead to the same canonical child: count each child once.
            if !children[first..].contains(&id) {
                children.push(id);
            }
        }
        child_start.push(children.len() as u32);
        next += 1;
    }
    let n = nodes.len();

    // Parents per node, the reverse of `children`, in the same compressed form.
    let mut parent_count = vec![0u32; n + 1];
    for &c in &children {
        parent_count[c as usize + 1] += 1;
    }
    for i in 0..n {
        parent_count[i + 1] += parent_count[i];
    }
    let parent_start = parent_count.clone();
    let mut fill = parent_count;
    let mut parents = vec![0u32; children.len()];
    for p in 0..n {
        for &c in &children[child_start[p] as usize..child_start[p + 1] as usize] {
            parents[fill[c as usize] as usize] = p as u32;
            fill[c as usize] += 1;
        }
    }

    // Retrograde pass. `entry` holds the solved value; `undecided` counts children not yet
    // known to be wins for the opponent. The queue is in non-decreasing distance order, so the
    // first win found is the fastest, and the last child to turn a node into a loss is its
    // slowest.
    let mut entry: Vec<Option<(u8, u8)>> = vec![None; n];
    let mut undecided: Vec<u32> = (0..n)
        .map(|i| child_start[i + 1] - child_start[i])
        .collect();
    let mut queue: std::collections::VecDeque<u32> = std::collections::VecDeque::new();
    for (i, p) in nodes.iter().enumerate() {
        match p.status() {
            // The side to move has lost: the opponent's last move made a line.
            Status::Won { .. } => {
                entry[i] = Some((LOSS, 0));
                queue.push_back(i as u32);
            }
            Status::Full => entry[i] = Some((DRAW, 0)),
            Status::Ongoing => {}
        }
    }
    while let Some(node) = queue.pop_front() {
        let (kind, distance) = entry[node as usize].expect("queued nodes are solved");
        for &parent in
            &parents[parent_start[node as usize] as usize..parent_start[node as usize + 1] as usize]
        {
            let parent = parent as usize;
            if entry[parent].is_some() {
                continue;
            }
            if kind == LOSS {
                entry[parent] = Some((WIN, distance + 1));
                queue.push_back(parent as u32);
            } else {
                undecided[parent] -= 1;
                if undecided[parent] == 0 {
                    entry[parent] = Some((LOSS, distance + 1));
                    queue.push_back(parent as u32);
                }
            }
        }
    }

    let mut ranked: Vec<(u32, u8)> = nodes
        .iter()
        .zip(&entry)
        .map(|(p, e)| {
            let byte = if p.status().is_over() {
                OVER
            } else {
                match *e {
                    Some((kind, d)) => {
                        assert!(d <= DISTANCE_MASK, "distance {d} does not fit the entry");
                        kind | d
                    }
                    // Never resolved: on a cycle, or only reaching such positions (T1).
                    None => DRAW,
                }
            };
            (index::canonical_rank(p), byte)
        })
        .collect();
    ranked.sort_unstable_by_key(|&(r, _)| r);
    let mut bitmap = vec![0u8; space.div_ceil(8)];
    for &(r, _) in &ranked {
        bitmap[r as usize / 8] |= 1 << (r % 8);
    }
    Blob {
        game,
        space: space as u32,
        bitmap,
        entries: ranked.into_iter().map(|(_, b)| b).collect(),
    }
}
