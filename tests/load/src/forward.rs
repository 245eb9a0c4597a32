//! The comparison: a plain tokio-tungstenite forwarder that pairs connections two per match (by
//! request path) and forwards each message to the partner, and the xo-load side that drives it
//! with the pattern of a game: two clients per match taking turns, each sending exactly the
//! frame of a real move intent (`{"move":{"id":N,"cell":C}}`, or its postcard encoding), paced
//! like the server's clients, each move counted when the partner has received it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use protocol::{ClientMsg, Frame, Framing};
use rand::RngExt;
use rand::rngs::SmallRng;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::pace::Pacer;
use crate::stats::Stats;

type Outbox = mpsc::Sender<Message>;
type Waiting = HashMap<String, (Outbox, oneshot::Sender<Outbox>)>;

/// Serves the forwarder on `listener` until the process ends. `read_buffer` is each
/// connection's read buffer (tungstenite's default, 128 KiB, is what firmware-host uses).
pub async fn serve(listener: TcpListener, read_buffer: usize) {
    let config = WebSocketConfig::default().read_buffer_size(read_buffer);
    let waiting: Arc<Mutex<Waiting>> = Arc::default();
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // Out of descriptors or similar: wait a little rather than spin.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(stream, config, waiting.clone()));
    }
}

async fn connection(stream: TcpStream, config: WebSocketConfig, waiting: Arc<Mutex<Waiting>>) {
    let mut path = String::new();
    #[allow(clippy::result_large_err)] // The error type is tungstenite's.
    let callback = |req: &Request, resp: Response| {
        path = req.uri().path().to_owned();
        Ok(resp)
    };
    let Ok(ws) =
        tokio_tungstenite::accept_hdr_async_with_config(stream, callback, Some(config)).await
    else {
        return;
    };
    let (mut sink, mut source) = ws.split();
    let (outbox, mut inbox) = mpsc::channel::<Message>(256);
    // The first of a pair waits for the second, which hands over its outbox.
    let partner = {
        let mut map = waiting
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match map.remove(&path) {
            Some((first, handover)) => {
                if handover.send(outbox).is_err() {
                    return;
                }
                Ok(first)
            }
            None => {
                let (handover, partner) = oneshot::channel();
                map.insert(path.clone(), (outbox, handover));
                Err(partner)
            }
        }
    };
    let partner = match partner {
        Ok(partner) => partner,
        Err(pending) => match pending.await {
            Ok(partner) => partner,
            Err(_) => return,
        },
    };
    let writer = tokio::spawn(async move {
        while let Some(message) = inbox.recv().await {
            if sink.send(message).await.is_err() {
                break;
            }
        }
        let _ = sink.close().await;
    });
    while let Some(Ok(message)) = source.next().await {
        if message.is_close() {
            break;
        }
        if (message.is_text() || message.is_binary()) && partner.send(message).await.is_err() {
            break;
        }
    }
    // Dropping the partner's outbox ends its writer, which closes its connection.
    drop(partner);
    let _ = writer.await;
}

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// Opens the two connections of match `index` at `base` (`http://HOST:PORT`).
pub async fn connect_pair(base: &str, index: usize) -> Result<[Ws; 2], String> {
    let url = format!(
        "{}/match/{index}",
        base.trim_end_matches('/').replacen("http://", "ws://", 1)
    );
    let mut pair = Vec::with_capacity(2);
    for _ in 0..2 {
        let (ws, _) = tokio::time::timeout(
            xo_client::REPLY_TIMEOUT,
            tokio_tungstenite::connect_async_with_config(
                url.as_str(),
                Some(WebSocketConfig::default().read_buffer_size(xo_client::CLIENT_READ_BUFFER)),
                true,
            ),
        )
        .await
        .map_err(|_| "connect: timeout".to_owned())?
        .map_err(|e| format!("connect: {e}"))?;
        pair.push(ws);
    }
    pair.try_into().map_err(|_| "two connections".to_owned())
}

/// Plays moves back and forth between the two connections of one match until aborted.
pub async fn run_pair(
    pair: [Ws; 2],
    framing: Framing,
    rate: u32,
    stats: Arc<Stats>,
    mut rng: SmallRng,
) {
    let mut players = pair;
    let mut pacers = [Pacer::new(rate), Pacer::new(rate)];
    let mut next_id = [1u32, 1u32];
    // Bounded: the run aborts this task when its window closes.
    for ply in 0..u64::MAX {
        let mover = usize::from(ply % 2 == 1);
        let other = 1 - mover;
        pacers[mover].take().await;
        next_id[mover] += 1;
        let msg = ClientMsg::Move {
            id: Some(next_id[mover]),
            cell: rng.random_range(0..9),
        };
        let message = match msg.encode(framing) {
            Frame::Text(text) => Message::text(text),
            Frame::Binary(bytes) => Message::binary(bytes),
        };
        let sent = Instant::now();
        if players[mover].send(message).await.is_err() {
            stats.error("closed");
            return;
        }
        let received = loop {
            match tokio::time::timeout(xo_client::REPLY_TIMEOUT, players[other].next()).await {
                Err(_) => {
                    stats.error("timeout");
                    return;
                }
                Ok(None | Some(Err(_))) => {
                    stats.error("closed");
                    return;
                }
                Ok(Some(Ok(Message::Text(_) | Message::Binary(_)))) => break Instant::now(),
                Ok(Some(Ok(_))) => {}
            }
        };
        stats.moved(None, received - sent);
    }
}
