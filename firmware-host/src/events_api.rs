//! Arena events over HTTP (EV1, EV5): the owner creates and cancels events; anyone lists
//! them and reads one (standings, games in progress, podium, and every finished game with its
//! id for replay at `/game/ID`).
//!
//! | route | request | success |
//! | --- | --- | --- |
//! | `POST /api/owner/events` | `NewEvent` | 201 `EventSummary` |
//! | `DELETE /api/owner/events/{id}` | `{}` | 200 `EventSummary` (cancelled) |
//! | `GET /api/events` | | 200 `EventList` |
//! | `GET /api/events/{id}` | | 200 `EventPage` |
//!
//! An event is read as stored: its saved arena restored with its finished games, whose
//! points were stored with their results, so the standings shown are always the stored
//! games' ([`rooms::event::standings_from_games`]).

use std::net::SocketAddr;
use std::sync::Arc;

use hyper::body::Incoming;
use hyper::{Request, StatusCode};
use protocol::http::{EventGameRow, EventList, EventPage, EventSummary, NewEvent, Winner};
use rand::RngExt;
use rooms::event::{
    Arena, EventLimits, EventSettings, EventSetup, Phase, StartRequest, Today, WaveTimes,
};

use crate::api_error::{ApiError, json};
use crate::app::App;
use crate::handler::{ApiResult, blocking, read_json};
use crate::store::{CreateEventError, EventRecord};

/// How far ahead an event may be scheduled. The server keeps no time zone, so "later today"
/// (EV1) is read as within the next 24 hours; the owner's page offers today's times only.
pub const SCHEDULE_AHEAD_MS: u64 = 24 * 3_600_000;

/// The bounds a new event is checked against: EV1's, with the configured shortest duration.
pub fn limits(app: &App) -> EventLimits {
    EventLimits {
        min_duration_min: app.config.event_min_minutes,
        ..EventLimits::default()
    }
}

/// The arena of a stored event, rebuilt from its saved state and its stored games, as of
/// `now_ms` (a countdown over is a running event, time up an ending or finished one). A copy
/// for reading: its effects are the event task's business.
fn arena_of(record: &EventRecord, games: Vec<rooms::event::EventGame>, now_ms: u64) -> Arena {
    let mut arena = Arena::restore(
        record.saved.clone(),
        games,
        EventLimits::default(),
        WaveTimes::default(),
    );
    if !matches!(arena.phase(), Phase::Cancelled | Phase::Finished) {
        // Nobody is online in a restored copy, so this pairs nobody.
        let _read_only = arena.tick(now_ms);
    }
    arena
}

fn summary(id: &str, arena: &Arena, now_ms: u64) -> EventSummary {
    let view = arena.view(&id.to_owned(), None, now_ms);
    EventSummary {
        id: id.to_owned(),
        name: view.name,
        game: view.game,
        rated: view.rated,
        per_move_ms: view.per_move_ms,
        phase: view.phase,
        starts_at_ms: arena.settings().starts_at_ms,
        starts_in_ms: view.starts_in_ms,
        ends_in_ms: view.ends_in_ms,
        duration_ms: view.duration_ms,
        players: view.players,
    }
}

/// `POST /api/owner/events`.
pub(crate) async fn create(
    app: &Arc<App>,
    peer: SocketAddr,
    you: &rooms::Account,
    req: Request<Incoming>,
) -> ApiResult {
    let form: NewEvent = read_json(req, app.config.handshake_timeout).await?;
    let now = crate::clock::now_ms();
    let setup = EventSetup {
        game: form.game,
        duration_min: form.duration_min,
        start: match form.start_in_ms {
            0 => StartRequest::Now,
            ms => StartRequest::At {
                wall_ms: now.saturating_add(ms),
            },
        },
        time_per_move_s: form.time_per_move_s,
        rated: form.rated,
        name: form.name,
    };
    let today = Today {
        now_ms: now,
        tomorrow_ms: now + SCHEDULE_AHEAD_MS,
    };
    let settings =
        EventSettings::from_setup(&setup, today, &limits(app)).map_err(ApiError::EventSetup)?;
    let seed = rand::rng().random();
    let mut arena = Arena::new(settings, limits(app), WaveTimes::default(), seed);
    // An event starting now starts (nobody has joined: nothing else happens).
    let _started = arena.tick(now);
    let id = app
        .store
        .create_event(arena.saved(), now)
        .await
        .map_err(|e| match e {
            CreateEventError::Clash(other) => ApiError::EventClash(other),
            CreateEventError::Store(e) => ApiError::Store(e),
        })?;
    let s = arena.settings();
    tracing::info!(target: "owner", %peer, owner = you.id, owner_name = you.name, action = "created an event", event = id, name = s.name, game = ?s.game, starts_at_ms = s.starts_at_ms, duration_ms = s.duration_ms, rated = s.rated, "owner action");
    let created = summary(&id, &arena, now);
    app.events.run(id, arena);
    Ok(json(StatusCode::CREATED, &created))
}

/// `DELETE /api/owner/events/{id}`: cancels an announced event.
pub(crate) async fn cancel(
    app: &Arc<App>,
    peer: SocketAddr,
    you: &rooms::Account,
    id: &str,
) -> ApiResult {
    // The event's task, while it runs, is the arena's only writer; else the store decides.
    let cancelled = match app.events.get(id) {
        Some(task) => match task.cancel().await {
            Some(Ok(())) => true,
            Some(Err(_)) => false,
            None => app.store.cancel_event(id).await?,
        },
        None => app.store.cancel_event(id).await?,
    };
    if cancelled {
        tracing::info!(target: "owner", %peer, owner = you.id, owner_name = you.name, action = "cancelled an event", event = id, "owner action");
    } else {
        let store = app.store.clone();
        let lookup = id.to_owned();
        match blocking(move || store.event_blocking(&lookup)).await?? {
            // Cancelling twice is answered as the first time.
            Some(record) if record.saved.phase == Phase::Cancelled => {}
            Some(_) => return Err(ApiError::EventStarted(id.to_owned())),
            None => return Err(ApiError::UnknownEvent(id.to_owned())),
        }
    }
    let (summary, _) = read_event(app, id.to_owned()).await?;
    Ok(json(StatusCode::OK, &summary))
}

/// The stored event `id`: its summary and its page.
async fn read_event(app: &Arc<App>, id: String) -> Result<(EventSummary, EventPage), ApiError> {
    let store = app.store.clone();
    let lookup = id.clone();
    let (record, games) = blocking(move || -> Result<_, rooms::StoreError> {
        let Some(record) = store.event_blocking(&lookup)? else {
            return Ok((None, Vec::new()));
        };
        let games = store.event_games_blocking(&lookup)?;
        Ok((Some(record), games))
    })
    .await??;
    let record = record.ok_or_else(|| ApiError::UnknownEvent(id.clone()))?;
    let now = crate::clock::now_ms();
    let rows = games
        .iter()
        .map(|g| EventGameRow {
            no: g.no,
            game_id: g.room.clone(),
            x: g.x,
            o: g.o,
            winner: g.end.winner().map(Winner::from),
            x_points: g.x_points,
            o_points: g.o_points,
            ended_at_ms: g.ended_at_ms,
        })
        .collect();
    let arena = arena_of(&record, games, now);
    Ok((
        summary(&id, &arena, now),
        EventPage {
            event: arena.view(&id, None, now),
            games: rows,
        },
    ))
}

/// Event `id` as a guest sees it, as stored (an event with no task: over before the server
/// started). Blocks on reads.
pub fn stored_view_blocking(
    store: &crate::store::Store,
    id: &str,
    now_ms: u64,
) -> Result<Option<protocol::event::EventView>, rooms::StoreError> {
    let Some(record) = store.event_blocking(id)? else {
        return Ok(None);
    };
    let games = store.event_games_blocking(id)?;
    Ok(Some(arena_of(&record, games, now_ms).view(
        &id.to_owned(),
        None,
        now_ms,
    )))
}

/// `GET /api/events`.
pub(crate) async fn list(app: &Arc<App>) -> ApiResult {
    let store = app.store.clone();
    let events = blocking(move || -> Result<_, rooms::StoreError> {
        store
            .events_blocking()?
            .into_iter()
            .map(|record| {
                let games = store.event_games_blocking(&record.id)?;
                Ok((record, games))
            })
            .collect::<Result<Vec<_>, _>>()
    })
    .await??;
    let now = crate::clock::now_ms();
    let events = events
        .into_iter()
        .map(|(record, games)| summary(&record.id, &arena_of(&record, games, now), now))
        .collect();
    Ok(json(StatusCode::OK, &EventList { events }))
}

/// `GET /api/events/{id}`.
pub(crate) async fn page(app: &Arc<App>, id: String) -> ApiResult {
    let (_, page) = read_event(app, id).await?;
    Ok(json(StatusCode::OK, &page))
}
