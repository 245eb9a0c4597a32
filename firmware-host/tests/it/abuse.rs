//! Abuse (SPEC "Bad input", DESIGN "Reliability" limits): the real server process under
//! oversized frames, message floods, bad frames, thousands of half-open connections (TCP
//! connects that never send a request, requests that stop half-way, WebSocket upgrades that
//! never send hello), readers that never read, repeated wrong passwords and wrong passcodes,
//! request bodies trickled a byte at a time, all at once, while a well-behaved client on its own
//! address keeps playing a bot game, pinging and asking `/api/health`, and is measured (for the
//! whole round, and for the time each kind of abuse ran). Then descriptor exhaustion
//! (S4): 1,100
//! connections from one address against a server whose open-files limit is 1,024 (`prlimit`),
//! once with the per-address cap and once with only the shedding near the limit, again with the
//! well-behaved client measured.
//!
//! Checked: the well-behaved client is answered within [`ANSWER_BOUND`] every time; the
//! server's resident memory (VmRSS/VmHWM of the real process) stays under [`rss_bound_kib`];
//! every abuser gets a clear error for itself alone (or its connection closed, with a close code
//! where WebSocket allows one); the server closes what it should within its timeouts; and it
//! logs each kind of refusal.
//!
//! Each abuser connects from its own loopback address (127.0.0.0/8 all reaches the server), so
//! per-address limits meet the abuser, not the well-behaved client.
//!
//! `XO_ABUSE_SCALE` multiplies the counts (default 1, under a minute in a debug build; the
//! benchmark runs 10 in release). The figures are printed with `--nocapture`.

use crate::support;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use support::{Process, Ws, credentials, http_from, register_at, request, tcp_from};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;

/// The longest the well-behaved client may wait for any answer (machines are noisy; the
/// measured figures are printed).
const ANSWER_BOUND: Duration = Duration::from_secs(2);
/// Resident memory of the server at its peak, in KiB, for a scale: most of it is the
/// connections waiting for their first bytes (256 per address), the open rooms and one lobby
/// list held by each reader that does not read.
fn rss_bound_kib(scale: usize) -> u64 {
    (96 + 16 * scale as u64) * 1024
}
/// The server's handshake timeout in this test (`XO_HANDSHAKE_TIMEOUT`).
const HANDSHAKE_S: u64 = 2;
/// The server's send timeout for readers that do not read (rooms' `HubConfig::send_timeout`).
const SEND_TIMEOUT_S: u64 = 10;

fn scale() -> usize {
    std::env::var("XO_ABUSE_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1)
        .max(1)
}

/// `XO_ABUSE_ONLY=slow,flood` runs only those kinds of abuse (for looking into one; the
/// log checks then fail for the others).
fn phase(name: &str) -> bool {
    std::env::var("XO_ABUSE_ONLY").map_or(true, |only| only.split(',').any(|p| p == name))
}

fn ip(last: u8, block: u8) -> Ipv4Addr {
    Ipv4Addr::new(127, 0, block, last)
}

/// A WebSocket from a chosen address; `Err` carries the refusal's status line.
async fn ws_from(
    from: Ipv4Addr,
    addr: SocketAddr,
    cookie: Option<&str>,
    recv_buffer: Option<u32>,
) -> Result<Ws, String> {
    let tcp = tcp_from(from, addr, recv_buffer).await;
    match support::ws_over(tcp, addr, cookie).await {
        Ok((ws, _)) => Ok(ws),
        Err(tokio_tungstenite::tungstenite::Error::Http(r)) => Err(r.status().to_string()),
        Err(e) => Err(e.to_string()),
    }
}

async fn send_json(ws: &mut Ws, value: Value) {
    ws.send(Message::text(value.to_string()))
        .await
        .expect("send");
}

/// The next JSON message, `None` when the connection ends or nothing comes in `wait`.
async fn next_json(ws: &mut Ws, wait: Duration) -> Option<Value> {
    loop {
        match tokio::time::timeout(wait, ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => return serde_json::from_str(t.as_str()).ok(),
            Ok(Some(Ok(Message::Close(_)) | Err(_)) | None) | Err(_) => return None,
            Ok(Some(Ok(_))) => {}
        }
    }
}

/// Reads until the connection ends; the close code, if a close frame came, and the JSON
/// messages on the way. Bounded by `wait`.
async fn until_closed(ws: &mut Ws, wait: Duration) -> (Result<Option<CloseCode>, ()>, Vec<Value>) {
    let deadline = tokio::time::Instant::now() + wait;
    let mut seen = Vec::new();
    loop {
        match tokio::time::timeout_at(deadline, ws.next()).await {
            Err(_) => return (Err(()), seen),
            Ok(None | Some(Err(_))) => return (Ok(None), seen),
            Ok(Some(Ok(Message::Close(frame)))) => return (Ok(frame.map(|f| f.code)), seen),
            Ok(Some(Ok(Message::Text(t)))) => {
                if let Ok(v) = serde_json::from_str(t.as_str()) {
                    seen.push(v);
                }
            }
            Ok(Some(Ok(_))) => {}
        }
    }
}

fn error_code(v: &Value) -> Option<&str> {
    v["error"]["code"].as_str()
}

/// One HTTP request from a chosen address: status and body.
/// A probe's round trips, each with when it started.
type Samples = Vec<(Instant, Duration)>;

/// The round trips of `samples` that started within `from..to`.
fn within(samples: &Samples, from: Instant, to: Instant) -> Vec<Duration> {
    samples
        .iter()
        .filter(|(at, _)| (from..to).contains(at))
        .map(|&(_, d)| d)
        .collect()
}

/// Percentiles of durations in milliseconds (all zero without samples).
fn summary(mut samples: Vec<Duration>) -> (usize, f64, f64, f64) {
    if samples.is_empty() {
        return (0, 0.0, 0.0, 0.0);
    }
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let at = |q: f64| {
        let i = ((samples.len() as f64 - 1.0) * q).round() as usize;
        ms(samples[i])
    };
    (
        samples.len(),
        at(0.5),
        at(0.99),
        ms(*samples.last().expect("samples")),
    )
}

/// The well-behaved client: a guest playing bot games (a move, then a ping, every 100 ms,
/// within the message rate) and asking `/api/health` on a new connection every 250 ms, from
/// 127.0.0.1. Returns the round trips of WebSocket requests and of HTTP requests.
async fn well_behaved(addr: SocketAddr, stop: Arc<AtomicBool>) -> (Samples, Samples) {
    let http = {
        let stop = Arc::clone(&stop);
        tokio::spawn(async move {
            let mut samples = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                let reply = tokio::time::timeout(
                    ANSWER_BOUND * 5,
                    request(addr, "GET", "/api/health", &[], None),
                )
                .await
                .expect("health answered");
                assert_eq!(reply.status, 200);
                samples.push((t, t.elapsed()));
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            samples
        })
    };
    let mut ws = ws_from(Ipv4Addr::LOCALHOST, addr, None, None)
        .await
        .expect("the well-behaved client connects");
    send_json(
        &mut ws,
        json!({"hello": {"version": protocol::PROTOCOL_VERSION}}),
    )
    .await;
    let mut samples = Vec::new();
    let mut id = 0u32;
    let mut room: Option<Value> = None;
    while !stop.load(Ordering::Relaxed) {
        id += 1;
        let msg = match &room {
            Some(r) if r["phase"] == "playing" && r["you"]["to_move"] == true => {
                let board: Vec<u64> = ["x", "o"]
                    .iter()
                    .flat_map(|k| r[k].as_array().cloned().unwrap_or_default())
                    .filter_map(|v| v.as_u64())
                    .collect();
                let cell = (0..9).find(|c| !board.contains(c)).expect("an empty cell");
                json!({"move": {"id": id, "cell": cell}})
            }
            _ if id % 2 == 0 => json!({"ping": {"id": id}}),
            _ => {
                json!({"create_room": {"id": id, "room": {"game": "xo", "opponent": {"bot": {"difficulty": 0}}}}})
            }
        };
        let t = Instant::now();
        send_json(&mut ws, msg.clone()).await;
        loop {
            let v = next_json(&mut ws, ANSWER_BOUND * 5)
                .await
                .unwrap_or_else(|| panic!("the well-behaved client got no answer to {msg}"));
            assert!(
                error_code(&v).is_none(),
                "the well-behaved client was refused: {v} for {msg}"
            );
            if v["room"]["id"] == id {
                room = Some(v["room"]["room"].clone());
                break;
            }
            if v["pong"]["id"] == id {
                break;
            }
        }
        samples.push((t, t.elapsed()));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (samples, http.await.expect("http probe"))
}

fn hello() -> Value {
    json!({"hello": {"version": protocol::PROTOCOL_VERSION}})
}

/// Frames over the protocol limit get `frame_too_large` and the connection stays; frames over
/// the WebSocket layer's hard limit close it with 1009; undecodable frames get `bad_frame` and
/// the tenth in a row closes.
async fn oversized_and_bad_frames(addr: SocketAddr, block: u8) {
    let from = ip(10, block);
    let mut ws = ws_from(from, addr, None, None).await.expect("connect");
    send_json(&mut ws, hello()).await;
    next_json(&mut ws, Duration::from_secs(5))
        .await
        .expect("server hello");
    let big = "x".repeat(protocol::MAX_FRAME_BYTES + 1);
    ws.send(Message::text(big)).await.expect("send");
    let v = next_json(&mut ws, Duration::from_secs(5))
        .await
        .expect("answer");
    assert_eq!(error_code(&v), Some("frame_too_large"), "{v}");
    ws.send(Message::binary(vec![0u8; protocol::MAX_FRAME_BYTES + 1]))
        .await
        .expect("send");
    // The answer comes in the framing of the last frame: postcard.
    let answer = tokio::time::timeout(Duration::from_secs(5), ws.next())
        .await
        .expect("answer")
        .expect("open")
        .expect("frame");
    assert!(matches!(answer, Message::Binary(_)), "{answer:?}");
    send_json(&mut ws, json!({"ping": {"id": 7}})).await;
    let v = next_json(&mut ws, Duration::from_secs(5))
        .await
        .expect("pong");
    assert_eq!(v["pong"]["id"], 7, "the connection stays open: {v}");
    let hard = firmware_host::ws::MAX_WS_MESSAGE + 1;
    ws.send(Message::text("y".repeat(hard))).await.ok();
    let (closed, _) = until_closed(&mut ws, Duration::from_secs(10)).await;
    assert_eq!(
        closed,
        Ok(Some(CloseCode::Size)),
        "over the hard limit: 1009"
    );

    let mut ws = ws_from(from, addr, None, None).await.expect("connect");
    send_json(&mut ws, hello()).await;
    ws.send(Message::binary(vec![1u8; hard])).await.ok();
    let (closed, _) = until_closed(&mut ws, Duration::from_secs(10)).await;
    assert_eq!(
        closed,
        Ok(Some(CloseCode::Size)),
        "binary over the hard limit: 1009"
    );

    let mut ws = ws_from(from, addr, None, None).await.expect("connect");
    send_json(&mut ws, hello()).await;
    for _ in 0..10 {
        ws.send(Message::text("{not json")).await.ok();
    }
    let (closed, seen) = until_closed(&mut ws, Duration::from_secs(10)).await;
    assert_eq!(closed, Ok(Some(CloseCode::Policy)), "ten bad frames close");
    let bad = seen
        .iter()
        .filter(|v| error_code(v) == Some("bad_frame"))
        .count();
    assert_eq!(bad, 10, "each bad frame is answered: {seen:?}");
}

/// More messages than the rate allows get `flood` and the connection closes; so do WebSocket
/// pings, which the WebSocket layer answers by itself.
async fn floods(addr: SocketAddr, block: u8, n: usize) {
    let mut tasks = Vec::new();
    for i in 0..n {
        tasks.push(tokio::spawn(async move {
            let from = ip(11, block);
            let mut ws = ws_from(from, addr, None, None).await.expect("connect");
            send_json(&mut ws, hello()).await;
            for id in 0..200u32 {
                let msg = if i % 2 == 0 {
                    Message::text(json!({"ping": {"id": id}}).to_string())
                } else {
                    Message::Ping(vec![1, 2, 3].into())
                };
                if ws.send(msg).await.is_err() {
                    break;
                }
            }
            let (closed, seen) = until_closed(&mut ws, Duration::from_secs(10)).await;
            assert!(
                seen.iter().any(|v| error_code(v) == Some("flood")),
                "a flood is told: {seen:?}"
            );
            assert!(closed.is_ok(), "a flooding connection is closed");
        }));
    }
    for t in tasks {
        t.await.expect("flood task");
    }
}

/// Connections that never send a request (or stop half-way through their headers) are closed
/// after the handshake timeout; beyond the per-address pending limit at once. Returns how many
/// were opened and the longest any stayed open.
async fn half_open_tcp(
    addr: SocketAddr,
    block: u8,
    addresses: u8,
    per_address: usize,
) -> (usize, Duration) {
    let mut tasks = Vec::new();
    for a in 0..addresses {
        let from = ip(100 + a, block);
        for i in 0..per_address {
            // Connected in small groups, so that the kernel's accept queue (1024) never
            // overflows: a connection dropped there is one the server never saw.
            let mut stream = tcp_from(from, addr, None).await;
            let opened = Instant::now();
            tasks.push(tokio::spawn(async move {
                if i % 10 == 5 {
                    // An HTTP/2 client that sends its preface, then nothing.
                    stream
                        .write_all(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
                        .await
                        .ok();
                }
                if i % 10 == 0 {
                    // A slow-loris: half a request, then nothing.
                    stream
                        .write_all(b"GET /api/health HTTP/1.1\r\nHost: x\r\n")
                        .await
                        .ok();
                }
                let mut buf = [0u8; 512];
                let limit = Duration::from_secs(HANDSHAKE_S + 20);
                loop {
                    match tokio::time::timeout(limit, stream.read(&mut buf)).await {
                        Ok(Ok(0) | Err(_)) => return opened.elapsed(),
                        Ok(Ok(_)) => {}
                        Err(_) => panic!("half-open connection {i} is still open after {limit:?}"),
                    }
                }
            }));
        }
    }
    let opened = tasks.len();
    let mut longest = Duration::ZERO;
    for t in tasks {
        longest = longest.max(t.await.expect("half-open task"));
    }
    (opened, longest)
}

/// WebSocket upgrades that never send hello: `hello_required` and closed after the
/// handshake timeout. The per-address WebSocket limit (32) refuses the rest with 429.
async fn silent_websockets(addr: SocketAddr, block: u8) -> usize {
    let from = ip(12, block);
    let opening = Instant::now();
    let open: Vec<Ws> = futures_util::future::join_all((0..32).map(|_| async move {
        ws_from(from, addr, None, None)
            .await
            .expect("within the limit")
    }))
    .await;
    let refused = ws_from(from, addr, None, None).await.err();
    // Under a very slow machine the first may already have been closed for its silence.
    if opening.elapsed() < Duration::from_secs(HANDSHAKE_S) / 2 {
        let refused = refused.expect("the 33rd refused");
        assert!(refused.contains("429"), "{refused}");
    }
    let mut tasks = Vec::new();
    for mut ws in open {
        tasks.push(tokio::spawn(async move {
            let started = Instant::now();
            let (closed, seen) = until_closed(&mut ws, Duration::from_secs(HANDSHAKE_S + 10)).await;
            assert_eq!(closed, Ok(Some(CloseCode::Policy)), "closed without hello");
            assert!(
                seen.iter().any(|v| error_code(v) == Some("hello_required")),
                "{seen:?}"
            );
            started.elapsed()
        }));
    }
    let mut n = 0;
    for t in tasks {
        let waited = t.await.expect("silent ws");
        assert!(waited <= Duration::from_secs(HANDSHAKE_S + 5), "{waited:?}");
        n += 1;
    }
    n
}

/// Readers that never read while the server has lots to send them (lobby lists and snapshots
/// of the rooms they create): the server closes them once a send has waited its timeout, and
/// its memory does not follow what they refuse to take.
async fn slow_readers(addr: SocketAddr, block: u8, n: usize) -> usize {
    // A long lobby first (once): ten guests open 39 bot games each (one burst each, with the
    // hello).
    let mut fillers = Vec::new();
    for _ in 0..if block == 1 { 10 } else { 0 } {
        fillers.push(tokio::spawn(async move {
            let mut ws = ws_from(ip(19, block), addr, None, None).await.expect("connect");
            send_json(&mut ws, hello()).await;
            for id in 1..=39u32 {
                send_json(
                    &mut ws,
                    json!({"create_room": {"id": id, "room": {"game": "xo", "opponent": {"bot": {}}}}}),
                )
                .await;
            }
            let mut created = 0;
            while created < 39 {
                let v = next_json(&mut ws, Duration::from_secs(10)).await.expect("room");
                assert!(error_code(&v).is_none(), "{v}");
                if v["room"]["id"].is_u64() {
                    created += 1;
                }
            }
        }));
    }
    for f in fillers {
        f.await.expect("filler");
    }
    let mut tasks = Vec::new();
    for i in 0..n {
        tasks.push(tokio::spawn(async move {
            let from = ip(13 + u8::try_from(i / 30).expect("few"), block);
            let mut ws = ws_from(from, addr, None, Some(2048)).await.expect("connect");
            send_json(&mut ws, hello()).await;
            // Ask for as much as the rate allows for a few seconds, reading nothing.
            let until = Instant::now() + Duration::from_secs(5);
            let mut id = 0u32;
            while Instant::now() < until {
                id += 1;
                let msg = if id % 2 == 0 {
                    // The largest page the server gives (PROTOCOL.md: at most 100 rows).
                    json!({"watch_lobby": {"id": id, "limit": 100}})
                } else {
                    json!({"create_room": {"id": id, "room": {"game": "infinite", "opponent": {"bot": {}}}}})
                };
                let sent = tokio::time::timeout(
                    Duration::from_millis(200),
                    ws.send(Message::text(msg.to_string())),
                )
                .await;
                if !matches!(sent, Ok(Ok(()))) {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(55)).await;
            }
            let stalled = Instant::now();
            // Now read: the backlog, then the end the server put to the connection.
            tokio::time::sleep(Duration::from_secs(SEND_TIMEOUT_S + 2)).await;
            let (closed, seen) = until_closed(&mut ws, Duration::from_secs(30)).await;
            assert!(closed.is_ok(), "the server closed a reader that did not read (after {id} requests, {} messages read)", seen.len());
            stalled.elapsed()
        }));
    }
    let mut closed = 0;
    for t in tasks {
        t.await.expect("slow reader");
        closed += 1;
    }
    closed
}

/// One guest opening rooms without end (each new one leaves the last): every creation is
/// answered, and the guest's old rooms that nobody views close, so that the guest never holds
/// more than about 20 at once (every room holds memory until it closes).
async fn room_flood(addr: SocketAddr, block: u8) {
    let mut ws = ws_from(ip(20, block), addr, None, None)
        .await
        .expect("connect");
    send_json(&mut ws, hello()).await;
    let mut mine = Vec::new();
    for id in 1..=60u32 {
        send_json(
            &mut ws,
            json!({"create_room": {"id": id, "room": {"game": "xo", "opponent": {"local": {"names": ["A", "B"]}}}}}),
        )
        .await;
        let v = loop {
            let v = next_json(&mut ws, Duration::from_secs(10))
                .await
                .expect("answer");
            if v["room"]["id"] == id || v["error"]["id"] == id {
                break v;
            }
        };
        assert!(error_code(&v).is_none(), "room {id}: {v}");
        mine.push(
            v["room"]["room"]["id"]
                .as_str()
                .expect("room id")
                .to_owned(),
        );
        // Within the message rate.
        tokio::time::sleep(Duration::from_millis(55)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let lobby = request(addr, "GET", "/api/rooms", &[], None).await.json();
    let open = lobby
        .as_array()
        .expect("list")
        .iter()
        .filter(|r| mine.iter().any(|m| r["id"] == m.as_str()))
        .count();
    assert!(open <= 21, "{open} of the guest's 60 rooms are still open");
}

/// Wrong passwords: five `bad_credentials`, then `too_many_attempts` with Retry-After, for
/// that address (and that name) only.
async fn wrong_passwords(addr: SocketAddr, block: u8) {
    let from = ip(14, block);
    // A real account in the first round, unknown names (answered the same) in the others, so
    // that each round meets its own lock-out.
    let name = if block == 1 {
        "victim".to_owned()
    } else {
        format!("victim{block}")
    };
    let wrong = credentials(&name, "not-the-password");
    let mut statuses = Vec::new();
    for _ in 0..8 {
        statuses.push(http_from(from, addr, "POST", "/api/login", Some(&wrong)).await);
    }
    assert!(
        statuses[..5]
            .iter()
            .all(|(s, b)| *s == 401 && b.contains("bad_credentials")),
        "{statuses:?}"
    );
    assert!(
        statuses[5..]
            .iter()
            .all(|(s, b)| *s == 429 && b.contains("too_many_attempts")),
        "{statuses:?}"
    );
    // Another player signs in from another address as usual.
    let (status, body) = http_from(
        ip(15, block),
        addr,
        "POST",
        "/api/login",
        Some(&credentials("bystander", "password1")),
    )
    .await;
    assert_eq!(status, 200, "{body}");
}

/// Request bodies trickled one byte every half second (a body was never timed
/// out, so each held a descriptor for ever): every one is answered `408 body_timeout` once the
/// handshake timeout has passed. Returns how many, and the longest until the answer.
async fn slow_bodies(addr: SocketAddr, block: u8, n: usize) -> (usize, Duration) {
    let from = ip(30, block);
    let one = |i: usize| async move {
        let started = Instant::now();
        let mut stream = tcp_from(from, addr, None).await;
        let head = format!(
            "POST /api/login HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Content-Length: 64\r\nConnection: close\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).await.expect("headers");
        // 64 bytes at this pace would take 32 s; the server gives up long before.
        for b in b"{\"username\":\"sara\",\"password\":\"0123456789012345678901234" {
            if stream.write_all(&[*b]).await.is_err() {
                break;
            }
            // Stop trickling once the server has answered (then it reads no further).
            let mut peek = [0u8; 1];
            if let Ok(Ok(n)) =
                tokio::time::timeout(Duration::from_millis(500), stream.peek(&mut peek)).await
                && n > 0
            {
                break;
            }
        }
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
            .await
            .expect("the trickled body is answered")
            .ok();
        let text = String::from_utf8_lossy(&answer);
        assert!(
            text.starts_with("HTTP/1.1 408") && text.contains("\"code\":\"body_timeout\""),
            "slow body {i}: {text}"
        );
        started.elapsed()
    };
    let times = futures_util::future::join_all((0..n).map(one)).await;
    (times.len(), times.into_iter().max().unwrap_or_default())
}

/// Wrong passcodes: `wrong_passcode` for the guesser alone; after five, even the right code
/// is refused for them for a while, while another player still joins with it. The host hears
/// nothing of the guesses.
async fn wrong_passcodes(addr: SocketAddr, block: u8, cookies: [String; 3]) {
    let [host_cookie, guesser_cookie, joiner_cookie] = cookies;
    let mut host = ws_from(ip(16, block), addr, Some(&host_cookie), None)
        .await
        .expect("host");
    send_json(&mut host, hello()).await;
    send_json(
        &mut host,
        json!({"create_room": {"id": 1, "room": {"game": "xo", "opponent": {"player": {"joining": {"passcode": {"code": "4711"}}}}}}}),
    )
    .await;
    let room = loop {
        let v = next_json(&mut host, Duration::from_secs(5))
            .await
            .expect("room");
        if v["room"]["id"] == 1 {
            break v["room"]["room"]["id"].as_str().expect("id").to_owned();
        }
        assert_ne!(v["error"]["id"], 1, "the passcode room was refused: {v}");
    };
    let mut guesser = ws_from(ip(17, block), addr, Some(&guesser_cookie), None)
        .await
        .expect("guesser");
    send_json(&mut guesser, hello()).await;
    let mut answers = Vec::new();
    for (i, code) in ["0000", "0001", "0002", "0003", "0004", "4711"]
        .iter()
        .enumerate()
    {
        send_json(
            &mut guesser,
            json!({"join": {"id": 10 + i, "room": room, "passcode": code}}),
        )
        .await;
        loop {
            let v = next_json(&mut guesser, Duration::from_secs(5))
                .await
                .expect("answer");
            if v["error"]["id"] == 10 + i || v["room"]["id"] == 10 + i {
                answers.push(v);
                break;
            }
        }
    }
    for a in &answers[..5] {
        assert_eq!(error_code(a), Some("wrong_passcode"), "{a}");
    }
    assert_eq!(
        error_code(&answers[5]),
        Some("wrong_passcode"),
        "locked out: {}",
        answers[5]
    );
    assert!(
        answers[5]["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("too many")),
        "{}",
        answers[5]
    );
    // The host was told nothing of the guesses.
    let heard = next_json(&mut host, Duration::from_millis(300)).await;
    assert!(
        heard.is_none(),
        "the host heard of a refused guess: {heard:?}"
    );
    let mut joiner = ws_from(ip(18, block), addr, Some(&joiner_cookie), None)
        .await
        .expect("joiner");
    send_json(&mut joiner, hello()).await;
    send_json(
        &mut joiner,
        json!({"join": {"id": 2, "room": room, "passcode": "4711"}}),
    )
    .await;
    let v = loop {
        let v = next_json(&mut joiner, Duration::from_secs(5))
            .await
            .expect("answer");
        if v["room"]["id"] == 2 || v["error"]["id"] == 2 {
            break v;
        }
    };
    assert_eq!(
        v["room"]["room"]["seats"][1]["player"]["player"]["user"]["name"], "joiner",
        "{v}"
    );
}

/// On a failure, the server's log is printed (warnings and up), to see what it refused.
struct DumpLogOnPanic(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl Drop for DumpLogOnPanic {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let log = self
                .0
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            for line in log
                .iter()
                .filter(|l| !l.contains(" INFO ") && !l.contains(" DEBUG "))
                .take(200)
            {
                eprintln!("server: {line}");
            }
        }
    }
}

/// The soft limit on open files of this process (the server inherits it).
fn open_files_limit() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// Every kind of abuse, run at once; each one's time span is kept, so the well-behaved
/// client's figures can be read for the time each attack ran.
const KINDS: [&str; 9] = [
    "half_open",
    "silent",
    "slow",
    "frames",
    "flood",
    "passwords",
    "rooms",
    "passcodes",
    "slow_bodies",
];

/// What the abuse did: half-open connections (opened, longest open), silent WebSockets,
/// readers that never read, trickled bodies (answered, longest until the answer), and when
/// each kind ran (first start, last end over the rounds), in the order of [`KINDS`].
struct Pass {
    half_open: (usize, Duration),
    silent: usize,
    slow: usize,
    slow_bodies: (usize, Duration),
    spans: Vec<Option<(Instant, Instant)>>,
}

/// Runs `f` when `on`, with when it started and ended.
async fn timed<T: Default>(
    on: bool,
    f: impl Future<Output = T>,
) -> (T, Option<(Instant, Instant)>) {
    if !on {
        return (T::default(), None);
    }
    let from = Instant::now();
    let value = f.await;
    (value, Some((from, Instant::now())))
}

/// Every round (one loopback block each) runs every kind of abuse at once; the wrong
/// passcodes run once, in the first block, with `cookies` (host, guesser, joiner).
async fn attacks(addr: SocketAddr, blocks: &[u8], cookies: [String; 3]) -> Pass {
    let first = blocks[0];
    let rounds = blocks.iter().map(|&block| {
        let cookies = cookies.clone();
        async move {
            let (h, s, sl, b, fr, fl, pw, ro, pc) = tokio::join!(
                timed(phase("half_open"), half_open_tcp(addr, block, 4, 300)),
                timed(phase("silent"), silent_websockets(addr, block)),
                timed(phase("slow"), slow_readers(addr, block, 8)),
                timed(phase("slow_bodies"), slow_bodies(addr, block, 20)),
                timed(phase("frames"), oversized_and_bad_frames(addr, block)),
                timed(phase("flood"), floods(addr, block, 6)),
                timed(phase("passwords"), wrong_passwords(addr, block)),
                timed(phase("rooms"), room_flood(addr, block)),
                timed(
                    block == first && phase("passcodes"),
                    wrong_passcodes(addr, block, cookies)
                ),
            );
            // In the order of KINDS.
            let spans = [h.1, s.1, sl.1, fr.1, fl.1, pw.1, ro.1, pc.1, b.1];
            (h.0, s.0, sl.0, b.0, spans)
        }
    });
    let mut pass = Pass {
        half_open: (0, Duration::ZERO),
        silent: 0,
        slow: 0,
        slow_bodies: (0, Duration::ZERO),
        spans: vec![None; KINDS.len()],
    };
    for (h, s, sl, b, spans) in futures_util::future::join_all(rounds).await {
        pass.half_open = (pass.half_open.0 + h.0, pass.half_open.1.max(h.1));
        pass.silent += s;
        pass.slow += sl;
        pass.slow_bodies = (pass.slow_bodies.0 + b.0, pass.slow_bodies.1.max(b.1));
        for (kept, span) in pass.spans.iter_mut().zip(spans) {
            *kept = match (*kept, span) {
                (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
                (k, s) => k.or(s),
            };
        }
    }
    pass
}

/// The well-behaved client's figures while one attack ran.
struct Window {
    attack: String,
    from: Instant,
    to: Instant,
}

/// Prints one row per attack: the well-behaved client's WebSocket and HTTP round trips while
/// it ran; asserts each within [`ANSWER_BOUND`].
fn report(windows: &[Window], ws: &Samples, http: &Samples) {
    eprintln!(
        "| attack | well-behaved WebSocket round trip p50 / p99 / max (n) | /api/health p50 / p99 / max (n) | time |"
    );
    for w in windows {
        let (n, p50, p99, max) = summary(within(ws, w.from, w.to));
        let (hn, hp50, hp99, hmax) = summary(within(http, w.from, w.to));
        eprintln!(
            "| {} | {p50:.1} / {p99:.1} / {max:.1} ms ({n}) | {hp50:.1} / {hp99:.1} / {hmax:.1} ms ({hn}) | {:.1} s |",
            w.attack,
            (w.to - w.from).as_secs_f64()
        );
        assert!(
            Duration::from_secs_f64(max / 1000.0) < ANSWER_BOUND,
            "{}: the well-behaved client waited {max:.1} ms",
            w.attack
        );
        assert!(
            Duration::from_secs_f64(hmax / 1000.0) < ANSWER_BOUND,
            "{}: the well-behaved HTTP client waited {hmax:.1} ms",
            w.attack
        );
    }
}

/// S4 with the Pi's default open-files limit: 1,100 connections from one address
/// against a server run under `prlimit --nofile=1024:1024`, held while the well-behaved client
/// (on 127.0.0.1) plays and asks `/api/health` for a few seconds; with the per-address cap
/// (`cap: true`) or only with shedding near the limit. Returns the client's samples.
async fn descriptor_flood(cap: bool, block: u8) -> (Window, Samples, Samples) {
    const FLOOD: usize = 1_100;
    let dir = tempfile::tempdir().expect("temp dir");
    let mut env = vec![("XO_HANDSHAKE_TIMEOUT", "60")];
    if !cap {
        env.push(("XO_MAX_CONNECTIONS_PER_ADDRESS", "0"));
    }
    let server = Process::start_wrapped(
        &["prlimit", "--nofile=1024:1024", "--"],
        &dir.path().join("data"),
        &env,
    );
    let _dump = DumpLogOnPanic(std::sync::Arc::clone(&server.log));
    let addr = server.addr;
    let stop = Arc::new(AtomicBool::new(false));
    let probe = tokio::spawn(well_behaved(addr, Arc::clone(&stop)));
    tokio::time::sleep(Duration::from_millis(300)).await;
    let from = Instant::now();
    let held = support::half_requests(ip(40, block), addr, FLOOD).await;
    // The flood stays open while the well-behaved client goes on.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let fds = server.open_fds();
    let to = Instant::now();
    stop.store(true, Ordering::Relaxed);
    let (ws, http) = probe.await.expect("the well-behaved client");
    assert!(
        fds < 1024,
        "the server stays under its open-files limit: {fds}"
    );
    let (refusal, attack) = if cap {
        (
            "connection refused: too many open connections from this address",
            "1,100 connections from one address, open files 1,024, cap 256 per address",
        )
    } else {
        (
            "connection shed",
            "1,100 connections from one address, open files 1,024, no cap (shedding only)",
        )
    };
    assert!(
        !server.wait_log_lines(refusal).await.is_empty(),
        "the log says {refusal:?}"
    );
    let accept_failures = server.log_lines("accept failed").len();
    assert!(
        accept_failures <= 5,
        "accept failures logged at a bounded rate: {accept_failures}"
    );
    eprintln!(
        "{attack}: {} held on our side, the server at {fds} descriptors, {accept_failures} accept-failure lines",
        held.len()
    );
    drop(held);
    server.stop_with("-TERM");
    (
        Window {
            attack: attack.to_owned(),
            from,
            to,
        },
        ws,
        http,
    )
}

async fn run(scale: usize) {
    // Each round holds 1,200 half-open connections and about 150 others, on both sides.
    let needed = 1_400 * scale as u64 + 500;
    if let Some(limit) = open_files_limit() {
        assert!(
            limit >= needed,
            "XO_ABUSE_SCALE={scale} needs about {needed} open files; `ulimit -n` is {limit}"
        );
    }
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("temp dir");
    let handshake = HANDSHAKE_S.to_string();
    let server = Process::start(
        &dir.path().join("data"),
        &[
            ("XO_HANDSHAKE_TIMEOUT", handshake.as_str()),
            ("XO_LOG", "info"),
        ],
    );
    let addr = server.addr;
    let _dump = DumpLogOnPanic(std::sync::Arc::clone(&server.log));
    let start_rss = server.status_kib("VmRSS");
    let cookies = [
        register_at(addr, "host", "password1").await,
        register_at(addr, "guesser", "password1").await,
        register_at(addr, "joiner", "password1").await,
    ];
    register_at(addr, "victim", "password1").await;
    register_at(addr, "bystander", "password1").await;
    let idle_rss = server.status_kib("VmRSS");

    let stop = Arc::new(AtomicBool::new(false));
    let probe = tokio::spawn(well_behaved(addr, Arc::clone(&stop)));
    let pid = server.child.id();
    let sampler = {
        let stop = Arc::clone(&stop);
        tokio::spawn(async move {
            let mut peak = 0u64;
            while !stop.load(Ordering::Relaxed) {
                if let Ok(s) = std::fs::read_to_string(format!("/proc/{pid}/status"))
                    && let Some(kib) = s
                        .lines()
                        .find_map(|l| l.strip_prefix("VmRSS:"))
                        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
                {
                    peak = peak.max(kib);
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            peak
        })
    };
    // Let the well-behaved client settle before the abuse starts.
    tokio::time::sleep(Duration::from_millis(500)).await;

    let blocks: Vec<u8> = (0..scale)
        .map(|round| u8::try_from(round + 1).expect("scale under 200"))
        .collect();
    let from = Instant::now();
    let all = attacks(addr, &blocks, cookies).await;
    let mut windows = vec![Window {
        attack: "all at once (the whole round)".to_owned(),
        from,
        to: Instant::now(),
    }];
    for (kind, span) in KINDS.iter().zip(&all.spans) {
        if let Some((from, to)) = *span {
            windows.push(Window {
                attack: format!("while {kind} ran"),
                from,
                to,
            });
        }
    }
    let abuse_s = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let (ws_samples, http_samples) = probe.await.expect("the well-behaved client");
    let peak_sampled = sampler.await.expect("sampler");
    let hwm = server.status_kib("VmHWM");
    let rss_after = server.status_kib("VmRSS");

    // Every abusive WebSocket was closed, and the test holds none now.
    let mut health = Value::Null;
    for _ in 0..50 {
        health = request(addr, "GET", "/api/health", &[], None).await.json();
        if health["connections"] == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    let whole = |s: &Samples| s.iter().map(|&(_, d)| d).collect::<Vec<_>>();
    let (n, p50, p99, max) = summary(whole(&ws_samples));
    let (hn, hp50, hp99, hmax) = summary(whole(&http_samples));
    eprintln!(
        "abuse x{scale}, all at once: {} half-open TCP connections (longest open {:.1} s), \
         {} silent WebSockets, {} readers that never read, {} flooders, \
         {} oversized/bad-frame clients, {} trickled bodies (longest until 408: {:.1} s), wrong \
         passwords and passcodes; {abuse_s:.1} s\n\
         well-behaved WebSocket round trips, whole run: n={n} p50={p50:.1} ms p99={p99:.1} ms max={max:.1} ms\n\
         well-behaved HTTP /api/health, whole run: n={hn} p50={hp50:.1} ms p99={hp99:.1} ms max={hmax:.1} ms\n\
         server memory: at start {start_rss} KiB, after five argon2 registrations {idle_rss} KiB, peak sampled {peak_sampled} KiB, VmHWM {hwm} KiB, after {rss_after} KiB\n\
         health after: {health}",
        all.half_open.0,
        all.half_open.1.as_secs_f64(),
        all.silent,
        all.slow,
        6 * scale,
        3 * scale,
        all.slow_bodies.0,
        all.slow_bodies.1.as_secs_f64(),
    );
    report(&windows, &ws_samples, &http_samples);
    assert!(hwm < rss_bound_kib(scale), "peak RSS {hwm} KiB");
    assert!(
        all.half_open.1 <= Duration::from_secs(2 * HANDSHAKE_S + 5),
        "half-open connections closed within the handshake timeout: {:?}",
        all.half_open.1
    );
    assert!(
        all.slow_bodies.1 <= Duration::from_secs(2 * HANDSHAKE_S + 5),
        "trickled bodies answered within the handshake timeout: {:?}",
        all.slow_bodies.1
    );
    assert_eq!(
        health["connections"], 0,
        "every abusive WebSocket is gone: {health}"
    );

    // What the server refused is in its log (for the kinds that ran).
    for (kind, line) in [
        (
            "half_open",
            "connection closed: no request within the handshake timeout",
        ),
        // The per-address cap on open connections (256 by default) meets half-open ones first.
        (
            "half_open",
            "connection refused: too many open connections from this address",
        ),
        ("silent", "WebSocket refused: too many from this address"),
        ("silent", "WebSocket closed: no hello in time"),
        (
            "slow",
            "WebSocket closed: the client does not read what it is sent",
        ),
        ("frames", "WebSocket closed: frame over the hard size limit"),
        ("frames", "WebSocket closed: too many bad frames in a row"),
        ("flood", "WebSocket closed: message flood"),
        ("frames", "frame refused"),
        ("passwords", "too many failed attempts; try again in"),
        // The room logs a passcode guesser once the per-player lock holds them.
        ("passcodes", "passcode refused: too many wrong passcodes"),
        ("slow_bodies", "the request body did not arrive within"),
    ] {
        if phase(kind) {
            assert!(
                !server.wait_log_lines(line).await.is_empty(),
                "the log says {line:?}"
            );
        }
    }
    let log_lines = server.log.lock().map(|l| l.len()).unwrap_or(0);
    eprintln!("server log: {log_lines} lines");
    server.stop_with("-TERM");

    // Descriptor exhaustion needs its own servers: under the 1,024 open files of the Pi's
    // default, not the abuse run's thousands.
    if phase("descriptors") {
        let mut windows = Vec::new();
        let (mut ws, mut http) = (Vec::new(), Vec::new());
        for (cap, block) in [(true, 200), (false, 201)] {
            let (w, s, h) = descriptor_flood(cap, block).await;
            windows.push(w);
            ws.extend(s);
            http.extend(h);
        }
        report(&windows, &ws, &http);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn abusive_clients_meet_limits_while_a_well_behaved_one_is_served() {
    run(scale()).await;
}
