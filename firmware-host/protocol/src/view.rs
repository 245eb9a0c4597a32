//! A room as one reader may see it ([`RoomView`], sent whole after every change) and a row of
//! the lobby ([`RoomSummary`]). Views are filtered per reader: only the host sees the passcode
//! and the pending requests; a requester sees only their own request.

use engine::{Cell, Game, Mark};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::RoomId;
use crate::records::{GameEnd, PlayerRef, RatingUpdate, UserId};

/// What kind of room, with the settings its members may see.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoomKind {
    /// M3: two signed-in players, rated.
    Online { joining: Joining },
    /// M1: a human against the bot at `difficulty` 0–100.
    Bot { difficulty: u8 },
    /// M2: two names on one device.
    Local,
}

/// How seat 2 is taken (M3.3), as a reader sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Joining {
    Open,
    Approval,
    /// `code` is `Some` only in the host's own view.
    Passcode {
        code: Option<String>,
    },
}

/// Where a room is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Seats filling, ready flags (M3.2–M3.6). Bot and local games never wait.
    Waiting,
    /// A game in progress.
    Playing,
    /// The game is over; the room stays for its members until they leave.
    Finished,
}

/// One seat. Seat 0 is the host's (the human's in a bot game).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatView {
    pub player: Option<PlayerView>,
    /// Assigned at the start of an online game (M3.6), at creation otherwise.
    pub mark: Option<Mark>,
    pub ready: bool,
    /// Some connection of this player has the room open (M3.10). The bot is always present.
    pub present: bool,
}

/// Who sits in a seat, with their rating on this game's ladder when it is known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerView {
    pub player: PlayerRef,
    pub rating: Option<i32>,
    /// The name as a kind the client words in its own language.
    pub name: Name,
}

/// A name as a kind, for the client to word in its language (U6): the server never makes an
/// English name the client would have to translate. Names people chose are sent as they are.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Name {
    /// A registered player: their username.
    Account { name: String },
    /// A guest: "Guest" and `tag`, a few characters of their anonymous id (may be empty).
    Guest { tag: String },
    /// The bot at a difficulty of 0–100 (T4).
    Bot { difficulty: u8 },
    /// One of the two names typed for a local game (M2.1).
    Local { name: String },
}

/// The running move clock (M3.7). Time is a duration from the moment the server sent the view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockView {
    /// Whose clock is running.
    pub mark: Mark,
    pub remaining_ms: u32,
    /// The full time per move.
    pub per_move_ms: u32,
    /// What happens at zero: a random move (Infinite XO) or a forfeit (XO).
    pub forfeit: bool,
}

/// The ELO preview panel (E4): both players' projected ratings for each scenario. It changes
/// nothing; each pair is `[x_after, o_after]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct EloPreview {
    pub x_rating: i32,
    pub o_rating: i32,
    pub x_wins: [i32; 2],
    pub draw: [i32; 2],
    pub o_wins: [i32; 2],
}

/// A pending join request (M3.3), shown to the host and, for their own, to the requester.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JoinRequestView {
    pub user: UserId,
    pub name: String,
}

/// How the game ended, with each player's rating change when it was rated (E3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultView {
    pub end: GameEnd,
    pub rated: bool,
    /// In X, O order; empty for unrated games, and while `pending`.
    pub ratings: Vec<RatingUpdate>,
    /// A rated result the server could not store yet (its card cannot write): it is kept and
    /// retried, never turned into an unrated result; a later snapshot has `pending: false`
    /// and the ratings.
    #[serde(default)]
    pub pending: bool,
}

/// The reader's own place in the room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct YouView {
    /// 0 or 1 when the reader holds a seat.
    pub seat: Option<u8>,
    pub host: bool,
    /// The reader may move for the side to move now (their turn, or a local game's device).
    pub to_move: bool,
    /// The reader has a pending join request here.
    pub requested: bool,
}

/// A room, as one reader may see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomView {
    pub id: RoomId,
    pub game: Game,
    pub kind: RoomKind,
    pub phase: Phase,
    /// The time per move when the room has a clock: Infinite XO's chosen time, XO online 120 s.
    pub per_move_ms: Option<u32>,
    pub seats: [SeatView; 2],
    /// X's marks on the board, oldest first.
    pub x: Vec<Cell>,
    /// O's marks on the board, oldest first.
    pub o: Vec<Cell>,
    pub turn: Mark,
    /// R-INF-5: the mark that vanishes when the side to move plays.
    pub glowing: Option<Cell>,
    /// Every move so far, for replay (U10).
    pub moves: Vec<Cell>,
    pub clock: Option<ClockView>,
    /// R-INF-4: the position has occurred twice; once more draws.
    pub repetition_warning: bool,
    /// The mark whose draw offer is pending (M3.8).
    pub draw_offer: Option<Mark>,
    pub requests: Vec<JoinRequestView>,
    pub result: Option<ResultView>,
    /// Present during an active rated game once both ratings are known (E4).
    pub elo: Option<EloPreview>,
    /// Connections watching that hold no seat (M4).
    pub spectators: u32,
    /// Undo is possible now for this reader (M1.3, M2.2).
    pub can_undo: bool,
    pub you: YouView,
    /// The mark (as held in the finished game) whose rematch offer is pending (M3.12).
    #[serde(default)]
    pub rematch_offer: Option<Mark>,
}

/// The fields of a [`RoomView`] before `you`, borrowed, with the same names in the same order:
/// their JSON is what every reader of a room shares when their snapshots differ only in `you`.
#[derive(Serialize)]
struct RoomViewHead<'a> {
    id: &'a RoomId,
    game: Game,
    kind: &'a RoomKind,
    phase: Phase,
    per_move_ms: Option<u32>,
    seats: &'a RawValue,
    x: &'a [Cell],
    o: &'a [Cell],
    turn: Mark,
    glowing: Option<Cell>,
    moves: &'a [Cell],
    clock: &'a Option<ClockView>,
    repetition_warning: bool,
    draw_offer: Option<Mark>,
    requests: &'a [JoinRequestView],
    result: &'a Option<ResultView>,
    elo: &'a Option<EloPreview>,
    spectators: u32,
    can_undo: bool,
}

impl RoomView {
    /// The JSON of this view's fields before `you` (`{"id":…,"can_undo":…`, without the
    /// closing brace), which [`room_json`] completes for each reader: encoded once for a
    /// room's players and spectators instead of once each (issue 13). `seats` keeps the
    /// seats' JSON from one snapshot to the next while they stay the same.
    pub fn json_head(&self, seats: &mut SeatsJson) -> String {
        let head = RoomViewHead {
            id: &self.id,
            game: self.game,
            kind: &self.kind,
            phase: self.phase,
            per_move_ms: self.per_move_ms,
            seats: seats.json(&self.seats),
            x: &self.x,
            o: &self.o,
            turn: self.turn,
            glowing: self.glowing,
            moves: &self.moves,
            clock: &self.clock,
            repetition_warning: self.repetition_warning,
            draw_offer: self.draw_offer,
            requests: &self.requests,
            result: &self.result,
            elo: &self.elo,
            spectators: self.spectators,
            can_undo: self.can_undo,
        };
        let mut json = Vec::with_capacity(HEAD_CAPACITY);
        serde_json::to_writer(&mut json, &head).expect("wire types always serialise to JSON");
        json.pop();
        String::from_utf8(json).expect("serde_json writes UTF-8")
    }
}

/// The JSON of a room's two seats, kept while they stay the same. They do for a whole game (the
/// players, their ratings and marks; only a player's presence changes), and they are the
/// largest part of a snapshot: two thirds of its encoding.
#[derive(Debug, Default)]
pub struct SeatsJson(Option<([SeatView; 2], Box<RawValue>)>);

impl SeatsJson {
    fn json(&mut self, seats: &[SeatView; 2]) -> &RawValue {
        if self.0.as_ref().is_none_or(|(kept, _)| kept != seats) {
            let json = serde_json::value::to_raw_value(seats)
                .expect("wire types always serialise to JSON");
            self.0 = Some((seats.clone(), json));
        }
        &self.0.as_ref().expect("set above").1
    }
}

/// Room for a snapshot's JSON up to `you` at once (700-900 bytes in a game), within glibc's
/// per-thread cache of small blocks (up to 1,032 bytes).
const HEAD_CAPACITY: usize = 1024;

/// The JSON text of `ServerMsg::Room { id, room }` for one reader, from `head`, the
/// [`RoomView::json_head`] of a view that differs from `room` at most in `you` (the reader's,
/// given here with the view's `rematch_offer`): the same text as encoding the message whole.
/// The few fields around the head are written directly (test
/// `a_snapshot_completed_per_reader_is_the_text_of_the_whole_message` holds them to serde's).
pub fn room_json(
    id: Option<crate::RequestId>,
    head: &str,
    you: &YouView,
    rematch_offer: Option<Mark>,
) -> String {
    use std::fmt::Write as _;
    fn number(json: &mut String, n: Option<impl std::fmt::Display>) {
        match n {
            Some(n) => {
                let _infallible = write!(json, "{n}");
            }
            None => json.push_str("null"),
        }
    }
    // Every field, by name: one added to `YouView` must be written here too.
    let YouView {
        seat,
        host,
        to_move,
        requested,
    } = *you;
    let flag = |b: bool| if b { "true" } else { "false" };
    let mut json = String::with_capacity(head.len() + 160);
    json.push_str("{\"room\":{\"id\":");
    number(&mut json, id);
    json.push_str(",\"room\":");
    json.push_str(head);
    json.push_str(",\"you\":{\"seat\":");
    number(&mut json, seat);
    json.push_str(",\"host\":");
    json.push_str(flag(host));
    json.push_str(",\"to_move\":");
    json.push_str(flag(to_move));
    json.push_str(",\"requested\":");
    json.push_str(flag(requested));
    json.push_str("},\"rematch_offer\":");
    json.push_str(match rematch_offer {
        None => "null",
        Some(Mark::X) => "\"X\"",
        Some(Mark::O) => "\"O\"",
    });
    json.push_str("}}}");
    json
}

/// One row of the lobby.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomSummary {
    pub id: RoomId,
    pub game: Game,
    /// The passcode is never in a summary.
    pub kind: RoomKind,
    pub phase: Phase,
    /// Display names of the seated players, host first, in English (for older clients; see
    /// `names`).
    pub players: Vec<String>,
    /// Seat 2 is free to ask for.
    pub open_seat: bool,
    pub per_move_ms: Option<u32>,
    pub spectators: u32,
    /// The seated players' names as kinds, host first, for the client to word.
    #[serde(default)]
    pub names: Vec<Name>,
}
