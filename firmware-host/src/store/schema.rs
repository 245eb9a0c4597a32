//! The file's layout over releases: every table created at open, and a file of an older
//! schema migrated to [`SCHEMA_VERSION`] (tested against files written by every earlier
//! version, `tests/fixtures/`).

use redb::{Database, ReadableTable, WriteTransaction};
use rooms::StoreError;

use super::dispatch;
use super::error::store_err;
use super::games;
use super::meta::{self, META, SCHEMA_VERSION};
use super::records::u64_from_meta;

/// Creates every table, and checks the schema version, migrating an older file in the same
/// transaction (all of it or nothing). A file that already has every table at this schema is
/// left as it is: even a commit that changes nothing syncs the card, at every start.
pub(super) fn migrate(db: &Database) -> Result<(), StoreError> {
    let txn = db.begin_write().map_err(store_err)?;
    let tables_before = count_tables(&txn)?;
    let mut changed = false;
    {
        dispatch::create_tables(&txn)?;
        let meta_table = txn.open_table(META).map_err(store_err)?;
        let found = meta_table
            .get(meta::SCHEMA)
            .map_err(store_err)?
            .map(|v| u64_from_meta(v.value()))
            .transpose()?;
        drop(meta_table);
        match found {
            // A new file, or one written by this version.
            None | Some(SCHEMA_VERSION) => changed |= found.is_none(),
            Some(1) => {
                changed = true;
                let indexed = games::migrate_1_to_2(&txn)?;
                tracing::info!(indexed, "database migrated from schema 1 to 2");
            }
            Some(v) => {
                return Err(StoreError::NewerSchema {
                    found: v,
                    supported: SCHEMA_VERSION,
                });
            }
        }
        if changed {
            meta::set(&txn, meta::SCHEMA, SCHEMA_VERSION)?;
        }
    }
    // A table this version added to a file of the same schema was just created.
    if changed || count_tables(&txn)? != tables_before {
        txn.commit().map_err(store_err)
    } else {
        txn.abort().map_err(store_err)
    }
}

fn count_tables(txn: &WriteTransaction) -> Result<usize, StoreError> {
    Ok(txn.list_tables().map_err(store_err)?.count())
}
