//! Arena events (EV1, EV4, EV7): each event as created and as its arena last saved it, and
//! each finished game of an event with the points it scored.
//!
//! A game's points are written by the write that stores its result ([`Op::CommitEventGame`]
//! calls `games::commit_game` in the same transaction), so a stored event game always has its
//! stored game, and the event's standings can always be recomputed from the stored games
//! ([`rooms::event::standings_from_games`]). A result the store refuses stores no points.
//!
//! These tables are new beside the schema-2 tables (as `settings`), so an older release still
//! opens the file. Ids are `e1`, `e2` … from a counter in `meta`.

use std::future::Future;

use protocol::records::{FinishedGame, RatingUpdate};
use redb::{ReadableTable, TableDefinition, WriteTransaction};
use rooms::StoreError;
use rooms::event::{EventGame, GameNo, Phase, SavedArena};
use serde::{Deserialize, Serialize};

use super::error::store_err;
use super::games;
use super::handle::Store;
use super::meta::{self, META};
use super::op::{Op, Outcome, unexpected};
use super::records::{EventRecord, decode, encode};

/// event id → `VersionedEvent`.
pub(super) const EVENTS: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("events");
/// (event id, game number) → `VersionedEventGame`: the event's finished games.
pub(super) const EVENT_GAMES: TableDefinition<'_, (&str, u32), &[u8]> =
    TableDefinition::new("event_games");

/// The counter of event ids in `meta`.
const NEXT_EVENT: &str = "next_event";

#[derive(Serialize, Deserialize)]
enum VersionedEvent {
    V1(EventRecord),
}

#[derive(Serialize, Deserialize)]
enum VersionedEventGame {
    V1(EventGame),
}

fn decode_event(bytes: &[u8]) -> Result<EventRecord, StoreError> {
    decode::<VersionedEvent>(bytes, "event").map(|VersionedEvent::V1(e)| e)
}

fn decode_event_game(bytes: &[u8]) -> Result<EventGame, StoreError> {
    decode::<VersionedEventGame>(bytes, "event game").map(|VersionedEventGame::V1(g)| g)
}

/// Whether an event is over: nothing of it is left to run.
fn over(phase: Phase) -> bool {
    matches!(phase, Phase::Finished | Phase::Cancelled)
}

/// Why a new event was refused by the store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CreateEventError {
    /// One event runs at a time (EV1): this one's time overlaps that event's.
    Clash(String),
    Store(StoreError),
}

impl From<StoreError> for CreateEventError {
    fn from(e: StoreError) -> Self {
        CreateEventError::Store(e)
    }
}

impl Store {
    /// Stores a new event durably; its id. Refused when its time overlaps an event that is not
    /// over (EV1: one event at a time).
    pub async fn create_event(
        &self,
        saved: SavedArena,
        now_ms: u64,
    ) -> Result<String, CreateEventError> {
        match self
            .write(Op::CreateEvent {
                saved: Box::new(saved),
                now_ms,
            })
            .await?
        {
            Outcome::EventCreated(id) => Ok(id),
            Outcome::EventClash(other) => Err(CreateEventError::Clash(other)),
            other => Err(unexpected(&other).into()),
        }
    }

    /// Replaces an event's saved arena durably; `false` when there is no such event.
    pub async fn save_event(&self, id: &str, saved: SavedArena) -> Result<bool, StoreError> {
        match self
            .write(Op::SaveEvent {
                id: id.to_owned(),
                saved: Box::new(saved),
            })
            .await?
        {
            Outcome::Changed(changed) => Ok(changed),
            other => Err(unexpected(&other)),
        }
    }

    /// Cancels an announced event; `false` when there is no such event or it has started.
    pub async fn cancel_event(&self, id: &str) -> Result<bool, StoreError> {
        match self.write(Op::CancelEvent { id: id.to_owned() }).await? {
            Outcome::Changed(changed) => Ok(changed),
            other => Err(unexpected(&other)),
        }
    }

    /// Stores a finished game of `event` and its points in one transaction (EV4): the rating
    /// updates as [`rooms::Persistence::commit_game`] answers them. The same game sent again
    /// (a retry) is answered as the first time; anything else already stored under its
    /// number is refused, and a refused result stores no points.
    pub fn store_event_game(
        &self,
        game: &FinishedGame,
        event: &str,
        record: &EventGame,
    ) -> impl Future<Output = Result<Vec<RatingUpdate>, StoreError>> + Send + 'static {
        let outcome = self.write(Op::CommitEventGame {
            game: Box::new(game.clone()),
            event: event.to_owned(),
            record: Box::new(record.clone()),
        });
        async move {
            match outcome.await? {
                Outcome::Rated(updates) => Ok(updates),
                Outcome::Refused(e) => Err(e),
                other => Err(unexpected(&other)),
            }
        }
    }

    /// An event by id.
    pub fn event_blocking(&self, id: &str) -> Result<Option<EventRecord>, StoreError> {
        self.read(|txn| {
            let table = txn.open_table(EVENTS).map_err(store_err)?;
            table
                .get(id)
                .map_err(store_err)?
                .map(|bytes| decode_event(bytes.value()))
                .transpose()
        })
    }

    /// Every event, by start time (then id).
    pub fn events_blocking(&self) -> Result<Vec<EventRecord>, StoreError> {
        self.read(|txn| {
            let table = txn.open_table(EVENTS).map_err(store_err)?;
            let mut out = Vec::new();
            for entry in table.iter().map_err(store_err)? {
                let (_, bytes) = entry.map_err(store_err)?;
                out.push(decode_event(bytes.value())?);
            }
            out.sort_by(|a, b| {
                (a.saved.settings.starts_at_ms, a.created_ms, &a.id).cmp(&(
                    b.saved.settings.starts_at_ms,
                    b.created_ms,
                    &b.id,
                ))
            });
            Ok(out)
        })
    }

    /// An event's finished games, by game number (for each player, the order they played).
    pub fn event_games_blocking(&self, id: &str) -> Result<Vec<EventGame>, StoreError> {
        self.read(|txn| {
            let table = txn.open_table(EVENT_GAMES).map_err(store_err)?;
            let mut out = Vec::new();
            for entry in table
                .range((id, 0)..=(id, GameNo::MAX))
                .map_err(store_err)?
            {
                let (_, bytes) = entry.map_err(store_err)?;
                out.push(decode_event_game(bytes.value())?);
            }
            Ok(out)
        })
    }
}

/// Creates the tables (every open).
pub(super) fn create_tables(txn: &WriteTransaction) -> Result<(), StoreError> {
    txn.open_table(EVENTS).map_err(store_err)?;
    txn.open_table(EVENT_GAMES).map_err(store_err)?;
    Ok(())
}

/// Applies an event write; `None` for the other writes.
pub(super) fn apply(txn: &WriteTransaction, op: &Op) -> Option<Result<Outcome, StoreError>> {
    Some(match op {
        Op::CreateEvent { saved, now_ms } => create(txn, saved, *now_ms),
        Op::SaveEvent { id, saved } => update(txn, id, |record| {
            record.saved = (**saved).clone();
            true
        }),
        Op::CancelEvent { id } => update(txn, id, |record| {
            if record.saved.phase != Phase::Announced {
                return false;
            }
            record.saved.phase = Phase::Cancelled;
            true
        }),
        Op::CommitEventGame {
            game,
            event,
            record,
        } => commit_event_game(txn, game, event, record),
        _ => return None,
    })
}

fn create(txn: &WriteTransaction, saved: &SavedArena, now_ms: u64) -> Result<Outcome, StoreError> {
    let mut table = txn.open_table(EVENTS).map_err(store_err)?;
    let (start, end) = (saved.settings.starts_at_ms, saved.settings.ends_at_ms());
    for entry in table.iter().map_err(store_err)? {
        let (_, bytes) = entry.map_err(store_err)?;
        let other = decode_event(bytes.value())?;
        let s = &other.saved.settings;
        if !over(other.saved.phase) && start < s.ends_at_ms() && s.starts_at_ms < end {
            return Ok(Outcome::EventClash(other.id));
        }
    }
    let mut meta = txn.open_table(META).map_err(store_err)?;
    let id = loop {
        let id = format!("e{}", meta::counter_in(&mut meta, NEXT_EVENT)? + 1);
        // A restored backup may have put the counter back.
        if table.get(id.as_str()).map_err(store_err)?.is_none() {
            break id;
        }
    };
    let record = EventRecord {
        id: id.clone(),
        created_ms: now_ms,
        saved: saved.clone(),
    };
    table
        .insert(id.as_str(), encode(&VersionedEvent::V1(record))?.as_slice())
        .map_err(store_err)?;
    Ok(Outcome::EventCreated(id))
}

/// Rewrites event `id` by `change`, which says whether it changed anything.
fn update(
    txn: &WriteTransaction,
    id: &str,
    change: impl FnOnce(&mut EventRecord) -> bool,
) -> Result<Outcome, StoreError> {
    let mut table = txn.open_table(EVENTS).map_err(store_err)?;
    let Some(mut record) = table
        .get(id)
        .map_err(store_err)?
        .map(|bytes| decode_event(bytes.value()))
        .transpose()?
    else {
        return Ok(Outcome::Changed(false));
    };
    if !change(&mut record) {
        return Ok(Outcome::Changed(false));
    }
    table
        .insert(id, encode(&VersionedEvent::V1(record))?.as_slice())
        .map_err(store_err)?;
    Ok(Outcome::Changed(true))
}

/// The writer's half of [`Store::store_event_game`]: every refusal is decided before anything
/// is written, so a refused write leaves the shared transaction as it found it.
fn commit_event_game(
    txn: &WriteTransaction,
    game: &FinishedGame,
    event: &str,
    record: &EventGame,
) -> Result<Outcome, StoreError> {
    let refused = |why: String| Ok(Outcome::Refused(StoreError::Refused(why)));
    if record.room != game.id {
        return refused(format!(
            "event game {} names room {:?}, not its game {:?}",
            record.no, record.room, game.id
        ));
    }
    if txn
        .open_table(EVENTS)
        .map_err(store_err)?
        .get(event)
        .map_err(store_err)?
        .is_none()
    {
        return refused(format!("no event {event:?}"));
    }
    let key = (event, record.no);
    let stored = txn
        .open_table(EVENT_GAMES)
        .map_err(store_err)?
        .get(key)
        .map_err(store_err)?
        .map(|bytes| decode_event_game(bytes.value()))
        .transpose()?;
    if stored.as_ref().is_some_and(|s| s != record) {
        return refused(format!(
            "event {event:?} already has a different game {}",
            record.no
        ));
    }
    let outcome = games::commit_game(txn, game)?;
    if !matches!(outcome, Outcome::Rated(_)) || stored.is_some() {
        return Ok(outcome);
    }
    txn.open_table(EVENT_GAMES)
        .map_err(store_err)?
        .insert(
            key,
            encode(&VersionedEventGame::V1(record.clone()))?.as_slice(),
        )
        .map_err(store_err)?;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use engine::{Game, Mark};
    use protocol::records::{FinishedGame, GameEnd, PlayerRef, UserId};
    use rooms::event::score::score_game;
    use rooms::event::{
        Arena, Effect, EventLimits, EventSettings, EventSetup, Phase, Player, StartRequest, Today,
        WaveTimes, standings_from_games,
    };

    use super::CreateEventError;
    use crate::store::Store;

    const NOW: u64 = 1_800_000_000_000;

    fn settings(start: StartRequest, minutes: u32) -> EventSettings {
        let setup = EventSetup {
            game: Game::Xo,
            duration_min: minutes,
            start,
            time_per_move_s: None,
            rated: None,
            name: Some("XO night".into()),
        };
        let today = Today {
            now_ms: NOW,
            tomorrow_ms: NOW + 10 * 3_600_000,
        };
        EventSettings::from_setup(&setup, today, &EventLimits::default()).expect("valid")
    }

    fn arena(start: StartRequest, minutes: u32) -> Arena {
        Arena::new(
            settings(start, minutes),
            EventLimits::default(),
            WaveTimes::default(),
            7,
        )
    }

    async fn players(store: &Store, n: u8) -> Vec<Player> {
        let mut out = Vec::new();
        for i in 0..n {
            let name = format!("player{i}");
            let user = store
                .register(&name, "hash", [i; 32], 0, u64::MAX)
                .await
                .expect("register");
            out.push(Player {
                user,
                name,
                rating: 1200,
            });
        }
        out
    }

    fn finished(room: &str, rated: bool, x: UserId, o: UserId, end: GameEnd) -> FinishedGame {
        let seat = |id: UserId| PlayerRef::User {
            id,
            name: format!("u{id}"),
        };
        FinishedGame {
            id: room.into(),
            game: Game::Xo,
            rated,
            x: seat(x),
            o: seat(o),
            moves: vec![4, 0, 2],
            end,
            started_at_ms: NOW,
            ended_at_ms: NOW + 1,
        }
    }

    /// The store closed (its writes durable) and opened again, as at a restart.
    async fn reopen(store: Store, dir: &std::path::Path) -> Store {
        tokio::task::spawn_blocking(move || store.shutdown_blocking())
            .await
            .expect("shut down");
        Store::open_blocking(dir).expect("reopen")
    }

    /// A deterministic spread of ends, so that streaks (a third win in a row scores 4),
    /// draws and losses all occur.
    fn end_of(no: u32) -> GameEnd {
        match no % 5 {
            0 => GameEnd::FullBoard,
            1 | 3 => GameEnd::Resigned { loser: Mark::O },
            2 => GameEnd::Timeout { loser: Mark::X },
            _ => GameEnd::Agreed,
        }
    }

    /// Plays `rounds` waves of the event: every game paired is stored with its points through
    /// the store, then counted by the arena.
    async fn play(store: &Store, id: &str, arena: &mut Arena, rounds: u32, now: &mut u64) {
        for _ in 0..rounds {
            *now += 5_000;
            let fx = arena.tick(*now);
            for effect in fx {
                let Effect::Paired { game, x, o, .. } = effect else {
                    continue;
                };
                let room = format!("r{game}");
                arena.seated(game, room.clone()).expect("open game");
                let end = end_of(game);
                let record = arena.result(game, room.clone(), end, *now).expect("result");
                let rated = arena.settings().rated;
                store
                    .store_event_game(&finished(&room, rated, x, o, end), id, &record)
                    .await
                    .expect("stored with its result");
                arena.record(record, *now).expect("recorded");
            }
            store.save_event(id, arena.saved()).await.expect("saved");
        }
    }

    #[tokio::test]
    async fn stored_points_always_recompute_from_the_stored_games() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open_blocking(dir.path()).expect("open");
        let mut arena = arena(StartRequest::Now, 60);
        let id = store
            .create_event(arena.saved(), NOW)
            .await
            .expect("created");
        for p in players(&store, 7).await {
            arena.join(p, NOW).expect("joined");
        }
        let mut now = NOW;
        play(&store, &id, &mut arena, 12, &mut now).await;
        assert!(arena.games().len() >= 30, "{} games", arena.games().len());
        let store = reopen(store, dir.path()).await;
        let games = store.event_games_blocking(&id).expect("event games");
        assert_eq!(games, arena.games(), "every counted game is stored");
        let mut sheets = BTreeMap::new();
        let mut streak_wins = 0;
        for g in &games {
            let stored = store
                .game_blocking(&g.room)
                .expect("read")
                .expect("its game");
            assert_eq!(
                stored.game.end, g.end,
                "the points' game is the stored game"
            );
            assert_eq!(
                stored.updates.len(),
                2,
                "rated: both ratings with the points"
            );
            let points = score_game(&mut sheets, g);
            assert_eq!(points, (g.x_points, g.o_points), "game {}", g.no);
            streak_wins += usize::from(g.x_points == 4 || g.o_points == 4);
        }
        assert!(streak_wins > 0, "the games include streak wins");
        assert_eq!(&standings_from_games(&games), arena.standings());
    }

    #[tokio::test]
    async fn a_refused_result_stores_no_points_and_a_retry_counts_once() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open_blocking(dir.path()).expect("open");
        let mut arena = arena(StartRequest::Now, 60);
        let id = store
            .create_event(arena.saved(), NOW)
            .await
            .expect("created");
        let ps = players(&store, 2).await;
        for p in &ps {
            arena.join(p.clone(), NOW).expect("joined");
        }
        let fx = arena.tick(NOW + 5_000);
        let Some(&Effect::Paired { game, x, o, .. }) =
            fx.iter().find(|e| matches!(e, Effect::Paired { .. }))
        else {
            panic!("paired: {fx:?}");
        };
        arena.seated(game, "r1".into()).expect("open");
        let end = GameEnd::Resigned { loser: Mark::X };
        let record = arena.result(game, "r1".into(), end, NOW).expect("result");

        // A rated game naming a player who does not exist is refused: no points either.
        let bad = finished("r1", true, x, 999, end);
        let refused = store.store_event_game(&bad, &id, &record).await;
        assert!(refused.is_err(), "{refused:?}");
        assert_eq!(store.event_games_blocking(&id).expect("read"), vec![]);
        assert_eq!(store.game_blocking("r1").expect("read"), None);
        // Points for an unknown event, or naming another room, are refused with their game.
        let good = finished("r1", true, x, o, end);
        assert!(store.store_event_game(&good, "e99", &record).await.is_err());
        let other_room = finished("r2", true, x, o, end);
        assert!(
            store
                .store_event_game(&other_room, &id, &record)
                .await
                .is_err()
        );
        assert_eq!(store.game_blocking("r1").expect("read"), None);
        assert_eq!(store.game_blocking("r2").expect("read"), None);

        // Stored once; the same write again (a retry) answers the same updates.
        let first = store
            .store_event_game(&good, &id, &record)
            .await
            .expect("stored");
        let again = store
            .store_event_game(&good, &id, &record)
            .await
            .expect("retry");
        assert_eq!(first, again);
        assert_eq!(
            store.event_games_blocking(&id).expect("read"),
            vec![record.clone()]
        );
        // Different points under the same number are refused.
        let forged = rooms::event::EventGame {
            x_points: 4,
            ..record
        };
        assert!(store.store_event_game(&good, &id, &forged).await.is_err());
    }

    #[tokio::test]
    async fn casual_event_games_are_stored_with_their_points() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open_blocking(dir.path()).expect("open");
        let mut casual = EventSettings {
            rated: false,
            ..settings(StartRequest::Now, 30)
        };
        casual.name = "casual".into();
        let mut arena = Arena::new(casual, EventLimits::default(), WaveTimes::default(), 3);
        let id = store
            .create_event(arena.saved(), NOW)
            .await
            .expect("created");
        for p in players(&store, 4).await {
            arena.join(p, NOW).expect("joined");
        }
        let mut now = NOW;
        play(&store, &id, &mut arena, 3, &mut now).await;
        let games = store.event_games_blocking(&id).expect("read");
        assert!(!games.is_empty());
        assert_eq!(games, arena.games());
        for g in &games {
            let stored = store.game_blocking(&g.room).expect("read").expect("stored");
            assert!(!stored.game.rated && stored.updates.is_empty());
        }
    }

    #[tokio::test]
    async fn an_event_survives_reopening_the_store() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open_blocking(dir.path()).expect("open");
        let mut arena = arena(StartRequest::Now, 60);
        let id = store
            .create_event(arena.saved(), NOW)
            .await
            .expect("created");
        for p in players(&store, 5).await {
            arena.join(p, NOW).expect("joined");
        }
        let mut now = NOW;
        play(&store, &id, &mut arena, 4, &mut now).await;
        // A pairing saved but whose game has not ended: it is the arena's after the restart.
        let fx = arena.tick(now + 5_000);
        assert!(
            fx.iter().any(|e| matches!(e, Effect::Paired { .. })),
            "{fx:?}"
        );
        store.save_event(&id, arena.saved()).await.expect("saved");
        let store = reopen(store, dir.path()).await;
        let record = store.event_blocking(&id).expect("read").expect("the event");
        assert_eq!(record.saved, arena.saved());
        assert_eq!(store.events_blocking().expect("list"), vec![record.clone()]);
        let games = store.event_games_blocking(&id).expect("games");
        let restored = Arena::restore(
            record.saved,
            games,
            EventLimits::default(),
            WaveTimes::default(),
        );
        assert_eq!(restored.standings(), arena.standings());
        assert_eq!(restored.games(), arena.games());
        assert_eq!(
            restored.open_games().collect::<Vec<_>>(),
            arena.open_games().collect::<Vec<_>>()
        );
    }

    #[tokio::test]
    async fn a_backup_carries_events_and_their_points_with_the_games() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open_blocking(dir.path()).expect("open");
        let mut arena = arena(StartRequest::Now, 60);
        let id = store
            .create_event(arena.saved(), NOW)
            .await
            .expect("created");
        for p in players(&store, 4).await {
            arena.join(p, NOW).expect("joined");
        }
        let mut now = NOW;
        play(&store, &id, &mut arena, 3, &mut now).await;
        let backup = store.backup_blocking(0).expect("backup");

        let other = tempfile::tempdir().expect("temp dir");
        let fresh = Store::open_blocking(other.path()).expect("open");
        let (_, source) = fresh.verify_backup_blocking(&backup).expect("verify");
        fresh.restore(source, false).await.expect("restore");
        assert_eq!(
            fresh.event_blocking(&id).expect("read"),
            store.event_blocking(&id).expect("read")
        );
        let games = fresh.event_games_blocking(&id).expect("read");
        assert_eq!(games, arena.games());
        for g in &games {
            assert!(fresh.game_blocking(&g.room).expect("read").is_some());
        }
        // The restored id counter goes on after the restored events.
        let next = self::arena(
            StartRequest::At {
                wall_ms: NOW + 7_200_000,
            },
            30,
        );
        assert_eq!(fresh.create_event(next.saved(), NOW).await, Ok("e2".into()));
    }

    #[tokio::test]
    async fn one_event_at_a_time_and_only_an_announced_one_is_cancelled() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open_blocking(dir.path()).expect("open");
        let evening = NOW + 3_600_000;
        let later = arena(StartRequest::At { wall_ms: evening }, 60);
        let id = store
            .create_event(later.saved(), NOW)
            .await
            .expect("created");
        assert_eq!(id, "e1");
        // Overlapping its hour is refused; the hour before it is free.
        let clash = arena(
            StartRequest::At {
                wall_ms: evening + 1_800_000,
            },
            60,
        );
        assert_eq!(
            store.create_event(clash.saved(), NOW).await,
            Err(CreateEventError::Clash(id.clone()))
        );
        let now = arena(StartRequest::Now, 60);
        let running = store
            .create_event(now.saved(), NOW)
            .await
            .expect("before it");
        assert_eq!(running, "e2");
        let mut started = now;
        started.tick(NOW);
        assert_eq!(started.phase(), Phase::Running);
        store
            .save_event(&running, started.saved())
            .await
            .expect("saved");

        assert!(
            !store.cancel_event(&running).await.expect("write"),
            "running"
        );
        assert!(!store.cancel_event("e9").await.expect("write"), "unknown");
        assert!(store.cancel_event(&id).await.expect("write"));
        let cancelled = store.event_blocking(&id).expect("read").expect("kept");
        assert_eq!(cancelled.saved.phase, Phase::Cancelled);
        // A cancelled event no longer holds its time.
        assert_eq!(
            store.create_event(clash.saved(), NOW).await,
            Ok("e3".into())
        );
        let ids: Vec<_> = store
            .events_blocking()
            .expect("list")
            .into_iter()
            .map(|e| e.id)
            .collect();
        assert_eq!(ids, ["e2", "e1", "e3"], "by start time");
    }
}
