//! Password reset codes an owner made (SPEC O2), kept in redb so that a restart keeps them:
//! one per account, as a SHA-256 hash with its expiry and the wrong guesses made against it.
//! Every guess is one durable write of the writer, so concurrent guesses are counted one by
//! one and a code is spent after [`crate::owner::WRONG_GUESSES`] of them, across restarts
//! too. Expired codes are removed when the store opens and whenever a code is issued.
//!
//! `reset_codes` is a table of its own beside the schema-2 tables (as `owners`); it is not in
//! backups (a restore replaces the accounts, and codes name accounts by id).

use protocol::records::UserId;
use redb::{ReadableTable, TableDefinition, WriteTransaction};
use rooms::StoreError;
use serde::{Deserialize, Serialize};

use super::accounts;
use super::error::store_err;
use super::handle::Store;
use super::op::{Op, Outcome, OwnerError, unexpected};
use super::records::{ResetCodeRecord, ResetGuess, decode, encode};

/// user id → `VersionedResetCode`.
pub(super) const RESET_CODES: TableDefinition<'_, u64, &[u8]> = TableDefinition::new("reset_codes");

#[derive(Serialize, Deserialize)]
enum VersionedResetCode {
    V1(ResetCodeRecord),
}

impl Store {
    /// Stores a new code for `user`, replacing an earlier one, and removes expired codes.
    /// [`OwnerError::UnknownUser`] when the account is gone.
    pub async fn issue_reset_code(
        &self,
        user: UserId,
        hash: [u8; 32],
        expires_ms: u64,
        now_ms: u64,
    ) -> Result<(), OwnerError> {
        match self
            .write(Op::IssueResetCode {
                user,
                record: ResetCodeRecord {
                    hash,
                    expires_ms,
                    wrong: 0,
                },
                now_ms,
            })
            .await?
        {
            Outcome::Done => Ok(()),
            Outcome::UnknownUser => Err(OwnerError::UnknownUser),
            other => Err(unexpected(&other).into()),
        }
    }

    /// Checks a guess `hash` at `user`'s code at `now_ms`: a right one takes the code, a
    /// wrong one counts against it.
    pub async fn guess_reset_code(
        &self,
        user: UserId,
        hash: [u8; 32],
        now_ms: u64,
    ) -> Result<ResetGuess, StoreError> {
        match self
            .write(Op::GuessResetCode { user, hash, now_ms })
            .await?
        {
            Outcome::ResetGuess(guess) => Ok(guess),
            other => Err(unexpected(&other)),
        }
    }

    /// Returns a redeemed code whose reset could not be stored, unless a newer one was issued
    /// meanwhile or the account is gone.
    pub async fn give_back_reset_code(
        &self,
        user: UserId,
        record: ResetCodeRecord,
    ) -> Result<(), StoreError> {
        self.write(Op::GiveBackResetCode { user, record })
            .await
            .map(drop)
    }

    /// `user`'s live code, if any (for tests and tools).
    pub fn reset_code_blocking(
        &self,
        user: UserId,
        now_ms: u64,
    ) -> Result<Option<ResetCodeRecord>, StoreError> {
        self.read(|txn| {
            let table = txn.open_table(RESET_CODES).map_err(store_err)?;
            let Some(bytes) = table.get(user).map_err(store_err)? else {
                return Ok(None);
            };
            let VersionedResetCode::V1(record) = decode(bytes.value(), "reset code")?;
            Ok((record.expires_ms > now_ms).then_some(record))
        })
    }
}

fn put(txn: &WriteTransaction, user: UserId, record: ResetCodeRecord) -> Result<(), StoreError> {
    txn.open_table(RESET_CODES)
        .map_err(store_err)?
        .insert(user, encode(&VersionedResetCode::V1(record))?.as_slice())
        .map_err(store_err)?;
    Ok(())
}

/// Removes the codes expired at `now_ms`; an unreadable record is removed too (a code that
/// cannot be checked cannot be used). Returns how many went.
pub(super) fn purge_expired(txn: &WriteTransaction, now_ms: u64) -> Result<u64, StoreError> {
    let mut purged = 0;
    txn.open_table(RESET_CODES)
        .map_err(store_err)?
        .retain(
            |_, bytes| match decode::<VersionedResetCode>(bytes, "reset code") {
                Ok(VersionedResetCode::V1(r)) if r.expires_ms > now_ms => true,
                _ => {
                    purged += 1;
                    false
                }
            },
        )
        .map_err(store_err)?;
    Ok(purged)
}

/// Creates the table (every open).
pub(super) fn create_tables(txn: &WriteTransaction) -> Result<(), StoreError> {
    txn.open_table(RESET_CODES).map_err(store_err)?;
    Ok(())
}

/// Forgets `user`'s code (the account is deleted).
pub(super) fn forget(txn: &WriteTransaction, user: UserId) -> Result<(), StoreError> {
    txn.open_table(RESET_CODES)
        .map_err(store_err)?
        .remove(user)
        .map_err(store_err)?;
    Ok(())
}

/// Applies a reset-code write; `None` for the other writes.
pub(super) fn apply(txn: &WriteTransaction, op: &Op) -> Option<Result<Outcome, StoreError>> {
    Some(match op {
        Op::IssueResetCode {
            user,
            record,
            now_ms,
        } => issue(txn, *user, *record, *now_ms),
        Op::GuessResetCode { user, hash, now_ms } => guess(txn, *user, hash, *now_ms),
        Op::GiveBackResetCode { user, record } => give_back(txn, *user, *record),
        _ => return None,
    })
}

fn issue(
    txn: &WriteTransaction,
    user: UserId,
    record: ResetCodeRecord,
    now_ms: u64,
) -> Result<Outcome, StoreError> {
    if !accounts::exists(txn, user)? {
        return Ok(Outcome::UnknownUser);
    }
    purge_expired(txn, now_ms)?;
    put(txn, user, record)?;
    Ok(Outcome::Done)
}

fn guess(
    txn: &WriteTransaction,
    user: UserId,
    hash: &[u8; 32],
    now_ms: u64,
) -> Result<Outcome, StoreError> {
    let mut table = txn.open_table(RESET_CODES).map_err(store_err)?;
    let stored = match table.get(user).map_err(store_err)? {
        Some(bytes) => decode::<VersionedResetCode>(bytes.value(), "reset code").ok(),
        None => return Ok(Outcome::ResetGuess(ResetGuess::Wrong { spent: false })),
    };
    let Some(VersionedResetCode::V1(mut record)) =
        stored.filter(|VersionedResetCode::V1(r)| r.expires_ms > now_ms)
    else {
        // Expired or unreadable: gone either way.
        table.remove(user).map_err(store_err)?;
        return Ok(Outcome::ResetGuess(ResetGuess::Wrong { spent: false }));
    };
    if record.hash == *hash {
        table.remove(user).map_err(store_err)?;
        return Ok(Outcome::ResetGuess(ResetGuess::Redeemed(record)));
    }
    record.wrong += 1;
    let spent = record.wrong >= crate::owner::WRONG_GUESSES;
    if spent {
        table.remove(user).map_err(store_err)?;
    } else {
        drop(table);
        put(txn, user, record)?;
    }
    Ok(Outcome::ResetGuess(ResetGuess::Wrong { spent }))
}

fn give_back(
    txn: &WriteTransaction,
    user: UserId,
    record: ResetCodeRecord,
) -> Result<Outcome, StoreError> {
    let newer = txn
        .open_table(RESET_CODES)
        .map_err(store_err)?
        .get(user)
        .map_err(store_err)?
        .is_some();
    if !newer && accounts::exists(txn, user)? {
        put(txn, user, record)?;
    }
    Ok(Outcome::Done)
}
