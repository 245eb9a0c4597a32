//! Operators' and tests' flags reach the real process: documented in `--help`,
//! and the per-connection message limit is the one the WebSocket announces and enforces.

use crate::support;

use std::time::Duration;

use futures_util::StreamExt;
use support::{Process, Ws, register_at, ws_connect, ws_send, ws_wait_for};
use tokio_tungstenite::tungstenite::Message;

#[test]
fn help_documents_the_limit_flags() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_firmware-host"))
        .arg("--help")
        .output()
        .expect("run --help");
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "--max-messages-per-s",
        "XO_MAX_MESSAGES_PER_S",
        "[default: 20]",
        "--message-burst",
        "XO_MESSAGE_BURST",
        "[default: 40]",
        "--max-registrations-per-address",
        "XO_MAX_REGISTRATIONS_PER_ADDRESS",
        "--max-connections-per-address",
        "XO_MAX_CONNECTIONS_PER_ADDRESS",
        "--max-rated-games-per-address",
        "XO_MAX_RATED_GAMES_PER_ADDRESS",
        "--xo-move-limit",
        "XO_XO_MOVE_LIMIT",
        "[default: 120]",
        "--max-rooms",
        "XO_MAX_ROOMS",
        "[default: 2000]",
    ] {
        assert!(help.contains(needle), "--help lacks {needle}:\n{help}");
    }
}

/// AP3 and AP5's flags: documented, and a value that is not one is refused at the start with
/// what was wrong (the image's settings file sets them through the environment).
#[test]
fn the_screen_and_supervisor_flags_are_documented_and_checked() {
    let bin = env!("CARGO_BIN_EXE_firmware-host");
    let out = std::process::Command::new(bin)
        .arg("--help")
        .output()
        .expect("run --help");
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "--screen-sleep",
        "XO_SCREEN_SLEEP",
        "--screen-off-idle",
        "XO_SCREEN_OFF_IDLE",
        "--supervisor",
        "XO_SUPERVISOR",
        "--display",
    ] {
        assert!(help.contains(needle), "--help lacks {needle}:\n{help}");
    }
    for (env, value, why) in [
        ("XO_SCREEN_SLEEP", "25:00-08:00", "not a time of day"),
        ("XO_SCREEN_SLEEP", "23:00-23:00", "same time"),
        ("XO_SCREEN_OFF_IDLE", "5", "not 0 (never)"),
        (
            "XO_SUPERVISOR",
            "systemd",
            "not one of none, run-script, launcher",
        ),
    ] {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = std::process::Command::new(bin)
            .args(["--bind", "127.0.0.1:0", "--data-dir"])
            .arg(dir.path())
            .env(env, value)
            .output()
            .expect("run");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{env}={value}: {stderr}");
        assert!(stderr.contains(why), "{env}={value}: {stderr}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_message_limit_flags_reach_the_hub() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(
        dir.path(),
        &[("XO_MAX_MESSAGES_PER_S", "2"), ("XO_MESSAGE_BURST", "3")],
    );
    let mut ws = ws_connect(server.addr, None).await;
    let hello = ws_wait_for(&mut ws, "hello", |v| v.get("hello").is_some()).await;
    assert_eq!(hello["hello"]["max_messages_per_s"], 2, "{hello}");
    // Far more than 2 a second plus a burst of 3: the connection is told `flood` and closed.
    for id in 0..20 {
        ws_send(&mut ws, serde_json::json!({"ping": {"id": id}})).await;
    }
    let mut flood = false;
    for _ in 0..40 {
        match tokio::time::timeout(Duration::from_secs(10), ws.next()).await {
            Ok(Some(Ok(Message::Text(text)))) => {
                let v: serde_json::Value = serde_json::from_str(text.as_str()).expect("JSON");
                flood |= v["error"]["code"] == "flood";
            }
            Ok(Some(Ok(Message::Close(_)) | Err(_)) | None) => break,
            Ok(Some(Ok(_))) => {}
            Err(_) => panic!("the flooding socket is neither answered nor closed"),
        }
    }
    assert!(flood, "the lowered limit was enforced");
    server.stop_with("-TERM");
}

/// M3.7 with `--xo-move-limit`: a rated XO room announces the operator's limit
/// and forfeits the game to the opponent when it runs out; Infinite XO keeps its chosen time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_xo_move_limit_flag_reaches_rated_rooms() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(
        dir.path(),
        &[
            ("XO_XO_MOVE_LIMIT", "2"),
            ("XO_MAX_REGISTRATIONS_PER_ADDRESS", "0"),
        ],
    );
    let host_cookie = register_at(server.addr, "hana", "password-123").await;
    let joiner_cookie = register_at(server.addr, "joel", "password-123").await;
    let mut host = ws_connect(server.addr, Some(&host_cookie)).await;
    ws_send(
        &mut host,
        serde_json::json!({"create_room": {"id": 1, "room": {"game": "infinite", "opponent": {"player": {}}}}}),
    )
    .await;
    let infinite = ws_wait_for(&mut host, "the infinite room", |v| v["room"]["id"] == 1).await;
    assert_eq!(
        infinite["room"]["room"]["per_move_ms"], 10_000,
        "Infinite XO keeps its own time: {infinite}"
    );
    ws_send(&mut host, serde_json::json!({"exit": {"id": 2}})).await;
    ws_wait_for(&mut host, "left", |v| {
        v.get("left").is_some() || v["room"]["id"] == 2
    })
    .await;
    ws_send(
        &mut host,
        serde_json::json!({"create_room": {"id": 3, "room": {"game": "xo", "opponent": {"player": {}}}}}),
    )
    .await;
    let created = ws_wait_for(&mut host, "the XO room", |v| v["room"]["id"] == 3).await;
    assert_eq!(created["room"]["room"]["per_move_ms"], 2_000, "{created}");
    let room_id = created["room"]["room"]["id"].clone();
    let mut joiner = ws_connect(server.addr, Some(&joiner_cookie)).await;
    ws_send(
        &mut joiner,
        serde_json::json!({"join": {"id": 4, "room": room_id}}),
    )
    .await;
    ws_wait_for(&mut joiner, "the seat", |v| v["room"]["id"] == 4).await;
    ws_send(
        &mut joiner,
        serde_json::json!({"ready": {"id": 5, "ready": true}}),
    )
    .await;
    ws_wait_for(&mut joiner, "ready", |v| v["room"]["id"] == 5).await;
    ws_send(&mut host, serde_json::json!({"start": {"id": 6}})).await;
    ws_wait_for(&mut host, "the start", |v| v["room"]["id"] == 6).await;
    // Nobody moves: X's two seconds run out and O wins on time.
    let result = ws_wait_for(&mut host, "the forfeit", |v| {
        v["event"].get("result").is_some()
    })
    .await;
    assert!(
        result.to_string().contains("\"timeout\""),
        "the game ended on time: {result}"
    );
    server.stop_with("-TERM");
}

/// The answer to request `id`: its room, or its error.
async fn answer_to(ws: &mut Ws, id: u32) -> serde_json::Value {
    for _ in 0..50 {
        let msg = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("an answer in time")
            .expect("connection open")
            .expect("valid frame");
        if let Message::Text(text) = msg {
            let v: serde_json::Value = serde_json::from_str(text.as_str()).expect("JSON");
            if v["room"]["id"] == id || v["error"]["id"] == id {
                return v;
            }
        }
    }
    panic!("no answer to request {id} among 50 messages");
}

/// `--max-rooms` (`XO_MAX_ROOMS`) bounds the open rooms of a real server: with 8, eight
/// visitors each playing the bot fill it and a ninth is told `unavailable`; once one of them
/// stops viewing their game, the ninth's next try closes that game and gets a room.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_room_limit_flag_reaches_the_hub() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[("XO_MAX_ROOMS", "8")]);
    let bot_room = |id: u32| serde_json::json!({"create_room": {"id": id, "room": {"game": "xo", "opponent": {"bot": {}}}}});
    let mut players = Vec::new();
    for _ in 0..8 {
        let mut ws = ws_connect(server.addr, None).await;
        ws_send(&mut ws, bot_room(1)).await;
        let created = answer_to(&mut ws, 1).await;
        assert!(created.get("room").is_some(), "{created}");
        players.push(ws);
    }
    let mut ninth = ws_connect(server.addr, None).await;
    ws_send(&mut ninth, bot_room(1)).await;
    let refused = answer_to(&mut ninth, 1).await;
    assert_eq!(refused["error"]["code"], "unavailable", "{refused}");
    // The fifth visitor walks away from their game (the oldest is left in use).
    ws_send(&mut players[4], serde_json::json!({"close": {"id": 2}})).await;
    ws_wait_for(&mut players[4], "left", |v| v.get("left").is_some()).await;
    ws_send(&mut ninth, bot_room(2)).await;
    let mut created = answer_to(&mut ninth, 2).await;
    for try_again in 3..40 {
        // The abandoned room closes in its own task; the limit may still count it once.
        if created.get("room").is_some() {
            break;
        }
        assert_eq!(created["error"]["code"], "unavailable", "{created}");
        tokio::time::sleep(Duration::from_millis(50)).await;
        ws_send(&mut ninth, bot_room(try_again)).await;
        created = answer_to(&mut ninth, try_again).await;
    }
    assert!(created.get("room").is_some(), "{created}");
    drop(players);
    server.stop_with("-TERM");
}

/// A burst at the room limit: 24 visitors ask for a bot game at the same moment on a server
/// limited to 8 rooms. Eight get one, the rest `unavailable`, and the server holds 8 rooms,
/// not more.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_burst_of_creations_does_not_pass_the_room_limit() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[("XO_MAX_ROOMS", "8")]);
    let mut visitors = Vec::new();
    for _ in 0..24 {
        visitors.push(ws_connect(server.addr, None).await);
    }
    let start = std::sync::Arc::new(tokio::sync::Barrier::new(visitors.len()));
    let asks = visitors.into_iter().map(|mut ws| {
        let start = start.clone();
        tokio::spawn(async move {
            start.wait().await;
            ws_send(&mut ws, serde_json::json!({"create_room": {"id": 1, "room": {"game": "xo", "opponent": {"bot": {}}}}})).await;
            let answer = answer_to(&mut ws, 1).await;
            (answer, ws)
        })
    });
    let mut created = 0;
    let mut kept = Vec::new();
    for ask in asks.collect::<Vec<_>>() {
        let (answer, ws) = ask.await.expect("visitor");
        if answer.get("room").is_some() {
            created += 1;
        } else {
            assert_eq!(answer["error"]["code"], "unavailable", "{answer}");
        }
        kept.push(ws);
    }
    let rooms = support::request(server.addr, "GET", "/api/rooms", &[], None).await;
    let listed = rooms.json().as_array().expect("a list").len();
    assert_eq!((created, listed), (8, 8), "rooms created and listed");
    drop(kept);
    server.stop_with("-TERM");
}
