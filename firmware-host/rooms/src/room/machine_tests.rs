//! Properties of the whole machine: refusals change nothing, saved rooms restore, random intents never panic.

use super::bench::*;
use super::*;

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
            assert!(room.same_except_passcode_memory(&before));
        }
        if room.phase() == Phase::Finished {
            break;
        }
    }
    assert!(refusals > 10);
}

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
                        assert!(
                            room.same_except_passcode_memory(&before),
                            "{intent:?} refused but changed the room"
                        );
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
