//! The rules of rooms, one test per rule, on the pure state machine.

use engine::{Game, Mark};
use protocol::records::{GameEnd, PlayerRef, RatingUpdate};
use protocol::{
    CreateRoom, ErrorCode, Event, Joining, JoiningRequest, OpponentRequest, Phase, RoomKind,
};
use rand::SeedableRng;
use rand::rngs::StdRng;

use super::*;
use crate::seats::Seats;
use crate::settings::Settings;

/// A test bench: a seat book shared by the rooms of one test, a seeded rng and a clock.
struct Bench {
    rng: StdRng,
    seats: Seats,
    now: u64,
}

impl Bench {
    fn new() -> Bench {
        Bench {
            rng: StdRng::seed_from_u64(7),
            seats: Seats::default(),
            now: 1_000,
        }
    }

    fn ctx(&mut self) -> Ctx<'_, StdRng> {
        Ctx {
            now_ms: self.now,
            wall_ms: 1_700_000_000_000 + self.now,
            rng: &mut self.rng,
            seats: &mut self.seats,
        }
    }

    fn apply(
        &mut self,
        room: &mut Room,
        who: &Member,
        intent: Intent,
    ) -> Result<Vec<Effect>, Refusal> {
        let mut ctx = self.ctx();
        room.apply(who, intent, &mut ctx)
    }

    /// Applies an intent that must succeed.
    fn ok(&mut self, room: &mut Room, who: &Member, intent: Intent) -> Vec<Effect> {
        let shown = format!("{intent:?}");
        self.apply(room, who, intent)
            .unwrap_or_else(|e| panic!("{shown} refused: {e}"))
    }

    /// Applies an intent that must be refused with `code`, leaving the room unchanged.
    fn refused(&mut self, room: &mut Room, who: &Member, intent: Intent, code: ErrorCode) {
        let before = room.clone();
        let seats_before = self.seats.clone();
        let shown = format!("{intent:?}");
        let err = self.apply(room, who, intent).expect_err(&shown);
        assert_eq!(err.code, code, "{shown}: {}", err.message);
        assert!(!err.message.is_empty());
        assert_eq!(*room, before, "{shown} changed the room");
        assert_eq!(
            format!("{:?}", self.seats),
            format!("{seats_before:?}"),
            "{shown} changed the seat book"
        );
    }

    fn create(
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

    fn online(&mut self, host: &Member, game: Game, joining: JoiningRequest, id: &str) -> Room {
        self.create(host, game, OpponentRequest::Player { joining }, None, id)
    }

    /// An online game with `host` and `guest` seated and started; returns the room and the
    /// (X, O) members.
    fn started(&mut self, host: &Member, guest: &Member, game: Game) -> (Room, Member, Member) {
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

fn user(conn: ConnId, id: UserId) -> Member {
    Member {
        conn,
        key: PlayerKey::User(id),
        name: format!("user{id}"),
    }
}

fn guest(conn: ConnId, id: &str) -> Member {
    Member {
        conn,
        key: PlayerKey::Guest(id.into()),
        name: guest_name(id),
    }
}

fn events(fx: &[Effect]) -> Vec<&Event> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Event { event, .. } => Some(event),
            _ => None,
        })
        .collect()
}

fn commit(fx: &[Effect]) -> Option<&FinishedGame> {
    fx.iter().find_map(|e| match e {
        Effect::Commit(g) => Some(g),
        _ => None,
    })
}

fn bot(difficulty: u8, side: Option<Mark>) -> OpponentRequest {
    OpponentRequest::Bot {
        difficulty: Some(difficulty),
        side,
    }
}

fn local() -> OpponentRequest {
    OpponentRequest::Local {
        names: ["Sara".into(), "Omar".into()],
    }
}

// ---- M3.2, M3.3: creating and joining ---------------------------------------------------------

#[test]
fn online_room_waits_with_host_ready_in_seat_one() {
    let mut b = Bench::new();
    let host = user(1, 1);
    let room = b.online(&host, Game::Xo, JoiningRequest::Open, "r1");
    assert_eq!(room.phase(), Phase::Waiting);
    let view = room.view_for(&host.key, b.now);
    assert!(view.seats[0].ready);
    assert_eq!(view.you.seat, Some(0));
    assert!(view.you.host);
    assert!(view.seats[1].player.is_none());
    assert!(room.summary().open_seat);
}

#[test]
fn open_join_seats_player_at_once() {
    let mut b = Bench::new();
    let (host, joiner) = (user(1, 1), user(2, 2));
    let mut room = b.online(&host, Game::Xo, JoiningRequest::Open, "r1");
    let fx = b.ok(&mut room, &joiner, Intent::Join { passcode: None });
    assert!(fx.contains(&Effect::Changed));
    assert_eq!(room.view_for(&joiner.key, b.now).you.seat, Some(1));
    assert!(!room.summary().open_seat);
    b.refused(
        &mut room,
        &user(3, 3),
        Intent::Join { passcode: None },
        ErrorCode::RoomFull,
    );
    b.refused(
        &mut room,
        &joiner,
        Intent::Join { passcode: None },
        ErrorCode::AlreadySeated,
    );
}

#[test]
fn guest_cannot_join_online_room() {
    let mut b = Bench::new();
    let mut room = b.online(&user(1, 1), Game::Xo, JoiningRequest::Open, "r1");
    b.refused(
        &mut room,
        &guest(2, "g1"),
        Intent::Join { passcode: None },
        ErrorCode::SignInRequired,
    );
}

#[test]
fn bot_and_local_rooms_cannot_be_joined() {
    let mut b = Bench::new();
    let mut room = b.create(&guest(1, "g1"), Game::Xo, bot(50, None), None, "r1");
    b.refused(
        &mut room,
        &user(2, 2),
        Intent::Join { passcode: None },
        ErrorCode::NotJoinable,
    );
}

#[test]
fn wrong_passcode_is_refused() {
    let mut b = Bench::new();
    let mut room = b.online(
        &user(1, 1),
        Game::Xo,
        JoiningRequest::Passcode {
            code: "0420".into(),
        },
        "r1",
    );
    let joiner = user(2, 2);
    b.refused(
        &mut room,
        &joiner,
        Intent::Join { passcode: None },
        ErrorCode::PasscodeRequired,
    );
    b.refused(
        &mut room,
        &joiner,
        Intent::Join {
            passcode: Some("0421".into()),
        },
        ErrorCode::WrongPasscode,
    );
    b.ok(
        &mut room,
        &joiner,
        Intent::Join {
            passcode: Some("0420".into()),
        },
    );
    assert_eq!(room.view_for(&joiner.key, b.now).you.seat, Some(1));
}

#[test]
fn passcode_sent_to_host_only() {
    let mut b = Bench::new();
    let host = user(1, 1);
    let mut room = b.online(
        &host,
        Game::Xo,
        JoiningRequest::Passcode {
            code: "0420".into(),
        },
        "r1",
    );
    let joiner = user(2, 2);
    let watcher = guest(3, "g3");
    b.ok(&mut room, &watcher, Intent::Open);
    b.ok(
        &mut room,
        &joiner,
        Intent::Join {
            passcode: Some("0420".into()),
        },
    );
    assert_eq!(
        room.view_for(&host.key, b.now).kind,
        RoomKind::Online {
            joining: Joining::Passcode {
                code: Some("0420".into())
            }
        }
    );
    for reader in [&joiner.key, &watcher.key] {
        let view = room.view_for(reader, b.now);
        assert_eq!(
            view.kind,
            RoomKind::Online {
                joining: Joining::Passcode { code: None }
            }
        );
        assert!(!serde_json::to_string(&view).unwrap().contains("0420"));
    }
    assert!(
        !serde_json::to_string(&room.summary())
            .unwrap()
            .contains("0420")
    );
}

#[test]
fn approval_request_is_accepted_declined_or_cancelled() {
    let mut b = Bench::new();
    let host = user(1, 1);
    let (a, c, d) = (user(2, 2), user(3, 3), user(4, 4));
    let mut room = b.online(&host, Game::Xo, JoiningRequest::Approval, "r1");
    let fx = b.ok(&mut room, &a, Intent::Join { passcode: None });
    assert!(fx.iter().any(|e| matches!(e, Effect::Event { to: Audience::Person(k), event: Event::JoinRequested { user: 2, .. } } if *k == host.key)));
    b.refused(
        &mut room,
        &a,
        Intent::Join { passcode: None },
        ErrorCode::AlreadyRequested,
    );
    b.ok(&mut room, &c, Intent::Join { passcode: None });
    b.ok(&mut room, &d, Intent::Join { passcode: None });
    // The host sees every request; a requester sees only their own; nobody is seated yet.
    assert_eq!(room.view_for(&host.key, b.now).requests.len(), 3);
    let own = room.view_for(&a.key, b.now);
    assert_eq!(own.requests.len(), 1);
    assert!(own.you.requested);
    assert_eq!(own.you.seat, None);
    // Only the host answers.
    b.refused(
        &mut room,
        &a,
        Intent::Accept { user: 2 },
        ErrorCode::NotHost,
    );
    b.refused(
        &mut room,
        &host,
        Intent::Accept { user: 99 },
        ErrorCode::NoRequest,
    );
    // Cancel, decline, accept.
    b.ok(&mut room, &d, Intent::CancelRequest);
    b.refused(&mut room, &d, Intent::CancelRequest, ErrorCode::NoRequest);
    let fx = b.ok(&mut room, &host, Intent::Decline { user: 3 });
    assert!(events(&fx).contains(&&Event::RequestDeclined { room: "r1".into() }));
    b.ok(&mut room, &host, Intent::Accept { user: 2 });
    assert_eq!(room.view_for(&a.key, b.now).you.seat, Some(1));
    assert!(room.view_for(&host.key, b.now).requests.is_empty());
}

// ---- M3.4: one seat per player ----------------------------------------------------------------

#[test]
fn pending_request_keeps_old_seat_until_accepted() {
    let mut b = Bench::new();
    let (h1, h2, p) = (user(1, 1), user(2, 2), user(3, 3));
    let mut old = b.online(&h1, Game::Xo, JoiningRequest::Open, "old");
    let mut new = b.online(&h2, Game::Xo, JoiningRequest::Approval, "new");
    b.ok(&mut old, &p, Intent::Join { passcode: None });
    // Asking elsewhere keeps the waiting seat.
    let p2 = Member {
        conn: 30,
        ..p.clone()
    };
    b.ok(&mut new, &p2, Intent::Join { passcode: None });
    assert_eq!(old.view_for(&p.key, b.now).you.seat, Some(1));
    assert_eq!(b.seats.place(3).map(|pl| pl.room), Some("old".to_owned()));
    // Acceptance moves the player and reopens the old seat.
    let fx = b.ok(&mut new, &h2, Intent::Accept { user: 3 });
    assert!(fx.contains(&Effect::Vacate {
        user: 3,
        from: "old".into()
    }));
    assert_eq!(b.seats.place(3).map(|pl| pl.room), Some("new".to_owned()));
    let fx = old.vacate(3, "new", &mut b.seats);
    assert!(events(&fx).contains(&&Event::SeatMoved {
        from: "old".into(),
        to: "new".into()
    }));
    assert!(old.view_for(&h1.key, b.now).seats[1].player.is_none());
    assert!(old.summary().open_seat);
}

#[test]
fn player_in_active_game_cannot_join_another_seat() {
    let mut b = Bench::new();
    let (h1, p, h2) = (user(1, 1), user(2, 2), user(3, 3));
    let (_active, _, _) = b.started(&h1, &p, Game::Xo);
    let mut other = b.online(&h2, Game::Xo, JoiningRequest::Open, "r2");
    b.refused(
        &mut other,
        &p,
        Intent::Join { passcode: None },
        ErrorCode::AlreadySeated,
    );
    let mut asks = b.online(&user(4, 4), Game::Xo, JoiningRequest::Approval, "r3");
    b.refused(
        &mut asks,
        &p,
        Intent::Join { passcode: None },
        ErrorCode::AlreadySeated,
    );
}

#[test]
fn request_accepted_after_requester_started_elsewhere_is_refused() {
    let mut b = Bench::new();
    let (h1, h2, p) = (user(1, 1), user(2, 2), user(3, 3));
    let mut asks = b.online(&h2, Game::Xo, JoiningRequest::Approval, "asks");
    b.ok(&mut asks, &p, Intent::Join { passcode: None });
    let mut first = b.online(&h1, Game::Xo, JoiningRequest::Open, "first");
    b.ok(&mut first, &p, Intent::Join { passcode: None });
    b.ok(&mut first, &p, Intent::Ready { ready: true });
    b.ok(&mut first, &h1, Intent::Start);
    b.refused(
        &mut asks,
        &h2,
        Intent::Accept { user: 3 },
        ErrorCode::AlreadySeated,
    );
}

/// Found with the room fuzz target (`fuzz/`, once it delivered seat moves late as the room
/// actors do): a player seated in a waiting room takes a seat in another room; the message that
/// reopens the old seat is still on its way when the old room's host starts. The game must not
/// start with a player who now sits elsewhere (M3.4).
#[test]
fn start_refused_while_a_player_has_moved_to_another_room() {
    let mut b = Bench::new();
    let (h1, p, h2) = (user(1, 1), user(2, 2), user(3, 3));
    let mut old = b.online(&h1, Game::Xo, JoiningRequest::Open, "old");
    let mut new = b.online(&h2, Game::Xo, JoiningRequest::Open, "new");
    b.ok(&mut old, &p, Intent::Join { passcode: None });
    b.ok(&mut old, &p, Intent::Ready { ready: true });
    let fx = b.ok(&mut new, &p, Intent::Join { passcode: None });
    assert!(fx.contains(&Effect::Vacate {
        user: 2,
        from: "old".into()
    }));
    // The old room has not heard yet: its seat still shows the player.
    assert!(old.seated_users().contains(&2));
    b.refused(&mut old, &h1, Intent::Start, ErrorCode::SeatEmpty);
    old.vacate(2, "new", &mut b.seats);
    b.refused(&mut old, &h1, Intent::Start, ErrorCode::SeatEmpty);
    // The player's new room starts normally; they are in one active game only.
    b.ok(&mut new, &p, Intent::Ready { ready: true });
    b.ok(&mut new, &h2, Intent::Start);
    assert!(
        b.seats
            .place(2)
            .is_some_and(|pl| pl.room == "new" && pl.active)
    );
    assert!(
        b.seats
            .place(1)
            .is_some_and(|pl| pl.room == "old" && !pl.active)
    );
}

/// The same for the host: accepted into another room, they cannot start their old one.
#[test]
fn start_refused_when_the_host_has_moved_to_another_room() {
    let mut b = Bench::new();
    let (h1, p, h2) = (user(1, 1), user(2, 2), user(3, 3));
    let mut old = b.online(&h1, Game::Xo, JoiningRequest::Open, "old");
    let mut new = b.online(&h2, Game::Xo, JoiningRequest::Approval, "new");
    b.ok(&mut old, &p, Intent::Join { passcode: None });
    b.ok(&mut old, &p, Intent::Ready { ready: true });
    let asking = Member {
        conn: 11,
        ..h1.clone()
    };
    b.ok(&mut new, &asking, Intent::Join { passcode: None });
    b.ok(&mut new, &h2, Intent::Accept { user: 1 });
    b.refused(&mut old, &h1, Intent::Start, ErrorCode::AlreadySeated);
    let fx = old.vacate(1, "new", &mut b.seats);
    assert!(fx.contains(&Effect::Close(CloseReason::HostLeft)));
}

// ---- M3.5: kick -------------------------------------------------------------------------------

#[test]
fn kicked_player_cannot_spectate_or_rejoin() {
    let mut b = Bench::new();
    let (host, p) = (user(1, 1), user(2, 2));
    let mut room = b.online(&host, Game::Xo, JoiningRequest::Open, "r1");
    b.ok(&mut room, &p, Intent::Join { passcode: None });
    b.refused(&mut room, &p, Intent::Kick, ErrorCode::NotHost);
    let fx = b.ok(&mut room, &host, Intent::Kick);
    assert!(events(&fx).contains(&&Event::Kicked { room: "r1".into() }));
    assert!(fx.contains(&Effect::Detach { conn: p.conn }));
    assert!(room.summary().open_seat);
    assert_eq!(b.seats.place(2), None);
    for intent in [Intent::Open, Intent::Join { passcode: None }] {
        b.refused(&mut room, &p, intent, ErrorCode::Kicked);
    }
    // Another connection of the same player is refused too.
    b.refused(
        &mut room,
        &Member {
            conn: 99,
            ..p.clone()
        },
        Intent::Open,
        ErrorCode::Kicked,
    );
}

#[test]
fn kick_is_only_before_play() {
    let mut b = Bench::new();
    let (host, p) = (user(1, 1), user(2, 2));
    let (mut room, _, _) = b.started(&host, &p, Game::Xo);
    b.refused(&mut room, &host, Intent::Kick, ErrorCode::AlreadyStarted);
}

// ---- M3.6: ready and start --------------------------------------------------------------------

#[test]
fn start_needs_host_two_players_and_both_ready() {
    let mut b = Bench::new();
    let (host, p) = (user(1, 1), user(2, 2));
    let mut room = b.online(&host, Game::Infinite, JoiningRequest::Open, "r1");
    b.refused(&mut room, &host, Intent::Start, ErrorCode::SeatEmpty);
    b.ok(&mut room, &p, Intent::Join { passcode: None });
    b.refused(&mut room, &host, Intent::Start, ErrorCode::NotReady);
    b.ok(&mut room, &p, Intent::Ready { ready: true });
    b.ok(&mut room, &host, Intent::Ready { ready: false });
    b.refused(&mut room, &host, Intent::Start, ErrorCode::NotReady);
    b.ok(&mut room, &host, Intent::Ready { ready: true });
    b.refused(&mut room, &p, Intent::Start, ErrorCode::NotHost);
    b.refused(
        &mut room,
        &guest(5, "g"),
        Intent::Ready { ready: true },
        ErrorCode::Spectator,
    );
    let fx = b.ok(&mut room, &host, Intent::Start);
    assert!(fx.contains(&Effect::LoadRatings(vec![1, 2])));
    assert_eq!(room.phase(), Phase::Playing);
    let marks = [room.seats[0].mark, room.seats[1].mark];
    assert!(marks == [Some(Mark::X), Some(Mark::O)] || marks == [Some(Mark::O), Some(Mark::X)]);
    assert_eq!(room.position().turn(), Mark::X);
    assert!(b.seats.place(1).is_some_and(|p| p.active));
    b.refused(&mut room, &host, Intent::Start, ErrorCode::AlreadyStarted);
}

#[test]
fn start_assigns_marks_at_random() {
    let mut host_x = 0;
    for seed in 0..40 {
        let mut b = Bench::new();
        b.rng = StdRng::seed_from_u64(seed);
        let (room, x, _) = b.started(&user(1, 1), &user(2, 2), Game::Xo);
        assert_eq!(
            room.seats[0].mark.map(|m| m == Mark::X),
            Some(x.key == PlayerKey::User(1))
        );
        host_x += usize::from(x.key == PlayerKey::User(1));
    }
    assert!(
        (5..=35).contains(&host_x),
        "host was X {host_x} times of 40"
    );
}

// ---- moves, M4 spectators, bad input ----------------------------------------------------------

#[test]
fn move_out_of_turn_or_on_occupied_cell_is_refused() {
    let mut b = Bench::new();
    let (mut room, x, o) = b.started(&user(1, 1), &user(2, 2), Game::Xo);
    b.refused(
        &mut room,
        &o,
        Intent::Move { cell: 4 },
        ErrorCode::NotYourTurn,
    );
    b.refused(
        &mut room,
        &x,
        Intent::Move { cell: 9 },
        ErrorCode::NoSuchCell,
    );
    let fx = b.ok(&mut room, &x, Intent::Move { cell: 4 });
    assert!(events(&fx).iter().any(|e| matches!(
        e,
        Event::Moved {
            cell: 4,
            mark: Mark::X,
            automatic: false,
            bot: false,
            ..
        }
    )));
    b.refused(
        &mut room,
        &o,
        Intent::Move { cell: 4 },
        ErrorCode::CellOccupied,
    );
    b.refused(
        &mut room,
        &x,
        Intent::Move { cell: 0 },
        ErrorCode::NotYourTurn,
    );
}

#[test]
fn move_before_start_is_refused() {
    let mut b = Bench::new();
    let host = user(1, 1);
    let mut room = b.online(&host, Game::Xo, JoiningRequest::Open, "r1");
    b.refused(
        &mut room,
        &host,
        Intent::Move { cell: 0 },
        ErrorCode::NotStarted,
    );
}

#[test]
fn spectator_cannot_move_or_act() {
    let mut b = Bench::new();
    let (mut room, x, _o) = b.started(&user(1, 1), &user(2, 2), Game::Infinite);
    let spectator = guest(9, "watcher");
    let signed_in_spectator = user(10, 10);
    b.ok(&mut room, &spectator, Intent::Open);
    b.ok(&mut room, &signed_in_spectator, Intent::Open);
    b.ok(&mut room, &x, Intent::OfferDraw);
    for who in [&spectator, &signed_in_spectator] {
        for intent in [
            Intent::Move { cell: 0 },
            Intent::Resign,
            Intent::OfferDraw,
            Intent::AnswerDraw { accept: true },
            Intent::Ready { ready: true },
        ] {
            b.refused(&mut room, who, intent, ErrorCode::Spectator);
        }
        for intent in [
            Intent::Start,
            Intent::Kick,
            Intent::Accept { user: 1 },
            Intent::Decline { user: 1 },
        ] {
            b.refused(&mut room, who, intent, ErrorCode::NotHost);
        }
        b.refused(&mut room, who, Intent::Undo, ErrorCode::UndoUnavailable);
        b.refused(&mut room, who, Intent::Hint, ErrorCode::HintUnavailable);
    }
    assert_eq!(room.view_for(&spectator.key, b.now).spectators, 2);
    assert!(!room.view_for(&spectator.key, b.now).you.to_move);
}

#[test]
fn spectators_of_bot_and_local_games_cannot_act() {
    let mut b = Bench::new();
    let owner = guest(1, "kiosk");
    let watcher = user(2, 2);
    for opponent in [bot(50, None), local()] {
        let mut room = b.create(&owner, Game::Infinite, opponent, None, "r1");
        b.ok(&mut room, &watcher, Intent::Open);
        for intent in [Intent::Move { cell: 0 }, Intent::Resign, Intent::Undo] {
            b.refused(&mut room, &watcher, intent, ErrorCode::Spectator);
        }
        assert_eq!(room.view_for(&watcher.key, b.now).spectators, 1);
    }
}

#[test]
fn presence_follows_connections() {
    let mut b = Bench::new();
    let (host, p) = (user(1, 1), user(2, 2));
    let mut room = b.online(&host, Game::Xo, JoiningRequest::Open, "r1");
    b.ok(&mut room, &p, Intent::Join { passcode: None });
    assert!(room.view_for(&host.key, b.now).seats[1].present);
    room.disconnect(p.conn);
    let view = room.view_for(&host.key, b.now);
    assert!(
        !view.seats[1].present,
        "M3.10: leaving changes presence only"
    );
    assert!(view.seats[1].player.is_some());
    b.ok(
        &mut room,
        &Member {
            conn: 77,
            ..p.clone()
        },
        Intent::Open,
    );
    assert!(room.view_for(&host.key, b.now).seats[1].present);
}

// ---- M3.7: clocks -----------------------------------------------------------------------------

#[test]
fn infinite_clock_expiry_plays_random_cell() {
    let mut b = Bench::new();
    let (mut room, x, _o) = b.started(&user(1, 1), &user(2, 2), Game::Infinite);
    assert_eq!(room.deadline_ms(), Some(b.now + 10_000));
    b.ok(&mut room, &x, Intent::Move { cell: 4 });
    let deadline = room.deadline_ms().expect("O's clock runs");
    b.now = deadline - 1;
    assert!(
        room.tick(&mut b.ctx()).is_empty(),
        "nothing before the deadline"
    );
    b.now = deadline;
    let fx = room.tick(&mut b.ctx());
    let auto: Vec<_> = events(&fx)
        .into_iter()
        .filter(|e| {
            matches!(
                e,
                Event::Moved {
                    mark: Mark::O,
                    automatic: true,
                    ..
                }
            )
        })
        .collect();
    assert_eq!(auto.len(), 1);
    assert_eq!(room.record.moves().len(), 2);
    assert_ne!(room.record.moves()[1], 4);
    // The next player gets the full time.
    assert_eq!(room.deadline_ms(), Some(deadline + 10_000));
    assert_eq!(room.clock.map(|c| c.mark), Some(Mark::X));
}

#[test]
fn xo_two_minutes_without_a_move_forfeits() {
    let mut b = Bench::new();
    let (mut room, _x, _o) = b.started(&user(1, 1), &user(2, 2), Game::Xo);
    b.now += 120_000;
    let fx = room.tick(&mut b.ctx());
    let game = commit(&fx).expect("a forfeit is a result");
    assert_eq!(game.end, GameEnd::Timeout { loser: Mark::X });
    assert!(game.rated);
    assert_eq!(room.phase(), Phase::Finished);
    assert_eq!(room.deadline_ms(), None);
}

#[test]
fn bot_game_human_clock_restarts_after_bot_reply() {
    let mut b = Bench::new();
    let me = guest(1, "kiosk");
    let mut room = b.create(&me, Game::Infinite, bot(100, None), Some(5), "r1");
    assert_eq!(room.deadline_ms(), Some(b.now + 5_000));
    b.now += 4_000;
    b.ok(&mut room, &me, Intent::Move { cell: 4 });
    assert_eq!(
        room.record.moves().len(),
        2,
        "the bot replied inside the room"
    );
    assert_eq!(
        room.deadline_ms(),
        Some(b.now + 5_000),
        "full time again after the bot's reply"
    );
    // On expiry the human's move is played at random and the bot replies again.
    b.now += 5_000;
    let fx = room.tick(&mut b.ctx());
    let moved: Vec<_> = events(&fx)
        .into_iter()
        .filter_map(|e| match e {
            Event::Moved { automatic, bot, .. } => Some((*automatic, *bot)),
            _ => None,
        })
        .collect();
    assert_eq!(moved, vec![(true, false), (false, true)]);
    assert_eq!(room.deadline_ms(), Some(b.now + 5_000));
}

#[test]
fn xo_bot_and_local_games_have_no_clock() {
    let mut b = Bench::new();
    let me = guest(1, "kiosk");
    for opponent in [bot(50, None), local()] {
        let room = b.create(&me, Game::Xo, opponent, None, "r1");
        assert_eq!(room.deadline_ms(), None);
    }
    let room = b.create(&me, Game::Infinite, local(), Some(30), "r2");
    assert_eq!(room.deadline_ms(), Some(b.now + 30_000));
}

// ---- R-INF-4: repetition ----------------------------------------------------------------------

/// X holds 0, 1, 5 and O holds 2, 3, 7: each side can rotate its marks without a line.
const OPENING: [Cell; 6] = [0, 2, 1, 3, 5, 7];
/// Eight plies that return to the position after [`OPENING`].
const CYCLE: [Cell; 8] = [6, 8, 0, 2, 1, 3, 5, 7];

#[test]
fn repetition_warns_on_second_occurrence_and_draws_on_third() {
    let mut b = Bench::new();
    let (mut room, x, o) = b.started(&user(1, 1), &user(2, 2), Game::Infinite);
    let mut all = Vec::new();
    for (i, cell) in OPENING.iter().chain(CYCLE.iter()).enumerate() {
        let who = if i % 2 == 0 { &x } else { &o };
        all = b.ok(&mut room, who, Intent::Move { cell: *cell });
    }
    assert!(events(&all).contains(&&Event::RepetitionWarning { room: "r1".into() }));
    assert!(room.view_for(&x.key, b.now).repetition_warning);
    let mut last = Vec::new();
    for (i, cell) in CYCLE.iter().enumerate() {
        let who = if i % 2 == 0 { &x } else { &o };
        last = b.ok(&mut room, who, Intent::Move { cell: *cell });
    }
    assert_eq!(commit(&last).map(|g| g.end), Some(GameEnd::Repetition));
    assert_eq!(room.phase(), Phase::Finished);
}

// ---- M3.8: draw offers ------------------------------------------------------------------------

#[test]
fn draw_offer_accepted_draws_declined_continues() {
    let mut b = Bench::new();
    let (mut room, x, o) = b.started(&user(1, 1), &user(2, 2), Game::Xo);
    b.refused(
        &mut room,
        &o,
        Intent::AnswerDraw { accept: true },
        ErrorCode::NoOffer,
    );
    let fx = b.ok(&mut room, &x, Intent::OfferDraw);
    assert!(events(&fx).contains(&&Event::DrawOffered {
        room: "r1".into(),
        by: Mark::X
    }));
    assert_eq!(room.view_for(&o.key, b.now).draw_offer, Some(Mark::X));
    b.refused(&mut room, &o, Intent::OfferDraw, ErrorCode::OfferPending);
    b.refused(
        &mut room,
        &x,
        Intent::AnswerDraw { accept: true },
        ErrorCode::NoOffer,
    );
    let fx = b.ok(&mut room, &o, Intent::AnswerDraw { accept: false });
    assert!(events(&fx).contains(&&Event::DrawDeclined {
        room: "r1".into(),
        by: Mark::O
    }));
    assert_eq!(room.phase(), Phase::Playing);
    // At most one offer per own turn.
    b.refused(&mut room, &x, Intent::OfferDraw, ErrorCode::OfferLimit);
    b.ok(&mut room, &x, Intent::Move { cell: 0 });
    b.ok(&mut room, &o, Intent::Move { cell: 4 });
    b.ok(&mut room, &x, Intent::OfferDraw);
    let fx = b.ok(&mut room, &o, Intent::AnswerDraw { accept: true });
    assert_eq!(commit(&fx).map(|g| g.end), Some(GameEnd::Agreed));
}

#[test]
fn making_a_move_withdraws_own_offer() {
    let mut b = Bench::new();
    let (mut room, x, o) = b.started(&user(1, 1), &user(2, 2), Game::Xo);
    b.ok(&mut room, &x, Intent::OfferDraw);
    let fx = b.ok(&mut room, &x, Intent::Move { cell: 4 });
    assert!(events(&fx).contains(&&Event::DrawDeclined {
        room: "r1".into(),
        by: Mark::X
    }));
    assert_eq!(room.view_for(&o.key, b.now).draw_offer, None);
    b.refused(
        &mut room,
        &o,
        Intent::AnswerDraw { accept: true },
        ErrorCode::NoOffer,
    );
}

// ---- M3.9: resign and exit --------------------------------------------------------------------

#[test]
fn resign_keeps_player_in_completed_room() {
    let mut b = Bench::new();
    let (mut room, x, o) = b.started(&user(1, 1), &user(2, 2), Game::Xo);
    let fx = b.ok(&mut room, &o, Intent::Resign);
    assert_eq!(
        commit(&fx).map(|g| g.end),
        Some(GameEnd::Resigned { loser: Mark::O })
    );
    assert!(!fx.iter().any(|e| matches!(e, Effect::Detach { .. })));
    let view = room.view_for(&o.key, b.now);
    assert!(
        view.you.seat.is_some(),
        "the resigning player stays in the roster"
    );
    assert_eq!(view.phase, Phase::Finished);
    b.refused(&mut room, &x, Intent::Resign, ErrorCode::GameOver);
    assert_eq!(b.seats.place(1), None);
    assert_eq!(b.seats.place(2), None);
}

#[test]
fn exit_during_play_is_resignation() {
    let mut b = Bench::new();
    let (mut room, x, _o) = b.started(&user(1, 1), &user(2, 2), Game::Infinite);
    let fx = b.ok(&mut room, &x, Intent::Exit);
    assert_eq!(
        commit(&fx).map(|g| g.end),
        Some(GameEnd::Resigned { loser: Mark::X })
    );
    let commit_at = fx.iter().position(|e| matches!(e, Effect::Commit(_)));
    let detach_at = fx
        .iter()
        .position(|e| *e == Effect::Detach { conn: x.conn });
    assert!(
        commit_at < detach_at,
        "back to the lobby once the resignation succeeded"
    );
}

#[test]
fn host_leaving_waiting_room_closes_it() {
    let mut b = Bench::new();
    let (host, p) = (user(1, 1), user(2, 2));
    let mut room = b.online(&host, Game::Xo, JoiningRequest::Open, "r1");
    b.ok(&mut room, &p, Intent::Join { passcode: None });
    let fx = b.ok(&mut room, &host, Intent::Exit);
    assert!(fx.contains(&Effect::Close(CloseReason::HostLeft)));
    assert_eq!(b.seats.place(1), None);
    assert_eq!(b.seats.place(2), None);
}

#[test]
fn seated_player_leaving_waiting_room_reopens_seat() {
    let mut b = Bench::new();
    let (host, p) = (user(1, 1), user(2, 2));
    let mut room = b.online(&host, Game::Xo, JoiningRequest::Open, "r1");
    b.ok(&mut room, &p, Intent::Join { passcode: None });
    let fx = b.ok(&mut room, &p, Intent::Exit);
    assert!(fx.contains(&Effect::Detach { conn: p.conn }));
    assert!(commit(&fx).is_none(), "no rating effect");
    assert!(room.summary().open_seat);
    assert_eq!(b.seats.place(2), None);
}

// ---- E3, E4: ratings --------------------------------------------------------------------------

#[test]
fn rated_result_is_announced_only_after_commit() {
    let mut b = Bench::new();
    let (mut room, x, o) = b.started(&user(1, 1), &user(2, 2), Game::Xo);
    room.set_ratings(&[(1, 1200), (2, 1200)]);
    let mut fx = Vec::new();
    for (who, cell) in [(&x, 0), (&o, 3), (&x, 1), (&o, 4), (&x, 2)] {
        fx = b.ok(&mut room, who, Intent::Move { cell });
    }
    let game = commit(&fx).expect("line win commits").clone();
    assert!(game.rated);
    assert_eq!(
        game.end,
        GameEnd::Line {
            winner: Mark::X,
            line: [0, 1, 2]
        }
    );
    assert_eq!(game.moves, vec![0, 3, 1, 4, 2]);
    assert!(matches!(game.x, PlayerRef::User { .. }));
    assert!(
        !events(&fx)
            .iter()
            .any(|e| matches!(e, Event::Result { .. })),
        "not before commit"
    );
    assert_eq!(room.view_for(&x.key, b.now).result, None);
    let x_user = match x.key {
        PlayerKey::User(u) => u,
        PlayerKey::Guest(_) => unreachable!(),
    };
    let o_user = match o.key {
        PlayerKey::User(u) => u,
        PlayerKey::Guest(_) => unreachable!(),
    };
    let updates = vec![
        RatingUpdate {
            user: x_user,
            mark: Mark::X,
            before: 1200,
            after: 1216,
        },
        RatingUpdate {
            user: o_user,
            mark: Mark::O,
            before: 1200,
            after: 1184,
        },
    ];
    let fx = room.committed(updates.clone());
    assert!(
        events(&fx)
            .iter()
            .any(|e| matches!(e, Event::Result { ratings, .. } if *ratings == updates))
    );
    let view = room.view_for(&o.key, b.now);
    let result = view.result.expect("announced");
    assert_eq!(result.ratings, updates);
    assert!(result.rated);
    let o_seat = usize::from(view.you.seat.expect("seated"));
    assert_eq!(
        view.seats[o_seat].player.as_ref().and_then(|p| p.rating),
        Some(1184)
    );
}

#[test]
fn elo_preview_during_active_rated_game() {
    let mut b = Bench::new();
    let (mut room, x, _o) = b.started(&user(1, 1), &user(2, 2), Game::Infinite);
    assert_eq!(
        room.view_for(&x.key, b.now).elo,
        None,
        "unknown until ratings load"
    );
    let (rx, ro) = if x.key == PlayerKey::User(1) {
        (1300, 1100)
    } else {
        (1100, 1300)
    };
    room.set_ratings(&[(1, 1300), (2, 1100)]);
    let elo = room
        .view_for(&guest(9, "w").key, b.now)
        .elo
        .expect("spectators see it too");
    assert_eq!((elo.x_rating, elo.o_rating), (rx, ro));
    let pair = |s| {
        let (a, c) = engine::elo::preview(rx, ro, s);
        [a, c]
    };
    assert_eq!(elo.x_wins, pair(engine::Score::Win));
    assert_eq!(elo.draw, pair(engine::Score::Draw));
    assert_eq!(elo.o_wins, pair(engine::Score::Loss));
}

#[test]
fn bot_and_local_games_are_unrated_and_have_no_elo_panel() {
    let mut b = Bench::new();
    let me = guest(1, "kiosk");
    let mut room = b.create(&me, Game::Xo, bot(0, None), None, "r1");
    assert_eq!(room.view_for(&me.key, b.now).elo, None);
    let fx = b.ok(&mut room, &me, Intent::Resign);
    let game = commit(&fx).expect("unrated games are stored for replay");
    assert!(!game.rated);
    assert_eq!(game.o, PlayerRef::Bot { difficulty: 0 });
}

// ---- M1: bot games ----------------------------------------------------------------------------

#[test]
fn bot_opens_when_human_chose_o() {
    let mut b = Bench::new();
    let me = guest(1, "kiosk");
    let room = b.create(&me, Game::Xo, bot(50, Some(Mark::O)), None, "r1");
    assert_eq!(room.record.moves().len(), 1);
    let view = room.view_for(&me.key, b.now);
    assert_eq!(view.turn, Mark::O);
    assert!(view.you.to_move);
    assert_eq!(view.seats[0].mark, Some(Mark::O));
    assert!(
        !view.can_undo,
        "the bot's opening is not the human's to undo"
    );
}

#[test]
fn perfect_bot_never_loses_xo() {
    for seed in 0..20 {
        let mut b = Bench::new();
        b.rng = StdRng::seed_from_u64(seed);
        let me = guest(1, "kiosk");
        let mut room = b.create(&me, Game::Xo, bot(100, None), None, "r1");
        for _ in 0..9 {
            if room.phase() != Phase::Playing {
                break;
            }
            let cell = room.position().legal_moves().next().expect("ongoing");
            b.ok(&mut room, &me, Intent::Move { cell });
        }
        assert_eq!(room.phase(), Phase::Finished);
        let end = room.outcome.as_ref().map(|o| o.end).expect("finished");
        assert_ne!(end.winner(), Some(Mark::X), "seed {seed}");
    }
}

#[test]
fn bot_undo_takes_back_human_move_and_bot_reply() {
    let mut b = Bench::new();
    let me = guest(1, "kiosk");
    let mut room = b.create(&me, Game::Infinite, bot(50, None), None, "r1");
    b.refused(&mut room, &me, Intent::Undo, ErrorCode::NothingToUndo);
    b.ok(&mut room, &me, Intent::Move { cell: 4 });
    let after_one = room.record.clone();
    let cell = room.position().legal_moves().next().expect("ongoing");
    b.ok(&mut room, &me, Intent::Move { cell });
    assert_eq!(room.record.moves().len(), 4);
    assert!(room.view_for(&me.key, b.now).can_undo);
    let fx = b.ok(&mut room, &me, Intent::Undo);
    assert!(events(&fx).contains(&&Event::Undone {
        room: "r1".into(),
        plies: 2
    }));
    assert_eq!(
        room.record, after_one,
        "repetition counts roll back too (M1.3)"
    );
    assert!(!room.view_for(&guest(2, "w").key, b.now).can_undo);
}

#[test]
fn undo_after_a_finished_bot_game_plays_on_as_a_new_game() {
    let mut b = Bench::new();
    let me = guest(1, "kiosk");
    let mut room = b.create(&me, Game::Xo, bot(0, None), None, "r1");
    b.ok(&mut room, &me, Intent::Move { cell: 4 });
    let fx = b.ok(&mut room, &me, Intent::Resign);
    assert_eq!(commit(&fx).map(|g| g.id.as_str()), Some("r1"));
    room.committed(Vec::new());
    b.ok(&mut room, &me, Intent::Undo);
    assert_eq!(room.phase(), Phase::Playing);
    assert_eq!(room.view_for(&me.key, b.now).result, None);
    let fx = b.ok(&mut room, &me, Intent::Resign);
    assert_eq!(
        commit(&fx).map(|g| g.id.as_str()),
        Some("r1-1"),
        "each stored game has its own id"
    );
}

#[test]
fn hints_only_in_bot_games_on_human_turn() {
    let mut b = Bench::new();
    let me = guest(1, "kiosk");
    let mut room = b.create(&me, Game::Xo, bot(50, None), None, "r1");
    let fx = b.ok(&mut room, &me, Intent::Hint);
    let Some(Effect::Hint { conn, cell }) = fx.first() else {
        panic!("a hint: {fx:?}");
    };
    assert_eq!(*conn, me.conn);
    assert!(
        tables::table(Game::Xo)
            .best_moves(&room.position())
            .expect("reachable")
            .contains(cell)
    );
    assert_eq!(room.record.moves().len(), 0, "a hint changes nothing");
    let mut local_room = b.create(&me, Game::Xo, local(), None, "r2");
    b.refused(
        &mut local_room,
        &me,
        Intent::Hint,
        ErrorCode::HintUnavailable,
    );
    let (mut online, x, _) = b.started(&user(1, 1), &user(2, 2), Game::Xo);
    b.refused(&mut online, &x, Intent::Hint, ErrorCode::HintUnavailable);
    b.refused(&mut online, &x, Intent::Undo, ErrorCode::UndoUnavailable);
}

// ---- M2: local games --------------------------------------------------------------------------

#[test]
fn local_device_moves_for_both_and_undoes_one_move() {
    let mut b = Bench::new();
    let me = guest(1, "kiosk");
    let mut room = b.create(&me, Game::Xo, local(), None, "r1");
    let marks = [room.seats[0].mark, room.seats[1].mark];
    assert!(marks.contains(&Some(Mark::X)) && marks.contains(&Some(Mark::O)));
    b.ok(&mut room, &me, Intent::Move { cell: 0 });
    b.ok(&mut room, &me, Intent::Move { cell: 4 });
    assert!(room.view_for(&me.key, b.now).you.to_move);
    b.ok(&mut room, &me, Intent::Undo);
    assert_eq!(room.record.moves(), &[0]);
    b.refused(&mut room, &me, Intent::OfferDraw, ErrorCode::OnlineOnly);
    b.refused(&mut room, &me, Intent::Kick, ErrorCode::OnlineOnly);
}

#[test]
fn local_exit_ends_the_game_unrated() {
    let mut b = Bench::new();
    let me = guest(1, "kiosk");
    let mut room = b.create(&me, Game::Infinite, local(), None, "r1");
    b.ok(&mut room, &me, Intent::Move { cell: 0 });
    let fx = b.ok(&mut room, &me, Intent::Exit);
    assert!(fx.contains(&Effect::Close(CloseReason::Ended)));
    assert!(commit(&fx).is_none());
}

// ---- whole-machine property: refusals change nothing -----------------------------------------

#[test]
fn refused_intents_never_change_the_room() {
    let mut b = Bench::new();
    let (mut room, x, o) = b.started(&user(1, 1), &user(2, 2), Game::Infinite);
    let people = [x, o, user(3, 3), guest(4, "g")];
    let mut refusals = 0;
    for step in 0..400u64 {
        let who = &people[usize::try_from(step % 4).expect("small")];
        let intent = match step % 11 {
            0..=3 => Intent::Move {
                cell: u8::try_from(step % 10).expect("small"),
            },
            4 => Intent::OfferDraw,
            5 => Intent::AnswerDraw {
                accept: step % 3 == 0,
            },
            6 => Intent::Kick,
            7 => Intent::Start,
            8 => Intent::Undo,
            9 => Intent::Hint,
            _ => Intent::Ready { ready: true },
        };
        let before = room.clone();
        let mut ctx = b.ctx();
        if room.apply(who, intent, &mut ctx).is_err() {
            refusals += 1;
            assert_eq!(room, before);
        }
        if room.phase() == Phase::Finished {
            break;
        }
    }
    assert!(refusals > 10);
}

// ---- saved rooms ------------------------------------------------------------------------------

#[test]
fn saved_room_restores_seats_moves_and_repetition_history() {
    let mut b = Bench::new();
    let (mut room, x, o) = b.started(&user(1, 1), &user(2, 2), Game::Infinite);
    for (i, cell) in OPENING.iter().chain(CYCLE.iter()).enumerate() {
        let who = if i % 2 == 0 { &x } else { &o };
        b.ok(&mut room, who, Intent::Move { cell: *cell });
    }
    let bytes = room.save();
    let mut fresh = Seats::default();
    let mut restored = Room::restore(&bytes, &mut fresh).expect("restores");
    assert_eq!(restored.record, room.record, "moves and repetition counts");
    assert_eq!(restored.seats, room.seats);
    assert!(fresh.place(1).is_some_and(|p| p.active));
    assert_eq!(restored.deadline_ms(), None);
    b.seats = fresh;
    b.now = 50;
    restored.resume(&mut b.ctx());
    assert_eq!(
        restored.deadline_ms(),
        Some(50 + 10_000),
        "fresh full clock"
    );
    assert!(restored.view_for(&x.key, b.now).repetition_warning);
    assert!(Room::restore(&[1, 2, 3], &mut Seats::default()).is_err());
}

/// A small in-process fuzz: random intents from random people (host, players, signed-in
/// strangers, guests) against every kind of room, with clock ticks between them. Nothing
/// panics, every refusal leaves the room and the seat book as they were, and effects that
/// need a reply from storage are answered as the actor would.
#[test]
fn random_intents_never_panic_and_refusals_change_nothing() {
    use rand::RngExt;
    let kinds = [
        (
            Game::Infinite,
            OpponentRequest::Player {
                joining: JoiningRequest::Open,
            },
        ),
        (
            Game::Xo,
            OpponentRequest::Player {
                joining: JoiningRequest::Approval,
            },
        ),
        (
            Game::Infinite,
            OpponentRequest::Player {
                joining: JoiningRequest::Passcode {
                    code: "1234".into(),
                },
            },
        ),
        (Game::Infinite, bot(30, Some(Mark::O))),
        (Game::Xo, local()),
    ];
    for seed in 0..30u64 {
        for (game, opponent) in kinds.clone() {
            let mut b = Bench::new();
            b.rng = StdRng::seed_from_u64(seed);
            let mut pick = StdRng::seed_from_u64(seed ^ 0xfeed);
            let host = user(1, 1);
            let mut room = b.create(&host, game, opponent, Some(5), "r1");
            let people = [
                host.clone(),
                user(2, 2),
                user(3, 3),
                guest(4, "g"),
                Member {
                    conn: 5,
                    ..user(2, 2)
                },
            ];
            for _ in 0..300 {
                let who = &people[pick.random_range(0..people.len())];
                let intent = match pick.random_range(0..17u8) {
                    0 => Intent::Open,
                    1 => Intent::Close,
                    2 => Intent::Join {
                        passcode: [None, Some("1234".to_owned()), Some("0000".to_owned())]
                            [pick.random_range(0..3)]
                        .clone(),
                    },
                    3 => Intent::CancelRequest,
                    4 => Intent::Accept {
                        user: pick.random_range(1..4),
                    },
                    5 => Intent::Decline {
                        user: pick.random_range(1..4),
                    },
                    6 => Intent::Kick,
                    7 => Intent::Ready {
                        ready: pick.random_bool(0.7),
                    },
                    8 => Intent::Start,
                    9..=11 => Intent::Move {
                        cell: pick.random_range(0..10),
                    },
                    12 => Intent::OfferDraw,
                    13 => Intent::AnswerDraw {
                        accept: pick.random_bool(0.3),
                    },
                    14 => {
                        if pick.random_bool(0.1) {
                            Intent::Resign
                        } else {
                            Intent::Hint
                        }
                    }
                    15 => Intent::Undo,
                    _ => {
                        if pick.random_bool(0.3) {
                            Intent::Exit
                        } else {
                            Intent::Open
                        }
                    }
                };
                let before = room.clone();
                let seats_before = format!("{:?}", b.seats);
                let result = b.apply(&mut room, who, intent.clone());
                let fx = match result {
                    Ok(fx) => fx,
                    Err(_) => {
                        assert_eq!(room, before, "{intent:?} refused but changed the room");
                        assert_eq!(format!("{:?}", b.seats), seats_before);
                        continue;
                    }
                };
                if fx.iter().any(|e| matches!(e, Effect::Close(_))) {
                    break;
                }
                if fx.iter().any(|e| matches!(e, Effect::Commit(_))) {
                    room.committed(Vec::new());
                }
                if pick.random_bool(0.05) {
                    room.disconnect(people[pick.random_range(0..people.len())].conn);
                }
                b.now += pick.random_range(0..7_000);
                let fx = room.tick(&mut b.ctx());
                if fx.iter().any(|e| matches!(e, Effect::Commit(_))) {
                    room.committed(Vec::new());
                }
                // Invariants of every state.
                let view = room.view_for(&host.key, b.now);
                assert!(view.x.len() <= game.max_marks() && view.o.len() <= game.max_marks());
                assert_eq!(view.clock.is_some(), room.deadline_ms().is_some());
                if view.phase != Phase::Playing {
                    assert_eq!(view.clock, None);
                }
            }
        }
    }
}

#[test]
fn requester_exit_withdraws_request_and_stranger_exit_is_refused() {
    let mut b = Bench::new();
    let host = user(1, 1);
    let asker = user(2, 2);
    let mut room = b.online(&host, Game::Xo, JoiningRequest::Approval, "r1");
    b.ok(&mut room, &asker, Intent::Join { passcode: None });
    // Another connection of the asker, not viewing, may still withdraw by leaving.
    let elsewhere = Member {
        conn: 42,
        ..asker.clone()
    };
    let fx = b.ok(&mut room, &elsewhere, Intent::Exit);
    assert!(!fx.iter().any(|e| matches!(e, Effect::Detach { .. })));
    assert!(room.view_for(&host.key, b.now).requests.is_empty());
    b.refused(&mut room, &user(3, 3), Intent::Exit, ErrorCode::NotInRoom);
}
