//! [`App`]: what every request handler shares, built once by the server.
//! Its own file so that handlers (`http`, `ws`, `account_api`, `display` …) and the server
//! that calls them do not import each other.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use rooms::Hub;
use tokio::sync::Semaphore;

use crate::config::Config;
use crate::connections::Connections;
use crate::public_url::PublicUrl;
use crate::store::Store;
use crate::throttle::Throttle;

/// What every request handler shares.
#[derive(Debug)]
pub struct App {
    pub store: Store,
    pub config: Config,
    pub started: Instant,
    pub throttle: Throttle,
    /// Bounds concurrent argon2 computations.
    pub hash_permits: Semaphore,
    /// Open TCP connections (HTTP), for `/api/health`.
    pub connections: AtomicUsize,
    /// Rooms, the lobby and WebSocket sessions.
    pub hub: Hub,
    /// The address phones should open (configured, or derived from the bound address).
    pub public_url: PublicUrl,
    /// Open WebSocket connections per client address.
    pub ws_per_address: std::sync::Mutex<HashMap<IpAddr, usize>>,
    /// Connections per client address still waiting for their first request bytes.
    pub pending_per_address: std::sync::Mutex<HashMap<IpAddr, usize>>,
    /// Connections refused or closed for abuse, by kind, for the log.
    pub refusals: Refusals,
    /// Every open connection by address, for its whole life.
    pub open: Arc<Connections>,
    /// Open connections at which the newest of the busiest address are shed: the soft
    /// open-files limit, less the descriptors open at start and [`crate::connections::FD_RESERVE`]. `None`:
    /// the limit is unknown.
    pub shed_at: Option<usize>,
    /// Owner mode's live one-time codes.
    pub owner_codes: crate::owner::OwnerCodes,
    /// The kiosk's settings in force (the flags', or an owner's saved ones).
    pub settings: crate::settings::Live,
    /// Notified when an owner asks for a restart (`POST /api/owner/restart`).
    pub restart: tokio::sync::Notify,
    /// The live arena events' tasks.
    pub events: Arc<crate::event_runner::Events>,
    /// The status display's state, for the owner's health page.
    pub display: DisplayState,
    /// Whether the kiosk's screen sleeps, as its page last said.
    pub screen: ScreenState,
}

/// What the owner's health page says about the display: `None` when none is configured.
#[derive(Debug, Default)]
pub struct DisplayState(std::sync::Mutex<Option<protocol::http::DisplayHealth>>);

impl DisplayState {
    pub fn get(&self) -> Option<protocol::http::DisplayHealth> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    pub(crate) fn set(
        &self,
        backend: &str,
        state: protocol::http::DisplayState,
        error: Option<String>,
    ) {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some(protocol::http::DisplayHealth {
                backend: backend.to_owned(),
                state,
                error,
            });
    }
}

/// Whether the kiosk's screen sleeps (`/api/kiosk/screen`).
#[derive(Debug, Default)]
pub struct ScreenState(std::sync::Mutex<protocol::http::KioskScreen>);

impl ScreenState {
    pub fn get(&self) -> protocol::http::KioskScreen {
        *self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records `asleep` at `now_ms` (`changed_ms` moves only when it changed); the state now,
    /// and whether it changed.
    pub fn set(&self, asleep: bool, now_ms: u64) -> (protocol::http::KioskScreen, bool) {
        let mut screen = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let changed = screen.asleep != asleep || screen.changed_ms == 0;
        if changed {
            *screen = protocol::http::KioskScreen {
                asleep,
                changed_ms: now_ms,
            };
        }
        (*screen, changed)
    }
}

/// Counts of refused connections, logged sparingly: the first, then at every power of two, so
/// a flood of them cannot flood the log (or an SD card) too.
#[derive(Debug, Default)]
pub struct Refusals {
    /// Connections that sent no request within the handshake timeout.
    pub silent: AtomicU64,
    /// Connections over `MAX_PENDING_PER_ADDRESS`.
    pub pending_over_limit: AtomicU64,
    /// Connections over `--max-connections-per-address`.
    pub address_over_limit: AtomicU64,
    /// Connections shed near the open-files limit.
    pub shed: AtomicU64,
}

impl Refusals {
    /// Counts one refusal; `Some(total)` when this one should be logged.
    pub fn count(counter: &AtomicU64) -> Option<u64> {
        let total = counter.fetch_add(1, Ordering::Relaxed) + 1;
        total.is_power_of_two().then_some(total)
    }
}
