//! A large store, quickly: rated games between 100 registered players, for the benchmark of
//! what a large file costs (`scripts/bench cache`, the `fill_store` example) and the test that
//! a backup of it does not stay in memory. Not used by the server.

use engine::Game;
use protocol::records::{FinishedGame, GameEnd, PlayerRef};
use rooms::Persistence as _;

use super::Store;

/// Players the games are shared between (`fill0` … `fill99`).
pub const PLAYERS: u64 = 100;

/// Registers [`PLAYERS`] players and stores `games` rated Infinite XO games of 120 moves
/// between them (a few hundred bytes each in the games, history and ratings tables), many at a
/// time so that the writer's group commits take them in large batches.
///
/// # Errors
/// The first registration or commit the store refuses.
pub async fn rated_games(store: &Store, games: u64) -> Result<(), String> {
    let mut users = Vec::new();
    for p in 0..PLAYERS {
        let name = format!("fill{p}");
        let token = [u8::try_from(p).unwrap_or(u8::MAX); 32];
        let id = store
            .register(&name, "not a password hash", token, 0, 1)
            .await
            .map_err(|e| format!("registering {name}: {e:?}"))?;
        users.push(PlayerRef::User { id, name });
    }
    let player = |i: u64| users[usize::try_from(i % PLAYERS).unwrap_or(0)].clone();
    let mut next = 0;
    while next < games {
        let batch: Vec<FinishedGame> = (next..games.min(next + 2_000))
            .map(|i| FinishedGame {
                id: format!("fill{i:08}"),
                game: Game::Infinite,
                rated: true,
                x: player(i),
                // Never the same player twice: an offset of 1 to PLAYERS - 1.
                o: player(i + 1 + (i / PLAYERS) % (PLAYERS - 1)),
                moves: (0..120u16)
                    .map(|k| u8::try_from(k * 4 % 9).unwrap_or(0))
                    .collect(),
                end: GameEnd::Repetition,
                started_at_ms: 1_700_000_000_000 + i,
                ended_at_ms: 1_700_000_060_000 + i,
            })
            .collect();
        next += batch.len() as u64;
        let commits: Vec<_> = batch.iter().map(|g| store.commit_game(g)).collect();
        for done in futures_util::future::join_all(commits).await {
            done.map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}
