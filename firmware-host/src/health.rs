//! What `GET /api/health` answers, and the owner's health page shows: the store's state, the
//! rooms and connections, the version and uptime. Its own file because the public endpoint
//! (`http.rs`) and the owner's page (`owner_api.rs`) both build it.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use protocol::http::{Health, HealthStatus};

use crate::app::App;
use crate::assets;

/// What `GET /api/health` answers (the owner's health page shows it too).
pub(crate) fn health_view(app: &Arc<App>) -> Health {
    let stats = app.hub.stats();
    let storage = app.store.health();
    {
        Health {
            status: if storage.degraded() {
                HealthStatus::Degraded
            } else {
                HealthStatus::Ok
            },
            reason: storage.reason.clone(),
            storage,
            version: crate::VERSION.to_owned(),
            uptime_s: app.started.elapsed().as_secs(),
            rooms: stats.rooms_waiting + stats.rooms_playing,
            rooms_waiting: stats.rooms_waiting,
            rooms_playing: stats.rooms_playing,
            connections: stats.connections,
            players_online: stats.players_online,
            http_connections: app.connections.load(Ordering::Relaxed),
            ui_built: assets::ui_built(),
        }
    }
}
