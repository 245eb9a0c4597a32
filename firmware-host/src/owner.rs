//! Owner codes (SPEC O1): the one-time codes that make a signed-in account an owner of the
//! kiosk. There is no default password: a code comes only from the kiosk's own screen (a
//! request from the machine itself, [`is_kiosk`]) or from `firmware-host owner-code` run on
//! it, so holding one proves physical presence.
//!
//! A code is [`CODE_DIGITS`] digits, valid for [`CODE_LIFE`], used once. Every wrong guess
//! counts against every live code and a code is spent after [`WRONG_GUESSES`] of them, so a
//! burst of guesses (held, then released together) can check at most that many: the odds of
//! guessing one are 5 in 10⁸. Codes are kept as SHA-256 hashes.
//!
//! The CLI and a running server agree through a file, not the database (redb lets one
//! process open the file): `owner-code` writes [`CODE_FILE`] in the data directory (the hash
//! and the expiry, written to a temporary file and renamed), and the server takes it in at
//! the next claim and deletes it. It works the same whether the server runs or not; a code
//! printed while it is stopped is good for the rest of its five minutes once it starts.

use std::io::Write as _;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use rand::RngExt as _;
use sha2::{Digest, Sha256};

/// How long a password reset code is valid: the owner reads it out to the player, who sets
/// a new password on the sign-in page.
pub const RESET_LIFE: Duration = Duration::from_secs(30 * 60);
/// How long a code is valid.
pub const CODE_LIFE: Duration = Duration::from_secs(5 * 60);
/// Digits of a code: typed on a phone's number pad.
pub const CODE_DIGITS: usize = 8;
/// Wrong guesses after which every live code is spent.
pub const WRONG_GUESSES: u32 = 5;
/// The code file `firmware-host owner-code` writes in the data directory.
pub const CODE_FILE: &str = "owner-code";
/// Live codes kept at most (the kiosk's newest one and CLI codes).
const MAX_PENDING: usize = 8;

/// Whether a request comes from the kiosk itself: its browser opens `http://127.0.0.1/kiosk`,
/// so only the machine the server runs on reaches it over loopback.
pub fn is_kiosk(peer: IpAddr) -> bool {
    peer.to_canonical().is_loopback()
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Pending {
    hash: [u8; 32],
    expires_ms: u64,
    wrong: u32,
    from_kiosk: bool,
}

/// A code taken by a claim: spent unless [`OwnerCodes::give_back`] returns it (the claim
/// could not be stored).
#[derive(Debug)]
pub struct Redeemed(Pending);

/// Why a code was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeRefused {
    /// Not eight digits: not counted as a guess.
    Malformed,
    /// No live code has it: counted.
    Wrong,
}

/// The server's live codes.
#[derive(Debug)]
pub struct OwnerCodes {
    data_dir: PathBuf,
    pending: Mutex<Vec<Pending>>,
}

fn hash(code: &str) -> [u8; 32] {
    Sha256::digest(code.as_bytes()).into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<[u8; 32]> {
    let bytes: Vec<u8> = (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect::<Option<_>>()?;
    bytes.try_into().ok()
}

/// A new random code.
fn new_code() -> String {
    let mut rng = rand::rng();
    (0..CODE_DIGITS)
        .map(|_| char::from(b'0' + rng.random_range(0..10u8)))
        .collect()
}

/// The code as typed, without spaces and dashes; `None` unless it is [`CODE_DIGITS`] digits.
pub fn normalize(typed: &str) -> Option<String> {
    let digits: String = typed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .collect();
    (digits.len() == CODE_DIGITS && digits.bytes().all(|b| b.is_ascii_digit())).then_some(digits)
}

fn life_ms() -> u64 {
    u64::try_from(CODE_LIFE.as_millis()).unwrap_or(u64::MAX)
}

/// Writes a new code to [`CODE_FILE`] in `data_dir` (replacing an earlier one) and returns
/// it: `firmware-host owner-code`.
pub fn write_code_file(data_dir: &Path, now_ms: u64) -> std::io::Result<String> {
    std::fs::create_dir_all(data_dir)?;
    let code = new_code();
    let line = format!("{} {}\n", hex(&hash(&code)), now_ms + life_ms());
    let tmp = data_dir.join(format!("{CODE_FILE}.tmp"));
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&tmp)?;
    file.write_all(line.as_bytes())?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, data_dir.join(CODE_FILE))?;
    Ok(code)
}

impl OwnerCodes {
    pub fn new(data_dir: &Path) -> OwnerCodes {
        OwnerCodes {
            data_dir: data_dir.to_owned(),
            pending: Mutex::new(Vec::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Pending>> {
        self.pending
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A new code for the kiosk's screen; it replaces the kiosk's earlier one.
    pub fn kiosk_code(&self, now_ms: u64) -> String {
        let code = new_code();
        let mut pending = self.lock();
        pending.retain(|p| !p.from_kiosk && p.expires_ms > now_ms);
        pending.push(Pending {
            hash: hash(&code),
            expires_ms: now_ms + life_ms(),
            wrong: 0,
            from_kiosk: true,
        });
        code
    }

    /// Takes in the CLI's code file, if any, and deletes it (so it is taken in once).
    fn take_code_file(&self, pending: &mut Vec<Pending>) {
        let path = self.data_dir.join(CODE_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(e) => {
                tracing::warn!(error = %e, path = %path.display(), "cannot read the owner code file");
                return;
            }
        };
        if let Err(e) = std::fs::remove_file(&path) {
            // Left in place it would be taken in again, with its guesses forgotten: refuse it.
            tracing::error!(error = %e, path = %path.display(), "cannot remove the owner code file; ignoring it");
            return;
        }
        let mut parts = text.split_whitespace();
        let parsed = parts
            .next()
            .and_then(unhex)
            .zip(parts.next().and_then(|t| t.parse::<u64>().ok()));
        match parsed {
            Some((hash, expires_ms)) => pending.push(Pending {
                hash,
                expires_ms,
                wrong: 0,
                from_kiosk: false,
            }),
            None => {
                tracing::warn!(path = %path.display(), "the owner code file is malformed; removed")
            }
        }
    }

    /// Checks a typed code under one lock, so concurrent guesses are counted one by one. A
    /// right one is taken (single use); a wrong one counts against every live code.
    pub fn redeem(&self, typed: &str, now_ms: u64) -> Result<Redeemed, CodeRefused> {
        let code = normalize(typed).ok_or(CodeRefused::Malformed)?;
        let mut pending = self.lock();
        self.take_code_file(&mut pending);
        pending.retain(|p| p.expires_ms > now_ms);
        let wanted = hash(&code);
        if let Some(i) = pending.iter().position(|p| p.hash == wanted) {
            return Ok(Redeemed(pending.swap_remove(i)));
        }
        for p in pending.iter_mut() {
            p.wrong += 1;
        }
        let before = pending.len();
        pending.retain(|p| p.wrong < WRONG_GUESSES);
        if pending.len() < before {
            tracing::warn!(
                spent = before - pending.len(),
                "owner codes spent by {WRONG_GUESSES} wrong guesses"
            );
        }
        Err(CodeRefused::Wrong)
    }

    /// Returns a redeemed code whose claim could not be stored, for another try.
    pub fn give_back(&self, redeemed: Redeemed) {
        let mut pending = self.lock();
        if pending.len() < MAX_PENDING {
            pending.push(redeemed.0);
        }
    }
}

/// A new password reset code for an owner to read out, and the hash the store keeps of it
/// (`store::reset_codes`: one per account, expiring after [`RESET_LIFE`], spent after
/// [`WRONG_GUESSES`] wrong guesses, kept across restarts).
pub fn new_reset_code() -> (String, [u8; 32]) {
    let code = new_code();
    let hashed = hash(&code);
    (code, hashed)
}

/// The hash of a typed reset code, as the store compares it; `None` unless it is
/// [`CODE_DIGITS`] digits (spaces and dashes ignored), which is not counted as a guess.
pub fn typed_reset_code(typed: &str) -> Option<[u8; 32]> {
    normalize(typed).map(|code| hash(&code))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_typed_with_spaces_or_dashes() {
        assert_eq!(normalize("1234 5678").as_deref(), Some("12345678"));
        assert_eq!(normalize("1234-5678").as_deref(), Some("12345678"));
        assert_eq!(normalize("1234567"), None);
        assert_eq!(normalize("1234567a"), None);
        assert_eq!(normalize("١٢٣٤٥٦٧٨"), None);
    }

    #[test]
    fn a_code_is_spent_after_five_wrong_guesses() {
        let dir = tempfile::tempdir().expect("temp dir");
        let codes = OwnerCodes::new(dir.path());
        let code = codes.kiosk_code(1_000);
        let wrong = if code == "00000000" {
            "11111111"
        } else {
            "00000000"
        };
        for _ in 0..WRONG_GUESSES {
            assert_eq!(codes.redeem(wrong, 2_000).err(), Some(CodeRefused::Wrong));
        }
        assert_eq!(codes.redeem(&code, 2_000).err(), Some(CodeRefused::Wrong));
    }

    #[test]
    fn a_code_expires_and_is_used_once() {
        let dir = tempfile::tempdir().expect("temp dir");
        let codes = OwnerCodes::new(dir.path());
        let code = codes.kiosk_code(0);
        assert!(codes.redeem(&code, life_ms() + 1).is_err());
        let code = codes.kiosk_code(0);
        assert!(codes.redeem(&code, 10).is_ok());
        assert!(codes.redeem(&code, 10).is_err());
    }

    #[test]
    fn the_cli_code_file_is_taken_in_once() {
        let dir = tempfile::tempdir().expect("temp dir");
        let code = write_code_file(dir.path(), 0).expect("written");
        let codes = OwnerCodes::new(dir.path());
        assert!(codes.redeem(&code, 10).is_ok());
        assert!(!dir.path().join(CODE_FILE).exists());
        assert!(codes.redeem(&code, 10).is_err());
    }

    #[test]
    fn only_loopback_is_the_kiosk() {
        assert!(is_kiosk("127.0.0.1".parse().expect("ip")));
        assert!(is_kiosk("::ffff:127.0.0.1".parse().expect("ip")));
        assert!(!is_kiosk("192.168.1.20".parse().expect("ip")));
        assert!(!is_kiosk("::ffff:10.0.0.2".parse().expect("ip")));
    }
}
