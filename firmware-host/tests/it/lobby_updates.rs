//! A lobby watcher on a busy server: the changes of a burst of rooms reach it as
//! a few `lobby_update`s, at most one every 100 ms (PROTOCOL.md, "Lobby"), that add up to the
//! lobby the server holds; a lone change after the burst still arrives at once.

use crate::support;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{Value, json};
use support::{TestServer, Ws, ws_connect, ws_send, ws_wait_for};
use tokio_tungstenite::tungstenite::Message;

/// The next JSON message within `wait`, or `None`.
async fn next_json(ws: &mut Ws, wait: Duration) -> Option<Value> {
    loop {
        let msg = tokio::time::timeout(wait, ws.next()).await.ok()??.ok()?;
        if let Message::Text(text) = msg {
            return Some(serde_json::from_str(text.as_str()).expect("JSON"));
        }
    }
}

/// The watcher's page as PROTOCOL.md tells a client to keep it: rows by id.
#[derive(Default)]
struct Page {
    rows: BTreeMap<String, Value>,
    total: u64,
}

impl Page {
    fn apply(&mut self, update: &Value) {
        for row in update["rows"].as_array().expect("rows") {
            let id = row["id"].as_str().expect("row id").to_owned();
            self.rows.insert(id, row.clone());
        }
        for id in update["removed"].as_array().expect("removed") {
            self.rows.remove(id.as_str().expect("removed id"));
        }
        self.total = update["total"].as_u64().expect("total");
    }
}

fn bot_room(id: u32) -> Value {
    json!({"create_room": {"id": id, "room": {"game": "xo", "opponent": {"bot": {}}}}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_room_changes_reaches_a_watcher_as_a_few_updates_that_add_up() {
    const ROOMS: u64 = 30;
    let s = TestServer::start().await;
    let mut watcher = ws_connect(s.addr(), None).await;
    ws_send(&mut watcher, json!({"watch_lobby": {"id": 1}})).await;
    let first = ws_wait_for(&mut watcher, "the lobby", |v| v.get("lobby").is_some()).await;
    assert_eq!(first["lobby"]["total"], 0, "{first}");
    // Thirty visitors open a bot game each, all at once.
    let mut visitors = Vec::new();
    for _ in 0..ROOMS {
        visitors.push(ws_connect(s.addr(), None).await);
    }
    let started = Instant::now();
    let creating = visitors.into_iter().map(|mut ws| async move {
        ws_send(&mut ws, bot_room(1)).await;
        ws_wait_for(&mut ws, "the bot room", |v| v["room"]["id"] == 1).await;
        ws
    });
    let visitors = futures_util::future::join_all(creating).await;
    let mut page = Page::default();
    let mut updates = 0u32;
    while page.total < ROOMS {
        let msg = next_json(&mut watcher, Duration::from_secs(5))
            .await
            .unwrap_or_else(|| panic!("the watcher saw {} of {ROOMS} rooms", page.total));
        if let Some(update) = msg.get("lobby_update") {
            updates += 1;
            page.apply(update);
        } else {
            assert!(msg.get("lobby").is_none(), "the page again: {msg}");
        }
    }
    let elapsed = started.elapsed();
    // At most one update every 100 ms, the first at once.
    let most = u32::try_from(elapsed.as_millis() / 100).expect("short") + 1;
    assert!(
        updates <= most,
        "{updates} updates in {elapsed:?} for {ROOMS} new rooms (at most {most})"
    );
    // Anything still on its way (a row changed within the last rest) comes within the next
    // 100 ms; then what the watcher pieced together is the lobby's first page.
    while let Some(msg) = next_json(&mut watcher, Duration::from_millis(400)).await {
        if let Some(update) = msg.get("lobby_update") {
            page.apply(update);
        }
    }
    let listed = s.get("/api/rooms", None).await.json();
    let listed: Vec<&str> = listed
        .as_array()
        .expect("a list")
        .iter()
        .take(20)
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    let shown: Vec<&str> = page.rows.keys().map(String::as_str).collect();
    let mut expected = listed.clone();
    expected.sort_unstable();
    assert_eq!(shown, expected, "the watcher's page against GET /api/rooms");
    // Quiet again: a lone change comes without waiting for anything else.
    let mut late = ws_connect(s.addr(), None).await;
    ws_send(&mut late, bot_room(1)).await;
    let update = ws_wait_for(&mut watcher, "the late room", |v| {
        v["lobby_update"]["total"] == ROOMS + 1
    })
    .await;
    assert!(update["lobby_update"].is_object(), "{update}");
    drop((visitors, late));
    s.server.shutdown().await;
}
