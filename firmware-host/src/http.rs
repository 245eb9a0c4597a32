//! Routing and the HTTP handlers: the JSON API under `/api`, the WebSocket at `/ws`, the
//! embedded UI everywhere else.
//!
//! Every error is JSON `{"code": "...", "message": "..."}` with a 4xx or 5xx status; the
//! mapping from failure to status, code and log level lives in [`ApiError`]. Request bodies
//! are JSON of at most [`MAX_BODY`] bytes.
//!
//! | route | answer |
//! | --- | --- |
//! | `GET /api/health` | `{status ("ok" or "degraded"), reason, storage: {state ("ok", "nearly_full", "failing"), reason, full, free_bytes, total_bytes}, version, uptime_s, rooms, rooms_waiting, rooms_playing, connections (WebSockets), players_online, http_connections, ui_built}` |
//! | `GET /api/config` | `{kiosk_idle_s, public_url, local_url, wifi, version, protocol_version}` (see [`crate::public_url`]) |
//! | `POST /api/register` `{username, password}` | 201 `{id, username}` + `xo_session` cookie; 400 `invalid_username` / `invalid_password`, 409 `username_taken` |
//! | `POST /api/login` `{username, password}` | 200 `{id, username}` + cookie; 401 `bad_credentials`; 429 `too_many_attempts` with `Retry-After` |
//! | `POST /api/logout` | 200 `{signed_in: false}`, session deleted, cookie cleared |
//! | `GET /api/me` | 200 `{id, username}`; 401 `not_signed_in` |
//! | `GET /api/users/{name}` | `{id, username, created_ms, ratings: {xo, infinite}, points, ladders: {xo, infinite}: {rating, points, wins, draws, losses, games}, recent_games: [game…]}`; 404 `unknown_user` |
//! | `GET /api/leaderboard?game=xo\|infinite` | `{game, players: [{rank, id, username, rating, points, wins, draws, losses, games}]}`; 400 `bad_game` |
//! | `GET /api/games/{id}` | the `FinishedGame` fields plus `winner` (`"x"`, `"o"`, null) and `rating_updates: [{user, mark, before, after, change}]`; 404 `unknown_game` |
//! | `GET /api/rooms` | the lobby: `[RoomSummary]` (protocol crate) |
//! | `GET /ws` | WebSocket upgrade (see [`crate::ws`]) |
//! | other `GET /…` | an embedded file, or `index.html` for client-side routes |
//!
//! Other failures: 404 `not_found` (unknown `/api` path or missing file), 405
//! `method_not_allowed` with `Allow`, 413 `body_too_large`, 400 `bad_json`, 500 `internal`.
//! Any response to a client without an `xo_guest` cookie sets one.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use bytes::Bytes;
use engine::Game;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{
    ACCEPT_ENCODING, ALLOW, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_LENGTH, CONTENT_TYPE, ETAG,
    HeaderValue, IF_NONE_MATCH, RETRY_AFTER, SET_COOKIE, VARY,
};
use hyper::{Method, Request, Response, StatusCode};
use protocol::records::{FinishedGame, RatingUpdate, UserId};
use rooms::StoreError;
use serde::{Deserialize, Serialize};

use crate::accounts::{self, ThrottleKey};
use crate::assets;
use crate::server::App;
use crate::store::{LadderStats, RegisterError, StoredGame};

/// The response body type of every handler.
pub type Body = Full<Bytes>;

/// Largest request body accepted (413 above).
pub const MAX_BODY: usize = 16 * 1024;

/// Recent games shown on a profile.
const RECENT_GAMES: usize = 20;
/// Rows of a leaderboard.
const LEADERBOARD_ROWS: usize = 100;

/// A failure answered to the client.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub message: String,
    pub retry_after_s: Option<u64>,
    pub allow: Option<&'static str>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after_s: None,
            allow: None,
        }
    }

    fn not_found(message: impl Into<String>) -> Self {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", message)
    }

    fn method_not_allowed(allow: &'static str) -> Self {
        ApiError {
            allow: Some(allow),
            ..ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                format!("this path accepts only {allow}"),
            )
        }
    }

    /// A server-side failure: logged in full, answered vaguely.
    fn internal(what: &str, error: impl std::fmt::Display) -> Self {
        tracing::error!(error = %error, "{what}");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "internal server error",
        )
    }

    fn into_response(self) -> Response<Body> {
        #[derive(Serialize)]
        struct Wire<'a> {
            code: &'a str,
            message: &'a str,
        }
        let mut response = json(
            self.status,
            &Wire {
                code: self.code,
                message: &self.message,
            },
        );
        if let Some(secs) = self.retry_after_s {
            response
                .headers_mut()
                .insert(RETRY_AFTER, HeaderValue::from(secs));
        }
        if let Some(allow) = self.allow {
            response
                .headers_mut()
                .insert(ALLOW, HeaderValue::from_static(allow));
        }
        response
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        if e.is_unavailable() {
            tracing::warn!(error = %e, "request refused: storage unavailable");
            let mut refused = ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "storage_unavailable",
                "the kiosk cannot save data right now; try again in a minute",
            );
            refused.retry_after_s = Some(5);
            return refused;
        }
        ApiError::internal("store failure", e)
    }
}

type ApiResult = Result<Response<Body>, ApiError>;

/// A JSON response.
pub fn json(status: StatusCode, value: &impl Serialize) -> Response<Body> {
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

/// Runs blocking store or hashing work off the async threads.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError::internal("blocking task failed", e))
}

/// Serves one request. Adds the `xo_guest` cookie to the answer of any client without one.
pub async fn handle(app: Arc<App>, peer: SocketAddr, req: Request<Incoming>) -> Response<Body> {
    let started = Instant::now();
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let needs_guest = accounts::cookie(req.headers(), accounts::GUEST_COOKIE)
        .is_none_or(|id| !accounts::valid_guest_id(id));
    let mut response = route(&app, peer, req)
        .await
        .unwrap_or_else(ApiError::into_response);
    let already_set = response
        .headers()
        .get_all(SET_COOKIE)
        .iter()
        .any(|v| v.as_bytes().starts_with(accounts::GUEST_COOKIE.as_bytes()));
    if needs_guest
        && !already_set
        && let Ok(value) = HeaderValue::from_str(&accounts::guest_cookie(&accounts::new_guest_id()))
    {
        response.headers_mut().append(SET_COOKIE, value);
    }
    // Browsers must not guess a script out of a JSON error, or frame the app.
    let headers = response.headers_mut();
    headers.insert(
        hyper::header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        hyper::header::X_FRAME_OPTIONS,
        HeaderValue::from_static("DENY"),
    );
    tracing::debug!(
        %peer, %method, path, status = response.status().as_u16(),
        elapsed_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
        "request"
    );
    response
}

async fn route(app: &Arc<App>, peer: SocketAddr, req: Request<Incoming>) -> ApiResult {
    let path = req.uri().path().to_owned();
    if path == "/ws" {
        return crate::ws::upgrade(app, peer, req).await;
    }
    let Some(api_path) = path.strip_prefix("/api") else {
        return static_file(&req, &path);
    };
    let segments: Vec<&str> = api_path.split('/').skip(1).collect();
    let method = req.method().clone();
    let get = |allowed: bool| {
        if allowed {
            Ok(())
        } else {
            Err(ApiError::method_not_allowed("GET, HEAD"))
        }
    };
    let post = |allowed: bool| {
        if allowed {
            Ok(())
        } else {
            Err(ApiError::method_not_allowed("POST"))
        }
    };
    let is_get = method == Method::GET || method == Method::HEAD;
    let is_post = method == Method::POST;
    match segments.as_slice() {
        ["health"] => {
            get(is_get)?;
            health(app).await
        }
        ["config"] => {
            get(is_get)?;
            Ok(config(app))
        }
        ["register"] => {
            post(is_post)?;
            register(app, peer, req).await
        }
        ["login"] => {
            post(is_post)?;
            login(app, peer, req).await
        }
        ["logout"] => {
            post(is_post)?;
            logout(app, &req).await
        }
        ["me"] => {
            get(is_get)?;
            me(app, &req).await
        }
        ["users", name] if !name.is_empty() => {
            get(is_get)?;
            profile(app, &percent_decode(name)).await
        }
        ["leaderboard"] => {
            get(is_get)?;
            leaderboard(app, req.uri().query()).await
        }
        ["rooms"] => {
            get(is_get)?;
            Ok(json(StatusCode::OK, &app.hub.lobby()))
        }
        ["games", id] if !id.is_empty() => {
            get(is_get)?;
            game(app, percent_decode(id)).await
        }
        _ => Err(ApiError::not_found(format!("no API endpoint {path}"))),
    }
}

/// Decodes `%XX` escapes of a path segment; a malformed escape is kept as written.
fn percent_decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let escaped = (b == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(v) => {
                out.push(v);
                i += 3;
            }
            None => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Reads a JSON body of at most [`MAX_BODY`] bytes.
async fn read_json<T: serde::de::DeserializeOwned>(req: Request<Incoming>) -> Result<T, ApiError> {
    let too_large = || {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!("the request body is larger than {MAX_BODY} bytes"),
        )
    };
    let declared = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|len| len > MAX_BODY as u64) {
        return Err(too_large());
    }
    let body = Limited::new(req.into_body(), MAX_BODY)
        .collect()
        .await
        .map_err(|e| {
            if e.is::<http_body_util::LengthLimitError>() {
                too_large()
            } else {
                ApiError::new(
                    StatusCode::BAD_REQUEST,
                    "bad_body",
                    format!("could not read the request body: {e}"),
                )
            }
        })?
        .to_bytes();
    serde_json::from_slice(&body).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_json",
            format!("the request body is not the expected JSON: {e}"),
        )
    })
}

async fn health(app: &Arc<App>) -> ApiResult {
    let stats = app.hub.stats();
    let storage = app.store.health();
    Ok(json(
        StatusCode::OK,
        &serde_json::json!({
            "status": if storage.degraded() { "degraded" } else { "ok" },
            // Why it is degraded, for people; `storage` has the details.
            "reason": storage.reason,
            "storage": storage,
            "version": env!("CARGO_PKG_VERSION"),
            "uptime_s": app.started.elapsed().as_secs(),
            "rooms": stats.rooms_waiting + stats.rooms_playing,
            "rooms_waiting": stats.rooms_waiting,
            "rooms_playing": stats.rooms_playing,
            // Open WebSocket connections; `http_connections` counts open TCP connections.
            "connections": stats.connections,
            "players_online": stats.players_online,
            "http_connections": app.connections.load(Ordering::Relaxed),
            "ui_built": assets::ui_built(),
        }),
    ))
}

fn config(app: &Arc<App>) -> Response<Body> {
    let addresses = app.public_url.current();
    json(
        StatusCode::OK,
        &serde_json::json!({
            "kiosk_idle_s": app.config.kiosk_idle_s,
            "public_url": addresses.public_url,
            "local_url": addresses.local_url,
            "wifi": app.config.guest_wifi,
            "version": env!("CARGO_PKG_VERSION"),
            "protocol_version": protocol::PROTOCOL_VERSION,
        }),
    )
}

/// The body of register and login.
#[derive(Debug, Deserialize)]
struct Credentials {
    username: String,
    password: String,
}

#[derive(Debug, Serialize)]
struct Me<'a> {
    id: UserId,
    username: &'a str,
}

fn with_cookie(mut response: Response<Body>, cookie: &str) -> Response<Body> {
    match HeaderValue::from_str(cookie) {
        Ok(value) => {
            response.headers_mut().append(SET_COOKIE, value);
        }
        Err(e) => tracing::error!(error = %e, "a cookie is not a valid header"),
    }
    response
}

fn throttled(
    app: &App,
    keys: &[ThrottleKey],
    what: &str,
    peer: SocketAddr,
) -> Result<(), ApiError> {
    match app.throttle.check(keys, Instant::now()) {
        None => Ok(()),
        Some(wait) => {
            let secs = wait.as_secs().max(1);
            tracing::warn!(%peer, ?keys, retry_after_s = secs, "{what} refused: too many failed attempts");
            Err(ApiError {
                retry_after_s: Some(secs),
                ..ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    "too_many_attempts",
                    format!("too many failed attempts; try again in {secs} s"),
                )
            })
        }
    }
}

/// Hashes or verifies with at most [`crate::server`]'s permit count at once.
async fn with_hash_permit<T: Send + 'static>(
    app: &Arc<App>,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    let _permit = app
        .hash_permits
        .acquire()
        .await
        .map_err(|e| ApiError::internal("hash semaphore closed", e))?;
    blocking(f).await
}

async fn register(app: &Arc<App>, peer: SocketAddr, req: Request<Incoming>) -> ApiResult {
    let creds: Credentials = read_json(req).await?;
    let keys = [ThrottleKey::Address(peer.ip())];
    throttled(app, &keys, "registration", peer)?;
    let checked = accounts::validate_username(&creds.username)
        .and_then(|()| accounts::validate_password(&creds.password));
    if let Err(e) = checked {
        // Cheap to answer and reveals nothing: not counted as a failure.
        return Err(ApiError::new(
            StatusCode::BAD_REQUEST,
            e.code(),
            e.to_string(),
        ));
    }
    let name_taken = || {
        ApiError::new(
            StatusCode::CONFLICT,
            "username_taken",
            "that username is taken (names are unique ignoring case)",
        )
    };
    // Refuse a taken name before paying for a hash; the store checks again atomically.
    let store = app.store.clone();
    let name = creds.username.clone();
    if blocking(move || store.user_by_name_blocking(&name))
        .await??
        .is_some()
    {
        app.throttle.fail(&keys, Instant::now());
        return Err(name_taken());
    }
    let password = creds.password;
    let hash = with_hash_permit(app, move || accounts::hash_password_blocking(&password)).await??;
    let (token, token_hash) = accounts::new_session_token();
    let store = app.store.clone();
    let name = creds.username.clone();
    let now = accounts::now_ms();
    let expires = now + lifetime_ms();
    let id = match blocking(move || store.register_blocking(&name, &hash, token_hash, now, expires))
        .await?
    {
        Ok(id) => id,
        Err(RegisterError::NameTaken) => {
            app.throttle.fail(&keys, Instant::now());
            return Err(name_taken());
        }
        Err(RegisterError::Store(e)) => return Err(e.into()),
    };
    tracing::info!(%peer, user = id, username = creds.username, "registered");
    Ok(with_cookie(
        json(
            StatusCode::CREATED,
            &Me {
                id,
                username: &creds.username,
            },
        ),
        &accounts::session_cookie(&token),
    ))
}

fn lifetime_ms() -> u64 {
    u64::try_from(accounts::SESSION_LIFETIME.as_millis()).expect("30 days fit in u64 ms")
}

async fn login(app: &Arc<App>, peer: SocketAddr, req: Request<Incoming>) -> ApiResult {
    let creds: Credentials = read_json(req).await?;
    let name_key = ThrottleKey::Username(creds.username.to_lowercase());
    let keys = [ThrottleKey::Address(peer.ip()), name_key.clone()];
    throttled(app, &keys, "sign-in", peer)?;
    let store = app.store.clone();
    let name = creds.username.clone();
    let user = blocking(move || store.user_by_name_blocking(&name)).await??;
    let password = creds.password;
    let (user, phc) = match user {
        Some((id, record)) => (Some((id, record.name)), Some(record.password_hash)),
        None => (None, None),
    };
    // Overlong passwords cannot match (A1) and would only cost hashing time.
    let plausible = accounts::validate_password(&password).is_ok();
    let matches = plausible
        && with_hash_permit(app, move || {
            // An unknown name is checked against a dummy hash (computed here, off the async
            // threads, the first time) so it costs as long as a wrong password.
            match &phc {
                Some(stored) => accounts::verify_password_blocking(&password, stored),
                None => accounts::verify_password_blocking(&password, accounts::dummy_hash()),
            }
        })
        .await?;
    let Some((id, username)) = user.filter(|_| matches) else {
        app.throttle.fail(&keys, Instant::now());
        tracing::info!(%peer, username = creds.username, "sign-in failed");
        return Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "bad_credentials",
            "wrong username or password",
        ));
    };
    app.throttle.clear(&name_key);
    let (token, token_hash) = accounts::new_session_token();
    let store = app.store.clone();
    let now = accounts::now_ms();
    let expires = now + lifetime_ms();
    blocking(move || store.create_session_blocking(token_hash, id, now, expires)).await??;
    tracing::info!(%peer, user = id, username, "signed in");
    Ok(with_cookie(
        json(
            StatusCode::OK,
            &Me {
                id,
                username: &username,
            },
        ),
        &accounts::session_cookie(&token),
    ))
}

async fn logout(app: &Arc<App>, req: &Request<Incoming>) -> ApiResult {
    if let Some(hash) =
        accounts::cookie(req.headers(), accounts::SESSION_COOKIE).and_then(accounts::token_hash)
    {
        let store = app.store.clone();
        blocking(move || store.delete_session_blocking(hash)).await??;
    }
    Ok(with_cookie(
        json(StatusCode::OK, &serde_json::json!({ "signed_in": false })),
        &accounts::clear_session_cookie(),
    ))
}

async fn me(app: &Arc<App>, req: &Request<Incoming>) -> ApiResult {
    let store = app.store.clone();
    let headers = req.headers().clone();
    let identity =
        blocking(move || accounts::identity_from_headers_blocking(&store, &headers)).await??;
    match identity.account {
        Some(account) => Ok(json(
            StatusCode::OK,
            &Me {
                id: account.id,
                username: &account.name,
            },
        )),
        None => Err(ApiError::new(
            StatusCode::UNAUTHORIZED,
            "not_signed_in",
            "not signed in",
        )),
    }
}

#[derive(Debug, Serialize)]
struct LadderView {
    rating: i32,
    points: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    games: u32,
}

impl From<&LadderStats> for LadderView {
    fn from(s: &LadderStats) -> Self {
        LadderView {
            rating: s.rating,
            points: s.points,
            wins: s.wins,
            draws: s.draws,
            losses: s.losses,
            games: s.games(),
        }
    }
}

/// A finished game with the rating updates it caused.
#[derive(Debug, Serialize)]
struct GameView<'a> {
    #[serde(flatten)]
    game: &'a FinishedGame,
    /// `"x"`, `"o"` or null for a draw.
    winner: Option<&'static str>,
    rating_updates: Vec<UpdateView>,
}

#[derive(Debug, Serialize)]
struct UpdateView {
    user: UserId,
    mark: engine::Mark,
    before: i32,
    after: i32,
    change: i32,
}

impl<'a> From<&'a StoredGame> for GameView<'a> {
    fn from(g: &'a StoredGame) -> Self {
        GameView {
            game: &g.game,
            winner: g.game.end.winner().map(|m| match m {
                engine::Mark::X => "x",
                engine::Mark::O => "o",
            }),
            rating_updates: g
                .updates
                .iter()
                .map(|u: &RatingUpdate| UpdateView {
                    user: u.user,
                    mark: u.mark,
                    before: u.before,
                    after: u.after,
                    change: u.change(),
                })
                .collect(),
        }
    }
}

async fn profile(app: &Arc<App>, name: &str) -> ApiResult {
    let store = app.store.clone();
    let name_owned = name.to_owned();
    let found = blocking(move || -> Result<_, StoreError> {
        let Some((id, user)) = store.user_by_name_blocking(&name_owned)? else {
            return Ok(None);
        };
        let games = store.recent_games_blocking(id, RECENT_GAMES)?;
        Ok(Some((id, user, games)))
    })
    .await??;
    let Some((id, user, games)) = found else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_user",
            format!("no player named {name:?}"),
        ));
    };
    let recent: Vec<GameView<'_>> = games.iter().map(GameView::from).collect();
    Ok(json(
        StatusCode::OK,
        &serde_json::json!({
            "id": id,
            "username": user.name,
            "created_ms": user.created_ms,
            "ratings": { "xo": user.xo.rating, "infinite": user.infinite.rating },
            "points": user.xo.points + user.infinite.points,
            "ladders": {
                "xo": LadderView::from(&user.xo),
                "infinite": LadderView::from(&user.infinite),
            },
            "recent_games": recent,
        }),
    ))
}

fn query_param<'q>(query: Option<&'q str>, name: &str) -> Option<&'q str> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('=').or(Some((pair, ""))))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

async fn leaderboard(app: &Arc<App>, query: Option<&str>) -> ApiResult {
    let game: Game = match query_param(query, "game") {
        None => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad_game",
                "missing query parameter `game`: expected `xo` or `infinite`",
            ));
        }
        Some(value) => value.parse().map_err(|_| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "bad_game",
                format!("unknown game {value:?}: expected `xo` or `infinite`"),
            )
        })?,
    };
    let store = app.store.clone();
    let rows = blocking(move || store.leaderboard_blocking(game, LEADERBOARD_ROWS)).await??;
    let players: Vec<_> = rows
        .iter()
        .enumerate()
        .map(|(i, row)| {
            serde_json::json!({
                "rank": i + 1,
                "id": row.user,
                "username": row.name,
                "rating": row.stats.rating,
                "points": row.stats.points,
                "wins": row.stats.wins,
                "draws": row.stats.draws,
                "losses": row.stats.losses,
                "games": row.stats.games(),
            })
        })
        .collect();
    Ok(json(
        StatusCode::OK,
        &serde_json::json!({ "game": game.as_str(), "players": players }),
    ))
}

async fn game(app: &Arc<App>, id: String) -> ApiResult {
    let store = app.store.clone();
    let lookup = id.clone();
    match blocking(move || store.game_blocking(&lookup)).await?? {
        Some(stored) => Ok(json(StatusCode::OK, &GameView::from(&stored))),
        None => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown_game",
            format!("no finished game with id {id:?}"),
        )),
    }
}

/// Whether the client accepts gzip (any `gzip` coding not weighted `q=0`).
fn accepts_gzip(req: &Request<Incoming>) -> bool {
    req.headers()
        .get_all(ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|coding| {
            let mut parts = coding.split(';').map(str::trim);
            let name = parts.next().unwrap_or("");
            let zero = parts.any(|p| p.replace(' ', "") == "q=0" || p == "q=0.0");
            (name.eq_ignore_ascii_case("gzip") || name == "*") && !zero
        })
}

fn static_file(req: &Request<Incoming>, path: &str) -> ApiResult {
    if req.method() != Method::GET && req.method() != Method::HEAD {
        return Err(ApiError::method_not_allowed("GET, HEAD"));
    }
    let asset = match assets::find(path) {
        Some(asset) => Some(asset),
        // A missing file (a name with an extension) is a 404, not the app.
        None if path
            .rsplit('/')
            .next()
            .is_some_and(|last| last.contains('.')) =>
        {
            return Err(ApiError::not_found(format!("no file {path}")));
        }
        // SPA fallback: every other path is a client-side route.
        None => assets::index(),
    };
    let Some(asset) = asset else {
        let mut response = Response::new(Full::new(Bytes::from_static(
            assets::NOT_BUILT_PAGE.as_bytes(),
        )));
        let headers = response.headers_mut();
        headers.insert(
            CONTENT_TYPE,
            HeaderValue::from_static("text/html; charset=utf-8"),
        );
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
        return Ok(response);
    };
    let not_modified = req
        .headers()
        .get(IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| {
            tags.split(',')
                .any(|t| t.trim() == asset.etag || t.trim() == "*")
        });
    let gzip = accepts_gzip(req);
    let mut response = if not_modified {
        let mut r = Response::new(Full::new(Bytes::new()));
        *r.status_mut() = StatusCode::NOT_MODIFIED;
        r
    } else if gzip {
        let mut r = Response::new(Full::new(Bytes::from_static(asset.gzip)));
        r.headers_mut()
            .insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        r
    } else {
        let body = asset
            .inflate()
            .map_err(|e| ApiError::internal("inflating an embedded asset", e))?;
        Response::new(Full::new(Bytes::from(body)))
    };
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(asset.content_type));
    headers.insert(ETAG, HeaderValue::from_static(asset.etag));
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    headers.insert(VARY, HeaderValue::from_static("Accept-Encoding"));
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_decode_handles_escapes_and_garbage() {
        assert_eq!(percent_decode("a%20b"), "a b");
        assert_eq!(percent_decode("abc"), "abc");
        assert_eq!(percent_decode("100%"), "100%");
        assert_eq!(percent_decode("%zz"), "%zz");
    }

    #[test]
    fn query_param_finds_values() {
        assert_eq!(query_param(Some("game=xo&x=1"), "game"), Some("xo"));
        assert_eq!(query_param(Some("x=1"), "game"), None);
        assert_eq!(query_param(Some("game"), "game"), Some(""));
        assert_eq!(query_param(None, "game"), None);
    }
}
