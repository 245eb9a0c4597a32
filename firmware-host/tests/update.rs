//! Updates through real processes: `firmware-host install-update` and the image's launcher
//! (`cross/image/overlay/usr/local/sbin/xo-launch`), with real binaries and real data dirs.
//!
//! The tests marked `ignore` need a second build of this server with a newer version, which
//! `cross/update-check` makes (`XO_VERSION` at build time) and passes in `XO_UPDATE_NEXT`;
//! it runs them with `--include-ignored`. `scripts/test` runs `cross/update-check`.

mod support;

use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use firmware_host::update;
use support::owner::{make_owner, send, upload};
use support::{Process, register_at, request};
use xo_client::privileged::TmpfsMount;

const BIN: &str = env!("CARGO_BIN_EXE_firmware-host");

fn launcher() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../cross/image/overlay/usr/local/sbin/xo-launch")
}

/// The newer build `cross/update-check` made, and its version.
fn next() -> (PathBuf, String) {
    let path = PathBuf::from(std::env::var_os("XO_UPDATE_NEXT").expect(
        "XO_UPDATE_NEXT names a newer firmware-host build: run these tests with cross/update-check",
    ));
    let version = version_of(&path);
    assert_ne!(
        version,
        firmware_host::VERSION,
        "{} is not newer",
        path.display()
    );
    (path, version)
}

fn version_of(binary: &Path) -> String {
    let out = Command::new(binary)
        .arg("--version")
        .output()
        .expect("--version");
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim()
        .strip_prefix("firmware-host ")
        .unwrap_or_else(|| panic!("--version printed {text:?}"))
        .to_owned()
}

fn install_update(file: &Path, data_dir: &Path) -> Output {
    Command::new(BIN)
        .arg("install-update")
        .arg(file)
        .arg("--data-dir")
        .arg(data_dir)
        .output()
        .expect("run install-update")
}

/// Asserts that install-update refused with `code` and kept nothing: no binary, no leftover
/// check folder or temporary file.
fn assert_refused(out: &Output, code: &str, data_dir: &Path) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(&format!("refused ({code})")), "{stderr}");
    assert_eq!(kept_files(data_dir), Vec::<String>::new(), "{stderr}");
}

/// The names in DATA_DIR/updates other than the launcher's own notes.
fn kept_files(data_dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(data_dir.join("updates"))
        .into_iter()
        .flatten()
        .map(|e| {
            e.expect("dir entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|n| !matches!(n.as_str(), "bad" | "rollback.json" | "dropped.sha256"))
        .collect();
    names.sort();
    names
}

fn spare_port() -> u16 {
    TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|l| l.local_addr())
        .expect("spare port")
        .port()
}

#[test]
fn help_names_the_install_update_command() {
    let out = Command::new(BIN).arg("--help").output().expect("--help");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("firmware-host install-update FILE --data-dir DIR"),
        "{help}"
    );
    let out = Command::new(BIN)
        .args(["install-update", "--help"])
        .output()
        .expect("install-update --help");
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{help}");
    assert!(help.contains("--data-dir"), "{help}");
    assert!(help.contains("spare loopback port"), "{help}");
}

#[test]
fn update_refuses_a_file_that_is_not_elf() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("firmware-host");
    std::fs::write(&script, "#!/bin/sh\necho firmware-host 99.0.0\n").expect("write");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let data = dir.path().join("data");
    assert_refused(&install_update(&script, &data), "not_elf", &data);
    let empty = dir.path().join("empty");
    std::fs::write(&empty, "").expect("write");
    assert_refused(&install_update(&empty, &data), "not_elf", &data);
}

#[test]
fn update_refuses_another_architecture() {
    let dir = tempfile::tempdir().expect("temp dir");
    let other = dir.path().join("firmware-host");
    std::fs::copy(BIN, &other).expect("copy");
    // This very binary with another e_machine (aarch64 on x86-64, else x86-64): what a build
    // for the other Pi target looks like to the check.
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&other)
        .expect("open");
    let mut machine = [0u8; 2];
    file.seek(SeekFrom::Start(18)).expect("seek");
    file.read_exact(&mut machine).expect("read");
    let patched: u16 = if u16::from_le_bytes(machine) == 183 {
        62
    } else {
        183
    };
    file.seek(SeekFrom::Start(18)).expect("seek");
    file.write_all(&patched.to_le_bytes()).expect("write");
    drop(file);
    let data = dir.path().join("data");
    let out = install_update(&other, &data);
    assert_refused(&out, "wrong_arch", &data);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{} (64-bit)", std::env::consts::ARCH)),
        "{stderr}"
    );
}

#[test]
fn update_refuses_the_running_version() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let out = install_update(Path::new(BIN), &data);
    assert_refused(&out, "not_newer", &data);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "{0} is not newer than the running {0}",
            firmware_host::VERSION
        )),
        "{stderr}"
    );
}

#[tokio::test]
#[ignore = "needs XO_UPDATE_NEXT: run by cross/update-check"]
async fn update_installs_a_newer_version_checked_against_a_snapshot_of_live_data() {
    let (next, version) = next();
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let server = Process::start(&data, &[]);
    let cookie = register_at(server.addr, "Updater", "password1").await;
    make_owner(server.addr, &cookie).await;
    let before = std::fs::read(data.join("xo-kiosk.redb")).expect("read the redb file");

    // While a server has the data open (redb locks the file), the command line does not
    // copy the live file: it refuses and says where to go instead.
    let out = install_update(&next, &data);
    assert_refused(&out, "data_in_use", &data);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("owner's Update page"), "{stderr}");
    assert_eq!(
        std::fs::read(data.join("xo-kiosk.redb")).expect("read the redb file"),
        before,
        "the refused check touched the live data"
    );

    // The owner's upload: checked against a snapshot made through the server's own store.
    let binary = std::fs::read(&next).expect("next");
    let up = upload(server.addr, "/api/owner/update", &cookie, &binary).await;
    assert_eq!(up.status, 200, "{}", up.text());
    assert_eq!(up.json()["version"], version.as_str());
    let kept = data
        .join("updates")
        .join(format!("firmware-host-{version}"));
    assert_eq!(kept_files(&data), vec![format!("firmware-host-{version}")]);
    let mode = std::fs::metadata(&kept).expect("kept").permissions().mode();
    assert_eq!(mode & 0o777, 0o755);
    assert_eq!(std::fs::read(&kept).expect("kept"), binary);
    let me = request(server.addr, "GET", "/api/me", &[("Cookie", &cookie)], None).await;
    assert_eq!(me.status, 200, "{}", me.text());
    let status = send(server.addr, "GET", "/api/owner/update", None, Some(&cookie)).await;
    assert_eq!(status.status, 200, "{}", status.text());
    let status = status.json();
    assert_eq!(
        status["installed"],
        serde_json::json!([version]),
        "{status}"
    );
    assert_eq!(status["supervisor"], "none", "{status}");
    assert_eq!(status["room"]["enough"], true, "{status}");
    server.stop_with("-TERM");

    let status = update::status(&data);
    assert_eq!(status.running, firmware_host::VERSION);
    assert_eq!(status.installed, vec![version.clone()]);
    assert_eq!(status.bad, Vec::<String>::new());
    assert_eq!(status.last_rollback, None);

    // With the server stopped the command line opens the data itself (as the launcher runs
    // it, before any server): the same file is checked and kept again, in place.
    let again = install_update(&next, &data);
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(
        stdout.lines().last(),
        Some(format!("installed {version} at {}", kept.display()).as_str())
    );
    assert_eq!(kept_files(&data), vec![format!("firmware-host-{version}")]);
    let server = Process::start(&data, &[]);
    let me = request(
        server.addr,
        "POST",
        "/api/login",
        &[("Content-Type", "application/json")],
        Some(support::credentials("Updater", "password1").as_bytes()),
    )
    .await;
    assert_eq!(me.status, 200, "the account is still there: {}", me.text());
    server.stop_with("-TERM");
}

#[test]
#[ignore = "needs XO_UPDATE_NEXT: run by cross/update-check"]
fn update_refused_when_the_data_cannot_be_opened() {
    let (next, _) = next();
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    std::fs::create_dir_all(&data).expect("mkdir");
    // A data file no version can open: there is nothing to check the candidate against.
    std::fs::write(data.join("xo-kiosk.redb"), vec![0x5a; 8192]).expect("write");
    let out = install_update(&next, &data);
    assert_refused(&out, "data_unreadable", &data);
    assert_eq!(
        std::fs::read(data.join("xo-kiosk.redb")).expect("read"),
        vec![0x5a; 8192],
        "the data file changed"
    );
}

/// A card of `size` mounted at `path` for `test`, or `None` when the test must return
/// (skipped outside CI without root; on CI it fails instead).
fn card(test: &str, path: &Path, size: &str) -> Option<TmpfsMount> {
    TmpfsMount::for_test(test, path, size)
}

/// Fills `path` with `bytes` of real data (tmpfs has no holes to cheat with).
fn ballast(path: &Path, bytes: usize) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, vec![0xa5u8; bytes]).expect("ballast");
}

/// AP5: the check refuses to start when the card lacks the room for it and what must stay
/// free, before anything is written — from the command line, from the owner's upload, and
/// the owner's page says so beforehand. Needs root (a small tmpfs as the card).
#[tokio::test]
async fn update_refused_when_the_card_lacks_room_for_the_check() {
    const TEST: &str = "update_no_room";
    let dir = tempfile::tempdir().expect("temp dir");
    let Some(mount) = card(TEST, &dir.path().join("card"), "24m") else {
        return;
    };
    let data = mount.path.join("data");
    let server = Process::start(&data, &[]);
    let cookie = register_at(server.addr, "Owner", "password1").await;
    make_owner(server.addr, &cookie).await;
    // 10 MiB left: room for a small file, not for a large one checked beside the data.
    ballast(&mount.path.join("photos.bin"), 12 * 1024 * 1024);

    let big = dir.path().join("firmware-host");
    std::fs::write(&big, vec![0u8; 8 * 1024 * 1024]).expect("write");
    let small = dir.path().join("small");
    std::fs::write(&small, b"not a program").expect("write");

    // The page knows before any upload: a new version as large as this one has no room.
    let status = send(server.addr, "GET", "/api/owner/update", None, Some(&cookie)).await;
    let status = status.json();
    assert_eq!(status["room"]["enough"], false, "{status}");
    let room = &status["room"];
    assert!(
        room["free_bytes"].as_u64() < room["needed_bytes"].as_u64(),
        "{status}"
    );

    let up = upload(
        server.addr,
        "/api/owner/update",
        &cookie,
        &std::fs::read(&big).expect("big"),
    )
    .await;
    up.assert_error(400, "update_refused");
    let said = up.json()["message"].as_str().unwrap_or_default().to_owned();
    assert!(said.starts_with("no_room: the data card has "), "{said}");
    assert!(said.contains("MiB must stay free"), "{said}");
    assert_eq!(
        kept_files(&data),
        Vec::<String>::new(),
        "nothing was written"
    );
    server.stop_with("-TERM");

    let db = std::fs::read(data.join("xo-kiosk.redb")).expect("db");
    let out = install_update(&big, &data);
    assert_refused(&out, "no_room", &data);
    // What fits is checked as usual (here: refused as no program).
    assert_refused(&install_update(&small, &data), "not_elf", &data);
    assert_eq!(
        std::fs::read(data.join("xo-kiosk.redb")).expect("db"),
        db,
        "the data is as it was"
    );
    xo_client::privileged::ran(TEST);
}

/// AP5: the check copies neither `backups/` nor the live file: with backups larger than the
/// room left beside the check, a newer version is checked and kept. Needs root (a tmpfs card)
/// and the newer build.
#[tokio::test]
#[ignore = "needs XO_UPDATE_NEXT: run by cross/update-check"]
async fn update_check_leaves_backups_out() {
    const TEST: &str = "update_leaves_backups_out";
    let (next, version) = next();
    let dir = tempfile::tempdir().expect("temp dir");
    let size = std::fs::metadata(&next).expect("next").len();
    const MIB: u64 = 1024 * 1024;
    const BACKUPS: u64 = 80 * MIB;
    // Room for the check (the candidate twice, the check's files, the reserve of a tenth of
    // the card, some slack) beside 80 MiB of backups, and not for another copy of them.
    let card_mib = (2 * size).div_ceil(MIB) + 4 + 30 + BACKUPS / MIB + 10;
    let Some(mount) = card(TEST, &dir.path().join("card"), &format!("{card_mib}m")) else {
        return;
    };
    let data = mount.path.join("data");
    let server = Process::start(&data, &[]);
    let cookie = register_at(server.addr, "Owner", "password1").await;
    make_owner(server.addr, &cookie).await;
    ballast(
        &data.join("backups").join("before-restore-1.xokb"),
        usize::try_from(BACKUPS).expect("fits"),
    );
    let (free, _) = free_space(&mount.path);
    assert!(
        free < size * 2 + BACKUPS,
        "the card ({free} B free) has no room for a copy of backups/ beside the check"
    );
    let up = upload(
        server.addr,
        "/api/owner/update",
        &cookie,
        &std::fs::read(&next).expect("next"),
    )
    .await;
    assert_eq!(up.status, 200, "{}", up.text());
    assert_eq!(kept_files(&data), vec![format!("firmware-host-{version}")]);
    server.stop_with("-TERM");
    xo_client::privileged::ran(TEST);
}

/// Free and total bytes of the file system holding `path`.
fn free_space(path: &Path) -> (u64, u64) {
    let out = Command::new("df")
        .args(["-B1", "--output=avail,size"])
        .arg(path)
        .output()
        .expect("df");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut numbers = text
        .lines()
        .nth(1)
        .expect("a df line")
        .split_whitespace()
        .map(|n| n.parse::<u64>().expect("a number"));
    (
        numbers.next().expect("avail"),
        numbers.next().expect("size"),
    )
}

#[test]
#[ignore = "needs XO_UPDATE_NEXT: run by cross/update-check"]
fn concurrent_installs_keep_one_whole_binary() {
    let (next, version) = next();
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let children: Vec<Child> = (0..3)
        .map(|_| {
            Command::new(BIN)
                .arg("install-update")
                .arg(&next)
                .arg("--data-dir")
                .arg(&data)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(kept_files(&data), vec![format!("firmware-host-{version}")]);
    assert_eq!(
        std::fs::read(
            data.join("updates")
                .join(format!("firmware-host-{version}"))
        )
        .expect("kept"),
        std::fs::read(&next).expect("next")
    );
}

#[test]
#[ignore = "needs XO_UPDATE_NEXT: run by cross/update-check"]
fn reinstalling_a_bad_version_clears_it_from_the_bad_list() {
    let (next, version) = next();
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    std::fs::create_dir_all(data.join("updates")).expect("mkdir");
    std::fs::write(data.join("updates/bad"), format!("0.0.1\n{version}\n")).expect("write");
    let out = install_update(&next, &data);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(update::status(&data).bad, vec!["0.0.1".to_owned()]);
}

/// The launcher as firmware-host.service runs it, on a spare loopback port.
struct Launcher {
    child: Child,
    addr: SocketAddr,
    log: PathBuf,
}

impl Launcher {
    fn start(data: &Path, drop_file: &Path, healthy_within: u32) -> Launcher {
        Launcher::start_with(data, drop_file, healthy_within, &[])
    }

    fn start_with(
        data: &Path,
        drop_file: &Path,
        healthy_within: u32,
        env: &[(&str, &str)],
    ) -> Launcher {
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, spare_port()));
        let log = data.with_extension(format!("launch-{}.log", addr.port()));
        let child = Command::new(launcher())
            .envs(env.iter().copied())
            .env("XO_DATA_DIR", data)
            .env("XO_BIND", addr.to_string())
            .env("XO_LAUNCH_BUILTIN", BIN)
            .env("XO_LAUNCH_HEALTHY_WITHIN", healthy_within.to_string())
            .env("XO_LAUNCH_DROP", drop_file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .expect("start the launcher");
        Launcher { child, addr, log }
    }

    /// Waits (at most `limit`) for /api/health and for the launcher to have seen it healthy,
    /// and returns the version it names.
    async fn healthy_version(&mut self, limit: Duration) -> String {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                panic!("the launcher exited ({status}):\n{}", self.log());
            }
            if let Some(version) = health_version(self.addr) {
                if self
                    .log()
                    .contains(&format!("version {version} is healthy"))
                {
                    return version;
                }
            }
            assert!(
                started.elapsed() < limit,
                "no /api/health within {limit:?}:\n{}",
                self.log()
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Sends `signal` to the server the launcher runs (not to the launcher), and returns the
    /// launcher's exit status and log once it has exited after it.
    fn signal_server(mut self, signal: &str) -> (std::process::ExitStatus, String) {
        let launcher = self.child.id().to_string();
        let children = Command::new("pgrep")
            .args(["-P", &launcher])
            .output()
            .expect("pgrep");
        let server = String::from_utf8_lossy(&children.stdout)
            .split_whitespace()
            .next()
            .unwrap_or_else(|| panic!("the launcher runs no server:\n{}", self.log()))
            .to_owned();
        let sent = Command::new("kill")
            .args([signal, &server])
            .status()
            .expect("kill");
        assert!(sent.success());
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return (status, self.log());
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the launcher did not exit after its server:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Waits (at most 30 s) for the launcher to exit by itself; its status and log.
    fn wait_exit(mut self) -> (std::process::ExitStatus, String) {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return (status, self.log());
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the launcher did not exit:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// SIGTERM, as systemd stops the unit: the launcher passes it on and exits with the
    /// server's status.
    fn stop(mut self) -> String {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("kill");
        assert!(sent.success());
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                assert!(status.success(), "launcher exit {status}:\n{}", self.log());
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "no exit:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        assert!(
            TcpListener::bind(self.addr).is_ok(),
            "the server still listens after the launcher stopped:\n{}",
            self.log()
        );
        self.log()
    }
}

impl Drop for Launcher {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            // A failed test: stop it and whatever it started.
            let pid = self.child.id().to_string();
            if let Err(e) = Command::new("kill").args(["-TERM", &pid]).status() {
                eprintln!("cannot stop the launcher: {e}");
            }
            std::thread::sleep(Duration::from_secs(2));
            if let Err(e) = self.child.kill() {
                eprintln!("cannot kill the launcher: {e}");
            }
        }
    }
}

/// The version a 200 `/api/health` names, or None while nothing answers.
fn health_version(addr: SocketAddr) -> Option<String> {
    let mut stream = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET /api/health HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    if !head.starts_with("HTTP/1.1 200") {
        return None;
    }
    let json: serde_json::Value = serde_json::from_str(body).ok()?;
    Some(json["version"].as_str()?.to_owned())
}

#[tokio::test]
#[ignore = "needs XO_UPDATE_NEXT: run by cross/update-check"]
async fn launcher_runs_the_newest_installed_version() {
    let (next, version) = next();
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let mut first = Launcher::start(&data, &dir.path().join("no-drop"), 30);
    assert_eq!(
        first.healthy_version(Duration::from_secs(60)).await,
        firmware_host::VERSION
    );
    let cookie = register_at(first.addr, "Keeper", "password1").await;
    first.stop();

    let out = install_update(&next, &data);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut second = Launcher::start(&data, &dir.path().join("no-drop"), 30);
    assert_eq!(
        second.healthy_version(Duration::from_secs(60)).await,
        version
    );
    // The new version serves the same data.
    let me = request(second.addr, "GET", "/api/me", &[("Cookie", &cookie)], None).await;
    assert_eq!(me.status, 200, "{}", me.text());
    assert_eq!(me.json()["username"], "Keeper");
    let log = second.stop();
    assert!(
        log.contains(&format!("version {version} is healthy")),
        "{log}"
    );
    assert_eq!(update::status(&data).last_rollback, None);
}

#[tokio::test]
#[ignore = "needs XO_UPDATE_NEXT: run by cross/update-check"]
async fn launcher_rolls_back_when_the_newest_is_not_healthy() {
    let (next, version) = next();
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let out = install_update(&next, &data);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let updates = data.join("updates");
    // Two newer versions that fail after a restart: one whose file was cut short on the card
    // (it cannot even start), one that starts and never answers.
    let cut = updates.join("firmware-host-90.0.0");
    std::fs::write(&cut, &std::fs::read(&next).expect("read")[..4096]).expect("write");
    std::fs::set_permissions(&cut, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let hangs = updates.join("firmware-host-91.0.0");
    std::fs::write(&hangs, "#!/bin/sh\nexec sleep 600\n").expect("write");
    std::fs::set_permissions(&hangs, std::fs::Permissions::from_mode(0o755)).expect("chmod");

    let mut launcher = Launcher::start(&data, &dir.path().join("no-drop"), 4);
    assert_eq!(
        launcher.healthy_version(Duration::from_secs(60)).await,
        version
    );
    let log = launcher.stop();
    assert!(
        log.contains("version 91.0.0 is not healthy (no answer on /api/health within 4 s)"),
        "{log}"
    );
    assert!(
        log.contains("version 90.0.0 is not healthy (it exited before answering /api/health)"),
        "{log}"
    );

    let status = update::status(&data);
    assert_eq!(status.bad, vec!["91.0.0".to_owned(), "90.0.0".to_owned()]);
    let rollback = status.last_rollback.expect("rollback.json");
    assert_eq!(
        (rollback.from.as_str(), rollback.to.as_str()),
        ("90.0.0", version.as_str())
    );
    assert_eq!(rollback.reason, "it exited before answering /api/health");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("clock")
        .as_secs();
    assert!(
        rollback.at_unix <= now && rollback.at_unix + 600 > now,
        "{rollback:?}"
    );

    // Bad versions stay bad: the next start goes straight to the good one.
    let mut again = Launcher::start(&data, &dir.path().join("no-drop"), 4);
    assert_eq!(
        again.healthy_version(Duration::from_secs(60)).await,
        version
    );
    let log = again.stop();
    assert!(!log.contains("not healthy"), "{log}");

    // When every update is bad, the image's own binary runs.
    std::fs::write(updates.join("bad"), format!("91.0.0\n90.0.0\n{version}\n")).expect("write");
    let mut own = Launcher::start(&data, &dir.path().join("no-drop"), 4);
    assert_eq!(
        own.healthy_version(Duration::from_secs(60)).await,
        firmware_host::VERSION
    );
    own.stop();
}

#[tokio::test]
#[ignore = "needs XO_UPDATE_NEXT: run by cross/update-check"]
async fn launcher_rolls_back_a_version_that_keeps_crashing_after_it_became_healthy() {
    let (next, version) = next();
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let out = install_update(&next, &data);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let settings = [
        ("XO_LAUNCH_CRASHES", "3"),
        ("XO_LAUNCH_CRASH_MINUTES", "10"),
    ];
    let no_drop = dir.path().join("no-drop");
    let start = || Launcher::start_with(&data, &no_drop, 30, &settings);

    // An orderly exit of the server (as after an owner's restart) is no crash.
    let mut launcher = start();
    assert_eq!(
        launcher.healthy_version(Duration::from_secs(60)).await,
        version
    );
    let (status, log) = launcher.signal_server("-TERM");
    assert!(status.success(), "{status}:\n{log}");
    assert!(!log.contains("crashed"), "{log}");

    // Nor is an owner's restart (the server exits 75): the launcher exits 0 and the owner's
    // page was told that the launcher starts the newest good version again.
    let mut launcher = start();
    assert_eq!(
        launcher.healthy_version(Duration::from_secs(60)).await,
        version
    );
    let cookie = register_at(launcher.addr, "Restarter", "password1").await;
    make_owner(launcher.addr, &cookie).await;
    let status = send(
        launcher.addr,
        "GET",
        "/api/owner/update",
        None,
        Some(&cookie),
    )
    .await;
    assert_eq!(status.json()["supervisor"], "launcher", "{}", status.text());
    let asked = send(
        launcher.addr,
        "POST",
        "/api/owner/restart",
        Some("{}"),
        Some(&cookie),
    )
    .await;
    assert_eq!(asked.status, 202, "{}", asked.text());
    let (status, log) = launcher.wait_exit();
    assert!(status.success(), "{status}:\n{log}");
    assert!(log.contains("exited with status 75"), "{log}");
    assert!(log.contains("stopped for an owner's restart"), "{log}");
    assert!(!log.contains("crashed"), "{log}");

    // Three crashes after it became healthy (as systemd starts the launcher again each time):
    // the third marks it bad.
    for crash in 1..=3 {
        let mut launcher = start();
        assert_eq!(
            launcher.healthy_version(Duration::from_secs(60)).await,
            version,
            "start {crash}"
        );
        let (status, log) = launcher.signal_server("-KILL");
        assert!(!status.success(), "{log}");
        assert!(
            log.contains(&format!(
                "version {version} crashed ({crash} in the last 10 minutes)"
            )),
            "{log}"
        );
        assert_eq!(
            update::status(&data).bad.contains(&version),
            crash == 3,
            "after crash {crash}:\n{log}"
        );
    }
    let status = update::status(&data);
    let rollback = status.last_rollback.expect("rollback.json");
    assert_eq!(
        (rollback.from.as_str(), rollback.to.as_str()),
        (version.as_str(), firmware_host::VERSION)
    );
    assert_eq!(
        rollback.reason,
        "it crashed 3 times within 10 minutes after it became healthy"
    );

    // The next start runs the previous version, which crashing does not mark bad.
    let mut own = start();
    assert_eq!(
        own.healthy_version(Duration::from_secs(60)).await,
        firmware_host::VERSION
    );
    for _ in 0..3 {
        let (status, log) = own.signal_server("-KILL");
        assert!(!status.success(), "{log}");
        own = start();
        assert_eq!(
            own.healthy_version(Duration::from_secs(60)).await,
            firmware_host::VERSION,
            "the image's own binary keeps running"
        );
    }
    own.stop();
    assert!(
        !update::status(&data)
            .bad
            .contains(&firmware_host::VERSION.to_owned())
    );
}

#[tokio::test]
#[ignore = "needs XO_UPDATE_NEXT: run by cross/update-check"]
async fn launcher_installs_a_file_dropped_on_the_boot_partition_once() {
    let (next, version) = next();
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let dropped = dir.path().join("boot-firmware-host");
    std::fs::copy(&next, &dropped).expect("copy");
    let mut launcher = Launcher::start(&data, &dropped, 30);
    assert_eq!(
        launcher.healthy_version(Duration::from_secs(120)).await,
        version
    );
    let log = launcher.stop();
    assert!(log.contains(&format!("installed {version} at")), "{log}");
    assert_eq!(update::status(&data).installed, vec![version.clone()]);

    let mut again = Launcher::start(&data, &dropped, 30);
    assert_eq!(
        again.healthy_version(Duration::from_secs(60)).await,
        version
    );
    let log = again.stop();
    assert!(log.contains("was already tried"), "{log}");
    assert!(!log.contains("installing"), "{log}");

    // A refused file (here: not an ELF program) is logged and tried once, and the kiosk runs.
    std::fs::write(&dropped, "not a program").expect("write");
    let mut refused = Launcher::start(&data, &dropped, 30);
    assert_eq!(
        refused.healthy_version(Duration::from_secs(60)).await,
        version
    );
    let log = refused.stop();
    assert!(log.contains("refused (not_elf)"), "{log}");
}
