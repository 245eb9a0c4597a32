//! The kiosk's settings an owner saved: the idle time, the public address, the
//! default language and the guests' Wi-Fi network, as one record written in one transaction,
//! so a reader sees one owner's whole save or another's, never a mix.
//!
//! `settings` is a table of its own beside the schema-2 tables (as `owners` and `seasons`),
//! so an older release still opens the file (a rolled-back update runs on the flags again).
//! It is in backups; a backup made before the table existed restores with the kiosk's
//! current settings kept (`backup`).

use redb::{TableDefinition, WriteTransaction};
use rooms::StoreError;
use serde::{Deserialize, Serialize};

use super::error::store_err;
use super::handle::Store;
use super::op::{Op, Outcome};
use super::records::{SettingsRecord, decode, encode};

/// [`KEY`] → `VersionedSettings`.
pub(super) const SETTINGS: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("settings");

/// The one row of [`SETTINGS`].
const KEY: &str = "kiosk";

#[derive(Serialize, Deserialize)]
enum VersionedSettings {
    V1(SettingsRecord),
}

impl Store {
    /// The owner's saved settings; `None` when none are saved (the flags apply).
    pub fn settings_blocking(&self) -> Result<Option<SettingsRecord>, StoreError> {
        self.read(|txn| {
            let table = txn.open_table(SETTINGS).map_err(store_err)?;
            table
                .get(KEY)
                .map_err(store_err)?
                .map(|bytes| {
                    decode::<VersionedSettings>(bytes.value(), "settings")
                        .map(|VersionedSettings::V1(s)| s)
                })
                .transpose()
        })
    }

    /// Stores `settings` durably, replacing the saved ones whole; `None` forgets them.
    pub async fn set_settings(&self, settings: Option<SettingsRecord>) -> Result<(), StoreError> {
        self.write(Op::SetSettings(settings.map(Box::new)))
            .await
            .map(drop)
    }
}

/// Creates the table (every open).
pub(super) fn create_tables(txn: &WriteTransaction) -> Result<(), StoreError> {
    txn.open_table(SETTINGS).map_err(store_err)?;
    Ok(())
}

/// Applies a settings write; `None` for the other writes.
pub(super) fn apply(txn: &WriteTransaction, op: &Op) -> Option<Result<Outcome, StoreError>> {
    match op {
        Op::SetSettings(settings) => Some(set(txn, settings.as_deref())),
        _ => None,
    }
}

/// The writer's half of [`Store::set_settings`].
fn set(txn: &WriteTransaction, settings: Option<&SettingsRecord>) -> Result<Outcome, StoreError> {
    let mut table = txn.open_table(SETTINGS).map_err(store_err)?;
    match settings {
        Some(record) => {
            let bytes = encode(&VersionedSettings::V1(record.clone()))?;
            table.insert(KEY, bytes.as_slice()).map_err(store_err)?;
        }
        None => {
            table.remove(KEY).map_err(store_err)?;
        }
    }
    Ok(Outcome::Done)
}

/// Whether a database holds the settings table (a backup written before it existed does not).
pub(super) fn has_table(txn: &redb::ReadTransaction) -> Result<bool, StoreError> {
    use redb::TableHandle as _;
    Ok(txn
        .list_tables()
        .map_err(store_err)?
        .any(|t| t.name() == SETTINGS.name()))
}
