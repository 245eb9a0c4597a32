//! Accounts (A1, A2): credential rules, argon2id hashing, session tokens, cookies, the
//! sign-in throttle, and the identity of a connection.
//!
//! Passwords are hashed with argon2id, m = 19 MiB, t = 2, p = 1 (the OWASP minimum; about a
//! quarter of a second on a Raspberry Pi 4), on `spawn_blocking`, at most two at a time so a
//! burst of sign-ins cannot exhaust a Pi Zero's memory. Session tokens are 32 random bytes sent
//! as 64 hex digits in the `xo_session` cookie; the store keeps only their SHA-256.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use argon2::password_hash::{PasswordHasher, PasswordVerifier, phc::PasswordHash};
use argon2::{Algorithm, Argon2, Params, Version};
use hyper::HeaderMap;
use hyper::header::COOKIE;
use rand::RngExt;
use rooms::{Identity, StoreError};
use sha2::{Digest, Sha256};

use crate::store::Store;

/// The session cookie (A2).
pub const SESSION_COOKIE: &str = "xo_session";
/// The anonymous guest cookie.
pub const GUEST_COOKIE: &str = "xo_guest";
/// A2: sessions last 30 days from sign-in.
pub const SESSION_LIFETIME: Duration = Duration::from_secs(30 * 24 * 60 * 60);
/// Guests keep their identity for 400 days, the longest lifetime browsers accept.
pub const GUEST_LIFETIME: Duration = Duration::from_secs(400 * 24 * 60 * 60);

/// argon2id memory cost in KiB.
pub const ARGON2_M_KIB: u32 = 19 * 1024;
/// argon2id passes.
pub const ARGON2_T: u32 = 2;
/// argon2id lanes.
pub const ARGON2_P: u32 = 1;

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// Why a username or password is not acceptable (A1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CredentialError {
    UsernameLength,
    UsernameCharacters,
    PasswordLength,
}

impl CredentialError {
    /// The stable error code sent to clients.
    pub fn code(self) -> &'static str {
        match self {
            CredentialError::UsernameLength | CredentialError::UsernameCharacters => {
                "invalid_username"
            }
            CredentialError::PasswordLength => "invalid_password",
        }
    }
}

impl std::fmt::Display for CredentialError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CredentialError::UsernameLength => "a username has 3 to 20 characters",
            CredentialError::UsernameCharacters => {
                "a username may use only letters, digits, `_` and `-`"
            }
            CredentialError::PasswordLength => "a password has 8 to 128 characters",
        })
    }
}

impl std::error::Error for CredentialError {}

/// A1: 3–20 of ASCII letters, digits, `_`, `-`.
pub fn validate_username(name: &str) -> Result<(), CredentialError> {
    let count = name.chars().count();
    if !(3..=20).contains(&count) {
        return Err(CredentialError::UsernameLength);
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(CredentialError::UsernameCharacters);
    }
    Ok(())
}

/// A1: 8–128 characters (Unicode scalar values).
pub fn validate_password(password: &str) -> Result<(), CredentialError> {
    if (8..=128).contains(&password.chars().count()) {
        Ok(())
    } else {
        Err(CredentialError::PasswordLength)
    }
}

fn hasher() -> Argon2<'static> {
    let params = Params::new(ARGON2_M_KIB, ARGON2_T, ARGON2_P, None)
        .expect("argon2 parameters are valid constants");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// An argon2id PHC string for `password`, with a random salt. Slow by design: call on
/// `spawn_blocking`.
pub fn hash_password_blocking(password: &str) -> Result<String, StoreError> {
    hasher()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| StoreError::Internal(format!("hashing a password: {e}")))
}

/// Whether `password` matches the PHC string. Slow by design: call on `spawn_blocking`.
pub fn verify_password_blocking(password: &str, phc: &str) -> bool {
    match PasswordHash::new(phc) {
        Ok(hash) => hasher().verify_password(password.as_bytes(), &hash).is_ok(),
        Err(e) => {
            tracing::error!(error = %e, "a stored password hash does not parse");
            false
        }
    }
}

/// A hash to verify against when the username is unknown, so that a wrong name costs the
/// same time as a wrong password and response times do not reveal which names exist.
pub fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| {
        hash_password_blocking("not a password of anyone")
            .expect("hashing a constant password succeeds")
    })
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            // Writing to a String cannot fail.
            let _ignored = write!(s, "{b:02x}");
            s
        })
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() % 2 != 0 || !s.is_ascii() {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// A new session token, as sent in the cookie, and the hash the store keeps.
pub fn new_session_token() -> (String, [u8; 32]) {
    let token: [u8; 32] = rand::rng().random();
    (hex(&token), Sha256::digest(token).into())
}

/// The store key of a cookie's token; `None` when it is not 64 hex digits.
pub fn token_hash(cookie_value: &str) -> Option<[u8; 32]> {
    let bytes = unhex(cookie_value)?;
    let token: [u8; 32] = bytes.try_into().ok()?;
    Some(Sha256::digest(token).into())
}

/// A new anonymous guest id: 16 random bytes as 32 hex digits.
pub fn new_guest_id() -> String {
    let id: [u8; 16] = rand::rng().random();
    hex(&id)
}

/// Whether a guest cookie value is one we could have issued.
pub fn valid_guest_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The value of cookie `name` in the request's `Cookie` headers.
pub fn cookie<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.trim())
}

/// `Set-Cookie` for a new session.
pub fn session_cookie(token: &str) -> String {
    format!(
        "{SESSION_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}",
        SESSION_LIFETIME.as_secs()
    )
}

/// `Set-Cookie` that removes the session cookie.
pub fn clear_session_cookie() -> String {
    format!("{SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0")
}

/// `Set-Cookie` for a guest id.
pub fn guest_cookie(id: &str) -> String {
    format!(
        "{GUEST_COOKIE}={id}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}",
        GUEST_LIFETIME.as_secs()
    )
}

/// Who sends these headers: the signed-in player of a live `xo_session` cookie, and the guest
/// id of the `xo_guest` cookie (a fresh random one when it is missing or malformed: the caller
/// should then send it back with [`guest_cookie`]). Reads the store: call on `spawn_blocking`.
pub fn identity_from_headers_blocking(
    store: &Store,
    headers: &HeaderMap,
) -> Result<Identity, StoreError> {
    let account = match cookie(headers, SESSION_COOKIE).and_then(token_hash) {
        Some(hash) => store.session_account_blocking(&hash, now_ms())?,
        None => None,
    };
    let guest_id = cookie(headers, GUEST_COOKIE)
        .filter(|id| valid_guest_id(id))
        .map_or_else(new_guest_id, str::to_owned);
    // The http helper fills `session` and `device` (issue 11.2, 11.5).
    Ok(Identity {
        account,
        guest_id,
        session: None,
        device: None,
    })
}

/// Failed attempts allowed per client address within [`THROTTLE_WINDOW`].
pub const THROTTLE_FAILURES: usize = 5;
/// Failed attempts allowed per username, from all addresses together, within
/// [`THROTTLE_WINDOW`]: enough that one prankster on the network (held to
/// [`THROTTLE_FAILURES`] by their address) cannot lock the owner out, few enough that guessing
/// from many addresses stays slow.
pub const THROTTLE_FAILURES_PER_NAME: usize = 20;
/// The window over which failures count.
pub const THROTTLE_WINDOW: Duration = Duration::from_secs(5 * 60);

/// What a throttle key names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ThrottleKey {
    Address(IpAddr),
    /// Lower-cased.
    Username(String),
}

impl ThrottleKey {
    /// The failures this key may have within [`THROTTLE_WINDOW`].
    pub fn limit(&self) -> usize {
        match self {
            ThrottleKey::Address(_) => THROTTLE_FAILURES,
            ThrottleKey::Username(_) => THROTTLE_FAILURES_PER_NAME,
        }
    }
}

/// Failed sign-in and registration attempts per client address and per username. After
/// [`ThrottleKey::limit`] failures within [`THROTTLE_WINDOW`] further attempts are refused
/// until the oldest failure leaves the window.
#[derive(Debug, Default)]
pub struct Throttle {
    failures: Mutex<HashMap<ThrottleKey, VecDeque<Instant>>>,
}

impl Throttle {
    /// When any key is locked out: how long until it may try again.
    pub fn check(&self, keys: &[ThrottleKey], now: Instant) -> Option<Duration> {
        let mut map = self.failures.lock().expect("throttle lock not poisoned");
        keys.iter()
            .filter_map(|key| {
                let times = map.get_mut(key)?;
                while times
                    .front()
                    .is_some_and(|t| now.duration_since(*t) >= THROTTLE_WINDOW)
                {
                    times.pop_front();
                }
                if times.len() >= key.limit() {
                    let oldest = *times.front()?;
                    Some(THROTTLE_WINDOW.saturating_sub(now.duration_since(oldest)))
                } else {
                    None
                }
            })
            .max()
    }

    /// Records one failure against every key.
    pub fn fail(&self, keys: &[ThrottleKey], now: Instant) {
        let mut map = self.failures.lock().expect("throttle lock not poisoned");
        // Bound the memory an attacker cycling names can take: forget the idle keys.
        if map.len() > 10_000 {
            map.retain(|_, times| {
                times
                    .back()
                    .is_some_and(|t| now.duration_since(*t) < THROTTLE_WINDOW)
            });
        }
        for key in keys {
            let times = map.entry(key.clone()).or_default();
            times.push_back(now);
            while times.len() > key.limit() {
                times.pop_front();
            }
        }
    }

    /// Forgets the failures of `key` (a username after a successful sign-in).
    pub fn clear(&self, key: &ThrottleKey) {
        self.failures
            .lock()
            .expect("throttle lock not poisoned")
            .remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_follow_a1() {
        assert!(validate_username("abc").is_ok());
        assert!(validate_username("A_b-9").is_ok());
        assert!(validate_username("a".repeat(20).as_str()).is_ok());
        assert_eq!(
            validate_username("ab"),
            Err(CredentialError::UsernameLength)
        );
        assert_eq!(
            validate_username(&"a".repeat(21)),
            Err(CredentialError::UsernameLength)
        );
        assert_eq!(
            validate_username("a b c"),
            Err(CredentialError::UsernameCharacters)
        );
        assert_eq!(
            validate_username("sára"),
            Err(CredentialError::UsernameCharacters)
        );
    }

    #[test]
    fn passwords_have_8_to_128_characters() {
        assert!(validate_password(&"x".repeat(8)).is_ok());
        assert!(validate_password(&"é".repeat(128)).is_ok());
        assert!(validate_password(&"x".repeat(7)).is_err());
        assert!(validate_password(&"x".repeat(129)).is_err());
    }

    #[test]
    fn token_hash_round_trips_and_rejects_garbage() {
        let (token, hash) = new_session_token();
        assert_eq!(token.len(), 64);
        assert_eq!(token_hash(&token), Some(hash));
        assert_eq!(token_hash("zz"), None);
        assert_eq!(token_hash(&"0".repeat(62)), None);
    }

    #[test]
    fn cookie_finds_its_value_among_others() {
        let mut headers = HeaderMap::new();
        headers.insert(
            COOKIE,
            "a=1; xo_session=abc; xo_guest=def"
                .parse()
                .expect("valid header"),
        );
        assert_eq!(cookie(&headers, SESSION_COOKIE), Some("abc"));
        assert_eq!(cookie(&headers, GUEST_COOKIE), Some("def"));
        assert_eq!(cookie(&headers, "b"), None);
    }

    #[test]
    fn throttle_locks_after_five_failures_then_releases_after_the_window() {
        let throttle = Throttle::default();
        let keys = [ThrottleKey::Address([127, 0, 0, 1].into())];
        let start = Instant::now();
        for i in 0..THROTTLE_FAILURES {
            assert_eq!(throttle.check(&keys, start), None, "attempt {i}");
            throttle.fail(&keys, start);
        }
        let wait = throttle.check(&keys, start).expect("locked out");
        assert!(wait <= THROTTLE_WINDOW && wait > Duration::from_secs(290));
        assert_eq!(throttle.check(&keys, start + THROTTLE_WINDOW), None);
        throttle.fail(&keys, start);
        throttle.clear(&keys[0]);
        assert_eq!(throttle.check(&keys, start), None);
    }

    #[test]
    fn a_username_takes_twenty_failures_from_all_addresses_before_it_locks() {
        let throttle = Throttle::default();
        let name = ThrottleKey::Username("sara".into());
        let start = Instant::now();
        for i in 0..THROTTLE_FAILURES_PER_NAME {
            let address = ThrottleKey::Address([127, 0, 0, i as u8].into());
            assert_eq!(
                throttle.check(&[address.clone(), name.clone()], start),
                None,
                "attempt {i}"
            );
            throttle.fail(&[address, name.clone()], start);
        }
        let fresh = ThrottleKey::Address([127, 0, 1, 1].into());
        assert!(throttle.check(&[fresh, name], start).is_some());
    }

    #[test]
    fn password_hash_verifies_only_the_right_password() {
        let hash = hash_password_blocking("correct horse").expect("hash");
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password_blocking("correct horse", &hash));
        assert!(!verify_password_blocking("wrong horse!", &hash));
    }
}
