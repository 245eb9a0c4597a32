//! P3 and A2 on the store itself: everything survives reopening the file, a rated result is
//! one all-or-nothing transaction, and group commit under concurrent writers loses nothing.

use std::path::Path;

use engine::{Game, Mark, Score};
use firmware_host::store::{RegisterError, SCHEMA_VERSION, Store};
use protocol::records::{FinishedGame, GameEnd, PlayerRef, UserId};
use rooms::Persistence;

use crate::support::store::{BlockingWrites, DAY_MS, now};

fn open(dir: &Path) -> Store {
    Store::open_blocking(dir).expect("store opens")
}

fn token(n: u8) -> [u8; 32] {
    [n; 32]
}

/// Registers with a session `token(n)` that lives 30 days from now.
fn register(store: &Store, name: &str, n: u8) -> UserId {
    store
        .register_blocking(
            name,
            "$argon2id$not-a-real-hash",
            token(n),
            now(),
            now() + 30 * DAY_MS,
        )
        .expect("registered")
}

/// Players 0 to 3, for the tests that play many games between them from several threads.
fn four_players(store: &Store) -> Vec<UserId> {
    (0..4u8)
        .map(|i| register(store, &format!("player{i}"), i))
        .collect()
}

fn user(id: UserId, name: &str) -> PlayerRef {
    PlayerRef::User {
        id,
        name: name.into(),
    }
}

fn finished(
    id: &str,
    game: Game,
    x: PlayerRef,
    o: PlayerRef,
    end: GameEnd,
    rated: bool,
) -> FinishedGame {
    FinishedGame {
        id: id.into(),
        game,
        rated,
        x,
        o,
        moves: vec![4, 0, 2, 6, 3, 5, 8, 1, 7],
        end,
        started_at_ms: 10_000,
        ended_at_ms: 20_000,
    }
}

#[test]
fn reopened_store_has_users_sessions_games_ratings_and_rooms() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (sara, omar);
    {
        let store = open(dir.path());
        sara = register(&store, "Sara", 1);
        omar = register(&store, "Omar", 2);
        store
            .create_session_blocking(token(3), omar, now(), now() + 30 * DAY_MS)
            .expect("session");
        let updates = store
            .commit_game_blocking(&finished(
                "g1",
                Game::Infinite,
                user(sara, "Sara"),
                user(omar, "Omar"),
                GameEnd::Line {
                    winner: Mark::X,
                    line: [0, 1, 2],
                },
                true,
            ))
            .expect("commit");
        assert_eq!(updates.len(), 2);
        store
            .save_room_blocking("room-a", b"opaque state")
            .expect("save room");
        store.shutdown_blocking();
    }
    let store = open(dir.path());
    let (id, record) = store
        .user_by_name_blocking("SARA")
        .expect("read")
        .expect("Sara exists after reopening");
    assert_eq!((id, record.name.as_str()), (sara, "Sara"));
    assert_eq!(record.infinite.rating, 1216);
    assert_eq!(record.infinite.wins, 1);
    assert_eq!(record.xo.rating, 1200, "the other ladder is untouched (E1)");
    for (n, who) in [(1, sara), (2, omar), (3, omar)] {
        let account = store
            .session_account_blocking(&token(n), now())
            .expect("read")
            .expect("session survives reopening (A2)");
        assert_eq!(account.id, who);
    }
    let game = store
        .game_blocking("g1")
        .expect("read")
        .expect("game survives");
    assert_eq!(game.game.moves, vec![4, 0, 2, 6, 3, 5, 8, 1, 7]);
    assert_eq!(game.updates.len(), 2);
    assert_eq!(
        store.load_rooms_blocking().expect("rooms"),
        vec![("room-a".to_owned(), b"opaque state".to_vec())],
        "a non-durable room save is made durable by the shutdown commit"
    );
    assert_eq!(
        store.recent_games_blocking(omar, 10).expect("recent").len(),
        1
    );
    store.shutdown_blocking();
}

#[test]
fn rated_commit_updates_ratings_points_and_records_together() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = open(dir.path());
    let a = register(&store, "alpha", 1);
    let b = register(&store, "beta", 2);
    // a wins as X, then a draw with b as X, then b wins by a's resignation with a as X.
    let games = [
        (
            "g1",
            user(a, "alpha"),
            user(b, "beta"),
            GameEnd::Line {
                winner: Mark::X,
                line: [0, 4, 8],
            },
        ),
        ("g2", user(b, "beta"), user(a, "alpha"), GameEnd::Agreed),
        (
            "g3",
            user(a, "alpha"),
            user(b, "beta"),
            GameEnd::Resigned { loser: Mark::X },
        ),
    ];
    let (mut ra, mut rb) = (1200, 1200);
    for (id, x, o, end) in games {
        let x_is_a = x == user(a, "alpha");
        let updates = store
            .commit_game_blocking(&finished(id, Game::Xo, x, o, end, true))
            .expect("commit");
        let x_score = match end.winner() {
            Some(Mark::X) => Score::Win,
            Some(Mark::O) => Score::Loss,
            None => Score::Draw,
        };
        let (rx, ro) = if x_is_a { (ra, rb) } else { (rb, ra) };
        let (dx, d_o) = engine::elo::changes(rx, ro, x_score);
        assert_eq!(updates[0].mark, Mark::X);
        assert_eq!((updates[0].before, updates[0].after), (rx, rx + dx));
        assert_eq!(updates[1].mark, Mark::O);
        assert_eq!((updates[1].before, updates[1].after), (ro, ro + d_o));
        if x_is_a {
            (ra, rb) = (rx + dx, ro + d_o);
        } else {
            (rb, ra) = (rx + dx, ro + d_o);
        }
    }
    let alpha = store.user_blocking(a).expect("read").expect("alpha");
    let beta = store.user_blocking(b).expect("read").expect("beta");
    assert_eq!((alpha.xo.rating, beta.xo.rating), (ra, rb));
    assert_eq!((alpha.xo.wins, alpha.xo.draws, alpha.xo.losses), (1, 1, 1));
    assert_eq!((beta.xo.wins, beta.xo.draws, beta.xo.losses), (1, 1, 1));
    assert_eq!(alpha.xo.points, 10 + 3 + 1, "E5: win 10, draw 3, loss 1");
    assert_eq!(
        store.ratings_blocking(Game::Xo, &[a, b]).expect("ratings"),
        vec![ra, rb]
    );
    assert_eq!(
        store
            .ratings_blocking(Game::Infinite, &[a, b])
            .expect("ratings"),
        vec![1200, 1200]
    );
    let board = store.leaderboard_blocking(Game::Xo, 10).expect("board");
    assert_eq!(board.len(), 2);
    assert!(board[0].stats.rating >= board[1].stats.rating);
    assert!(
        store
            .leaderboard_blocking(Game::Infinite, 10)
            .expect("board")
            .is_empty()
    );
    let recent: Vec<String> = store
        .recent_games_blocking(a, 10)
        .expect("recent")
        .into_iter()
        .map(|g| g.game.id)
        .collect();
    assert_eq!(recent, ["g3", "g2", "g1"], "newest first");
    store.shutdown_blocking();
}

#[test]
fn refused_rated_commit_leaves_no_trace() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = open(dir.path());
    let a = register(&store, "alpha", 1);
    let unknown: UserId = 999;
    let bad = finished(
        "g-bad",
        Game::Infinite,
        user(a, "alpha"),
        user(unknown, "ghost"),
        GameEnd::Line {
            winner: Mark::X,
            line: [0, 1, 2],
        },
        true,
    );
    assert!(store.commit_game_blocking(&bad).is_err());
    let guest = finished(
        "g-guest",
        Game::Infinite,
        user(a, "alpha"),
        PlayerRef::Guest {
            name: "walk-in".into(),
        },
        GameEnd::Line {
            winner: Mark::X,
            line: [0, 1, 2],
        },
        true,
    );
    assert!(
        store.commit_game_blocking(&guest).is_err(),
        "rated needs two accounts"
    );
    store.shutdown_blocking();
    drop(store);

    let store = open(dir.path());
    assert_eq!(store.game_blocking("g-bad").expect("read"), None);
    assert_eq!(store.game_blocking("g-guest").expect("read"), None);
    let alpha = store.user_blocking(a).expect("read").expect("alpha");
    assert_eq!(
        alpha.infinite,
        Default::default(),
        "no rating, points or record written"
    );
    assert!(
        store
            .recent_games_blocking(a, 10)
            .expect("recent")
            .is_empty()
    );
    store.shutdown_blocking();
}

#[test]
fn unrated_game_is_stored_without_rating_changes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = open(dir.path());
    let a = register(&store, "alpha", 1);
    let updates = store
        .commit_game_blocking(&finished(
            "bot-1",
            Game::Xo,
            user(a, "alpha"),
            PlayerRef::Bot { difficulty: 100 },
            GameEnd::FullBoard,
            false,
        ))
        .expect("commit");
    assert!(updates.is_empty());
    let alpha = store.user_blocking(a).expect("read").expect("alpha");
    assert_eq!(alpha.xo, Default::default());
    let stored = store.game_blocking("bot-1").expect("read").expect("stored");
    assert_eq!(stored.game.o, PlayerRef::Bot { difficulty: 100 });
    assert_eq!(store.recent_games_blocking(a, 10).expect("recent").len(), 1);
    store.shutdown_blocking();
}

#[test]
fn the_same_result_committed_twice_is_rated_once() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = open(dir.path());
    let a = register(&store, "alpha", 1);
    let b = register(&store, "beta", 2);
    let game = finished(
        "g1",
        Game::Xo,
        user(a, "alpha"),
        user(b, "beta"),
        GameEnd::Timeout { loser: Mark::O },
        true,
    );
    let first = store.commit_game_blocking(&game).expect("first");
    let second = store.commit_game_blocking(&game).expect("retry");
    assert_eq!(first, second);
    assert_eq!(store.user_blocking(a).expect("read").expect("a").xo.wins, 1);
    let mut other = game.clone();
    other.ended_at_ms += 1;
    assert!(
        store.commit_game_blocking(&other).is_err(),
        "a different game under a used id"
    );
    store.shutdown_blocking();
}

#[test]
fn username_taken_ignoring_case_in_the_store() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = open(dir.path());
    register(&store, "Sara", 1);
    let again = store.register_blocking("sARA", "$argon2id$x", token(2), 0, DAY_MS);
    assert_eq!(again, Err(RegisterError::NameTaken));
    assert_eq!(
        store.session_account_blocking(&token(2), 1).expect("read"),
        None
    );
    assert_eq!(store.user_count_blocking().expect("count"), 1);
    store.shutdown_blocking();
}

#[test]
fn sessions_expire_and_can_be_deleted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = open(dir.path());
    let a = register(&store, "alpha", 1);
    assert!(
        store
            .session_account_blocking(&token(1), now())
            .expect("read")
            .is_some()
    );
    assert_eq!(
        store
            .session_account_blocking(&token(1), now() + 31 * DAY_MS)
            .expect("read"),
        None,
        "A2: 30 days"
    );
    store
        .create_session_blocking(token(5), a, 0, DAY_MS)
        .expect("session");
    store.delete_session_blocking(token(5)).expect("delete");
    assert_eq!(
        store.session_account_blocking(&token(5), 1).expect("read"),
        None
    );
    store.shutdown_blocking();
}

/// Saves and deletes reach the file by the next durable commit (the writer keeps them in
/// memory until then): read back after a shutdown, and after a flush of their own.
#[test]
fn rooms_are_saved_replaced_and_deleted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = open(dir.path());
    store.save_room_blocking("r1", b"v1").expect("save");
    store.save_room_blocking("r1", b"v2").expect("replace");
    store.save_room_blocking("r2", b"other").expect("save");
    store.delete_room_blocking("r2").expect("delete");
    store
        .delete_room_blocking("never-saved")
        .expect("deleting nothing is fine");
    store.shutdown_blocking();
    drop(store);
    let store = open(dir.path());
    assert_eq!(
        store.load_rooms_blocking().expect("load"),
        vec![("r1".to_owned(), b"v2".to_vec())]
    );
    assert_eq!(store.open_room_count_blocking().expect("count"), 1);
    // A room saved once more, and one deleted from the file, are in it within the deadline.
    store.save_room_blocking("r3", b"v3").expect("save");
    store.delete_room_blocking("r1").expect("delete");
    std::thread::sleep(
        firmware_host::store::DURABLE_WITHIN + std::time::Duration::from_millis(300),
    );
    assert_eq!(
        store.load_rooms_blocking().expect("load"),
        vec![("r3".to_owned(), b"v3".to_vec())]
    );
    store.shutdown_blocking();
}

#[test]
fn concurrent_rated_commits_are_group_committed_and_ratings_replay() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = open(dir.path());
    let players = four_players(&store);
    std::thread::scope(|scope| {
        for t in 0..8usize {
            let store = store.clone();
            let players = players.clone();
            scope.spawn(move || {
                for n in 0..10usize {
                    let x = players[(t + n) % 4];
                    let o = players[(t + n + 1 + n % 3) % 4];
                    let o = if o == x { players[(t + n + 2) % 4] } else { o };
                    let end = match n % 3 {
                        0 => GameEnd::Line {
                            winner: Mark::X,
                            line: [0, 1, 2],
                        },
                        1 => GameEnd::Repetition,
                        _ => GameEnd::Resigned { loser: Mark::X },
                    };
                    let game = finished(
                        &format!("t{t}-n{n}"),
                        Game::Infinite,
                        user(x, "p"),
                        user(o, "p"),
                        end,
                        true,
                    );
                    store.commit_game_blocking(&game).expect("commit");
                    store
                        .save_room_blocking(&format!("room-{t}"), &[n as u8])
                        .expect("room");
                }
            });
        }
    });
    store.shutdown_blocking();
    drop(store);

    // Replay every stored game in commit order from 1200 and compare with the stored ratings.
    let store = open(dir.path());
    let mut games: Vec<_> = (0..8)
        .flat_map(|t| (0..10).map(move |n| format!("t{t}-n{n}")))
        .map(|id| {
            store
                .game_blocking(&id)
                .expect("read")
                .expect("every game stored")
        })
        .collect();
    games.sort_by_key(|g| g.seq);
    let mut ratings = std::collections::HashMap::new();
    for g in &games {
        for u in &g.updates {
            let current = ratings.entry(u.user).or_insert(1200);
            assert_eq!(
                *current, u.before,
                "game {} starts from the previous rating",
                g.game.id
            );
            *current = u.after;
        }
    }
    for &p in &players {
        let stored = store
            .user_blocking(p)
            .expect("read")
            .expect("player")
            .infinite;
        assert_eq!(stored.rating, ratings[&p]);
    }
    assert_eq!(store.open_room_count_blocking().expect("rooms"), 8);
    store.shutdown_blocking();
}

#[test]
fn a_newer_schema_version_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    open(dir.path()).shutdown_blocking();
    {
        use redb::{Database, TableDefinition};
        let meta: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("meta");
        let db = Database::create(dir.path().join(firmware_host::store::DB_FILE)).expect("db");
        let txn = db.begin_write().expect("txn");
        txn.open_table(meta)
            .expect("meta")
            .insert(
                "schema_version",
                (SCHEMA_VERSION + 1).to_le_bytes().as_slice(),
            )
            .expect("insert");
        txn.commit().expect("commit");
    }
    let error = Store::open_blocking(dir.path()).expect_err("refused");
    assert_eq!(
        error,
        rooms::StoreError::NewerSchema {
            found: SCHEMA_VERSION + 1,
            supported: SCHEMA_VERSION
        },
        "{error}"
    );
}

#[test]
fn writes_after_shutdown_fail_cleanly() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = open(dir.path());
    store.shutdown_blocking();
    store.shutdown_blocking();
    assert!(store.save_room_blocking("r", b"x").is_err());
    assert_eq!(
        store.load_rooms_blocking().expect("reads still work"),
        vec![]
    );
}

#[test]
fn expired_sessions_are_purged_when_the_store_opens() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = open(dir.path());
    let a = register(&store, "alpha", 1);
    // Expired long ago (1970) and one that is live for 30 days from now.
    store
        .create_session_blocking(token(7), a, 0, 1)
        .expect("old session");
    let now = firmware_host::clock::now_ms();
    store
        .create_session_blocking(token(8), a, now, now + 30 * DAY_MS)
        .expect("live session");
    store.shutdown_blocking();
    drop(store);
    {
        use redb::{Database, ReadableDatabase, ReadableTableMetadata, TableDefinition};
        let sessions: TableDefinition<'_, &[u8], &[u8]> = TableDefinition::new("sessions");
        let store = open(dir.path());
        store.shutdown_blocking();
        drop(store);
        let db = Database::create(dir.path().join(firmware_host::store::DB_FILE)).expect("db");
        let txn = db.begin_read().expect("read");
        let table = txn.open_table(sessions).expect("sessions");
        // Register's own live session (token 1) and token 8 are left; token 7 is gone.
        assert_eq!(table.len().expect("len"), 2);
        assert!(table.get([7u8; 32].as_slice()).expect("get").is_none());
        assert!(table.get([8u8; 32].as_slice()).expect("get").is_some());
    }
}

#[test]
fn committing_a_game_forgets_its_room_and_refuses_later_saves() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = open(dir.path());
    let a = register(&store, "alpha", 1);
    let b = register(&store, "beta", 2);
    store
        .save_room_blocking("room-9", b"playing")
        .expect("save");
    store.save_room_blocking("other", b"waiting").expect("save");
    store
        .commit_game_blocking(&finished(
            "room-9",
            Game::Infinite,
            user(a, "alpha"),
            user(b, "beta"),
            GameEnd::Agreed,
            true,
        ))
        .expect("commit");
    // A save that raced the result arrives late.
    store
        .save_room_blocking("room-9", b"stale")
        .expect("ignored, not an error");
    store.shutdown_blocking();
    drop(store);

    // Even without the rooms crate's own delete, the finished room is not restored.
    let store = open(dir.path());
    assert_eq!(
        store.load_rooms_blocking().expect("rooms"),
        vec![("other".to_owned(), b"waiting".to_vec())]
    );
    store.shutdown_blocking();
}

/// Results and room saves from many rooms at once share one group commit and its tables:
/// each room is saved while playing, its result stored, then a late save of it arrives; the
/// rooms still playing keep their last state and no finished one comes back.
#[test]
fn a_batch_of_results_and_room_saves_keeps_only_the_rooms_still_playing() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = open(dir.path());
    let players = four_players(&store);
    std::thread::scope(|scope| {
        for t in 0..8usize {
            let (store, players) = (store.clone(), players.clone());
            scope.spawn(move || {
                for n in 0..20usize {
                    let id = format!("t{t}-n{n}");
                    store.save_room_blocking(&id, b"playing").expect("save");
                    let game = finished(
                        &id,
                        Game::Xo,
                        user(players[t % 4], "p"),
                        user(players[(t + 1) % 4], "p"),
                        GameEnd::Agreed,
                        true,
                    );
                    store.commit_game_blocking(&game).expect("commit");
                    store.save_room_blocking(&id, b"stale").expect("ignored");
                    store
                        .save_room_blocking(&format!("live-{t}"), &[n as u8])
                        .expect("save");
                }
                store.delete_room_blocking(&format!("live-{t}")).ok();
                store
                    .save_room_blocking(&format!("live-{t}"), b"last")
                    .expect("save");
            });
        }
    });
    store.shutdown_blocking();
    drop(store);
    let store = open(dir.path());
    let mut rooms = store.load_rooms_blocking().expect("rooms");
    rooms.sort();
    let expected: Vec<(String, Vec<u8>)> = (0..8)
        .map(|t| (format!("live-{t}"), b"last".to_vec()))
        .collect();
    assert_eq!(rooms, expected);
    for t in 0..8 {
        for n in 0..20 {
            assert!(
                store
                    .game_blocking(&format!("t{t}-n{n}"))
                    .expect("read")
                    .is_some(),
                "game t{t}-n{n} stored"
            );
        }
    }
    store.shutdown_blocking();
}
