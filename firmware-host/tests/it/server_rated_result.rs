//! E2, E3, E5 and P3 through the whole server: two accounts play a rated Infinite XO room over
//! real WebSockets until one resigns; the result reaches the players with both rating
//! changes only after it is stored, and the profile, leaderboard and game endpoints show it.

use crate::support;

use support::{TestServer, play_rated_until_resignation};

#[tokio::test]
async fn rated_resignation_is_stored_then_announced_with_both_changes() {
    let s = TestServer::start().await;
    let host_cookie = s.register("HostPlayer", "password1").await;
    let guest_cookie = s.register("Joiner", "password1").await;
    let host_id = s.get("/api/me", Some(&host_cookie)).await.json()["id"].clone();
    let joiner_id = s.get("/api/me", Some(&guest_cookie)).await.json()["id"].clone();

    let (room_id, result) =
        play_rated_until_resignation(s.addr(), &host_cookie, &guest_cookie).await;
    let ratings = result["event"]["result"]["ratings"]
        .as_array()
        .unwrap_or_else(|| panic!("ratings in {result}"))
        .clone();
    assert_eq!(ratings.len(), 2, "{result}");
    let change_of = |user: &serde_json::Value| {
        let u = ratings
            .iter()
            .find(|r| r["user"] == *user)
            .unwrap_or_else(|| panic!("{user} in {result}"));
        u["after"].as_i64().expect("after") - u["before"].as_i64().expect("before")
    };
    assert_eq!(change_of(&host_id), 16, "E2: equal ratings, a win is +16");
    assert_eq!(change_of(&joiner_id), -16);

    // Announced only after the commit (P3): the store already has it.
    let profile = s.get("/api/users/hostplayer", None).await.json();
    assert_eq!(profile["ratings"]["infinite"], 1216, "{profile}");
    assert_eq!(profile["points"], 10, "E5");
    let loser = s.get("/api/users/Joiner", None).await.json();
    assert_eq!(loser["ratings"]["infinite"], 1184);
    assert_eq!(loser["ladders"]["infinite"]["losses"], 1);
    let board = s.get("/api/leaderboard?game=infinite", None).await.json();
    assert_eq!(board["players"][0]["username"], "HostPlayer", "{board}");
    let game = s.get(&format!("/api/games/{room_id}"), None).await;
    assert_eq!(game.status, 200, "{}", game.text());
    assert_eq!(game.json()["rated"], true);
    assert_eq!(
        game.json()["rating_updates"].as_array().map(Vec::len),
        Some(2)
    );
    s.server.shutdown().await;
}
