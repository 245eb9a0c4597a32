//! Accounts (A1, A2): argon2id hashing, session tokens, cookies, the
//! device cookie, and the identity of a connection. The credential rules themselves are
//! [`protocol::rules`], shared with the UI.
//!
//! Passwords are hashed with argon2id, m = 19 MiB, t = 2, p = 1 (the OWASP minimum; about a
//! quarter of a second on a Raspberry Pi 4), on `spawn_blocking`, at most two at a time so a
//! burst of sign-ins cannot exhaust a Pi Zero's memory. Session tokens are 32 random bytes sent
//! as 64 hex digits in the `xo_session` cookie; the store keeps only their SHA-256.

use std::time::Duration;

use argon2::password_hash::{PasswordHasher, PasswordVerifier, phc::PasswordHash};
use argon2::{Algorithm, Argon2, Params, Version};
use hyper::HeaderMap;
use hyper::header::COOKIE;
use protocol::records::UserId;
use rand::RngExt;
use rooms::{Identity, StoreError};
use sha2::{Digest, Sha256};

use crate::clock::now_ms;
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

fn hasher() -> Argon2<'static> {
    let params = Params::new(ARGON2_M_KIB, ARGON2_T, ARGON2_P, None)
        .expect("argon2 parameters are valid constants");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// An argon2id PHC string for `password`, with a random salt. Slow by design: call on
/// `spawn_blocking`.
pub fn hash_password_blocking(password: &str) -> Result<String, argon2::password_hash::Error> {
    hasher()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
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
    let hash = cookie(headers, SESSION_COOKIE).and_then(token_hash);
    let account = match &hash {
        Some(hash) => store.session_account_blocking(hash, now_ms())?,
        None => None,
    };
    // Only a live session names one: logout and password changes end sockets by this id.
    let session = hash
        .filter(|_| account.is_some())
        .map(|hash| session_id(&hash));
    let guest_id = cookie(headers, GUEST_COOKIE)
        .filter(|id| valid_guest_id(id))
        .map_or_else(new_guest_id, str::to_owned);
    let device = cookie(headers, DEVICE_COOKIE)
        .and_then(device_nonce)
        .map(str::to_owned);
    Ok(Identity {
        account,
        guest_id,
        session,
        device,
        address: None,
    })
}

/// The opaque id of a sign-in session that rooms know it by ([`Identity::session`]): hex of
/// the first 16 bytes of its token's hash (the token itself never leaves the HTTP layer).
pub fn session_id(token_hash: &[u8; 32]) -> String {
    hex(&token_hash[..16])
}

/// The device cookie (OWASP's device-cookie lock-out pattern): a browser that has
/// signed in to an account carries it, and is then exempt from that username's lock-out.
pub const DEVICE_COOKIE: &str = "xo_device";
/// Device cookies last as long as browsers allow.
pub const DEVICE_LIFETIME: Duration = GUEST_LIFETIME;

/// The proof half of a device cookie: a keyed hash of the account id and the cookie's nonce.
/// The key is the account's password hash, which never leaves the server; so a device cookie
/// cannot be forged, and a password change retires every device cookie of the account.
fn device_mac(phc: &str, user: UserId, nonce: &str) -> String {
    let inner = Sha256::new()
        .chain_update(phc.as_bytes())
        .chain_update([0])
        .chain_update(user.to_le_bytes())
        .chain_update(nonce.as_bytes())
        .finalize();
    // Hashing the key again around the inner hash rules out length extension.
    let outer = Sha256::new()
        .chain_update(phc.as_bytes())
        .chain_update([1])
        .chain_update(inner)
        .finalize();
    hex(&outer[..16])
}

/// A new device cookie value for `user`, whose password hash is `phc`: `NONCE.MAC`.
pub fn new_device_token(phc: &str, user: UserId) -> String {
    let nonce = new_guest_id();
    let mac = device_mac(phc, user, &nonce);
    format!("{nonce}.{mac}")
}

/// The nonce of a well-formed device cookie value (it names the browser; not yet proof).
pub fn device_nonce(token: &str) -> Option<&str> {
    let (nonce, mac) = token.split_once('.')?;
    (valid_guest_id(nonce) && mac.len() == 32 && mac.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some(nonce)
}

/// Whether `token` is a device cookie this server issued for `user` under its current
/// password hash `phc`.
pub fn device_trusted(token: &str, phc: &str, user: UserId) -> bool {
    device_nonce(token).is_some_and(|nonce| {
        let expected = device_mac(phc, user, nonce);
        token
            .split_once('.')
            .is_some_and(|(_, mac)| mac.eq_ignore_ascii_case(&expected))
    })
}

/// `Set-Cookie` for a device token.
pub fn device_cookie(token: &str) -> String {
    format!(
        "{DEVICE_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; Max-Age={}",
        DEVICE_LIFETIME.as_secs()
    )
}

/// What the log shows for a typed username: 8 hex digits of its hash, so repeated attempts
/// on one name can be told apart without writing the text (sometimes a password typed into
/// the wrong field) to the card.
pub fn username_hash(name: &str) -> String {
    hex(&Sha256::digest(name.to_lowercase().as_bytes())[..4])
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn device_tokens_are_trusted_only_for_their_account_and_password() {
        let token = new_device_token("$argon2id$phc-one", 7);
        assert!(device_nonce(&token).is_some());
        assert!(device_trusted(&token, "$argon2id$phc-one", 7));
        assert!(!device_trusted(&token, "$argon2id$phc-one", 8));
        assert!(!device_trusted(&token, "$argon2id$phc-two", 7));
        let nonce = device_nonce(&token).expect("nonce");
        let forged = format!("{nonce}.{}", "0".repeat(32));
        assert!(!device_trusted(&forged, "$argon2id$phc-one", 7));
        assert_eq!(device_nonce("garbage"), None);
    }

    #[test]
    fn username_hash_is_short_and_ignores_case() {
        assert_eq!(username_hash("Sara"), username_hash("sara"));
        assert_eq!(username_hash("sara").len(), 8);
        assert_ne!(username_hash("sara"), username_hash("omar"));
    }

    #[test]
    fn password_hash_verifies_only_the_right_password() {
        let hash = hash_password_blocking("correct horse").expect("hash");
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password_blocking("correct horse", &hash));
        assert!(!verify_password_blocking("wrong horse!", &hash));
    }
}
