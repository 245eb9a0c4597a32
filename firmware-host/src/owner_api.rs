//! Owner mode's HTTP endpoints (SPEC O1, O2). Every endpoint under `/api/owner/` but the
//! claim checks on the server that the signed-in account is an owner ([`require_owner`]):
//! `401 not_signed_in` for a guest, `403 not_owner` for anyone else. Every owner action is
//! logged (target `owner`) with who did it and what.
//!
//! | route | request | success |
//! | --- | --- | --- |
//! | `POST /api/kiosk/owner-code` (the kiosk's own screen) | `{}` | 200 `OwnerCode` |
//! | `POST /api/owner/claim` (any signed-in account) | `ClaimOwner` | 200 `Owners` |
//! | `GET /api/owner` | | 200 `Owners` |
//! | `DELETE /api/owner/owners/{id}` | `{}` | 200 `Owners` |
//! | `DELETE /api/owner/users/{id}` | `{}` | 200 `AccountRemoved` |

use std::net::SocketAddr;
use std::sync::Arc;

use hyper::body::Incoming;
use hyper::{Method, Request, StatusCode};
use protocol::http::{Account, AccountRemoved, ClaimOwner, OwnerCode, OwnerView, Owners};
use protocol::records::UserId;

use crate::account_api;
use crate::accounts;
use crate::api_error::{ApiError, json};
use crate::app::App;
use crate::handler::{ApiResult, blocking, read_json};
use crate::owner::{self, CodeRefused};

/// The signed-in account of `req`, and whether it is an owner.
async fn signed_in(
    app: &Arc<App>,
    req: &Request<Incoming>,
) -> Result<(rooms::Account, bool), ApiError> {
    let store = app.store.clone();
    let headers = req.headers().clone();
    blocking(move || -> Result<_, ApiError> {
        let identity = accounts::identity_from_headers_blocking(&store, &headers)?;
        let account = identity.account.ok_or(ApiError::NotSignedIn)?;
        let owner = store.is_owner_blocking(account.id)?;
        Ok((account, owner))
    })
    .await?
}

/// The owner check every owner endpoint makes before anything else.
pub(crate) async fn require_owner(
    app: &Arc<App>,
    peer: SocketAddr,
    req: &Request<Incoming>,
) -> Result<rooms::Account, ApiError> {
    let (account, owner) = signed_in(app, req).await?;
    if !owner {
        tracing::warn!(target: "owner", %peer, user = account.id, path = req.uri().path(), "owner endpoint refused: not an owner");
        return Err(ApiError::NotOwner);
    }
    Ok(account)
}

async fn owners(app: &Arc<App>, you: rooms::Account) -> ApiResult {
    let store = app.store.clone();
    let list = blocking(move || store.owners_blocking()).await??;
    Ok(json(
        StatusCode::OK,
        &Owners {
            you: Account {
                id: you.id,
                username: you.name,
            },
            owners: list
                .into_iter()
                .map(|(id, username, record)| OwnerView {
                    id,
                    username,
                    added_ms: record.added_ms,
                })
                .collect(),
        },
    ))
}

fn parse_id(segment: &str) -> Result<UserId, ApiError> {
    segment
        .parse()
        .map_err(|_| ApiError::NotFound(format!("{segment:?} is not an account id")))
}

/// `POST /api/kiosk/owner-code`: a new code for the kiosk's screen, from the kiosk only.
pub(crate) fn kiosk_code(app: &Arc<App>, peer: SocketAddr) -> ApiResult {
    if !owner::is_kiosk(peer.ip()) {
        return Err(ApiError::NotKiosk);
    }
    let code = app.owner_codes.kiosk_code(crate::clock::now_ms());
    tracing::info!(target: "owner", %peer, "owner code shown on the kiosk");
    Ok(json(
        StatusCode::OK,
        &OwnerCode {
            code,
            expires_s: owner::CODE_LIFE.as_secs(),
        },
    ))
}

/// `POST /api/owner/claim`: a signed-in account with a live code becomes an owner.
async fn claim(app: &Arc<App>, peer: SocketAddr, req: Request<Incoming>) -> ApiResult {
    let (account, owner) = signed_in(app, &req).await?;
    let body: ClaimOwner = read_json(req, app.config.handshake_timeout).await?;
    if owner {
        // Already one: the code is left for someone else.
        return owners(app, account).await;
    }
    let redeemed = match app.owner_codes.redeem(&body.code, crate::clock::now_ms()) {
        Ok(redeemed) => redeemed,
        Err(refused) => {
            tracing::warn!(target: "owner", %peer, user = account.id, counted = refused == CodeRefused::Wrong, "owner code refused");
            return Err(ApiError::BadOwnerCode);
        }
    };
    if let Err(e) = app
        .store
        .add_owner(account.id, crate::clock::now_ms())
        .await
    {
        app.owner_codes.give_back(redeemed);
        return Err(e.into());
    }
    tracing::info!(target: "owner", %peer, user = account.id, username = account.name, action = "became an owner", "owner action");
    owners(app, account).await
}

/// Routes `/api/owner/…` (`rest` is the path after `/api/owner`).
pub(crate) async fn route(
    app: &Arc<App>,
    peer: SocketAddr,
    req: Request<Incoming>,
    rest: &[&str],
) -> ApiResult {
    let method = req.method().clone();
    if rest == ["claim"] {
        if method != Method::POST {
            return Err(ApiError::MethodNotAllowed("POST"));
        }
        return claim(app, peer, req).await;
    }
    // The owner check comes before anything else, so a non-owner learns nothing more.
    let you = require_owner(app, peer, &req).await?;
    let is_get = method == Method::GET || method == Method::HEAD;
    match rest {
        [] => {
            if !is_get {
                return Err(ApiError::MethodNotAllowed("GET, HEAD"));
            }
            owners(app, you).await
        }
        ["owners", id] => {
            if method != Method::DELETE {
                return Err(ApiError::MethodNotAllowed("DELETE"));
            }
            let id = parse_id(id)?;
            let removed = app.store.remove_owner(id).await?;
            if !removed {
                return Err(ApiError::NotFound(format!("account {id} is not an owner")));
            }
            tracing::info!(target: "owner", %peer, owner = you.id, owner_name = you.name, action = "removed an owner", user = id, "owner action");
            owners(app, you).await
        }
        ["users", id] => {
            if method != Method::DELETE {
                return Err(ApiError::MethodNotAllowed("DELETE"));
            }
            let id = parse_id(id)?;
            let username = account_api::delete_account(app, id).await?;
            tracing::info!(target: "owner", %peer, owner = you.id, owner_name = you.name, action = "removed an account", user = id, username, "owner action");
            Ok(json(StatusCode::OK, &AccountRemoved { id, username }))
        }
        _ => Err(ApiError::NotFound(format!(
            "no owner endpoint {}",
            req.uri().path()
        ))),
    }
}
