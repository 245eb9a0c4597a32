//! Owner mode's data (SPEC O1, O2): who owns the kiosk, and the account removals an owner or
//! the player makes.
//!
//! `owners` is a table of its own, added beside the schema-2 tables without changing any
//! existing record: a file that has it still opens with an older release (a rolled-back
//! update keeps working), which ignores the table.

use protocol::records::UserId;
use redb::{ReadableTable, TableDefinition, WriteTransaction};
use rooms::StoreError;
use serde::{Deserialize, Serialize};

use super::accounts::{USERNAMES, USERS};
use super::error::store_err;
use super::games::rewrite_seats;
use super::handle::Store;
use super::op::{Op, Outcome, OwnerError, unexpected};
use super::records::{VersionedUser, decode, decode_user, encode};
use super::{puzzles, reset_codes, sessions};

/// user id → `VersionedOwner`.
pub(super) const OWNERS: TableDefinition<'_, u64, &[u8]> = TableDefinition::new("owners");

/// The name a deleted player's seat shows in the games kept after the deletion (SPEC A). It has a space, so no account can ever be registered under it (A1).
pub const DELETED_NAME: &str = protocol::http::DELETED_PLAYER_NAME;

/// An owner as stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnerRecord {
    pub added_ms: u64,
}

#[derive(Serialize, Deserialize)]
pub(super) enum VersionedOwner {
    V1(OwnerRecord),
}

fn owner_outcome(outcome: Outcome) -> Result<Outcome, OwnerError> {
    match outcome {
        Outcome::LastOwner => Err(OwnerError::LastOwner),
        Outcome::UnknownUser => Err(OwnerError::UnknownUser),
        Outcome::Refused(e) => Err(OwnerError::Store(e)),
        other => Ok(other),
    }
}

impl Store {
    /// Makes `user` an owner (already one: nothing changes), durably.
    pub async fn add_owner(&self, user: UserId, now_ms: u64) -> Result<(), OwnerError> {
        owner_outcome(self.write(Op::AddOwner { user, now_ms }).await?).map(drop)
    }

    /// Makes `user` an owner no longer; refused when it is the last one. `Ok(false)`: it was
    /// not an owner.
    pub async fn remove_owner(&self, user: UserId) -> Result<bool, OwnerError> {
        match owner_outcome(self.write(Op::RemoveOwner { user }).await?)? {
            Outcome::Changed(changed) => Ok(changed),
            other => Err(OwnerError::Store(unexpected(&other))),
        }
    }

    /// Deletes an account in one durable transaction (SPEC O2): its record, name,
    /// sessions, owner entry and password reset code; its games stay when another registered
    /// player was seated (their ratings stay explainable), with the seat's name replaced by
    /// [`DELETED_NAME`], and are forgotten otherwise. Refused for the last owner. Returns the name it had.
    pub async fn delete_account(&self, user: UserId) -> Result<String, OwnerError> {
        match owner_outcome(self.write(Op::DeleteAccount { user }).await?)? {
            Outcome::OldName(name) => Ok(name),
            other => Err(OwnerError::Store(unexpected(&other))),
        }
    }

    /// Renames an account (SPEC O2: an offensive name), in its games too. `Ok(old name)`;
    /// [`OwnerError::NameTaken`] when another account has the name, ignoring case.
    pub async fn rename(&self, user: UserId, name: &str) -> Result<String, OwnerError> {
        match self
            .write(Op::Rename {
                user,
                name: name.to_owned(),
            })
            .await?
        {
            Outcome::NameTaken => Err(OwnerError::NameTaken),
            other => match owner_outcome(other)? {
                Outcome::OldName(old) => Ok(old),
                other => Err(OwnerError::Store(unexpected(&other))),
            },
        }
    }

    /// Whether `user` is an owner of the kiosk.
    pub fn is_owner_blocking(&self, user: UserId) -> Result<bool, StoreError> {
        self.read(|txn| {
            let owners = txn.open_table(OWNERS).map_err(store_err)?;
            Ok(owners.get(user).map_err(store_err)?.is_some())
        })
    }

    /// Every owner with their name, oldest first.
    pub fn owners_blocking(&self) -> Result<Vec<(UserId, String, OwnerRecord)>, StoreError> {
        let mut owners = self.read(|txn| {
            let owners = txn.open_table(OWNERS).map_err(store_err)?;
            let users = txn.open_table(USERS).map_err(store_err)?;
            let mut out = Vec::new();
            for entry in owners.iter().map_err(store_err)? {
                let (id, bytes) = entry.map_err(store_err)?;
                let VersionedOwner::V1(record) = decode(bytes.value(), "owner")?;
                let name = match users.get(id.value()).map_err(store_err)? {
                    Some(user) => decode_user(user.value())?.name,
                    None => {
                        return Err(StoreError::Corrupted(format!(
                            "owner {} has no account",
                            id.value()
                        )));
                    }
                };
                out.push((id.value(), name, record));
            }
            Ok(out)
        })?;
        owners.sort_by_key(|(id, _, r)| (r.added_ms, *id));
        Ok(owners)
    }
}

fn owner_count(txn: &WriteTransaction) -> Result<u64, StoreError> {
    use redb::ReadableTableMetadata as _;
    txn.open_table(OWNERS)
        .map_err(store_err)?
        .len()
        .map_err(store_err)
}

fn is_owner(txn: &WriteTransaction, user: UserId) -> Result<bool, StoreError> {
    Ok(txn
        .open_table(OWNERS)
        .map_err(store_err)?
        .get(user)
        .map_err(store_err)?
        .is_some())
}

/// Creates the table (every open).
pub(super) fn create_tables(txn: &WriteTransaction) -> Result<(), StoreError> {
    txn.open_table(OWNERS).map_err(store_err)?;
    Ok(())
}

/// Applies an owner-mode write; `None` for the other writes. Refusals are decided before
/// anything is written.
pub(super) fn apply(txn: &WriteTransaction, op: &Op) -> Option<Result<Outcome, StoreError>> {
    Some(match op {
        Op::AddOwner { user, now_ms } => add_owner(txn, *user, *now_ms),
        Op::RemoveOwner { user } => remove_owner(txn, *user),
        Op::DeleteAccount { user } => delete_account(txn, *user),
        Op::Rename { user, name } => rename(txn, *user, name),
        _ => return None,
    })
}

fn add_owner(txn: &WriteTransaction, user: UserId, now_ms: u64) -> Result<Outcome, StoreError> {
    if txn
        .open_table(USERS)
        .map_err(store_err)?
        .get(user)
        .map_err(store_err)?
        .is_none()
    {
        return Ok(Outcome::UnknownUser);
    }
    if is_owner(txn, user)? {
        return Ok(Outcome::Changed(false));
    }
    let record = VersionedOwner::V1(OwnerRecord { added_ms: now_ms });
    txn.open_table(OWNERS)
        .map_err(store_err)?
        .insert(user, encode(&record)?.as_slice())
        .map_err(store_err)?;
    Ok(Outcome::Changed(true))
}

fn remove_owner(txn: &WriteTransaction, user: UserId) -> Result<Outcome, StoreError> {
    if !is_owner(txn, user)? {
        return Ok(Outcome::Changed(false));
    }
    if owner_count(txn)? <= 1 {
        return Ok(Outcome::LastOwner);
    }
    txn.open_table(OWNERS)
        .map_err(store_err)?
        .remove(user)
        .map_err(store_err)?;
    Ok(Outcome::Changed(true))
}

fn delete_account(txn: &WriteTransaction, user: UserId) -> Result<Outcome, StoreError> {
    let mut users = txn.open_table(USERS).map_err(store_err)?;
    let Some(bytes) = users.get(user).map_err(store_err)? else {
        return Ok(Outcome::UnknownUser);
    };
    let record = decode_user(bytes.value())?;
    drop(bytes);
    if is_owner(txn, user)? && owner_count(txn)? <= 1 {
        return Ok(Outcome::LastOwner);
    }
    users.remove(user).map_err(store_err)?;
    drop(users);
    txn.open_table(USERNAMES)
        .map_err(store_err)?
        .remove(record.name.to_lowercase().as_str())
        .map_err(store_err)?;
    txn.open_table(OWNERS)
        .map_err(store_err)?
        .remove(user)
        .map_err(store_err)?;
    reset_codes::forget(txn, user)?;
    puzzles::forget(txn, user)?;
    sessions::forget_user(txn, user, None, false)?;
    rewrite_seats(txn, user, Some(DELETED_NAME), true)?;
    Ok(Outcome::OldName(record.name))
}

fn rename(txn: &WriteTransaction, user: UserId, name: &str) -> Result<Outcome, StoreError> {
    let mut users = txn.open_table(USERS).map_err(store_err)?;
    let Some(bytes) = users.get(user).map_err(store_err)? else {
        return Ok(Outcome::UnknownUser);
    };
    let mut record = decode_user(bytes.value())?;
    drop(bytes);
    let (old_lower, new_lower) = (record.name.to_lowercase(), name.to_lowercase());
    let mut names = txn.open_table(USERNAMES).map_err(store_err)?;
    if let Some(holder) = names.get(new_lower.as_str()).map_err(store_err)?
        && holder.value() != user
    {
        return Ok(Outcome::NameTaken);
    }
    names.remove(old_lower.as_str()).map_err(store_err)?;
    names.insert(new_lower.as_str(), user).map_err(store_err)?;
    let old = std::mem::replace(&mut record.name, name.to_owned());
    users
        .insert(user, encode(&VersionedUser::V1(record))?.as_slice())
        .map_err(store_err)?;
    drop((names, users));
    rewrite_seats(txn, user, Some(name), false)?;
    Ok(Outcome::OldName(old))
}
