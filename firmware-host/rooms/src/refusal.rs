//! [`Refusal`]: why an intent or a creation box was refused, as the sender alone is told.

use protocol::ErrorCode;

/// A refused intent: the stable code and a message for people.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: ErrorCode,
    pub message: String,
}

impl Refusal {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Refusal {
        Refusal {
            code,
            message: message.into(),
        }
    }
}

impl core::fmt::Display for Refusal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Refusal {}

/// Shorthand for refusing with `code` and a message for people.
pub(crate) fn refuse<T>(code: ErrorCode, message: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::new(code, message))
}
