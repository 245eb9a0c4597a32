//! The HTTP JSON API: sign-in, profile, leaderboard, finished games, configuration.

use serde::Deserialize;
use serde::de::DeserializeOwned;

use protocol::records::FinishedGame;

use crate::state::Account;

/// Why a request failed: the server's error code, or `network` when it was not reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    pub status: u16,
    pub code: String,
}

impl ApiError {
    fn network() -> ApiError {
        ApiError {
            status: 0,
            code: "network".to_owned(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
struct WireError {
    code: String,
}

/// `GET /api/config`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ServerConfig {
    pub kiosk_idle_s: u64,
    /// The address phones should open, once the server knows it.
    #[serde(default)]
    pub public_url: Option<String>,
    /// The `.local` name, shown in words beside the QR code.
    #[serde(default)]
    pub local_url: Option<String>,
    /// A Wi-Fi network for guests, for a `WIFI:` QR code.
    #[serde(default)]
    pub wifi: Option<WifiConfig>,
}

/// `wifi` of `GET /api/config`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct WifiConfig {
    pub ssid: String,
    /// `"WPA"` or `"nopass"`.
    pub security: String,
    #[serde(default)]
    pub password: Option<String>,
}

/// One ladder of a profile (E5).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Ladder {
    pub rating: i32,
    pub points: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    pub games: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Ladders {
    pub xo: Ladder,
    pub infinite: Ladder,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct RatingUpdateView {
    pub user: u64,
    pub mark: engine::Mark,
    pub before: i32,
    pub after: i32,
    pub change: i32,
}

/// A finished game as `/api/games/{id}` and profiles serve it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct GameView {
    #[serde(flatten)]
    pub game: FinishedGame,
    #[serde(default)]
    pub rating_updates: Vec<RatingUpdateView>,
}

/// `GET /api/users/{name}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Profile {
    pub id: u64,
    pub username: String,
    pub points: u32,
    pub ladders: Ladders,
    #[serde(default)]
    pub recent_games: Vec<GameView>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct LeaderRow {
    pub rank: u32,
    pub username: String,
    pub rating: i32,
    pub points: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Leaderboard {
    pub players: Vec<LeaderRow>,
}

async fn read<T: DeserializeOwned>(
    sent: Result<gloo::net::http::Response, gloo::net::Error>,
) -> Result<T, ApiError> {
    let response = sent.map_err(|_| ApiError::network())?;
    let status = response.status();
    if response.ok() {
        response.json::<T>().await.map_err(|_| ApiError {
            status,
            code: "bad_response".to_owned(),
        })
    } else {
        let code = match response.json::<WireError>().await {
            Ok(e) => e.code,
            Err(_) => "http_error".to_owned(),
        };
        Err(ApiError { status, code })
    }
}

async fn get<T: DeserializeOwned>(url: &str) -> Result<T, ApiError> {
    read(gloo::net::http::Request::get(url).send().await).await
}

async fn post<T: DeserializeOwned>(url: &str, body: &serde_json::Value) -> Result<T, ApiError> {
    let request = gloo::net::http::Request::post(url)
        .json(body)
        .map_err(|_| ApiError::network())?;
    read(request.send().await).await
}

pub async fn config() -> Result<ServerConfig, ApiError> {
    get("/api/config").await
}

/// The signed-in account, or `None` for a guest.
pub async fn me() -> Result<Option<Account>, ApiError> {
    match get::<Account>("/api/me").await {
        Ok(account) => Ok(Some(account)),
        Err(e) if e.status == 401 => Ok(None),
        Err(e) => Err(e),
    }
}

pub async fn login(username: &str, password: &str, register: bool) -> Result<Account, ApiError> {
    let url = if register {
        "/api/register"
    } else {
        "/api/login"
    };
    post(
        url,
        &serde_json::json!({ "username": username, "password": password }),
    )
    .await
}

pub async fn logout() -> Result<(), ApiError> {
    post::<serde_json::Value>("/api/logout", &serde_json::json!({}))
        .await
        .map(|_| ())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_served_game_with_its_updates_decodes() {
        let json = r#"{"id":"r1","game":"xo","rated":true,
            "x":{"user":{"id":1,"name":"sara"}},"o":{"user":{"id":2,"name":"omar"}},
            "moves":[4,0,1,2,7],"end":{"line":{"winner":"X","line":[1,4,7]}},
            "started_at_ms":1,"ended_at_ms":2,"winner":"x",
            "rating_updates":[{"user":1,"mark":"X","before":1200,"after":1216,"change":16}]}"#;
        let game: GameView = serde_json::from_str(json).expect("decodes");
        assert_eq!(game.game.moves, vec![4, 0, 1, 2, 7]);
        assert_eq!(game.rating_updates[0].change, 16);
    }

    #[test]
    fn config_without_a_public_address_decodes() {
        let c: ServerConfig =
            serde_json::from_str(r#"{"kiosk_idle_s":120,"version":"0.1.0","protocol_version":1}"#)
                .expect("decodes");
        assert_eq!(c.kiosk_idle_s, 120);
        assert_eq!(c.public_url, None);
    }
}
