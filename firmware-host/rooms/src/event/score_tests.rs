//! EV4: points, streaks, performance, standings order, podium; standings deltas.

use engine::Mark;
use protocol::records::GameEnd;

use super::*;

const LINE_X: GameEnd = GameEnd::Line {
    winner: Mark::X,
    line: [0, 1, 2],
};

/// A game `no` between `x` and `o`, both rated `rating`, ended by `end`.
pub(crate) fn game(no: u32, x: u64, o: u64, end: GameEnd) -> EventGame {
    EventGame {
        no,
        room: format!("r{no}"),
        x,
        o,
        x_rating: 1200,
        o_rating: 1200,
        end,
        x_points: 0,
        o_points: 0,
        ended_at_ms: u64::from(no),
    }
}

fn points_of(sheet: &mut Sheet, outcomes: &[Outcome]) -> Vec<u8> {
    outcomes.iter().map(|o| sheet.add(*o, 1200)).collect()
}

#[test]
fn win_scores_two_draw_one_loss_zero() {
    let mut s = Sheet::default();
    assert_eq!(
        points_of(&mut s, &[Outcome::Win, Outcome::Draw, Outcome::Loss]),
        [2, 1, 0]
    );
    assert_eq!(s.points, 3);
    assert_eq!((s.wins, s.draws, s.losses, s.games), (1, 1, 1, 3));
}

#[test]
fn third_consecutive_win_scores_four() {
    let mut s = Sheet::default();
    assert_eq!(
        points_of(
            &mut s,
            &[Outcome::Win, Outcome::Win, Outcome::Win, Outcome::Win]
        ),
        [2, 2, 4, 4]
    );
    assert_eq!(s.streak, 4);
    assert!(s.on_fire());
}

#[test]
fn streak_ends_with_any_game_that_is_not_a_win() {
    for breaker in [Outcome::Draw, Outcome::Loss] {
        let mut s = Sheet::default();
        let pts = points_of(
            &mut s,
            &[
                Outcome::Win,
                Outcome::Win,
                Outcome::Win,
                breaker,
                Outcome::Win,
            ],
        );
        // A draw on a streak scores 1, not 2 (unlike lichess): EV4 doubles wins only.
        assert_eq!(pts, [2, 2, 4, u8::from(breaker == Outcome::Draw), 2]);
        assert_eq!(s.streak, 1);
        assert!(!s.on_fire());
    }
}

#[test]
fn resignation_timeout_and_exit_are_losses_draws_are_draws() {
    // An exit during play is stored as a resignation (M3.9).
    assert_eq!(
        Outcome::of(GameEnd::Resigned { loser: Mark::X }, Mark::X),
        Outcome::Loss
    );
    assert_eq!(
        Outcome::of(GameEnd::Resigned { loser: Mark::X }, Mark::O),
        Outcome::Win
    );
    assert_eq!(
        Outcome::of(GameEnd::Timeout { loser: Mark::O }, Mark::O),
        Outcome::Loss
    );
    assert_eq!(
        Outcome::of(GameEnd::Timeout { loser: Mark::O }, Mark::X),
        Outcome::Win
    );
    assert_eq!(Outcome::of(LINE_X, Mark::X), Outcome::Win);
    assert_eq!(Outcome::of(LINE_X, Mark::O), Outcome::Loss);
    for end in [GameEnd::FullBoard, GameEnd::Repetition, GameEnd::Agreed] {
        assert_eq!(Outcome::of(end, Mark::X), Outcome::Draw);
        assert_eq!(Outcome::of(end, Mark::O), Outcome::Draw);
    }
}

#[test]
fn performance_is_opponents_average_plus_500_per_net_win() {
    let mut s = Sheet::default();
    assert_eq!(s.performance(), None);
    s.add(Outcome::Win, 1300);
    assert_eq!(s.performance(), Some(1800));
    s.add(Outcome::Loss, 1100);
    assert_eq!(s.performance(), Some(1200));
    s.add(Outcome::Draw, 1201);
    // (1300 + 1100 + 1201 + 0) / 3 = 1200.33
    assert_eq!(s.performance(), Some(1200));
    s.add(Outcome::Draw, 1201);
    // 4802 / 4 = 1200.5, rounded half up
    assert_eq!(s.performance(), Some(1201));
}

#[test]
fn standings_order_points_then_performance_then_fewer_games_then_id() {
    let rows = |games: &[EventGame]| -> Vec<u64> {
        standings_from_games(games)
            .rows
            .iter()
            .map(|r| r.user)
            .collect()
    };
    // 1 beats 2: 1 has 2 points. 3 and 4 draw: 1 point each, equal performance, id decides.
    let mut games = vec![game(1, 1, 2, LINE_X), game(2, 3, 4, GameEnd::Agreed)];
    assert_eq!(rows(&games), [1, 3, 4, 2]);
    // 5 beats a stronger opponent than 6 does: same points, better performance.
    games.push(EventGame {
        o_rating: 1500,
        ..game(3, 5, 7, LINE_X)
    });
    games.push(game(4, 6, 8, LINE_X));
    assert_eq!(rows(&games)[..3], [5, 1, 6]);
    // 1 and 6 are equal in everything but id: one rank, 1 listed first.
    let s = standings_from_games(&games);
    assert_eq!(s.row(1).map(|r| r.rank), s.row(6).map(|r| r.rank), "tied");
}

#[test]
fn fewer_games_ranks_higher_on_equal_points_and_performance() {
    // 1: one win against 1200: 2 points, performance 1700, one game.
    // 2: two draws against 1700: 2 points, performance 1700, two games.
    let draw_with_strong = |no, o| EventGame {
        o_rating: 1700,
        ..game(no, 2, o, GameEnd::Agreed)
    };
    let games = [
        draw_with_strong(1, 10),
        draw_with_strong(2, 11),
        game(3, 1, 12, LINE_X),
    ];
    let s = standings_from_games(&games);
    let r = |u| s.row(u).cloned().expect("row");
    assert_eq!(
        (r(1).points, r(1).performance, r(1).games),
        (2, Some(1700), 1)
    );
    assert_eq!(
        (r(2).points, r(2).performance, r(2).games),
        (2, Some(1700), 2)
    );
    assert_eq!((r(1).rank, r(2).rank), (1, 2));
}

#[test]
fn tied_players_share_a_podium_place() {
    // 1 and 2 each beat someone; 3 and 4 each beat someone of the same rating too.
    let games = [
        game(1, 1, 5, LINE_X),
        game(2, 2, 6, LINE_X),
        game(3, 3, 7, LINE_X),
        game(4, 8, 9, GameEnd::Agreed),
    ];
    let s = standings_from_games(&games);
    let podium: Vec<(u64, u32)> = s.podium().iter().map(|r| (r.user, r.rank)).collect();
    assert_eq!(podium, [(1, 1), (2, 1), (3, 1)]);
    let games = [
        game(1, 1, 5, LINE_X),
        game(2, 1, 6, LINE_X),
        game(3, 2, 7, LINE_X),
        game(4, 3, 8, LINE_X),
        game(5, 4, 9, GameEnd::Agreed),
    ];
    let podium: Vec<(u64, u32)> = standings_from_games(&games)
        .podium()
        .iter()
        .map(|r| (r.user, r.rank))
        .collect();
    assert_eq!(podium, [(1, 1), (2, 2), (3, 2)]);
}

#[test]
fn podium_leaves_out_players_without_games() {
    let s = Standings::from_games(&[1, 2], &[]);
    assert_eq!(s.rows.len(), 2);
    assert!(s.podium().is_empty());
    let s = Standings::from_games(&[1, 2, 3], &[game(1, 4, 5, GameEnd::Agreed)]);
    let users: Vec<u64> = s.rows.iter().map(|r| r.user).collect();
    assert_eq!(users, [4, 5, 1, 2, 3], "players without games come last");
    assert_eq!(s.podium().len(), 2);
}

#[test]
fn applying_a_delta_gives_the_new_table() {
    let old = Standings::from_games(&[1, 2, 3, 9], &[game(1, 1, 2, LINE_X)]);
    let new = Standings::from_games(&[1, 2, 3], &[game(1, 1, 2, LINE_X), game(2, 3, 1, LINE_X)]);
    let delta = diff(&old, &new);
    assert_eq!(delta.removed, [9]);
    assert!(delta.rows.iter().any(|r| r.user == 3));
    assert_eq!(old.apply(&delta), new);
    assert!(diff(&new, &new).is_empty());
}
