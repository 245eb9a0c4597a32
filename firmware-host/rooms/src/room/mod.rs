//! The room: one game's whole server-side life as a pure state machine (SPEC M1–M4, E2–E4).
//!
//! [`Room::apply`] takes one intent from one member, checks it completely *before* changing
//! anything, and either refuses it (the room unchanged; only the sender is told) or changes the
//! room and returns [`Effect`]s for the actor to carry out: snapshots, events, storage. Time,
//! randomness and the cross-room seat book come in through [`Ctx`]; there is no I/O here, so
//! every rule is unit-tested beside the file that implements it and the whole machine can be
//! fuzzed.
//!
//! One file per part of a room's life; each holds the `impl Room` for its intents:
//!
//! | file | intents and rules |
//! | --- | --- |
//! | [`member`] | who sends: [`Member`], [`PlayerKey`], guest names |
//! | [`intent`] | [`Intent`] in, [`Effect`]s out, [`Ctx`] |
//! | [`occupant`] | [`Seat`] and [`Occupant`] (human, bot, local name) |
//! | `seating` | open/close (M4, M3.10), join (M3.3), request/accept/decline/cancel (M3.3, M3.4), kick (M3.5), ready/start (M3.6), exit (M3.9, M2.3), vacate (M3.4) |
//! | [`passcode`] | the wrong-passcode throttle (M3.3) |
//! | [`bans`] | who was kicked: account, browser, device (M3.5) |
//! | `play` | move (R-XO-*, R-INF-*, U1), the bot's reply (M1, T4), resign (M3.9), hint (T5), undo (M1.3, M2.2) |
//! | `clock` | move clocks and their expiry (M3.7) |
//! | `offers` | draw offers (M3.8) |
//! | `rematch` | play again and rematches (M3.12) |
//! | `result` | the finished game, storing it and announcing ratings (E2, E3, P3) |
//! | `view` | snapshots per reader (M4, E4, U2), passcode only to the host (M3.3), lobby rows |
//! | `errors` | the checks shared by intents, and their order (which refusal wins) |

pub mod bans;
mod clock;
mod errors;
pub mod intent;
pub mod member;
pub mod occupant;
mod offers;
pub mod passcode;
mod play;
mod rematch;
mod result;
mod seating;
mod view;

#[cfg(test)]
mod bench;
#[cfg(test)]
pub(crate) use bench::bench_view;
#[cfg(test)]
mod clock_tests;
#[cfg(test)]
mod event_tests;
#[cfg(test)]
mod machine_tests;
#[cfg(test)]
mod offers_tests;
#[cfg(test)]
mod play_tests;
#[cfg(test)]
mod rematch_tests;
#[cfg(test)]
mod result_tests;
#[cfg(test)]
mod seating_tests;
#[cfg(test)]
mod view_tests;

use std::collections::{BTreeMap, BTreeSet};

use engine::{GameRecord, Mark, Position};
use protocol::records::{GameEnd, RatingUpdate, UserId};
use protocol::{Phase, RoomId};
use rand::{Rng, RngExt};

pub use self::bans::Bans;
pub use self::intent::{Audience, Ctx, Effect, Intent};
pub use self::member::{ConnId, Member, PlayerKey, guest_name, guest_tag};
pub use self::occupant::{Occupant, Seat};
pub use self::passcode::PasscodeLimits;
use self::passcode::Passcodes;
pub use crate::refusal::Refusal;
use crate::settings::{Opponent, Settings};

/// The running move clock (M3.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    pub mark: Mark,
    pub deadline_ms: u64,
}

/// What identifies a person's browser besides their account (M3.5 bans it too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Badge {
    pub(crate) guest_id: String,
    pub(crate) device: Option<String>,
}

impl Badge {
    pub(crate) fn of(member: &Member) -> Badge {
        Badge {
            guest_id: member.guest_id.clone(),
            device: member.device.clone(),
        }
    }
}

/// How the game ended, and whether players have been told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub(crate) end: GameEnd,
    pub(crate) rated: bool,
    pub(crate) ratings: Vec<RatingUpdate>,
    /// The result was stored (or storing gave up) and announced.
    pub(crate) announced: bool,
    /// A rated result that could not be stored yet: shown as pending while it is retried.
    pub(crate) pending: bool,
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
    /// M3.12: the mark (in the finished game) whose rematch offer is pending; not saved, as
    /// finished rooms are not.
    pub(crate) rematch_offer: Option<Mark>,
    /// M3.12: the marks that have offered a rematch of the finished game (one offer each).
    pub(crate) rematch_offered: [bool; 2],
    /// M3.8: for each mark, how many moves it had made when it last offered a draw.
    pub(crate) last_offer: [Option<usize>; 2],
    pub(crate) requests: Vec<(UserId, String)>,
    /// M3.5: who the host kicked: account, browser and device.
    pub(crate) kicked: Bans,
    /// The guest id and device token each player who asked for seat 2 used, so that a kick
    /// bans the browser too; kept for the seated player and pending requests only, not saved.
    pub(crate) badges: BTreeMap<UserId, Badge>,
    pub(crate) viewers: BTreeMap<ConnId, PlayerKey>,
    pub(crate) outcome: Option<Outcome>,
    pub(crate) started_at_ms: u64,
    /// Games finished in this room before the current one (bot and local games go on after
    /// an undo), so each stored game has its own id.
    pub(crate) game_no: u32,
    /// Wrong passcodes recently tried here (M3.3); not saved.
    pub(crate) passcodes: Passcodes,
    /// The arena event whose game this room plays (EV3), if any.
    pub(crate) event: Option<EventTag>,
}

/// What makes a room an arena event's game: the event, the game's number in it, and whether
/// the event is rated (a casual event's games are stored unrated, with their points).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EventTag {
    pub event: protocol::event::EventId,
    pub no: crate::event::GameNo,
    pub rated: bool,
}

fn idx(mark: Mark) -> usize {
    match mark {
        Mark::X => 0,
        Mark::O => 1,
    }
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
        let started_at_ms = if phase == Phase::Playing {
            ctx.wall_ms
        } else {
            0
        };
        Room::fresh(
            id,
            settings,
            creator.key.clone(),
            seats,
            phase,
            started_at_ms,
        )
    }

    /// A room before its first move: no clock, offers, requests, bans, viewers or result.
    fn fresh(
        id: RoomId,
        settings: Settings,
        host: PlayerKey,
        seats: [Seat; 2],
        phase: Phase,
        started_at_ms: u64,
    ) -> Room {
        let game = settings.game;
        Room {
            id,
            settings,
            host,
            seats,
            phase,
            record: GameRecord::new(game),
            clock: None,
            draw_offer: None,
            last_offer: [None, None],
            rematch_offer: None,
            rematch_offered: [false, false],
            requests: Vec::new(),
            kicked: Bans::default(),
            badges: BTreeMap::new(),
            viewers: BTreeMap::new(),
            outcome: None,
            started_at_ms,
            game_no: 0,
            passcodes: Passcodes::default(),
            event: None,
        }
    }

    /// An arena event's game (EV3) as room `id`: `x` and `o` seated with those marks in an
    /// open online room (`settings`), started at once without ready or start, both players'
    /// seats claimed and active (M3.4). The error: a player who sits in another room now.
    /// Call [`Room::resume`] next (the first clock).
    pub fn event_game<R: Rng>(
        id: RoomId,
        settings: Settings,
        x: &crate::event::Player,
        o: &crate::event::Player,
        tag: EventTag,
        ctx: &mut Ctx<'_, R>,
    ) -> Result<Room, Refusal> {
        let seat = |p: &crate::event::Player, mark| Seat {
            occupant: Some(Occupant::Human {
                key: PlayerKey::User(p.user),
                name: p.name.clone(),
            }),
            mark: Some(mark),
            ready: true,
            rating: Some(p.rating),
        };
        let mut room = Room::fresh(
            id,
            settings,
            PlayerKey::User(x.user),
            [seat(x, Mark::X), seat(o, Mark::O)],
            Phase::Playing,
            ctx.wall_ms,
        );
        room.event = Some(tag);
        for (i, user) in [x.user, o.user].into_iter().enumerate() {
            if let Err(place) = ctx.seats.claim(user, &room.id, false) {
                if i == 1 {
                    ctx.seats.release(x.user, &room.id);
                }
                return Err(Refusal::from(
                    crate::refusal::Reason::PlayerSeatedElsewhere {
                        user,
                        room: place.room,
                    },
                ));
            }
        }
        ctx.seats.set_active(&room.id, true);
        Ok(room)
    }

    /// The arena event whose game this is, if any.
    pub fn event(&self) -> Option<&EventTag> {
        self.event.as_ref()
    }

    /// Whether the game's result changes ratings (E2): online games, but for a casual event's.
    fn is_rated(&self) -> bool {
        self.is_online() && self.event.as_ref().is_none_or(|e| e.rated)
    }

    /// Who was kicked (M3.5), for the lobby to hide the room from them.
    pub fn bans(&self) -> &Bans {
        &self.kicked
    }

    /// Sets how many wrong passcodes are allowed here (M3.3); the defaults until called.
    pub fn set_passcode_limits(&mut self, limits: PasscodeLimits) {
        self.passcodes.limits = limits;
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
        let watching = || self.viewers.values().filter(|k| !self.is_player(k));
        // People, not connections: one person's two tabs count once. A few viewers (a game's
        // usual audience) are counted without a set, which every snapshot would allocate.
        let count = if self.viewers.len() <= 16 {
            watching()
                .enumerate()
                .filter(|(i, k)| !watching().take(*i).any(|seen| seen == *k))
                .count()
        } else {
            watching().collect::<BTreeSet<&PlayerKey>>().len()
        };
        u32::try_from(count).unwrap_or(u32::MAX)
    }

    /// Applies one intent. On `Err` the room is as before (but for the memory of a wrong
    /// passcode, M3.3) and only the sender is told.
    pub fn apply<R: Rng>(
        &mut self,
        from: &Member,
        intent: Intent,
        ctx: &mut Ctx<'_, R>,
    ) -> Result<Vec<Effect>, Refusal> {
        self.check_not_kicked(from)?;
        let mut fx = Vec::new();
        match intent {
            Intent::Open => self.open(from, &mut fx),
            Intent::Close => self.close(from, &mut fx),
            Intent::Join { passcode } => self.join(from, passcode, ctx, &mut fx),
            Intent::CancelRequest => self.cancel_request(from, &mut fx),
            Intent::Accept { user } => self.accept(from, user, ctx, &mut fx),
            Intent::Decline { user } => self.decline(from, user, &mut fx),
            Intent::Kick => self.kick(from, ctx, &mut fx),
            Intent::Ready { ready } => self.ready(from, ready, &mut fx),
            Intent::Start => self.start(&from.key, ctx, &mut fx),
            Intent::Move { cell } => self.play_move(from, cell, ctx, &mut fx),
            Intent::OfferDraw => self.offer_draw(from, &mut fx),
            Intent::AnswerDraw { accept } => self.answer_draw(from, accept, ctx, &mut fx),
            Intent::Resign => self.resign(from, ctx, &mut fx),
            Intent::Exit => self.exit(from, ctx, &mut fx),
            Intent::Hint => self.hint(from, ctx, &mut fx),
            Intent::Undo => self.undo(from, ctx, &mut fx),
            Intent::PlayAgain => self.play_again(from, &mut fx),
            Intent::OfferRematch => self.offer_rematch(from, ctx, &mut fx),
            Intent::AnswerRematch { accept } => self.answer_rematch(from, accept, ctx, &mut fx),
        }?;
        Ok(fx)
    }
}

impl Room {
    /// Tells every viewer `event`, then sends the changed room (snapshot, lobby, save).
    pub(super) fn tell_all(&self, event: protocol::Event, fx: &mut Vec<Effect>) {
        fx.push(Effect::to_all(event));
        fx.push(Effect::Changed);
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

    /// Accounts and browsers the host kicked.
    pub fn kicked(&self) -> &BTreeSet<PlayerKey> {
        &self.kicked.keys
    }

    /// Whether a result exists and whether it was announced.
    pub fn outcome_state(&self) -> Option<(GameEnd, bool)> {
        self.outcome.as_ref().map(|o| (o.end, o.announced))
    }

    /// Equal in everything but the memory of wrong passcodes: what a refusal may change.
    pub fn same_except_passcode_memory(&self, other: &Room) -> bool {
        let mut a = self.clone();
        a.passcodes.forget();
        let mut b = other.clone();
        b.passcodes.forget();
        a == b
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
