//! What the server says about its card: working, failing (with the reason), or nearly full —
//! on `/api/health`, the status display and in the log.

use std::path::Path;

pub use protocol::http::{StorageHealth, StorageState};
use rooms::StoreError;

/// The card is nearly full when less than this share of it is free (one tenth)…
const NEARLY_FULL_SHARE: u64 = 10;
/// …or less than this many bytes, whichever is smaller: on a large card a tenth is still
/// plenty, and the most one address can make the server write in a day is far below it
/// (BENCHMARKS.md "Storage").
const NEARLY_FULL_BYTES: u64 = 64 * 1024 * 1024;

/// Free and total bytes of the file system holding `dir`, for an unprivileged process.
pub fn free_space(dir: &Path) -> Option<(u64, u64)> {
    match rustix::fs::statvfs(dir) {
        Ok(s) => Some((
            s.f_bavail.saturating_mul(s.f_frsize),
            s.f_blocks.saturating_mul(s.f_frsize),
        )),
        Err(e) => {
            tracing::debug!(error = %e, dir = %dir.display(), "cannot read free space");
            None
        }
    }
}

/// The free space below which a card of `total` bytes is nearly full: what work that can wait
/// (an update's check) must leave free.
pub fn reserve_bytes(total: u64) -> u64 {
    (total / NEARLY_FULL_SHARE).min(NEARLY_FULL_BYTES)
}

fn nearly_full(free: u64, total: u64) -> bool {
    free < reserve_bytes(total)
}

/// The last failure and the last space reading; logs each change of state once.
#[derive(Debug, Default)]
pub(crate) struct Tracker {
    failing: Option<StoreError>,
    space: Option<(u64, u64)>,
    warned_nearly_full: bool,
}

impl Tracker {
    pub(crate) fn failing(&mut self, e: &StoreError) {
        if self.failing.is_none() {
            tracing::error!(error = %e, "storage is failing: results are kept in memory until it works again");
        }
        self.failing = Some(e.clone());
    }

    pub(crate) fn working(&mut self) {
        if let Some(e) = self.failing.take() {
            tracing::info!(was = %e, "storage recovered");
        }
    }

    /// Records a new space reading and returns the state.
    pub(crate) fn report(&mut self, space: Option<(u64, u64)>) -> StorageHealth {
        if space.is_some() {
            self.space = space;
        }
        let low = self
            .space
            .is_some_and(|(free, total)| nearly_full(free, total));
        if low && !self.warned_nearly_full {
            let (free, total) = self.space.unwrap_or_default();
            tracing::warn!(
                free_bytes = free,
                total_bytes = total,
                "the card is nearly full: free space before it fills"
            );
        } else if !low && self.warned_nearly_full {
            tracing::info!("the card has room again");
        }
        self.warned_nearly_full = low;
        let (state, reason) = match (&self.failing, self.space) {
            (Some(e), _) => (StorageState::Failing, Some(e.to_string())),
            (None, Some((free, total))) if low => (
                StorageState::NearlyFull,
                Some(format!(
                    "the card is nearly full: {} KiB free of {} KiB",
                    free / 1024,
                    total / 1024
                )),
            ),
            _ => (StorageState::Ok, None),
        };
        StorageHealth {
            state,
            reason,
            full: matches!(self.failing, Some(StoreError::Full(_))),
            free_bytes: self.space.map(|s| s.0),
            total_bytes: self.space.map(|s| s.1),
        }
    }
}
