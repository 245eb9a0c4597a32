//! An active rated game survives stopping the real process mid-game (server issue item 5):
//! seats, settings, moves and the side to move come back, with a fresh full clock, and the game
//! can be played to a rated result afterwards.

use crate::support;

use support::{Process, register_at, request, ws_connect, ws_send, ws_wait_for};

const PER_MOVE_MS: u64 = 30_000;

/// The seat index (0 = host) holding `mark` in a snapshot.
fn seat_of(snapshot: &serde_json::Value, mark: &str) -> usize {
    (0..2)
        .find(|&i| snapshot["room"]["room"]["seats"][i]["mark"] == mark)
        .unwrap_or_else(|| panic!("no seat holds {mark}: {snapshot}"))
}

#[tokio::test]
async fn active_game_survives_a_restart_with_its_moves_and_a_fresh_clock() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let cookies = [
        register_at(server.addr, "Ana", "password1").await,
        register_at(server.addr, "Ben", "password1").await,
    ];

    let mut ws = [
        ws_connect(server.addr, Some(&cookies[0])).await,
        ws_connect(server.addr, Some(&cookies[1])).await,
    ];
    ws_send(
        &mut ws[0],
        serde_json::json!({"create_room": {"id": 1, "room": {"game": "infinite", "opponent": {"player": {}}, "time_per_move_s": 30}}}),
    )
    .await;
    let created = ws_wait_for(&mut ws[0], "the new room", |v| v["room"]["id"] == 1).await;
    let room = created["room"]["room"]["id"]
        .as_str()
        .expect("room id")
        .to_owned();
    ws_send(
        &mut ws[1],
        serde_json::json!({"join": {"id": 2, "room": room}}),
    )
    .await;
    ws_wait_for(&mut ws[1], "the seat", |v| v["room"]["id"] == 2).await;
    ws_send(
        &mut ws[1],
        serde_json::json!({"ready": {"id": 3, "ready": true}}),
    )
    .await;
    ws_wait_for(&mut ws[1], "ready", |v| v["room"]["id"] == 3).await;
    ws_send(&mut ws[0], serde_json::json!({"start": {"id": 4}})).await;
    let started = ws_wait_for(&mut ws[0], "the start", |v| v["room"]["id"] == 4).await;
    let (x, o) = (seat_of(&started, "X"), seat_of(&started, "O"));

    // X: 0, O: 3, X: 1 — then the power goes, with O to move.
    for (n, (seat, cell)) in [(x, 0), (o, 3), (x, 1)].into_iter().enumerate() {
        let id = 10 + n as u64;
        ws_send(
            &mut ws[seat],
            serde_json::json!({"move": {"id": id, "cell": cell}}),
        )
        .await;
        ws_wait_for(&mut ws[seat], "the move", |v| v["room"]["id"] == id).await;
    }
    drop(ws);
    server.stop_with("-TERM");

    let server = Process::start(dir.path(), &[]);
    let mut ws = [
        ws_connect(server.addr, Some(&cookies[0])).await,
        ws_connect(server.addr, Some(&cookies[1])).await,
    ];
    let mut snapshot = serde_json::Value::Null;
    for (seat, socket) in ws.iter_mut().enumerate() {
        ws_send(
            socket,
            serde_json::json!({"open": {"id": 20, "room": room}}),
        )
        .await;
        snapshot = ws_wait_for(socket, "the restored room", |v| v["room"]["id"] == 20).await;
        let view = &snapshot["room"]["room"];
        assert_eq!(view["phase"], "playing", "{view}");
        assert_eq!(view["moves"], serde_json::json!([0, 3, 1]), "{view}");
        assert_eq!(view["turn"], "O", "{view}");
        assert_eq!(view["you"]["seat"], seat as u64, "{view}");
        let remaining = view["clock"]["remaining_ms"]
            .as_u64()
            .expect("a running clock");
        assert!(
            remaining > PER_MOVE_MS - 5_000,
            "the side to move gets a fresh full clock: {remaining} ms left"
        );
    }
    assert_eq!(seat_of(&snapshot, "X"), x, "marks keep their seats");

    // O: 4, X: 2 completes 0-1-2: a rated win for X.
    ws_send(
        &mut ws[o],
        serde_json::json!({"move": {"id": 30, "cell": 4}}),
    )
    .await;
    ws_wait_for(&mut ws[o], "O's move", |v| v["room"]["id"] == 30).await;
    ws_send(
        &mut ws[x],
        serde_json::json!({"move": {"id": 31, "cell": 2}}),
    )
    .await;
    let result = ws_wait_for(&mut ws[o], "the result", |v| {
        v["event"].get("result").is_some()
    })
    .await;
    assert_eq!(
        result["event"]["result"]["end"]["line"]["winner"], "X",
        "{result}"
    );

    let winner = if x == 0 { "Ana" } else { "Ben" };
    let profile = request(
        server.addr,
        "GET",
        &format!("/api/users/{winner}"),
        &[],
        None,
    )
    .await
    .json();
    assert_eq!(profile["ratings"]["infinite"], 1216, "{profile}");
    let game = request(server.addr, "GET", &format!("/api/games/{room}"), &[], None)
        .await
        .json();
    assert_eq!(game["moves"], serde_json::json!([0, 3, 1, 4, 2]), "{game}");
    server.stop_with("-TERM");
}
