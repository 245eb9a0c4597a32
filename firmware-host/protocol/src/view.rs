//! A room as one reader may see it ([`RoomView`], sent whole after every change) and a row of
//! the lobby ([`RoomSummary`]). Views are filtered per reader: only the host sees the passcode
//! and the pending requests; a requester sees only their own request.

use engine::{Cell, Game, Mark};
use serde::{Deserialize, Serialize};

use crate::RoomId;
use crate::json_text as json;
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
/// their JSON and their postcard are what every reader of a room shares when their snapshots
/// differ only in `you` (postcard writes a struct as its fields one after another, so the head's
/// bytes are the view's up to `you`).
#[derive(Serialize)]
struct RoomViewHead<'a> {
    id: &'a RoomId,
    game: Game,
    kind: &'a RoomKind,
    phase: Phase,
    per_move_ms: Option<u32>,
    seats: &'a [SeatView; 2],
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

/// The fields of a [`RoomViewHead`] before `seats`, in the same order: postcard writes a
/// struct as its fields one after another, so this, the seats and [`HeadAfterSeats`] written
/// one after the other are the head's bytes.
#[derive(Serialize)]
struct HeadBeforeSeats<'a> {
    id: &'a RoomId,
    game: Game,
    kind: &'a RoomKind,
    phase: Phase,
    per_move_ms: Option<u32>,
}

/// The fields of a [`RoomViewHead`] after `seats`, in the same order.
#[derive(Serialize)]
struct HeadAfterSeats<'a> {
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
    /// room's players and spectators instead of once each. `seats` keeps the
    /// seats' JSON from one snapshot to the next while they stay the same.
    pub fn json_head(&self, seats: &mut SeatsJson) -> String {
        let seats = seats.shared(&self.seats);
        self.json_head_with_seats(&seats)
    }

    /// [`RoomView::json_head`] with the seats' JSON already made ([`SeatsJson::shared`]): for
    /// a head made only when some reader reads JSON, after the room has moved on.
    pub fn json_head_with_seats(&self, seats: &str) -> String {
        thread_local! {
            /// Where heads are written before they get a text of their exact size: a 1 KiB
            /// block made and freed at every snapshot is one glibc keeps in no per-thread cache
            /// (1 % of the server's CPU).
            static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        SCRATCH.with_borrow_mut(|j| {
            j.clear();
            self.write_head(seats, j);
            String::from_utf8(j.clone()).expect("written from UTF-8 pieces")
        })
    }

    /// The postcard of this view's fields before `you`, which [`room_postcard_into`]
    /// completes for each reader: the binary framing's [`RoomView::json_head`], so that a
    /// client reading postcard (the kiosk's UI) costs no more than one reading JSON.
    pub fn postcard_head(&self) -> Vec<u8> {
        postcard::to_allocvec(&self.head()).expect("wire types always serialise to postcard")
    }

    /// [`RoomView::postcard_head`] with the seats' postcard already made
    /// ([`EncodedSeats::postcard`]): the same bytes, without encoding the seats (the larger part
    /// of a head: names and ratings) again at every snapshot of a game.
    pub fn postcard_head_with_seats(&self, seats: &[u8]) -> Vec<u8> {
        let RoomView {
            id,
            game,
            kind,
            phase,
            per_move_ms,
            seats: _,
            x,
            o,
            turn,
            glowing,
            moves,
            clock,
            repetition_warning,
            draw_offer,
            requests,
            result,
            elo,
            spectators,
            can_undo,
            you: _,
            rematch_offer: _,
        } = self;
        let before = HeadBeforeSeats {
            id,
            game: *game,
            kind,
            phase: *phase,
            per_move_ms: *per_move_ms,
        };
        let after = HeadAfterSeats {
            x,
            o,
            turn: *turn,
            glowing: *glowing,
            moves,
            clock,
            repetition_warning: *repetition_warning,
            draw_offer: *draw_offer,
            requests,
            result,
            elo,
            spectators: *spectators,
            can_undo: *can_undo,
        };
        let mut head = Vec::with_capacity(POSTCARD_HEAD_CAPACITY + seats.len());
        head = postcard::to_extend(&before, head).expect("wire types always serialise to postcard");
        head.extend_from_slice(seats);
        postcard::to_extend(&after, head).expect("wire types always serialise to postcard")
    }

    fn head(&self) -> RoomViewHead<'_> {
        RoomViewHead {
            id: &self.id,
            game: self.game,
            kind: &self.kind,
            phase: self.phase,
            per_move_ms: self.per_move_ms,
            seats: &self.seats,
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
        }
    }

    fn write_head(&self, seats_json: &str, j: &mut Vec<u8>) {
        // Written field by field rather than through serde (serde_json spent about
        // 7,000 instructions on a head, most of them on its keys): the same text, byte for
        // byte (test `a_room_head_written_by_hand_is_serdes_text`). Every field, by name: one
        // added to `RoomView` must be written here too.
        let RoomView {
            id,
            game,
            kind,
            phase,
            per_move_ms,
            seats: _,
            x,
            o,
            turn,
            glowing,
            moves,
            clock,
            repetition_warning,
            draw_offer,
            requests,
            result,
            elo,
            spectators,
            can_undo,
            you: _,
            rematch_offer: _,
        } = self;
        j.extend_from_slice(b"{\"id\":");
        json::string(j, id);
        j.extend_from_slice(match game {
            Game::Xo => b",\"game\":\"xo\",\"kind\":",
            Game::Infinite => b",\"game\":\"infinite\",\"kind\":",
        });
        match kind {
            RoomKind::Local => j.extend_from_slice(b"\"local\""),
            RoomKind::Bot { difficulty } => {
                j.extend_from_slice(b"{\"bot\":{\"difficulty\":");
                json::number(j, *difficulty);
                j.extend_from_slice(b"}}");
            }
            RoomKind::Online { joining } => {
                j.extend_from_slice(b"{\"online\":{\"joining\":");
                match joining {
                    Joining::Open => j.extend_from_slice(b"\"open\""),
                    Joining::Approval => j.extend_from_slice(b"\"approval\""),
                    Joining::Passcode { code: None } => {
                        j.extend_from_slice(b"{\"passcode\":{\"code\":null}}");
                    }
                    Joining::Passcode { code: Some(code) } => {
                        j.extend_from_slice(b"{\"passcode\":{\"code\":");
                        json::string(j, code);
                        j.extend_from_slice(b"}}");
                    }
                }
                j.extend_from_slice(b"}}");
            }
        }
        j.extend_from_slice(match phase {
            Phase::Waiting => b",\"phase\":\"waiting\",\"per_move_ms\":",
            Phase::Playing => b",\"phase\":\"playing\",\"per_move_ms\":",
            Phase::Finished => b",\"phase\":\"finished\",\"per_move_ms\":",
        });
        json::option(j, *per_move_ms, json::number);
        j.extend_from_slice(b",\"seats\":");
        j.extend_from_slice(seats_json.as_bytes());
        j.extend_from_slice(b",\"x\":");
        json::cells(j, x);
        j.extend_from_slice(b",\"o\":");
        json::cells(j, o);
        j.extend_from_slice(b",\"turn\":");
        json::mark(j, *turn);
        j.extend_from_slice(b",\"glowing\":");
        json::option(j, *glowing, json::number);
        j.extend_from_slice(b",\"moves\":");
        json::cells(j, moves);
        j.extend_from_slice(b",\"clock\":");
        match clock {
            None => j.extend_from_slice(b"null"),
            Some(ClockView {
                mark,
                remaining_ms,
                per_move_ms,
                forfeit,
            }) => {
                j.extend_from_slice(b"{\"mark\":");
                json::mark(j, *mark);
                j.extend_from_slice(b",\"remaining_ms\":");
                json::number(j, *remaining_ms);
                j.extend_from_slice(b",\"per_move_ms\":");
                json::number(j, *per_move_ms);
                j.extend_from_slice(b",\"forfeit\":");
                json::flag(j, *forfeit);
                j.push(b'}');
            }
        }
        j.extend_from_slice(b",\"repetition_warning\":");
        json::flag(j, *repetition_warning);
        j.extend_from_slice(b",\"draw_offer\":");
        json::option(j, *draw_offer, json::mark);
        j.extend_from_slice(b",\"requests\":");
        // Rare (a waiting room's join requests) and the end of a game: serde's.
        json::serde(j, requests);
        j.extend_from_slice(b",\"result\":");
        json::serde(j, result);
        j.extend_from_slice(b",\"elo\":");
        match elo {
            None => j.extend_from_slice(b"null"),
            Some(EloPreview {
                x_rating,
                o_rating,
                x_wins,
                draw,
                o_wins,
            }) => {
                j.extend_from_slice(b"{\"x_rating\":");
                json::number(j, *x_rating);
                j.extend_from_slice(b",\"o_rating\":");
                json::number(j, *o_rating);
                for (key, pair) in [
                    (&b",\"x_wins\":["[..], x_wins),
                    (b",\"draw\":[", draw),
                    (b",\"o_wins\":[", o_wins),
                ] {
                    j.extend_from_slice(key);
                    json::number(j, pair[0]);
                    j.push(b',');
                    json::number(j, pair[1]);
                    j.push(b']');
                }
                j.push(b'}');
            }
        }
        j.extend_from_slice(b",\"spectators\":");
        json::number(j, *spectators);
        j.extend_from_slice(b",\"can_undo\":");
        json::flag(j, *can_undo);
    }

    /// [`RoomView::json_head`] through serde: the text the hand-written one must equal.
    #[cfg(test)]
    fn json_head_by_serde(&self) -> String {
        let mut json = Vec::new();
        serde_json::to_writer(&mut json, &self.head())
            .expect("wire types always serialise to JSON");
        json.pop();
        String::from_utf8(json).expect("serde_json writes UTF-8")
    }
}

/// The JSON of a room's two seats, kept while they stay the same. They do for a whole game (the
/// players, their ratings and marks; only a player's presence changes), and they are the
/// largest part of a snapshot.
#[derive(Debug, Default)]
pub struct SeatsJson(Option<([SeatView; 2], std::sync::Arc<str>)>);

impl SeatsJson {
    /// The seats' JSON, shared: kept by a snapshot whose JSON head is made later, if at all.
    pub fn shared(&mut self, seats: &[SeatView; 2]) -> std::sync::Arc<str> {
        self.json(seats);
        std::sync::Arc::clone(&self.0.as_ref().expect("set by json").1)
    }

    fn json(&mut self, seats: &[SeatView; 2]) -> &str {
        if self.0.as_ref().is_none_or(|(kept, _)| kept != seats) {
            self.0 = Some((seats.clone(), seats_json(seats).into()));
        }
        &self.0.as_ref().expect("set above").1
    }
}

/// The JSON of a room's two seats, as serde writes them.
fn seats_json(seats: &[SeatView; 2]) -> String {
    let mut j = Vec::with_capacity(SEATS_CAPACITY);
    j.push(b'[');
    for (i, seat) in seats.iter().enumerate() {
        if i > 0 {
            j.push(b',');
        }
        seat_json(&mut j, seat);
    }
    j.push(b']');
    String::from_utf8(j).expect("written from UTF-8 pieces")
}

/// A room's two seats as the snapshots of a room share them while they stay the same (a
/// whole game: only a player's presence changes them), with their JSON and their postcard,
/// each made at the first reader of that framing. A room whose readers all read postcard (the
/// kiosk's UI) makes no JSON of its seats, and the seats' postcard (names and ratings, the
/// larger part of a postcard head) is made once while they stay the same rather than at
/// every snapshot.
#[derive(Debug)]
pub struct EncodedSeats {
    seats: [SeatView; 2],
    json: std::sync::OnceLock<String>,
    postcard: std::sync::OnceLock<Vec<u8>>,
}

impl EncodedSeats {
    pub fn new(seats: [SeatView; 2]) -> EncodedSeats {
        EncodedSeats {
            seats,
            json: std::sync::OnceLock::new(),
            postcard: std::sync::OnceLock::new(),
        }
    }

    /// The seats these are.
    pub fn seats(&self) -> &[SeatView; 2] {
        &self.seats
    }

    /// The seats' JSON, for [`RoomView::json_head_with_seats`].
    pub fn json(&self) -> &str {
        self.json.get_or_init(|| seats_json(&self.seats))
    }

    /// The seats' postcard, for [`RoomView::postcard_head_with_seats`].
    pub fn postcard(&self) -> &[u8] {
        self.postcard.get_or_init(|| {
            postcard::to_allocvec(&self.seats).expect("wire types always serialise to postcard")
        })
    }
}

/// Room for the seats' JSON (about 300 bytes with two players).
const SEATS_CAPACITY: usize = 384;

/// Room for a postcard head's fields other than the seats (a long game's moves included).
const POSTCARD_HEAD_CAPACITY: usize = 96;

/// One seat's JSON, as serde writes it (test `a_room_head_written_by_hand_is_serdes_text`).
fn seat_json(j: &mut Vec<u8>, seat: &SeatView) {
    // Every field, by name: one added to these types must be written here too.
    let SeatView {
        player,
        mark,
        ready,
        present,
    } = seat;
    j.extend_from_slice(b"{\"player\":");
    match player {
        None => j.extend_from_slice(b"null"),
        Some(PlayerView {
            player,
            rating,
            name,
        }) => {
            j.extend_from_slice(b"{\"player\":");
            match player {
                PlayerRef::User { id, name } => {
                    j.extend_from_slice(b"{\"user\":{\"id\":");
                    json::number(j, *id);
                    j.extend_from_slice(b",\"name\":");
                    json::string(j, name);
                }
                PlayerRef::Guest { name } => {
                    j.extend_from_slice(b"{\"guest\":{\"name\":");
                    json::string(j, name);
                }
                PlayerRef::Bot { difficulty } => {
                    j.extend_from_slice(b"{\"bot\":{\"difficulty\":");
                    json::number(j, *difficulty);
                }
                PlayerRef::Local { name } => {
                    j.extend_from_slice(b"{\"local\":{\"name\":");
                    json::string(j, name);
                }
            }
            j.extend_from_slice(b"}},\"rating\":");
            json::option(j, *rating, json::number);
            j.extend_from_slice(b",\"name\":");
            match name {
                Name::Account { name } => {
                    j.extend_from_slice(b"{\"account\":{\"name\":");
                    json::string(j, name);
                }
                Name::Guest { tag } => {
                    j.extend_from_slice(b"{\"guest\":{\"tag\":");
                    json::string(j, tag);
                }
                Name::Bot { difficulty } => {
                    j.extend_from_slice(b"{\"bot\":{\"difficulty\":");
                    json::number(j, *difficulty);
                }
                Name::Local { name } => {
                    j.extend_from_slice(b"{\"local\":{\"name\":");
                    json::string(j, name);
                }
            }
            j.extend_from_slice(b"}}}");
        }
    }
    j.extend_from_slice(b",\"mark\":");
    json::option(j, *mark, json::mark);
    j.extend_from_slice(b",\"ready\":");
    json::flag(j, *ready);
    j.extend_from_slice(b",\"present\":");
    json::flag(j, *present);
    j.push(b'}');
}

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
    let mut json = Vec::with_capacity(head.len() + 160);
    room_json_into(&mut json, id, head, you, rematch_offer);
    String::from_utf8(json).expect("written from UTF-8 pieces")
}

/// [`room_json`], appended to `json` (a connection's write buffer: no text of its own made).
pub fn room_json_into(
    json: &mut Vec<u8>,
    id: Option<crate::RequestId>,
    head: &str,
    you: &YouView,
    rematch_offer: Option<Mark>,
) {
    // Every field, by name: one added to `YouView` must be written here too.
    let YouView {
        seat,
        host,
        to_move,
        requested,
    } = *you;
    json.extend_from_slice(b"{\"room\":{\"id\":");
    json::option(json, id, json::number);
    json.extend_from_slice(b",\"room\":");
    json.extend_from_slice(head.as_bytes());
    json.extend_from_slice(b",\"you\":{\"seat\":");
    json::option(json, seat, json::number);
    json.extend_from_slice(b",\"host\":");
    json::flag(json, host);
    json.extend_from_slice(b",\"to_move\":");
    json::flag(json, to_move);
    json.extend_from_slice(b",\"requested\":");
    json::flag(json, requested);
    json.extend_from_slice(b"},\"rematch_offer\":");
    json::option(json, rematch_offer, json::mark);
    json.extend_from_slice(b"}}}");
}

/// The postcard variant index of [`crate::ServerMsg::Room`] (its place in the enum; the test
/// `a_postcard_snapshot_completed_per_reader_is_the_whole_messages` holds it to serde's).
const ROOM_VARIANT: u8 = 3;

/// The postcard of `ServerMsg::Room { id, room }` for one reader, appended to `out` (a
/// connection's write buffer), from `head`, the [`RoomView::postcard_head`] of a view that
/// differs from `room` at most in `you` (given here with the view's `rematch_offer`): the
/// same bytes as encoding the message whole.
pub fn room_postcard_into(
    out: &mut Vec<u8>,
    id: Option<crate::RequestId>,
    head: &[u8],
    you: &YouView,
    rematch_offer: Option<Mark>,
) {
    // Every field, by name: one added to `YouView` must be written here too.
    let YouView {
        seat,
        host,
        to_move,
        requested,
    } = *you;
    out.push(ROOM_VARIANT);
    match id {
        None => out.push(0),
        Some(mut n) => {
            // postcard's varint: seven bits a byte, least significant first.
            out.push(1);
            while n >= 0x80 {
                out.push((n as u8) | 0x80);
                n >>= 7;
            }
            out.push(n as u8);
        }
    }
    out.extend_from_slice(head);
    match seat {
        None => out.push(0),
        Some(seat) => out.extend_from_slice(&[1, seat]),
    }
    out.extend_from_slice(&[u8::from(host), u8::from(to_move), u8::from(requested)]);
    match rematch_offer {
        None => out.push(0),
        Some(Mark::X) => out.extend_from_slice(&[1, 0]),
        Some(Mark::O) => out.extend_from_slice(&[1, 1]),
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::RatingUpdate;

    /// Strings serde_json must escape, and ones it leaves as they are.
    const STRINGS: [&str; 6] = [
        "abc234",
        "",
        "\"quoted\" \\ back",
        "tab\tnew\nline \u{1} \u{1f}",
        "سارة \u{7f} \u{2028}",
        ",\"you\":{}",
    ];

    fn view(i: usize) -> RoomView {
        let pick = |n: usize| i % n;
        let s = |k: usize| STRINGS[(i / 3 + k) % STRINGS.len()].to_owned();
        let kinds = [
            RoomKind::Local,
            RoomKind::Bot { difficulty: 0 },
            RoomKind::Bot { difficulty: 100 },
            RoomKind::Online {
                joining: Joining::Open,
            },
            RoomKind::Online {
                joining: Joining::Approval,
            },
            RoomKind::Online {
                joining: Joining::Passcode { code: None },
            },
            RoomKind::Online {
                joining: Joining::Passcode { code: Some(s(1)) },
            },
        ];
        let ends = [
            GameEnd::Line {
                winner: Mark::O,
                line: [2, 4, 6],
            },
            GameEnd::FullBoard,
            GameEnd::Repetition,
            GameEnd::Agreed,
            GameEnd::Resigned { loser: Mark::X },
            GameEnd::Timeout { loser: Mark::O },
        ];
        let player = PlayerView {
            player: [
                PlayerRef::User {
                    id: u64::MAX,
                    name: s(4),
                },
                PlayerRef::Guest { name: s(2) },
                PlayerRef::Bot { difficulty: 100 },
                PlayerRef::Local { name: s(5) },
            ][pick(4)]
            .clone(),
            rating: (i % 2 == 0).then_some(-7),
            name: [
                Name::Bot { difficulty: 0 },
                Name::Account { name: s(1) },
                Name::Local { name: s(4) },
                Name::Guest { tag: s(3) },
            ][(i / 5) % 4]
                .clone(),
        };
        RoomView {
            id: s(0),
            game: Game::ALL[pick(2)],
            kind: kinds[pick(7)].clone(),
            phase: [Phase::Waiting, Phase::Playing, Phase::Finished][pick(3)],
            per_move_ms: [None, Some(0), Some(u32::MAX)][pick(3)],
            seats: [
                SeatView {
                    player: Some(player),
                    mark: [None, Some(Mark::X), Some(Mark::O)][pick(3)],
                    ready: i % 2 == 0,
                    present: i % 4 == 0,
                },
                SeatView {
                    player: None,
                    mark: None,
                    ready: false,
                    present: false,
                },
            ],
            x: [vec![], vec![0], vec![0, 4, 8]][pick(3)].clone(),
            o: [vec![1, 2], vec![], vec![7]][pick(3)].clone(),
            turn: [Mark::X, Mark::O][pick(2)],
            glowing: [None, Some(0), Some(8)][pick(3)],
            moves: [vec![], vec![0, 1, 4, 2, 8], vec![255]][pick(3)].clone(),
            clock: (i % 5 != 0).then_some(ClockView {
                mark: [Mark::X, Mark::O][pick(2)],
                remaining_ms: [0, 7_500, u32::MAX][pick(3)],
                per_move_ms: 10_000,
                forfeit: i % 3 == 0,
            }),
            repetition_warning: i % 2 == 1,
            draw_offer: [None, Some(Mark::X), Some(Mark::O)][pick(3)],
            requests: (0..pick(3))
                .map(|k| JoinRequestView {
                    user: u64::MAX - k as u64,
                    name: s(k),
                })
                .collect(),
            result: (i % 4 != 0).then(|| ResultView {
                end: ends[pick(6)],
                rated: i % 2 == 0,
                ratings: vec![RatingUpdate {
                    user: 3,
                    mark: Mark::O,
                    before: 1200,
                    after: 1184,
                }],
                pending: i % 3 == 1,
            }),
            elo: (i % 3 != 0).then_some(EloPreview {
                x_rating: i32::MIN,
                o_rating: 1200,
                x_wins: [i32::MAX, -1],
                draw: [0, 1],
                o_wins: [-1200, 1216],
            }),
            spectators: [0, 1, u32::MAX][pick(3)],
            can_undo: i % 7 == 0,
            you: YouView {
                seat: None,
                host: false,
                to_move: false,
                requested: false,
            },
            rematch_offer: None,
        }
    }

    #[test]
    fn a_room_head_written_by_hand_is_serdes_text() {
        // 420 = 2 · 2 · 3 · 5 · 7: every pairing of the variant lists above comes up.
        for i in 0..420 {
            let view = view(i);
            let by_hand = view.json_head(&mut SeatsJson::default());
            let by_serde = view.json_head_by_serde();
            assert_eq!(by_hand, by_serde, "view {i}");
            // And the whole message still parses back to the view.
            let you = view.you;
            let text = room_json(Some(9), &by_hand, &you, view.rematch_offer);
            let parsed: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
            assert_eq!(parsed["room"]["room"]["id"], view.id.as_str(), "view {i}");
        }
    }

    /// A head made from seats encoded once ([`EncodedSeats`]) is the head made whole, in both
    /// framings, for every view above.
    #[test]
    fn a_head_from_encoded_seats_is_the_whole_head() {
        for i in 0..420 {
            let view = view(i);
            let seats = EncodedSeats::new(view.seats.clone());
            assert_eq!(
                view.postcard_head_with_seats(seats.postcard()),
                view.postcard_head(),
                "view {i}"
            );
            assert_eq!(
                view.json_head_with_seats(seats.json()),
                view.json_head(&mut SeatsJson::default()),
                "view {i}"
            );
        }
    }

    /// The binary framing's snapshot, completed per reader from the shared postcard head, is
    /// byte for byte the plain encoder's whole message, for every view above and every kind of
    /// reader (request ids of one to five varint bytes, each `you`, each rematch offer).
    #[test]
    fn a_postcard_snapshot_completed_per_reader_is_the_whole_messages() {
        let yous = [
            YouView {
                seat: None,
                host: false,
                to_move: false,
                requested: true,
            },
            YouView {
                seat: Some(0),
                host: true,
                to_move: false,
                requested: false,
            },
            YouView {
                seat: Some(1),
                host: false,
                to_move: true,
                requested: false,
            },
            YouView {
                seat: Some(u8::MAX),
                host: true,
                to_move: true,
                requested: true,
            },
        ];
        let ids = [
            None,
            Some(0),
            Some(127),
            Some(128),
            Some(16_384),
            Some(u32::MAX),
        ];
        for i in 0..420 {
            let view = view(i);
            let head = view.postcard_head();
            for (k, you) in yous.iter().enumerate() {
                let id = ids[(i + k) % ids.len()];
                let rematch_offer = [None, Some(Mark::X), Some(Mark::O)][(i + k) % 3];
                // `ServerMsg::Room { id, room }` in postcard: its variant index, then its
                // fields in order (tests/roundtrip.rs checks this against `ServerMsg` itself).
                let mut whole = vec![ROOM_VARIANT];
                let room = RoomView {
                    you: *you,
                    rematch_offer,
                    ..view.clone()
                };
                whole.extend(postcard::to_allocvec(&(id, room)).expect("postcard"));
                let mut out = vec![0xAA];
                room_postcard_into(&mut out, id, &head, you, rematch_offer);
                assert_eq!(out[1..], whole[..], "view {i}, reader {k}, id {id:?}");
            }
        }
    }
}
