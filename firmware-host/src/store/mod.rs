//! The redb store: accounts, sessions, finished games, ratings, open rooms and owner mode's
//! data, in one file.
//!
//! Reads open their own read transaction on the calling thread and block (they are short);
//! their functions end in `_blocking`. Writes go to ONE writer thread over a channel
//! (`writer`): it takes every request waiting in the channel, applies them in one write
//! transaction and commits once (group commit), so throughput grows with load instead of being
//! capped by the disk's sync latency. Each request is answered through a oneshot once the
//! commit that holds it is durable. The writes of play (results, event games, open rooms'
//! saves, events' states) are made durable by the play journal (`journal`): committed to redb
//! without a sync, appended to the journal file, which is synced, and written into the
//! database file by a checkpoint every few minutes — a result costs the card one small append
//! instead of a dozen B-tree pages. Every other write (accounts, sessions, owner mode) is a
//! durable commit of its own, and a checkpoint. Open rooms' saves and deletes are the
//! exception to the answer's rule: the writer keeps the newest of each room in memory,
//! answers at once, and writes them with the next commit — a result's, or one of their own
//! [`DURABLE_WITHIN`] after the oldest came (a power cut or a crash loses at most that much
//! of an open game). A room saved at every move so costs the card one write a second however
//! many rooms play, not one B-tree path per move.
//!
//! When the card fails (full, I/O errors) the failing writes get a [`StoreError`] whose
//! [`is_unavailable`](StoreError::is_unavailable) is true, [`Store::health`] reports it,
//! and the writer reopens the database (redb refuses every operation after an I/O error until
//! then) and probes with a small durable write every [`HEAL_EVERY`] until one commits: the
//! store heals by itself. Free space is watched so that a nearly full card is reported before
//! it is full.
//!
//! # Layout
//!
//! Bottom up; a module names only those above it in this list, never one below.
//!
//! - `error`: redb's errors by cause ([`StoreError`]: full, failing, refused …).
//! - `records`: every stored record type and its versioned encoding.
//! - `op`: the write vocabulary, `Op` (every write, by noun) and `Outcome`.
//! - `ratings`: the ratings copy in memory, and which writes touch it.
//! - [`health`]: what `/api/health` and the status display say about the card.
//! - `shared`: what the handle and the writer share (`Core`): the database (reopened after a
//!   failure), health, the ratings copy.
//! - `handle`: [`Store`], the handle every caller holds (`write`, `read`, shutdown).
//! - The nouns, each with its tables, its writes (`apply`) and its reads (`impl Store`):
//!   - `meta`: the schema version and the id counters.
//!   - `sessions`: sign-in sessions, at most [`SESSIONS_KEPT`] a player (A2, S3).
//!   - `accounts`: players and their unique names; registering signs in (A1).
//!   - `open_rooms`: each open room's state, restored at start (P3's lost second).
//!   - `ladders`: leaderboards, ratings for a game's start, the ratings copy's reads (E1, E5).
//!   - `games`: finished games; a rated result with both ratings in one transaction (P3, E2);
//!     at most [`UNRATED_KEPT`] unrated games a player.
//!   - `events`: arena events, and each event game's points stored in the transaction of
//!     its result (EV1, EV4, EV7).
//!   - `puzzles`: puzzle ratings of players and puzzles, tries, recent attempts, best
//!     streaks, the daily solve counts (PZ3-PZ5).
//!   - `reset_codes`, `settings`, `owners`, `seasons`, `backup`: owner mode (O1-O3).
//! - `dispatch`: the one list of nouns: their tables and the writes each takes.
//! - `schema`: every table created at open; older files migrated to [`SCHEMA_VERSION`].
//! - `journal`: the play journal: records, appends, checkpoints' positions, the recovery of
//!   what a crash left in it.
//! - `writer`: the writer thread: group commit, the durability deadline, healing.
//! - this module: opening the store, and [`Persistence`] for the rooms crate.
//! - [`fill`]: a large store quickly, for benchmarks.
//!
//! # Adding a noun
//!
//! A new noun (say `events`) is one module and one line in `dispatch`'s `NOUNS`:
//!
//! 1. `events.rs`: its `TableDefinition`s, `create_tables`, its writes as
//!    `apply(txn, op) -> Option<Result<Outcome, StoreError>>` (`None` for other nouns' ops),
//!    and its reads and async writes as methods in an `impl Store` block. Its records go in
//!    `records` when an `Op` carries them; its `Op` variants go in `op`, and `ratings::touched`
//!    says whether they rewrite a user record (the compiler asks).
//! 2. One line in `NOUNS`. Its tables are created at the next open of any file; a table of a
//!    new noun needs no schema version (older releases ignore it).
//!
//! A write that must be in the same transaction as another noun's (an event's points with
//! the rated result that earned them) is one `Op` of the later noun, whose write calls the
//! earlier noun's (`events` calls `games::commit_game`): every write of a batch is in one
//! transaction, so it lands with the result or not at all.
//! A table that must survive a restore is copied by `backup::copy_all`.

mod accounts;
mod backup;
mod dispatch;
mod error;
mod events;
pub mod fill;
mod games;
mod handle;
pub mod health;
mod journal;
mod ladders;
mod meta;
mod op;
mod open_rooms;
mod owners;
mod puzzles;
mod ratings;
mod records;
mod reset_codes;
mod schema;
mod seasons;
mod sessions;
mod settings;
mod shared;
#[cfg(test)]
mod tests;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc;

use engine::Game;
use protocol::records::{FinishedGame, RatingUpdate, UserId};
use rooms::{Persistence, StoreError, StoreFuture};

pub use accounts::RegisterError;
pub use backup::{
    BACKUP_EXTENSION, BACKUP_FORMAT, BACKUP_FORMAT_VERSION, BACKUPS_KEPT, BackupContents,
    BackupError, BackupHeader, KeptBackup, MAX_BACKUP_BYTES, REPLACED_DIR, is_backup_name,
    keep_backup, kept_backups, prune_backups, remove_scratch,
};
pub use events::CreateEventError;
pub use games::UNRATED_KEPT;
pub use handle::Store;
pub use health::{StorageHealth, StorageState};
pub use journal::{CHECKPOINT_AFTER, JOURNAL_BYTES, JOURNAL_FILE, JournalOpener};
pub use ladders::LeaderboardRow;
pub use meta::SCHEMA_VERSION;
pub use op::OwnerError;
pub use owners::{DELETED_NAME, OwnerRecord};
pub use puzzles::{PUZZLE_ATTEMPTS_KEPT, StreakLeader};
pub use records::{
    EventRecord, LadderStats, ResetCodeRecord, ResetGuess, ScreenRecord, SettingsRecord,
    StoredGame, StoredLanguage, StoredWifi, UserRecord,
};
pub use seasons::{PlayerSeason, SeasonRecord, SeasonRow};
pub use sessions::SESSIONS_KEPT;
pub use shared::{CACHE_BYTES, Opener, create_database, database_builder, random_access};
pub use writer::{DURABLE_WITHIN, HEAL_EVERY, LOSS_BOUND};

/// The database file inside the data directory.
pub const DB_FILE: &str = "xo-kiosk.redb";

impl Store {
    /// Opens (creating when missing) the data directory and its database file, migrates it to
    /// [`SCHEMA_VERSION`], and starts the writer thread.
    /// Writes of play are made durable through the journal ([`JOURNAL_FILE`], `journal`).
    pub fn open_blocking(data_dir: &Path) -> Result<Store, StoreError> {
        let path = data_dir.join(DB_FILE);
        Store::open_with_journal_blocking(
            data_dir,
            Box::new(move || create_database(&path)),
            Some(journal::file_opener(data_dir)),
        )
    }

    /// [`Store::open_blocking`] with the database opened by `opener` (at start, and again
    /// after each failure), and without a journal: every write is a durable commit. The
    /// fault-injection tests wrap the file in a `StorageBackend` that fails on command.
    pub fn open_with_blocking(data_dir: &Path, opener: Opener) -> Result<Store, StoreError> {
        Store::open_with_journal_blocking(data_dir, opener, None)
    }

    /// [`Store::open_with_blocking`] with the journal's storage opened by `journal` (the
    /// fault-injection tests give both a backend that fails on command).
    pub fn open_with_journal_blocking(
        data_dir: &Path,
        opener: Opener,
        journal: Option<JournalOpener>,
    ) -> Result<Store, StoreError> {
        std::fs::create_dir_all(data_dir).map_err(|e| {
            let mut err = error::io_error(&e);
            if let StoreError::Io { message, .. } = &mut err {
                *message = format!("cannot create data directory {}: {e}", data_dir.display());
            }
            err
        })?;
        let path = data_dir.join(DB_FILE);
        let db = opener().map_err(error::store_err)?;
        schema::migrate(&db)?;
        // Before any other write: the results acknowledged since the last durable commit.
        let journal = journal
            .map(|opener| journal::recover(&db, &opener).map(|j| (j, opener)))
            .transpose()?;
        purge_expired(&db, crate::clock::now_ms())?;
        let core = Arc::new(shared::Core::new(db, opener, path, data_dir.to_owned()));
        if let Some(db) = core.db().ok()
            && let Err(e) = ladders::load(&core.ratings, &db)
        {
            // Not fatal: rating reads go to the file, as they would for a damaged record.
            tracing::warn!(error = %e, "loading the ratings into memory failed");
        }
        core.check_space();
        let (sender, receiver) = mpsc::channel();
        let writer = writer::Writer::new(Arc::clone(&core), journal);
        let writer = std::thread::Builder::new()
            .name("store-writer".into())
            .spawn(move || writer.run(&receiver))
            .map_err(|e| StoreError::Internal(format!("cannot start the store writer: {e}")))?;
        Ok(Store::new(core, sender, writer))
    }

    /// Checks a backup file (`backup`'s module docs) and leaves its database part, migrated to
    /// this schema, in a scratch file of the data directory, for [`Store::restore`]; the caller
    /// removes it.
    pub fn verify_backup_blocking(
        &self,
        file: &[u8],
    ) -> Result<(BackupContents, PathBuf), BackupError> {
        self.verify_backup(file, schema::migrate)
    }
}

/// Removes expired sessions (A2: 30 days) and password reset codes, so the tables do not grow
/// forever. Runs at open, before the writer starts.
fn purge_expired(db: &redb::Database, now_ms: u64) -> Result<(), StoreError> {
    let txn = db.begin_write().map_err(error::store_err)?;
    let purged = sessions::purge_expired(&txn, now_ms)?;
    let codes = reset_codes::purge_expired(&txn, now_ms)?;
    // Nothing expired (the usual start): no commit, so no sync of the card.
    if purged + codes > 0 {
        txn.commit().map_err(error::store_err)?;
    } else {
        txn.abort().map_err(error::store_err)?;
    }
    if purged > 0 {
        tracing::info!(purged, "expired sessions removed");
    }
    if codes > 0 {
        tracing::info!(codes, "expired password reset codes removed");
    }
    Ok(())
}

impl Persistence for Store {
    fn commit_game(&self, game: &FinishedGame) -> StoreFuture<Vec<RatingUpdate>> {
        Box::pin(self.store_game(game))
    }

    fn ratings_blocking(&self, game: Game, users: &[UserId]) -> Result<Vec<i32>, StoreError> {
        self.ratings_from_file(game, users)
    }

    fn ratings_in_memory(&self, game: Game, users: &[UserId]) -> Option<Vec<i32>> {
        self.core().ratings.get(game, users)
    }

    fn save_room(&self, room_id: &str, state: Vec<u8>) -> StoreFuture<()> {
        Box::pin(self.save_room_write(room_id, state))
    }

    fn delete_room(&self, room_id: &str) -> StoreFuture<()> {
        Box::pin(self.delete_room_write(room_id))
    }

    fn load_rooms_blocking(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        self.load_rooms()
    }

    fn room_id_taken_blocking(&self, room_id: &str) -> Result<bool, StoreError> {
        self.room_id_taken(room_id)
    }

    fn record_puzzle(&self, result: &rooms::PuzzleResult) -> StoreFuture<rooms::PuzzleRecorded> {
        Box::pin(self.puzzle_write(result))
    }

    fn puzzle_standing_blocking(
        &self,
        user: Option<UserId>,
        puzzle: u32,
    ) -> Result<rooms::PuzzleStanding, StoreError> {
        self.puzzle_standing(user, puzzle)
    }

    fn save_daily_solves(&self, day: u32, counts: [u32; 2]) -> StoreFuture<()> {
        Box::pin(self.daily_write(day, counts))
    }

    fn daily_solves_blocking(&self, day: u32) -> Result<[u32; 2], StoreError> {
        self.daily_solves_stored_blocking(day)
    }
}
