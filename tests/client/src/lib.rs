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

use std::time::Duration;

use engine::{Cell, Game, Mark};
use futures_util::{SinkExt, StreamExt};
use protocol::{
    ClientMsg, CreateRoom, Frame, Framing, OpponentRequest, Phase, RoomView, ServerMsg,
    decode_server, view::ResultView,
};
use rand::{Rng, RngExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

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
        let (ws, _) =
            tokio::time::timeout(REPLY_TIMEOUT, tokio_tungstenite::connect_async(request))
                .await
                .map_err(|_| ClientError::Timeout("connecting"))?
                .map_err(|e| ClientError::Connect(e.to_string()))?;
        let mut client = Client {
            ws,
            framing,
            next_id: 1,
            name: String::new(),
        };
        match client.recv().await? {
            ServerMsg::Hello { name, .. } => client.name = name,
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
        loop {
            let message = tokio::time::timeout(REPLY_TIMEOUT, self.ws.next())
                .await
                .map_err(|_| ClientError::Timeout("waiting for a message"))?
                .ok_or(ClientError::Closed)?
                .map_err(|_| ClientError::Closed)?;
            let frame = match message {
                Message::Text(text) => Frame::Text(text.as_str().to_owned()),
                Message::Binary(bytes) => Frame::Binary(bytes.to_vec()),
                Message::Close(_) => return Err(ClientError::Closed),
                _ => continue,
            };
            return decode_server(&frame).map_err(|e| ClientError::Protocol(e.to_string()));
        }
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

/// A uniformly random empty cell of the room's board.
pub fn random_empty_cell<R: Rng + ?Sized>(room: &RoomView, rng: &mut R) -> Cell {
    let empty: Vec<Cell> = (0..9)
        .filter(|c| !room.x.contains(c) && !room.o.contains(c))
        .collect();
    empty[rng.random_range(0..empty.len())]
}
