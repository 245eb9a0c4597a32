//! Move clocks (M3.7).

use super::bench::*;
use super::*;

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
