//! For tests that need root (a tmpfs that fills up like a card, a network namespace): on CI
//! (`CI=true`, which runs as root) such a test must do its work or fail; elsewhere it may skip
//! with a printed reason. A test that did its work says so with [`ran`], and `scripts/test`
//! checks on CI that every one of them did.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether this process runs as root.
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find_map(|l| l.strip_prefix("Uid:"))
            .and_then(|l| l.split_whitespace().nth(1))
            == Some("0")
    })
}

/// Whether this is a CI run, where nothing may be skipped.
pub fn on_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// A test cannot do its work because of `reason`: it fails on CI and is skipped (with the
/// reason printed) elsewhere. The caller returns right after.
pub fn cannot_run(test: &str, reason: &str) {
    assert!(
        !on_ci(),
        "{test} cannot do its work on CI, where it must: {reason}"
    );
    eprintln!("skipped {test}: {reason}");
}

/// Root, or [`cannot_run`] with `why` (what root is needed for); `false` when the test must
/// return.
pub fn root_or_skip(test: &str, why: &str) -> bool {
    if is_root() {
        return true;
    }
    cannot_run(test, &format!("{why} needs root"));
    false
}

/// The test `name` did its work: a file of that name in `XO_TEST_RAN_DIR`, when set (as
/// `scripts/test` sets it, to check afterwards that none was skipped).
pub fn ran(name: &str) {
    if let Some(dir) = std::env::var_os("XO_TEST_RAN_DIR") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir)
            .and_then(|()| std::fs::write(dir.join(name), b"ran\n"))
            .unwrap_or_else(|e| panic!("cannot note in {} that {name} ran: {e}", dir.display()));
    }
}

/// A small tmpfs mounted for a test (a card that can fill up), unmounted when dropped.
#[derive(Debug)]
pub struct TmpfsMount {
    pub path: PathBuf,
}

impl TmpfsMount {
    /// Mounts a tmpfs of `size` (as `mount -o size=` takes it) at `path`; needs root.
    pub fn new(path: &Path, size: &str) -> Result<TmpfsMount, String> {
        std::fs::create_dir_all(path).map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(path)
            .output()
            .map_err(|e| format!("cannot run mount: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "mount -t tmpfs failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(TmpfsMount {
            path: path.to_owned(),
        })
    }

    /// A tmpfs as [`TmpfsMount::new`] mounts it, or [`cannot_run`] (`None`: the test returns).
    pub fn for_test(test: &str, path: &Path, size: &str) -> Option<TmpfsMount> {
        if !root_or_skip(test, "mounting a tmpfs") {
            return None;
        }
        match TmpfsMount::new(path, size) {
            Ok(mount) => Some(mount),
            Err(reason) => {
                cannot_run(test, &reason);
                None
            }
        }
    }
}

impl Drop for TmpfsMount {
    fn drop(&mut self) {
        // Lazy: the server may still be exiting when a failing test unwinds.
        match Command::new("umount").arg("-l").arg(&self.path).status() {
            Ok(s) if s.success() => {}
            other => eprintln!("umount {} failed: {other:?}", self.path.display()),
        }
    }
}
