//! A real full card: the real server's data directory on a small tmpfs, filled to the last
//! byte by another file, then freed again — without a restart. Needs root (to mount): on CI
//! (which runs as root) it fails when it cannot mount; elsewhere it is skipped with a printed
//! reason.
//!
//! Checked: `/api/health` says `degraded` (nearly full) before the card is full, and the log
//! says so; when it is full, account writes answer `503 storage_unavailable` (never 500) and
//! health gives the reason; reads still answer; a rated game finished meanwhile is shown as
//! pending (never unrated); after the space is freed the server heals by itself: health `ok`,
//! the pending result is stored and both players get the rating change, sign-in works.

use crate::support;

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::{Process, credentials, register_at, request, ws_connect, ws_send, ws_wait_for};
use xo_client::privileged::{self, TmpfsMount};

/// Small enough to fill in a moment, large enough for the database and a few accounts.
const TMPFS_SIZE: &str = "6m";

/// Appends zeros to `filler` until the file system refuses; returns the bytes written.
fn fill(filler: &Path) -> u64 {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(filler)
        .expect("filler file");
    let chunk = vec![0u8; 4096];
    let mut written = 0;
    while file.write_all(&chunk).is_ok() {
        written += chunk.len() as u64;
    }
    // The last partial write may leave a few bytes; the card is full either way.
    written
}

async fn health(addr: std::net::SocketAddr) -> Value {
    request(addr, "GET", "/api/health", &[], None).await.json()
}

async fn wait_health(
    addr: std::net::SocketAddr,
    what: &str,
    want: impl Fn(&Value) -> bool,
) -> Value {
    let started = Instant::now();
    loop {
        let h = health(addr).await;
        if want(&h) {
            return h;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{what} within 20 s: {h}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn login(addr: std::net::SocketAddr, name: &str) -> support::Reply {
    request(
        addr,
        "POST",
        "/api/login",
        &[("Content-Type", "application/json")],
        Some(credentials(name, "password1").as_bytes()),
    )
    .await
}

#[tokio::test]
async fn a_full_card_is_reported_refused_cleanly_and_healed_without_a_restart() {
    const TEST: &str = "a_full_card_is_reported_refused_cleanly_and_healed_without_a_restart";
    let dir = tempfile::tempdir().expect("temp dir");
    let Some(mount) = TmpfsMount::for_test(TEST, &dir.path().join("card"), TMPFS_SIZE) else {
        return;
    };
    let data = mount.path.join("data");
    let filler = mount.path.join("filler");
    let server = Process::start(&data, &[]);
    let addr = server.addr;
    let ana = register_at(addr, "Ana", "password1").await;
    let ben = register_at(addr, "Ben", "password1").await;
    let h = health(addr).await;
    assert_eq!(h["status"], "ok", "{h}");

    // Nearly full: a tenth of the card is the threshold; leave less than that free.
    fill(&filler);
    let full_len = std::fs::metadata(&filler).expect("filler").len();
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&filler)
        .expect("filler");
    file.set_len(full_len.saturating_sub(256 * 1024))
        .expect("shrink filler");
    // An open file keeps its space after removal; nothing of the filler stays open.
    drop(file);
    let h = wait_health(addr, "degraded before full", |h| {
        h["storage"]["state"] == "nearly_full"
    })
    .await;
    assert_eq!(h["status"], "degraded", "{h}");
    assert!(
        h["reason"]
            .as_str()
            .is_some_and(|r| r.contains("nearly full")),
        "{h}"
    );
    assert!(
        !server.wait_log_lines("nearly full").await.is_empty(),
        "the log says the card is nearly full"
    );

    // Full: the card refuses every byte. Sign-ins write a session; redb may still find free
    // pages inside its file for a few, so try until one is refused.
    fill(&filler);
    let mut refused = None;
    for _ in 0..60 {
        let reply = login(addr, "Ana").await;
        assert_ne!(
            reply.status,
            500,
            "never an internal error: {}",
            reply.text()
        );
        if reply.status == 503 {
            refused = Some(reply);
            break;
        }
        assert_eq!(reply.status, 200, "{}", reply.text());
    }
    let refused = refused.expect("a sign-in on a full card is refused");
    refused.assert_error(503, "storage_unavailable");
    let h = health(addr).await;
    assert_eq!(h["status"], "degraded", "{h}");
    assert_eq!(h["storage"]["state"], "failing", "{h}");
    assert!(h["reason"].as_str().is_some_and(|r| !r.is_empty()), "{h}");
    // Reads still answer.
    let profile = request(addr, "GET", "/api/users/Ana", &[], None).await;
    assert!(
        profile.status == 200 || profile.status == 503,
        "{}",
        profile.text()
    );
    assert_ne!(profile.status, 500);

    // Play goes on in memory: a rated game finished now is pending, never unrated.
    let mut host = ws_connect(addr, Some(&ana)).await;
    let mut joiner = ws_connect(addr, Some(&ben)).await;
    ws_send(
        &mut host,
        json!({"create_room": {"id": 1, "room": {"game": "xo", "opponent": {"player": {}}}}}),
    )
    .await;
    let created = ws_wait_for(&mut host, "the new room", |v| v["room"]["id"] == 1).await;
    let room = created["room"]["room"]["id"]
        .as_str()
        .expect("room id")
        .to_owned();
    ws_send(&mut joiner, json!({"join": {"id": 2, "room": room}})).await;
    ws_wait_for(&mut joiner, "the seat", |v| v["room"]["id"] == 2).await;
    ws_send(&mut joiner, json!({"ready": {"id": 3, "ready": true}})).await;
    ws_wait_for(&mut joiner, "ready", |v| v["room"]["id"] == 3).await;
    ws_send(&mut host, json!({"start": {"id": 4}})).await;
    ws_wait_for(&mut host, "the start", |v| v["room"]["id"] == 4).await;
    ws_send(&mut joiner, json!({"resign": {"id": 5}})).await;
    for ws in [&mut host, &mut joiner] {
        let pending = ws_wait_for(ws, "a pending result", |v| {
            v["room"]["room"]["result"]["pending"] == true
        })
        .await;
        let result = &pending["room"]["room"]["result"];
        assert_eq!(result["rated"], true, "{result}");
        assert_eq!(result["ratings"], json!([]), "{result}");
    }

    // Space again: the server heals by itself, no restart.
    std::fs::remove_file(&filler).expect("free the card");
    let started = Instant::now();
    wait_health(addr, "healed", |h| h["status"] == "ok").await;
    eprintln!(
        "disk full: healed {:?} after the space was freed",
        started.elapsed()
    );
    // The kept result is stored, and both players see the rating change.
    for ws in [&mut host, &mut joiner] {
        let stored = ws_wait_for(ws, "the stored result", |v| {
            v["event"]["result"]["ratings"]
                .as_array()
                .is_some_and(|r| r.len() == 2)
        })
        .await;
        assert_eq!(stored["event"]["result"]["room"], room.as_str(), "{stored}");
    }
    let game = request(addr, "GET", &format!("/api/games/{room}"), &[], None).await;
    assert_eq!(game.status, 200, "the result is stored: {}", game.text());
    assert_eq!(
        game.json()["rating_updates"].as_array().map(Vec::len),
        Some(2)
    );
    let reply = login(addr, "Ana").await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let profile = request(addr, "GET", "/api/users/Ana", &[], None)
        .await
        .json();
    assert_eq!(profile["ratings"]["xo"], 1216, "{profile}");
    server.stop_with("-TERM");
    drop(mount);
    privileged::ran("server_disk_full");
}
