//! E5 and U10 over HTTP: profile, leaderboard and a finished game, after results stored the
//! way rooms store them (through `rooms::Persistence`).

use crate::support;
use crate::support::store::BlockingWrites;

use engine::{Game, Mark};
use protocol::records::{FinishedGame, GameEnd, PlayerRef};
use support::TestServer;

async fn commit(s: &TestServer, game: FinishedGame) {
    let store = s.server.app().store.clone();
    tokio::task::spawn_blocking(move || store.commit_game_blocking(&game))
        .await
        .expect("task")
        .expect("commit");
}

async fn user_id(s: &TestServer, cookie: &str) -> u64 {
    s.get("/api/me", Some(cookie)).await.json()["id"]
        .as_u64()
        .expect("id")
}

#[tokio::test]
async fn profile_leaderboard_and_game_show_a_rated_result() {
    let s = TestServer::start().await;
    let sara_cookie = s.register("Sara", "password1").await;
    let omar_cookie = s.register("Omar", "password1").await;
    let sara = user_id(&s, &sara_cookie).await;
    let omar = user_id(&s, &omar_cookie).await;
    commit(
        &s,
        FinishedGame {
            id: "room-1".into(),
            game: Game::Infinite,
            rated: true,
            x: PlayerRef::User {
                id: sara,
                name: "Sara".into(),
            },
            o: PlayerRef::User {
                id: omar,
                name: "Omar".into(),
            },
            moves: vec![0, 3, 1, 4, 2],
            end: GameEnd::Line {
                winner: Mark::X,
                line: [0, 1, 2],
            },
            started_at_ms: 1,
            ended_at_ms: 2,
        },
    )
    .await;
    commit(
        &s,
        FinishedGame {
            id: "bot-7".into(),
            game: Game::Xo,
            rated: false,
            x: PlayerRef::Bot { difficulty: 50 },
            o: PlayerRef::User {
                id: sara,
                name: "Sara".into(),
            },
            moves: vec![4, 0, 8],
            end: GameEnd::Resigned { loser: Mark::O },
            started_at_ms: 3,
            ended_at_ms: 4,
        },
    )
    .await;

    let profile = s.get("/api/users/sara", None).await;
    assert_eq!(profile.status, 200, "{}", profile.text());
    let p = profile.json();
    assert_eq!(p["username"], "Sara");
    assert_eq!(p["ratings"]["infinite"], 1216);
    assert_eq!(p["ratings"]["xo"], 1200, "bot games are never rated (M1)");
    assert_eq!(p["points"], 10);
    assert_eq!(p["ladders"]["infinite"]["wins"], 1);
    assert_eq!(p["ladders"]["infinite"]["losses"], 0);
    assert_eq!(p["ladders"]["xo"]["games"], 0);
    let recent = p["recent_games"].as_array().expect("recent games");
    assert_eq!(recent.len(), 2);
    assert_eq!(recent[0]["id"], "bot-7", "newest first");
    assert_eq!(recent[1]["id"], "room-1");

    let omar_profile = s.get("/api/users/Omar", None).await.json();
    assert_eq!(omar_profile["ratings"]["infinite"], 1184);
    assert_eq!(omar_profile["points"], 1, "E5: a loss is worth 1");

    let board = s.get("/api/leaderboard?game=infinite", None).await.json();
    let players = board["players"].as_array().expect("players");
    assert_eq!(players.len(), 2);
    assert_eq!(players[0]["username"], "Sara");
    assert_eq!(players[0]["rank"], 1);
    assert_eq!(players[1]["username"], "Omar");
    assert_eq!(
        s.get("/api/leaderboard?game=xo", None).await.json()["players"],
        serde_json::json!([]),
        "nobody has a rated XO game"
    );

    let game = s.get("/api/games/room-1", None).await;
    assert_eq!(game.status, 200, "{}", game.text());
    let g = game.json();
    assert_eq!(
        g["moves"],
        serde_json::json!([0, 3, 1, 4, 2]),
        "every move, for replay"
    );
    assert_eq!(g["game"], "infinite");
    assert_eq!(g["winner"], "x");
    assert_eq!(g["x"]["user"]["name"], "Sara", "{g}");
    let updates = g["rating_updates"].as_array().expect("updates");
    assert_eq!(updates.len(), 2);
    assert_eq!(updates[0]["change"], 16);
    assert_eq!(updates[1]["change"], -16);
    s.server.shutdown().await;
}

#[tokio::test]
async fn game_ids_are_percent_decoded() {
    let s = TestServer::start().await;
    commit(
        &s,
        FinishedGame {
            id: "local game".into(),
            game: Game::Xo,
            rated: false,
            // A registered player's bot game: games without one are not stored.
            x: PlayerRef::User {
                id: 0,
                name: "Sara".into(),
            },
            o: PlayerRef::Bot { difficulty: 50 },
            moves: vec![0, 1, 2, 3, 4, 5, 6],
            end: GameEnd::Line {
                winner: Mark::X,
                line: [0, 3, 6],
            },
            started_at_ms: 1,
            ended_at_ms: 2,
        },
    )
    .await;
    let g = s.get("/api/games/local%20game", None).await;
    assert_eq!(g.status, 200, "{}", g.text());
    assert_eq!(g.json()["id"], "local game");
    s.server.shutdown().await;
}
