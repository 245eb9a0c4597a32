//! Data from a previous version always opens (DESIGN "Storage": the schema-version test).
//!
//! `tests/fixtures/v<N>.redb` is a database written by the release whose `SCHEMA_VERSION` was
//! N, holding the same data set ([`write_data_set`]): two accounts with sessions, a rated
//! game and its ratings, an unrated and a bot game, a waiting room and an active game. Every
//! fixture is opened with the current code, which migrates it if needed, and every record is
//! read back. A release that changes the schema runs the generator once and commits the file:
//!
//! ```text
//! cargo test -p firmware-host --test store_fixtures -- --ignored write_fixture_of_this_version
//! ```

use std::path::{Path, PathBuf};

use engine::{Game, Mark};
use firmware_host::store::{DB_FILE, SCHEMA_VERSION, Store};
use protocol::Phase;
use protocol::records::{FinishedGame, GameEnd, PlayerRef, UserId};
use protocol::{CreateRoom, JoiningRequest, OpponentRequest};
use rand::SeedableRng;
use rooms::Persistence;
use rooms::room::{Ctx, Intent, Member, PlayerKey, Room};
use rooms::seats::{SeatBook, Seats};
use rooms::settings::Settings;

use crate::support::store::BlockingWrites;

/// Sessions in the fixtures expire in 2100, so that opening a fixture never purges them.
const EXPIRES_MS: u64 = 4_102_444_800_000;
const CREATED_MS: u64 = 1_780_000_000_000;
const HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0$fixturefixturefixturefixturefixturefixture0";

fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn user(id: UserId, name: &str) -> PlayerRef {
    PlayerRef::User {
        id,
        name: name.into(),
    }
}

/// The games of the data set, in the order they are stored.
fn games(ana: UserId, ben: UserId) -> Vec<FinishedGame> {
    vec![
        FinishedGame {
            id: "fixture-rated".into(),
            game: Game::Xo,
            rated: true,
            x: user(ana, "Ana"),
            o: user(ben, "Ben"),
            moves: vec![0, 3, 1, 4, 2],
            end: GameEnd::Line {
                winner: Mark::X,
                line: [0, 1, 2],
            },
            started_at_ms: CREATED_MS + 1_000,
            ended_at_ms: CREATED_MS + 9_000,
        },
        FinishedGame {
            id: "fixture-unrated".into(),
            game: Game::Infinite,
            rated: false,
            x: user(ben, "Ben"),
            o: PlayerRef::Local {
                name: "Dina".into(),
            },
            moves: vec![4, 0],
            end: GameEnd::Resigned { loser: Mark::O },
            started_at_ms: CREATED_MS + 10_000,
            ended_at_ms: CREATED_MS + 12_000,
        },
        FinishedGame {
            id: "fixture-bot".into(),
            game: Game::Xo,
            rated: false,
            x: user(ana, "Ana"),
            o: PlayerRef::Bot { difficulty: 100 },
            moves: vec![4, 0, 8, 2, 1, 7, 6, 3, 5],
            end: GameEnd::FullBoard,
            started_at_ms: CREATED_MS + 13_000,
            ended_at_ms: CREATED_MS + 20_000,
        },
    ]
}

fn member(conn: u64, id: UserId, name: &str) -> Member {
    Member {
        conn,
        key: PlayerKey::User(id),
        name: name.into(),
        guest_id: format!("guest-{conn}"),
        device: None,
    }
}

/// A waiting online room of Ana's, and an active Infinite XO game between Ben (host) and Ana
/// after three moves.
fn rooms(ana: UserId, ben: UserId) -> Vec<Room> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    // Ana holds a seat in both rooms, so each room books seats in its own book.
    let (mut seats, mut other_seats) = (Seats::default(), Seats::default());
    // The hub books a creator's seat before the room exists.
    seats
        .claim(ben, "fixture-active", false)
        .expect("Ben's seat");
    other_seats
        .claim(ana, "fixture-waiting", false)
        .expect("Ana's seat");
    let mut ctx = Ctx {
        now_ms: 0,
        wall_ms: CREATED_MS + 30_000,
        rng: &mut rng,
        seats: &mut seats,
        rated: &rooms::rated::Unlimited,
    };
    let online = |game| {
        Settings::from_request(
            &CreateRoom {
                game,
                opponent: OpponentRequest::Player {
                    joining: JoiningRequest::Open,
                },
                time_per_move_s: Some(30),
            },
            true,
        )
        .expect("valid settings")
    };
    let (ana_m, ben_m) = (member(1, ana, "Ana"), member(2, ben, "Ben"));
    let mut active = Room::new(
        "fixture-active".into(),
        online(Game::Infinite),
        &ben_m,
        &mut ctx,
    );
    active
        .apply(&ana_m, Intent::Join { passcode: None }, &mut ctx)
        .expect("join");
    active
        .apply(&ana_m, Intent::Ready { ready: true }, &mut ctx)
        .expect("ready");
    active
        .apply(&ben_m, Intent::Start, &mut ctx)
        .expect("start");
    for cell in [4, 0, 8] {
        let view = active.view_for(&PlayerKey::User(ana), 0);
        let mover = if view.seats[1].mark == Some(view.turn) {
            &ana_m
        } else {
            &ben_m
        };
        active
            .apply(mover, Intent::Move { cell }, &mut ctx)
            .expect("move");
    }
    ctx.seats = &mut other_seats;
    let waiting = Room::new("fixture-waiting".into(), online(Game::Xo), &ana_m, &mut ctx);
    vec![waiting, active]
}

/// Writes the data set through the store's public API.
fn write_data_set(store: &Store) {
    let ana = store
        .register_blocking("Ana", HASH, [1; 32], CREATED_MS, EXPIRES_MS)
        .expect("register Ana");
    let ben = store
        .register_blocking("Ben", HASH, [2; 32], CREATED_MS, EXPIRES_MS)
        .expect("register Ben");
    store
        .create_session_blocking([3; 32], ben, CREATED_MS, EXPIRES_MS)
        .expect("a second session");
    for game in games(ana, ben) {
        store.commit_game_blocking(&game).expect("commit");
    }
    for room in rooms(ana, ben) {
        store
            .save_room_blocking(room.id(), &room.save())
            .expect("save room");
    }
}

/// Reads every record of the data set back from `store`.
fn check_data_set(store: &Store, fixture: &str, users: u64) {
    let (ana, ana_rec) = store
        .user_by_name_blocking("ana")
        .expect("read")
        .unwrap_or_else(|| panic!("{fixture}: Ana"));
    let (ben, ben_rec) = store
        .user_by_name_blocking("BEN")
        .expect("read")
        .unwrap_or_else(|| panic!("{fixture}: Ben"));
    assert_eq!(
        (ana_rec.name.as_str(), ben_rec.name.as_str()),
        ("Ana", "Ben")
    );
    assert_eq!(ana_rec.password_hash, HASH, "{fixture}");
    assert_eq!(ana_rec.created_ms, CREATED_MS, "{fixture}");
    assert_eq!(
        store.user_count_blocking().expect("count"),
        users,
        "{fixture}"
    );

    for (token, who) in [([1; 32], ana), ([2; 32], ben), ([3; 32], ben)] {
        let account = store
            .session_account_blocking(&token, CREATED_MS)
            .expect("read")
            .unwrap_or_else(|| panic!("{fixture}: session {}", token[0]));
        assert_eq!(account.id, who, "{fixture}");
    }

    // The rated win moved both XO ratings by 16 from 1200, and nothing else.
    let xo = store
        .ratings_blocking(Game::Xo, &[ana, ben])
        .expect("ratings");
    assert_eq!(xo, vec![1216, 1184], "{fixture}");
    assert_eq!(
        (ana_rec.xo.wins, ana_rec.xo.points, ben_rec.xo.losses),
        (1, 10, 1),
        "{fixture}"
    );
    assert_eq!(ana_rec.infinite.games() + ben_rec.infinite.games(), 0);

    let expected = games(ana, ben);
    for (seq, want) in expected.iter().enumerate() {
        let stored = store
            .game_blocking(&want.id)
            .expect("read")
            .unwrap_or_else(|| panic!("{fixture}: game {}", want.id));
        assert_eq!(stored.game, *want, "{fixture}");
        assert_eq!(stored.seq, seq as u64, "{fixture}");
        assert_eq!(stored.updates.len(), if want.rated { 2 } else { 0 });
    }
    let ana_games: Vec<String> = store
        .recent_games_blocking(ana, 10)
        .expect("read")
        .into_iter()
        .map(|g| g.game.id)
        .collect();
    assert_eq!(ana_games, ["fixture-bot", "fixture-rated"], "{fixture}");

    // Tables added beside the schema (owner settings, reset codes) start empty in an old file.
    assert_eq!(
        store.settings_blocking().expect("settings"),
        None,
        "{fixture}"
    );
    assert_eq!(
        store
            .reset_code_blocking(ana, CREATED_MS)
            .expect("reset code"),
        None,
        "{fixture}"
    );

    // So do the puzzle tables: every player at 1200 with nothing tried, no daily count.
    let (puzzles, attempts) = store
        .puzzle_profile_blocking(ana, 20)
        .expect("puzzle profile");
    assert_eq!(
        (puzzles, attempts.len()),
        ([protocol::http::PuzzleStats::default(); 2], 0),
        "{fixture}"
    );
    assert_eq!(
        store
            .daily_solves_stored_blocking(20_791)
            .expect("daily counts"),
        [0, 0],
        "{fixture}"
    );

    let mut saved = store.load_rooms_blocking().expect("rooms");
    saved.sort();
    let ids: Vec<&str> = saved.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["fixture-active", "fixture-waiting"], "{fixture}");
    for (id, bytes) in &saved {
        let room = Room::restore(bytes, &mut Seats::default())
            .unwrap_or_else(|e| panic!("{fixture}: room {id}: {e}"));
        match id.as_str() {
            "fixture-active" => {
                assert_eq!(room.phase(), Phase::Playing);
                let view = room.view_for(&PlayerKey::User(ana), 0);
                assert_eq!(view.moves, [4, 0, 8], "{fixture}");
                assert_eq!(room.seated_users(), [ben, ana]);
            }
            _ => {
                assert_eq!(room.phase(), Phase::Waiting);
                assert_eq!(room.seated_users(), [ana]);
            }
        }
    }
}

/// Every fixture opens with the current code and keeps all of its data; the reopened file
/// then takes new writes.
#[test]
fn every_previous_version_opens_with_all_its_data() {
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(fixtures_dir())
        .expect("tests/fixtures exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "redb"))
        .collect();
    fixtures.sort();
    assert!(
        fixtures.iter().any(|p| p.ends_with("v1.redb")),
        "the first release's file is kept: {fixtures:?}"
    );
    for fixture in fixtures {
        let name = fixture.display().to_string();
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::copy(&fixture, dir.path().join(DB_FILE)).expect("copy fixture");
        let store = Store::open_blocking(dir.path())
            .unwrap_or_else(|e| panic!("{name} does not open: {e}"));
        check_data_set(&store, &name, 2);
        store
            .register_blocking("Cleo", HASH, [9; 32], CREATED_MS, EXPIRES_MS)
            .unwrap_or_else(|e| panic!("{name}: a write after opening: {e}"));
        store.shutdown_blocking();
        drop(store);
        // Opened again after the migration (if any) was committed: still whole.
        let store = Store::open_blocking(dir.path()).expect("reopens");
        check_data_set(&store, &name, 3);
        store.shutdown_blocking();
    }
}

/// The generator: writes this version's fixture. Run by hand when `SCHEMA_VERSION` changes
/// (see the module docs); never overwrites a fixture already committed.
#[test]
#[ignore = "writes tests/fixtures/v<SCHEMA_VERSION>.redb; run by hand for a new schema"]
fn write_fixture_of_this_version() {
    let target = fixtures_dir().join(format!("v{SCHEMA_VERSION}.redb"));
    assert!(
        !target.exists(),
        "{} exists: a released fixture is never rewritten",
        target.display()
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open_blocking(dir.path()).expect("store");
    write_data_set(&store);
    check_data_set(&store, "the new fixture", 2);
    store.shutdown_blocking();
    drop(store);
    std::fs::create_dir_all(fixtures_dir()).expect("fixtures dir");
    std::fs::copy(dir.path().join(DB_FILE), &target).expect("write fixture");
    eprintln!("wrote {}", target.display());
}
