//! Every way an HTTP request can fail, and the one table ([`ApiError::class`]) from a failure
//! to its wire code, HTTP status (the code's, [`ApiErrorCode::status`]) and log level. Handlers
//! return the typed failure and never choose a code, status or level themselves.

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{ALLOW, CACHE_CONTROL, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use hyper::{Response, StatusCode};
use protocol::http::{ApiErrorBody, ApiErrorCode};
use protocol::rules::CredentialError;
use rooms::StoreError;
use tracing::Level;

/// The response body type of every handler.
pub type Body = Full<Bytes>;

/// Largest request body accepted (413 above).
pub const MAX_BODY: usize = 16 * 1024;

/// `Retry-After` of a `storage_unavailable` answer: the store heals itself within seconds
/// when the card recovers.
const STORAGE_RETRY_AFTER_S: u64 = 5;

/// A failure answered to the client alone; nothing stored changed.
#[derive(Debug)]
pub enum ApiError {
    /// A path that is no endpoint or file.
    NotFound(String),
    /// The methods the path takes, for `Allow`.
    MethodNotAllowed(&'static str),
    BodyTooLarge,
    /// An upload over its limit (bytes allowed).
    UploadTooLarge(usize),
    /// The body could not be read: why.
    BadBody(String),
    /// The body did not arrive in time (seconds allowed).
    BodyTimeout(u64),
    /// The body does not parse: serde's explanation.
    BadJson(String),
    /// A state-changing request whose `Content-Type` is not JSON.
    UnsupportedMediaType,
    /// A foreign `Origin` (what it was, for the log).
    BadOrigin(String),
    /// A `Host` that is not this server.
    BadHost(String),
    Credential(CredentialError),
    UsernameTaken,
    BadCredentials,
    WrongPassword,
    TooManyAttempts {
        retry_after_s: u64,
    },
    TooManyRegistrations {
        retry_after_s: u64,
    },
    NotSignedIn,
    UnknownUser(String),
    /// No account has this id.
    UnknownAccount(u64),
    UnknownGame(String),
    /// `None`: the parameter is missing; else the value given.
    BadGame(Option<String>),
    WebsocketRequired,
    WebsocketVersion,
    TooManyConnections,
    /// A signed-in account that is not an owner called an owner endpoint.
    NotOwner,
    /// An owner code asked for from another machine than the kiosk.
    NotKiosk,
    BadOwnerCode,
    BadResetCode,
    LastOwner,
    /// A restore's file is not a valid backup: why.
    BadBackup(String),
    /// A restore's file was written by a newer release (its schema, the one this reads).
    BackupTooNew {
        found: u64,
        supported: u64,
    },
    /// An uploaded update failed its checks: `update::UpdateError::code` and why.
    UpdateRefused {
        code: &'static str,
        why: String,
    },
    /// A settings field refused (`PUT /api/owner/settings`): its code and why.
    InvalidSetting(crate::settings::SettingError),
    /// An event form refused (`POST /api/owner/events`).
    EventSetup(rooms::event::SetupError),
    /// A new event overlaps this one, which is not over.
    EventClash(String),
    UnknownEvent(String),
    /// Cancelling an event that has started.
    EventStarted(String),
    Store(StoreError),
    /// A server-side failure: what was being done, and the error, for the log only.
    Internal {
        what: &'static str,
        error: String,
    },
}

impl ApiError {
    /// A server-side failure while doing `what`: logged in full, answered vaguely.
    pub fn internal(what: &'static str, error: impl std::fmt::Display) -> Self {
        ApiError::Internal {
            what,
            error: error.to_string(),
        }
    }

    /// **The table**: each failure's wire code and the level its log line has. Refusals a
    /// client causes by ordinary use are `debug` or `info`; signs of abuse `warn`; the
    /// server's own failures `error`.
    pub fn class(&self) -> (ApiErrorCode, Level) {
        use ApiErrorCode as C;
        match self {
            ApiError::NotFound(_) => (C::NotFound, Level::DEBUG),
            ApiError::MethodNotAllowed(_) => (C::MethodNotAllowed, Level::DEBUG),
            ApiError::BodyTooLarge | ApiError::UploadTooLarge(_) => (C::BodyTooLarge, Level::INFO),
            ApiError::BadBody(_) => (C::BadBody, Level::INFO),
            ApiError::BodyTimeout(_) => (C::BodyTimeout, Level::WARN),
            ApiError::BadJson(_) => (C::BadJson, Level::INFO),
            ApiError::UnsupportedMediaType => (C::UnsupportedMediaType, Level::WARN),
            ApiError::BadOrigin(_) => (C::BadOrigin, Level::WARN),
            ApiError::BadHost(_) => (C::BadHost, Level::WARN),
            ApiError::Credential(CredentialError::PasswordLength) => {
                (C::InvalidPassword, Level::DEBUG)
            }
            ApiError::Credential(_) => (C::InvalidUsername, Level::DEBUG),
            ApiError::UsernameTaken => (C::UsernameTaken, Level::INFO),
            // The handler logs failed sign-ins itself, with the username hashed (11.8).
            ApiError::BadCredentials => (C::BadCredentials, Level::DEBUG),
            ApiError::WrongPassword => (C::WrongPassword, Level::INFO),
            ApiError::TooManyAttempts { .. } => (C::TooManyAttempts, Level::WARN),
            ApiError::TooManyRegistrations { .. } => (C::TooManyRegistrations, Level::WARN),
            ApiError::NotSignedIn => (C::NotSignedIn, Level::DEBUG),
            ApiError::UnknownUser(_) | ApiError::UnknownAccount(_) => {
                (C::UnknownUser, Level::DEBUG)
            }
            ApiError::UnknownGame(_) => (C::UnknownGame, Level::DEBUG),
            ApiError::BadGame(_) => (C::BadGame, Level::DEBUG),
            ApiError::WebsocketRequired => (C::WebsocketRequired, Level::DEBUG),
            ApiError::WebsocketVersion => (C::WebsocketVersion, Level::INFO),
            ApiError::TooManyConnections => (C::TooManyConnections, Level::WARN),
            // `require_owner` logs who it was; the owner page probes with it for every visitor.
            ApiError::NotOwner => (C::NotOwner, Level::INFO),
            ApiError::NotKiosk => (C::NotKiosk, Level::WARN),
            ApiError::BadOwnerCode => (C::BadOwnerCode, Level::WARN),
            // The handler logs it (without the typed name).
            ApiError::BadResetCode => (C::BadResetCode, Level::DEBUG),
            ApiError::LastOwner => (C::LastOwner, Level::INFO),
            ApiError::BadBackup(_) => (C::BadBackup, Level::WARN),
            ApiError::BackupTooNew { .. } => (C::BackupTooNew, Level::WARN),
            ApiError::UpdateRefused { .. } => (C::UpdateRefused, Level::WARN),
            ApiError::InvalidSetting(e) => (e.code, Level::INFO),
            ApiError::EventSetup(e) => {
                use rooms::event::SetupError as S;
                let code = match e {
                    S::TooShort { .. } | S::TooLong { .. } => C::InvalidEventDuration,
                    S::StartInPast | S::StartNotToday => C::InvalidEventStart,
                    S::TimePerMove | S::TimePerMoveForXo => C::InvalidEventTimePerMove,
                    S::Name => C::InvalidEventName,
                };
                (code, Level::INFO)
            }
            ApiError::EventClash(_) => (C::EventClash, Level::INFO),
            ApiError::UnknownEvent(_) => (C::UnknownEvent, Level::DEBUG),
            ApiError::EventStarted(_) => (C::EventStarted, Level::INFO),
            ApiError::Store(e) if e.is_unavailable() => (C::StorageUnavailable, Level::WARN),
            ApiError::Store(_) | ApiError::Internal { .. } => (C::Internal, Level::ERROR),
        }
    }

    /// The sentence the client gets.
    pub fn message(&self) -> String {
        match self {
            ApiError::NotFound(what) => what.clone(),
            ApiError::MethodNotAllowed(allow) => format!("this path accepts only {allow}"),
            ApiError::BodyTooLarge => format!("the request body is larger than {MAX_BODY} bytes"),
            ApiError::UploadTooLarge(max) => format!("the file is larger than {max} bytes"),
            ApiError::BadBody(why) => format!("could not read the request body: {why}"),
            ApiError::BodyTimeout(secs) => {
                format!("the request body did not arrive within {secs} s")
            }
            ApiError::BadJson(why) => format!("the request body is not the expected JSON: {why}"),
            ApiError::UnsupportedMediaType => {
                "send the request body as JSON with Content-Type: application/json (a file upload as application/octet-stream)".to_owned()
            }
            ApiError::BadOrigin(_) => "the page's Origin does not match this server".to_owned(),
            ApiError::BadHost(_) => {
                "the Host header names neither this server's name nor its address".to_owned()
            }
            ApiError::Credential(e) => e.to_string(),
            ApiError::UsernameTaken => {
                "that username is taken (names are unique ignoring case)".to_owned()
            }
            ApiError::BadCredentials => "wrong username or password".to_owned(),
            ApiError::WrongPassword => "the current password is wrong".to_owned(),
            ApiError::TooManyAttempts { retry_after_s } => {
                format!("too many failed attempts; try again in {retry_after_s} s")
            }
            ApiError::TooManyRegistrations { retry_after_s } => format!(
                "too many accounts were registered from this address; try again in {retry_after_s} s"
            ),
            ApiError::NotSignedIn => "not signed in".to_owned(),
            ApiError::UnknownUser(name) => format!("no player named {name:?}"),
            ApiError::UnknownAccount(id) => format!("no account with id {id}"),
            ApiError::UnknownGame(id) => format!("no finished game with id {id:?}"),
            ApiError::BadGame(None) => {
                "missing query parameter `game`: expected `xo` or `infinite`".to_owned()
            }
            ApiError::BadGame(Some(value)) => {
                format!("unknown game {value:?}: expected `xo` or `infinite`")
            }
            ApiError::WebsocketRequired => {
                "/ws is a WebSocket endpoint: send a WebSocket upgrade request".to_owned()
            }
            ApiError::WebsocketVersion => "only WebSocket version 13 is supported".to_owned(),
            ApiError::TooManyConnections => {
                "too many open connections from this address".to_owned()
            }
            ApiError::NotOwner => "only an owner of the kiosk may do this".to_owned(),
            ApiError::NotKiosk => "owner codes are shown only on the kiosk's own screen".to_owned(),
            ApiError::BadOwnerCode => {
                "that owner code is wrong, expired or used; show a new one on the kiosk".to_owned()
            }
            ApiError::BadResetCode => {
                "wrong username or reset code (ask the kiosk's owner for a new one)".to_owned()
            }
            ApiError::BadBackup(why) => format!("this file is not a valid backup: {why}"),
            ApiError::BackupTooNew { found, supported } => format!(
                "this backup was made by a newer version (schema {found}; this one reads up to {supported}): update the kiosk first"
            ),
            ApiError::UpdateRefused { code, why } => format!("{code}: {why}"),
            ApiError::InvalidSetting(e) => e.why.clone(),
            ApiError::EventSetup(e) => e.to_string(),
            ApiError::EventClash(other) => {
                format!("one event at a time: this one's time overlaps event {other}")
            }
            ApiError::UnknownEvent(id) => format!("no event with id {id:?}"),
            ApiError::EventStarted(id) => {
                format!("event {id} has started; only an announced event can be cancelled")
            }
            ApiError::LastOwner => {
                "the kiosk's last owner cannot be removed; make another account an owner first"
                    .to_owned()
            }
            ApiError::Store(e) if e.is_unavailable() => {
                "the kiosk cannot save data right now; nothing was changed, try again in a minute"
                    .to_owned()
            }
            ApiError::Store(_) | ApiError::Internal { .. } => "internal server error".to_owned(),
        }
    }

    /// What the log adds to the message: the detail the client is not told.
    fn detail(&self) -> Option<String> {
        match self {
            ApiError::Store(e) => Some(e.to_string()),
            ApiError::Internal { what, error } => Some(format!("{what}: {error}")),
            ApiError::BadOrigin(origin) => Some(format!("Origin {origin}")),
            ApiError::BadHost(host) => Some(format!("Host {host}")),
            _ => None,
        }
    }

    fn retry_after_s(&self) -> Option<u64> {
        match self {
            ApiError::TooManyAttempts { retry_after_s }
            | ApiError::TooManyRegistrations { retry_after_s } => Some(*retry_after_s),
            ApiError::Store(e) if e.is_unavailable() => Some(STORAGE_RETRY_AFTER_S),
            _ => None,
        }
    }

    /// Logs the failure at its level (`peer` and the request path name the client) and builds
    /// the response: the code's status and the [`ApiErrorBody`].
    pub fn into_response(self, peer: std::net::SocketAddr, path: &str) -> Response<Body> {
        let (code, level) = self.class();
        let message = self.message();
        let detail = self.detail().unwrap_or_default();
        let code_str = code.as_str();
        match level {
            Level::ERROR => tracing::error!(%peer, path, code = code_str, detail, "{message}"),
            Level::WARN => tracing::warn!(%peer, path, code = code_str, detail, "{message}"),
            Level::INFO => tracing::info!(%peer, path, code = code_str, detail, "{message}"),
            _ => tracing::debug!(%peer, path, code = code_str, detail, "{message}"),
        }
        let status =
            StatusCode::from_u16(code.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let mut response = json(status, &ApiErrorBody { code, message });
        if let Some(secs) = self.retry_after_s() {
            response
                .headers_mut()
                .insert(RETRY_AFTER, HeaderValue::from(secs));
        }
        if let ApiError::MethodNotAllowed(allow) = self {
            response
                .headers_mut()
                .insert(ALLOW, HeaderValue::from_static(allow));
        }
        response
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        ApiError::Store(e)
    }
}

impl From<crate::store::OwnerError> for ApiError {
    fn from(e: crate::store::OwnerError) -> Self {
        use crate::store::OwnerError;
        match e {
            OwnerError::LastOwner => ApiError::LastOwner,
            OwnerError::NameTaken => ApiError::UsernameTaken,
            // The callers name the account; this is only reached when it vanished meanwhile.
            OwnerError::UnknownUser => ApiError::NotFound("no such account".to_owned()),
            OwnerError::Store(e) => ApiError::Store(e),
        }
    }
}

impl From<CredentialError> for ApiError {
    fn from(e: CredentialError) -> Self {
        ApiError::Credential(e)
    }
}

/// A JSON response.
pub fn json(status: StatusCode, value: &impl serde::Serialize) -> Response<Body> {
    match serde_json::to_vec(value) {
        Ok(body) => {
            let mut response = Response::new(Full::new(Bytes::from(body)));
            *response.status_mut() = status;
            response
                .headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            response
                .headers_mut()
                .insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        Err(e) => {
            tracing::error!(error = %e, "serialising a response");
            let mut response = Response::new(Full::new(Bytes::from_static(
                br#"{"code":"internal","message":"internal server error"}"#,
            )));
            *response.status_mut() = StatusCode::INTERNAL_SERVER_ERROR;
            response
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_failure_answers_with_its_codes_status() {
        let peer: std::net::SocketAddr = "127.0.0.1:1".parse().expect("address");
        let cases = [
            (ApiError::NotFound("x".into()), 404),
            (ApiError::MethodNotAllowed("GET"), 405),
            (ApiError::Credential(CredentialError::PasswordLength), 400),
            (ApiError::TooManyAttempts { retry_after_s: 3 }, 429),
            (ApiError::internal("testing", "boom"), 500),
        ];
        for (error, status) in cases {
            let (code, _) = error.class();
            assert_eq!(code.status(), status);
            let response = error.into_response(peer, "/api/test");
            assert_eq!(response.status().as_u16(), status);
        }
    }
}
