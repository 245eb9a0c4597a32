//! The kiosk's settings an owner saved: the idle time, the public address, the
//! default language and the guests' Wi-Fi network, as one record written in one transaction,
//! so a reader sees one owner's whole save or another's, never a mix. The screen's sleep
//! settings are a second row written in the same transaction: the first row keeps the bytes
//! older releases decode (a rolled-back update reads it and ignores the second).
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
use super::records::{ScreenRecord, SettingsRecord, decode, encode};

/// [`KEY`] → `VersionedSettings`.
pub(super) const SETTINGS: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("settings");

/// The row of [`SETTINGS`] every release reads.
const KEY: &str = "kiosk";
/// The screen's sleep settings: a row of its own, which releases before it never read.
const SCREEN_KEY: &str = "screen";

#[derive(Serialize, Deserialize)]
enum VersionedSettings {
    /// `SettingsRecord`'s `screen` is not in it (skipped): the bytes are those of every
    /// earlier release.
    V1(SettingsRecord),
}

#[derive(Serialize, Deserialize)]
enum VersionedScreen {
    V1(ScreenRecord),
}

impl Store {
    /// The owner's saved settings; `None` when none are saved (the flags apply).
    pub fn settings_blocking(&self) -> Result<Option<SettingsRecord>, StoreError> {
        self.read(|txn| {
            let table = txn.open_table(SETTINGS).map_err(store_err)?;
            let Some(mut record) = table
                .get(KEY)
                .map_err(store_err)?
                .map(|bytes| {
                    decode::<VersionedSettings>(bytes.value(), "settings")
                        .map(|VersionedSettings::V1(s)| s)
                })
                .transpose()?
            else {
                return Ok(None);
            };
            record.screen = table
                .get(SCREEN_KEY)
                .map_err(store_err)?
                .map(|bytes| {
                    decode::<VersionedScreen>(bytes.value(), "screen settings")
                        .map(|VersionedScreen::V1(s)| s)
                })
                .transpose()?;
            Ok(Some(record))
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
            match &record.screen {
                Some(screen) => {
                    let bytes = encode(&VersionedScreen::V1(screen.clone()))?;
                    table
                        .insert(SCREEN_KEY, bytes.as_slice())
                        .map_err(store_err)?;
                }
                None => {
                    table.remove(SCREEN_KEY).map_err(store_err)?;
                }
            }
        }
        None => {
            table.remove(KEY).map_err(store_err)?;
            table.remove(SCREEN_KEY).map_err(store_err)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{StoredLanguage, StoredWifi};

    /// The record as every release before the screen's settings wrote it.
    #[derive(Serialize)]
    struct Before {
        kiosk_idle_s: u64,
        public_url: Option<String>,
        default_language: StoredLanguage,
        wifi: Option<StoredWifi>,
    }

    #[derive(Serialize)]
    enum VersionedBefore {
        V1(Before),
    }

    #[test]
    fn the_kiosk_row_keeps_the_bytes_older_releases_decode() {
        let wifi = Some(StoredWifi {
            ssid: "Cafe".into(),
            password: Some("correct horse".into()),
        });
        let record = SettingsRecord {
            kiosk_idle_s: 90,
            public_url: Some("http://xo.example".into()),
            default_language: StoredLanguage::Ar,
            wifi: wifi.clone(),
            screen: Some(ScreenRecord {
                sleep: Some((23 * 60, 8 * 60)),
                off_idle_s: 600,
            }),
        };
        let before = VersionedBefore::V1(Before {
            kiosk_idle_s: 90,
            public_url: Some("http://xo.example".into()),
            default_language: StoredLanguage::Ar,
            wifi,
        });
        let bytes = encode(&VersionedSettings::V1(record.clone())).expect("encode");
        assert_eq!(bytes, encode(&before).expect("encode"));
        let VersionedSettings::V1(read) =
            decode::<VersionedSettings>(&bytes, "settings").expect("decode");
        assert_eq!(
            read,
            SettingsRecord {
                screen: None,
                ..record
            }
        );
    }
}
