//! What the store's handle and its writer thread share: the database (reopened after a
//! failure of the card), the card's health, and the ratings copy in memory.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

use redb::{Database, ReadTransaction, ReadableDatabase};
use rooms::StoreError;

use super::error::store_err;
use super::health::{self, StorageHealth};
use super::ratings::Ratings;

/// Opens the database file; called at start and again after a failure.
pub type Opener = Box<dyn Fn() -> Result<Database, redb::DatabaseError> + Send + Sync>;

/// How long a reopen waits for readers still holding the old database.
const REOPEN_WAIT: Duration = Duration::from_secs(2);

/// The database's page cache, in bytes. redb's default is 1 GiB: a kiosk running for months
/// would keep every page it ever read (an owner's backup reads them all) and its resident
/// memory would grow with the file. The pages every request touches (sessions, open rooms,
/// the right edge of the games tables) fit many times over; the rest are read again from the
/// operating system's page cache, which gives its memory back when it is needed.
pub const CACHE_BYTES: usize = 2 * 1024 * 1024;

/// How every database of the store is opened: with a bounded page cache ([`CACHE_BYTES`]).
#[must_use]
pub fn database_builder() -> redb::Builder {
    let mut builder = Database::builder();
    builder.set_cache_size(CACHE_BYTES);
    builder
}

/// Opens (creating when missing) the database file at `path` for random access
/// ([`random_access`]), with [`database_builder`]'s settings.
pub fn create_database(path: &std::path::Path) -> Result<Database, redb::DatabaseError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    random_access(&file);
    database_builder().create_with_backend(redb::backends::FileBackend::new(file)?)
}

/// Tells the kernel that `file` is read at random places, page by page: no read-ahead.
/// Besides sparing reads, this keeps the file's pages in the page cache one 4 KiB page each.
/// Pages read ahead are kept in large folios (Linux 6.x on ext4), and a 4 KiB write into one
/// dirties — and counts as written — the whole folio: measured on this machine's 6.18 kernel,
/// 80 KiB counted for each 4 KiB page written after a read-ahead, 4 KiB with this advice.
///
/// The file's pages already cached (written, or read by an earlier process) keep their folios,
/// so they are dropped from the page cache first (they are clean: what was written was synced
/// or is written back first).
pub fn random_access(file: &std::fs::File) {
    use rustix::fs::{Advice, fadvise};
    // Dirty pages would stay cached; a failing card shows itself at the first real write.
    let _synced = file.sync_data();
    if let Err(e) = fadvise(file, 0, None, Advice::DontNeed)
        .and_then(|()| fadvise(file, 0, None, Advice::Random))
    {
        tracing::debug!(error = %e, "posix_fadvise refused; reads keep their read-ahead");
    }
}

/// What the handle and the writer thread share.
pub(crate) struct Core {
    /// `None` while the writer reopens the database after a failure.
    db: RwLock<Option<Arc<Database>>>,
    opener: Opener,
    pub(super) path: PathBuf,
    pub(super) data_dir: PathBuf,
    health: Mutex<health::Tracker>,
    /// Every player's ratings, for game starts (`ratings`).
    pub(super) ratings: Ratings,
}

impl std::fmt::Debug for Core {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Core").field("path", &self.path).finish()
    }
}

impl Core {
    pub(super) fn new(db: Database, opener: Opener, path: PathBuf, data_dir: PathBuf) -> Core {
        Core {
            db: RwLock::new(Some(Arc::new(db))),
            opener,
            path,
            data_dir,
            health: Mutex::new(health::Tracker::default()),
            ratings: Ratings::default(),
        }
    }

    pub(super) fn db(&self) -> Result<Arc<Database>, StoreError> {
        self.db
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
            .ok_or(StoreError::Reopening)
    }

    fn tracker(&self) -> std::sync::MutexGuard<'_, health::Tracker> {
        self.health
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(super) fn set_failing(&self, e: &StoreError) {
        self.tracker().failing(e);
    }

    pub(super) fn set_working(&self) {
        self.tracker().working();
    }

    pub(super) fn check_space(&self) -> StorageHealth {
        let space = health::free_space(&self.data_dir);
        self.tracker().report(space)
    }

    /// Closes the database and opens the file again (redb refuses every operation after an
    /// I/O error until then). Waits briefly for readers to let go of the old handle, since
    /// only one handle may hold the file.
    pub(super) fn reopen(&self) -> Result<(), StoreError> {
        let old = self
            .db
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(mut db) = old {
            let until = Instant::now() + REOPEN_WAIT;
            loop {
                match Arc::try_unwrap(db) {
                    Ok(db) => {
                        drop(db);
                        break;
                    }
                    Err(shared) if Instant::now() < until => {
                        db = shared;
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    Err(shared) => {
                        *self
                            .db
                            .write()
                            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(shared);
                        return Err(StoreError::Reopening);
                    }
                }
            }
        }
        let db = (self.opener)().map_err(store_err)?;
        tracing::info!(path = %self.path.display(), "database reopened");
        *self
            .db
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Arc::new(db));
        Ok(())
    }

    /// Runs `f` in a read transaction. A failure of the card is noted for the writer to heal.
    pub(super) fn read<T>(
        &self,
        f: impl FnOnce(&ReadTransaction) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let db = self.db()?;
        let result = db.begin_read().map_err(store_err).and_then(|txn| f(&txn));
        if let Err(e) = &result
            && e.is_unavailable()
        {
            self.set_failing(e);
        }
        result
    }
}
