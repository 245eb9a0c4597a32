//! Sign-in sessions (A2, S3): a session token's SHA-256 → its player and expiry. At most
//! [`SESSIONS_KEPT`] per player; expired ones are removed when the store opens.

use protocol::records::UserId;
use redb::{ReadTransaction, ReadableTable, TableDefinition, WriteTransaction};
use rooms::StoreError;

use super::error::store_err;
use super::handle::Store;
use super::op::{Op, Outcome};
use super::records::{SessionRecord, VersionedSession, decode, encode};

/// SHA-256 of a session token → `VersionedSession`.
pub(super) const SESSIONS: TableDefinition<'_, &[u8], &[u8]> = TableDefinition::new("sessions");

/// Sessions kept per registered player, newest first: a sign-in beyond them signs the oldest
/// device out, so that signing in again and again cannot fill the card.
pub const SESSIONS_KEPT: usize = 20;

impl Store {
    /// Stores a new session durably, awaited without holding a thread.
    pub async fn create_session(
        &self,
        token_hash: [u8; 32],
        user: UserId,
        now_ms: u64,
        expires_ms: u64,
    ) -> Result<(), StoreError> {
        self.write(Op::CreateSession {
            token_hash,
            user,
            now_ms,
            expires_ms,
        })
        .await
        .map(drop)
    }

    /// Forgets a session durably (sign-out), awaited without holding a thread. Unknown
    /// sessions are fine.
    pub async fn delete_session(&self, token_hash: [u8; 32]) -> Result<(), StoreError> {
        self.write(Op::DeleteSession { token_hash }).await.map(drop)
    }
}

/// Creates the table (every open).
pub(super) fn create_tables(txn: &WriteTransaction) -> Result<(), StoreError> {
    txn.open_table(SESSIONS).map_err(store_err)?;
    Ok(())
}

/// Applies a session write; `None` for the other writes.
pub(super) fn apply(txn: &WriteTransaction, op: &Op) -> Option<Result<Outcome, StoreError>> {
    Some(match op {
        Op::CreateSession {
            token_hash,
            user,
            now_ms,
            expires_ms,
        } => insert(
            txn,
            token_hash,
            SessionRecord {
                user: *user,
                created_ms: *now_ms,
                expires_ms: *expires_ms,
            },
        )
        .and_then(|()| forget_old(txn, *user))
        .map(|()| Outcome::Done),
        Op::DeleteSession { token_hash } => {
            txn.open_table(SESSIONS)
                .map_err(store_err)
                .and_then(|mut sessions| {
                    sessions.remove(token_hash.as_slice()).map_err(store_err)?;
                    Ok(Outcome::Done)
                })
        }
        _ => return None,
    })
}

/// Stores `session` under `token_hash`.
pub(super) fn insert(
    txn: &WriteTransaction,
    token_hash: &[u8; 32],
    session: SessionRecord,
) -> Result<(), StoreError> {
    let mut sessions = txn.open_table(SESSIONS).map_err(store_err)?;
    sessions
        .insert(
            token_hash.as_slice(),
            encode(&VersionedSession::V1(session))?.as_slice(),
        )
        .map_err(store_err)?;
    Ok(())
}

/// Keeps `user`'s newest [`SESSIONS_KEPT`] sessions and signs the older ones out. Scans the
/// sessions table, which this bound keeps small.
fn forget_old(txn: &WriteTransaction, user: UserId) -> Result<(), StoreError> {
    let mut sessions = txn.open_table(SESSIONS).map_err(store_err)?;
    let mut mine = Vec::new();
    for entry in sessions.iter().map_err(store_err)? {
        let (key, bytes) = entry.map_err(store_err)?;
        // An unreadable record is left alone (and logged when the store opens).
        if let Ok(VersionedSession::V1(s)) = decode::<VersionedSession>(bytes.value(), "session")
            && s.user == user
        {
            mine.push((s.created_ms, key.value().to_vec()));
        }
    }
    if mine.len() <= SESSIONS_KEPT {
        return Ok(());
    }
    mine.sort();
    let excess = mine.len() - SESSIONS_KEPT;
    for (_, key) in mine.into_iter().take(excess) {
        sessions.remove(key.as_slice()).map_err(store_err)?;
    }
    Ok(())
}

/// Signs `user` out everywhere but the session `keep` (none: everywhere). An unreadable
/// session fails the write when `strict` (a password change must not leave one behind that
/// might be the user's), and is passed over otherwise (it expires by itself).
pub(super) fn forget_user(
    txn: &WriteTransaction,
    user: UserId,
    keep: Option<&[u8; 32]>,
    strict: bool,
) -> Result<(), StoreError> {
    let mut sessions = txn.open_table(SESSIONS).map_err(store_err)?;
    // A kiosk has a few hundred sessions at most: one scan is cheap.
    let mut theirs = Vec::new();
    for entry in sessions.iter().map_err(store_err)? {
        let (key, value) = entry.map_err(store_err)?;
        let session = match decode::<VersionedSession>(value.value(), "session") {
            Ok(VersionedSession::V1(s)) => s,
            Err(e) if strict => return Err(e),
            Err(_) => continue,
        };
        if session.user == user && keep.is_none_or(|keep| key.value() != keep.as_slice()) {
            theirs.push(key.value().to_vec());
        }
    }
    for key in theirs {
        sessions.remove(key.as_slice()).map_err(store_err)?;
    }
    Ok(())
}

/// The live session under `token_hash` at `now_ms`: its player.
pub(super) fn live_user(
    txn: &ReadTransaction,
    token_hash: &[u8; 32],
    now_ms: u64,
) -> Result<Option<UserId>, StoreError> {
    let sessions = txn.open_table(SESSIONS).map_err(store_err)?;
    let Some(bytes) = sessions.get(token_hash.as_slice()).map_err(store_err)? else {
        return Ok(None);
    };
    let VersionedSession::V1(session) = decode(bytes.value(), "session")?;
    Ok((session.expires_ms > now_ms).then_some(session.user))
}

/// Removes sessions that expired before `now_ms` (A2: 30 days), so the table does not grow
/// forever. An unreadable session is kept, and logged. Returns how many went.
pub(super) fn purge_expired(txn: &WriteTransaction, now_ms: u64) -> Result<u64, StoreError> {
    let mut purged = 0;
    let mut sessions = txn.open_table(SESSIONS).map_err(store_err)?;
    sessions
        .retain(
            |_, bytes| match decode::<VersionedSession>(bytes, "session") {
                Ok(VersionedSession::V1(session)) if session.expires_ms <= now_ms => {
                    purged += 1;
                    false
                }
                Ok(VersionedSession::V1(_)) => true,
                Err(e) => {
                    tracing::error!(error = %e, "keeping an unreadable session record");
                    true
                }
            },
        )
        .map_err(store_err)?;
    Ok(purged)
}
