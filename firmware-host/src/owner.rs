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
//! A kiosk without a screen (AP2): holding the card is physical presence too. With
//! `--owner-code-out FILE`, a server that starts while the kiosk has no owner mints a *boot
//! code* and writes it, with how to use it, to FILE (on the image, a file on the boot
//! partition that any computer reads); the status display shows it too. It lasts until it is
//! used, until an owner exists by any code (then FILE is removed), or until the next start,
//! which writes a fresh one. Like every code it is spent by [`WRONG_GUESSES`] wrong guesses:
//! a restart brings a new one.
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

/// A boot code lives until it is used, spent or replaced by the next start's.
const BOOT_CODE_EXPIRES_MS: u64 = u64::MAX;

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
    /// This start's boot code in clear, for the status display, while it is live.
    boot: Mutex<Option<String>>,
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
            boot: Mutex::new(None),
        }
    }

    /// A new boot code (AP2), replacing an earlier one: live until used, spent or replaced.
    pub fn boot_code(&self) -> String {
        let code = new_code();
        let mut boot = lock(&self.boot);
        let mut pending = self.lock();
        if let Some(old) = boot.take() {
            let old = hash(&old);
            pending.retain(|p| p.hash != old);
        }
        pending.push(Pending {
            hash: hash(&code),
            expires_ms: BOOT_CODE_EXPIRES_MS,
            wrong: 0,
            from_kiosk: false,
        });
        *boot = Some(code.clone());
        code
    }

    /// The boot code while it is still live, for the status display.
    pub fn live_boot_code(&self) -> Option<String> {
        let boot = lock(&self.boot);
        let code = boot.as_ref()?;
        let wanted = hash(code);
        self.lock()
            .iter()
            .any(|p| p.hash == wanted)
            .then(|| code.clone())
    }

    /// An owner exists: the boot code is no longer needed.
    pub fn forget_boot_code(&self) {
        if let Some(code) = lock(&self.boot).take() {
            let spent = hash(&code);
            self.lock().retain(|p| p.hash != spent);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Pending>> {
        lock(&self.pending)
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

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What the boot code's file says.
fn boot_code_text(code: &str) -> String {
    format!(
        "XO Kiosk owner code: {} {}\n\n\
         This kiosk has no owner yet. On a phone, open the kiosk's address (the QR code on its\n\
         screen or status display), register or sign in, open Owner and enter this code. It\n\
         works once. A new code is written here at every start until the kiosk has an owner;\n\
         then this file is removed.\n",
        &code[..4],
        &code[4..]
    )
}

/// Writes a new boot code to `path` when the kiosk has no owner, else removes `path` (AP2).
/// Written to a temporary file and renamed, so the file is never half a code.
pub fn publish_boot_code(codes: &OwnerCodes, path: &Path, has_owner: bool) -> std::io::Result<()> {
    if has_owner {
        codes.forget_boot_code();
        return remove_boot_code_file(path);
    }
    let code = codes.boot_code();
    let tmp = path.with_extension("tmp");
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(boot_code_text(&code).as_bytes())?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)
}

/// Removes the boot code's file (gone already is fine).
pub fn remove_boot_code_file(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
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
    fn a_boot_code_outlives_the_kiosk_codes_and_is_replaced_at_the_next_start() {
        let dir = tempfile::tempdir().expect("temp dir");
        let codes = OwnerCodes::new(dir.path());
        let first = codes.boot_code();
        assert_eq!(codes.live_boot_code().as_deref(), Some(first.as_str()));
        // The next start's code replaces it.
        let second = codes.boot_code();
        assert!(codes.redeem(&first, 10).is_err());
        // Days later it still works, once.
        let days = 30 * 24 * 3600 * 1000;
        assert!(codes.redeem(&second, days).is_ok());
        assert_eq!(codes.live_boot_code(), None, "spent on use");
        assert!(codes.redeem(&second, days).is_err());
    }

    #[test]
    fn a_boot_code_is_forgotten_once_an_owner_exists_and_its_file_removed() {
        let dir = tempfile::tempdir().expect("temp dir");
        let file = dir.path().join("owner-code.txt");
        let codes = OwnerCodes::new(dir.path());
        publish_boot_code(&codes, &file, false).expect("written");
        let text = std::fs::read_to_string(&file).expect("read");
        let code = codes.live_boot_code().expect("live");
        assert!(
            text.starts_with(&format!(
                "XO Kiosk owner code: {} {}\n",
                &code[..4],
                &code[4..]
            )),
            "{text}"
        );
        assert!(!dir.path().join("owner-code.tmp").exists());
        publish_boot_code(&codes, &file, true).expect("removed");
        assert!(!file.exists());
        assert_eq!(codes.live_boot_code(), None);
        assert!(codes.redeem(&code, 10).is_err());
        // Removing a file that is not there is fine.
        publish_boot_code(&codes, &file, true).expect("nothing to remove");
    }

    #[test]
    fn only_loopback_is_the_kiosk() {
        assert!(is_kiosk("127.0.0.1".parse().expect("ip")));
        assert!(is_kiosk("::ffff:127.0.0.1".parse().expect("ip")));
        assert!(!is_kiosk("192.168.1.20".parse().expect("ip")));
        assert!(!is_kiosk("::ffff:10.0.0.2".parse().expect("ip")));
    }
}
