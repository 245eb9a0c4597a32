//! The rules for what people type, written once for the server and the UI: usernames and
//! passwords (A1) and the two names of a local game (M2.1).
//!
//! ```
//! use protocol::rules::{self, NameError};
//!
//! assert!(rules::check_username("sara_99").is_ok());
//! assert_eq!(
//!     rules::check_local_names(&[" Sara ".into(), "sara".into()]),
//!     Err(NameError::Clash)
//! );
//! ```

/// A1: a username has at least this many characters.
pub const USERNAME_MIN_CHARS: usize = 3;
/// A1: a username has at most this many characters.
pub const USERNAME_MAX_CHARS: usize = 20;
/// A1: a password has at least this many characters (Unicode scalar values).
pub const PASSWORD_MIN_CHARS: usize = 8;
/// A1: a password has at most this many characters; longer ones would only cost hashing time.
pub const PASSWORD_MAX_CHARS: usize = 128;
/// M2.1: a local player's name has at most this many characters, after trimming.
pub const LOCAL_NAME_MAX_CHARS: usize = 20;

/// Why a username or password is not acceptable (A1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CredentialError {
    /// Not 3–20 characters.
    UsernameLength,
    /// A character other than an ASCII letter, digit, `_` or `-`.
    UsernameCharacters,
    /// Not 8–128 characters.
    PasswordLength,
}

impl core::fmt::Display for CredentialError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CredentialError::UsernameLength => write!(
                f,
                "a username has {USERNAME_MIN_CHARS} to {USERNAME_MAX_CHARS} characters"
            ),
            CredentialError::UsernameCharacters => {
                f.write_str("a username may use only letters, digits, `_` and `-`")
            }
            CredentialError::PasswordLength => write!(
                f,
                "a password has {PASSWORD_MIN_CHARS} to {PASSWORD_MAX_CHARS} characters"
            ),
        }
    }
}

impl std::error::Error for CredentialError {}

/// A1: 3–20 of ASCII letters, digits, `_`, `-`. Names are unique ignoring case (the store
/// checks that).
pub fn check_username(name: &str) -> Result<(), CredentialError> {
    let count = name.chars().count();
    if !(USERNAME_MIN_CHARS..=USERNAME_MAX_CHARS).contains(&count) {
        return Err(CredentialError::UsernameLength);
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(CredentialError::UsernameCharacters);
    }
    Ok(())
}

/// A1: 8–128 characters (Unicode scalar values).
pub fn check_password(password: &str) -> Result<(), CredentialError> {
    if (PASSWORD_MIN_CHARS..=PASSWORD_MAX_CHARS).contains(&password.chars().count()) {
        Ok(())
    } else {
        Err(CredentialError::PasswordLength)
    }
}

/// Why the two names of a local game are not acceptable (M2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameError {
    /// The name of seat `0` or `1` is empty after trimming.
    Missing(usize),
    /// The name of that seat is longer than [`LOCAL_NAME_MAX_CHARS`] after trimming.
    TooLong(usize),
    /// The name of that seat contains a control character.
    Control(usize),
    /// Both names are the same ignoring case and surrounding spaces.
    Clash,
}

impl core::fmt::Display for NameError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            NameError::Missing(_) => f.write_str("both players need a name"),
            NameError::TooLong(seat) => write!(
                f,
                "the name of player {} is longer than {LOCAL_NAME_MAX_CHARS} characters",
                seat + 1
            ),
            NameError::Control(_) => f.write_str("names cannot contain control characters"),
            NameError::Clash => f.write_str("both players have the same name"),
        }
    }
}

impl std::error::Error for NameError {}

/// Every problem with one local name (seat `seat`), checked after trimming.
fn local_name_errors(seat: usize, name: &str) -> Option<NameError> {
    let name = name.trim();
    if name.is_empty() {
        Some(NameError::Missing(seat))
    } else if name.chars().count() > LOCAL_NAME_MAX_CHARS {
        Some(NameError::TooLong(seat))
    } else if name.chars().any(char::is_control) {
        Some(NameError::Control(seat))
    } else {
        None
    }
}

/// M2.1, every problem at once in seat order (for a form that shows them all): each name
/// required, at most 20 characters, no control characters; the two unique ignoring case and
/// surrounding spaces (checked only when both are present).
pub fn local_name_problems(names: &[String; 2]) -> Vec<NameError> {
    let mut problems: Vec<NameError> = names
        .iter()
        .enumerate()
        .filter_map(|(seat, name)| local_name_errors(seat, name))
        .collect();
    let (a, b) = (names[0].trim(), names[1].trim());
    if !a.is_empty() && a.to_lowercase() == b.to_lowercase() {
        problems.push(NameError::Clash);
    }
    problems
}

/// M2.1: the two names trimmed, or the first problem.
pub fn check_local_names(names: &[String; 2]) -> Result<[String; 2], NameError> {
    match local_name_problems(names).first() {
        Some(problem) => Err(*problem),
        None => Ok([names[0].trim().to_owned(), names[1].trim().to_owned()]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_follow_a1() {
        assert!(check_username("abc").is_ok());
        assert!(check_username("A_b-9").is_ok());
        assert!(check_username(&"a".repeat(20)).is_ok());
        assert_eq!(check_username("ab"), Err(CredentialError::UsernameLength));
        assert_eq!(
            check_username(&"a".repeat(21)),
            Err(CredentialError::UsernameLength)
        );
        assert_eq!(
            check_username("a b c"),
            Err(CredentialError::UsernameCharacters)
        );
        assert_eq!(
            check_username("sára"),
            Err(CredentialError::UsernameCharacters)
        );
        assert_eq!(
            check_username("سارة"),
            Err(CredentialError::UsernameCharacters)
        );
    }

    #[test]
    fn passwords_have_8_to_128_characters() {
        assert!(check_password(&"x".repeat(8)).is_ok());
        assert!(check_password(&"é".repeat(128)).is_ok());
        assert!(check_password(&"x".repeat(7)).is_err());
        assert!(check_password(&"x".repeat(129)).is_err());
    }

    #[test]
    fn local_names_are_required_short_and_unique_ignoring_case_and_spaces() {
        let names = |a: &str, b: &str| [a.to_owned(), b.to_owned()];
        assert_eq!(
            check_local_names(&names(" Sara ", "Omar")),
            Ok(names("Sara", "Omar"))
        );
        assert_eq!(
            check_local_names(&names("Sara", " SARA ")),
            Err(NameError::Clash)
        );
        assert_eq!(
            local_name_problems(&names("  ", &"x".repeat(21))),
            vec![NameError::Missing(0), NameError::TooLong(1)]
        );
        assert!(check_local_names(&names(&"x".repeat(20), "سارة")).is_ok());
        assert_eq!(
            check_local_names(&names("a\u{7}", "b")),
            Err(NameError::Control(0))
        );
    }
}
