//! What a run counts: completed moves and games, latencies, and every error by category.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::Duration;

/// Shared by every task of a run. Figures are recorded only while the window is open
/// ([`Stats::open_window`] to [`Stats::close_window`]); errors before it count as set-up
/// errors, errors after it (teardown) are kept apart as `after_window:…` set-up errors, so none
/// is dropped.
#[derive(Debug, Default)]
pub struct Stats {
    /// 0: before the window, 1: open, 2: closed.
    phase: AtomicU8,
    /// Moves seen by the opponent's client within the window.
    pub moves: AtomicU64,
    /// Games played to their end (result seen by both players) within the window.
    pub games: AtomicU64,
    /// Messages received by spectators (per-game and idle) within the window.
    pub spectator_messages: AtomicU64,
    /// Mover's send to the mover's own reply (the snapshot echoing the move's id), µs.
    rtt_us: Mutex<Vec<u32>>,
    /// Mover's send to the moment the opponent's client has the move, µs.
    to_opponent_us: Mutex<Vec<u32>>,
    /// The rtt of game-ending moves alone (their reply waits for the stored result), µs.
    ending_rtt_us: Mutex<Vec<u32>>,
    /// The rtt of every other move, µs.
    ordinary_rtt_us: Mutex<Vec<u32>>,
    errors: Mutex<BTreeMap<String, u64>>,
    setup_errors: Mutex<BTreeMap<String, u64>>,
}

impl Stats {
    pub fn is_measuring(&self) -> bool {
        self.phase.load(Ordering::Relaxed) == 1
    }

    pub fn open_window(&self) {
        self.phase.store(1, Ordering::Relaxed);
    }

    pub fn close_window(&self) {
        self.phase.store(2, Ordering::Relaxed);
    }

    /// One move that the opponent has seen.
    pub fn moved(&self, rtt: Option<Duration>, to_opponent: Duration) {
        if !self.is_measuring() {
            return;
        }
        self.moves.fetch_add(1, Ordering::Relaxed);
        if let Some(rtt) = rtt {
            lock(&self.rtt_us).push(micros(rtt));
        }
        lock(&self.to_opponent_us).push(micros(to_opponent));
    }

    /// The rtt of a move that ended its game (also counted by [`Stats::moved`]).
    pub fn ending_move(&self, rtt: Duration) {
        if self.is_measuring() {
            lock(&self.ending_rtt_us).push(micros(rtt));
        }
    }

    /// The rtt of a move that did not end its game (also counted by [`Stats::moved`]).
    pub fn ordinary_move(&self, rtt: Duration) {
        if self.is_measuring() {
            lock(&self.ordinary_rtt_us).push(micros(rtt));
        }
    }

    pub fn game_completed(&self) {
        if self.is_measuring() {
            self.games.fetch_add(1, Ordering::Relaxed);
        }
    }

    pub fn spectator_message(&self) {
        if self.is_measuring() {
            self.spectator_messages.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// An error of the given category (e.g. `refused:not_your_turn`, `closed`, `timeout`):
    /// an error of the run while the window is open, else a set-up error (after the window
    /// prefixed `after_window:`).
    pub fn error(&self, category: impl Into<String>) {
        match self.phase.load(Ordering::Relaxed) {
            0 => self.setup_error(category),
            1 => *lock(&self.errors).entry(category.into()).or_default() += 1,
            _ => self.setup_error(format!("after_window:{}", category.into())),
        }
    }

    /// An error while preparing the run (registering, connecting, before the window opens).
    pub fn setup_error(&self, category: impl Into<String>) {
        *lock(&self.setup_errors).entry(category.into()).or_default() += 1;
    }

    pub fn errors(&self) -> BTreeMap<String, u64> {
        lock(&self.errors).clone()
    }

    pub fn setup_errors(&self) -> BTreeMap<String, u64> {
        lock(&self.setup_errors).clone()
    }

    pub fn rtt(&self) -> Percentiles {
        Percentiles::of(&mut lock(&self.rtt_us))
    }

    pub fn ending_rtt(&self) -> Percentiles {
        Percentiles::of(&mut lock(&self.ending_rtt_us))
    }

    pub fn ordinary_rtt(&self) -> Percentiles {
        Percentiles::of(&mut lock(&self.ordinary_rtt_us))
    }

    pub fn to_opponent(&self) -> Percentiles {
        Percentiles::of(&mut lock(&self.to_opponent_us))
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A panicking task is itself reported (its JoinError); its partial figures stay usable.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn micros(d: Duration) -> u32 {
    u32::try_from(d.as_micros()).unwrap_or(u32::MAX)
}

/// p50, p99 and max of a sample, in microseconds; all zero for an empty sample.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Percentiles {
    pub count: usize,
    pub p50_us: u32,
    pub p99_us: u32,
    pub max_us: u32,
}

impl Percentiles {
    pub fn of(sample: &mut [u32]) -> Percentiles {
        if sample.is_empty() {
            return Percentiles::default();
        }
        sample.sort_unstable();
        // Nearest rank: the smallest value with at least q of the sample at or below it.
        let rank = |q: f64| {
            let n = sample.len();
            // n is at most a few million: exact in f64.
            #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
            #[allow(clippy::cast_sign_loss)]
            let r = ((q * n as f64).ceil() as usize).clamp(1, n);
            sample[r - 1]
        };
        Percentiles {
            count: sample.len(),
            p50_us: rank(0.50),
            p99_us: rank(0.99),
            max_us: sample[sample.len() - 1],
        }
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "count": self.count,
            "p50_us": self.p50_us,
            "p99_us": self.p99_us,
            "max_us": self.max_us,
        })
    }

    /// `p50 1.23 ms, p99 4.56 ms, max 7.89 ms`.
    pub fn human(&self) -> String {
        let ms = |us: u32| f64::from(us) / 1000.0;
        format!(
            "p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
            ms(self.p50_us),
            ms(self.p99_us),
            ms(self.max_us)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let mut sample: Vec<u32> = (1..=100).rev().collect();
        let p = Percentiles::of(&mut sample);
        assert_eq!((p.count, p.p50_us, p.p99_us, p.max_us), (100, 50, 99, 100));
        assert_eq!(Percentiles::of(&mut []), Percentiles::default());
        let p = Percentiles::of(&mut [7]);
        assert_eq!((p.p50_us, p.p99_us, p.max_us), (7, 7, 7));
    }

    #[test]
    fn only_the_window_counts() {
        let stats = Stats::default();
        stats.moved(None, Duration::from_millis(1));
        stats.error("closed");
        stats.setup_error("connect");
        stats.open_window();
        stats.moved(Some(Duration::from_micros(300)), Duration::from_micros(400));
        stats.error("closed");
        stats.close_window();
        stats.moved(None, Duration::from_millis(1));
        stats.error("timeout");
        assert_eq!(stats.moves.load(Ordering::Relaxed), 1);
        assert_eq!(stats.errors().len(), 1);
        assert_eq!(stats.errors().get("closed"), Some(&1));
        assert_eq!(stats.setup_errors().get("connect"), Some(&1));
        assert_eq!(stats.setup_errors().get("closed"), Some(&1));
        assert_eq!(stats.setup_errors().get("after_window:timeout"), Some(&1));
        assert_eq!(stats.rtt().p50_us, 300);
        assert_eq!(stats.to_opponent().max_us, 400);
    }
}
