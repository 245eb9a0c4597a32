//! Helpers shared by the cross-crate tests in `tests/tests/`.
//!
//! # Layout
//!
//! - [`Server`]: the real `firmware-host` binary on 127.0.0.1 with a temporary data directory.
//! - [`Driver`]: Debian's `chromedriver` on a free loopback port, driving headless `chromium`
//!   with a fresh profile and `XDG_CONFIG_HOME` in a temporary folder.
//! - [`run_session`]: opens a WebDriver session, runs a test's steps in their own task, saves
//!   a screenshot when they fail, and always closes the session before re-raising, so no
//!   Chromium is left behind.
//! - [`eventually`], [`text_of`], [`attr_of`], [`js`]: polling and small page queries.
//!
//! The browser tests are `#[ignore]`d in plain `cargo test` (they need Chromium and a server
//! built with the UI); `scripts/test-browser` builds both and runs them with `--ignored`.

use std::future::Future;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use tempfile::TempDir;
use tokio::process::{Child, Command};

/// What a test step returns.
pub type Outcome = Result<(), Box<dyn std::error::Error + Send + Sync>>;

/// How long [`eventually`] waits for the page to reach a state.
pub const PATIENCE: Duration = Duration::from_secs(15);

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ sits in the workspace")
        .to_path_buf()
}

/// The server binary: `XO_SERVER_BIN`, else the release build in the target directory.
pub fn server_binary() -> PathBuf {
    if let Some(bin) = std::env::var_os("XO_SERVER_BIN") {
        return PathBuf::from(bin);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    target.join("release").join("firmware-host")
}

/// A free loopback port (the listener is closed before the port is handed out; good enough
/// for one test process starting its own helpers).
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

async fn wait_for_port(port: u16, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(Instant::now() < deadline, "{what} did not listen on {port}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The real server on 127.0.0.1 with a fresh data directory; killed on drop.
#[derive(Debug)]
pub struct Server {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    _data: TempDir,
}

impl Server {
    /// Starts the server with the kiosk's idle return after `kiosk_idle_s` seconds.
    pub async fn start(kiosk_idle_s: u64) -> Server {
        let bin = server_binary();
        assert!(
            bin.is_file(),
            "{} is missing: run scripts/test-browser (it builds the UI and the server)",
            bin.display()
        );
        let data = tempfile::tempdir().expect("temporary data directory");
        let port_file = data.path().join("port");
        let child = Command::new(&bin)
            .arg("--bind")
            .arg("127.0.0.1:0")
            .arg("--data-dir")
            .arg(data.path().join("data"))
            .arg("--port-file")
            .arg(&port_file)
            .arg("--kiosk-idle")
            .arg(kiosk_idle_s.to_string())
            .arg("--log")
            .arg("warn")
            // Browser tests register several players from 127.0.0.1.
            .arg("--max-registrations-per-address")
            .arg("0")
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start firmware-host");
        let deadline = Instant::now() + Duration::from_secs(20);
        let port: u16 = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file) {
                if let Ok(port) = text.trim().parse() {
                    break port;
                }
            }
            assert!(Instant::now() < deadline, "the server wrote no port file");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        wait_for_port(port, "firmware-host").await;
        Server {
            child,
            base: format!("http://127.0.0.1:{port}"),
            _data: data,
        }
    }

    /// The absolute URL of `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // kill_on_drop also does this; starting it here makes the order explicit.
        if let Err(e) = self.child.start_kill() {
            eprintln!("could not stop the server: {e}");
        }
    }
}

/// chromedriver on a free loopback port; killed on drop.
#[derive(Debug)]
pub struct Driver {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    home: TempDir,
}

impl Driver {
    pub async fn start() -> Driver {
        let bin = std::env::var_os("CHROMEDRIVER")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/usr/bin/chromedriver"));
        assert!(
            bin.is_file(),
            "{} is missing: run scripts/test-browser (it installs chromium-driver)",
            bin.display()
        );
        let home = tempfile::tempdir().expect("temporary browser home");
        let port = free_port();
        let child = Command::new(&bin)
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            // Chromium inherits these: no writes to the real user's configuration.
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env("XDG_CACHE_HOME", home.path().join("cache"))
            .env("HOME", home.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start chromedriver");
        wait_for_port(port, "chromedriver").await;
        Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
            home,
        }
    }

    /// A new browser session with its own fresh profile and window size.
    pub async fn session(&self, width: u32, height: u32) -> Client {
        let profile = tempfile::tempdir_in(self.home.path()).expect("profile directory");
        let profile_path = profile.keep();
        let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let caps = serde_json::json!({
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": [
                    "--headless=new",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-dev-shm-usage",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--no-first-run",
                    "--disable-quic",
                    "--force-device-scale-factor=1",
                    format!("--window-size={width},{height}"),
                    format!("--user-data-dir={}", profile_path.display()),
                ]
            }
        });
        let serde_json::Value::Object(caps) = caps else {
            unreachable!("a JSON object literal")
        };
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&self.url)
            .await
            .expect("a WebDriver session");
        // Headless windows may include browser chrome; size the viewport exactly.
        if let Err(e) = set_viewport(&client, width, height).await {
            eprintln!("could not size the viewport: {e}");
        }
        client
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if let Err(e) = self.child.start_kill() {
            eprintln!("could not stop chromedriver: {e}");
        }
    }
}

/// Resizes the window so the page's viewport is `width` × `height` CSS pixels.
pub async fn set_viewport(client: &Client, width: u32, height: u32) -> Outcome {
    client.set_window_size(width, height).await?;
    let inner = client
        .execute("return [window.innerWidth, window.innerHeight];", vec![])
        .await?;
    let (iw, ih) = (
        inner[0].as_u64().unwrap_or(u64::from(width)),
        inner[1].as_u64().unwrap_or(u64::from(height)),
    );
    let w = width + (width as u64).saturating_sub(iw) as u32;
    let h = height + (height as u64).saturating_sub(ih) as u32;
    client.set_window_size(w, h).await?;
    Ok(())
}

/// Where failure screenshots (and README screenshots) go.
pub fn screenshot_dir() -> PathBuf {
    std::env::var_os("XO_SCREENSHOT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target").join("browser-screenshots"))
}

/// Saves a PNG of the current page as `name.png` in [`screenshot_dir`].
pub async fn save_screenshot(client: &Client, name: &str) -> Option<PathBuf> {
    let png = client.screenshot().await.ok()?;
    let dir = screenshot_dir();
    std::fs::create_dir_all(&dir).ok()?;
    let path = dir.join(format!("{name}.png"));
    std::fs::write(&path, png).ok()?;
    Some(path)
}

/// Runs `steps` with a session of the given viewport; on failure saves
/// `FAILED-<name>.png`; always closes the session, then re-raises the failure.
pub async fn run_session<F, Fut>(driver: &Driver, name: &str, size: (u32, u32), steps: F)
where
    F: FnOnce(Client) -> Fut,
    Fut: Future<Output = Outcome> + Send + 'static,
{
    run_sessions(driver, name, &[size], move |mut clients| {
        steps(clients.remove(0))
    })
    .await;
}

/// Like [`run_session`] with one session per size (several players, a spectator): every
/// session gets a failure screenshot (`FAILED-<name>-<i>.png`) and is closed before the
/// failure is re-raised.
pub async fn run_sessions<F, Fut>(driver: &Driver, name: &str, sizes: &[(u32, u32)], steps: F)
where
    F: FnOnce(Vec<Client>) -> Fut,
    Fut: Future<Output = Outcome> + Send + 'static,
{
    let mut clients = Vec::with_capacity(sizes.len());
    for &(w, h) in sizes {
        clients.push(driver.session(w, h).await);
    }
    // The steps run in their own task so that a panicking assertion still lets us close.
    let outcome = tokio::spawn(steps(clients.clone())).await;
    let failed = !matches!(outcome, Ok(Ok(())));
    for (i, client) in clients.into_iter().enumerate() {
        if failed {
            let shot = if sizes.len() == 1 {
                format!("FAILED-{name}")
            } else {
                format!("FAILED-{name}-{i}")
            };
            match save_screenshot(&client, &shot).await {
                Some(path) => eprintln!("screenshot of the failure: {}", path.display()),
                None => eprintln!("no screenshot could be taken"),
            }
        }
        if let Err(e) = client.close().await {
            eprintln!("closing the WebDriver session failed: {e}");
        }
    }
    match outcome {
        Ok(Ok(())) => {}
        Ok(Err(e)) => panic!("{name}: {e}"),
        Err(join) => match join.try_into_panic() {
            Ok(panic) => std::panic::resume_unwind(panic),
            Err(e) => panic!("{name}: the test task was cancelled: {e}"),
        },
    }
}

/// Polls `probe` until it returns `Some`, or fails after [`PATIENCE`] with `what`.
pub async fn eventually<T, F, Fut>(what: &str, mut probe: F) -> Result<T, String>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(v) = probe().await {
            return Ok(v);
        }
        if Instant::now() > deadline {
            return Err(format!("timed out waiting for {what}"));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The text of the first element matching `css`, if there is one.
pub async fn text_of(client: &Client, css: &str) -> Option<String> {
    client.find(Locator::Css(css)).await.ok()?.text().await.ok()
}

/// An attribute of the first element matching `css`.
pub async fn attr_of(client: &Client, css: &str, attr: &str) -> Option<String> {
    client
        .find(Locator::Css(css))
        .await
        .ok()?
        .attr(attr)
        .await
        .ok()
        .flatten()
}

/// Runs a script and returns its JSON result.
pub async fn js(client: &Client, script: &str) -> Result<serde_json::Value, String> {
    client
        .execute(script, vec![])
        .await
        .map_err(|e| format!("script failed: {e}: {script}"))
}

/// Waits until the app has rendered (its navbar exists).
pub async fn wait_for_app(client: &Client) -> Result<(), String> {
    eventually("the app to render", || async {
        client
            .find(Locator::Css("header.navbar"))
            .await
            .ok()
            .map(|_| ())
    })
    .await
}

/// Waits until the text of the first element matching `css` contains `needle`; returns it.
pub async fn wait_text(client: &Client, css: &str, needle: &str) -> Result<String, String> {
    eventually(&format!("{css} to say {needle:?}"), || async {
        let text = text_of(client, css).await?;
        text.contains(needle).then_some(text)
    })
    .await
}

/// Clicks the first element matching `css` once it appears.
pub async fn click(client: &Client, css: &str) -> Outcome {
    let el = eventually(&format!("{css} to appear"), || async {
        client.find(Locator::Css(css)).await.ok()
    })
    .await?;
    el.click().await?;
    Ok(())
}

/// Replaces the text of the field matching `css` (once it appears) by `text`, typed key by key
/// so the page sees real input events.
pub async fn type_into(client: &Client, css: &str, text: &str) -> Outcome {
    let el = eventually(&format!("{css} to appear"), || async {
        client.find(Locator::Css(css)).await.ok()
    })
    .await?;
    // Control+A selects what is there (the null key releases Control), Backspace deletes it.
    el.send_keys("\u{E009}a\u{E000}\u{E003}").await?;
    el.send_keys(text).await?;
    Ok(())
}

/// Waits until a script returns `expected`.
pub async fn wait_js(
    client: &Client,
    script: &str,
    expected: serde_json::Value,
) -> Result<(), String> {
    eventually(&format!("{script} to return {expected}"), || async {
        (js(client, script).await.ok()? == expected).then_some(())
    })
    .await
}
