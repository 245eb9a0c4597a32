//! A client of protocol version 1, written from that version's page
//! (`firmware-host/protocol/tests/fixtures/PROTOCOL-v1.md`), still plays on this server: two
//! players register over HTTP, one speaks JSON and one postcard, the postcard one watches the
//! lobby and receives it whole after every change (no `total`, no `lobby_update`), and they
//! play a rated XO game to its stored result over real sockets.

use crate::support;

use futures_util::{SinkExt, StreamExt};
use protocol::{ClientMsg, Frame, Framing, decode_server, v1};
use serde_json::{Value, json};
use support::{STEP, TestServer, Ws, ws_handshake};
use tokio_tungstenite::tungstenite::Message;

/// One version-1 client: its socket and its framing.
struct V1 {
    ws: Ws,
    framing: Framing,
    /// Whole lobbies received, oldest first.
    lobbies: Vec<Value>,
    /// `result` events received.
    results: Vec<Value>,
}

impl V1 {
    /// Connects with the session cookie, reads the server's hello (always JSON) and answers
    /// with version 1's hello in its framing.
    async fn connect(addr: std::net::SocketAddr, cookie: &str, framing: Framing) -> V1 {
        let (ws, _) = ws_handshake(addr, Some(cookie)).await;
        let mut c = V1 {
            ws,
            framing,
            lobbies: Vec::new(),
            results: Vec::new(),
        };
        let hello = c.next().await;
        let version = hello["hello"]["version"].as_u64().expect("a server hello");
        assert!(version >= 1, "{hello}");
        assert!(hello["hello"]["user"].is_u64(), "signed in: {hello}");
        match framing {
            Framing::Text => c.send_text(r#"{"hello":{"version":1}}"#).await,
            // Version 1's tables: `hello` is variant 0, its version a varint.
            Framing::Binary => c.send_bytes(vec![0x00, 0x01]).await,
        }
        c
    }

    async fn send_text(&mut self, text: &str) {
        self.ws.send(Message::text(text)).await.expect("send");
    }

    async fn send_bytes(&mut self, bytes: Vec<u8>) {
        self.ws.send(Message::binary(bytes)).await.expect("send");
    }

    /// Sends an intent, written as the version-1 page shows it in JSON.
    async fn send(&mut self, intent: Value) {
        match self.framing {
            Framing::Text => self.send_text(&intent.to_string()).await,
            Framing::Binary => {
                // Every intent but `watch_lobby` has the same postcard shape in versions 1
                // and 2 (test `version_1_postcard_tables_are_the_start_of_todays`).
                let msg: ClientMsg = serde_json::from_value(intent).expect("an intent");
                let Frame::Binary(bytes) = msg.encode(Framing::Binary) else {
                    unreachable!("binary framing")
                };
                self.send_bytes(bytes).await;
            }
        }
    }

    /// The next message as JSON. A version-1 client knows no `lobby_update` and no `total`;
    /// a postcard `lobby` must decode in version 1's shape, with no byte left over.
    async fn next(&mut self) -> Value {
        loop {
            let msg = tokio::time::timeout(STEP, self.ws.next())
                .await
                .expect("a message in time")
                .expect("connection open")
                .expect("valid frame");
            let value = match msg {
                Message::Text(text) => {
                    let value: Value = serde_json::from_str(text.as_str()).expect("JSON");
                    if let Some(lobby) = value.get("lobby") {
                        let keys: Vec<&String> =
                            lobby.as_object().expect("object").keys().collect();
                        assert_eq!(keys, ["id", "rooms"], "version 1's lobby: {value}");
                    }
                    value
                }
                Message::Binary(bytes) => {
                    let frame = Frame::Binary(bytes.to_vec());
                    if bytes.first() == Some(&0x02) {
                        let lobby = v1::Lobby::decode(&frame).expect("a version-1 lobby");
                        json!({"lobby": lobby})
                    } else {
                        let msg = decode_server(&frame).expect("a server message");
                        serde_json::to_value(&msg).expect("JSON")
                    }
                }
                _ => continue,
            };
            assert!(
                value.get("lobby_update").is_none(),
                "version 1 has no lobby_update: {value}"
            );
            assert!(value.get("error").is_none(), "refused: {value}");
            if value.get("lobby").is_some() {
                self.lobbies.push(value["lobby"].clone());
            }
            if let Some(result) = value["event"].get("result") {
                self.results.push(result.clone());
            }
            return value;
        }
    }

    /// Reads messages until one satisfies `want`.
    async fn wait_for(&mut self, what: &str, want: impl Fn(&Value) -> bool) -> Value {
        for _ in 0..200 {
            let value = self.next().await;
            if want(&value) {
                return value;
            }
        }
        panic!("waiting for {what}: not among 200 messages");
    }
}

/// The snapshot answering intent `id`.
fn answers(id: u32) -> impl Fn(&Value) -> bool {
    move |v: &Value| v["room"]["id"] == id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_1_client_plays_a_rated_game_and_watches_the_whole_lobby() {
    let s = TestServer::start().await;
    let sara_cookie = s.register("sara", "correct horse").await;
    let omar_cookie = s.register("omar", "battery staple").await;
    let mut sara = V1::connect(s.addr(), &sara_cookie, Framing::Text).await;
    let mut omar = V1::connect(s.addr(), &omar_cookie, Framing::Binary).await;

    // Omar watches the lobby: version 1's `watch_lobby` is variant 2 with the id alone.
    omar.send_bytes(vec![0x02, 0x01, 0x01]).await;
    let empty = omar
        .wait_for("the lobby", |v| v.get("lobby").is_some())
        .await;
    assert_eq!(empty, json!({"lobby": {"id": 1, "rooms": []}}));

    sara.send(json!({"create_room": {"id": 1, "room": {"game": "xo", "opponent": {"player": {"joining": "open"}}}}}))
        .await;
    let created = sara.wait_for("the new room", answers(1)).await;
    let room = created["room"]["room"]["id"]
        .as_str()
        .expect("room id")
        .to_owned();
    let listed = omar
        .wait_for("the room in a whole lobby", |v| {
            v["lobby"]["rooms"]
                .as_array()
                .is_some_and(|rows| rows.iter().any(|r| r["id"] == room.as_str()))
        })
        .await;
    assert_eq!(
        listed["lobby"]["id"],
        Value::Null,
        "an unasked lobby: {listed}"
    );
    assert_eq!(listed["lobby"]["rooms"][0]["open_seat"], true);

    omar.send(json!({"join": {"id": 2, "room": room}})).await;
    omar.wait_for("the seat", answers(2)).await;
    omar.send(json!({"ready": {"id": 3, "ready": true}})).await;
    omar.wait_for("ready", answers(3)).await;
    sara.send(json!({"start": {"id": 4}})).await;
    let started = sara.wait_for("the start", answers(4)).await;
    let view = &started["room"]["room"];
    assert_eq!(view["phase"], "playing", "{started}");
    let sara_seat = view["you"]["seat"].as_u64().expect("sara is seated") as usize;
    let sara_is_x = view["seats"][sara_seat]["mark"] == "X";

    // X takes the top row; O answers on the middle row.
    let (x, o) = if sara_is_x {
        (&mut sara, &mut omar)
    } else {
        (&mut omar, &mut sara)
    };
    let moves = [(true, 0), (false, 3), (true, 1), (false, 4), (true, 2)];
    for (id, (by_x, cell)) in (10..).zip(moves) {
        let c = if by_x { &mut *x } else { &mut *o };
        c.send(json!({"move": {"id": id, "cell": cell}})).await;
        c.wait_for("the move's snapshot", answers(id)).await;
    }
    for c in [&mut *x, &mut *o] {
        // Told once the result is stored: the result event and a finished snapshot.
        while c.results.is_empty() {
            c.next().await;
        }
        let result = &c.results[0];
        assert_eq!(result["end"]["line"]["winner"], "X", "{result}");
        let updates = result["ratings"]
            .as_array()
            .unwrap_or_else(|| panic!("rating updates in {result}"));
        assert_eq!(updates.len(), 2, "{result}");
    }
    let finished = omar
        .wait_for("the finished room in a whole lobby", |v| {
            v["lobby"]["rooms"]
                .as_array()
                .is_some_and(|rows| rows.iter().any(|r| r["phase"] == "finished"))
        })
        .await;
    assert_eq!(finished["lobby"]["rooms"].as_array().map(Vec::len), Some(1));
    assert!(omar.lobbies.len() >= 3, "whole lobbies: {:?}", omar.lobbies);

    // The stored game, as version 1's page serves it.
    let game = s.get(&format!("/api/games/{room}"), None).await;
    assert_eq!(game.status, 200, "{}", game.text());
    assert_eq!(game.json()["moves"], json!([0, 3, 1, 4, 2]));
    assert_eq!(game.json()["end"]["line"]["winner"], "X");
}

/// A version-1 JSON watcher gets the same whole lobby, and a version-2 watcher on the same
/// server still gets its paged lobby and `lobby_update`s: one server, both versions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn version_1_and_version_2_watchers_share_a_server() {
    let s = TestServer::start().await;
    let cookie = s.register("sara", "correct horse").await;
    let mut old = V1::connect(s.addr(), &cookie, Framing::Text).await;
    old.send(json!({"watch_lobby": {"id": 7}})).await;
    old.wait_for("the lobby", |v| v["lobby"]["id"] == 7).await;
    let mut new = support::ws_connect(s.addr(), None).await;
    support::ws_send(&mut new, json!({"watch_lobby": {"id": 1}})).await;
    let page = support::ws_wait_for(&mut new, "the page", |v| v.get("lobby").is_some()).await;
    assert_eq!(page["lobby"]["total"], 0);
    let mut guest = support::ws_connect(s.addr(), None).await;
    support::ws_send(
        &mut guest,
        json!({"create_room": {"id": 1, "room": {"game": "xo", "opponent": {"bot": {}}}}}),
    )
    .await;
    let update =
        support::ws_wait_for(&mut new, "an update", |v| v.get("lobby_update").is_some()).await;
    assert_eq!(update["lobby_update"]["total"], 1, "{update}");
    let whole = old
        .wait_for("a whole lobby", |v| {
            v["lobby"]["rooms"].as_array().is_some_and(|r| r.len() == 1)
        })
        .await;
    assert_eq!(whole["lobby"]["id"], Value::Null);
    // The version-1 connection reads today's other messages as before: a ping's pong.
    old.send(json!({"ping": {"id": 9}})).await;
    old.wait_for("the pong", |v| v["pong"]["id"] == 9).await;
}
