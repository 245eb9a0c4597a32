//! The rules for what people type, written once for the server and the UI: usernames and
//! passwords (A1), the two names of a local game (M2.1), and the kiosk's settings an owner
//! edits (the public address, the guests' Wi-Fi network).
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

/// The longest public address accepted, in bytes.
pub const PUBLIC_URL_MAX_BYTES: usize = 200;

/// Checks a public address (U7: what the kiosk's QR code encodes) and returns it in its usual
/// form: `http://` or `https://` (any case), a host — a DNS name of ASCII letters, digits and
/// `-` (an international name in its `xn--` form), an IPv4 address, or an IPv6 address in
/// brackets — and an optional port 1–65535, then at most a `/`. No path, query, fragment or
/// user name: the app is served from the root. The scheme and host come back in lower case,
/// without the trailing `/`.
///
/// ```
/// use protocol::rules::check_public_url;
///
/// assert_eq!(check_public_url("HTTP://Kiosk.Example:8080/").as_deref(), Ok("http://kiosk.example:8080"));
/// assert!(check_public_url("ftp://kiosk.example").is_err());
/// ```
pub fn check_public_url(url: &str) -> Result<String, String> {
    let url = url.trim();
    if url.len() > PUBLIC_URL_MAX_BYTES {
        return Err(format!(
            "the address is longer than {PUBLIC_URL_MAX_BYTES} bytes"
        ));
    }
    let lower = url.to_ascii_lowercase();
    let (scheme, rest) = if let Some(rest) = lower.strip_prefix("http://") {
        ("http", rest)
    } else if let Some(rest) = lower.strip_prefix("https://") {
        ("https", rest)
    } else {
        return Err("the address must start with http:// or https://".into());
    };
    let authority = rest.strip_suffix('/').unwrap_or(rest);
    if let Some(c) = authority
        .chars()
        .find(|c| matches!(c, '/' | '?' | '#' | '@'))
    {
        return Err(format!(
            "the address may hold only a host and a port, not {c:?} (a path, query, fragment or user name)"
        ));
    }
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let (inside, after) = v6
            .split_once(']')
            .ok_or("an IPv6 address needs its closing ]")?;
        inside
            .parse::<std::net::Ipv6Addr>()
            .map_err(|_| format!("[{inside}] is not an IPv6 address"))?;
        let port = match after {
            "" => None,
            _ => Some(
                after
                    .strip_prefix(':')
                    .ok_or("after ] comes :PORT or nothing")?,
            ),
        };
        (&authority[..inside.len() + 2], port)
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (authority, None),
        }
    };
    if let Some(port) = port {
        let valid = !port.is_empty()
            && port.len() <= 5
            && port.bytes().all(|b| b.is_ascii_digit())
            && port.parse::<u32>().is_ok_and(|p| (1..=65_535).contains(&p));
        if !valid {
            return Err(format!("{port:?} is not a port (1 to 65535)"));
        }
    }
    if !host.starts_with('[') {
        check_host(host)?;
    }
    Ok(format!("{scheme}://{authority}"))
}

/// A DNS name or an IPv4 address (already lower case).
fn check_host(host: &str) -> Result<(), String> {
    if host.is_empty() {
        return Err("the address has no host".into());
    }
    if host.parse::<std::net::Ipv4Addr>().is_ok() {
        return Ok(());
    }
    if host.len() > 253 {
        return Err("the host name is longer than 253 bytes".into());
    }
    for label in host.split('.') {
        let valid = (1..=63).contains(&label.len())
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-');
        if !valid {
            return Err(format!(
                "{host:?} is not a host name (labels of 1 to 63 ASCII letters, digits and -; an international name in its xn-- form)"
            ));
        }
    }
    if host
        .rsplit('.')
        .next()
        .is_some_and(|last| last.bytes().all(|b| b.is_ascii_digit()))
    {
        return Err(format!(
            "{host:?} is neither an IPv4 address nor a host name"
        ));
    }
    Ok(())
}

/// The longest Wi-Fi network name (SSID), in bytes (802.11).
pub const WIFI_SSID_MAX_BYTES: usize = 32;
/// A WPA passphrase has 8 to 63 printable ASCII characters (802.11i).
pub const WIFI_PASSWORD_BYTES: core::ops::RangeInclusive<usize> = 8..=63;

/// A time of day `"HH:MM"` (24-hour, two digits each) as minutes after midnight.
pub fn clock_minutes(text: &str) -> Result<u16, String> {
    let bad = || format!("{text:?} is not a time of day as HH:MM (00:00 to 23:59)");
    let (h, m) = text.split_once(':').ok_or_else(bad)?;
    if h.len() != 2 || m.len() != 2 || !(h.bytes().chain(m.bytes())).all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let (h, m): (u16, u16) = (h.parse().map_err(|_| bad())?, m.parse().map_err(|_| bad())?);
    if h > 23 || m > 59 {
        return Err(bad());
    }
    Ok(h * 60 + m)
}

/// Sleep hours from `from` until `until` (`"HH:MM"` each, different), as minutes after
/// midnight.
pub fn sleep_hours(from: &str, until: &str) -> Result<(u16, u16), String> {
    let (from_min, until_min) = (clock_minutes(from)?, clock_minutes(until)?);
    if from_min == until_min {
        return Err(format!(
            "the sleep hours start and end at the same time ({from})"
        ));
    }
    Ok((from_min, until_min))
}

/// Sleep hours written `"HH:MM-HH:MM"` (the flag's and `xo-kiosk.txt`'s form); `None` for an
/// empty text (none).
pub fn parse_sleep_hours(text: &str) -> Result<Option<(String, String)>, String> {
    let text = text.trim();
    if text.is_empty() || text.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let (from, until) = text
        .split_once('-')
        .ok_or_else(|| format!("{text:?} is not sleep hours as HH:MM-HH:MM (23:00-08:00)"))?;
    let (from, until) = (from.trim(), until.trim());
    sleep_hours(from, until)?;
    Ok(Some((from.to_owned(), until.to_owned())))
}

/// Whether `minute` (after midnight) falls in the sleep hours `from` until `until` (minutes;
/// an `until` before `from` runs past midnight).
pub fn in_sleep_hours(minute: u16, (from, until): (u16, u16)) -> bool {
    if from < until {
        (from..until).contains(&minute)
    } else {
        minute >= from || minute < until
    }
}

/// A Wi-Fi network name: 1 to [`WIFI_SSID_MAX_BYTES`] bytes, no control characters.
pub fn check_wifi_ssid(ssid: &str) -> Result<(), String> {
    if ssid.is_empty() || ssid.len() > WIFI_SSID_MAX_BYTES {
        return Err(format!(
            "the guest Wi-Fi name must be 1 to {WIFI_SSID_MAX_BYTES} bytes long, not {}",
            ssid.len()
        ));
    }
    if ssid.chars().any(char::is_control) {
        return Err("the guest Wi-Fi name cannot contain control characters".into());
    }
    Ok(())
}

/// A WPA passphrase: [`WIFI_PASSWORD_BYTES`] printable ASCII characters.
pub fn check_wifi_password(password: &str) -> Result<(), String> {
    if !WIFI_PASSWORD_BYTES.contains(&password.len()) {
        return Err(format!(
            "the guest Wi-Fi password must be {} to {} bytes long, not {}",
            WIFI_PASSWORD_BYTES.start(),
            WIFI_PASSWORD_BYTES.end(),
            password.len()
        ));
    }
    if !password.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return Err("the guest Wi-Fi password may use only printable ASCII characters".into());
    }
    Ok(())
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

    #[test]
    fn public_urls_are_http_or_https_a_host_and_an_optional_port() {
        let ok = |u: &str| check_public_url(u).unwrap_or_else(|e| panic!("{u}: {e}"));
        assert_eq!(ok("http://xo.local"), "http://xo.local");
        assert_eq!(
            ok(" HTTPS://Kiosk.Example.com/ "),
            "https://kiosk.example.com"
        );
        assert_eq!(ok("http://192.168.1.20:8080"), "http://192.168.1.20:8080");
        assert_eq!(ok("http://[fe80::1]:8080/"), "http://[fe80::1]:8080");
        assert_eq!(ok("http://[2001:db8::20]"), "http://[2001:db8::20]");
        assert_eq!(
            ok("http://xn--caf-dma.example"),
            "http://xn--caf-dma.example"
        );
        for bad in [
            "",
            "xo.local",
            "ftp://xo.local",
            "http://",
            "http://:8080",
            "http://xo.local:0",
            "http://xo.local:65536",
            "http://xo.local:80a",
            "http://xo.local:",
            "http://xo.local/kiosk",
            "http://xo.local?x=1",
            "http://xo.local#top",
            "http://me@xo.local",
            "http://-xo.local",
            "http://xo..local",
            "http://café.example",
            "http://xo local",
            "http://1.2.3",
            "http://[::1",
            "http://[nope]",
            "http://[::1]8080",
            "javascript:alert(1)",
        ] {
            assert!(check_public_url(bad).is_err(), "{bad:?} was accepted");
        }
        let long = format!("http://{}.example", "a".repeat(PUBLIC_URL_MAX_BYTES));
        assert!(check_public_url(&long).is_err());
    }

    #[test]
    fn wifi_names_and_passwords_follow_802_11() {
        assert!(check_wifi_ssid("Café Guest").is_ok());
        assert!(check_wifi_ssid(&"x".repeat(32)).is_ok());
        assert!(check_wifi_ssid("").is_err());
        assert!(check_wifi_ssid(&"x".repeat(33)).is_err());
        assert!(check_wifi_ssid("a\nb").is_err());
        assert!(check_wifi_password("correct horse").is_ok());
        assert!(check_wifi_password(&"a".repeat(63)).is_ok());
        assert!(check_wifi_password("short").is_err());
        assert!(check_wifi_password(&"a".repeat(64)).is_err());
        assert!(check_wifi_password("pässwort123").is_err());
    }
}

#[cfg(test)]
mod sleep_tests {
    use super::*;

    #[test]
    fn sleep_hours_run_past_midnight_when_they_end_before_they_start() {
        let night = sleep_hours("23:00", "08:00").expect("valid");
        assert_eq!(night, (23 * 60, 8 * 60));
        for (minute, asleep) in [
            (22 * 60 + 59, false),
            (23 * 60, true),
            (0, true),
            (7 * 60 + 59, true),
            (8 * 60, false),
            (12 * 60, false),
        ] {
            assert_eq!(in_sleep_hours(minute, night), asleep, "{minute}");
        }
        let lunch = sleep_hours("12:30", "13:30").expect("valid");
        assert!(in_sleep_hours(13 * 60, lunch));
        assert!(!in_sleep_hours(13 * 60 + 30, lunch));
        assert!(!in_sleep_hours(23 * 60, lunch));
    }

    #[test]
    fn sleep_hours_are_two_different_times_of_day() {
        for bad in [
            ("24:00", "08:00"),
            ("23:60", "08:00"),
            ("7:00", "08:00"),
            ("23:00", "23:00"),
            ("ab:cd", "08:00"),
            ("+1:00", "08:00"),
        ] {
            assert!(sleep_hours(bad.0, bad.1).is_err(), "{bad:?}");
        }
        assert_eq!(
            parse_sleep_hours(" 23:00 - 08:00 "),
            Ok(Some(("23:00".to_owned(), "08:00".to_owned())))
        );
        assert_eq!(parse_sleep_hours(""), Ok(None));
        assert_eq!(parse_sleep_hours("none"), Ok(None));
        assert!(parse_sleep_hours("23:00").is_err());
    }
}
