//! Property tests over random pairings and random event runs (EV2–EV5):
//!
//! - nobody is in two games at once, and only waiting players (joined, not paused, online,
//!   not seated elsewhere, not playing) are paired;
//! - a wave repeats a last game only when every pairing of that wave would (checked by
//!   exhaustive search for waves of up to [`BRUTE_UP_TO`] players; the pairing is exact up to
//!   `EXACT_UP_TO`), and a player who sat out the last wave sits out again only when that is
//!   the only way to avoid more rematches;
//! - colours: the player with more X than O so far gets O; so a player's X − O leaves ±1
//!   only in a game between two players who both had more X (or both more O) than the other
//!   mark, the one case where no choice of colours keeps both within ±1;
//! - the table is always the standings recomputed from the finished games, and the deltas sent
//!   add up to it; the stored points of each game are the recomputed ones;
//! - pairing is deterministic for the same waiting set and seed, in any input order;
//! - after time is up nobody is paired, and the event finishes when the last game counts.

use std::collections::{BTreeMap, BTreeSet};

use engine::Mark;
use proptest::prelude::*;
use protocol::records::GameEnd;

use super::arena_tests::{T0, paired, player, settings};
use super::pairing::{Candidate, is_rematch, pair};
use super::*;

/// Waves up to this size are checked against every possible pairing.
const BRUTE_UP_TO: usize = 11;

/// The fewest rematches of any pairing of `c` (one left out when odd, who must satisfy
/// `may_sit`), or `None` if no pairing has an allowed sitter.
fn fewest_rematches(c: &[Candidate], may_sit: &dyn Fn(&Candidate) -> bool) -> Option<u32> {
    fn go(
        c: &[Candidate],
        left: &[usize],
        sit: bool,
        may_sit: &dyn Fn(&Candidate) -> bool,
    ) -> Option<u32> {
        if !sit && left.len() % 2 == 1 {
            return None;
        }
        let Some((&first, rest)) = left.split_first() else {
            return Some(0);
        };
        let mut best: Option<u32> = None;
        if sit && may_sit(&c[first]) {
            best = go(c, rest, false, may_sit);
        }
        for (k, &j) in rest.iter().enumerate() {
            let mut r = rest.to_vec();
            r.remove(k);
            if let Some(sub) = go(c, &r, sit, may_sit) {
                let total = sub + u32::from(is_rematch(&c[first], &c[j]));
                best = Some(best.map_or(total, |b| b.min(total)));
            }
        }
        best
    }
    let all: Vec<usize> = (0..c.len()).collect();
    go(c, &all, c.len() % 2 == 1, may_sit)
}

fn candidates(max: usize) -> impl Strategy<Value = Vec<Candidate>> {
    proptest::collection::vec(
        (
            0u32..6,
            1100i32..1300,
            proptest::option::of(0u64..20),
            -1i32..=1,
            any::<bool>(),
        ),
        0..=max,
    )
    .prop_map(|raw| {
        raw.into_iter()
            .enumerate()
            .map(|(i, (points, rating, last, balance, sat_out))| Candidate {
                user: i as u64,
                points: points * 2,
                rating,
                last_opponent: last.filter(|l| *l != i as u64),
                balance,
                last_mark: match balance {
                    1 => Some(Mark::X),
                    -1 => Some(Mark::O),
                    _ => None,
                },
                sat_out,
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn a_wave_pairs_everyone_but_one_once_and_deterministically(
        c in candidates(40),
        seed in any::<u64>(),
        rotate in 0usize..40,
    ) {
        let wave = pair(&c, seed);
        let mut seen = BTreeSet::new();
        for g in &wave.games {
            prop_assert!(g.x != g.o);
            prop_assert!(seen.insert(g.x) && seen.insert(g.o), "nobody in two games");
        }
        prop_assert_eq!(wave.games.len(), c.len() / 2);
        prop_assert_eq!(wave.sits_out.is_some(), c.len() % 2 == 1);
        if let Some(s) = wave.sits_out {
            prop_assert!(!seen.contains(&s));
        }
        let mut shuffled = c.clone();
        if !shuffled.is_empty() {
            let n = rotate % shuffled.len();
            shuffled.rotate_left(n);
        }
        prop_assert_eq!(pair(&shuffled, seed), wave.clone(), "same set and seed, same wave");
    }

    #[test]
    fn a_small_wave_has_the_fewest_rematches_and_respects_sitting_out(
        c in candidates(BRUTE_UP_TO),
        seed in any::<u64>(),
    ) {
        let wave = pair(&c, seed);
        let by = |u: u64| &c[u as usize];
        let made = wave.games.iter().filter(|g| is_rematch(by(g.x), by(g.o))).count() as u32;
        let fewest = fewest_rematches(&c, &|_| true).expect("some pairing");
        prop_assert_eq!(made, fewest, "a rematch only when every pairing has one");
        if let Some(s) = wave.sits_out {
            if by(s).sat_out && c.iter().any(|p| !p.sat_out) {
                let fresh = fewest_rematches(&c, &|p: &Candidate| !p.sat_out);
                prop_assert!(fresh.is_none_or(|f| f > made),
                    "{} sat out again though a fresh player could with as few rematches", s);
            }
        }
        for g in &wave.games {
            let (bx, bo) = (by(g.x).balance, by(g.o).balance);
            prop_assert!(bx <= bo, "whoever had X more often gets O");
        }
    }
}

/// One step of a random event.
#[derive(Debug, Clone)]
enum Op {
    Join(u64),
    Pause(u64),
    Resume(u64),
    Leave(u64),
    Presence(u64, Presence),
    Wait(u64),
    Finish(usize, GameEnd),
    Abort(usize),
    /// The server restarts: the arena is restored from its saved state and the stored games.
    Restart,
}

fn end() -> impl Strategy<Value = GameEnd> {
    prop_oneof![
        Just(GameEnd::Line {
            winner: Mark::X,
            line: [0, 4, 8]
        }),
        Just(GameEnd::Line {
            winner: Mark::O,
            line: [2, 4, 6]
        }),
        Just(GameEnd::FullBoard),
        Just(GameEnd::Repetition),
        Just(GameEnd::Agreed),
        Just(GameEnd::Resigned { loser: Mark::X }),
        Just(GameEnd::Resigned { loser: Mark::O }),
        Just(GameEnd::Timeout { loser: Mark::X }),
        Just(GameEnd::Timeout { loser: Mark::O }),
    ]
}

fn op(players: u64) -> impl Strategy<Value = Op> {
    let presence = prop_oneof![
        Just(Presence::Online),
        Just(Presence::Offline),
        Just(Presence::Elsewhere)
    ];
    prop_oneof![
        3 => (0..players).prop_map(Op::Join),
        1 => (0..players).prop_map(Op::Pause),
        1 => (0..players).prop_map(Op::Resume),
        1 => (0..players).prop_map(Op::Leave),
        2 => ((0..players), presence).prop_map(|(u, p)| Op::Presence(u, p)),
        4 => (0u64..4_000).prop_map(Op::Wait),
        6 => (any::<usize>(), end()).prop_map(|(k, e)| Op::Finish(k, e)),
        1 => any::<usize>().prop_map(Op::Abort),
        1 => Just(Op::Restart),
    ]
}

/// What the test itself believes about each player, from the calls it made.
#[derive(Debug, Default)]
struct Model {
    /// Players the arena has an entry for (joined at least once).
    known: BTreeSet<u64>,
    joined: BTreeSet<u64>,
    paused: BTreeSet<u64>,
    away: BTreeSet<u64>,
    playing: BTreeSet<u64>,
    /// Played a game in which both players leant to the same mark.
    forced_colour: BTreeSet<u64>,
}

struct Run {
    arena: Arena,
    model: Model,
    now: u64,
    /// The table as a client that applied every delta sees it.
    client: Standings,
    /// The table as a phone that applied every wire update sees it.
    phone: Vec<protocol::event::EventRow>,
}

impl Run {
    fn effects(&mut self, fx: &[Effect]) {
        for e in fx {
            if let Effect::Standings(delta) = e {
                self.client = self.client.apply(delta);
            }
        }
        let event = "ev".to_owned();
        if let Some(update) = self.arena.update(&event, fx, self.now) {
            if let Some(delta) = &update.standings {
                view::apply_update(&mut self.phone, delta);
            }
        }
    }

    fn tick(&mut self) -> Result<(), TestCaseError> {
        let before = self.arena.clone();
        let phase = self.arena.phase();
        let waves: Vec<Candidate> = self.arena.candidates();
        let fx = self.arena.tick(self.now);
        let mut twin = before.clone();
        prop_assert_eq!(
            twin.tick(self.now),
            fx.clone(),
            "the same state and time, the same wave"
        );
        let games = paired(&fx);
        if !games.is_empty() {
            prop_assert!(matches!(phase, Phase::Running | Phase::Announced));
            prop_assert_eq!(
                self.arena.phase(),
                Phase::Running,
                "nothing is paired after the end"
            );
            prop_assert!(self.now < self.arena.settings().ends_at_ms());
        }
        let by: BTreeMap<u64, &Candidate> = waves.iter().map(|c| (c.user, c)).collect();
        let mut seen = BTreeSet::new();
        let mut rematches = 0;
        for (_, x, o) in &games {
            for u in [x, o] {
                prop_assert!(seen.insert(*u), "{} in two games of one wave", u);
                prop_assert!(self.model.joined.contains(u), "{} is in the event", u);
                prop_assert!(!self.model.paused.contains(u), "paused {} paired", u);
                prop_assert!(
                    !self.model.away.contains(u),
                    "offline or elsewhere {} paired",
                    u
                );
                prop_assert!(self.model.playing.insert(*u), "{} paired while playing", u);
            }
            let (cx, co) = (by[x], by[o]);
            rematches += u32::from(is_rematch(cx, co));
            prop_assert!(cx.balance <= co.balance, "who had X more often gets O");
            // No free choice: both lean to the same mark, so one of them leans further.
            if cx.balance.signum() == co.balance.signum() && cx.balance != 0 {
                self.model.forced_colour.insert(*x);
                self.model.forced_colour.insert(*o);
            }
        }
        if rematches > 0 && waves.len() <= BRUTE_UP_TO {
            let fewest = fewest_rematches(&waves, &|_| true).expect("some pairing");
            prop_assert!(
                rematches <= fewest,
                "a rematch while another choice existed: {:?}",
                waves
            );
        }
        self.effects(&fx);
        Ok(())
    }

    fn check(&self) -> Result<(), TestCaseError> {
        let a = &self.arena;
        prop_assert_eq!(
            a.standings(),
            &a.live_standings(),
            "the table is up to date"
        );
        prop_assert_eq!(
            &self.client,
            a.standings(),
            "the deltas add up to the table"
        );
        let snapshot = a.view(&"ev".to_owned(), None, self.now);
        prop_assert_eq!(
            &self.phone,
            &snapshot.standings,
            "the wire updates add up to the snapshot"
        );
        let recomputed = standings_from_games(a.games());
        let played: Vec<Row> = a
            .standings()
            .rows
            .iter()
            .filter(|r| r.games > 0)
            .cloned()
            .collect();
        prop_assert_eq!(played, recomputed.rows, "the table is the games' table");
        let mut sheets = BTreeMap::new();
        for g in a.games() {
            prop_assert_eq!(score::score_game(&mut sheets, g), (g.x_points, g.o_points));
        }
        let mut busy = BTreeSet::new();
        for g in a.open_games() {
            prop_assert!(
                busy.insert(g.x) && busy.insert(g.o),
                "nobody is in two games at once"
            );
        }
        prop_assert_eq!(&busy, &self.model.playing);
        for e in a.entries() {
            let u = e.player.user;
            if !self.model.forced_colour.contains(&u) {
                prop_assert!(e.balance.abs() <= 1, "{} has X − O = {}", u, e.balance);
            }
        }
        Ok(())
    }

    fn step(&mut self, op: Op) -> Result<(), TestCaseError> {
        let now = self.now;
        let m = &mut self.model;
        match op {
            Op::Join(u) => {
                if let Ok(fx) = self.arena.join(player(u), now) {
                    if m.known.insert(u) {
                        m.away.remove(&u); // a new entry starts online
                    }
                    m.joined.insert(u);
                    m.paused.remove(&u);
                    self.effects(&fx);
                }
            }
            Op::Pause(u) => {
                if self.arena.pause(u, now).is_ok() {
                    m.paused.insert(u);
                }
            }
            Op::Resume(u) => {
                if self.arena.resume(u, now).is_ok() {
                    m.paused.remove(&u);
                }
            }
            Op::Leave(u) => {
                if let Ok(fx) = self.arena.leave(u, now) {
                    m.joined.remove(&u);
                    self.effects(&fx);
                }
            }
            Op::Presence(u, p) => {
                self.arena.presence(u, p, now);
                if !m.known.contains(&u) {
                    // Ignored: the arena has no such player.
                } else if p == Presence::Online {
                    m.away.remove(&u);
                } else {
                    m.away.insert(u);
                }
            }
            Op::Wait(ms) => {
                self.now += ms;
                self.tick()?;
            }
            Op::Finish(k, end) => {
                let open: Vec<OpenGame> = self.arena.open_games().cloned().collect();
                if let Some(g) = open.get(k % open.len().max(1)) {
                    let record = self
                        .arena
                        .result(g.no, format!("r{}", g.no), end, now)
                        .expect("an open game");
                    let fx = self.arena.record(record, now).expect("it counts");
                    m.playing.remove(&g.x);
                    m.playing.remove(&g.o);
                    self.effects(&fx);
                }
            }
            Op::Restart => {
                let saved = self.arena.saved();
                // Through its stored form, as the store would keep it.
                let bytes = postcard::to_allocvec(&saved).expect("encodes");
                let saved: SavedArena = postcard::from_bytes(&bytes).expect("decodes");
                let before = self.arena.clone();
                self.arena = Arena::restore(
                    saved,
                    before.games().to_vec(),
                    EventLimits::default(),
                    WaveTimes::default(),
                );
                let a = &self.arena;
                prop_assert_eq!(a.phase(), before.phase());
                prop_assert_eq!(a.standings(), before.standings());
                prop_assert_eq!(a.games(), before.games());
                prop_assert!(a.open_games().eq(before.open_games()));
                for (e, was) in a.entries().zip(before.entries()) {
                    prop_assert_eq!(&e.player, &was.player);
                    prop_assert_eq!(e.status, was.status);
                    prop_assert_eq!(e.in_game, was.in_game);
                    prop_assert_eq!(
                        (e.last_opponent, e.last_mark, e.balance),
                        (was.last_opponent, was.last_mark, was.balance)
                    );
                    prop_assert_eq!(e.presence, Presence::Offline, "nobody is connected yet");
                }
                prop_assert_eq!(a.entries().count(), before.entries().count());
                // Every phone reconnects (the test then moves presence at random again).
                let known: Vec<u64> = self.model.known.iter().copied().collect();
                for u in known {
                    self.arena.presence(u, Presence::Online, now);
                }
                self.model.away.clear();
                // Phones get a fresh snapshot after reconnecting.
                self.phone = self.arena.view(&"ev".to_owned(), None, now).standings;
            }
            Op::Abort(k) => {
                let open: Vec<OpenGame> = self.arena.open_games().cloned().collect();
                if let Some(g) = open.get(k % open.len().max(1)) {
                    let fx = self.arena.abort(g.no, now).expect("an open game");
                    m.playing.remove(&g.x);
                    m.playing.remove(&g.o);
                    self.effects(&fx);
                }
            }
        }
        self.check()
    }
}

fn run_event(ops: Vec<Op>, seed: u64) -> Result<(), TestCaseError> {
    let mut settings = settings(T0 + 2_000);
    settings.duration_ms = 150_000;
    let times = WaveTimes::default();
    let mut run = Run {
        arena: Arena::new(settings, EventLimits::default(), times, seed),
        model: Model::default(),
        now: T0,
        client: Standings::default(),
        phone: Vec::new(),
    };
    for op in ops {
        run.step(op)?;
    }
    // Time runs out; the games in progress finish and count; then the podium.
    run.now = run.now.max(run.arena.settings().ends_at_ms());
    run.tick()?;
    prop_assert!(matches!(run.arena.phase(), Phase::Ending | Phase::Finished));
    let open: Vec<OpenGame> = run.arena.open_games().cloned().collect();
    let mut last = Vec::new();
    for g in open {
        run.now += 1_000;
        prop_assert!(
            paired(&run.arena.tick(run.now)).is_empty(),
            "after the end nobody is paired"
        );
        let fx = run
            .arena
            .game_finished(g.no, "late".into(), GameEnd::Agreed, run.now)
            .expect("counts");
        run.model.playing.remove(&g.x);
        run.model.playing.remove(&g.o);
        run.effects(&fx);
        run.check()?;
        last = fx;
    }
    prop_assert_eq!(run.arena.phase(), Phase::Finished);
    let podium = run.arena.standings().podium();
    if let Some(Effect::Ended { podium: sent }) = last.last() {
        prop_assert_eq!(sent, &podium);
    }
    prop_assert!(paired(&run.arena.tick(run.now + 60_000)).is_empty());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn random_events_keep_every_rule(
        (_players, ops) in (2u64..12).prop_flat_map(|n| (Just(n), proptest::collection::vec(op(n), 0..300))),
        seed in any::<u64>(),
    ) {
        run_event(ops, seed)?;
    }

    #[test]
    fn random_crowded_events_keep_every_rule(
        (_players, ops) in (12u64..40).prop_flat_map(|n| (Just(n), proptest::collection::vec(op(n), 0..400))),
        seed in any::<u64>(),
    ) {
        run_event(ops, seed)?;
    }
}
