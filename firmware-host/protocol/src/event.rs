//! Arena events on the wire (EV1–EV7): the event as one reader sees it ([`EventView`], in
//! `ServerMsg::EventSnapshot`), what changed since ([`EventUpdate`], standings as a delta), and
//! "you are paired" ([`Paired`]). The intents are `ClientMsg::{WatchEvent, UnwatchEvent,
//! JoinEvent, PauseEvent, ResumeEvent, LeaveEvent}`, and their refusals
//! `ErrorCode::{UnknownEvent, NotInEvent, EventOver, EventFull}` (and `SignInRequired` for a
//! guest who joins).
//!
//! Time travels as durations from the server's now (`starts_in_ms`, `ends_in_ms`), never as
//! the client's clock.

use engine::{Game, Mark};
use serde::{Deserialize, Serialize};

use crate::RoomId;
use crate::records::UserId;

/// An event's id: short, URL-safe, chosen by the server (`/events/ID`).
pub type EventId = String;

/// Where an event is in its life (EV1, EV5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventPhase {
    /// The countdown to the start.
    Announced,
    /// Players are paired.
    Running,
    /// Time is up: nothing new is paired; games in progress finish and count.
    Ending,
    /// Final standings and podium.
    Finished,
    Cancelled,
}

/// The reader's own state in the event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntrantState {
    /// Waiting to be paired.
    Waiting,
    Playing,
    Paused,
    /// Offline or seated elsewhere: not paired until back.
    Away,
    /// Withdrew; their games still count.
    Left,
}

/// One row of the standings (EV4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventRow {
    pub user: UserId,
    pub name: String,
    /// 1-based, shared by rows equal in points, performance and games.
    pub rank: u32,
    pub points: u32,
    /// `(opponents' ratings + 500 × (wins − losses)) / games`; none before the first game.
    pub performance: Option<i32>,
    pub games: u32,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Wins in a row now; from 2 on the next win scores 4 (shown as a streak).
    pub streak: u32,
}

/// A game of the event in progress, to watch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventBoard {
    pub room: RoomId,
    pub x: UserId,
    pub o: UserId,
}

/// The reader's own place in the event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventYou {
    pub state: EntrantState,
    /// The room of the reader's game in progress.
    pub room: Option<RoomId>,
}

/// The event as one reader may see it: sent after `watch_event` and after each of the reader's
/// own intents. Changes in between come as [`EventUpdate`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventView {
    pub event: EventId,
    pub name: String,
    pub game: Game,
    pub rated: bool,
    /// The move clock of every game: Infinite XO's chosen time, XO's two-minute forfeit.
    pub per_move_ms: u32,
    pub phase: EventPhase,
    /// Milliseconds from the server's now to the start (0 once started).
    pub starts_in_ms: u64,
    /// Milliseconds from the server's now to time up (0 once up).
    pub ends_in_ms: u64,
    pub duration_ms: u64,
    /// Players in the event (joined, not left).
    pub players: u32,
    /// The whole table, best first.
    pub standings: Vec<EventRow>,
    pub boards: Vec<EventBoard>,
    /// Finished: the podium rows (ranks 1–3 with ties; may be more than three).
    pub podium: Vec<EventRow>,
    /// The reader, if they are in the event.
    pub you: Option<EventYou>,
}

/// What changed in the standings (EV6): rows that are new or changed, in the new order, and
/// players no longer listed. A client removes `removed`, replaces or adds `rows` by `user`,
/// and sorts by `rank` then `user`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandingsDelta {
    pub removed: Vec<UserId>,
    pub rows: Vec<EventRow>,
}

/// What changed in the event since the last snapshot or update, for everyone watching it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventUpdate {
    pub event: EventId,
    pub phase: EventPhase,
    /// Milliseconds from the server's now to time up (0 once up).
    pub ends_in_ms: u64,
    /// Players in the event now.
    pub players: u32,
    /// The standings' change, if they changed.
    #[serde(default)]
    pub standings: Option<StandingsDelta>,
    /// Every game in progress, when they changed.
    #[serde(default)]
    pub boards: Option<Vec<EventBoard>>,
    /// The podium, once the event has finished.
    #[serde(default)]
    pub podium: Option<Vec<EventRow>>,
    /// The reader's own state, in the update sent to a player whose state changed (a game
    /// ended, they went away or came back); `null` otherwise.
    #[serde(default)]
    pub you: Option<EventYou>,
}

/// You are paired (EV3): every connection of yours moves into `room` at once, where the game
/// has started without ready/start; its snapshot follows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Paired {
    pub event: EventId,
    pub room: RoomId,
    /// Your mark in the game.
    pub mark: Mark,
    pub opponent: UserId,
    pub opponent_name: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::DeserializeOwned;

    fn round_trip<T: Serialize + DeserializeOwned + PartialEq + core::fmt::Debug>(value: &T) {
        let json = serde_json::to_string(value).expect("to JSON");
        assert_eq!(
            &serde_json::from_str::<T>(&json).expect("from JSON"),
            value,
            "{json}"
        );
        let bytes = postcard::to_allocvec(value).expect("to postcard");
        assert_eq!(
            &postcard::from_bytes::<T>(&bytes).expect("from postcard"),
            value
        );
    }

    fn row(user: UserId, rank: u32) -> EventRow {
        EventRow {
            user,
            name: format!("p{user}"),
            rank,
            points: 6,
            performance: Some(1650),
            games: 3,
            wins: 2,
            draws: 0,
            losses: 1,
            streak: 2,
        }
    }

    #[test]
    fn snapshot_delta_and_paired_round_trip() {
        let view = EventView {
            event: "ev1".into(),
            name: "XO night".into(),
            game: Game::Infinite,
            rated: true,
            per_move_ms: 10_000,
            phase: EventPhase::Running,
            starts_in_ms: 0,
            ends_in_ms: 1_800_000,
            duration_ms: 3_600_000,
            players: 2,
            standings: vec![row(1, 1), row(2, 1)],
            boards: vec![EventBoard {
                room: "r1".into(),
                x: 1,
                o: 2,
            }],
            podium: vec![],
            you: Some(EventYou {
                state: EntrantState::Playing,
                room: Some("r1".into()),
            }),
        };
        round_trip(&view);
        let json = serde_json::to_value(&view).expect("JSON");
        assert_eq!(json["phase"], "running");
        assert_eq!(json["you"]["state"], "playing");
        let update = EventUpdate {
            event: "ev1".into(),
            phase: EventPhase::Ending,
            ends_in_ms: 0,
            players: 3,
            standings: Some(StandingsDelta {
                removed: vec![7],
                rows: vec![EventRow {
                    performance: None,
                    ..row(3, 4)
                }],
            }),
            boards: Some(vec![]),
            podium: None,
            you: Some(EventYou {
                state: EntrantState::Waiting,
                room: None,
            }),
        };
        round_trip(&update);
        let sparse: EventUpdate = serde_json::from_str(
            r#"{"event":"ev1","phase":"finished","ends_in_ms":0,"players":3}"#,
        )
        .expect("optional parts may be left out in JSON");
        assert_eq!(sparse.standings, None);
        round_trip(&Paired {
            event: "ev1".into(),
            room: "r9".into(),
            mark: Mark::O,
            opponent: 4,
            opponent_name: "omar".into(),
        });
    }
}
