//! What each reader sees (M3.3 passcode to the host only, E4 preview).

use super::bench::*;
use super::*;

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
fn xo_snapshot_lists_marks_in_play_order() {
    let mut b = Bench::new();
    let owner = guest(1, "kiosk");
    let mut room = b.create(&owner, Game::Xo, local(), None, "r1");
    for cell in [8, 0, 4, 2] {
        b.ok(&mut room, &owner, Intent::Move { cell });
    }
    let view = room.view_for(&owner.key, b.now);
    assert_eq!(view.x, vec![8, 4], "oldest first, as played");
    assert_eq!(view.o, vec![0, 2]);
    assert_eq!(view.moves, vec![8, 0, 4, 2]);
}

#[test]
fn infinite_snapshot_lists_the_marks_left_oldest_first() {
    let mut b = Bench::new();
    let owner = guest(1, "kiosk");
    let mut room = b.create(&owner, Game::Infinite, local(), None, "r1");
    // X: 8, 4, 6, then 1 removes 8. O: 0, 2, 5.
    for cell in [8, 0, 4, 2, 6, 5, 1] {
        b.ok(&mut room, &owner, Intent::Move { cell });
    }
    let view = room.view_for(&owner.key, b.now);
    assert_eq!(view.x, vec![4, 6, 1]);
    assert_eq!(view.o, vec![0, 2, 5]);
}

/// The server sent English names ("Guest e6ce", "Bot 0%") the UI could not word in
/// Arabic. Snapshots and lobby rows carry each name as a kind beside the old strings.
#[test]
fn names_are_sent_as_kinds_for_the_client_to_word() {
    let mut b = Bench::new();
    let me = guest(1, "e6ce99");
    let room = b.create(&me, Game::Xo, bot(0, None), None, "r1");
    let view = room.view_for(&me.key, b.now);
    let names: Vec<Name> = view
        .seats
        .iter()
        .filter_map(|s| s.player.as_ref().map(|p| p.name.clone()))
        .collect();
    let kinds = vec![
        Name::Guest { tag: "e6ce".into() },
        Name::Bot { difficulty: 0 },
    ];
    assert_eq!(names, kinds);
    let row = room.summary();
    assert_eq!(row.names, kinds);
    assert_eq!(
        row.players,
        vec!["Guest e6ce".to_owned(), "Bot 0%".to_owned()]
    );
    let local_room = b.create(&user(2, 2), Game::Xo, local(), None, "r2");
    assert_eq!(
        local_room.summary().names,
        vec![
            Name::Local {
                name: "Sara".into()
            },
            Name::Local {
                name: "Omar".into()
            }
        ]
    );
    assert_eq!(
        me.name_kind(),
        Name::Guest { tag: "e6ce".into() },
        "the hello's `you`"
    );
}

/// One snapshot serves every plain spectator, so it must be exactly what each of them would
/// get, and nobody with a part of their own (host, players, a requester) may share it.
#[test]
fn shared_spectator_view_is_each_spectators_view() {
    let mut b = Bench::new();
    let host = user(1, 1);
    let mut room = b.online(&host, Game::Xo, JoiningRequest::Approval, "r1");
    let asker = user(2, 2);
    let (guest_watcher, user_watcher) = (guest(3, "g3"), user(4, 4));
    b.ok(&mut room, &guest_watcher, Intent::Open);
    b.ok(&mut room, &user_watcher, Intent::Open);
    b.ok(&mut room, &asker, Intent::Join { passcode: None });
    assert!(!room.sees_spectator_view(&host.key), "the host");
    assert!(!room.sees_spectator_view(&asker.key), "a requester");
    for watcher in [&guest_watcher, &user_watcher] {
        assert!(room.sees_spectator_view(&watcher.key));
    }
    assert_eq!(
        room.view_for(&guest_watcher.key, b.now),
        room.view_for(&user_watcher.key, b.now)
    );
    b.ok(&mut room, &host, Intent::Accept { user: 2 });
    b.ok(&mut room, &asker, Intent::Ready { ready: true });
    b.ok(&mut room, &host, Intent::Start);
    assert!(!room.sees_spectator_view(&asker.key), "a seated player");
    assert_eq!(
        room.view_for(&guest_watcher.key, b.now),
        room.view_for(&user_watcher.key, b.now)
    );
}

/// When `views_differ_only_in_you`, one view with each reader's `you_for` is exactly
/// each reader's own view (host, players, spectators, through waiting and play); and a room
/// where some reader has a part of their own (the host's requests, the host's passcode) says
/// so.
#[test]
fn one_view_with_each_readers_you_is_each_readers_view() {
    let mut b = Bench::new();
    let host = user(1, 1);
    let mut room = b.online(&host, Game::Infinite, JoiningRequest::Approval, "r1");
    let player = user(2, 2);
    let (guest_watcher, user_watcher) = (guest(3, "g3"), user(4, 4));
    b.ok(&mut room, &guest_watcher, Intent::Open);
    b.ok(&mut room, &user_watcher, Intent::Open);
    let readers = [&host, &player, &guest_watcher, &user_watcher];
    let shared_is_each_own = |room: &Room, now| {
        let one = room.view_for(&host.key, now);
        for reader in readers {
            let mut view = one.clone();
            view.you = room.you_for(&reader.key);
            assert_eq!(view, room.view_for(&reader.key, now), "{:?}", reader.key);
        }
    };
    assert!(room.views_differ_only_in_you(), "no requests yet");
    shared_is_each_own(&room, b.now);
    b.ok(&mut room, &player, Intent::Join { passcode: None });
    assert!(
        !room.views_differ_only_in_you(),
        "a request: the host sees it, others do not"
    );
    b.ok(&mut room, &host, Intent::Accept { user: 2 });
    b.ok(&mut room, &player, Intent::Ready { ready: true });
    b.ok(&mut room, &host, Intent::Start);
    assert!(room.views_differ_only_in_you(), "a game in progress");
    shared_is_each_own(&room, b.now);
    let x = if room.you_for(&host.key).to_move {
        &host
    } else {
        &player
    };
    b.ok(&mut room, x, Intent::Move { cell: 4 });
    shared_is_each_own(&room, b.now);

    let secret = b.online(
        &user(5, 5),
        Game::Xo,
        JoiningRequest::Passcode {
            code: "0420".into(),
        },
        "r2",
    );
    assert!(
        !secret.views_differ_only_in_you(),
        "the passcode is the host's alone"
    );
}

/// The lobby row is checked at every snapshot without making one. The check agrees
/// with the row itself in every state of a room's life, and notices each change of the row:
/// a join, a start, a spectator, a bot room and a local room's names.
#[test]
fn the_listed_row_is_recognised_without_making_one_and_every_change_is_seen() {
    let mut b = Bench::new();
    let host = user(1, 1);
    let guest_player = user(2, 2);
    let mut room = b.online(&host, Game::Xo, JoiningRequest::Open, "r1");
    let mut listed = room.summary();
    let mut step = |room: &Room, what: &str, changes: bool| {
        let now = room.summary();
        assert!(room.is_listed_as(&now), "{what}: its own row");
        assert_eq!(
            !room.is_listed_as(&listed),
            changes,
            "{what}: the old row {}",
            if changes { "is stale" } else { "still holds" }
        );
        listed = now;
    };
    step(&room, "created", false);
    b.ok(&mut room, &guest_player, Intent::Join { passcode: None });
    step(&room, "a player joined", true);
    b.ok(&mut room, &guest_player, Intent::Ready { ready: true });
    step(&room, "ready (not in the row)", false);
    let watcher = guest(3, "g3");
    b.ok(&mut room, &watcher, Intent::Open);
    step(&room, "a spectator", true);
    let second_tab = guest(4, "g3");
    b.ok(&mut room, &second_tab, Intent::Open);
    step(&room, "the same spectator's second tab", false);
    b.ok(&mut room, &host, Intent::Start);
    step(&room, "started", true);
    let x = if room.you_for(&host.key).to_move {
        &host
    } else {
        &guest_player
    };
    b.ok(&mut room, x, Intent::Move { cell: 4 });
    step(&room, "a move", false);

    for (opponent, id) in [(bot(40, None), "b1"), (local(), "l1")] {
        let kiosk = guest(9, "kiosk");
        let room = b.create(&kiosk, Game::Xo, opponent, None, id);
        assert!(room.is_listed_as(&room.summary()), "{id}");
        let mut other = room.summary();
        other.players.reverse();
        other.names.reverse();
        assert!(!room.is_listed_as(&other), "{id}: seats in the other order");
        let mut fewer = room.summary();
        fewer.names.pop();
        assert!(!room.is_listed_as(&fewer), "{id}: a name missing");
    }
}

/// A room's spectators are people: two tabs of one person count once, both with a few viewers
/// (counted without a set) and with many.
#[test]
fn spectators_are_counted_once_per_person_with_few_or_many_viewers() {
    let mut b = Bench::new();
    let host = user(1, 1);
    let mut room = b.online(&host, Game::Xo, JoiningRequest::Open, "r1");
    let mut conn = 100;
    let mut open = |room: &mut Room, b: &mut Bench, id: &str| {
        conn += 1;
        b.ok(room, &guest(conn, id), Intent::Open);
    };
    for person in 0..5 {
        open(&mut room, &mut b, &format!("p{person}"));
        open(&mut room, &mut b, &format!("p{person}"));
    }
    assert_eq!(
        room.view_for(&host.key, b.now).spectators,
        5,
        "10 tabs of 5 people"
    );
    for person in 0..20 {
        open(&mut room, &mut b, &format!("p{person}"));
    }
    assert_eq!(
        room.view_for(&host.key, b.now).spectators,
        20,
        "30 tabs of 20 people"
    );
    assert!(room.is_listed_as(&room.summary()));
}

/// The room's seats are checked at every snapshot without making them. The check agrees with
/// the seats themselves in every state of a room's life (account players, a guest against the
/// bot, a local game, ratings, ready, a player away and back), notices each change, and
/// `view_with_seats` with the room's own seats is `view_for`.
#[test]
fn the_shown_seats_are_recognised_without_making_them_and_every_change_is_seen() {
    let mut b = Bench::new();
    let host = user(1, 1);
    let player = user(2, 2);
    let mut room = b.online(&host, Game::Xo, JoiningRequest::Open, "r1");
    let mut shown = room.seat_views();
    let mut step = |room: &Room, now: u64, what: &str, changes: bool| {
        let seats = room.seat_views();
        assert!(room.seats_shown_as(&seats), "{what}: its own seats");
        assert_eq!(
            !room.seats_shown_as(&shown),
            changes,
            "{what}: the old seats {}",
            if changes { "are stale" } else { "still hold" }
        );
        assert_eq!(
            room.view_with_seats(&host.key, now, seats.clone()),
            room.view_for(&host.key, now),
            "{what}"
        );
        shown = seats;
    };
    step(&room, b.now, "created", false);
    let watcher = guest(3, "g3");
    b.ok(&mut room, &watcher, Intent::Open);
    step(&room, b.now, "a spectator (not in the seats)", false);
    b.ok(&mut room, &player, Intent::Join { passcode: None });
    step(&room, b.now, "a player joined", true);
    b.ok(&mut room, &player, Intent::Ready { ready: true });
    step(&room, b.now, "ready", true);
    b.ok(&mut room, &host, Intent::Start);
    step(&room, b.now, "started", true);
    room.set_ratings(&[(1, 1250), (2, 1180)]);
    step(&room, b.now, "ratings loaded", true);
    let x = if room.you_for(&host.key).to_move {
        &host
    } else {
        &player
    };
    b.ok(&mut room, x, Intent::Move { cell: 4 });
    step(&room, b.now, "a move", false);
    room.disconnect(player.conn);
    step(&room, b.now, "a player away", true);
    b.ok(&mut room, &player, Intent::Open);
    step(&room, b.now, "back", true);

    for (opponent, id) in [(bot(40, None), "b1"), (local(), "l1")] {
        let kiosk = guest(9, "kiosk");
        let room = b.create(&kiosk, Game::Xo, opponent, None, id);
        let seats = room.seat_views();
        assert!(room.seats_shown_as(&seats), "{id}");
        let mut other = seats.clone();
        other.reverse();
        assert!(
            !room.seats_shown_as(&other),
            "{id}: seats in the other order"
        );
        let mut nobody = seats.clone();
        nobody[1].player = None;
        assert!(!room.seats_shown_as(&nobody), "{id}: a player missing");
    }
}
