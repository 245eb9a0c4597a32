//! A1's rules for usernames and passwords, checked before a request is sent (the server
//! checks again with the same [`protocol::rules`]), and the sentences for the server's sign-in
//! error codes.

use protocol::http::ApiErrorCode;
use protocol::rules;

use crate::i18n::T;

/// Why a sign-in or registration form cannot be sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CredentialError {
    Username,
    Password,
}

impl CredentialError {
    pub fn text(self) -> T {
        match self {
            CredentialError::Username => T::ErrUsername,
            CredentialError::Password => T::ErrPassword,
        }
    }
}

/// A1: 3–20 of letters, digits, `_`, `-`.
pub fn valid_username(name: &str) -> bool {
    rules::check_username(name).is_ok()
}

/// A1: 8–128 characters.
pub fn valid_password(password: &str) -> bool {
    rules::check_password(password).is_ok()
}

/// Everything wrong with the form; registering checks both rules, signing in only that both
/// fields could be right.
pub fn check(username: &str, password: &str) -> Vec<CredentialError> {
    let mut errors = Vec::new();
    if !valid_username(username.trim()) {
        errors.push(CredentialError::Username);
    }
    if !valid_password(password) {
        errors.push(CredentialError::Password);
    }
    errors
}

/// The sentence for an HTTP API error code (`None`: the server was not reached).
pub fn api_error_text(code: Option<ApiErrorCode>) -> T {
    match code {
        Some(ApiErrorCode::BadCredentials) => T::ErrBadCredentials,
        Some(ApiErrorCode::UsernameTaken) => T::ErrUsernameTaken,
        Some(ApiErrorCode::TooManyAttempts | ApiErrorCode::TooManyRegistrations) => T::ErrTooMany,
        Some(ApiErrorCode::InvalidUsername) => T::ErrUsername,
        Some(ApiErrorCode::InvalidPassword) => T::ErrPassword,
        Some(ApiErrorCode::WrongPassword) => T::ErrWrongPassword,
        Some(ApiErrorCode::StorageUnavailable) => T::ErrStorageUnavailable,
        Some(ApiErrorCode::LastOwner) => T::ErrLastOwner,
        Some(ApiErrorCode::BadOwnerCode) => T::OwnerBadCode,
        Some(ApiErrorCode::NotSignedIn) => T::OwnerSignInFirst,
        _ => T::ErrNetwork,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_follow_a1() {
        assert!(valid_username("sara_99"));
        assert!(valid_username("a-b"));
        assert!(!valid_username("ab"));
        assert!(!valid_username(&"a".repeat(21)));
        assert!(!valid_username("sara omar"));
        assert!(!valid_username("سارة"));
    }

    #[test]
    fn passwords_have_8_to_128_characters() {
        assert!(!valid_password("1234567"));
        assert!(valid_password("12345678"));
        assert!(valid_password(&"p".repeat(128)));
        assert!(!valid_password(&"p".repeat(129)));
    }

    #[test]
    fn the_form_reports_every_problem() {
        assert_eq!(
            check("x", "short"),
            vec![CredentialError::Username, CredentialError::Password]
        );
        assert!(check("sara", "long enough").is_empty());
        assert_eq!(
            api_error_text(Some(ApiErrorCode::BadCredentials)),
            T::ErrBadCredentials
        );
    }
}
