//! The room: one game's whole server-side life as a pure state machine (SPEC M1–M4, E2–E4).
//!
//! [`Room::apply`] takes one intent from one member, checks it completely *before* changing
//! anything, and either refuses it (the room unchanged; only the sender is told) or changes the
//! room and returns [`Effect`]s for the actor to carry out: snapshots, events, storage. Time,
//! randomness and the cross-room seat book come in through [`Ctx`]; there is no I/O here, so
//! every rule is unit-tested below and the whole machine can be fuzzed.

use std::collections::{BTreeMap, BTreeSet};

use engine::elo::{self, Score};
use engine::{Cell, Game, GameRecord, IllegalMove, Mark, Position};
use protocol::records::{FinishedGame, GameEnd, PlayerRef, RatingUpdate, UserId};
use protocol::view::ResultView;
use protocol::{
    ClockView, CloseReason, EloPreview, ErrorCode, Event, JoinRequestView, Joining, Phase,
    PlayerView, RoomId, RoomKind, RoomSummary, RoomView, SeatView, YouView,
};
use rand::seq::IndexedRandom;
use rand::{Rng, RngExt};
use serde::{Deserialize, Serialize};

use crate::persistence::Identity;
use crate::seats::SeatBook;
use crate::settings::{Opponent, Policy, Settings};

/// A connection's id, unique for the hub's lifetime.
pub type ConnId = u64;

/// Who a person is across connections: a registered player, or a guest by their cookie id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum PlayerKey {
    User(UserId),
    Guest(String),
}

/// The sender of an intent: one connection of one person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    pub conn: ConnId,
    pub key: PlayerKey,
    /// The name shown for this person.
    pub name: String,
}

impl Member {
    pub fn from_identity(conn: ConnId, identity: &Identity) -> Member {
        match &identity.account {
            Some(account) => Member {
                conn,
                key: PlayerKey::User(account.id),
                name: account.name.clone(),
            },
            None => Member {
                conn,
                key: PlayerKey::Guest(identity.guest_id.clone()),
                name: guest_name(&identity.guest_id),
            },
        }
    }

    pub fn user(&self) -> Option<UserId> {
        match self.key {
            PlayerKey::User(id) => Some(id),
            PlayerKey::Guest(_) => None,
        }
    }
}

/// The name shown for a guest: "Guest" and the first characters of their anonymous id.
pub fn guest_name(guest_id: &str) -> String {
    let tag: String = guest_id
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(4)
        .collect();
    if tag.is_empty() {
        "Guest".to_owned()
    } else {
        format!("Guest {tag}")
    }
}

/// An intent aimed at one room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    /// View the room (M4); a seated player's presence returns (M3.10).
    Open,
    /// Stop viewing: presence only.
    Close,
    Join {
        passcode: Option<String>,
    },
    CancelRequest,
    Accept {
        user: UserId,
    },
    Decline {
        user: UserId,
    },
    Kick,
    Ready {
        ready: bool,
    },
    Start,
    Move {
        cell: Cell,
    },
    OfferDraw,
    AnswerDraw {
        accept: bool,
    },
    Resign,
    Exit,
    Hint,
    Undo,
}

/// A refused intent: the stable code and a message for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: ErrorCode,
    pub message: String,
}

impl Refusal {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }
}

impl core::fmt::Display for Refusal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Refusal {}

/// Who receives an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Audience {
    /// Every connection viewing the room.
    All,
    /// Every connection of one person viewing the room.
    Person(PlayerKey),
}

/// What the actor must do after a change.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send every viewer a fresh snapshot, update the lobby, save the room.
    Changed,
    Event {
        to: Audience,
        event: Event,
    },
    /// Answer a hint request (T5).
    Hint {
        conn: ConnId,
        cell: Cell,
    },
    /// This connection no longer views the room: tell it `left`.
    Detach {
        conn: ConnId,
    },
    /// Store the finished game (rated: with both ratings in one transaction, P3), then call
    /// [`Room::committed`] or [`Room::commit_failed`]. Nothing about the result is sent first.
    Commit(FinishedGame),
    /// Fetch these players' ratings on this room's ladder and call [`Room::set_ratings`].
    LoadRatings(Vec<UserId>),
    /// M3.4: `user` moved here from their waiting seat in room `from`, which must reopen it.
    Vacate {
        user: UserId,
        from: RoomId,
    },
    /// The room closes: tell every viewer, forget the saved state, leave the lobby.
    Close(CloseReason),
}

/// What a step of the state machine may use besides the room itself.
pub struct Ctx<'a, R: Rng> {
    /// Monotonic milliseconds, for clocks.
    pub now_ms: u64,
    /// Milliseconds since the Unix epoch, for records.
    pub wall_ms: u64,
    pub rng: &'a mut R,
    pub seats: &'a mut dyn SeatBook,
}

impl<R: Rng> core::fmt::Debug for Ctx<'_, R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ctx").field("now_ms", &self.now_ms).finish()
    }
}

/// Who sits in a seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Occupant {
    Human { key: PlayerKey, name: String },
    Bot { difficulty: u8 },
    Local { name: String },
}

impl Occupant {
    fn player_ref(&self) -> PlayerRef {
        match self {
            Occupant::Human {
                key: PlayerKey::User(id),
                name,
            } => PlayerRef::User {
                id: *id,
                name: name.clone(),
            },
            Occupant::Human {
                key: PlayerKey::Guest(_),
                name,
            } => PlayerRef::Guest { name: name.clone() },
            Occupant::Bot { difficulty } => PlayerRef::Bot {
                difficulty: *difficulty,
            },
            Occupant::Local { name } => PlayerRef::Local { name: name.clone() },
        }
    }

    fn name(&self) -> String {
        match self {
            Occupant::Human { name, .. } | Occupant::Local { name } => name.clone(),
            Occupant::Bot { difficulty } => format!("Bot {difficulty}%"),
        }
    }

    fn user(&self) -> Option<UserId> {
        match self {
            Occupant::Human {
                key: PlayerKey::User(id),
                ..
            } => Some(*id),
            _ => None,
        }
    }
}

/// One of the two seats.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Seat {
    pub occupant: Option<Occupant>,
    pub mark: Option<Mark>,
    pub ready: bool,
    /// The occupant's rating on this ladder, once loaded (online rooms).
    pub rating: Option<i32>,
}

/// The running move clock (M3.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    pub mark: Mark,
    pub deadline_ms: u64,
}

/// How the game ended, and whether players have been told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Outcome {
    end: GameEnd,
    rated: bool,
    ratings: Vec<RatingUpdate>,
    /// The result was stored (or storing gave up) and announced.
    announced: bool,
}

/// One room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Room {
    pub(crate) id: RoomId,
    pub(crate) settings: Settings,
    pub(crate) host: PlayerKey,
    pub(crate) seats: [Seat; 2],
    pub(crate) phase: Phase,
    pub(crate) record: GameRecord,
    pub(crate) clock: Option<Clock>,
    pub(crate) draw_offer: Option<Mark>,
    /// M3.8: for each mark, how many moves it had made when it last offered a draw.
    pub(crate) last_offer: [Option<usize>; 2],
    pub(crate) requests: Vec<(UserId, String)>,
    pub(crate) kicked: BTreeSet<PlayerKey>,
    pub(crate) viewers: BTreeMap<ConnId, PlayerKey>,
    pub(crate) outcome: Option<Outcome>,
    pub(crate) started_at_ms: u64,
    /// Games finished in this room before the current one (bot and local games go on after
    /// an undo), so each stored game has its own id.
    pub(crate) game_no: u32,
}

fn idx(mark: Mark) -> usize {
    match mark {
        Mark::X => 0,
        Mark::O => 1,
    }
}

fn refuse<T>(code: ErrorCode, message: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::new(code, message))
}

impl Room {
    /// A new room created by `creator` with valid `settings`. Online rooms wait for seat 2
    /// with the host ready (M3.2); bot and local games start at once (M1, M2), the bot opening
    /// when the human chose O (M1.2), X and O drawn at random for local names (M2.1).
    /// Call [`Room::resume`] next so the bot can open and clocks start.
    pub fn new<R: Rng>(
        id: RoomId,
        settings: Settings,
        creator: &Member,
        ctx: &mut Ctx<'_, R>,
    ) -> Room {
        let human = Occupant::Human {
            key: creator.key.clone(),
            name: creator.name.clone(),
        };
        let (seats, phase) = match &settings.opponent {
            Opponent::Player { .. } => (
                [
                    Seat {
                        occupant: Some(human),
                        ready: true,
                        ..Seat::default()
                    },
                    Seat::default(),
                ],
                Phase::Waiting,
            ),
            Opponent::Bot {
                difficulty,
                human: side,
            } => (
                [
                    Seat {
                        occupant: Some(human),
                        mark: Some(*side),
                        ready: true,
                        rating: None,
                    },
                    Seat {
                        occupant: Some(Occupant::Bot {
                            difficulty: *difficulty,
                        }),
                        mark: Some(side.other()),
                        ready: true,
                        rating: None,
                    },
                ],
                Phase::Playing,
            ),
            Opponent::Local { names } => {
                let first = if ctx.rng.random_bool(0.5) {
                    Mark::X
                } else {
                    Mark::O
                };
                (
                    [
                        Seat {
                            occupant: Some(Occupant::Local {
                                name: names[0].clone(),
                            }),
                            mark: Some(first),
                            ready: true,
                            rating: None,
                        },
                        Seat {
                            occupant: Some(Occupant::Local {
                                name: names[1].clone(),
                            }),
                            mark: Some(first.other()),
                            ready: true,
                            rating: None,
                        },
                    ],
                    Phase::Playing,
                )
            }
        };
        let game = settings.game;
        Room {
            id,
            settings,
            host: creator.key.clone(),
            seats,
            phase,
            record: GameRecord::new(game),
            clock: None,
            draw_offer: None,
            last_offer: [None, None],
            requests: Vec::new(),
            kicked: BTreeSet::new(),
            viewers: BTreeMap::new(),
            outcome: None,
            started_at_ms: if phase == Phase::Playing {
                ctx.wall_ms
            } else {
                0
            },
            game_no: 0,
        }
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn position(&self) -> Position {
        self.record.position()
    }

    pub fn host(&self) -> &PlayerKey {
        &self.host
    }

    /// When the clock runs out, if it runs.
    pub fn deadline_ms(&self) -> Option<u64> {
        self.clock.map(|c| c.deadline_ms)
    }

    /// Connections viewing the room, with whose they are.
    pub fn viewers(&self) -> impl Iterator<Item = (ConnId, &PlayerKey)> {
        self.viewers.iter().map(|(c, k)| (*c, k))
    }

    /// Registered players seated here.
    pub fn seated_users(&self) -> Vec<UserId> {
        self.seats
            .iter()
            .filter_map(|s| s.occupant.as_ref().and_then(Occupant::user))
            .collect()
    }

    fn is_online(&self) -> bool {
        self.settings.is_online()
    }

    fn bot(&self) -> Option<(u8, Mark)> {
        match self.settings.opponent {
            Opponent::Bot { difficulty, human } => Some((difficulty, human.other())),
            _ => None,
        }
    }

    /// The seat `key` holds as a human.
    fn seat_of(&self, key: &PlayerKey) -> Option<usize> {
        self.seats
            .iter()
            .position(|s| matches!(&s.occupant, Some(Occupant::Human { key: k, .. }) if k == key))
    }

    fn seat_with_mark(&self, mark: Mark) -> Option<usize> {
        self.seats.iter().position(|s| s.mark == Some(mark))
    }

    /// `key` plays in this room: a seated player online, the device's person (the host) in a
    /// bot or local game.
    fn is_player(&self, key: &PlayerKey) -> bool {
        if self.is_online() {
            self.seat_of(key).is_some()
        } else {
            *key == self.host
        }
    }

    /// The mark `key` may move for right now, if any.
    fn controls(&self, key: &PlayerKey) -> Option<Mark> {
        let turn = self.record.position().turn();
        match &self.settings.opponent {
            Opponent::Player { .. } => self.seat_of(key).and_then(|s| self.seats[s].mark),
            Opponent::Bot { human, .. } => (*key == self.host).then_some(*human),
            Opponent::Local { .. } => (*key == self.host).then_some(turn),
        }
    }

    fn present(&self, key: &PlayerKey) -> bool {
        self.viewers.values().any(|k| k == key)
    }

    fn conns_of(&self, key: &PlayerKey) -> Vec<ConnId> {
        self.viewers
            .iter()
            .filter(|(_, k)| *k == key)
            .map(|(c, _)| *c)
            .collect()
    }

    fn spectators(&self) -> u32 {
        let keys: BTreeSet<&PlayerKey> = self
            .viewers
            .values()
            .filter(|k| !self.is_player(k))
            .collect();
        u32::try_from(keys.len()).unwrap_or(u32::MAX)
    }

    /// Applies one intent. On `Err` the room is exactly as before and only the sender is told.
    pub fn apply<R: Rng>(
        &mut self,
        from: &Member,
        intent: Intent,
        ctx: &mut Ctx<'_, R>,
    ) -> Result<Vec<Effect>, Refusal> {
        let key = &from.key;
        if self.kicked.contains(key) {
            return refuse(
                ErrorCode::Kicked,
                "the host removed you from this room; you cannot view or rejoin it",
            );
        }
        let mut fx = Vec::new();
        match intent {
            Intent::Open => {
                self.viewers.insert(from.conn, key.clone());
                fx.push(Effect::Changed);
            }
            Intent::Close => {
                if self.viewers.remove(&from.conn).is_none() {
                    return refuse(ErrorCode::NotInRoom, "you are not viewing this room");
                }
                fx.extend([Effect::Detach { conn: from.conn }, Effect::Changed]);
            }
            Intent::Join { passcode } => self.join(from, passcode, ctx, &mut fx)?,
            Intent::CancelRequest => {
                let user = from.user();
                let Some(i) = self.requests.iter().position(|(u, _)| Some(*u) == user) else {
                    return refuse(ErrorCode::NoRequest, "you have no pending request here");
                };
                self.requests.remove(i);
                fx.push(Effect::Changed);
            }
            Intent::Accept { user } => self.accept(from, user, ctx, &mut fx)?,
            Intent::Decline { user } => {
                self.check_host_waiting(key)?;
                let Some(i) = self.requests.iter().position(|(u, _)| *u == user) else {
                    return refuse(ErrorCode::NoRequest, "that player has no pending request");
                };
                self.requests.remove(i);
                fx.push(Effect::Event {
                    to: Audience::Person(PlayerKey::User(user)),
                    event: Event::RequestDeclined {
                        room: self.id.clone(),
                    },
                });
                fx.push(Effect::Changed);
            }
            Intent::Kick => {
                self.check_host_waiting(key)?;
                let Some(Occupant::Human { key: guest, .. }) = self.seats[1].occupant.clone()
                else {
                    return refuse(ErrorCode::SeatEmpty, "nobody is in seat 2");
                };
                self.seats[1] = Seat::default();
                if let PlayerKey::User(id) = guest {
                    ctx.seats.release(id, &self.id);
                }
                fx.push(Effect::Event {
                    to: Audience::Person(guest.clone()),
                    event: Event::Kicked {
                        room: self.id.clone(),
                    },
                });
                for conn in self.conns_of(&guest) {
                    self.viewers.remove(&conn);
                    fx.push(Effect::Detach { conn });
                }
                self.kicked.insert(guest);
                fx.push(Effect::Changed);
            }
            Intent::Ready { ready } => {
                let Some(seat) = self.seat_of(key).filter(|_| self.is_online()) else {
                    return refuse(ErrorCode::Spectator, "only seated players can get ready");
                };
                if self.phase != Phase::Waiting {
                    return refuse(ErrorCode::AlreadyStarted, "the game has already started");
                }
                self.seats[seat].ready = ready;
                fx.push(Effect::Changed);
            }
            Intent::Start => self.start(key, ctx, &mut fx)?,
            Intent::Move { cell } => {
                let mark = self.check_may_move(key)?;
                let position = self.record.position();
                if cell > 8 {
                    return refuse(
                        ErrorCode::NoSuchCell,
                        format!("there is no cell {cell}; cells are 0 to 8"),
                    );
                }
                if position.cell(cell).is_some() {
                    return refuse(
                        ErrorCode::CellOccupied,
                        format!(
                            "the {} cell is taken",
                            engine::CELL_NAMES[usize::from(cell)]
                        ),
                    );
                }
                debug_assert_eq!(mark, position.turn());
                self.play(cell, false, false, ctx, &mut fx)?;
                self.after_move(ctx, &mut fx);
                fx.push(Effect::Changed);
            }
            Intent::OfferDraw => {
                let mark = self.check_online_player_playing(key)?;
                if self.draw_offer.is_some() {
                    return refuse(ErrorCode::OfferPending, "a draw offer is already pending");
                }
                let own_moves = self.own_moves(mark);
                if self.last_offer[idx(mark)] == Some(own_moves) {
                    return refuse(
                        ErrorCode::OfferLimit,
                        "you can offer a draw once per turn of yours",
                    );
                }
                self.last_offer[idx(mark)] = Some(own_moves);
                self.draw_offer = Some(mark);
                fx.push(Effect::Event {
                    to: Audience::All,
                    event: Event::DrawOffered {
                        room: self.id.clone(),
                        by: mark,
                    },
                });
                fx.push(Effect::Changed);
            }
            Intent::AnswerDraw { accept } => {
                let mark = self.check_online_player_playing(key)?;
                if self.draw_offer != Some(mark.other()) {
                    return refuse(
                        ErrorCode::NoOffer,
                        "there is no draw offer from your opponent",
                    );
                }
                self.draw_offer = None;
                if accept {
                    self.finish(GameEnd::Agreed, ctx, &mut fx);
                } else {
                    fx.push(Effect::Event {
                        to: Audience::All,
                        event: Event::DrawDeclined {
                            room: self.id.clone(),
                            by: mark,
                        },
                    });
                }
                fx.push(Effect::Changed);
            }
            Intent::Resign => {
                let loser = self.check_resign(key)?;
                self.finish(GameEnd::Resigned { loser }, ctx, &mut fx);
                fx.push(Effect::Changed);
            }
            Intent::Exit => self.exit(from, ctx, &mut fx)?,
            Intent::Hint => {
                let Some((_, bot)) = self.bot() else {
                    return refuse(
                        ErrorCode::HintUnavailable,
                        "hints are only for games against the bot",
                    );
                };
                if *key != self.host {
                    return refuse(ErrorCode::Spectator, "spectators cannot ask for hints");
                }
                let position = self.record.position();
                if self.phase != Phase::Playing || position.turn() == bot {
                    return refuse(
                        ErrorCode::HintUnavailable,
                        "a hint is only for your own turn",
                    );
                }
                let Some(cell) = tables::bot::hint(&position, ctx.rng) else {
                    return refuse(ErrorCode::HintUnavailable, "no move to suggest here");
                };
                fx.push(Effect::Hint {
                    conn: from.conn,
                    cell,
                });
            }
            Intent::Undo => {
                if self.is_online() {
                    return refuse(ErrorCode::UndoUnavailable, "online games have no undo");
                }
                if *key != self.host {
                    return refuse(ErrorCode::Spectator, "spectators cannot undo");
                }
                let plies = self.undo_plies();
                if plies == 0 {
                    return refuse(
                        ErrorCode::NothingToUndo,
                        "there is no move of yours to take back",
                    );
                }
                self.record
                    .undo(plies)
                    .expect("undo_plies never exceeds the moves played");
                if self.outcome.take().is_some() {
                    self.game_no += 1;
                    self.started_at_ms = ctx.wall_ms;
                }
                self.phase = Phase::Playing;
                self.restart_clock(ctx.now_ms);
                fx.push(Effect::Event {
                    to: Audience::All,
                    event: Event::Undone {
                        room: self.id.clone(),
                        plies: u8::try_from(plies).unwrap_or(u8::MAX),
                    },
                });
                fx.push(Effect::Changed);
            }
        }
        Ok(fx)
    }

    /// Ends a connection's presence (it closed). Never refused.
    pub fn disconnect(&mut self, conn: ConnId) -> Vec<Effect> {
        if self.viewers.remove(&conn).is_some() {
            vec![Effect::Changed]
        } else {
            Vec::new()
        }
    }

    /// M3.4: `user` was accepted into room `to`; reopen their waiting seat here (closing the
    /// room when they were its host).
    pub fn vacate(&mut self, user: UserId, to: &str, ctx_seats: &mut dyn SeatBook) -> Vec<Effect> {
        let key = PlayerKey::User(user);
        let mut fx = Vec::new();
        self.requests.retain(|(u, _)| *u != user);
        if self.phase != Phase::Waiting {
            return fx;
        }
        if key == self.host {
            if let Some(guest) = self.seats[1].occupant.as_ref().and_then(Occupant::user) {
                ctx_seats.release(guest, &self.id);
            }
            fx.push(Effect::Close(CloseReason::HostLeft));
            return fx;
        }
        if self.seat_of(&key) == Some(1) {
            self.seats[1] = Seat::default();
            fx.push(Effect::Event {
                to: Audience::Person(key.clone()),
                event: Event::SeatMoved {
                    from: self.id.clone(),
                    to: to.to_owned(),
                },
            });
            for conn in self.conns_of(&key) {
                self.viewers.remove(&conn);
                fx.push(Effect::Detach { conn });
            }
        }
        fx.push(Effect::Changed);
        fx
    }

    /// Starts clocks and lets the bot move when it is its turn: after creation and restore.
    pub fn resume<R: Rng>(&mut self, ctx: &mut Ctx<'_, R>) -> Vec<Effect> {
        let mut fx = Vec::new();
        if self.phase == Phase::Playing {
            self.after_move(ctx, &mut fx);
        }
        let users = self.seated_users();
        if self.is_online() && !users.is_empty() {
            fx.push(Effect::LoadRatings(users));
        }
        fx.push(Effect::Changed);
        fx
    }

    /// The clock: when it has run out, plays a random cell (Infinite XO) or forfeits (online
    /// XO) for the side to move (M3.7). Does nothing before the deadline.
    pub fn tick<R: Rng>(&mut self, ctx: &mut Ctx<'_, R>) -> Vec<Effect> {
        let mut fx = Vec::new();
        let Some(clock) = self.clock else {
            return fx;
        };
        if ctx.now_ms < clock.deadline_ms || self.phase != Phase::Playing {
            return fx;
        }
        match self.settings.game {
            Game::Xo => self.finish(GameEnd::Timeout { loser: clock.mark }, ctx, &mut fx),
            Game::Infinite => {
                let legal: Vec<Cell> = self.record.position().legal_moves().collect();
                let cell = *legal
                    .choose(ctx.rng)
                    .expect("an ongoing Infinite XO position always has an empty cell");
                self.play(cell, true, false, ctx, &mut fx)
                    .expect("a legal move of an ongoing game plays");
                self.after_move(ctx, &mut fx);
            }
        }
        fx.push(Effect::Changed);
        fx
    }

    /// Ratings fetched for [`Effect::LoadRatings`].
    pub fn set_ratings(&mut self, ratings: &[(UserId, i32)]) -> Vec<Effect> {
        for seat in &mut self.seats {
            if let Some(user) = seat.occupant.as_ref().and_then(Occupant::user) {
                if let Some((_, r)) = ratings.iter().find(|(u, _)| *u == user) {
                    seat.rating = Some(*r);
                }
            }
        }
        vec![Effect::Changed]
    }

    /// The finished game was stored; announce the result with the rating changes (E3).
    pub fn committed(&mut self, updates: Vec<RatingUpdate>) -> Vec<Effect> {
        for update in &updates {
            if let Some(s) = self.seat_with_mark(update.mark) {
                self.seats[s].rating = Some(update.after);
            }
        }
        self.announce(updates)
    }

    /// Storing the finished game failed for good: announce the result without rating changes.
    pub fn commit_failed(&mut self) -> Vec<Effect> {
        self.announce(Vec::new())
    }

    fn announce(&mut self, ratings: Vec<RatingUpdate>) -> Vec<Effect> {
        let Some(outcome) = self.outcome.as_mut() else {
            return Vec::new();
        };
        outcome.ratings = ratings.clone();
        outcome.announced = true;
        vec![
            Effect::Event {
                to: Audience::All,
                event: Event::Result {
                    room: self.id.clone(),
                    end: outcome.end,
                    ratings,
                },
            },
            Effect::Changed,
        ]
    }

    // ---- checks -------------------------------------------------------------------------

    fn check_host_waiting(&self, key: &PlayerKey) -> Result<(), Refusal> {
        if !self.is_online() {
            return refuse(ErrorCode::OnlineOnly, "this room has no seats to manage");
        }
        if *key != self.host {
            return refuse(ErrorCode::NotHost, "only the host can do that");
        }
        if self.phase != Phase::Waiting {
            return refuse(
                ErrorCode::AlreadyStarted,
                "only possible before the game starts",
            );
        }
        Ok(())
    }

    fn check_playing(&self) -> Result<(), Refusal> {
        match self.phase {
            Phase::Waiting => refuse(ErrorCode::NotStarted, "the game has not started yet"),
            Phase::Finished => refuse(ErrorCode::GameOver, "the game is over"),
            Phase::Playing => Ok(()),
        }
    }

    /// The mark `key` moves for now, or why they cannot move.
    fn check_may_move(&self, key: &PlayerKey) -> Result<Mark, Refusal> {
        if !self.is_player(key) {
            return refuse(ErrorCode::Spectator, "spectators cannot move");
        }
        self.check_playing()?;
        let turn = self.record.position().turn();
        if self.controls(key) != Some(turn) {
            return refuse(ErrorCode::NotYourTurn, "it is not your turn");
        }
        Ok(turn)
    }

    fn check_online_player_playing(&self, key: &PlayerKey) -> Result<Mark, Refusal> {
        if !self.is_online() {
            return refuse(ErrorCode::OnlineOnly, "draw offers are for online games");
        }
        let Some(mark) = self.seat_of(key).and_then(|s| self.seats[s].mark) else {
            return refuse(
                ErrorCode::Spectator,
                "spectators cannot offer or answer draws",
            );
        };
        self.check_playing()?;
        Ok(mark)
    }

    /// The mark that loses by `key` resigning.
    fn check_resign(&self, key: &PlayerKey) -> Result<Mark, Refusal> {
        if !self.is_player(key) {
            return refuse(ErrorCode::Spectator, "spectators cannot resign");
        }
        self.check_playing()?;
        Ok(match &self.settings.opponent {
            // The device resigns for the player whose turn it is (M2.2).
            Opponent::Local { .. } => self.record.position().turn(),
            _ => self
                .controls(key)
                .expect("a player of an online or bot game holds a mark"),
        })
    }

    fn own_moves(&self, mark: Mark) -> usize {
        let n = self.record.moves().len();
        match mark {
            Mark::X => n.div_ceil(2),
            Mark::O => n / 2,
        }
    }

    /// How many plies an undo takes back now: in a bot game the human's last move and the
    /// bot's reply (M1.3); in a local game the last move (M2.2).
    fn undo_plies(&self) -> usize {
        let n = self.record.moves().len();
        match self.bot() {
            Some((_, bot)) => {
                // The mark that made the last move.
                let last = if n % 2 == 1 { Mark::X } else { Mark::O };
                if n == 0 {
                    0
                } else if last == bot {
                    // Take back the bot's reply and the human move before it, if there is one
                    // (when the bot opened, its first move is not the human's to undo).
                    if n >= 2 { 2 } else { 0 }
                } else {
                    1
                }
            }
            None => n.min(1),
        }
    }

    // ---- steps --------------------------------------------------------------------------

    fn join<R: Rng>(
        &mut self,
        from: &Member,
        passcode: Option<String>,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let Opponent::Player { policy } = &self.settings.opponent else {
            return refuse(
                ErrorCode::NotJoinable,
                "bot and local games are played on their own device; you can watch this one",
            );
        };
        let Some(user) = from.user() else {
            return refuse(ErrorCode::SignInRequired, "sign in to join online rooms");
        };
        if self.seat_of(&from.key).is_some() {
            return refuse(ErrorCode::AlreadySeated, "you already sit in this room");
        }
        if self.phase != Phase::Waiting {
            return refuse(ErrorCode::AlreadyStarted, "the game has already started");
        }
        if self.seats[1].occupant.is_some() {
            return refuse(ErrorCode::RoomFull, "seat 2 is taken");
        }
        if let Some(place) = ctx
            .seats
            .place(user)
            .filter(|p| p.room != self.id && p.active)
        {
            return refuse(
                ErrorCode::AlreadySeated,
                format!(
                    "you are playing in room {}; finish that game first",
                    place.room
                ),
            );
        }
        match policy {
            Policy::Approval => {
                if self.requests.iter().any(|(u, _)| *u == user) {
                    return refuse(
                        ErrorCode::AlreadyRequested,
                        "your request is already pending",
                    );
                }
                self.requests.push((user, from.name.clone()));
                self.viewers.insert(from.conn, from.key.clone());
                fx.push(Effect::Event {
                    to: Audience::Person(self.host.clone()),
                    event: Event::JoinRequested {
                        room: self.id.clone(),
                        user,
                        name: from.name.clone(),
                    },
                });
                fx.push(Effect::Changed);
                return Ok(());
            }
            Policy::Passcode(code) => match passcode {
                None => {
                    return refuse(
                        ErrorCode::PasscodeRequired,
                        "this room asks for a 4-digit passcode",
                    );
                }
                Some(given) if given != *code => {
                    return refuse(ErrorCode::WrongPasscode, "wrong passcode");
                }
                Some(_) => {}
            },
            Policy::Open => {}
        }
        self.seat_guest(user, from.name.clone(), ctx, fx)?;
        self.viewers.insert(from.conn, from.key.clone());
        fx.push(Effect::Changed);
        Ok(())
    }

    fn accept<R: Rng>(
        &mut self,
        from: &Member,
        user: UserId,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        self.check_host_waiting(&from.key)?;
        let Some(i) = self.requests.iter().position(|(u, _)| *u == user) else {
            return refuse(ErrorCode::NoRequest, "that player has no pending request");
        };
        if self.seats[1].occupant.is_some() {
            return refuse(ErrorCode::RoomFull, "seat 2 is taken");
        }
        let name = self.requests[i].1.clone();
        self.seat_guest(user, name, ctx, fx)?;
        self.requests.remove(i);
        fx.push(Effect::Changed);
        Ok(())
    }

    /// Puts `user` in seat 2, claiming them in the seat book (M3.4). The last check that can
    /// fail, so callers change nothing before it.
    fn seat_guest<R: Rng>(
        &mut self,
        user: UserId,
        name: String,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        match ctx.seats.claim(user, &self.id, true) {
            Ok(moved_from) => {
                if let Some(from) = moved_from {
                    fx.push(Effect::Vacate { user, from });
                }
            }
            Err(place) => {
                return refuse(
                    ErrorCode::AlreadySeated,
                    format!("that player is in a game in room {}", place.room),
                );
            }
        }
        self.seats[1] = Seat {
            occupant: Some(Occupant::Human {
                key: PlayerKey::User(user),
                name,
            }),
            mark: None,
            ready: false,
            rating: None,
        };
        fx.push(Effect::LoadRatings(self.seated_users()));
        Ok(())
    }

    fn start<R: Rng>(
        &mut self,
        key: &PlayerKey,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        self.check_host_waiting(key)?;
        if self.seats[1].occupant.is_none() {
            return refuse(ErrorCode::SeatEmpty, "wait for a second player");
        }
        if !(self.seats[0].ready && self.seats[1].ready) {
            return refuse(ErrorCode::NotReady, "both players must be ready");
        }
        // M3.4: a player who has just taken a seat in another room still shows here until that
        // room's message reopens this seat; the game must not start with them. Checked and
        // marked active in one step of the seat book, so no move can slip in between.
        if let Err(gone) = ctx.seats.activate(&self.id, &self.seated_users()) {
            return if PlayerKey::User(gone) == self.host {
                refuse(
                    ErrorCode::AlreadySeated,
                    "you have taken a seat in another room",
                )
            } else {
                refuse(
                    ErrorCode::SeatEmpty,
                    "the other player has taken a seat in another room",
                )
            };
        }
        // M3.6: X and O at random; X moves first.
        let host_mark = if ctx.rng.random_bool(0.5) {
            Mark::X
        } else {
            Mark::O
        };
        self.seats[0].mark = Some(host_mark);
        self.seats[1].mark = Some(host_mark.other());
        self.phase = Phase::Playing;
        self.requests.clear();
        self.started_at_ms = ctx.wall_ms;
        self.restart_clock(ctx.now_ms);
        fx.push(Effect::LoadRatings(self.seated_users()));
        fx.push(Effect::Changed);
        Ok(())
    }

    fn exit<R: Rng>(
        &mut self,
        from: &Member,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let key = &from.key;
        match (self.phase, self.is_online(), self.is_player(key)) {
            // M3.9: Exit during active play is a resignation; the player stays in the roster.
            (Phase::Playing, true, true) => {
                let loser = self.check_resign(key)?;
                self.finish(GameEnd::Resigned { loser }, ctx, fx);
                self.viewers.remove(&from.conn);
                fx.push(Effect::Detach { conn: from.conn });
            }
            // M2.3: leaving a bot or local game ends it, unrated and unrecorded.
            (Phase::Playing | Phase::Finished, false, true) => {
                self.viewers.remove(&from.conn);
                fx.push(Effect::Detach { conn: from.conn });
                fx.push(Effect::Close(CloseReason::Ended));
            }
            // M3.9: the host leaving a waiting room closes it.
            (Phase::Waiting, true, true) if *key == self.host => {
                for user in self.seated_users() {
                    ctx.seats.release(user, &self.id);
                }
                self.viewers.remove(&from.conn);
                fx.push(Effect::Detach { conn: from.conn });
                fx.push(Effect::Close(CloseReason::HostLeft));
            }
            (Phase::Waiting, true, true) => {
                if let PlayerKey::User(user) = key {
                    ctx.seats.release(*user, &self.id);
                }
                self.seats[1] = Seat::default();
                for conn in self.conns_of(key) {
                    self.viewers.remove(&conn);
                    fx.push(Effect::Detach { conn });
                }
            }
            // A spectator, a requester (whose request goes with them), or a player of a
            // finished game leaves.
            _ => {
                let requested = from
                    .user()
                    .is_some_and(|user| self.requests.iter().any(|(u, _)| *u == user));
                let viewing = self.viewers.contains_key(&from.conn);
                if !viewing && !requested {
                    return refuse(ErrorCode::NotInRoom, "you are not in this room");
                }
                if let Some(user) = from.user() {
                    self.requests.retain(|(u, _)| *u != user);
                }
                if self.viewers.remove(&from.conn).is_some() {
                    fx.push(Effect::Detach { conn: from.conn });
                }
            }
        }
        fx.push(Effect::Changed);
        Ok(())
    }

    /// Plays `cell` for the side to move, with its events; ends the game when the rules do.
    fn play<R: Rng>(
        &mut self,
        cell: Cell,
        automatic: bool,
        bot: bool,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let before = self.record.position();
        let mark = before.turn();
        let played = self.record.play(cell).map_err(|e| match e {
            IllegalMove::NoSuchCell(c) => {
                Refusal::new(ErrorCode::NoSuchCell, format!("there is no cell {c}"))
            }
            IllegalMove::Occupied(_) => Refusal::new(ErrorCode::CellOccupied, "that cell is taken"),
            IllegalMove::GameOver => Refusal::new(ErrorCode::GameOver, "the game is over"),
        })?;
        let own = before.marks(mark);
        let removed =
            (self.settings.game == Game::Infinite && own.len() == 3).then(|| own.as_slice()[0]);
        // M3.8: making a move withdraws one's own pending offer.
        if self.draw_offer == Some(mark) {
            self.draw_offer = None;
            fx.push(Effect::Event {
                to: Audience::All,
                event: Event::DrawDeclined {
                    room: self.id.clone(),
                    by: mark,
                },
            });
        }
        fx.push(Effect::Event {
            to: Audience::All,
            event: Event::Moved {
                room: self.id.clone(),
                mark,
                cell,
                removed,
                automatic,
                bot,
            },
        });
        if played.repetition_warning {
            fx.push(Effect::Event {
                to: Audience::All,
                event: Event::RepetitionWarning {
                    room: self.id.clone(),
                },
            });
        }
        if let Some(end) = played.end {
            self.finish(end.into(), ctx, fx);
        }
        Ok(())
    }

    /// After a move: the bot replies inside the room (M1), then the side to move gets a full
    /// clock (M3.7).
    fn after_move<R: Rng>(&mut self, ctx: &mut Ctx<'_, R>, fx: &mut Vec<Effect>) {
        if self.phase != Phase::Playing {
            return;
        }
        if let Some((difficulty, bot)) = self.bot() {
            let position = self.record.position();
            if position.turn() == bot {
                if let Some(choice) = tables::bot::choose(&position, difficulty, ctx.rng) {
                    self.play(choice.cell, false, true, ctx, fx)
                        .expect("the bot plays legal moves");
                }
            }
        }
        self.restart_clock(ctx.now_ms);
    }

    fn restart_clock(&mut self, now_ms: u64) {
        let turn = self.record.position().turn();
        let bot_to_move = self.bot().is_some_and(|(_, bot)| bot == turn);
        self.clock = match self.settings.per_move_ms {
            Some(ms) if self.phase == Phase::Playing && !bot_to_move => Some(Clock {
                mark: turn,
                deadline_ms: now_ms + u64::from(ms),
            }),
            _ => None,
        };
    }

    fn finish<R: Rng>(&mut self, end: GameEnd, ctx: &mut Ctx<'_, R>, fx: &mut Vec<Effect>) {
        self.phase = Phase::Finished;
        self.clock = None;
        self.draw_offer = None;
        let rated = self.is_online();
        if rated {
            for user in self.seated_users() {
                ctx.seats.release(user, &self.id);
            }
        }
        self.outcome = Some(Outcome {
            end,
            rated,
            ratings: Vec::new(),
            announced: false,
        });
        fx.push(Effect::Commit(self.finished_game(end, rated, ctx.wall_ms)));
    }

    fn finished_game(&self, end: GameEnd, rated: bool, ended_at_ms: u64) -> FinishedGame {
        let player = |mark| {
            self.seat_with_mark(mark)
                .and_then(|s| self.seats[s].occupant.as_ref())
                .map(Occupant::player_ref)
                .expect("both marks are seated once a game is played")
        };
        FinishedGame {
            id: if self.game_no == 0 {
                self.id.clone()
            } else {
                format!("{}-{}", self.id, self.game_no)
            },
            game: self.settings.game,
            rated,
            x: player(Mark::X),
            o: player(Mark::O),
            moves: self.record.moves().to_vec(),
            end,
            started_at_ms: self.started_at_ms,
            ended_at_ms,
        }
    }

    // ---- views --------------------------------------------------------------------------

    fn kind(&self, reader_is_host: bool) -> RoomKind {
        match &self.settings.opponent {
            Opponent::Player { policy } => RoomKind::Online {
                joining: match policy {
                    Policy::Open => Joining::Open,
                    Policy::Approval => Joining::Approval,
                    // Only the host ever receives the passcode (M3.3).
                    Policy::Passcode(code) => Joining::Passcode {
                        code: reader_is_host.then(|| code.clone()),
                    },
                },
            },
            Opponent::Bot { difficulty, .. } => RoomKind::Bot {
                difficulty: *difficulty,
            },
            Opponent::Local { .. } => RoomKind::Local,
        }
    }

    /// The ELO preview (E4) while a rated game is on and both ratings are known.
    fn elo(&self) -> Option<EloPreview> {
        if !self.is_online() || self.phase != Phase::Playing {
            return None;
        }
        let x = self.seats[self.seat_with_mark(Mark::X)?].rating?;
        let o = self.seats[self.seat_with_mark(Mark::O)?].rating?;
        let pair = |score| {
            let (a, b) = elo::preview(x, o, score);
            [a, b]
        };
        Some(EloPreview {
            x_rating: x,
            o_rating: o,
            x_wins: pair(Score::Win),
            draw: pair(Score::Draw),
            o_wins: pair(Score::Loss),
        })
    }

    /// The room as the person `key` may see it, at monotonic time `now_ms`.
    pub fn view_for(&self, key: &PlayerKey, now_ms: u64) -> RoomView {
        let is_host = *key == self.host;
        let position = self.record.position();
        let seats = core::array::from_fn(|i| {
            let seat = &self.seats[i];
            SeatView {
                player: seat.occupant.as_ref().map(|o| PlayerView {
                    player: o.player_ref(),
                    rating: seat.rating,
                }),
                mark: seat.mark,
                ready: seat.ready,
                present: match &seat.occupant {
                    Some(Occupant::Human { key, .. }) => self.present(key),
                    Some(Occupant::Bot { .. }) => true,
                    Some(Occupant::Local { .. }) => self.present(&self.host),
                    None => false,
                },
            }
        });
        let user = match key {
            PlayerKey::User(id) => Some(*id),
            PlayerKey::Guest(_) => None,
        };
        let requests = self
            .requests
            .iter()
            .filter(|(u, _)| is_host || Some(*u) == user)
            .map(|(u, name)| JoinRequestView {
                user: *u,
                name: name.clone(),
            })
            .collect();
        let you = YouView {
            seat: match &self.settings.opponent {
                Opponent::Player { .. } => self.seat_of(key).and_then(|s| u8::try_from(s).ok()),
                Opponent::Bot { .. } => is_host.then_some(0),
                Opponent::Local { .. } => None,
            },
            host: is_host,
            to_move: self.phase == Phase::Playing && self.controls(key) == Some(position.turn()),
            requested: self.requests.iter().any(|(u, _)| Some(*u) == user),
        };
        RoomView {
            id: self.id.clone(),
            game: self.settings.game,
            kind: self.kind(is_host),
            phase: self.phase,
            per_move_ms: self.settings.per_move_ms,
            seats,
            x: position.marks(Mark::X).as_slice().to_vec(),
            o: position.marks(Mark::O).as_slice().to_vec(),
            turn: position.turn(),
            glowing: position.glowing(),
            moves: self.record.moves().to_vec(),
            clock: self.clock.map(|c| ClockView {
                mark: c.mark,
                remaining_ms: u32::try_from(c.deadline_ms.saturating_sub(now_ms))
                    .unwrap_or(u32::MAX),
                per_move_ms: self.settings.per_move_ms.unwrap_or(0),
                forfeit: self.settings.game == Game::Xo,
            }),
            repetition_warning: self.record.repetition_warning(),
            draw_offer: self.draw_offer,
            requests,
            result: self
                .outcome
                .as_ref()
                .filter(|o| o.announced)
                .map(|o| ResultView {
                    end: o.end,
                    rated: o.rated,
                    ratings: o.ratings.clone(),
                }),
            elo: self.elo(),
            spectators: self.spectators(),
            can_undo: !self.is_online() && is_host && self.undo_plies() > 0,
            you,
        }
    }

    /// The room's lobby row; never the passcode.
    pub fn summary(&self) -> RoomSummary {
        RoomSummary {
            id: self.id.clone(),
            game: self.settings.game,
            kind: self.kind(false),
            phase: self.phase,
            players: self
                .seats
                .iter()
                .filter_map(|s| s.occupant.as_ref().map(Occupant::name))
                .collect(),
            open_seat: self.is_online()
                && self.phase == Phase::Waiting
                && self.seats[1].occupant.is_none(),
            per_move_ms: self.settings.per_move_ms,
            spectators: self.spectators(),
        }
    }

    /// Whether anyone views the room.
    pub fn is_empty(&self) -> bool {
        self.viewers.is_empty()
    }
}

/// Read-only access to the whole state, for the fuzz targets (`fuzz/`) and unit tests, so that
/// invariants can be checked from outside the crate. Not part of the server's API.
#[cfg(any(test, feature = "fuzzing"))]
impl Room {
    /// The game with its history and repetition counts.
    pub fn record(&self) -> &GameRecord {
        &self.record
    }

    /// Both seats.
    pub fn seat_state(&self) -> &[Seat; 2] {
        &self.seats
    }

    /// The pending draw offer.
    pub fn draw_offer(&self) -> Option<Mark> {
        self.draw_offer
    }

    /// Pending join requests.
    pub fn requests(&self) -> &[(UserId, String)] {
        &self.requests
    }

    /// Players the host kicked.
    pub fn kicked(&self) -> &BTreeSet<PlayerKey> {
        &self.kicked
    }

    /// Whether a result exists and whether it was announced.
    pub fn outcome_state(&self) -> Option<(GameEnd, bool)> {
        self.outcome.as_ref().map(|o| (o.end, o.announced))
    }

    /// Equal in everything but who is viewing.
    pub fn same_except_viewers(&self, other: &Room) -> bool {
        let mut a = self.clone();
        a.viewers.clear();
        let mut b = other.clone();
        b.viewers.clear();
        a == b
    }
}

#[cfg(test)]
#[path = "room_tests.rs"]
mod tests;
