//! Pairing one wave of waiting players (EV3), as a pure, deterministic function of the
//! waiting players and a seed: [`pair`].
//!
//! A pairing is a matching of least total cost, where the cost of two players meeting is, in
//! falling weight:
//!
//! | term | cost |
//! | --- | --- |
//! | they played each other in the last game of either (a rematch) | [`REMATCH_COST`] |
//! | the player left out sat out the last wave too | [`SIT_OUT_AGAIN_COST`] |
//! | difference in event points | [`POINT_COST`] per point |
//! | both already had the same mark more often (one of them gets it again) | [`COLOUR_COST`] |
//! | difference in rating, up to 999 | 1 per rating point |
//!
//! With an odd number of players one is left out: it is paired with a "nobody" that costs
//! nothing, except [`SIT_OUT_AGAIN_COST`] for a player who sat out the wave before while
//! anyone else could.
//!
//! **How.** Waves of at most [`EXACT_UP_TO`] players (with the "nobody") are matched exactly,
//! by dynamic programming over subsets, so such a wave has a rematch only when every pairing
//! of it has one. In a club of 2–200 players nearly every wave is that small: games end at
//! different times and a wave waits only a few seconds (in the simulated hour of 200 players
//! in `arena_tests.rs`, the 1,056 waves after the first paired 9.4 players on average, 14 at
//! most).
//!
//! A larger wave (the first wave of a big event) starts from neighbours in the order by points
//! then rating, which is optimal when costs are distances on that order (a sorted line is best
//! matched to its neighbours), then improves the matching by exchanging partners between two
//! games while the total falls, re-pairs windows of [`WINDOW`] games of neighbouring players
//! exactly, and removes any rematch left by re-pairing it with two other games (all 15 ways to
//! pair six players). Lichess matches arena waves with a full weighted blossom matching; here,
//! on random waves of 13–14 players, this local search found the optimum in 285 of 300 and was
//! 1.3 % above it in total, never with more rematches or repeated sitting out (a test keeps it
//! so). Its work is known and small: [`Wave::ops`] counts cost evaluations (about 170,000 for
//! 200 players), [`OPS_BUDGET`] caps them, and a test bounds them.
//!
//! **Colours.** In each game the player with more X than O so far gets O; on equal counts the
//! one who had X last gets O; otherwise the seed decides. So a player's X count minus O count
//! leaves ±1 only in a game between two players who both had more X (or both more O): then no
//! choice of colours keeps both within ±1. The [`COLOUR_COST`] term keeps such players apart
//! where it costs little.

use engine::Mark;
use protocol::records::UserId;

/// Cost of a pairing that repeats either player's last game.
pub const REMATCH_COST: u64 = 1_000_000_000_000;
/// Cost of leaving out again a player who sat out the last wave.
pub const SIT_OUT_AGAIN_COST: u64 = 10_000_000_000;
/// Cost per point of difference in event score.
pub const POINT_COST: u64 = 1_000;
/// Cost of pairing two players whose colour balance leans the same way.
pub const COLOUR_COST: u64 = 50;
/// The largest rating difference that counts (so that one point of score outweighs it).
pub const RATING_CAP: u64 = 999;
/// Waves of at most this many nodes (players, plus one "nobody" when odd) are matched exactly.
pub const EXACT_UP_TO: usize = 14;
/// Games re-paired exactly together by the window pass of a large wave (10 players).
pub const WINDOW: usize = 5;
/// Passes of the exchange improvement at most (each pass looks at every two games).
pub const MAX_PASSES: usize = 40;
/// Cost evaluations after which a large wave stops improving: a pass or a repair under way
/// finishes (at most about 250,000 more for 200 players), none starts.
pub const OPS_BUDGET: u64 = 3_000_000;

/// A waiting player as pairing sees them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub user: UserId,
    /// Event points so far.
    pub points: u32,
    /// Rating on the event's ladder.
    pub rating: i32,
    /// The opponent of this player's last game in the event.
    pub last_opponent: Option<UserId>,
    /// Games as X minus games as O in the event.
    pub balance: i32,
    /// The mark of this player's last game.
    pub last_mark: Option<Mark>,
    /// Sat out the last wave as the odd one out.
    pub sat_out: bool,
}

/// One game of a wave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Game {
    pub x: UserId,
    pub o: UserId,
}

/// The outcome of pairing a wave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wave {
    /// Games, best-placed players first.
    pub games: Vec<Game>,
    /// The odd player out, if the wave was odd.
    pub sits_out: Option<UserId>,
    /// Cost evaluations spent (the work measure that tests bound).
    pub ops: u64,
}

/// Whether `a` and `b` played each other in the last game of either.
pub fn is_rematch(a: &Candidate, b: &Candidate) -> bool {
    a.last_opponent == Some(b.user) || b.last_opponent == Some(a.user)
}

/// SplitMix64: a fixed, portable mixer, so that a seed means the same pairing on every build.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Two nodes (indexes into the wave) that play each other.
type Pair = (usize, usize);

struct Costs<'a> {
    /// Candidates in pairing order; index `len` is "nobody" when the wave is odd.
    players: Vec<&'a Candidate>,
    nobody: Option<usize>,
    /// Anyone other than players who sat out last time may sit out.
    anyone_may_sit_out: bool,
    ops: u64,
}

impl Costs<'_> {
    fn cost(&mut self, a: usize, b: usize) -> u64 {
        self.ops += 1;
        if Some(a) == self.nobody || Some(b) == self.nobody {
            let p = self.players[if Some(a) == self.nobody { b } else { a }];
            return if p.sat_out && !self.anyone_may_sit_out {
                SIT_OUT_AGAIN_COST
            } else {
                0
            };
        }
        let (p, q) = (self.players[a], self.players[b]);
        let mut cost = 0;
        if is_rematch(p, q) {
            cost += REMATCH_COST;
        }
        cost += POINT_COST * u64::from(p.points.abs_diff(q.points));
        if p.balance.signum() != 0 && p.balance.signum() == q.balance.signum() {
            cost += COLOUR_COST;
        }
        cost + u64::from(p.rating.abs_diff(q.rating)).min(RATING_CAP)
    }

    fn nodes(&self) -> usize {
        self.players.len() + usize::from(self.nobody.is_some())
    }
}

/// Pairs a wave of waiting players. Deterministic: the same candidates (in any order) and
/// seed give the same wave.
pub fn pair(candidates: &[Candidate], seed: u64) -> Wave {
    pair_by(candidates, seed, EXACT_UP_TO).0
}

/// [`pair`], matching exactly up to `exact_up_to` nodes; also returns the pairing's total cost
/// (for tests comparing the two ways).
pub(crate) fn pair_by(candidates: &[Candidate], seed: u64, exact_up_to: usize) -> (Wave, u64) {
    let mut players: Vec<&Candidate> = candidates.iter().collect();
    // Best first: points, rating, then an order the seed shuffles, so that equal players are
    // not always met in id order.
    players.sort_by_key(|c| {
        (
            core::cmp::Reverse(c.points),
            core::cmp::Reverse(c.rating),
            mix(seed ^ c.user),
            c.user,
        )
    });
    let odd = players.len() % 2 == 1;
    let mut costs = Costs {
        nobody: odd.then_some(players.len()),
        anyone_may_sit_out: players.iter().all(|c| c.sat_out),
        players,
        ops: 0,
    };
    if costs.players.len() < 2 {
        let wave = Wave {
            games: Vec::new(),
            sits_out: costs.players.first().map(|c| c.user),
            ops: 0,
        };
        return (wave, 0);
    }
    let pairs = if costs.nodes() <= exact_up_to {
        exact(&mut costs)
    } else {
        let mut pairs = neighbours(&mut costs);
        improve(&mut costs, &mut pairs);
        windows(&mut costs, &mut pairs);
        repair_rematches(&mut costs, &mut pairs);
        pairs
    };
    let ops = costs.ops;
    let total = pairs
        .iter()
        .fold(0u64, |t, (a, b)| t.saturating_add(costs.cost(*a, *b)));
    let mut games = Vec::with_capacity(pairs.len());
    let mut sits_out = None;
    let mut order: Vec<Pair> = pairs
        .into_iter()
        .map(|(a, b)| (a.min(b), a.max(b)))
        .collect();
    order.sort_unstable();
    for (a, b) in order {
        if Some(b) == costs.nobody {
            sits_out = Some(costs.players[a].user);
            continue;
        }
        games.push(colours(costs.players[a], costs.players[b], seed));
    }
    (
        Wave {
            games,
            sits_out,
            ops,
        },
        total,
    )
}

/// Who plays X: the player with more O so far; on equal balance the one who had O last; else
/// the seed.
fn colours(a: &Candidate, b: &Candidate, seed: u64) -> Game {
    let a_takes_x = match a.balance.cmp(&b.balance) {
        core::cmp::Ordering::Less => true,
        core::cmp::Ordering::Greater => false,
        core::cmp::Ordering::Equal => match (a.last_mark, b.last_mark) {
            (Some(Mark::O), Some(Mark::X) | None) | (None, Some(Mark::X)) => true,
            (Some(Mark::X), Some(Mark::O) | None) | (None, Some(Mark::O)) => false,
            _ => mix(seed ^ mix(a.user.min(b.user)) ^ b.user.max(a.user)) & 1 == 0,
        },
    };
    if a_takes_x {
        Game {
            x: a.user,
            o: b.user,
        }
    } else {
        Game {
            x: b.user,
            o: a.user,
        }
    }
}

/// The least-cost perfect matching of a small wave, by dynamic programming over the subsets
/// still to pair (the lowest node of a subset is paired with each other node in turn).
fn exact(costs: &mut Costs<'_>) -> Vec<Pair> {
    let all: Vec<usize> = (0..costs.nodes()).collect();
    exact_on(costs, &all)
}

/// The least-cost perfect matching of the (even number of, at most about 16) `nodes`.
fn exact_on(costs: &mut Costs<'_>, nodes: &[usize]) -> Vec<Pair> {
    let n = nodes.len();
    // table[a * n + b]: the cost of nodes[a] meeting nodes[b].
    let mut table = vec![0u64; n * n];
    for a in 0..n {
        for b in a + 1..n {
            let c = costs.cost(nodes[a], nodes[b]);
            table[a * n + b] = c;
            table[b * n + a] = c;
        }
    }
    let full = (1usize << n) - 1;
    // best[mask]: the least cost of pairing the nodes of `mask`, and the partner of its lowest.
    let mut best: Vec<Option<(u64, usize)>> = vec![None; full + 1];
    best[0] = Some((0, 0));
    // Subsets with an even count of nodes, by increasing size, built from smaller ones.
    for mask in 1..=full {
        if mask.count_ones() % 2 == 1 {
            continue;
        }
        let low = mask.trailing_zeros() as usize;
        let rest = mask & !(1 << low);
        let mut chosen: Option<(u64, usize)> = None;
        let mut others = rest;
        while others != 0 {
            let b = others.trailing_zeros() as usize;
            others &= others - 1;
            costs.ops += 1;
            if let Some((sub, _)) = best[rest & !(1 << b)] {
                let total = sub.saturating_add(table[low * n + b]);
                if chosen.is_none_or(|(c, _)| total < c) {
                    chosen = Some((total, b));
                }
            }
        }
        best[mask] = chosen;
    }
    let mut pairs = Vec::with_capacity(n / 2);
    let mut mask = full;
    while mask != 0 {
        let low = mask.trailing_zeros() as usize;
        let (_, b) = best[mask].expect("every even subset has a matching");
        pairs.push((nodes[low], nodes[b]));
        mask &= !(1 << low) & !(1 << b);
    }
    pairs
}

/// Neighbours in the order by points then rating; an odd wave leaves out the player whose
/// absence makes the neighbours cheapest (a player who sat out last time only if all did).
fn neighbours(costs: &mut Costs<'_>) -> Vec<Pair> {
    let n = costs.players.len();
    let line = |costs: &mut Costs<'_>, skip: Option<usize>| -> (u64, Vec<Pair>) {
        let order: Vec<usize> = (0..n).filter(|i| Some(*i) != skip).collect();
        let mut total = 0u64;
        let mut pairs = Vec::with_capacity(n / 2 + 1);
        for two in order.chunks(2) {
            if let [a, b] = two {
                total = total.saturating_add(costs.cost(*a, *b));
                pairs.push((*a, *b));
            }
        }
        (total, pairs)
    };
    let Some(nobody) = costs.nobody else {
        return line(costs, None).1;
    };
    // (total cost, who sits out, the pairs of the others)
    let mut best: Option<(u64, usize, Vec<Pair>)> = None;
    for skip in 0..n {
        let (mut total, pairs) = line(costs, Some(skip));
        total = total.saturating_add(costs.cost(skip, nobody));
        if best.as_ref().is_none_or(|(t, _, _)| total < *t) {
            best = Some((total, skip, pairs));
        }
    }
    let (_, skip, mut pairs) = best.expect("an odd wave has players");
    pairs.push((skip, nobody));
    pairs
}

/// Games of neighbouring players (by the order of pairing) re-paired exactly, [`WINDOW`]
/// games at a time, in two passes offset by half a window, so that a better pairing across
/// more than two games is found where it matters most: among players close in the order.
fn windows(costs: &mut Costs<'_>, pairs: &mut [Pair]) {
    for offset in [0, WINDOW / 2] {
        pairs.sort_unstable_by_key(|(a, b)| (*a).min(*b));
        let mut start = offset;
        while start + 2 <= pairs.len() {
            if costs.ops > OPS_BUDGET {
                return;
            }
            let end = (start + WINDOW).min(pairs.len());
            let window = &mut pairs[start..end];
            let nodes: Vec<usize> = window.iter().flat_map(|(a, b)| [*a, *b]).collect();
            let now: u64 = window.iter().map(|(a, b)| costs.cost(*a, *b)).sum();
            let better = exact_on(costs, &nodes);
            let total: u64 = better.iter().map(|(a, b)| costs.cost(*a, *b)).sum();
            if total < now {
                window.copy_from_slice(&better);
            }
            start = end;
        }
    }
}

/// Exchanges partners between two games while that lowers the total.
fn improve(costs: &mut Costs<'_>, pairs: &mut [Pair]) {
    for _ in 0..MAX_PASSES {
        if costs.ops > OPS_BUDGET {
            break;
        }
        let mut better = false;
        for i in 0..pairs.len() {
            for j in i + 1..pairs.len() {
                let ((a, b), (c, d)) = (pairs[i], pairs[j]);
                let now = costs.cost(a, b) + costs.cost(c, d);
                let cross = costs.cost(a, c) + costs.cost(b, d);
                let swap = costs.cost(a, d) + costs.cost(b, c);
                if cross < now && cross <= swap {
                    pairs[i] = (a, c);
                    pairs[j] = (b, d);
                    better = true;
                } else if swap < now {
                    pairs[i] = (a, d);
                    pairs[j] = (b, c);
                    better = true;
                }
            }
        }
        if !better {
            break;
        }
    }
}

/// The three ways to pair four nodes and the fifteen ways to pair six, as index pairs.
const SIX: [[Pair; 3]; 15] = {
    let mut all = [[(0, 0); 3]; 15];
    let mut k = 0;
    let mut b = 1;
    while b < 6 {
        // 0 with b, then the three ways to pair the four left.
        let mut rest = [0usize; 4];
        let mut r = 0;
        let mut i = 1;
        while i < 6 {
            if i != b {
                rest[r] = i;
                r += 1;
            }
            i += 1;
        }
        let ways = [
            [(rest[0], rest[1]), (rest[2], rest[3])],
            [(rest[0], rest[2]), (rest[1], rest[3])],
            [(rest[0], rest[3]), (rest[1], rest[2])],
        ];
        let mut w = 0;
        while w < 3 {
            all[k] = [(0, b), ways[w][0], ways[w][1]];
            k += 1;
            w += 1;
        }
        b += 1;
    }
    all
};

/// Any game still a rematch is re-paired together with two other games, the cheapest of the
/// fifteen ways, when one of them has fewer rematches.
fn repair_rematches(costs: &mut Costs<'_>, pairs: &mut [Pair]) {
    for i in 0..pairs.len() {
        let (a, b) = pairs[i];
        if costs.ops > OPS_BUDGET || costs.cost(a, b) < REMATCH_COST {
            continue;
        }
        // (total cost, the two other games, the new three games)
        let mut best: Option<(u64, usize, usize, [Pair; 3])> = None;
        for j in 0..pairs.len() {
            for k in j + 1..pairs.len() {
                if j == i || k == i {
                    continue;
                }
                let nodes = [a, b, pairs[j].0, pairs[j].1, pairs[k].0, pairs[k].1];
                let now = costs.cost(a, b)
                    + costs.cost(pairs[j].0, pairs[j].1)
                    + costs.cost(pairs[k].0, pairs[k].1);
                for way in SIX {
                    let m = way.map(|(p, q)| (nodes[p], nodes[q]));
                    let total: u64 = m.iter().map(|(p, q)| costs.cost(*p, *q)).sum();
                    if total / REMATCH_COST < now / REMATCH_COST
                        && best.as_ref().is_none_or(|(t, ..)| total < *t)
                    {
                        best = Some((total, j, k, m));
                    }
                }
            }
        }
        if let Some((_, j, k, m)) = best {
            pairs[i] = m[0];
            pairs[j] = m[1];
            pairs[k] = m[2];
        }
    }
}
