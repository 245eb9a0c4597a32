//! EV2, EV3, EV5: the arena's phases, who is paired, and the end.

use std::collections::BTreeMap;

use engine::{Game, Mark};
use protocol::records::GameEnd;

use super::*;
use crate::room::member::{Member, PlayerKey};

pub(crate) const T0: u64 = 1_800_000_000_000;
const HOUR: u64 = 3_600_000;

pub(crate) fn settings(starts_at_ms: u64) -> EventSettings {
    EventSettings {
        game: Game::Xo,
        name: "Test".into(),
        starts_at_ms,
        duration_ms: HOUR,
        per_move_ms: 120_000,
        rated: true,
    }
}

pub(crate) fn player(user: u64) -> Player {
    Player {
        user,
        name: format!("p{user}"),
        rating: 1200 + user as i32,
    }
}

fn running(users: &[u64]) -> Arena {
    let mut a = Arena::new(
        settings(T0),
        EventLimits::default(),
        WaveTimes::default(),
        1,
    );
    assert_eq!(
        a.tick(T0),
        [Effect::Started {
            ends_at_ms: T0 + HOUR
        }]
    );
    for u in users {
        a.join(player(*u), T0).expect("joins");
    }
    a
}

pub(crate) fn paired(fx: &[Effect]) -> Vec<(GameNo, u64, u64)> {
    fx.iter()
        .filter_map(|e| match e {
            Effect::Paired { game, x, o, .. } => Some((*game, *x, *o)),
            _ => None,
        })
        .collect()
}

fn players_in(fx: &[Effect]) -> Vec<u64> {
    let mut v: Vec<u64> = paired(fx).iter().flat_map(|(_, x, o)| [*x, *o]).collect();
    v.sort_unstable();
    v
}

const X_WINS: GameEnd = GameEnd::Resigned { loser: Mark::O };

#[test]
fn guests_cannot_join() {
    let guest = Member {
        conn: 1,
        key: PlayerKey::Guest("g".into()),
        name: "Guest".into(),
        guest_id: "g".into(),
        device: None,
    };
    assert_eq!(
        Player::signed_in(&guest, 1200),
        Err(ArenaError::SignInRequired)
    );
    let user = Member {
        key: PlayerKey::User(5),
        name: "ana".into(),
        ..guest
    };
    assert_eq!(Player::signed_in(&user, 1300).map(|p| p.user), Ok(5));
}

#[test]
fn countdown_then_start_and_nothing_paired_before_it() {
    let mut a = Arena::new(
        settings(T0 + HOUR),
        EventLimits::default(),
        WaveTimes::default(),
        1,
    );
    assert!(a.tick(T0).is_empty());
    a.join(player(1), T0).expect("joins while announced");
    a.join(player(2), T0).expect("joins while announced");
    assert_eq!(a.next_deadline(), Some(T0 + HOUR));
    assert!(a.tick(T0 + HOUR - 1).is_empty(), "nothing before the start");
    let fx = a.tick(T0 + HOUR);
    assert_eq!(
        fx[0],
        Effect::Started {
            ends_at_ms: T0 + 2 * HOUR
        }
    );
    assert_eq!(
        players_in(&fx),
        [1, 2],
        "who waited during the countdown meet at once"
    );
    assert_eq!(a.phase(), Phase::Running);
}

#[test]
fn a_wave_gathers_for_three_seconds() {
    let mut a = running(&[1]);
    a.join(player(2), T0 + 1_000).expect("joins");
    assert_eq!(a.next_deadline(), Some(T0 + 4_000));
    assert!(paired(&a.tick(T0 + 3_999)).is_empty());
    a.join(player(3), T0 + 3_500).expect("joins");
    let fx = a.tick(T0 + 4_000);
    assert_eq!(
        paired(&fx).len(),
        1,
        "three in the wave: one pair, one waits"
    );
}

#[test]
fn a_crowd_is_paired_at_once() {
    let mut a = running(&(1..=12).collect::<Vec<_>>());
    assert_eq!(paired(&a.tick(T0)).len(), 6);
}

#[test]
fn paused_player_is_never_paired() {
    let mut a = running(&[1, 2, 3]);
    a.pause(3, T0).expect("pauses");
    let fx = a.tick(T0 + 3_000);
    assert_eq!(players_in(&fx), [1, 2]);
    a.join(player(4), T0 + 3_000).expect("joins");
    assert!(paired(&a.tick(T0 + 60_000)).is_empty(), "3 paused, 4 alone");
    a.resume(3, T0 + 60_000).expect("resumes");
    assert_eq!(players_in(&a.tick(T0 + 63_000)), [3, 4]);
}

#[test]
fn offline_player_is_never_paired() {
    let mut a = running(&[1, 2]);
    a.presence(2, Presence::Offline, T0);
    assert!(paired(&a.tick(T0 + 10_000)).is_empty());
    a.presence(2, Presence::Online, T0 + 10_000);
    assert!(
        paired(&a.tick(T0 + 12_999)).is_empty(),
        "their wait starts again"
    );
    assert_eq!(players_in(&a.tick(T0 + 13_000)), [1, 2]);
}

#[test]
fn player_seated_elsewhere_is_never_paired() {
    let mut a = running(&[1, 2]);
    a.presence(1, Presence::Elsewhere, T0);
    assert!(paired(&a.tick(T0 + 10_000)).is_empty());
    assert!(a.candidates().iter().all(|c| c.user != 1));
}

#[test]
fn player_in_a_game_is_not_paired_again_until_it_counts() {
    let mut a = running(&[1, 2, 3, 4]);
    let first = paired(&a.tick(T0 + 3_000));
    assert_eq!(first.len(), 2);
    assert!(
        paired(&a.tick(T0 + 60_000)).is_empty(),
        "everyone is playing"
    );
    let (no, x, o) = first[0];
    let fx = a
        .game_finished(no, "r".into(), X_WINS, T0 + 60_000)
        .expect("counts");
    assert!(fx.iter().any(|e| matches!(e, Effect::Standings(_))));
    assert_eq!(a.standings().rows[0].user, x);
    assert_eq!(a.standings().row(o).map(|r| r.points), Some(0));
    // Only x and o wait, and they just met: held back while the other game goes on.
    assert!(paired(&a.tick(T0 + 63_000)).is_empty());
}

#[test]
fn forced_rematch_waits_while_others_play_then_is_made() {
    let mut a = running(&[1, 2, 3, 4]);
    let first = paired(&a.tick(T0 + 3_000));
    let (no, ..) = first[0];
    a.game_finished(no, "r".into(), GameEnd::Agreed, T0 + 10_000)
        .expect("counts");
    assert!(paired(&a.tick(T0 + 13_000)).is_empty(), "held back");
    assert_eq!(a.next_deadline(), Some(T0 + 20_000));
    assert_eq!(
        paired(&a.tick(T0 + 20_000)).len(),
        1,
        "no one came: they meet again"
    );
}

#[test]
fn a_held_rematch_pairs_with_whoever_comes_next() {
    let mut a = running(&[1, 2, 3, 4]);
    let first = paired(&a.tick(T0 + 3_000));
    a.game_finished(first[0].0, "r".into(), GameEnd::Agreed, T0 + 10_000)
        .expect("counts");
    assert!(paired(&a.tick(T0 + 13_000)).is_empty());
    a.game_finished(first[1].0, "s".into(), GameEnd::Agreed, T0 + 14_000)
        .expect("counts");
    let fx = a.tick(T0 + 14_000);
    let games = paired(&fx);
    assert_eq!(games.len(), 2, "four wait; no rematch needed");
    for (_, x, o) in games {
        let met = first
            .iter()
            .any(|(_, a, b)| (*a, *b) == (x, o) || (*a, *b) == (o, x));
        assert!(!met, "{x} and {o} met last game");
    }
}

#[test]
fn time_up_pairs_nothing_new_and_games_in_progress_count() {
    let mut a = running(&[1, 2, 3, 4]);
    let games = paired(&a.tick(T0 + 3_000));
    a.game_finished(games[0].0, "r".into(), X_WINS, T0 + HOUR - 1)
        .expect("counts");
    let fx = a.tick(T0 + HOUR);
    assert_eq!(fx, [Effect::TimeUp]);
    assert_eq!(a.phase(), Phase::Ending);
    assert!(
        paired(&a.tick(T0 + HOUR + 60_000)).is_empty(),
        "after the end nobody is paired"
    );
    assert_eq!(a.join(player(9), T0 + HOUR), Err(ArenaError::EventOver));
    assert_eq!(a.pause(1, T0 + HOUR), Err(ArenaError::EventOver));
    let (no, x, _) = games[1];
    let fx = a
        .game_finished(no, "s".into(), X_WINS, T0 + HOUR + 90_000)
        .expect("the last game counts");
    assert_eq!(a.phase(), Phase::Finished);
    let Some(Effect::Ended { podium }) = fx.last() else {
        panic!("ended: {fx:?}");
    };
    assert!(podium.iter().any(|r| r.user == x && r.points == 2));
    assert_eq!(a.standings(), &standings_from_games(a.games()));
}

#[test]
fn an_event_with_no_game_in_progress_finishes_at_time_up() {
    let mut a = running(&[1]);
    let fx = a.tick(T0 + HOUR);
    assert_eq!(fx, [Effect::TimeUp, Effect::Ended { podium: vec![] }]);
    assert_eq!(a.phase(), Phase::Finished);
}

#[test]
fn leaving_before_playing_removes_the_row_leaving_later_keeps_it() {
    let mut a = running(&[1, 2, 3]);
    let fx = a.leave(3, T0).expect("leaves");
    let Some(Effect::Standings(delta)) = fx.last() else {
        panic!("standings change: {fx:?}");
    };
    assert_eq!(delta.removed, [3]);
    assert_eq!(a.leave(3, T0), Err(ArenaError::NotInEvent));
    let (no, x, o) = paired(&a.tick(T0 + 3_000))[0];
    a.leave(x, T0 + 4_000).expect("leaves during the game");
    a.game_finished(no, "r".into(), X_WINS, T0 + 9_000)
        .expect("the game counts");
    assert_eq!(a.standings().row(x).map(|r| r.points), Some(2));
    assert!(
        a.candidates().iter().all(|c| c.user != x),
        "never paired again"
    );
    assert!(a.candidates().iter().any(|c| c.user == o));
    a.join(player(x), T0 + 10_000).expect("may come back");
    assert_eq!(
        a.standings().row(x).map(|r| r.points),
        Some(2),
        "points kept"
    );
}

#[test]
fn calls_for_players_not_in_the_event_are_refused() {
    let mut a = running(&[1]);
    assert_eq!(a.pause(7, T0), Err(ArenaError::NotInEvent));
    assert_eq!(a.resume(7, T0), Err(ArenaError::NotInEvent));
    assert_eq!(a.leave(7, T0), Err(ArenaError::NotInEvent));
    assert_eq!(
        a.game_finished(99, "r".into(), X_WINS, T0),
        Err(ArenaError::UnknownGame)
    );
}

#[test]
fn a_full_event_refuses_more_players() {
    let limits = EventLimits {
        max_players: 2,
        ..EventLimits::default()
    };
    let mut a = Arena::new(settings(T0), limits, WaveTimes::default(), 1);
    a.join(player(1), T0).expect("joins");
    a.join(player(2), T0).expect("joins");
    assert_eq!(a.join(player(3), T0), Err(ArenaError::EventFull));
    a.join(player(2), T0).expect("joining again is fine");
    a.leave(2, T0).expect("leaves");
    a.join(player(3), T0).expect("a place is free");
}

#[test]
fn only_an_announced_event_is_cancelled() {
    let mut a = Arena::new(
        settings(T0 + HOUR),
        EventLimits::default(),
        WaveTimes::default(),
        1,
    );
    assert_eq!(a.cancel(), Ok(vec![Effect::Cancelled]));
    assert_eq!(a.join(player(1), T0), Err(ArenaError::EventOver));
    let mut b = running(&[]);
    assert_eq!(b.cancel(), Err(ArenaError::AlreadyStarted));
}

#[test]
fn an_aborted_pairing_is_forgotten_and_its_players_wait_again() {
    let mut a = running(&[1, 2]);
    let (no, x, o) = paired(&a.tick(T0 + 3_000))[0];
    a.abort(no, T0 + 3_100).expect("aborts");
    assert_eq!(a.open_games().count(), 0);
    for u in [x, o] {
        let e = a.entry(u).expect("entrant");
        assert_eq!((e.in_game, e.last_opponent, e.balance), (None, None, 0));
    }
    assert_eq!(paired(&a.tick(T0 + 6_100)).len(), 1);
    assert!(a.games().is_empty());
}

#[test]
fn the_record_to_store_carries_the_points_the_table_will_show() {
    let mut a = running(&[1, 2]);
    let mut now = T0;
    let mut points = Vec::new();
    for _ in 0..4 {
        now += 3_000;
        let (no, x, _) = paired(&a.tick(now))[0];
        // 1 wins every game, with either mark.
        let end = if x == 1 {
            X_WINS
        } else {
            GameEnd::Resigned { loser: Mark::X }
        };
        let record = a.result(no, format!("r{no}"), end, now).expect("open");
        points.push(if x == 1 {
            record.x_points
        } else {
            record.o_points
        });
        a.record(record, now).expect("counts");
    }
    assert_eq!(points, [2, 2, 4, 4]);
    assert_eq!(
        a.standings().row(1).map(|r| (r.points, r.streak)),
        Some((12, 4))
    );
}

#[test]
fn a_record_that_does_not_match_its_pairing_is_refused() {
    let mut a = running(&[1, 2]);
    let (no, ..) = paired(&a.tick(T0 + 3_000))[0];
    let mut record = a.result(no, "r".into(), X_WINS, T0).expect("open");
    std::mem::swap(&mut record.x, &mut record.o);
    assert_eq!(a.record(record, T0), Err(ArenaError::UnknownGame));
    assert_eq!(a.open_games().count(), 1);
}

/// A portable pseudo-random sequence for the simulation.
fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *state >> 33
}

#[test]
fn two_hundred_players_play_an_hour_driven_by_next_deadline() {
    // The server's loop, simulated: sleep until the arena's next deadline or the next game's
    // end, whichever is first; games last 20–120 s; results at random. Every player waits
    // from the end of their game (or joining) until paired; the waits are measured.
    let mut a = Arena::new(
        settings(T0),
        EventLimits::default(),
        WaveTimes::default(),
        9,
    );
    let mut rng = 4;
    a.tick(T0);
    for u in 1..=200 {
        a.join(player(u), T0).expect("joins");
    }
    let mut now = T0;
    let mut ends: BTreeMap<GameNo, u64> = BTreeMap::new();
    let mut since: BTreeMap<u64, u64> = (1..=200).map(|u| (u, T0)).collect();
    let mut waits: Vec<u64> = Vec::new();
    // Players paired by each wave.
    let mut waves: Vec<usize> = Vec::new();
    let mut steps = 0;
    while a.phase() != Phase::Finished {
        steps += 1;
        assert!(steps < 100_000, "the loop ends");
        let next_end = ends.values().min().copied();
        now = match (a.next_deadline(), next_end) {
            (Some(d), Some(e)) => d.min(e),
            (Some(d), None) => d,
            (None, Some(e)) => e,
            (None, None) => panic!("nothing left to wait for in {:?}", a.phase()),
        }
        .max(now);
        let due: Vec<GameNo> = ends
            .iter()
            .filter(|(_, e)| **e <= now)
            .map(|(n, _)| *n)
            .collect();
        for no in due {
            ends.remove(&no);
            let end = match lcg(&mut rng) % 5 {
                0 => GameEnd::Agreed,
                1 | 2 => GameEnd::Resigned { loser: Mark::O },
                _ => GameEnd::Timeout { loser: Mark::X },
            };
            let game = a.result(no, format!("r{no}"), end, now).expect("open");
            since.insert(game.x, now);
            since.insert(game.o, now);
            a.record(game, now).expect("counts");
        }
        let wave = paired(&a.tick(now));
        if !wave.is_empty() {
            waves.push(wave.len() * 2);
        }
        for (no, x, o) in wave {
            for u in [x, o] {
                waits.push(now - since.remove(&u).expect("was waiting"));
            }
            ends.insert(no, now + 20_000 + lcg(&mut rng) % 100_000);
        }
    }
    waits.sort_unstable();
    let later = &waves[1..];
    println!(
        "waves: first {} players, then {} waves of {:.1} on average, {} at most",
        waves[0],
        later.len(),
        later.iter().sum::<usize>() as f64 / later.len() as f64,
        later.iter().max().copied().unwrap_or_default()
    );
    let p = |q: usize| waits[(waits.len() - 1) * q / 100];
    println!(
        "200 players, one hour: {} games, {} loop steps, wait p50 {} ms, p99 {} ms, max {} ms",
        a.games().len(),
        steps,
        p(50),
        p(99),
        waits.last().copied().unwrap_or_default()
    );
    assert!(a.games().len() > 4_000, "{} games", a.games().len());
    assert!(p(99) <= 6_000, "p99 wait {} ms", p(99));
    assert_eq!(a.standings(), &standings_from_games(a.games()));
    assert!(a.open_games().next().is_none());
}
