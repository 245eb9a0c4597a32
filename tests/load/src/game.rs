//! Against firmware-host: two signed-in clients per game slot play rated rooms through the real
//! protocol (create, join, ready, start, random legal moves, exit) one after another; spectators
//! watch them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use engine::Game;
use protocol::{
    ClientMsg, CreateRoom, Event, JoiningRequest, OpponentRequest, Phase, RoomView, ServerMsg,
};
use rand::rngs::SmallRng;
use tokio::sync::watch;
use tokio::time::Instant;
use xo_client::{Client, ClientError, random_empty_cell};

use crate::pace::Pacer;
use crate::stats::Stats;

/// A game longer than this (Infinite XO can run long before a line or a threefold
/// repetition) is resigned.
pub const MAX_MOVES_PER_GAME: usize = 400;
/// Messages read while waiting for one answer before giving up.
const MAX_MESSAGES_PER_WAIT: usize = 10_000;
/// Infinite XO's time per move in the load rooms (the longest allowed; XO has a fixed 120 s).
pub const INFINITE_MOVE_S: u8 = 30;

/// The room every game slot creates: rated, open to anyone, [`INFINITE_MOVE_S`] per Infinite XO
/// move.
pub fn rated_room(game: Game) -> CreateRoom {
    CreateRoom {
        game,
        opponent: OpponentRequest::Player {
            joining: JoiningRequest::Open,
        },
        time_per_move_s: (game == Game::Infinite).then_some(INFINITE_MOVE_S),
    }
}

/// The error category of a client error, for the report.
pub fn category(e: &ClientError) -> String {
    match e {
        ClientError::Connect(_) => "connect".into(),
        ClientError::Closed => "closed".into(),
        ClientError::Timeout(_) => "timeout".into(),
        ClientError::Protocol(_) => "protocol".into(),
        ClientError::Refused { code, .. } => format!("refused:{code}"),
    }
}

/// One player's connection with its pacing and its latest snapshot.
#[derive(Debug)]
pub struct Player {
    pub client: Client,
    pub pacer: Pacer,
    view: Option<Box<RoomView>>,
    /// This connection has reported an error (counted by whoever received it).
    failed: bool,
}

impl Player {
    pub fn new(client: Client, rate: u32) -> Player {
        Player {
            client,
            pacer: Pacer::new(rate),
            view: None,
            failed: false,
        }
    }

    /// Sends `make(id)` within the pace; returns the id and when it left.
    async fn send(
        &mut self,
        make: impl FnOnce(Option<u32>) -> ClientMsg,
    ) -> Result<(u32, Instant), ClientError> {
        self.pacer.take().await;
        let id = self.client.id();
        let sent = Instant::now();
        if let Err(e) = self.client.send(make(id)).await {
            self.failed = true;
            return Err(e);
        }
        Ok((id.unwrap_or(0), sent))
    }

    /// Reads until `want` accepts a message; returns its value and when it arrived. Room
    /// snapshots update the player's view; an `error` fails the wait; automatic moves (a clock
    /// ran out: the client was too slow) are counted as errors.
    async fn wait<T>(
        &mut self,
        stats: &Stats,
        mut want: impl FnMut(&ServerMsg) -> Option<T>,
    ) -> Result<(T, Instant), ClientError> {
        for _ in 0..MAX_MESSAGES_PER_WAIT {
            let msg = match self.client.recv().await {
                Ok(msg) => msg,
                Err(e) => {
                    self.failed = true;
                    return Err(e);
                }
            };
            let at = Instant::now();
            match &msg {
                ServerMsg::Error { code, message, .. } => {
                    self.failed = true;
                    return Err(ClientError::Refused {
                        code: code.as_str().to_owned(),
                        message: message.clone(),
                    });
                }
                ServerMsg::Event(Event::Moved {
                    automatic: true, ..
                }) => stats.error("automatic_move"),
                ServerMsg::Room { room, .. } => self.view = Some(room.clone()),
                _ => {}
            }
            if let Some(value) = want(&msg) {
                return Ok((value, at));
            }
        }
        Err(ClientError::Timeout(
            "reading a flood of unrelated messages",
        ))
    }

    /// Waits for the room snapshot answering request `id`.
    async fn reply(
        &mut self,
        stats: &Stats,
        id: u32,
    ) -> Result<(Box<RoomView>, Instant), ClientError> {
        self.wait(stats, |m| match m {
            ServerMsg::Room { id: Some(i), room } if *i == id => Some(room.clone()),
            _ => None,
        })
        .await
    }

    /// Waits for a snapshot satisfying `pred`, unless the latest one already does.
    async fn until(
        &mut self,
        stats: &Stats,
        pred: impl Fn(&RoomView) -> bool,
    ) -> Result<Instant, ClientError> {
        if self.view.as_deref().is_some_and(&pred) {
            return Ok(Instant::now());
        }
        self.wait(stats, |m| match m {
            ServerMsg::Room { room, .. } if pred(room) => Some(()),
            _ => None,
        })
        .await
        .map(|((), at)| at)
    }

    /// Leaves the current room, answered by `left`.
    async fn exit(&mut self, stats: &Stats) -> Result<(), ClientError> {
        let (id, _) = self.send(|id| ClientMsg::Exit { id }).await?;
        self.wait(stats, |m| match m {
            ServerMsg::Left { id: Some(i), .. } if *i == id => Some(()),
            _ => None,
        })
        .await?;
        self.view = None;
        Ok(())
    }
}

/// A game slot: two players playing room after room, hosting in turn (a host may keep only so
/// many rooms open, finished ones included until they close).
#[derive(Debug)]
pub struct Slot {
    pub index: usize,
    pub players: [Player; 2],
    /// The slot's current room, for its spectators.
    pub room: watch::Sender<Option<String>>,
}

/// Which game a slot plays in a given round.
#[derive(Debug, Clone, Copy)]
pub enum Games {
    Infinite,
    Xo,
    /// Alternating, starting with Infinite XO on even slots and XO on odd ones.
    Both,
}

impl Games {
    pub fn pick(self, slot: usize, round: usize) -> Game {
        match self {
            Games::Infinite => Game::Infinite,
            Games::Xo => Game::Xo,
            Games::Both if (slot + round) % 2 == 0 => Game::Infinite,
            Games::Both => Game::Xo,
        }
    }
}

/// Plays rooms until `budget` (games left to start) is used up or the task is aborted.
/// Errors are counted; after one the slot leaves its room and goes on with a new one, unless
/// the connection is gone. `bot`: the slot's two players each play the bot in turn (unrated
/// games of signed-in players, stored as their history) instead of each other.
pub async fn run_slot(
    mut slot: Slot,
    games: Games,
    bot: bool,
    stats: Arc<Stats>,
    budget: Arc<AtomicU64>,
    mut rng: SmallRng,
) {
    for round in 0..usize::MAX {
        let taken = budget.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
            left.checked_sub(1)
        });
        if taken.is_err() {
            return;
        }
        let game = games.pick(slot.index, round);
        let played = if bot {
            play_bot(&mut slot.players[round % 2], game, &stats, &mut rng).await
        } else {
            play_one(&mut slot, round % 2, game, &stats, &mut rng).await
        };
        match played {
            Ok(()) => stats.game_completed(),
            Err(e) => {
                stats.error(category(&e));
                if matches!(e, ClientError::Closed | ClientError::Connect(_)) {
                    drain(&mut slot, &stats).await;
                    return;
                }
                // Leave whatever room this was (an active game is resigned) and start afresh;
                // a failure here is the same error again and is not counted twice.
                for player in &mut slot.players {
                    if player.exit(&stats).await.is_err() {
                        drain(&mut slot, &stats).await;
                        return;
                    }
                }
                for player in &mut slot.players {
                    player.failed = false;
                }
            }
        }
    }
}

/// Before a slot gives up: reads what is still waiting on each connection that has not reported
/// an error yet (up to 100 messages, 200 ms of quiet), so that an error or a close there (the
/// other player flooded too, say) is counted rather than lost with the slot.
async fn drain(slot: &mut Slot, stats: &Stats) {
    for player in slot.players.iter_mut().filter(|p| !p.failed) {
        for _ in 0..100 {
            match player.client.recv_within(Duration::from_millis(200)).await {
                Ok(Some(ServerMsg::Error { code, .. })) => {
                    stats.error(format!("refused:{}", code.as_str()));
                    break;
                }
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => {
                    stats.error(category(&e));
                    break;
                }
            }
        }
    }
}

/// One room from creation to both players' exit; `host` (0 or 1) is the player who creates it.
async fn play_one<R: rand::Rng>(
    slot: &mut Slot,
    host: usize,
    game: Game,
    stats: &Stats,
    rng: &mut R,
) -> Result<(), ClientError> {
    let host_index = host;
    let (host, guest) = pair(&mut slot.players, host_index);
    let (id, _) = host
        .send(|id| ClientMsg::CreateRoom {
            id,
            room: rated_room(game),
        })
        .await?;
    let (room, _) = host.reply(stats, id).await?;
    let room_id = room.id.clone();
    slot.room.send_replace(Some(room_id.clone()));
    let (id, _) = guest
        .send(|id| ClientMsg::Join {
            id,
            room: room_id,
            passcode: None,
        })
        .await?;
    guest.reply(stats, id).await?;
    let (id, _) = guest
        .send(|id| ClientMsg::Ready { id, ready: true })
        .await?;
    guest.reply(stats, id).await?;
    let (id, _) = host.send(|id| ClientMsg::Start { id }).await?;
    let (started, _) = host.reply(stats, id).await?;
    // X moves first; the host learns its mark from the start's answer.
    let mut mover = if started.you.to_move {
        host_index
    } else {
        1 - host_index
    };
    slot.players[mover]
        .until(stats, |r| r.phase == Phase::Playing && r.you.to_move)
        .await?;
    let mut finished = false;
    for _ in 0..MAX_MOVES_PER_GAME {
        let (m, o) = pair(&mut slot.players, mover);
        let view = m
            .view
            .as_deref()
            .ok_or(ClientError::Protocol("no snapshot to move from".into()))?;
        let played = view.moves.len();
        let cell = random_empty_cell(view, rng);
        let (id, sent) = m.send(|id| ClientMsg::Move { id, cell }).await?;
        let (mine, theirs) = tokio::join!(
            m.reply(stats, id),
            o.until(stats, |r| r.moves.len() > played)
        );
        if let (Err(_), Err(e)) = (&mine, &theirs) {
            // Both connections failed at once: the caller counts the mover's error.
            stats.error(category(e));
        }
        let (view, replied) = mine?;
        let seen = theirs?;
        stats.moved(Some(replied - sent), seen - sent);
        if view.phase == Phase::Finished {
            stats.ending_move(replied - sent);
            // Both players see the end before leaving.
            o.until(stats, |r| r.phase == Phase::Finished).await?;
            finished = true;
            break;
        }
        stats.ordinary_move(replied - sent);
        mover = 1 - mover;
    }
    if !finished {
        // Too long: the player to move resigns, and both see the end.
        let (id, _) = slot.players[mover]
            .send(|id| ClientMsg::Resign { id })
            .await?;
        slot.players[mover].reply(stats, id).await?;
        slot.players[1 - mover]
            .until(stats, |r| r.phase == Phase::Finished)
            .await?;
    }
    for player in &mut slot.players {
        player.exit(stats).await?;
    }
    Ok(())
}

/// One game against the bot (XO's or Infinite XO's, difficulty 50, the player as X) from the
/// room's creation to the player's exit; each of the player's moves is counted. There is no
/// second person to hear a move, so its "to opponent" time is its own round trip.
async fn play_bot<R: rand::Rng>(
    player: &mut Player,
    game: Game,
    stats: &Stats,
    rng: &mut R,
) -> Result<(), ClientError> {
    let room = CreateRoom {
        game,
        opponent: OpponentRequest::Bot {
            difficulty: Some(50),
            side: Some(engine::Mark::X),
        },
        time_per_move_s: (game == Game::Infinite).then_some(INFINITE_MOVE_S),
    };
    let (id, _) = player.send(|id| ClientMsg::CreateRoom { id, room }).await?;
    player.reply(stats, id).await?;
    let mut finished = false;
    for _ in 0..MAX_MOVES_PER_GAME {
        player
            .until(stats, |r| {
                r.phase == Phase::Finished || (r.phase == Phase::Playing && r.you.to_move)
            })
            .await?;
        let view = player
            .view
            .as_deref()
            .ok_or(ClientError::Protocol("no snapshot to move from".into()))?;
        if view.phase == Phase::Finished {
            finished = true;
            break;
        }
        let cell = random_empty_cell(view, rng);
        let (id, sent) = player.send(|id| ClientMsg::Move { id, cell }).await?;
        let (view, replied) = player.reply(stats, id).await?;
        stats.moved(Some(replied - sent), replied - sent);
        if view.phase == Phase::Finished {
            stats.ending_move(replied - sent);
            finished = true;
            break;
        }
        stats.ordinary_move(replied - sent);
    }
    if !finished {
        let (id, _) = player.send(|id| ClientMsg::Resign { id }).await?;
        player.reply(stats, id).await?;
    }
    player.exit(stats).await
}

/// The mover and the other player, both mutably.
fn pair(players: &mut [Player; 2], mover: usize) -> (&mut Player, &mut Player) {
    let [a, b] = players;
    if mover == 0 { (a, b) } else { (b, a) }
}

/// A spectator of one slot: opens each new room of the slot and reads everything sent to it.
pub async fn follow(
    mut client: Client,
    rate: u32,
    mut rooms: watch::Receiver<Option<String>>,
    stats: Arc<Stats>,
) {
    let mut pacer = Pacer::new(rate);
    loop {
        tokio::select! {
            changed = rooms.changed() => {
                if changed.is_err() {
                    return;
                }
                let room = rooms.borrow_and_update().clone();
                if let Some(room) = room {
                    pacer.take().await;
                    let id = client.id();
                    if let Err(e) = client.send(ClientMsg::Open { id, room }).await {
                        stats.error(format!("spectator:{}", category(&e)));
                        return;
                    }
                }
            }
            msg = client.recv_within(Duration::from_secs(3600)) => {
                if !spectator_read(msg, &stats) {
                    return;
                }
            }
        }
    }
}

/// An idle spectator: once the slot has a room, opens it once, then only reads.
pub async fn idle(
    mut client: Client,
    mut rooms: watch::Receiver<Option<String>>,
    stats: Arc<Stats>,
) {
    let Ok(room) = rooms.wait_for(Option::is_some).await.map(|r| r.clone()) else {
        return;
    };
    let id = client.id();
    if let Some(room) = room
        && let Err(e) = client.send(ClientMsg::Open { id, room }).await
    {
        stats.error(format!("spectator:{}", category(&e)));
        return;
    }
    // Bounded: the run aborts this task when its window closes.
    for _ in 0..u64::MAX {
        if !spectator_read(client.recv_within(Duration::from_secs(3600)).await, &stats) {
            return;
        }
    }
}

/// Opens a bot room (XO, the guest to move, so the room then waits) and returns the client
/// once the room answered: a room that stays open for the run.
pub async fn open_bot_room(mut client: Client) -> Result<Client, String> {
    let id = client.id();
    let room = CreateRoom {
        game: Game::Xo,
        opponent: OpponentRequest::Bot {
            difficulty: Some(50),
            side: Some(engine::Mark::X),
        },
        time_per_move_s: None,
    };
    client
        .send(ClientMsg::CreateRoom { id, room })
        .await
        .map_err(|e| category(&e))?;
    // Bounded: 100 messages or 30 s without one.
    for _ in 0..100 {
        match client.recv_within(Duration::from_secs(30)).await {
            Ok(Some(ServerMsg::Room { id: got, .. })) if got == id => return Ok(client),
            Ok(Some(ServerMsg::Error { code, .. })) => {
                return Err(format!("refused:{}", code.as_str()));
            }
            Ok(Some(_)) => {}
            Ok(None) => return Err("timeout".into()),
            Err(e) => return Err(category(&e)),
        }
    }
    Err("protocol".into())
}

/// Only reads (an open room's creator, counted as a spectator).
pub async fn read_only(mut client: Client, stats: Arc<Stats>) {
    // Bounded: the run aborts this task when its window closes.
    for _ in 0..u64::MAX {
        if !spectator_read(client.recv_within(Duration::from_secs(3600)).await, &stats) {
            return;
        }
    }
}

/// Watches the lobby (its first page) and reads every update.
pub async fn watch_lobby(mut client: Client, stats: Arc<Stats>) {
    let id = client.id();
    if let Err(e) = client.send(ClientMsg::WatchLobby { id, limit: None }).await {
        stats.error(format!("spectator:{}", category(&e)));
        return;
    }
    read_only(client, stats).await;
}

/// Counts one message read by a spectator; false when the connection is gone.
fn spectator_read(msg: Result<Option<ServerMsg>, ClientError>, stats: &Stats) -> bool {
    match msg {
        Ok(Some(ServerMsg::Error { code, .. })) => {
            stats.error(format!("spectator:refused:{}", code.as_str()));
            true
        }
        Ok(Some(_)) => {
            stats.spectator_message();
            true
        }
        Ok(None) => true,
        Err(e) => {
            stats.error(format!("spectator:{}", category(&e)));
            false
        }
    }
}
