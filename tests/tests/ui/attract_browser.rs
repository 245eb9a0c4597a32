//! U13: the idle kiosk invites. Its home, left alone for the idle time, cycles
//! through what is happening (a game in progress on a live mini-board, the latest results, the
//! ladders' top, the day's puzzle) with the QR code in view throughout, and the next touch brings the controls
//! back without acting on what was under the finger. A kiosk left watching a game stays while
//! it is played and goes home once it has ended and the idle time has passed. The server's
//! idle time is 3 s. Run by `scripts/test-browser attract`.

use std::time::{Duration, Instant};

use protocol::{ClientMsg, CreateRoom, OpponentRequest};
use xo_tests::webdriver::{Client, Locator};
use xo_tests::{
    Driver, Outcome, Server, ask_over_protocol, assert_in_view, click, eventually, js,
    layout_problems, open_live, path, rated_game_over_protocol, report, run_session,
    save_screenshot, text_of, wait_gone, wait_path_is,
};

const KIOSK: (u32, u32) = (800, 480);

/// A local Infinite XO game between Lina and Adam, made by a guest over the protocol, with
/// `cells` played; the connection (which must stay open) and the room's id.
async fn local_game(base: &str, cells: &[u8]) -> Result<(xo_client::Client, String), String> {
    let mut client = xo_client::Client::connect(base, None, protocol::Framing::Text)
        .await
        .map_err(|e| e.to_string())?;
    let room = ask_over_protocol(&mut client, |id| ClientMsg::CreateRoom {
        id,
        room: CreateRoom {
            game: engine::Game::Infinite,
            opponent: OpponentRequest::Local {
                names: ["Lina".into(), "Adam".into()],
            },
            time_per_move_s: Some(30),
        },
    })
    .await?;
    for &cell in cells {
        ask_over_protocol(&mut client, |id| ClientMsg::Move { id, cell }).await?;
    }
    Ok((client, room.id))
}

/// The slide showing now (`game`, `results`, `leaders` …).
async fn slide(c: &Client) -> Option<String> {
    let v = js(
        c,
        "const a = document.querySelector('#attract'); return a && a.dataset.slide;",
    )
    .await
    .ok()?;
    v.as_str().map(str::to_owned)
}

/// Waits for `which` to be shown, then checks it: the QR code in view, nothing broken.
async fn see_slide(c: &Client, which: &str, lang: &str, problems: &mut Vec<String>) -> Outcome {
    eventually(&format!("the {which} slide"), || async {
        (slide(c).await? == which).then_some(())
    })
    .await?;
    // Let the slide's data and fonts settle.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_in_view(c, ".qr svg", f64::from(KIOSK.1)).await?;
    for p in layout_problems(c).await? {
        problems.push(format!("attract {which} {lang}: {p}"));
    }
    save_screenshot(c, &format!("kiosk-attract-{which}-{lang}")).await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn an_idle_kiosk_home_cycles_through_what_is_happening_until_a_touch() {
    // The kiosk's language resets to the owner's default when idle: one server per language.
    for lang in ["en", "ar"] {
        let server = Server::start_with(3, None, &["--default-language", lang]).await;
        let driver = Driver::start().await;
        let base = server.base.clone();
        let name = format!("attract-{lang}");
        run_session(&driver, &name, KIOSK, move |c| async move {
            let mut problems = Vec::new();
            rated_game_over_protocol(&base, "sara", "omar").await?;
            let (mut local, room) = local_game(&base, &[4, 0]).await?;
            open_live(&c, &format!("{base}/kiosk")).await?;
            c.find(Locator::Css("#play-bot")).await?;
            // Left alone: the controls give way to the slides, in the cycle's order.
            see_slide(&c, "game", lang, &mut problems).await?;
            eventually("the live mini-board", || async {
                let n = js(
                    &c,
                    "return document.querySelectorAll('#attract-board .mark').length;",
                )
                .await
                .ok()?;
                (n.as_u64()? == 2).then_some(())
            })
            .await?;
            assert!(
                c.find(Locator::Css("#play-bot")).await.is_err(),
                "no controls"
            );
            // A move in the game reaches the mini-board.
            ask_over_protocol(&mut local, |id| ClientMsg::Move { id, cell: 8 }).await?;
            eventually("the move on the mini-board", || async {
                let n = js(
                    &c,
                    "return document.querySelectorAll('#attract-board .mark').length;",
                )
                .await
                .ok()?;
                (n.as_u64()? == 3).then_some(())
            })
            .await?;
            see_slide(&c, "results", lang, &mut problems).await?;
            let results = text_of(&c, "#attract-results").await.unwrap_or_default();
            assert!(
                results.contains("sara") && results.contains("omar"),
                "{results}"
            );
            see_slide(&c, "leaders", lang, &mut problems).await?;
            let leaders = text_of(&c, "#attract-leaders").await.unwrap_or_default();
            assert!(
                leaders.contains("sara") && leaders.contains("omar"),
                "{leaders}"
            );
            // The day's puzzle: its start on a board, and its task.
            see_slide(&c, "puzzle", lang, &mut problems).await?;
            eventually("the puzzle's board", || async {
                let n = js(
                    &c,
                    "return document.querySelectorAll('#attract-puzzle-board .mark').length;",
                )
                .await
                .ok()?;
                (n.as_u64()? > 0).then_some(())
            })
            .await?;
            let task = text_of(&c, "#attract-puzzle-task")
                .await
                .unwrap_or_default();
            if lang == "en" {
                assert!(task.ends_with("to move and win"), "{task}");
            }
            // And round again: the game comes next.
            see_slide(&c, "game", lang, &mut problems).await?;
            if lang == "en" {
                // A touch where a live room's link is: the controls come back, nothing opens.
                let link = format!("#room-list [data-room='{room}'] .room-link");
                c.find(Locator::Css(&link)).await?;
                click(&c, "#attract-wake").await?;
                wait_gone(&c, "#attract").await?;
                c.find(Locator::Css("#play-bot")).await?;
                tokio::time::sleep(Duration::from_millis(500)).await;
                assert_eq!(path(&c).await?, "/kiosk", "the waking touch opened nothing");
                // Idle again: the slides again.
                eventually("the slides again", || async {
                    c.find(Locator::Css("#attract")).await.ok()
                })
                .await?;
                // A key wakes it too.
                c.find(Locator::Css("#attract-wake"))
                    .await?
                    .send_keys("a")
                    .await?;
                wait_gone(&c, "#attract").await?;
            }
            local.close().await;
            report(&problems)
        })
        .await;
    }
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn a_kiosk_watching_a_game_goes_home_after_it_ends_and_the_idle_time_passes() {
    let server = Server::start(3).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "watch-then-home", KIOSK, move |c| async move {
        let (mut local, room) = local_game(&base, &[0, 3]).await?;
        open_live(&c, &format!("{base}/kiosk")).await?;
        click(&c, &format!("#room-list [data-room='{room}'] .room-link")).await?;
        wait_path_is(&c, &format!("/kiosk/room/{room}")).await?;
        // Played on for twice the idle time with nobody touching the kiosk: it stays.
        for cell in [1u8, 4] {
            tokio::time::sleep(Duration::from_secs(3)).await;
            ask_over_protocol(&mut local, |id| ClientMsg::Move { id, cell }).await?;
        }
        assert_eq!(path(&c).await?, format!("/kiosk/room/{room}"));
        // X (Lina) completes the top row: the game ends, the result shows for the idle time.
        ask_over_protocol(&mut local, |id| ClientMsg::Move { id, cell: 2 }).await?;
        eventually("the result on the kiosk", || async {
            c.find(Locator::Css("#result-prompt")).await.ok()
        })
        .await?;
        let ended = Instant::now();
        wait_path_is(&c, "/kiosk").await?;
        let shown = ended.elapsed();
        assert!(
            shown >= Duration::from_millis(2000),
            "the result stays for the idle time, not {shown:?}"
        );
        local.close().await;
        Ok(())
    })
    .await;
}
