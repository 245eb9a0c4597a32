//! The room actor: one tokio task owns one [`Room`], its clock and its bot (STYLE 6). It
//! receives [`RoomMsg`]s on a channel, runs them through the pure state machine, and carries
//! out the resulting effects: snapshots and events to connections, lobby updates, messages to
//! other rooms, its state to its saver and a finished game to `results`. It never waits on
//! the card: the store's answer about a result comes back as a message
//! ([`RoomMsg::Stored`]), and the room serves everyone meanwhile.

use std::collections::{HashMap, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt as _;
use protocol::records::{FinishedGame, UserId};
use protocol::{
    CloseReason, EncodedSeats, Event, Phase, RequestId, RoomId, RoomSummary, SeatView, ServerMsg,
};
use rand::SeedableRng;
use rand::rngs::StdRng;
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::handle::{IntentMsg, Outbox, RoomHandle, RoomMsg, SharedMsg, SharedRoom, ToSession};
use crate::persistence::Persistence;
use crate::refusal::{Reason, Refusal};
use crate::results::{self, Answer, Stored};
use crate::room::{Audience, Bans, ConnId, Ctx, Effect, Intent, Member, PlayerKey, Room};
use crate::seats::SeatBook;
use crate::shared::{Shared, wall_ms};

/// Starts the task for `room`, carrying out `initial` effects first (the bot's opening move,
/// the first clock, loading ratings), and registers it in the lobby. `restored`: the room
/// was read from the store (a new room is not there until its saver writes it).
pub(crate) fn spawn(
    mut room: Room,
    initial: Vec<Effect>,
    shared: Arc<Shared>,
    restored: bool,
) -> RoomHandle {
    room.set_passcode_limits(shared.config.passcode_limits());
    let (handle, rx) = RoomHandle::new(room.id().to_owned());
    let listed = room.summary();
    shared.lobby.insert(
        handle.clone(),
        listed.clone(),
        room.host().clone(),
        !restored,
    );
    let id = handle.id.clone();
    // A room that panicked (a bug) must not linger in the lobby or hold its players' seats;
    // its saved state stays for the next start. Caught in the room's own task rather than by
    // a second task awaiting it: one task fewer per game. A combinator, not an
    // `async` block awaiting the room's future: that would hold the future (4 KB) twice, as
    // the block's captured value and as the value it awaits.
    let me = handle.weak();
    let task = {
        let shared = shared.clone();
        tokio::spawn(
            AssertUnwindSafe(run(room, listed, initial, rx, me, shared.clone(), restored))
                .catch_unwind()
                .map(move |ran| {
                    if ran.is_err() {
                        tracing::error!(room = %id, "room task failed: it panicked");
                        shared.lobby.remove(&id);
                        shared.seats.clone().release_room(&id);
                    }
                }),
        )
    };
    shared.track(task);
    handle
}

/// What to store, latest first: the saver writes only the newest state.
#[derive(Clone)]
enum SaveOp {
    Idle,
    Save(Arc<Vec<u8>>),
    Delete,
}

/// How long a room waits after a change before its state is written, so that the moves of a
/// quick exchange (and a game that starts and ends within it) share one write. The store's
/// durability deadline (`DURABLE_WITHIN`) is this much shorter than a second, so that a power
/// cut loses at most the last second of an open game.
pub const SAVE_COALESCE: Duration = Duration::from_millis(50);

/// A room's writer of its saved state: one at a time, in order, the newest state only (what
/// changed while a write was under way is written next, once); the store's writer answers each
/// when its commit is done. `stored`: the store may hold the room already (it was restored
/// from there). The room starts it at its first write ([`Actor::store_state`]), so a game that
/// starts and ends within [`SAVE_COALESCE`] has none.
fn spawn_saver(
    store: Arc<dyn Persistence>,
    id: RoomId,
    mut stored: bool,
) -> (watch::Sender<SaveOp>, JoinHandle<()>) {
    let (tx, mut rx) = watch::channel(SaveOp::Idle);
    let task = tokio::spawn(async move {
        // `changed` still reports a value sent just before the sender was dropped, so the
        // last state is written before the loop ends.
        while rx.changed().await.is_ok() {
            let op = rx.borrow_and_update().clone();
            let result = match op {
                SaveOp::Idle => Ok(()),
                SaveOp::Save(bytes) => {
                    // Even a failed write may have reached the file: delete it later.
                    stored = true;
                    store.save_room(&id, bytes.to_vec()).await
                }
                // A room that finished or closed before its first save (a quick game) was
                // never written: nothing to delete.
                SaveOp::Delete if !stored => Ok(()),
                SaveOp::Delete => {
                    let deleted = store.delete_room(&id).await;
                    stored = deleted.is_err();
                    deleted
                }
            };
            if let Err(e) = result {
                tracing::error!(room = %id, error = %e, "saving room failed");
            }
        }
    });
    (tx, task)
}

struct Actor {
    room: Room,
    shared: Arc<Shared>,
    rng: StdRng,
    outboxes: HashMap<ConnId, (PlayerKey, Outbox)>,
    /// The room's saver, started at its first write.
    saver: Option<(watch::Sender<SaveOp>, JoinHandle<()>)>,
    /// The store may hold this room (it was restored from there): a delete must reach it.
    restored: bool,
    /// When the room's state, changed since it was last written, is to be written
    /// ([`SAVE_COALESCE`] after the first change): serialised then, once, not at every move.
    save_due: Option<Instant>,
    closed: bool,
    /// The result whose store's answer the room waits for (`results`).
    result: Option<Awaited>,
    /// Intents that would change or replace the finished game, held while its result's
    /// first answer is awaited, and served in order once it came (see [`Actor::defers`]).
    deferred: VecDeque<Box<IntentMsg>>,
    /// This room's address, for the answers of its results (it does not keep the queue open).
    me: mpsc::WeakSender<RoomMsg>,
    /// What the change that ended the game holds back until its result's first answer.
    held: Held,
    /// The summary and bans the lobby holds for this room (only this actor changes them): a
    /// snapshot that leaves them as they were (every move) does not take the lobby's lock.
    listed: (RoomSummary, Bans),
    /// Whether the lobby was last told that someone views the room.
    listed_viewed: bool,
    /// Someone has viewed the room. A new room counts as viewed until then: its creator's
    /// `open` follows the creation, and the room limit must not close it in between.
    welcomed: bool,
    /// The seats of the last snapshot, with their encodings, reused while they stay the same.
    seats: Option<Arc<EncodedSeats>>,
}

/// What the change that ended a game holds back until its result's first answer: its events
/// for everyone (its move) and its snapshot. They go out together with the result, one write
/// to each reader; nothing about a result is sent before it is stored (P3).
#[derive(Default)]
struct Held {
    events: Vec<ServerMsg>,
    /// `Some` while the snapshot is held, with the connection and request id it answers.
    snapshot: Option<Sender>,
}

/// The connection whose intent caused a change, with its request id: its snapshot echoes it.
type Sender = Option<(ConnId, Option<RequestId>)>;

/// A finished game whose result is being stored.
struct Awaited {
    /// The game's id: an answer about another game (one undone since) is not this one's.
    game: String,
    /// The store could not take it yet: shown as pending, retried by `results`.
    pending: bool,
}

/// Most intents held while a result's first answer is awaited; more are served at once (a
/// stale answer is recognised by its game's id whatever happens meanwhile).
const DEFERRED_MAX: usize = 32;

async fn run(
    room: Room,
    listed: RoomSummary,
    initial: Vec<Effect>,
    mut rx: mpsc::Receiver<RoomMsg>,
    me: mpsc::WeakSender<RoomMsg>,
    shared: Arc<Shared>,
    restored: bool,
) {
    let mut actor = Actor {
        room,
        shared,
        rng: StdRng::from_rng(&mut rand::rng()),
        outboxes: HashMap::new(),
        saver: None,
        restored,
        save_due: None,
        closed: false,
        result: None,
        deferred: VecDeque::new(),
        me,
        held: Held::default(),
        // What `Lobby::insert` stored.
        listed: (listed, Bans::default()),
        listed_viewed: !restored,
        welcomed: restored,
        seats: None,
    };
    actor.carry_out(initial, None).await;
    let mut empty_since = Instant::now();
    let mut shutdown_done = None;
    // One timer for the move clock, the idle close and the save,
    // set to the earliest of them. A deadline that moved later (every move moves the clock's)
    // leaves it as it is: it fires early, finds nothing due and is set again. So a move costs
    // no timer made, registered and cancelled; it never fires late.
    let alarm = tokio::time::sleep_until(Instant::now());
    tokio::pin!(alarm);
    let mut armed: Option<Instant> = None;
    while !actor.closed {
        // The room limit closes the oldest rooms nobody views: the lobby keeps them apart.
        actor.welcomed |= !actor.room.is_empty();
        let viewed = !actor.room.is_empty() || !actor.welcomed;
        if viewed != actor.listed_viewed {
            actor.shared.lobby.set_viewed(actor.room.id(), viewed);
            actor.listed_viewed = viewed;
        }
        let clock = actor
            .room
            .deadline_ms()
            .map(|ms| actor.shared.instant_at(ms));
        // A room nobody views closes after a while, except an online game in progress, which
        // its clock finishes (M3.10: clocks keep running while players are away). A bot or
        // local game nobody views is abandoned: it ends sooner.
        let online = actor.room.settings().is_online();
        let after = if online {
            actor.shared.config.idle_room_close
        } else {
            actor.shared.config.unviewed_game_close
        };
        let idle = (actor.room.is_empty() && !(online && actor.room.phase() == Phase::Playing))
            .then(|| empty_since + after);
        let save = actor.save_due;
        let next = [clock, idle, save].into_iter().flatten().min();
        if let Some(next) = next
            && armed.is_none_or(|at| next < at)
        {
            alarm.as_mut().reset(next);
            armed = Some(next);
        }
        tokio::select! {
            msg = rx.recv() => {
                let Some(msg) = msg else { break };
                let was_viewed = !actor.room.is_empty();
                match msg {
                    RoomMsg::Intent(msg) => actor.take_intent(msg).await,
                    RoomMsg::Stored(stored) => actor.stored(*stored).await,
                    RoomMsg::Disconnect { conn } => {
                        actor.outboxes.remove(&conn);
                        let fx = actor.room.disconnect(conn);
                        actor.carry_out(fx, None).await;
                    }
                    RoomMsg::Vacate(vacate) => {
                        let (user, to) = *vacate;
                        let mut seats = actor.shared.seats.clone();
                        let fx = actor.room.vacate(user, &to, &mut seats);
                        actor.carry_out(fx, None).await;
                    }
                    RoomMsg::Shutdown { done } => {
                        shutdown_done = Some(done);
                        break;
                    }
                    RoomMsg::Close(reason) => {
                        actor.carry_out(vec![Effect::Close(*reason)], None).await;
                    }
                    RoomMsg::CloseIfIdle => {
                        let online_open = actor.room.settings().is_online()
                            && actor.room.phase() != Phase::Finished;
                        if actor.room.is_empty() && !online_open {
                            actor.carry_out(vec![Effect::Close(CloseReason::Idle)], None).await;
                        }
                    }
                }
                // The idle countdown starts when the last viewer leaves.
                if was_viewed || !actor.room.is_empty() {
                    empty_since = Instant::now();
                }
            }
            () = &mut alarm, if armed.is_some() => {
                armed = None;
                let now = Instant::now();
                let due = |at: Option<Instant>| at.is_some_and(|at| at <= now);
                if due(save) {
                    actor.save_now();
                }
                // One at a time: the next turn of the loop sets the timer again, at once for
                // another that is due.
                if due(clock) {
                    let now_ms = actor.shared.now_ms();
                    let mut seats = actor.shared.seats.clone();
                    let fx = actor.room.tick(&mut Ctx {
                        now_ms,
                        wall_ms: wall_ms(),
                        rng: &mut actor.rng,
                        seats: &mut seats,
                        rated: &*actor.shared,
                    });
                    actor.carry_out(fx, None).await;
                } else if due(idle) {
                    actor.carry_out(vec![Effect::Close(CloseReason::Idle)], None).await;
                }
            }
        }
    }
    if shutdown_done.is_some() && !actor.closed {
        // Shutting down: the room stays saved to be restored; tell its viewers.
        let id = actor.room.id().to_owned();
        actor.broadcast(ServerMsg::Event(Event::RoomClosed {
            room: id,
            reason: CloseReason::Shutdown,
        }));
    }
    // No intent is dropped unanswered: new sends now fail (the session answers `room_closed`),
    // and what is already queued is answered here.
    rx.close();
    let deferred = std::mem::take(&mut actor.deferred)
        .into_iter()
        .map(RoomMsg::Intent);
    let queued = std::iter::from_fn(|| rx.try_recv().ok());
    for msg in deferred.chain(queued) {
        match msg {
            RoomMsg::Intent(msg) => {
                let IntentMsg { id, outbox, .. } = *msg;
                let why = if actor.closed {
                    Reason::RoomClosed
                } else {
                    Reason::ShuttingDown
                };
                deliver(&outbox, refused(id, why));
            }
            RoomMsg::Shutdown { done } => {
                // Closed rooms are deleted, not saved; the hub only waits.
                done.send(()).ok();
            }
            // A result's answer after the room stopped: `results` has stored it (or keeps
            // trying), and nobody is left to tell.
            RoomMsg::Disconnect { .. }
            | RoomMsg::Vacate(_)
            | RoomMsg::CloseIfIdle
            | RoomMsg::Close(_)
            | RoomMsg::Stored(_) => {}
        }
    }
    if actor.save_due.is_some() {
        // A change not yet written (stopping, the room stays saved to be restored).
        actor.save_now();
    }
    // Dropping the sender lets the saver write its last state and stop.
    if let Some((saver, saver_task)) = actor.saver.take() {
        drop(saver);
        if let Err(e) = saver_task.await {
            tracing::error!(error = %e, "room saver failed");
        }
    }
    if let Some(done) = shutdown_done {
        // The hub may have stopped waiting; nothing to do then.
        done.send(()).ok();
    }
}

impl Actor {
    /// Serves an intent, or holds it while the finished game's result is first being stored
    /// ([`Actor::defers`]).
    async fn take_intent(&mut self, msg: Box<IntentMsg>) {
        if self.defers(&msg) {
            self.deferred.push_back(msg);
            return;
        }
        let IntentMsg {
            member,
            intent,
            id,
            outbox,
            accepted,
        } = *msg;
        let conn = member.conn;
        self.intent(member, intent, id, outbox).await;
        if let Some(accepted) = accepted {
            let viewing = !self.closed && self.outboxes.contains_key(&conn);
            // The session may have gone meanwhile; then nobody asks.
            accepted.send(viewing).ok();
        }
    }

    /// Whether `msg` waits for the result's first answer. The room serves everyone while its
    /// result is stored (views, joins, spectators, its players' presence); only what would
    /// change or replace the finished game (an undo, play again, a rematch) waits, so that its
    /// players see the result before what follows it, as they would if the card were
    /// instant. A later intent of a connection with one waiting waits too, to keep its order.
    /// Once the result is pending (the card fails), nothing waits any more.
    fn defers(&self, msg: &IntentMsg) -> bool {
        let awaiting = self.result.as_ref().is_some_and(|r| !r.pending);
        let replaces = matches!(
            msg.intent,
            Intent::Undo | Intent::PlayAgain | Intent::OfferRematch | Intent::AnswerRematch { .. }
        );
        let behind = self
            .deferred
            .iter()
            .any(|d| d.member.conn == msg.member.conn);
        awaiting && (replaces || behind) && self.deferred.len() < DEFERRED_MAX
    }

    /// The store's answer about a result (`results`): announced with its rating changes,
    /// shown as pending, or announced without them when refused. Then the intents held for
    /// it are served.
    async fn stored(&mut self, stored: Stored) {
        let Some(awaited) = self.result.as_mut().filter(|r| r.game == stored.game) else {
            // A game undone meanwhile: its record is stored, but the room shows another.
            tracing::debug!(room = %self.room.id(), game = %stored.game, "answer for a game the room no longer shows");
            return;
        };
        let mut fx = match stored.answer {
            Answer::Pending => {
                awaited.pending = true;
                self.room.commit_pending()
            }
            Answer::Committed(updates) => {
                self.result = None;
                self.room.committed(updates)
            }
            Answer::Refused => {
                self.result = None;
                self.storage_error();
                self.room.commit_failed()
            }
        };
        // The held events and snapshot go out now, whatever the answer changed: the events
        // first, then the result's, then the snapshot.
        self.release_held_events();
        let held = self.held.snapshot.take();
        if held.is_some() {
            fx.push(Effect::Changed);
        }
        self.carry_out(fx, held.flatten()).await;
        while !self.closed && self.result.as_ref().is_none_or(|r| r.pending) {
            let Some(msg) = self.deferred.pop_front() else {
                break;
            };
            self.take_intent(msg).await;
        }
    }

    /// Sends the events a game's end held, in order (see [`Held`]).
    fn release_held_events(&mut self) {
        for msg in std::mem::take(&mut self.held.events) {
            self.broadcast(msg);
        }
    }

    /// Hands a finished game to `results`; its answer comes back as [`RoomMsg::Stored`].
    /// Nothing about the result is sent before (P3).
    fn commit(&mut self, game: FinishedGame) {
        // A result still awaited (of a game undone since) is stored all the same; only the
        // newest game's answer is for the room.
        self.result = Some(Awaited {
            game: game.id.clone(),
            pending: false,
        });
        let stopping = self.shared.stopping.subscribe();
        let task = match self.room.event().cloned() {
            // EV4: an event's game is stored by the event's task, with its points.
            Some(tag) => {
                let shared = self.shared.clone();
                let commit = move |game: &FinishedGame| -> crate::persistence::StoreFuture<_> {
                    let (shared, tag, game) = (shared.clone(), tag.clone(), game.clone());
                    Box::pin(async move { commit_event_game(&shared, &tag, game).await })
                };
                results::store_by(commit, game, self.me.clone(), stopping)
            }
            None => results::store(self.shared.store.clone(), game, self.me.clone(), stopping),
        };
        self.shared.track(task);
    }

    async fn intent(
        &mut self,
        member: Arc<Member>,
        intent: Intent,
        id: Option<RequestId>,
        outbox: Outbox,
    ) {
        let now_ms = self.shared.now_ms();
        let mut seats = self.shared.seats.clone();
        let result = self.room.apply(
            &member,
            intent,
            &mut Ctx {
                now_ms,
                wall_ms: wall_ms(),
                rng: &mut self.rng,
                seats: &mut seats,
                rated: &*self.shared,
            },
        );
        match result {
            Ok(fx) => {
                // A connection's outbox never changes: kept from its first accepted intent.
                if !self.outboxes.contains_key(&member.conn)
                    && self.room.viewers().any(|(c, _)| c == member.conn)
                {
                    self.outboxes
                        .insert(member.conn, (member.key.clone(), outbox.clone()));
                }
                // The next game's room answers the intent that started it (its snapshot echoes
                // the id, M3.12); a refused next game answers with the error.
                let acked = fx.iter().any(|e| {
                    matches!(e, Effect::Changed | Effect::Hint { .. } | Effect::NextGame)
                        || matches!(e, Effect::Detach { conn } if *conn == member.conn)
                });
                self.carry_out(fx, Some((member.conn, id))).await;
                if !acked {
                    // Every accepted intent is answered; this one changed nothing visible.
                    let view = self.room.view_for(&member.key, now_ms);
                    deliver(
                        &outbox,
                        ServerMsg::Room {
                            id,
                            room: Box::new(view),
                        },
                    );
                }
            }
            Err(refusal) => {
                // A run of these is someone guessing (M3.3).
                match refusal.reason() {
                    Reason::PasscodeLockedOut { .. } => {
                        tracing::warn!(room = %self.room.id(), user = ?member.user(), "passcode refused: too many wrong passcodes");
                    }
                    Reason::WrongPasscode => {
                        tracing::info!(room = %self.room.id(), user = ?member.user(), "wrong passcode");
                    }
                    _ => {}
                }
                // Bad input: the sender alone is told; the room is unchanged. Refusals are
                // ordinary (a tap out of turn), so they are logged at debug level only.
                tracing::debug!(
                    room = %self.room.id(),
                    conn = member.conn,
                    code = %refusal.code,
                    "intent refused"
                );
                deliver(&outbox, refused(id, refusal));
            }
        }
    }

    /// Carries out effects in order; `sender` is the connection whose intent caused them and
    /// its request id, echoed in its snapshot.
    async fn carry_out(&mut self, effects: Vec<Effect>, sender: Sender) {
        // A change that ends a game holds its events for everyone until they can go out with
        // its result (below): each reader then gets move, result and snapshot in one write.
        let ends_game = effects.iter().any(|e| matches!(e, Effect::Commit(_)));
        if !ends_game {
            // Another change while a result is stored: the held events go first, in order
            // (the held snapshot still waits for the result).
            self.release_held_events();
        }
        let mut queue: VecDeque<Effect> = effects.into();
        let mut changed = false;
        let mut committing = false;
        let mut events = Vec::new();
        let reply_id = |conn: ConnId| sender.filter(|(c, _)| *c == conn).and_then(|(_, id)| id);
        while let Some(effect) = queue.pop_front() {
            match effect {
                Effect::Changed => changed = true,
                Effect::Event {
                    to: Audience::All,
                    event,
                } if ends_game => events.push(ServerMsg::Event(event)),
                Effect::Event {
                    to: Audience::All,
                    event,
                } => {
                    self.broadcast(ServerMsg::Event(event));
                }
                // An event for one person reaches every connection of theirs, whatever room it
                // views (a player moved to another room, M3.4, views that one).
                Effect::Event {
                    to: Audience::Person(key),
                    event,
                } => {
                    self.shared
                        .conns
                        .send_to_person(&key, &ServerMsg::Event(event));
                }
                Effect::Hint { conn, cell } => {
                    if let Some((_, outbox)) = self.outboxes.get(&conn) {
                        deliver(
                            outbox,
                            ServerMsg::Hint {
                                id: reply_id(conn),
                                cell,
                            },
                        );
                    } else if let Some((c, id)) = sender.filter(|(c, _)| *c == conn) {
                        tracing::debug!(conn = c, ?id, "hint for a connection not viewing");
                    }
                }
                Effect::Detach { conn } => {
                    if let Some((_, outbox)) = self.outboxes.remove(&conn) {
                        deliver(
                            &outbox,
                            ServerMsg::Left {
                                id: reply_id(conn),
                                room: self.room.id().to_owned(),
                            },
                        );
                    }
                }
                Effect::Commit(game) => {
                    committing = true;
                    self.commit(game);
                }
                Effect::LoadRatings(users) => {
                    let store = self.shared.store.clone();
                    let game = self.room.settings().game;
                    // From memory when the store keeps them there (no thread hand-off at
                    // every game's start); from the file on a blocking thread otherwise.
                    let result = match store.ratings_in_memory(game, &users) {
                        Some(ratings) => Ok(Ok(ratings)),
                        None => {
                            let lookup = users.clone();
                            tokio::task::spawn_blocking(move || {
                                store.ratings_blocking(game, &lookup)
                            })
                            .await
                        }
                    };
                    match result {
                        Ok(Ok(ratings)) => {
                            let pairs: Vec<(UserId, i32)> =
                                users.into_iter().zip(ratings).collect();
                            queue.extend(self.room.set_ratings(&pairs));
                        }
                        Ok(Err(e)) => tracing::warn!(error = %e, "loading ratings failed"),
                        Err(e) => tracing::warn!(error = %e, "loading ratings panicked"),
                    }
                }
                Effect::Vacate { user, from } => {
                    let to = self.room.id().to_owned();
                    match self.shared.lobby.handle(&from) {
                        Some(room) => {
                            if !room.try_send(RoomMsg::Vacate(Box::new((user, to)))) {
                                tracing::warn!(room = %from, user, "could not reopen moved player's seat");
                            }
                        }
                        None => tracing::debug!(room = %from, "moved player's old room is gone"),
                    }
                }
                Effect::NextGame => {
                    if self.next_game(sender) {
                        queue.push_front(Effect::Close(CloseReason::Ended));
                    }
                }
                Effect::Close(reason) => {
                    // What a game's end held goes out before the room closes.
                    self.release_held_events();
                    for msg in std::mem::take(&mut events) {
                        self.broadcast(msg);
                    }
                    let id = self.room.id().to_owned();
                    // Out of the lobby and the seat book before anyone is told: a viewer who
                    // hears `room_closed` and asks the lobby at once never finds it there.
                    self.shared.lobby.remove(&id);
                    self.shared.seats.clone().release_room(&id);
                    for (conn, (_, outbox)) in self.outboxes.drain() {
                        deliver(
                            &outbox,
                            ServerMsg::Event(Event::RoomClosed {
                                room: id.clone(),
                                reason: reason.clone(),
                            }),
                        );
                        deliver(
                            &outbox,
                            ServerMsg::Left {
                                id: reply_id(conn),
                                room: id.clone(),
                            },
                        );
                    }
                    self.save_due = None;
                    self.store_state(SaveOp::Delete);
                    self.closed = true;
                    return;
                }
            }
        }
        let awaiting = committing && self.result.as_ref().is_some_and(|r| !r.pending);
        if awaiting {
            self.held.events.append(&mut events);
        } else {
            for msg in events {
                self.broadcast(msg);
            }
        }
        if changed {
            if awaiting {
                // The change that ended the game is shown with its result, once the store
                // answered: nothing about a result is sent before (P3), and the sender's
                // answer carries the result as it would if the card were instant.
                self.held.snapshot = Some(sender);
            } else {
                self.publish(sender);
            }
        }
    }

    /// M3.12: starts this room's next game in a new room and moves every viewer there (an event
    /// `next_room`, then the new room's snapshot); `true` when it did, so this room closes.
    fn next_game(&mut self, sender: Sender) -> bool {
        let id = self.shared.fresh_room_id(&mut self.rng);
        let mut seats = self.shared.seats.clone();
        let mut ctx = Ctx {
            now_ms: self.shared.now_ms(),
            wall_ms: wall_ms(),
            rng: &mut self.rng,
            seats: &mut seats,
            rated: &*self.shared,
        };
        let mut next = match self.room.next_game(id, &mut ctx) {
            Ok(next) => next,
            Err(refusal) => {
                // A player took a seat elsewhere since the room checked: only the sender is
                // told, and the finished room stays.
                if let Some((conn, id)) = sender
                    && let Some((_, outbox)) = self.outboxes.get(&conn)
                {
                    deliver(outbox, refused(id, refusal));
                }
                return false;
            }
        };
        let fx = next.resume(&mut ctx);
        let next_id = next.id().to_owned();
        tracing::info!(room = %self.room.id(), next = %next_id, "next game");
        let handle = spawn(next, fx, self.shared.clone(), false);
        let old = self.room.id().to_owned();
        for (conn, (_, outbox)) in self.outboxes.drain() {
            deliver(
                &outbox,
                ServerMsg::Event(Event::NextRoom {
                    room: old.clone(),
                    next: next_id.clone(),
                }),
            );
            let id = sender.filter(|(c, _)| *c == conn).and_then(|(_, id)| id);
            if outbox
                .try_send(ToSession::Follow(Box::new((handle.clone(), id))))
                .is_err()
            {
                tracing::debug!(conn, "viewer too slow to follow to the next game");
            }
        }
        true
    }

    /// Sends every viewer its snapshot, updates the lobby and saves the room. Viewers who see
    /// the room alike (spectators) share one snapshot, encoded once.
    fn publish(&mut self, sender: Sender) {
        let now_ms = self.shared.now_ms();
        let mut dead = Vec::new();
        let mut spectators: Option<Arc<SharedMsg>> = None;
        // One view for every reader when only their `you` differs (a game in progress).
        let mut shared: Option<Arc<SharedRoom>> = None;
        let one_view = self.room.views_differ_only_in_you();
        for (conn, (key, outbox)) in &self.outboxes {
            let id = sender.filter(|(c, _)| c == conn).and_then(|(_, id)| id);
            let item = if one_view {
                let room = shared.get_or_insert_with(|| {
                    // The seats of the last snapshot while they still hold (a whole game but
                    // for a player's presence), checked without making them.
                    let seats = match &self.seats {
                        Some(kept) if self.room.seats_shown_as(kept.seats()) => Arc::clone(kept),
                        _ => Arc::clone(
                            self.seats
                                .insert(Arc::new(EncodedSeats::new(self.room.seat_views()))),
                        ),
                    };
                    // The view's own seats are left empty: its encodings take `seats`.
                    let view = self.room.view_with_seats(key, now_ms, no_seats());
                    SharedRoom::new(view, seats)
                });
                ToSession::Room {
                    room: Arc::clone(room),
                    id,
                    you: self.room.you_for(key),
                }
            } else if id.is_none() && self.room.sees_spectator_view(key) {
                let shared = spectators.get_or_insert_with(|| {
                    SharedMsg::new(ServerMsg::Room {
                        id: None,
                        room: Box::new(self.room.view_for(key, now_ms)),
                    })
                });
                ToSession::Shared(Arc::clone(shared))
            } else {
                ToSession::Msg(Box::new(ServerMsg::Room {
                    id,
                    room: Box::new(self.room.view_for(key, now_ms)),
                }))
            };
            if outbox.try_send(item).is_err() {
                dead.push(*conn);
            }
        }
        for conn in dead {
            self.drop_conn(conn);
        }
        if self.room.phase() == Phase::Finished {
            // The seats no longer change with every move; a finished room may be kept for a
            // long time by nobody (the lobby's finished rooms), so it keeps no copy of them.
            self.seats = None;
        }
        if !self.room.is_listed_as(&self.listed.0) || *self.room.bans() != self.listed.1 {
            let summary = self.room.summary();
            self.shared.lobby.update(summary.clone(), self.room.bans());
            self.listed = (summary, self.room.bans().clone());
        }
        self.save_due
            .get_or_insert_with(|| Instant::now() + SAVE_COALESCE);
    }

    /// Writes the room's state as it is now (deletes it once the game has finished).
    fn save_now(&mut self) {
        self.save_due = None;
        let op = match self.room.phase() {
            // A finished game is in the games table; its room is no longer restored.
            Phase::Finished => SaveOp::Delete,
            Phase::Waiting | Phase::Playing => SaveOp::Save(Arc::new(self.room.save())),
        };
        self.store_state(op);
    }

    /// Hands `op` to the room's saver, started now if this is the room's first write. A room
    /// the store never held has nothing to delete.
    fn store_state(&mut self, op: SaveOp) {
        if self.saver.is_none() && !self.restored && matches!(op, SaveOp::Delete) {
            return;
        }
        let (saver, _) = self.saver.get_or_insert_with(|| {
            spawn_saver(
                self.shared.store.clone(),
                self.room.id().to_owned(),
                self.restored,
            )
        });
        saver.send_replace(op);
    }

    /// Sends every viewer the same message, encoded once.
    fn broadcast(&mut self, msg: ServerMsg) {
        let msg = SharedMsg::new(msg);
        let mut dead = Vec::new();
        for (conn, (_, outbox)) in &self.outboxes {
            if outbox
                .try_send(ToSession::Shared(Arc::clone(&msg)))
                .is_err()
            {
                dead.push(*conn);
            }
        }
        for conn in dead {
            self.drop_conn(conn);
        }
    }

    /// A connection whose queue is full or closed stops viewing; its session notices.
    fn drop_conn(&mut self, conn: ConnId) {
        self.outboxes.remove(&conn);
        // Presence changes with it; the next snapshot carries that.
        self.room.disconnect(conn);
    }

    fn storage_error(&mut self) {
        self.broadcast(refused(None, Reason::ResultNotStored));
    }
}

/// Stores an event's game through the event's task (EV4: with its points, in one
/// transaction). A game the event does not have (its task is gone, or it gave the game up)
/// is stored as an ordinary game, so its result is kept.
async fn commit_event_game(
    shared: &Shared,
    tag: &crate::room::EventTag,
    game: FinishedGame,
) -> Result<Vec<protocol::records::RatingUpdate>, crate::persistence::StoreError> {
    let Some(arena) = shared.events().and_then(|book| book.live(&tag.event)) else {
        tracing::warn!(event = %tag.event, no = tag.no, room = %game.id, "event gone: its game is stored without points");
        return shared.store.commit_game(&game).await;
    };
    match arena.game_over(tag.no, game.clone()).await {
        Err(crate::persistence::StoreError::Refused(why)) => {
            tracing::warn!(event = %tag.event, no = tag.no, room = %game.id, why, "not the event's game: stored without points");
            shared.store.commit_game(&game).await
        }
        answer => answer,
    }
}

/// The error message telling the sender of intent `id` (or everyone, with no id) why.
fn refused(id: Option<RequestId>, why: impl Into<Refusal>) -> ServerMsg {
    let Refusal { code, message, .. } = why.into();
    ServerMsg::error(id, code, message)
}

/// Two empty seats, for a view whose seats are not read (a [`SharedRoom`]'s).
fn no_seats() -> [SeatView; 2] {
    std::array::from_fn(|_| SeatView {
        player: None,
        mark: None,
        ready: false,
        present: false,
    })
}

/// Queues a message for a connection; `false` when the connection is gone or too slow.
fn deliver(outbox: &Outbox, msg: ServerMsg) -> bool {
    outbox.try_send(ToSession::Msg(Box::new(msg))).is_ok()
}
