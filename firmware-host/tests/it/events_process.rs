//! A one-minute arena event played by 30 WebSocket players against the real `firmware-host`
//! process (EV2–EV5, EV7): some pause, some drop their connection and come back, and the
//! server is killed with SIGKILL in the middle and started again on the same data. At the end
//! the event is finished, its standings equal a recomputation from the stored games
//! (`/api/games/{id}`), and every result a player was told of is one of its games.
//!
//! The event is XO (at most nine moves a game) with the shortest duration the test flag
//! allows (one minute), and a 5-second move limit, so that a game whose player is away (a
//! drop, the kill) ends soon; the whole test takes about 80 s.

use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use support::owner::{make_owner, send};
use support::{Process, register_user_at};
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;

const PLAYERS: usize = 30;
const PASSWORD: &str = "password one";
const ENV: &[(&str, &str)] = &[("XO_EVENT_MIN_MINUTES", "1"), ("XO_XO_MOVE_LIMIT", "5")];

/// How each player behaves besides playing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Habit {
    Plays,
    /// Pauses for 5 s after their second game.
    Pauses,
    /// Closes the connection for 5 s after their first game.
    Drops,
}

/// What the players saw, for the checks at the end.
#[derive(Debug, Default)]
struct Seen {
    /// Rooms whose result a player of the room was told of.
    acknowledged: BTreeSet<String>,
    /// Players who saw the event finish.
    finished: usize,
    paused: usize,
    dropped: usize,
}

type Ws = tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>;

async fn connect(addr: &Mutex<SocketAddr>, cookie: &str, until: Instant) -> Option<Ws> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    while Instant::now() < until {
        let at = *addr.lock().expect("addr");
        let mut req = format!("ws://{at}/ws")
            .into_client_request()
            .expect("request");
        req.headers_mut()
            .insert("Cookie", cookie.parse().expect("cookie"));
        let Ok(Ok(tcp)) =
            tokio::time::timeout(Duration::from_secs(5), tokio::net::TcpStream::connect(at)).await
        else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        if let Ok(Ok((mut ws, _))) = tokio::time::timeout(
            Duration::from_secs(5),
            tokio_tungstenite::client_async(req, tcp),
        )
        .await
        {
            let hello = json!({"hello": {"version": protocol::PROTOCOL_VERSION}});
            if ws.send(Message::text(hello.to_string())).await.is_ok() {
                return Some(ws);
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    None
}

async fn put(ws: &mut Ws, value: Value) -> bool {
    ws.send(Message::text(value.to_string())).await.is_ok()
}

/// A small deterministic generator for each player's moves.
fn next_rand(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// One player: joins, plays every game it is paired into (a random empty cell at its turn),
/// follows its habit, reconnects whenever the connection is lost (the kill), and ends when it
/// sees the event finished.
async fn player(
    me: u64,
    cookie: String,
    event: String,
    habit: Habit,
    addr: Arc<Mutex<SocketAddr>>,
    seen: Arc<Mutex<Seen>>,
    until: Instant,
) {
    let mut rng = me.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut joined = false;
    let mut results = 0;
    let mut resume_at: Option<Instant> = None;
    let mut moved_at: Option<(String, usize)> = None;
    'connection: while Instant::now() < until {
        let Some(mut ws) = connect(&addr, &cookie, until).await else {
            return;
        };
        // First a join; after a reconnection a watch (a join would resume a pause).
        let hello = if joined {
            json!({"watch_event": {"id": 1, "event": event}})
        } else {
            json!({"join_event": {"id": 1, "event": event}})
        };
        if !put(&mut ws, hello).await {
            continue;
        }
        loop {
            let wait = resume_at.map_or(Duration::from_secs(1), |at| {
                at.saturating_duration_since(Instant::now())
                    .min(Duration::from_secs(1))
            });
            let msg = match tokio::time::timeout(wait, ws.next()).await {
                Err(_) => {
                    if resume_at.is_some_and(|at| at <= Instant::now()) {
                        resume_at = None;
                        put(&mut ws, json!({"resume_event": {"id": 3, "event": event}})).await;
                    }
                    if Instant::now() >= until {
                        return;
                    }
                    continue;
                }
                Ok(Some(Ok(Message::Text(text)))) => {
                    serde_json::from_str::<Value>(text.as_str()).expect("JSON")
                }
                Ok(Some(Ok(_))) => continue,
                // The server went away (the kill): connect again.
                Ok(Some(Err(_)) | None) => {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue 'connection;
                }
            };
            let view = msg["event_snapshot"]["event"]
                .as_object()
                .or_else(|| msg["event_update"].as_object());
            if let Some(view) = view {
                if view["phase"] == "finished" {
                    seen.lock().expect("seen").finished += 1;
                    return;
                }
                if msg["event_snapshot"]["id"] == 1 {
                    joined = true;
                    // Back after a restart or a drop: the game in progress, if any.
                    if let Some(room) = view["you"]["room"].as_str() {
                        put(&mut ws, json!({"open": {"id": 2, "room": room}})).await;
                    }
                }
                continue;
            }
            if let Some(result) = msg["event"].get("result") {
                let room = result["room"].as_str().expect("room").to_owned();
                seen.lock().expect("seen").acknowledged.insert(room);
                results += 1;
                if habit == Habit::Pauses && results == 2 {
                    put(&mut ws, json!({"pause_event": {"id": 4, "event": event}})).await;
                    resume_at = Some(Instant::now() + Duration::from_secs(5));
                    seen.lock().expect("seen").paused += 1;
                }
                if habit == Habit::Drops && results == 1 {
                    seen.lock().expect("seen").dropped += 1;
                    drop(ws);
                    tokio::time::sleep(Duration::from_secs(5)).await;
                    continue 'connection;
                }
                continue;
            }
            let room = &msg["room"]["room"];
            if room["phase"] == "playing" && room["you"]["to_move"] == true {
                let id = room["id"].as_str().expect("id").to_owned();
                let plies = room["moves"].as_array().map_or(0, Vec::len);
                if moved_at.as_ref() == Some(&(id.clone(), plies)) {
                    continue;
                }
                let taken: BTreeSet<u64> = ["x", "o"]
                    .iter()
                    .flat_map(|m| room[*m].as_array().cloned().unwrap_or_default())
                    .filter_map(|c| c.as_u64())
                    .collect();
                let empty: Vec<u64> = (0..9).filter(|c| !taken.contains(c)).collect();
                if empty.is_empty() {
                    continue;
                }
                let cell = empty[(next_rand(&mut rng) % empty.len() as u64) as usize];
                moved_at = Some((id, plies));
                put(&mut ws, json!({"move": {"cell": cell}})).await;
            }
        }
    }
}

/// Points as EV4 counts them, from each player's games in the order they were paired.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Tally {
    points: u64,
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    streak: u64,
}

impl Tally {
    fn add(&mut self, score: f32) {
        self.games += 1;
        if score == 1.0 {
            self.points += if self.streak >= 2 { 4 } else { 2 };
            self.wins += 1;
            self.streak += 1;
        } else if score == 0.5 {
            self.points += 1;
            self.draws += 1;
            self.streak = 0;
        } else {
            self.losses += 1;
            self.streak = 0;
        }
    }
}

async fn get_json(addr: SocketAddr, path: &str) -> Value {
    let reply = send(addr, "GET", path, None, None).await;
    assert_eq!(reply.status, 200, "{path}: {}", reply.text());
    reply.json()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_minute_event_survives_pauses_drops_and_a_kill_and_its_standings_are_its_games() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), ENV);
    let first = server.addr;
    let (_, owner) = register_user_at(first, "owner", PASSWORD).await;
    make_owner(first, &owner).await;
    let mut players = Vec::new();
    for i in 0..PLAYERS {
        players.push(register_user_at(first, &format!("p{i:02}"), PASSWORD).await);
    }
    let form = json!({"game": "xo", "duration_min": 1, "name": "Test night"});
    let created = send(
        first,
        "POST",
        "/api/owner/events",
        Some(&form.to_string()),
        Some(&owner),
    )
    .await;
    assert_eq!(created.status, 201, "{}", created.text());
    let event = created.json()["id"].as_str().expect("id").to_owned();
    let started = Instant::now();

    let addr = Arc::new(Mutex::new(first));
    let seen = Arc::new(Mutex::new(Seen::default()));
    let until = started + Duration::from_secs(100);
    let tasks: Vec<_> = players
        .iter()
        .enumerate()
        .map(|(i, (id, cookie))| {
            let habit = match i % 6 {
                0 => Habit::Pauses,
                1 => Habit::Drops,
                _ => Habit::Plays,
            };
            tokio::spawn(player(
                *id,
                cookie.clone(),
                event.clone(),
                habit,
                addr.clone(),
                seen.clone(),
                until,
            ))
        })
        .collect();

    // In the middle of the event: SIGKILL, and the same data served again.
    tokio::time::sleep_until(started + Duration::from_secs(25)).await;
    let before = seen.lock().expect("seen").acknowledged.len();
    assert!(
        before > PLAYERS / 2,
        "games were played before the kill: {before}"
    );
    server.stop_with_kill();
    let server = Process::start(dir.path(), ENV);
    *addr.lock().expect("addr") = server.addr;
    assert!(
        !server.wait_log_lines("event restored").await.is_empty(),
        "the event's task is started again from the store"
    );

    for task in tasks {
        task.await.expect("player task");
    }
    let seen = std::mem::take(&mut *seen.lock().expect("seen"));
    assert_eq!(
        seen.finished, PLAYERS,
        "every player saw the end in time: {seen:?}"
    );
    assert!(seen.paused >= 3 && seen.dropped >= 3, "{seen:?}");

    let page = get_json(server.addr, &format!("/api/events/{event}")).await;
    let view = &page["event"];
    assert_eq!(view["phase"], "finished", "{view}");
    assert!(view["boards"].as_array().is_some_and(Vec::is_empty));
    assert!(!view["podium"].as_array().expect("podium").is_empty());
    let rows = page["games"].as_array().expect("games");
    let counted: BTreeSet<String> = rows
        .iter()
        .map(|g| g["game_id"].as_str().expect("game id").to_owned())
        .collect();
    let missing: Vec<&String> = seen.acknowledged.difference(&counted).collect();
    assert!(
        missing.is_empty(),
        "told of a result the event does not count: {missing:?}"
    );

    // The standings again, from the stored games alone (EV4).
    let mut by_no: Vec<&Value> = rows.iter().collect();
    by_no.sort_by_key(|g| g["no"].as_u64());
    let mut tally: BTreeMap<u64, Tally> = BTreeMap::new();
    for row in by_no {
        let id = row["game_id"].as_str().expect("id");
        let game = get_json(server.addr, &format!("/api/games/{id}")).await;
        let (x, o) = (&game["x"]["user"]["id"], &game["o"]["user"]["id"]);
        assert_eq!(
            (x, o),
            (&row["x"], &row["o"]),
            "the event's game is the stored one: {game}"
        );
        assert_eq!(game["winner"], row["winner"]);
        let x_score = match game["winner"].as_str() {
            Some("x") => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        };
        tally
            .entry(x.as_u64().expect("x"))
            .or_default()
            .add(x_score);
        tally
            .entry(o.as_u64().expect("o"))
            .or_default()
            .add(1.0 - x_score);
    }
    let standings = view["standings"].as_array().expect("standings");
    for row in standings.iter().filter(|r| r["games"].as_u64() > Some(0)) {
        let user = row["user"].as_u64().expect("user");
        let want = tally.remove(&user).unwrap_or_default();
        let got = Tally {
            points: row["points"].as_u64().expect("points"),
            games: row["games"].as_u64().expect("games"),
            wins: row["wins"].as_u64().expect("wins"),
            draws: row["draws"].as_u64().expect("draws"),
            losses: row["losses"].as_u64().expect("losses"),
            streak: want.streak,
        };
        assert_eq!(got, want, "player {user}: {row}");
    }
    assert!(tally.is_empty(), "players with games but no row: {tally:?}");
    let points: Vec<u64> = standings
        .iter()
        .filter_map(|r| r["points"].as_u64())
        .collect();
    assert!(
        points.windows(2).all(|w| w[0] >= w[1]),
        "best first: {points:?}"
    );
    eprintln!(
        "event {event}: {} games, {} acknowledged, {} players paused, {} dropped, {:.1} s",
        rows.len(),
        seen.acknowledged.len(),
        seen.paused,
        seen.dropped,
        started.elapsed().as_secs_f64()
    );
    server.stop_with("-TERM");
}
