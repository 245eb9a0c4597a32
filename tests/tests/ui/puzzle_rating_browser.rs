//! Puzzle ratings and streaks in the browser (PZ3, PZ5): players solve puzzles and run
//! streaks over the protocol; at 800 × 480, in English and Arabic, the profile shows the
//! puzzle rating, solved of tried and the best streak per game, and the recent puzzles, one of
//! which opens its replay from the puzzle's position; the streak leaderboard ranks the best
//! streaks. Screenshots of each; the layout checked at every size. Run by
//! `scripts/test-browser puzzle_rating`.

use engine::{Cell, Game};
use protocol::puzzle::{AttemptStatus, PuzzleSource, PuzzleView};
use serde_json::Value;
use xo_client::Client as Ws;
use xo_tests::webdriver::{Client, Locator};
use xo_tests::{
    Driver, Server, check_layout_matrix, click, eventually, js, open_live, report, run_sessions,
    save_screenshot, set_lang, wait_path_is, wait_text,
};

const KIOSK: (u32, u32) = (800, 480);
const PASSWORD: &str = "password123";

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// A right move of the attempt: the puzzle's only first move, then a fastest win.
fn right_move(view: &PuzzleView) -> Result<Cell, Failure> {
    let id: tables::puzzle::PuzzleId = view.puzzle.parse().map_err(|_| "a puzzle id")?;
    let puzzle = tables::puzzle::puzzle(id).ok_or("an embedded puzzle")?;
    if view.moves.is_empty() {
        return Ok(puzzle.solution());
    }
    let mut p = puzzle.position();
    for &c in &view.moves {
        p = p.play(c).map_err(|e| e.to_string())?;
    }
    let best = tables::table(view.game)
        .best_moves(&p)
        .map_err(|_| "a reachable position")?;
    Ok(*best.first().ok_or("a winning move")?)
}

async fn solve(ws: &mut Ws, mut view: PuzzleView) -> Result<PuzzleView, Failure> {
    while view.status == AttemptStatus::Playing {
        view = ws.puzzle_move(view.attempt, right_move(&view)?).await?;
    }
    if view.status != AttemptStatus::Solved {
        return Err(format!("not solved: {view:?}").into());
    }
    Ok(view)
}

/// Runs an XO streak over the protocol: `solved` puzzles solved, then a mistake.
async fn streak(ws: &mut Ws, solved: u32) -> Result<(), Failure> {
    for step in 0..=solved {
        let source = PuzzleSource::Streak {
            game: Game::Xo,
            step,
        };
        let view = ws.start_puzzle(source).await?;
        if step < solved {
            solve(ws, view).await?;
        } else {
            let id: tables::puzzle::PuzzleId = view.puzzle.parse().map_err(|_| "an id")?;
            let puzzle = tables::puzzle::puzzle(id).ok_or("embedded")?;
            let wrong = puzzle
                .position()
                .legal_moves()
                .find(|&c| c != puzzle.solution())
                .ok_or("a wrong move")?;
            ws.puzzle_move(view.attempt, wrong).await?;
        }
    }
    Ok(())
}

async fn profile(base: &str, name: &str) -> Result<Value, Failure> {
    let reply = xo_client::request(base, "GET", &format!("/api/users/{name}"), None, "").await?;
    Ok(serde_json::from_slice(&reply.body)?)
}

/// The text of the profile's puzzle panel of `game`, once shown.
async fn puzzle_panel(c: &Client, game: &str) -> Result<String, Failure> {
    let css = format!("#profile-puzzles [data-game='{game}']");
    eventually("the profile's puzzles", || async {
        c.find(Locator::Css(&css)).await.ok()?.text().await.ok()
    })
    .await
    .map_err(Into::into)
}

/// Scrolls the profile's puzzles to the top of the window, for the screenshot.
async fn show_puzzles(c: &Client) -> Result<(), Failure> {
    let top = "const p = document.querySelector('#profile-puzzles'); \
               window.scrollTo(0, p.getBoundingClientRect().top + window.scrollY - 70); \
               return [window.scrollY, document.scrollingElement.scrollHeight, window.innerHeight, getComputedStyle(document.body).overflowY, getComputedStyle(document.querySelector('#main')).overflowY, document.querySelector('#main').scrollHeight];";
    let scrolled = js(c, top).await?;
    eprintln!("profile scrolled to {scrolled}");
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn the_profile_shows_puzzle_ratings_and_replays_and_the_streak_board_ranks_streaks() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_sessions(
        &driver,
        "puzzle-rating",
        &[KIOSK],
        move |sessions| async move {
            let c = &sessions[0];
            let sara = xo_client::register(&base, "sara", PASSWORD).await?;
            let omar = xo_client::register(&base, "omar", PASSWORD).await?;
            let mut ws = Ws::connect(&base, Some(&sara), protocol::Framing::Text).await?;
            // A rated solve of the day's XO puzzle, then a streak of two.
            let daily = ws
                .start_puzzle(PuzzleSource::Daily { game: Game::Xo })
                .await?;
            let solved = solve(&mut ws, daily).await?;
            let change = solved.rating_change.ok_or("a first attempt is rated")?;
            streak(&mut ws, 2).await?;
            let mut other = Ws::connect(&base, Some(&omar), protocol::Framing::Text).await?;
            streak(&mut other, 1).await?;
            let p = profile(&base, "sara").await?;
            let xo = &p["puzzles"]["xo"];
            assert_eq!(xo["best_streak"], 2, "{p}");
            assert!(change.player.after > 1200, "{change:?}");

            open_live(c, &format!("{base}/profile/sara")).await?;
            let text = puzzle_panel(c, "xo").await?;
            for want in [
                format!("Rating {}", xo["rating"]),
                format!("{} of {}", xo["solved"], xo["tried"]),
                "Best streak".to_owned(),
            ] {
                assert!(text.contains(&want), "{text:?} should say {want:?}");
            }
            let infinite = puzzle_panel(c, "infinite").await?;
            assert!(infinite.contains("Rating 1200"), "{infinite:?}");
            wait_text(c, "#recent-puzzles li:first-child", "Missed").await?;
            let rows = c.find_all(Locator::Css("#recent-puzzles li")).await?.len();
            assert_eq!(rows, 4, "the daily, two streak puzzles and the miss");
            show_puzzles(c).await?;
            save_screenshot(c, "profile-puzzles-en").await;

            // The oldest attempt, the rated daily solve, replays from the puzzle's position.
            let first = p["recent_puzzles"][3].clone();
            let id = first["id"].as_u64().ok_or("an attempt id")?;
            click(
                c,
                &format!("#recent-puzzles a[href='/profile/sara/puzzle/{id}']"),
            )
            .await?;
            wait_path_is(c, &format!("/profile/sara/puzzle/{id}")).await?;
            wait_text(c, "#result", "X to move and win").await?;
            wait_text(
                c,
                "#puzzle-replay-rating",
                &format!("+{}", change.player.after - change.player.before),
            )
            .await?;
            let moves = first["moves"].as_array().ok_or("moves")?.len();
            let listed = eventually("the replay's moves", || async {
                let n = c.find_all(Locator::Css("#move-list li")).await.ok()?.len();
                (n > 0).then_some(n)
            })
            .await?;
            assert_eq!(listed, moves, "every ply of the attempt");
            // At the start: the puzzle's marks, no more.
            click(c, "#replay-first").await?;
            let start = &first["start"];
            let want = start["x"].as_array().map_or(0, Vec::len)
                + start["o"].as_array().map_or(0, Vec::len);
            let shown = eventually("the start position", || async {
                let n = c
                    .find_all(Locator::Css(
                        "#replay-board .cell.has-x, #replay-board .cell.has-o",
                    ))
                    .await
                    .ok()?
                    .len();
                (n == want).then_some(n)
            })
            .await?;
            assert_eq!(shown, want);
            save_screenshot(c, "puzzle-replay-en").await;

            // The streak board: sara (2) above omar (1).
            open_live(c, &format!("{base}/puzzles/streaks/xo")).await?;
            wait_text(c, "#streaks tbody tr:first-child", "sara").await?;
            wait_text(c, "#streaks tbody tr:nth-child(2)", "omar").await?;
            let first_row = c
                .find(Locator::Css("#streaks tbody tr:first-child"))
                .await?
                .text()
                .await?;
            assert!(first_row.contains('2'), "{first_row}");
            save_screenshot(c, "puzzle-streaks-en").await;

            // In Arabic.
            set_lang(c, "ar").await?;
            wait_text(c, "#streaks thead", "أفضل سلسلة").await?;
            save_screenshot(c, "puzzle-streaks-ar").await;
            let problems_streaks = check_layout_matrix(c, "puzzle-streaks-matrix", KIOSK).await?;
            open_live(c, &format!("{base}/profile/sara")).await?;
            set_lang(c, "ar").await?;
            wait_text(c, "#profile-puzzles h2", "الألغاز").await?;
            let text = puzzle_panel(c, "xo").await?;
            assert!(text.contains("أفضل سلسلة"), "{text}");
            show_puzzles(c).await?;
            save_screenshot(c, "profile-puzzles-ar").await;
            click(
                c,
                &format!("#recent-puzzles a[href='/profile/sara/puzzle/{id}']"),
            )
            .await?;
            wait_text(c, "#puzzle-replay-rating", "تصنيفك").await?;
            save_screenshot(c, "puzzle-replay-ar").await;
            set_lang(c, "en").await?;

            open_live(c, &format!("{base}/profile/sara")).await?;
            puzzle_panel(c, "xo").await?;
            let mut problems = check_layout_matrix(c, "profile-puzzles-matrix", KIOSK).await?;
            problems.extend(problems_streaks);
            report(&problems)
        },
    )
    .await;
}
