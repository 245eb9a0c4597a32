//! Scoring and standings (EV4): each player's [`Sheet`] of games in the event, the points of
//! one game, performance, and the ordered [`Standings`].
//!
//! Standings are a function of the stored games alone ([`standings_from_games`]): the live
//! table the arena keeps game by game is the same function applied one game at a time, and a
//! property test holds the two equal.
//!
//! - Points: win 2, draw 1, loss 0; a win after two consecutive wins (the third, fourth … in a
//!   row) scores 4, until a game that is not a win. Resignation, timeout and leaving during
//!   play are losses ([`Outcome::of`]).
//! - Performance: `(sum of opponents' ratings + 500 × (wins − losses)) / games`, rounded to the
//!   nearest integer (lichess's arena performance); the opponent's rating is the one they had
//!   when the game was paired (stored with the game). No games, no performance.
//! - Order: points, then performance (none after any), then fewer games, then the smaller
//!   user id. Ranks are shared by rows equal in points, performance and games (1, 1, 3 …), so
//!   the order within a shared rank is by user id.

use std::collections::BTreeMap;

use engine::Mark;
use protocol::RoomId;
use protocol::records::{GameEnd, UserId};
use serde::{Deserialize, Serialize};

/// The number of a pairing in its event: 1, 2, 3 … in the order they were made.
pub type GameNo = u32;

/// Points of a win, a draw, a loss, and a win on a streak (EV4).
pub const WIN_POINTS: u8 = 2;
pub const DRAW_POINTS: u8 = 1;
pub const LOSS_POINTS: u8 = 0;
pub const STREAK_WIN_POINTS: u8 = 4;
/// Wins in a row after which the next win scores [`STREAK_WIN_POINTS`].
pub const STREAK_AFTER: u32 = 2;
/// The rating-point bonus (malus) of a win (loss) in the performance.
pub const PERFORMANCE_SPREAD: i64 = 500;

/// One game from one player's side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    Win,
    Draw,
    Loss,
}

impl Outcome {
    /// What the game ended by `end` was for the player who played `mark`. Every way a game
    /// ends is named, so a new one must be placed here: a line wins; a full board, a
    /// repetition and an agreed draw are draws; resigning (which leaving an active game is,
    /// M3.9) and running out of time lose (EV4).
    pub fn of(end: GameEnd, mark: Mark) -> Outcome {
        let winner = match end {
            GameEnd::Line { winner, .. } => winner,
            GameEnd::Resigned { loser } | GameEnd::Timeout { loser } => loser.other(),
            GameEnd::FullBoard | GameEnd::Repetition | GameEnd::Agreed => return Outcome::Draw,
        };
        if winner == mark {
            Outcome::Win
        } else {
            Outcome::Loss
        }
    }
}

/// A finished game of the event as stored with its result (EV4: in the same transaction).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventGame {
    pub no: GameNo,
    /// The room it was played in (the stored game's id, for replay).
    pub room: RoomId,
    pub x: UserId,
    pub o: UserId,
    /// Ratings on the event's ladder when the game was paired (for performance).
    pub x_rating: i32,
    pub o_rating: i32,
    pub end: GameEnd,
    /// The event points each side scored, as shown; [`standings_from_games`] recomputes them
    /// from `end` and the order of games rather than trusting these.
    pub x_points: u8,
    pub o_points: u8,
    /// Unix milliseconds.
    pub ended_at_ms: u64,
}

/// One player's running record in the event.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sheet {
    pub points: u32,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Wins in a row up to now; from [`STREAK_AFTER`] on the next win scores 4.
    pub streak: u32,
    /// The sum of the opponents' ratings, for performance.
    pub opponents_rating: i64,
}

impl Sheet {
    /// The points `outcome` would score now.
    pub fn points_for(&self, outcome: Outcome) -> u8 {
        match outcome {
            Outcome::Win if self.on_fire() => STREAK_WIN_POINTS,
            Outcome::Win => WIN_POINTS,
            Outcome::Draw => DRAW_POINTS,
            Outcome::Loss => LOSS_POINTS,
        }
    }

    /// The next win scores [`STREAK_WIN_POINTS`] (shown as a streak).
    pub fn on_fire(&self) -> bool {
        self.streak >= STREAK_AFTER
    }

    /// Counts one more game against an opponent rated `opponent`; returns its points.
    pub fn add(&mut self, outcome: Outcome, opponent: i32) -> u8 {
        let points = self.points_for(outcome);
        self.points += u32::from(points);
        self.games += 1;
        self.opponents_rating += i64::from(opponent);
        match outcome {
            Outcome::Win => {
                self.wins += 1;
                self.streak += 1;
            }
            Outcome::Draw => {
                self.draws += 1;
                self.streak = 0;
            }
            Outcome::Loss => {
                self.losses += 1;
                self.streak = 0;
            }
        }
        points
    }

    /// `(opponents' ratings + 500 × (wins − losses)) / games`, rounded half up; `None`
    /// before the first game.
    pub fn performance(&self) -> Option<i32> {
        if self.games == 0 {
            return None;
        }
        let n = i64::from(self.games);
        let total = self.opponents_rating
            + PERFORMANCE_SPREAD * (i64::from(self.wins) - i64::from(self.losses));
        let rounded = (2 * total + n).div_euclid(2 * n);
        Some(i32::try_from(rounded).unwrap_or(if rounded < 0 { i32::MIN } else { i32::MAX }))
    }
}

/// Plays one game into `sheets` (players are added as they appear); returns the points X and
/// O scored.
pub fn score_game(sheets: &mut BTreeMap<UserId, Sheet>, game: &EventGame) -> (u8, u8) {
    let x = sheets
        .entry(game.x)
        .or_default()
        .add(Outcome::of(game.end, Mark::X), game.o_rating);
    let o = sheets
        .entry(game.o)
        .or_default()
        .add(Outcome::of(game.end, Mark::O), game.x_rating);
    (x, o)
}

/// One line of the table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    pub user: UserId,
    /// 1-based; shared by rows equal in points, performance and games.
    pub rank: u32,
    pub points: u32,
    pub performance: Option<i32>,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Wins in a row now; from 2 on, the next win scores 4.
    pub streak: u32,
}

impl Row {
    fn of(user: UserId, sheet: &Sheet) -> Row {
        Row {
            user,
            rank: 0,
            points: sheet.points,
            performance: sheet.performance(),
            games: sheet.games,
            wins: sheet.wins,
            draws: sheet.draws,
            losses: sheet.losses,
            streak: sheet.streak,
        }
    }

    /// What ranks are shared by: the row's place in the order without the user id.
    fn standing(
        &self,
    ) -> (
        core::cmp::Reverse<u32>,
        core::cmp::Reverse<Option<i32>>,
        u32,
    ) {
        // `Option` orders `None` first, so reversed it puts "no performance" last.
        (
            core::cmp::Reverse(self.points),
            core::cmp::Reverse(self.performance),
            self.games,
        )
    }
}

/// The ordered table.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Standings {
    pub rows: Vec<Row>,
}

impl Standings {
    /// The table of these players' sheets: ordered, ranked.
    pub fn from_sheets<'a>(sheets: impl IntoIterator<Item = (UserId, &'a Sheet)>) -> Standings {
        let mut rows: Vec<Row> = sheets
            .into_iter()
            .map(|(user, sheet)| Row::of(user, sheet))
            .collect();
        Self::rank(&mut rows);
        Standings { rows }
    }

    /// Orders `rows` and gives them their ranks.
    pub(crate) fn rank(rows: &mut [Row]) {
        rows.sort_by(|a, b| a.standing().cmp(&b.standing()).then(a.user.cmp(&b.user)));
        for i in 0..rows.len() {
            rows[i].rank = if i > 0 && rows[i - 1].standing() == rows[i].standing() {
                rows[i - 1].rank
            } else {
                u32::try_from(i + 1).unwrap_or(u32::MAX)
            };
        }
    }

    /// The table of `entrants` (with no games yet, or more) and everyone in `games`, the games
    /// taken in order.
    pub fn from_games(entrants: &[UserId], games: &[EventGame]) -> Standings {
        let sheets = sheets_from_games(entrants, games);
        Standings::from_sheets(sheets.iter().map(|(u, s)| (*u, s)))
    }

    pub fn row(&self, user: UserId) -> Option<&Row> {
        self.rows.iter().find(|r| r.user == user)
    }

    /// The podium at the end: every player ranked 1 to 3 who played, ties included (so two
    /// players sharing first make the podium 1, 1, 3).
    pub fn podium(&self) -> Vec<Row> {
        self.rows
            .iter()
            .filter(|r| r.rank <= 3 && r.games > 0)
            .cloned()
            .collect()
    }
}

/// Each player's sheet after `games`, taken in order; `entrants` are listed even with no
/// game.
pub fn sheets_from_games(entrants: &[UserId], games: &[EventGame]) -> BTreeMap<UserId, Sheet> {
    let mut sheets: BTreeMap<UserId, Sheet> =
        entrants.iter().map(|u| (*u, Sheet::default())).collect();
    for game in games {
        score_game(&mut sheets, game);
    }
    sheets
}

/// The standings of the players of `games`, recomputed from the games alone, taken in the
/// order given (the order results were stored; only each player's own order matters).
pub fn standings_from_games(games: &[EventGame]) -> Standings {
    Standings::from_games(&[], games)
}
