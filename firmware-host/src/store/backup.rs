//! Backups (SPEC O3): one file holding all data, verified before a restore replaces anything.
//!
//! A backup file is a header line, then a redb database:
//!
//! ```text
//! {"format":"xo-kiosk-backup","format_version":1,"schema_version":2,"app_version":"0.1.0","created_ms":…,"bytes":N,"sha256":"…"}\n
//! <N bytes: a redb file holding the backed-up tables>
//! ```
//!
//! The database part is a copy of the tables of accounts, names, games, their indexes,
//! owners, archived seasons, events, puzzles (ratings, tries, attempts, daily counts), the
//! owner's settings and the counters (`copy_all`), made inside
//! one read transaction, so it is consistent; sessions, open rooms and password reset codes
//! are not in it (a restore signs everyone out, closes every room and forgets every code). A
//! backup made before the settings table existed holds no settings: restoring it keeps the
//! kiosk's current ones. Verifying a file checks the header, the length and the SHA-256, then opens the
//! database part as a file of its own and runs the same migration as an old database file
//! (`migrate`), so a backup of any earlier schema restores; a newer one is refused. A restore
//! then replaces every backed-up table in one durable write transaction of the live database:
//! all of it or nothing.

use std::io::{BufRead as _, Read as _};
use std::path::{Path, PathBuf};

use redb::{
    ReadTransaction, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition,
    WriteTransaction,
};
use rooms::StoreError;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::accounts::{USERNAMES, USERS};
use super::error::store_err;
use super::events::{EVENT_GAMES, EVENTS};
use super::games::{GAMES, USER_GAMES, USER_UNRATED};
use super::handle::Store;
use super::meta::{META, SCHEMA_VERSION};
use super::op::{Op, Outcome, unexpected};
use super::open_rooms::OPEN_ROOMS;
use super::owners::OWNERS;
use super::puzzles::{DAILY_SOLVES, PUZZLE_ATTEMPTS, PUZZLE_PLAYERS, PUZZLE_RATINGS, PUZZLE_TRIED};
use super::records::{decode_game, decode_user};
use super::reset_codes::RESET_CODES;
use super::seasons::SEASONS;
use super::sessions::SESSIONS;
use super::settings::{self, SETTINGS};
use super::shared::database_builder;

/// Brings a database of any earlier schema up to this one (`schema::migrate`), passed in by
/// the caller: the schema knows every noun, this one among them.
pub(super) type Migrate = fn(&redb::Database) -> Result<(), StoreError>;

/// The header's `format`.
pub const BACKUP_FORMAT: &str = "xo-kiosk-backup";
/// The layout of the file around the database (not the database's schema).
pub const BACKUP_FORMAT_VERSION: u32 = 1;
/// Largest backup file accepted for a restore.
pub const MAX_BACKUP_BYTES: usize = 256 * 1024 * 1024;
/// Where the data a restore replaced is kept, inside the data directory.
pub const REPLACED_DIR: &str = "backups";
/// How many backup files [`REPLACED_DIR`] keeps: keeping a new one removes the oldest beyond
/// these. Five restores to undo is more than an owner goes back through, and five copies of
/// the data on the card are what a nearly full card can least afford.
pub const BACKUPS_KEPT: usize = 5;
/// The ending of every backup file's name.
pub const BACKUP_EXTENSION: &str = ".xokb";

/// The first line of a backup file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackupHeader {
    pub format: String,
    pub format_version: u32,
    /// The database schema of the data part.
    pub schema_version: u64,
    /// The release that wrote it.
    pub app_version: String,
    pub created_ms: u64,
    /// Length of the data part.
    pub bytes: u64,
    /// SHA-256 of the data part, hex.
    pub sha256: String,
}

/// What a verified backup holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupContents {
    pub header: BackupHeader,
    pub users: u64,
    pub games: u64,
    pub owners: u64,
    /// The file holds the kiosk's settings (one made before they existed does not).
    pub settings: bool,
}

/// Why a backup file was refused; nothing changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BackupError {
    /// Not a backup, damaged, or cut short: why.
    Invalid(String),
    /// Written by a newer release than this one reads.
    TooNew {
        found: u64,
        supported: u64,
    },
    Store(StoreError),
}

impl std::fmt::Display for BackupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BackupError::Invalid(why) => write!(f, "not a valid backup: {why}"),
            BackupError::TooNew { found, supported } => write!(
                f,
                "the backup has schema {found}; this version reads up to {supported}"
            ),
            BackupError::Store(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for BackupError {}

impl From<StoreError> for BackupError {
    fn from(e: StoreError) -> Self {
        BackupError::Store(e)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A path in `dir` no other request uses.
fn scratch(dir: &Path, what: &str) -> PathBuf {
    let n: u64 = rand::random();
    dir.join(format!("{what}-{n:016x}.tmp"))
}

/// A backup file kept in [`REPLACED_DIR`], as its header and the file system describe it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptBackup {
    /// The file's name inside [`REPLACED_DIR`].
    pub name: String,
    pub header: BackupHeader,
    /// The whole file's length.
    pub bytes: u64,
}

/// Whether `name` can be a kept backup's file name: letters, digits, `.`, `_` and `-`, not
/// starting with a dot, ending in [`BACKUP_EXTENSION`]. Anything else (a path, `..`) names
/// no kept backup.
pub fn is_backup_name(name: &str) -> bool {
    name.len() <= 128
        && name.len() > BACKUP_EXTENSION.len()
        && name.ends_with(BACKUP_EXTENSION)
        && !name.starts_with('.')
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The header line of the backup file at `path`, without reading the data after it.
fn read_header(path: &Path) -> Option<BackupHeader> {
    let file = std::fs::File::open(path).ok()?;
    let mut line = Vec::new();
    std::io::BufReader::new(file)
        .take(4097)
        .read_until(b'\n', &mut line)
        .ok()?;
    if line.pop() != Some(b'\n') {
        return None;
    }
    serde_json::from_slice::<BackupHeader>(&line)
        .ok()
        .filter(|h| h.format == BACKUP_FORMAT)
}

/// The backups kept in `dir`, newest first. Files that are not backups (no backup header)
/// are not listed, and never removed by [`prune_backups`].
pub fn kept_backups(dir: &Path) -> Vec<KeptBackup> {
    let mut kept: Vec<KeptBackup> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let name = entry.file_name().into_string().ok()?;
            if !is_backup_name(&name) || !entry.file_type().ok()?.is_file() {
                return None;
            }
            let header = read_header(&entry.path())?;
            let bytes = entry.metadata().ok()?.len();
            Some(KeptBackup {
                name,
                header,
                bytes,
            })
        })
        .collect();
    kept.sort_by(|a, b| (b.header.created_ms, &b.name).cmp(&(a.header.created_ms, &a.name)));
    kept
}

/// Removes the oldest backups in `dir` beyond the newest [`BACKUPS_KEPT`]; returns the names
/// removed.
pub fn prune_backups(dir: &Path) -> std::io::Result<Vec<String>> {
    let mut removed = Vec::new();
    for old in kept_backups(dir).into_iter().skip(BACKUPS_KEPT) {
        std::fs::remove_file(dir.join(&old.name))?;
        removed.push(old.name);
    }
    Ok(removed)
}

/// Writes `file` as `dir/name` (through a temporary file, synced, and a rename, so a power cut
/// never leaves half a backup under a backup's name), then prunes the oldest beyond
/// [`BACKUPS_KEPT`]; returns the names pruned.
pub fn keep_backup(dir: &Path, name: &str, file: &[u8]) -> std::io::Result<Vec<String>> {
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".{name}.tmp"));
    let mut out = std::fs::File::create(&tmp)?;
    std::io::Write::write_all(&mut out, file)?;
    out.sync_all()?;
    std::fs::rename(&tmp, dir.join(name))?;
    let pruned = prune_backups(dir)?;
    std::fs::File::open(dir)?.sync_all()?;
    Ok(pruned)
}

/// Copies table `def` from `src` into `dst`, replacing what `dst` held; rows copied.
fn copy<K: redb::Key + 'static, V: redb::Value + 'static>(
    src: &ReadTransaction,
    dst: &WriteTransaction,
    def: TableDefinition<'static, K, V>,
) -> Result<u64, StoreError> {
    let from = src.open_table(def).map_err(store_err)?;
    dst.delete_table(def).map_err(store_err)?;
    let mut to = dst.open_table(def).map_err(store_err)?;
    let mut rows = 0;
    for entry in from.iter().map_err(store_err)? {
        let (k, v) = entry.map_err(store_err)?;
        to.insert(k.value(), v.value()).map_err(store_err)?;
        rows += 1;
    }
    Ok(rows)
}

/// Every backed-up table, copied from `src` to `dst`; the settings only `with_settings`.
fn copy_all(
    src: &ReadTransaction,
    dst: &WriteTransaction,
    with_settings: bool,
) -> Result<(), StoreError> {
    if with_settings {
        copy(src, dst, SETTINGS)?;
    }
    copy(src, dst, USERS)?;
    copy(src, dst, USERNAMES)?;
    copy(src, dst, GAMES)?;
    copy(src, dst, USER_GAMES)?;
    copy(src, dst, USER_UNRATED)?;
    copy(src, dst, OWNERS)?;
    copy(src, dst, SEASONS)?;
    // Events and their games' points go with the games they count.
    copy(src, dst, EVENTS)?;
    copy(src, dst, EVENT_GAMES)?;
    // Puzzle standings name accounts by id, as games do; a backup older than them has none.
    copy(src, dst, PUZZLE_PLAYERS)?;
    copy(src, dst, PUZZLE_RATINGS)?;
    copy(src, dst, PUZZLE_TRIED)?;
    copy(src, dst, PUZZLE_ATTEMPTS)?;
    copy(src, dst, DAILY_SOLVES)?;
    copy(src, dst, META)?;
    Ok(())
}

/// Every table of the store, the ones a backup leaves out included: a snapshot of all of it.
fn copy_everything(src: &ReadTransaction, dst: &WriteTransaction) -> Result<(), StoreError> {
    copy_all(src, dst, true)?;
    copy(src, dst, SESSIONS)?;
    copy(src, dst, OPEN_ROOMS)?;
    copy(src, dst, RESET_CODES)?;
    Ok(())
}

fn count<K: redb::Key + 'static, V: redb::Value + 'static>(
    txn: &ReadTransaction,
    def: TableDefinition<'static, K, V>,
) -> Result<u64, StoreError> {
    txn.open_table(def)
        .map_err(store_err)?
        .len()
        .map_err(store_err)
}

impl Store {
    /// A backup file of all data now (consistent: one read transaction).
    pub fn backup_blocking(&self, now_ms: u64) -> Result<Vec<u8>, StoreError> {
        let path = scratch(self.data_dir(), "backup");
        let result = self.write_snapshot(&path).and_then(|()| {
            std::fs::read(&path).map_err(|e| StoreError::Internal(format!("reading a backup: {e}")))
        });
        if let Err(e) = std::fs::remove_file(&path)
            && e.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(error = %e, path = %path.display(), "cannot remove a backup's scratch file");
        }
        let data = result?;
        let header = BackupHeader {
            format: BACKUP_FORMAT.to_owned(),
            format_version: BACKUP_FORMAT_VERSION,
            schema_version: SCHEMA_VERSION,
            app_version: crate::VERSION.to_owned(),
            created_ms: now_ms,
            bytes: data.len() as u64,
            sha256: hex(&Sha256::digest(&data)),
        };
        let mut file = serde_json::to_vec(&header)
            .map_err(|e| StoreError::Internal(format!("encoding a backup header: {e}")))?;
        file.push(b'\n');
        file.extend_from_slice(&data);
        Ok(file)
    }

    /// Writes a database file at `path` holding every table of the store as one read
    /// transaction sees it (sessions and open rooms included): a consistent snapshot of the
    /// live data, for a new version to be checked against, without copying the live file.
    pub fn snapshot_blocking(&self, path: &Path) -> Result<(), StoreError> {
        self.read(|src| {
            let db = database_builder().create(path).map_err(store_err)?;
            let dst = db.begin_write().map_err(store_err)?;
            copy_everything(src, &dst)?;
            dst.commit().map_err(store_err)
        })
    }

    fn write_snapshot(&self, path: &Path) -> Result<(), StoreError> {
        self.read(|src| {
            let db = database_builder().create(path).map_err(store_err)?;
            let dst = db.begin_write().map_err(store_err)?;
            copy_all(src, &dst, true)?;
            dst.commit().map_err(store_err)
        })
    }

    /// Checks a backup file (see the module docs) and leaves its migrated database part in a
    /// scratch file of the data directory, for [`Store::restore`]; the caller removes it.
    pub(super) fn verify_backup(
        &self,
        file: &[u8],
        migrate: Migrate,
    ) -> Result<(BackupContents, PathBuf), BackupError> {
        let newline = file
            .iter()
            .position(|&b| b == b'\n')
            .filter(|&n| n <= 4096)
            .ok_or_else(|| BackupError::Invalid("no header line".into()))?;
        let header: BackupHeader = serde_json::from_slice(&file[..newline])
            .map_err(|e| BackupError::Invalid(format!("the header is not a backup header: {e}")))?;
        if header.format != BACKUP_FORMAT {
            return Err(BackupError::Invalid(format!(
                "the format is {:?}, not {BACKUP_FORMAT:?}",
                header.format
            )));
        }
        if header.format_version > BACKUP_FORMAT_VERSION {
            return Err(BackupError::Invalid(format!(
                "file format {} is newer than this version's {BACKUP_FORMAT_VERSION}",
                header.format_version
            )));
        }
        if header.schema_version > SCHEMA_VERSION {
            return Err(BackupError::TooNew {
                found: header.schema_version,
                supported: SCHEMA_VERSION,
            });
        }
        let data = &file[newline + 1..];
        if data.len() as u64 != header.bytes {
            return Err(BackupError::Invalid(format!(
                "the data is {} bytes, the header says {}",
                data.len(),
                header.bytes
            )));
        }
        if hex(&Sha256::digest(data)) != header.sha256 {
            return Err(BackupError::Invalid(
                "the data does not match its checksum (damaged)".into(),
            ));
        }
        let path = scratch(self.data_dir(), "restore");
        match open_and_count(&path, data, header, migrate) {
            Ok(contents) => Ok((contents, path)),
            Err(e) => {
                remove_scratch(&path);
                Err(e)
            }
        }
    }

    /// Replaces every backed-up table with the verified backup at `source` (from
    /// [`Store::verify_backup_blocking`]) in one durable transaction, and forgets every
    /// session, open room and reset code. The settings are replaced only `with_settings`
    /// ([`BackupContents::settings`]).
    pub async fn restore(&self, source: PathBuf, with_settings: bool) -> Result<(), StoreError> {
        match self
            .write(Op::Restore {
                source,
                with_settings,
            })
            .await?
        {
            Outcome::Done => Ok(()),
            Outcome::Refused(e) => Err(e),
            other => Err(unexpected(&other)),
        }
    }

    /// The data directory's folder for the data restores replaced.
    pub fn replaced_dir(&self) -> PathBuf {
        self.data_dir().join(REPLACED_DIR)
    }
}

/// Removes a scratch file, logging why it could not be.
pub fn remove_scratch(path: &Path) {
    if let Err(e) = std::fs::remove_file(path)
        && e.kind() != std::io::ErrorKind::NotFound
    {
        tracing::warn!(error = %e, path = %path.display(), "cannot remove a restore's scratch file");
    }
}

fn open_and_count(
    path: &Path,
    data: &[u8],
    header: BackupHeader,
    migrate: Migrate,
) -> Result<BackupContents, BackupError> {
    std::fs::write(path, data)
        .map_err(|e| BackupError::Store(StoreError::Internal(format!("writing a restore: {e}"))))?;
    let db = database_builder()
        .open(path)
        .map_err(|e| BackupError::Invalid(format!("the data is not a database: {e}")))?;
    // Before the migration, which creates every missing table.
    let settings = settings::has_table(&db.begin_read().map_err(store_err)?)?;
    migrate(&db).map_err(|e| match e {
        StoreError::NewerSchema { found, supported } => BackupError::TooNew { found, supported },
        StoreError::Corrupted(why) => BackupError::Invalid(why),
        other => BackupError::Store(other),
    })?;
    let txn = db.begin_read().map_err(store_err)?;
    let contents = BackupContents {
        users: count(&txn, USERS)?,
        games: count(&txn, GAMES)?,
        owners: count(&txn, OWNERS)?,
        settings,
        header,
    };
    // Every record must decode, or the restore would replace good data with bad.
    let users = txn.open_table(USERS).map_err(store_err)?;
    for entry in users.iter().map_err(store_err)? {
        let (_, bytes) = entry.map_err(store_err)?;
        decode_user(bytes.value()).map_err(|e| BackupError::Invalid(e.to_string()))?;
    }
    let games = txn.open_table(GAMES).map_err(store_err)?;
    for entry in games.iter().map_err(store_err)? {
        let (_, bytes) = entry.map_err(store_err)?;
        decode_game(bytes.value()).map_err(|e| BackupError::Invalid(e.to_string()))?;
    }
    Ok(contents)
}

/// Applies a restore; `None` for the other writes.
pub(super) fn apply(txn: &WriteTransaction, op: &Op) -> Option<Result<Outcome, StoreError>> {
    match op {
        Op::Restore {
            source,
            with_settings,
        } => Some(apply_restore(txn, source, *with_settings)),
        _ => None,
    }
}

/// The writer's half of [`Store::restore`].
fn apply_restore(
    txn: &WriteTransaction,
    source: &Path,
    with_settings: bool,
) -> Result<Outcome, StoreError> {
    let db = match database_builder().open(source) {
        Ok(db) => db,
        Err(e) => {
            return Ok(Outcome::Refused(StoreError::Refused(format!(
                "the verified backup cannot be opened: {e}"
            ))));
        }
    };
    let src = db.begin_read().map_err(store_err)?;
    copy_all(&src, txn, with_settings)?;
    // Sessions, open rooms and reset codes name accounts by id; after a restore the ids are
    // the backup's.
    txn.delete_table(RESET_CODES).map_err(store_err)?;
    txn.open_table(RESET_CODES).map_err(store_err)?;
    txn.delete_table(SESSIONS).map_err(store_err)?;
    txn.open_table(SESSIONS).map_err(store_err)?;
    txn.delete_table(OPEN_ROOMS).map_err(store_err)?;
    txn.open_table(OPEN_ROOMS).map_err(store_err)?;
    Ok(Outcome::Done)
}
