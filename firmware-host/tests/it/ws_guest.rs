//! Guests have an anonymous identity (the `xo_guest` cookie), so they can come back to their
//! own bot game from a new connection, and nobody else can play it for them.

use crate::support;

use support::{TestServer, ws_connect, ws_send, ws_wait_for};

#[tokio::test]
async fn guest_returns_to_their_own_bot_game_and_others_only_watch() {
    let server = TestServer::start().await;
    let first = server.get("/api/health", None).await;
    let guest = first
        .cookie_pair("xo_guest")
        .expect("a guest cookie for a new client");

    let mut ws = ws_connect(server.addr(), Some(&guest)).await;
    ws_send(
        &mut ws,
        serde_json::json!({"create_room": {"id": 1, "room": {"game": "xo", "opponent": {"bot": {"difficulty": 0}}}}}),
    )
    .await;
    let created = ws_wait_for(&mut ws, "the bot room", |v| v["room"]["id"] == 1).await;
    let room = created["room"]["room"]["id"]
        .as_str()
        .expect("room id")
        .to_owned();
    ws_send(&mut ws, serde_json::json!({"move": {"id": 2, "cell": 4}})).await;
    ws_wait_for(&mut ws, "the move", |v| v["room"]["id"] == 2).await;
    drop(ws);

    // The same guest on a new connection is still the player, with the bot's reply on the board.
    let mut back = ws_connect(server.addr(), Some(&guest)).await;
    ws_send(
        &mut back,
        serde_json::json!({"open": {"id": 3, "room": room}}),
    )
    .await;
    let view = ws_wait_for(&mut back, "the room again", |v| v["room"]["id"] == 3).await;
    let view = &view["room"]["room"];
    assert_eq!(view["moves"].as_array().map(Vec::len), Some(2), "{view}");
    assert_eq!(view["you"]["seat"], 0, "{view}");
    assert_eq!(view["you"]["to_move"], true, "{view}");
    let free = (0..9)
        .find(|c| {
            !view["moves"]
                .as_array()
                .expect("moves")
                .contains(&serde_json::json!(c))
        })
        .expect("a free cell");
    ws_send(
        &mut back,
        serde_json::json!({"move": {"id": 4, "cell": free}}),
    )
    .await;
    ws_wait_for(&mut back, "the returning guest's move", |v| {
        v["room"]["id"] == 4
    })
    .await;

    // Another guest sees the game but cannot play in it.
    let other = server.get("/api/health", None).await;
    let other = other.cookie_pair("xo_guest").expect("another guest cookie");
    assert_ne!(other, guest);
    let mut stranger = ws_connect(server.addr(), Some(&other)).await;
    ws_send(
        &mut stranger,
        serde_json::json!({"open": {"id": 5, "room": room}}),
    )
    .await;
    let seen = ws_wait_for(&mut stranger, "the watched room", |v| v["room"]["id"] == 5).await;
    assert_eq!(seen["room"]["room"]["you"]["seat"], serde_json::Value::Null);
    ws_send(
        &mut stranger,
        serde_json::json!({"move": {"id": 6, "cell": 0}}),
    )
    .await;
    let refused = loop {
        let msg = ws_wait_for_any(&mut stranger).await;
        if msg.get("error").is_some() {
            break msg;
        }
    };
    assert_eq!(refused["error"]["id"], 6, "{refused}");
    assert_eq!(refused["error"]["code"], "spectator", "{refused}");
}

/// The next JSON message, errors included (ws_wait_for fails on errors).
async fn ws_wait_for_any(ws: &mut support::Ws) -> serde_json::Value {
    use futures_util::StreamExt;
    let msg = tokio::time::timeout(support::STEP, ws.next())
        .await
        .expect("a message in time")
        .expect("connection open")
        .expect("valid frame");
    serde_json::from_str(msg.to_text().expect("text frame")).expect("JSON")
}
