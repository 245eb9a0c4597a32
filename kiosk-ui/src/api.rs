//! The HTTP JSON API: sign-in, profile, leaderboard, finished games, configuration. Every
//! request and response body is a type of [`protocol::http`], shared with the server.

use gloo::net::http::Method;
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
    Body::Json("{}".to_owned())
}

async fn get<T: DeserializeOwned>(url: &str) -> Result<T, ApiError> {
    decode(exchange(Method::GET, url, Body::None).await)
}

async fn post<T: DeserializeOwned>(url: &str, body: Body<'_>) -> Result<T, ApiError> {
    decode(exchange(Method::POST, url, body).await)
}

async fn put<T: DeserializeOwned>(url: &str, body: Body<'_>) -> Result<T, ApiError> {
    decode(exchange(Method::PUT, url, body).await)
}

async fn delete<T: DeserializeOwned>(url: &str, body: Body<'_>) -> Result<T, ApiError> {
    decode(exchange(Method::DELETE, url, body).await)
}

/// Owner mode: a one-time owner code for the kiosk's own screen.
pub async fn kiosk_owner_code() -> Result<protocol::http::OwnerCode, ApiError> {
    post("/api/kiosk/owner-code", empty()).await
}

/// AP3: tells the server the kiosk's screen sleeps or woke (the compositor's hook reads it to
/// turn the display's power off and on).
pub async fn report_screen(asleep: bool) -> Result<protocol::http::KioskScreen, ApiError> {
    let body = protocol::http::KioskScreen {
        asleep,
        changed_ms: 0,
    };
    post(
        "/api/kiosk/screen",
        Body::Json(serde_json::to_string(&body).unwrap_or_default()),
    )
    .await
}

/// Owner mode: the signed-in account becomes an owner with a code.
pub async fn claim_owner(code: &str) -> Result<protocol::http::Owners, ApiError> {
    let body = protocol::http::ClaimOwner {
        code: code.to_owned(),
    };
    post("/api/owner/claim", json(&body)).await
}

/// Owner mode: who asks and every owner; `not_owner` for anyone else.
pub async fn owners() -> Result<protocol::http::Owners, ApiError> {
    get("/api/owner").await
}

/// Owner mode: makes account `id` an owner no longer.
pub async fn remove_owner(id: UserId) -> Result<protocol::http::Owners, ApiError> {
    delete(&format!("/api/owner/owners/{id}"), empty()).await
}

/// Owner mode: every account, by name, with its open connections.
pub async fn owner_users() -> Result<protocol::http::AccountList, ApiError> {
    get("/api/owner/users").await
}

pub async fn rename_user(id: UserId, username: &str) -> Result<Account, ApiError> {
    let body = protocol::http::Rename {
        username: username.to_owned(),
    };
    post(&format!("/api/owner/users/{id}/rename"), json(&body)).await
}

pub async fn remove_user(id: UserId) -> Result<protocol::http::AccountRemoved, ApiError> {
    delete(&format!("/api/owner/users/{id}"), empty()).await
}

/// A one-time code the owner reads out; the player sets a new password with it.
pub async fn reset_password(id: UserId) -> Result<protocol::http::PasswordReset, ApiError> {
    post(&format!("/api/owner/users/{id}/reset-password"), empty()).await
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
    post("/api/login/reset", json(&body)).await
}

/// The open rooms, as the lobby lists them.
pub async fn rooms() -> Result<Vec<protocol::RoomSummary>, ApiError> {
    get("/api/rooms").await
}

pub async fn close_room(id: &str, reason: &str) -> Result<protocol::http::ClosedRoom, ApiError> {
    let body = protocol::http::CloseRoom {
        reason: reason.to_owned(),
    };
    post(
        &format!(
            "/api/owner/rooms/{}/close",
            js_sys::encode_uri_component(id)
        ),
        json(&body),
    )
    .await
}

pub async fn seasons() -> Result<protocol::http::Seasons, ApiError> {
    get("/api/seasons").await
}

/// Archives the current ladders and starts the next season.
pub async fn new_season() -> Result<protocol::http::SeasonStarted, ApiError> {
    post("/api/owner/seasons", empty()).await
}

/// Where the browser downloads a backup of all data from.
pub const BACKUP_URL: &str = "/api/owner/backup";

/// What a backup file holds, after the server verified it; nothing changes.
pub async fn restore_preview(
    file: &web_sys::File,
) -> Result<protocol::http::BackupPreview, ApiError> {
    post("/api/owner/restore/preview", Body::File(file)).await
}

/// Replaces all data with the backup file (the data replaced is kept as a backup).
pub async fn restore(file: &web_sys::File) -> Result<protocol::http::Restored, ApiError> {
    post("/api/owner/restore", Body::File(file)).await
}

/// The backups kept on the kiosk, newest first.
pub async fn kept_backups() -> Result<protocol::http::KeptBackups, ApiError> {
    get("/api/owner/backups").await
}

/// Where a kept backup downloads from (a plain link: the browser saves the file).
pub fn kept_backup_url(name: &str) -> String {
    format!("/api/owner/backups/{name}")
}

/// Replaces all data with the kept backup `name` (the data replaced is kept in turn).
pub async fn restore_kept(name: &str) -> Result<protocol::http::Restored, ApiError> {
    post(&format!("/api/owner/backups/{name}/restore"), empty()).await
}

pub async fn update_status() -> Result<protocol::http::UpdateStatus, ApiError> {
    get("/api/owner/update").await
}

/// Uploads a new `firmware-host` binary; the server checks it before keeping it.
pub async fn upload_update(
    file: &web_sys::File,
) -> Result<protocol::http::UpdateInstalled, ApiError> {
    post("/api/owner/update", Body::File(file)).await
}

pub async fn restart() -> Result<protocol::http::Restarting, ApiError> {
    post("/api/owner/restart", empty()).await
}

pub async fn owner_health() -> Result<protocol::http::OwnerHealth, ApiError> {
    get("/api/owner/health").await
}

pub async fn health() -> Result<protocol::http::Health, ApiError> {
    get("/api/health").await
}

/// Owner mode: the kiosk's settings in force.
pub async fn owner_settings() -> Result<protocol::http::OwnerSettings, ApiError> {
    get("/api/owner/settings").await
}

/// Owner mode: saves the settings (a JSON object of `OwnerSettings`' fields; a field the form
/// could not read is sent as typed, for the server to refuse with that field's code).
pub async fn save_owner_settings(
    body: &serde_json::Value,
) -> Result<protocol::http::OwnerSettings, ApiError> {
    put("/api/owner/settings", json(body)).await
}

/// Owner mode: forgets the saved settings; the SD card's (the flags') are in force again.
pub async fn reset_owner_settings() -> Result<protocol::http::OwnerSettings, ApiError> {
    delete("/api/owner/settings", empty()).await
}

/// Deletes the signed-in account (the password is required).
pub async fn delete_me(password: &str) -> Result<SignedOut, ApiError> {
    let body = protocol::http::DeleteAccount {
        password: password.to_owned(),
    };
    delete("/api/me", json(&body)).await
}

pub async fn config() -> Result<ServerConfig, ApiError> {
    get("/api/config").await
}

/// Today's puzzle of each game and how many solved it (PZ4).
pub async fn daily_puzzles() -> Result<protocol::http::DailyPuzzles, ApiError> {
    get("/api/puzzles/daily").await
}

/// The signed-in account, or `None` for a guest: `/api/session`, which answers a guest with
/// 200 (`/api/me`'s 401 would be a failed request in the console of every page load).
pub async fn me() -> Result<Option<Account>, ApiError> {
    get::<protocol::http::Session>("/api/session")
        .await
        .map(|s| s.account)
}

pub async fn login(username: &str, password: &str, register: bool) -> Result<Account, ApiError> {
    let url = if register {
        "/api/register"
    } else {
        "/api/login"
    };
    let credentials = Credentials {
        username: username.to_owned(),
        password: password.to_owned(),
    };
    post(url, json(&credentials)).await
}

pub async fn logout() -> Result<SignedOut, ApiError> {
    post("/api/logout", empty()).await
}

/// Changes the password (the current one is required); every other session ends.
pub async fn change_password(old_password: &str, new_password: &str) -> Result<Account, ApiError> {
    let body = ChangePassword {
        old_password: old_password.to_owned(),
        new_password: new_password.to_owned(),
    };
    post("/api/me/password", json(&body)).await
}

pub async fn profile(name: &str) -> Result<Profile, ApiError> {
    get(&format!(
        "/api/users/{}",
        js_sys::encode_uri_component(name)
    ))
    .await
}

/// A ladder: the season being played, or archived season `season` as it ended.
pub async fn streaks(game: engine::Game) -> Result<protocol::http::StreakBoard, ApiError> {
    get(&format!("/api/puzzles/streaks?game={}", game.as_str())).await
}

pub async fn leaderboard(game: engine::Game, season: Option<u64>) -> Result<Leaderboard, ApiError> {
    match season {
        None => get(&format!("/api/leaderboard?game={}", game.as_str())).await,
        Some(n) => {
            get(&format!(
                "/api/leaderboard?game={}&season={n}",
                game.as_str()
            ))
            .await
        }
    }
}

/// Every arena event (scheduled, running, finished, cancelled) by start time.
pub async fn events() -> Result<Vec<protocol::http::EventSummary>, ApiError> {
    get::<protocol::http::EventList>("/api/events")
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
    get::<Games>(&format!("/api/events/{}", js_sys::encode_uri_component(id)))
        .await
        .map(|g| g.games)
}

/// Owner mode: announces an event (EV1).
pub async fn create_event(
    form: &protocol::http::NewEvent,
) -> Result<protocol::http::EventSummary, ApiError> {
    post("/api/owner/events", json(form)).await
}

/// Owner mode: cancels an announced event.
pub async fn cancel_event(id: &str) -> Result<protocol::http::EventSummary, ApiError> {
    delete(
        &format!("/api/owner/events/{}", js_sys::encode_uri_component(id)),
        empty(),
    )
    .await
}

pub async fn finished_game(id: &str) -> Result<GameView, ApiError> {
    get(&format!("/api/games/{}", js_sys::encode_uri_component(id))).await
}
