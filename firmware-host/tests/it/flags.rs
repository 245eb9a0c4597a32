//! Operators' and tests' flags (issue 12.7) reach the real process: documented in `--help`,
//! and the per-connection message limit is the one the WebSocket announces and enforces.

use crate::support;

use std::time::Duration;

use futures_util::StreamExt;
use support::{Process, register_at, ws_connect, ws_send, ws_wait_for};
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
    ] {
        assert!(help.contains(needle), "--help lacks {needle}:\n{help}");
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

/// M3.7 with `--xo-move-limit` (issue 12.7): a rated XO room announces the operator's limit
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
