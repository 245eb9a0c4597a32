//! Play: moves and bad input, spectators (M4), repetition (R-INF-4), resign (M3.9), bot games (M1), local games (M2).

use super::bench::*;
use super::*;

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
