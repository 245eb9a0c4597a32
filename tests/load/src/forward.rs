//! The comparison: a plain tokio-tungstenite forwarder that pairs connections two per match (by
//! request path) and forwards each message to the partner (with `answer`, also sends it back to
//! its sender, as the server answers every request), and the xo-load side that drives it with
//! the message pattern of the server's game slots (see [`run_pair`]), paced like the server's
//! clients, each move counted when the partner has received it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use engine::{Game, GameRecord};
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

use crate::game::{Games, MAX_MOVES_PER_GAME, rated_room};
use crate::pace::Pacer;
use crate::stats::Stats;

type Outbox = mpsc::Sender<Message>;
type Waiting = HashMap<String, (Outbox, oneshot::Sender<Outbox>)>;

/// Serves the forwarder on `listener` until the process ends. `read_buffer` is each
/// connection's read buffer (tungstenite's default is 128 KiB; firmware-host reads into 1 KiB).
/// `answer`: each message also goes back to its sender (the server's pattern: every request
/// answered, the partner told).
pub async fn serve(listener: TcpListener, read_buffer: usize, answer: bool) {
    let config = WebSocketConfig::default().read_buffer_size(read_buffer);
    let waiting: Arc<Mutex<Waiting>> = Arc::default();
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            // Out of descriptors or similar: wait a little rather than spin.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(connection(stream, config, waiting.clone(), answer));
    }
}

async fn connection(
    stream: TcpStream,
    config: WebSocketConfig,
    waiting: Arc<Mutex<Waiting>>,
    answer: bool,
) {
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
    let own = answer.then(|| outbox.clone());
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
        if !(message.is_text() || message.is_binary()) {
            continue;
        }
        if let Some(own) = &own
            && own.send(message.clone()).await.is_err()
        {
            break;
        }
        if partner.send(message).await.is_err() {
            break;
        }
    }
    // Dropping the partner's outbox ends its writer, which closes its connection.
    drop(partner);
    drop(own);
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

/// Plays the message pattern of the server's game slots over one match until `budget` (games
/// left to start) is used up or the task is aborted: room after room, hosting in turn, the
/// host's `create_room`, the guest's `join` and `ready`, the host's `start`, then uniformly
/// random legal moves of the same game (the `engine` crate plays the rules, so games last as
/// long as on the server) until it ends, then both `exit`. Every frame is the real intent and
/// is counted as delivered when the partner has received it.
#[allow(clippy::too_many_arguments)] // One call site, which names each.
pub async fn run_pair(
    pair: [Ws; 2],
    index: usize,
    which: Games,
    framing: Framing,
    rate: u32,
    answered: bool,
    stats: Arc<Stats>,
    budget: Arc<AtomicU64>,
    mut rng: SmallRng,
) {
    let mut match_ = Match {
        players: pair,
        pacers: [Pacer::new(rate), Pacer::new(rate)],
        next_id: [1, 1],
        framing,
        answered,
    };
    for round in 0..usize::MAX {
        let taken = budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
            left.checked_sub(1)
        });
        if taken.is_err() {
            return;
        }
        let game = which.pick(index, round);
        if let Err(e) = match_.play(round % 2, game, &stats, &mut rng).await {
            stats.error(e);
            return;
        }
        stats.game_completed();
    }
}

struct Match {
    players: [Ws; 2],
    pacers: [Pacer; 2],
    next_id: [u32; 2],
    framing: Framing,
    /// The forwarder answers each frame to its sender too: the sender reads that answer
    /// while the partner reads the frame.
    answered: bool,
}

impl Match {
    async fn play(
        &mut self,
        host: usize,
        game: Game,
        stats: &Stats,
        rng: &mut SmallRng,
    ) -> Result<(), &'static str> {
        let guest = 1 - host;
        self.relay(host, |id| ClientMsg::CreateRoom {
            id,
            room: rated_room(game),
        })
        .await?;
        // A room id has six characters, like the server's.
        self.relay(guest, |id| ClientMsg::Join {
            id,
            room: "zd8yup".into(),
            passcode: None,
        })
        .await?;
        self.relay(guest, |id| ClientMsg::Ready { id, ready: true })
            .await?;
        self.relay(host, |id| ClientMsg::Start { id }).await?;
        let mut record = GameRecord::new(game);
        let mut mover = if rng.random() { host } else { guest };
        for _ in 0..MAX_MOVES_PER_GAME {
            let legal: Vec<_> = record.position().legal_moves().collect();
            let Some(&cell) = legal.get(rng.random_range(0..legal.len().max(1))) else {
                break;
            };
            let relayed = self.relay(mover, |id| ClientMsg::Move { id, cell }).await?;
            stats.moved(relayed.answered, relayed.delivered);
            if record.play(cell).is_err() || record.end().is_some() {
                break;
            }
            mover = 1 - mover;
        }
        self.relay(host, |id| ClientMsg::Exit { id }).await?;
        self.relay(guest, |id| ClientMsg::Exit { id }).await?;
        Ok(())
    }

    /// `from` sends the intent (within its pace); returns how long until the partner had it
    /// and, when the forwarder answers, until the sender had its answer.
    async fn relay(
        &mut self,
        from: usize,
        make: impl FnOnce(Option<u32>) -> ClientMsg,
    ) -> Result<Relayed, &'static str> {
        self.pacers[from].take().await;
        self.next_id[from] += 1;
        let message = match make(Some(self.next_id[from])).encode(self.framing) {
            Frame::Text(text) => Message::text(text),
            Frame::Binary(bytes) => Message::binary(bytes),
        };
        let sent = Instant::now();
        self.players[from]
            .send(message)
            .await
            .map_err(|_| "closed")?;
        let [first, second] = &mut self.players;
        let (sender, partner) = if from == 0 {
            (first, second)
        } else {
            (second, first)
        };
        let since_sent = |read: Result<(), &'static str>| read.map(|()| sent.elapsed());
        if self.answered {
            let (answered, delivered) =
                tokio::join!(async { since_sent(next_data(sender).await) }, async {
                    since_sent(next_data(partner).await)
                },);
            Ok(Relayed {
                delivered: delivered?,
                answered: Some(answered?),
            })
        } else {
            Ok(Relayed {
                delivered: since_sent(next_data(partner).await)?,
                answered: None,
            })
        }
    }
}

/// How long one relayed frame took: to the partner, and back to the sender as its answer
/// when the forwarder answers.
struct Relayed {
    delivered: Duration,
    answered: Option<Duration>,
}

/// Reads up to the next text or binary frame. Bounded: a peer that only sent control frames for
/// 30 s is a timeout.
async fn next_data(ws: &mut Ws) -> Result<(), &'static str> {
    loop {
        match tokio::time::timeout(xo_client::REPLY_TIMEOUT, ws.next()).await {
            Err(_) => return Err("timeout"),
            Ok(None | Some(Err(_))) => return Err("closed"),
            Ok(Some(Ok(Message::Text(_) | Message::Binary(_)))) => return Ok(()),
            Ok(Some(Ok(_))) => {}
        }
    }
}
