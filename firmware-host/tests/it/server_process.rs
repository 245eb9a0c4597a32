//! P1, A2 and clean shutdown with the real binary: flags and environment variables, the
//! "listening on" log line, SIGTERM and SIGINT, and a session that survives a restart.

use crate::support;

use std::net::SocketAddr;
use std::process::Command;
use std::time::Duration;

use support::{Process, credentials, request};

const BIN: &str = env!("CARGO_BIN_EXE_firmware-host");

#[test]
fn help_documents_every_flag_and_its_environment_variable() {
    let out = Command::new(BIN)
        .arg("--help")
        .output()
        .expect("run --help");
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "--bind",
        "XO_BIND",
        "0.0.0.0:8080",
        "--data-dir",
        "XO_DATA_DIR",
        "./data",
        "--log",
        "XO_LOG",
        "--kiosk-idle",
        "XO_KIOSK_IDLE",
        "120",
        "--port-file",
        "--max-ws-per-address",
        "XO_MAX_WS_PER_ADDRESS",
        "--public-url",
        "XO_PUBLIC_URL",
        "--display",
        "XO_DISPLAY",
    ] {
        assert!(help.contains(needle), "--help lacks {needle}:\n{help}");
    }
}

#[tokio::test]
async fn session_survives_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let registered = request(
        server.addr,
        "POST",
        "/api/register",
        &[("Content-Type", "application/json")],
        Some(credentials("Sara", "password1").as_bytes()),
    )
    .await;
    assert_eq!(registered.status, 201, "{}", registered.text());
    let cookie = registered
        .cookie_pair("xo_session")
        .expect("session cookie");
    server.stop_with("-TERM");

    let server = Process::start(dir.path(), &[]);
    let me = request(server.addr, "GET", "/api/me", &[("Cookie", &cookie)], None).await;
    assert_eq!(me.status, 200, "{}", me.text());
    assert_eq!(me.json()["username"], "Sara");
    let again = request(
        server.addr,
        "POST",
        "/api/register",
        &[("Content-Type", "application/json")],
        Some(credentials("SARA", "password1").as_bytes()),
    )
    .await;
    again.assert_error(409, "username_taken");
    server.stop_with("-INT");
}

#[tokio::test]
async fn environment_variables_set_the_flags() {
    let dir = tempfile::tempdir().expect("temp dir");
    let port_file = dir.path().join("port");
    let server = Process::start(
        &dir.path().join("nested/data"),
        &[
            ("XO_KIOSK_IDLE", "45"),
            ("XO_LOG", "debug"),
            ("XO_PORT_FILE", port_file.to_str().expect("utf-8 path")),
        ],
    );
    let config = request(server.addr, "GET", "/api/config", &[], None).await;
    assert_eq!(config.json()["kiosk_idle_s"], 45);
    let port = std::fs::read_to_string(&port_file).expect("port file written");
    assert_eq!(port.trim(), server.addr.port().to_string());
    assert!(
        dir.path()
            .join("nested/data")
            .join(firmware_host::store::DB_FILE)
            .is_file(),
        "the data directory and its redb file are created"
    );
    server.stop_with("-TERM");
}

#[test]
fn a_bad_flag_is_refused_with_a_message() {
    let out = Command::new(BIN)
        .args(["--bind", "not-an-address"])
        .output()
        .expect("run");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--bind"));
}

/// Opens a WebSocket with a cookie, sends hello and a `create_room` for an online Infinite XO
/// room, and waits until the lobby lists it.
async fn create_online_room(addr: SocketAddr, cookie: &str) -> String {
    use futures_util::SinkExt;
    use tokio_tungstenite::tungstenite::Message;

    let (mut ws, _) = support::ws_handshake(addr, Some(cookie)).await;
    for msg in [
        serde_json::json!({"hello": {"version": protocol::PROTOCOL_VERSION}}),
        serde_json::json!({"create_room": {"id": 1, "room": {"game": "infinite", "opponent": {"player": {}}, "time_per_move_s": 30}}}),
    ] {
        ws.send(Message::text(msg.to_string())).await.expect("send");
    }
    for _ in 0..100 {
        let rooms = request(addr, "GET", "/api/rooms", &[], None).await.json();
        if let Some(id) = rooms[0]["id"].as_str() {
            ws.close(None).await.expect("close");
            return id.to_owned();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the room never appeared in the lobby");
}

#[tokio::test]
async fn waiting_room_survives_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let registered = request(
        server.addr,
        "POST",
        "/api/register",
        &[("Content-Type", "application/json")],
        Some(credentials("Host1", "password1").as_bytes()),
    )
    .await;
    let cookie = registered
        .cookie_pair("xo_session")
        .expect("session cookie");
    let room = create_online_room(server.addr, &cookie).await;
    server.stop_with("-TERM");

    let server = Process::start(dir.path(), &[]);
    let rooms = request(server.addr, "GET", "/api/rooms", &[], None)
        .await
        .json();
    assert_eq!(rooms[0]["id"], room.as_str(), "{rooms}");
    assert_eq!(rooms[0]["players"], serde_json::json!(["Host1"]), "{rooms}");
    assert_eq!(rooms[0]["per_move_ms"], 30_000, "{rooms}");
    server.stop_with("-TERM");
}

#[tokio::test]
async fn announced_result_survives_sigkill() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let mut cookies = Vec::new();
    for name in ["Winner", "Loser"] {
        let reply = request(
            server.addr,
            "POST",
            "/api/register",
            &[("Content-Type", "application/json")],
            Some(credentials(name, "password1").as_bytes()),
        )
        .await;
        cookies.push(reply.cookie_pair("xo_session").expect("session cookie"));
    }
    let (room, _result) =
        support::play_rated_until_resignation(server.addr, &cookies[0], &cookies[1]).await;
    // No clean shutdown: players were told, so the result must already be on disk (P3).
    server.stop_with_kill();

    let server = Process::start(dir.path(), &[]);
    let game = request(server.addr, "GET", &format!("/api/games/{room}"), &[], None).await;
    assert_eq!(game.status, 200, "{}", game.text());
    assert_eq!(
        game.json()["rating_updates"].as_array().map(Vec::len),
        Some(2)
    );
    let winner = request(server.addr, "GET", "/api/users/winner", &[], None)
        .await
        .json();
    assert_eq!(winner["ratings"]["infinite"], 1216, "{winner}");
    let loser = request(server.addr, "GET", "/api/users/loser", &[], None)
        .await
        .json();
    assert_eq!(loser["ratings"]["infinite"], 1184, "{loser}");
    server.stop_with("-TERM");
}

/// A stop signal sent the moment the server says where it listens is a clean stop, not the
/// default action's kill (CI once saw `signal: 15` where the handler was not yet installed).
#[test]
fn a_stop_signal_the_moment_the_server_listens_is_a_clean_stop() {
    for signal in ["-TERM", "-INT"].iter().cycle().take(12) {
        let dir = tempfile::tempdir().expect("temp dir");
        let server = Process::start(dir.path(), &[]);
        // No request first: the signal follows the log line as closely as a test can send it.
        server.stop_with(signal);
    }
}
