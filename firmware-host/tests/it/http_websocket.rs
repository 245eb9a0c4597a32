//! The WebSocket at `/ws` wired to the rooms hub (P1): the handshake, who the hub thinks is
//! connecting, the Origin check, the lobby at `/api/rooms`, and the counts in `/api/health`.

use crate::support;

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use support::{STEP, TestServer, request, send_head_only};
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

type Ws = WebSocketStream<TcpStream>;

async fn connect(s: &TestServer, cookie: Option<&str>) -> (Ws, Option<String>) {
    let (ws, response) = support::ws_handshake(s.addr(), cookie).await;
    let guest = response
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with("xo_guest="))
        .map(str::to_owned);
    (ws, guest)
}

/// The next JSON text message, skipping nothing.
async fn next_json(ws: &mut Ws) -> serde_json::Value {
    loop {
        let msg = tokio::time::timeout(STEP, ws.next())
            .await
            .expect("a message in time")
            .expect("connection open")
            .expect("valid frame");
        match msg {
            Message::Text(text) => return serde_json::from_str(text.as_str()).expect("JSON"),
            Message::Ping(_) | Message::Pong(_) => continue,
            other => panic!("unexpected message {other:?}"),
        }
    }
}

async fn send(ws: &mut Ws, value: serde_json::Value) {
    ws.send(Message::text(value.to_string()))
        .await
        .expect("send");
}

#[tokio::test]
async fn websocket_hello_names_the_signed_in_player() {
    let s = TestServer::start().await;
    let cookie = s.register("Sara", "password1").await;
    let id = s.get("/api/me", Some(&cookie)).await.json()["id"].clone();
    let (mut ws, guest) = connect(&s, Some(&cookie)).await;
    assert!(
        guest.is_some(),
        "a client without a guest cookie gets one on the 101"
    );
    let hello = next_json(&mut ws).await;
    assert_eq!(hello["hello"]["user"], id, "{hello}");
    assert_eq!(hello["hello"]["name"], "Sara", "{hello}");
    assert_eq!(hello["hello"]["version"], protocol::PROTOCOL_VERSION);
    ws.close(None).await.expect("close");
    s.server.shutdown().await;
}

#[tokio::test]
async fn websocket_guest_is_anonymous_and_keeps_its_cookie() {
    let s = TestServer::start().await;
    let guest = format!("xo_guest={}", "ab".repeat(16));
    let (mut ws, set) = connect(&s, Some(&guest)).await;
    assert_eq!(set, None, "a known guest keeps its id");
    let hello = next_json(&mut ws).await;
    assert_eq!(hello["hello"]["user"], serde_json::Value::Null, "{hello}");
    s.server.shutdown().await;
}

#[tokio::test]
async fn websocket_from_a_foreign_origin_is_refused() {
    let s = TestServer::start().await;
    let upgrade = [
        ("Connection", "Upgrade"),
        ("Upgrade", "websocket"),
        ("Sec-WebSocket-Version", "13"),
        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
    ];
    let mut foreign = upgrade.to_vec();
    foreign.push(("Origin", "http://evil.example"));
    request(s.addr(), "GET", "/ws", &foreign, None)
        .await
        .assert_error(403, "bad_origin");
    let raw = format!(
        "GET /ws HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://{addr}\r\nConnection: Upgrade\r\n\
         Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\
         Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        addr = s.addr()
    );
    let ok = send_head_only(s.addr(), raw.as_bytes()).await;
    assert_eq!(ok.status, 101);
    assert_eq!(
        ok.header("sec-websocket-accept"),
        Some("s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
        "RFC 6455's example key"
    );
    s.server.shutdown().await;
}

#[tokio::test]
async fn plain_get_of_ws_asks_for_an_upgrade() {
    let s = TestServer::start().await;
    s.get("/ws", None)
        .await
        .assert_error(426, "websocket_required");
    s.server.shutdown().await;
}

#[tokio::test]
async fn lobby_and_health_count_rooms_and_connections() {
    let s = TestServer::start().await;
    assert_eq!(
        s.get("/api/rooms", None).await.json(),
        serde_json::json!([])
    );
    let cookie = s.register("Host1", "password1").await;
    let (mut ws, _) = connect(&s, Some(&cookie)).await;
    next_json(&mut ws).await;
    send(
        &mut ws,
        serde_json::json!({"hello": {"version": protocol::PROTOCOL_VERSION}}),
    )
    .await;
    send(
        &mut ws,
        serde_json::json!({"create_room": {"id": 1, "room": {"game": "infinite", "opponent": {"player": {}}}}}),
    )
    .await;
    let mut listed = serde_json::Value::Null;
    for _ in 0..50 {
        listed = s.get("/api/rooms", None).await.json();
        if listed.as_array().is_some_and(|rooms| !rooms.is_empty()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let rooms = listed.as_array().expect("a JSON array");
    assert_eq!(rooms.len(), 1, "{listed}");
    assert_eq!(rooms[0]["game"], "infinite");
    assert_eq!(rooms[0]["players"], serde_json::json!(["Host1"]));
    let health = s.get("/api/health", None).await.json();
    assert_eq!(health["rooms"], 1, "{health}");
    assert_eq!(health["connections"], 1, "{health}");
    drop(ws);
    s.server.shutdown().await;
}

#[tokio::test]
async fn oversized_websocket_message_closes_the_connection() {
    let s = TestServer::start().await;
    let (mut ws, _) = connect(&s, None).await;
    next_json(&mut ws).await;
    let huge = "x".repeat(firmware_host::ws::MAX_WS_MESSAGE + 1);
    // The server may close while the frame is still being written.
    let _ = ws.send(Message::text(huge)).await;
    let ended = tokio::time::timeout(STEP, async {
        loop {
            match ws.next().await {
                None | Some(Err(_)) | Some(Ok(Message::Close(_))) => return true,
                Some(Ok(_)) => continue,
            }
        }
    })
    .await
    .expect("the server ends the connection in time");
    assert!(ended);
    s.server.shutdown().await;
}

#[tokio::test]
async fn websockets_per_address_are_limited() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = firmware_host::Config {
        max_ws_per_address: 2,
        ..firmware_host::Config::for_tests(dir.path())
    };
    let server = firmware_host::Server::start(config).await.expect("start");
    let addr = server.local_addr();
    let first = support::ws_connect(addr, None).await;
    let second = support::ws_connect(addr, None).await;
    let raw = format!(
        "GET /ws HTTP/1.1\r\nHost: {addr}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    );
    // Closing after the refusal lets the helper read to the end.
    let refused = raw.replace("Connection: Upgrade", "Connection: Upgrade, close");
    support::send_raw(addr, refused.as_bytes())
        .await
        .assert_error(429, "too_many_connections");
    drop(first);
    // The slot frees once the server sees the connection end.
    let mut freed = false;
    for _ in 0..100 {
        let reply = send_head_only(addr, raw.as_bytes()).await;
        if reply.status == 101 {
            freed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(freed, "a closed connection gives its slot back");
    drop(second);
    server.shutdown().await;
}

/// A client frame as RFC 6455 has clients send it: FIN, text, masked (short payloads only).
fn masked_text(payload: &str, key: [u8; 4]) -> Vec<u8> {
    let bytes = payload.as_bytes();
    assert!(bytes.len() < 126, "a short frame");
    let mut frame = vec![0x81, 0x80 | u8::try_from(bytes.len()).expect("short")];
    frame.extend_from_slice(&key);
    frame.extend(bytes.iter().enumerate().map(|(i, b)| b ^ key[i % 4]));
    frame
}

/// Bytes a client sends right behind its upgrade request, in the same packet, before it has
/// the server's 101 (allowed: the server reads the WebSocket from the end of the request on),
/// are read as the connection's first frames, not lost with hyper's buffer (the server hands the
/// TCP socket itself to the WebSocket, and hyper may have read past the request).
#[tokio::test]
async fn frames_sent_with_the_upgrade_request_are_read_not_lost() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio_tungstenite::tungstenite::protocol::Role;

    let s = TestServer::start().await;
    let mut bytes = format!(
        "GET /ws HTTP/1.1\r\nHost: {}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\
         Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n",
        s.addr()
    )
    .into_bytes();
    let hello = format!(
        "{{\"hello\":{{\"version\":{}}}}}",
        protocol::PROTOCOL_VERSION
    );
    bytes.extend(masked_text(&hello, [1, 2, 3, 4]));
    bytes.extend(masked_text(r#"{"ping":{"id":7}}"#, [9, 8, 7, 6]));
    let mut stream = TcpStream::connect(s.addr()).await.expect("connect");
    stream.write_all(&bytes).await.expect("one write");
    // The response head, a byte at a time so that no WebSocket frame is taken with it.
    let mut head = Vec::new();
    tokio::time::timeout(STEP, async {
        while !head.ends_with(b"\r\n\r\n") {
            head.push(stream.read_u8().await.expect("response head"));
        }
    })
    .await
    .expect("the 101 in time");
    assert!(
        head.starts_with(b"HTTP/1.1 101"),
        "{}",
        String::from_utf8_lossy(&head)
    );
    let mut ws = WebSocketStream::from_raw_socket(stream, Role::Client, None).await;
    let first = next_json(&mut ws).await;
    assert!(
        first.get("hello").is_some(),
        "the server's hello first: {first}"
    );
    let pong = next_json(&mut ws).await;
    assert_eq!(
        pong,
        serde_json::json!({"pong": {"id": 7}}),
        "the ping sent with the request is answered"
    );
    s.server.shutdown().await;
}

/// The server frames its own messages and leaves pings to the WebSocket layer: a burst of
/// WebSocket pings between requests is answered with every pong and every reply whole and in
/// order (a strict client would fail on a frame cut into another), and a room's snapshot, too
/// long for a one-byte length.
#[tokio::test]
async fn websocket_pings_between_requests_leave_every_frame_whole() {
    let s = TestServer::start().await;
    let (mut ws, _) = connect(&s, None).await;
    next_json(&mut ws).await;
    send(
        &mut ws,
        serde_json::json!({"hello": {"version": protocol::PROTOCOL_VERSION}}),
    )
    .await;
    // Sent at once, without waiting for answers: 12 requests and 12 pings, under the burst.
    for n in 0..12u8 {
        let request = if n == 5 {
            serde_json::json!({"create_room": {"id": 100, "room": {"game": "xo", "opponent": {"bot": {"difficulty": 0}}}}})
        } else {
            serde_json::json!({"ping": {"id": n}})
        };
        ws.feed(Message::text(request.to_string()))
            .await
            .expect("send");
        ws.feed(Message::Ping(vec![n; usize::from(n) * 10].into()))
            .await
            .expect("send");
    }
    ws.flush().await.expect("flush");
    let (mut pongs, mut replies, mut snapshot_bytes) = (Vec::new(), Vec::new(), 0);
    while pongs.len() < 12 || replies.len() < 11 || snapshot_bytes == 0 {
        let msg = tokio::time::timeout(STEP, ws.next())
            .await
            .expect("a message in time")
            .expect("connection open")
            .expect("a whole, valid frame");
        match msg {
            Message::Pong(payload) => pongs.push(payload.to_vec()),
            Message::Text(text) => {
                let value: serde_json::Value = serde_json::from_str(text.as_str()).expect("JSON");
                if let Some(id) = value["pong"]["id"].as_u64() {
                    replies.push(id);
                } else if value["room"]["id"] == 100 {
                    snapshot_bytes = text.len();
                } else if value.get("event").is_none() {
                    panic!("unexpected reply {value}");
                }
            }
            other => panic!("unexpected message {other:?}"),
        }
    }
    let want: Vec<Vec<u8>> = (0..12u8).map(|n| vec![n; usize::from(n) * 10]).collect();
    assert_eq!(pongs, want, "each ping's pong, in order");
    let want: Vec<u64> = (0..12).filter(|&n| n != 5).collect();
    // The room answers on its own (after or between the pongs the session sends itself).
    assert_eq!(replies, want, "each ping's reply, in order");
    assert!(
        snapshot_bytes > 125,
        "the snapshot needs a longer length: {snapshot_bytes}"
    );
    s.server.shutdown().await;
}

/// Bytes that are not a client's WebSocket frame close the connection with the code the docs
/// give (PROTOCOL.md, Closing), sent on a real socket past a real client's framing.
#[tokio::test]
async fn websocket_frames_a_client_may_not_send_close_with_their_code() {
    use tokio::io::AsyncWriteExt as _;
    use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
    let s = TestServer::start().await;
    // An unmasked text frame, a masked text frame that is not UTF-8 (a zero mask).
    let cases = [
        (vec![0x81, 0x02, b'h', b'i'], CloseCode::Protocol),
        (vec![0x81, 0x82, 0, 0, 0, 0, 0xff, 0xfe], CloseCode::Invalid),
    ];
    for (bytes, want) in cases {
        let (mut ws, _) = connect(&s, None).await;
        next_json(&mut ws).await;
        ws.get_mut().write_all(&bytes).await.expect("write");
        let code = tokio::time::timeout(STEP, async {
            loop {
                match ws.next().await {
                    Some(Ok(Message::Close(frame))) => return frame.map(|f| f.code),
                    Some(Ok(_)) => continue,
                    None | Some(Err(_)) => return None,
                }
            }
        })
        .await
        .expect("the server closes in time");
        assert_eq!(code, Some(want), "{bytes:?}");
    }
    s.server.shutdown().await;
}
