//! Seating and viewing (M3.2–M3.6, M3.9 exit, M3.10 presence, M4).

use super::bench::*;
use super::*;

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

/// A kick banned only the account, so the kicked person could watch again signed
/// out in the same browser (the same guest id) or from the same device.
#[test]
fn kick_bans_the_persons_browser_and_device_too() {
    let mut b = Bench::new();
    let (host, p) = (user(1, 1), user(2, 2));
    let mut room = b.online(&host, Game::Xo, JoiningRequest::Open, "r1");
    b.ok(&mut room, &p, Intent::Join { passcode: None });
    b.ok(&mut room, &host, Intent::Kick);
    // Signed out in the same browser: a guest with the same guest id.
    let signed_out = Member {
        key: PlayerKey::Guest(p.guest_id.clone()),
        device: None,
        ..p.clone()
    };
    b.refused(&mut room, &signed_out, Intent::Open, ErrorCode::Kicked);
    // Another account on the same device.
    let same_device = Member {
        guest_id: "other-browser".into(),
        ..user(7, 3)
    };
    let same_device = Member {
        device: p.device.clone(),
        ..same_device
    };
    b.refused(&mut room, &same_device, Intent::Open, ErrorCode::Kicked);
    // Someone else still views it, and the lobby row is hidden from the kicked person only.
    b.ok(&mut room, &user(8, 4), Intent::Open);
    assert!(room.bans().bans(&signed_out));
    assert!(!room.bans().bans(&user(8, 4)));
    // The ban survives a restart.
    let restored = Room::restore(&room.save(), &mut Seats::default()).expect("restores");
    assert!(restored.bans().bans(&signed_out) && restored.bans().bans(&same_device));
}
