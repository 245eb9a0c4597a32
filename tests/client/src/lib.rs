//! A client of the XO Kiosk WebSocket protocol (`docs/PROTOCOL.md`), for tools and tests that
//! talk to a real server: the image boot test, load and crash tests.
//!
//! ```no_run
//! # async fn demo() -> Result<(), xo_client::ClientError> {
//! use protocol::Framing;
//! let mut client = xo_client::Client::connect("http://127.0.0.1:8080", None, Framing::Text).await?;
//! let result = client.play_bot_game(engine::Game::Infinite, 50, &mut rand::rng()).await?;
//! println!("{:?}", result.end);
//! # Ok(()) }
//! ```

pub mod privileged;

use std::time::Duration;

use engine::{Cell, Game, Mark};
use futures_util::{SinkExt, StreamExt};
use protocol::{
    ClientMsg, CreateRoom, Frame, Framing, OpponentRequest, Phase, RoomView, ServerMsg,
    decode_server,
    puzzle::{AttemptId, PuzzleSource, PuzzleView},
    view::ResultView,
};
use rand::{Rng, RngExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// The read buffer of each connection, in bytes.
pub const CLIENT_READ_BUFFER: usize = 8 * 1024;

/// How long any single wait for the server may take.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(30);

/// What can go wrong talking to a server.
#[derive(Debug)]
pub enum ClientError {
    Connect(String),
    Closed,
    Timeout(&'static str),
    Protocol(String),
    /// The server refused an intent.
    Refused {
        code: String,
        message: String,
    },
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Connect(e) => write!(f, "cannot connect: {e}"),
            ClientError::Closed => f.write_str("the server closed the connection"),
            ClientError::Timeout(what) => write!(f, "no answer from the server while {what}"),
            ClientError::Protocol(e) => write!(f, "unexpected message: {e}"),
            ClientError::Refused { code, message } => write!(f, "refused ({code}): {message}"),
        }
    }
}

impl std::error::Error for ClientError {}

/// One WebSocket connection that has exchanged hellos.
#[derive(Debug)]
pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    framing: Framing,
    next_id: u32,
    /// The name the server gave this connection in its hello.
    pub name: String,
    /// The signed-in player's id from the server's hello; `None` for a guest (no session, or
    /// one the server does not know).
    pub user: Option<u64>,
    /// The sustained message rate the server allows this connection (from its hello); a client
    /// sending faster is closed with `flood`.
    pub max_messages_per_s: u32,
}

impl Client {
    /// Connects to `base` (`http://HOST:PORT`), sending `cookie` (e.g. `xo_session=…`) if given,
    /// and exchanges hellos. Later messages use `framing`.
    pub async fn connect(
        base: &str,
        cookie: Option<&str>,
        framing: Framing,
    ) -> Result<Client, ClientError> {
        let url = format!(
            "{}/ws",
            base.trim_end_matches('/')
                .replacen("http://", "ws://", 1)
                .replacen("https://", "wss://", 1)
        );
        let mut request = url
            .into_client_request()
            .map_err(|e| ClientError::Connect(e.to_string()))?;
        if let Some(cookie) = cookie {
            request.headers_mut().insert(
                "cookie",
                cookie
                    .parse()
                    .map_err(|_| ClientError::Connect("cookie is not a header value".into()))?,
            );
        }
        // Small messages in turn: Nagle's algorithm would only add delay (the server sets
        // TCP_NODELAY too).
        // The server's frames are small (snapshots of about a kilobyte); tungstenite's default
        // 128 KiB read buffer, zero-filled on the first read, would make a load generator's
        // thousands of connections cost 128 KiB each. Larger frames still arrive whole.
        let config = WebSocketConfig::default().read_buffer_size(CLIENT_READ_BUFFER);
        let connecting = tokio_tungstenite::connect_async_with_config(request, Some(config), true);
        let (ws, _) = tokio::time::timeout(REPLY_TIMEOUT, connecting)
            .await
            .map_err(|_| ClientError::Timeout("connecting"))?
            .map_err(|e| ClientError::Connect(e.to_string()))?;
        let mut client = Client {
            ws,
            framing,
            next_id: 1,
            name: String::new(),
            user: None,
            max_messages_per_s: 0,
        };
        match client.recv().await? {
            ServerMsg::Hello {
                name,
                user,
                max_messages_per_s,
                ..
            } => {
                client.name = name;
                client.user = user;
                client.max_messages_per_s = max_messages_per_s;
            }
            other => {
                return Err(ClientError::Protocol(format!(
                    "expected hello, got {other:?}"
                )));
            }
        }
        client
            .send_raw(ClientMsg::Hello {
                version: protocol::PROTOCOL_VERSION,
            })
            .await?;
        Ok(client)
    }

    /// A fresh request id.
    pub fn id(&mut self) -> Option<u32> {
        self.next_id += 1;
        Some(self.next_id)
    }

    async fn send_raw(&mut self, msg: ClientMsg) -> Result<(), ClientError> {
        let message = match msg.encode(self.framing) {
            Frame::Text(text) => Message::text(text),
            Frame::Binary(bytes) => Message::binary(bytes),
        };
        self.ws.send(message).await.map_err(|_| ClientError::Closed)
    }

    /// Sends an intent.
    pub async fn send(&mut self, msg: ClientMsg) -> Result<(), ClientError> {
        self.send_raw(msg).await
    }

    /// The next message from the server.
    pub async fn recv(&mut self) -> Result<ServerMsg, ClientError> {
        self.recv_within(REPLY_TIMEOUT)
            .await?
            .ok_or(ClientError::Timeout("waiting for a message"))
    }

    /// The next message from the server, or `None` when none came within `wait`.
    pub async fn recv_within(&mut self, wait: Duration) -> Result<Option<ServerMsg>, ClientError> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let Ok(next) = tokio::time::timeout_at(deadline, self.ws.next()).await else {
                return Ok(None);
            };
            let message = next
                .ok_or(ClientError::Closed)?
                .map_err(|_| ClientError::Closed)?;
            let frame = match message {
                Message::Text(text) => Frame::Text(text.as_str().to_owned()),
                Message::Binary(bytes) => Frame::Binary(bytes.to_vec()),
                Message::Close(_) => return Err(ClientError::Closed),
                _ => continue,
            };
            return decode_server(&frame)
                .map(Some)
                .map_err(|e| ClientError::Protocol(e.to_string()));
        }
    }

    /// Closes the connection politely (a close frame), within [`REPLY_TIMEOUT`].
    pub async fn close(mut self) {
        // Best effort: the connection is being dropped either way.
        let _ = tokio::time::timeout(REPLY_TIMEOUT, self.ws.close(None)).await;
    }

    /// Creates a bot room and plays it to the end as the human (X), choosing uniformly among
    /// the empty cells on every turn. Returns the result.
    pub async fn play_bot_game<R: Rng + ?Sized>(
        &mut self,
        game: Game,
        difficulty: u8,
        rng: &mut R,
    ) -> Result<ResultView, ClientError> {
        let id = self.id();
        self.send(ClientMsg::CreateRoom {
            id,
            room: CreateRoom {
                game,
                opponent: OpponentRequest::Bot {
                    difficulty: Some(difficulty),
                    side: Some(Mark::X),
                },
                time_per_move_s: None,
            },
        })
        .await?;
        // Bounded: a game against the bot ends by a line or by repetition long before this.
        for _ in 0..2_000 {
            let room = match self.recv().await? {
                ServerMsg::Room { room, .. } => room,
                ServerMsg::Error { code, message, .. } => {
                    return Err(ClientError::Refused {
                        code: code.as_str().to_owned(),
                        message,
                    });
                }
                _ => continue,
            };
            if let Some(result) = &room.result {
                if room.phase == Phase::Finished {
                    return Ok(result.clone());
                }
            }
            if room.phase == Phase::Playing && room.you.to_move {
                let cell = random_empty_cell(&room, rng);
                let id = self.id();
                self.send(ClientMsg::Move { id, cell }).await?;
            }
        }
        Err(ClientError::Timeout("playing the bot game"))
    }
}

impl Client {
    /// Sends a puzzle intent (`puzzle_start`, `puzzle_move`, `puzzle_retry`) with a fresh id
    /// and returns the attempt the server answers with; a refusal is [`ClientError::Refused`].
    /// Messages that answer nothing of this intent (room snapshots, events) are skipped.
    pub async fn puzzle(&mut self, msg: ClientMsg) -> Result<PuzzleView, ClientError> {
        let id = self.id();
        let msg = msg.with_id(id.expect("fresh ids are set"));
        self.send(msg).await?;
        for _ in 0..1_000 {
            match self.recv().await? {
                ServerMsg::Puzzle { id: got, attempt } if got == id => return Ok(*attempt),
                ServerMsg::Error {
                    id: got,
                    code,
                    message,
                } if got == id => {
                    return Err(ClientError::Refused {
                        code: code.as_str().to_owned(),
                        message,
                    });
                }
                _ => continue,
            }
        }
        Err(ClientError::Timeout("waiting for the puzzle's answer"))
    }

    /// `puzzle_start` from `source`.
    pub async fn start_puzzle(&mut self, source: PuzzleSource) -> Result<PuzzleView, ClientError> {
        self.puzzle(ClientMsg::PuzzleStart { id: None, source })
            .await
    }

    /// `puzzle_move`: `cell` in attempt `attempt`.
    pub async fn puzzle_move(
        &mut self,
        attempt: AttemptId,
        cell: Cell,
    ) -> Result<PuzzleView, ClientError> {
        self.puzzle(ClientMsg::PuzzleMove {
            id: None,
            attempt,
            cell,
        })
        .await
    }

    /// `puzzle_retry` of attempt `attempt`.
    pub async fn puzzle_retry(&mut self, attempt: AttemptId) -> Result<PuzzleView, ClientError> {
        self.puzzle(ClientMsg::PuzzleRetry { id: None, attempt })
            .await
    }
}

/// A uniformly random empty cell of the room's board.
pub fn random_empty_cell<R: Rng + ?Sized>(room: &RoomView, rng: &mut R) -> Cell {
    let empty: Vec<Cell> = (0..9)
        .filter(|c| !room.x.contains(c) && !room.o.contains(c))
        .collect();
    empty[rng.random_range(0..empty.len())]
}

/// Registers `username` with `password` at `base` (`http://HOST:PORT`, plain HTTP) through
/// `POST /api/register` and returns the `xo_session=…` cookie pair for [`Client::connect`].
pub async fn register(base: &str, username: &str, password: &str) -> Result<String, ClientError> {
    account_request(base, "/api/register", username, password).await
}

/// Signs `username` in through `POST /api/login`; returns the `xo_session=…` cookie pair.
pub async fn login(base: &str, username: &str, password: &str) -> Result<String, ClientError> {
    account_request(base, "/api/login", username, password).await
}

async fn account_request(
    base: &str,
    path: &str,
    username: &str,
    password: &str,
) -> Result<String, ClientError> {
    let body = serde_json::json!({ "username": username, "password": password }).to_string();
    let reply = post_json(base, path, &body).await?;
    if !(200..300).contains(&reply.status) {
        let json: serde_json::Value = serde_json::from_slice(&reply.body).unwrap_or_default();
        return Err(ClientError::Refused {
            code: json["code"]
                .as_str()
                .map_or_else(|| format!("http_{}", reply.status), str::to_owned),
            message: json["message"].as_str().unwrap_or("").to_owned(),
        });
    }
    reply
        .headers
        .iter()
        .filter(|(name, _)| name == "set-cookie")
        .filter_map(|(_, value)| value.split(';').next())
        .find(|pair| pair.starts_with("xo_session="))
        .map(str::to_owned)
        .ok_or_else(|| ClientError::Protocol(format!("{path} answered without a session cookie")))
}

/// An HTTP answer: status, lower-cased header names with their values, body.
#[derive(Debug)]
pub struct HttpReply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// `POST base+path` with a JSON body on a fresh plain-HTTP/1.1 connection (`Connection:
/// close`), read to the end within [`REPLY_TIMEOUT`].
pub async fn post_json(base: &str, path: &str, body: &str) -> Result<HttpReply, ClientError> {
    request(base, "POST", path, None, body).await
}

/// [`post_json`] with any method and, if given, a cookie (`xo_session=…`).
pub async fn request(
    base: &str,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    body: &str,
) -> Result<HttpReply, ClientError> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = base
        .strip_prefix("http://")
        .ok_or_else(|| ClientError::Connect(format!("{base}: only http:// is supported")))?
        .trim_end_matches('/');
    let cookie = cookie.map_or_else(String::new, |c| format!("Cookie: {c}\r\n"));
    let request = format!(
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n{cookie}\
         Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let exchange = async {
        let mut stream = TcpStream::connect(host)
            .await
            .map_err(|e| ClientError::Connect(e.to_string()))?;
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|_| ClientError::Closed)?;
        let mut answer = Vec::new();
        stream
            .read_to_end(&mut answer)
            .await
            .map_err(|_| ClientError::Closed)?;
        Ok::<_, ClientError>(answer)
    };
    let answer = tokio::time::timeout(REPLY_TIMEOUT, exchange)
        .await
        .map_err(|_| ClientError::Timeout("waiting for an HTTP answer"))??;
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| ClientError::Protocol("HTTP answer without a header end".into()))?;
    let head = String::from_utf8_lossy(&answer[..split]);
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| ClientError::Protocol("HTTP answer without a status".into()))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    // The server sends its JSON answers with a Content-Length; a chunked body is
    // not expected here.
    Ok(HttpReply {
        status,
        headers,
        body: answer[split + 4..].to_vec(),
    })
}
