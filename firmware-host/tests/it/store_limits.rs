//! Nobody can fill the card, and identifiers never collide with stored data (S4), on
//! the real store and redb file.

use engine::{Game, Mark};
use firmware_host::store::{SESSIONS_KEPT, Store, UNRATED_KEPT};
use protocol::records::{FinishedGame, GameEnd, PlayerRef, UserId};
use rooms::Persistence;

use crate::support::store::{BlockingWrites, DAY_MS, now};

fn register(store: &Store, name: &str, n: u8) -> UserId {
    store
        .register_blocking(name, "$argon2id$x", [n; 32], now(), now() + DAY_MS)
        .expect("register")
}

fn game(id: &str, x: PlayerRef, o: PlayerRef, rated: bool) -> FinishedGame {
    FinishedGame {
        id: id.into(),
        game: Game::Xo,
        rated,
        x,
        o,
        moves: vec![0, 3, 1, 4, 2],
        end: GameEnd::Line {
            winner: Mark::X,
            line: [0, 1, 2],
        },
        started_at_ms: 1_000,
        ended_at_ms: 2_000,
    }
}

fn user(id: UserId, name: &str) -> PlayerRef {
    PlayerRef::User {
        id,
        name: name.into(),
    }
}

#[test]
fn guests_finished_bot_and_local_games_are_not_written() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open_blocking(dir.path()).expect("store");
    store
        .save_room_blocking("guestbot", b"the guest's room")
        .expect("save");
    let guest = || PlayerRef::Guest {
        name: "Guest e6ce".into(),
    };
    let games = [
        game(
            "guestbot",
            guest(),
            PlayerRef::Bot { difficulty: 50 },
            false,
        ),
        game(
            "guestlocal",
            PlayerRef::Local {
                name: "Sara".into(),
            },
            PlayerRef::Local {
                name: "Omar".into(),
            },
            false,
        ),
        game("guestlocal-1", guest(), guest(), false),
    ];
    for g in &games {
        assert_eq!(store.commit_game_blocking(g).expect("answered"), vec![]);
        assert_eq!(store.game_blocking(&g.id).expect("read"), None, "{}", g.id);
    }
    assert_eq!(store.game_count_blocking().expect("count"), 0);
    assert_eq!(
        store.load_rooms_blocking().expect("rooms"),
        vec![],
        "the finished room is forgotten all the same"
    );
}

#[test]
fn a_players_unrated_games_are_kept_to_the_newest_fifty() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open_blocking(dir.path()).expect("store");
    let ana = register(&store, "Ana", 1);
    let ben = register(&store, "Ben", 2);
    let total = UNRATED_KEPT * 2 + 7;
    let mut rated = Vec::new();
    for n in 0..total {
        let opponent = if n % 2 == 0 {
            PlayerRef::Bot { difficulty: 100 }
        } else {
            PlayerRef::Guest {
                name: "Guest 01".into(),
            }
        };
        store
            .commit_game_blocking(&game(&format!("u{n}"), user(ana, "Ana"), opponent, false))
            .expect("unrated");
        if n % 10 == 0 {
            let id = format!("r{n}");
            store
                .commit_game_blocking(&game(&id, user(ana, "Ana"), user(ben, "Ben"), true))
                .expect("rated");
            rated.push(id);
        }
    }
    let kept = store.recent_games_blocking(ana, usize::MAX).expect("read");
    let unrated: Vec<&str> = kept
        .iter()
        .filter(|g| !g.game.rated)
        .map(|g| g.game.id.as_str())
        .collect();
    let newest: Vec<String> = (total - UNRATED_KEPT..total)
        .rev()
        .map(|n| format!("u{n}"))
        .collect();
    assert_eq!(
        unrated, newest,
        "exactly the newest {UNRATED_KEPT} unrated games"
    );
    assert_eq!(
        store.game_blocking("u0").expect("read"),
        None,
        "older ones are gone"
    );
    // Rated games are the ladder's history: every one is kept, for both players.
    for id in &rated {
        assert!(store.game_blocking(id).expect("read").is_some(), "{id}");
    }
    let bens: Vec<String> = store
        .recent_games_blocking(ben, usize::MAX)
        .expect("read")
        .into_iter()
        .map(|g| g.game.id)
        .collect();
    assert_eq!(bens.len(), rated.len(), "{bens:?}");
    assert_eq!(
        store.game_count_blocking().expect("count"),
        (UNRATED_KEPT + rated.len()) as u64
    );
    // The bound holds across a restart.
    store.shutdown_blocking();
    drop(store);
    let store = Store::open_blocking(dir.path()).expect("reopen");
    store
        .commit_game_blocking(&game(
            "u-late",
            user(ana, "Ana"),
            PlayerRef::Bot { difficulty: 0 },
            false,
        ))
        .expect("unrated");
    let unrated = store
        .recent_games_blocking(ana, usize::MAX)
        .expect("read")
        .into_iter()
        .filter(|g| !g.game.rated)
        .count();
    assert_eq!(unrated, UNRATED_KEPT);
}

#[test]
fn new_room_ids_are_unique_against_stored_games() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open_blocking(dir.path()).expect("store");
    let ana = register(&store, "Ana", 1);
    let bot = || PlayerRef::Bot { difficulty: 0 };
    for id in ["abcdef", "ghjkmn-2", "pqrstu-10"] {
        store
            .commit_game_blocking(&game(id, user(ana, "Ana"), bot(), false))
            .expect("commit");
    }
    for (id, taken) in [
        ("abcdef", true),
        ("ghjkmn", true),
        ("pqrstu", true),
        ("abcdeg", false),
        ("abcde", false),
        ("ghjkm", false),
        ("zzzzzz", false),
    ] {
        assert_eq!(
            store.room_id_taken_blocking(id).expect("read"),
            taken,
            "{id}"
        );
    }
}

#[test]
fn a_players_sessions_are_kept_to_the_newest_twenty() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open_blocking(dir.path()).expect("store");
    let ana = register(&store, "Ana", 0);
    register(&store, "Ben", 200);
    let sessions = u8::try_from(SESSIONS_KEPT).expect("small") + 10;
    for n in 1..=sessions {
        store
            .create_session_blocking([n; 32], ana, now() + u64::from(n), now() + DAY_MS)
            .expect("session");
    }
    let live = |token: u8| {
        store
            .session_account_blocking(&[token; 32], now())
            .expect("read")
            .is_some()
    };
    let kept: Vec<u8> = (0..=sessions).filter(|&t| live(t)).collect();
    let newest: Vec<u8> = (sessions + 1 - SESSIONS_KEPT as u8..=sessions).collect();
    assert_eq!(kept, newest, "the newest {SESSIONS_KEPT} of Ana's sessions");
    assert!(live(200), "another player's session is untouched");
}

/// The sizes behind BENCHMARKS.md's daily write bound: bytes the redb file grows by per
/// record kind, measured on the real store.
#[test]
fn record_sizes_for_the_daily_write_bound() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open_blocking(dir.path()).expect("store");
    let file = store.path().to_owned();
    let size = || std::fs::metadata(&file).expect("file").len();
    let n = 1_000u64;
    let before = size();
    let users: Vec<UserId> = (0..n)
        .map(|i| {
            store
                .register_blocking(
                    &format!("player{i:06}"),
                    "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$0123456789abcdef0123456789abcdef0123456789a",
                    {
                        let mut t = [0u8; 32];
                        t[..8].copy_from_slice(&i.to_le_bytes());
                        t
                    },
                    now(),
                    now() + DAY_MS,
                )
                .expect("register")
        })
        .collect();
    let accounts = size() - before;
    let before = size();
    for i in 0..n {
        let (x, o) = (
            users[(2 * i % n) as usize],
            users[((2 * i + 1) % n) as usize],
        );
        let mut g = game(
            &format!("r{i:06}"),
            user(x, "player000000"),
            user(o, "player000001"),
            true,
        );
        // The longest Infinite XO games resign at 40 plies in the crash test; take a long one.
        g.game = Game::Infinite;
        g.moves = (0..40).map(|m| [0, 3, 1, 4, 6, 5, 2, 7][m % 8]).collect();
        g.end = GameEnd::Resigned { loser: Mark::O };
        store.commit_game_blocking(&g).expect("rated");
    }
    let rated = size() - before;
    eprintln!(
        "record sizes: {} B per account with its first session, {} B per rated game of 40 moves \
         ({n} of each; growth of the redb file)",
        accounts / n,
        rated / n
    );
    assert!(accounts > 0 && rated > 0);
}
