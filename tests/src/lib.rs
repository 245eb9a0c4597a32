//! Helpers shared by the cross-crate tests in `tests/tests/ui/`.
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

pub mod webdriver;

use std::future::Future;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tempfile::TempDir;
use tokio::process::{Child, Command};
use webdriver::{Client, Locator};

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
    port: u16,
    data_dir: PathBuf,
    kiosk_idle_s: u64,
    extra: Vec<String>,
    _data: TempDir,
}

impl Server {
    /// Starts the server with the kiosk's idle return after `kiosk_idle_s` seconds.
    pub async fn start(kiosk_idle_s: u64) -> Server {
        Server::start_with(kiosk_idle_s, None, &[]).await
    }

    /// Starts the server with its data in `data_dir` (a fresh temporary one when `None`) and
    /// `extra` flags after the usual ones.
    pub async fn start_with(kiosk_idle_s: u64, data_dir: Option<&Path>, extra: &[&str]) -> Server {
        let data = tempfile::tempdir().expect("temporary data directory");
        let data_dir = data_dir.map_or_else(|| data.path().join("data"), Path::to_path_buf);
        let extra: Vec<String> = extra.iter().map(|&a| a.to_owned()).collect();
        let (child, port) = spawn_server(data.path(), 0, &data_dir, kiosk_idle_s, &extra).await;
        Server {
            child,
            base: format!("http://127.0.0.1:{port}"),
            port,
            data_dir,
            kiosk_idle_s,
            extra,
            _data: data,
        }
    }

    /// After the process stopped by itself (an owner's restart: on a computer of its own
    /// nothing starts it again), starts it again on the same port with the same data, as the
    /// image's service would.
    pub async fn start_again(&mut self) {
        let stopped = tokio::time::timeout(Duration::from_secs(30), self.child.wait()).await;
        assert!(
            matches!(stopped, Ok(Ok(_))),
            "the server did not stop by itself: {stopped:?}"
        );
        let (child, _) = spawn_server(
            self._data.path(),
            self.port,
            &self.data_dir,
            self.kiosk_idle_s,
            &self.extra,
        )
        .await;
        self.child = child;
    }

    /// The absolute URL of `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }
}

/// Starts the server on `port` (0: any free one) and returns it with the port it listens on,
/// once it accepts connections; `scratch` holds its port file.
async fn spawn_server(
    scratch: &Path,
    port: u16,
    data_dir: &Path,
    kiosk_idle_s: u64,
    extra: &[String],
) -> (Child, u16) {
    let bin = server_binary();
    assert!(
        bin.is_file(),
        "{} is missing: run scripts/test-browser (it builds the UI and the server)",
        bin.display()
    );
    let port_file = scratch.join("port");
    if let Err(e) = std::fs::remove_file(&port_file)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        panic!("cannot remove the old port file: {e}");
    }
    // A test that names its own `--bind` (e.g. every interface, for the `.local` name) keeps it.
    let bind = (!extra.iter().any(|a| a == "--bind"))
        .then(|| ["--bind".to_owned(), format!("127.0.0.1:{port}")])
        .into_iter()
        .flatten();
    let child = Command::new(&bin)
        .args(bind)
        .arg("--data-dir")
        .arg(data_dir)
        .arg("--port-file")
        .arg(&port_file)
        .arg("--kiosk-idle")
        .arg(kiosk_idle_s.to_string())
        .arg("--log")
        .arg("warn")
        // Browser tests register several players from 127.0.0.1.
        .arg("--max-registrations-per-address")
        .arg("0")
        .args(extra)
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
    (child, port)
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
        // The free port may be taken by another process before chromedriver binds it (the
        // machine runs other tests too): then chromedriver exits, and another port is tried.
        let mut attempt = 0;
        let (child, port) = loop {
            attempt += 1;
            let port = free_port();
            let mut child = Command::new(&bin)
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
            let deadline = Instant::now() + Duration::from_secs(20);
            let listening = loop {
                if tokio::net::TcpStream::connect(("127.0.0.1", port))
                    .await
                    .is_ok()
                {
                    break true;
                }
                let exited = child.try_wait().ok().flatten().is_some();
                if exited || Instant::now() >= deadline {
                    break false;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            };
            if listening {
                break (child, port);
            }
            if let Err(e) = child.start_kill() {
                eprintln!("could not stop a chromedriver that did not listen: {e}");
            }
            assert!(
                attempt < 3,
                "chromedriver did not listen on three free ports"
            );
            eprintln!("chromedriver did not listen on {port}; trying another port");
        };
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
            // The console and failed requests, for Client::browser_log.
            "goog:loggingPrefs": { "browser": "ALL" },
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
        let client = Client::new_session(&self.url, caps)
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
    run_prepared(name, clients, steps).await;
}

/// [`run_sessions`] for sessions made beforehand (e.g. prepared through DevTools).
pub async fn run_prepared<F, Fut>(name: &str, clients: Vec<Client>, steps: F)
where
    F: FnOnce(Vec<Client>) -> Fut,
    Fut: Future<Output = Outcome> + Send + 'static,
{
    let single = clients.len() == 1;
    // The steps run in their own task so that a panicking assertion still lets us close.
    let outcome = tokio::spawn(steps(clients.clone())).await;
    let failed = !matches!(outcome, Ok(Ok(())));
    for (i, client) in clients.into_iter().enumerate() {
        if failed {
            let shot = if single {
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

/// The viewports every screen is checked at: the 7-inch kiosk first, then the
/// larger landscape screens, then a phone.
pub const SIZES: [(u32, u32); 4] = [(800, 480), (1024, 600), (1280, 800), (360, 640)];

/// The languages every screen is checked in, by the id of their switch button.
pub const LANGS: [&str; 2] = ["en", "ar"];

/// The layout rules of UI.md (U12, U13: at 800×480 nothing cut, covered or off screen), checked on the page as it is rendered. Returns a
/// list of sentences, each naming the element (a CSS-like path) and its box; empty when the
/// page is right.
///
/// - The document is not wider than the viewport, and nothing sticks out of it sideways.
/// - Nothing overlaps a board (`.board`) or a rail (`.rail`) but their own contents.
/// - Every control is at least 44 × 44 px.
/// - Text is at least 16 px, 20 px on the kiosk (`html.kiosk`).
/// - No control's label is an empty box: each has an SVG or text with a rendered width, and
///   no character on the page is drawn as the missing-glyph box.
pub const LAYOUT_JS: &str = r#"
const vw = window.innerWidth, vh = window.innerHeight;
const kiosk = document.documentElement.classList.contains('kiosk');
const minText = kiosk ? 20 : 16;
const out = [];
const path = (e) => {
  const parts = [];
  for (let n = e; n && n.nodeType === 1 && n !== document.body && parts.length < 4; n = n.parentElement) {
    let s = n.tagName.toLowerCase();
    if (n.id) { parts.unshift(s + '#' + n.id); break; }
    const cls = [...n.classList].filter(c => c !== 'playable').slice(0, 2);
    if (cls.length) s += '.' + cls.join('.');
    const p = n.parentElement;
    if (p) {
      const same = [...p.children].filter(c => c.tagName === n.tagName);
      if (same.length > 1) s += ':nth-of-type(' + (same.indexOf(n) + 1) + ')';
    }
    parts.unshift(s);
  }
  return parts.join(' > ');
};
const box = (r) => `[x ${Math.round(r.left)}, y ${Math.round(r.top)}, ${Math.round(r.width)}×${Math.round(r.height)}]`;
const hidden = (e) => {
  if (e.closest('.sr-only, [aria-hidden="true"] .sr-only')) return true;
  for (let n = e; n && n.nodeType === 1; n = n.parentElement) {
    const s = getComputedStyle(n);
    if (s.display === 'none' || s.visibility === 'hidden') return true;
  }
  return false;
};
// The part of a box that is painted: clipped by every scrolling or clipping ancestor.
const clipped = (e, r) => {
  let l = r.left, t = r.top, rr = r.right, b = r.bottom;
  for (let a = e.parentElement; a && a !== document.documentElement; a = a.parentElement) {
    const s = getComputedStyle(a);
    if (s.overflowX !== 'visible' || s.overflowY !== 'visible') {
      const c = a.getBoundingClientRect();
      l = Math.max(l, c.left); t = Math.max(t, c.top); rr = Math.min(rr, c.right); b = Math.min(b, c.bottom);
    }
  }
  return { left: l, top: t, right: rr, bottom: b, width: Math.max(0, rr - l), height: Math.max(0, b - t) };
};
const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;

// 1. No sideways scrolling.
const docW = document.documentElement.scrollWidth;
if (docW > vw) out.push(`the document is ${docW} px wide in a ${vw} px viewport`);
const all = [...document.body.querySelectorAll('*')].filter(e => !(e instanceof SVGElement && e.tagName !== 'svg') && !hidden(e));
for (const e of all) {
  const r = clipped(e, e.getBoundingClientRect());
  if (r.width > 0 && r.height > 0 && (r.right > vw + 0.5 || r.left < -0.5)) {
    out.push(`${path(e)} ${box(r)} sticks out of the ${vw} px viewport`);
  }
}

// 2. Nothing over a board or a rail. Text is checked by its own boxes too, so text spilling
// out of a narrow column is caught where it lands.
const guarded = [...document.querySelectorAll('.board, .rail')].filter(e => !hidden(e));
const pieces = [];
for (const e of all) pieces.push([e, clipped(e, e.getBoundingClientRect())]);
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
const texts = [];
for (let n = walker.nextNode(); n; n = walker.nextNode()) {
  if (!n.textContent.trim() || !n.parentElement || hidden(n.parentElement) || n.parentElement.closest('svg')) continue;
  texts.push(n);
  const range = document.createRange();
  range.selectNodeContents(n);
  for (const r of range.getClientRects()) pieces.push([n.parentElement, clipped(n.parentElement, r), true]);
}
for (const g of guarded) {
  const gr = g.getBoundingClientRect();
  const seen = new Set();
  for (const [e, r, isText] of pieces) {
    if (e === g || g.contains(e) || e.contains(g) || seen.has(e)) continue;
    if (getComputedStyle(e).position === 'fixed' && e.closest('[data-prompt]')) continue;
    if (r.width > 0 && r.height > 0 && overlap(r, gr)) {
      seen.add(e);
      out.push(`${path(e)}${isText ? ' (its text)' : ''} ${box(r)} overlaps ${path(g)} ${box(gr)}`);
    }
  }
}

// 3. Controls at least 44 px both ways.
const controls = all.filter(e => e.matches('button, a[href], input:not([type=hidden]), select, textarea, summary, [role=button], [role=gridcell], label.option') && !e.closest('label.option:not(:scope)'));
for (const e of controls) {
  if (e.matches('input') && e.closest('label.option')) continue;
  const r = e.getBoundingClientRect();
  if (r.width < 43.5 || r.height < 43.5) out.push(`${path(e)} ${box(r)} is a control under 44 px`);
}

// 4. Text sizes.
const small = new Set();
for (const n of texts) {
  const p = n.parentElement;
  const size = parseFloat(getComputedStyle(p).fontSize);
  if (size < minText - 0.01 && !small.has(p)) {
    small.add(p);
    out.push(`${path(p)} "${n.textContent.trim().slice(0, 24)}" is ${size} px text, under ${minText} px`);
  }
}

// 5. No empty boxes: every control shows an SVG or text with a width, and no character is
// drawn as the missing-glyph box (compared with a private-use character no font has).
for (const e of controls) {
  if (e.matches('input, select, textarea, [role=gridcell]')) continue;
  const svg = [...e.querySelectorAll('svg')].some(s => { const r = s.getBoundingClientRect(); return r.width > 0 && r.height > 0; });
  const range = document.createRange();
  range.selectNodeContents(e);
  const textW = e.textContent.trim() ? range.getBoundingClientRect().width : 0;
  if (!svg && textW <= 0) out.push(`${path(e)} ${box(e.getBoundingClientRect())} has an empty label`);
}
const canvas = document.createElement('canvas');
canvas.width = 48; canvas.height = 48;
const g2 = canvas.getContext('2d', { willReadFrequently: true });
const draw = (ch, font) => {
  g2.clearRect(0, 0, 48, 48); g2.font = font; g2.fillStyle = '#000'; g2.fillText(ch, 4, 36);
  return g2.getImageData(0, 0, 48, 48).data.join(',');
};
const missing = new Map();
for (const n of texts) {
  const cs = getComputedStyle(n.parentElement);
  const font = `${cs.fontWeight} 32px ${cs.fontFamily}`;
  if (!missing.has(font)) missing.set(font, new Map([['\uE000', draw('\uE000', font)]]));
  const seen = missing.get(font);
  for (const ch of n.textContent) {
    if (ch.charCodeAt(0) < 0x80 || /\s|\p{Cf}|\p{M}/u.test(ch) || seen.has(ch)) continue;
    const tofu = draw(ch, font) === seen.get('\uE000');
    seen.set(ch, tofu);
    if (tofu) out.push(`${path(n.parentElement)} draws "${ch}" (U+${ch.codePointAt(0).toString(16).toUpperCase()}) as an empty box: no font has it`);
  }
}
return out;
"#;

/// A list or panel that holds a screen's content (moves, live rooms, standings, players):
/// how many of its rows a person must be able to read whole at once on a landscape screen.
#[derive(Debug, Clone, Copy)]
pub struct ContentList {
    /// What it is, in the test's report ("moves").
    pub label: &'static str,
    /// The list's CSS selector.
    pub list: &'static str,
    /// Its rows, relative to the list.
    pub row: &'static str,
    /// Rows that must be fully visible without scrolling at 800×480 and larger landscape
    /// screens (all of them when it holds fewer).
    pub min_rows: usize,
}

/// Counts the rows of one list a person can read: `arguments[0]` is the list's selector,
/// `arguments[1]` its rows'. A row is fully visible when its box lies inside the viewport and
/// inside every box that clips it (its scroll box's visible area first), and nothing else is
/// drawn over the middle of any of its edges (a banner, a dialog; the middles, because a
/// rounded corner is not the row's to hit). Its text is cut when an element in it has
/// more content than width (an ellipsis, `overflow: hidden`), or a line of its text runs out
/// of the row. Returns `{found, rows, visible, cut: [sentences]}`.
pub const CONTENT_JS: &str = r#"
const [listCss, rowCss] = arguments;
const list = document.querySelector(listCss);
if (!list) return { found: false, rows: 0, visible: 0, cut: [] };
const vw = window.innerWidth, vh = window.innerHeight;
let l = 0, t = 0, r = vw, b = vh;
for (let a = list; a && a !== document.documentElement; a = a.parentElement) {
  const s = getComputedStyle(a);
  if (a === list || s.overflowX !== 'visible' || s.overflowY !== 'visible') {
    const c = a.getBoundingClientRect();
    // The client area: inside the borders, without a scroll bar.
    const cl = c.left + a.clientLeft, ct = c.top + a.clientTop;
    const cw = a.clientWidth || c.width, ch = a.clientHeight || c.height;
    l = Math.max(l, cl); t = Math.max(t, ct); r = Math.min(r, cl + cw); b = Math.min(b, ct + ch);
  }
}
const rows = [...list.querySelectorAll(rowCss)].filter(e => getComputedStyle(e).display !== 'none');
const inside = (e, x, y) => { const h = document.elementFromPoint(x, y); return !!h && (h === e || e.contains(h)); };
let visible = 0;
const cut = [];
const name = (e, i) => `row ${i + 1} "${e.textContent.trim().replace(/\s+/g, ' ').slice(0, 40)}"`;
rows.forEach((row, i) => {
  const q = row.getBoundingClientRect();
  const whole = q.height > 0 && q.left >= l - 0.5 && q.right <= r + 0.5 && q.top >= t - 0.5 && q.bottom <= b + 0.5
    && inside(row, q.left + q.width / 2, q.top + 2) && inside(row, q.left + q.width / 2, q.bottom - 2)
    && inside(row, q.left + 2, q.top + q.height / 2) && inside(row, q.right - 2, q.top + q.height / 2);
  if (whole) visible++;
  for (const e of [row, ...row.querySelectorAll('*')]) {
    if (e instanceof SVGElement) continue;
    const s = getComputedStyle(e);
    if (s.display === 'none' || s.visibility === 'hidden' || e.closest('.sr-only')) continue;
    const clips = s.overflowX !== 'visible' || s.textOverflow === 'ellipsis';
    if (clips && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1) {
      cut.push(`${name(row, i)}: "${e.textContent.trim().slice(0, 30)}" is cut (${e.scrollWidth} px of text in ${e.clientWidth} px)`);
      break;
    }
  }
  const walker = document.createTreeWalker(row, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim() || n.parentElement.closest('.sr-only')) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    const out = [...range.getClientRects()].some(x => x.width > 0 && (x.left < q.left - 1 || x.right > q.right + 1 || x.top < q.top - 1 || x.bottom > q.bottom + 1));
    if (out) { cut.push(`${name(row, i)}: "${n.textContent.trim().slice(0, 30)}" runs out of its row`); break; }
  }
});
return { found: true, rows: rows.length, visible, cut };
"#;

/// One list's rows on the page as it is now: (rows, fully visible rows, cut texts).
pub async fn content_rows(
    client: &Client,
    list: &ContentList,
) -> Result<(usize, usize, Vec<String>), String> {
    let v = client
        .execute(
            CONTENT_JS,
            vec![serde_json::json!(list.list), serde_json::json!(list.row)],
        )
        .await
        .map_err(|e| format!("{}: {e}", list.label))?;
    if v["found"] != true {
        return Err(format!("{}: no {} on the page", list.label, list.list));
    }
    let count = |k: &str| v[k].as_u64().unwrap_or(0) as usize;
    let cut = v["cut"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|s| s.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    Ok((count("rows"), count("visible"), cut))
}

/// The problems [`LAYOUT_JS`] finds on the page as it is now.
pub async fn layout_problems(client: &Client) -> Result<Vec<String>, String> {
    let found = js(client, LAYOUT_JS).await?;
    Ok(found
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default())
}

/// Switches the page to `lang` ("en" or "ar") with its own switch and waits for the page's
/// direction to follow.
pub async fn set_lang(client: &Client, lang: &str) -> Outcome {
    let dir = if lang == "ar" { "rtl" } else { "ltr" };
    js(
        client,
        &format!(
            "if (document.documentElement.lang !== '{lang}') document.getElementById('lang-{lang}')?.click(); return 0;"
        ),
    )
    .await?;
    wait_js(
        client,
        "return document.documentElement.dir;",
        serde_json::json!(dir),
    )
    .await?;
    Ok(())
}

/// Checks the current screen at every size of [`SIZES`] in both languages, saving
/// `<name>-<lang>.png` at 800 × 480; returns every problem found, each prefixed with the
/// screen, size and language. The window is left at `back_to`, in English.
pub async fn check_layout_matrix(
    client: &Client,
    name: &str,
    back_to: (u32, u32),
) -> Result<Vec<String>, Box<dyn std::error::Error + Send + Sync>> {
    check_screen(client, name, back_to, &[]).await
}

/// [`check_layout_matrix`], and the content of the screen's `lists` too: at every landscape
/// size (800×480 first) at least `min_rows` rows of each are fully visible without scrolling,
/// and at every size no visible row's text is cut. Each list's figures are printed
/// (`rows: <screen> <size> <lang> <list>: V of N fully visible`), and a screenshot is also
/// saved at 1024 × 600 (`<name>-<lang>-1024.png`).
pub async fn check_screen(
    client: &Client,
    name: &str,
    back_to: (u32, u32),
    lists: &[ContentList],
) -> Result<Vec<String>, Box<dyn std::error::Error + Send + Sync>> {
    let mut problems = Vec::new();
    for lang in LANGS {
        set_lang(client, lang).await?;
        for (w, h) in SIZES {
            set_viewport(client, w, h).await?;
            // Let the layout, the fonts and any transition settle.
            tokio::time::sleep(Duration::from_millis(350)).await;
            for p in layout_problems(client).await? {
                problems.push(format!("{name} {w}×{h} {lang}: {p}"));
            }
            let landscape = w > h;
            for list in lists {
                let (rows, visible, cut) = content_rows(client, list).await?;
                eprintln!(
                    "rows: {name} {w}×{h} {lang} {}: {visible} of {rows} fully visible",
                    list.label
                );
                let wanted = list.min_rows.min(rows);
                if landscape && visible < wanted {
                    problems.push(format!(
                        "{name} {w}×{h} {lang}: {} shows {visible} of {rows} rows whole, fewer than {wanted}",
                        list.label
                    ));
                }
                for c in cut {
                    problems.push(format!("{name} {w}×{h} {lang}: {}: {c}", list.label));
                }
            }
            if (w, h) == (800, 480) {
                save_screenshot(client, &format!("{name}-{lang}")).await;
            } else if (w, h) == (1024, 600) {
                save_screenshot(client, &format!("{name}-{lang}-1024")).await;
            }
        }
    }
    set_lang(client, "en").await?;
    set_viewport(client, back_to.0, back_to.1).await?;
    tokio::time::sleep(Duration::from_millis(200)).await;
    Ok(problems)
}

// Game steps shared by the browser tests.

/// Opens `url`, waits for the app and for its WebSocket to connect.
pub async fn open_live(client: &Client, url: &str) -> Outcome {
    client.goto(url).await?;
    wait_for_app(client).await?;
    eventually("the WebSocket to connect", || async {
        client
            .find(Locator::Css(".conn"))
            .await
            .is_err()
            .then_some(())
    })
    .await?;
    Ok(())
}

/// The number of marks on the live board.
pub async fn marks(client: &Client) -> Result<u64, String> {
    let n = js(
        client,
        "return document.querySelectorAll('#board .mark').length;",
    )
    .await?;
    Ok(n.as_u64().unwrap_or(0))
}

pub async fn wait_marks(client: &Client, n: u64) -> Outcome {
    eventually(&format!("{n} marks on the board"), || async {
        (marks(client).await.ok()? == n).then_some(())
    })
    .await?;
    Ok(())
}

/// Waits for at least `n` marks (a bot may already have answered).
pub async fn wait_at_least(client: &Client, n: u64) -> Outcome {
    eventually(&format!("at least {n} marks on the board"), || async {
        (marks(client).await.ok()? >= n).then_some(())
    })
    .await?;
    Ok(())
}

/// Clicks a live-board cell once the reader may move.
pub async fn click_cell(client: &Client, cell: u8) -> Outcome {
    let css = format!("#board [data-cell='{cell}']");
    eventually(&format!("cell {cell} to be playable"), || async {
        (attr_of(client, &css, "aria-disabled").await.as_deref() == Some("false")).then_some(())
    })
    .await?;
    client.find(Locator::Css(&css)).await?.click().await?;
    Ok(())
}

/// Clicks a live-board cell once the reader may move, and waits for the mark.
pub async fn play(client: &Client, cell: u8, marks_after: u64) -> Outcome {
    click_cell(client, cell).await?;
    wait_at_least(client, marks_after).await
}

pub async fn start_local_game(c: &Client, base: &str) -> Outcome {
    open_live(c, &format!("{base}/kiosk")).await?;
    click(c, "#play-friend").await?;
    type_into(c, "#friend-name1", "Sara").await?;
    type_into(c, "#friend-name2", "Omar").await?;
    click(c, "#friend-submit").await?;
    eventually("the room screen", || async {
        let path = js(c, "return location.pathname;").await.ok()?;
        path.as_str()?.starts_with("/kiosk/room/").then_some(())
    })
    .await?;
    eventually("the board", || async {
        c.find(Locator::Css("#board")).await.ok().map(|_| ())
    })
    .await?;
    Ok(())
}

pub async fn register(c: &Client, base: &str, name: &str) -> Outcome {
    open_live(c, &format!("{base}/signin")).await?;
    click(c, "#signin-switch").await?;
    type_into(c, "#username", name).await?;
    type_into(c, "#password", "password123").await?;
    click(c, "#signin-submit").await?;
    eventually("the lobby as a signed-in player", || async {
        let nav = text_of(c, ".navbar").await?;
        nav.contains(name).then_some(())
    })
    .await?;
    eventually("the WebSocket to reconnect", || async {
        c.find(Locator::Css(".conn")).await.is_err().then_some(())
    })
    .await?;
    Ok(())
}

/// Host creates an open XO room, the guest joins from the lobby and readies, the host starts.
/// Returns the (X, O) sessions.
pub async fn start_rated_game<'a>(
    host: &'a Client,
    guest: &'a Client,
    base: &str,
    guest_name: &str,
) -> Result<(&'a Client, &'a Client), Box<dyn std::error::Error + Send + Sync>> {
    open_live(host, &format!("{base}/")).await?;
    // Phones open the form with the floating button first.
    let form_shown = js(
        host,
        "const b = document.querySelector('#create-submit'); return !!b && b.offsetParent !== null;",
    )
    .await?;
    if form_shown != true {
        click(host, "#fab-create").await?;
    }
    click(host, "#create-submit").await?;
    eventually("the waiting room", || async {
        host.find(Locator::Css("#start")).await.ok()
    })
    .await?;
    open_live(guest, &format!("{base}/")).await?;
    click(guest, "#room-list .room-link").await?;
    click(guest, "#join").await?;
    eventually("the guest seated", || async {
        let t = text_of(host, "#seat-1").await?;
        t.contains(guest_name).then_some(())
    })
    .await?;
    click(guest, "#ready").await?;
    eventually("start enabled", || async {
        (attr_of(host, "#start", "disabled").await.is_none()).then_some(())
    })
    .await?;
    click(host, "#start").await?;
    let host_is_x = plays_x(host).await?;
    Ok(if host_is_x {
        (host, guest)
    } else {
        (guest, host)
    })
}

pub use xo_client::privileged::TmpfsMount;

/// Appends zeros to `filler` until the file system refuses; returns the bytes written.
pub fn fill_up(filler: &Path) -> std::io::Result<u64> {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(filler)?;
    let chunk = vec![0u8; 4096];
    let mut written = 0;
    while file.write_all(&chunk).is_ok() {
        written += chunk.len() as u64;
    }
    // The last partial write may leave a few bytes; the card is full either way.
    Ok(written)
}

/// The QR codes Debian's `zbarimg` reads in the PNG `png`, one string per code (the same
/// reader the status display's `qr_readback` test uses).
pub fn qr_decode(png: &[u8]) -> Result<Vec<String>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let path = dir.path().join("qr.png");
    std::fs::write(&path, png).map_err(|e| e.to_string())?;
    let out = std::process::Command::new("zbarimg")
        .args(["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable"])
        .arg(&path)
        .output()
        .map_err(|e| format!("cannot run zbarimg (Debian zbar-tools): {e}"))?;
    // zbarimg exits 4 when it finds no code.
    if !out.status.success() {
        return Err(format!(
            "zbarimg found no QR code ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect())
}

/// The scheme and authority of `url` (`http://127.0.0.1:8080` of `http://127.0.0.1:8080/a?b`).
pub fn origin_of(url: &str) -> &str {
    let after_scheme = url.find("://").map_or(0, |i| i + 3);
    let end = url[after_scheme..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| after_scheme + i);
    &url[..end]
}

/// The PNG of the element `css` as the browser draws it.
pub async fn element_png(client: &Client, css: &str) -> Result<Vec<u8>, String> {
    let el = client
        .find(Locator::Css(css))
        .await
        .map_err(|e| format!("{css}: {e}"))?;
    el.screenshot().await.map_err(|e| format!("{css}: {e}"))
}

/// Whether the reader of this rated game plays X, from the rail once the marks are assigned.
pub async fn plays_x(client: &Client) -> Result<bool, String> {
    eventually("the marks assigned", || async {
        let rail = text_of(client, "#rail-text").await?;
        if rail.contains("you are X") || rail.contains("You are X") {
            Some(true)
        } else if rail.contains("you are O") || rail.contains("You are O") {
            Some(false)
        } else {
            None
        }
    })
    .await
}

/// What the live regions have said last (both of them: a repeated sentence alternates).
pub async fn announced(client: &Client) -> String {
    js(
        client,
        "return document.querySelector('#live').textContent + document.querySelector('#live-alt').textContent;",
    )
    .await
    .ok()
    .and_then(|v| v.as_str().map(str::to_owned))
    .unwrap_or_default()
}

/// The page's path.
pub async fn path(client: &Client) -> Result<String, String> {
    Ok(js(client, "return location.pathname;")
        .await?
        .as_str()
        .unwrap_or_default()
        .to_owned())
}

/// Waits for the page's path to be `want`.
pub async fn wait_path_is(client: &Client, want: &str) -> Outcome {
    eventually(&format!("the address {want}"), || async {
        (path(client).await.ok()? == want).then_some(())
    })
    .await?;
    Ok(())
}

/// Waits until nothing matches `css`.
pub async fn wait_gone(client: &Client, css: &str) -> Outcome {
    eventually(&format!("{css} gone"), || async {
        client.find(Locator::Css(css)).await.is_err().then_some(())
    })
    .await?;
    Ok(())
}

/// The layout checks' verdict: every problem found, or none.
pub fn report(problems: &[String]) -> Outcome {
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} layout problems:\n{}",
            problems.len(),
            problems.join("\n")
        )
        .into())
    }
}

/// A room made over the protocol by a new guest connection, which must stay open while the
/// room is to be seen; returns once the room's snapshot arrived.
pub async fn room_over_protocol(
    base: &str,
    room: protocol::CreateRoom,
) -> Result<xo_client::Client, String> {
    let mut client = xo_client::Client::connect(base, None, protocol::Framing::Text)
        .await
        .map_err(|e| e.to_string())?;
    let id = client.id();
    client
        .send(protocol::ClientMsg::CreateRoom { id, room })
        .await
        .map_err(|e| e.to_string())?;
    loop {
        match client.recv().await.map_err(|e| e.to_string())? {
            protocol::ServerMsg::Room { .. } => return Ok(client),
            protocol::ServerMsg::Error { message, .. } => return Err(message),
            _ => continue,
        }
    }
}

/// Sends `msg` (made with a fresh request id) and waits for its answer: the room's snapshot,
/// or the error.
pub async fn ask_over_protocol(
    client: &mut xo_client::Client,
    msg: impl FnOnce(Option<protocol::RequestId>) -> protocol::ClientMsg,
) -> Result<protocol::RoomView, String> {
    let id = client.id();
    client.send(msg(id)).await.map_err(|e| e.to_string())?;
    loop {
        match client.recv().await.map_err(|e| e.to_string())? {
            protocol::ServerMsg::Room { id: got, room } if got == id => return Ok(*room),
            protocol::ServerMsg::Error {
                id: got, message, ..
            } if got == id => return Err(message),
            _ => continue,
        }
    }
}

/// A rated XO game between two new accounts, `host` and `guest`, played over the protocol to
/// its end: X wins along the top row. Returns the room's (and stored game's) id.
pub async fn rated_game_over_protocol(
    base: &str,
    host: &str,
    guest: &str,
) -> Result<String, String> {
    use protocol::{ClientMsg, CreateRoom, JoiningRequest, OpponentRequest};
    let connect = |name: String| async move {
        let cookie = xo_client::register(base, &name, "password123")
            .await
            .map_err(|e| e.to_string())?;
        xo_client::Client::connect(base, Some(&cookie), protocol::Framing::Text)
            .await
            .map_err(|e| e.to_string())
    };
    let mut h = connect(host.to_owned()).await?;
    let mut g = connect(guest.to_owned()).await?;
    let room = ask_over_protocol(&mut h, |id| ClientMsg::CreateRoom {
        id,
        room: CreateRoom {
            game: engine::Game::Xo,
            opponent: OpponentRequest::Player {
                joining: JoiningRequest::Open,
            },
            time_per_move_s: None,
        },
    })
    .await?;
    let room_id = room.id.clone();
    let join = room_id.clone();
    ask_over_protocol(&mut g, |id| ClientMsg::Join {
        id,
        room: join,
        passcode: None,
    })
    .await?;
    ask_over_protocol(&mut g, |id| ClientMsg::Ready { id, ready: true }).await?;
    let started = ask_over_protocol(&mut h, |id| ClientMsg::Start { id }).await?;
    let (x, o) = if started.you.to_move {
        (&mut h, &mut g)
    } else {
        (&mut g, &mut h)
    };
    for (i, cell) in [0u8, 3, 1, 4, 2].into_iter().enumerate() {
        let mover = if i % 2 == 0 { &mut *x } else { &mut *o };
        ask_over_protocol(mover, |id| ClientMsg::Move { id, cell }).await?;
    }
    h.close().await;
    g.close().await;
    Ok(room_id)
}

/// The top and bottom of an element's box, relative to the viewport.
pub async fn span(c: &Client, css: &str) -> Result<(f64, f64), String> {
    let v = js(
        c,
        &format!(
            "const r = document.querySelector(\"{css}\").getBoundingClientRect(); return [r.top, r.bottom];"
        ),
    )
    .await?;
    Ok((v[0].as_f64().unwrap_or(-1.0), v[1].as_f64().unwrap_or(1e9)))
}

/// Asserts that the element `css` lies inside a viewport `height` px tall.
pub async fn assert_in_view(c: &Client, css: &str, height: f64) -> Outcome {
    let (top, bottom) = span(c, css).await?;
    assert!(
        top >= -0.5 && bottom <= height + 0.5,
        "{css} must be inside the {height} px viewport: {top}..{bottom}"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::origin_of;

    #[test]
    fn the_origin_is_the_scheme_and_authority() {
        assert_eq!(
            origin_of("http://127.0.0.1:8080/a/b?c#d"),
            "http://127.0.0.1:8080"
        );
        assert_eq!(origin_of("http://127.0.0.1:8080"), "http://127.0.0.1:8080");
        assert_eq!(origin_of("http://xo.local?x"), "http://xo.local");
    }
}
