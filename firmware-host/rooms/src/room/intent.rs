//! What goes into the state machine ([`Intent`], with [`Ctx`]) and what comes out
//! ([`Effect`]s for the actor to carry out).

use engine::Cell;
use protocol::records::{FinishedGame, UserId};
use protocol::{CloseReason, Event, RoomId};
use rand::Rng;

use super::member::{ConnId, PlayerKey};
use crate::rated::RatedGate;
use crate::seats::SeatBook;

/// An intent aimed at one room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Intent {
    /// View the room (M4); a seated player's presence returns (M3.10).
    Open,
    /// Stop viewing: presence only.
    Close,
    Join {
        passcode: Option<String>,
    },
    CancelRequest,
    Accept {
        user: UserId,
    },
    Decline {
        user: UserId,
    },
    Kick,
    Ready {
        ready: bool,
    },
    Start,
    Move {
        cell: Cell,
    },
    OfferDraw,
    AnswerDraw {
        accept: bool,
    },
    Resign,
    Exit,
    Hint,
    Undo,
    /// M3.12: a finished bot or local game again, in a new room.
    PlayAgain,
    /// M3.12: a finished online game again with colours swapped, if the opponent agrees.
    OfferRematch,
    AnswerRematch {
        accept: bool,
    },
}

/// Who receives an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Audience {
    /// Every connection viewing the room.
    All,
    /// Every connection of one person viewing the room.
    Person(PlayerKey),
}

/// What the actor must do after a change.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send every viewer a fresh snapshot, update the lobby, save the room.
    Changed,
    Event {
        to: Audience,
        event: Event,
    },
    /// Answer a hint request (T5).
    Hint {
        conn: ConnId,
        cell: Cell,
    },
    /// This connection no longer views the room: tell it `left`.
    Detach {
        conn: ConnId,
    },
    /// Store the finished game (rated: with both ratings in one transaction, P3), then call
    /// [`Room::committed`] or [`Room::commit_failed`]. Nothing about the result is sent first.
    Commit(FinishedGame),
    /// Fetch these players' ratings on this room's ladder and call [`Room::set_ratings`].
    LoadRatings(Vec<UserId>),
    /// M3.4: `user` moved here from their waiting seat in room `from`, which must reopen it.
    Vacate {
        user: UserId,
        from: RoomId,
    },
    /// The room closes: tell every viewer, forget the saved state, leave the lobby.
    Close(CloseReason),
    /// M3.12: start the next game ([`super::Room::next_game`]) in a new room, move every
    /// viewer there, and close this room.
    NextGame,
}

impl Effect {
    /// An event for every viewer of the room, players and spectators.
    pub fn to_all(event: Event) -> Self {
        Effect::Event {
            to: Audience::All,
            event,
        }
    }
}

/// What a step of the state machine may use besides the room itself.
pub struct Ctx<'a, R: Rng> {
    /// Monotonic milliseconds, for clocks.
    pub now_ms: u64,
    /// Milliseconds since the Unix epoch, for records.
    pub wall_ms: u64,
    pub rng: &'a mut R,
    pub seats: &'a mut dyn SeatBook,
    /// The rated-game budget of the players' addresses.
    pub rated: &'a dyn RatedGate,
}

impl<R: Rng> core::fmt::Debug for Ctx<'_, R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ctx").field("now_ms", &self.now_ms).finish()
    }
}
