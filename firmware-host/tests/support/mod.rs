//! Shared by the integration tests: an in-process server on 127.0.0.1 port 0 with a temporary
//! data directory, and a small HTTP/1.1 client over a plain TcpStream.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use firmware_host::{Config, Server};

pub mod owner;
pub mod store;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

/// Every network step of a test is bounded by this.
pub const STEP: Duration = Duration::from_secs(30);

/// A server started in-process, with the folder holding its data.
pub struct TestServer {
    pub server: Server,
    pub dir: tempfile::TempDir,
}

impl TestServer {
    pub async fn start() -> TestServer {
        let dir = tempfile::tempdir().expect("temp dir");
        let server = Server::start(Config::for_tests(dir.path().join("data")))
            .await
            .expect("server starts");
        TestServer { server, dir }
    }

    pub fn addr(&self) -> SocketAddr {
        self.server.local_addr()
    }

    pub async fn get(&self, path: &str, cookie: Option<&str>) -> Reply {
        let headers: Vec<(&str, &str)> = cookie.map(|c| ("Cookie", c)).into_iter().collect();
        request(self.addr(), "GET", path, &headers, None).await
    }

    pub async fn post_json(&self, path: &str, body: &str, cookie: Option<&str>) -> Reply {
        let mut headers = vec![("Content-Type", "application/json")];
        if let Some(c) = cookie {
            headers.push(("Cookie", c));
        }
        request(self.addr(), "POST", path, &headers, Some(body.as_bytes())).await
    }

    /// Registers and returns the `xo_session=...` cookie pair.
    pub async fn register(&self, name: &str, password: &str) -> String {
        register_at(self.addr(), name, password).await
    }
}

/// Registers `name` on the server at `addr` and returns the `xo_session=...` cookie pair.
pub async fn register_at(addr: SocketAddr, name: &str, password: &str) -> String {
    register_user_at(addr, name, password).await.1
}

/// Registers `name` on the server at `addr`: the new account's id and its `xo_session=...`
/// cookie pair.
pub async fn register_user_at(addr: SocketAddr, name: &str, password: &str) -> (u64, String) {
    let reply = request(
        addr,
        "POST",
        "/api/register",
        &[("Content-Type", "application/json")],
        Some(credentials(name, password).as_bytes()),
    )
    .await;
    assert_eq!(reply.status, 201, "register {name}: {}", reply.text());
    (
        reply.json()["id"].as_u64().expect("user id"),
        reply.cookie_pair("xo_session").expect("session cookie"),
    )
}

pub fn credentials(name: &str, password: &str) -> String {
    serde_json::json!({ "username": name, "password": password }).to_string()
}

/// A parsed response.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    /// Lower-cased names, in order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn headers_named(&self, name: &str) -> Vec<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .filter(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// The full `Set-Cookie` value for cookie `name`.
    pub fn set_cookie(&self, name: &str) -> Option<&str> {
        self.headers_named("set-cookie")
            .into_iter()
            .find(|v| v.starts_with(&format!("{name}=")))
    }

    /// `name=value` from the `Set-Cookie` for `name`, ready for a `Cookie` header.
    pub fn cookie_pair(&self, name: &str) -> Option<String> {
        self.set_cookie(name)
            .and_then(|v| v.split(';').next())
            .map(str::to_owned)
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    /// Asserts a JSON error with this status and code.
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_eq!(self.status, status, "{}", self.text());
        let json = self.json();
        assert_eq!(json["code"], code, "{json}");
        assert!(
            json["message"].as_str().is_some_and(|m| !m.is_empty()),
            "error without a message: {json}"
        );
    }
}

/// One request on a fresh connection (`Connection: close`), read to the end.
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&[u8]>,
) -> Reply {
    let mut raw = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (k, v) in headers {
        raw.push_str(&format!("{k}: {v}\r\n"));
    }
    if let Some(body) = body {
        raw.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    raw.push_str("\r\n");
    let mut bytes = raw.into_bytes();
    if let Some(body) = body {
        bytes.extend_from_slice(body);
    }
    send_raw(addr, &bytes).await
}

/// Sends bytes as they are and parses the answer (read until the server closes).
pub async fn send_raw(addr: SocketAddr, bytes: &[u8]) -> Reply {
    tokio::time::timeout(STEP, async {
        let mut stream = TcpStream::connect(addr).await.expect("connect");
        stream.write_all(bytes).await.expect("send request");
        let mut answer = Vec::new();
        // The server may close before reading an oversized body; what it sent is enough.
        if let Err(e) = stream.read_to_end(&mut answer).await {
            assert!(!answer.is_empty(), "read failed before any answer: {e}");
        }
        parse(&answer)
    })
    .await
    .expect("HTTP exchange within the time limit")
}

fn parse(answer: &[u8]) -> Reply {
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(answer)));
    let head = String::from_utf8_lossy(&answer[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().expect("status line");
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let mut body = answer[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(k, v)| k == "transfer-encoding" && v.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..100_000 {
        let Some(line_end) = data.windows(2).position(|w| w == b"\r\n") else {
            break;
        };
        let size_text = String::from_utf8_lossy(&data[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
            .expect("chunk size");
        if size == 0 {
            break;
        }
        let start = line_end + 2;
        out.extend_from_slice(&data[start..start + size]);
        data = &data[start + size + 2..];
    }
    out
}

/// Inflates a gzip body.
pub fn gunzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("valid gzip");
    out
}

/// Sends bytes and parses only the status line and headers (for answers that keep the
/// connection open, like `101 Switching Protocols`).
pub async fn send_head_only(addr: SocketAddr, bytes: &[u8]) -> Reply {
    tokio::time::timeout(STEP, async {
        let mut stream = TcpStream::connect(addr).await.expect("connect");
        stream.write_all(bytes).await.expect("send request");
        let mut answer = Vec::new();
        let mut buf = [0u8; 1024];
        while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = stream.read(&mut buf).await.expect("read");
            assert!(n > 0, "closed before the headers ended");
            answer.extend_from_slice(&buf[..n]);
        }
        parse(&answer)
    })
    .await
    .expect("HTTP head within the time limit")
}

/// A JSON WebSocket client of the server.
pub type Ws = tokio_tungstenite::WebSocketStream<TcpStream>;

/// The WebSocket handshake at `/ws` over `tcp` with an optional `Cookie` header, within
/// [`STEP`]: the socket (no hello sent yet) and the `101` response, or the refusal.
pub async fn ws_over(
    tcp: TcpStream,
    addr: SocketAddr,
    cookie: Option<&str>,
) -> Result<
    (
        Ws,
        tokio_tungstenite::tungstenite::handshake::client::Response,
    ),
    tokio_tungstenite::tungstenite::Error,
> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{addr}/ws")
        .into_client_request()
        .expect("request");
    if let Some(c) = cookie {
        req.headers_mut()
            .insert("Cookie", c.parse().expect("cookie header"));
    }
    tokio::time::timeout(STEP, tokio_tungstenite::client_async(req, tcp))
        .await
        .expect("handshake in time")
}

/// The WebSocket handshake at `/ws` with an optional `Cookie` header, within [`STEP`]; returns
/// the socket (no hello sent yet) and the `101` response.
pub async fn ws_handshake(
    addr: SocketAddr,
    cookie: Option<&str>,
) -> (
    Ws,
    tokio_tungstenite::tungstenite::handshake::client::Response,
) {
    let tcp = TcpStream::connect(addr).await.expect("connect");
    ws_over(tcp, addr, cookie)
        .await
        .expect("handshake succeeds")
}

/// Sends the client hello.
pub async fn ws_hello(ws: &mut Ws) {
    ws_send(
        ws,
        serde_json::json!({"hello": {"version": protocol::PROTOCOL_VERSION}}),
    )
    .await;
}

/// As [`ws_connect`], from a chosen loopback address.
pub async fn ws_connect_from(from: Ipv4Addr, addr: SocketAddr, cookie: Option<&str>) -> Ws {
    let tcp = tcp_from(from, addr, None).await;
    let (mut ws, _) = ws_over(tcp, addr, cookie)
        .await
        .expect("handshake succeeds");
    ws_hello(&mut ws).await;
    ws
}

/// A handshaken socket that has sent its hello.
pub async fn ws_connect(addr: SocketAddr, cookie: Option<&str>) -> Ws {
    let (mut ws, _) = ws_handshake(addr, cookie).await;
    ws_hello(&mut ws).await;
    ws
}

pub async fn ws_send(ws: &mut Ws, value: serde_json::Value) {
    use futures_util::SinkExt;
    ws.send(tokio_tungstenite::tungstenite::Message::text(
        value.to_string(),
    ))
    .await
    .expect("send");
}

/// Reads JSON messages until one satisfies `want` (at most 200 messages, each within
/// [`STEP`]); an error message on the way fails the test.
pub async fn ws_wait_for(
    ws: &mut Ws,
    what: &str,
    want: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    use futures_util::StreamExt;
    for _ in 0..200 {
        let msg = tokio::time::timeout(STEP, ws.next())
            .await
            .unwrap_or_else(|_| panic!("waiting for {what}: nothing in time"))
            .expect("connection open")
            .expect("valid frame");
        if let tokio_tungstenite::tungstenite::Message::Text(text) = msg {
            let value: serde_json::Value = serde_json::from_str(text.as_str()).expect("JSON");
            assert!(value.get("error").is_none(), "waiting for {what}: {value}");
            if want(&value) {
                return value;
            }
        }
    }
    panic!("waiting for {what}: not among 200 messages");
}

/// Plays a rated Infinite XO room between two signed-in players until the joiner resigns,
/// and returns the room id and the result event as the host received it.
pub async fn play_rated_until_resignation(
    addr: SocketAddr,
    host_cookie: &str,
    joiner_cookie: &str,
) -> (String, serde_json::Value) {
    let mut host = ws_connect(addr, Some(host_cookie)).await;
    ws_send(
        &mut host,
        serde_json::json!({"create_room": {"id": 1, "room": {"game": "infinite", "opponent": {"player": {}}}}}),
    )
    .await;
    let created = ws_wait_for(&mut host, "the new room", |v| v.get("room").is_some()).await;
    let room_id = created["room"]["room"]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("room id in {created}"))
        .to_owned();
    let mut joiner = ws_connect(addr, Some(joiner_cookie)).await;
    ws_send(
        &mut joiner,
        serde_json::json!({"join": {"id": 2, "room": room_id}}),
    )
    .await;
    ws_wait_for(&mut joiner, "the seat", |v| v["room"]["id"] == 2).await;
    ws_send(
        &mut joiner,
        serde_json::json!({"ready": {"id": 3, "ready": true}}),
    )
    .await;
    ws_wait_for(&mut joiner, "ready acknowledged", |v| v["room"]["id"] == 3).await;
    ws_send(&mut host, serde_json::json!({"start": {"id": 4}})).await;
    ws_wait_for(&mut host, "the start", |v| v["room"]["id"] == 4).await;
    ws_send(&mut joiner, serde_json::json!({"resign": {"id": 5}})).await;
    let result = ws_wait_for(&mut host, "the result", |v| {
        v["event"].get("result").is_some()
    })
    .await;
    (room_id, result)
}

/// The real server process; killed if a test fails before stopping it.
pub struct Process {
    pub child: Child,
    pub addr: SocketAddr,
    /// Every line the server has logged so far (standard error).
    pub log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Drop for Process {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            // Best effort on a failing test: the process must not outlive it.
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Process {
    /// Starts the binary on 127.0.0.1 port 0 and reads the port from the log line.
    pub fn start(data_dir: &Path, extra_env: &[(&str, &str)]) -> Process {
        Process::start_wrapped(&[], data_dir, extra_env)
    }

    /// As [`Process::start`], run through `wrapper` (e.g. `["prlimit", "--nofile=1024:1024",
    /// "--"]`), which must exec the binary in the same process.
    pub fn start_wrapped(wrapper: &[&str], data_dir: &Path, extra_env: &[(&str, &str)]) -> Process {
        let binary = env!("CARGO_BIN_EXE_firmware-host");
        let mut command = match wrapper.split_first() {
            Some((program, args)) => {
                let mut c = Command::new(program);
                c.args(args).arg(binary);
                c
            }
            None => Command::new(binary),
        };
        command
            .args(["--bind", "127.0.0.1:0", "--data-dir"])
            .arg(data_dir)
            .env_remove("XO_BIND")
            .env_remove("XO_KIOSK_IDLE")
            // Tests register many players and play many rated games from 127.0.0.1; the
            // limits have their own tests (sign_in_throttle.rs, rated_games_limit.rs), which
            // set them back.
            .env("XO_MAX_REGISTRATIONS_PER_ADDRESS", "0")
            .env("XO_MAX_RATED_GAMES_PER_ADDRESS", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in extra_env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("start firmware-host");
        let stderr = child.stderr.take().expect("piped stderr");
        let (found, lines) = std::sync::mpsc::channel();
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = std::sync::Arc::clone(&log);
        // Reads the log until the address appears, then keeps draining (and keeping) it so the
        // pipe never fills.
        std::thread::spawn(move || {
            let mut sent = false;
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if !sent && let Some(rest) = line.split("listening on http://").nth(1) {
                    let addr = rest.split_whitespace().next().unwrap_or("").to_owned();
                    sent = found.send(addr).is_ok();
                }
                kept.lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .push(line);
            }
        });
        let addr = lines
            .recv_timeout(Duration::from_secs(30))
            .expect("the server logs its address within 30 s");
        Process {
            child,
            addr: addr.parse().expect("a socket address in the log line"),
            log,
        }
    }

    /// The log lines that contain `needle`, once there is at least one (or none after 10 s).
    /// The server writes a line before it answers, but another thread reads its stderr, so a
    /// line can arrive after the answer that the test saw.
    pub async fn wait_log_lines(&self, needle: &str) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let lines = self.log_lines(needle);
            if !lines.is_empty() || Instant::now() > deadline {
                return lines;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// The log lines so far that contain `needle`.
    pub fn log_lines(&self, needle: &str) -> Vec<String> {
        self.log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .filter(|l| l.contains(needle))
            .cloned()
            .collect()
    }

    /// Descriptors the server process holds now.
    pub fn open_fds(&self) -> usize {
        std::fs::read_dir(format!("/proc/{}/fd", self.child.id()))
            .expect("/proc fd of the server")
            .count()
    }

    /// A field of `/proc/PID/status` in KiB (`VmRSS`, `VmHWM` …).
    pub fn status_kib(&self, field: &str) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .expect("/proc status of the server");
        status
            .lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or_else(|| panic!("no {field} in /proc status"))
    }

    /// SIGKILL: no chance to flush anything.
    pub fn stop_with_kill(mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reaped");
    }

    /// Sends a signal with the system's `kill` and waits (bounded) for a clean exit.
    pub fn stop_with(mut self, signal: &str) {
        let status = Command::new("kill")
            .args([signal, &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                assert!(status.success(), "clean exit after {signal}: {status}");
                return;
            }
            assert!(Instant::now() < deadline, "no exit within 20 s of {signal}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Opens `n` connections from `from`, each sending the start of a request line and then
/// nothing (past the first-bytes check, held by the header timeout): a flood meant to use up the
/// server's descriptors (S4). Returns those still open on our side (the server may close the rest at once).
pub async fn half_requests(from: Ipv4Addr, addr: SocketAddr, n: usize) -> Vec<TcpStream> {
    let mut open = Vec::with_capacity(n);
    for _ in 0..n {
        let mut stream = tcp_from(from, addr, None).await;
        // A connection the server already closed fails here; that is the point.
        if stream
            .write_all(b"GET /api/health HTTP/1.1\r\n")
            .await
            .is_ok()
        {
            open.push(stream);
        }
    }
    open
}

/// A TCP connection from a chosen loopback address.
pub async fn tcp_from(from: Ipv4Addr, addr: SocketAddr, recv_buffer: Option<u32>) -> TcpStream {
    let socket = TcpSocket::new_v4().expect("socket");
    socket.bind(SocketAddr::from((from, 0))).expect("bind");
    if let Some(size) = recv_buffer {
        socket.set_recv_buffer_size(size).expect("SO_RCVBUF");
    }
    tokio::time::timeout(Duration::from_secs(10), socket.connect(addr))
        .await
        .expect("connect in time")
        .expect("connect")
}

/// An HTTP/1.1 request from a chosen loopback address; the status and the body.
pub async fn http_from(
    from: Ipv4Addr,
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> (u16, String) {
    let mut stream = tcp_from(from, addr, None).await;
    let mut raw = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    if let Some(b) = body {
        raw.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{b}",
            b.len()
        ));
    } else {
        raw.push_str("\r\n");
    }
    stream.write_all(raw.as_bytes()).await.expect("send");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("answer in time")
        .expect("read");
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = status_of(&text);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_owned())
        .unwrap_or_default();
    (status, body)
}

/// A JSON POST from `from`, written whole except its last byte; [`finish`] sends it.
pub async fn hold_post(
    from: Ipv4Addr,
    addr: SocketAddr,
    path: &str,
    body: &str,
    cookie: Option<&str>,
) -> TcpStream {
    hold_request(from, addr, "POST", path, body, cookie).await
}

/// A JSON request (`POST`, `PUT` …) from `from`, written whole except its last byte;
/// [`finish`] sends it.
pub async fn hold_request(
    from: Ipv4Addr,
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &str,
    cookie: Option<&str>,
) -> TcpStream {
    let mut stream = tcp_from(from, addr, None).await;
    let cookie = cookie.map_or(String::new(), |c| format!("Cookie: {c}\r\n"));
    let raw = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n{cookie}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let bytes = raw.as_bytes();
    stream
        .write_all(&bytes[..bytes.len() - 1])
        .await
        .expect("send all but the last byte");
    stream
}

/// Sends the held last byte `last` and reads the whole answer: status and raw text.
pub async fn finish(mut stream: TcpStream, last: u8) -> (u16, String) {
    stream.write_all(&[last]).await.expect("send the last byte");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(120), stream.read_to_end(&mut answer))
        .await
        .expect("answer in time")
        .expect("read");
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = status_of(&text);
    (status, text)
}

/// The status code of a raw HTTP answer (`HTTP/1.1 200 OK…`), 0 when there is none.
fn status_of(text: &str) -> u16 {
    text.split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}
