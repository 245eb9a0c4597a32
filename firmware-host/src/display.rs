//! The optional status display (P5, AP4): a thread of its own (drawing blocks) shows the
//! address phones should open, players online, rooms waiting and playing, and uptime, every
//! [`REFRESH`]. The drawing itself lives in the `status-display` crate.
//!
//! The display is an extra: a setting that does not parse, a device that cannot be opened (no
//! bus, no permission, nothing plugged in) or a failing write never stops the server. It is
//! logged once, kept in [`crate::app::DisplayState`] for the owner's health page, and the device is tried
//! again every [`RETRY`] (a bus module loaded late, a screen plugged in afterwards).

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use protocol::http::DisplayState as Shown;
use status_display::{Backend, Display, Status, StorageWarning};

use crate::store::{StorageHealth, StorageState};

use crate::app::App;

/// How often the screen is redrawn.
pub const REFRESH: Duration = Duration::from_secs(5);
/// How often a display that cannot be opened is tried again.
pub const RETRY: Duration = Duration::from_secs(30);

/// The `--display` setting as given, `None` for no display: empty and `none` (the image's
/// `display = none`) mean none.
pub fn configured(spec: Option<&str>) -> Option<&str> {
    spec.map(str::trim)
        .filter(|s| !s.is_empty() && !s.eq_ignore_ascii_case("none"))
}

/// A running display thread; stopping it joins the thread.
#[derive(Debug)]
pub struct DisplayTask {
    stop: mpsc::Sender<()>,
    thread: JoinHandle<()>,
}

impl DisplayTask {
    /// Starts the display thread for `spec`: it opens the backend (again every [`RETRY`]
    /// while it cannot) and refreshes it from `app`, keeping `app.display` up to date.
    pub fn start(spec: &str, app: Arc<App>) -> anyhow::Result<DisplayTask> {
        let (stop, stopped) = mpsc::channel();
        let spec = spec.to_owned();
        app.display.set(&spec, Shown::Starting, None);
        let thread = std::thread::Builder::new()
            .name("status-display".into())
            .spawn(move || run(&spec, &app, &stopped))?;
        Ok(DisplayTask { stop, thread })
    }

    /// Stops the refresh loop and waits for the thread.
    pub fn stop(self) {
        // An error means the thread has already ended.
        let _ignored = self.stop.send(());
        if self.thread.join().is_err() {
            tracing::error!("the status display thread panicked");
        }
    }
}

/// The figures shown, from the hub's counts.
pub fn current_status(app: &App) -> Status {
    let stats = app.hub.stats();
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    Status {
        address: app.public_url.current().public_url,
        players_online: count(stats.players_online),
        rooms_waiting: count(stats.rooms_waiting),
        rooms_playing: count(stats.rooms_playing),
        uptime_s: app.started.elapsed().as_secs(),
        storage: storage_warning(&app.store.health()),
        owner_code: app.owner_codes.live_boot_code(),
    }
}

/// What the screen says about the card (the same state as `/api/health`).
fn storage_warning(health: &StorageHealth) -> Option<StorageWarning> {
    match health.state {
        StorageState::Ok => None,
        StorageState::NearlyFull => Some(StorageWarning::NearlyFull),
        StorageState::Failing if health.full => Some(StorageWarning::Full),
        StorageState::Failing => Some(StorageWarning::Failing),
    }
}

/// Waits `period` or until stopped; `true` when stopped.
fn wait(stopped: &mpsc::Receiver<()>, period: Duration) -> bool {
    match stopped.recv_timeout(period) {
        Err(RecvTimeoutError::Timeout) => false,
        Ok(()) | Err(RecvTimeoutError::Disconnected) => true,
    }
}

fn run(spec: &str, app: &App, stopped: &mpsc::Receiver<()>) {
    let backend: Backend = match spec.parse() {
        Ok(backend) => backend,
        Err(e) => {
            // A setting that does not parse stays wrong until it is changed: no retry.
            tracing::error!(backend = spec, error = %e, "the status display setting is not understood; the server runs without it");
            app.display.set(spec, Shown::Failing, Some(e.to_string()));
            return;
        }
    };
    // Logs a failure once until the display works again, so a missing OLED does not flood
    // the log.
    let mut failing = false;
    let mut display = loop {
        match Display::open(&backend) {
            Ok(display) => break display,
            Err(e) => {
                if !failing {
                    tracing::error!(backend = spec, error = %e, "cannot open the status display; trying again every {} s", RETRY.as_secs());
                    failing = true;
                }
                app.display.set(spec, Shown::Failing, Some(e.to_string()));
                if wait(stopped, RETRY) {
                    return;
                }
            }
        }
    };
    tracing::info!(backend = spec, "status display started");
    failing = false;
    loop {
        match display.show(&current_status(app)) {
            Ok(()) => {
                failing = false;
                app.display.set(spec, Shown::Ok, None);
            }
            Err(e) => {
                if !failing {
                    tracing::warn!(backend = spec, error = %e, "status display update failed; retrying");
                    failing = true;
                }
                app.display.set(spec, Shown::Failing, Some(e.to_string()));
            }
        }
        if wait(stopped, REFRESH) {
            return;
        }
    }
}
