//! The server's arena events at run time: one [`rooms::arena_actor`] task per live event
//! (announced, running or ending), started for a new event and, at start-up, for every live
//! event in the store, restored from its saved arena and its stored games (EV7). The task moves
//! the event through its phases at their times and saves each change.
//!
//! [`ServerHost`] is what the tasks need from the server: saving through the store, storing an
//! event game with its points in one transaction ([`Store::store_event_game`]), and from the
//! hub the rooms of pairings and where players are. [`Events`] is also the hub's
//! [`EventBook`]: how sessions and rooms find an event's task, or a finished event as stored.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use protocol::RoomId;
use protocol::event::{EventId, EventView};
use protocol::records::{FinishedGame, RatingUpdate, UserId};
use rooms::arena_actor::{self, ArenaHandle, EventBook, EventHost, Pairing, RoomFuture, WallClock};
use rooms::event::{Arena, EventGame, EventLimits, Presence, SavedArena, WaveTimes};
use rooms::{Hub, StoreError, StoreFuture};

use crate::store::Store;

/// The store and the hub as the event tasks see them.
#[derive(Debug)]
pub struct ServerHost {
    pub store: Store,
    pub hub: Hub,
}

impl EventHost for ServerHost {
    fn save(&self, event: &EventId, saved: SavedArena) -> StoreFuture<()> {
        let store = self.store.clone();
        let event = event.clone();
        Box::pin(async move {
            if store.save_event(&event, saved).await? {
                Ok(())
            } else {
                Err(StoreError::Refused(format!("no event {event:?} to save")))
            }
        })
    }

    fn store_game(
        &self,
        event: &EventId,
        game: &FinishedGame,
        record: &EventGame,
    ) -> StoreFuture<Vec<RatingUpdate>> {
        Box::pin(self.store.store_event_game(game, event, record))
    }

    fn open_game(&self, event: &EventId, pairing: Pairing) -> RoomFuture {
        let opened = self.hub.open_event_game(event, &pairing);
        Box::pin(async move { opened })
    }

    fn presence(&self, user: UserId) -> Presence {
        self.hub.presence(user)
    }

    fn room_exists(&self, room: &RoomId) -> bool {
        self.hub.room_open(room)
    }
}

/// Every live event's task, by event id.
#[derive(Debug)]
pub struct Events {
    store: Store,
    hub: Hub,
    tasks: Mutex<BTreeMap<EventId, ArenaHandle>>,
}

impl EventBook for Events {
    fn live(&self, event: &str) -> Option<ArenaHandle> {
        self.get(event)
    }

    fn stored_view_blocking(&self, event: &str) -> Result<Option<EventView>, StoreError> {
        crate::events_api::stored_view_blocking(&self.store, event, crate::clock::now_ms())
    }
}

fn wall_clock() -> WallClock {
    Arc::new(crate::clock::now_ms)
}

impl Events {
    /// The events of `store`, whose tasks make their rooms in `hub`. Start their tasks with
    /// [`Events::restore_blocking`], and give them to the hub ([`Hub::set_events`]).
    pub fn new(store: Store, hub: Hub) -> Events {
        Events {
            store,
            hub,
            tasks: Mutex::default(),
        }
    }

    /// Starts the task of event `id` owning `arena`.
    pub fn run(&self, id: EventId, arena: Arena) {
        let host: Arc<dyn EventHost> = Arc::new(ServerHost {
            store: self.store.clone(),
            hub: self.hub.clone(),
        });
        let (handle, _task) = arena_actor::spawn(id.clone(), arena, host, wall_clock());
        self.tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, handle);
    }

    /// The task of event `id`, while it runs.
    pub fn get(&self, id: &str) -> Option<ArenaHandle> {
        self.tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    /// After a restore replaced the data: every task ends (its last handle dropped) and the
    /// restored live events get theirs. Reading blocks briefly.
    pub fn replace_all_blocking(&self, limits: EventLimits) {
        self.tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        self.restore_blocking(limits);
    }

    /// Starts a task for every live event in the store (at start-up, in the runtime).
    /// Reading blocks briefly.
    pub fn restore_blocking(&self, limits: EventLimits) {
        let store = &self.store;
        let records = match store.events_blocking() {
            Ok(records) => records,
            Err(e) => {
                tracing::error!(error = %e, "cannot load events; starting without them");
                return;
            }
        };
        for record in records {
            if !arena_actor::is_live(record.saved.phase) {
                continue;
            }
            let games = match store.event_games_blocking(&record.id) {
                Ok(games) => games,
                Err(e) => {
                    tracing::error!(event = %record.id, error = %e, "cannot load an event's games");
                    continue;
                }
            };
            let arena = Arena::restore(record.saved, games, limits, WaveTimes::default());
            tracing::info!(event = %record.id, phase = ?arena.phase(), "event restored");
            self.run(record.id, arena);
        }
    }
}
