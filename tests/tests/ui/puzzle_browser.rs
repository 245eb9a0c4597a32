//! Puzzles in the browser (PZ2, PZ4, PZ5): the day's XO puzzle opened from the kiosk's home
//! at 800×480 in English and Arabic, solved by tapping, then failed (the refutation played out
//! step by step, then Retry); a streak on a phone (two solved, the third failed, the streak
//! over); the puzzle screens' layout at every size in both languages, with screenshots. The
//! right moves come from the solved tables (every fastest win; the first move of a puzzle has
//! exactly one). Run by `scripts/test-browser puzzle`.

use std::time::Duration;

use engine::{Cell, Game, Mark, Position, Setup};
use xo_tests::webdriver::{Client, Locator};
use xo_tests::{
    Outcome, Server, announced, assert_in_view, check_screen, click, eventually, js,
    layout_problems, marks, open_live, report, run_session, save_screenshot, set_lang, text_of,
    wait_path_is,
};

const KIOSK: (u32, u32) = (800, 480);
const PHONE: (u32, u32) = (360, 640);

/// The XO position on the live board, read from its cells: X moves when both hold as many.
async fn board(c: &Client) -> Result<Position, String> {
    let v = js(
        c,
        "return [...document.querySelectorAll('#board .cell')].map(e => \
         e.classList.contains('has-x') ? 'x' : e.classList.contains('has-o') ? 'o' : '');",
    )
    .await?;
    let cells: Vec<String> = serde_json::from_value(v).map_err(|e| e.to_string())?;
    let of = |m: &str| -> Vec<Cell> {
        (0..9u8)
            .filter(|&i| cells.get(usize::from(i)).is_some_and(|c| c == m))
            .collect()
    };
    let (x, o) = (of("x"), of("o"));
    let turn = if x.len() == o.len() { Mark::X } else { Mark::O };
    Position::from_setup(&Setup {
        game: Game::Xo,
        x,
        o,
        turn,
    })
    .map_err(|e| e.to_string())
}

/// Waits until the player may move: the board takes taps and the other side's plies are shown.
async fn my_turn(c: &Client) -> Outcome {
    eventually("the player's turn on the puzzle board", || async {
        let v = js(
            c,
            "const b = document.querySelector('#board'); \
             return !!b && b.classList.contains('my-turn') && \
             !!b.querySelector(\".cell[aria-disabled='false']\");",
        )
        .await
        .ok()?;
        v.as_bool()?.then_some(())
    })
    .await?;
    Ok(())
}

async fn tap(c: &Client, cell: Cell) -> Outcome {
    c.find(Locator::Css(&format!("#board [data-cell='{cell}']")))
        .await?
        .click()
        .await?;
    Ok(())
}

/// Solves the puzzle on screen by tapping the tables' fastest wins; returns the taps.
async fn solve(c: &Client) -> Result<usize, Box<dyn std::error::Error + Send + Sync>> {
    let table = tables::table(Game::Xo);
    for taps in 1..=6 {
        my_turn(c).await?;
        let p = board(c).await?;
        let best = table
            .best_moves(&p)
            .map_err(|_| "an unreachable position")?;
        let cell = *best.first().ok_or("no winning move")?;
        tap(c, cell).await?;
        // Either the defence answers (the player's turn again) or the puzzle is solved.
        let done = eventually("the answer to the move", || async {
            if c.find(Locator::Css("#puzzle-outcome.gain")).await.is_ok() {
                return Some(true);
            }
            let v = js(
                c,
                "return document.querySelector('#board').classList.contains('my-turn');",
            )
            .await
            .ok()?;
            let n = marks(c).await.ok()?;
            (v.as_bool()? && n as usize >= p.mark_count() + 2).then_some(false)
        })
        .await?;
        if done {
            c.find(Locator::Css("#puzzle-next")).await?;
            return Ok(taps);
        }
    }
    Err("not solved in six moves".into())
}

/// Plays a wrong first move (one the tables do not count as a fastest win) and follows the
/// refutation: the board gains one mark at a time until Retry shows. Returns the marks counts
/// the page showed along the way, as the page itself saw them change (a `MutationObserver`
/// installed before the tap: polling over WebDriver misses a ply on a loaded machine).
async fn fail(c: &Client) -> Result<Vec<u64>, Box<dyn std::error::Error + Send + Sync>> {
    my_turn(c).await?;
    let p = board(c).await?;
    let best = tables::table(Game::Xo)
        .best_moves(&p)
        .map_err(|_| "an unreachable position")?;
    let wrong = p
        .legal_moves()
        .find(|m| !best.contains(m))
        .ok_or("every move wins")?;
    js(
        c,
        "const count = () => document.querySelectorAll('#board .mark').length; \
         if (window.__marksSeen) window.__marksSeen.observer.disconnect(); \
         const seen = [count()]; \
         const observer = new MutationObserver(() => { \
           const n = count(); if (seen[seen.length - 1] !== n) seen.push(n); }); \
         observer.observe(document.body, { subtree: true, childList: true, attributes: true }); \
         window.__marksSeen = { seen, observer }; return true;",
    )
    .await?;
    tap(c, wrong).await?;
    let deadline = std::time::Instant::now() + Duration::from_secs(15);
    while c.find(Locator::Css("#puzzle-retry")).await.is_err() {
        assert!(
            std::time::Instant::now() < deadline,
            "no Retry after the refutation"
        );
        tokio::time::sleep(Duration::from_millis(120)).await;
    }
    let seen = js(
        c,
        "const m = window.__marksSeen; m.observer.disconnect(); \
         const n = document.querySelectorAll('#board .mark').length; \
         if (m.seen[m.seen.length - 1] !== n) m.seen.push(n); return m.seen.slice(1);",
    )
    .await?;
    let seen: Vec<u64> = serde_json::from_value(seen)?;
    c.find(Locator::Css("#puzzle-outcome.loss")).await?;
    c.find(Locator::Css("#puzzle-refutation")).await?;
    Ok(seen)
}

/// The number in a text, in Latin or Arabic-Indic digits.
fn number_in(text: &str) -> Option<u32> {
    let digits: String = text
        .chars()
        .filter_map(|ch| match ch {
            '0'..='9' => Some(ch),
            '\u{0660}'..='\u{0669}' => char::from_u32(u32::from(ch) - 0x0660 + u32::from('0')),
            _ => None,
        })
        .collect();
    digits.parse().ok()
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn the_days_puzzle_is_solved_and_failed_on_the_kiosk_in_both_languages() {
    let server = Server::start(120).await;
    let driver = xo_tests::Driver::start().await;
    for lang in ["en", "ar"] {
        let base = server.base.clone();
        run_session(
            &driver,
            &format!("kiosk-puzzle-{lang}"),
            KIOSK,
            move |c| async move {
                let mut problems = Vec::new();
                open_live(&c, &format!("{base}/kiosk")).await?;
                set_lang(&c, lang).await?;
                // The home's third choice: the day's puzzles with how many solved them.
                click(&c, "#play-puzzle").await?;
                let row = eventually("the day's XO puzzle", || async {
                    text_of(&c, "#daily-xo").await
                })
                .await?;
                let before = number_in(row.rsplit(['·', ':']).next().unwrap_or("")).unwrap_or(0);
                c.find(Locator::Css("#daily-infinite")).await?;
                tokio::time::sleep(Duration::from_millis(300)).await;
                for p in layout_problems(&c).await? {
                    problems.push(format!("kiosk home, puzzles {lang}: {p}"));
                }
                save_screenshot(&c, &format!("kiosk-home-puzzle-{lang}")).await;

                click(&c, "#daily-xo a").await?;
                wait_path_is(&c, "/kiosk/puzzle/daily/xo").await?;
                my_turn(&c).await?;
                let start = marks(&c).await?;
                let task = text_of(&c, "#rail-text").await.unwrap_or_default();
                assert!(task.contains('X') || task.contains('O'), "the task: {task}");
                assert_in_view(&c, "#board", f64::from(KIOSK.1)).await?;
                assert_in_view(&c, "#rail", f64::from(KIOSK.1)).await?;
                for p in layout_problems(&c).await? {
                    problems.push(format!("kiosk puzzle {lang}: {p}"));
                }
                assert!(
                    c.find(Locator::Css("#puzzle-distance")).await.is_err(),
                    "no distance before the end"
                );
                save_screenshot(&c, &format!("kiosk-puzzle-{lang}")).await;
                if lang == "en" {
                    // The screen at every size in both languages (and back to 800×480, English).
                    problems.extend(check_screen(&c, "puzzle-screen", KIOSK, &[]).await?);
                }

                // Solved by tapping: the distance shows, and the count of solves goes up.
                solve(&c).await?;
                c.find(Locator::Css("#puzzle-distance")).await?;
                let today = text_of(&c, "#puzzle-today").await.unwrap_or_default();
                assert!(
                    number_in(&today).unwrap_or(0) > before,
                    "solved today after a solve: {today} (before: {before})"
                );
                if lang == "en" {
                    let said = announced(&c).await;
                    assert!(said.contains("Solved in"), "announced: {said}");
                }
                tokio::time::sleep(Duration::from_millis(300)).await;
                for p in layout_problems(&c).await? {
                    problems.push(format!("kiosk puzzle solved {lang}: {p}"));
                }
                save_screenshot(&c, &format!("kiosk-puzzle-solved-{lang}")).await;

                // Retry, then a wrong move: its verdict, and the refutation one ply at a time.
                click(&c, "#puzzle-retry").await?;
                eventually("the start again", || async {
                    (marks(&c).await.ok()? == start).then_some(())
                })
                .await?;
                let seen = fail(&c).await?;
                assert_eq!(
                    seen.first(),
                    Some(&(start + 1)),
                    "the wrong move shows first: {seen:?}"
                );
                assert!(
                    seen.windows(2).all(|w| w[1] == w[0] + 1),
                    "the refutation is played ply by ply: {seen:?}"
                );
                let why = text_of(&c, "#puzzle-outcome").await.unwrap_or_default();
                if lang == "en" {
                    assert!(why.starts_with("Wrong:"), "{why}");
                }
                c.find(Locator::Css("#puzzle-distance")).await?;
                tokio::time::sleep(Duration::from_millis(300)).await;
                assert_in_view(&c, "#puzzle-retry", f64::from(KIOSK.1)).await?;
                for p in layout_problems(&c).await? {
                    problems.push(format!("kiosk puzzle failed {lang}: {p}"));
                }
                save_screenshot(&c, &format!("kiosk-puzzle-wrong-{lang}")).await;
                // Retry starts it again from the start.
                click(&c, "#puzzle-retry").await?;
                eventually("the start after Retry", || async {
                    (marks(&c).await.ok()? == start).then_some(())
                })
                .await?;
                my_turn(&c).await?;
                report(&problems)
            },
        )
        .await;
    }
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn a_puzzle_streak_on_a_phone_ends_at_the_first_mistake() {
    let server = Server::start(120).await;
    let driver = xo_tests::Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "phone-puzzle-streak", PHONE, move |c| async move {
        let mut problems = Vec::new();
        open_live(&c, &format!("{base}/")).await?;
        // The lobby's Puzzles link, then the puzzles' page.
        click(&c, ".more a[href='/puzzles']").await?;
        wait_path_is(&c, "/puzzles").await?;
        eventually("the day's puzzles", || async {
            c.find(Locator::Css("#daily-xo")).await.ok()
        })
        .await?;
        for lang in ["en", "ar"] {
            set_lang(&c, lang).await?;
            tokio::time::sleep(Duration::from_millis(300)).await;
            for p in layout_problems(&c).await? {
                problems.push(format!("phone puzzles {lang}: {p}"));
            }
            save_screenshot(&c, &format!("phone-puzzles-{lang}")).await;
        }
        set_lang(&c, "en").await?;
        click(&c, "a[href='/puzzle/streak/xo']").await?;
        wait_path_is(&c, "/puzzle/streak/xo").await?;
        for solved in 1..=2u32 {
            solve(&c).await?;
            let streak = text_of(&c, "#puzzle-streak").await.unwrap_or_default();
            assert_eq!(streak, format!("Streak: {solved} solved"));
            click(&c, "#puzzle-next").await?;
            eventually("the next puzzle of the streak", || async {
                c.find(Locator::Css("#puzzle-outcome"))
                    .await
                    .is_err()
                    .then_some(())
            })
            .await?;
        }
        assert_in_view(&c, "#board", f64::from(PHONE.1)).await?;
        fail(&c).await?;
        let streak = text_of(&c, "#puzzle-streak").await.unwrap_or_default();
        assert_eq!(streak, "Streak over: 2 solved");
        c.find(Locator::Css("#puzzle-start-again")).await?;
        for lang in ["en", "ar"] {
            set_lang(&c, lang).await?;
            tokio::time::sleep(Duration::from_millis(300)).await;
            for p in layout_problems(&c).await? {
                problems.push(format!("phone streak over {lang}: {p}"));
            }
            save_screenshot(&c, &format!("phone-puzzle-streak-over-{lang}")).await;
        }
        set_lang(&c, "en").await?;
        // Start again: a new streak from its first puzzle.
        click(&c, "#puzzle-start-again").await?;
        eventually("a new streak", || async {
            c.find(Locator::Css("#puzzle-streak")).await.ok()?;
            let s = text_of(&c, "#puzzle-streak").await?;
            (s == "Streak: 0 solved").then_some(())
        })
        .await?;
        report(&problems)
    })
    .await;
}
