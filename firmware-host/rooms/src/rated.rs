//! The rated-game budget of a client address: every rated game is kept for ever
//! (the ladder's history), so the number of rated games a network address can start bounds
//! what that address can make the server keep. A game is charged once to each distinct
//! address from which one of its two players is connected when it starts (the host's start,
//! or the accepted rematch); when any of them has spent its budget the game does not start.
//!
//! The check and the charge are one step under one lock, so a burst of starts from many rooms
//! at once cannot overshoot the budget.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;

use protocol::records::UserId;

/// The window over which an address's rated games count.
pub const RATED_WINDOW_MS: u64 = 60 * 60 * 1000;

/// Decides whether a rated game of these players may start now, and charges it when it may.
pub trait RatedGate {
    /// `Ok` (and the game is charged) or how many milliseconds until it could start.
    fn admit(&self, players: &[UserId], now_ms: u64) -> Result<(), u64>;
}

/// No budget: for a room's own tests and tools that drive rooms without a hub.
#[derive(Debug, Default, Clone, Copy)]
pub struct Unlimited;

impl RatedGate for Unlimited {
    fn admit(&self, _players: &[UserId], _now_ms: u64) -> Result<(), u64> {
        Ok(())
    }
}

/// Rated games started per address within [`RATED_WINDOW_MS`].
pub(crate) struct RatedBudget {
    /// 0: no limit.
    per_window: usize,
    starts: Mutex<HashMap<IpAddr, Window>>,
}

/// One address's rated games within the window.
#[derive(Default)]
struct Window {
    starts: VecDeque<u64>,
    /// When a refusal of this address was last logged: at most once per [`LOG_EVERY_MS`].
    logged_ms: Option<u64>,
}

/// A refused address is logged again at most this often (starts may be retried 20 a second).
const LOG_EVERY_MS: u64 = 10 * 60 * 1000;

/// Past this many addresses tracked, a charge first forgets the addresses whose games have
/// all left the window, so the map stays as small as the set of recently active addresses.
const PRUNE_ABOVE: usize = 1024;

impl RatedBudget {
    pub(crate) fn new(per_window: usize) -> RatedBudget {
        RatedBudget {
            per_window,
            starts: Mutex::new(HashMap::new()),
        }
    }

    /// Charges one game to each of `addresses` (duplicates once), or none of them when one
    /// has no budget left: then the milliseconds until its oldest game leaves the window.
    pub(crate) fn charge(&self, addresses: &[IpAddr], now_ms: u64) -> Result<(), u64> {
        if self.per_window == 0 || addresses.is_empty() {
            return Ok(());
        }
        let mut starts = self
            .starts
            .lock()
            // Every change pushes or pops whole timestamps, so a poisoned map is consistent.
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // A game started at `t` counts until `t + RATED_WINDOW_MS`.
        let expired = |t: u64| t.saturating_add(RATED_WINDOW_MS) <= now_ms;
        if starts.len() > PRUNE_ABOVE {
            starts.retain(|_, w| w.starts.back().is_some_and(|&t| !expired(t)));
        }
        let mut wait = 0;
        for address in addresses {
            let Some(w) = starts.get_mut(address) else {
                continue;
            };
            while w.starts.front().is_some_and(|&t| expired(t)) {
                w.starts.pop_front();
            }
            if w.starts.len() >= self.per_window {
                let oldest = w.starts.front().copied().unwrap_or(now_ms);
                wait = wait.max(oldest + RATED_WINDOW_MS - now_ms);
                if w.logged_ms.is_none_or(|t| now_ms >= t + LOG_EVERY_MS) {
                    w.logged_ms = Some(now_ms);
                    tracing::warn!(%address, limit = self.per_window, "rated game refused: too many rated games from this address within the hour");
                }
            }
        }
        if wait > 0 {
            return Err(wait);
        }
        let mut charged: Vec<IpAddr> = addresses.to_vec();
        charged.sort_unstable();
        charged.dedup();
        for address in charged {
            starts.entry(address).or_default().starts.push_back(now_ms);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, last])
    }

    #[test]
    fn an_address_is_charged_once_per_game_until_its_budget_is_spent() {
        let budget = RatedBudget::new(3);
        // Both players on one address: one charge per game.
        for t in 0..3 {
            assert_eq!(budget.charge(&[ip(1), ip(1)], t), Ok(()));
        }
        assert_eq!(budget.charge(&[ip(1)], 10), Err(RATED_WINDOW_MS - 10));
        // A refused game charges nobody: the other address keeps its budget.
        assert_eq!(
            budget.charge(&[ip(1), ip(2)], 10),
            Err(RATED_WINDOW_MS - 10)
        );
        for t in 0..3 {
            assert_eq!(budget.charge(&[ip(2)], 20 + t), Ok(()));
        }
        assert!(budget.charge(&[ip(2)], 30).is_err());
        // The oldest game leaves the window: one more may start.
        assert_eq!(budget.charge(&[ip(1)], RATED_WINDOW_MS), Ok(()));
        assert!(budget.charge(&[ip(1)], RATED_WINDOW_MS).is_err());
    }

    #[test]
    fn no_limit_and_no_address_always_admit() {
        let unlimited = RatedBudget::new(0);
        for t in 0..1000 {
            assert_eq!(unlimited.charge(&[ip(1)], t), Ok(()));
        }
        let budget = RatedBudget::new(1);
        assert_eq!(budget.charge(&[], 0), Ok(()));
        assert_eq!(budget.charge(&[], 0), Ok(()));
    }

    #[test]
    fn idle_addresses_are_forgotten() {
        let budget = RatedBudget::new(1);
        let many = u32::try_from(PRUNE_ABOVE).expect("a small constant");
        for n in 0..=many {
            let address = IpAddr::from(std::net::Ipv4Addr::from(0x0a01_0000 + n));
            assert_eq!(budget.charge(&[address], 0), Ok(()));
        }
        assert_eq!(budget.charge(&[ip(9)], RATED_WINDOW_MS + 1), Ok(()));
        let tracked = budget
            .starts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .len();
        assert_eq!(
            tracked, 1,
            "only the address active within the window is kept"
        );
    }
}
