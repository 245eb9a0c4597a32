//! The account endpoints (A1, A2): register, sign in, sign out, who am I.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use hyper::body::Incoming;
use hyper::header::{HeaderValue, SET_COOKIE};
use hyper::{Request, Response, StatusCode};
use protocol::http::{Account, Credentials, SignedOut};
use protocol::rules;

use crate::accounts::{self, ThrottleKey};
use crate::http::{ApiError, ApiResult, Body, blocking, json, read_json};
use crate::server::App;
use crate::store::RegisterError;

fn with_cookie(mut response: Response<Body>, cookie: &str) -> Response<Body> {
    match HeaderValue::from_str(cookie) {
        Ok(value) => {
            response.headers_mut().append(SET_COOKIE, value);
        }
        Err(e) => tracing::error!(error = %e, "a cookie is not a valid header"),
    }
    response
}

fn throttled(app: &App, keys: &[ThrottleKey]) -> Result<(), ApiError> {
    match app.throttle.check(keys, Instant::now()) {
        None => Ok(()),
        Some(wait) => Err(ApiError::TooManyAttempts {
            retry_after_s: wait.as_secs().max(1),
        }),
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

fn lifetime_ms() -> u64 {
    u64::try_from(accounts::SESSION_LIFETIME.as_millis()).expect("30 days fit in u64 ms")
}

pub(crate) async fn register(
    app: &Arc<App>,
    peer: SocketAddr,
    req: Request<Incoming>,
) -> ApiResult {
    let creds: Credentials = read_json(req).await?;
    let keys = [ThrottleKey::Address(peer.ip())];
    throttled(app, &keys)?;
    // Cheap to answer and reveals nothing: not counted as a failure.
    rules::check_username(&creds.username)?;
    rules::check_password(&creds.password)?;
    // Refuse a taken name before paying for a hash; the store checks again atomically.
    let store = app.store.clone();
    let name = creds.username.clone();
    if blocking(move || store.user_by_name_blocking(&name))
        .await??
        .is_some()
    {
        app.throttle.fail(&keys, Instant::now());
        return Err(ApiError::UsernameTaken);
    }
    let password = creds.password;
    let hash = with_hash_permit(app, move || accounts::hash_password_blocking(&password))
        .await?
        .map_err(|e| ApiError::internal("hashing a password", e))?;
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
            return Err(ApiError::UsernameTaken);
        }
        Err(RegisterError::Store(e)) => return Err(e.into()),
    };
    tracing::info!(%peer, user = id, username = creds.username, "registered");
    Ok(with_cookie(
        json(
            StatusCode::CREATED,
            &Account {
                id,
                username: creds.username,
            },
        ),
        &accounts::session_cookie(&token),
    ))
}

pub(crate) async fn login(app: &Arc<App>, peer: SocketAddr, req: Request<Incoming>) -> ApiResult {
    let creds: Credentials = read_json(req).await?;
    let name_key = ThrottleKey::Username(creds.username.to_lowercase());
    let keys = [ThrottleKey::Address(peer.ip()), name_key.clone()];
    throttled(app, &keys)?;
    let store = app.store.clone();
    let name = creds.username.clone();
    let user = blocking(move || store.user_by_name_blocking(&name)).await??;
    let password = creds.password;
    let (user, phc) = match user {
        Some((id, record)) => (Some((id, record.name)), Some(record.password_hash)),
        None => (None, None),
    };
    // Overlong passwords cannot match (A1) and would only cost hashing time.
    let plausible = rules::check_password(&password).is_ok();
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
        return Err(ApiError::BadCredentials);
    };
    app.throttle.clear(&name_key);
    let (token, token_hash) = accounts::new_session_token();
    let store = app.store.clone();
    let now = accounts::now_ms();
    let expires = now + lifetime_ms();
    blocking(move || store.create_session_blocking(token_hash, id, now, expires)).await??;
    tracing::info!(%peer, user = id, username, "signed in");
    Ok(with_cookie(
        json(StatusCode::OK, &Account { id, username }),
        &accounts::session_cookie(&token),
    ))
}

pub(crate) async fn logout(app: &Arc<App>, req: &Request<Incoming>) -> ApiResult {
    if let Some(hash) =
        accounts::cookie(req.headers(), accounts::SESSION_COOKIE).and_then(accounts::token_hash)
    {
        let store = app.store.clone();
        blocking(move || store.delete_session_blocking(hash)).await??;
    }
    Ok(with_cookie(
        json(StatusCode::OK, &SignedOut { signed_in: false }),
        &accounts::clear_session_cookie(),
    ))
}

pub(crate) async fn me(app: &Arc<App>, req: &Request<Incoming>) -> ApiResult {
    let store = app.store.clone();
    let headers = req.headers().clone();
    let identity =
        blocking(move || accounts::identity_from_headers_blocking(&store, &headers)).await??;
    match identity.account {
        Some(account) => Ok(json(
            StatusCode::OK,
            &Account {
                id: account.id,
                username: account.name,
            },
        )),
        None => Err(ApiError::NotSignedIn),
    }
}
