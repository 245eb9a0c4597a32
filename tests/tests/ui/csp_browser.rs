//! The pages carry a `Content-Security-Policy`, and the WASM app must work under
//! it. Headless Chromium loads the app from the real server, plays a move against the bot,
//! opens the kiosk screen and the rules with fresh page loads, and no policy violation may be
//! reported. Violations are caught by a `securitypolicyviolation` listener that Chromium runs
//! before any of the page's own scripts (DevTools' `Page.addScriptToEvaluateOnNewDocument`,
//! through chromedriver), so even a script or style refused while the page loads is seen; a
//! deliberate inline script at the end proves the listener hears violations at all.
//! Run by `scripts/test-browser csp`.

use serde_json::json;
use xo_tests::webdriver::{Client, Locator};
use xo_tests::{
    Driver, Outcome, Server, click, eventually, js, open_live, play, run_prepared, wait_at_least,
};

const DESKTOP: (u32, u32) = (1280, 800);

/// Collects every violation the page reports, from before its first script runs.
const LISTENER: &str = r"
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push(e.violatedDirective + ' blocked ' + (e.blockedURI || '(inline)') +
    (e.sample ? ' ' + e.sample : '') + ' at ' + e.sourceFile + ':' + e.lineNumber);
}, true);
";

/// The violations the page has reported so far.
async fn violations(c: &Client) -> Result<Vec<String>, String> {
    let found = js(
        c,
        "return window.__cspViolations === undefined ? null : window.__cspViolations;",
    )
    .await?;
    let list = found
        .as_array()
        .ok_or("the violation listener did not run before the page")?;
    Ok(list
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_owned())
        .collect())
}

async fn assert_no_violation(c: &Client, page: &str) -> Outcome {
    let found = violations(c).await?;
    assert!(found.is_empty(), "{page}: CSP violations: {found:#?}");
    Ok(())
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn the_app_runs_under_its_csp_without_a_violation() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let session = driver.session(DESKTOP.0, DESKTOP.1).await;
    session
        .devtools(
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": LISTENER }),
        )
        .await
        .expect("the violation listener installed");
    let base = server.base.clone();
    run_prepared("csp", vec![session], move |mut sessions| async move {
        let c = sessions.remove(0);
        open_live(&c, &format!("{base}/")).await?;
        // The policy is really there: the page was served with it.
        let policy = js(
            &c,
            "return fetch('/').then(r => r.headers.get('content-security-policy'));",
        )
        .await?;
        let policy = policy.as_str().unwrap_or_default().to_owned();
        assert!(
            policy.contains("script-src"),
            "the app page carries a CSP: {policy:?}"
        );
        assert!(
            !policy
                .split(';')
                .any(|d| d.trim().starts_with("script-src") && d.contains("'unsafe-inline'")),
            "scripts are not allowed inline: {policy}"
        );
        assert_no_violation(&c, "the lobby").await?;

        // A bot game: the WASM app talks to the server over the WebSocket and draws the board.
        click(&c, "#create-submit").await?;
        eventually("the bot room", || async {
            c.find(Locator::Css("#board")).await.ok().map(|_| ())
        })
        .await?;
        play(&c, 4, 1).await?;
        wait_at_least(&c, 2).await?;
        assert_no_violation(&c, "a bot game after a move and the bot's reply").await?;

        // Fresh page loads of other screens.
        for path in ["/kiosk", "/rules", "/leaderboard", "/signin"] {
            open_live(&c, &format!("{base}{path}")).await?;
            assert_no_violation(&c, path).await?;
        }

        // The listener hears a violation: an inline script is refused by the policy.
        js(
            &c,
            "const s = document.createElement('script'); s.textContent = 'window.__ran = 1;'; document.body.appendChild(s); return 0;",
        )
        .await?;
        let heard = eventually("the deliberate inline script to be reported", || async {
            let found = violations(&c).await.ok()?;
            (!found.is_empty()).then_some(found)
        })
        .await?;
        assert!(
            heard.iter().all(|v| v.starts_with("script-src")),
            "{heard:#?}"
        );
        assert_eq!(
            js(&c, "return window.__ran === undefined;").await?,
            true,
            "the inline script did not run"
        );
        Ok(())
    })
    .await;
}
