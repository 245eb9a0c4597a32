//! EV6: the event on the wire.

use protocol::event::{EntrantState, EventPhase};
use protocol::records::GameEnd;

use super::arena_tests::{T0, paired, player, settings};
use super::*;

#[test]
fn snapshot_shows_the_readers_state_their_room_and_the_boards() {
    let mut a = Arena::new(
        settings(T0 + 60_000),
        EventLimits::default(),
        WaveTimes::default(),
        2,
    );
    for u in 1..=3 {
        a.join(player(u), T0).expect("joins");
    }
    a.pause(3, T0).expect("pauses");
    let ev = "ev1".to_owned();
    let v = a.view(&ev, Some(1), T0);
    assert_eq!(v.phase, EventPhase::Announced);
    assert_eq!(v.starts_in_ms, 60_000, "a countdown, as a duration");
    assert_eq!(v.players, 3);
    assert_eq!(v.you.map(|y| y.state), Some(EntrantState::Waiting));
    assert_eq!(a.view(&ev, None, T0).you, None, "a guest watches");
    assert_eq!(
        a.view(&ev, Some(3), T0).you.map(|y| y.state),
        Some(EntrantState::Paused)
    );
    // Who waited through the countdown is paired at the start.
    let (no, x, o) = paired(&a.tick(T0 + 60_000))[0];
    assert!(
        a.view(&ev, None, T0 + 63_000).boards.is_empty(),
        "no room yet"
    );
    a.seated(no, "r7".into()).expect("open");
    let v = a.view(&ev, Some(x), T0 + 63_000);
    assert_eq!(v.boards.len(), 1);
    assert_eq!((v.boards[0].x, v.boards[0].o), (x, o));
    let you = v.you.expect("in the event");
    assert_eq!(
        (you.state, you.room),
        (EntrantState::Playing, Some("r7".to_owned()))
    );
    a.presence(3, Presence::Offline, T0 + 63_000);
    a.resume(3, T0 + 63_000).expect("resumes");
    assert_eq!(a.state_of(3), Some(EntrantState::Away));
    a.leave(3, T0 + 63_000).expect("leaves");
    assert_eq!(a.state_of(3), Some(EntrantState::Left));
}

#[test]
fn the_update_after_the_last_game_carries_the_table_change_and_the_podium() {
    let mut a = Arena::new(
        settings(T0),
        EventLimits::default(),
        WaveTimes::default(),
        2,
    );
    a.tick(T0);
    a.join(player(1), T0).expect("joins");
    a.join(player(2), T0).expect("joins");
    let (no, x, _) = paired(&a.tick(T0 + 3_000))[0];
    a.tick(T0 + 3_600_000);
    let ev = "ev1".to_owned();
    let fx = a
        .game_finished(
            no,
            "r".into(),
            GameEnd::Resigned {
                loser: engine::Mark::O,
            },
            T0 + 3_700_000,
        )
        .expect("counts");
    let update = a
        .update(&ev, &fx, T0 + 3_700_000)
        .expect("something changed");
    assert_eq!(update.phase, EventPhase::Finished);
    let standings = update.standings.expect("the table changed");
    assert_eq!(standings.rows[0].user, x);
    assert_eq!(standings.rows[0].name, format!("p{x}"));
    let podium = update.podium.expect("finished");
    assert_eq!(podium.len(), 2, "1st and 2nd: the loser played too");
    assert_eq!(a.view(&ev, None, T0 + 3_700_000).podium, podium);
    assert_eq!(a.update(&ev, &[], T0), None);
}
