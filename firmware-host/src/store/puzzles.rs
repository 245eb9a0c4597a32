//! Puzzles (PZ3, PZ4, PZ5): each registered player's puzzle standing per game (rating,
//! tried, solved, best streak), each puzzle's own rating once rated attempts moved it, which
//! puzzles a player has tried, the player's latest attempts for the profile's replay, and the
//! count of each day's daily solves.
//!
//! An ended attempt is one write ([`Op::RecordPuzzle`]): whether it is the player's first at
//! that puzzle is decided inside its transaction, so two tabs racing on one puzzle rate only
//! one attempt; a rated one moves both ratings by the ladders' Elo (`tables::select::rate`,
//! K = 32) in the same transaction. Only the newest [`PUZZLE_ATTEMPTS_KEPT`] attempts of a
//! player are kept. Guests' attempts are never stored; the daily counts are everyone's.
//!
//! These tables are new beside the schema-2 tables (as `events`), so an older release still
//! opens the file.

use std::future::Future;

use engine::Game;
use protocol::http::{PuzzleAttemptView, PuzzleStats};
use protocol::puzzle::{AttemptStatus, PuzzleKind, PuzzleRatingChange, RatingMove};
use protocol::records::UserId;
use redb::{ReadableTable, TableDefinition, WriteTransaction};
use rooms::{PuzzleRecorded, PuzzleResult, PuzzleStanding, StoreError};
use serde::{Deserialize, Serialize};
use tables::puzzle::{Attempt, AttemptRecord, PuzzleId};

use super::accounts::USERS;
use super::error::store_err;
use super::handle::Store;
use super::meta;
use super::op::{Op, Outcome, unexpected};
use super::records::{decode, decode_user, encode};

/// (user id, game: 0 XO, 1 Infinite XO) → `VersionedStanding`.
pub(super) const PUZZLE_PLAYERS: TableDefinition<'_, (u64, u8), &[u8]> =
    TableDefinition::new("puzzle_players");
/// puzzle id → `VersionedPuzzleRating`: puzzles whose rating rated attempts moved.
pub(super) const PUZZLE_RATINGS: TableDefinition<'_, u32, &[u8]> =
    TableDefinition::new("puzzle_ratings");
/// (user id, puzzle id) → whether the first attempt solved it.
pub(super) const PUZZLE_TRIED: TableDefinition<'_, (u64, u32), bool> =
    TableDefinition::new("puzzle_tried");
/// (user id, attempt number) → `VersionedAttempt`: each player's latest attempts.
pub(super) const PUZZLE_ATTEMPTS: TableDefinition<'_, (u64, u64), &[u8]> =
    TableDefinition::new("puzzle_attempts");
/// (day since 1970-01-01 UTC, game) → how many solved that day's puzzle.
pub(super) const DAILY_SOLVES: TableDefinition<'_, (u32, u8), u32> =
    TableDefinition::new("daily_solves");

/// The counter of attempt numbers in `meta`.
const NEXT_ATTEMPT: &str = "next_puzzle_attempt";

/// Attempts kept per player, newest first: the profile shows them with their replay.
pub const PUZZLE_ATTEMPTS_KEPT: usize = 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Standing {
    rating: i32,
    tried: u32,
    solved: u32,
    best_streak: u32,
}

impl Default for Standing {
    fn default() -> Self {
        Standing {
            rating: engine::INITIAL_RATING,
            tried: 0,
            solved: 0,
            best_streak: 0,
        }
    }
}

#[derive(Serialize, Deserialize)]
enum VersionedStanding {
    V1(Standing),
}

#[derive(Serialize, Deserialize)]
enum VersionedPuzzleRating {
    V1 { rating: i32, rated_attempts: u32 },
}

/// An ended attempt as stored: the player's own moves (the rest follows from the tables).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct AttemptV1 {
    puzzle: u32,
    played: Vec<u8>,
    solved: bool,
    /// (player before, after, puzzle before, after) of a rated attempt.
    change: Option<(i32, i32, i32, i32)>,
    ended_ms: u64,
}

#[derive(Serialize, Deserialize)]
enum VersionedAttempt {
    V1(AttemptV1),
}

fn slot(game: Game) -> u8 {
    match game {
        Game::Xo => 0,
        Game::Infinite => 1,
    }
}

fn decode_standing(bytes: &[u8]) -> Result<Standing, StoreError> {
    decode::<VersionedStanding>(bytes, "puzzle standing").map(|VersionedStanding::V1(s)| s)
}

fn decode_rating(bytes: &[u8]) -> Result<(i32, u32), StoreError> {
    decode::<VersionedPuzzleRating>(bytes, "puzzle rating").map(
        |VersionedPuzzleRating::V1 {
             rating,
             rated_attempts,
         }| (rating, rated_attempts),
    )
}

fn decode_attempt(bytes: &[u8]) -> Result<AttemptV1, StoreError> {
    decode::<VersionedAttempt>(bytes, "puzzle attempt").map(|VersionedAttempt::V1(a)| a)
}

fn initial_rating(puzzle: u32) -> Option<i32> {
    tables::puzzle::puzzle(PuzzleId(puzzle)).map(tables::puzzle::Puzzle::rating)
}

fn change_of(c: (i32, i32, i32, i32)) -> PuzzleRatingChange {
    PuzzleRatingChange {
        player: RatingMove {
            before: c.0,
            after: c.1,
        },
        puzzle: RatingMove {
            before: c.2,
            after: c.3,
        },
    }
}

/// A stored attempt as the profile shows it; `None` when its puzzle or moves no longer replay
/// (a puzzle a later release dropped).
fn attempt_view(id: u64, a: AttemptV1) -> Option<PuzzleAttemptView> {
    let replayed = Attempt::resume(&AttemptRecord {
        puzzle: PuzzleId(a.puzzle),
        played: a.played,
    })
    .ok()?;
    let puzzle = replayed.puzzle();
    let start = puzzle.position();
    let moves = replayed.record().moves().to_vec();
    Some(PuzzleAttemptView {
        id,
        puzzle: puzzle.id().to_string(),
        game: puzzle.game(),
        kind: match puzzle.kind() {
            tables::puzzle::Kind::Win => PuzzleKind::Win,
            tables::puzzle::Kind::Hold => PuzzleKind::Hold,
        },
        you: puzzle.to_move(),
        start: rooms::puzzles::board(&start, &[]),
        moves,
        status: if a.solved {
            AttemptStatus::Solved
        } else {
            AttemptStatus::Failed
        },
        rated: a.change.is_some(),
        rating_change: a.change.map(change_of),
        ended_ms: a.ended_ms,
    })
}

/// One row of a streak leaderboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreakLeader {
    pub user: UserId,
    pub name: String,
    pub best_streak: u32,
    pub rating: i32,
}

impl Store {
    /// Stores a signed-in player's ended attempt durably
    /// ([`rooms::Persistence::record_puzzle`]): the rating change when it was rated.
    pub(super) fn puzzle_write(
        &self,
        result: &PuzzleResult,
    ) -> impl Future<Output = Result<PuzzleRecorded, StoreError>> + Send + 'static {
        let outcome = self.write(Op::RecordPuzzle(Box::new(result.clone())));
        async move {
            match outcome.await? {
                Outcome::PuzzleRated(recorded) => Ok(recorded),
                Outcome::Refused(e) => Err(e),
                other => Err(unexpected(&other)),
            }
        }
    }

    /// Stores `day`'s daily solve counts (kept when higher than the ones given: two sessions
    /// may write out of order).
    pub(super) fn daily_write(
        &self,
        day: u32,
        counts: [u32; 2],
    ) -> impl Future<Output = Result<(), StoreError>> + Send + 'static {
        let outcome = self.write(Op::DailySolves { day, counts });
        async move {
            match outcome.await? {
                Outcome::Done => Ok(()),
                other => Err(unexpected(&other)),
            }
        }
    }

    /// `day`'s stored daily solve counts (XO, Infinite XO).
    pub fn daily_solves_stored_blocking(&self, day: u32) -> Result<[u32; 2], StoreError> {
        self.read(|txn| {
            let table = txn.open_table(DAILY_SOLVES).map_err(store_err)?;
            let mut out = [0; 2];
            for (i, n) in out.iter_mut().enumerate() {
                let key = (day, u8::try_from(i).expect("two games"));
                *n = table.get(key).map_err(store_err)?.map_or(0, |v| v.value());
            }
            Ok(out)
        })
    }

    /// The ratings as an attempt at `puzzle` starts ([`rooms::Persistence::puzzle_standing_blocking`]).
    pub(super) fn puzzle_standing(
        &self,
        user: Option<UserId>,
        puzzle: u32,
    ) -> Result<PuzzleStanding, StoreError> {
        let initial = initial_rating(puzzle)
            .ok_or_else(|| StoreError::Refused(format!("no puzzle {puzzle}")))?;
        let game = PuzzleId(puzzle).game();
        self.read(|txn| {
            let ratings = txn.open_table(PUZZLE_RATINGS).map_err(store_err)?;
            let rating = match ratings.get(puzzle).map_err(store_err)? {
                Some(bytes) => decode_rating(bytes.value())?.0,
                None => initial,
            };
            let (player, tried) = match user {
                None => (engine::INITIAL_RATING, false),
                Some(user) => {
                    let players = txn.open_table(PUZZLE_PLAYERS).map_err(store_err)?;
                    let standing = match players.get((user, slot(game))).map_err(store_err)? {
                        Some(bytes) => decode_standing(bytes.value())?,
                        None => Standing::default(),
                    };
                    let tried = txn
                        .open_table(PUZZLE_TRIED)
                        .map_err(store_err)?
                        .get((user, puzzle))
                        .map_err(store_err)?
                        .is_some();
                    (standing.rating, tried)
                }
            };
            Ok(PuzzleStanding {
                player,
                puzzle: rating,
                tried,
            })
        })
    }

    /// A player's puzzles per game (XO, Infinite XO) and their latest `limit` attempts,
    /// newest first.
    pub fn puzzle_profile_blocking(
        &self,
        user: UserId,
        limit: usize,
    ) -> Result<([PuzzleStats; 2], Vec<PuzzleAttemptView>), StoreError> {
        self.read(|txn| {
            let players = txn.open_table(PUZZLE_PLAYERS).map_err(store_err)?;
            let mut stats = [PuzzleStats::default(); 2];
            for (game, out) in Game::ALL.into_iter().zip(stats.iter_mut()) {
                if let Some(bytes) = players.get((user, slot(game))).map_err(store_err)? {
                    let s = decode_standing(bytes.value())?;
                    *out = PuzzleStats {
                        rating: s.rating,
                        tried: s.tried,
                        solved: s.solved,
                        best_streak: s.best_streak,
                    };
                }
            }
            let attempts = txn.open_table(PUZZLE_ATTEMPTS).map_err(store_err)?;
            let mut recent = Vec::new();
            for entry in attempts
                .range((user, 0)..=(user, u64::MAX))
                .map_err(store_err)?
                .rev()
                .take(limit)
            {
                let (key, bytes) = entry.map_err(store_err)?;
                let (_, id) = key.value();
                recent.extend(attempt_view(id, decode_attempt(bytes.value())?));
            }
            Ok((stats, recent))
        })
    }

    /// The streak leaderboard of `game` (PZ5): players with a streak, longest first, then
    /// higher puzzle rating, then name; at most `limit`. Scans the players' standings, which
    /// are few on a kiosk.
    pub fn streak_leaders_blocking(
        &self,
        game: Game,
        limit: usize,
    ) -> Result<Vec<StreakLeader>, StoreError> {
        let mut rows = self.read(|txn| {
            let players = txn.open_table(PUZZLE_PLAYERS).map_err(store_err)?;
            let users = txn.open_table(USERS).map_err(store_err)?;
            let mut rows = Vec::new();
            for entry in players.iter().map_err(store_err)? {
                let (key, bytes) = entry.map_err(store_err)?;
                let (user, g) = key.value();
                if g != slot(game) {
                    continue;
                }
                let s = decode_standing(bytes.value())?;
                if s.best_streak == 0 {
                    continue;
                }
                let Some(record) = users.get(user).map_err(store_err)? else {
                    continue;
                };
                rows.push(StreakLeader {
                    user,
                    name: decode_user(record.value())?.name,
                    best_streak: s.best_streak,
                    rating: s.rating,
                });
            }
            Ok(rows)
        })?;
        rows.sort_by(|a, b| {
            b.best_streak
                .cmp(&a.best_streak)
                .then(b.rating.cmp(&a.rating))
                .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
        });
        rows.truncate(limit);
        Ok(rows)
    }
}

/// Creates the tables (every open).
pub(super) fn create_tables(txn: &WriteTransaction) -> Result<(), StoreError> {
    txn.open_table(PUZZLE_PLAYERS).map_err(store_err)?;
    txn.open_table(PUZZLE_RATINGS).map_err(store_err)?;
    txn.open_table(PUZZLE_TRIED).map_err(store_err)?;
    txn.open_table(PUZZLE_ATTEMPTS).map_err(store_err)?;
    txn.open_table(DAILY_SOLVES).map_err(store_err)?;
    Ok(())
}

/// Applies a puzzle write; `None` for the other writes.
pub(super) fn apply(txn: &WriteTransaction, op: &Op) -> Option<Result<Outcome, StoreError>> {
    Some(match op {
        Op::RecordPuzzle(result) => record(txn, result),
        Op::DailySolves { day, counts } => daily(txn, *day, *counts),
        _ => return None,
    })
}

fn daily(txn: &WriteTransaction, day: u32, counts: [u32; 2]) -> Result<Outcome, StoreError> {
    let mut table = txn.open_table(DAILY_SOLVES).map_err(store_err)?;
    for (game, count) in (0u8..).zip(counts) {
        let stored = table
            .get((day, game))
            .map_err(store_err)?
            .map_or(0, |v| v.value());
        if count > stored {
            table.insert((day, game), count).map_err(store_err)?;
        }
    }
    Ok(Outcome::Done)
}

/// The writer's half of [`Store::puzzle_write`]: every refusal is decided before anything is
/// written.
fn record(txn: &WriteTransaction, r: &PuzzleResult) -> Result<Outcome, StoreError> {
    let refused = |why: String| Ok(Outcome::Refused(StoreError::Refused(why)));
    let Some(initial) = initial_rating(r.puzzle) else {
        return refused(format!("no puzzle {}", r.puzzle));
    };
    // The moves must replay to the end the result claims.
    let replayed = Attempt::resume(&AttemptRecord {
        puzzle: PuzzleId(r.puzzle),
        played: r.played.clone(),
    });
    match replayed.as_ref().map(|a| a.outcome().map(|o| o.solved())) {
        Ok(Some(solved)) if solved == r.solved => {}
        _ => {
            return refused(format!(
                "the moves of puzzle {} do not end as told",
                r.puzzle
            ));
        }
    }
    if txn
        .open_table(USERS)
        .map_err(store_err)?
        .get(r.user)
        .map_err(store_err)?
        .is_none()
    {
        return refused(format!("no user {}", r.user));
    }
    let game = PuzzleId(r.puzzle).game();
    let mut tried = txn.open_table(PUZZLE_TRIED).map_err(store_err)?;
    let first = tried.get((r.user, r.puzzle)).map_err(store_err)?.is_none();
    if first {
        tried
            .insert((r.user, r.puzzle), r.solved)
            .map_err(store_err)?;
    }
    drop(tried);
    let mut players = txn.open_table(PUZZLE_PLAYERS).map_err(store_err)?;
    let key = (r.user, slot(game));
    let mut standing = match players.get(key).map_err(store_err)? {
        Some(bytes) => decode_standing(bytes.value())?,
        None => Standing::default(),
    };
    let before = standing;
    let mut change = None;
    if r.rated && first {
        let mut ratings = txn.open_table(PUZZLE_RATINGS).map_err(store_err)?;
        let (puzzle_rating, rated_attempts) = match ratings.get(r.puzzle).map_err(store_err)? {
            Some(bytes) => decode_rating(bytes.value())?,
            None => (initial, 0),
        };
        let delta = tables::select::rate(standing.rating, puzzle_rating, r.solved);
        let c = (
            standing.rating,
            standing.rating + delta.player,
            puzzle_rating,
            puzzle_rating + delta.puzzle,
        );
        ratings
            .insert(
                r.puzzle,
                encode(&VersionedPuzzleRating::V1 {
                    rating: c.3,
                    rated_attempts: rated_attempts + 1,
                })?
                .as_slice(),
            )
            .map_err(store_err)?;
        standing.rating = c.1;
        standing.tried += 1;
        standing.solved += u32::from(r.solved);
        change = Some(c);
    }
    if let Some(streak) = r.streak {
        standing.best_streak = standing.best_streak.max(streak);
    }
    if standing != before {
        players
            .insert(key, encode(&VersionedStanding::V1(standing))?.as_slice())
            .map_err(store_err)?;
    }
    drop(players);
    let id = meta::next_counter(txn, NEXT_ATTEMPT)?;
    let mut attempts = txn.open_table(PUZZLE_ATTEMPTS).map_err(store_err)?;
    let record = VersionedAttempt::V1(AttemptV1 {
        puzzle: r.puzzle,
        played: r.played.clone(),
        solved: r.solved,
        change,
        ended_ms: r.ended_ms,
    });
    attempts
        .insert((r.user, id), encode(&record)?.as_slice())
        .map_err(store_err)?;
    // The oldest beyond the newest few go.
    let old: Vec<u64> = attempts
        .range((r.user, 0)..=(r.user, u64::MAX))
        .map_err(store_err)?
        .rev()
        .skip(PUZZLE_ATTEMPTS_KEPT)
        .map(|e| e.map(|(k, _)| k.value().1).map_err(store_err))
        .collect::<Result<_, _>>()?;
    for n in old {
        attempts.remove((r.user, n)).map_err(store_err)?;
    }
    Ok(Outcome::PuzzleRated(PuzzleRecorded {
        change: change.map(change_of),
        rating: standing.rating,
    }))
}

/// Forgets a removed account's puzzles (its standings, tries and attempts); the puzzles'
/// ratings keep what its attempts did to them.
pub(super) fn forget(txn: &WriteTransaction, user: UserId) -> Result<(), StoreError> {
    let mut players = txn.open_table(PUZZLE_PLAYERS).map_err(store_err)?;
    for game in Game::ALL {
        players.remove((user, slot(game))).map_err(store_err)?;
    }
    drop(players);
    let mut tried = txn.open_table(PUZZLE_TRIED).map_err(store_err)?;
    tried
        .retain_in((user, 0)..=(user, u32::MAX), |_, _| false)
        .map_err(store_err)?;
    drop(tried);
    let mut attempts = txn.open_table(PUZZLE_ATTEMPTS).map_err(store_err)?;
    attempts
        .retain_in((user, 0)..=(user, u64::MAX), |_, _| false)
        .map_err(store_err)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use engine::Game;
    use rooms::{Persistence, PuzzleResult};
    use tables::puzzle::Puzzle;

    use crate::store::Store;

    fn first(game: Game) -> &'static Puzzle {
        &tables::puzzle::puzzles(game)[0]
    }

    fn solved(user: u64, p: &'static Puzzle, streak: Option<u32>) -> PuzzleResult {
        let mut a = tables::puzzle::Attempt::new(p);
        while !a.is_over() {
            let cell = if a.played().is_empty() {
                p.solution()
            } else {
                tables::table(p.game())
                    .best_moves(&a.position())
                    .expect("in the table")[0]
            };
            a.play(cell).expect("a right move");
        }
        PuzzleResult {
            user,
            puzzle: p.id().0,
            played: a.played().to_vec(),
            solved: true,
            rated: true,
            streak,
            ended_ms: 1,
        }
    }

    /// A result whose moves do not end as it says, or of nobody, is refused with nothing
    /// written; a removed account takes its puzzles along, the puzzle keeps its rating.
    #[tokio::test]
    async fn bad_results_are_refused_and_a_removed_account_forgets_its_puzzles() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open_blocking(dir.path()).expect("store");
        let user = store
            .register("ana", "hash", [1; 32], 0, u64::MAX)
            .await
            .expect("register");
        let p = first(Game::Xo);
        let mut lie = solved(user, p, None);
        lie.solved = false;
        assert!(store.record_puzzle(&lie).await.is_err(), "moves that solve");
        let mut cut = solved(user, p, None);
        cut.played.pop();
        assert!(
            store.record_puzzle(&cut).await.is_err(),
            "an attempt not over"
        );
        assert!(
            store
                .record_puzzle(&solved(user + 9, p, None))
                .await
                .is_err(),
            "nobody"
        );
        let (stats, recent) = store.puzzle_profile_blocking(user, 20).expect("read");
        assert_eq!((stats[0].tried, recent.len()), (0, 0), "nothing written");

        let recorded = store
            .record_puzzle(&solved(user, p, Some(3)))
            .await
            .expect("stored");
        let change = recorded.change.expect("a first attempt is rated");
        assert_eq!(recorded.rating, change.player.after);
        let leaders = store.streak_leaders_blocking(Game::Xo, 10).expect("read");
        assert_eq!(leaders.len(), 1);
        assert_eq!(
            (leaders[0].best_streak, leaders[0].name.as_str()),
            (3, "ana")
        );

        store.delete_account(user).await.expect("removed");
        let (stats, recent) = store.puzzle_profile_blocking(user, 20).expect("read");
        assert_eq!(stats, [protocol::http::PuzzleStats::default(); 2]);
        assert!(recent.is_empty());
        assert!(
            store
                .streak_leaders_blocking(Game::Xo, 10)
                .expect("read")
                .is_empty()
        );
        let standing = store
            .puzzle_standing_blocking(None, p.id().0)
            .expect("read");
        assert_eq!(
            standing.puzzle, change.puzzle.after,
            "the puzzle keeps its rating"
        );
    }

    /// Only the newest attempts of a player are kept.
    #[tokio::test]
    async fn a_player_keeps_the_newest_attempts() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open_blocking(dir.path()).expect("store");
        let user = store
            .register("ben", "hash", [2; 32], 0, u64::MAX)
            .await
            .expect("register");
        let p = first(Game::Infinite);
        for _ in 0..super::PUZZLE_ATTEMPTS_KEPT + 3 {
            store
                .record_puzzle(&solved(user, p, None))
                .await
                .expect("stored");
        }
        let (stats, recent) = store.puzzle_profile_blocking(user, 100).expect("read");
        assert_eq!(recent.len(), super::PUZZLE_ATTEMPTS_KEPT);
        assert_eq!((stats[1].tried, stats[1].solved), (1, 1), "one rated");
        assert!(recent.windows(2).all(|w| w[0].id > w[1].id), "newest first");
        assert!(recent[..recent.len() - 1].iter().all(|a| !a.rated));
    }
}
