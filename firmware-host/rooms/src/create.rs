//! Creating a room from the creation box (M1, M2, M3.1): the server's and the host's room limits,
//! a fresh id, the creator's seat (M3.4), then the room's task.

use std::sync::Arc;

use protocol::{CreateRoom, ErrorCode};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;

use crate::actor;
use crate::handle::{RoomHandle, RoomMsg};
use crate::refusal::Refusal;
use crate::room::{Ctx, Member, Room};
use crate::seats::SeatBook;
use crate::settings::Settings;
use crate::shared::{Shared, wall_ms};

/// Creates a room from the creation box (M1, M2, M3.1) and starts its task.
pub(crate) fn create(
    shared: &Arc<Shared>,
    member: &Member,
    req: &CreateRoom,
) -> Result<RoomHandle, Refusal> {
    if *shared.stopping.borrow() {
        return Err(Refusal::new(
            ErrorCode::Unavailable,
            "the server is shutting down",
        ));
    }
    let settings = Settings::from_request(req, member.user().is_some())?;
    // Every room holds memory until it closes (up to 30 minutes after its last viewer).
    let (open, hosted) = shared.lobby.count(&member.key);
    let soft = shared.config.max_rooms / 4 * 3;
    if open >= soft {
        // Past three quarters of the limit, the oldest rooms nobody views close now
        // rather than 30 minutes after their last viewer, so that finished games cannot
        // fill the server while new ones are played.
        for room in shared.lobby.oldest_closable((open + 1 - soft).min(64)) {
            // A full queue or a closed room: nothing to do.
            room.try_send(RoomMsg::CloseIfIdle);
        }
    }
    if open >= shared.config.max_rooms {
        tracing::warn!(open, "room refused: the server has its most open rooms");
        return Err(Refusal::new(
            ErrorCode::Unavailable,
            "the server has too many open rooms; try again later",
        ));
    }
    if hosted >= shared.config.rooms_per_host_soft {
        // Keep a kiosk that plays game after game well under the hard limit: its old
        // rooms nobody views close now rather than after the idle time.
        let excess = hosted + 1 - shared.config.rooms_per_host_soft;
        for room in shared.lobby.hosted(&member.key).into_iter().take(excess) {
            // A full queue or a closed room: nothing to do.
            room.try_send(RoomMsg::CloseIfIdle);
        }
    }
    if hosted >= shared.config.max_rooms_per_host {
        tracing::warn!(
            conn = member.conn,
            hosted,
            "room refused: too many open rooms of one host"
        );
        return Err(Refusal::new(
            ErrorCode::Unavailable,
            format!("you have {hosted} rooms open; leave one (exit) before creating another"),
        ));
    }
    let mut rng = StdRng::from_rng(&mut rand::rng());
    let id = loop {
        let id = room_id(&mut rng);
        if !shared.lobby.contains(&id) && !id_of_stored_game(shared, &id) {
            break id;
        }
    };
    let mut seats = shared.seats.clone();
    if let (true, Some(user)) = (settings.is_online(), member.user()) {
        // M3.4: a player sits in at most one waiting or active room.
        if let Err(place) = seats.claim(user, &id, false) {
            return Err(Refusal::new(
                ErrorCode::AlreadySeated,
                format!("you already sit in room {}; leave it first", place.room),
            ));
        }
    }
    let mut ctx = Ctx {
        now_ms: shared.now_ms(),
        wall_ms: wall_ms(),
        rng: &mut rng,
        seats: &mut seats,
    };
    let mut room = Room::new(id, settings, member, &mut ctx);
    let fx = room.resume(&mut ctx);
    tracing::info!(room = %room.id(), game = %room.settings().game, "room created");
    Ok(actor::spawn(room, fx, shared.clone()))
}

/// Whether a stored game uses `id` (issue 10.4: a new room must not clash with an old game, or
/// its result could not be stored). One short read. When the store cannot be read the id counts
/// as free: room creation must not wait on a failing card, and a clash among 31^6 ids is
/// unlikely.
fn id_of_stored_game(shared: &Shared, id: &str) -> bool {
    shared.store.room_id_taken_blocking(id).unwrap_or_else(|e| {
        tracing::warn!(room = id, error = %e, "cannot check a new room id against stored games");
        false
    })
}

/// A short id that is easy to read aloud and type: no 0/o, 1/l/i.
fn room_id(rng: &mut StdRng) -> String {
    const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
    (0..6)
        .map(|_| char::from(*ALPHABET.choose(rng).expect("alphabet is not empty")))
        .collect()
}
