//! The test bench of the room's unit tests: a seat book shared by the rooms of one test, a
//! seeded rng, a clock, and helpers to create rooms and apply intents.

pub(super) use engine::{Cell, Game, Mark};
pub(super) use protocol::records::{FinishedGame, GameEnd, PlayerRef, RatingUpdate, UserId};
pub(super) use protocol::{
    CloseReason, CreateRoom, ErrorCode, Event, Joining, JoiningRequest, Name, OpponentRequest,
    Phase, RoomKind,
};
pub(super) use rand::SeedableRng;
pub(super) use rand::rngs::StdRng;

use super::*;
pub(super) use crate::seats::{SeatBook, Seats};
pub(super) use crate::settings::Settings;

/// A test bench: a seat book shared by the rooms of one test, a seeded rng and a clock.
pub(super) struct Bench {
    pub(super) rng: StdRng,
    pub(super) seats: Seats,
    pub(super) now: u64,
}

impl Bench {
    pub(super) fn new() -> Bench {
        Bench {
            rng: StdRng::seed_from_u64(7),
            seats: Seats::default(),
            now: 1_000,
        }
    }

    pub(super) fn ctx(&mut self) -> Ctx<'_, StdRng> {
        Ctx {
            now_ms: self.now,
            wall_ms: 1_700_000_000_000 + self.now,
            rng: &mut self.rng,
            seats: &mut self.seats,
            rated: &crate::rated::Unlimited,
        }
    }

    pub(super) fn apply(
        &mut self,
        room: &mut Room,
        who: &Member,
        intent: Intent,
    ) -> Result<Vec<Effect>, Refusal> {
        let mut ctx = self.ctx();
        room.apply(who, intent, &mut ctx)
    }

    /// Applies an intent that must succeed.
    pub(super) fn ok(&mut self, room: &mut Room, who: &Member, intent: Intent) -> Vec<Effect> {
        let shown = format!("{intent:?}");
        self.apply(room, who, intent)
            .unwrap_or_else(|e| panic!("{shown} refused: {e}"))
    }

    /// Applies an intent that must be refused with `code`, leaving the room unchanged.
    pub(super) fn refused(
        &mut self,
        room: &mut Room,
        who: &Member,
        intent: Intent,
        code: ErrorCode,
    ) {
        let before = room.clone();
        let seats_before = self.seats.clone();
        let shown = format!("{intent:?}");
        let err = self.apply(room, who, intent).expect_err(&shown);
        assert_eq!(err.code, code, "{shown}: {}", err.message);
        assert!(!err.message.is_empty());
        // A wrong passcode is remembered (M3.3); nothing else may change.
        assert!(
            room.same_except_passcode_memory(&before),
            "{shown} changed the room"
        );
        assert_eq!(
            format!("{:?}", self.seats),
            format!("{seats_before:?}"),
            "{shown} changed the seat book"
        );
    }

    pub(super) fn create(
        &mut self,
        creator: &Member,
        game: Game,
        opponent: OpponentRequest,
        time: Option<u8>,
        id: &str,
    ) -> Room {
        let settings = Settings::from_request(
            &CreateRoom {
                game,
                opponent,
                time_per_move_s: time,
            },
            creator.user().is_some(),
        )
        .expect("valid settings");
        if let (true, Some(user)) = (settings.is_online(), creator.user()) {
            self.seats
                .claim(user, id, false)
                .expect("creator seated nowhere");
        }
        let mut ctx = self.ctx();
        let mut room = Room::new(id.to_owned(), settings, creator, &mut ctx);
        room.resume(&mut ctx);
        let mut ctx = self.ctx();
        room.apply(creator, Intent::Open, &mut ctx)
            .expect("creator opens");
        room
    }

    pub(super) fn online(
        &mut self,
        host: &Member,
        game: Game,
        joining: JoiningRequest,
        id: &str,
    ) -> Room {
        self.create(host, game, OpponentRequest::Player { joining }, None, id)
    }

    /// An online game with `host` and `guest` seated and started; returns the room and the
    /// (X, O) members.
    pub(super) fn started(
        &mut self,
        host: &Member,
        guest: &Member,
        game: Game,
    ) -> (Room, Member, Member) {
        let mut room = self.online(host, game, JoiningRequest::Open, "r1");
        self.ok(&mut room, guest, Intent::Join { passcode: None });
        self.ok(&mut room, guest, Intent::Ready { ready: true });
        self.ok(&mut room, host, Intent::Start);
        let host_mark = room.seats[0].mark.expect("marks assigned at start");
        if host_mark == Mark::X {
            (room, host.clone(), guest.clone())
        } else {
            (room, guest.clone(), host.clone())
        }
    }
}

pub(super) fn user(conn: ConnId, id: UserId) -> Member {
    Member {
        conn,
        key: PlayerKey::User(id),
        name: format!("user{id}"),
        guest_id: format!("g{id}"),
        device: Some(format!("d{id}")),
    }
}

pub(super) fn guest(conn: ConnId, id: &str) -> Member {
    Member {
        conn,
        key: PlayerKey::Guest(id.into()),
        name: guest_name(id),
        guest_id: id.into(),
        device: None,
    }
}

pub(super) fn events(fx: &[Effect]) -> Vec<&Event> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Event { event, .. } => Some(event),
            _ => None,
        })
        .collect()
}

pub(super) fn commit(fx: &[Effect]) -> Option<&FinishedGame> {
    fx.iter().find_map(|e| match e {
        Effect::Commit(g) => Some(g),
        _ => None,
    })
}

pub(super) fn bot(difficulty: u8, side: Option<Mark>) -> OpponentRequest {
    OpponentRequest::Bot {
        difficulty: Some(difficulty),
        side,
    }
}

pub(super) fn local() -> OpponentRequest {
    OpponentRequest::Local {
        names: ["Sara".into(), "Omar".into()],
    }
}

/// X holds 0, 1, 5 and O holds 2, 3, 7: each side can rotate its marks without a line.
pub(super) const OPENING: [Cell; 6] = [0, 2, 1, 3, 5, 7];
/// Eight plies that return to the position after [`OPENING`].
pub(super) const CYCLE: [Cell; 8] = [6, 8, 0, 2, 1, 3, 5, 7];

/// A rated XO game in progress after one move, as a spectator sees it (for tests outside this
/// module).
pub(crate) fn bench_view() -> protocol::RoomView {
    let mut b = Bench::new();
    let (mut room, x, _) = b.started(&user(1, 1), &user(2, 2), Game::Xo);
    let watcher = guest(3, "g3");
    b.ok(&mut room, &watcher, Intent::Open);
    b.ok(&mut room, &x, Intent::Move { cell: 4 });
    room.view_for(&watcher.key, b.now)
}
