//! New versions of this server without reflashing the card.
//!
//! A candidate binary (uploaded by the owner, or dropped on the boot partition) is checked
//! before it is kept: the card has room for the check ([`check_room`]), it is an ELF file for
//! this machine's architecture, `--version` names a newer version than the running one, and it
//! starts and answers `GET /api/health` on a spare loopback port within [`HEALTHY_WITHIN`],
//! against a *snapshot* of the data: a new database file written from one read transaction of
//! the live one (`Store::snapshot_blocking`, as a backup is made), never a copy of the live
//! file, which the server may be writing, and nothing else of the data directory (not
//! `backups/`, not `updates/`). Only then is it kept, with these files on the data partition:
//!
//! - `DATA_DIR/updates/firmware-host-<version>`: verified binaries, mode 0755, each written to
//!   a temporary name and renamed into place, so a power cut never leaves half a binary under
//!   a version's name;
//! - `DATA_DIR/updates/bad`: versions that did not become healthy after a restart, one a line
//!   (written by the image's launcher, `cross/image/overlay/usr/local/sbin/xo-launch`);
//! - `DATA_DIR/updates/rollback.json`: the launcher's last rollback ([`Rollback`]).
//!
//! The launcher runs the newest installed version that is not bad (else the image's own
//! binary) and falls back to the previous one when it is not healthy in time.

use std::fmt;
use std::io::{Read as _, Write as _};
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};
use std::time::Duration;

use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::process::{Child, Command};

use crate::VERSION;
use crate::store::{DB_FILE, Store, database_builder};

/// How long a candidate has to answer `/api/health` once started. A Pi starts the server in
/// about a second; the margin covers a busy card and emulated machines.
pub const HEALTHY_WITHIN: Duration = Duration::from_secs(60);
/// How long `candidate --version` may take.
const VERSION_WITHIN: Duration = Duration::from_secs(30);
/// How long a stopped candidate has to exit after SIGTERM before it is killed.
const STOP_WITHIN: Duration = Duration::from_secs(20);
/// The folder of the data directory that holds the updates.
pub const UPDATES_DIR: &str = "updates";
/// The name every installed binary starts with, followed by its version.
pub const BINARY_PREFIX: &str = "firmware-host-";
/// Room the check needs beyond the candidate's copy and the data's snapshot: the candidate's
/// log, and what it writes at its start (a database file grows by its own bookkeeping).
pub const CHECK_ALLOWANCE: u64 = 4 * 1024 * 1024;

/// A verified binary, kept on the data partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Installed {
    pub version: String,
    pub path: PathBuf,
}

/// Why a candidate was refused. Nothing is kept and nothing stored is changed in any case.
#[derive(Debug)]
pub enum UpdateError {
    /// The file is not an ELF executable.
    NotElf,
    /// An ELF file for another machine.
    WrongArch { found: String, expected: String },
    /// Its version is not newer than the running one.
    NotNewer { candidate: String, running: String },
    /// It could not be run, did not name its version, or exited before it was healthy.
    DoesNotStart(String),
    /// It ran but did not answer `/api/health` correctly within [`HEALTHY_WITHIN`].
    Unhealthy(String),
    /// The card lacks the room for the check and what must stay free: nothing was written.
    NoRoom(Room),
    /// The data directory's database is open in another process (a running server): the
    /// snapshot is made through the server's own store, by uploading the update on the
    /// owner's page instead.
    DataInUse,
    /// The live data cannot be opened by this version, so there is nothing to check the
    /// candidate against.
    DataUnreadable(String),
    /// Reading the candidate or writing the data partition failed.
    Io(std::io::Error),
}

/// The room an update's check needs on the card holding the data directory, and what it has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Room {
    /// Free now (for an unprivileged process).
    pub free: u64,
    /// What the check writes: the candidate's copies, the data's snapshot (at most the live
    /// file's length) and [`CHECK_ALLOWANCE`].
    pub needed: u64,
    /// What must stay free after it: the nearly-full threshold of `/api/health`.
    pub reserve: u64,
}

impl Room {
    pub fn enough(&self) -> bool {
        self.free >= self.needed.saturating_add(self.reserve)
    }
}

/// The room for a check of a candidate of `binary_bytes` written `copies` times (the owner's
/// upload is on the card once before the check copies it), against the data in `data_dir`;
/// `None` when the card's free space cannot be read.
pub fn room(data_dir: &Path, binary_bytes: u64, copies: u64) -> Option<Room> {
    // The folder itself may not exist yet (a fresh kiosk): its nearest existing parent is on
    // the same card.
    let on_card = data_dir.ancestors().find(|p| p.exists())?;
    let (free, total) = crate::store::health::free_space(on_card)?;
    let data = std::fs::metadata(data_dir.join(DB_FILE)).map_or(0, |m| m.len());
    Some(Room {
        free,
        needed: binary_bytes
            .saturating_mul(copies)
            .saturating_add(data)
            .saturating_add(CHECK_ALLOWANCE),
        reserve: crate::store::health::reserve_bytes(total),
    })
}

/// Refuses a check the card has no room for ([`room`]); a card whose free space cannot be
/// read is not refused (the writes then fail on their own, and nothing is kept).
pub fn check_room(data_dir: &Path, binary_bytes: u64, copies: u64) -> Result<(), UpdateError> {
    match room(data_dir, binary_bytes, copies) {
        Some(room) if !room.enough() => Err(UpdateError::NoRoom(room)),
        _ => Ok(()),
    }
}

impl UpdateError {
    /// A stable code for the API and the command line.
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotElf => "not_elf",
            Self::WrongArch { .. } => "wrong_arch",
            Self::NotNewer { .. } => "not_newer",
            Self::DoesNotStart(_) => "does_not_start",
            Self::Unhealthy(_) => "unhealthy",
            Self::NoRoom(_) => "no_room",
            Self::DataInUse => "data_in_use",
            Self::DataUnreadable(_) => "data_unreadable",
            Self::Io(_) => "io",
        }
    }
}

impl fmt::Display for UpdateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotElf => f.write_str("not an ELF executable"),
            Self::WrongArch { found, expected } => {
                write!(f, "built for {found}, this machine runs {expected}")
            }
            Self::NotNewer { candidate, running } => {
                write!(
                    f,
                    "version {candidate} is not newer than the running {running}"
                )
            }
            Self::DoesNotStart(why) => write!(f, "does not start: {why}"),
            Self::Unhealthy(why) => write!(f, "not healthy: {why}"),
            Self::NoRoom(room) => {
                let mib = |b: u64| b.div_ceil(1024 * 1024);
                write!(
                    f,
                    "the data card has {} MiB free; checking this update needs {} MiB (the \
                     new version, a snapshot of the data and the check's own files) and {} MiB \
                     must stay free: free some space first",
                    room.free / (1024 * 1024),
                    mib(room.needed),
                    mib(room.reserve)
                )
            }
            Self::DataInUse => f.write_str(
                "the data directory is in use by a running server: upload the update on the \
                 owner's Update page, or stop the server first",
            ),
            Self::DataUnreadable(why) => {
                write!(f, "the data cannot be opened to check against: {why}")
            }
            Self::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for UpdateError {}

impl From<std::io::Error> for UpdateError {
    fn from(e: std::io::Error) -> Self {
        Self::Io(e)
    }
}

// The launcher's last rollback and the update status are wire types (the owner's pages read
// them), so they live with the other HTTP bodies.
pub use protocol::http::{Rollback, Supervisor, UpdateRoom, UpdateStatus};

/// Checks `candidate` and, when it passes, keeps it as
/// `DATA_DIR/updates/firmware-host-<version>`. The candidate is copied first and the copy is
/// what is checked and kept, so a file changed during the check cannot slip through.
/// Installing a version listed as bad clears it from the list: the owner asked to try it again.
///
/// `live` is the running server's store on `data_dir` (the owner's upload): the snapshot is
/// made through it. Without it (`firmware-host install-update`, which the image's launcher
/// runs before it starts a server) the data directory's database is opened here, as the server
/// opens it at its start (migrated to this version), unless another process has it open.
pub async fn install(
    candidate: &Path,
    data_dir: &Path,
    live: Option<Store>,
) -> Result<Installed, UpdateError> {
    let updates = data_dir.join(UPDATES_DIR);
    let work = {
        let (candidate, updates, data_dir) =
            (candidate.to_owned(), updates.clone(), data_dir.to_owned());
        blocking(move || {
            check_room(&data_dir, std::fs::metadata(&candidate)?.len(), 1)?;
            std::fs::create_dir_all(&updates)?;
            let work = Scratch::new(&updates)?;
            copy_executable(&candidate, &work.path.join("candidate"))?;
            let running_exe = std::env::current_exe()?;
            check_arch(
                &read_header(&work.path.join("candidate"))?,
                &read_header(&running_exe)?,
            )?;
            Ok(work)
        })
        .await?
    };
    let copy = work.path.join("candidate");
    let version = candidate_version(&copy).await?;
    let newer = Version::parse(&version).ok_or_else(|| {
        UpdateError::DoesNotStart(format!("--version names {version:?}, not a version number"))
    })?;
    let running = Version::parse(VERSION).ok_or_else(|| {
        UpdateError::Io(std::io::Error::other(format!(
            "the running version {VERSION:?} is not a version number"
        )))
    })?;
    if newer <= running {
        return Err(UpdateError::NotNewer {
            candidate: version,
            running: VERSION.to_owned(),
        });
    }

    let data_copy = work.path.join("data");
    {
        let (from, to) = (data_dir.to_owned(), data_copy.clone());
        blocking(move || snapshot(live.as_ref(), &from, &to)).await?;
    }
    check_health(&copy, &version, &data_copy, &work.path.join("log")).await?;

    let path = updates.join(format!("{BINARY_PREFIX}{version}"));
    let kept = path.clone();
    blocking(move || {
        std::fs::rename(&copy, &kept)?;
        sync_dir(&updates)?;
        remove_bad(&updates, &version)?;
        // The check folder goes only now: the kept binary was renamed out of it.
        drop(work);
        Ok(Installed {
            version,
            path: kept,
        })
    })
    .await
}

/// Runs file work off the async worker threads (the owner's upload runs inside the server).
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, UpdateError> + Send + 'static,
) -> Result<T, UpdateError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| UpdateError::Io(std::io::Error::other(format!("file work failed: {e}"))))?
}

/// The installed, bad and last rolled-back versions, read from `DATA_DIR/updates`, and the
/// card's room for a check. Missing or unreadable files count as empty: a kiosk that never
/// updated has none of them. `supervisor` is left [`Supervisor::None`] for the caller to set.
pub fn status(data_dir: &Path) -> UpdateStatus {
    let updates = data_dir.join(UPDATES_DIR);
    let mut installed: Vec<(Version, String)> = std::fs::read_dir(&updates)
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let name = entry.ok()?.file_name().into_string().ok()?;
            let version = name.strip_prefix(BINARY_PREFIX)?.to_owned();
            Some((Version::parse(&version)?, version))
        })
        .collect();
    installed.sort();
    // A new version is about as large as this one.
    let estimate = std::env::current_exe()
        .and_then(std::fs::metadata)
        .map_or(0, |m| m.len());
    UpdateStatus {
        running: VERSION.to_owned(),
        installed: installed.into_iter().map(|(_, v)| v).collect(),
        bad: read_bad(&updates),
        last_rollback: std::fs::read(updates.join("rollback.json"))
            .ok()
            .and_then(|bytes| serde_json::from_slice(&bytes).ok()),
        // The caller, which knows how the server was started, says.
        supervisor: Supervisor::None,
        room: room(data_dir, estimate, 2).map(|r| UpdateRoom {
            free_bytes: r.free,
            needed_bytes: r.needed,
            reserve_bytes: r.reserve,
            enough: r.enough(),
        }),
    }
}

/// `firmware-host install-update FILE --data-dir DIR`: exit status 0 when installed (its last
/// line then names the version and path), 1 with the refusal's code and reason otherwise.
pub fn cli_main(args: impl IntoIterator<Item = std::ffi::OsString>) -> ExitCode {
    use clap::Parser as _;
    let cli = InstallUpdateCli::parse_from(args);
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("install-update: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(install(&cli.file, &cli.data_dir, None)) {
        Ok(installed) => {
            println!(
                "installed {} at {}",
                installed.version,
                installed.path.display()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!(
                "install-update: {} refused ({}): {e}",
                cli.file.display(),
                e.code()
            );
            ExitCode::FAILURE
        }
    }
}

/// Checks a new firmware-host binary (ELF for this machine, newer than this one, answers
/// /api/health on a spare loopback port against a copy of the data directory) and keeps it as
/// DATA_DIR/updates/firmware-host-VERSION for the launcher to run.
#[derive(Debug, clap::Parser)]
#[command(name = "firmware-host install-update", version = VERSION)]
struct InstallUpdateCli {
    /// The new firmware-host binary.
    file: PathBuf,
    /// The server's data directory.
    #[arg(long, env = "XO_DATA_DIR", value_name = "DIR")]
    data_dir: PathBuf,
}

/// A folder under `updates/` for one check, removed when dropped.
struct Scratch {
    path: PathBuf,
}

impl Scratch {
    fn new(updates: &Path) -> std::io::Result<Self> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let path = updates.join(format!(
            ".check-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir(&path)?;
        Ok(Self { path })
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.path) {
            tracing::warn!(path = %self.path.display(), "update: cannot remove a check folder: {e}");
        }
    }
}

fn copy_executable(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let mut source = std::fs::File::open(from)?;
    let mut target = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o755)
        .open(to)?;
    std::io::copy(&mut source, &mut target)?;
    target.sync_all()
}

/// The ELF identification that decides whether a binary runs here: class, byte order and
/// machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ElfHeader {
    class: u8,
    data: u8,
    machine: u16,
}

impl ElfHeader {
    fn describe(&self) -> String {
        let name = match self.machine {
            3 => "x86".to_owned(),
            62 => "x86_64".to_owned(),
            40 => "arm".to_owned(),
            183 => "aarch64".to_owned(),
            243 => "riscv".to_owned(),
            8 => "mips".to_owned(),
            20 => "powerpc".to_owned(),
            21 => "powerpc64".to_owned(),
            other => format!("e_machine {other}"),
        };
        let bits = if self.class == 2 { 64 } else { 32 };
        let order = if self.data == 2 { ", big-endian" } else { "" };
        format!("{name} ({bits}-bit{order})")
    }
}

fn read_header(path: &Path) -> Result<ElfHeader, UpdateError> {
    let mut head = [0u8; 20];
    let mut file = std::fs::File::open(path)?;
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..])? {
            0 => return Err(UpdateError::NotElf),
            n => filled += n,
        }
    }
    parse_header(&head)
}

fn parse_header(head: &[u8; 20]) -> Result<ElfHeader, UpdateError> {
    const ET_EXEC: u16 = 2;
    const ET_DYN: u16 = 3;
    let (class, data) = (head[4], head[5]);
    if head[..4] != *b"\x7fELF" || !matches!(class, 1 | 2) || !matches!(data, 1 | 2) {
        return Err(UpdateError::NotElf);
    }
    let half = |at: usize| {
        let bytes = [head[at], head[at + 1]];
        if data == 1 {
            u16::from_le_bytes(bytes)
        } else {
            u16::from_be_bytes(bytes)
        }
    };
    if !matches!(half(16), ET_EXEC | ET_DYN) {
        return Err(UpdateError::NotElf);
    }
    Ok(ElfHeader {
        class,
        data,
        machine: half(18),
    })
}

fn check_arch(candidate: &ElfHeader, running: &ElfHeader) -> Result<(), UpdateError> {
    if candidate == running {
        Ok(())
    } else {
        Err(UpdateError::WrongArch {
            found: candidate.describe(),
            expected: running.describe(),
        })
    }
}

/// A command for the candidate with none of this server's `XO_*` settings: the check runs it
/// with its own flags only (no status display, no public address, a spare port).
fn candidate_command(binary: &Path) -> Command {
    let mut command = Command::new(binary);
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("XO_") {
            command.env_remove(name);
        }
    }
    command.stdin(Stdio::null()).kill_on_drop(true);
    command
}

/// The version the candidate names with `--version` (`firmware-host 1.2.3`).
async fn candidate_version(binary: &Path) -> Result<String, UpdateError> {
    let mut command = candidate_command(binary);
    command.arg("--version");
    let output = tokio::time::timeout(VERSION_WITHIN, command.output())
        .await
        .map_err(|_| {
            UpdateError::DoesNotStart(format!(
                "--version did not finish within {} s",
                VERSION_WITHIN.as_secs()
            ))
        })?
        .map_err(|e| UpdateError::DoesNotStart(format!("cannot run it: {e}")))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        return Err(UpdateError::DoesNotStart(format!(
            "--version exited with {}: {}",
            output.status,
            tail(&String::from_utf8_lossy(&output.stderr))
        )));
    }
    let line = stdout.trim();
    match line.strip_prefix("firmware-host ") {
        Some(version) if Version::parse(version).is_some() => Ok(version.to_owned()),
        _ => Err(UpdateError::DoesNotStart(format!(
            "--version printed {:?}, not \"firmware-host VERSION\"",
            tail(line)
        ))),
    }
}

/// Makes `to`, a data directory for the candidate holding only a snapshot of the live
/// database (see the module docs): through `live` when the server runs, else by opening the
/// database in `from` here. A data directory without a database gives an empty one (the
/// candidate then starts as on a fresh kiosk).
fn snapshot(live: Option<&Store>, from: &Path, to: &Path) -> Result<(), UpdateError> {
    std::fs::create_dir(to)?;
    let target = to.join(DB_FILE);
    let unreadable = |e: rooms::StoreError| UpdateError::DataUnreadable(e.to_string());
    if let Some(store) = live {
        return store.snapshot_blocking(&target).map_err(unreadable);
    }
    let file = from.join(DB_FILE);
    if !file.exists() {
        return Ok(());
    }
    // redb locks its file: a server running on it answers "already open".
    match database_builder().open(&file) {
        Ok(db) => drop(db),
        Err(redb::DatabaseError::DatabaseAlreadyOpen) => return Err(UpdateError::DataInUse),
        Err(e) => return Err(UpdateError::DataUnreadable(e.to_string())),
    }
    let store = Store::open_blocking(from).map_err(unreadable)?;
    let made = store.snapshot_blocking(&target).map_err(unreadable);
    store.shutdown_blocking();
    made
}

/// Starts the candidate on a spare loopback port against `data`, waits for a healthy
/// `/api/health` naming `version`, then stops it with SIGTERM.
async fn check_health(
    binary: &Path,
    version: &str,
    data: &Path,
    log: &Path,
) -> Result<(), UpdateError> {
    let port = spare_port()?;
    let log_file = std::fs::File::create(log)?;
    let mut child = candidate_command(binary)
        .arg("--bind")
        .arg(format!("127.0.0.1:{port}"))
        .arg("--data-dir")
        .arg(data)
        .stdout(Stdio::null())
        .stderr(log_file)
        .spawn()
        .map_err(|e| UpdateError::DoesNotStart(format!("cannot run it: {e}")))?;
    let outcome = tokio::select! {
        status = child.wait() => Err(UpdateError::DoesNotStart(format!(
            "it exited ({}) before answering /api/health: {}",
            status.map_or_else(|e| e.to_string(), |s| s.to_string()),
            tail(&std::fs::read_to_string(log).unwrap_or_default())
        ))),
        healthy = wait_healthy(port, version) => healthy,
    };
    stop(&mut child).await;
    outcome
}

/// A loopback port that was free a moment ago.
fn spare_port() -> std::io::Result<u16> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    Ok(listener.local_addr()?.port())
}

async fn wait_healthy(port: u16, version: &str) -> Result<(), UpdateError> {
    let deadline = tokio::time::Instant::now() + HEALTHY_WITHIN;
    let mut last;
    loop {
        match health(port).await {
            Ok(body) => match serde_json::from_str::<serde_json::Value>(&body) {
                Ok(json) => {
                    let status = json["status"].as_str().unwrap_or_default();
                    let said = json["version"].as_str().unwrap_or_default();
                    if said != version {
                        last = format!("/api/health names version {said:?}, not {version:?}");
                    } else if matches!(status, "ok" | "degraded") {
                        return Ok(());
                    } else {
                        last = format!("/api/health status {status:?}");
                    }
                }
                Err(e) => last = format!("/api/health is not JSON: {e}"),
            },
            Err(why) => last = why,
        }
        if tokio::time::Instant::now() >= deadline {
            return Err(UpdateError::Unhealthy(format!(
                "no healthy /api/health within {} s; last: {last}",
                HEALTHY_WITHIN.as_secs()
            )));
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// One `GET /api/health`: the body of a 200 answer, or why there is none.
async fn health(port: u16) -> Result<String, String> {
    let ask = async {
        let address = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let mut stream = tokio::net::TcpStream::connect(address)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        let request = format!(
            "GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
        );
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| format!("write: {e}"))?;
        let mut answer = Vec::new();
        stream
            .take(1 << 20)
            .read_to_end(&mut answer)
            .await
            .map_err(|e| format!("read: {e}"))?;
        let answer = String::from_utf8_lossy(&answer);
        let (head, body) = answer
            .split_once("\r\n\r\n")
            .ok_or_else(|| "an answer without headers".to_owned())?;
        let status = head.lines().next().unwrap_or_default();
        if status.split(' ').nth(1) != Some("200") {
            return Err(format!("/api/health answered {status:?}"));
        }
        if head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked")
        {
            return Err("/api/health answered a chunked body".to_owned());
        }
        Ok(body.to_owned())
    };
    tokio::time::timeout(Duration::from_secs(5), ask)
        .await
        .map_err(|_| "/api/health did not answer within 5 s".to_owned())?
}

/// SIGTERM (the server's orderly stop), then SIGKILL after [`STOP_WITHIN`].
async fn stop(child: &mut Child) {
    if let Some(pid) = child
        .id()
        .and_then(|id| rustix::process::Pid::from_raw(id as i32))
    {
        if let Err(e) = rustix::process::kill_process(pid, rustix::process::Signal::TERM) {
            tracing::warn!("update: cannot stop the candidate: {e}");
        }
    }
    if tokio::time::timeout(STOP_WITHIN, child.wait())
        .await
        .is_err()
    {
        if let Err(e) = child.kill().await {
            tracing::warn!("update: cannot kill the candidate: {e}");
        }
    }
}

fn sync_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::File::open(dir)?.sync_all()
}

fn read_bad(updates: &Path) -> Vec<String> {
    std::fs::read_to_string(updates.join("bad"))
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Rewrites `updates/bad` without `version` (temporary file and rename), if it is listed.
fn remove_bad(updates: &Path, version: &str) -> std::io::Result<()> {
    let bad = read_bad(updates);
    if !bad.iter().any(|v| v == version) {
        return Ok(());
    }
    let tmp = updates.join(".bad.tmp");
    let mut file = std::fs::File::create(&tmp)?;
    for v in bad.iter().filter(|v| *v != version) {
        writeln!(file, "{v}")?;
    }
    file.sync_all()?;
    std::fs::rename(&tmp, updates.join("bad"))?;
    sync_dir(updates)
}

/// The last few hundred bytes of a process's output, for an error message.
fn tail(text: &str) -> String {
    let text = text.trim();
    let start = text
        .char_indices()
        .map(|(i, _)| i)
        .find(|&i| text.len() - i <= 600)
        .unwrap_or(text.len());
    text[start..].to_owned()
}

/// A semantic version (`MAJOR.MINOR.PATCH[-PRE][+BUILD]`), ordered by semver precedence:
/// numbers, then a release above its pre-releases; build metadata is ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    core: [u64; 3],
    pre: Vec<PreIdent>,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum PreIdent {
    // Declared first: numeric identifiers sort below alphanumeric ones.
    Number(u64),
    Text(String),
}

impl Version {
    pub fn parse(text: &str) -> Option<Self> {
        let text =
            text.split_once('+').map_or(
                text,
                |(v, build)| {
                    if valid_idents(build, false) { v } else { "" }
                },
            );
        let (core, pre) = match text.split_once('-') {
            Some((core, pre)) => (core, Some(pre)),
            None => (text, None),
        };
        let mut numbers = core.split('.').map(number);
        let core = [numbers.next()??, numbers.next()??, numbers.next()??];
        if numbers.next().is_some() {
            return None;
        }
        let pre = match pre {
            None => Vec::new(),
            Some(pre) if valid_idents(pre, true) => pre
                .split('.')
                .map(|ident| {
                    number(ident).map_or_else(|| PreIdent::Text(ident.to_owned()), PreIdent::Number)
                })
                .collect(),
            Some(_) => return None,
        };
        Some(Self { core, pre })
    }
}

/// A number without a leading zero, as semver writes them.
fn number(text: &str) -> Option<u64> {
    let digits = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit());
    (digits && (text == "0" || !text.starts_with('0')))
        .then(|| text.parse().ok())
        .flatten()
}

fn valid_idents(text: &str, pre: bool) -> bool {
    text.split('.').all(|ident| {
        !ident.is_empty()
            && ident
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && (!pre || !ident.bytes().all(|b| b.is_ascii_digit()) || number(ident).is_some())
    })
}

impl Ord for Version {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.core
            .cmp(&other.core)
            .then_with(|| match (self.pre.is_empty(), other.pre.is_empty()) {
                (true, true) => std::cmp::Ordering::Equal,
                (true, false) => std::cmp::Ordering::Greater,
                (false, true) => std::cmp::Ordering::Less,
                (false, false) => self.pre.cmp(&other.pre),
            })
    }
}

impl PartialOrd for Version {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_follow_semver_precedence() {
        let order = [
            "0.1.0-alpha",
            "0.1.0-alpha.1",
            "0.1.0-alpha.beta",
            "0.1.0-beta.2",
            "0.1.0-beta.11",
            "0.1.0-rc.1",
            "0.1.0",
            "0.1.1",
            "0.2.0",
            "0.10.0",
            "1.0.0",
        ];
        for pair in order.windows(2) {
            let (a, b) = (Version::parse(pair[0]), Version::parse(pair[1]));
            assert!(a.is_some() && b.is_some(), "{pair:?} parse");
            assert!(a < b, "{} < {}", pair[0], pair[1]);
        }
        assert_eq!(Version::parse("1.2.3+build.7"), Version::parse("1.2.3"));
    }

    #[test]
    fn malformed_versions_are_refused() {
        for text in [
            "", "1", "1.2", "1.2.3.4", "01.2.3", "1.2.x", "1.2.3-", "1.2.3-01", "1.2.3+", "1.2.3 ",
            "../1.2.3",
        ] {
            assert_eq!(Version::parse(text), None, "{text:?}");
        }
    }

    #[test]
    fn elf_headers_name_their_machine() {
        let mut head = [0u8; 20];
        head[..4].copy_from_slice(b"\x7fELF");
        head[4] = 2;
        head[5] = 1;
        head[16] = 3;
        head[18] = 183;
        let parsed = parse_header(&head).map_err(|e| e.to_string());
        assert_eq!(
            parsed.map(|h| h.describe()),
            Ok("aarch64 (64-bit)".to_owned())
        );
        head[16] = 1; // a relocatable object, not a program
        assert!(matches!(parse_header(&head), Err(UpdateError::NotElf)));
    }
}
