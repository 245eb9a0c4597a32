//! [`Hub`]: the rooms side of the server, as `firmware-host` sees it.

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use protocol::{ErrorCode, Frame, Framing, PROTOCOL_VERSION, RoomSummary, ServerMsg};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

use crate::persistence::{Identity, Persistence};

/// Limits and timings of the hub.
#[derive(Debug, Clone)]
pub struct HubConfig {
    /// Frames larger than this get `frame_too_large` (also set the WebSocket's own
    /// `max_message_size` at accept time so such frames are never buffered whole).
    pub max_frame_bytes: usize,
    /// Sustained messages per second per connection before `flood` closes it.
    pub max_messages_per_s: u32,
    /// How many messages a connection may send at once above the sustained rate.
    pub burst: u32,
    /// A room nobody has opened for this long closes (finished rooms, abandoned bot games).
    pub idle_room_close: Duration,
}

impl Default for HubConfig {
    fn default() -> Self {
        HubConfig {
            max_frame_bytes: protocol::MAX_FRAME_BYTES,
            max_messages_per_s: 20,
            burst: 40,
            idle_room_close: Duration::from_secs(30 * 60),
        }
    }
}

/// Counts for `/api/health` and the status display (P5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HubStats {
    pub rooms_waiting: usize,
    pub rooms_playing: usize,
    pub connections: usize,
    /// Distinct identities with at least one open connection.
    pub players_online: usize,
}

/// A cloneable handle on every room and connection.
#[derive(Clone)]
pub struct Hub {
    inner: Arc<Inner>,
}

struct Inner {
    #[allow(dead_code)] // used once rooms are wired
    store: Arc<dyn Persistence>,
    config: HubConfig,
}

impl core::fmt::Debug for Hub {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Hub").field("config", &self.inner.config).finish()
    }
}

impl Hub {
    /// Starts the hub, restoring every saved open room. Call it inside a tokio runtime.
    pub fn start(store: Arc<dyn Persistence>, config: HubConfig) -> Hub {
        Hub {
            inner: Arc::new(Inner { store, config }),
        }
    }

    /// Drives one WebSocket connection until it closes.
    pub async fn serve<S>(&self, mut ws: WebSocketStream<S>, identity: Identity)
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let hello = ServerMsg::Hello {
            version: PROTOCOL_VERSION,
            user: identity.account.as_ref().map(|a| a.id),
            name: identity
                .account
                .as_ref()
                .map_or_else(|| "Guest".to_owned(), |a| a.name.clone()),
            max_frame_bytes: u32::try_from(self.inner.config.max_frame_bytes).unwrap_or(u32::MAX),
            max_messages_per_s: self.inner.config.max_messages_per_s,
        };
        if send(&mut ws, &hello, Framing::Text).await.is_err() {
            return;
        }
        while let Some(Ok(msg)) = ws.next().await {
            let framing = match msg {
                Message::Binary(_) => Framing::Binary,
                Message::Close(_) => break,
                _ => Framing::Text,
            };
            let refusal =
                ServerMsg::error(None, ErrorCode::Unavailable, "rooms are not wired yet");
            if send(&mut ws, &refusal, framing).await.is_err() {
                break;
            }
        }
    }

    /// The lobby list, for `GET /api/rooms`.
    pub fn lobby(&self) -> Vec<RoomSummary> {
        Vec::new()
    }

    /// Counts for `/api/health` and the status display.
    pub fn stats(&self) -> HubStats {
        HubStats::default()
    }

    /// Stops every room (each saves its state first) and closes every connection.
    pub async fn shutdown(&self) {}
}

async fn send<S>(
    ws: &mut WebSocketStream<S>,
    msg: &ServerMsg,
    framing: Framing,
) -> Result<(), tokio_tungstenite::tungstenite::Error>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let msg = match msg.encode(framing) {
        Frame::Text(text) => Message::text(text),
        Frame::Binary(bytes) => Message::binary(bytes),
    };
    ws.send(msg).await
}
