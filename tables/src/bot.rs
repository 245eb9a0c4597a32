//! The bot (T2–T5): Perfect from the table, Win-Block-Random without it, mixed by difficulty.
//!
//! The caller passes the random number generator, so games are reproducible in tests and the
//! server decides where randomness comes from.

use engine::{Cell, Position};
use rand::{Rng, RngExt};
use serde::Serialize;

use crate::table;

/// The highest difficulty: every move is Perfect.
pub const MAX_DIFFICULTY: u8 = 100;
/// The difficulty a new bot game starts with (T4).
pub const DEFAULT_DIFFICULTY: u8 = 50;

/// Which strategy chose a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Strategy {
    /// T2: uniformly among the table's optimal moves.
    Perfect,
    /// T3: win now, else block, else random.
    WinBlockRandom,
}

/// A move the bot chose, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BotMove {
    pub cell: Cell,
    pub strategy: Strategy,
}

/// T4: plays Perfect with probability `difficulty`/100 (clamped to 100), otherwise
/// Win-Block-Random. `None` when the position is decided.
pub fn choose<R: Rng + ?Sized>(p: &Position, difficulty: u8, rng: &mut R) -> Option<BotMove> {
    let difficulty = difficulty.min(MAX_DIFFICULTY);
    // `random_range(0..100) < d` is true with probability exactly d/100.
    if rng.random_range(0..u32::from(MAX_DIFFICULTY)) < u32::from(difficulty) {
        perfect(p, rng).map(|cell| BotMove {
            cell,
            strategy: Strategy::Perfect,
        })
    } else {
        win_block_random(p, rng).map(|cell| BotMove {
            cell,
            strategy: Strategy::WinBlockRandom,
        })
    }
}

/// T2: one of the table's optimal moves, uniformly at random. It looks only at the position,
/// never at the game's repetition history. `None` when the position is decided or, which the
/// rules never produce, not in the table.
pub fn perfect<R: Rng + ?Sized>(p: &Position, rng: &mut R) -> Option<Cell> {
    let best = table(p.game()).best_moves(p).ok()?;
    pick(&best, rng)
}

/// T5: a hint is one Perfect move for the player to move.
pub fn hint<R: Rng + ?Sized>(p: &Position, rng: &mut R) -> Option<Cell> {
    perfect(p, rng)
}

/// T3: a move that wins now (R-INF-3 applied to the bot's own move); else an empty cell where
/// the opponent, were it their turn now, would win by playing; else a random empty cell. Ties
/// are broken at random. Never consults the table.
pub fn win_block_random<R: Rng + ?Sized>(p: &Position, rng: &mut R) -> Option<Cell> {
    let me = p.turn();
    let legal: Vec<Cell> = p.legal_moves().collect();
    let wins: Vec<Cell> = legal
        .iter()
        .copied()
        .filter(|&c| p.wins_by_playing(me, c))
        .collect();
    if !wins.is_empty() {
        return pick(&wins, rng);
    }
    let blocks: Vec<Cell> = legal
        .iter()
        .copied()
        .filter(|&c| p.wins_by_playing(me.other(), c))
        .collect();
    if !blocks.is_empty() {
        return pick(&blocks, rng);
    }
    pick(&legal, rng)
}

fn pick<R: Rng + ?Sized>(cells: &[Cell], rng: &mut R) -> Option<Cell> {
    if cells.is_empty() {
        None
    } else {
        Some(cells[rng.random_range(0..cells.len())])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Game, GameRecord, Mark, Status};
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    #[test]
    fn t4_at_100_only_optimal_moves_over_every_position() {
        let mut rng = StdRng::seed_from_u64(100);
        for game in Game::ALL {
            let t = table(game);
            let mut checked = 0;
            for (p, v) in t.entries() {
                if v == crate::Verdict::Over {
                    continue;
                }
                let best = t.best_moves(&p).unwrap();
                for _ in 0..4 {
                    let mv = choose(&p, 100, &mut rng).expect("a move in an open position");
                    assert_eq!(mv.strategy, Strategy::Perfect);
                    assert!(best.contains(&mv.cell), "{p}: {} not in {best:?}", mv.cell);
                }
                checked += 1;
            }
            assert!(checked > 500, "{game}: {checked}");
        }
    }

    #[test]
    fn t4_at_0_never_uses_the_table() {
        let mut rng = StdRng::seed_from_u64(0);
        let before = crate::probe_counter::probes();
        for game in Game::ALL {
            for _ in 0..200 {
                let mut record = GameRecord::new(game);
                while record.end().is_none() && record.moves().len() < 60 {
                    let mv = choose(&record.position(), 0, &mut rng).unwrap();
                    assert_eq!(mv.strategy, Strategy::WinBlockRandom);
                    record.play(mv.cell).unwrap();
                }
            }
        }
        assert_eq!(
            crate::probe_counter::probes(),
            before,
            "Win-Block-Random looked at the table"
        );
    }

    #[test]
    fn t4_at_50_perfect_share_is_about_one_half() {
        let mut rng = StdRng::seed_from_u64(50);
        let p = Position::start(Game::Infinite);
        let n = 20_000u32;
        let perfect = (0..n)
            .filter(|_| choose(&p, 50, &mut rng).unwrap().strategy == Strategy::Perfect)
            .count() as f64;
        // Binomial(20000, 0.5): standard deviation ≈ 70.7; allow five of them.
        let sd = (f64::from(n) * 0.25).sqrt();
        assert!(
            (perfect - f64::from(n) / 2.0).abs() < 5.0 * sd,
            "{perfect} Perfect choices of {n}"
        );
    }

    #[test]
    fn t4_perfect_never_loses_xo_against_any_line() {
        // Walk every line of play by the opponent; the bot at 100 answers each position.
        fn walk(record: &mut GameRecord, bot: Mark, rng: &mut StdRng) {
            let p = record.position();
            if let Status::Won { winner, .. } = p.status() {
                assert_eq!(winner, bot, "bot lost: {:?}", record.moves());
                return;
            }
            if p.status().is_over() {
                return;
            }
            if p.turn() == bot {
                let mv = choose(&p, 100, rng).unwrap();
                record.play(mv.cell).unwrap();
                walk(record, bot, rng);
                record.undo(1).unwrap();
            } else {
                for c in p.legal_moves() {
                    record.play(c).unwrap();
                    walk(record, bot, rng);
                    record.undo(1).unwrap();
                }
            }
        }
        let mut rng = StdRng::seed_from_u64(7);
        for bot in [Mark::X, Mark::O] {
            walk(&mut GameRecord::new(Game::Xo), bot, &mut rng);
        }
    }

    #[test]
    fn t3_takes_a_win_before_a_block() {
        let mut rng = StdRng::seed_from_u64(3);
        // X can win at 2 (top row) while O threatens the middle row at 5.
        let p = Position::parse(Game::Xo, "X:0,1,8|O:3,4,7|T:X").unwrap();
        for _ in 0..20 {
            assert_eq!(win_block_random(&p, &mut rng), Some(2));
        }
    }

    #[test]
    fn t3_blocks_when_it_cannot_win() {
        let mut rng = StdRng::seed_from_u64(4);
        let p = Position::parse(Game::Xo, "X:0,8|O:3,4|T:X").unwrap();
        for _ in 0..20 {
            assert_eq!(win_block_random(&p, &mut rng), Some(5));
        }
    }

    #[test]
    fn t3_win_applies_the_removal_rule() {
        let mut rng = StdRng::seed_from_u64(5);
        // X holds 0, 1, 4 (0 oldest): 2 would not win (0 vanishes first), 7 does.
        let p = Position::parse(Game::Infinite, "X:0,1,4|O:3,5,8|T:X").unwrap();
        for _ in 0..20 {
            assert_eq!(win_block_random(&p, &mut rng), Some(7));
        }
    }

    #[test]
    fn t5_hint_is_a_perfect_move() {
        let mut rng = StdRng::seed_from_u64(6);
        let p = Position::parse(Game::Xo, "X:0,1|O:4|T:O").unwrap();
        assert_eq!(hint(&p, &mut rng), Some(2));
    }
}
