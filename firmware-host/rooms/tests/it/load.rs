//! A load check, ignored by default (it is a measurement, not a timed test): 1,000 WebSocket
//! clients on loopback play 500 rated Infinite XO games at once, each move paced 250–500 ms,
//! until each game is drawn by repetition (22 moves). Prints the move round-trip percentiles
//! and the process's resident memory (clients included). Run it in release:
//!
//! ```sh
//! cargo test --release -p rooms --test it -- --ignored --nocapture load::
//! ```

#![allow(clippy::unwrap_used)] // a measurement harness: failures should panic loudly

use crate::common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use engine::{Game, Mark};
use protocol::{ClientMsg, CreateRoom, Framing, JoiningRequest, OpponentRequest, ServerMsg};
use rooms::{Hub, HubConfig};
use tokio::net::TcpListener;

const OPENING: [u8; 6] = [0, 2, 1, 3, 5, 7];
const CYCLE: [u8; 8] = [6, 8, 0, 2, 1, 3, 5, 7];
const GAMES: u64 = 500;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement; run in release with --ignored --nocapture"]
async fn load_500_games_1000_clients() {
    let store = Arc::new(MemoryStore::default());
    let hub = Hub::start(store.clone(), HubConfig::default());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = hub.clone();
    tokio::spawn(async move {
        let mut n = 0u64;
        while let Ok((tcp, _)) = listener.accept().await {
            n += 1;
            let hub = server.clone();
            let who = user(n, &format!("u{n}"));
            tokio::spawn(async move {
                let ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
                hub.serve(ws.into_inner(), Vec::new(), who).await;
            });
        }
    });
    let started = Instant::now();
    let mut games = Vec::new();
    for g in 0..GAMES {
        games.push(tokio::spawn(async move {
            let open = async |framing| {
                let url = format!("ws://{addr}/ws");
                let (ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
                let mut c = Client::start(ws, framing).await.0;
                c.wait = Duration::from_secs(60);
                c
            };
            let mut a = open(if g % 2 == 0 {
                Framing::Text
            } else {
                Framing::Binary
            })
            .await;
            let mut b = open(Framing::Text).await;
            let room = CreateRoom {
                game: Game::Infinite,
                opponent: OpponentRequest::Player {
                    joining: JoiningRequest::Open,
                },
                time_per_move_s: Some(30),
            };
            let created = a.ask(|id| ClientMsg::CreateRoom { id, room }).await;
            let rid = room_of(&created).id.clone();
            b.ask(|id| ClientMsg::Join {
                id,
                room: rid,
                passcode: None,
            })
            .await;
            b.ask(|id| ClientMsg::Ready { id, ready: true }).await;
            let start = a.ask(|id| ClientMsg::Start { id }).await;
            let (mut x, mut o) = if room_of(&start).seats[0].mark == Some(Mark::X) {
                (a, b)
            } else {
                (b, a)
            };
            let mut round_trips = Vec::new();
            let moves = OPENING.iter().chain(CYCLE.iter()).chain(CYCLE.iter());
            for (i, cell) in moves.enumerate() {
                let c = if i % 2 == 0 { &mut x } else { &mut o };
                tokio::time::sleep(Duration::from_millis(250 + (g * 7) % 250)).await;
                let sent = Instant::now();
                let reply = c.ask(|id| ClientMsg::Move { id, cell: *cell }).await;
                round_trips.push(sent.elapsed());
                assert!(matches!(reply, ServerMsg::Room { .. }), "{reply:?}");
            }
            round_trips
        }));
    }
    let mut all = Vec::new();
    for game in games {
        all.extend(game.await.unwrap());
    }
    all.sort();
    let at = |q: f64| all[((all.len() - 1) as f64 * q) as usize];
    let rss = std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find(|l| l.starts_with("VmRSS"))
        .map(str::to_owned)
        .unwrap_or_default();
    println!(
        "{} moves in {:?}: round trip p50 {:?}, p99 {:?}, max {:?}; {rss} (server and clients)",
        all.len(),
        started.elapsed(),
        at(0.5),
        at(0.99),
        all[all.len() - 1],
    );
    assert_eq!(
        store.games.lock().unwrap().len(),
        GAMES as usize,
        "every game stored"
    );
}
