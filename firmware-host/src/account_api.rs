//! The account endpoints (A1, A2): register, sign in, sign out, who am I.
//!
//! Sign-in and registration attempts go through [`crate::throttle`] before any password is
//! hashed; a successful sign-in or registration also sets the device cookie
//! ([`accounts::DEVICE_COOKIE`]) that exempts that browser from its username's lock-out.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use hyper::body::Incoming;
use hyper::header::{HeaderValue, SET_COOKIE};
use hyper::{Request, Response, StatusCode};
use protocol::http::{
    Account, ChangePassword, Credentials, DeleteAccount, ResetPassword, SignedOut,
};
use protocol::records::UserId;
use protocol::rules;

use crate::accounts;
use crate::api_error::{ApiError, Body, json};
use crate::app::App;
use crate::handler::{ApiResult, blocking, read_json};
use crate::store::{RegisterError, ResetGuess};
use crate::throttle::{Admission, ThrottleKey};

fn with_cookie(mut response: Response<Body>, cookie: &str) -> Response<Body> {
    match HeaderValue::from_str(cookie) {
        Ok(value) => {
            response.headers_mut().append(SET_COOKIE, value);
        }
        Err(e) => tracing::error!(error = %e, "a cookie is not a valid header"),
    }
    response
}

/// Admits an attempt against `keys`, or the refusal the client gets.
fn admit<'a>(
    app: &'a App,
    keys: &[ThrottleKey],
    peer: SocketAddr,
) -> Result<Admission<'a>, ApiError> {
    app.throttle.admit(keys, Instant::now()).map_err(|refused| {
        let retry_after_s = refused.retry_after.as_secs().max(1);
        // The key is named by its kind only: a username is not written to the log (11.8).
        let by = match refused.key {
            ThrottleKey::Address(_) => "address",
            ThrottleKey::Username(_) => "username",
            ThrottleKey::Device(_) => "device",
            ThrottleKey::Registration(_) => "registrations",
        };
        tracing::debug!(%peer, by, retry_after_s, "attempt refused by the throttle");
        match refused.key {
            ThrottleKey::Registration(_) => ApiError::TooManyRegistrations { retry_after_s },
            _ => ApiError::TooManyAttempts { retry_after_s },
        }
    })
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
    let creds: Credentials = read_json(req, app.config.handshake_timeout).await?;
    // Cheap to answer and reveals nothing: not counted.
    rules::check_username(&creds.username)?;
    rules::check_password(&creds.password)?;
    // Registrations first, so a burst of them is told exactly why it is refused.
    let registration = admit(app, &[ThrottleKey::Registration(peer.ip())], peer)?;
    let attempt = admit(app, &[ThrottleKey::Address(peer.ip())], peer)?;
    // A taken name is a failed attempt (it probes which names exist) but no registration.
    let name_taken = |registration: Admission<'_>| {
        registration.release();
        ApiError::UsernameTaken
    };
    // Refuse a taken name before paying for a hash; the store checks again atomically.
    let store = app.store.clone();
    let name = creds.username.clone();
    if blocking(move || store.user_by_name_blocking(&name))
        .await??
        .is_some()
    {
        return Err(name_taken(registration));
    }
    let password = creds.password;
    let hash = with_hash_permit(app, move || accounts::hash_password_blocking(&password))
        .await?
        .map_err(|e| ApiError::internal("hashing a password", e))?;
    let (token, token_hash) = accounts::new_session_token();
    let store = app.store.clone();
    let name = creds.username.clone();
    let now = crate::clock::now_ms();
    let expires = now + lifetime_ms();
    let phc = hash.clone();
    let id = match store.register(&name, &phc, token_hash, now, expires).await {
        Ok(id) => id,
        Err(RegisterError::NameTaken) => return Err(name_taken(registration)),
        Err(RegisterError::Store(e)) => {
            registration.release();
            attempt.release();
            return Err(e.into());
        }
    };
    attempt.release();
    drop(registration);
    tracing::info!(%peer, user = id, username = creds.username, "registered");
    let response = with_cookie(
        json(
            StatusCode::CREATED,
            &Account {
                id,
                username: creds.username,
            },
        ),
        &accounts::session_cookie(&token),
    );
    Ok(with_cookie(
        response,
        &accounts::device_cookie(&accounts::new_device_token(&hash, id)),
    ))
}

pub(crate) async fn login(app: &Arc<App>, peer: SocketAddr, req: Request<Incoming>) -> ApiResult {
    let device = accounts::cookie(req.headers(), accounts::DEVICE_COOKIE).map(str::to_owned);
    let creds: Credentials = read_json(req, app.config.handshake_timeout).await?;
    let name_hash = accounts::username_hash(&creds.username);
    let store = app.store.clone();
    let name = creds.username.clone();
    let user = blocking(move || store.user_by_name_blocking(&name)).await??;
    let (user, phc) = match user {
        Some((id, record)) => (Some((id, record.name)), Some(record.password_hash)),
        None => (None, None),
    };
    // OWASP device cookie: a browser this account signed in from before is exempt from the
    // username's lock-out (which strangers can trigger) and counted by its own token instead.
    let trusted_device = match (&device, &user, &phc) {
        (Some(token), Some((id, _)), Some(phc)) if accounts::device_trusted(token, phc, *id) => {
            accounts::device_nonce(token)
        }
        _ => None,
    };
    let name_key = ThrottleKey::Username(creds.username.to_lowercase());
    let second_key = match trusted_device {
        Some(nonce) => ThrottleKey::Device(nonce.to_owned()),
        None => name_key.clone(),
    };
    let attempt = admit(app, &[ThrottleKey::Address(peer.ip()), second_key], peer)?;
    let password = creds.password;
    // Overlong passwords cannot match (A1) and would only cost hashing time.
    let plausible = rules::check_password(&password).is_ok();
    let stored = phc.clone();
    let matches = plausible
        && with_hash_permit(app, move || {
            // An unknown name is checked against a dummy hash (computed here, off the async
            // threads, the first time) so it costs as long as a wrong password.
            match &stored {
                Some(stored) => accounts::verify_password_blocking(&password, stored),
                None => accounts::verify_password_blocking(&password, accounts::dummy_hash()),
            }
        })
        .await?;
    let (Some((id, username)), Some(phc)) = (user.filter(|_| matches), phc) else {
        // The attempt stays counted. The typed name is not logged: it is sometimes a password
        // typed into the wrong field (11.8).
        drop(attempt);
        tracing::info!(%peer, username_hash = name_hash, trusted_device = trusted_device.is_some(), "sign-in failed");
        return Err(ApiError::BadCredentials);
    };
    attempt.release();
    app.throttle.clear(&name_key);
    let (token, token_hash) = accounts::new_session_token();
    let store = app.store.clone();
    let now = crate::clock::now_ms();
    let expires = now + lifetime_ms();
    store.create_session(token_hash, id, now, expires).await?;
    tracing::info!(%peer, user = id, username, "signed in");
    let response = with_cookie(
        json(StatusCode::OK, &Account { id, username }),
        &accounts::session_cookie(&token),
    );
    Ok(with_cookie(
        response,
        &accounts::device_cookie(&accounts::new_device_token(&phc, id)),
    ))
}

pub(crate) async fn logout(app: &Arc<App>, req: &Request<Incoming>) -> ApiResult {
    if let Some(hash) =
        accounts::cookie(req.headers(), accounts::SESSION_COOKIE).and_then(accounts::token_hash)
    {
        let store = app.store.clone();
        store.delete_session(hash).await?;
        // The session's WebSockets stop acting as the player; they reconnect as guests.
        app.hub.end_session(&accounts::session_id(&hash));
    }
    Ok(with_cookie(
        json(StatusCode::OK, &SignedOut { signed_in: false }),
        &accounts::clear_session_cookie(),
    ))
}

pub(crate) async fn me(app: &Arc<App>, req: &Request<Incoming>) -> ApiResult {
    match signed_in(app, req).await? {
        Some(account) => Ok(json(StatusCode::OK, &account)),
        None => Err(ApiError::NotSignedIn),
    }
}

/// `GET /api/session`: [`me`] without the 401: `{"account": null}` when signed out.
pub(crate) async fn session(app: &Arc<App>, req: &Request<Incoming>) -> ApiResult {
    let account = signed_in(app, req).await?;
    Ok(json(StatusCode::OK, &protocol::http::Session { account }))
}

/// The account of `req`'s session cookie, if it names a live session.
async fn signed_in(app: &Arc<App>, req: &Request<Incoming>) -> Result<Option<Account>, ApiError> {
    let store = app.store.clone();
    let headers = req.headers().clone();
    let identity =
        blocking(move || accounts::identity_from_headers_blocking(&store, &headers)).await??;
    Ok(identity.account.map(|account| Account {
        id: account.id,
        username: account.name,
    }))
}

/// The signed-in account of `req`'s session cookie, its session's token hash and its
/// password hash; `not_signed_in` without a live session.
async fn current_account(
    app: &Arc<App>,
    req: &Request<Incoming>,
) -> Result<([u8; 32], rooms::Account, String), ApiError> {
    let Some(token_hash) =
        accounts::cookie(req.headers(), accounts::SESSION_COOKIE).and_then(accounts::token_hash)
    else {
        return Err(ApiError::NotSignedIn);
    };
    let store = app.store.clone();
    let found = blocking(move || -> Result<_, rooms::StoreError> {
        let Some(account) = store.session_account_blocking(&token_hash, crate::clock::now_ms())?
        else {
            return Ok(None);
        };
        Ok(store
            .user_blocking(account.id)?
            .map(|record| (account, record.password_hash)))
    })
    .await??;
    let (account, phc) = found.ok_or(ApiError::NotSignedIn)?;
    Ok((token_hash, account, phc))
}

/// Checks the account's current password, counted as a sign-in attempt (a wrong one is a
/// failed attempt for the address and the username): `wrong_password` when it does not match.
async fn check_current_password(
    app: &Arc<App>,
    peer: SocketAddr,
    account: &rooms::Account,
    phc: String,
    password: String,
    what: &'static str,
) -> Result<(), ApiError> {
    let attempt = admit(
        app,
        &[
            ThrottleKey::Address(peer.ip()),
            ThrottleKey::Username(account.name.to_lowercase()),
        ],
        peer,
    )?;
    let matches = rules::check_password(&password).is_ok()
        && with_hash_permit(app, move || {
            accounts::verify_password_blocking(&password, &phc)
        })
        .await?;
    if !matches {
        drop(attempt);
        tracing::info!(%peer, user = account.id, "{what} refused: wrong current password");
        return Err(ApiError::WrongPassword);
    }
    attempt.release();
    Ok(())
}

/// `POST /api/me/password`: the current password is required (a wrong one counts as a failed
/// sign-in attempt); the new one follows A1. Every other session of the account ends, its
/// WebSockets included; this browser stays signed in and gets a new device cookie (the old
/// ones were bound to the old password).
pub(crate) async fn change_password(
    app: &Arc<App>,
    peer: SocketAddr,
    req: Request<Incoming>,
) -> ApiResult {
    let (token_hash, account, phc) = current_account(app, &req).await?;
    let body: ChangePassword = read_json(req, app.config.handshake_timeout).await?;
    rules::check_password(&body.new_password)?;
    check_current_password(
        app,
        peer,
        &account,
        phc,
        body.old_password,
        "password change",
    )
    .await?;
    let new = body.new_password;
    let hash = with_hash_permit(app, move || accounts::hash_password_blocking(&new))
        .await?
        .map_err(|e| ApiError::internal("hashing a password", e))?;
    let store = app.store.clone();
    let (id, new_hash) = (account.id, hash.clone());
    store.change_password(id, new_hash, token_hash).await?;
    app.hub
        .end_user_sessions(account.id, Some(&accounts::session_id(&token_hash)));
    tracing::info!(%peer, user = account.id, "password changed; other sessions ended");
    Ok(with_cookie(
        json(
            StatusCode::OK,
            &Account {
                id: account.id,
                username: account.name,
            },
        ),
        &accounts::device_cookie(&accounts::new_device_token(&hash, account.id)),
    ))
}

/// Deletes `user`'s account with [`crate::store::Store::delete_account`] (the one function
/// the player's own deletion and an owner's removal share) and ends every session of it, its
/// WebSockets included. Returns the name it had.
pub(crate) async fn delete_account(app: &Arc<App>, user: UserId) -> Result<String, ApiError> {
    let name = app.store.delete_account(user).await.map_err(|e| match e {
        crate::store::OwnerError::UnknownUser => ApiError::UnknownAccount(user),
        e => e.into(),
    })?;
    app.hub.end_user_sessions(user, None);
    Ok(name)
}

/// `DELETE /api/me`: the password is required, as for a password change. The
/// account's record, name, sessions and owner entry are removed; games with another
/// registered player stay, the seat named [`crate::store::DELETED_NAME`].
pub(crate) async fn delete_me(
    app: &Arc<App>,
    peer: SocketAddr,
    req: Request<Incoming>,
) -> ApiResult {
    let (_, account, phc) = current_account(app, &req).await?;
    let body: DeleteAccount = read_json(req, app.config.handshake_timeout).await?;
    check_current_password(app, peer, &account, phc, body.password, "account deletion").await?;
    delete_account(app, account.id).await?;
    tracing::info!(%peer, user = account.id, "account deleted by its player");
    Ok(with_cookie(
        json(StatusCode::OK, &SignedOut { signed_in: false }),
        &accounts::clear_session_cookie(),
    ))
}

/// `POST /api/login/reset`: sets a new password with the one-time code an owner made
/// (`POST /api/owner/users/{id}/reset-password`) and signs in. Counted as a sign-in attempt
/// (the address's and the username's limits); a wrong code is `bad_reset_code` and counts
/// against the code too. Every earlier session of the account ends.
pub(crate) async fn login_with_reset(
    app: &Arc<App>,
    peer: SocketAddr,
    req: Request<Incoming>,
) -> ApiResult {
    let body: ResetPassword = read_json(req, app.config.handshake_timeout).await?;
    rules::check_password(&body.new_password)?;
    let attempt = admit(
        app,
        &[
            ThrottleKey::Address(peer.ip()),
            ThrottleKey::Username(body.username.to_lowercase()),
        ],
        peer,
    )?;
    let store = app.store.clone();
    let name = body.username.clone();
    let Some((id, record)) = blocking(move || store.user_by_name_blocking(&name)).await?? else {
        drop(attempt);
        return Err(ApiError::BadResetCode);
    };
    let guess = match crate::owner::typed_reset_code(&body.code) {
        // Not eight digits: no code can match, and nothing is counted against the code.
        None => ResetGuess::Wrong { spent: false },
        Some(hash) => {
            app.store
                .guess_reset_code(id, hash, crate::clock::now_ms())
                .await?
        }
    };
    if guess == (ResetGuess::Wrong { spent: true }) {
        tracing::warn!(
            user = id,
            "a password reset code was spent by {} wrong guesses",
            crate::owner::WRONG_GUESSES
        );
    }
    let ResetGuess::Redeemed(redeemed) = guess else {
        drop(attempt);
        tracing::info!(%peer, user = id, "password reset refused: wrong code");
        return Err(ApiError::BadResetCode);
    };
    attempt.release();
    let new = body.new_password;
    let hash = with_hash_permit(app, move || accounts::hash_password_blocking(&new))
        .await?
        .map_err(|e| ApiError::internal("hashing a password", e))?;
    let (token, token_hash) = accounts::new_session_token();
    let now = crate::clock::now_ms();
    let stored = async {
        // The new session does not exist yet: every earlier one is forgotten.
        app.store
            .change_password(id, hash.clone(), token_hash)
            .await?;
        app.store
            .create_session(token_hash, id, now, now + lifetime_ms())
            .await
    };
    if let Err(e) = stored.await {
        if let Err(again) = app.store.give_back_reset_code(id, redeemed).await {
            tracing::warn!(user = id, error = %again, "a reset code could not be given back after a failed reset");
        }
        return Err(e.into());
    }
    app.hub.end_user_sessions(id, None);
    tracing::info!(%peer, user = id, "password reset with an owner's code; signed in");
    let response = with_cookie(
        json(
            StatusCode::OK,
            &Account {
                id,
                username: record.name,
            },
        ),
        &accounts::session_cookie(&token),
    );
    Ok(with_cookie(
        response,
        &accounts::device_cookie(&accounts::new_device_token(&hash, id)),
    ))
}
