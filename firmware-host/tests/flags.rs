//! Operators' and tests' flags (issue 12.7) reach the real process: documented in `--help`,
//! and the per-connection message limit is the one the WebSocket announces and enforces.

mod support;

use std::time::Duration;

use futures_util::StreamExt;
use support::{Process, ws_connect, ws_send, ws_wait_for};
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
