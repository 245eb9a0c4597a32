//! AP3 on the kiosk's 800×480 screen: left alone for the screen's own idle time (here 10 s),
//! or in the sleep hours once left alone for the kiosk's idle time, the kiosk's page goes
//! black over everything and tells the server (`/api/kiosk/screen`, which the compositor's
//! hook reads); the touch that wakes it does nothing else: tapped on a board's empty cell it
//! places no mark, tapped on a button it presses nothing; the same tap once awake plays.
//! Run by `scripts/test-browser screen_sleep`.

use std::time::Duration;

use serde_json::json;
use xo_tests::webdriver::Client;
use xo_tests::{
    Driver, Outcome, Server, eventually, js, marks, open_live, path, play, run_session,
    save_screenshot, start_local_game, wait_gone, wait_marks,
};

const KIOSK: (u32, u32) = (800, 480);

/// A tap as the kiosk's touchscreen makes one: a press and a release at (`x`, `y`) of the
/// viewport, wherever the page's elements are (WebDriver's element click would refuse a
/// covered element).
async fn tap(c: &Client, x: f64, y: f64) -> Outcome {
    for kind in ["mousePressed", "mouseReleased"] {
        c.devtools(
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
        )
        .await?;
    }
    Ok(())
}

/// The centre of the first element matching `css`, in viewport pixels.
async fn centre(c: &Client, css: &str) -> Result<(f64, f64), String> {
    let v = js(
        c,
        &format!(
            "const r = document.querySelector({css:?}).getBoundingClientRect();
             return [r.left + r.width / 2, r.top + r.height / 2];"
        ),
    )
    .await?;
    Ok((v[0].as_f64().ok_or("no x")?, v[1].as_f64().ok_or("no y")?))
}

/// What the server was told about the screen (asked from the kiosk's own page: loopback).
async fn server_says_asleep(c: &Client) -> Result<bool, String> {
    let v = js(
        c,
        "return fetch('/api/kiosk/screen').then(r => r.json()).then(s => s.asleep);",
    )
    .await?;
    v.as_bool().ok_or_else(|| format!("/api/kiosk/screen: {v}"))
}

/// The screen is black from edge to edge: the sleeping sheet is what lies under every point
/// of a grid over the viewport, opaque black; the server was told.
async fn asleep(c: &Client, shot: &str) -> Outcome {
    eventually("the screen to sleep", || async {
        js(c, "return !!document.querySelector('#screen-sleep');")
            .await
            .ok()?
            .as_bool()?
            .then_some(())
    })
    .await?;
    let covered = js(
        c,
        "const sheet = document.querySelector('#screen-sleep');
         const style = getComputedStyle(sheet);
         let all = true;
         for (let x = 1; x < innerWidth; x += (innerWidth - 2) / 7)
           for (let y = 1; y < innerHeight; y += (innerHeight - 2) / 4)
             all = all && document.elementFromPoint(x, y) === sheet;
         return [all, style.backgroundColor, style.opacity, innerWidth, innerHeight];",
    )
    .await?;
    assert_eq!(
        covered,
        json!([true, "rgb(0, 0, 0)", "1", KIOSK.0, KIOSK.1]),
        "a black sheet over the whole 800x480 screen"
    );
    save_screenshot(c, shot).await;
    eventually("the server to be told the screen sleeps", || async {
        server_says_asleep(c).await.ok()?.then_some(())
    })
    .await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn the_waking_tap_on_a_sleeping_kiosk_places_no_mark() {
    let server = Server::start_with(120, None, &["--screen-off-idle", "10"]).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "screen-sleep-game", KIOSK, move |c| async move {
        start_local_game(&c, &base).await?;
        play(&c, 4, 1).await?;
        // Ten seconds without a touch: the screen sleeps over the game.
        asleep(&c, "kiosk-screen-asleep").await?;
        let (x, y) = centre(&c, "#board [data-cell='0']").await?;
        tap(&c, x, y).await?;
        wait_gone(&c, "#screen-sleep").await?;
        // The waking tap placed nothing, and nothing went to the server.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(marks(&c).await?, 1, "the waking tap placed a mark");
        assert!(!server_says_asleep(&c).await?, "the server is told it woke");
        save_screenshot(&c, "kiosk-screen-woken").await;
        // Awake, the same tap plays.
        tap(&c, x, y).await?;
        wait_marks(&c, 2).await?;
        Ok(())
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn in_the_sleep_hours_the_kiosk_sleeps_once_left_alone_and_the_waking_tap_presses_nothing() {
    // Hours covering the whole day but its last minute, the kiosk's idle time 3 s.
    let server = Server::start_with(3, None, &["--screen-sleep", "00:00-23:59"]).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "screen-sleep-hours", KIOSK, move |c| async move {
        open_live(&c, &format!("{base}/kiosk")).await?;
        let (x, y) = centre(&c, "#friend-submit, #bot-submit").await?;
        asleep(&c, "kiosk-screen-asleep-hours").await?;
        // On the Start button: wakes the screen, starts nothing.
        tap(&c, x, y).await?;
        wait_gone(&c, "#screen-sleep").await?;
        tokio::time::sleep(Duration::from_millis(1500)).await;
        assert_eq!(path(&c).await?, "/kiosk", "the waking tap started a game");
        Ok(())
    })
    .await;
}
