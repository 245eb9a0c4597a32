//! Criterion benchmarks of the foundation (DESIGN.md "Targets to measure"):
//! solving both games (the code `build.rs` runs), a table look-up, a Perfect bot move and a
//! Win-Block-Random bot move.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use engine::{Game, GameRecord, Position};
use rand::SeedableRng;
use rand::rngs::StdRng;
use tables::{bot, solve, table};

/// A fixed mix of mid-game positions of both games, from seeded random play.
fn sample_positions(game: Game, n: usize) -> Vec<Position> {
    let mut rng = StdRng::seed_from_u64(1);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let mut record = GameRecord::new(game);
        while record.end().is_none() && record.moves().len() < 12 && out.len() < n {
            out.push(record.position());
            let mv = bot::win_block_random(&record.position(), &mut rng).expect("open position");
            record.play(mv).expect("legal");
        }
    }
    out
}

fn benches(c: &mut Criterion) {
    let mut solving = c.benchmark_group("solve");
    solving.sample_size(10);
    for game in Game::ALL {
        solving.bench_function(game.as_str(), |b| b.iter(|| solve::solve(black_box(game))));
    }
    solving.finish();

    for game in Game::ALL {
        let positions = sample_positions(game, 256);
        let t = table(game);
        let mut i = 0;
        c.bench_function(&format!("probe/{game}"), |b| {
            b.iter(|| {
                i = (i + 1) % positions.len();
                t.probe(black_box(&positions[i]))
            })
        });
        let mut rng = StdRng::seed_from_u64(2);
        c.bench_function(&format!("bot_perfect/{game}"), |b| {
            b.iter(|| {
                i = (i + 1) % positions.len();
                bot::perfect(black_box(&positions[i]), &mut rng)
            })
        });
        c.bench_function(&format!("bot_win_block_random/{game}"), |b| {
            b.iter(|| {
                i = (i + 1) % positions.len();
                bot::win_block_random(black_box(&positions[i]), &mut rng)
            })
        });
    }
}

criterion_group!(tables_benches, benches);
criterion_main!(tables_benches);
