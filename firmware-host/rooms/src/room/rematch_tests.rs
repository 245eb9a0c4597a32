//! The next game (M3.12): play again after bot and local games, rematches after rated ones.

use super::bench::*;
use super::*;

#[test]
fn play_again_comes_after_a_finished_bot_or_local_game_only() {
    let mut b = Bench::new();
    let me = guest(1, "kiosk");
    let watcher = guest(2, "watcher");
    let mut room = b.create(&me, Game::Xo, local(), None, "r1");
    b.ok(&mut room, &watcher, Intent::Open);
    b.refused(&mut room, &me, Intent::PlayAgain, ErrorCode::NotFinished);
    b.ok(&mut room, &me, Intent::Resign);
    b.refused(&mut room, &watcher, Intent::PlayAgain, ErrorCode::Spectator);
    let fx = b.ok(&mut room, &me, Intent::PlayAgain);
    assert!(fx.contains(&Effect::NextGame));
    // Local: the same names, sides swapped, a fresh game under way.
    let next = room
        .next_game("r2".into(), &mut b.ctx())
        .expect("next game");
    assert_eq!(next.phase(), Phase::Playing);
    assert!(next.record().moves().is_empty());
    for (old, new) in room.seat_state().iter().zip(next.seat_state()) {
        assert_eq!(old.occupant, new.occupant);
        assert_eq!(new.mark, old.mark.map(Mark::other));
    }
    let (mut online, _, _) = b.started(&user(3, 3), &user(4, 4), Game::Xo);
    b.refused(
        &mut online,
        &user(3, 3),
        Intent::PlayAgain,
        ErrorCode::PlayAgainUnavailable,
    );
}

#[test]
fn play_again_keeps_the_bot_games_sides_and_the_bot_opens_for_o() {
    let mut b = Bench::new();
    let me = guest(1, "kiosk");
    let mut room = b.create(&me, Game::Xo, bot(0, Some(Mark::O)), None, "r1");
    b.ok(&mut room, &me, Intent::Resign);
    b.ok(&mut room, &me, Intent::PlayAgain);
    let mut next = room
        .next_game("r2".into(), &mut b.ctx())
        .expect("next game");
    assert_eq!(
        next.seat_state()[0].mark,
        Some(Mark::O),
        "the human keeps O"
    );
    next.resume(&mut b.ctx());
    assert_eq!(next.record().moves().len(), 1, "the bot opened");
}

#[test]
fn rematch_is_offered_once_accepted_or_declined_and_swaps_colours() {
    let mut b = Bench::new();
    let (mut room, x, o) = b.started(&user(1, 1), &user(2, 2), Game::Infinite);
    let spectator = guest(9, "watcher");
    b.ok(&mut room, &spectator, Intent::Open);
    b.refused(&mut room, &x, Intent::OfferRematch, ErrorCode::NotFinished);
    b.ok(&mut room, &o, Intent::Resign);
    b.refused(
        &mut room,
        &spectator,
        Intent::OfferRematch,
        ErrorCode::Spectator,
    );
    b.refused(
        &mut room,
        &o,
        Intent::AnswerRematch { accept: true },
        ErrorCode::NoOffer,
    );
    let fx = b.ok(&mut room, &x, Intent::OfferRematch);
    assert!(events(&fx).contains(&&Event::RematchOffered {
        room: "r1".into(),
        by: Mark::X
    }));
    assert_eq!(room.view_for(&o.key, b.now).rematch_offer, Some(Mark::X));
    b.refused(&mut room, &x, Intent::OfferRematch, ErrorCode::OfferPending);
    let fx = b.ok(&mut room, &o, Intent::AnswerRematch { accept: false });
    assert!(events(&fx).contains(&&Event::RematchDeclined {
        room: "r1".into(),
        by: Mark::O
    }));
    b.refused(&mut room, &x, Intent::OfferRematch, ErrorCode::OfferLimit);
    // O may still offer once; X accepts by offering back.
    b.ok(&mut room, &o, Intent::OfferRematch);
    let fx = b.ok(&mut room, &x, Intent::OfferRematch);
    assert!(fx.contains(&Effect::NextGame));
    let next = room.next_game("r2".into(), &mut b.ctx()).expect("rematch");
    assert_eq!(next.phase(), Phase::Playing);
    assert_eq!(next.settings(), room.settings());
    for (old, new) in room.seat_state().iter().zip(next.seat_state()) {
        assert_eq!(
            old.occupant, new.occupant,
            "the same players, the same seats"
        );
        assert_eq!(new.mark, old.mark.map(Mark::other), "colours swapped");
    }
    for user in [1, 2] {
        let place = b.seats.place(user).expect("seated in the rematch");
        assert!(place.room == "r2" && place.active);
    }
}

#[test]
fn rematch_is_refused_when_a_player_sits_elsewhere_meanwhile() {
    let mut b = Bench::new();
    let (mut room, x, o) = b.started(&user(1, 1), &user(2, 2), Game::Xo);
    b.ok(&mut room, &o, Intent::Resign);
    b.ok(&mut room, &x, Intent::OfferRematch);
    // O creates another room before answering.
    b.online(&user(2, 2), Game::Xo, JoiningRequest::Open, "r9");
    b.refused(
        &mut room,
        &o,
        Intent::AnswerRematch { accept: true },
        ErrorCode::AlreadySeated,
    );
}

#[test]
fn rematch_exists_only_in_online_rooms() {
    let mut b = Bench::new();
    let me = guest(1, "kiosk");
    let mut room = b.create(&me, Game::Xo, bot(50, None), None, "r1");
    b.ok(&mut room, &me, Intent::Resign);
    b.refused(&mut room, &me, Intent::OfferRematch, ErrorCode::OnlineOnly);
}
