//! [`Hub`]: the rooms side of the server, as `firmware-host` sees it.

use std::sync::Arc;

use crate::wire::Wire;
use protocol::RoomSummary;
use rand::SeedableRng;
use rand::rngs::StdRng;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::oneshot;

use crate::actor;
pub use crate::config::HubConfig;
use crate::handle::RoomMsg;
use crate::persistence::{Identity, Persistence};
use crate::room::{Ctx, Room};
use crate::shared::{Shared, wall_ms};

/// Counts for `/api/health` and the status display (P5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HubStats {
    pub rooms_waiting: usize,
    pub rooms_playing: usize,
    pub connections: usize,
    /// Distinct identities with at least one open connection.
    pub players_online: usize,
}

/// A cloneable handle on every room and connection.
#[derive(Clone)]
pub struct Hub {
    shared: Arc<Shared>,
}

impl core::fmt::Debug for Hub {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Hub")
            .field("config", &self.shared.config)
            .field("stats", &self.stats())
            .finish()
    }
}

impl Hub {
    /// Starts the hub inside the current tokio runtime and restores every saved open room
    /// (seats, settings, moves and repetition history; the side to move gets a fresh full
    /// clock). Reading the saved rooms blocks briefly: call it at start-up, before serving.
    pub fn start(store: Arc<dyn Persistence>, config: HubConfig) -> Hub {
        let shared = Arc::new(Shared::new(store.clone(), config));
        let saved = match store.load_rooms_blocking() {
            Ok(saved) => saved,
            Err(e) => {
                tracing::error!(error = %e, "cannot load saved rooms; starting without them");
                Vec::new()
            }
        };
        let today = crate::puzzles::today();
        match store.daily_solves_blocking(today) {
            Ok(counts) => shared.daily.restore(today, counts),
            Err(e) => {
                tracing::warn!(error = %e, "cannot load today's puzzle solves; counting from 0")
            }
        }
        let mut rng = StdRng::from_rng(&mut rand::rng());
        for (id, bytes) in saved {
            let mut seats = shared.seats.clone();
            match Room::restore(&bytes, &mut seats) {
                Ok(mut room) => {
                    let fx = room.resume(&mut Ctx {
                        now_ms: shared.now_ms(),
                        wall_ms: wall_ms(),
                        rng: &mut rng,
                        seats: &mut seats,
                        rated: &*shared,
                    });
                    tracing::info!(room = %id, phase = ?room.phase(), "room restored");
                    actor::spawn(room, fx, shared.clone(), true);
                }
                // Kept in the store for inspection; a later version may read it.
                Err(e) => tracing::error!(room = %id, error = %e, "cannot restore saved room"),
            }
        }
        Hub { shared }
    }

    /// Drives one WebSocket connection until it closes: hello, then each frame decoded and
    /// routed, snapshots and events sent back in the client's framing. `io` is the socket
    /// after the handshake (RFC 6455 §4), `read` what was read from it past the handshake.
    pub async fn serve<S>(&self, io: S, read: Vec<u8>, identity: Identity)
    where
        S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        crate::session::run(self.shared.clone(), Wire::new(io, read), identity).await;
    }

    /// Today's daily puzzle solves (PZ4), for `GET /api/puzzles/daily`.
    pub fn daily_solves(&self) -> &crate::puzzles::DailySolves {
        &self.shared.daily
    }

    /// The lobby list, for `GET /api/rooms`: waiting rooms, then games in progress, then
    /// finished ones. Never contains a passcode.
    pub fn lobby(&self) -> Vec<RoomSummary> {
        self.shared.lobby.list()
    }

    /// The lobby list as `who` may see it: without the rooms they were kicked from (M3.5),
    /// whether they come back signed in, signed out in the same browser or with the same device
    /// token. For `GET /api/rooms`.
    pub fn lobby_for(&self, who: &Identity) -> Vec<RoomSummary> {
        self.shared
            .lobby
            .list_for(&crate::room::Member::from_identity(0, who))
    }

    /// S3: ends sign-in session `session` on every WebSocket opened with it: each is sent
    /// `{"error":{"code":"signed_out",…}}` and closed with code 4001 `signed_out`, so the client
    /// reconnects (as a guest once its cookie is gone). Call it when the session ends (logout).
    pub fn end_session(&self, session: &str) {
        let n = self.shared.conns.end_session(session);
        tracing::info!(connections = n, "session ended on its WebSockets");
    }

    /// S3: the same as [`Hub::end_session`] for every session of `user` but `except` (password
    /// change keeps the session that made it; account deletion and an owner's reset pass
    /// `None`).
    pub fn end_user_sessions(&self, user: protocol::records::UserId, except: Option<&str>) {
        let n = self.shared.conns.end_user_sessions(user, except);
        tracing::info!(
            user,
            connections = n,
            "user's sessions ended on their WebSockets"
        );
    }

    /// Closes open room `id` now (an owner's decision): its viewers get `room_closed` with
    /// reason `owner` and `message`, then `left`; a game in progress ends without a result.
    /// `false` when no such room is open.
    pub async fn close_room(&self, id: &str, message: String) -> bool {
        let Some(handle) = self.shared.lobby.handle(id) else {
            return false;
        };
        handle
            .send(crate::handle::RoomMsg::Close(Box::new(
                protocol::CloseReason::Owner { message },
            )))
            .await
    }

    /// Closes every open room as [`Hub::close_room`] does (before an owner's restore replaces
    /// the accounts they seat); how many were asked to close.
    pub async fn close_all_rooms(&self, message: &str) -> usize {
        let mut n = 0;
        for handle in self.shared.lobby.handles() {
            let reason = protocol::CloseReason::Owner {
                message: message.to_owned(),
            };
            if handle
                .send(crate::handle::RoomMsg::Close(Box::new(reason)))
                .await
            {
                n += 1;
            }
        }
        n
    }

    /// Each signed-in player with an open WebSocket, and how many they have open (the owner's
    /// "who is online").
    pub fn users_online(&self) -> std::collections::HashMap<protocol::records::UserId, usize> {
        self.shared.conns.users_online()
    }

    /// Gives sessions and rooms the server's arena events (once; later calls change
    /// nothing). The hub keeps a weak reference: the caller keeps the book alive.
    pub fn set_events(&self, book: &Arc<dyn crate::arena_actor::EventBook>) {
        if !self.shared.set_events(book) {
            tracing::warn!("the hub's events were set already");
        }
    }

    /// EV3: makes the room of an arena event's pairing and moves both players' connections in
    /// (`paired`, then the room's snapshot); its id. Refused (and the pairing given up) when
    /// a player has no connection or sits in another room now.
    pub fn open_event_game(
        &self,
        event: &protocol::event::EventId,
        pairing: &crate::arena_actor::Pairing,
    ) -> Result<protocol::RoomId, crate::Refusal> {
        crate::create::create_event_game(&self.shared, event, pairing).map(|h| h.id.clone())
    }

    /// EV2: where `user` is for an event: seated in a waiting or active room (M3.4),
    /// connected, or neither.
    pub fn presence(&self, user: protocol::records::UserId) -> crate::event::Presence {
        use crate::seats::SeatBook;
        if self.shared.seats.place(user).is_some() {
            crate::event::Presence::Elsewhere
        } else if self.shared.conns.has(&crate::room::PlayerKey::User(user)) {
            crate::event::Presence::Online
        } else {
            crate::event::Presence::Offline
        }
    }

    /// Whether room `id` is open.
    pub fn room_open(&self, id: &str) -> bool {
        self.shared.lobby.handle(id).is_some()
    }

    /// Counts for `/api/health` and the status display.
    pub fn stats(&self) -> HubStats {
        let (rooms_waiting, rooms_playing) = self.shared.lobby.counts();
        HubStats {
            rooms_waiting,
            rooms_playing,
            connections: self.shared.connections(),
            players_online: self.shared.players_online(),
        }
    }

    /// Stops every session and room. Each room saves its state (it is restored at the next
    /// start) before this returns.
    pub async fn shutdown(&self) {
        // 1. Sessions see the flag, close their WebSocket and stop sending intents.
        self.shared.stopping.send_replace(true);
        // 2. Each room writes its last state and answers.
        let mut waits = Vec::new();
        for room in self.shared.lobby.handles() {
            let (done, wait) = oneshot::channel();
            if room.send(RoomMsg::Shutdown { done }).await {
                waits.push(wait);
            }
        }
        for wait in waits {
            // An error means the room ended on its own meanwhile: nothing left to wait for.
            wait.await.ok();
        }
        // 3. Every task (rooms and their savers) has finished or is finishing; wait for them.
        let tasks = self.shared.take_tasks();
        for task in tasks {
            if let Err(e) = task.await {
                tracing::error!(error = %e, "room task failed");
            }
        }
    }
}
