//! P3 under power cuts (DESIGN "Reliability"): the real server is killed with SIGKILL at random
//! moments while many rated games finish at once, and restarted on the same data directory.
//!
//! Several pairs of players play rated XO and Infinite XO games back to back, ending them by a
//! line, a full board or a repetition, a resignation, or an agreed draw. After every kill the
//! test opens the real redb file with the store's own API (the server is dead, so nothing else
//! holds it) and checks:
//!
//! - every stored game is whole: rated, two registered players, exactly one rating update per
//!   player with the right mark, moves legal and consistent with how it ended; game numbers run
//!   0, 1, 2 … without a gap; no stored game is lost from one kill to the next;
//! - every result a player was told of (a finished snapshot) is stored (results are told only
//!   after their durable commit);
//! - each player's rating, points and win/draw/loss on both ladders equal a replay of the
//!   stored games from 1200 with `engine::elo`, and every update chains from the rating before;
//! - every account is still there under its name, and every session cookie issued before the
//!   kill still names its player;
//! - every saved open room restores (legal moves, not finished, not a stored game), seats only
//!   the two players of one pair, host in seat 1;
//! - every pair's open room as a player saw it more than the durability deadline (1 s, plus
//!   0.5 s for the sync on a loaded machine) before the kill is in the file with at least
//!   those moves, unless its game finished and is stored.
//!
//! After each restart, over HTTP: every session cookie authenticates (`/api/me`), one account
//! signs in again (a fresh cookie joins the list), the lobby lists exactly the rooms saved in the
//! file, and each pair re-opens its room: its seats hold the right players and an active game
//! is played on to a stored result.
//!
//! `XO_CRASH_KILLS` sets the number of kills (default 10; the benchmark runs 100).

use crate::support;

use std::collections::{BTreeMap, BTreeSet};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use engine::{Game, GameRecord, Mark, Score};
use firmware_host::accounts;
use firmware_host::store::{LOSS_BOUND, LadderStats, Store, StoredGame};
use futures_util::{SinkExt, StreamExt};
use protocol::records::{GameEnd, PlayerRef, UserId};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use rooms::Persistence;
use rooms::room::PlayerKey;
use rooms::seats::Seats;
use serde_json::{Value, json};
use support::{Process, Ws, credentials, register_user_at as register, request};
use tokio_tungstenite::tungstenite::Message;

/// Player pairs playing at once.
const PAIRS: usize = 6;
/// Longest game before the player to move resigns (Infinite XO may cycle for a while).
const MAX_PLIES: usize = 40;
/// One move in this many is preceded by a long think (1.6–2.6 s).
const THINK_ONE_IN: u32 = 12;
/// One WebSocket step of a worker.
const STEP: Duration = Duration::from_secs(10);

fn kills() -> usize {
    std::env::var("XO_CRASH_KILLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10)
}

#[derive(Debug, Clone)]
struct Player {
    name: String,
    password: String,
    id: UserId,
}

/// What the workers tell the checker.
#[derive(Debug, Default)]
struct Seen {
    /// Rooms whose result a player was told of.
    told: BTreeSet<String>,
    /// Each pair's room that is not known to be finished.
    open: BTreeMap<usize, String>,
    /// Games that were played on after a restart.
    resumed_active: usize,
    resumed_waiting: usize,
    /// Results told, by how the game ended.
    ends: BTreeMap<&'static str, usize>,
    /// Each pair's snapshots of its open room since the last restart: (when, room, moves).
    history: BTreeMap<usize, Vec<(Instant, String, Vec<u8>)>>,
    /// Open rooms checked against the file: (expected, of which with moves).
    open_checked: usize,
    open_moves_checked: usize,
}

/// What each pair's open room must hold after a kill: its newest snapshot older
/// than the promised loss bound (a second) plus the slack the sync itself may take on a loaded machine.
fn must_be_open(seen: &Seen, killed_at: Instant) -> Vec<(String, Vec<u8>)> {
    let old_enough = LOSS_BOUND + Duration::from_millis(500);
    seen.history
        .values()
        .filter_map(|h| {
            h.iter()
                .rev()
                .find(|(at, _, _)| killed_at.duration_since(*at) >= old_enough)
                .map(|(_, room, moves)| (room.clone(), moves.clone()))
        })
        .collect()
}

type Shared = Arc<Mutex<Seen>>;

fn lock(seen: &Shared) -> std::sync::MutexGuard<'_, Seen> {
    seen.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn end_name(end: &Value) -> &'static str {
    if end.get("line").is_some() {
        "line"
    } else if end.get("resigned").is_some() {
        "resigned"
    } else if end.get("timeout").is_some() {
        "timeout"
    } else if end == "agreed" {
        "agreed"
    } else if end == "full_board" {
        "full_board"
    } else if end == "repetition" {
        "repetition"
    } else {
        "other"
    }
}

async fn connect(addr: SocketAddr, cookie: &str) -> Result<Ws, String> {
    use tokio_tungstenite::tungstenite::client::IntoClientRequest;
    let mut req = format!("ws://{addr}/ws")
        .into_client_request()
        .map_err(|e| e.to_string())?;
    req.headers_mut()
        .insert("Cookie", cookie.parse().map_err(|_| "cookie header")?);
    let tcp = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| e.to_string())?;
    let (mut ws, _) = tokio::time::timeout(STEP, tokio_tungstenite::client_async(req, tcp))
        .await
        .map_err(|_| "handshake timed out")?
        .map_err(|e| e.to_string())?;
    send(
        &mut ws,
        json!({"hello": {"version": protocol::PROTOCOL_VERSION}}),
    )
    .await?;
    Ok(ws)
}

async fn send(ws: &mut Ws, value: Value) -> Result<(), String> {
    ws.send(Message::text(value.to_string()))
        .await
        .map_err(|e| e.to_string())
}

/// Reads until the answer to request `id` (a snapshot, `left` or an error) and returns it.
/// Every finished snapshot on the way is noted as a result told to a player.
async fn reply(ws: &mut Ws, id: u32, seen: &Shared) -> Result<Value, String> {
    for _ in 0..1000 {
        let msg = tokio::time::timeout(STEP, ws.next())
            .await
            .map_err(|_| format!("no answer to request {id} in time"))?
            .ok_or("connection closed")?
            .map_err(|e| e.to_string())?;
        let Message::Text(text) = msg else { continue };
        let value: Value = serde_json::from_str(text.as_str()).map_err(|e| e.to_string())?;
        if let Some(room) = value["room"]["room"].as_object()
            && !room["result"].is_null()
        {
            let id = room["id"].as_str().unwrap_or_default().to_owned();
            let mut seen = lock(seen);
            if seen.told.insert(id.clone()) {
                *seen
                    .ends
                    .entry(end_name(&room["result"]["end"]))
                    .or_insert(0) += 1;
            }
            seen.open.retain(|_, r| *r != id);
        }
        let answered = ["room", "left", "error"]
            .iter()
            .any(|k| value[k].get("id").and_then(Value::as_u64) == Some(u64::from(id)));
        if answered {
            return Ok(value);
        }
    }
    Err(format!("request {id} not answered among 1000 messages"))
}

/// Sends an intent and expects a snapshot in answer.
async fn act(
    ws: &mut Ws,
    id: &mut u32,
    msg: &str,
    mut body: Value,
    seen: &Shared,
) -> Result<Value, String> {
    *id += 1;
    body["id"] = json!(*id);
    send(ws, json!({ msg: body })).await?;
    let answer = reply(ws, *id, seen).await?;
    if answer.get("room").is_none() {
        return Err(format!("{msg} answered {answer}"));
    }
    Ok(answer["room"]["room"].clone())
}

/// How a game is to end.
#[derive(Debug, Clone, Copy)]
enum Plan {
    /// Played out by the bot strategies at these difficulties (X, O): a line, a full board or
    /// a repetition.
    Natural([u8; 2]),
    /// The player to move resigns after this many plies.
    Resign(usize),
    /// The player to move offers a draw after this many plies, and it is accepted.
    Agree(usize),
}

fn random_plan(rng: &mut StdRng) -> Plan {
    let levels = [0, 50, 100];
    match rng.random_range(0..4) {
        0 | 1 => Plan::Natural([
            levels[rng.random_range(0..3)],
            levels[rng.random_range(0..3)],
        ]),
        2 => Plan::Resign(rng.random_range(0..6)),
        _ => Plan::Agree(rng.random_range(1..6)),
    }
}

/// One pair: two players, host first; their sockets and request counters.
struct Pair {
    index: usize,
    addr: SocketAddr,
    cookies: [String; 2],
    users: [UserId; 2],
    ws: [Ws; 2],
    ids: [u32; 2],
    rng: StdRng,
    seen: Shared,
}

impl Pair {
    async fn act(&mut self, who: usize, msg: &str, body: Value) -> Result<Value, String> {
        let room = act(&mut self.ws[who], &mut self.ids[who], msg, body, &self.seen).await?;
        if room["phase"] != "finished"
            && let Some(id) = room["id"].as_str()
        {
            let moves: Vec<u8> =
                serde_json::from_value(room["moves"].clone()).map_err(|e| e.to_string())?;
            lock(&self.seen)
                .history
                .entry(self.index)
                .or_default()
                .push((Instant::now(), id.to_owned(), moves));
        }
        Ok(room)
    }

    /// Checks that a snapshot seats this pair: the host in seat 1, the partner (if seated) in
    /// seat 2.
    fn check_seats(&self, room: &Value) -> Result<(), String> {
        for (seat, user) in self.users.iter().enumerate() {
            let occupant = &room["seats"][seat]["player"];
            if occupant.is_null() && seat == 1 {
                continue;
            }
            if occupant["player"]["user"]["id"] != json!(user) {
                return Err(format!("pair {}: seat {seat} of {room}", self.index));
            }
        }
        Ok(())
    }

    /// Both players come back on new connections (each game on fresh ones keeps every
    /// connection well within the message rate limit, as people's would be).
    async fn reconnect(&mut self) -> Result<(), String> {
        self.ws = [
            connect(self.addr, &self.cookies[0]).await?,
            connect(self.addr, &self.cookies[1]).await?,
        ];
        self.ids = [0, 0];
        Ok(())
    }

    /// Plays games forever (until the server is killed); an error is a failure.
    async fn run(mut self) -> Result<(), String> {
        let resume = lock(&self.seen).open.get(&self.index).cloned();
        if let Some(room_id) = resume {
            self.resume(&room_id).await?;
        }
        let mut n = self.rng.random_range(0..2);
        loop {
            n += 1;
            self.reconnect().await?;
            let game = if n % 2 == 0 { "xo" } else { "infinite" };
            let room = self
                .act(
                    0,
                    "create_room",
                    json!({"room": {"game": game, "opponent": {"player": {}}, "time_per_move_s": 30}}),
                )
                .await?;
            let room_id = room["id"].as_str().ok_or("room id")?.to_owned();
            lock(&self.seen).open.insert(self.index, room_id.clone());
            self.act(1, "join", json!({"room": room_id})).await?;
            self.act(1, "ready", json!({"ready": true})).await?;
            let room = self.act(0, "start", json!({})).await?;
            self.play(room).await?;
        }
    }

    /// Re-opens the pair's room after a restart and carries on with it.
    async fn resume(&mut self, room_id: &str) -> Result<(), String> {
        self.ids[0] += 1;
        let id = self.ids[0];
        send(
            &mut self.ws[0],
            json!({"open": {"id": id, "room": room_id}}),
        )
        .await?;
        let answer = reply(&mut self.ws[0], id, &self.seen).await?;
        if answer["error"]["code"] == "unknown_room" {
            // Not restored: it finished (stored) or its last save was not durable yet.
            lock(&self.seen).open.remove(&self.index);
            return Ok(());
        }
        let room = answer["room"]["room"].clone();
        if room.is_null() {
            return Err(format!("opening {room_id}: {answer}"));
        }
        self.check_seats(&room)?;
        match room["phase"].as_str() {
            Some("playing") => {
                lock(&self.seen).resumed_active += 1;
                self.act(1, "open", json!({"room": room_id})).await?;
                self.play(room).await
            }
            Some("waiting") => {
                lock(&self.seen).resumed_waiting += 1;
                if room["seats"][1]["player"].is_null() {
                    self.act(1, "join", json!({"room": room_id})).await?;
                } else {
                    self.act(1, "open", json!({"room": room_id})).await?;
                }
                self.act(1, "ready", json!({"ready": true})).await?;
                let room = self.act(0, "start", json!({})).await?;
                self.play(room).await
            }
            other => Err(format!("restored room {room_id} in phase {other:?}")),
        }
    }

    /// Plays an active game to its stored result.
    async fn play(&mut self, mut room: Value) -> Result<(), String> {
        let game = match room["game"].as_str() {
            Some("xo") => Game::Xo,
            _ => Game::Infinite,
        };
        let plan = random_plan(&mut self.rng);
        let mark_seat = |room: &Value, mark: &str| -> Result<usize, String> {
            (0..2)
                .find(|&i| room["seats"][i]["mark"] == mark)
                .ok_or_else(|| format!("no seat holds {mark}: {room}"))
        };
        loop {
            if room["phase"] == "finished" {
                if room["result"].is_null() {
                    return Err(format!("finished without a stored result: {room}"));
                }
                return Ok(());
            }
            if let Some(offerer) = room["draw_offer"].as_str() {
                // A draw offer restored with its room (saved before the kill): accepted.
                let answerer = 1 - mark_seat(&room, offerer)?;
                room = self
                    .act(answerer, "answer_draw", json!({"accept": true}))
                    .await?;
                continue;
            }
            let moves: Vec<u8> =
                serde_json::from_value(room["moves"].clone()).map_err(|e| format!("moves: {e}"))?;
            let turn = room["turn"].as_str().ok_or("turn")?.to_owned();
            let mover = mark_seat(&room, &turn)?;
            let plies = moves.len();
            room = match plan {
                Plan::Resign(k) if plies >= k => self.act(mover, "resign", json!({})).await?,
                Plan::Agree(k) if plies >= k => {
                    self.act(mover, "offer_draw", json!({})).await?;
                    self.act(1 - mover, "answer_draw", json!({"accept": true}))
                        .await?
                }
                _ if plies >= MAX_PLIES => self.act(mover, "resign", json!({})).await?,
                _ => {
                    if self.rng.random_range(0..THINK_ONE_IN) == 0 {
                        // A player thinking: the room stays open and quiet long enough for
                        // the durability deadline to matter at the next kill.
                        let ms = self.rng.random_range(1_600..2_600);
                        tokio::time::sleep(Duration::from_millis(ms)).await;
                    }
                    let position = GameRecord::from_moves(game, &moves)
                        .map_err(|(i, e)| format!("move {i} of {room}: {e}"))?
                        .position();
                    let level = match plan {
                        Plan::Natural(levels) => levels[usize::from(turn == "O")],
                        _ => 0,
                    };
                    let cell = tables::bot::choose(&position, level, &mut self.rng)
                        .ok_or_else(|| format!("no move in {position}"))?
                        .cell;
                    self.act(mover, "move", json!({"cell": cell})).await?
                }
            };
        }
    }
}

async fn login(addr: SocketAddr, player: &Player) -> String {
    let reply = request(
        addr,
        "POST",
        "/api/login",
        &[("Content-Type", "application/json")],
        Some(credentials(&player.name, &player.password).as_bytes()),
    )
    .await;
    assert_eq!(
        reply.status,
        200,
        "sign in {}: {}",
        player.name,
        reply.text()
    );
    reply.cookie_pair("xo_session").expect("session cookie")
}

/// What one offline look at the file found.
#[derive(Debug, Default)]
struct FileState {
    games: BTreeMap<String, StoredGame>,
    /// Saved open rooms: id → phase name.
    rooms: BTreeMap<String, String>,
    /// Saved open rooms by pair.
    pair_rooms: BTreeMap<usize, String>,
    /// Open rooms that had to be in the file, and how many of them with moves.
    open_checked: usize,
    open_moves_checked: usize,
}

fn stats_add(stats: &mut LadderStats, score: Score, change: i32) {
    stats.rating += change;
    stats.points += score.points();
    match score {
        Score::Win => stats.wins += 1,
        Score::Draw => stats.draws += 1,
        Score::Loss => stats.losses += 1,
    }
}

/// Opens the real file with the store's API and checks every invariant (see the module docs).
/// The newest session cookie issued to player `who`.
fn latest_cookie(cookies: &[(usize, String)], who: usize) -> String {
    cookies
        .iter()
        .rev()
        .find(|(w, _)| *w == who)
        .expect("cookie")
        .1
        .clone()
}

/// [`check_file`] on the stopped server's data, against what players were told so far.
async fn check_stopped(
    data: &Path,
    players: &[Player],
    cookies: &[(usize, String)],
    seen: &Shared,
    before: FileState,
    killed_at: Instant,
) -> FileState {
    let snapshot = Seen {
        told: lock(seen).told.clone(),
        ..Seen::default()
    };
    let open = must_be_open(&lock(seen), killed_at);
    let (d, p, c) = (data.to_owned(), players.to_vec(), cookies.to_vec());
    let state =
        tokio::task::spawn_blocking(move || check_file(&d, &p, &c, &snapshot, &before, &open))
            .await
            .expect("file check");
    let mut s = lock(seen);
    s.open_checked += state.open_checked;
    s.open_moves_checked += state.open_moves_checked;
    s.history.clear();
    state
}

fn check_file(
    data_dir: &Path,
    players: &[Player],
    cookies: &[(usize, String)],
    seen: &Seen,
    before: &FileState,
    open: &[(String, Vec<u8>)],
) -> FileState {
    let store = Store::open_blocking(data_dir).expect("the file opens after a kill");
    let ids: BTreeMap<UserId, usize> = players.iter().enumerate().map(|(i, p)| (p.id, i)).collect();

    // Accounts and sessions.
    for p in players {
        let (id, record) = store
            .user_by_name_blocking(&p.name)
            .expect("read")
            .unwrap_or_else(|| panic!("account {} lost", p.name));
        assert_eq!(id, p.id, "{} keeps its id", p.name);
        assert_eq!(record.name, p.name);
    }
    let now = firmware_host::clock::now_ms();
    for (who, cookie) in cookies {
        let token = cookie.trim_start_matches("xo_session=");
        let hash = accounts::token_hash(token).expect("a token we were given");
        let account = store
            .session_account_blocking(&hash, now)
            .expect("read")
            .unwrap_or_else(|| panic!("session of {} lost", players[*who].name));
        assert_eq!(account.id, players[*who].id, "a session names its player");
    }

    // Every stored game, through each player's full game index.
    let mut games = BTreeMap::new();
    for p in players {
        for g in store.recent_games_blocking(p.id, usize::MAX).expect("read") {
            games.insert(g.game.id.clone(), g);
        }
    }
    let mut by_seq: Vec<&StoredGame> = games.values().collect();
    by_seq.sort_by_key(|g| g.seq);
    for (i, g) in by_seq.iter().enumerate() {
        assert_eq!(g.seq, i as u64, "game numbers run without a gap");
    }
    for id in before.games.keys() {
        assert!(games.contains_key(id), "stored game {id} lost after a kill");
    }
    for id in &seen.told {
        assert!(
            games.contains_key(id),
            "game {id} was told to players but is not stored"
        );
    }

    // Each game whole, and the replay of ratings, points and W/D/L.
    let mut ladders: BTreeMap<(UserId, Game), LadderStats> = BTreeMap::new();
    for g in &by_seq {
        let f = &g.game;
        assert!(f.rated, "only rated games are played: {f:?}");
        let (PlayerRef::User { id: x, .. }, PlayerRef::User { id: o, .. }) = (&f.x, &f.o) else {
            panic!("a rated game seats two players: {f:?}");
        };
        assert!(
            ids.contains_key(x) && ids.contains_key(o) && x != o,
            "{f:?}"
        );
        let pair_of = |u: &UserId| ids[u] / 2;
        assert_eq!(
            pair_of(x),
            pair_of(o),
            "a game is played within a pair: {f:?}"
        );
        assert_eq!(g.updates.len(), 2, "two rating updates: {g:?}");
        for (user, mark) in [(*x, Mark::X), (*o, Mark::O)] {
            let mine: Vec<_> = g.updates.iter().filter(|u| u.user == user).collect();
            assert_eq!(mine.len(), 1, "exactly one update per player: {g:?}");
            assert_eq!(mine[0].mark, mark, "{g:?}");
        }
        let record = GameRecord::from_moves(f.game, &f.moves)
            .unwrap_or_else(|(i, e)| panic!("stored move {i} illegal ({e}): {f:?}"));
        match f.end {
            GameEnd::Line { .. } | GameEnd::FullBoard | GameEnd::Repetition => {
                assert_eq!(record.end().map(GameEnd::from), Some(f.end), "{f:?}");
            }
            GameEnd::Agreed | GameEnd::Resigned { .. } | GameEnd::Timeout { .. } => {
                assert_eq!(
                    record.end(),
                    None,
                    "a game the rules ended cannot be resigned: {f:?}"
                );
            }
        }
        let x_score = match f.end.winner() {
            Some(Mark::X) => Score::Win,
            Some(Mark::O) => Score::Loss,
            None => Score::Draw,
        };
        let xs = *ladders.entry((*x, f.game)).or_default();
        let os = *ladders.entry((*o, f.game)).or_default();
        let (dx, d_o) = engine::elo::changes(xs.rating, os.rating, x_score);
        assert_eq!(
            (g.updates[0].before, g.updates[0].after),
            (xs.rating, xs.rating + dx),
            "X's update is the Elo replay: {g:?}"
        );
        assert_eq!(
            (g.updates[1].before, g.updates[1].after),
            (os.rating, os.rating + d_o),
            "O's update is the Elo replay: {g:?}"
        );
        stats_add(ladders.entry((*x, f.game)).or_default(), x_score, dx);
        stats_add(
            ladders.entry((*o, f.game)).or_default(),
            x_score.opposite(),
            d_o,
        );
    }
    for p in players {
        let record = store.user_blocking(p.id).expect("read").expect("user");
        for game in [Game::Xo, Game::Infinite] {
            let replay = ladders.get(&(p.id, game)).copied().unwrap_or_default();
            assert_eq!(
                *record.ladder(game),
                replay,
                "{}'s {game:?} ladder equals the replay of the stored games",
                p.name
            );
        }
    }

    // Saved open rooms.
    let mut rooms = BTreeMap::new();
    let mut pair_rooms = BTreeMap::new();
    let mut book = Seats::default();
    let mut saved_moves = BTreeMap::new();
    for (id, bytes) in store.load_rooms_blocking().expect("read rooms") {
        assert!(
            !games.contains_key(&id),
            "room {id} is saved open but its game is stored"
        );
        assert!(
            !seen.told.contains(&id),
            "room {id} is saved open but its result was told"
        );
        let room = rooms::room::Room::restore(&bytes, &mut book)
            .unwrap_or_else(|e| panic!("saved room {id} does not restore: {e}"));
        assert_eq!(room.id(), id);
        // Seats in order: the host first, then the partner if seated.
        let users = room.seated_users();
        let PlayerKey::User(host) = room.host().clone() else {
            panic!("room {id} has a guest host")
        };
        assert_eq!(
            users.first(),
            Some(&host),
            "room {id}: the host holds seat 1"
        );
        assert!(users.len() <= 2);
        let host_index = ids[&host];
        assert_eq!(host_index % 2, 0, "hosts are the first of their pair");
        if let Some(guest) = users.get(1) {
            assert_eq!(ids[guest], host_index + 1, "room {id} seats a pair");
        }
        assert!(
            pair_rooms.insert(host_index / 2, id.clone()).is_none(),
            "a pair sits in one room at most"
        );
        let phase = format!("{:?}", room.phase()).to_lowercase();
        saved_moves.insert(id.clone(), room.view_for(room.host(), 0).moves);
        rooms.insert(id, phase);
    }
    // Every open room as it was more than the deadline before the kill is in the
    // file with at least those moves, unless its game finished and is stored.
    let (mut open_checked, mut open_moves_checked) = (0, 0);
    for (id, moves) in open {
        if games.contains_key(id) {
            continue;
        }
        let saved = saved_moves
            .get(id)
            .unwrap_or_else(|| panic!("open room {id} (moves {moves:?}) lost in the kill"));
        assert!(
            saved.starts_with(moves),
            "room {id} lost moves older than the deadline: saved {saved:?}, seen {moves:?}"
        );
        open_checked += 1;
        open_moves_checked += usize::from(!moves.is_empty());
    }
    store.shutdown_blocking();
    drop(store);
    FileState {
        games,
        rooms,
        pair_rooms,
        open_checked,
        open_moves_checked,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_while_rated_games_finish_leaves_only_whole_results() {
    let kills = kills();
    let started = Instant::now();
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let mut rng = StdRng::from_rng(&mut rand::rng());
    let seen: Shared = Arc::default();

    // Up to 2 connections per player at a time here; the per-address limit is not under test.
    let env = [("XO_MAX_WS_PER_ADDRESS", "0")];
    let mut server = Process::start(&data, &env);
    let mut players = Vec::new();
    let mut cookies: Vec<(usize, String)> = Vec::new();
    for i in 0..PAIRS * 2 {
        let name = format!("crash{i}");
        let password = format!("password-{i}");
        let (id, cookie) = register(server.addr, &name, &password).await;
        players.push(Player { name, password, id });
        cookies.push((i, cookie));
    }
    let mut state = FileState::default();
    let mut max_rooms = 0;
    for kill in 0..=kills {
        let addr = server.addr;
        if kill > 0 {
            // Sessions and accounts survive (A2): every cookie authenticates, and one player
            // signs in again.
            for (who, cookie) in &cookies {
                let me = request(addr, "GET", "/api/me", &[("Cookie", cookie)], None).await;
                assert_eq!(me.status, 200, "a session survives the kill: {}", me.text());
                assert_eq!(me.json()["id"], players[*who].id);
            }
            let who = kill % players.len();
            cookies.push((who, login(addr, &players[who]).await));
            // The lobby lists exactly the rooms saved in the file.
            let lobby = request(addr, "GET", "/api/rooms", &[], None).await.json();
            let listed: BTreeMap<String, String> = lobby
                .as_array()
                .expect("lobby list")
                .iter()
                .map(|r| {
                    (
                        r["id"].as_str().expect("id").to_owned(),
                        r["phase"].as_str().expect("phase").to_owned(),
                    )
                })
                .collect();
            assert_eq!(listed, state.rooms, "restored rooms are the saved ones");
        }
        if kill == kills {
            // A clean stop after the last restart loses nothing either.
            server.stop_with("-TERM");
            // A clean stop makes everything durable: every snapshot counts.
            let far = Instant::now() + Duration::from_secs(3600);
            state = check_stopped(&data, &players, &cookies, &seen, state, far).await;
            break;
        }
        let mut workers = Vec::new();
        for pair in 0..PAIRS {
            let users = [players[2 * pair].id, players[2 * pair + 1].id];
            let host_cookie = latest_cookie(&cookies, 2 * pair);
            let guest_cookie = latest_cookie(&cookies, 2 * pair + 1);
            let seen = Arc::clone(&seen);
            let seed = rng.random();
            workers.push(tokio::spawn(async move {
                let ws = [
                    connect(addr, &host_cookie).await?,
                    connect(addr, &guest_cookie).await?,
                ];
                Pair {
                    index: pair,
                    addr,
                    cookies: [host_cookie, guest_cookie],
                    users,
                    ws,
                    ids: [0, 0],
                    rng: StdRng::seed_from_u64(seed),
                    seen,
                }
                .run()
                .await
            }));
        }
        // A random moment while games are finishing: results keep arriving at every instant.
        let told_before = lock(&seen).told.len();
        let delay = rng.random_range(300..3500);
        tokio::time::sleep(Duration::from_millis(delay)).await;
        for w in &mut workers {
            if w.is_finished() {
                let outcome = w.await;
                panic!("a worker stopped before the kill: {outcome:?}");
            }
        }
        let killed_at = Instant::now();
        server.stop_with_kill();
        for w in workers {
            // After the kill every socket fails; before it nothing failed (checked above).
            w.abort();
            let _ignored = w.await;
        }
        state = check_stopped(&data, &players, &cookies, &seen, state, killed_at).await;
        max_rooms = max_rooms.max(state.rooms.len());
        // Each pair carries on with the room the file holds for it, whatever it was told.
        lock(&seen).open = state.pair_rooms.clone();
        eprintln!(
            "kill {}/{kills} after {delay} ms: {} games stored ({} told this round), {} rooms saved",
            kill + 1,
            state.games.len(),
            lock(&seen).told.len() - told_before,
            state.rooms.len()
        );
        server = Process::start(&data, &env);
    }
    let s = lock(&seen);
    eprintln!(
        "crash consistency: {kills} kills, {} restarts, {} games stored and checked after every kill, \
         {} results told, ends {:?}, {} active and {} waiting rooms played on after a restart, \
         at most {max_rooms} rooms saved at a kill, {} open rooms required by the 1 s deadline found \
         with their moves ({} of them with moves), {} sessions, {:.1} s",
        kills,
        state.games.len(),
        s.told.len(),
        s.ends,
        s.resumed_active,
        s.resumed_waiting,
        s.open_checked,
        s.open_moves_checked,
        cookies.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(
        state.games.len() >= kills,
        "games finished between the kills ({} for {kills} kills)",
        state.games.len()
    );
}
