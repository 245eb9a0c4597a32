//! redb's errors by cause ([`StoreError`]): what a caller answers depends on the kind of
//! failure (the card is full, failing, or the write itself was wrong), never on a message.

use rooms::StoreError;

/// A redb error by cause (see [`StoreError`]).
pub(crate) fn store_err(e: impl Into<redb::Error>) -> StoreError {
    match e.into() {
        redb::Error::Io(io) => io_error(&io),
        redb::Error::PreviousIo => StoreError::Io {
            kind: std::io::ErrorKind::Other,
            message: "an earlier I/O error; the database must be reopened".into(),
        },
        redb::Error::DatabaseClosed => StoreError::Reopening,
        redb::Error::Corrupted(m) => StoreError::Corrupted(m),
        redb::Error::ValueTooLarge(n) => {
            StoreError::Refused(format!("a value of {n} bytes is too large"))
        }
        other => StoreError::Internal(other.to_string()),
    }
}

/// ENOSPC and EDQUOT: the card (or the user's quota on it) is full.
const ENOSPC: i32 = 28;
const EDQUOT: i32 = 122;

/// An I/O error of the card: [`StoreError::Full`] when it is full.
pub(super) fn io_error(e: &std::io::Error) -> StoreError {
    let full = matches!(
        e.kind(),
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
    ) || matches!(e.raw_os_error(), Some(ENOSPC | EDQUOT));
    if full {
        StoreError::Full(e.to_string())
    } else {
        StoreError::Io {
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}
