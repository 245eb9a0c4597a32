//! Puzzles through the real server (PZ2, PZ4, PZ5), as an outside client plays them: real
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
        assert!(!mine.rated, "puzzles are unrated until PZ3");
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
