//! The optional status display (P5): a thread of its own (drawing blocks) shows the address
//! phones should open, players online, rooms waiting and playing, and uptime, every
//! [`REFRESH`]. The drawing itself lives in the `status-display` crate.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use status_display::{Backend, Display, Status, StorageWarning};

use crate::store::{StorageHealth, StorageState};

use crate::app::App;

/// How often the screen is redrawn.
pub const REFRESH: Duration = Duration::from_secs(5);

/// A running display thread; stopping it joins the thread.
#[derive(Debug)]
pub struct DisplayTask {
    stop: mpsc::Sender<()>,
    thread: JoinHandle<()>,
}

impl DisplayTask {
    /// Opens `backend` and starts refreshing it from `app`. Fails when the spec does not parse
    /// or the device cannot be opened.
    pub fn start(spec: &str, app: Arc<App>) -> anyhow::Result<DisplayTask> {
        let backend: Backend = spec.parse()?;
        let display = Display::open(&backend)?;
        let (stop, stopped) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("status-display".into())
            .spawn(move || run(display, &app, &stopped))?;
        tracing::info!(backend = spec, "status display started");
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

fn run(mut display: Display, app: &App, stopped: &mpsc::Receiver<()>) {
    // Logs a failure once until the display works again, so a missing OLED does not flood
    // the log every five seconds.
    let mut failing = false;
    loop {
        match display.show(&current_status(app)) {
            Ok(()) => failing = false,
            Err(e) if !failing => {
                tracing::warn!(error = %e, "status display update failed; retrying");
                failing = true;
            }
            Err(_) => {}
        }
        match stopped.recv_timeout(REFRESH) {
            Err(RecvTimeoutError::Timeout) => {}
            Ok(()) | Err(RecvTimeoutError::Disconnected) => return,
        }
    }
}
