//! Rated games are kept for ever, so one network address
//! may start only `--max-rated-games-per-address` of them within an hour (a game counts for
//! each address its two players are connected from). Before, two accounts of one address could
//! play about 100 short rated games a second, about 4 GB a day on the card.
//!
//! One attacker address (127.0.0.2) readies more rooms than its budget and fires every start
//! at once from its own connection: exactly the budget start, the rest get
//! `too_many_rated_games` and stay waiting; a rematch past the budget is refused too; a game
//! with one player on the spent address is refused; players on another address are not
//! affected; only the admitted games are stored.

use crate::support;

use std::net::{Ipv4Addr, SocketAddr};

use futures_util::StreamExt;
use serde_json::{Value, json};
use support::{Process, STEP, Ws, register_at, request, ws_connect_from, ws_send, ws_wait_for};

const BUDGET: usize = 4;
const ATTACKER: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);
const NEIGHBOUR: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 3);

/// The answer to request `id`: the snapshot (`Ok`) or the error (`Err`), skipping pushed
/// messages.
async fn answer(ws: &mut Ws, id: u32) -> Result<Value, Value> {
    for _ in 0..200 {
        let msg = tokio::time::timeout(STEP, ws.next())
            .await
            .unwrap_or_else(|_| panic!("no answer to request {id} in time"))
            .expect("connection open")
            .expect("valid frame");
        let Ok(text) = msg.to_text() else { continue };
        let Ok(value) = serde_json::from_str::<Value>(text) else {
            continue;
        };
        if value["room"]["id"] == id {
            return Ok(value);
        }
        if value["error"]["id"] == id {
            return Err(value["error"].clone());
        }
    }
    panic!("no answer to request {id} among 200 messages");
}

/// A waiting rated Infinite XO room: the host on `host_from`, the joiner seated and ready on
/// `joiner_from`. Both sockets, and the room id.
async fn ready_room(
    addr: SocketAddr,
    (host, host_from): (&str, Ipv4Addr),
    (joiner, joiner_from): (&str, Ipv4Addr),
) -> (Ws, Ws, String) {
    let host_cookie = register_at(addr, host, "password-123").await;
    let joiner_cookie = register_at(addr, joiner, "password-123").await;
    let mut h = ws_connect_from(host_from, addr, Some(&host_cookie)).await;
    ws_send(
        &mut h,
        json!({"create_room": {"id": 1, "room": {"game": "infinite", "opponent": {"player": {}}}}}),
    )
    .await;
    let created = answer(&mut h, 1).await.expect("room created");
    let room = created["room"]["room"]["id"]
        .as_str()
        .expect("room id")
        .to_owned();
    let mut j = ws_connect_from(joiner_from, addr, Some(&joiner_cookie)).await;
    ws_send(&mut j, json!({"join": {"id": 2, "room": room}})).await;
    answer(&mut j, 2).await.expect("seated");
    ws_send(&mut j, json!({"ready": {"id": 3, "ready": true}})).await;
    answer(&mut j, 3).await.expect("ready");
    (h, j, room)
}

fn assert_budget_refusal(error: &Value) {
    assert_eq!(error["code"], "too_many_rated_games", "{error}");
    let message = error["message"].as_str().unwrap_or_default();
    assert!(message.contains("min"), "says when: {message}");
}

/// The phase the lobby shows for `room`.
async fn lobby_phase(addr: SocketAddr, room: &str) -> Value {
    let lobby = request(addr, "GET", "/api/rooms", &[], None).await.json();
    lobby
        .as_array()
        .or_else(|| lobby["rooms"].as_array())
        .and_then(|rows| rows.iter().find(|r| r["id"] == room))
        .map_or(Value::Null, |r| r["phase"].clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rated_games_are_limited_per_address() {
    let dir = tempfile::tempdir().expect("temp dir");
    let budget = BUDGET.to_string();
    let server = Process::start(
        dir.path(),
        &[("XO_MAX_RATED_GAMES_PER_ADDRESS", budget.as_str())],
    );
    let addr = server.addr;

    // Twice the budget of rooms, both players of each on the attacker's address.
    let mut rooms = Vec::new();
    for n in 0..2 * BUDGET {
        let host = format!("host{n}");
        let joiner = format!("joiner{n}");
        rooms.push(ready_room(addr, (&host, ATTACKER), (&joiner, ATTACKER)).await);
    }
    // Every start at once, then every answer.
    for (h, _, _) in &mut rooms {
        ws_send(h, json!({"start": {"id": 4}})).await;
    }
    let mut started = Vec::new();
    let mut refused = Vec::new();
    for (n, (h, _, room)) in rooms.iter_mut().enumerate() {
        match answer(h, 4).await {
            Ok(snapshot) => {
                assert_eq!(snapshot["room"]["room"]["phase"], "playing", "{snapshot}");
                started.push(n);
            }
            Err(error) => {
                assert_budget_refusal(&error);
                refused.push((n, room.clone()));
            }
        }
    }
    assert_eq!(
        started.len(),
        BUDGET,
        "exactly the budget starts: {started:?}"
    );
    for (_, room) in &refused {
        assert_eq!(
            lobby_phase(addr, room).await,
            "waiting",
            "a refused room stays"
        );
    }

    // Another address is not affected.
    let (mut h, mut j, _) = ready_room(addr, ("nina", NEIGHBOUR), ("nour", NEIGHBOUR)).await;
    ws_send(&mut h, json!({"start": {"id": 4}})).await;
    answer(&mut h, 4)
        .await
        .expect("the neighbours' game starts");
    ws_send(&mut j, json!({"resign": {"id": 5}})).await;
    answer(&mut j, 5).await.expect("resigned");

    // One player on the spent address is enough to refuse the game.
    let (mut h, _j, _) = ready_room(addr, ("mona", NEIGHBOUR), ("mixed", ATTACKER)).await;
    ws_send(&mut h, json!({"start": {"id": 4}})).await;
    assert_budget_refusal(&answer(&mut h, 4).await.expect_err("refused"));

    // The admitted games end; a rematch of one is past the budget too, and the offer stays.
    for &n in &started {
        let (h, j, _) = &mut rooms[n];
        ws_send(j, json!({"resign": {"id": 5}})).await;
        ws_wait_for(h, "the result", |v| v["event"].get("result").is_some()).await;
    }
    let (h, j, _) = &mut rooms[started[0]];
    ws_send(h, json!({"offer_rematch": {"id": 6}})).await;
    answer(h, 6).await.expect("offer sent");
    ws_send(j, json!({"answer_rematch": {"id": 7, "accept": true}})).await;
    assert_budget_refusal(&answer(j, 7).await.expect_err("rematch refused"));

    // Only the admitted games were stored: every host of a started room won once, the
    // others never played.
    let wins = |profile: &Value| profile["ladders"]["infinite"]["wins"].as_u64().unwrap_or(0);
    for n in 0..2 * BUDGET {
        let profile = request(addr, "GET", &format!("/api/users/host{n}"), &[], None)
            .await
            .json();
        let expected = u64::from(started.contains(&n));
        assert_eq!(wins(&profile), expected, "host{n}: {profile}");
    }
    assert!(
        server
            .wait_log_lines("rated game refused")
            .await
            .iter()
            .any(|l| l.contains("127.0.0.2")),
        "the spent address is logged"
    );
    server.stop_with("-TERM");
}
