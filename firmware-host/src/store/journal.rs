//! The play journal: how a result is made durable with one small write instead of a commit of
//! the database.
//!
//! A durable redb commit rewrites every B-tree page on the path of each change, and the table
//! of tables and the free-page tree besides: a rated result touches five tables and cost about
//! eleven 4 KiB pages and a sync, for a record of a few hundred bytes (SD cards wear by the
//! page written). So the writes of play — results, event games, open rooms' saves, events'
//! states, daily solve counts — are committed to redb without a sync (`Durability::None`:
//! redb keeps the pages in memory and readers see them at once) and made durable by appending
//! them to this file, which is synced; the caller is answered after the sync. A *checkpoint*
//! (a durable redb commit) writes the pages once for all the results since the last one: when
//! the journal is three quarters full, [`CHECKPOINT_AFTER`] after its oldest record, at every
//! other durable write (accounts, owner mode), and at shutdown.
//!
//! Every commit records in `meta` the journal's position after its own record (`epoch`,
//! `offset`), so a durable commit also says which records it holds. After a crash or a power
//! cut redb opens at its last durable commit, and [`recover`] applies again, in order, the
//! records after that position: exactly the results acknowledged since. A checkpoint starts a
//! new epoch at offset 0; records of another epoch, or one whose checksum fails (a write the
//! power cut tore, never acknowledged), end the journal. A whole record this version cannot
//! read (written by a newer version it was rolled back from) ends it too: it and the records
//! after it are not applied but kept in `meta` (`journal_unread_EPOCH_OFFSET`) and logged as an
//! error, and the store opens.
//!
//! The file is written once in full when it is created ([`JOURNAL_BYTES`] of zeros), so that an
//! append never allocates a block: the card then syncs the data page alone, without the file
//! system's own journal, and a nearly full card still takes a result.

use std::path::Path;
use std::time::{Duration, Instant};

use protocol::records::FinishedGame;
use redb::{ReadTransaction, ReadableDatabase, StorageBackend, WriteTransaction};
use rooms::StoreError;
use serde::{Deserialize, Serialize};

use super::error::{io_error, store_err};
use super::meta::META;
use super::op::Op;
use super::records::{EventGame, SavedArena};

/// The journal file inside the data directory.
pub const JOURNAL_FILE: &str = "xo-kiosk.journal";

/// The journal's size, written at creation.
pub const JOURNAL_BYTES: u64 = 1024 * 1024;

/// The offset from which the next append first checkpoints.
const CHECKPOINT_AT: u64 = JOURNAL_BYTES / 4 * 3;

/// The longest a record waits in the journal before a checkpoint takes it into the database:
/// what a start after a power cut applies again is at most this much play.
pub const CHECKPOINT_AFTER: Duration = Duration::from_secs(300);

/// `meta` key of the journal position a commit leaves: epoch, then offset (u64 LE each).
const POSITION: &str = "journal_position";

/// A record: magic, payload length, CRC-32 of epoch and payload, epoch, payload.
const MAGIC: [u8; 4] = *b"XOJ1";
const HEAD: usize = 4 + 4 + 4 + 8;

/// Opens the journal's storage (at start, and again after each failure of the card).
pub type JournalOpener = Box<dyn Fn() -> Result<Box<dyn StorageBackend>, StoreError> + Send + Sync>;

/// The journal of the data directory `data_dir`, as a file opened for random access.
pub fn file_opener(data_dir: &Path) -> JournalOpener {
    let path = data_dir.join(JOURNAL_FILE);
    Box::new(move || {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| io_error(&e))?;
        preallocate(&file)?;
        super::shared::random_access(&file);
        let backend = redb::backends::FileBackend::new(file).map_err(store_err)?;
        Ok(Box::new(backend) as Box<dyn StorageBackend>)
    })
}

/// A write of play as the journal holds it: the `Op`s whose replay gives the same state.
/// (Accounts and owner mode's writes are not here: they are rare, and some carry secrets.)
#[derive(Debug, Clone, Serialize, Deserialize)]
enum Entry {
    Game(FinishedGame),
    EventGame {
        game: FinishedGame,
        event: String,
        record: EventGame,
    },
    SaveRoom {
        id: String,
        state: Vec<u8>,
    },
    DeleteRoom {
        id: String,
    },
    SaveEvent {
        id: String,
        saved: SavedArena,
    },
    DailySolves {
        day: u32,
        counts: [u32; 2],
    },
}

impl Entry {
    fn of(op: &Op) -> Option<Entry> {
        Some(match op {
            Op::CommitGame(game) => Entry::Game((**game).clone()),
            Op::CommitEventGame {
                game,
                event,
                record,
            } => Entry::EventGame {
                game: (**game).clone(),
                event: event.clone(),
                record: (**record).clone(),
            },
            Op::SaveRoom { id, state } => Entry::SaveRoom {
                id: id.clone(),
                state: state.clone(),
            },
            Op::DeleteRoom { id } => Entry::DeleteRoom { id: id.clone() },
            Op::SaveEvent { id, saved } => Entry::SaveEvent {
                id: id.clone(),
                saved: (**saved).clone(),
            },
            Op::DailySolves { day, counts } => Entry::DailySolves {
                day: *day,
                counts: *counts,
            },
            _ => return None,
        })
    }

    fn into_op(self) -> Op {
        match self {
            Entry::Game(game) => Op::CommitGame(Box::new(game)),
            Entry::EventGame {
                game,
                event,
                record,
            } => Op::CommitEventGame {
                game: Box::new(game),
                event,
                record: Box::new(record),
            },
            Entry::SaveRoom { id, state } => Op::SaveRoom { id, state },
            Entry::DeleteRoom { id } => Op::DeleteRoom { id },
            Entry::SaveEvent { id, saved } => Op::SaveEvent {
                id,
                saved: Box::new(saved),
            },
            Entry::DailySolves { day, counts } => Op::DailySolves { day, counts },
        }
    }
}

/// Whether `op` is a write of play, which the journal makes durable.
pub(super) fn takes(op: &Op) -> bool {
    matches!(
        op,
        Op::CommitGame(_)
            | Op::CommitEventGame { .. }
            | Op::SaveRoom { .. }
            | Op::DeleteRoom { .. }
            | Op::SaveEvent { .. }
            | Op::DailySolves { .. }
    )
}

/// Where the journal stands: the epoch of its records and the offset of the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Position {
    pub epoch: u64,
    pub offset: u64,
}

/// The writer's journal.
#[derive(Debug)]
pub(super) struct Journal {
    backend: Box<dyn StorageBackend>,
    pub(super) at: Position,
    /// When the oldest record not yet in a durable commit was written.
    oldest: Option<Instant>,
}

/// A record encoded for [`Journal::append`], with the position after it.
pub(super) struct Record {
    bytes: Vec<u8>,
    pub(super) after: Position,
}

impl Journal {
    /// The journal at `at` (the position the database holds, after [`recover`]).
    pub(super) fn new(backend: Box<dyn StorageBackend>, at: Position) -> Journal {
        Journal {
            backend,
            at,
            oldest: None,
        }
    }

    /// Encodes `ops` as the next record; `None` when one of them is not a write of play or
    /// the record would not fit after a checkpoint either.
    pub(super) fn record<'o>(&self, ops: impl IntoIterator<Item = &'o Op>) -> Option<Record> {
        let entries: Option<Vec<Entry>> = ops.into_iter().map(Entry::of).collect();
        let payload = postcard::to_allocvec(&entries?).ok()?;
        let len = (HEAD + payload.len()) as u64;
        if len > CHECKPOINT_AT {
            return None;
        }
        let mut bytes = Vec::with_capacity(HEAD + payload.len());
        bytes.extend_from_slice(&MAGIC);
        bytes.extend_from_slice(&u32::try_from(payload.len()).ok()?.to_le_bytes());
        let mut crc = crc32fast::Hasher::new();
        crc.update(&self.at.epoch.to_le_bytes());
        crc.update(&payload);
        bytes.extend_from_slice(&crc.finalize().to_le_bytes());
        bytes.extend_from_slice(&self.at.epoch.to_le_bytes());
        bytes.extend_from_slice(&payload);
        Some(Record {
            bytes,
            after: Position {
                epoch: self.at.epoch,
                offset: self.at.offset + len,
            },
        })
    }

    /// Whether `record` fits before the checkpoint mark.
    pub(super) fn fits(&self, record: &Record) -> bool {
        record.after.offset <= CHECKPOINT_AT
    }

    /// Writes `record` and syncs it: once this returns, the writes it holds survive a power
    /// cut.
    pub(super) fn append(&mut self, record: &Record) -> Result<(), StoreError> {
        let io = |e: std::io::Error| io_error(&e);
        self.backend
            .write(self.at.offset, &record.bytes)
            .map_err(io)?;
        self.backend.sync_data().map_err(io)?;
        self.at = record.after;
        self.oldest.get_or_insert_with(Instant::now);
        Ok(())
    }

    /// When a checkpoint is due: [`CHECKPOINT_AFTER`] after the oldest record.
    pub(super) fn checkpoint_due(&self) -> Option<Instant> {
        self.oldest.map(|t| t + CHECKPOINT_AFTER)
    }

    /// The position a checkpoint leaves: the next epoch, from the start of the file.
    pub(super) fn next_epoch(&self) -> Position {
        Position {
            epoch: self.at.epoch + 1,
            offset: 0,
        }
    }

    /// A durable commit that wrote `at` into the database holds every record before it.
    pub(super) fn checkpointed(&mut self, at: Position) {
        self.at = at;
        self.oldest = None;
    }
}

/// Writes `at` as the position the commit of `txn` leaves.
pub(super) fn set_position(txn: &WriteTransaction, at: Position) -> Result<(), StoreError> {
    let mut value = [0u8; 16];
    value[..8].copy_from_slice(&at.epoch.to_le_bytes());
    value[8..].copy_from_slice(&at.offset.to_le_bytes());
    txn.open_table(META)
        .map_err(store_err)?
        .insert(POSITION, value.as_slice())
        .map_err(store_err)?;
    Ok(())
}

/// The position the database's last commit left ((0, 0) in a file that never had one).
pub(super) fn position(txn: &ReadTransaction) -> Result<Position, StoreError> {
    let meta = txn.open_table(META).map_err(store_err)?;
    let Some(value) = meta.get(POSITION).map_err(store_err)? else {
        return Ok(Position {
            epoch: 0,
            offset: 0,
        });
    };
    let value = value.value();
    let word = |range: std::ops::Range<usize>| {
        value
            .get(range)
            .and_then(|b| b.try_into().ok())
            .map(u64::from_le_bytes)
            .ok_or_else(|| StoreError::Corrupted("the journal position is damaged".into()))
    };
    Ok(Position {
        epoch: word(0..8)?,
        offset: word(8..16)?,
    })
}

/// Makes the journal's file [`JOURNAL_BYTES`] long with every block written, so that appends
/// never allocate.
fn preallocate(file: &std::fs::File) -> Result<(), StoreError> {
    use std::os::unix::fs::FileExt;
    let len = file.metadata().map_err(|e| io_error(&e))?.len();
    if len >= JOURNAL_BYTES {
        return Ok(());
    }
    let zeros = vec![0u8; 64 * 1024];
    let mut offset = len;
    while offset < JOURNAL_BYTES {
        let n = zeros.len().min((JOURNAL_BYTES - offset) as usize);
        file.write_all_at(&zeros[..n], offset)
            .map_err(|e| io_error(&e))?;
        offset += n as u64;
    }
    file.sync_data().map_err(|e| io_error(&e))
}

/// The records of epoch `at.epoch` from `at.offset` on, in order, up to the first that is
/// missing, torn or of another epoch.
fn read_records(backend: &dyn StorageBackend, at: Position) -> Result<Records, StoreError> {
    let len = backend.len().map_err(|e| io_error(&e))?;
    let mut records = Vec::new();
    let mut offset = at.offset;
    while let Some(payload) = whole_record(backend, offset, at.epoch, len)? {
        let Ok(entries) = postcard::from_bytes::<Vec<Entry>>(&payload) else {
            // Whole, but of a kind this version does not know: written by a newer version
            // that was rolled back from. It and the records after it are kept, not applied.
            let mut end = offset;
            while let Some(payload) = whole_record(backend, end, at.epoch, len)? {
                end += (HEAD + payload.len()) as u64;
            }
            let mut bytes = vec![0u8; (end - offset) as usize];
            backend.read(offset, &mut bytes).map_err(|e| io_error(&e))?;
            return Ok(Records {
                records,
                unread: Some((offset, bytes)),
            });
        };
        offset += (HEAD + payload.len()) as u64;
        records.push((
            entries.into_iter().map(Entry::into_op).collect(),
            Position {
                epoch: at.epoch,
                offset,
            },
        ));
    }
    Ok(Records {
        records,
        unread: None,
    })
}

/// The records read back, in order, each with the position after it; and, when a whole record
/// could not be read (a newer version's), its offset and the bytes from it to the end of the
/// epoch's records.
struct Records {
    records: Vec<(Vec<Op>, Position)>,
    unread: Option<(u64, Vec<u8>)>,
}

/// The payload of the record at `offset` if a whole one of `epoch` is there (magic, epoch,
/// length and checksum right).
fn whole_record(
    backend: &dyn StorageBackend,
    offset: u64,
    epoch: u64,
    len: u64,
) -> Result<Option<Vec<u8>>, StoreError> {
    let io = |e: std::io::Error| io_error(&e);
    if offset + HEAD as u64 > len {
        return Ok(None);
    }
    let mut head = [0u8; HEAD];
    backend.read(offset, &mut head).map_err(io)?;
    let field = |r: std::ops::Range<usize>| head.get(r).unwrap_or_default();
    let size = u32::from_le_bytes(field(4..8).try_into().unwrap_or_default()) as u64;
    let crc = u32::from_le_bytes(field(8..12).try_into().unwrap_or_default());
    let found = u64::from_le_bytes(field(12..20).try_into().unwrap_or_default());
    if field(0..4) != MAGIC || found != epoch || offset + HEAD as u64 + size > len {
        return Ok(None);
    }
    let mut payload = vec![0u8; size as usize];
    backend
        .read(offset + HEAD as u64, &mut payload)
        .map_err(io)?;
    let mut check = crc32fast::Hasher::new();
    check.update(&epoch.to_le_bytes());
    check.update(&payload);
    Ok((check.finalize() == crc).then_some(payload))
}

/// Opens the journal and applies again, in one durable commit, every record the database
/// does not hold (those after its last durable commit's position), then starts a new epoch.
/// Called at start and after every reopen, before any other write.
pub(super) fn recover(db: &redb::Database, opener: &JournalOpener) -> Result<Journal, StoreError> {
    let backend = opener()?;
    let at = position(&db.begin_read().map_err(store_err)?)?;
    let Records { records, unread } = read_records(backend.as_ref(), at)?;
    if records.is_empty() && unread.is_none() {
        return Ok(Journal::new(backend, at));
    }
    let count = records.len();
    let next = Position {
        epoch: at.epoch + 1,
        offset: 0,
    };
    let mut txn = db.begin_write().map_err(store_err)?;
    txn.set_durability(redb::Durability::Immediate)
        .map_err(store_err)?;
    for (ops, _) in &records {
        // Each record was one commit; a write refused then is refused again, and one that
        // failed then was never journaled.
        for op in ops {
            if let Err(e) = super::dispatch::apply(&txn, op) {
                tracing::error!(error = %e, "a journaled write could not be applied again");
            }
        }
    }
    if let Some((offset, bytes)) = &unread {
        // Kept in the database (and so in backups) for the version that wrote them; the
        // journal itself is written over from the next epoch on.
        let key = format!("journal_unread_{}_{offset}", at.epoch);
        txn.open_table(META)
            .map_err(store_err)?
            .insert(key.as_str(), bytes.as_slice())
            .map_err(store_err)?;
        tracing::error!(
            bytes = bytes.len(),
            %key,
            "journal: records of a newer version (rolled back from) cannot be read by this \
             one; they are not applied, and kept in the database under that key"
        );
    }
    set_position(&txn, next)?;
    txn.commit().map_err(store_err)?;
    tracing::info!(
        records = count,
        "journal: writes after the last checkpoint applied again"
    );
    Ok(Journal::new(backend, next))
}
