//! P3 under a power cut, for open rooms: whatever an open room looked like more
//! than [`LOSS_BOUND`] before the cut survives it. The real server is killed with SIGKILL
//! (no chance to flush) at several delays after the last move of an active game, and
//! restarted on the same data directory: every move older than the deadline (plus [`SLACK`]
//! for the sync itself on a loaded machine) is there, no move that was not made is, the side
//! to move has a fresh full clock, and a waiting room created earlier is listed.

use crate::support;

use std::time::{Duration, Instant};

use firmware_host::store::LOSS_BOUND;
use serde_json::{Value, json};
use support::{Process, Ws, register_at, request, ws_connect, ws_send, ws_wait_for};

const PER_MOVE_MS: u64 = 30_000;
/// The durable commit itself takes time after its deadline (an SD card's sync, a busy
/// machine): a move counts as "older than the deadline" this much after it.
const SLACK: Duration = Duration::from_millis(500);
/// Delays between the last move and the kill.
const DELAYS_MS: [u64; 5] = [200, 600, 1_000, 1_600, 3_000];

/// Sends an intent with request id `id` and returns the snapshot answering it.
async fn act(ws: &mut Ws, id: u64, msg: &str, mut body: Value) -> Value {
    body["id"] = json!(id);
    ws_send(ws, json!({ msg: body })).await;
    ws_wait_for(ws, msg, |v| v["room"]["id"] == id).await["room"]["room"].clone()
}

fn seat_of(room: &Value, mark: &str) -> usize {
    (0..2)
        .find(|&i| room["seats"][i]["mark"] == mark)
        .unwrap_or_else(|| panic!("no seat holds {mark}: {room}"))
}

/// One cut: returns (moves recovered, moves required, moves made).
async fn cut_after(delay: Duration) -> (usize, usize, usize) {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let cookies = [
        register_at(server.addr, "Ana", "password1").await,
        register_at(server.addr, "Ben", "password1").await,
        register_at(server.addr, "Cleo", "password1").await,
    ];
    let mut ws = [
        ws_connect(server.addr, Some(&cookies[0])).await,
        ws_connect(server.addr, Some(&cookies[1])).await,
        ws_connect(server.addr, Some(&cookies[2])).await,
    ];
    // Cleo's room waits for an opponent through the cut.
    let waiting = act(
        &mut ws[2],
        1,
        "create_room",
        json!({"room": {"game": "xo", "opponent": {"player": {}}, "time_per_move_s": 30}}),
    )
    .await["id"]
        .as_str()
        .expect("room id")
        .to_owned();
    let room = act(
        &mut ws[0],
        1,
        "create_room",
        json!({"room": {"game": "infinite", "opponent": {"player": {}}, "time_per_move_s": 30}}),
    )
    .await["id"]
        .as_str()
        .expect("room id")
        .to_owned();
    act(&mut ws[1], 2, "join", json!({"room": room})).await;
    act(&mut ws[1], 3, "ready", json!({"ready": true})).await;
    let started = act(&mut ws[0], 4, "start", json!({})).await;
    let (x, o) = (seat_of(&started, "X"), seat_of(&started, "O"));

    // Two moves well before the cut, then a pause, then the last move.
    let plan = [(x, 0u8), (o, 4u8), (x, 8u8)];
    let mut made: Vec<(u8, Instant)> = Vec::new();
    for (n, (seat, cell)) in plan.into_iter().enumerate() {
        if n == 2 {
            tokio::time::sleep(LOSS_BOUND + SLACK + Duration::from_millis(100)).await;
        }
        act(&mut ws[seat], 10 + n as u64, "move", json!({"cell": cell})).await;
        made.push((cell, Instant::now()));
    }
    tokio::time::sleep(delay).await;
    let killed_at = Instant::now();
    drop(ws);
    server.stop_with_kill();
    let required = made
        .iter()
        .take_while(|(_, at)| killed_at.duration_since(*at) >= LOSS_BOUND + SLACK)
        .count();

    let server = Process::start(dir.path(), &[]);
    let lobby = request(server.addr, "GET", "/api/rooms", &[], None)
        .await
        .json();
    let listed: Vec<&str> = lobby
        .as_array()
        .expect("lobby list")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert!(
        listed.contains(&waiting.as_str()),
        "the waiting room created long before the cut is back: {lobby}"
    );
    let mut ws = ws_connect(server.addr, Some(&cookies[0])).await;
    ws_send(&mut ws, json!({"open": {"id": 20, "room": room}})).await;
    let view =
        ws_wait_for(&mut ws, "the restored room", |v| v["room"]["id"] == 20).await["room"]["room"]
            .clone();
    assert_eq!(view["phase"], "playing", "{view}");
    let moves: Vec<u8> = serde_json::from_value(view["moves"].clone()).expect("moves");
    let cells: Vec<u8> = made.iter().map(|(c, _)| *c).collect();
    assert!(
        moves.len() >= required && cells.starts_with(&moves),
        "after a cut {delay:?} after the last move: moves {moves:?}, made {cells:?}, \
         the first {required} must be there"
    );
    let remaining = view["clock"]["remaining_ms"]
        .as_u64()
        .expect("a running clock");
    assert!(
        remaining > PER_MOVE_MS - 5_000,
        "the side to move gets a fresh full clock: {remaining} ms left"
    );
    server.stop_with("-TERM");
    (moves.len(), required, made.len())
}

#[tokio::test]
async fn moves_older_than_the_durability_deadline_survive_sigkill() {
    let mut lines = Vec::new();
    let mut recovered_total = 0;
    let mut required_total = 0;
    for delay in DELAYS_MS {
        let (recovered, required, made) = cut_after(Duration::from_millis(delay)).await;
        recovered_total += recovered;
        required_total += required;
        lines.push(format!(
            "kill {delay} ms after the last move: {recovered} of {made} moves recovered, {required} required"
        ));
    }
    for line in &lines {
        eprintln!("power cut: {line}");
    }
    assert!(
        required_total >= 2 * DELAYS_MS.len(),
        "every cut requires the two early moves"
    );
    assert!(recovered_total >= required_total);
}
