//! Puzzles played over the WebSocket (PZ2, PZ4, PZ5): each connection's attempts and streak
//! ([`PuzzleBook`]), and the count of today's daily solves ([`DailySolves`]).
//!
//! The rules of an attempt are `tables::puzzle::Attempt`'s; this file decides who may play
//! which attempt and what the player is shown.
//!
//! - **Attempts live with their connection.** A [`PuzzleBook`] belongs to one session and
//!   keeps its last [`MAX_ATTEMPTS`] attempts; starting another drops the oldest. Attempt ids
//!   come from one counter for the whole server, so an id names one attempt; an id this
//!   connection does not hold, another connection's included, is `unknown_attempt`. The
//!   server does not tell "someone else's" from "never existed": nobody learns which ids
//!   other people hold.
//! - **The daily puzzle** is `tables::select::daily` of the server's UTC day when the attempt
//!   starts; a retry of a daily attempt is still that day's daily attempt.
//! - **A streak** is one per connection: its game, its seed (drawn when it starts), its step.
//!   Step 0 starts a new streak (dropping the old); step `n` is served only once puzzle `n - 1`
//!   of this streak is solved (`no_streak` otherwise). A wrong move ends the streak; its length
//!   is the puzzles solved. A retry of a streak puzzle is practice, outside the streak.
//! - **Next** picks a random puzzle of the game rated within [`NEXT_WINDOW`] of the
//!   connection's level, which starts at 1200 (a signed-in player's: their puzzle rating)
//!   and moves [`LEVEL_STEP`] up with each solved attempt and down with each failed one.
//! - **Ratings (PZ3)** are the store's: the session asks it for the ratings as an attempt
//!   starts ([`PuzzleBook::standing`]) and hands it the ended attempt of a signed-in player
//!   ([`PuzzleBook::result`]), whose answer ([`PuzzleBook::rated`]) the view then shows. A
//!   retry is never rated; guests' attempts are neither rated nor stored.

use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use engine::{Cell, Game, Mark, Position};
use protocol::puzzle::{
    AttemptId, AttemptStatus, MoveVerdict, PuzzleBoard, PuzzleKind, PuzzleOrigin,
    PuzzleRatingChange, PuzzleSource, PuzzleStep, PuzzleView, StreakView,
};
use protocol::records::UserId;
use rand::{Rng, RngExt};
use tables::Verdict;
use tables::puzzle::{Attempt, Kind, Outcome, Puzzle, PuzzleId, Step};
use tables::select;

use crate::persistence::{PuzzleRecorded, PuzzleResult, PuzzleStanding};
use crate::refusal::{Reason, Refusal, refuse};
use crate::room::PlayerKey;

/// Attempts one connection keeps; starting one more drops the oldest.
pub const MAX_ATTEMPTS: usize = 4;

/// `next` picks among puzzles rated within this many points of the connection's level.
pub const NEXT_WINDOW: i32 = 100;

/// How far one solved (up) or failed (down) attempt moves the connection's level.
pub const LEVEL_STEP: i32 = 50;

/// The level a connection starts at: a new player's rating (E1).
const START_LEVEL: i32 = engine::INITIAL_RATING;

/// The next attempt id on this server. One counter for the process: the server runs one hub,
/// and ids only need to differ.
static NEXT_ATTEMPT: AtomicU32 = AtomicU32::new(1);

fn next_attempt_id() -> AttemptId {
    NEXT_ATTEMPT.fetch_add(1, Ordering::Relaxed)
}

/// The day `unix_ms` falls on: days since 1970-01-01, UTC.
pub fn day_of(unix_ms: u64) -> u32 {
    u32::try_from(unix_ms / 86_400_000).expect("days since 1970 fit in 32 bits")
}

/// Today, from the system clock.
pub fn today() -> u32 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    day_of(u64::try_from(now.as_millis()).unwrap_or(u64::MAX))
}

/// Who solved a daily puzzle, for counting each person once a day.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Solver {
    /// A signed-in player or a guest (by their cookie): counted once a day per game.
    Person(PlayerKey),
    /// The kiosk's own screen (a connection from the machine itself): passers-by share it, so
    /// each of its solves counts.
    Kiosk,
}

/// How many people solved each game's puzzle of the day, for the current day.
///
/// The hub owns one. The counts are stored after each change and today's loaded at start
/// ([`DailySolves::restore`]); who solved is kept in memory only, so after a restart a person
/// may be counted a second time that day.
#[derive(Debug, Default)]
pub struct DailySolves {
    inner: Mutex<Tally>,
}

#[derive(Debug, Default)]
struct Tally {
    day: u32,
    /// XO, Infinite XO.
    counts: [u32; 2],
    solvers: HashSet<(Game, Solver)>,
}

/// People remembered per day for counting each once; beyond, solves count without the check
/// (a bound on memory, not a rule anyone meets).
const MAX_SOLVERS_PER_DAY: usize = 50_000;

fn game_index(game: Game) -> usize {
    match game {
        Game::Xo => 0,
        Game::Infinite => 1,
    }
}

impl DailySolves {
    fn lock(&self) -> std::sync::MutexGuard<'_, Tally> {
        // A panic while counting leaves a count at worst one short; keep counting.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts `solver`'s solve of `game`'s puzzle of `day`; answers the count for that day. A
    /// solve of a day already past (an attempt started before midnight) is not counted.
    pub fn record(&self, game: Game, day: u32, solver: Solver) -> u32 {
        let mut t = self.lock();
        if day > t.day {
            *t = Tally {
                day,
                ..Tally::default()
            };
        }
        if day < t.day {
            return 0;
        }
        let counts = match &solver {
            Solver::Kiosk => true,
            Solver::Person(_) if t.solvers.len() >= MAX_SOLVERS_PER_DAY => true,
            Solver::Person(_) => t.solvers.insert((game, solver)),
        };
        let i = game_index(game);
        if counts {
            t.counts[i] += 1;
        }
        t.counts[i]
    }

    /// How many solved `game`'s puzzle of `day` (0 for a day not being counted).
    pub fn count(&self, game: Game, day: u32) -> u32 {
        let t = self.lock();
        if t.day == day {
            t.counts[game_index(game)]
        } else {
            0
        }
    }

    /// The day being counted and its counts (XO, Infinite XO), for the store.
    pub fn snapshot(&self) -> (u32, [u32; 2]) {
        let t = self.lock();
        (t.day, t.counts)
    }

    /// Sets the counts of `day` (XO, Infinite XO), e.g. as stored before a restart.
    pub fn restore(&self, day: u32, counts: [u32; 2]) {
        let mut t = self.lock();
        *t = Tally {
            day,
            counts,
            solvers: HashSet::new(),
        };
    }
}

/// What a [`PuzzleBook`] needs from the world for one intent.
pub struct PuzzleCtx<'a, R: Rng + ?Sized> {
    /// Today: days since 1970-01-01, UTC.
    pub day: u32,
    pub solver: Solver,
    pub daily: &'a DailySolves,
    pub rng: &'a mut R,
}

impl<R: Rng + ?Sized> std::fmt::Debug for PuzzleCtx<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PuzzleCtx")
            .field("day", &self.day)
            .field("solver", &self.solver)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    Daily { day: u32 },
    Streak { step: u32 },
    Next,
    ById,
}

#[derive(Debug)]
struct Open {
    id: AttemptId,
    attempt: Attempt,
    origin: Origin,
    /// Started by `puzzle_retry`: never rated.
    retry: bool,
    /// It counts for the player's rating, as far as is known (the store decides at the end).
    rated: bool,
    /// The puzzle's rating as the attempt started.
    rating: i32,
    /// What the store answered for a rated attempt.
    change: Option<PuzzleRatingChange>,
    /// What the player's last move led to.
    last: Option<PuzzleStep>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Streak {
    game: Game,
    seed: u64,
    /// The step being played (or last played).
    step: u32,
    solved: u32,
    over: bool,
}

/// One connection's puzzle attempts, its streak and its level.
#[derive(Debug)]
pub struct PuzzleBook {
    /// Oldest first.
    attempts: VecDeque<Open>,
    streak: Option<Streak>,
    level: i32,
    /// A signed-in player's puzzle rating per game (XO, Infinite XO), once the store told it.
    ratings: [Option<i32>; 2],
}

impl Default for PuzzleBook {
    fn default() -> PuzzleBook {
        PuzzleBook {
            attempts: VecDeque::new(),
            streak: None,
            level: START_LEVEL,
            ratings: [None; 2],
        }
    }
}

impl PuzzleBook {
    /// `puzzle_start`: a new attempt at the puzzle `source` names.
    pub fn start<R: Rng + ?Sized>(
        &mut self,
        source: &PuzzleSource,
        ctx: &mut PuzzleCtx<'_, R>,
    ) -> Result<PuzzleView, Refusal> {
        let (puzzle, origin) = match source {
            PuzzleSource::Daily { game } => (
                select::daily(*game, i64::from(ctx.day)),
                Origin::Daily { day: ctx.day },
            ),
            PuzzleSource::ById { puzzle } => match puzzle.parse::<PuzzleId>() {
                Ok(id) => (
                    tables::puzzle::puzzle(id).expect("a parsed id names an embedded puzzle"),
                    Origin::ById,
                ),
                Err(_) => {
                    return refuse(Reason::UnknownPuzzle {
                        puzzle: puzzle.clone(),
                    });
                }
            },
            PuzzleSource::Next { game } => (self.pick(*game, ctx.rng), Origin::Next),
            PuzzleSource::Streak { game, step } => (
                self.streak_step(*game, *step, ctx.rng)?,
                Origin::Streak { step: *step },
            ),
        };
        let id = self.open(Attempt::new(puzzle), origin, false);
        Ok(self.view(id, None, ctx.daily))
    }

    /// `puzzle_move`: the player's move in their attempt `attempt`.
    pub fn play<R: Rng + ?Sized>(
        &mut self,
        attempt: AttemptId,
        cell: Cell,
        ctx: &mut PuzzleCtx<'_, R>,
    ) -> Result<PuzzleView, Refusal> {
        let open = self.find_mut(attempt)?;
        if open.attempt.is_over() {
            return refuse(Reason::AttemptOver);
        }
        let step = open.attempt.play(cell).map_err(Refusal::from)?;
        let origin = open.origin;
        let game = open.attempt.puzzle().game();
        let last = match step {
            Step::Right { reply } => PuzzleStep::Right { cell, reply },
            Step::Solved => PuzzleStep::Solved { cell },
            Step::Wrong {
                verdict,
                refutation,
            } => PuzzleStep::Wrong {
                cell,
                verdict: move_verdict(verdict),
                refutation,
            },
        };
        match &last {
            PuzzleStep::Right { .. } => {}
            PuzzleStep::Solved { .. } => {
                self.level += LEVEL_STEP;
                if let Origin::Daily { day } = origin {
                    ctx.daily.record(game, day, ctx.solver.clone());
                }
                if let (Origin::Streak { step }, Some(s)) = (origin, self.streak.as_mut())
                    && s.step == step
                    && !s.over
                {
                    s.solved += 1;
                    s.over = select::streak(s.game, s.step as usize + 1, s.seed).is_none();
                }
            }
            PuzzleStep::Wrong { .. } => {
                self.level -= LEVEL_STEP;
                if let (Origin::Streak { step }, Some(s)) = (origin, self.streak.as_mut())
                    && s.step == step
                {
                    s.over = true;
                }
            }
        }
        self.find_mut(attempt)?.last = Some(last.clone());
        Ok(self.view(attempt, Some(last), ctx.daily))
    }

    /// `puzzle_retry`: once `attempt` is over, the same puzzle again as a new attempt.
    pub fn retry<R: Rng + ?Sized>(
        &mut self,
        attempt: AttemptId,
        ctx: &mut PuzzleCtx<'_, R>,
    ) -> Result<PuzzleView, Refusal> {
        let open = self.find_mut(attempt)?;
        if !open.attempt.is_over() {
            return refuse(Reason::RetryOnlyWhenOver);
        }
        let puzzle = open.attempt.puzzle();
        let origin = match open.origin {
            daily @ Origin::Daily { .. } => daily,
            Origin::Streak { .. } | Origin::Next | Origin::ById => Origin::ById,
        };
        let id = self.open(Attempt::new(puzzle), origin, true);
        Ok(self.view(id, None, ctx.daily))
    }

    /// The ratings as attempt `attempt` starts, from the store: the puzzle's rating, and for a
    /// signed-in player theirs (which becomes the level `next` picks near) and whether the
    /// attempt counts: not a retry, and no earlier attempt at this puzzle.
    pub fn standing(&mut self, attempt: AttemptId, standing: &PuzzleStanding, signed_in: bool) {
        let Ok(open) = self.find_mut(attempt) else {
            return;
        };
        open.rating = standing.puzzle;
        open.rated = signed_in && !open.retry && !standing.tried;
        let game = open.attempt.puzzle().game();
        if signed_in {
            self.ratings[game_index(game)] = Some(standing.player);
            self.level = standing.player;
        }
    }

    /// Attempt `attempt` of `user` for the store, once it is over.
    pub fn result(&self, attempt: AttemptId, user: UserId, ended_ms: u64) -> Option<PuzzleResult> {
        let open = self.attempts.iter().find(|o| o.id == attempt)?;
        let solved = open.attempt.outcome()?.solved();
        let streak = match (open.origin, &self.streak) {
            (Origin::Streak { step }, Some(s)) if s.step == step => Some(s.solved),
            _ => None,
        };
        Some(PuzzleResult {
            user,
            puzzle: open.attempt.puzzle().id().0,
            played: open.attempt.played().to_vec(),
            solved,
            rated: open.rated,
            streak,
            ended_ms,
        })
    }

    /// The store's answer for an ended attempt: the rating change, if it was rated, and the
    /// player's rating now; `None` when the store could not take it (then it is unrated).
    pub fn rated(&mut self, attempt: AttemptId, recorded: Option<PuzzleRecorded>) {
        let Ok(open) = self.find_mut(attempt) else {
            return;
        };
        open.change = recorded.and_then(|r| r.change);
        open.rated = open.change.is_some();
        let game = open.attempt.puzzle().game();
        if let Some(r) = recorded {
            self.ratings[game_index(game)] = Some(r.rating);
            self.level = r.rating;
        }
    }

    /// Attempt `attempt` as its player sees it now; `None` when this connection does not hold
    /// it.
    pub fn view_of(&self, attempt: AttemptId, daily: &DailySolves) -> Option<PuzzleView> {
        let open = self.attempts.iter().find(|o| o.id == attempt)?;
        Some(self.view(attempt, open.last.clone(), daily))
    }

    fn find_mut(&mut self, attempt: AttemptId) -> Result<&mut Open, Refusal> {
        match self.attempts.iter_mut().find(|o| o.id == attempt) {
            Some(open) => Ok(open),
            None => refuse(Reason::UnknownAttempt { attempt }),
        }
    }

    /// Keeps a new attempt, dropping the oldest beyond [`MAX_ATTEMPTS`]; answers its id.
    fn open(&mut self, attempt: Attempt, origin: Origin, retry: bool) -> AttemptId {
        let id = next_attempt_id();
        if self.attempts.len() >= MAX_ATTEMPTS {
            self.attempts.pop_front();
        }
        let rating = attempt.puzzle().rating();
        self.attempts.push_back(Open {
            id,
            attempt,
            origin,
            retry,
            rated: false,
            rating,
            change: None,
            last: None,
        });
        id
    }

    /// A random puzzle of `game` near the level, else the one nearest to it.
    fn pick<R: Rng + ?Sized>(&self, game: Game, rng: &mut R) -> &'static Puzzle {
        let all = tables::puzzle::puzzles(game);
        let near: Vec<&'static Puzzle> = all
            .iter()
            .filter(|p| (p.rating() - self.level).abs() <= NEXT_WINDOW)
            .collect();
        if near.is_empty() {
            all.iter()
                .min_by_key(|p| (p.rating() - self.level).abs())
                .expect("every game has puzzles")
        } else {
            near[rng.random_range(0..near.len())]
        }
    }

    /// The puzzle of streak step `step`: step 0 starts a new streak.
    fn streak_step<R: Rng + ?Sized>(
        &mut self,
        game: Game,
        step: u32,
        rng: &mut R,
    ) -> Result<&'static Puzzle, Refusal> {
        if step == 0 {
            let seed = rng.random::<u64>();
            self.streak = Some(Streak {
                game,
                seed,
                step: 0,
                solved: 0,
                over: false,
            });
            return Ok(select::streak(game, 0, seed).expect("a streak has a first puzzle"));
        }
        let follows = self
            .streak
            .as_ref()
            .is_some_and(|s| s.game == game && !s.over && s.solved == step && s.step + 1 == step);
        let next = self
            .streak
            .as_ref()
            .filter(|_| follows)
            .and_then(|s| select::streak(game, step as usize, s.seed));
        match (next, self.streak.as_mut()) {
            (Some(puzzle), Some(s)) => {
                s.step = step;
                Ok(puzzle)
            }
            _ => refuse(Reason::NoStreak { step }),
        }
    }

    fn view(
        &self,
        attempt: AttemptId,
        last: Option<PuzzleStep>,
        daily: &DailySolves,
    ) -> PuzzleView {
        let open = self
            .attempts
            .iter()
            .find(|o| o.id == attempt)
            .expect("the attempt was just kept or played");
        let a = &open.attempt;
        let puzzle = a.puzzle();
        let origin = match open.origin {
            Origin::Daily { day } => PuzzleOrigin::Daily { day },
            Origin::Streak { step } => PuzzleOrigin::Streak { step },
            Origin::Next => PuzzleOrigin::Next,
            Origin::ById => PuzzleOrigin::ById,
        };
        let streak = match (open.origin, &self.streak) {
            (Origin::Streak { step }, Some(s)) if s.step == step => Some(StreakView {
                game: s.game,
                step,
                solved: s.solved,
                over: s.over,
            }),
            _ => None,
        };
        let status = match a.outcome() {
            None => AttemptStatus::Playing,
            Some(Outcome::Solved) => AttemptStatus::Solved,
            Some(Outcome::Failed { .. }) => AttemptStatus::Failed,
        };
        let solved_today = match open.origin {
            Origin::Daily { day } => Some(daily.count(puzzle.game(), day)),
            _ => None,
        };
        PuzzleView {
            attempt,
            puzzle: puzzle.id().to_string(),
            game: puzzle.game(),
            kind: match puzzle.kind() {
                Kind::Win => PuzzleKind::Win,
                Kind::Hold => PuzzleKind::Hold,
            },
            origin,
            you: puzzle.to_move(),
            rating: open.rating,
            start: board(&puzzle.position(), &[]),
            board: board(&puzzle.position(), a.record().moves()),
            moves: a.record().moves().to_vec(),
            repetition_warning: a.repetition_warning(),
            status,
            last,
            distance: a.distance(),
            rated: open.rated,
            player_rating: self.ratings[game_index(puzzle.game())],
            rating_change: open.change,
            streak,
            solved_today,
        }
    }
}

/// The board after `moves` from `start`, each side's marks oldest first. The engine keeps
/// XO's marks in cell order (order does not matter to XO's rules); here they follow play, as
/// in room snapshots: the start's marks (in cell order: a puzzle has no history), then the
/// moves as played.
pub fn board(start: &Position, moves: &[Cell]) -> PuzzleBoard {
    let mut marks = [
        start.marks(Mark::X).as_slice().to_vec(),
        start.marks(Mark::O).as_slice().to_vec(),
    ];
    let mut p = *start;
    for &cell in moves {
        let side = &mut marks[usize::from(p.turn() == Mark::O)];
        side.push(cell);
        p = p.play(cell).expect("the attempt's moves are legal");
        // R-INF-2: the mover's oldest mark went; the engine is the judge of when.
        if side.len() > p.marks(p.turn().other()).len() {
            side.remove(0);
        }
    }
    let [x, o] = marks;
    PuzzleBoard {
        x,
        o,
        turn: p.turn(),
        glowing: p.glowing(),
    }
}

fn move_verdict(v: Verdict) -> MoveVerdict {
    match v {
        Verdict::Win(n) => MoveVerdict::Win(n),
        Verdict::Loss(n) => MoveVerdict::Loss(n),
        // `Verdict::for_mover` resolves decided positions to a win or a draw; `Over` cannot
        // reach a move's verdict.
        Verdict::Draw | Verdict::Over => MoveVerdict::Draw,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::ErrorCode;
    use rand::SeedableRng;
    use rand::rngs::StdRng;

    /// Day 20,791 is 2026-12-04.
    const DAY: u32 = 20_791;

    fn ctx<'a>(
        daily: &'a DailySolves,
        rng: &'a mut StdRng,
        solver: Solver,
    ) -> PuzzleCtx<'a, StdRng> {
        PuzzleCtx {
            day: DAY,
            solver,
            daily,
            rng,
        }
    }

    fn guest(tag: &str) -> Solver {
        Solver::Person(PlayerKey::Guest(tag.into()))
    }

    /// A right move for the attempt's player: the only winning (or holding) first move, then
    /// any fastest win.
    fn right_move(view: &PuzzleView) -> Cell {
        let id: PuzzleId = view.puzzle.parse().expect("an embedded puzzle");
        let puzzle = tables::puzzle::puzzle(id).expect("embedded");
        if view.moves.is_empty() {
            return puzzle.solution();
        }
        let mut p = puzzle.position();
        for &c in &view.moves {
            p = p.play(c).expect("the attempt's moves are legal");
        }
        tables::table(view.game)
            .best_moves(&p)
            .expect("in the table")[0]
    }

    fn solve(
        book: &mut PuzzleBook,
        mut view: PuzzleView,
        c: &mut PuzzleCtx<'_, StdRng>,
    ) -> PuzzleView {
        for _ in 0..20 {
            assert_eq!(view.distance, None, "hidden until the end: {view:?}");
            view = book
                .play(view.attempt, right_move(&view), c)
                .expect("a right move");
            match &view.last {
                Some(PuzzleStep::Right { .. }) => assert_eq!(view.status, AttemptStatus::Playing),
                Some(PuzzleStep::Solved { .. }) => return view,
                other => panic!("a right move was judged {other:?}"),
            }
        }
        panic!("no puzzle is that long")
    }

    fn wrong_move(view: &PuzzleView) -> Cell {
        let id: PuzzleId = view.puzzle.parse().expect("an embedded puzzle");
        let puzzle = tables::puzzle::puzzle(id).expect("embedded");
        puzzle
            .position()
            .legal_moves()
            .find(|&c| c != puzzle.solution())
            .expect("a puzzle has a wrong move")
    }

    #[test]
    fn the_daily_puzzle_is_solved_against_the_tables_defence_and_counted() {
        let daily = DailySolves::default();
        let mut rng = StdRng::seed_from_u64(1);
        let mut c = ctx(&daily, &mut rng, guest("a"));
        let mut book = PuzzleBook::default();
        let view = book
            .start(
                &PuzzleSource::Daily {
                    game: Game::Infinite,
                },
                &mut c,
            )
            .expect("the daily puzzle");
        let expected = select::daily(Game::Infinite, i64::from(DAY));
        assert_eq!(view.puzzle, expected.id().to_string());
        assert_eq!(view.origin, PuzzleOrigin::Daily { day: DAY });
        assert_eq!(view.you, expected.to_move());
        assert_eq!(view.solved_today, Some(0));
        assert!(!view.rated);
        let solved = solve(&mut book, view, &mut c);
        assert_eq!(solved.status, AttemptStatus::Solved);
        assert_eq!(solved.distance, Some(expected.distance()));
        assert_eq!(solved.solved_today, Some(1));
        assert_eq!(daily.count(Game::Infinite, DAY), 1);
        assert_eq!(daily.count(Game::Xo, DAY), 0);
    }

    #[test]
    fn a_wrong_move_ends_the_attempt_with_the_refutation_and_retry_starts_afresh() {
        let daily = DailySolves::default();
        let mut rng = StdRng::seed_from_u64(2);
        let mut c = ctx(&daily, &mut rng, guest("a"));
        let mut book = PuzzleBook::default();
        let view = book
            .start(&PuzzleSource::Daily { game: Game::Xo }, &mut c)
            .expect("the daily puzzle");
        let wrong = wrong_move(&view);
        let failed = book
            .play(view.attempt, wrong, &mut c)
            .expect("a legal move");
        assert_eq!(failed.status, AttemptStatus::Failed);
        let Some(PuzzleStep::Wrong {
            cell,
            verdict,
            refutation,
        }) = &failed.last
        else {
            panic!("judged wrong: {failed:?}");
        };
        assert_eq!(*cell, wrong);
        assert!(!matches!(verdict, MoveVerdict::Win(_)));
        assert_eq!(failed.moves[1..], refutation[..]);
        // XO's marks follow play after the start's.
        let mut x = view.start.x.clone();
        let mut o = view.start.o.clone();
        let mut turn = view.start.turn;
        for &c in &failed.moves {
            match turn {
                Mark::X => x.push(c),
                Mark::O => o.push(c),
            }
            turn = turn.other();
        }
        assert_eq!((&failed.board.x, &failed.board.o), (&x, &o));
        assert!(failed.distance.is_some());
        let again = book.play(view.attempt, 0, &mut c).expect_err("over");
        assert_eq!(again.code, ErrorCode::GameOver);
        let retry = book.retry(view.attempt, &mut c).expect("retry once over");
        assert_ne!(retry.attempt, view.attempt);
        assert_eq!(
            (&retry.puzzle, &retry.start, &retry.origin),
            (&view.puzzle, &view.start, &view.origin)
        );
        assert_eq!(retry.moves, Vec::<Cell>::new());
        let early = book.retry(retry.attempt, &mut c).expect_err("not over yet");
        assert_eq!(early.code, ErrorCode::NotFinished);
        solve(&mut book, retry, &mut c);
        assert_eq!(
            daily.count(Game::Xo, DAY),
            1,
            "a retry of the daily puzzle counts"
        );
    }

    #[test]
    fn illegal_moves_change_nothing() {
        let daily = DailySolves::default();
        let mut rng = StdRng::seed_from_u64(3);
        let mut c = ctx(&daily, &mut rng, guest("a"));
        let mut book = PuzzleBook::default();
        let view = book
            .start(
                &PuzzleSource::Daily {
                    game: Game::Infinite,
                },
                &mut c,
            )
            .expect("the daily puzzle");
        let occupied = view.start.x[0];
        let e = book
            .play(view.attempt, occupied, &mut c)
            .expect_err("occupied");
        assert_eq!(e.code, ErrorCode::CellOccupied);
        let e = book.play(view.attempt, 9, &mut c).expect_err("no cell 9");
        assert_eq!(e.code, ErrorCode::NoSuchCell);
        let still = book
            .play(view.attempt, right_move(&view), &mut c)
            .expect("right");
        assert!(matches!(
            still.last,
            Some(PuzzleStep::Right { .. } | PuzzleStep::Solved { .. })
        ));
    }

    #[test]
    fn another_connections_attempt_and_unknown_ids_are_refused() {
        let daily = DailySolves::default();
        let mut rng = StdRng::seed_from_u64(4);
        let mut c = ctx(&daily, &mut rng, guest("a"));
        let mut mine = PuzzleBook::default();
        let mut theirs = PuzzleBook::default();
        let view = mine
            .start(&PuzzleSource::Next { game: Game::Xo }, &mut c)
            .expect("a puzzle");
        let e = theirs
            .play(view.attempt, right_move(&view), &mut c)
            .expect_err("not theirs");
        assert_eq!(e.code, ErrorCode::UnknownAttempt);
        let e = theirs.retry(view.attempt, &mut c).expect_err("not theirs");
        assert_eq!(e.code, ErrorCode::UnknownAttempt);
        for bad in [
            "",
            "xo-win",
            "chess-win-1",
            "xo-draw-1",
            "xo-win-999999999",
            "infinite-win-0",
        ] {
            let e = mine
                .start(&PuzzleSource::ById { puzzle: bad.into() }, &mut c)
                .expect_err(bad);
            assert_eq!(e.code, ErrorCode::UnknownPuzzle, "{bad}");
        }
        let by_id = mine
            .start(
                &PuzzleSource::ById {
                    puzzle: view.puzzle.clone(),
                },
                &mut c,
            )
            .expect("by id");
        assert_eq!(
            (by_id.puzzle, by_id.origin),
            (view.puzzle, PuzzleOrigin::ById)
        );
    }

    #[test]
    fn a_connection_keeps_its_last_few_attempts() {
        let daily = DailySolves::default();
        let mut rng = StdRng::seed_from_u64(5);
        let mut c = ctx(&daily, &mut rng, guest("a"));
        let mut book = PuzzleBook::default();
        let ids: Vec<AttemptId> = (0..=MAX_ATTEMPTS)
            .map(|_| {
                book.start(
                    &PuzzleSource::Next {
                        game: Game::Infinite,
                    },
                    &mut c,
                )
                .expect("a puzzle")
                .attempt
            })
            .collect();
        let e = book.retry(ids[0], &mut c).expect_err("dropped");
        assert_eq!(e.code, ErrorCode::UnknownAttempt);
        assert_eq!(book.attempts.len(), MAX_ATTEMPTS);
    }

    #[test]
    fn a_streak_rises_until_the_first_mistake() {
        let daily = DailySolves::default();
        let mut rng = StdRng::seed_from_u64(6);
        let mut c = ctx(&daily, &mut rng, guest("a"));
        let mut book = PuzzleBook::default();
        let streak = |step| PuzzleSource::Streak {
            game: Game::Infinite,
            step,
        };
        let e = book.start(&streak(1), &mut c).expect_err("no streak yet");
        assert_eq!(e.code, ErrorCode::NoStreak);
        let first = book.start(&streak(0), &mut c).expect("a streak");
        assert_eq!(
            first.streak.as_ref().map(|s| (s.step, s.solved, s.over)),
            Some((0, 0, false))
        );
        let e = book.start(&streak(1), &mut c).expect_err("step 0 unsolved");
        assert_eq!(e.code, ErrorCode::NoStreak);
        let solved = solve(&mut book, first.clone(), &mut c);
        assert_eq!(
            solved.streak.as_ref().map(|s| (s.solved, s.over)),
            Some((1, false))
        );
        let second = book.start(&streak(1), &mut c).expect("step 1");
        assert!(second.rating >= first.rating, "ratings never fall");
        let e = book
            .start(&streak(1), &mut c)
            .expect_err("step 1 was served");
        assert_eq!(e.code, ErrorCode::NoStreak);
        let failed = book
            .play(second.attempt, wrong_move(&second), &mut c)
            .expect("legal");
        let s = failed.streak.expect("a streak attempt");
        assert_eq!((s.step, s.solved, s.over), (1, 1, true));
        let e = book
            .start(&streak(2), &mut c)
            .expect_err("the streak is over");
        assert_eq!(e.code, ErrorCode::NoStreak);
        let retry = book.retry(second.attempt, &mut c).expect("practice");
        assert_eq!((retry.origin, retry.streak), (PuzzleOrigin::ById, None));
        let again = book.start(&streak(0), &mut c).expect("a new streak");
        assert_eq!(again.streak.map(|s| s.solved), Some(0));
    }

    #[test]
    fn each_person_counts_once_a_day_and_the_kiosk_each_time() {
        let daily = DailySolves::default();
        assert_eq!(daily.record(Game::Xo, DAY, guest("a")), 1);
        assert_eq!(daily.record(Game::Xo, DAY, guest("a")), 1);
        assert_eq!(daily.record(Game::Infinite, DAY, guest("a")), 1);
        assert_eq!(
            daily.record(Game::Xo, DAY, Solver::Person(PlayerKey::User(7))),
            2
        );
        assert_eq!(daily.record(Game::Xo, DAY, Solver::Kiosk), 3);
        assert_eq!(daily.record(Game::Xo, DAY, Solver::Kiosk), 4);
        // A solve of yesterday's puzzle after midnight is not today's.
        assert_eq!(daily.record(Game::Xo, DAY + 1, guest("a")), 1);
        assert_eq!(daily.record(Game::Xo, DAY, guest("b")), 0);
        assert_eq!(daily.count(Game::Xo, DAY), 0);
        assert_eq!(daily.count(Game::Xo, DAY + 1), 1);
        daily.restore(DAY + 2, [5, 6]);
        assert_eq!(daily.count(Game::Infinite, DAY + 2), 6);
        assert_eq!(daily.record(Game::Xo, DAY + 2, guest("a")), 6);
    }

    #[test]
    fn days_are_counted_in_utc_from_1970() {
        assert_eq!(day_of(0), 0);
        assert_eq!(day_of(86_399_999), 0);
        // 2026-12-04T00:00:00Z.
        assert_eq!(day_of(1_796_342_400_000), DAY);
    }
}
