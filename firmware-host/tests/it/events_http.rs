//! Arena events over HTTP (EV1, EV7), through the real `firmware-host` process on a real redb
//! file: an owner creates and cancels events, everyone reads them, each refusal has its code,
//! and events survive a SIGKILL.

use crate::support;

use std::net::SocketAddr;

use serde_json::{Value, json};
use support::owner::{make_owner, send};
use support::{Process, register_at};

const PASSWORD: &str = "password one";

async fn cancel(addr: SocketAddr, id: &str, cookie: &str) -> support::Reply {
    let path = format!("/api/owner/events/{id}");
    send(addr, "DELETE", &path, Some("{}"), Some(cookie)).await
}

async fn create(addr: SocketAddr, cookie: Option<&str>, form: &Value) -> support::Reply {
    send(
        addr,
        "POST",
        "/api/owner/events",
        Some(&form.to_string()),
        cookie,
    )
    .await
}

#[tokio::test]
async fn an_owner_creates_lists_and_cancels_events_that_survive_a_kill() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let addr = server.addr;
    let owner = register_at(addr, "sara", PASSWORD).await;
    let player = register_at(addr, "omar", PASSWORD).await;
    make_owner(addr, &owner).await;

    let hour = json!({"game": "xo", "duration_min": 60, "name": "XO night"});
    create(addr, None, &hour)
        .await
        .assert_error(401, "not_signed_in");
    create(addr, Some(&player), &hour)
        .await
        .assert_error(403, "not_owner");

    // EV1's rules, each with its code; nothing is stored.
    for (form, code) in [
        (
            json!({"game": "xo", "duration_min": 9}),
            "invalid_event_duration",
        ),
        (
            json!({"game": "xo", "duration_min": 181}),
            "invalid_event_duration",
        ),
        (
            json!({"game": "xo", "duration_min": 60, "start_in_ms": 25 * 3_600_000u64}),
            "invalid_event_start",
        ),
        (
            json!({"game": "xo", "duration_min": 60, "time_per_move_s": 10}),
            "invalid_event_time_per_move",
        ),
        (
            json!({"game": "infinite", "duration_min": 60, "time_per_move_s": 7}),
            "invalid_event_time_per_move",
        ),
        (
            json!({"game": "xo", "duration_min": 60, "name": "x".repeat(41)}),
            "invalid_event_name",
        ),
    ] {
        create(addr, Some(&owner), &form)
            .await
            .assert_error(400, code);
    }
    let none = send(addr, "GET", "/api/events", None, None).await;
    assert_eq!(none.json(), json!({"events": []}));

    // One now, rated by default, running at once.
    let now = create(addr, Some(&owner), &hour).await;
    assert_eq!(now.status, 201, "{}", now.text());
    let now = now.json();
    assert_eq!(now["id"], "e1");
    assert_eq!(now["phase"], "running", "{now}");
    assert_eq!(now["rated"], true);
    assert_eq!(now["per_move_ms"], 120_000, "XO: two minutes a move");
    assert_eq!(now["duration_ms"], 3_600_000);
    // One at a time: its hour is taken; two hours later is free.
    create(addr, Some(&owner), &hour)
        .await
        .assert_error(409, "event_clash");
    let later = json!({
        "game": "infinite", "duration_min": 30, "start_in_ms": 2 * 3_600_000u64,
        "time_per_move_s": 5, "rated": false,
    });
    let later = create(addr, Some(&owner), &later).await;
    assert_eq!(later.status, 201, "{}", later.text());
    let later = later.json();
    assert_eq!(later["id"], "e2");
    assert_eq!(later["phase"], "announced");
    assert_eq!(later["rated"], false);
    assert_eq!(later["per_move_ms"], 5_000);
    assert_eq!(later["name"], "Arena");
    let starts_in = later["starts_in_ms"].as_u64().expect("countdown");
    assert!((2 * 3_600_000 - 60_000..=2 * 3_600_000).contains(&starts_in));

    // Anyone reads them: the list by start time, and each event's page.
    let list = send(addr, "GET", "/api/events", None, None).await.json();
    let ids: Vec<&str> = list["events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["id"].as_str())
        .collect();
    assert_eq!(ids, ["e1", "e2"]);
    let page = send(addr, "GET", "/api/events/e1", None, None).await;
    assert_eq!(page.status, 200, "{}", page.text());
    let page = page.json();
    assert_eq!(page["event"]["event"], "e1");
    assert_eq!(page["event"]["name"], "XO night");
    assert_eq!(page["event"]["phase"], "running");
    assert_eq!(page["event"]["standings"], json!([]));
    assert_eq!(page["games"], json!([]));
    send(addr, "GET", "/api/events/e9", None, None)
        .await
        .assert_error(404, "unknown_event");

    // Only an announced event is cancelled; cancelling again answers the same.
    cancel(addr, "e2", &player)
        .await
        .assert_error(403, "not_owner");
    cancel(addr, "e1", &owner)
        .await
        .assert_error(409, "event_started");
    cancel(addr, "e9", &owner)
        .await
        .assert_error(404, "unknown_event");
    for _ in 0..2 {
        let cancelled = cancel(addr, "e2", &owner).await;
        assert_eq!(cancelled.status, 200, "{}", cancelled.text());
        assert_eq!(cancelled.json()["phase"], "cancelled");
    }
    let logged = server.wait_log_lines("action=\"cancelled an event\"").await;
    assert_eq!(logged.len(), 1, "{logged:?}");

    // EV7: a SIGKILL loses nothing acknowledged.
    server.stop_with_kill();
    let server = Process::start(dir.path(), &[]);
    let after = send(server.addr, "GET", "/api/events", None, None)
        .await
        .json();
    let phases: Vec<(&str, &str)> = after["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| {
            (
                e["id"].as_str().unwrap_or(""),
                e["phase"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(phases, [("e1", "running"), ("e2", "cancelled")]);
    server.stop_with("-TERM");
}

#[tokio::test]
async fn a_short_event_needs_the_flag_and_is_still_at_least_a_minute() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[("XO_EVENT_MIN_MINUTES", "1")]);
    let addr = server.addr;
    let owner = register_at(addr, "sara", PASSWORD).await;
    make_owner(addr, &owner).await;
    create(
        addr,
        Some(&owner),
        &json!({"game": "xo", "duration_min": 0}),
    )
    .await
    .assert_error(400, "invalid_event_duration");
    let one = create(
        addr,
        Some(&owner),
        &json!({"game": "xo", "duration_min": 1}),
    )
    .await;
    assert_eq!(one.status, 201, "{}", one.text());
    assert_eq!(one.json()["duration_ms"], 60_000);
    server.stop_with("-TERM");
}

/// The phase event `id` is stored with, read from the data directory of a stopped server.
async fn stored_phase(dir: &std::path::Path, id: &str) -> rooms::event::Phase {
    let dir = dir.to_owned();
    let id = id.to_owned();
    tokio::task::spawn_blocking(move || {
        let store = firmware_host::store::Store::open_blocking(&dir).expect("open the store");
        let record = store.event_blocking(&id).expect("read").expect("stored");
        store.shutdown_blocking();
        record.saved.phase
    })
    .await
    .expect("store read")
}

#[tokio::test]
async fn the_event_task_starts_a_scheduled_event_at_its_time_and_resumes_after_a_kill() {
    let dir = tempfile::tempdir().expect("temp dir");
    let env = [("XO_EVENT_MIN_MINUTES", "1")];
    let server = Process::start(dir.path(), &env);
    let addr = server.addr;
    let owner = register_at(addr, "sara", PASSWORD).await;
    make_owner(addr, &owner).await;
    let form = json!({"game": "xo", "duration_min": 30, "start_in_ms": 1500});
    let soon = create(addr, Some(&owner), &form).await;
    assert_eq!(soon.status, 201, "{}", soon.text());
    assert_eq!(soon.json()["phase"], "announced");
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    // The task started it at its time and saved that: too late to cancel.
    cancel(addr, "e1", &owner)
        .await
        .assert_error(409, "event_started");
    server.stop_with_kill();
    assert_eq!(
        stored_phase(dir.path(), "e1").await,
        rooms::event::Phase::Running,
        "saved by the task before the kill"
    );

    // After the restart its task is back: still running, still not cancellable.
    let server = Process::start(dir.path(), &env);
    let logged = server.wait_log_lines("event restored").await;
    assert_eq!(logged.len(), 1, "{logged:?}");
    let owner = support::owner::sign_in(server.addr, "sara", PASSWORD).await;
    cancel(server.addr, "e1", &owner)
        .await
        .assert_error(409, "event_started");
    let page = send(server.addr, "GET", "/api/events/e1", None, None)
        .await
        .json();
    assert_eq!(page["event"]["phase"], "running");
    server.stop_with("-TERM");
}

#[tokio::test]
async fn a_restore_replaces_the_events_and_their_tasks() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let addr = server.addr;
    let owner = register_at(addr, "sara", PASSWORD).await;
    make_owner(addr, &owner).await;
    let before = support::owner::backup(addr, &owner).await;
    let form = json!({"game": "xo", "duration_min": 60, "start_in_ms": 3_600_000});
    let later = create(addr, Some(&owner), &form).await;
    assert_eq!(later.status, 201, "{}", later.text());

    let restored = support::owner::upload(addr, "/api/owner/restore", &owner, &before).await;
    assert_eq!(restored.status, 200, "{}", restored.text());
    // Everyone was signed out by the restore.
    let owner = support::owner::sign_in(addr, "sara", PASSWORD).await;
    let list = send(addr, "GET", "/api/events", None, None).await.json();
    assert_eq!(list, json!({"events": []}), "the backup had no events");
    // Its task ended with it: nothing answers for the event any more.
    cancel(addr, "e1", &owner)
        .await
        .assert_error(404, "unknown_event");
    assert!(
        server.log_lines("cancelled an event").is_empty(),
        "no task of the replaced data cancelled anything"
    );
    server.stop_with("-TERM");
}
