//! EV7: an event restored from its saved state and stored games.

use protocol::records::GameEnd;

use super::arena_tests::{T0, paired, player, settings};
use super::*;

fn restart(a: &Arena, saved: SavedArena) -> Arena {
    Arena::restore(
        saved,
        a.games().to_vec(),
        EventLimits::default(),
        WaveTimes::default(),
    )
}

#[test]
fn an_event_survives_a_restart_with_its_games_in_progress() {
    let mut a = Arena::new(
        settings(T0),
        EventLimits::default(),
        WaveTimes::default(),
        5,
    );
    a.tick(T0);
    for u in 1..=4 {
        a.join(player(u), T0).expect("joins");
    }
    let games = paired(&a.tick(T0 + 3_000));
    for (no, ..) in &games {
        a.seated(*no, format!("r{no}")).expect("open");
    }
    let (first, x, _) = games[0];
    a.game_finished(
        first,
        format!("r{first}"),
        GameEnd::Resigned {
            loser: engine::Mark::O,
        },
        T0 + 9_000,
    )
    .expect("counts");
    let mut b = restart(&a, a.saved());
    assert_eq!(b.standings(), a.standings());
    assert_eq!(b.open_games().count(), 1);
    assert!(b.tick(T0 + 60_000).is_empty(), "nobody is connected yet");
    b.presence(x, Presence::Online, T0 + 60_000);
    let (no, ..) = games[1];
    let fx = b
        .game_finished(no, format!("r{no}"), GameEnd::Agreed, T0 + 61_000)
        .expect("the game in progress counts after the restart");
    assert!(fx.iter().any(|e| matches!(e, Effect::Standings(_))));
    assert_eq!(b.standings(), &standings_from_games(b.games()));
}

#[test]
fn a_game_finished_after_the_last_save_counts_once() {
    let mut a = Arena::new(
        settings(T0),
        EventLimits::default(),
        WaveTimes::default(),
        5,
    );
    a.tick(T0);
    a.join(player(1), T0).expect("joins");
    a.join(player(2), T0).expect("joins");
    let (no, ..) = paired(&a.tick(T0 + 3_000))[0];
    let stale = a.saved(); // the game is still in progress here
    a.game_finished(no, "r".into(), GameEnd::Agreed, T0 + 5_000)
        .expect("counts");
    let b = restart(&a, stale);
    assert_eq!(b.open_games().count(), 0);
    assert_eq!(b.games().len(), 1);
    assert_eq!(b.standings(), a.standings());
    assert!(b.entry(1).is_some_and(|e| e.in_game.is_none()));
}
