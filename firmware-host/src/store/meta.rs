//! Named values of the file: the schema version, the counters that give users and games
//! their ids, and when the writer last probed a failing card.

use redb::{ReadableTable, TableDefinition, WriteTransaction};
use rooms::StoreError;

use super::error::store_err;
use super::records::u64_from_meta;

/// Named values (u64 little-endian): [`SCHEMA`], the counters, [`LAST_PROBE`].
pub(super) const META: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("meta");

/// The layout this build reads and writes. A file with a higher version is refused; a lower
/// one is migrated at open (`schema`).
///
/// - 1: the first release.
/// - 2: adds `user_unrated`, filled from the stored games.
pub const SCHEMA_VERSION: u64 = 2;

/// The layout the file was written in.
pub(super) const SCHEMA: &str = "schema_version";
/// When the writer last probed a failing card with a write (milliseconds since the epoch).
pub(super) const LAST_PROBE: &str = "last_probe_ms";

/// Creates the table (every open).
pub(super) fn create_tables(txn: &WriteTransaction) -> Result<(), StoreError> {
    txn.open_table(META).map_err(store_err)?;
    Ok(())
}

/// Takes the next value of counter `key`.
pub(super) fn next_counter(txn: &WriteTransaction, key: &str) -> Result<u64, StoreError> {
    let mut meta = txn.open_table(META).map_err(store_err)?;
    counter_in(&mut meta, key)
}

/// Takes the next value of counter `key` in the open meta table.
pub(super) fn counter_in(
    meta: &mut redb::Table<'_, &'static str, &'static [u8]>,
    key: &str,
) -> Result<u64, StoreError> {
    let current = meta
        .get(key)
        .map_err(store_err)?
        .map(|v| u64_from_meta(v.value()))
        .transpose()?
        .unwrap_or(0);
    meta.insert(key, (current + 1).to_le_bytes().as_slice())
        .map_err(store_err)?;
    Ok(current)
}

/// Writes `value` under `key`.
pub(super) fn set(txn: &WriteTransaction, key: &str, value: u64) -> Result<(), StoreError> {
    txn.open_table(META)
        .map_err(store_err)?
        .insert(key, value.to_le_bytes().as_slice())
        .map_err(store_err)?;
    Ok(())
}
