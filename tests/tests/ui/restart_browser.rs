//! The owner's restart in the browser against the real process: the update page
//! asks, says it is restarting, and once the server answers again (here started again by the
//! test on the same port with the same data, as the image's service does) says in words that
//! it is back and which version runs, with the owner still signed in. English and Arabic at
//! 800 × 480. Run by `scripts/test-browser restart`.

use serde_json::{Value, json};
use xo_tests::{
    Driver, Server, click, eventually, open_live, run_sessions, save_screenshot, set_lang, text_of,
    type_into, wait_path_is, wait_text,
};

const KIOSK: (u32, u32) = (800, 480);
const PASSWORD: &str = "password123";

type Failure = Box<dyn std::error::Error + Send + Sync>;

async fn api(base: &str, path: &str, cookie: Option<&str>, body: &str) -> Result<Value, Failure> {
    let method = if body.is_empty() { "GET" } else { "POST" };
    let reply = xo_client::request(base, method, path, cookie, body).await?;
    let json: Value = serde_json::from_slice(&reply.body)?;
    if reply.status != 200 {
        return Err(format!("{method} {path}: {} {json}", reply.status).into());
    }
    Ok(json)
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn the_update_page_says_when_the_restarted_server_is_back_in_both_languages() {
    let mut server = Server::start(120).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    let boss = xo_client::register(&base, "boss", PASSWORD)
        .await
        .expect("register the owner");
    let code = api(&base, "/api/kiosk/owner-code", None, "{}")
        .await
        .expect("an owner code");
    let claim = json!({ "code": code["code"] }).to_string();
    api(&base, "/api/owner/claim", Some(&boss), &claim)
        .await
        .expect("boss becomes an owner");
    run_sessions(&driver, "restart", &[KIOSK], move |sessions| async move {
        let c = &sessions[0];
        open_live(c, &format!("{base}/signin")).await?;
        type_into(c, "#username", "boss").await?;
        type_into(c, "#password", PASSWORD).await?;
        click(c, "#signin-submit").await?;
        eventually("signed in", || async {
            text_of(c, ".navbar").await?.contains("boss").then_some(())
        })
        .await?;
        for (lang, back) in [
            ("en", "The server is back, running version"),
            ("ar", "عاد الخادم ويعمل بالإصدار"),
        ] {
            open_live(c, &format!("{base}/owner/update")).await?;
            wait_path_is(c, "/owner/update").await?;
            set_lang(c, lang).await?;
            click(c, "#restart").await?;
            wait_text(c, "#restart-question", "").await?;
            click(c, "#restart-yes").await?;
            eventually("the restarting notice", || async {
                text_of(c, "#restarting")
                    .await
                    .filter(|t| !t.is_empty())
                    .map(|_| ())
            })
            .await?;
            // The process stops by itself; it comes back with the same data and port.
            server.start_again().await;
            let health = api(&base, "/api/health", None, "").await?;
            let version = health["version"].as_str().ok_or("a version")?.to_owned();
            let said = wait_text(c, "#update-said", back).await?;
            assert!(said.contains(&version), "{said} names {version}");
            save_screenshot(c, &format!("restart-back-{lang}")).await;
            // The owner is still signed in, and may restart again.
            assert!(
                text_of(c, ".navbar")
                    .await
                    .unwrap_or_default()
                    .contains("boss"),
                "still signed in after the restart"
            );
            eventually("the restart button again", || async {
                text_of(c, "#restart").await.map(|_| ())
            })
            .await?;
            set_lang(c, "en").await?;
        }
        drop(server);
        Ok(())
    })
    .await;
}
