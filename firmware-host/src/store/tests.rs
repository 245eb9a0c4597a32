//! The store as its callers see it, across nouns: the ratings copy in memory (`ratings`)
//! follows every write of the users table, whichever noun made it.

use engine::{Game, Mark};
use protocol::records::{FinishedGame, GameEnd, PlayerRef, UserId};
use rooms::Persistence;

use crate::store::Store;

fn rated(id: &str, game: Game, x: UserId, o: UserId, loser: Mark) -> FinishedGame {
    FinishedGame {
        id: id.into(),
        game,
        rated: true,
        x: PlayerRef::User {
            id: x,
            name: format!("p{x}"),
        },
        o: PlayerRef::User {
            id: o,
            name: format!("p{o}"),
        },
        moves: vec![4, 0, 2],
        end: GameEnd::Resigned { loser },
        started_at_ms: 10_000,
        ended_at_ms: 20_000,
    }
}

/// The copy in memory says what the file says, on both ladders.
fn assert_true(store: &Store, users: &[UserId]) -> [Vec<i32>; 2] {
    [Game::Xo, Game::Infinite].map(|game| {
        let file = store.ratings_blocking(game, users).expect("ratings read");
        assert_eq!(
            store.ratings_in_memory(game, users),
            Some(file.clone()),
            "{game:?} ratings of {users:?} in memory"
        );
        file
    })
}

#[tokio::test]
async fn ratings_in_memory_follow_every_write_of_the_users_table() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open_blocking(dir.path()).expect("open");
    let a = store
        .register("alpha", "hash", [1; 32], 0, u64::MAX)
        .await
        .expect("register");
    let b = store
        .register("beta", "hash", [2; 32], 0, u64::MAX)
        .await
        .expect("register");
    let start = assert_true(&store, &[a, b]);
    assert_eq!(start[0], vec![1200, 1200], "E1: a new player's rating");
    let backup = store.backup_blocking(0).expect("backup");

    // A rated result, then the same result committed again (a retried commit).
    store
        .commit_game(&rated("r1", Game::Xo, a, b, Mark::O))
        .await
        .expect("commit");
    let after = assert_true(&store, &[a, b]);
    assert!(after[0][0] > 1200 && after[0][1] < 1200, "{after:?}");
    store
        .commit_game(&rated("r1", Game::Xo, a, b, Mark::O))
        .await
        .expect("commit again");
    assert_eq!(assert_true(&store, &[a, b]), after);
    store
        .commit_game(&rated("r2", Game::Infinite, b, a, Mark::X))
        .await
        .expect("commit");
    assert_ne!(assert_true(&store, &[a, b])[1], vec![1200, 1200]);

    // A rename and a new password keep the ratings.
    store.rename(a, "alpha2").await.expect("rename");
    store
        .change_password(b, "other".into(), [2; 32])
        .await
        .expect("password");
    assert_true(&store, &[a, b]);

    // A new season puts everyone back at the start.
    store.new_season(30_000).await.expect("new season");
    assert_eq!(assert_true(&store, &[a, b]), start);
    store
        .commit_game(&rated("r3", Game::Xo, b, a, Mark::O))
        .await
        .expect("commit");
    assert_ne!(assert_true(&store, &[a, b]), start);

    // A restore brings back the backup's ratings.
    let (_, source) = store.verify_backup_blocking(&backup).expect("verify");
    store.restore(source, false).await.expect("restore");
    assert_eq!(assert_true(&store, &[a, b]), start);
    store
        .commit_game(&rated("r4", Game::Xo, a, b, Mark::X))
        .await
        .expect("commit");
    assert_true(&store, &[a, b]);

    // A removed player is no longer there; a new one is, at the start.
    store.delete_account(b).await.expect("delete");
    assert_eq!(store.ratings_in_memory(Game::Xo, &[b]), None);
    assert!(store.ratings_blocking(Game::Xo, &[b]).is_err());
    let c = store
        .register("gamma", "hash", [3; 32], 0, u64::MAX)
        .await
        .expect("register");
    assert_eq!(assert_true(&store, &[a, c])[0][1], 1200);

    // Opened again, the copy is loaded from the file.
    let expected = assert_true(&store, &[a, c]);
    tokio::task::spawn_blocking(move || store.shutdown_blocking())
        .await
        .expect("shut down");
    let store = Store::open_blocking(dir.path()).expect("reopen");
    assert_eq!(assert_true(&store, &[a, c]), expected);
}
