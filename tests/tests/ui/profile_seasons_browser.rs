//! A season the owner archived stays on the profiles of the players
//! who played it (SPEC O2). At 800 × 480, in English and Arabic, a player's profile lists each
//! archived season, newest first, with their rank, rating and games on each ladder they played,
//! and each links to that season's archived leaderboard. Run by
//! `scripts/test-browser profile_seasons`.

use serde_json::{Value, json};
use xo_client::Client as Ws;
use xo_tests::webdriver::{Client, Locator};
use xo_tests::{
    Driver, Outcome, Server, check_layout_matrix, click, eventually, open_live, report,
    run_sessions, save_screenshot, set_lang, wait_path_is, wait_text,
};

const KIOSK: (u32, u32) = (800, 480);
const PASSWORD: &str = "password123";

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// An HTTP request as the test's own client (not the browser); the answer's JSON.
async fn api(
    base: &str,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    body: &str,
) -> Result<Value, Failure> {
    let reply = xo_client::request(base, method, path, cookie, body).await?;
    let json: Value = serde_json::from_slice(&reply.body)?;
    if reply.status != 200 {
        return Err(format!("{method} {path}: {} {json}", reply.status).into());
    }
    Ok(json)
}

/// The next message (as JSON) that `want` accepts, among the next 200.
async fn until(ws: &mut Ws, what: &str, want: impl Fn(&Value) -> bool) -> Result<Value, Failure> {
    for _ in 0..200 {
        let msg = serde_json::to_value(ws.recv().await?)?;
        if msg.get("error").is_some() {
            return Err(format!("waiting for {what}: {msg}").into());
        }
        if want(&msg) {
            return Ok(msg);
        }
    }
    Err(format!("waiting for {what}: not among 200 messages").into())
}

async fn send(ws: &mut Ws, msg: Value) -> Outcome {
    ws.send(serde_json::from_value(msg)?).await?;
    Ok(())
}

/// A rated Infinite XO game over the protocol that `winner` wins when `loser` resigns.
async fn rated_game(base: &str, winner: &str, loser: &str) -> Outcome {
    let mut host = Ws::connect(base, Some(winner), protocol::Framing::Text).await?;
    send(
        &mut host,
        json!({"create_room": {"id": 1, "room": {"game": "infinite", "opponent": {"player": {}}}}}),
    )
    .await?;
    let created = until(&mut host, "the new room", |m| m["room"]["id"] == 1).await?;
    let room = created["room"]["room"]["id"].clone();
    let mut guest = Ws::connect(base, Some(loser), protocol::Framing::Text).await?;
    send(&mut guest, json!({"join": {"id": 2, "room": room}})).await?;
    until(&mut guest, "the seat", |m| m["room"]["id"] == 2).await?;
    send(&mut guest, json!({"ready": {"id": 3, "ready": true}})).await?;
    until(&mut guest, "ready", |m| m["room"]["id"] == 3).await?;
    send(&mut host, json!({"start": {"id": 4}})).await?;
    until(&mut host, "the start", |m| m["room"]["id"] == 4).await?;
    send(&mut guest, json!({"resign": {"id": 5}})).await?;
    until(&mut host, "the result", |m| {
        m["event"].get("result").is_some()
    })
    .await?;
    host.close().await;
    guest.close().await;
    Ok(())
}

/// The texts of the profile's archived seasons, top to bottom, once they are shown.
async fn season_rows(c: &Client) -> Result<Vec<(String, String)>, Failure> {
    eventually("the profile's past seasons", || async {
        let rows = c
            .find_all(Locator::Css("#profile-seasons .season-row"))
            .await
            .ok()?;
        let mut out = Vec::new();
        for row in rows {
            let season = row.attr("data-season").await.ok()??;
            out.push((season, row.text().await.ok()?));
        }
        (!out.is_empty()).then_some(out)
    })
    .await
    .map_err(Into::into)
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn archived_seasons_stay_on_the_profile_with_rank_and_link_in_both_languages() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_sessions(
        &driver,
        "profile-seasons",
        &[KIOSK],
        move |sessions| async move {
            let c = &sessions[0];
            let sara = xo_client::register(&base, "sara", PASSWORD).await?;
            let omar = xo_client::register(&base, "omar", PASSWORD).await?;
            let lina = xo_client::register(&base, "lina", PASSWORD).await?;
            let nour = xo_client::register(&base, "nour", PASSWORD).await?;
            let code = api(&base, "POST", "/api/kiosk/owner-code", None, "{}").await?;
            let code = code["code"].as_str().ok_or("an owner code")?.to_owned();
            let claim = json!({ "code": code }).to_string();
            api(&base, "POST", "/api/owner/claim", Some(&sara), &claim).await?;

            // Season 1: omar beats lina and nour. Season 2: lina beats omar.
            rated_game(&base, &omar, &lina).await?;
            rated_game(&base, &omar, &nour).await?;
            api(&base, "POST", "/api/owner/seasons", Some(&sara), "{}").await?;
            rated_game(&base, &lina, &omar).await?;
            api(&base, "POST", "/api/owner/seasons", Some(&sara), "{}").await?;
            let profile = api(&base, "GET", "/api/users/omar", None, "").await?;

            open_live(c, &format!("{base}/profile/omar")).await?;
            let rows = season_rows(c).await?;
            let seasons: Vec<&str> = rows.iter().map(|(s, _)| s.as_str()).collect();
            assert_eq!(seasons, ["2", "1"], "newest first: {rows:?}");
            for (i, (season, text)) in rows.iter().enumerate() {
                // The server's season list is oldest first.
                let s = &profile["seasons"][rows.len() - 1 - i];
                assert_eq!(s["season"].to_string(), *season, "{profile}");
                let ladder = &s["ladders"]["infinite"];
                let want = format!(
                    "Infinite XO: rank {} · rating {} · games {}",
                    s["ranks"]["infinite"], ladder["rating"], ladder["games"]
                );
                assert!(text.contains(&format!("Season {season}")), "{text}");
                assert!(text.contains(&want), "{text} should say {want}");
                // Nobody played XO: one line, the Infinite XO ladder's.
                assert_eq!(text.matches(": rank").count(), 1, "{text}");
            }
            assert!(rows[1].1.contains("rank 1"), "omar won season 1: {rows:?}");
            assert!(rows[0].1.contains("rank 2"), "lina won season 2: {rows:?}");
            save_screenshot(c, "profile-seasons-en").await;

            // The link opens season 1's archived leaderboard, where omar is first.
            click(
                c,
                "#profile-seasons [data-season='1'] a[href='/leaderboard/infinite/season/1']",
            )
            .await?;
            wait_path_is(c, "/leaderboard/infinite/season/1").await?;
            wait_text(c, "#season-title", "Season 1").await?;
            wait_text(c, "#leaderboard tbody tr:first-child", "omar").await?;

            // In Arabic.
            open_live(c, &format!("{base}/profile/omar")).await?;
            set_lang(c, "ar").await?;
            wait_text(c, "#profile-seasons h2", "المواسم السابقة").await?;
            let rows = season_rows(c).await?;
            assert!(rows[1].1.contains("المرتبة"), "{rows:?}");
            assert!(rows[1].1.contains("الموسم"), "{rows:?}");
            save_screenshot(c, "profile-seasons-ar").await;
            set_lang(c, "en").await?;

            // A player with no archived season has no such section.
            open_live(c, &format!("{base}/profile/sara")).await?;
            wait_text(c, "#profile-name", "sara").await?;
            let none = c.find(Locator::Css("#profile-seasons")).await.is_err();
            assert!(none, "sara played no season");

            open_live(c, &format!("{base}/profile/omar")).await?;
            season_rows(c).await?;
            let problems = check_layout_matrix(c, "profile-seasons-matrix", KIOSK).await?;
            report(&problems)
        },
    )
    .await;
}
