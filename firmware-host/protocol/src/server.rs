//! What the server sends. The first message on every connection is [`ServerMsg::Hello`].

use engine::{Cell, Mark};
use serde::{Deserialize, Serialize};

use crate::error::ErrorCode;
use crate::event::{EventUpdate, EventView, Paired};
use crate::puzzle::PuzzleView;
use crate::records::{GameEnd, RatingUpdate, UserId};
use crate::view::{Name, RoomSummary, RoomView};
use crate::{RequestId, RoomId};

/// A message from the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerMsg {
    /// The first message of every connection: the protocol version and who the server
    /// thinks the client is.
    Hello {
        version: u32,
        /// The signed-in player's id, if any.
        user: Option<UserId>,
        /// The name the server shows for this client, in English (for older clients).
        name: String,
        /// Limits the client must respect.
        max_frame_bytes: u32,
        max_messages_per_s: u32,
        /// The same name as a kind, for the client to word in its language.
        you: Name,
    },
    /// Answers `ping`.
    Pong { id: Option<RequestId> },
    /// The first rows of the lobby (as many as `watch_lobby` asked for) and how many rooms the
    /// reader may see in all: after `watch_lobby` (with its id), and again (without) when the
    /// server could not send the changes one by one. Later changes come as `lobby_update`.
    Lobby {
        id: Option<RequestId>,
        rooms: Vec<RoomSummary>,
        #[serde(default)]
        total: u32,
    },
    /// A full snapshot of the current room for this reader. `id` echoes the intent whose
    /// success caused it, in the snapshot sent to that intent's sender.
    Room {
        id: Option<RequestId>,
        room: Box<RoomView>,
    },
    /// Something happened, for animation and announcements (U5). The snapshot that follows or
    /// precedes it is the truth.
    Event(Event),
    /// Answers `hint`: one Perfect move for the human (T5).
    Hint { id: Option<RequestId>, cell: Cell },
    /// The connection no longer views `room` (answers `exit` and `close`, or follows a kick or
    /// a closing room).
    Left { id: Option<RequestId>, room: RoomId },
    /// An intent or frame was refused. Nothing changed and nobody else was told.
    Error {
        id: Option<RequestId>,
        code: ErrorCode,
        message: String,
    },
    /// What changed on the watcher's page of the lobby since the last `lobby` or
    /// `lobby_update`: rows new to the page or changed (replace the row with the same id, or
    /// add it), ids that left the page, and the new count of rooms the reader may see.
    LobbyUpdate {
        rows: Vec<RoomSummary>,
        removed: Vec<RoomId>,
        total: u32,
    },
    /// One of this connection's puzzle attempts, whole: answers `puzzle_start`,
    /// `puzzle_move` and `puzzle_retry`.
    Puzzle {
        id: Option<RequestId>,
        attempt: Box<PuzzleView>,
    },
    /// An arena event as this reader may see it, whole: answers `watch_event`, `join_event`,
    /// `pause_event`, `resume_event` and `leave_event`, and is sent again (without an id)
    /// when the server could not send a watcher every change.
    EventSnapshot {
        id: Option<RequestId>,
        event: Box<EventView>,
    },
    /// What changed in the watched event since its last snapshot or update (standings as a
    /// delta), to every watcher.
    EventUpdate(Box<EventUpdate>),
    /// To every connection of a player of the event: they are paired (EV3). The server makes
    /// `room` those connections' current room and sends its snapshot next; the game has
    /// started.
    Paired(Paired),
}

/// Something that happened in a room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    /// A mark was placed; in Infinite XO `removed` is the mark that vanished (R-INF-2).
    Moved {
        room: RoomId,
        mark: Mark,
        cell: Cell,
        removed: Option<Cell>,
        /// The clock ran out and the server played for the player (M3.7).
        automatic: bool,
        /// The bot played it (M1).
        bot: bool,
    },
    /// R-INF-4: the position occurred a second time; once more draws.
    RepetitionWarning { room: RoomId },
    /// The game ended. Rated results are sent only after they are stored (P3), with each
    /// player's change in X, O order (E3).
    Result {
        room: RoomId,
        end: GameEnd,
        ratings: Vec<RatingUpdate>,
    },
    /// `by` offered a draw (M3.8).
    DrawOffered { room: RoomId, by: Mark },
    /// `by` declined the pending offer, or it was withdrawn by a move of its maker.
    DrawDeclined { room: RoomId, by: Mark },
    /// Moves were taken back (M1.3, M2.2).
    Undone { room: RoomId, plies: u8 },
    /// To the host: someone asks for seat 2 (M3.3).
    JoinRequested {
        room: RoomId,
        user: UserId,
        name: String,
    },
    /// To a requester: the host declined.
    RequestDeclined { room: RoomId },
    /// To a player moved out of their waiting seat because another room accepted them (M3.4).
    SeatMoved { from: RoomId, to: RoomId },
    /// To the kicked player (M3.5).
    Kicked { room: RoomId },
    /// The room closed.
    RoomClosed { room: RoomId, reason: CloseReason },
    /// M3.12: the player holding `by` in the finished game offers a rematch.
    RematchOffered { room: RoomId, by: Mark },
    /// M3.12: `by` declined the pending rematch offer.
    RematchDeclined { room: RoomId, by: Mark },
    /// M3.12: the next game of this room is room `next` (a play again or an accepted rematch).
    /// Sent to every viewer of `room`, players and spectators; the server makes `next` their
    /// current room and sends its snapshot next.
    NextRoom { room: RoomId, next: RoomId },
}

/// Why a room closed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CloseReason {
    /// The host left the waiting room (M3.9).
    HostLeft,
    /// The player ended a bot or local game (M2.3).
    Ended,
    /// Nobody came back for a long time.
    Idle,
    /// The server is shutting down; the room will be restored.
    Shutdown,
    /// An owner of the kiosk closed the room (SPEC O2), saying why; a game in progress ends
    /// without a result.
    Owner { message: String },
}

impl ServerMsg {
    /// An error answering intent `id`.
    pub fn error(id: Option<RequestId>, code: ErrorCode, message: impl Into<String>) -> ServerMsg {
        ServerMsg::Error {
            id,
            code,
            message: message.into(),
        }
    }
}
