//! Choosing puzzles and rating attempts, pure: the puzzle of the day (PZ4), the streak (PZ5)
//! and the Elo update of player and puzzle (PZ3).
//!
//! Nothing here keeps state or draws randomness: the day and the streak's seed are inputs, and
//! the orders come from a fixed hash (SplitMix64's finaliser) of puzzle ids, so every server
//! with the same build gives the same answers.
//!
//! - **Daily**: each game's puzzles rated [`DAILY_RATINGS`] are put in a fixed pseudo-random
//!   order (a permutation); day `d` (days since 1970-01-01, UTC) gets entry `d mod n`. No
//!   puzzle repeats within `n` days (n = [`daily_cycle`]).
//! - **Streak**: the game's puzzles fall into rating bands [`STREAK_BAND`] points wide, from
//!   600 up; empty bands are skipped. The streak takes up to [`STREAK_PER_BAND`] distinct
//!   puzzles from each band in turn (which ones depends on the seed), in rising rating within
//!   the band, so ratings never fall from one step to the next. After the last band the streak
//!   is complete ([`streak`] answers `None`). This follows lichess's streak, which takes a few
//!   puzzles from each of a rising list of rating buckets; ours are narrower because our
//!   puzzles are fewer. The server picks the seed when a streak starts (any `u64`) and keeps it
//!   with the streak, so a resumed streak continues with the same puzzles.

use std::sync::OnceLock;

use engine::elo::changes;
use engine::{Game, Score};

use crate::puzzle::{Puzzle, puzzles};

/// The initial ratings eligible as puzzle of the day: not the easiest (mostly one-ply
/// lessons) and not the hardest, for a passer-by's thirty seconds.
pub const DAILY_RATINGS: std::ops::RangeInclusive<i32> = 700..=1600;

/// Width of a streak's rating band.
pub const STREAK_BAND: i32 = 50;

/// Puzzles a streak takes from each band.
pub const STREAK_PER_BAND: usize = 3;

/// SplitMix64's finaliser: a fixed bijective mix of 64 bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Sorts puzzles by a key that no two of them share. One function for every order here keeps
/// a single copy of the sort in the binary.
fn sort_by_unique_key(keyed: &mut [(u64, &'static Puzzle)]) {
    keyed.sort_unstable_by_key(|&(key, _)| key);
}

/// A key ordering puzzles by rating, then id.
fn rating_key(p: &Puzzle) -> u64 {
    (u64::from(p.rating().unsigned_abs()) << 32) | u64::from(p.id().0)
}

const DAILY_SALT: u64 = 0x7075_7a7a_6c65_2d64; // "puzzle-d"
const STREAK_SALT: u64 = 0x7075_7a7a_6c65_2d73; // "puzzle-s"

fn daily_order(game: Game) -> &'static [&'static Puzzle] {
    static XO: OnceLock<Vec<&'static Puzzle>> = OnceLock::new();
    static INFINITE: OnceLock<Vec<&'static Puzzle>> = OnceLock::new();
    let build = || {
        // `mix` is a bijection, so distinct ids give distinct keys.
        let mut pool: Vec<(u64, &'static Puzzle)> = puzzles(game)
            .iter()
            .filter(|p| DAILY_RATINGS.contains(&p.rating()))
            .map(|p| (mix(u64::from(p.id().0) ^ DAILY_SALT), p))
            .collect();
        sort_by_unique_key(&mut pool);
        pool.into_iter().map(|(_, p)| p).collect()
    };
    match game {
        Game::Xo => XO.get_or_init(build),
        Game::Infinite => INFINITE.get_or_init(build),
    }
}

/// How many days pass before the puzzle of the day repeats.
pub fn daily_cycle(game: Game) -> usize {
    daily_order(game).len()
}

/// The puzzle of the day `day` (days since 1970-01-01 in UTC; earlier days are negative).
pub fn daily(game: Game, day: i64) -> &'static Puzzle {
    let order = daily_order(game);
    let n = i64::try_from(order.len()).expect("few puzzles");
    order[usize::try_from(day.rem_euclid(n)).expect("a remainder is not negative")]
}

fn streak_bands(game: Game) -> &'static [Vec<&'static Puzzle>] {
    static XO: OnceLock<Vec<Vec<&'static Puzzle>>> = OnceLock::new();
    static INFINITE: OnceLock<Vec<Vec<&'static Puzzle>>> = OnceLock::new();
    let build = || {
        let mut sorted: Vec<(u64, &'static Puzzle)> =
            puzzles(game).iter().map(|p| (rating_key(p), p)).collect();
        sort_by_unique_key(&mut sorted);
        let mut bands: Vec<Vec<&'static Puzzle>> = Vec::new();
        let mut current = None;
        for (_, p) in sorted {
            let band = p.rating().div_euclid(STREAK_BAND);
            if current != Some(band) {
                bands.push(Vec::new());
                current = Some(band);
            }
            bands.last_mut().expect("pushed above").push(p);
        }
        bands
    };
    match game {
        Game::Xo => XO.get_or_init(build),
        Game::Infinite => INFINITE.get_or_init(build),
    }
}

/// The number of puzzles in a complete streak of `game`.
pub fn streak_length(game: Game) -> usize {
    streak_bands(game)
        .iter()
        .map(|b| b.len().min(STREAK_PER_BAND))
        .sum()
}

/// The puzzle at `step` (0 the first) of the streak with this `seed`, or `None` once the
/// streak is complete. Ratings never fall as `step` grows.
pub fn streak(game: Game, step: usize, seed: u64) -> Option<&'static Puzzle> {
    let mut rest = step;
    for (b, band) in streak_bands(game).iter().enumerate() {
        let take = band.len().min(STREAK_PER_BAND);
        if rest >= take {
            rest -= take;
            continue;
        }
        let band_salt = mix(seed ^ STREAK_SALT ^ mix(b as u64));
        let mut chosen: Vec<(u64, &'static Puzzle)> = band
            .iter()
            .map(|&p| (mix(u64::from(p.id().0) ^ band_salt), p))
            .collect();
        sort_by_unique_key(&mut chosen);
        chosen.truncate(take);
        for entry in &mut chosen {
            entry.0 = rating_key(entry.1);
        }
        sort_by_unique_key(&mut chosen);
        return Some(chosen[rest].1);
    }
    None
}

/// Both ratings' changes after one rated attempt (PZ3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RatingChange {
    pub player: i32,
    pub puzzle: i32,
}

/// PZ3: the attempt is a game between the player (rated `player`) and the puzzle (rated
/// `puzzle`) that the player wins by solving it: the ladders' Elo update (E2, K = 32), the
/// same function as rated games. The two changes sum to zero.
pub fn rate(player: i32, puzzle: i32, solved: bool) -> RatingChange {
    let score = if solved { Score::Win } else { Score::Loss };
    let (player, puzzle) = changes(player, puzzle, score);
    RatingChange { player, puzzle }
}
