//! The figures the status screen shows, as plain data.

use core::fmt;

/// What the status screen shows. The server fills one in every few seconds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Status {
    /// The address phones should open, e.g. `http://xo.local:8080`. Encoded whole in the QR code;
    /// the text line may be shortened to fit.
    pub address: String,
    /// Players with a live connection.
    pub players_online: u32,
    /// Rooms waiting for a second player or for the start.
    pub rooms_waiting: u32,
    /// Rooms with a game in progress.
    pub rooms_playing: u32,
    /// Seconds since the server started.
    pub uptime_s: u64,
    /// What is wrong with the card, if anything; shown instead of the uptime, so that the
    /// owner sees it at a glance.
    pub storage: Option<StorageWarning>,
    /// A one-time owner code while the kiosk has no owner (eight digits), shown instead of
    /// the uptime: whoever can read the screen holds the kiosk.
    pub owner_code: Option<String>,
}

/// Why the server reports itself degraded because of its card (`/api/health`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StorageWarning {
    /// Writes fail (I/O errors, read-only); play goes on, results wait.
    Failing,
    /// The card is full.
    Full,
    /// Little space is left.
    NearlyFull,
}

impl StorageWarning {
    /// The word shown after the "degraded" label.
    pub fn word(self) -> &'static str {
        match self {
            StorageWarning::Failing => "failing",
            StorageWarning::Full => "full",
            StorageWarning::NearlyFull => "low",
        }
    }
}

/// An uptime as days, hours and minutes: `3d 04:12`. Days are always shown so that `0d 04:12`
/// cannot be mistaken for minutes and seconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Uptime(pub u64);

impl fmt::Display for Uptime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let minutes = self.0 / 60;
        let hours = minutes / 60;
        let days = hours / 24;
        write!(f, "{days}d {:02}:{:02}", hours % 24, minutes % 60)
    }
}

/// `uptime_s` formatted as [`Uptime`] does: `format_uptime(3 * 86_400 + 4 * 3600 + 12 * 60)` is
/// `"3d 04:12"`.
pub fn format_uptime(uptime_s: u64) -> String {
    Uptime(uptime_s).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uptime_shows_days_hours_and_minutes() {
        assert_eq!(
            format_uptime(3 * 86_400 + 4 * 3600 + 12 * 60 + 59),
            "3d 04:12"
        );
    }

    #[test]
    fn uptime_under_a_day_still_shows_zero_days() {
        assert_eq!(format_uptime(0), "0d 00:00");
        assert_eq!(format_uptime(59), "0d 00:00");
        assert_eq!(format_uptime(23 * 3600 + 59 * 60), "0d 23:59");
    }

    #[test]
    fn uptime_of_many_days_does_not_wrap() {
        assert_eq!(format_uptime(400 * 86_400 + 3600), "400d 01:00");
        assert_eq!(format_uptime(u64::MAX), "213503982334601d 07:00");
    }
}
