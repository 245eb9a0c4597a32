//! The sign-in and registration throttle (A1).
//!
//! An attempt is counted the moment it is **admitted**, under one lock, before any password
//! is hashed: a burst of concurrent guesses cannot all pass the check and be counted only
//! afterwards. An admitted attempt that turns out not to be a failure (a successful sign-in,
//! a registration refused for a taken name) is released again; one that fails, or whose
//! request is abandoned half-way, stays counted.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Attempts allowed per client address within [`ATTEMPT_WINDOW`].
pub const ADDRESS_ATTEMPTS: usize = 5;
/// Failed attempts allowed per username, from all untrusted browsers together, within
/// [`ATTEMPT_WINDOW`]: enough that one prankster on the network (held to
/// [`ADDRESS_ATTEMPTS`] by their address) cannot lock the owner out, few enough that guessing
/// from many addresses stays slow. Browsers with the account's device cookie are exempt.
pub const USERNAME_ATTEMPTS: usize = 20;
/// Failed attempts allowed per device cookie within [`ATTEMPT_WINDOW`] (OWASP: a stolen
/// device cookie must not become an unthrottled guessing channel).
pub const DEVICE_ATTEMPTS: usize = 5;
/// The window over which attempts count.
pub const ATTEMPT_WINDOW: Duration = Duration::from_secs(5 * 60);
/// Accounts registered per client address within [`REGISTRATION_WINDOW`] (10.3: nobody can
/// fill the card with accounts).
pub const REGISTRATIONS: usize = 5;
/// The window over which registrations count.
pub const REGISTRATION_WINDOW: Duration = Duration::from_secs(60 * 60);

/// Keys idle for longer than their window are forgotten once the map holds this many.
const MAX_KEYS: usize = 10_000;

/// What an attempt is counted against.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ThrottleKey {
    /// Sign-in and registration attempts from one client address.
    Address(IpAddr),
    /// Sign-in attempts for one username (lower-cased) from browsers without its device
    /// cookie.
    Username(String),
    /// Sign-in attempts carrying one device cookie (its nonce).
    Device(String),
    /// Accounts created from one client address.
    Registration(IpAddr),
}

impl ThrottleKey {
    /// Attempts this key may have within [`ThrottleKey::window`] (registrations: the default,
    /// which the server's flag may change).
    pub fn limit(&self) -> usize {
        match self {
            ThrottleKey::Address(_) => ADDRESS_ATTEMPTS,
            ThrottleKey::Username(_) => USERNAME_ATTEMPTS,
            ThrottleKey::Device(_) => DEVICE_ATTEMPTS,
            ThrottleKey::Registration(_) => REGISTRATIONS,
        }
    }

    pub fn window(&self) -> Duration {
        match self {
            ThrottleKey::Registration(_) => REGISTRATION_WINDOW,
            _ => ATTEMPT_WINDOW,
        }
    }
}

/// Counted attempts per key, oldest first.
#[derive(Debug)]
pub struct Throttle {
    attempts: Mutex<HashMap<ThrottleKey, VecDeque<Instant>>>,
    /// Registrations per address per [`REGISTRATION_WINDOW`]; 0: no limit.
    registrations: usize,
}

impl Default for Throttle {
    fn default() -> Self {
        Throttle::new(REGISTRATIONS)
    }
}

/// Which key refused an attempt, and how long until it may try again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub key: ThrottleKey,
    pub retry_after: Duration,
}

impl Throttle {
    /// A throttle allowing `registrations` accounts per address per hour (0: no limit).
    pub fn new(registrations: usize) -> Throttle {
        Throttle {
            attempts: Mutex::default(),
            registrations,
        }
    }

    /// Attempts `key` may have within its window; `None`: no limit.
    fn limit(&self, key: &ThrottleKey) -> Option<usize> {
        match key {
            ThrottleKey::Registration(_) if self.registrations == 0 => None,
            ThrottleKey::Registration(_) => Some(self.registrations),
            other => Some(other.limit()),
        }
    }

    /// Admits an attempt against every key at once and counts it now, or refuses it (and
    /// counts nothing) when any key already holds its limit of attempts, in flight or failed.
    pub fn admit(&self, keys: &[ThrottleKey], now: Instant) -> Result<Admission<'_>, Refused> {
        let mut map = self.attempts.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() > MAX_KEYS {
            map.retain(|key, times| {
                times
                    .back()
                    .is_some_and(|t| now.duration_since(*t) < key.window())
            });
        }
        let keys: Vec<ThrottleKey> = keys
            .iter()
            .filter(|key| self.limit(key).is_some())
            .cloned()
            .collect();
        let refused = keys
            .iter()
            .filter_map(|key| {
                let limit = self.limit(key)?;
                let times = map.get_mut(key)?;
                while times
                    .front()
                    .is_some_and(|t| now.duration_since(*t) >= key.window())
                {
                    times.pop_front();
                }
                let oldest = *times.front()?;
                (times.len() >= limit).then(|| Refused {
                    key: key.clone(),
                    retry_after: key.window().saturating_sub(now.duration_since(oldest)),
                })
            })
            .max_by_key(|r| r.retry_after);
        if let Some(refused) = refused {
            return Err(refused);
        }
        for key in &keys {
            map.entry(key.clone()).or_default().push_back(now);
        }
        Ok(Admission {
            throttle: self,
            keys,
            at: now,
        })
    }

    /// Forgets every attempt against `key` (a username after its owner signed in).
    pub fn clear(&self, key: &ThrottleKey) {
        self.attempts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(key);
    }
}

/// One admitted attempt. Dropping it leaves it counted (a failure, or a request abandoned
/// half-way); [`Admission::release`] uncounts it.
#[derive(Debug)]
#[must_use = "an admission is counted until released"]
pub struct Admission<'t> {
    throttle: &'t Throttle,
    keys: Vec<ThrottleKey>,
    at: Instant,
}

impl Admission<'_> {
    /// The attempt was not a failure: it no longer counts against any of its keys.
    pub fn release(self) {
        let mut map = self
            .throttle
            .attempts
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for key in &self.keys {
            if let Some(times) = map.get_mut(key) {
                if let Some(i) = times.iter().position(|t| *t == self.at) {
                    times.remove(i);
                }
                if times.is_empty() {
                    map.remove(key);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address(last: u8) -> ThrottleKey {
        ThrottleKey::Address([127, 0, 0, last].into())
    }

    #[test]
    fn in_flight_attempts_count_toward_the_limit() {
        let throttle = Throttle::default();
        let keys = [address(1)];
        let start = Instant::now();
        // Five admitted and still in flight: the sixth is refused before any is resolved.
        let held: Vec<_> = (0..ADDRESS_ATTEMPTS)
            .map(|i| {
                throttle
                    .admit(&keys, start)
                    .unwrap_or_else(|_| panic!("attempt {i}"))
            })
            .collect();
        let refused = throttle.admit(&keys, start).expect_err("over the limit");
        assert_eq!(refused.key, keys[0]);
        assert!(refused.retry_after > Duration::from_secs(290));
        // Releasing one (it succeeded) frees one place.
        let mut held = held.into_iter();
        held.next().expect("one").release();
        assert!(throttle.admit(&keys, start).is_ok());
        assert!(throttle.admit(&keys, start).is_err());
        assert!(throttle.admit(&keys, start + ATTEMPT_WINDOW).is_ok());
    }

    #[test]
    fn a_username_takes_twenty_failures_from_all_addresses_before_it_locks() {
        let throttle = Throttle::default();
        let name = ThrottleKey::Username("sara".into());
        let start = Instant::now();
        for i in 0..USERNAME_ATTEMPTS {
            let keys = [address(u8::try_from(i).expect("small")), name.clone()];
            drop(throttle.admit(&keys, start).expect("admitted"));
        }
        let refused = throttle
            .admit(&[address(200), name.clone()], start)
            .expect_err("locked");
        assert_eq!(refused.key, name);
        // A refused attempt counts against none of its keys.
        assert!(throttle.admit(&[address(200)], start).is_ok());
        throttle.clear(&name);
        assert!(throttle.admit(&[address(201), name], start).is_ok());
    }

    #[test]
    fn registrations_count_per_hour() {
        let throttle = Throttle::default();
        let keys = [ThrottleKey::Registration([127, 0, 0, 1].into())];
        let start = Instant::now();
        for _ in 0..REGISTRATIONS {
            drop(throttle.admit(&keys, start).expect("admitted"));
        }
        assert!(throttle.admit(&keys, start + ATTEMPT_WINDOW).is_err());
        assert!(throttle.admit(&keys, start + REGISTRATION_WINDOW).is_ok());
        let unlimited = Throttle::new(0);
        for _ in 0..3 * REGISTRATIONS {
            drop(unlimited.admit(&keys, start).expect("no limit"));
        }
    }
}
