//! Players' accounts (A1): the user records (name, password hash, both ladders) and the
//! lower-cased names that keep names unique ignoring case. Registering signs in, so it
//! writes the first session in the same transaction.

use protocol::records::UserId;
use redb::{
    ReadTransaction, ReadableTable, ReadableTableMetadata, TableDefinition, WriteTransaction,
};
use rooms::{Account, StoreError};

use super::error::store_err;
use super::handle::Store;
use super::meta;
use super::op::{Op, Outcome, unexpected};
use super::records::{LadderStats, SessionRecord, UserRecord, VersionedUser, decode_user, encode};
use super::sessions;

/// user id → `VersionedUser`.
pub(super) const USERS: TableDefinition<'_, u64, &[u8]> = TableDefinition::new("users");
/// lower-cased username → user id.
pub(super) const USERNAMES: TableDefinition<'_, &str, u64> = TableDefinition::new("usernames");

/// The counter of user ids in `meta`.
const NEXT_USER: &str = "next_user_id";

/// Why a registration was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterError {
    /// The name is taken, ignoring case (A1).
    NameTaken,
    Store(StoreError),
}

impl From<StoreError> for RegisterError {
    fn from(e: StoreError) -> Self {
        RegisterError::Store(e)
    }
}

impl std::fmt::Display for RegisterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RegisterError::NameTaken => f.write_str("username taken"),
            RegisterError::Store(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RegisterError {}

impl Store {
    /// Creates a player and their first session in one durable transaction (A1: registering
    /// signs in). `name` must already be validated. Awaited without holding a thread.
    pub async fn register(
        &self,
        name: &str,
        password_hash: &str,
        token_hash: [u8; 32],
        now_ms: u64,
        expires_ms: u64,
    ) -> Result<UserId, RegisterError> {
        let outcome = self
            .write(Op::Register {
                name: name.to_owned(),
                password_hash: password_hash.to_owned(),
                token_hash,
                now_ms,
                expires_ms,
            })
            .await?;
        match outcome {
            Outcome::Registered(id) => Ok(id),
            Outcome::NameTaken => Err(RegisterError::NameTaken),
            other => Err(unexpected(&other).into()),
        }
    }

    /// Replaces `user`'s password hash and forgets every session of that user but `keep`,
    /// in one durable write (S3).
    pub async fn change_password(
        &self,
        user: UserId,
        password_hash: String,
        keep: [u8; 32],
    ) -> Result<(), StoreError> {
        self.write(Op::ChangePassword {
            user,
            password_hash,
            keep,
        })
        .await
        .map(drop)
    }

    /// The player a live session belongs to; `None` when unknown or expired at `now_ms`.
    pub fn session_account_blocking(
        &self,
        token_hash: &[u8; 32],
        now_ms: u64,
    ) -> Result<Option<Account>, StoreError> {
        self.read(|txn| {
            let Some(id) = sessions::live_user(txn, token_hash, now_ms)? else {
                return Ok(None);
            };
            let users = txn.open_table(USERS).map_err(store_err)?;
            let Some(user) = users.get(id).map_err(store_err)? else {
                return Ok(None);
            };
            let user = decode_user(user.value())?;
            Ok(Some(Account {
                id,
                name: user.name,
            }))
        })
    }

    /// A player by name, ignoring case.
    pub fn user_by_name_blocking(
        &self,
        name: &str,
    ) -> Result<Option<(UserId, UserRecord)>, StoreError> {
        self.read(|txn| user_by_name_in(txn, name))
    }

    /// A player by id.
    pub fn user_blocking(&self, id: UserId) -> Result<Option<UserRecord>, StoreError> {
        self.read(|txn| {
            let users = txn.open_table(USERS).map_err(store_err)?;
            users
                .get(id)
                .map_err(store_err)?
                .map(|bytes| decode_user(bytes.value()))
                .transpose()
        })
    }

    /// Every account, by id: (id, name, created).
    pub fn accounts_blocking(&self) -> Result<Vec<(UserId, String, u64)>, StoreError> {
        self.read(|txn| {
            let users = txn.open_table(USERS).map_err(store_err)?;
            let mut out = Vec::new();
            for entry in users.iter().map_err(store_err)? {
                let (id, bytes) = entry.map_err(store_err)?;
                let user = decode_user(bytes.value())?;
                out.push((id.value(), user.name, user.created_ms));
            }
            Ok(out)
        })
    }

    /// How many players are registered.
    pub fn user_count_blocking(&self) -> Result<u64, StoreError> {
        self.read(|txn| {
            let users = txn.open_table(USERS).map_err(store_err)?;
            users.len().map_err(store_err)
        })
    }
}

/// Creates the tables (every open).
pub(super) fn create_tables(txn: &WriteTransaction) -> Result<(), StoreError> {
    txn.open_table(USERS).map_err(store_err)?;
    txn.open_table(USERNAMES).map_err(store_err)?;
    Ok(())
}

/// Applies an account write; `None` for the other writes. A refusal (a name taken) is
/// decided before anything is written.
pub(super) fn apply(txn: &WriteTransaction, op: &Op) -> Option<Result<Outcome, StoreError>> {
    Some(match op {
        Op::Register {
            name,
            password_hash,
            token_hash,
            now_ms,
            expires_ms,
        } => register(txn, name, password_hash, token_hash, *now_ms, *expires_ms),
        Op::ChangePassword {
            user,
            password_hash,
            keep,
        } => change_password(txn, *user, password_hash, keep),
        _ => return None,
    })
}

fn register(
    txn: &WriteTransaction,
    name: &str,
    password_hash: &str,
    token_hash: &[u8; 32],
    now_ms: u64,
    expires_ms: u64,
) -> Result<Outcome, StoreError> {
    let lower = name.to_lowercase();
    let mut names = txn.open_table(USERNAMES).map_err(store_err)?;
    if names.get(lower.as_str()).map_err(store_err)?.is_some() {
        return Ok(Outcome::NameTaken);
    }
    let id = meta::next_counter(txn, NEXT_USER)?;
    names.insert(lower.as_str(), id).map_err(store_err)?;
    let user = UserRecord {
        name: name.to_owned(),
        password_hash: password_hash.to_owned(),
        created_ms: now_ms,
        xo: LadderStats::default(),
        infinite: LadderStats::default(),
    };
    let mut users = txn.open_table(USERS).map_err(store_err)?;
    users
        .insert(id, encode(&VersionedUser::V1(user))?.as_slice())
        .map_err(store_err)?;
    sessions::insert(
        txn,
        token_hash,
        SessionRecord {
            user: id,
            created_ms: now_ms,
            expires_ms,
        },
    )?;
    Ok(Outcome::Registered(id))
}

fn change_password(
    txn: &WriteTransaction,
    user: UserId,
    password_hash: &str,
    keep: &[u8; 32],
) -> Result<Outcome, StoreError> {
    let mut users = txn.open_table(USERS).map_err(store_err)?;
    let Some(bytes) = users.get(user).map_err(store_err)? else {
        return Ok(Outcome::Done);
    };
    let mut record = decode_user(bytes.value())?;
    drop(bytes);
    password_hash.clone_into(&mut record.password_hash);
    users
        .insert(user, encode(&VersionedUser::V1(record))?.as_slice())
        .map_err(store_err)?;
    sessions::forget_user(txn, user, Some(keep), true)?;
    Ok(Outcome::Done)
}

/// A player by username (any case), within one read.
pub(super) fn user_by_name_in(
    txn: &ReadTransaction,
    name: &str,
) -> Result<Option<(UserId, UserRecord)>, StoreError> {
    let names = txn.open_table(USERNAMES).map_err(store_err)?;
    let Some(id) = names
        .get(name.to_lowercase().as_str())
        .map_err(store_err)?
        .map(|g| g.value())
    else {
        return Ok(None);
    };
    let users = txn.open_table(USERS).map_err(store_err)?;
    match users.get(id).map_err(store_err)? {
        Some(bytes) => Ok(Some((id, decode_user(bytes.value())?))),
        None => Err(StoreError::Corrupted(format!(
            "username index names missing user {id}"
        ))),
    }
}

/// Whether account `user` exists.
pub(super) fn exists(txn: &WriteTransaction, user: UserId) -> Result<bool, StoreError> {
    Ok(txn
        .open_table(USERS)
        .map_err(store_err)?
        .get(user)
        .map_err(store_err)?
        .is_some())
}
