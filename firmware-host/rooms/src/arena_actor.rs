//! The task that owns a running event's [`Arena`] (EV2–EV5, EV7), as a room's actor owns its
//! room: it is the arena's only caller. It sleeps until [`Arena::next_deadline`] and then
//! [`Arena::tick`]s; it takes the players' intents (join, pause, resume, leave), their presence,
//! watchers, and the end of each game of the event on one channel ([`ArenaHandle`]), and
//! answers through `oneshot` senders.
//!
//! What it needs from the server is an [`EventHost`]: saving the arena, storing a finished
//! game with its points in one transaction (EV4), and making the room of a pairing. The order
//! of those calls is the arena's contract ([`crate::event::saved`]):
//!
//! - a pairing is saved *before* its room is made, so after a crash the game is the event's;
//!   the room's id is saved once it exists ([`Arena::seated`]); a room that cannot be made
//!   aborts the pairing ([`Arena::abort`]) and its players wait again;
//! - a finished game's record is computed by [`Arena::result`], stored with the game's result
//!   by the host, and only then counted ([`Arena::record`]); a store that fails leaves the game
//!   open, and the same game sent again gets the same record (the game's own end time is the
//!   record's), so a retry counts once;
//! - every change is saved before the task takes its next message.
//!
//! Presence (EV2: offline or seated elsewhere is never paired) is the host's to say
//! ([`EventHost::presence`]): the task asks it for every player about once a second and again
//! right before a wave is paired, so a wave never pairs a player who has just gone. At its
//! start the task gives up the games in progress whose rooms the host does not have (a
//! restart lost them before their first save): their players wait again.
//!
//! Watchers get an [`EventUpdate`] after each change they can see (with `you` for a watcher
//! whose own state changed), and a player's watchers get [`Paired`] when that player is
//! paired. The task ends when every [`ArenaHandle`] is dropped.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use engine::{Game, Mark};
use protocol::RoomId;
use protocol::event::{EventId, EventUpdate, EventView, EventYou, Paired};
use protocol::records::{FinishedGame, RatingUpdate, UserId};
use tokio::sync::{mpsc, oneshot};

use crate::event::{
    Arena, ArenaError, Effect, EventGame, EventSettings, GameNo, Phase, Player, Presence,
    SavedArena,
};
use crate::persistence::{StoreError, StoreFuture};
use crate::refusal::Refusal;

/// The wall clock in Unix milliseconds, as the event's times are kept.
pub type WallClock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// A pairing whose room the host makes: the event's game and clock, `x` and `o` seated with
/// those marks, started without ready/start, both players' connections moved in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pairing {
    pub no: GameNo,
    pub x: Player,
    pub o: Player,
    pub settings: EventSettings,
}

/// The room of a pairing, or why it could not be made (a player took a seat elsewhere).
pub type RoomFuture = Pin<Box<dyn Future<Output = Result<RoomId, Refusal>> + Send>>;

/// What the event task needs from the server.
pub trait EventHost: Send + Sync + 'static {
    /// Saves the arena durably, replacing the event's earlier save.
    fn save(&self, event: &EventId, saved: SavedArena) -> StoreFuture<()>;
    /// Stores a finished game of the event and its points in one transaction (EV4); the
    /// rating updates, as [`crate::Persistence::commit_game`] answers them.
    fn store_game(
        &self,
        event: &EventId,
        game: &FinishedGame,
        record: &EventGame,
    ) -> StoreFuture<Vec<RatingUpdate>>;
    /// Makes the room of `pairing` (see [`Pairing`]); its id.
    fn open_game(&self, event: &EventId, pairing: Pairing) -> RoomFuture;
    /// Where `user` is now: connected and free, offline, or seated in a room outside the
    /// event. Asked about players not in a game of the event; cheap (no I/O).
    fn presence(&self, _user: UserId) -> Presence {
        Presence::Online
    }
    /// Whether room `room` (a game of the event in progress) is open on the server.
    fn room_exists(&self, _room: &RoomId) -> bool {
        true
    }
}

/// How the server's sessions and rooms find events: the live events' tasks, and the events
/// that are over as stored.
pub trait EventBook: Send + Sync + 'static {
    /// The task of event `event`, while it is announced, running or ending (or finished
    /// since the server started).
    fn live(&self, event: &str) -> Option<ArenaHandle>;
    /// Event `event` as stored, for a guest, when it has no task (finished or cancelled
    /// before the server started). Blocks on a read.
    fn stored_view_blocking(&self, event: &str) -> Result<Option<EventView>, StoreError>;
}

/// How often the task asks the host where its players are.
pub const PRESENCE_EVERY: Duration = Duration::from_secs(1);

/// What a watcher of the event is sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventOut {
    Update(EventUpdate),
    /// To the paired player's watchers only.
    Paired(Paired),
}

/// Who watches: a connection id, unique while it watches.
pub type WatcherId = u64;

type Reply<T> = oneshot::Sender<T>;

enum ToArena {
    Join(Player, Reply<Result<EventView, ArenaError>>),
    Pause(UserId, Reply<Result<EventView, ArenaError>>),
    Resume(UserId, Reply<Result<EventView, ArenaError>>),
    Leave(UserId, Reply<Result<EventView, ArenaError>>),
    Presence(UserId, Presence),
    Watch {
        watcher: WatcherId,
        reader: Option<UserId>,
        out: mpsc::Sender<EventOut>,
        reply: Reply<EventView>,
    },
    Unwatch(WatcherId),
    View(Option<UserId>, Reply<EventView>),
    GameOver {
        no: GameNo,
        game: Box<FinishedGame>,
        reply: Reply<Result<Vec<RatingUpdate>, StoreError>>,
    },
    Cancel(Reply<Result<(), ArenaError>>),
}

/// The address of an event's task.
#[derive(Clone)]
pub struct ArenaHandle {
    event: EventId,
    game: Game,
    tx: mpsc::Sender<ToArena>,
}

impl std::fmt::Debug for ArenaHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArenaHandle")
            .field("event", &self.event)
            .finish_non_exhaustive()
    }
}

/// Messages waiting for the task at most; senders wait beyond.
const QUEUE: usize = 256;

impl ArenaHandle {
    pub fn event(&self) -> &EventId {
        &self.event
    }

    /// The event's game: the ladder whose rating a joining player brings.
    pub fn game(&self) -> Game {
        self.game
    }

    async fn ask<T>(&self, msg: impl FnOnce(Reply<T>) -> ToArena) -> Option<T> {
        let (reply, answer) = oneshot::channel();
        self.tx.send(msg(reply)).await.ok()?;
        answer.await.ok()
    }

    /// EV2: joins; the event as the player now sees it. `None`: the task has ended.
    pub async fn join(&self, player: Player) -> Option<Result<EventView, ArenaError>> {
        self.ask(|r| ToArena::Join(player, r)).await
    }

    pub async fn pause(&self, user: UserId) -> Option<Result<EventView, ArenaError>> {
        self.ask(|r| ToArena::Pause(user, r)).await
    }

    pub async fn resume(&self, user: UserId) -> Option<Result<EventView, ArenaError>> {
        self.ask(|r| ToArena::Resume(user, r)).await
    }

    pub async fn leave(&self, user: UserId) -> Option<Result<EventView, ArenaError>> {
        self.ask(|r| ToArena::Leave(user, r)).await
    }

    /// The player's connections or seat changed (the hub's presence); ignored for players
    /// not in the event.
    pub async fn presence(&self, user: UserId, presence: Presence) {
        // An ended task has no players to update.
        let _ended = self.tx.send(ToArena::Presence(user, presence)).await;
    }

    /// Starts sending the event's changes to `out`; the snapshot now.
    pub async fn watch(
        &self,
        watcher: WatcherId,
        reader: Option<UserId>,
        out: mpsc::Sender<EventOut>,
    ) -> Option<EventView> {
        self.ask(|reply| ToArena::Watch {
            watcher,
            reader,
            out,
            reply,
        })
        .await
    }

    pub async fn unwatch(&self, watcher: WatcherId) {
        // An ended task has no watchers.
        let _ended = self.tx.send(ToArena::Unwatch(watcher)).await;
    }

    /// The snapshot for `reader`.
    pub async fn view(&self, reader: Option<UserId>) -> Option<EventView> {
        self.ask(|r| ToArena::View(reader, r)).await
    }

    /// Game `no` of the event ended as `game` says: stored with its points, then counted. A
    /// store error leaves it uncounted; send the same game again to retry.
    pub async fn game_over(
        &self,
        no: GameNo,
        game: FinishedGame,
    ) -> Result<Vec<RatingUpdate>, StoreError> {
        self.ask(|reply| ToArena::GameOver {
            no,
            game: Box::new(game),
            reply,
        })
        .await
        .unwrap_or(Err(StoreError::Stopped))
    }

    /// EV1: cancels the event while it is announced.
    pub async fn cancel(&self) -> Option<Result<(), ArenaError>> {
        self.ask(ToArena::Cancel).await
    }
}

/// Starts the task of event `event` owning `arena` (new, or [`Arena::restore`]d). It ticks at
/// once: an event whose start or end passed meanwhile moves on.
pub fn spawn(
    event: EventId,
    arena: Arena,
    host: Arc<dyn EventHost>,
    clock: WallClock,
) -> (ArenaHandle, tokio::task::JoinHandle<Arena>) {
    let (tx, rx) = mpsc::channel(QUEUE);
    let game = arena.settings().game;
    let task = ArenaTask {
        event: event.clone(),
        arena,
        host,
        clock,
        watchers: BTreeMap::new(),
    };
    let join = tokio::spawn(task.run(rx));
    (ArenaHandle { event, game, tx }, join)
}

struct Watcher {
    reader: Option<UserId>,
    out: mpsc::Sender<EventOut>,
    /// The reader's own state as they were last told it.
    told: Option<EventYou>,
}

struct ArenaTask {
    event: EventId,
    arena: Arena,
    host: Arc<dyn EventHost>,
    clock: WallClock,
    watchers: BTreeMap<WatcherId, Watcher>,
}

impl ArenaTask {
    fn now(&self) -> u64 {
        (self.clock)()
    }

    /// Until every handle is dropped: the next message, or the next deadline's tick. Returns
    /// the arena, for a caller that wants its final state.
    async fn run(mut self, mut rx: mpsc::Receiver<ToArena>) -> Arena {
        self.forget_lost_games().await;
        self.refresh_presence();
        let fx = self.arena.tick(self.now());
        self.apply(fx).await;
        self.save().await;
        loop {
            let polling = matches!(self.arena.phase(), Phase::Announced | Phase::Running)
                && self.arena.entries().next().is_some();
            let wake = match (self.arena.next_deadline(), polling) {
                (Some(at), true) => {
                    Some(Duration::from_millis(at.saturating_sub(self.now())).min(PRESENCE_EVERY))
                }
                (Some(at), false) => Some(Duration::from_millis(at.saturating_sub(self.now()))),
                (None, true) => Some(PRESENCE_EVERY),
                (None, false) => None,
            };
            let msg = match wake {
                Some(wait) => {
                    tokio::select! {
                        msg = rx.recv() => msg,
                        () = tokio::time::sleep(wait) => {
                            // Where everyone is, then what is due: a wave pairs only players
                            // present now.
                            self.refresh_presence();
                            let fx = self.arena.tick(self.now());
                            if fx.is_empty() {
                                self.publish(None);
                            } else {
                                self.apply(fx).await;
                                self.save().await;
                            }
                            continue;
                        }
                    }
                }
                None => rx.recv().await,
            };
            let Some(msg) = msg else {
                return self.arena;
            };
            self.handle(msg).await;
        }
    }

    async fn handle(&mut self, msg: ToArena) {
        let now = self.now();
        match msg {
            ToArena::Join(player, reply) => {
                let user = player.user;
                let done = self.arena.join(player, now);
                self.answer(user, done, reply).await;
            }
            ToArena::Pause(user, reply) => {
                let done = self.arena.pause(user, now);
                self.answer(user, done, reply).await;
            }
            ToArena::Resume(user, reply) => {
                let done = self.arena.resume(user, now);
                self.answer(user, done, reply).await;
            }
            ToArena::Leave(user, reply) => {
                let done = self.arena.leave(user, now);
                self.answer(user, done, reply).await;
            }
            // Presence is not saved: nobody is connected after a restart.
            ToArena::Presence(user, presence) => {
                self.arena.presence(user, presence, now);
                self.publish(None);
            }
            ToArena::Watch {
                watcher,
                reader,
                out,
                reply,
            } => {
                let view = self.arena.view(&self.event, reader, now);
                self.watchers.insert(
                    watcher,
                    Watcher {
                        reader,
                        out,
                        told: view.you.clone(),
                    },
                );
                // A watcher gone before its answer is dropped at the next send.
                let _gone = reply.send(view);
            }
            ToArena::Unwatch(watcher) => {
                self.watchers.remove(&watcher);
            }
            ToArena::View(reader, reply) => {
                // The asker may have gone; nothing changed.
                let _gone = reply.send(self.arena.view(&self.event, reader, now));
            }
            ToArena::GameOver { no, game, reply } => {
                let stored = self.game_over(no, &game).await;
                // The room retries on an error whether or not it hears the answer.
                let _gone = reply.send(stored);
            }
            ToArena::Cancel(reply) => {
                let done = self.arena.cancel();
                let answer = match done {
                    Ok(fx) => {
                        self.apply(fx).await;
                        self.save().await;
                        Ok(())
                    }
                    Err(e) => Err(e),
                };
                // The owner's request may have gone; the event is cancelled all the same.
                let _gone = reply.send(answer);
            }
        }
    }

    /// Carries out an intent's effects, saves, and answers with the player's view.
    async fn answer(
        &mut self,
        user: UserId,
        done: Result<Vec<Effect>, ArenaError>,
        reply: Reply<Result<EventView, ArenaError>>,
    ) {
        let answer = match done {
            Ok(fx) => {
                self.apply(fx).await;
                self.save().await;
                // The player's other watchers (another phone) hear of their new state too.
                self.publish(None);
                Ok(self.arena.view(&self.event, Some(user), self.now()))
            }
            Err(e) => Err(e),
        };
        // The session may have closed meanwhile; the intent took effect all the same.
        let _gone = reply.send(answer);
    }

    /// Stores game `no`'s record with its result, then counts it.
    async fn game_over(
        &mut self,
        no: GameNo,
        game: &FinishedGame,
    ) -> Result<Vec<RatingUpdate>, StoreError> {
        let record = self
            .arena
            .result(no, game.id.clone(), game.end, game.ended_at_ms)
            .map_err(|e| StoreError::Refused(format!("event game {no}: {e}")))?;
        let updates = self
            .host
            .store_game(&self.event, game, &record)
            .await
            .inspect_err(|e| tracing::warn!(event = %self.event, no, error = %e, "event game not stored yet"))?;
        for update in &updates {
            self.arena.set_rating(update.user, update.after);
        }
        match self.arena.record(record, self.now()) {
            Ok(fx) => {
                self.apply(fx).await;
                self.save().await;
            }
            // Stored but not the arena's: cannot happen while this task is the only caller.
            Err(e) => {
                tracing::error!(event = %self.event, no, error = %e, "stored event game not counted")
            }
        }
        Ok(updates)
    }

    /// Carries out effects: updates to watchers, and each pairing's room (saved first).
    async fn apply(&mut self, fx: Vec<Effect>) {
        let mut queue = fx;
        while !queue.is_empty() {
            let now = self.now();
            if let Some(update) = self.arena.update(&self.event, &queue, now) {
                self.publish(Some(update));
            }
            let pairings: Vec<(GameNo, UserId, UserId)> = queue
                .iter()
                .filter_map(|e| match e {
                    Effect::Paired { game, x, o, .. } => Some((*game, *x, *o)),
                    _ => None,
                })
                .collect();
            queue = Vec::new();
            if pairings.is_empty() {
                break;
            }
            // After a crash from here on, the games are the event's (saved/restore docs).
            self.save().await;
            let mut seated = false;
            for (no, x, o) in pairings {
                let (Some(xp), Some(op)) = (self.player(x), self.player(o)) else {
                    continue;
                };
                let names = (xp.name.clone(), op.name.clone());
                let pairing = Pairing {
                    no,
                    x: xp,
                    o: op,
                    settings: self.arena.settings().clone(),
                };
                match self.host.open_game(&self.event, pairing).await {
                    Ok(room) => {
                        if self.arena.seated(no, room.clone()).is_ok() {
                            seated = true;
                            for (user, mark, opponent, opponent_name) in
                                [(x, Mark::X, o, &names.1), (o, Mark::O, x, &names.0)]
                            {
                                self.tell(
                                    user,
                                    &EventOut::Paired(Paired {
                                        event: self.event.clone(),
                                        room: room.clone(),
                                        mark,
                                        opponent,
                                        opponent_name: opponent_name.clone(),
                                    }),
                                );
                            }
                        }
                    }
                    Err(refusal) => {
                        tracing::info!(event = %self.event, no, reason = %refusal.message, "pairing aborted");
                        if let Ok(fx) = self.arena.abort(no, self.now()) {
                            queue.extend(fx);
                        }
                    }
                }
            }
            if seated {
                // The games to watch changed (EV6).
                let view = self.arena.view(&self.event, None, self.now());
                self.publish(Some(EventUpdate {
                    event: self.event.clone(),
                    phase: view.phase,
                    ends_in_ms: view.ends_in_ms,
                    players: view.players,
                    standings: None,
                    boards: Some(view.boards),
                    podium: None,
                    you: None,
                }));
            }
        }
    }

    fn player(&self, user: UserId) -> Option<Player> {
        self.arena.entry(user).map(|e| e.player.clone())
    }

    async fn save(&mut self) {
        if let Err(e) = self.host.save(&self.event, self.arena.saved()).await {
            // The next change saves it all again; a restart before then loses at most the
            // intents since the last save (P3's bound for open rooms).
            tracing::warn!(event = %self.event, error = %e, "event not saved");
        }
    }

    /// Sends `update` to every watcher, with `you` to a watcher whose own state changed since
    /// it was last told; with no update, only those. A watcher that cannot keep up is dropped
    /// (its session watches again to get a fresh snapshot).
    fn publish(&mut self, update: Option<EventUpdate>) {
        let now = self.now();
        let arena = &self.arena;
        let event = &self.event;
        let mut bare: Option<EventUpdate> = None;
        self.watchers.retain(|_, w| {
            let you = w.reader.and_then(|u| arena.you(u));
            let out = if you == w.told {
                match &update {
                    Some(update) => update.clone(),
                    None => return true,
                }
            } else {
                let base = update.clone().unwrap_or_else(|| {
                    bare.get_or_insert_with(|| arena.bare_update(event, now))
                        .clone()
                });
                w.told.clone_from(&you);
                EventUpdate { you, ..base }
            };
            w.out.try_send(EventOut::Update(out)).is_ok()
        });
    }

    /// Asks the host where every player not in a game of the event is, and tells the arena
    /// what changed (EV2).
    fn refresh_presence(&mut self) {
        let now = self.now();
        let changed: Vec<(UserId, Presence)> = self
            .arena
            .entries()
            .filter(|e| e.in_game.is_none() && e.status != crate::event::Status::Left)
            .filter_map(|e| {
                let now = self.host.presence(e.player.user);
                (now != e.presence).then_some((e.player.user, now))
            })
            .collect();
        for (user, presence) in changed {
            self.arena.presence(user, presence, now);
        }
    }

    /// Gives up the games in progress whose rooms are not open (a restart lost them before
    /// their first save, or before their room was made): as if never paired.
    async fn forget_lost_games(&mut self) {
        let lost: Vec<GameNo> = self
            .arena
            .open_games()
            .filter(|g| g.room.as_ref().is_none_or(|r| !self.host.room_exists(r)))
            .map(|g| g.no)
            .collect();
        for no in lost {
            tracing::warn!(event = %self.event, no, "event game lost in a restart; its players wait again");
            if let Ok(fx) = self.arena.abort(no, self.now()) {
                self.apply(fx).await;
            }
        }
    }

    /// Sends `out` to `user`'s watchers.
    fn tell(&mut self, user: UserId, out: &EventOut) {
        self.watchers
            .retain(|_, w| w.reader != Some(user) || w.out.try_send(out.clone()).is_ok());
    }
}

/// Whether an event in `phase` still needs its task (announced, running or ending).
pub fn is_live(phase: Phase) -> bool {
    matches!(phase, Phase::Announced | Phase::Running | Phase::Ending)
}

#[cfg(test)]
#[path = "arena_actor_tests.rs"]
mod tests;
