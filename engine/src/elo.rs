//! Elo arithmetic (E2) and the rating preview (E4), computed by the same function.

use serde::{Deserialize, Serialize};

/// Every player's rating on each ladder before their first rated game (E1).
pub const INITIAL_RATING: i32 = 1200;

/// The K factor of E2.
pub const K: f64 = 32.0;

/// A player's result in one game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Score {
    Win,
    Draw,
    Loss,
}

impl Score {
    /// S of E2: 1, 0.5 or 0.
    pub fn value(self) -> f64 {
        match self {
            Score::Win => 1.0,
            Score::Draw => 0.5,
            Score::Loss => 0.0,
        }
    }

    /// The opponent's score in the same game.
    pub fn opposite(self) -> Score {
        match self {
            Score::Win => Score::Loss,
            Score::Draw => Score::Draw,
            Score::Loss => Score::Win,
        }
    }

    /// Profile points (E5): win 10, draw 3, loss 1.
    pub fn points(self) -> u32 {
        match self {
            Score::Win => 10,
            Score::Draw => 3,
            Score::Loss => 1,
        }
    }
}

/// E2: expected score of a player rated `rp` against one rated `ro`.
pub fn expected(rp: i32, ro: i32) -> f64 {
    1.0 / (1.0 + 10f64.powf(f64::from(ro - rp) / 400.0))
}

/// E2: the rating change of a player rated `rp` who scored `score` against one rated `ro`:
/// `round(32 × (S − E))`, rounding halves away from zero, so both changes of one game always
/// sum to zero.
pub fn rating_change(rp: i32, ro: i32, score: Score) -> i32 {
    change_from(expected(rp, ro), score)
}

/// `round(32 × (S − E))` for a player whose expected score is `expected`.
fn change_from(expected: f64, score: Score) -> i32 {
    (K * (score.value() - expected)).round() as i32
}

/// Both players' changes for one result: `a` scored `score_a` against `b`.
/// The real update at the end of a game and the preview panel (E4) both call this.
pub fn changes(a: i32, b: i32, score_a: Score) -> (i32, i32) {
    (
        rating_change(a, b, score_a),
        rating_change(b, a, score_a.opposite()),
    )
}

/// E4: both players' projected ratings if `a` scored `score_a` against `b`.
pub fn preview(a: i32, b: i32, score_a: Score) -> (i32, i32) {
    let (da, db) = changes(a, b, score_a);
    (a + da, b + db)
}

/// E4: [`preview`] for each of `a`'s scores, win, draw and loss, with each expected score
/// computed once (the panel is in every snapshot of a rated game).
pub fn previews(a: i32, b: i32) -> [(i32, i32); 3] {
    let (ea, eb) = (expected(a, b), expected(b, a));
    [Score::Win, Score::Draw, Score::Loss].map(|score| {
        (
            a + change_from(ea, score),
            b + change_from(eb, score.opposite()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn previews_are_the_preview_of_each_score() {
        // Every pair 0–3,000 in steps of 7 (a step prime to 400, so differences fall on every
        // residue the rounding cares about), and the equal and one-apart pairs.
        let ratings = (0..=3000).step_by(7);
        for a in ratings.clone() {
            for b in ratings.clone().chain([a, a + 1]) {
                let each = [Score::Win, Score::Draw, Score::Loss].map(|s| preview(a, b, s));
                assert_eq!(previews(a, b), each, "{a} against {b}");
            }
        }
    }

    #[test]
    fn e2_equal_ratings_win_gains_sixteen() {
        assert_eq!(changes(1200, 1200, Score::Win), (16, -16));
        assert_eq!(changes(1200, 1200, Score::Draw), (0, 0));
        assert_eq!(changes(1200, 1200, Score::Loss), (-16, 16));
    }

    #[test]
    fn e2_expected_score_formula() {
        // 400 points apart: E = 1 / (1 + 10) for the weaker player.
        assert!((expected(1000, 1400) - 1.0 / 11.0).abs() < 1e-12);
        assert!((expected(1400, 1000) - 10.0 / 11.0).abs() < 1e-12);
        // round(32 × (1 − 1/11)) = round(29.09) = 29.
        assert_eq!(rating_change(1000, 1400, Score::Win), 29);
        assert_eq!(rating_change(1400, 1000, Score::Loss), -29);
        // round(32 × (0.5 − 10/11)) = round(−13.09) = −13.
        assert_eq!(rating_change(1400, 1000, Score::Draw), -13);
    }

    #[test]
    fn e2_changes_are_zero_sum() {
        for a in (800..1700).step_by(37) {
            for b in (800..1700).step_by(41) {
                for s in [Score::Win, Score::Draw, Score::Loss] {
                    let (da, db) = changes(a, b, s);
                    assert_eq!(da + db, 0, "{a} vs {b} {s:?}");
                }
            }
        }
    }

    #[test]
    fn e4_preview_matches_the_real_update() {
        let (a, b) = (1216, 1190);
        for s in [Score::Win, Score::Draw, Score::Loss] {
            let (da, db) = changes(a, b, s);
            assert_eq!(preview(a, b, s), (a + da, b + db));
        }
    }

    #[test]
    fn e5_points() {
        assert_eq!(
            [Score::Win, Score::Draw, Score::Loss].map(Score::points),
            [10, 3, 1]
        );
    }
}
