//! E2, E3, E5 and P3 through the whole server: two accounts play a rated Infinite XO room over
//! real WebSockets until one resigns; the result reaches the players with both rating
//! changes only after it is stored, and the profile, leaderboard and game endpoints show it.

mod support;

use futures_util::{SinkExt, StreamExt};
use support::{STEP, TestServer};
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

type Ws = WebSocketStream<TcpStream>;

async fn connect(s: &TestServer, cookie: &str) -> Ws {
    let mut req = format!("ws://{}/ws", s.addr())
        .into_client_request()
        .expect("request");
    req.headers_mut()
        .insert("Cookie", cookie.parse().expect("cookie header"));
    let tcp = TcpStream::connect(s.addr()).await.expect("connect");
    let (mut ws, _) = tokio::time::timeout(STEP, tokio_tungstenite::client_async(req, tcp))
        .await
        .expect("handshake in time")
        .expect("handshake");
    send(
        &mut ws,
        serde_json::json!({"hello": {"version": protocol::PROTOCOL_VERSION}}),
    )
    .await;
    ws
}

async fn send(ws: &mut Ws, value: serde_json::Value) {
    ws.send(Message::text(value.to_string()))
        .await
        .expect("send");
}

/// Reads JSON messages until one satisfies `want` (at most 200 messages, each within STEP).
async fn wait_for(
    ws: &mut Ws,
    what: &str,
    want: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    for _ in 0..200 {
        let msg = tokio::time::timeout(STEP, ws.next())
            .await
            .unwrap_or_else(|_| panic!("waiting for {what}: nothing in time"))
            .expect("connection open")
            .expect("valid frame");
        if let Message::Text(text) = msg {
            let value: serde_json::Value = serde_json::from_str(text.as_str()).expect("JSON");
            assert!(value.get("error").is_none(), "waiting for {what}: {value}");
            if want(&value) {
                return value;
            }
        }
    }
    panic!("waiting for {what}: not among 200 messages");
}

#[tokio::test]
async fn rated_resignation_is_stored_then_announced_with_both_changes() {
    let s = TestServer::start().await;
    let host_cookie = s.register("HostPlayer", "password1").await;
    let guest_cookie = s.register("Joiner", "password1").await;
    let host_id = s.get("/api/me", Some(&host_cookie)).await.json()["id"].clone();
    let joiner_id = s.get("/api/me", Some(&guest_cookie)).await.json()["id"].clone();

    let mut host = connect(&s, &host_cookie).await;
    send(
        &mut host,
        serde_json::json!({"create_room": {"id": 1, "room": {"game": "infinite", "opponent": {"player": {}}}}}),
    )
    .await;
    let created = wait_for(&mut host, "the new room", |v| v.get("room").is_some()).await;
    let room_id = created["room"]["room"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("room id in {created}"))
        .to_owned();

    let mut joiner = connect(&s, &guest_cookie).await;
    send(
        &mut joiner,
        serde_json::json!({"join": {"id": 2, "room": room_id}}),
    )
    .await;
    wait_for(&mut joiner, "the seat", |v| v["room"]["id"] == 2).await;
    send(
        &mut joiner,
        serde_json::json!({"ready": {"id": 3, "ready": true}}),
    )
    .await;
    wait_for(&mut joiner, "ready acknowledged", |v| v["room"]["id"] == 3).await;
    send(&mut host, serde_json::json!({"start": {"id": 4}})).await;
    wait_for(&mut host, "the start", |v| v["room"]["id"] == 4).await;

    send(&mut joiner, serde_json::json!({"resign": {"id": 5}})).await;
    let result = wait_for(&mut host, "the result", |v| {
        v["event"]["event"].get("result").is_some()
    })
    .await;
    let ratings = result["event"]["event"]["result"]["ratings"]
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
