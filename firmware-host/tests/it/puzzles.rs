//! Puzzles through the real server (PZ2-PZ5), as an outside client plays them: real
//! WebSocket clients in both framings. The tests choose their moves with the `tables` crate,
//! as a strong player would; the server alone judges them and plays the defence.

use engine::{Cell, Game, Position};
use protocol::Framing;
use protocol::puzzle::{
    AttemptStatus, MoveVerdict, PuzzleOrigin, PuzzleSource, PuzzleStep, PuzzleView,
};
use tables::puzzle::{Puzzle, PuzzleId};
use xo_client::{Client, ClientError};

use crate::support::{self, Process, TestServer};

const FRAMINGS: [Framing; 2] = [Framing::Text, Framing::Binary];

async fn client(addr: std::net::SocketAddr, framing: Framing) -> Client {
    Client::connect(&format!("http://{addr}"), None, framing)
        .await
        .expect("connect")
}

fn puzzle_of(view: &PuzzleView) -> &'static Puzzle {
    let id: PuzzleId = view
        .puzzle
        .parse()
        .expect("the server names an embedded puzzle");
    tables::puzzle::puzzle(id).expect("embedded")
}

/// The position after the attempt's moves, replayed from its start.
fn position(view: &PuzzleView) -> Position {
    view.moves.iter().fold(puzzle_of(view).position(), |p, &c| {
        p.play(c).expect("the attempt's moves are legal")
    })
}

/// A right move: the puzzle's only first move, then a fastest win.
fn right_move(view: &PuzzleView) -> Cell {
    if view.moves.is_empty() {
        return puzzle_of(view).solution();
    }
    tables::table(view.game)
        .best_moves(&position(view))
        .expect("in the table")[0]
}

fn wrong_move(view: &PuzzleView) -> Cell {
    let puzzle = puzzle_of(view);
    puzzle
        .position()
        .legal_moves()
        .find(|&c| c != puzzle.solution())
        .expect("a puzzle has a wrong move")
}

/// Plays right moves until solved, checking each reply is the tables' defence (the slowest
/// loss, the lowest cell among equals) and that the distance stays hidden until the end.
async fn solve(client: &mut Client, mut view: PuzzleView) -> PuzzleView {
    let table = tables::table(view.game);
    for _ in 0..20 {
        assert_eq!(view.status, AttemptStatus::Playing, "{view:?}");
        assert_eq!(view.distance, None, "hidden before the end: {view:?}");
        let cell = right_move(&view);
        let after = position(&view).play(cell).expect("a legal move");
        view = client
            .puzzle_move(view.attempt, cell)
            .await
            .expect("a right move is accepted");
        assert_same_board(&view.board, &position(&view));
        match view.last {
            Some(PuzzleStep::Right {
                cell: played,
                reply,
            }) => {
                assert_eq!(played, cell);
                assert_eq!(
                    Some(reply),
                    tables::puzzle::table_move(table, &after),
                    "the defence is the tables' slowest loss"
                );
                assert_eq!(view.board.turn, view.you);
            }
            Some(PuzzleStep::Solved { cell: played }) => {
                assert_eq!(played, cell);
                assert_eq!(view.status, AttemptStatus::Solved);
                assert_eq!(view.distance, Some(puzzle_of(&view).distance()));
                return view;
            }
            ref other => panic!("a right move was judged {other:?}"),
        }
    }
    panic!("no puzzle is that long")
}

fn refused(result: Result<PuzzleView, ClientError>) -> String {
    match result {
        Err(ClientError::Refused { code, .. }) => code,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// PZ4 and PZ2: two clients get the same daily puzzle, the server's UTC day's; both solve it
/// move by move against the server's defence; the count of solvers shows on the next daily
/// attempt and on `GET /api/puzzles/daily`. A server process of its own, so nothing else
/// solves its daily puzzles. Both connections come from the machine itself, as the kiosk's
/// screen does, so each solve counts (people elsewhere count once a day: a unit test).
#[tokio::test]
async fn the_daily_puzzle_is_the_same_for_everyone_and_counts_who_solved_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let before = http_daily(server.addr).await;
    assert_eq!(before["puzzles"][0]["solved_today"], 0, "{before}");
    assert_eq!(before["puzzles"][1]["solved_today"], 0, "{before}");
    for (n, framing) in FRAMINGS.into_iter().enumerate() {
        let mut a = client(server.addr, framing).await;
        let mut b = client(server.addr, framing).await;
        let source = PuzzleSource::Daily {
            game: Game::Infinite,
        };
        let mine = a.start_puzzle(source.clone()).await.expect("daily");
        let theirs = b.start_puzzle(source).await.expect("daily");
        assert_eq!(mine.puzzle, theirs.puzzle, "the same puzzle for everyone");
        assert_ne!(mine.attempt, theirs.attempt, "each their own attempt");
        let PuzzleOrigin::Daily { day } = mine.origin else {
            panic!("a daily attempt: {mine:?}");
        };
        assert_eq!(
            mine.puzzle,
            tables::select::daily(Game::Infinite, i64::from(day))
                .id()
                .to_string()
        );
        assert_eq!(mine.solved_today, Some(2 * n as u32));
        assert!(!mine.rated, "guests play unrated (PZ3)");
        assert_eq!((mine.player_rating, mine.rating_change), (None, None));
        assert_eq!((mine.moves.len(), mine.last.as_ref()), (0, None));
        assert_eq!(mine.start, mine.board);
        assert_eq!(mine.you, mine.start.turn);
        let solved = solve(&mut a, mine).await;
        assert_eq!(solved.solved_today, Some(2 * n as u32 + 1));
        let solved = solve(&mut b, theirs).await;
        assert_eq!(solved.solved_today, Some(2 * n as u32 + 2));
        let next = a
            .start_puzzle(PuzzleSource::Daily {
                game: Game::Infinite,
            })
            .await
            .expect("daily again");
        assert_eq!(next.solved_today, Some(2 * n as u32 + 2));
    }
    let after = http_daily(server.addr).await;
    let day = after["day"].as_u64().expect("a day");
    for (i, game) in [Game::Xo, Game::Infinite].into_iter().enumerate() {
        let daily = tables::select::daily(game, i64::try_from(day).expect("a day"));
        let row = &after["puzzles"][i];
        assert_eq!(row["game"], game.as_str(), "{after}");
        assert_eq!(row["puzzle"], daily.id().to_string(), "{after}");
        assert_eq!(row["rating"], daily.rating(), "{after}");
    }
    assert_eq!(after["puzzles"][0]["solved_today"], 0, "{after}");
    assert_eq!(after["puzzles"][1]["solved_today"], 4, "{after}");
}

async fn http_daily(addr: std::net::SocketAddr) -> serde_json::Value {
    let reply = support::request(addr, "GET", "/api/puzzles/daily", &[], None).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json()
}

/// PZ2: a wrong move ends the attempt with its verdict and the tables' refutation played out;
/// the attempt then refuses moves, and a retry starts the same puzzle afresh.
#[tokio::test]
async fn a_wrong_move_shows_the_refutation_and_a_retry_starts_again() {
    let server = TestServer::start().await;
    for framing in FRAMINGS {
        let mut c = client(server.addr(), framing).await;
        let view = c
            .start_puzzle(PuzzleSource::Daily { game: Game::Xo })
            .await
            .expect("daily");
        let wrong = wrong_move(&view);
        let failed = c.puzzle_move(view.attempt, wrong).await.expect("legal");
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
        let child = puzzle_of(&view).position().play(wrong).expect("legal");
        let expected = tables::table(Game::Xo)
            .probe(&child)
            .expect("in the table")
            .for_mover(&child);
        match (*verdict, expected) {
            (MoveVerdict::Draw, tables::Verdict::Draw) => {}
            (MoveVerdict::Loss(n), tables::Verdict::Loss(m)) => assert_eq!(n, m),
            other => panic!("the verdict of a wrong move: {other:?}"),
        }
        assert!(!refutation.is_empty());
        let mut line = vec![wrong];
        line.extend(refutation);
        assert_eq!(failed.moves, line, "the refutation is on the board");
        assert_same_board(&failed.board, &position(&failed));
        assert_eq!(failed.distance, Some(puzzle_of(&view).distance()));

        assert_eq!(
            refused(c.puzzle_move(view.attempt, right_move(&view)).await),
            "game_over"
        );
        let retry = c.puzzle_retry(view.attempt).await.expect("retry");
        assert_ne!(retry.attempt, view.attempt);
        assert_eq!(retry.puzzle, view.puzzle);
        assert_eq!(retry.origin, view.origin);
        assert_eq!((retry.moves.len(), retry.distance), (0, None));
        assert_eq!(refused(c.puzzle_retry(retry.attempt).await), "not_finished");
        solve(&mut c, retry).await;
    }
}

/// The board shows `p`: the same marks (XO's in play order, which the engine does not keep),
/// the side to move and the glowing mark.
fn assert_same_board(board: &protocol::puzzle::PuzzleBoard, p: &Position) {
    let sorted = |cells: &[Cell]| {
        let mut cells = cells.to_vec();
        cells.sort_unstable();
        cells
    };
    assert_eq!(
        sorted(&board.x),
        sorted(p.marks(engine::Mark::X).as_slice())
    );
    assert_eq!(
        sorted(&board.o),
        sorted(p.marks(engine::Mark::O).as_slice())
    );
    if p.game() == Game::Infinite {
        assert_eq!(board.x, p.marks(engine::Mark::X).as_slice());
        assert_eq!(board.o, p.marks(engine::Mark::O).as_slice());
    }
    assert_eq!((board.turn, board.glowing), (p.turn(), p.glowing()));
}

/// An attempt belongs to the connection that started it: another connection (a second tab of
/// the same guest, a spectator) gets `unknown_attempt`, its owner hears nothing of it, and the
/// attempt goes on unchanged.
#[tokio::test]
async fn another_connection_cannot_answer_for_my_attempt() {
    let server = TestServer::start().await;
    let guest = server
        .get("/api/health", None)
        .await
        .cookie_pair("xo_guest")
        .expect("a guest cookie");
    for framing in FRAMINGS {
        let base = format!("http://{}", server.addr());
        let mut mine = Client::connect(&base, Some(&guest), framing)
            .await
            .expect("connect");
        let mut tab = Client::connect(&base, Some(&guest), framing)
            .await
            .expect("connect");
        let view = mine
            .start_puzzle(PuzzleSource::Next {
                game: Game::Infinite,
            })
            .await
            .expect("a puzzle");
        assert_eq!(
            refused(tab.puzzle_move(view.attempt, right_move(&view)).await),
            "unknown_attempt"
        );
        assert_eq!(
            refused(tab.puzzle_retry(view.attempt).await),
            "unknown_attempt"
        );
        let heard = mine
            .recv_within(std::time::Duration::from_millis(300))
            .await
            .expect("open");
        assert_eq!(heard, None, "the owner is told nothing");
        let after = mine
            .puzzle_move(view.attempt, right_move(&view))
            .await
            .expect("the owner's move");
        assert_eq!(after.moves[0], right_move(&view));
    }
}

/// Bad input gets a clear error for its sender alone, echoing the intent's id, and changes
/// nothing.
#[tokio::test]
async fn illegal_moves_and_unknown_ids_are_refused_clearly() {
    let server = TestServer::start().await;
    for framing in FRAMINGS {
        let mut c = client(server.addr(), framing).await;
        let view = c
            .start_puzzle(PuzzleSource::Daily {
                game: Game::Infinite,
            })
            .await
            .expect("daily");
        let occupied = view.start.x.first().or(view.start.o.first());
        let occupied = *occupied.expect("a puzzle has marks");
        assert_eq!(
            refused(c.puzzle_move(view.attempt, occupied).await),
            "cell_occupied"
        );
        assert_eq!(
            refused(c.puzzle_move(view.attempt, 9).await),
            "no_such_cell"
        );
        assert_eq!(refused(c.puzzle_move(u32::MAX, 0).await), "unknown_attempt");
        for bad in ["nope", "xo-win-999999999", "infinite-hold-"] {
            assert_eq!(
                refused(
                    c.start_puzzle(PuzzleSource::ById { puzzle: bad.into() })
                        .await
                ),
                "unknown_puzzle",
                "{bad}"
            );
        }
        assert_eq!(
            refused(
                c.start_puzzle(PuzzleSource::Streak {
                    game: Game::Xo,
                    step: 3
                })
                .await
            ),
            "no_streak"
        );
        // Nothing changed: the attempt is where it was, and solves.
        solve(&mut c, view).await;
    }
}

/// PZ5: a streak serves puzzles of rising rating while they are solved and ends at the first
/// mistake, reporting its length; it does not go on after that.
#[tokio::test]
async fn a_streak_ends_at_the_first_mistake() {
    let server = TestServer::start().await;
    for framing in FRAMINGS {
        let mut c = client(server.addr(), framing).await;
        let streak = |step| PuzzleSource::Streak {
            game: Game::Infinite,
            step,
        };
        let mut rating = i32::MIN;
        for step in 0..3 {
            let view = c.start_puzzle(streak(step)).await.expect("the next step");
            assert_eq!(view.origin, PuzzleOrigin::Streak { step });
            assert!(view.rating >= rating, "ratings never fall");
            rating = view.rating;
            let s = view.streak.as_ref().expect("a streak attempt");
            assert_eq!((s.step, s.solved, s.over), (step, step, false));
            let solved = solve(&mut c, view).await;
            let s = solved.streak.expect("a streak attempt");
            assert_eq!((s.solved, s.over), (step + 1, false));
        }
        let view = c.start_puzzle(streak(3)).await.expect("step 3");
        let failed = c
            .puzzle_move(view.attempt, wrong_move(&view))
            .await
            .expect("legal");
        assert_eq!(failed.status, AttemptStatus::Failed);
        let s = failed.streak.expect("a streak attempt");
        assert_eq!(
            (s.step, s.solved, s.over),
            (3, 3, true),
            "3 solved, then over"
        );
        assert_eq!(refused(c.start_puzzle(streak(4)).await), "no_streak");
        let again = c.start_puzzle(streak(0)).await.expect("a new streak");
        assert_eq!(again.streak.map(|s| s.solved), Some(0));
    }
}

/// E2's formula, written out again for the check: the player's change after scoring `score`
/// (1 solved, 0 failed) against a puzzle rated `puzzle`, and the puzzle's.
fn elo(player: i32, puzzle: i32, score: f64) -> (i32, i32) {
    let expected = |a: i32, b: i32| 1.0 / (1.0 + 10f64.powf(f64::from(b - a) / 400.0));
    (
        (32.0 * (score - expected(player, puzzle))).round() as i32,
        (32.0 * ((1.0 - score) - expected(puzzle, player))).round() as i32,
    )
}

/// Puzzles of `game` whose ratings are far from 1200, so that the changes are not the even
/// 16 of equal ratings: the lowest-rated and the highest-rated.
fn far_puzzles(game: Game) -> (&'static Puzzle, &'static Puzzle) {
    let all = tables::puzzle::puzzles(game);
    let low = all.iter().min_by_key(|p| p.rating()).expect("puzzles");
    let high = all.iter().max_by_key(|p| p.rating()).expect("puzzles");
    (low, high)
}

fn by_id(p: &Puzzle) -> PuzzleSource {
    PuzzleSource::ById {
        puzzle: p.id().to_string(),
    }
}

async fn signed_in(addr: std::net::SocketAddr, cookie: &str, framing: Framing) -> Client {
    Client::connect(&format!("http://{addr}"), Some(cookie), framing)
        .await
        .expect("connect")
}

async fn profile(addr: std::net::SocketAddr, name: &str) -> protocol::http::Profile {
    let reply = support::request(addr, "GET", &format!("/api/users/{name}"), &[], None).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    serde_json::from_str(&reply.text()).expect("a profile")
}

/// PZ3: a signed-in player's first attempt at a puzzle moves their puzzle rating and the
/// puzzle's by the ladders' Elo (K = 32) — up when solved, down when failed — and the reply
/// says both before and after; a retry, and a later attempt at the same puzzle, are unrated;
/// another player then meets the puzzle at its new rating. The profile shows it all.
#[tokio::test]
async fn a_first_attempt_moves_both_ratings_by_the_formula_and_a_retry_does_not() {
    let server = TestServer::start().await;
    let addr = server.addr();
    let (low, high) = far_puzzles(Game::Infinite);
    for (n, framing) in FRAMINGS.into_iter().enumerate() {
        let name = format!("rater{n}");
        let cookie = server.register(&name, "password123").await;
        let mut c = signed_in(addr, &cookie, framing).await;

        // Solved: the player gains what the puzzle loses.
        let view = c.start_puzzle(by_id(high)).await.expect("by id");
        assert!(view.rated, "a first attempt counts: {view:?}");
        assert_eq!(view.player_rating, Some(1200));
        let puzzle_before = view.rating;
        let solved = solve(&mut c, view).await;
        let (dp, dq) = elo(1200, puzzle_before, 1.0);
        let change = solved.rating_change.expect("rated");
        assert!(solved.rated);
        assert_eq!(
            (change.player.before, change.player.after),
            (1200, 1200 + dp)
        );
        assert_eq!(
            (change.puzzle.before, change.puzzle.after),
            (puzzle_before, puzzle_before + dq)
        );
        assert!(dp > 16, "a hard puzzle solved gains much: {dp}");
        assert_eq!(solved.player_rating, Some(1200 + dp));
        let after_first = 1200 + dp;

        // A retry is practice.
        let retry = c.puzzle_retry(solved.attempt).await.expect("retry");
        assert!(!retry.rated, "a retry is unrated");
        assert_eq!(retry.rating, puzzle_before + dq, "the puzzle's new rating");
        let again = solve(&mut c, retry).await;
        assert_eq!((again.rated, again.rating_change), (false, None));
        assert_eq!(again.player_rating, Some(after_first));
        // So is a later attempt at the same puzzle, asked for afresh.
        let later = c.start_puzzle(by_id(high)).await.expect("by id");
        assert!(!later.rated, "only the first attempt counts");

        // Failed: the player loses what the puzzle gains, from the rating just reached.
        let view = c.start_puzzle(by_id(low)).await.expect("by id");
        assert!(view.rated);
        assert_eq!(view.player_rating, Some(after_first));
        let low_before = view.rating;
        let failed = c
            .puzzle_move(view.attempt, wrong_move(&view))
            .await
            .expect("legal");
        assert_eq!(failed.status, AttemptStatus::Failed);
        let (dp2, dq2) = elo(after_first, low_before, 0.0);
        let change = failed.rating_change.expect("rated");
        assert_eq!(
            (change.player.before, change.player.after),
            (after_first, after_first + dp2)
        );
        assert_eq!(
            (change.puzzle.before, change.puzzle.after),
            (low_before, low_before + dq2)
        );
        assert!(dp2 < -16, "an easy puzzle failed costs much: {dp2}");

        // The profile: the rating, 2 tried and 1 solved, and the attempts newest first with
        // their moves (the retry too, unrated).
        let p = profile(addr, &name).await;
        assert_eq!(p.puzzles.infinite.rating, after_first + dp2);
        assert_eq!(
            (p.puzzles.infinite.tried, p.puzzles.infinite.solved),
            (2, 1)
        );
        assert_eq!(p.puzzles.xo, protocol::http::PuzzleStats::default());
        let recent: Vec<(&str, bool)> = p
            .recent_puzzles
            .iter()
            .map(|a| (a.puzzle.as_str(), a.rated))
            .collect();
        let (low_id, high_id) = (low.id().to_string(), high.id().to_string());
        assert_eq!(
            recent,
            [
                (low_id.as_str(), true),
                (high_id.as_str(), false),
                (high_id.as_str(), true)
            ]
        );
        assert_eq!(
            p.recent_puzzles[0].moves, failed.moves,
            "the replay's moves"
        );
        assert_eq!(p.recent_puzzles[0].start, failed.start);
        assert_eq!(p.recent_puzzles[0].rating_change, failed.rating_change);
        assert_eq!(p.recent_puzzles[2].moves, solved.moves);
    }
}

/// PZ3: a guest's attempts are unrated and stored nowhere: the puzzle's rating does not move.
#[tokio::test]
async fn a_guest_plays_unrated() {
    let server = TestServer::start().await;
    let (_, high) = far_puzzles(Game::Xo);
    let mut guest = client(server.addr(), Framing::Text).await;
    let view = guest.start_puzzle(by_id(high)).await.expect("by id");
    assert_eq!((view.rated, view.player_rating), (false, None));
    assert_eq!(view.rating, high.rating());
    let solved = solve(&mut guest, view).await;
    assert_eq!((solved.rated, solved.rating_change), (false, None));
    let again = guest.start_puzzle(by_id(high)).await.expect("by id");
    assert_eq!(
        again.rating,
        high.rating(),
        "the puzzle's rating did not move"
    );
}

/// An attempt is its connection's: another tab of the same account and a guest (a spectator
/// of the room the player is in, say) get `unknown_attempt` for it and move no rating; a
/// second tab racing the first on the same puzzle gets its own attempt, and only the first
/// to end is rated.
#[tokio::test]
async fn another_tab_or_a_spectator_cannot_answer_for_a_rated_attempt() {
    let server = TestServer::start().await;
    let addr = server.addr();
    let (_, high) = far_puzzles(Game::Xo);
    let cookie = server.register("tabs", "password123").await;
    let mut first = signed_in(addr, &cookie, Framing::Text).await;
    let mut second = signed_in(addr, &cookie, Framing::Binary).await;
    let mut spectator = client(addr, Framing::Text).await;
    let mine = first.start_puzzle(by_id(high)).await.expect("by id");
    let racing = second.start_puzzle(by_id(high)).await.expect("by id");
    assert!(mine.rated && racing.rated, "neither has ended yet");
    for other in [&mut second, &mut spectator] {
        assert_eq!(
            refused(other.puzzle_move(mine.attempt, right_move(&mine)).await),
            "unknown_attempt"
        );
        assert_eq!(
            refused(other.puzzle_retry(mine.attempt).await),
            "unknown_attempt"
        );
    }
    assert_eq!(profile(addr, "tabs").await.puzzles.xo.tried, 0);
    let solved = solve(&mut first, mine).await;
    let change = solved.rating_change.expect("the first to end is rated");
    let late = solve(&mut second, racing).await;
    assert_eq!(
        (late.rated, late.rating_change),
        (false, None),
        "the racing tab's attempt came second"
    );
    assert_eq!(late.player_rating, Some(change.player.after));
    let p = profile(addr, "tabs").await;
    assert_eq!(
        (p.puzzles.xo.tried, p.puzzles.xo.rating),
        (1, change.player.after)
    );
}

/// PZ3-PZ5 across a restart: the player's and the puzzle's ratings, tried and solved, the
/// best streak (and the streak leaderboard) and the day's solve count are in the store.
#[tokio::test]
async fn ratings_streaks_and_daily_counts_survive_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let (_, high) = far_puzzles(Game::Infinite);
    let cookie = support::register_at(server.addr, "keeper", "password123").await;
    let mut c = signed_in(server.addr, &cookie, Framing::Binary).await;
    let first = c.start_puzzle(by_id(high)).await.expect("by id");
    let rated = solve(&mut c, first).await;
    let change = rated.rating_change.expect("rated");
    // A streak of two, then a mistake.
    let streak = |step| PuzzleSource::Streak {
        game: Game::Infinite,
        step,
    };
    for step in 0..2 {
        let view = c.start_puzzle(streak(step)).await.expect("a step");
        solve(&mut c, view).await;
    }
    let view = c.start_puzzle(streak(2)).await.expect("step 2");
    c.puzzle_move(view.attempt, wrong_move(&view))
        .await
        .expect("legal");
    let daily = c
        .start_puzzle(PuzzleSource::Daily { game: Game::Xo })
        .await
        .expect("daily");
    let daily = solve(&mut c, daily).await;
    assert_eq!(daily.solved_today, Some(1));
    let before = profile(server.addr, "keeper").await;
    assert_eq!(before.puzzles.infinite.best_streak, 2);
    c.close().await;
    server.stop_with("-TERM");

    let server = Process::start(dir.path(), &[]);
    let after = profile(server.addr, "keeper").await;
    assert_eq!(after.puzzles, before.puzzles, "standings kept");
    assert_eq!(after.recent_puzzles, before.recent_puzzles, "attempts kept");
    assert_eq!(after.puzzles.infinite.best_streak, 2);
    let day = http_daily(server.addr).await;
    assert_eq!(day["puzzles"][0]["solved_today"], 1, "{day}");
    let board = support::request(
        server.addr,
        "GET",
        "/api/puzzles/streaks?game=infinite",
        &[],
        None,
    )
    .await;
    assert_eq!(board.status, 200, "{}", board.text());
    let board: protocol::http::StreakBoard = serde_json::from_str(&board.text()).expect("json");
    assert_eq!(board.players.len(), 1);
    let row = &board.players[0];
    assert_eq!(
        (row.rank, row.username.as_str(), row.best_streak),
        (1, "keeper", 2)
    );
    assert_eq!(row.rating, after.puzzles.infinite.rating);
    let mut c = signed_in(server.addr, &cookie, Framing::Text).await;
    let again = c.start_puzzle(by_id(high)).await.expect("by id");
    assert_eq!(
        again.rating, change.puzzle.after,
        "the puzzle's rating kept"
    );
    assert_eq!(again.player_rating, Some(after.puzzles.infinite.rating));
    assert!(!again.rated, "tried before the restart");
    let bad = support::request(
        server.addr,
        "GET",
        "/api/puzzles/streaks?game=chess",
        &[],
        None,
    )
    .await;
    bad.assert_error(400, "bad_game");
}
