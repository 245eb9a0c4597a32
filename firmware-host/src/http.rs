//! Routing and the HTTP handlers: the JSON API under `/api`, the WebSocket at `/ws`, the
//! embedded UI everywhere else.
//!
//! The endpoints are the rows of [`protocol::api::Endpoint`] (method, path, success status,
//! request and response types; the UI builds its requests from the same table); [`route`]
//! finds a request's row ([`Endpoint::find`]: `405` with the row's `Allow` for a path that
//! exists with another method, `HEAD` answered as `GET`) and calls its one handler. Under
//! `/api/owner` the owner check comes first ([`crate::owner_api::require_owner`]), so a
//! non-owner learns nothing, not even which paths exist. Failures are [`ApiError`]s, whose
//! one table gives the code, status and log level. Account endpoints live in
//! [`crate::account_api`], the owner's in [`crate::owner_api`], the arena events' in
//! [`crate::events_api`]. Request bodies are JSON of at most [`MAX_BODY`] bytes. `GET /ws` is
//! the WebSocket upgrade ([`crate::ws`]); every other `GET /…` is an embedded file, or
//! `index.html` for client-side routes. Any response to a client without an `xo_guest`
//! cookie sets one.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use engine::Game;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{
    ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG, HeaderValue,
    IF_NONE_MATCH, SET_COOKIE, VARY,
};
use hyper::{Method, Request, Response, StatusCode};
use protocol::api::{Endpoint, Found};
use protocol::http::{
    DailyPuzzle, DailyPuzzles, GameView, LadderView, LeaderRow, Leaderboard, PerGame, Profile,
    ProfileSeason, SeasonSummary, Seasons, ServerConfig, StreakBoard, StreakRow,
};
use protocol::puzzle::PuzzleKind;
use rooms::StoreError;

use crate::account_api;
use crate::accounts;
pub use crate::api_error::{ApiError, Body, MAX_BODY, json};
use crate::app::App;
use crate::assets;
use crate::connections::ConnectionSlot;
use crate::cross_site;
use crate::handler::{ApiResult, blocking};
use crate::store::{LadderStats, PUZZLE_ATTEMPTS_KEPT};

/// Recent games shown on a profile.
const RECENT_GAMES: usize = 20;
/// Rows of a leaderboard.
const LEADERBOARD_ROWS: usize = 100;

/// Serves one request. Adds the `xo_guest` cookie to the answer of any client without one.
pub async fn handle(
    app: Arc<App>,
    peer: SocketAddr,
    slot: Arc<ConnectionSlot>,
    req: Request<Incoming>,
) -> Response<Body> {
    let started = Instant::now();
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let needs_guest = accounts::cookie(req.headers(), accounts::GUEST_COOKIE)
        .is_none_or(|id| !accounts::valid_guest_id(id));
    let mut response = match route(&app, peer, slot, req).await {
        Ok(response) => response,
        Err(e) => e.into_response(peer, &path),
    };
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
    // The app's pages need it; on every other answer it costs nothing and guards the same.
    match HeaderValue::from_str(cross_site::app_policy()) {
        Ok(policy) => {
            headers.insert(hyper::header::CONTENT_SECURITY_POLICY, policy);
        }
        Err(e) => tracing::error!(error = %e, "the Content-Security-Policy is not a header value"),
    }
    tracing::debug!(
        %peer, %method, path, status = response.status().as_u16(),
        elapsed_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
        "request"
    );
    response
}

async fn route(
    app: &Arc<App>,
    peer: SocketAddr,
    slot: Arc<ConnectionSlot>,
    req: Request<Incoming>,
) -> ApiResult {
    let path = req.uri().path().to_owned();
    cross_site::check_host(app, req.headers(), req.uri())?;
    if req.method() != Method::GET && req.method() != Method::HEAD && path.starts_with("/api/") {
        cross_site::check_state_change(req.headers(), &path)?;
    }
    if path == "/ws" {
        return crate::ws::upgrade(app, peer, slot, req).await;
    }
    let Some(api_path) = path.strip_prefix("/api") else {
        return static_file(&req, &path);
    };
    // Owner mode: every endpoint under `/api/owner` but the claim checks the owner first, so
    // a non-owner learns nothing more (not even which paths exist).
    let owner_path = api_path == "/owner" || api_path.starts_with("/owner/");
    let you = if owner_path && api_path != "/owner/claim" {
        Some(crate::owner_api::require_owner(app, peer, &req).await?)
    } else {
        None
    };
    // The kiosk's screen is the kiosk's alone: another machine learns nothing of it, whatever
    // the method.
    if api_path == "/kiosk/screen" && !crate::owner::is_kiosk(peer.ip()) {
        return Err(ApiError::NotKiosk);
    }
    let (endpoint, params) = match Endpoint::find(req.method().as_str(), &path) {
        Found::Endpoint(endpoint, params) => (endpoint, params),
        // Outside owner mode a `{…}` segment names something, whatever the method: an empty
        // one (`/api/users/`) names nothing.
        Found::WrongMethod(_) if !owner_path && api_path.split('/').skip(1).any(str::is_empty) => {
            return Err(ApiError::NotFound(format!("no API endpoint {path}")));
        }
        Found::WrongMethod(allow) => return Err(ApiError::MethodNotAllowed(allow)),
        Found::NotFound if owner_path => {
            return Err(ApiError::NotFound(format!("no owner endpoint {path}")));
        }
        Found::NotFound => return Err(ApiError::NotFound(format!("no API endpoint {path}"))),
    };
    if let Some(you) = you {
        return crate::owner_api::serve(app, peer, you, req, endpoint, &params).await;
    }
    // A `{…}` segment of these paths names something; an empty one names nothing.
    let named = || match params.first() {
        Some(segment) if !segment.is_empty() => Ok(percent_decode(segment)),
        _ => Err(ApiError::NotFound(format!("no API endpoint {path}"))),
    };
    match endpoint {
        Endpoint::Health => Ok(health(app)),
        Endpoint::Config => Ok(config(app)),
        Endpoint::Register => account_api::register(app, peer, req).await,
        Endpoint::Login => account_api::login(app, peer, req).await,
        Endpoint::LoginReset => account_api::login_with_reset(app, peer, req).await,
        Endpoint::Logout => account_api::logout(app, &req).await,
        Endpoint::ChangePassword => account_api::change_password(app, peer, req).await,
        Endpoint::DeleteMe => account_api::delete_me(app, peer, req).await,
        Endpoint::Me => account_api::me(app, &req).await,
        Endpoint::Session => account_api::session(app, &req).await,
        Endpoint::KioskOwnerCode => crate::owner_api::kiosk_code(app, peer),
        Endpoint::KioskScreen => crate::owner_api::kiosk_screen(app, peer),
        Endpoint::ReportScreen => crate::owner_api::report_screen(app, peer, req).await,
        Endpoint::ClaimOwner => crate::owner_api::claim(app, peer, req).await,
        Endpoint::Profile => profile(app, &named()?).await,
        Endpoint::Seasons => seasons(app).await,
        Endpoint::Leaderboard => leaderboard(app, req.uri().query()).await,
        Endpoint::Rooms => lobby(app, &req).await,
        Endpoint::DailyPuzzles => Ok(daily_puzzles(app)),
        Endpoint::PuzzleStreaks => streaks(app, req.uri().query()).await,
        Endpoint::Events => crate::events_api::list(app).await,
        Endpoint::Event => crate::events_api::page(app, named()?).await,
        Endpoint::Game => game(app, named()?).await,
        // Under `/api/owner`: served above once the owner check passed.
        Endpoint::Owners
        | Endpoint::RemoveOwner
        | Endpoint::CreateEvent
        | Endpoint::CancelEvent
        | Endpoint::Users
        | Endpoint::Online
        | Endpoint::RenameUser
        | Endpoint::ResetPassword
        | Endpoint::RemoveUser
        | Endpoint::OwnerHealth
        | Endpoint::UpdateStatus
        | Endpoint::Update
        | Endpoint::Restart
        | Endpoint::NewSeason
        | Endpoint::Backup
        | Endpoint::KeptBackups
        | Endpoint::KeptBackup
        | Endpoint::RestoreKept
        | Endpoint::RestorePreview
        | Endpoint::Restore
        | Endpoint::CloseRoom
        | Endpoint::Settings
        | Endpoint::SaveSettings
        | Endpoint::ResetSettings => Err(ApiError::NotFound(format!("no API endpoint {path}"))),
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

fn health(app: &Arc<App>) -> Response<Body> {
    json(StatusCode::OK, &crate::health::health_view(app))
}

fn config(app: &Arc<App>) -> Response<Body> {
    let addresses = app.public_url.current();
    let settings = app.settings.current();
    json(
        StatusCode::OK,
        &ServerConfig {
            kiosk_idle_s: settings.kiosk_idle_s,
            public_url: Some(addresses.public_url),
            local_url: addresses.local_url,
            wifi: settings.wifi,
            default_language: settings.default_language,
            screen_sleep: settings.screen_sleep,
            screen_off_idle_s: settings.screen_off_idle_s,
            version: crate::VERSION.to_owned(),
            protocol_version: protocol::PROTOCOL_VERSION,
        },
    )
}

/// `GET /api/puzzles/daily`: each game's puzzle of the server's UTC day (PZ4) and how many
/// solved it today, for the kiosk's home.
fn daily_puzzles(app: &Arc<App>) -> Response<Body> {
    let day = rooms::puzzles::today();
    let solves = app.hub.daily_solves();
    let puzzles = [Game::Xo, Game::Infinite]
        .into_iter()
        .map(|game| {
            let p = tables::select::daily(game, i64::from(day));
            DailyPuzzle {
                game,
                puzzle: p.id().to_string(),
                kind: match p.kind() {
                    tables::puzzle::Kind::Win => PuzzleKind::Win,
                    tables::puzzle::Kind::Hold => PuzzleKind::Hold,
                },
                rating: p.rating(),
                to_move: p.to_move(),
                solved_today: solves.count(game, day),
            }
        })
        .collect();
    json(StatusCode::OK, &DailyPuzzles { day, puzzles })
}

fn ladder(s: &LadderStats) -> LadderView {
    LadderView {
        rating: s.rating,
        points: s.points,
        wins: s.wins,
        draws: s.draws,
        losses: s.losses,
        games: s.games(),
    }
}

/// `GET /api/rooms`: the lobby as this browser may see it, without the rooms it was kicked
/// from (M3.5), as the WebSocket's lobby list.
async fn lobby(app: &Arc<App>, req: &Request<Incoming>) -> ApiResult {
    let store = app.store.clone();
    let headers = req.headers().clone();
    let who =
        blocking(move || accounts::identity_from_headers_blocking(&store, &headers)).await??;
    Ok(json(StatusCode::OK, &app.hub.lobby_for(&who)))
}

async fn profile(app: &Arc<App>, name: &str) -> ApiResult {
    let store = app.store.clone();
    let name_owned = name.to_owned();
    let found = blocking(move || -> Result<_, StoreError> {
        let Some((id, user, played)) = store.user_with_seasons_blocking(&name_owned)? else {
            return Ok(None);
        };
        let games = store.recent_games_blocking(id, RECENT_GAMES)?;
        let puzzles = store.puzzle_profile_blocking(id, PUZZLE_ATTEMPTS_KEPT)?;
        let seasons: Vec<ProfileSeason> = played
            .into_iter()
            .map(|s| ProfileSeason {
                season: s.number,
                ended_ms: s.ended_ms,
                ladders: PerGame {
                    xo: ladder(&s.xo),
                    infinite: ladder(&s.infinite),
                },
                ranks: PerGame {
                    xo: s.xo_rank,
                    infinite: s.infinite_rank,
                },
            })
            .collect();
        let events =
            crate::event_runner::profile_events_blocking(&store, id, crate::clock::now_ms())?;
        Ok(Some((id, user, games, seasons, puzzles, events)))
    })
    .await??;
    let Some((id, user, games, seasons, ([xo, infinite], recent_puzzles), events)) = found else {
        return Err(ApiError::UnknownUser(name.to_owned()));
    };
    Ok(json(
        StatusCode::OK,
        &Profile {
            id,
            username: user.name,
            created_ms: user.created_ms,
            ratings: PerGame {
                xo: user.xo.rating,
                infinite: user.infinite.rating,
            },
            points: user.xo.points + user.infinite.points,
            ladders: PerGame {
                xo: ladder(&user.xo),
                infinite: ladder(&user.infinite),
            },
            recent_games: games
                .into_iter()
                .map(|g| GameView::new(g.game, &g.updates))
                .collect(),
            seasons,
            events,
            puzzles: PerGame { xo, infinite },
            recent_puzzles,
        },
    ))
}

/// The `game` query parameter, which must be there.
fn game_param(query: Option<&str>) -> Result<Game, ApiError> {
    match query_param(query, "game") {
        None => Err(ApiError::BadGame(None)),
        Some(value) => value
            .parse()
            .map_err(|_| ApiError::BadGame(Some(value.to_owned()))),
    }
}

/// `GET /api/puzzles/streaks?game=…`: the streak leaderboard of one game (PZ5).
async fn streaks(app: &Arc<App>, query: Option<&str>) -> ApiResult {
    let game = game_param(query)?;
    let store = app.store.clone();
    let rows = blocking(move || store.streak_leaders_blocking(game, LEADERBOARD_ROWS)).await??;
    let players = rows
        .into_iter()
        .zip(1..)
        .map(|(row, rank)| StreakRow {
            rank,
            id: row.user,
            username: row.name,
            best_streak: row.best_streak,
            rating: row.rating,
        })
        .collect();
    Ok(json(StatusCode::OK, &StreakBoard { game, players }))
}

fn query_param<'q>(query: Option<&'q str>, name: &str) -> Option<&'q str> {
    query?
        .split('&')
        .filter_map(|pair| pair.split_once('=').or(Some((pair, ""))))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

async fn leaderboard(app: &Arc<App>, query: Option<&str>) -> ApiResult {
    let game = game_param(query)?;
    let asked: Option<u64> = match query_param(query, "season") {
        None => None,
        Some(value) => Some(
            value
                .parse()
                .map_err(|_| ApiError::NotFound(format!("no season {value:?}")))?,
        ),
    };
    let store = app.store.clone();
    let (season, rows) = blocking(move || -> Result<_, ApiError> {
        let current = store.current_season_blocking()?;
        match asked {
            None => Ok((current, store.leaderboard_blocking(game, LEADERBOARD_ROWS)?)),
            Some(n) if n == current => {
                Ok((current, store.leaderboard_blocking(game, LEADERBOARD_ROWS)?))
            }
            Some(n) => match store.season_leaderboard_blocking(n, game, LEADERBOARD_ROWS)? {
                Some(rows) => Ok((n, rows)),
                None => Err(ApiError::NotFound(format!("no season {n}"))),
            },
        }
    })
    .await??;
    let players = rows
        .into_iter()
        .zip(1..)
        .map(|(row, rank)| LeaderRow {
            rank,
            id: row.user,
            username: row.name,
            rating: row.stats.rating,
            points: row.stats.points,
            wins: row.stats.wins,
            draws: row.stats.draws,
            losses: row.stats.losses,
            games: row.stats.games(),
        })
        .collect();
    Ok(json(
        StatusCode::OK,
        &Leaderboard {
            game,
            season,
            players,
        },
    ))
}

/// `GET /api/seasons`: the season being played and the archived ones.
async fn seasons(app: &Arc<App>) -> ApiResult {
    let store = app.store.clone();
    let (current, archived) = blocking(move || -> Result<_, StoreError> {
        Ok((store.current_season_blocking()?, store.seasons_blocking()?))
    })
    .await??;
    Ok(json(
        StatusCode::OK,
        &Seasons {
            current,
            archived: archived
                .iter()
                .map(|s| SeasonSummary {
                    number: s.number,
                    ended_ms: s.ended_ms,
                    players: s.rows.len(),
                })
                .collect(),
        },
    ))
}

async fn game(app: &Arc<App>, id: String) -> ApiResult {
    let store = app.store.clone();
    let lookup = id.clone();
    match blocking(move || store.game_blocking(&lookup)).await?? {
        Some(stored) => Ok(json(
            StatusCode::OK,
            &GameView::new(stored.game, &stored.updates),
        )),
        None => Err(ApiError::UnknownGame(id)),
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
        return Err(ApiError::MethodNotAllowed("GET, HEAD"));
    }
    // Browsers ask for /favicon.ico by themselves (a page without `<link rel="icon">`, a JSON
    // answer opened directly): the app's own icon, not a 404 in their console.
    let path = if path == "/favicon.ico" {
        "/favicon.svg"
    } else {
        path
    };
    let asset = match assets::find(path) {
        Some(asset) => Some(asset),
        // A missing file (a name with an extension) is a 404, not the app.
        None if path
            .rsplit('/')
            .next()
            .is_some_and(|last| last.contains('.')) =>
        {
            return Err(ApiError::NotFound(format!("no file {path}")));
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
