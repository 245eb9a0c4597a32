//! The HTTP JSON API: sign-in, profile, leaderboard, finished games, configuration. Every
//! request and response body is a type of [`protocol::http`], shared with the server.

use serde::Serialize;
use serde::de::DeserializeOwned;

use protocol::records::UserId;

pub use protocol::http::{
    Account, ApiErrorBody, ApiErrorCode, ChangePassword, Credentials, GameView, LadderView,
    Leaderboard, Profile, ServerConfig, SignedOut,
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

async fn read<T: DeserializeOwned>(
    sent: Result<gloo::net::http::Response, gloo::net::Error>,
) -> Result<T, ApiError> {
    let response = sent.map_err(|_| ApiError::network())?;
    let status = response.status();
    if response.ok() {
        response.json::<T>().await.map_err(|_| ApiError {
            status,
            code: None,
            message: String::new(),
        })
    } else {
        let body = response.json::<ApiErrorBody>().await.ok();
        Err(ApiError {
            status,
            code: body.as_ref().map(|b| b.code),
            message: body.map(|b| b.message).unwrap_or_default(),
        })
    }
}

async fn get<T: DeserializeOwned>(url: &str) -> Result<T, ApiError> {
    read(gloo::net::http::Request::get(url).send().await).await
}

/// A JSON `POST` (the server refuses state changes in any other content type).
async fn post<T: DeserializeOwned>(url: &str, body: &impl Serialize) -> Result<T, ApiError> {
    let request = gloo::net::http::Request::post(url)
        .json(body)
        .map_err(|_| ApiError::network())?;
    read(request.send().await).await
}

/// A JSON `DELETE`.
async fn delete<T: DeserializeOwned>(url: &str, body: &impl Serialize) -> Result<T, ApiError> {
    let request = gloo::net::http::Request::delete(url)
        .json(body)
        .map_err(|_| ApiError::network())?;
    read(request.send().await).await
}

/// Owner mode: a one-time owner code for the kiosk's own screen.
pub async fn kiosk_owner_code() -> Result<protocol::http::OwnerCode, ApiError> {
    post("/api/kiosk/owner-code", &serde_json::json!({})).await
}

/// Owner mode: the signed-in account becomes an owner with a code.
pub async fn claim_owner(code: &str) -> Result<protocol::http::Owners, ApiError> {
    let body = protocol::http::ClaimOwner {
        code: code.to_owned(),
    };
    post("/api/owner/claim", &body).await
}

/// Owner mode: who asks and every owner; `not_owner` for anyone else.
pub async fn owners() -> Result<protocol::http::Owners, ApiError> {
    get("/api/owner").await
}

/// A file as the body of a `POST` (the owner's uploads: a backup, an update).
async fn post_file<T: DeserializeOwned>(url: &str, file: &web_sys::File) -> Result<T, ApiError> {
    let request = gloo::net::http::Request::post(url)
        .header("Content-Type", "application/octet-stream")
        .body(file.clone())
        .map_err(|_| ApiError::network())?;
    read(request.send().await).await
}

/// Owner mode: makes account `id` an owner no longer.
pub async fn remove_owner(id: UserId) -> Result<protocol::http::Owners, ApiError> {
    delete(&format!("/api/owner/owners/{id}"), &serde_json::json!({})).await
}

/// Owner mode: every account, by name, with its open connections.
pub async fn owner_users() -> Result<protocol::http::AccountList, ApiError> {
    get("/api/owner/users").await
}

pub async fn rename_user(id: UserId, username: &str) -> Result<Account, ApiError> {
    let body = protocol::http::Rename {
        username: username.to_owned(),
    };
    post(&format!("/api/owner/users/{id}/rename"), &body).await
}

pub async fn remove_user(id: UserId) -> Result<protocol::http::AccountRemoved, ApiError> {
    delete(&format!("/api/owner/users/{id}"), &serde_json::json!({})).await
}

/// A one-time code the owner reads out; the player sets a new password with it.
pub async fn reset_password(id: UserId) -> Result<protocol::http::PasswordReset, ApiError> {
    post(
        &format!("/api/owner/users/{id}/reset-password"),
        &serde_json::json!({}),
    )
    .await
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
    post("/api/login/reset", &body).await
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
        &body,
    )
    .await
}

pub async fn seasons() -> Result<protocol::http::Seasons, ApiError> {
    get("/api/seasons").await
}

/// Archives the current ladders and starts the next season.
pub async fn new_season() -> Result<protocol::http::SeasonStarted, ApiError> {
    post("/api/owner/seasons", &serde_json::json!({})).await
}

/// Where the browser downloads a backup of all data from.
pub const BACKUP_URL: &str = "/api/owner/backup";

/// What a backup file holds, after the server verified it; nothing changes.
pub async fn restore_preview(
    file: &web_sys::File,
) -> Result<protocol::http::BackupPreview, ApiError> {
    post_file("/api/owner/restore/preview", file).await
}

/// Replaces all data with the backup file (the data replaced is kept as a backup).
pub async fn restore(file: &web_sys::File) -> Result<protocol::http::Restored, ApiError> {
    post_file("/api/owner/restore", file).await
}

pub async fn update_status() -> Result<protocol::http::UpdateStatus, ApiError> {
    get("/api/owner/update").await
}

/// Uploads a new `firmware-host` binary; the server checks it before keeping it.
pub async fn upload_update(
    file: &web_sys::File,
) -> Result<protocol::http::UpdateInstalled, ApiError> {
    post_file("/api/owner/update", file).await
}

pub async fn restart() -> Result<protocol::http::Restarting, ApiError> {
    post("/api/owner/restart", &serde_json::json!({})).await
}

pub async fn owner_health() -> Result<protocol::http::OwnerHealth, ApiError> {
    get("/api/owner/health").await
}

pub async fn health() -> Result<protocol::http::Health, ApiError> {
    get("/api/health").await
}

/// Deletes the signed-in account (the password is required).
pub async fn delete_me(password: &str) -> Result<SignedOut, ApiError> {
    let body = protocol::http::DeleteAccount {
        password: password.to_owned(),
    };
    delete("/api/me", &body).await
}

pub async fn config() -> Result<ServerConfig, ApiError> {
    get("/api/config").await
}

/// The signed-in account, or `None` for a guest.
pub async fn me() -> Result<Option<Account>, ApiError> {
    match get::<Account>("/api/me").await {
        Ok(account) => Ok(Some(account)),
        Err(e) if e.code == Some(ApiErrorCode::NotSignedIn) => Ok(None),
        Err(e) => Err(e),
    }
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
    post(url, &credentials).await
}

pub async fn logout() -> Result<SignedOut, ApiError> {
    post("/api/logout", &serde_json::json!({})).await
}

/// Changes the password (the current one is required); every other session ends.
pub async fn change_password(old_password: &str, new_password: &str) -> Result<Account, ApiError> {
    let body = ChangePassword {
        old_password: old_password.to_owned(),
        new_password: new_password.to_owned(),
    };
    post("/api/me/password", &body).await
}

pub async fn profile(name: &str) -> Result<Profile, ApiError> {
    get(&format!(
        "/api/users/{}",
        js_sys::encode_uri_component(name)
    ))
    .await
}

/// A ladder: the season being played, or archived season `season` as it ended.
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

pub async fn finished_game(id: &str) -> Result<GameView, ApiError> {
    get(&format!("/api/games/{}", js_sys::encode_uri_component(id))).await
}
