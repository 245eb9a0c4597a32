//! The saved form of an open room: postcard of a versioned enum, so a later version can still
//! read what an earlier one wrote. Rooms are saved after every change and restored after a
//! restart with their seats, settings, moves and repetition history; the side to move gets a
//! fresh full clock.

use std::collections::{BTreeMap, BTreeSet};

use engine::{Cell, GameRecord, Mark};
use protocol::records::UserId;
use protocol::{Phase, RoomId};
use serde::{Deserialize, Serialize};

use crate::room::passcode::Passcodes;
use crate::room::{Bans, EventTag, PlayerKey, Room, Seat};
use crate::seats::SeatBook;
use crate::settings::Settings;

/// Every version of the saved form. New versions are added at the end; old ones stay readable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum Saved {
    V1(SavedV1),
    /// Adds the kicked players' device tokens (M3.5 bans the browser, not only the account).
    V2(SavedV2),
    /// An arena event's game (EV3, EV7): the event and the game's number in it. Written only
    /// for event games, so other rooms stay readable by a release without events.
    V3(SavedV3),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct SavedV3 {
    v2: SavedV2,
    event: EventTag,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct SavedV2 {
    base: SavedV1,
    kicked_devices: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct SavedV1 {
    id: RoomId,
    settings: Settings,
    host: PlayerKey,
    seats: [Seat; 2],
    phase: Phase,
    moves: Vec<Cell>,
    draw_offer: Option<Mark>,
    last_offer: [Option<u32>; 2],
    requests: Vec<(UserId, String)>,
    kicked: Vec<PlayerKey>,
    started_at_ms: u64,
    game_no: u32,
}

/// Why saved bytes could not become a room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreError {
    /// Not a saved room of any known version.
    Decode(String),
    /// The moves do not replay under the rules.
    IllegalMoves(String),
    /// Finished rooms are never saved.
    Finished,
}

impl core::fmt::Display for RestoreError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            RestoreError::Decode(e) => write!(f, "cannot decode saved room: {e}"),
            RestoreError::IllegalMoves(e) => write!(f, "saved moves do not replay: {e}"),
            RestoreError::Finished => f.write_str("saved room is finished"),
        }
    }
}

impl std::error::Error for RestoreError {}

impl Room {
    /// The room's saved form (viewers, clocks and results are not saved).
    pub fn save(&self) -> Vec<u8> {
        let base = SavedV1 {
            id: self.id.clone(),
            settings: self.settings.clone(),
            host: self.host.clone(),
            seats: self.seats.clone(),
            phase: self.phase,
            moves: self.record.moves().to_vec(),
            draw_offer: self.draw_offer,
            last_offer: self
                .last_offer
                .map(|o| o.map(|n| u32::try_from(n).unwrap_or(u32::MAX))),
            requests: self.requests.clone(),
            kicked: self.kicked.keys.iter().cloned().collect(),
            started_at_ms: self.started_at_ms,
            game_no: self.game_no,
        };
        let v2 = SavedV2 {
            base,
            kicked_devices: self.kicked.devices.iter().cloned().collect(),
        };
        let saved = match &self.event {
            Some(event) => Saved::V3(SavedV3 {
                v2,
                event: event.clone(),
            }),
            None => Saved::V2(v2),
        };
        postcard::to_allocvec(&saved).expect("a room always serialises")
    }

    /// Rebuilds a saved room, replaying its moves (which restores the repetition counts) and
    /// re-entering its players in the seat book. Call [`Room::resume`] next to start the clock.
    pub fn restore(bytes: &[u8], seats: &mut dyn SeatBook) -> Result<Room, RestoreError> {
        let (s, kicked_devices, event) =
            match postcard::from_bytes(bytes).map_err(|e| RestoreError::Decode(e.to_string()))? {
                Saved::V1(s) => (s, Vec::new(), None),
                Saved::V2(SavedV2 {
                    base,
                    kicked_devices,
                }) => (base, kicked_devices, None),
                Saved::V3(SavedV3 {
                    v2:
                        SavedV2 {
                            base,
                            kicked_devices,
                        },
                    event,
                }) => (base, kicked_devices, Some(event)),
            };
        if s.phase == Phase::Finished {
            return Err(RestoreError::Finished);
        }
        let record = GameRecord::from_moves(s.settings.game, &s.moves)
            .map_err(|(i, e)| RestoreError::IllegalMoves(format!("move {i}: {e}")))?;
        if record.end().is_some() {
            return Err(RestoreError::Finished);
        }
        let room = Room {
            id: s.id,
            settings: s.settings,
            host: s.host,
            seats: s.seats,
            phase: s.phase,
            record,
            clock: None,
            draw_offer: s.draw_offer,
            last_offer: s.last_offer.map(|o| o.map(|n| n as usize)),
            rematch_offer: None,
            rematch_offered: [false, false],
            requests: s.requests,
            kicked: Bans {
                keys: s.kicked.into_iter().collect::<BTreeSet<_>>(),
                devices: kicked_devices.into_iter().collect(),
            },
            badges: BTreeMap::new(),
            viewers: BTreeMap::new(),
            outcome: None,
            started_at_ms: s.started_at_ms,
            game_no: s.game_no,
            passcodes: Passcodes::default(),
            event,
        };
        for user in room.seated_users() {
            // A restored room's players were seated before the restart; a conflict can only
            // come from a corrupt store, and the first room restored keeps the player.
            if seats.claim(user, &room.id, false).is_err() {
                tracing::warn!(room = %room.id, user, "player seated in two saved rooms");
            }
        }
        if room.phase == Phase::Playing {
            seats.set_active(&room.id, true);
        }
        Ok(room)
    }
}
