//! The HTTP JSON API: sign-in, profile, leaderboard, finished games, configuration. Every
//! request and response body is a type of [`protocol::http`], shared with the server.

use serde::Serialize;
use serde::de::DeserializeOwned;

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
}

impl ApiError {
    fn network() -> ApiError {
        ApiError {
            status: 0,
            code: None,
        }
    }
}

async fn read<T: DeserializeOwned>(
    sent: Result<gloo::net::http::Response, gloo::net::Error>,
) -> Result<T, ApiError> {
    let response = sent.map_err(|_| ApiError::network())?;
    let status = response.status();
    if response.ok() {
        response
            .json::<T>()
            .await
            .map_err(|_| ApiError { status, code: None })
    } else {
        let code = response
            .json::<ApiErrorBody>()
            .await
            .ok()
            .map(|body| body.code);
        Err(ApiError { status, code })
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

/// A JSON `PUT`.
async fn put<T: DeserializeOwned>(url: &str, body: &impl Serialize) -> Result<T, ApiError> {
    let request = gloo::net::http::Request::put(url)
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

/// Owner mode: the kiosk's settings in force.
pub async fn owner_settings() -> Result<protocol::http::OwnerSettings, ApiError> {
    get("/api/owner/settings").await
}

/// Owner mode: saves the settings (a JSON object of `OwnerSettings`' fields; a field the form
/// could not read is sent as typed, for the server to refuse with that field's code).
pub async fn save_owner_settings(
    body: &serde_json::Value,
) -> Result<protocol::http::OwnerSettings, ApiError> {
    put("/api/owner/settings", body).await
}

/// Owner mode: forgets the saved settings; the SD card's (the flags') are in force again.
pub async fn reset_owner_settings() -> Result<protocol::http::OwnerSettings, ApiError> {
    delete("/api/owner/settings", &serde_json::json!({})).await
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

pub async fn leaderboard(game: engine::Game) -> Result<Leaderboard, ApiError> {
    get(&format!("/api/leaderboard?game={}", game.as_str())).await
}

pub async fn finished_game(id: &str) -> Result<GameView, ApiError> {
    get(&format!("/api/games/{}", js_sys::encode_uri_component(id))).await
}
