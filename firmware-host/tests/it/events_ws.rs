//! Arena events over the WebSocket (EV2–EV5), in-process on a real redb file with real
//! WebSocket clients: watching, joining, pausing and leaving with their refusals; a wave
//! pairs two players into a started room; the game's result counts in the standings and is
//! stored with its points; offline and seated players are never paired.

use crate::support;

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{Value, json};
use support::owner::{make_owner, send};
use support::{TestServer, Ws, register_user_at, ws_connect, ws_send};

const PASSWORD: &str = "password one";

/// The next JSON message, within `within`; `None` if none came.
async fn next_within(ws: &mut Ws, within: Duration) -> Option<Value> {
    loop {
        let msg = tokio::time::timeout(within, ws.next()).await.ok()??;
        if let Ok(tokio_tungstenite::tungstenite::Message::Text(text)) = msg {
            return Some(serde_json::from_str(text.as_str()).expect("JSON"));
        }
    }
}

/// Reads until a message satisfies `want` (errors included), within 15 s in all.
async fn until(ws: &mut Ws, what: &str, want: impl Fn(&Value) -> bool) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let msg = next_within(ws, left)
            .await
            .unwrap_or_else(|| panic!("waiting for {what}: nothing in time"));
        if want(&msg) {
            return msg;
        }
    }
}

/// The answer to request `id`: its snapshot or its error.
async fn answer(ws: &mut Ws, id: u64) -> Value {
    until(ws, &format!("the answer to {id}"), |v| {
        v["event_snapshot"]["id"] == id || v["error"]["id"] == id || v["pong"]["id"] == id
    })
    .await
}

fn error_code(v: &Value) -> &str {
    v["error"]["code"].as_str().unwrap_or("")
}

/// An owner, an Infinite XO event running now (5 s a move); its id.
async fn running_event(addr: SocketAddr) -> String {
    let (_, owner) = register_user_at(addr, "owner", PASSWORD).await;
    make_owner(addr, &owner).await;
    let form =
        json!({"game": "infinite", "duration_min": 30, "time_per_move_s": 5, "name": "Club night"});
    let created = send(
        addr,
        "POST",
        "/api/owner/events",
        Some(&form.to_string()),
        Some(&owner),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.text());
    created.json()["id"].as_str().expect("id").to_owned()
}

#[tokio::test]
async fn two_players_are_paired_into_a_started_game_whose_result_counts() {
    let server = TestServer::start().await;
    let addr = server.addr();
    let event = running_event(addr).await;

    // A guest watches but cannot join; unknown events are refused.
    let mut guest = ws_connect(addr, None).await;
    ws_send(
        &mut guest,
        json!({"watch_event": {"id": 1, "event": event}}),
    )
    .await;
    let seen = answer(&mut guest, 1).await;
    assert_eq!(
        seen["event_snapshot"]["event"]["phase"], "running",
        "{seen}"
    );
    assert_eq!(seen["event_snapshot"]["event"]["you"], Value::Null);
    ws_send(&mut guest, json!({"join_event": {"id": 2, "event": event}})).await;
    assert_eq!(error_code(&answer(&mut guest, 2).await), "sign_in_required");
    ws_send(
        &mut guest,
        json!({"watch_event": {"id": 3, "event": "e99"}}),
    )
    .await;
    assert_eq!(error_code(&answer(&mut guest, 3).await), "unknown_event");

    let (ana_id, ana) = register_user_at(addr, "ana", PASSWORD).await;
    let (ben_id, ben) = register_user_at(addr, "ben", PASSWORD).await;
    let mut a = ws_connect(addr, Some(&ana)).await;
    let mut b = ws_connect(addr, Some(&ben)).await;
    ws_send(&mut a, json!({"pause_event": {"id": 4, "event": event}})).await;
    assert_eq!(error_code(&answer(&mut a, 4).await), "not_in_event");
    for (ws, n) in [(&mut a, 5), (&mut b, 6)] {
        ws_send(ws, json!({"join_event": {"id": n, "event": event}})).await;
        let joined = answer(ws, n).await;
        assert_eq!(
            joined["event_snapshot"]["event"]["you"]["state"], "waiting",
            "{joined}"
        );
    }

    // Paired within the gathering window: `paired`, then the started room's snapshot.
    let mut marks = Vec::new();
    let mut rooms = Vec::new();
    for (ws, me, them) in [(&mut a, ana_id, ben_id), (&mut b, ben_id, ana_id)] {
        let paired = until(ws, "paired", |v| v.get("paired").is_some()).await;
        assert_eq!(paired["paired"]["event"], event.as_str());
        assert_eq!(paired["paired"]["opponent"], them, "{paired}");
        let room = paired["paired"]["room"].as_str().expect("room").to_owned();
        let snapshot = until(ws, "the game's snapshot", |v| {
            v["room"]["room"]["id"] == room.as_str()
        })
        .await;
        let view = &snapshot["room"]["room"];
        assert_eq!(view["phase"], "playing", "no ready, no start: {view}");
        assert_eq!(view["per_move_ms"], 5000);
        let seat = view["you"]["seat"].as_u64().expect("seated") as usize;
        assert_eq!(view["seats"][seat]["player"]["player"]["user"]["id"], me);
        marks.push(paired["paired"]["mark"].as_str().expect("mark").to_owned());
        rooms.push(room);
    }
    assert_eq!(rooms[0], rooms[1]);
    marks.sort();
    assert_eq!(marks, ["O", "X"]);

    // A rematch is not the event's to make; X moves, O resigns: X scores 2.
    ws_send(&mut a, json!({"offer_rematch": {"id": 7}})).await;
    let refused = until(&mut a, "the refusal", |v| v["error"]["id"] == 7).await;
    assert_eq!(error_code(&refused), "event_game", "{refused}");
    let (x, o, x_id) = if marks_of(&rooms[0], &mut a).await == "X" {
        (&mut a, &mut b, ana_id)
    } else {
        (&mut b, &mut a, ben_id)
    };
    ws_send(x, json!({"move": {"id": 8, "cell": 4}})).await;
    until(x, "the move", |v| v["room"]["id"] == 8).await;
    ws_send(o, json!({"resign": {"id": 9}})).await;
    let result = until(o, "the result", |v| v["event"].get("result").is_some()).await;
    assert_eq!(
        result["event"]["result"]["ratings"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    ws_send(o, json!({"offer_rematch": {"id": 10}})).await;
    assert_eq!(
        error_code(&until(o, "the refusal", |v| v["error"]["id"] == 10).await),
        "event_game"
    );

    // Every watcher hears the standings change; the winner leads with 2.
    let update = until(&mut guest, "the winner's row", |v| {
        v["event_update"]["standings"]["rows"]
            .as_array()
            .is_some_and(|rows| rows.iter().any(|r| r["user"] == x_id && r["games"] == 1))
    })
    .await;
    let rows = update["event_update"]["standings"]["rows"]
        .as_array()
        .expect("rows");
    let winner = rows
        .iter()
        .find(|r| r["user"] == x_id)
        .expect("winner's row");
    assert_eq!(
        (winner["points"].as_u64(), winner["rank"].as_u64()),
        (Some(2), Some(1)),
        "{update}"
    );
    // The players wait again: their own state comes to them.
    let back = until(x, "back in the queue", |v| {
        v["event_update"]["you"]["state"] == "waiting"
    })
    .await;
    assert!(back["event_update"]["you"]["room"].is_null(), "{back}");

    // Stored with its points (EV4), readable by anyone (EV5).
    let page = send(addr, "GET", &format!("/api/events/{event}"), None, None).await;
    let page = page.json();
    let games = page["games"].as_array().expect("games");
    assert_eq!(games.len(), 1, "{page}");
    assert_eq!(games[0]["game_id"], rooms[0].as_str());
    let stored = send(addr, "GET", &format!("/api/games/{}", rooms[0]), None, None).await;
    assert_eq!(stored.status, 200, "{}", stored.text());
    assert_eq!(stored.json()["rated"], true);

    // Pause, resume, leave; after leaving, pausing is refused.
    ws_send(x, json!({"pause_event": {"id": 11, "event": event}})).await;
    let paused = answer(x, 11).await;
    assert_eq!(
        paused["event_snapshot"]["event"]["you"]["state"], "paused",
        "{paused}"
    );
    ws_send(x, json!({"resume_event": {"id": 12, "event": event}})).await;
    assert_eq!(
        answer(x, 12).await["event_snapshot"]["event"]["you"]["state"],
        "waiting"
    );
    ws_send(x, json!({"leave_event": {"id": 13, "event": event}})).await;
    let left = answer(x, 13).await;
    assert_eq!(
        left["event_snapshot"]["event"]["you"]["state"], "left",
        "{left}"
    );
    ws_send(x, json!({"pause_event": {"id": 14, "event": event}})).await;
    assert_eq!(error_code(&answer(x, 14).await), "not_in_event");
    // Who played stays in the table.
    assert_eq!(
        left["event_snapshot"]["event"]["standings"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
}

/// The mark `ws`'s player holds in `room`, from a fresh snapshot.
async fn marks_of(room: &str, ws: &mut Ws) -> String {
    ws_send(ws, json!({"open": {"id": 90, "room": room}})).await;
    let view = until(ws, "the snapshot", |v| v["room"]["id"] == 90).await;
    let view = &view["room"]["room"];
    let seat = view["you"]["seat"].as_u64().expect("seated") as usize;
    view["seats"][seat]["mark"]
        .as_str()
        .expect("mark")
        .to_owned()
}

#[tokio::test]
async fn offline_and_seated_players_are_never_paired() {
    let server = TestServer::start().await;
    let addr = server.addr();
    let event = running_event(addr).await;
    let (_, ana) = register_user_at(addr, "ana", PASSWORD).await;
    let (_, ben) = register_user_at(addr, "ben", PASSWORD).await;
    let (_, cyd) = register_user_at(addr, "cyd", PASSWORD).await;

    // Ana joins and goes offline; Cyd joins while she holds a waiting room of her own.
    let mut a = ws_connect(addr, Some(&ana)).await;
    ws_send(&mut a, json!({"join_event": {"id": 1, "event": event}})).await;
    answer(&mut a, 1).await;
    drop(a);
    let mut c = ws_connect(addr, Some(&cyd)).await;
    ws_send(
        &mut c,
        json!({"create_room": {"id": 2, "room": {"game": "xo", "opponent": {"player": {}}}}}),
    )
    .await;
    until(&mut c, "her room", |v| v["room"]["id"] == 2).await;
    ws_send(&mut c, json!({"join_event": {"id": 3, "event": event}})).await;
    let joined = answer(&mut c, 3).await;
    assert_eq!(
        joined["event_snapshot"]["event"]["you"]["state"], "away",
        "{joined}"
    );
    let mut b = ws_connect(addr, Some(&ben)).await;
    ws_send(&mut b, json!({"join_event": {"id": 4, "event": event}})).await;
    answer(&mut b, 4).await;

    // Twice the gathering window: Ben alone is present, so nobody is paired.
    let quiet = tokio::time::Instant::now() + Duration::from_secs(7);
    while let Some(msg) = next_within(
        &mut b,
        quiet.saturating_duration_since(tokio::time::Instant::now()),
    )
    .await
    {
        assert!(
            msg.get("paired").is_none(),
            "paired with someone absent: {msg}"
        );
    }
    // Ana comes back (no new join): she and Ben are paired.
    let mut a = ws_connect(addr, Some(&ana)).await;
    let paired = until(&mut a, "paired", |v| v.get("paired").is_some()).await;
    let with_ben = until(&mut b, "paired", |v| v.get("paired").is_some()).await;
    assert_eq!(paired["paired"]["room"], with_ben["paired"]["room"]);
    assert_eq!(with_ben["paired"]["opponent_name"], "ana");
    // Cyd, still seated in her own room, is told nothing of it.
    while let Some(msg) = next_within(&mut c, Duration::from_millis(300)).await {
        assert!(msg.get("paired").is_none(), "{msg}");
    }
}
