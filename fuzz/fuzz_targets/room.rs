//! The room state machine (`rooms::room::Room`) driven by arbitrary intents from several people
//! in two rooms that share one seat book, with time passing, carried out the way the room actor
//! does (commits answered at once, ratings loaded, M3.4 seat moves sent to the other room,
//! closed rooms forgotten).
//!
//! After every step, for every open room:
//! - seats: online rooms keep the host in seat 1 and at most one other signed-in player in
//!   seat 2, never the same person twice, never a kicked one; marks only once play starts, and
//!   then X and O once each; bot and local rooms keep their occupants;
//! - the game: the moves replay under the engine to exactly the room's record (positions,
//!   repetition counts), the position is legal, the phase agrees with the record's end, and the
//!   clock runs exactly while a human has to move;
//! - an online game, once finished, stays finished with the same moves; each game is committed
//!   at most once, with the room's moves, players and end, and its result announced once;
//! - M3.4 across both rooms: a registered player sits in at most one waiting or active room,
//!   and the seat book agrees with the rooms;
//! - a move is accepted exactly when the mover's view says `to_move` (and the cell is empty),
//!   and its `moved` event is for the side that was to move;
//! - an intent from someone who does not play in the room (a spectator, a stranger, a guest)
//!   changes nothing at all (viewing intents change only who views), nor the seat book;
//! - a refused intent changes nothing;
//! - a waiting or active room, saved and restored (a restart), has the same seats, settings,
//!   moves and repetition counts, requests, kicks and draw offer;
//! - no view, lobby row, event or error ever shows the passcode to anyone but the host.
#![no_main]

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use arbitrary::Arbitrary;
use engine::elo::{self, Score};
use engine::{Game, GameRecord, Mark, Position};
use libfuzzer_sys::fuzz_target;
use protocol::records::{FinishedGame, GameEnd, PlayerRef, RatingUpdate, UserId};
use protocol::{
    CreateRoom, Event, Joining, JoiningRequest, OpponentRequest, Phase, RoomKind, RoomView,
};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rooms::room::{Audience, ConnId, Ctx, Effect, Intent, Member, Occupant, PlayerKey, Room};
use rooms::seats::{SeatBook, Seats};
use rooms::settings::{Opponent, Settings};

/// The passcode of passcode rooms; four digits that appear nowhere else in texts.
const PASSCODE: &str = "2468";

#[derive(Debug, Clone, Copy, Arbitrary)]
enum Kind {
    Open,
    Approval,
    Passcode,
    Bot { difficulty: u8, human_o: bool },
    Local,
}

#[derive(Debug, Clone, Copy, Arbitrary)]
struct Setup {
    infinite: bool,
    kind: Kind,
    /// Index into 5, 10, 30 s, or an invalid time.
    time: u8,
    creator: u8,
}

#[derive(Debug, Clone, Arbitrary)]
enum Guess {
    None,
    Right,
    Wrong,
    Text(String),
}

#[derive(Debug, Clone, Arbitrary)]
enum Act {
    Open,
    Close,
    Join(Guess),
    CancelRequest,
    Accept(u8),
    Decline(u8),
    Kick,
    Ready(bool),
    Start,
    Move(u8),
    OfferDraw,
    AnswerDraw(bool),
    Resign,
    Exit,
    Hint,
    Undo,
}

#[derive(Debug, Clone, Arbitrary)]
enum Step {
    Intent {
        room: bool,
        who: u8,
        act: Act,
    },
    Disconnect {
        who: u8,
    },
    /// Time passes (in 2 ms units, so two steps pass XO's two minutes); both clocks tick.
    Wait {
        ms: u16,
    },
    Create {
        room: bool,
        setup: Setup,
    },
    /// The oldest M3.4 seat move still on its way reaches its room. Rooms are separate actors,
    /// so a `Vacate` arrives some time after the move that caused it.
    Deliver,
}

#[derive(Debug, Arbitrary)]
struct Input {
    seed: u64,
    /// Storing results fails: results are announced without rating changes.
    commit_fails: bool,
    rooms: [Setup; 2],
    steps: Vec<Step>,
}

/// The people: four registered players (user 2 with two connections) and two guests.
fn people() -> Vec<Member> {
    let user = |conn: ConnId, id: UserId| Member {
        conn,
        key: PlayerKey::User(id),
        name: format!("user{id}"),
        guest_id: format!("g{id}"),
        device: Some(format!("d{id}")),
    };
    let guest = |conn: ConnId, id: &str| Member {
        conn,
        key: PlayerKey::Guest(id.to_owned()),
        name: rooms::room::guest_name(id),
        guest_id: id.to_owned(),
        device: None,
    };
    vec![
        user(1, 1),
        user(2, 2),
        user(3, 3),
        guest(4, "g0000"),
        user(5, 2),
        user(6, 4),
        guest(7, "h1111"),
    ]
}

/// One open room and what the harness remembers about it.
struct Live {
    room: Room,
    /// Ids of the games committed from this room.
    committed: BTreeSet<String>,
    /// `result` events sent, and commits answered.
    results: usize,
    answers: usize,
}

struct World {
    people: Vec<Member>,
    slots: [Option<Live>; 2],
    seats: Seats,
    rng: StdRng,
    now: u64,
    ratings: BTreeMap<(Game, UserId), i32>,
    /// Each connection's current room (the session's), by slot.
    current: BTreeMap<ConnId, usize>,
    rooms_made: u32,
    commit_fails: bool,
    /// Seat moves on their way: (user, from room, to room).
    vacates: VecDeque<(UserId, String, String)>,
}

const WALL: u64 = 1_700_000_000_000;

/// `XO_FUZZ_TRACE=1` prints every intent and its answer (to read a crash or check a seed).
fn tracing() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("XO_FUZZ_TRACE").is_some())
}

fn online(room: &Room) -> bool {
    room.settings().is_online()
}

fn passcode_of(room: &Room) -> Option<&str> {
    match &room.settings().opponent {
        Opponent::Player {
            policy: rooms::settings::Policy::Passcode(code),
        } => Some(code),
        _ => None,
    }
}

fn user_of(key: &PlayerKey) -> Option<UserId> {
    match key {
        PlayerKey::User(id) => Some(*id),
        PlayerKey::Guest(_) => None,
    }
}

/// Whether `key` plays in `room` (may act on the game), as SPEC M3/M4 say.
fn plays(room: &Room, key: &PlayerKey) -> bool {
    if online(room) {
        room.seat_state()
            .iter()
            .any(|s| matches!(&s.occupant, Some(Occupant::Human { key: k, .. }) if k == key))
    } else {
        key == room.host()
    }
}

fn requester(room: &Room, key: &PlayerKey) -> bool {
    user_of(key).is_some_and(|u| room.requests().iter().any(|(r, _)| *r == u))
}

impl World {
    fn ctx(&mut self) -> Ctx<'_, StdRng> {
        Ctx {
            now_ms: self.now,
            wall_ms: WALL + self.now,
            rng: &mut self.rng,
            seats: &mut self.seats,
            rated: &rooms::rated::Unlimited,
        }
    }

    fn create(&mut self, slot: usize, setup: Setup) {
        if self.slots[slot].is_some() {
            return;
        }
        let creator = self.people[usize::from(setup.creator) % self.people.len()].clone();
        let game = if setup.infinite {
            Game::Infinite
        } else {
            Game::Xo
        };
        let opponent = match setup.kind {
            Kind::Open => OpponentRequest::Player {
                joining: JoiningRequest::Open,
            },
            Kind::Approval => OpponentRequest::Player {
                joining: JoiningRequest::Approval,
            },
            Kind::Passcode => OpponentRequest::Player {
                joining: JoiningRequest::Passcode {
                    code: PASSCODE.to_owned(),
                },
            },
            Kind::Bot {
                difficulty,
                human_o,
            } => OpponentRequest::Bot {
                difficulty: Some(difficulty % 101),
                side: Some(if human_o { Mark::O } else { Mark::X }),
            },
            Kind::Local => OpponentRequest::Local {
                names: ["Sara".into(), "Omar".into()],
            },
        };
        let time_per_move_s = [Some(5), Some(10), Some(30), None, Some(7)]
            .get(usize::from(setup.time % 5))
            .copied()
            .flatten();
        let req = CreateRoom {
            game,
            opponent,
            time_per_move_s,
        };
        // As the hub creates rooms.
        let Ok(settings) = Settings::from_request(&req, creator.user().is_some()) else {
            return;
        };
        self.rooms_made += 1;
        let id = format!("room{}", self.rooms_made);
        if tracing() {
            eprintln!("create {id} by {:?}: {settings:?}", creator.key);
        }
        if let (true, Some(user)) = (settings.is_online(), creator.user())
            && self.seats.claim(user, &id, false).is_err()
        {
            return;
        }
        let mut ctx = self.ctx();
        let mut room = Room::new(id, settings, &creator, &mut ctx);
        let fx = room.resume(&mut ctx);
        self.slots[slot] = Some(Live {
            room,
            committed: BTreeSet::new(),
            results: 0,
            answers: 0,
        });
        self.carry_out(slot, fx);
        // The creator's connection switches to the new room and opens it.
        self.intent(slot, &creator, Intent::Open);
    }

    /// The session's switch: opening or acting in another room leaves the current one.
    fn switch(&mut self, conn: ConnId, slot: usize) {
        if let Some(&old) = self.current.get(&conn)
            && old != slot
        {
            self.current.remove(&conn);
            if let Some(live) = self.slots[old].as_mut() {
                let fx = live.room.disconnect(conn);
                self.carry_out(old, fx);
            }
        }
        if self.slots[slot].is_some() {
            self.current.insert(conn, slot);
        }
    }

    fn intent(&mut self, slot: usize, who: &Member, intent: Intent) {
        let Some(live) = self.slots[slot].as_ref() else {
            return;
        };
        let before = live.room.clone();
        let seats_before = format!("{:?}", self.seats);
        let key = &who.key;
        let outsider = !plays(&before, key) && !requester(&before, key);
        let viewing = matches!(intent, Intent::Open | Intent::Close | Intent::Exit);
        let view_before = before.view_for(key, self.now);
        let move_cell = match intent {
            Intent::Move { cell } => Some(cell),
            _ => None,
        };
        let mut ctx = Ctx {
            now_ms: self.now,
            wall_ms: WALL + self.now,
            rng: &mut self.rng,
            seats: &mut self.seats,
            rated: &rooms::rated::Unlimited,
        };
        let live = self.slots[slot].as_mut().expect("checked above");
        let result = live.room.apply(who, intent.clone(), &mut ctx);
        let room = &live.room;
        if tracing() {
            let answer = match &result {
                Ok(_) => format!(
                    "ok, phase {:?}, moves {:?}",
                    room.phase(),
                    room.record().moves()
                ),
                Err(e) => format!("refused: {e}"),
            };
            eprintln!("{} {:?} {intent:?}: {answer}", room.id(), who.key);
        }
        if let Err(refusal) = &result {
            // A wrong passcode is remembered (M3.3); nothing else may change.
            assert!(
                room.same_except_passcode_memory(&before),
                "{intent:?} refused ({refusal}) but changed the room"
            );
            assert_eq!(
                format!("{:?}", self.seats),
                seats_before,
                "{intent:?} refused"
            );
            assert!(!refusal.message.is_empty());
            if passcode_of(room).is_some() {
                assert!(
                    !refusal.message.contains(PASSCODE),
                    "a refusal shows the passcode: {}",
                    refusal.message
                );
            }
        }
        // M4: someone who does not play here changes nothing; viewing changes only viewers.
        if outsider && !matches!(intent, Intent::Join { .. }) {
            if viewing {
                assert!(
                    room.same_except_viewers(&before),
                    "{intent:?} from outsider {key:?} changed the room"
                );
            } else {
                assert!(result.is_err(), "{intent:?} from outsider {key:?} accepted");
            }
            assert_eq!(
                format!("{:?}", self.seats),
                seats_before,
                "outsider {intent:?}"
            );
        }
        // Moves: accepted exactly when the reader's view says it is their move.
        if let Some(cell) = move_cell {
            let free = cell <= 8 && before.position().cell(cell).is_none();
            match &result {
                Ok(fx) => {
                    assert!(
                        view_before.you.to_move,
                        "move by {key:?} not to move accepted"
                    );
                    let moved: Vec<(Mark, bool, bool)> = fx
                        .iter()
                        .filter_map(|e| match e {
                            Effect::Event {
                                event:
                                    Event::Moved {
                                        mark,
                                        automatic,
                                        bot,
                                        ..
                                    },
                                ..
                            } => Some((*mark, *automatic, *bot)),
                            _ => None,
                        })
                        .collect();
                    assert_eq!(
                        moved.first(),
                        Some(&(before.position().turn(), false, false)),
                        "{fx:?}"
                    );
                    assert!(moved[1..].iter().all(|&(_, auto, bot)| bot && !auto));
                    if online(&before) {
                        let seat_mark = before
                            .seat_state()
                            .iter()
                            .find(|s| {
                                matches!(&s.occupant, Some(Occupant::Human { key: k, .. }) if k == key)
                            })
                            .and_then(|s| s.mark);
                        assert_eq!(seat_mark, Some(before.position().turn()));
                    }
                }
                Err(e) => {
                    assert!(
                        !(view_before.you.to_move && free),
                        "{key:?} to move on free cell {cell} refused: {e}"
                    );
                }
            }
        }
        if let Ok(fx) = result {
            if room.viewers().any(|(c, _)| c == who.conn) {
                self.current.insert(who.conn, slot);
            }
            self.carry_out(slot, fx);
        }
    }

    /// The actor's `carry_out`.
    fn carry_out(&mut self, slot: usize, fx: Vec<Effect>) {
        let mut queue: VecDeque<Effect> = fx.into();
        let mut changed = false;
        while let Some(effect) = queue.pop_front() {
            let Some(live) = self.slots[slot].as_mut() else {
                return;
            };
            match effect {
                Effect::Changed => changed = true,
                Effect::Event { to, event } => {
                    if let Event::JoinRequested { .. } = event {
                        assert_eq!(to, Audience::Person(live.room.host().clone()));
                    }
                    if let Event::Result { .. } = event {
                        live.results += 1;
                    }
                    let readers: Vec<PlayerKey> = live
                        .room
                        .viewers()
                        .filter(|(_, k)| match &to {
                            Audience::All => true,
                            Audience::Person(p) => p == *k,
                        })
                        .map(|(_, k)| k.clone())
                        .collect();
                    for key in readers {
                        check_event(&live.room, &key, &event);
                    }
                }
                Effect::Hint { cell, .. } => {
                    assert!(cell <= 8 && live.room.position().cell(cell).is_none());
                }
                Effect::Detach { conn } => {
                    if self.current.get(&conn) == Some(&slot) {
                        self.current.remove(&conn);
                    }
                }
                Effect::Commit(game) => {
                    check_commit(live, &game);
                    live.committed.insert(game.id.clone());
                    let more = if self.commit_fails {
                        live.room.commit_failed()
                    } else {
                        let updates = rate(&mut self.ratings, &game);
                        live.room.committed(updates)
                    };
                    live.answers += 1;
                    queue.extend(more);
                }
                Effect::LoadRatings(users) => {
                    let game = live.room.settings().game;
                    let pairs: Vec<(UserId, i32)> = users
                        .iter()
                        .map(|u| {
                            (
                                *u,
                                *self
                                    .ratings
                                    .get(&(game, *u))
                                    .unwrap_or(&engine::INITIAL_RATING),
                            )
                        })
                        .collect();
                    queue.extend(live.room.set_ratings(&pairs));
                }
                Effect::Vacate { user, from } => {
                    let to = live.room.id().to_owned();
                    assert_ne!(from, to);
                    self.vacates.push_back((user, from, to));
                }
                // The next game (M3.12) is a new room; this one closes as with `Close`.
                Effect::Close(_) | Effect::NextGame => {
                    let id = live.room.id().to_owned();
                    self.seats.release_room(&id);
                    self.slots[slot] = None;
                    self.current.retain(|_, s| *s != slot);
                    return;
                }
            }
        }
        if changed {
            self.publish(slot);
        }
    }

    /// Every viewer's snapshot and the lobby row.
    fn publish(&self, slot: usize) {
        let Some(live) = self.slots[slot].as_ref() else {
            return;
        };
        let room = &live.room;
        for (_, key) in room.viewers() {
            check_view(room, key, &room.view_for(key, self.now));
        }
        if let RoomKind::Online {
            joining: Joining::Passcode { code },
        } = room.summary().kind
        {
            assert_eq!(code, None, "the lobby shows the passcode");
        }
    }

    /// The actor's `RoomMsg::Vacate`; a room that has closed meanwhile is gone.
    fn deliver(&mut self) {
        let Some((user, from, to)) = self.vacates.pop_front() else {
            return;
        };
        for slot in 0..2 {
            if let Some(live) = self.slots[slot].as_mut()
                && live.room.id() == from
            {
                let fx = live.room.vacate(user, &to, &mut self.seats);
                self.carry_out(slot, fx);
            }
        }
    }

    fn tick(&mut self) {
        for slot in 0..2 {
            let Some(live) = self.slots[slot].as_mut() else {
                continue;
            };
            let mut ctx = Ctx {
                now_ms: self.now,
                wall_ms: WALL + self.now,
                rng: &mut self.rng,
                seats: &mut self.seats,
                rated: &rooms::rated::Unlimited,
            };
            let fx = live.room.tick(&mut ctx);
            if tracing() && !fx.is_empty() {
                eprintln!(
                    "{} tick at {}: moves {:?}",
                    live.room.id(),
                    self.now,
                    live.room.record().moves()
                );
            }
            if let Some(deadline) = live.room.deadline_ms() {
                assert!(
                    deadline > self.now,
                    "the clock ran out and nothing happened"
                );
            }
            self.carry_out(slot, fx);
        }
    }

    /// Invariants of both rooms and the seat book, after every step.
    fn check(&self, prev: &[Option<(String, Phase, Vec<u8>)>; 2]) {
        let mut seated: BTreeMap<UserId, String> = BTreeMap::new();
        for (slot, live) in self.slots.iter().enumerate() {
            let Some(live) = live else { continue };
            let room = &live.room;
            check_room(live);
            // An online game, once finished, stays finished with the same moves.
            if let Some((id, phase, moves)) = &prev[slot]
                && *id == room.id()
                && online(room)
            {
                let order = |p: Phase| match p {
                    Phase::Waiting => 0,
                    Phase::Playing => 1,
                    Phase::Finished => 2,
                };
                assert!(
                    order(room.phase()) >= order(*phase),
                    "{phase:?} -> {:?}",
                    room.phase()
                );
                if *phase == Phase::Finished {
                    assert_eq!(room.record().moves(), moves.as_slice());
                }
            }
            // M3.4 and the seat book. A player whose seat move is still on its way sits in
            // the old room until it arrives, which is fine while that room is waiting (the
            // move reopens the seat); once it plays, the move would come too late.
            if online(room) && room.phase() != Phase::Finished {
                for user in room.seated_users() {
                    let leaving = self
                        .vacates
                        .iter()
                        .any(|(u, from, _)| *u == user && from == room.id());
                    if leaving {
                        assert_eq!(
                            room.phase(),
                            Phase::Waiting,
                            "user {user} moved out of {} before its game started, yet plays there",
                            room.id()
                        );
                        continue;
                    }
                    if let Some(other) = seated.insert(user, room.id().to_owned()) {
                        panic!("user {user} sits in {other} and {}", room.id());
                    }
                    let place = self.seats.place(user);
                    assert!(
                        place
                            .as_ref()
                            .is_some_and(|p| p.room == room.id()
                                && p.active == (room.phase() == Phase::Playing)),
                        "user {user} seated in {} but the seat book says {place:?}",
                        room.id()
                    );
                }
            }
            // Passcodes: every person's view, and the lobby row.
            for m in &self.people {
                check_view(room, &m.key, &room.view_for(&m.key, self.now));
            }
        }
        for user in 1..=4 {
            if let Some(place) = self.seats.place(user) {
                assert_eq!(
                    seated.get(&user),
                    Some(&place.room),
                    "the seat book keeps user {user} in {place:?}"
                );
            }
        }
    }
}

/// The store's rating update for a finished game (E2), as `firmware-host` does it.
fn rate(ratings: &mut BTreeMap<(Game, UserId), i32>, game: &FinishedGame) -> Vec<RatingUpdate> {
    let (PlayerRef::User { id: x, .. }, PlayerRef::User { id: o, .. }) = (&game.x, &game.o) else {
        return Vec::new();
    };
    if !game.rated {
        return Vec::new();
    }
    let rx = *ratings
        .get(&(game.game, *x))
        .unwrap_or(&engine::INITIAL_RATING);
    let ro = *ratings
        .get(&(game.game, *o))
        .unwrap_or(&engine::INITIAL_RATING);
    let score = match game.end.winner() {
        Some(Mark::X) => Score::Win,
        Some(Mark::O) => Score::Loss,
        None => Score::Draw,
    };
    let (ax, ao) = elo::preview(rx, ro, score);
    ratings.insert((game.game, *x), ax);
    ratings.insert((game.game, *o), ao);
    vec![
        RatingUpdate {
            user: *x,
            mark: Mark::X,
            before: rx,
            after: ax,
        },
        RatingUpdate {
            user: *o,
            mark: Mark::O,
            before: ro,
            after: ao,
        },
    ]
}

fn check_commit(live: &Live, game: &FinishedGame) {
    let room = &live.room;
    assert!(
        !live.committed.contains(&game.id),
        "game {} committed twice",
        game.id
    );
    if online(room) {
        assert!(
            live.committed.is_empty(),
            "a second result in online room {}",
            room.id()
        );
        assert!(game.rated);
        assert!(
            matches!(game.x, PlayerRef::User { .. }) && matches!(game.o, PlayerRef::User { .. })
        );
    } else {
        assert!(!game.rated);
    }
    assert_eq!(room.phase(), Phase::Finished);
    assert_eq!(game.moves, room.record().moves());
    assert_eq!(game.game, room.settings().game);
    match game.end {
        GameEnd::Line { .. } | GameEnd::FullBoard | GameEnd::Repetition => {
            assert_eq!(room.record().end().map(GameEnd::from), Some(game.end));
        }
        GameEnd::Agreed | GameEnd::Resigned { .. } => {
            assert_eq!(room.record().end(), None);
            assert!(online(room) || matches!(game.end, GameEnd::Resigned { .. }));
        }
        GameEnd::Timeout { .. } => {
            assert!(online(room) && room.settings().game == Game::Xo);
        }
    }
    for (mark, player) in [(Mark::X, &game.x), (Mark::O, &game.o)] {
        let seat = room
            .seat_state()
            .iter()
            .find(|s| s.mark == Some(mark))
            .expect("both marks seated");
        let occupant = seat
            .occupant
            .as_ref()
            .expect("seat with a mark is occupied");
        let same = match (occupant, player) {
            (
                Occupant::Human {
                    key: PlayerKey::User(a),
                    ..
                },
                PlayerRef::User { id, .. },
            ) => a == id,
            (
                Occupant::Human {
                    key: PlayerKey::Guest(_),
                    ..
                },
                PlayerRef::Guest { .. },
            ) => true,
            (Occupant::Bot { difficulty: a }, PlayerRef::Bot { difficulty: b }) => a == b,
            (Occupant::Local { name: a }, PlayerRef::Local { name: b }) => a == b,
            _ => false,
        };
        assert!(same, "{mark:?} is {occupant:?} but stored as {player:?}");
    }
}

fn check_event(room: &Room, key: &PlayerKey, event: &Event) {
    if key != room.host() && passcode_of(room).is_some() {
        let text = format!("{event:?}");
        assert!(
            !text.contains(PASSCODE),
            "{key:?} told the passcode: {text}"
        );
    }
    if let Event::Moved { cell, removed, .. } = event {
        assert!(*cell <= 8 && removed.is_none_or(|r| r <= 8 && r != *cell));
    }
}

fn check_view(room: &Room, key: &PlayerKey, view: &RoomView) {
    let is_host = key == room.host();
    if let RoomKind::Online {
        joining: Joining::Passcode { code },
    } = &view.kind
    {
        if is_host {
            assert_eq!(code.as_deref(), passcode_of(room));
        } else {
            assert_eq!(*code, None, "{key:?} sees the passcode");
        }
    }
    if !is_host {
        for r in &view.requests {
            assert_eq!(Some(r.user), user_of(key), "{key:?} sees another's request");
        }
    }
    // The view lists each side's marks oldest first; the position keeps XO's as a set (its
    // own order is the cells'), Infinite XO's oldest first.
    let p = room.position();
    for (shown, mark) in [(&view.x, Mark::X), (&view.o, Mark::O)] {
        let held = p.marks(mark).as_slice();
        if p.game() == Game::Infinite {
            assert_eq!(shown.as_slice(), held);
        } else {
            let mut sorted = shown.clone();
            sorted.sort_unstable();
            let mut cells = held.to_vec();
            cells.sort_unstable();
            assert_eq!(sorted, cells);
        }
    }
    assert_eq!(view.moves, room.record().moves());
    assert_eq!(view.phase, room.phase());
    assert_eq!(view.clock.is_some(), room.deadline_ms().is_some());
    if view.you.to_move {
        assert!(plays(room, key) && room.phase() == Phase::Playing);
    }
    assert!(
        view.elo.is_none() || online(room),
        "an ELO panel outside rated rooms"
    );
    assert_eq!(
        view.result.is_some(),
        room.outcome_state().is_some_and(|(_, announced)| announced)
    );
}

fn check_room(live: &Live) {
    let room = &live.room;
    let seats = room.seat_state();
    let phase = room.phase();
    let record = room.record();
    // The game: replaying the moves gives exactly this record (repetition counts included).
    let replay = GameRecord::from_moves(room.settings().game, record.moves())
        .expect("the room's moves are legal");
    assert_eq!(&replay, record);
    let p = room.position();
    assert_eq!(Position::from_setup(&p.to_setup()), Ok(p));
    if room.settings().game == Game::Infinite {
        assert!(p.marks(Mark::X).len() <= 3 && p.marks(Mark::O).len() <= 3);
    }
    if record.end().is_some() {
        assert_eq!(phase, Phase::Finished, "the rules ended the game");
    }
    match phase {
        Phase::Waiting => {
            assert!(online(room));
            assert!(record.moves().is_empty());
            assert!(room.outcome_state().is_none() && room.draw_offer().is_none());
            assert!(seats.iter().all(|s| s.mark.is_none()));
        }
        Phase::Playing => {
            assert!(room.outcome_state().is_none());
            assert!(room.requests().is_empty() || !online(room));
        }
        Phase::Finished => {
            assert!(room.outcome_state().is_some());
            assert!(room.draw_offer().is_none());
        }
    }
    if phase != Phase::Waiting {
        let marks: BTreeSet<Mark> = seats.iter().filter_map(|s| s.mark).collect();
        assert_eq!(marks.len(), 2, "{seats:?}");
        assert!(seats.iter().all(|s| s.occupant.is_some()));
    }
    if room.draw_offer().is_some() {
        assert!(online(room) && phase == Phase::Playing);
    }
    // The clock runs exactly while a human has to move.
    let bot_to_move = match room.settings().opponent {
        Opponent::Bot { human, .. } => p.turn() != human,
        _ => false,
    };
    let clocked = phase == Phase::Playing && room.settings().per_move_ms.is_some() && !bot_to_move;
    assert_eq!(room.deadline_ms().is_some(), clocked);
    if phase == Phase::Playing && bot_to_move {
        panic!("the bot did not move: {p:?}");
    }
    // Seats.
    let host = room.host();
    match &room.settings().opponent {
        Opponent::Player { .. } => {
            assert!(
                matches!(&seats[0].occupant, Some(Occupant::Human { key, .. }) if key == host),
                "{seats:?}"
            );
            match &seats[1].occupant {
                None => assert!(phase == Phase::Waiting),
                Some(Occupant::Human {
                    key: PlayerKey::User(u),
                    ..
                }) => assert_ne!(&PlayerKey::User(*u), host),
                Some(other) => panic!("seat 2 holds {other:?}"),
            }
            let users = room.seated_users();
            assert!(users.len() <= 2);
            for (u, _) in room.requests() {
                assert!(!users.contains(u), "seated user {u} has a pending request");
            }
            let distinct: BTreeSet<&UserId> = room.requests().iter().map(|(u, _)| u).collect();
            assert_eq!(distinct.len(), room.requests().len());
        }
        Opponent::Bot { human, difficulty } => {
            assert!(matches!(&seats[0].occupant, Some(Occupant::Human { key, .. }) if key == host));
            assert_eq!(seats[0].mark, Some(*human));
            assert_eq!(
                seats[1].occupant,
                Some(Occupant::Bot {
                    difficulty: *difficulty
                })
            );
            assert!(room.requests().is_empty());
        }
        Opponent::Local { .. } => {
            assert!(
                seats
                    .iter()
                    .all(|s| matches!(s.occupant, Some(Occupant::Local { .. })))
            );
            assert!(room.requests().is_empty());
        }
    }
    // Saved rooms (restarts): waiting and active rooms come back with the same seats,
    // settings, moves and repetition counts, requests, kicks and draw offer.
    if phase != Phase::Finished {
        let restored =
            Room::restore(&room.save(), &mut Seats::default()).expect("a saved room restores");
        assert_eq!(restored.id(), room.id());
        assert_eq!(restored.settings(), room.settings());
        assert_eq!(restored.host(), room.host());
        assert_eq!(restored.phase(), phase);
        assert_eq!(restored.record(), record);
        assert_eq!(restored.seat_state(), seats);
        assert_eq!(restored.requests(), room.requests());
        assert_eq!(restored.kicked(), room.kicked());
        assert_eq!(restored.draw_offer(), room.draw_offer());
    }
    for k in room.kicked() {
        assert!(!plays(room, k) || !online(room), "kicked {k:?} is seated");
        assert!(
            room.viewers().all(|(_, v)| v != k),
            "kicked {k:?} views the room"
        );
    }
    // Results: each commit answered once, each answer announced once.
    assert_eq!(live.results, live.answers);
    assert!(live.answers <= live.committed.len());
    if online(room) {
        assert!(live.committed.len() <= 1);
    }
    if let Some((_, true)) = room.outcome_state() {
        assert!(live.results >= 1);
    }
}

fuzz_target!(|input: Input| {
    let mut world = World {
        people: people(),
        slots: [None, None],
        seats: Seats::default(),
        rng: StdRng::seed_from_u64(input.seed),
        now: 1_000,
        ratings: BTreeMap::new(),
        current: BTreeMap::new(),
        rooms_made: 0,
        commit_fails: input.commit_fails,
        vacates: VecDeque::new(),
    };
    world.create(0, input.rooms[0]);
    world.create(1, input.rooms[1]);
    world.check(&[None, None]);
    for step in input.steps.iter().take(300) {
        let prev: [Option<(String, Phase, Vec<u8>)>; 2] = core::array::from_fn(|s| {
            world.slots[s].as_ref().map(|l| {
                (
                    l.room.id().to_owned(),
                    l.room.phase(),
                    l.room.record().moves().to_vec(),
                )
            })
        });
        match step {
            Step::Intent { room, who, act } => {
                let slot = usize::from(*room);
                let member = world.people[usize::from(*who) % world.people.len()].clone();
                let intent = match act {
                    Act::Open => Intent::Open,
                    Act::Close => Intent::Close,
                    Act::Join(guess) => Intent::Join {
                        passcode: match guess {
                            Guess::None => None,
                            Guess::Right => Some(PASSCODE.to_owned()),
                            Guess::Wrong => Some("1357".to_owned()),
                            Guess::Text(t) => Some(t.clone()),
                        },
                    },
                    Act::CancelRequest => Intent::CancelRequest,
                    Act::Accept(u) => Intent::Accept {
                        user: UserId::from(*u % 6),
                    },
                    Act::Decline(u) => Intent::Decline {
                        user: UserId::from(*u % 6),
                    },
                    Act::Kick => Intent::Kick,
                    Act::Ready(r) => Intent::Ready { ready: *r },
                    Act::Start => Intent::Start,
                    Act::Move(c) => Intent::Move { cell: *c % 11 },
                    Act::OfferDraw => Intent::OfferDraw,
                    Act::AnswerDraw(a) => Intent::AnswerDraw { accept: *a },
                    Act::Resign => Intent::Resign,
                    Act::Exit => Intent::Exit,
                    Act::Hint => Intent::Hint,
                    Act::Undo => Intent::Undo,
                };
                if world.slots[slot].is_none() {
                    continue;
                }
                // Open and join make the room current (the session's `enter`); other intents
                // go to the current room only.
                match intent {
                    Intent::Open | Intent::Join { .. } => world.switch(member.conn, slot),
                    _ => {
                        if world.current.get(&member.conn) != Some(&slot) {
                            continue;
                        }
                    }
                }
                world.intent(slot, &member, intent);
            }
            Step::Disconnect { who } => {
                let conn = world.people[usize::from(*who) % world.people.len()].conn;
                if let Some(slot) = world.current.remove(&conn)
                    && let Some(live) = world.slots[slot].as_mut()
                {
                    let fx = live.room.disconnect(conn);
                    world.carry_out(slot, fx);
                }
            }
            Step::Wait { ms } => {
                world.now += u64::from(*ms) * 2;
                world.tick();
            }
            Step::Create { room, setup } => world.create(usize::from(*room), *setup),
            Step::Deliver => world.deliver(),
        }
        world.check(&prev);
    }
});
