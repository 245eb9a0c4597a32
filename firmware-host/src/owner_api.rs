//! Owner mode's HTTP endpoints (SPEC O1, O2), one handler each. Their methods, paths and
//! types are rows of [`protocol::api::Endpoint`] (the paths under `/api/owner`, and the
//! kiosk's own `/api/kiosk/…`); [`serve`] maps each owner row to its handler. Every endpoint
//! under `/api/owner/` but the claim checks on the server that the signed-in account is an
//! owner ([`require_owner`], called by the router before it looks at the path):
//! `401 not_signed_in` for a guest, `403 not_owner` for anyone else. Every owner action is
//! logged (target `owner`) with who did it and what.

use std::net::SocketAddr;
use std::sync::Arc;

use hyper::body::Incoming;
use hyper::header::{CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_TYPE, HeaderValue};
use hyper::{Request, StatusCode};
use protocol::api::Endpoint;
use protocol::http::{
    Account, AccountList, AccountRemoved, AccountRow, BackupPreview, CLOSE_REASON_MAX, ClaimOwner,
    CloseRoom, ClosedRoom, KeptBackup, KeptBackups, KioskScreen, OwnerCode, OwnerView, Owners,
    PasswordReset, Rename, Restarting, Restored, SeasonStarted, UpdateInstalled,
};
use protocol::records::UserId;

use crate::account_api;
use crate::accounts;
use crate::api_error::{ApiError, json};
use crate::app::App;
use crate::handler::{ApiResult, blocking, read_bytes, read_json};
use crate::owner::{self, CodeRefused};
use crate::store::{BackupContents, BackupError, MAX_BACKUP_BYTES, remove_scratch};

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
        tracing::info!(target: "owner", %peer, user = account.id, path = req.uri().path(), "owner endpoint refused: not an owner");
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

fn unknown_as(e: crate::store::OwnerError, id: UserId) -> ApiError {
    match e {
        crate::store::OwnerError::UnknownUser => ApiError::UnknownAccount(id),
        e => e.into(),
    }
}

/// Every account (`online`: only those connected now), by name.
async fn accounts_list(app: &Arc<App>, online: bool) -> ApiResult {
    let store = app.store.clone();
    let (accounts, owners) = blocking(move || -> Result<_, rooms::StoreError> {
        Ok((store.accounts_blocking()?, store.owners_blocking()?))
    })
    .await??;
    let connected = app.hub.users_online();
    let mut users: Vec<AccountRow> = accounts
        .into_iter()
        .map(|(id, username, created_ms)| AccountRow {
            id,
            username,
            created_ms,
            owner: owners.iter().any(|(o, ..)| *o == id),
            connections: connected.get(&id).copied().unwrap_or(0),
        })
        .filter(|row| !online || row.connections > 0)
        .collect();
    users.sort_by_key(|row| row.username.to_lowercase());
    Ok(json(
        StatusCode::OK,
        &AccountList {
            users,
            connections: app.hub.stats().connections,
        },
    ))
}

/// The update status, with what starts this server again.
async fn update_status(app: &Arc<App>) -> Result<crate::update::UpdateStatus, ApiError> {
    let dir = app.config.data_dir.clone();
    let mut status = blocking(move || crate::update::status(&dir)).await?;
    status.supervisor = app.config.supervisor;
    Ok(status)
}

/// Largest `firmware-host` binary accepted as an update.
const MAX_UPDATE_BYTES: usize = 128 * 1024 * 1024;

/// `POST /api/owner/update`: the body is written to `DATA_DIR/updates/upload.tmp`, then
/// [`crate::update::install`] checks it (architecture, newer, starts and is healthy on a spare
/// port against a copy of the data) and keeps it.
async fn update(
    app: &Arc<App>,
    peer: SocketAddr,
    you: &rooms::Account,
    req: Request<Incoming>,
) -> ApiResult {
    let file = read_bytes(req, MAX_UPDATE_BYTES, UPLOAD_TIME).await?;
    let refused = |e: crate::update::UpdateError| ApiError::UpdateRefused {
        code: e.code(),
        why: e.to_string(),
    };
    // Before the upload is written: it is on the card once, and the check copies it again.
    let data_dir = app.config.data_dir.clone();
    let bytes = file.len() as u64;
    blocking(move || crate::update::check_room(&data_dir, bytes, 2))
        .await?
        .map_err(refused)?;
    let dir = app.config.data_dir.join(crate::update::UPDATES_DIR);
    let upload = dir.join("upload.tmp");
    let target = upload.clone();
    blocking(move || -> std::io::Result<()> {
        std::fs::create_dir_all(&dir)?;
        std::fs::write(&target, &file)
    })
    .await?
    .map_err(|e| ApiError::internal("writing an uploaded update", e))?;
    let installed =
        crate::update::install(&upload, &app.config.data_dir, Some(app.store.clone())).await;
    remove_scratch(&upload);
    let installed = installed.map_err(refused)?;
    tracing::info!(target: "owner", %peer, owner = you.id, owner_name = you.name, action = "installed an update", version = installed.version, "owner action");
    Ok(json(
        StatusCode::OK,
        &UpdateInstalled {
            version: installed.version,
        },
    ))
}

/// How long an upload (a backup to restore) may take to arrive.
const UPLOAD_TIME: std::time::Duration = std::time::Duration::from_secs(300);

fn preview(contents: &BackupContents) -> BackupPreview {
    BackupPreview {
        format_version: contents.header.format_version,
        schema_version: contents.header.schema_version,
        app_version: contents.header.app_version.clone(),
        created_ms: contents.header.created_ms,
        users: contents.users,
        games: contents.games,
        owners: contents.owners,
        settings: contents.settings,
    }
}

fn backup_error(e: BackupError) -> ApiError {
    match e {
        BackupError::Invalid(why) => ApiError::BadBackup(why),
        BackupError::TooNew { found, supported } => ApiError::BackupTooNew { found, supported },
        BackupError::Store(e) => ApiError::Store(e),
    }
}

async fn verify(
    app: &Arc<App>,
    file: bytes::Bytes,
) -> Result<(BackupContents, std::path::PathBuf), ApiError> {
    let store = app.store.clone();
    blocking(move || store.verify_backup_blocking(&file))
        .await?
        .map_err(backup_error)
}

/// `GET /api/owner/backup`: a backup file of all data now.
async fn backup(app: &Arc<App>, peer: SocketAddr, you: &rooms::Account) -> ApiResult {
    let store = app.store.clone();
    let now = crate::clock::now_ms();
    let file = blocking(move || store.backup_blocking(now)).await??;
    tracing::info!(target: "owner", %peer, owner = you.id, owner_name = you.name, action = "downloaded a backup", bytes = file.len(), "owner action");
    Ok(download(
        bytes::Bytes::from(file),
        &format!("xo-kiosk-backup-{now}.xokb"),
    ))
}

/// A backup file as a download named `name`.
fn download(file: bytes::Bytes, name: &str) -> hyper::Response<crate::api_error::Body> {
    let mut response = hyper::Response::new(http_body_util::Full::new(file));
    let headers = response.headers_mut();
    headers.insert(
        CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Ok(value) = HeaderValue::from_str(&format!("attachment; filename=\"{name}\"")) {
        headers.insert(CONTENT_DISPOSITION, value);
    }
    response
}

/// `GET /api/owner/backups`: the backups kept on the kiosk, newest first.
async fn kept_list(app: &Arc<App>) -> ApiResult {
    let store = app.store.clone();
    let kept = blocking(move || crate::store::kept_backups(&store.replaced_dir())).await?;
    Ok(json(
        StatusCode::OK,
        &KeptBackups {
            keep: u32::try_from(crate::store::BACKUPS_KEPT).unwrap_or(u32::MAX),
            backups: kept
                .into_iter()
                .map(|k| KeptBackup {
                    name: k.name,
                    created_ms: k.header.created_ms,
                    bytes: k.bytes,
                    app_version: k.header.app_version,
                })
                .collect(),
        },
    ))
}

/// The bytes of the kept backup `name`, or `not_found` when no kept backup has that name (a
/// name with a path in it never has).
async fn kept_file(app: &Arc<App>, name: &str) -> Result<bytes::Bytes, ApiError> {
    let missing = || ApiError::NotFound(format!("no kept backup {name:?}"));
    if !crate::store::is_backup_name(name) {
        return Err(missing());
    }
    let path = app.store.replaced_dir().join(name);
    match blocking(move || std::fs::read(path)).await? {
        Ok(file) => Ok(bytes::Bytes::from(file)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(missing()),
        Err(e) => Err(ApiError::internal("reading a kept backup", e)),
    }
}

/// Keeps a backup of the data now in the data directory's `backups/`, then replaces the data
/// with the verified backup at `scratch`; every room closes and everyone is signed out first.
async fn restore(
    app: &Arc<App>,
    peer: SocketAddr,
    you: &rooms::Account,
    contents: &BackupContents,
    scratch: &std::path::Path,
) -> ApiResult {
    let store = app.store.clone();
    let now = crate::clock::now_ms();
    let name = format!("before-restore-{now}.xokb");
    let kept = name.clone();
    blocking(move || -> Result<(), ApiError> {
        let current = store.backup_blocking(now)?;
        let pruned = crate::store::keep_backup(&store.replaced_dir(), &kept, &current)
            .map_err(|e| ApiError::internal("keeping the replaced data as a backup", e))?;
        if !pruned.is_empty() {
            tracing::info!(target: "owner", ?pruned, kept = crate::store::BACKUPS_KEPT, "older backups removed");
        }
        Ok(())
    })
    .await??;
    let closed = app
        .hub
        .close_all_rooms("The kiosk's data is being restored from a backup")
        .await;
    {
        // Held from the write until the restored settings are in force (as a save does).
        let _saving = app.settings.saving.lock().await;
        app.store
            .restore(scratch.to_owned(), contents.settings)
            .await?;
        let store = app.store.clone();
        let saved = blocking(move || store.settings_blocking()).await??;
        app.settings.apply(saved.as_ref(), &app.public_url);
    }
    // The events are the backup's now: their tasks too.
    {
        let app = Arc::clone(app);
        let limits = crate::events_api::limits(&app);
        blocking(move || app.events.replace_all_blocking(limits)).await?;
    }
    // Sessions are gone from the store; their WebSockets follow.
    for user in app.hub.users_online().into_keys() {
        app.hub.end_user_sessions(user, None);
    }
    tracing::info!(target: "owner", %peer, owner = you.id, owner_name = you.name, action = "restored a backup", users = contents.users, games = contents.games, schema = contents.header.schema_version, rooms_closed = closed, replaced_kept_as = name, "owner action");
    let response = json(
        StatusCode::OK,
        &Restored {
            restored: preview(contents),
            replaced_kept_as: format!("{}/{name}", crate::store::REPLACED_DIR),
        },
    );
    Ok(response)
}

/// `PUT /api/owner/settings`: checks every field, stores the record in one durable write and
/// puts it in force.
async fn put_settings(
    app: &Arc<App>,
    peer: SocketAddr,
    you: &rooms::Account,
    req: Request<Incoming>,
) -> ApiResult {
    let body: serde_json::Value = read_json(req, app.config.handshake_timeout).await?;
    if !body.is_object() {
        return Err(ApiError::BadJson(
            "the settings are a JSON object (GET /api/owner/settings shows one)".into(),
        ));
    }
    let record = crate::settings::parse(&body).map_err(ApiError::InvalidSetting)?;
    let in_force = {
        let _saving = app.settings.saving.lock().await;
        if let Err(e) = app.store.set_settings(Some(record.clone())).await {
            resync_when_healed(app, &e);
            return Err(e.into());
        }
        app.settings.apply(Some(&record), &app.public_url)
    };
    tracing::info!(
        target: "owner", %peer, owner = you.id, owner_name = you.name,
        action = "saved the settings",
        kiosk_idle_s = in_force.kiosk_idle_s,
        public_url = in_force.public_url.as_deref().unwrap_or("automatic"),
        default_language = in_force.default_language.as_str(),
        wifi = in_force.wifi.as_ref().map_or("none", |w| w.ssid.as_str()),
        "owner action"
    );
    Ok(json(StatusCode::OK, &in_force))
}

/// How long, at most, a failed save waits for the card to heal before what is in force is
/// read again from the store ([`resync_when_healed`]).
const RESYNC_FOR: std::time::Duration = std::time::Duration::from_secs(30 * 60);

/// After a save failed on a failing card: the commit may still have reached the card (a sync
/// that failed after the write), so once the card works again the settings in force are read
/// again from the store, and what is served is what is stored.
fn resync_when_healed(app: &Arc<App>, e: &rooms::StoreError) {
    if !e.is_unavailable() {
        return;
    }
    let app = Arc::clone(app);
    tokio::spawn(async move {
        let until = tokio::time::Instant::now() + RESYNC_FOR;
        while tokio::time::Instant::now() < until {
            tokio::time::sleep(crate::store::HEAL_EVERY).await;
            if app.store.health().state == crate::store::StorageState::Failing {
                continue;
            }
            let _saving = app.settings.saving.lock().await;
            let store = app.store.clone();
            if let Ok(Ok(saved)) = blocking(move || store.settings_blocking()).await {
                let now = app.settings.apply(saved.as_ref(), &app.public_url);
                tracing::info!(
                    stored = now.stored,
                    "settings read again after the card healed"
                );
                return;
            }
        }
        tracing::warn!("the settings could not be read again after a failed save");
    });
}

/// `DELETE /api/owner/settings`: forgets the saved settings; the flags' are in force again.
async fn reset_settings(app: &Arc<App>, peer: SocketAddr, you: &rooms::Account) -> ApiResult {
    let in_force = {
        let _saving = app.settings.saving.lock().await;
        if let Err(e) = app.store.set_settings(None).await {
            resync_when_healed(app, &e);
            return Err(e.into());
        }
        app.settings.apply(None, &app.public_url)
    };
    tracing::info!(target: "owner", %peer, owner = you.id, owner_name = you.name, action = "reset the settings to the flags'", "owner action");
    Ok(json(StatusCode::OK, &in_force))
}

fn parse_id(segment: &str) -> Result<UserId, ApiError> {
    segment
        .parse()
        .map_err(|_| ApiError::NotFound(format!("{segment:?} is not an account id")))
}

/// `GET /api/kiosk/screen`: whether the kiosk's screen sleeps, for the compositor's hook that
/// turns the display's power off and on; from the kiosk's own machine only.
pub(crate) fn kiosk_screen(app: &Arc<App>, peer: SocketAddr) -> ApiResult {
    if !owner::is_kiosk(peer.ip()) {
        return Err(ApiError::NotKiosk);
    }
    Ok(json(StatusCode::OK, &app.screen.get()))
}

/// `POST /api/kiosk/screen`: the kiosk's page reports that its screen sleeps or woke; from the
/// kiosk's own machine only.
pub(crate) async fn report_screen(
    app: &Arc<App>,
    peer: SocketAddr,
    req: Request<Incoming>,
) -> ApiResult {
    if !owner::is_kiosk(peer.ip()) {
        return Err(ApiError::NotKiosk);
    }
    let body: KioskScreen = read_json(req, app.config.handshake_timeout).await?;
    let (now, changed) = app.screen.set(body.asleep, crate::clock::now_ms());
    if changed {
        tracing::info!(
            "the kiosk's screen {}",
            if now.asleep { "sleeps" } else { "woke" }
        );
    }
    Ok(json(StatusCode::OK, &now))
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
pub(crate) async fn claim(app: &Arc<App>, peer: SocketAddr, req: Request<Incoming>) -> ApiResult {
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
    app.owner_codes.forget_boot_code();
    if let Some(path) = &app.config.owner_code_out {
        if let Err(e) = owner::remove_boot_code_file(path) {
            tracing::error!(error = %e, path = %path.display(), "cannot remove the owner code file");
        }
    }
    owners(app, account).await
}

/// Serves owner endpoint `endpoint` to owner `you` (checked by the router before anything
/// else); `params` are the path's `{…}` segments. One handler each.
pub(crate) async fn serve(
    app: &Arc<App>,
    peer: SocketAddr,
    you: rooms::Account,
    req: Request<Incoming>,
    endpoint: Endpoint,
    params: &[&str],
) -> ApiResult {
    let param = || params.first().copied().unwrap_or_default();
    match endpoint {
        Endpoint::Owners => owners(app, you).await,
        Endpoint::RemoveOwner => remove_owner(app, peer, you, parse_id(param())?).await,
        Endpoint::CreateEvent => crate::events_api::create(app, peer, &you, req).await,
        Endpoint::CancelEvent => crate::events_api::cancel(app, peer, &you, param()).await,
        Endpoint::Users => accounts_list(app, false).await,
        Endpoint::Online => accounts_list(app, true).await,
        Endpoint::RenameUser => rename_user(app, peer, &you, req, parse_id(param())?).await,
        Endpoint::ResetPassword => reset_password(app, peer, &you, parse_id(param())?).await,
        Endpoint::RemoveUser => remove_user(app, peer, &you, parse_id(param())?).await,
        Endpoint::OwnerHealth => owner_health(app).await,
        Endpoint::UpdateStatus => Ok(json(StatusCode::OK, &update_status(app).await?)),
        Endpoint::Update => update(app, peer, &you, req).await,
        Endpoint::Restart => restart(app, peer, &you),
        Endpoint::NewSeason => new_season(app, peer, &you).await,
        Endpoint::Backup => backup(app, peer, &you).await,
        Endpoint::KeptBackups => kept_list(app).await,
        Endpoint::KeptBackup => kept_download(app, peer, &you, param()).await,
        Endpoint::RestoreKept => restore_kept(app, peer, &you, req, param()).await,
        Endpoint::RestorePreview => restore_preview(app, req).await,
        Endpoint::Restore => restore_upload(app, peer, &you, req).await,
        Endpoint::CloseRoom => close_room(app, peer, &you, req, param()).await,
        Endpoint::Settings => Ok(json(StatusCode::OK, &app.settings.current())),
        Endpoint::SaveSettings => put_settings(app, peer, &you, req).await,
        Endpoint::ResetSettings => reset_settings(app, peer, &you).await,
        // Not under `/api/owner`, or the claim (which needs no owner): the router serves them.
        Endpoint::Health
        | Endpoint::Config
        | Endpoint::Rooms
        | Endpoint::Profile
        | Endpoint::Seasons
        | Endpoint::Leaderboard
        | Endpoint::DailyPuzzles
        | Endpoint::PuzzleStreaks
        | Endpoint::Events
        | Endpoint::Event
        | Endpoint::Game
        | Endpoint::Register
        | Endpoint::Login
        | Endpoint::LoginReset
        | Endpoint::Logout
        | Endpoint::ChangePassword
        | Endpoint::Me
        | Endpoint::DeleteMe
        | Endpoint::Session
        | Endpoint::KioskOwnerCode
        | Endpoint::KioskScreen
        | Endpoint::ReportScreen
        | Endpoint::ClaimOwner => Err(ApiError::NotFound(format!(
            "no owner endpoint {}",
            req.uri().path()
        ))),
    }
}

/// `DELETE /api/owner/owners/{id}`.
async fn remove_owner(
    app: &Arc<App>,
    peer: SocketAddr,
    you: rooms::Account,
    id: UserId,
) -> ApiResult {
    let removed = app.store.remove_owner(id).await?;
    if !removed {
        return Err(ApiError::NotFound(format!("account {id} is not an owner")));
    }
    tracing::info!(target: "owner", %peer, owner = you.id, owner_name = you.name, action = "removed an owner", user = id, "owner action");
    owners(app, you).await
}

/// `POST /api/owner/users/{id}/rename`.
async fn rename_user(
    app: &Arc<App>,
    peer: SocketAddr,
    you: &rooms::Account,
    req: Request<Incoming>,
    id: UserId,
) -> ApiResult {
    let body: Rename = read_json(req, app.config.handshake_timeout).await?;
    protocol::rules::check_username(&body.username)?;
    let old = app
        .store
        .rename(id, &body.username)
        .await
        .map_err(|e| unknown_as(e, id))?;
    // Its connections come back with the new name (the session stays signed in).
    app.hub.end_user_sessions(id, None);
    tracing::info!(target: "owner", %peer, owner = you.id, owner_name = you.name, action = "renamed an account", user = id, old, new = body.username, "owner action");
    Ok(json(
        StatusCode::OK,
        &Account {
            id,
            username: body.username,
        },
    ))
}

/// `POST /api/owner/users/{id}/reset-password`.
async fn reset_password(
    app: &Arc<App>,
    peer: SocketAddr,
    you: &rooms::Account,
    id: UserId,
) -> ApiResult {
    let store = app.store.clone();
    let user = blocking(move || store.user_blocking(id))
        .await??
        .ok_or(ApiError::UnknownAccount(id))?;
    let (code, hash) = owner::new_reset_code();
    let now = crate::clock::now_ms();
    let life = u64::try_from(owner::RESET_LIFE.as_millis()).unwrap_or(u64::MAX);
    app.store
        .issue_reset_code(id, hash, now + life, now)
        .await
        .map_err(|e| unknown_as(e, id))?;
    tracing::info!(target: "owner", %peer, owner = you.id, owner_name = you.name, action = "made a password reset code", user = id, "owner action");
    Ok(json(
        StatusCode::OK,
        &PasswordReset {
            username: user.name,
            code,
            expires_s: owner::RESET_LIFE.as_secs(),
        },
    ))
}

/// `DELETE /api/owner/users/{id}`.
async fn remove_user(
    app: &Arc<App>,
    peer: SocketAddr,
    you: &rooms::Account,
    id: UserId,
) -> ApiResult {
    let username = account_api::delete_account(app, id).await?;
    tracing::info!(target: "owner", %peer, owner = you.id, owner_name = you.name, action = "removed an account", user = id, username, "owner action");
    Ok(json(StatusCode::OK, &AccountRemoved { id, username }))
}

/// `GET /api/owner/health`: health, recent warnings and errors, the update's state, the display.
async fn owner_health(app: &Arc<App>) -> ApiResult {
    let health = crate::health::health_view(app);
    let update = update_status(app).await?;
    Ok(json(
        StatusCode::OK,
        &crate::owner_health::OwnerHealth {
            health,
            recent_errors: crate::owner_health::recent_errors(),
            update,
            display: app.display.get(),
        },
    ))
}

/// `POST /api/owner/restart`.
fn restart(app: &Arc<App>, peer: SocketAddr, you: &rooms::Account) -> ApiResult {
    tracing::info!(target: "owner", %peer, owner = you.id, owner_name = you.name, action = "restarted the server", "owner action");
    app.restart.notify_one();
    Ok(json(StatusCode::ACCEPTED, &Restarting { restarting: true }))
}

/// `POST /api/owner/seasons`.
async fn new_season(app: &Arc<App>, peer: SocketAddr, you: &rooms::Account) -> ApiResult {
    let archived = app.store.new_season(crate::clock::now_ms()).await?;
    tracing::info!(target: "owner", %peer, owner = you.id, owner_name = you.name, action = "started a new season", archived, "owner action");
    Ok(json(
        StatusCode::OK,
        &SeasonStarted {
            archived,
            current: archived + 1,
        },
    ))
}

/// `POST /api/owner/restore/preview`.
async fn restore_preview(app: &Arc<App>, req: Request<Incoming>) -> ApiResult {
    let file = read_bytes(req, MAX_BACKUP_BYTES, UPLOAD_TIME).await?;
    let (contents, scratch) = verify(app, file).await?;
    remove_scratch(&scratch);
    Ok(json(StatusCode::OK, &preview(&contents)))
}

/// `POST /api/owner/restore`.
async fn restore_upload(
    app: &Arc<App>,
    peer: SocketAddr,
    you: &rooms::Account,
    req: Request<Incoming>,
) -> ApiResult {
    let file = read_bytes(req, MAX_BACKUP_BYTES, UPLOAD_TIME).await?;
    let (contents, scratch) = verify(app, file).await?;
    let restored = restore(app, peer, you, &contents, &scratch).await;
    remove_scratch(&scratch);
    restored
}

/// `GET /api/owner/backups/{name}`: a kept backup as it is on the card.
async fn kept_download(
    app: &Arc<App>,
    peer: SocketAddr,
    you: &rooms::Account,
    name: &str,
) -> ApiResult {
    let file = kept_file(app, name).await?;
    tracing::info!(target: "owner", %peer, owner = you.id, owner_name = you.name, action = "downloaded a kept backup", name, "owner action");
    Ok(download(file, name))
}

/// `POST /api/owner/backups/{name}/restore`: as `POST /api/owner/restore` with that file.
async fn restore_kept(
    app: &Arc<App>,
    peer: SocketAddr,
    you: &rooms::Account,
    req: Request<Incoming>,
    name: &str,
) -> ApiResult {
    // `{}`: a JSON body, as every state change (a cross-site form cannot send one).
    let _empty: serde_json::Value = read_json(req, app.config.handshake_timeout).await?;
    let file = kept_file(app, name).await?;
    let (contents, scratch) = verify(app, file).await?;
    let restored = restore(app, peer, you, &contents, &scratch).await;
    remove_scratch(&scratch);
    restored
}

/// `POST /api/owner/rooms/{id}/close`.
async fn close_room(
    app: &Arc<App>,
    peer: SocketAddr,
    you: &rooms::Account,
    req: Request<Incoming>,
    id: &str,
) -> ApiResult {
    let room = id.to_owned();
    let body: CloseRoom = read_json(req, app.config.handshake_timeout).await?;
    let reason = body.reason.trim().to_owned();
    let length = reason.chars().count();
    if length == 0 || length > CLOSE_REASON_MAX || reason.chars().any(char::is_control) {
        return Err(ApiError::BadJson(format!(
            "`reason` must be 1 to {CLOSE_REASON_MAX} characters without control characters"
        )));
    }
    if !app.hub.close_room(&room, reason.clone()).await {
        return Err(ApiError::NotFound(format!("no open room {room:?}")));
    }
    tracing::info!(target: "owner", %peer, owner = you.id, owner_name = you.name, action = "closed a room", room, reason, "owner action");
    Ok(json(StatusCode::OK, &ClosedRoom { room, reason }))
}
