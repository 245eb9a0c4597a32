//! Creating a room from the creation box (M1, M2, M3.1): the server's and the host's room limits,
//! a fresh id, the creator's seat (M3.4), then the room's task.

use std::sync::Arc;

use engine::Mark;
use protocol::event::{EventId, Paired};
use protocol::{CreateRoom, ServerMsg};
use rand::SeedableRng;
use rand::rngs::StdRng;

use crate::actor;
use crate::arena_actor::Pairing;
use crate::handle::{RoomHandle, RoomMsg};
use crate::refusal::{Reason, Refusal, refuse};
use crate::room::{Ctx, EventTag, Member, PlayerKey, Room};
use crate::seats::SeatBook;
use crate::settings::{Opponent, Policy, Settings};
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

/// EV3: the room of an arena event's pairing: an open online room with the event's game and
/// clock, both players seated with their marks (their seats claimed, M3.4) and the game
/// started at once, without ready or start; then every connection of each player is told
/// `paired` and moved in. Refused when the server is stopping, a player has no connection
/// now, or sits in another room now: the arena then gives the pairing up.
pub(crate) fn create_event_game(
    shared: &Arc<Shared>,
    event: &EventId,
    pairing: &Pairing,
) -> Result<RoomHandle, Refusal> {
    if *shared.stopping.borrow() {
        return refuse(Reason::ShuttingDown);
    }
    for player in [&pairing.x, &pairing.o] {
        if !shared.conns.has(&PlayerKey::User(player.user)) {
            return refuse(Reason::NotConnected {
                name: player.name.clone(),
            });
        }
    }
    let settings = Settings {
        game: pairing.settings.game,
        opponent: Opponent::Player {
            policy: Policy::Open,
        },
        per_move_ms: Some(pairing.settings.per_move_ms),
    }
    .with_xo_move_limit(shared.config.xo_move_limit);
    let mut rng = StdRng::from_rng(&mut rand::rng());
    let id = shared.fresh_room_id(&mut rng);
    let mut seats = shared.seats.clone();
    let mut ctx = Ctx {
        now_ms: shared.now_ms(),
        wall_ms: wall_ms(),
        rng: &mut rng,
        seats: &mut seats,
        rated: &**shared,
    };
    let tag = EventTag {
        event: event.clone(),
        no: pairing.no,
        rated: pairing.settings.rated,
    };
    let mut room = Room::event_game(id, settings, &pairing.x, &pairing.o, tag, &mut ctx)?;
    let fx = room.resume(&mut ctx);
    tracing::info!(room = %room.id(), event = %event, no = pairing.no, x = pairing.x.user, o = pairing.o.user, "event game created");
    let handle = actor::spawn(room, fx, shared.clone(), false);
    for (me, mark, them) in [
        (&pairing.x, Mark::X, &pairing.o),
        (&pairing.o, Mark::O, &pairing.x),
    ] {
        let paired = ServerMsg::Paired(Paired {
            event: event.clone(),
            room: handle.id.clone(),
            mark,
            opponent: them.user,
            opponent_name: them.name.clone(),
        });
        shared
            .conns
            .move_person(&PlayerKey::User(me.user), &paired, &handle);
    }
    Ok(handle)
}
