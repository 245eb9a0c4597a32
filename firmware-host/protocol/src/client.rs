//! What a client sends: a hello, then intents. Each intent may carry a client-chosen `id` that
//! the reply or error answering it echoes. The server decides everything (P2): intents only ask.
//!
//! Room intents act on the connection's *current room*: the one it last created, opened or
//! joined.

use engine::{Cell, Game, Mark};
use serde::{Deserialize, Serialize};

use crate::event::EventId;
use crate::puzzle::{AttemptId, PuzzleSource};
use crate::{RequestId, RoomId};

/// A message from a client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ClientMsg {
    /// The first message of every connection.
    Hello { version: u32 },
    /// Keep-alive; answered by `pong`.
    Ping {
        #[serde(default)]
        id: Option<RequestId>,
    },
    /// Receive the first `limit` rows of the lobby now (default 20, at most 100) and the changes
    /// of those rows whenever they change; sent again with a larger limit, it shows more.
    WatchLobby {
        #[serde(default)]
        id: Option<RequestId>,
        #[serde(default)]
        limit: Option<u32>,
    },
    /// Stop receiving lobby updates.
    UnwatchLobby {
        #[serde(default)]
        id: Option<RequestId>,
    },
    /// Create a room (M1, M2, M3.1) and make it the current room.
    CreateRoom {
        #[serde(default)]
        id: Option<RequestId>,
        room: CreateRoom,
    },
    /// Open a room to view it (M4); a seated player opening their room is back (M3.10).
    Open {
        #[serde(default)]
        id: Option<RequestId>,
        room: RoomId,
    },
    /// Stop viewing the current room: presence only (M3.10), no effect on the game.
    Close {
        #[serde(default)]
        id: Option<RequestId>,
    },
    /// Ask for seat 2 of a room (M3.3), which becomes the current room. `passcode` is needed
    /// when the room asks for one.
    Join {
        #[serde(default)]
        id: Option<RequestId>,
        room: RoomId,
        #[serde(default)]
        passcode: Option<String>,
    },
    /// Withdraw one's pending join request in the current room (M3.3).
    CancelRequest {
        #[serde(default)]
        id: Option<RequestId>,
    },
    /// Host: seat the player whose request is pending (M3.3).
    Accept {
        #[serde(default)]
        id: Option<RequestId>,
        user: u64,
    },
    /// Host: refuse a pending request (M3.3).
    Decline {
        #[serde(default)]
        id: Option<RequestId>,
        user: u64,
    },
    /// Host, before play: remove the seated player and ban them from the room (M3.5).
    Kick {
        #[serde(default)]
        id: Option<RequestId>,
    },
    /// Seated player, before play: set one's ready flag (M3.6).
    Ready {
        #[serde(default)]
        id: Option<RequestId>,
        ready: bool,
    },
    /// Host: start once both players are ready (M3.6).
    Start {
        #[serde(default)]
        id: Option<RequestId>,
    },
    /// Place a mark on `cell` (0–8, row-major from the top left).
    Move {
        #[serde(default)]
        id: Option<RequestId>,
        cell: Cell,
    },
    /// Offer a draw (M3.8).
    OfferDraw {
        #[serde(default)]
        id: Option<RequestId>,
    },
    /// Answer the opponent's draw offer (M3.8).
    AnswerDraw {
        #[serde(default)]
        id: Option<RequestId>,
        accept: bool,
    },
    /// Resign and stay in the completed room (M3.9).
    Resign {
        #[serde(default)]
        id: Option<RequestId>,
    },
    /// Leave the room: resigns an active game first (M3.9), leaves a waiting seat (the host's
    /// leaving closes the room), ends a bot or local game (M2.3). Answered by `left`.
    Exit {
        #[serde(default)]
        id: Option<RequestId>,
    },
    /// Bot games: ask for one Perfect move (T5). Answered by `hint`.
    Hint {
        #[serde(default)]
        id: Option<RequestId>,
    },
    /// Bot games: take back the human's last move and the bot's reply; local games: the last
    /// move (M1.3, M2.2).
    Undo {
        #[serde(default)]
        id: Option<RequestId>,
    },
    /// Bot and local games, once finished: the same setup again in a new room (local sides
    /// swapped), answered by `next_room` and the new room's snapshot (M3.12).
    PlayAgain {
        #[serde(default)]
        id: Option<RequestId>,
    },
    /// Online games, once finished: offer the opponent a rematch with colours swapped (M3.12).
    /// Offering while the opponent's offer is pending accepts it.
    OfferRematch {
        #[serde(default)]
        id: Option<RequestId>,
    },
    /// Answer the opponent's rematch offer (M3.12); accepting starts the new rated room.
    AnswerRematch {
        #[serde(default)]
        id: Option<RequestId>,
        accept: bool,
    },
    /// Start an attempt at a puzzle (PZ2, PZ4, PZ5); answered by `puzzle`.
    PuzzleStart {
        #[serde(default)]
        id: Option<RequestId>,
        source: PuzzleSource,
    },
    /// Play `cell` in one's own attempt; answered by `puzzle`.
    PuzzleMove {
        #[serde(default)]
        id: Option<RequestId>,
        attempt: AttemptId,
        cell: Cell,
    },
    /// Once an attempt is over: the same puzzle again from its start, as a new attempt;
    /// answered by `puzzle`.
    PuzzleRetry {
        #[serde(default)]
        id: Option<RequestId>,
        attempt: AttemptId,
    },
    /// Receive arena event `event`'s snapshot now (answered by `event_snapshot`) and its
    /// changes from then on (`event_update`); anyone, guests too (EV2, EV6). A connection
    /// watches one event: watching another stops the first.
    WatchEvent {
        #[serde(default)]
        id: Option<RequestId>,
        event: EventId,
    },
    /// Stop receiving the watched event's changes; answered by `pong`.
    UnwatchEvent {
        #[serde(default)]
        id: Option<RequestId>,
    },
    /// Signed-in players: join the event, or come back after leaving or pausing (EV2). The
    /// connection watches it from then on; `paired` follows whenever the player is paired.
    JoinEvent {
        #[serde(default)]
        id: Option<RequestId>,
        event: EventId,
    },
    /// Not paired until `resume_event`; a game in progress goes on (EV2).
    PauseEvent {
        #[serde(default)]
        id: Option<RequestId>,
        event: EventId,
    },
    /// Paired again after `pause_event`.
    ResumeEvent {
        #[serde(default)]
        id: Option<RequestId>,
        event: EventId,
    },
    /// Withdraw from the event: games played still count; a game in progress goes on.
    LeaveEvent {
        #[serde(default)]
        id: Option<RequestId>,
        event: EventId,
    },
}

/// Matches `$msg` binding `$id` to the id field of every message that has one; the hello has
/// none. One list of variants serves reading and setting the id.
macro_rules! match_id {
    ($msg:expr, $id:ident => $some:expr, hello => $none:expr) => {
        match $msg {
            ClientMsg::Hello { .. } => $none,
            ClientMsg::Ping { $id }
            | ClientMsg::WatchLobby { $id, .. }
            | ClientMsg::UnwatchLobby { $id }
            | ClientMsg::CreateRoom { $id, .. }
            | ClientMsg::Open { $id, .. }
            | ClientMsg::Close { $id }
            | ClientMsg::Join { $id, .. }
            | ClientMsg::CancelRequest { $id }
            | ClientMsg::Accept { $id, .. }
            | ClientMsg::Decline { $id, .. }
            | ClientMsg::Kick { $id }
            | ClientMsg::Ready { $id, .. }
            | ClientMsg::Start { $id }
            | ClientMsg::Move { $id, .. }
            | ClientMsg::OfferDraw { $id }
            | ClientMsg::AnswerDraw { $id, .. }
            | ClientMsg::Resign { $id }
            | ClientMsg::Exit { $id }
            | ClientMsg::Hint { $id }
            | ClientMsg::Undo { $id }
            | ClientMsg::PlayAgain { $id }
            | ClientMsg::OfferRematch { $id }
            | ClientMsg::AnswerRematch { $id, .. }
            | ClientMsg::PuzzleStart { $id, .. }
            | ClientMsg::PuzzleMove { $id, .. }
            | ClientMsg::PuzzleRetry { $id, .. }
            | ClientMsg::WatchEvent { $id, .. }
            | ClientMsg::UnwatchEvent { $id }
            | ClientMsg::JoinEvent { $id, .. }
            | ClientMsg::PauseEvent { $id, .. }
            | ClientMsg::ResumeEvent { $id, .. }
            | ClientMsg::LeaveEvent { $id, .. } => $some,
        }
    };
}

impl ClientMsg {
    /// The client-chosen id, if the message carries one.
    pub fn id(&self) -> Option<RequestId> {
        match_id!(self, id => *id, hello => None)
    }

    /// The message with its client-chosen id set to `n` (the hello carries none).
    pub fn with_id(mut self, n: RequestId) -> ClientMsg {
        match_id!(&mut self, id => *id = Some(n), hello => ());
        self
    }
}

/// The creation box (M1.1, M1.2, M2.1, M3.1). Missing options take SPEC's defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateRoom {
    pub game: Game,
    pub opponent: OpponentRequest,
    /// Infinite XO only: 5, 10 or 30 seconds per move; default 10 (M3.1, M3.7).
    #[serde(default)]
    pub time_per_move_s: Option<u8>,
}

/// Who the creator plays against.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpponentRequest {
    /// M3: another signed-in player, rated.
    Player {
        #[serde(default)]
        joining: JoiningRequest,
    },
    /// M1: the bot. `difficulty` 0–100, default 50; `side` is the human's mark, default X.
    Bot {
        #[serde(default)]
        difficulty: Option<u8>,
        #[serde(default)]
        side: Option<Mark>,
    },
    /// M2: two names on one device; X and O are assigned at random.
    Local { names: [String; 2] },
}

/// How seat 2 of an online room is taken (M3.1, M3.3).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JoiningRequest {
    /// Seated at once.
    #[default]
    Open,
    /// The host accepts or declines each request.
    Approval,
    /// The exact four digits seat the player.
    Passcode { code: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_id_sets_every_intent_id_and_the_hello_has_none() {
        let msg = ClientMsg::Move { id: None, cell: 4 }.with_id(9);
        assert_eq!(
            msg,
            ClientMsg::Move {
                id: Some(9),
                cell: 4
            }
        );
        assert_eq!(msg.id(), Some(9));
        assert_eq!(ClientMsg::Hello { version: 1 }.with_id(9).id(), None);
        assert_eq!(ClientMsg::Start { id: None }.with_id(3).id(), Some(3));
    }
}
