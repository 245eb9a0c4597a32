//! The HTTP JSON API: sign-in, profile, leaderboard, finished games, configuration, owner
//! mode. Every request is made from its row of [`protocol::api`]'s table (method, path,
//! request and response types), the table the server routes by; every body is a type of
//! [`protocol::http`], shared with the server.

use gloo::net::http::Method;
use protocol::api::{Call, Empty, Endpoint, call};
use serde::Serialize;
use serde::de::DeserializeOwned;

use protocol::records::UserId;

pub use protocol::http::{
    Account, ApiErrorBody, ApiErrorCode, ChangePassword, Credentials, GameView, LadderView,
    Leaderboard, Profile, ProfileSeason, ServerConfig, SignedOut,
};

/// Why a request failed: the HTTP status (0 when the server was not reached) and the server's
/// error code (`None` when it was not reached or its answer could not be read).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: u16,
    pub code: Option<ApiErrorCode>,
    /// The server's sentence; only `update_refused` is worded from it (its check's code
    /// comes first), every other code by the code alone.
    pub message: String,
}

impl ApiError {
    fn network() -> ApiError {
        ApiError {
            status: 0,
            code: None,
            message: String::new(),
        }
    }
}

/// What a request carries.
enum Body<'a> {
    None,
    /// JSON text (the server refuses state changes in any other content type).
    Json(String),
    /// A file, as `application/octet-stream` (the owner's uploads: a backup, an update).
    File(&'a web_sys::File),
}

/// One request and its answer's text. Not generic, so every endpoint shares one copy of the
/// request and error handling; only the decoding ([`decode`]) is per type (the UI's download
/// size, DESIGN.md).
async fn exchange(method: Method, url: &str, body: Body<'_>) -> Result<(u16, String), ApiError> {
    let builder = gloo::net::http::RequestBuilder::new(url).method(method);
    let request = match body {
        Body::None => builder.build(),
        Body::Json(text) => builder
            .header("Content-Type", "application/json")
            .body(text),
        Body::File(file) => builder
            .header("Content-Type", "application/octet-stream")
            .body(file.clone()),
    }
    .map_err(|_| ApiError::network())?;
    let response = request.send().await.map_err(|_| ApiError::network())?;
    let status = response.status();
    let text = response.text().await.unwrap_or_default();
    if response.ok() {
        Ok((status, text))
    } else {
        let body = serde_json::from_str::<ApiErrorBody>(&text).ok();
        Err(ApiError {
            status,
            code: body.as_ref().map(|b| b.code),
            message: body.map(|b| b.message).unwrap_or_default(),
        })
    }
}

fn decode<T: DeserializeOwned>(answer: Result<(u16, String), ApiError>) -> Result<T, ApiError> {
    let (status, text) = answer?;
    serde_json::from_str(&text).map_err(|_| ApiError {
        status,
        code: None,
        message: String::new(),
    })
}

fn json(body: &impl Serialize) -> Body<'static> {
    // Serialising the protocol's plain structs cannot fail.
    Body::Json(serde_json::to_string(body).unwrap_or_default())
}

/// `{}`: what a state change without fields sends.
fn empty() -> Body<'static> {
    json(&Empty {})
}

/// Calls endpoint `C` (its method and path from the protocol's table, `args` filling the
/// path's `{…}` segments, already encoded) with `body`, and reads `C`'s response type.
fn call<'b, C: Call>(
    args: &[&str],
    query: &str,
    body: Body<'b>,
) -> impl Future<Output = Result<C::Response, ApiError>> + use<'b, C>
where
    C::Response: DeserializeOwned,
{
    call_as::<C, C::Response>(args, query, body)
}

/// [`call`], reading only part of `C`'s response as `T` (fewer fields to decode: the UI's size).
/// Not `async`: the future is [`fetch`]'s, one per response type, not one per endpoint.
fn call_as<'b, C: Call, T: DeserializeOwned>(
    args: &[&str],
    query: &str,
    body: Body<'b>,
) -> impl Future<Output = Result<T, ApiError>> + use<'b, C, T> {
    let endpoint = C::ENDPOINT;
    let method = match endpoint.method() {
        protocol::api::Method::Get => Method::GET,
        protocol::api::Method::Post => Method::POST,
        protocol::api::Method::Put => Method::PUT,
        protocol::api::Method::Delete => Method::DELETE,
    };
    fetch(method, endpoint.url(args) + query, body)
}

async fn fetch<T: DeserializeOwned>(
    method: Method,
    url: String,
    body: Body<'_>,
) -> Result<T, ApiError> {
    decode(exchange(method, &url, body).await)
}

/// The JSON body of endpoint `C`: its request type, checked here.
fn request<C: Call>(body: &C::Request) -> Body<'static>
where
    C::Request: Serialize,
{
    json(body)
}

/// Owner mode: a one-time owner code for the kiosk's own screen.
pub async fn kiosk_owner_code() -> Result<protocol::http::OwnerCode, ApiError> {
    call::<call::KioskOwnerCode>(&[], "", empty()).await
}

/// AP3: tells the server the kiosk's screen sleeps or woke (the compositor's hook reads it to
/// turn the display's power off and on).
pub async fn report_screen(asleep: bool) -> Result<protocol::http::KioskScreen, ApiError> {
    let body = protocol::http::KioskScreen {
        asleep,
        changed_ms: 0,
    };
    call::<call::ReportScreen>(&[], "", request::<call::ReportScreen>(&body)).await
}

/// AP3: whether the server has the kiosk's screen asleep. A touch on a display the image has
/// switched off never reaches the page; the image's hook reports that wake to the server, and
/// the sleeping page learns of it here.
pub async fn kiosk_screen() -> Result<protocol::http::KioskScreen, ApiError> {
    call::<call::KioskScreen>(&[], "", Body::None).await
}

/// Owner mode: the signed-in account becomes an owner with a code.
pub async fn claim_owner(code: &str) -> Result<protocol::http::Owners, ApiError> {
    let body = protocol::http::ClaimOwner {
        code: code.to_owned(),
    };
    call::<call::ClaimOwner>(&[], "", request::<call::ClaimOwner>(&body)).await
}

/// Owner mode: who asks and every owner; `not_owner` for anyone else.
pub async fn owners() -> Result<protocol::http::Owners, ApiError> {
    call::<call::Owners>(&[], "", Body::None).await
}

/// Owner mode: makes account `id` an owner no longer.
pub async fn remove_owner(id: UserId) -> Result<protocol::http::Owners, ApiError> {
    call::<call::RemoveOwner>(&[&id.to_string()], "", empty()).await
}

/// Owner mode: every account, by name, with its open connections.
pub async fn owner_users() -> Result<protocol::http::AccountList, ApiError> {
    call::<call::Users>(&[], "", Body::None).await
}

pub async fn rename_user(id: UserId, username: &str) -> Result<Account, ApiError> {
    let body = protocol::http::Rename {
        username: username.to_owned(),
    };
    call::<call::RenameUser>(&[&id.to_string()], "", request::<call::RenameUser>(&body)).await
}

pub async fn remove_user(id: UserId) -> Result<protocol::http::AccountRemoved, ApiError> {
    call::<call::RemoveUser>(&[&id.to_string()], "", empty()).await
}

/// A one-time code the owner reads out; the player sets a new password with it.
pub async fn reset_password(id: UserId) -> Result<protocol::http::PasswordReset, ApiError> {
    call::<call::ResetPassword>(&[&id.to_string()], "", empty()).await
}

/// Sets a new password with an owner's reset code and signs in.
pub async fn login_with_reset_code(
    username: &str,
    code: &str,
    new_password: &str,
) -> Result<Account, ApiError> {
    let body = protocol::http::ResetPassword {
        username: username.to_owned(),
        code: code.to_owned(),
        new_password: new_password.to_owned(),
    };
    call::<call::LoginReset>(&[], "", request::<call::LoginReset>(&body)).await
}

/// The open rooms, as the lobby lists them.
pub async fn rooms() -> Result<Vec<protocol::RoomSummary>, ApiError> {
    call::<call::Rooms>(&[], "", Body::None).await
}

pub async fn close_room(id: &str, reason: &str) -> Result<protocol::http::ClosedRoom, ApiError> {
    let body = protocol::http::CloseRoom {
        reason: reason.to_owned(),
    };
    let id = String::from(js_sys::encode_uri_component(id));
    call::<call::CloseRoom>(&[&id], "", request::<call::CloseRoom>(&body)).await
}

pub async fn seasons() -> Result<protocol::http::Seasons, ApiError> {
    call::<call::Seasons>(&[], "", Body::None).await
}

/// Archives the current ladders and starts the next season.
pub async fn new_season() -> Result<protocol::http::SeasonStarted, ApiError> {
    call::<call::NewSeason>(&[], "", empty()).await
}

/// Where the browser downloads a backup of all data from.
pub const BACKUP_URL: &str = Endpoint::Backup.path();

/// What a backup file holds, after the server verified it; nothing changes.
pub async fn restore_preview(
    file: &web_sys::File,
) -> Result<protocol::http::BackupPreview, ApiError> {
    call::<call::RestorePreview>(&[], "", Body::File(file)).await
}

/// Replaces all data with the backup file (the data replaced is kept as a backup).
pub async fn restore(file: &web_sys::File) -> Result<protocol::http::Restored, ApiError> {
    call::<call::Restore>(&[], "", Body::File(file)).await
}

/// The backups kept on the kiosk, newest first.
pub async fn kept_backups() -> Result<protocol::http::KeptBackups, ApiError> {
    call::<call::KeptBackups>(&[], "", Body::None).await
}

/// Where a kept backup downloads from (a plain link: the browser saves the file).
pub fn kept_backup_url(name: &str) -> String {
    // As listed: a kept backup's name is letters, digits, `.`, `_` and `-` (the server reads the
    // segment as sent).
    Endpoint::KeptBackup.url(&[name])
}

/// Replaces all data with the kept backup `name` (the data replaced is kept in turn).
pub async fn restore_kept(name: &str) -> Result<protocol::http::Restored, ApiError> {
    call::<call::RestoreKept>(&[name], "", empty()).await
}

pub async fn update_status() -> Result<protocol::http::UpdateStatus, ApiError> {
    call::<call::UpdateStatus>(&[], "", Body::None).await
}

/// Uploads a new `firmware-host` binary; the server checks it before keeping it.
pub async fn upload_update(
    file: &web_sys::File,
) -> Result<protocol::http::UpdateInstalled, ApiError> {
    call::<call::Update>(&[], "", Body::File(file)).await
}

pub async fn restart() -> Result<protocol::http::Restarting, ApiError> {
    call::<call::Restart>(&[], "", empty()).await
}

pub async fn owner_health() -> Result<protocol::http::OwnerHealth, ApiError> {
    call::<call::OwnerHealth>(&[], "", Body::None).await
}

pub async fn health() -> Result<protocol::http::Health, ApiError> {
    call::<call::Health>(&[], "", Body::None).await
}

/// Owner mode: the kiosk's settings in force.
pub async fn owner_settings() -> Result<protocol::http::OwnerSettings, ApiError> {
    call::<call::Settings>(&[], "", Body::None).await
}

/// Owner mode: saves the settings (a JSON object of `OwnerSettings`' fields; a field the form
/// could not read is sent as typed, for the server to refuse with that field's code).
pub async fn save_owner_settings(
    body: &serde_json::Value,
) -> Result<protocol::http::OwnerSettings, ApiError> {
    // A JSON object of the request type's fields, sent as the form read them.
    call::<call::SaveSettings>(&[], "", json(body)).await
}

/// Owner mode: forgets the saved settings; the SD card's (the flags') are in force again.
pub async fn reset_owner_settings() -> Result<protocol::http::OwnerSettings, ApiError> {
    call::<call::ResetSettings>(&[], "", empty()).await
}

/// Deletes the signed-in account (the password is required).
pub async fn delete_me(password: &str) -> Result<SignedOut, ApiError> {
    let body = protocol::http::DeleteAccount {
        password: password.to_owned(),
    };
    call::<call::DeleteMe>(&[], "", request::<call::DeleteMe>(&body)).await
}

pub async fn config() -> Result<ServerConfig, ApiError> {
    call::<call::Config>(&[], "", Body::None).await
}

/// Today's puzzle of each game and how many solved it (PZ4).
pub async fn daily_puzzles() -> Result<protocol::http::DailyPuzzles, ApiError> {
    call::<call::DailyPuzzles>(&[], "", Body::None).await
}

/// The signed-in account, or `None` for a guest: `/api/session`, which answers a guest with
/// 200 (`/api/me`'s 401 would be a failed request in the console of every page load).
pub async fn me() -> Result<Option<Account>, ApiError> {
    call::<call::Session>(&[], "", Body::None)
        .await
        .map(|s| s.account)
}

pub async fn login(username: &str, password: &str, register: bool) -> Result<Account, ApiError> {
    let credentials = Credentials {
        username: username.to_owned(),
        password: password.to_owned(),
    };
    if register {
        call::<call::Register>(&[], "", request::<call::Register>(&credentials)).await
    } else {
        call::<call::Login>(&[], "", request::<call::Login>(&credentials)).await
    }
}

pub async fn logout() -> Result<SignedOut, ApiError> {
    call::<call::Logout>(&[], "", empty()).await
}

/// Changes the password (the current one is required); every other session ends.
pub async fn change_password(old_password: &str, new_password: &str) -> Result<Account, ApiError> {
    let body = ChangePassword {
        old_password: old_password.to_owned(),
        new_password: new_password.to_owned(),
    };
    call::<call::ChangePassword>(&[], "", request::<call::ChangePassword>(&body)).await
}

pub async fn profile(name: &str) -> Result<Profile, ApiError> {
    let name = String::from(js_sys::encode_uri_component(name));
    call::<call::Profile>(&[&name], "", Body::None).await
}

/// A ladder: the season being played, or archived season `season` as it ended.
pub async fn streaks(game: engine::Game) -> Result<protocol::http::StreakBoard, ApiError> {
    let query = format!("?game={}", game.as_str());
    call::<call::PuzzleStreaks>(&[], &query, Body::None).await
}

pub async fn leaderboard(game: engine::Game, season: Option<u64>) -> Result<Leaderboard, ApiError> {
    let query = match season {
        None => format!("?game={}", game.as_str()),
        Some(n) => format!("?game={}&season={n}", game.as_str()),
    };
    call::<call::Leaderboard>(&[], &query, Body::None).await
}

/// Every arena event (scheduled, running, finished, cancelled) by start time.
pub async fn events() -> Result<Vec<protocol::http::EventSummary>, ApiError> {
    call::<call::Events>(&[], "", Body::None)
        .await
        .map(|l| l.events)
}

/// Every finished game of an event. Only the games of `GET /api/events/ID` are read: the
/// event itself comes over the WebSocket (its decoder is there already, the UI's size).
pub async fn event_games(id: &str) -> Result<Vec<protocol::http::EventGameRow>, ApiError> {
    #[derive(serde::Deserialize)]
    struct Games {
        games: Vec<protocol::http::EventGameRow>,
    }
    let id = String::from(js_sys::encode_uri_component(id));
    call_as::<call::Event, Games>(&[&id], "", Body::None)
        .await
        .map(|g| g.games)
}

/// Owner mode: announces an event (EV1).
pub async fn create_event(
    form: &protocol::http::NewEvent,
) -> Result<protocol::http::EventSummary, ApiError> {
    call::<call::CreateEvent>(&[], "", request::<call::CreateEvent>(form)).await
}

/// Owner mode: cancels an announced event.
pub async fn cancel_event(id: &str) -> Result<protocol::http::EventSummary, ApiError> {
    let id = String::from(js_sys::encode_uri_component(id));
    call::<call::CancelEvent>(&[&id], "", empty()).await
}

pub async fn finished_game(id: &str) -> Result<GameView, ApiError> {
    let id = String::from(js_sys::encode_uri_component(id));
    call::<call::Game>(&[&id], "", Body::None).await
}
