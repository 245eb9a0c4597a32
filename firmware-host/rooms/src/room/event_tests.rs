//! An arena event's game (EV3, EV4, EV7): started at once with both players seated, rated as
//! its event is, no rematch or play again, and saved with its event.

use super::bench::*;
use super::*;
use crate::event::Player;

fn player(user: UserId) -> Player {
    Player {
        user,
        name: format!("user{user}"),
        rating: 1300 + i32::try_from(user).unwrap_or(0),
    }
}

fn tag(rated: bool) -> EventTag {
    EventTag {
        event: "e1".into(),
        no: 4,
        rated,
    }
}

fn event_settings(game: Game) -> Settings {
    Settings {
        game,
        opponent: crate::settings::Opponent::Player {
            policy: crate::settings::Policy::Open,
        },
        per_move_ms: Some(5_000),
    }
}

#[test]
fn an_event_game_starts_at_once_with_both_players_seated_and_their_seats_claimed() {
    let mut b = Bench::new();
    let mut room = Room::event_game(
        "r1".into(),
        event_settings(Game::Infinite),
        &player(1),
        &player(2),
        tag(true),
        &mut b.ctx(),
    )
    .expect("both free");
    assert_eq!(room.phase(), Phase::Playing);
    assert_eq!(room.seat_state()[0].mark, Some(Mark::X));
    assert_eq!(room.seat_state()[1].mark, Some(Mark::O));
    assert_eq!(room.seat_state()[1].rating, Some(1302));
    for user in [1, 2] {
        assert!(
            b.seats
                .place(user)
                .is_some_and(|p| p.active && p.room == "r1")
        );
    }
    room.resume(&mut b.ctx());
    assert!(room.deadline_ms().is_some(), "the move clock runs at once");
    // X moves without ready or start.
    b.ok(&mut room, &user(1, 1), Intent::Move { cell: 4 });
    // A player seated elsewhere cannot be paired into another game; nothing is claimed.
    let refused = Room::event_game(
        "r2".into(),
        event_settings(Game::Xo),
        &player(3),
        &player(2),
        tag(true),
        &mut b.ctx(),
    )
    .expect_err("player 2 plays in r1");
    assert_eq!(refused.code, ErrorCode::AlreadySeated);
    assert_eq!(b.seats.place(3), None);
}

#[test]
fn a_casual_events_game_is_stored_unrated_and_has_no_rematch() {
    for rated in [true, false] {
        let mut b = Bench::new();
        let mut room = Room::event_game(
            "r1".into(),
            event_settings(Game::Xo),
            &player(1),
            &player(2),
            tag(rated),
            &mut b.ctx(),
        )
        .expect("both free");
        room.resume(&mut b.ctx());
        let fx = b.ok(&mut room, &user(2, 2), Intent::Resign);
        let game = commit(&fx).expect("the game is stored");
        assert_eq!(game.rated, rated);
        assert_eq!(game.end, GameEnd::Resigned { loser: Mark::O });
        for intent in [Intent::OfferRematch, Intent::PlayAgain] {
            b.refused(&mut room, &user(1, 1), intent, ErrorCode::EventGame);
        }
        assert_eq!(b.seats.place(1), None, "free for the next pairing");
    }
}

#[test]
fn an_event_game_is_saved_with_its_event_and_other_rooms_as_before() {
    let mut b = Bench::new();
    let mut room = Room::event_game(
        "r1".into(),
        event_settings(Game::Infinite),
        &player(1),
        &player(2),
        tag(false),
        &mut b.ctx(),
    )
    .expect("both free");
    b.ok(&mut room, &user(1, 1), Intent::Move { cell: 0 });
    let mut seats = Seats::default();
    let restored = Room::restore(&room.save(), &mut seats).expect("restores");
    assert_eq!(restored.event(), Some(&tag(false)));
    assert_eq!(restored.record().moves(), &[0]);
    assert!(seats.place(2).is_some_and(|p| p.active));
    // A room outside events keeps the earlier saved form, which a release without events
    // reads: its first byte is the version's index, 1 (V2).
    let plain = b.create(&user(5, 5), Game::Xo, bot(0, None), None, "r3");
    assert_eq!(plain.save()[0], 1);
    assert_eq!(room.save()[0], 2);
}
