//! The HTTP JSON API under `/api`: the request and response body of every endpoint, and the
//! one error body [`ApiErrorBody`] with its stable codes [`ApiErrorCode`]. The server
//! serialises these types and the UI deserialises them, so a shape is written once. The
//! endpoints themselves (method, path, status, types) are the rows of [`crate::api::Endpoint`],
//! which the server routes by; the table below adds each one's errors (a test holds it to the
//! rows).
//!
//! | route | request | success | errors (besides the common ones) |
//! | --- | --- | --- | --- |
//! | `GET /api/health` | | 200 [`Health`] | |
//! | `GET /api/config` | | 200 [`ServerConfig`] | |
//! | `POST /api/register` | [`Credentials`] | 201 [`Account`] + `xo_session`, `xo_device` cookies | `invalid_username`, `invalid_password`, `username_taken`, `too_many_attempts`, `too_many_registrations`, `storage_unavailable` |
//! | `POST /api/login` | [`Credentials`] | 200 [`Account`] + cookies | `bad_credentials`, `too_many_attempts`, `storage_unavailable` |
//! | `POST /api/logout` | `{}` | 200 [`SignedOut`], cookie cleared, that session's WebSockets signed out | |
//! | `GET /api/me` | | 200 [`Account`] | `not_signed_in` |
//! | `GET /api/session` | | 200 [`Session`]: the account, or `null` when signed out | |
//! | `POST /api/me/password` | [`ChangePassword`] | 200 [`Account`] + a new session cookie; every other session ends | `not_signed_in`, `wrong_password`, `invalid_password`, `too_many_attempts`, `storage_unavailable` |
//! | `GET /api/users/{name}` | | 200 [`Profile`] | `unknown_user` |
//! | `GET /api/leaderboard?game=xo\|infinite[&season=N]` | | 200 [`Leaderboard`] | `bad_game`, `not_found` (no such season) |
//! | `GET /api/seasons` | | 200 [`Seasons`] | |
//! | `GET /api/games/{id}` | | 200 [`GameView`] | `unknown_game` |
//! | `GET /api/rooms` | | 200 `[RoomSummary]` ([`crate::RoomSummary`]) | |
//! | `GET /api/puzzles/daily` | | 200 [`DailyPuzzles`] | |
//! | `GET /api/puzzles/streaks?game=xo\|infinite` | | 200 [`StreakBoard`] | `bad_game` |
//! | `DELETE /api/me` | [`DeleteAccount`] | 200 [`SignedOut`], cookie cleared; sessions and WebSockets end; games kept with the seat named [`DELETED_PLAYER_NAME`] | `not_signed_in`, `wrong_password`, `last_owner`, `too_many_attempts`, `storage_unavailable` |
//! | `POST /api/kiosk/owner-code` | `{}` | 200 [`OwnerCode`] | `not_kiosk` (not from the kiosk itself) |
//! | `GET /api/kiosk/screen` | | 200 [`KioskScreen`] | `not_kiosk` |
//! | `POST /api/kiosk/screen` | [`KioskScreen`] | 200 [`KioskScreen`] | `not_kiosk` |
//! | `POST /api/owner/claim` | [`ClaimOwner`] | 200 [`Owners`] | `not_signed_in`, `bad_owner_code` |
//! | `GET /api/owner` | | 200 [`Owners`] | `not_signed_in`, `not_owner` |
//! | `DELETE /api/owner/owners/{id}` | `{}` | 200 [`Owners`] | `not_signed_in`, `not_owner`, `last_owner`, `not_found` |
//! | `DELETE /api/owner/users/{id}` | `{}` | 200 [`AccountRemoved`] | `not_signed_in`, `not_owner`, `last_owner`, `unknown_user` |
//! | `GET /api/owner/users`, `GET /api/owner/online` | | 200 [`AccountList`] | `not_signed_in`, `not_owner` |
//! | `POST /api/owner/users/{id}/rename` | [`Rename`] | 200 [`Account`] | `not_owner`, `invalid_username`, `username_taken`, `unknown_user` |
//! | `POST /api/owner/users/{id}/reset-password` | `{}` | 200 [`PasswordReset`] | `not_owner`, `unknown_user` |
//! | `POST /api/login/reset` | [`ResetPassword`] | 200 [`Account`] + cookies; every earlier session ends | `bad_reset_code`, `invalid_password`, `too_many_attempts` |
//! | `POST /api/owner/rooms/{id}/close` | [`CloseRoom`] | 200 [`ClosedRoom`]; its viewers get `room_closed` with reason `owner` | `not_owner`, `not_found`, `bad_json` |
//! | `GET /api/owner/backup` | | 200 a backup file (`application/octet-stream`) | `not_owner` |
//! | `POST /api/owner/restore/preview` | a backup file (`application/octet-stream`) | 200 [`BackupPreview`] | `not_owner`, `bad_backup`, `backup_too_new`, `body_too_large` |
//! | `POST /api/owner/restore` | a backup file | 200 [`Restored`]; everyone signed out, every room closed | `not_owner`, `bad_backup`, `backup_too_new`, `storage_unavailable` |
//! | `GET /api/owner/backups` | | 200 [`KeptBackups`]: the backups kept on the kiosk, newest first | `not_owner` |
//! | `GET /api/owner/backups/{name}` | | 200 that backup file (`application/octet-stream`) | `not_owner`, `not_found` |
//! | `POST /api/owner/backups/{name}/restore` | `{}` | 200 [`Restored`], as `POST /api/owner/restore` with that file | `not_owner`, `not_found`, `bad_backup`, `backup_too_new`, `storage_unavailable` |
//! | `POST /api/owner/seasons` | `{}` | 200 [`SeasonStarted`]: the ladders archived, every player back at the start | `not_owner` |
//! | `POST /api/owner/update` | a `firmware-host` binary (`application/octet-stream`) | 200 [`UpdateInstalled`] | `not_owner`, `update_refused`, `body_too_large` |
//! | `GET /api/owner/update` | | 200 [`UpdateStatus`] | `not_owner` |
//! | `POST /api/owner/restart` | `{}` | 202 [`Restarting`] | `not_owner` |
//! | `GET /api/owner/health` | | 200 [`OwnerHealth`] | `not_owner` |
//! | `GET /api/owner/settings` | | 200 [`OwnerSettings`] | `not_owner` |
//! | `PUT /api/owner/settings` | [`OwnerSettings`] | 200 [`OwnerSettings`], stored and applied at once | `not_owner`, `invalid_kiosk_idle`, `invalid_public_url`, `invalid_default_language`, `invalid_wifi_ssid`, `invalid_wifi_password`, `storage_unavailable` |
//! | `DELETE /api/owner/settings` | `{}` | 200 [`OwnerSettings`]: the stored ones forgotten, the flags' in force again | `not_owner`, `storage_unavailable` |
//! | `POST /api/owner/events` | [`NewEvent`] | 201 [`EventSummary`] | `not_owner`, `invalid_event_duration`, `invalid_event_start`, `invalid_event_time_per_move`, `invalid_event_name`, `event_clash`, `storage_unavailable` |
//! | `DELETE /api/owner/events/{id}` | `{}` | 200 [`EventSummary`] (cancelled) | `not_owner`, `unknown_event`, `event_started` |
//! | `GET /api/events` | | 200 [`EventList`] | |
//! | `GET /api/events/{id}` | | 200 [`EventPage`] | `unknown_event` |
//! | `GET /ws` | WebSocket upgrade | 101 | `websocket_required`, `websocket_version`, `bad_origin`, `too_many_connections` |
//!
//! Common errors, on any route: `not_found`, `method_not_allowed` (with `Allow`), `bad_host`,
//! and on `POST` and `DELETE`: `unsupported_media_type` (the body must be `application/json`),
//! `bad_origin` (an `Origin` that is not this server), `body_too_large`, `bad_body`, `body_timeout`,
//! `bad_json`; `internal` when the server fails. Every error answers with the status of its
//! code ([`ApiErrorCode::status`]) and the body [`ApiErrorBody`]; `too_many_*` also carry
//! `Retry-After` in seconds.
//!
//! ```
//! use protocol::http::{ApiErrorBody, ApiErrorCode};
//!
//! let body: ApiErrorBody =
//!     serde_json::from_str(r#"{"code":"bad_credentials","message":"wrong username or password"}"#)?;
//! assert_eq!(body.code, ApiErrorCode::BadCredentials);
//! assert_eq!(body.code.status(), 401);
//! # Ok::<(), serde_json::Error>(())
//! ```

use engine::{Game, Mark};
use serde::{Deserialize, Serialize};

use crate::records::{FinishedGame, RatingUpdate, UserId};

/// Declares [`ApiErrorCode`] from one table, a line per code: variant, wire name, HTTP status.
/// The enum, [`ApiErrorCode::as_str`], [`ApiErrorCode::status`] and [`ApiErrorCode::ALL`] are
/// all made from it (test `error_codes_round_trip_and_unknown_ones_read_as_other` holds the wire
/// names to serde's).
macro_rules! api_error_codes {
    ($($(#[$doc:meta])* $variant:ident = $name:literal, $status:literal;)*) => {
        /// The stable, machine-readable reason of an HTTP error. Codes are never renamed; new
        /// ones may be added, and a client reads a code it does not know as
        /// [`ApiErrorCode::Other`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum ApiErrorCode {
            $($(#[$doc])* $variant,)*
            /// A code this client does not know (sent by a newer server).
            #[serde(other)]
            Other,
        }

        impl ApiErrorCode {
            /// The HTTP status every response with this code has.
            pub fn status(self) -> u16 {
                match self {
                    $(ApiErrorCode::$variant => $status,)*
                    ApiErrorCode::Other => 500,
                }
            }

            /// The wire name, e.g. `bad_credentials`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ApiErrorCode::$variant => $name,)*
                    ApiErrorCode::Other => "other",
                }
            }

            /// Every code a server sends, in declaration order (for documentation and tests).
            pub const ALL: [ApiErrorCode; [$($name),*].len()] = [$(ApiErrorCode::$variant),*];
        }
    };
}

api_error_codes! {
    // Requests.
    /// No such endpoint or file.
    NotFound = "not_found", 404;
    /// The path exists but not for that method; `Allow` lists the methods it takes.
    MethodNotAllowed = "method_not_allowed", 405;
    /// The body is larger than 16 KiB.
    BodyTooLarge = "body_too_large", 413;
    /// The body could not be read (the connection failed).
    BadBody = "bad_body", 400;
    /// The body did not arrive within the server's handshake timeout (10 s by default).
    BodyTimeout = "body_timeout", 408;
    /// The body is not the JSON the endpoint expects.
    BadJson = "bad_json", 400;
    /// A state-changing request without `Content-Type: application/json`.
    UnsupportedMediaType = "unsupported_media_type", 415;
    /// A browser's `Origin` names another site (cross-site request or WebSocket).
    BadOrigin = "bad_origin", 403;
    /// The `Host` header names neither this server's names nor its addresses (DNS rebinding).
    BadHost = "bad_host", 421;
    // Accounts.
    /// The username breaks A1 (3–20 letters, digits, `_`, `-`).
    InvalidUsername = "invalid_username", 400;
    /// The password breaks A1 (8–128 characters).
    InvalidPassword = "invalid_password", 400;
    /// The username is taken, ignoring case.
    UsernameTaken = "username_taken", 409;
    /// Wrong username or password.
    BadCredentials = "bad_credentials", 401;
    /// The current password given to change the password is wrong.
    WrongPassword = "wrong_password", 403;
    /// Too many failed sign-in attempts from this address or for this username.
    TooManyAttempts = "too_many_attempts", 429;
    /// Too many accounts registered from this address lately.
    TooManyRegistrations = "too_many_registrations", 429;
    /// The request needs a signed-in session.
    NotSignedIn = "not_signed_in", 401;
    // Reads.
    /// No player has that name.
    UnknownUser = "unknown_user", 404;
    /// No finished game has that id.
    UnknownGame = "unknown_game", 404;
    /// `game` is missing or not `xo` / `infinite`.
    BadGame = "bad_game", 400;
    // WebSocket.
    /// `/ws` was requested without a WebSocket upgrade.
    WebsocketRequired = "websocket_required", 426;
    /// Only WebSocket version 13 is spoken.
    WebsocketVersion = "websocket_version", 400;
    /// Too many open connections from this address.
    TooManyConnections = "too_many_connections", 429;
    // Owner mode.
    /// An owner endpoint was called by a signed-in account that is not an owner of the kiosk.
    NotOwner = "not_owner", 403;
    /// An owner code was asked for from another device than the kiosk itself.
    NotKiosk = "not_kiosk", 403;
    /// The owner code is wrong, expired, already used, or spent by too many wrong guesses.
    BadOwnerCode = "bad_owner_code", 403;
    /// The username or the password reset code is wrong, or the code expired or was spent.
    BadResetCode = "bad_reset_code", 403;
    /// A restore's file is not a valid backup (not one, damaged, cut short); nothing changed.
    BadBackup = "bad_backup", 400;
    /// A restore's file was made by a newer release than this one reads; nothing changed.
    BackupTooNew = "backup_too_new", 409;
    /// An uploaded update was refused; the message starts with the reason's code
    /// (`not_elf`, `wrong_arch`, `not_newer`, `does_not_start`, `unhealthy`, `io`).
    UpdateRefused = "update_refused", 400;
    /// The last owner cannot be removed (nor delete their account): add another owner first.
    LastOwner = "last_owner", 409;
    // Settings (`PUT /api/owner/settings`): each names the field it refuses.
    /// `kiosk_idle_s` is missing or not a whole number of seconds in [`KIOSK_IDLE_RANGE_S`].
    InvalidKioskIdle = "invalid_kiosk_idle", 400;
    /// `public_url` is not `null` nor an `http://` or `https://` address of a host with an
    /// optional port (no path, query, fragment or user name).
    InvalidPublicUrl = "invalid_public_url", 400;
    /// `default_language` is not `"en"` or `"ar"`.
    InvalidDefaultLanguage = "invalid_default_language", 400;
    /// `wifi.ssid` is not 1 to 32 bytes, or `wifi` is not `null` nor an object.
    InvalidWifiSsid = "invalid_wifi_ssid", 400;
    /// `wifi.password` is not 8 to 63 printable ASCII characters, or does not match
    /// `wifi.security` (`WPA` needs one, `nopass` has none).
    InvalidWifiPassword = "invalid_wifi_password", 400;
    /// `screen_sleep` is not `null` nor `{"from":"HH:MM","until":"HH:MM"}` with two different
    /// times of day.
    InvalidScreenSleep = "invalid_screen_sleep", 400;
    /// `screen_off_idle_s` is not 0 (never) nor a whole number of seconds in
    /// [`SCREEN_OFF_IDLE_RANGE_S`].
    InvalidScreenOffIdle = "invalid_screen_off_idle", 400;
    // Server.
    /// The data card cannot be written now (full, failing or read-only); nothing changed.
    StorageUnavailable = "storage_unavailable", 503;
    /// The server failed; the log says why.
    Internal = "internal", 500;
    // Arena events (`/api/owner/events`, `/api/events`).
    /// `duration_min` is outside 10–180 minutes.
    InvalidEventDuration = "invalid_event_duration", 400;
    /// `start_in_ms` is not within the next 24 hours.
    InvalidEventStart = "invalid_event_start", 400;
    /// `time_per_move_s` is not 5, 10 or 30, or was given for XO (two minutes per move).
    InvalidEventTimePerMove = "invalid_event_time_per_move", 400;
    /// `name` is over 40 characters or not on one line.
    InvalidEventName = "invalid_event_name", 400;
    /// One event at a time: this one's hours overlap another's that is not over.
    EventClash = "event_clash", 409;
    /// No event has that id.
    UnknownEvent = "unknown_event", 404;
    /// Only an announced event (not yet started) can be cancelled.
    EventStarted = "event_started", 409;
}

impl core::fmt::Display for ApiErrorCode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The body of every HTTP error. Clients branch on `code`; `message` is English for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiErrorBody {
    pub code: ApiErrorCode,
    pub message: String,
}

/// `POST /api/register` and `POST /api/login`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credentials {
    pub username: String,
    pub password: String,
}

/// `POST /api/me/password`: the current password and the new one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangePassword {
    pub old_password: String,
    pub new_password: String,
}

/// The signed-in account: the answer of register, login, `/api/me` and a password change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    pub id: UserId,
    /// As typed at registration.
    pub username: String,
}

/// `GET /api/session`: the account this browser is signed in as, `null` when it is not. It
/// never answers `not_signed_in`, so a page asks it on every load without an error in the
/// browser's console; `/api/me` keeps its 401 for clients that branch on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    pub account: Option<Account>,
}

/// The answer of logout and account deletion: `{"signed_in": false}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedOut {
    pub signed_in: bool,
}

/// Whether the server can do everything it should.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HealthStatus {
    Ok,
    /// Serving, but something is wrong (`reason` says what), e.g. the card cannot be written.
    Degraded,
}

/// The data card's state, worst first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StorageState {
    /// Writes fail: full, I/O errors, read-only. Play goes on in memory; results wait.
    Failing,
    /// Writes work, but little space is left.
    NearlyFull,
    Ok,
}

/// The data card, as the store tracks it and `/api/health` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StorageHealth {
    pub state: StorageState,
    /// Why it is not `ok`, for people: the failing write's error, or the space left.
    pub reason: Option<String>,
    /// The failure is a full card (no space left).
    pub full: bool,
    pub free_bytes: Option<u64>,
    pub total_bytes: Option<u64>,
}

impl StorageHealth {
    /// Whether the server should report itself degraded.
    pub fn degraded(&self) -> bool {
        self.state != StorageState::Ok
    }
}

/// `GET /api/health`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    pub status: HealthStatus,
    /// Why the status is `degraded` (`null` when it is `ok`); `storage` has the details.
    pub reason: Option<String>,
    pub storage: StorageHealth,
    /// The server's version (Cargo package version).
    pub version: String,
    pub uptime_s: u64,
    /// Open rooms: `rooms_waiting + rooms_playing`.
    pub rooms: usize,
    pub rooms_waiting: usize,
    pub rooms_playing: usize,
    /// Open WebSocket connections.
    pub connections: usize,
    pub players_online: usize,
    /// Open TCP connections (HTTP and WebSocket).
    pub http_connections: usize,
    /// Whether the UI was embedded at build time.
    pub ui_built: bool,
}

/// How a Wi-Fi network is secured, as a `WIFI:` QR code names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum WifiSecurity {
    #[serde(rename = "WPA")]
    Wpa,
    #[serde(rename = "nopass")]
    Nopass,
}

/// The kiosk's Wi-Fi network, for a `WIFI:` QR code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wifi {
    pub ssid: String,
    pub security: WifiSecurity,
    #[serde(default)]
    pub password: Option<String>,
}

/// `GET /api/puzzles/daily`: today's puzzle of each game (PZ4) and how many solved it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DailyPuzzles {
    /// Today on the server: days since 1970-01-01, UTC.
    pub day: u32,
    /// XO's, then Infinite XO's.
    pub puzzles: Vec<DailyPuzzle>,
}

/// One game's puzzle of the day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DailyPuzzle {
    pub game: engine::Game,
    /// Its id, for `puzzle_start` with `{"by_id":{"puzzle":…}}` (or `{"daily":{"game":…}}`).
    pub puzzle: String,
    pub kind: crate::puzzle::PuzzleKind,
    pub rating: i32,
    /// The side to move: "X to move and win".
    pub to_move: engine::Mark,
    /// How many solved it today so far.
    pub solved_today: u32,
}

/// `GET /api/config`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerConfig {
    /// Seconds without a game after which the kiosk returns home (U7).
    pub kiosk_idle_s: u64,
    /// The address phones should open; `null` while the server does not know it yet (the
    /// kiosk then shows no QR code).
    #[serde(default)]
    pub public_url: Option<String>,
    /// The kiosk's `.local` name, shown in words.
    #[serde(default)]
    pub local_url: Option<String>,
    /// The Wi-Fi network phones should join, when configured.
    #[serde(default)]
    pub wifi: Option<Wifi>,
    /// The language pages open in until the visitor chooses one (the owner's setting).
    #[serde(default)]
    pub default_language: Language,
    /// The hours the kiosk's screen sleeps once left alone for `kiosk_idle_s`; `null`: none.
    #[serde(default)]
    pub screen_sleep: Option<SleepHours>,
    /// Seconds without a touch after which the kiosk's screen sleeps; 0: never.
    #[serde(default)]
    pub screen_off_idle_s: u64,
    pub version: String,
    /// [`crate::PROTOCOL_VERSION`].
    pub protocol_version: u32,
}

/// A language of the interface (U6), as the API writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    En,
    Ar,
}

impl Language {
    /// `"en"` or `"ar"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::Ar => "ar",
        }
    }
}

impl core::str::FromStr for Language {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "en" => Ok(Language::En),
            "ar" => Ok(Language::Ar),
            _ => Err(()),
        }
    }
}

/// The idle times an owner may set, in seconds (U7; the default is 120).
pub const KIOSK_IDLE_RANGE_S: core::ops::RangeInclusive<u64> = 10..=3600;

/// `screen_off_idle_s` other than 0 (never): from ten seconds to a day.
pub const SCREEN_OFF_IDLE_RANGE_S: core::ops::RangeInclusive<u64> = 10..=86_400;

/// The hours the kiosk's screen sleeps (AP3), in the kiosk's local time: from `from` until
/// `until`, each `"HH:MM"` (24-hour); an `until` earlier than `from` runs past midnight
/// (`23:00` until `08:00`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SleepHours {
    pub from: String,
    pub until: String,
}

/// `GET` and `POST /api/kiosk/screen`: whether the kiosk's screen shows its sleep (black)
/// page. The kiosk's own page reports it; the image's compositor hook reads it to turn the
/// display's power off and on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct KioskScreen {
    pub asleep: bool,
    /// When it last changed (server time, ms since the epoch); 0 before any report. Ignored
    /// in a `POST`.
    #[serde(default)]
    pub changed_ms: u64,
}

/// `GET` and `PUT /api/owner/settings`: the settings an owner would otherwise edit on the SD
/// card. Once an owner saved them they override the command-line flags (and the image's
/// `xo-kiosk.txt`, which sets those flags) until `DELETE /api/owner/settings` forgets them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnerSettings {
    /// Seconds without a game after which the kiosk returns home (U7), in
    /// [`KIOSK_IDLE_RANGE_S`].
    pub kiosk_idle_s: u64,
    /// The address phones should open (`http://` or `https://`, a host, an optional port);
    /// `null`: automatic (the LAN IP address).
    pub public_url: Option<String>,
    /// The language pages open in until the visitor chooses one.
    pub default_language: Language,
    /// The guests' Wi-Fi network, shown as a second QR code; `null`: none.
    pub wifi: Option<Wifi>,
    /// The hours the kiosk's screen sleeps (AP3); `null`: none.
    #[serde(default)]
    pub screen_sleep: Option<SleepHours>,
    /// Seconds without a touch after which the kiosk's screen sleeps, at any hour; 0: never.
    #[serde(default)]
    pub screen_off_idle_s: u64,
    /// In answers: whether these are an owner's stored settings (`false`: the flags'). Ignored
    /// in a `PUT`.
    #[serde(default)]
    pub stored: bool,
}

/// One ladder of a player (E5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LadderView {
    pub rating: i32,
    pub points: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// `wins + draws + losses`.
    pub games: u32,
}

/// One value per game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerGame<T> {
    pub xo: T,
    pub infinite: T,
}

impl<T> PerGame<T> {
    /// The value for `game`.
    pub fn get(&self, game: Game) -> &T {
        match game {
            Game::Xo => &self.xo,
            Game::Infinite => &self.infinite,
        }
    }
}

/// A rating change as served, with the change precomputed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingUpdateView {
    pub user: UserId,
    pub mark: Mark,
    pub before: i32,
    pub after: i32,
    /// `after - before`.
    pub change: i32,
}

impl From<&RatingUpdate> for RatingUpdateView {
    fn from(u: &RatingUpdate) -> Self {
        RatingUpdateView {
            user: u.user,
            mark: u.mark,
            before: u.before,
            after: u.after,
            change: u.change(),
        }
    }
}

/// Who won, in lower case as the API writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Winner {
    X,
    O,
}

impl From<Mark> for Winner {
    fn from(m: Mark) -> Self {
        match m {
            Mark::X => Winner::X,
            Mark::O => Winner::O,
        }
    }
}

/// `GET /api/games/{id}` and a profile's recent games: the [`FinishedGame`] fields plus the
/// winner and the rating updates it caused (empty for unrated games).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "GameViewFields", into = "GameViewFields")]
pub struct GameView {
    pub game: FinishedGame,
    /// `null` for a draw.
    pub winner: Option<Winner>,
    pub rating_updates: Vec<RatingUpdateView>,
}

/// [`GameView`] as sent: the [`FinishedGame`] fields beside its own, spelled out. The same
/// JSON as `#[serde(flatten)]`, whose buffered decoding would put a second decoder of every
/// [`FinishedGame`] field type into the web UI's download.
#[derive(Serialize, Deserialize)]
struct GameViewFields {
    id: String,
    game: Game,
    rated: bool,
    x: crate::records::PlayerRef,
    o: crate::records::PlayerRef,
    moves: Vec<engine::Cell>,
    end: crate::records::GameEnd,
    started_at_ms: u64,
    ended_at_ms: u64,
    winner: Option<Winner>,
    #[serde(default)]
    rating_updates: Vec<RatingUpdateView>,
}

impl From<GameViewFields> for GameView {
    fn from(f: GameViewFields) -> GameView {
        GameView {
            game: FinishedGame {
                id: f.id,
                game: f.game,
                rated: f.rated,
                x: f.x,
                o: f.o,
                moves: f.moves,
                end: f.end,
                started_at_ms: f.started_at_ms,
                ended_at_ms: f.ended_at_ms,
            },
            winner: f.winner,
            rating_updates: f.rating_updates,
        }
    }
}

impl From<GameView> for GameViewFields {
    fn from(v: GameView) -> GameViewFields {
        let FinishedGame {
            id,
            game,
            rated,
            x,
            o,
            moves,
            end,
            started_at_ms,
            ended_at_ms,
        } = v.game;
        GameViewFields {
            id,
            game,
            rated,
            x,
            o,
            moves,
            end,
            started_at_ms,
            ended_at_ms,
            winner: v.winner,
            rating_updates: v.rating_updates,
        }
    }
}

impl GameView {
    /// A stored game and its rating updates (X then O) as served.
    pub fn new(game: FinishedGame, updates: &[RatingUpdate]) -> GameView {
        GameView {
            winner: game.end.winner().map(Winner::from),
            rating_updates: updates.iter().map(RatingUpdateView::from).collect(),
            game,
        }
    }
}

/// `GET /api/users/{name}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    pub id: UserId,
    pub username: String,
    /// Milliseconds since the Unix epoch.
    pub created_ms: u64,
    pub ratings: PerGame<i32>,
    /// Both ladders' points together.
    pub points: u32,
    pub ladders: PerGame<LadderView>,
    /// The latest 20 finished games, newest first.
    pub recent_games: Vec<GameView>,
    /// The player's ladders in each archived season they played, oldest first.
    #[serde(default)]
    pub seasons: Vec<ProfileSeason>,
    /// The arena events the player played a game in (EV5), newest first, with their place.
    #[serde(default)]
    pub events: Vec<ProfileEvent>,
    /// The player's puzzles per game (PZ3, PZ5).
    #[serde(default)]
    pub puzzles: PerGame<PuzzleStats>,
    /// The latest 20 ended puzzle attempts, newest first, each with its moves for a replay.
    #[serde(default)]
    pub recent_puzzles: Vec<PuzzleAttemptView>,
}

/// One arena event on a player's profile (EV5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileEvent {
    pub event: crate::event::EventId,
    pub name: String,
    pub game: Game,
    pub rated: bool,
    /// `finished`, or `running` / `ending` while it is still on (the rank may change).
    pub phase: crate::event::EventPhase,
    /// Milliseconds since the Unix epoch on the server's clock.
    pub starts_at_ms: u64,
    /// The player's place, from 1 (shared by equal rows), in the event's standings.
    pub rank: u32,
    /// Rows in the standings.
    pub of: u32,
    pub points: u32,
    pub games: u32,
}

/// A player's puzzles in one game (PZ3, PZ5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PuzzleStats {
    /// The puzzle rating: 1200 before the first rated attempt.
    pub rating: i32,
    /// Puzzles attempted for the rating (a first attempt at each).
    pub tried: u32,
    /// Of those, solved.
    pub solved: u32,
    /// The longest streak (puzzles solved in a row in one streak).
    pub best_streak: u32,
}

impl Default for PuzzleStats {
    fn default() -> Self {
        PuzzleStats {
            rating: engine::INITIAL_RATING,
            tried: 0,
            solved: 0,
            best_streak: 0,
        }
    }
}

/// One ended puzzle attempt of a player, as a profile lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PuzzleAttemptView {
    /// The attempt's number in the store, unique on this kiosk.
    pub id: u64,
    pub puzzle: String,
    pub game: Game,
    pub kind: crate::puzzle::PuzzleKind,
    /// The player's mark.
    pub you: Mark,
    /// The position solved, as [`crate::PuzzleView`]'s `start`.
    pub start: crate::puzzle::PuzzleBoard,
    /// Every ply from the start: the player's moves, the defence's replies, any refutation.
    pub moves: Vec<engine::Cell>,
    /// `solved` or `failed`.
    pub status: crate::puzzle::AttemptStatus,
    /// Whether it counted for the rating: then `rating_change` holds both ratings.
    pub rated: bool,
    pub rating_change: Option<crate::puzzle::PuzzleRatingChange>,
    /// Milliseconds since the Unix epoch, when it ended.
    pub ended_ms: u64,
}

/// `GET /api/puzzles/streaks?game=xo|infinite`: the players with the best puzzle streaks of
/// that game (PZ5), at most 100.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreakBoard {
    pub game: Game,
    pub players: Vec<StreakRow>,
}

/// One row of a streak leaderboard: longest streak first, then puzzle rating, then name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreakRow {
    /// From 1.
    pub rank: u32,
    pub id: UserId,
    pub username: String,
    pub best_streak: u32,
    /// The player's puzzle rating in that game.
    pub rating: i32,
}

/// A player's ladders as an archived season ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileSeason {
    pub season: u64,
    /// When the season ended, in milliseconds since the Unix epoch.
    #[serde(default)]
    pub ended_ms: u64,
    pub ladders: PerGame<LadderView>,
    /// The player's place on each of the season's ladders, from 1, as its archived leaderboard
    /// ranks it; `None` on a ladder they had no game of that season.
    #[serde(default)]
    pub ranks: PerGame<Option<u32>>,
}

/// One row of a leaderboard.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaderRow {
    /// From 1.
    pub rank: u32,
    pub id: UserId,
    pub username: String,
    pub rating: i32,
    pub points: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub games: u32,
}

/// `GET /api/leaderboard?game=xo|infinite`: the best 100 players of that ladder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Leaderboard {
    pub game: Game,
    /// The season shown: the current one, or an archived one asked for with `?season=N`.
    #[serde(default)]
    pub season: u64,
    pub players: Vec<LeaderRow>,
}

/// `GET /api/seasons`: the season being played and the archived ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seasons {
    pub current: u64,
    pub archived: Vec<SeasonSummary>,
}

/// An archived season.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeasonSummary {
    pub number: u64,
    pub ended_ms: u64,
    /// Players with a rated game that season.
    pub players: usize,
}

/// `POST /api/owner/seasons`: the season archived and the one now played.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeasonStarted {
    pub archived: u64,
    pub current: u64,
}

/// The name a deleted account's seat shows in the finished games kept after the deletion.
/// It has a space, so no account can be registered under it.
pub const DELETED_PLAYER_NAME: &str = "deleted player";

/// `DELETE /api/me`: the account's own password, to delete it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeleteAccount {
    pub password: String,
}

/// `POST /api/kiosk/owner-code` (the kiosk's own screen only): a one-time owner code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnerCode {
    /// Eight digits; spaces and dashes typed with it are ignored.
    pub code: String,
    /// Seconds the code stays valid (single use either way).
    pub expires_s: u64,
}

/// `POST /api/owner/claim`: a code shown on the kiosk or printed by `firmware-host owner-code`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimOwner {
    pub code: String,
}

/// One owner of the kiosk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnerView {
    pub id: UserId,
    pub username: String,
    /// When the account became an owner, milliseconds since the Unix epoch.
    pub added_ms: u64,
}

/// `GET /api/owner`, and the answer of claiming or removing an owner: who asks, and every
/// owner (oldest first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owners {
    pub you: Account,
    pub owners: Vec<OwnerView>,
}

/// The answer of an owner's removal of an account: the account removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountRemoved {
    pub id: UserId,
    pub username: String,
}

/// `POST /api/owner/users/{id}/rename`: the account's new name (A1's rules).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rename {
    pub username: String,
}

/// `POST /api/owner/users/{id}/reset-password`: a one-time code the owner reads out to the
/// player, who sets a new password with it on the sign-in page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PasswordReset {
    pub username: String,
    /// Eight digits.
    pub code: String,
    pub expires_s: u64,
}

/// `POST /api/login/reset`: a reset code from an owner and the new password; signs in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResetPassword {
    pub username: String,
    pub code: String,
    pub new_password: String,
}

/// One account as the owner's players page lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountRow {
    pub id: UserId,
    pub username: String,
    pub created_ms: u64,
    pub owner: bool,
    /// Open WebSockets now; 0 when offline.
    pub connections: usize,
}

/// `GET /api/owner/users` (every account, by name) and `GET /api/owner/online` (the signed-in
/// players connected now).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AccountList {
    pub users: Vec<AccountRow>,
    /// Every open WebSocket, guests' included.
    pub connections: usize,
}

/// `POST /api/owner/rooms/{id}/close`: why the owner closes the room (1 to
/// [`CLOSE_REASON_MAX`] characters), shown to its players.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CloseRoom {
    pub reason: String,
}

/// Longest reason an owner may give for closing a room, in characters.
pub const CLOSE_REASON_MAX: usize = 200;

/// The answer of an owner's room closing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClosedRoom {
    pub room: String,
    pub reason: String,
}

/// `POST /api/owner/restore/preview`: what a backup file holds (after it was verified).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BackupPreview {
    /// The layout of the file (its header's `format_version`).
    pub format_version: u32,
    /// The database schema it was written with; older ones are migrated.
    pub schema_version: u64,
    /// The release that made it.
    pub app_version: String,
    pub created_ms: u64,
    pub users: u64,
    pub games: u64,
    pub owners: u64,
    /// Whether the file holds the kiosk's settings; one made before they existed does not,
    /// and restoring it keeps the settings in force.
    #[serde(default)]
    pub settings: bool,
}

/// `POST /api/owner/restore`: what was restored, and where the replaced data was kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Restored {
    pub restored: BackupPreview,
    /// The backup of the data the restore replaced, relative to the data directory.
    pub replaced_kept_as: String,
}

/// One backup file kept on the kiosk (in the data directory's `backups/`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptBackup {
    /// Its file name, the `{name}` of `/api/owner/backups/{name}`.
    pub name: String,
    /// When it was made (its header's `created_ms`).
    pub created_ms: u64,
    /// The file's length.
    pub bytes: u64,
    /// The release that made it.
    pub app_version: String,
}

/// `GET /api/owner/backups`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptBackups {
    /// How many the kiosk keeps: keeping another removes the oldest beyond these.
    pub keep: u32,
    /// Newest first.
    pub backups: Vec<KeptBackup>,
}

/// `POST /api/owner/update`: the version installed (the launcher runs it after a restart).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdateInstalled {
    pub version: String,
}

/// `POST /api/owner/restart`: the server stops now (exit status [`RESTART_EXIT_STATUS`]);
/// what starts it again, if anything, is [`UpdateStatus::supervisor`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Restarting {
    pub restarting: bool,
}

/// The exit status of a server stopped by an owner's restart (`EX_TEMPFAIL`): "start me
/// again". `scripts/run` starts it again on this status; the image's launcher counts it as an
/// orderly stop, never a crash.
pub const RESTART_EXIT_STATUS: u8 = 75;

/// What starts the server again after an owner's restart, as it was told at its start
/// (`--supervisor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Supervisor {
    /// Nothing: the server stops and must be started again by hand.
    #[default]
    None,
    /// `scripts/run`: the same program again (installed updates do not run).
    RunScript,
    /// The SD-card image's launcher: the newest installed version not marked bad.
    Launcher,
}

/// The card's room for checking an update (see `firmware-host`'s `update::room`), estimated
/// for a new version as large as the running one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdateRoom {
    pub free_bytes: u64,
    /// What the upload and its check write: the file twice, a snapshot of the data, the
    /// check's own files.
    pub needed_bytes: u64,
    /// What must stay free after it.
    pub reserve_bytes: u64,
    /// Whether an upload of that size would be checked (else it is refused `no_room`).
    pub enough: bool,
}

/// The launcher's last rollback, as it writes `DATA_DIR/updates/rollback.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rollback {
    /// The version that did not become healthy.
    pub from: String,
    /// The version that ran instead (the image's own binary reports its own version).
    pub to: String,
    pub reason: String,
    pub at_unix: u64,
}

/// `GET /api/owner/update`: what the owner's pages show about updates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UpdateStatus {
    /// The version of this process.
    pub running: String,
    /// Installed versions, oldest first.
    pub installed: Vec<String>,
    /// Versions that did not become healthy after a restart, in the order they failed.
    pub bad: Vec<String>,
    pub last_rollback: Option<Rollback>,
    /// What starts the server again after a restart: only the launcher runs installed
    /// versions.
    #[serde(default)]
    pub supervisor: Supervisor,
    /// `null` when the card's free space cannot be read.
    #[serde(default)]
    pub room: Option<UpdateRoom>,
}

/// `GET /api/owner/health`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OwnerHealth {
    /// What `GET /api/health` answers: version, uptime, storage used and free, rooms, players.
    pub health: Health,
    /// The log's recent `warn` and `error` lines, oldest first (at most 100).
    pub recent_errors: Vec<String>,
    /// Installed updates and the last rollback.
    pub update: UpdateStatus,
    /// The status display; `null` when none is configured.
    #[serde(default)]
    pub display: Option<DisplayHealth>,
}

/// The status display as the owner's health page shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DisplayHealth {
    /// The setting (`--display`, `display=` in `xo-kiosk.txt`): `ssd1306`, `fb:/dev/fb1` …
    pub backend: String,
    pub state: DisplayState,
    /// Why it is failing: the setting not understood, the device not opened, a write failed.
    pub error: Option<String>,
}

/// Where the status display is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DisplayState {
    /// Being opened (the first seconds after the start).
    Starting,
    /// Drawn at its last refresh.
    Ok,
    /// Not drawn: see `error`. The device is tried again every 30 s.
    Failing,
}

/// `POST /api/owner/events`: the owner's event form (EV1). Only `game` and `duration_min` are
/// required.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewEvent {
    pub game: Game,
    /// 10–180.
    pub duration_min: u32,
    /// From the server's now: 0 (the default) starts at once; the owner's "20:00" is sent as
    /// the milliseconds until then on the phone's clock, so that no two clocks are compared.
    /// At most 24 hours.
    #[serde(default)]
    pub start_in_ms: u64,
    /// Infinite XO only: 5, 10 or 30 (default 10); XO's clock is two minutes per move.
    #[serde(default)]
    pub time_per_move_s: Option<u8>,
    /// Default `true` (EV1).
    #[serde(default)]
    pub rated: Option<bool>,
    /// For the board; default "Arena"; at most 40 characters on one line.
    #[serde(default)]
    pub name: Option<String>,
}

/// One event as listed (`GET /api/events`) and as created or cancelled.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventSummary {
    pub id: crate::event::EventId,
    pub name: String,
    pub game: Game,
    pub rated: bool,
    pub per_move_ms: u32,
    pub phase: crate::event::EventPhase,
    /// Milliseconds since the Unix epoch on the server's clock (to date a finished event).
    pub starts_at_ms: u64,
    /// From the server's now (0 once started), as in the event's snapshot.
    pub starts_in_ms: u64,
    pub ends_in_ms: u64,
    pub duration_ms: u64,
    /// Players in the event (joined, not left).
    pub players: u32,
}

/// `GET /api/events`: every event (scheduled, running, finished, cancelled) by start time.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventList {
    pub events: Vec<EventSummary>,
}

/// A finished game of an event; its replay is `GET /api/games/{game_id}` (the page `/game/ID`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventGameRow {
    /// 1, 2, 3 … in the order the games were paired.
    pub no: u32,
    pub game_id: String,
    pub x: UserId,
    pub o: UserId,
    /// `null` for a draw.
    pub winner: Option<Winner>,
    /// The event points each side scored (EV4: 4 for a win on a streak).
    pub x_points: u8,
    pub o_points: u8,
    /// Milliseconds since the Unix epoch.
    pub ended_at_ms: u64,
}

/// `GET /api/events/{id}`: the event as a guest sees it (standings, games in progress,
/// podium), and every finished game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventPage {
    pub event: crate::event::EventView,
    pub games: Vec<EventGameRow>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_codes_round_trip_and_unknown_ones_read_as_other() {
        for code in ApiErrorCode::ALL {
            let json = serde_json::to_string(&code).expect("serialises");
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            let back: ApiErrorCode = serde_json::from_str(&json).expect("parses");
            assert_eq!(back, code);
            assert!((400..600).contains(&code.status()), "{code}");
        }
        let body: ApiErrorBody =
            serde_json::from_str(r#"{"code":"from_the_future","message":"?"}"#).expect("parses");
        assert_eq!(body.code, ApiErrorCode::Other);
    }

    #[test]
    fn a_served_game_with_its_updates_decodes() {
        let json = r#"{"id":"r1","game":"xo","rated":true,
            "x":{"user":{"id":1,"name":"sara"}},"o":{"user":{"id":2,"name":"omar"}},
            "moves":[4,0,1,2,7],"end":{"line":{"winner":"X","line":[1,4,7]}},
            "started_at_ms":1,"ended_at_ms":2,"winner":"x",
            "rating_updates":[{"user":1,"mark":"X","before":1200,"after":1216,"change":16}]}"#;
        let game: GameView = serde_json::from_str(json).expect("decodes");
        assert_eq!(game.game.moves, vec![4, 0, 1, 2, 7]);
        assert_eq!(game.winner, Some(Winner::X));
        assert_eq!(game.rating_updates[0].change, 16);
        let again: GameView =
            serde_json::from_str(&serde_json::to_string(&game).expect("serialises"))
                .expect("decodes");
        assert_eq!(again, game);
    }

    #[test]
    fn config_without_a_public_address_decodes() {
        let c: ServerConfig =
            serde_json::from_str(r#"{"kiosk_idle_s":120,"version":"0.1.0","protocol_version":1}"#)
                .expect("decodes");
        assert_eq!(c.kiosk_idle_s, 120);
        assert_eq!(c.public_url, None);
        let wifi: Wifi = serde_json::from_str(r#"{"ssid":"cafe","security":"WPA","password":"x"}"#)
            .expect("decodes");
        assert_eq!(wifi.security, WifiSecurity::Wpa);
    }
}
