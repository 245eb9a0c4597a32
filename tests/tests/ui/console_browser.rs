//! A normal page load leaves a clean console. A signed-out visitor's `/` and the
//! kiosk's `/kiosk` are opened in a fresh browser; chromedriver's `browser` log (the console and
//! every failed request, `goog:loggingPrefs`) must hold no entry of level `SEVERE`: the
//! signed-out state is asked without an error status (`/api/session`), and the icon the browser
//! asks for is served. Run by `scripts/test-browser console`.

use xo_tests::webdriver::Client;
use xo_tests::{Driver, Server, js, open_live, run_session};

const DESKTOP: (u32, u32) = (1280, 800);

/// The `SEVERE` entries of the browser's log since the last look.
async fn severe(c: &Client) -> Result<Vec<String>, String> {
    let log = c.browser_log().await.map_err(|e| e.to_string())?;
    Ok(log
        .into_iter()
        .filter(|(level, _)| level == "SEVERE")
        .map(|(_, message)| message)
        .collect())
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn a_signed_out_page_load_logs_no_error() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "console", DESKTOP, move |c| async move {
        // The log is read and emptied first: whatever came before the first page is not ours.
        severe(&c).await?;
        for page in ["/", "/kiosk", "/rules"] {
            open_live(&c, &format!("{base}{page}")).await?;
            // The account, the configuration and the icon are asked for after the first render.
            tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
            let errors = severe(&c).await?;
            assert!(errors.is_empty(), "{page} logged errors: {errors:#?}");
        }
        // The icon, at both names browsers use, as an asset: its type, its ETag, revalidated.
        for path in ["/favicon.svg", "/favicon.ico"] {
            let answer = js(
                &c,
                &format!(
                    "return fetch('{path}').then(r => [r.status, r.headers.get('content-type'),
                       r.headers.get('cache-control'), !!r.headers.get('etag')]);"
                ),
            )
            .await?;
            assert_eq!(
                answer,
                serde_json::json!([200, "image/svg+xml", "no-cache", true]),
                "{path}"
            );
        }
        let icon = js(
            &c,
            "const l = document.querySelector('link[rel=icon]'); return l && l.getAttribute('href');",
        )
        .await?;
        assert_eq!(icon, "/favicon.svg", "the page names its icon");
        // The signed-out answer is a 200 with no account.
        let session = js(
            &c,
            "return fetch('/api/session').then(r => r.json().then(b => [r.status, b]));",
        )
        .await?;
        assert_eq!(session, serde_json::json!([200, { "account": null }]));
        let errors = severe(&c).await?;
        assert!(errors.is_empty(), "errors: {errors:#?}");
        Ok(())
    })
    .await;
}

/// The log really holds failed requests: a missing file is a `SEVERE` entry (so the test above
/// would see a 401 or a 404).
#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn a_failed_request_is_seen_in_the_log() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "console-sees", DESKTOP, move |c| async move {
        open_live(&c, &format!("{base}/rules")).await?;
        severe(&c).await?;
        js(&c, "fetch('/no-such-file.png'); return 0;").await?;
        let seen = xo_tests::eventually("the 404 in the log", || async {
            let e = severe(&c).await.ok()?;
            e.iter()
                .any(|m| m.contains("no-such-file.png") && m.contains("404"))
                .then_some(())
        })
        .await;
        assert!(seen.is_ok(), "a 404 must be logged as SEVERE");
        Ok(())
    })
    .await;
}
