//! The server's arena events at run time: one [`rooms::arena_actor`] task per live event
//! (announced, running or ending), started for a new event and, at start-up, for every live
//! event in the store, restored from its saved arena and its stored games (EV7). The task moves
//! the event through its phases at their times and saves each change.
//!
//! [`StoreHost`] is what the tasks need from the server: saving through the store, and storing
//! an event game with its points in one transaction ([`Store::store_event_game`]). Rooms for
//! pairings are not made here yet: a pairing is refused (`unavailable`) and aborted, and its
//! players wait again; no player can join over the WebSocket yet either, so none is made.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use protocol::event::EventId;
use protocol::records::{FinishedGame, RatingUpdate};
use rooms::arena_actor::{self, ArenaHandle, EventHost, Pairing, RoomFuture, WallClock};
use rooms::event::{Arena, EventGame, EventLimits, SavedArena, WaveTimes};
use rooms::{Reason, Refusal, StoreError, StoreFuture};

use crate::store::Store;

/// The store as the event tasks see it.
#[derive(Debug)]
pub struct StoreHost(pub Store);

impl EventHost for StoreHost {
    fn save(&self, event: &EventId, saved: SavedArena) -> StoreFuture<()> {
        let store = self.0.clone();
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
        Box::pin(self.0.store_event_game(game, event, record))
    }

    fn open_game(&self, _event: &EventId, _pairing: Pairing) -> RoomFuture {
        Box::pin(async { Err(Refusal::from(Reason::EventRoomsUnavailable)) })
    }
}

/// Every live event's task, by event id.
#[derive(Debug, Default)]
pub struct Events {
    tasks: Mutex<BTreeMap<EventId, ArenaHandle>>,
}

fn wall_clock() -> WallClock {
    Arc::new(crate::clock::now_ms)
}

impl Events {
    /// Starts the task of event `id` owning `arena`.
    pub fn run(&self, store: &Store, id: EventId, arena: Arena) {
        let host: Arc<dyn EventHost> = Arc::new(StoreHost(store.clone()));
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
    pub fn replace_all_blocking(&self, store: &Store, limits: EventLimits) {
        self.tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        self.restore_blocking(store, limits);
    }

    /// Starts a task for every live event in the store (at start-up, in the runtime).
    /// Reading blocks briefly.
    pub fn restore_blocking(&self, store: &Store, limits: EventLimits) {
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
            self.run(store, record.id, arena);
        }
    }
}
