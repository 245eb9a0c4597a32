//! Creating a room from the creation box (M1, M2, M3.1): the server's and the host's room limits,
//! a fresh id, the creator's seat (M3.4), then the room's task.

use std::sync::Arc;

use protocol::CreateRoom;
use rand::SeedableRng;
use rand::rngs::StdRng;

use crate::actor;
use crate::handle::{RoomHandle, RoomMsg};
use crate::refusal::{Reason, Refusal, refuse};
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
        return refuse(Reason::ShuttingDown);
    }
    let settings = Settings::from_request(req, member.user().is_some())?
        .with_xo_move_limit(shared.config.xo_move_limit);
    // Every room holds memory until it closes (up to 30 minutes after its last viewer). The
    // place is held until the room is listed (the end of this function).
    let place = shared.lobby.reserve(
        &member.key,
        shared.config.max_rooms,
        shared.config.max_rooms_per_host,
    );
    let (open, hosted) = (place.open, place.hosted);
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
    if hosted >= shared.config.rooms_per_host_soft {
        // Keep a kiosk that plays game after game well under the hard limit: its old
        // rooms nobody views close now rather than after the idle time.
        let excess = hosted + 1 - shared.config.rooms_per_host_soft;
        for room in shared.lobby.oldest_closable_of(&member.key, excess) {
            // A full queue or a closed room: nothing to do.
            room.try_send(RoomMsg::CloseIfIdle);
        }
    }
    if open >= shared.config.max_rooms {
        tracing::warn!(open, "room refused: the server has its most open rooms");
        return refuse(Reason::TooManyRooms);
    }
    if !place.granted {
        tracing::warn!(
            conn = member.conn,
            hosted,
            "room refused: too many open rooms of one host"
        );
        return refuse(Reason::TooManyOwnRooms { hosted });
    }
    let mut rng = StdRng::from_rng(&mut rand::rng());
    let id = shared.fresh_room_id(&mut rng);
    let mut seats = shared.seats.clone();
    if let (true, Some(user)) = (settings.is_online(), member.user()) {
        // M3.4: a player sits in at most one waiting or active room.
        if let Err(place) = seats.claim(user, &id, false) {
            return refuse(Reason::SitsElsewhere { room: place.room });
        }
    }
    let mut ctx = Ctx {
        now_ms: shared.now_ms(),
        wall_ms: wall_ms(),
        rng: &mut rng,
        seats: &mut seats,
        rated: &**shared,
    };
    let mut room = Room::new(id, settings, member, &mut ctx);
    let fx = room.resume(&mut ctx);
    tracing::info!(room = %room.id(), game = %room.settings().game, "room created");
    Ok(actor::spawn(room, fx, shared.clone(), false))
}
