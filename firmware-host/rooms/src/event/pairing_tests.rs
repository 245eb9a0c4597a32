//! EV3: pairing one wave.

use engine::Mark;

use super::pairing::pair_by;
use super::pairing::*;

pub(crate) fn cand(user: u64, points: u32, rating: i32) -> Candidate {
    Candidate {
        user,
        points,
        rating,
        last_opponent: None,
        balance: 0,
        last_mark: None,
        sat_out: false,
    }
}

fn pairs(wave: &Wave) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = wave
        .games
        .iter()
        .map(|g| (g.x.min(g.o), g.x.max(g.o)))
        .collect();
    v.sort_unstable();
    v
}

#[test]
fn two_waiting_players_are_paired_and_one_alone_waits() {
    let wave = pair(&[cand(1, 0, 1200), cand(2, 0, 1200)], 1);
    assert_eq!(pairs(&wave), [(1, 2)]);
    assert_eq!(wave.sits_out, None);
    let wave = pair(&[cand(1, 0, 1200)], 1);
    assert!(wave.games.is_empty());
    assert_eq!(wave.sits_out, Some(1));
    assert!(pair(&[], 1).games.is_empty());
}

#[test]
fn players_close_in_score_meet_before_players_close_in_rating() {
    // 1 and 3 are rated alike, as are 2 and 4; but 1 and 2 have 4 points, 3 and 4 none.
    let wave = pair(
        &[
            cand(1, 4, 1200),
            cand(2, 4, 1600),
            cand(3, 0, 1210),
            cand(4, 0, 1590),
        ],
        9,
    );
    assert_eq!(pairs(&wave), [(1, 2), (3, 4)]);
}

#[test]
fn players_equal_in_score_meet_the_closest_rating() {
    let wave = pair(
        &[
            cand(1, 2, 1000),
            cand(2, 2, 1500),
            cand(3, 2, 1010),
            cand(4, 2, 1490),
        ],
        3,
    );
    assert_eq!(pairs(&wave), [(1, 3), (2, 4)]);
}

#[test]
fn same_two_players_never_meet_twice_in_a_row_while_another_choice_exists() {
    // 1 and 2 just played each other and are the closest; 3 and 4 too.
    let mut c = [
        cand(1, 2, 1200),
        cand(2, 2, 1201),
        cand(3, 2, 1400),
        cand(4, 2, 1401),
    ];
    c[0].last_opponent = Some(2);
    c[1].last_opponent = Some(1);
    let wave = pair(&c, 5);
    assert!(!pairs(&wave).contains(&(1, 2)));
    // Only one side remembers the game (the other has played since): still a rematch.
    c[1].last_opponent = Some(3);
    let wave = pair(&c, 5);
    assert!(!pairs(&wave).contains(&(1, 2)));
}

#[test]
fn rematch_is_paired_when_it_is_the_only_choice() {
    let mut c = [cand(1, 2, 1200), cand(2, 0, 1200)];
    c[0].last_opponent = Some(2);
    assert_eq!(pairs(&pair(&c, 1)), [(1, 2)]);
}

#[test]
fn rematch_is_avoided_in_a_large_wave_too() {
    // Forty players in pairs that just met, each pair the closest in rating.
    let c: Vec<Candidate> = (0..40)
        .map(|i| Candidate {
            last_opponent: Some(i ^ 1),
            ..cand(i, 0, 1000 + (i as i32 / 2) * 100)
        })
        .collect();
    let wave = pair(&c, 2);
    assert_eq!(wave.games.len(), 20);
    for (a, b) in pairs(&wave) {
        assert_ne!(a ^ 1, b, "{a} and {b} just played");
    }
}

#[test]
fn whoever_had_x_more_often_gets_o() {
    let mut a = cand(1, 0, 1200);
    let mut b = cand(2, 0, 1200);
    a.balance = 1;
    b.balance = -1;
    let g = pair(&[a.clone(), b.clone()], 7).games[0];
    assert_eq!((g.x, g.o), (2, 1));
    a.balance = 0;
    b.balance = 0;
    a.last_mark = Some(Mark::X);
    b.last_mark = Some(Mark::O);
    let g = pair(&[a.clone(), b.clone()], 7).games[0];
    assert_eq!((g.x, g.o), (2, 1), "equal counts: who had X last gets O");
}

#[test]
fn equal_colour_history_is_decided_by_the_seed() {
    let c = [cand(1, 0, 1200), cand(2, 0, 1200)];
    let xs: std::collections::BTreeSet<u64> =
        (0..32).map(|seed| pair(&c, seed).games[0].x).collect();
    assert_eq!(xs.len(), 2, "both players get X for some seed");
}

#[test]
fn same_colour_leaning_players_are_kept_apart_when_it_costs_little() {
    // 1 and 2 both had X more often; 3 and 4 O. Ratings alike.
    let mut c = [
        cand(1, 0, 1200),
        cand(2, 0, 1201),
        cand(3, 0, 1202),
        cand(4, 0, 1203),
    ];
    c[0].balance = 1;
    c[1].balance = 1;
    c[2].balance = -1;
    c[3].balance = -1;
    let wave = pair(&c, 3);
    for g in &wave.games {
        let bal = |u: u64| c.iter().find(|p| p.user == u).map(|p| p.balance);
        assert_eq!(bal(g.x), Some(-1));
        assert_eq!(bal(g.o), Some(1));
    }
}

#[test]
fn odd_player_out_does_not_sit_out_twice_in_a_row() {
    let c = [cand(1, 4, 1200), cand(2, 4, 1200), cand(3, 0, 1200)];
    let first = pair(&c, 1);
    assert_eq!(first.sits_out, Some(3), "the one far in score waits");
    let mut again = c.clone();
    again[2].sat_out = true;
    let second = pair(&again, 1);
    assert_ne!(second.sits_out, Some(3));
    assert_eq!(second.games.len(), 1);
}

#[test]
fn pairing_is_deterministic_and_ignores_input_order() {
    let c: Vec<Candidate> = (0..25)
        .map(|i| cand(i, (i % 4) as u32 * 2, 1100 + (i as i32 * 37) % 300))
        .collect();
    let mut reversed = c.clone();
    reversed.reverse();
    assert_eq!(pair(&c, 42), pair(&c, 42));
    assert_eq!(pair(&c, 42).games, pair(&reversed, 42).games);
}

/// A portable pseudo-random sequence for the large test.
fn lcg(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    *state >> 33
}

#[test]
fn two_hundred_players_are_paired_within_the_operation_bound() {
    let mut s = 1;
    let c: Vec<Candidate> = (0..200)
        .map(|i| Candidate {
            last_opponent: Some(lcg(&mut s) % 200).filter(|o| *o != i),
            balance: (lcg(&mut s) % 3) as i32 - 1,
            sat_out: i == 7,
            ..cand(
                i,
                (lcg(&mut s) % 12) as u32,
                900 + (lcg(&mut s) % 900) as i32,
            )
        })
        .collect();
    let wave = pair(&c, 11);
    assert_eq!(wave.games.len(), 100);
    let mut seen = std::collections::BTreeSet::new();
    for g in &wave.games {
        assert!(
            seen.insert(g.x) && seen.insert(g.o),
            "each player in one game"
        );
        let (x, o) = (&c[g.x as usize], &c[g.o as usize]);
        assert!(!is_rematch(x, o), "{} and {} just played", g.x, g.o);
    }
    // Cost evaluations: the neighbour start, the exchange passes over every two of the 100
    // games, the exact windows, the rematch repair. Measured 171,442 (each a few integer
    // operations).
    assert!(wave.ops < 500_000, "{} cost evaluations", wave.ops);
    println!("200 players: {} cost evaluations", wave.ops);
    let odd: Vec<Candidate> = c[..199].to_vec();
    let wave = pair(&odd, 11);
    assert_eq!(wave.games.len(), 99);
    assert_ne!(wave.sits_out, Some(7), "sat out last time");
    assert!(wave.ops < 500_000, "{} cost evaluations", wave.ops);
}

#[test]
fn pairing_work_is_bounded_when_a_rematch_cannot_be_avoided() {
    // Everyone's last game was against 0, so 0 can only meet someone again: the repair looks
    // at every two other games and gives up. Then all alike, then all far apart in rating.
    let star: Vec<Candidate> = (0..200)
        .map(|i| Candidate {
            last_opponent: Some(if i == 0 { 1 } else { 0 }),
            ..cand(i, 0, 1200)
        })
        .collect();
    let wave = pair(&star, 3);
    let rematches = wave
        .games
        .iter()
        .filter(|g| is_rematch(&star[g.x as usize], &star[g.o as usize]))
        .count();
    assert_eq!(rematches, 1, "only 0's game repeats");
    assert!(
        wave.ops < OPS_BUDGET + 300_000,
        "{} cost evaluations",
        wave.ops
    );
    println!(
        "200 players, one forced rematch: {} cost evaluations",
        wave.ops
    );
    let spread: Vec<Candidate> = (0..200)
        .map(|i| cand(i, i as u32 % 7, 800 + 7 * i as i32))
        .collect();
    let wave = pair(&spread, 3);
    assert!(
        wave.ops < OPS_BUDGET + 300_000,
        "{} cost evaluations",
        wave.ops
    );
    println!("200 players spread out: {} cost evaluations", wave.ops);
}

#[test]
fn exact_small_waves_cost_no_more_than_the_local_search_would() {
    // The exact matcher's total is a lower bound: compare against pairing neighbours.
    let c: Vec<Candidate> = (0..12)
        .map(|i| cand(i, (i as u32 * 7) % 5, 1000 + (i as i32 * 131) % 700))
        .collect();
    let wave = pair(&c, 1);
    assert_eq!(wave.games.len(), 6);
    let cost = |a: &Candidate, b: &Candidate| {
        u64::from(a.points.abs_diff(b.points)) * POINT_COST
            + u64::from(a.rating.abs_diff(b.rating)).min(RATING_CAP)
    };
    let by = |u: u64| &c[u as usize];
    let total: u64 = wave.games.iter().map(|g| cost(by(g.x), by(g.o))).sum();
    let mut sorted = c.clone();
    sorted.sort_by_key(|p| (std::cmp::Reverse(p.points), std::cmp::Reverse(p.rating)));
    let neighbours: u64 = sorted.chunks(2).map(|p| cost(&p[0], &p[1])).sum();
    assert!(total <= neighbours, "{total} > {neighbours}");
}

#[test]
fn local_search_comes_close_to_the_exact_matching() {
    // Random waves of 13 and 14 players (more than a window) paired both ways: the local search used for large
    // waves never has more rematches or players sitting out twice, and its total cost is
    // measured against the optimum.
    let mut s = 77;
    let (mut equal, mut waves, mut excess) = (0, 0, 0u64);
    let mut optimum_total = 0u64;
    for round in 0..300 {
        let n = 13 + round % 2;
        let c: Vec<Candidate> = (0..n)
            .map(|i| Candidate {
                last_opponent: Some(lcg(&mut s) % n).filter(|o| *o != i && lcg(&mut s) % 2 == 0),
                balance: (lcg(&mut s) % 3) as i32 - 1,
                sat_out: lcg(&mut s) % 6 == 0,
                ..cand(
                    i,
                    (lcg(&mut s) % 4) as u32 * 2,
                    1000 + (lcg(&mut s) % 600) as i32,
                )
            })
            .collect();
        let (_, exact) = pair_by(&c, round, EXACT_UP_TO);
        let (_, local) = pair_by(&c, round, 0);
        assert!(local >= exact, "the exact matching is optimal");
        assert_eq!(
            local / SIT_OUT_AGAIN_COST,
            exact / SIT_OUT_AGAIN_COST,
            "as few rematches and repeated sitting out: {c:?}"
        );
        waves += 1;
        equal += usize::from(local == exact);
        excess += local - exact;
        optimum_total += exact % SIT_OUT_AGAIN_COST;
    }
    println!(
        "local search: optimal in {equal} of {waves} waves; total cost {:.2}% above the optimum",
        100.0 * excess as f64 / optimum_total.max(1) as f64
    );
    // Measured: optimal in 285 of 300, 1.3 % above the optimum in all (218 and 7.8 % without
    // the window pass).
    assert!(
        equal * 10 >= waves * 9,
        "optimal in {equal} of {waves} waves"
    );
    assert!(
        excess * 100 <= optimum_total * 3,
        "{excess} above {optimum_total}"
    );
}
