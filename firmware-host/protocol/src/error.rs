//! Stable, machine-readable error codes. Each error also carries a human `message`; clients
//! should branch on the code only. Codes are never renamed; new ones may be added.

use serde::{Deserialize, Serialize};

/// Why a frame or an intent was refused. The refused intent changed nothing, and only its
/// sender is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    // Framing and connection.
    /// The frame is not a valid message (bad JSON or postcard, unknown message).
    BadFrame,
    /// The frame is larger than the limit.
    FrameTooLarge,
    /// The first message must be `hello`.
    HelloRequired,
    /// The client's protocol version is not supported; the connection closes.
    UnsupportedVersion,
    /// Too many messages per second; the connection closes.
    Flood,
    // Rooms.
    /// No room has that id (or it has closed).
    UnknownRoom,
    /// The intent needs a current room; open or join one first.
    NotInRoom,
    /// The host kicked this player from the room (M3.5): no viewing, no rejoining.
    Kicked,
    /// The room has closed.
    RoomClosed,
    // Joining.
    /// Online rooms are for signed-in players (M3).
    SignInRequired,
    /// Bot and local rooms are played on their own device; they can be watched, not joined.
    NotJoinable,
    /// The player already sits in a room, or already in this one (M3.4).
    AlreadySeated,
    /// Seat 2 is taken.
    RoomFull,
    /// The room asks for a passcode and none was given.
    PasscodeRequired,
    /// The passcode is wrong (M3.3).
    WrongPasscode,
    /// The player already has a pending request in this room.
    AlreadyRequested,
    /// No such pending request.
    NoRequest,
    // Roles.
    /// Only the host may do that.
    NotHost,
    /// Spectators cannot act (M4).
    Spectator,
    // Settings.
    /// The creation settings are invalid (time, difficulty, passcode format …).
    BadSettings,
    /// A local player name is empty, too long or invalid (M2.1).
    BadName,
    /// The two local names are the same ignoring case and surrounding spaces (M2.1).
    NameClash,
    // Play.
    /// The game has not started.
    NotStarted,
    /// The game has already started; that is only possible before play.
    AlreadyStarted,
    /// The game is over.
    GameOver,
    /// Both players must be ready (M3.6).
    NotReady,
    /// Nobody is in seat 2.
    SeatEmpty,
    /// It is not this player's turn.
    NotYourTurn,
    /// The cell holds a mark (R-XO-1, R-INF-1).
    CellOccupied,
    /// Cells are 0–8.
    NoSuchCell,
    /// A draw offer is already pending (M3.8).
    OfferPending,
    /// At most one draw offer per own turn (M3.8).
    OfferLimit,
    /// No draw offer to answer, or it is one's own.
    NoOffer,
    /// Undo is only in bot and local games (M1.3, M2.2, M3.11).
    UndoUnavailable,
    /// Nothing left to take back.
    NothingToUndo,
    /// Hints are only in bot games, on the human's turn (T5, M3.11).
    HintUnavailable,
    // Server.
    /// Storing failed; the room is unchanged and the intent may be retried.
    Storage,
    /// The server is shutting down, or has too many open rooms (of this creator, or in all).
    Unavailable,
    // Rooms (added after the first release: variants are only ever appended, so postcard
    // indices stay stable).
    /// Seats, kicks, requests, draw offers and rematches exist only in online rooms (M1, M2,
    /// M3.8, M3.12).
    OnlineOnly,
    /// The connection's sign-in session ended (sign-out, password change): the connection
    /// closes (code 4001) and the client reconnects, as a guest once its cookie is gone (S3).
    SignedOut,
    /// Play again and rematches come after the game is over (M3.12).
    NotFinished,
    /// Play again is for bot and local games; online games offer a rematch (M3.12).
    PlayAgainUnavailable,
    /// The players' network address has started its budget of rated games within the hour
    /// (rated games are kept for ever); the game can start once the oldest leaves
    /// the hour.
    TooManyRatedGames,
    // Puzzles.
    /// No embedded puzzle has that id.
    UnknownPuzzle,
    /// This connection holds no attempt with that id: never started here, or dropped (each
    /// connection keeps its last few). Attempts of other connections are unknown too.
    UnknownAttempt,
    /// `puzzle_start` of a streak step that does not follow this connection's streak.
    NoStreak,
    // Arena events.
    /// No event has that id.
    UnknownEvent,
    /// `pause_event`, `resume_event` or `leave_event` by a player not in the event (never
    /// joined, or left).
    NotInEvent,
    /// Joining, pausing or resuming once the event's time is up, or in a cancelled event.
    EventOver,
    /// The event has as many players as it takes.
    EventFull,
    /// Rematches and play again do not exist in an event's games: the event pairs each
    /// player's next game (EV3).
    EventGame,
}

impl ErrorCode {
    /// The wire name, e.g. `not_your_turn`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadFrame => "bad_frame",
            ErrorCode::FrameTooLarge => "frame_too_large",
            ErrorCode::HelloRequired => "hello_required",
            ErrorCode::UnsupportedVersion => "unsupported_version",
            ErrorCode::Flood => "flood",
            ErrorCode::UnknownRoom => "unknown_room",
            ErrorCode::NotInRoom => "not_in_room",
            ErrorCode::Kicked => "kicked",
            ErrorCode::RoomClosed => "room_closed",
            ErrorCode::SignInRequired => "sign_in_required",
            ErrorCode::NotJoinable => "not_joinable",
            ErrorCode::AlreadySeated => "already_seated",
            ErrorCode::RoomFull => "room_full",
            ErrorCode::PasscodeRequired => "passcode_required",
            ErrorCode::WrongPasscode => "wrong_passcode",
            ErrorCode::AlreadyRequested => "already_requested",
            ErrorCode::NoRequest => "no_request",
            ErrorCode::NotHost => "not_host",
            ErrorCode::Spectator => "spectator",
            ErrorCode::BadSettings => "bad_settings",
            ErrorCode::BadName => "bad_name",
            ErrorCode::NameClash => "name_clash",
            ErrorCode::NotStarted => "not_started",
            ErrorCode::AlreadyStarted => "already_started",
            ErrorCode::GameOver => "game_over",
            ErrorCode::NotReady => "not_ready",
            ErrorCode::SeatEmpty => "seat_empty",
            ErrorCode::NotYourTurn => "not_your_turn",
            ErrorCode::CellOccupied => "cell_occupied",
            ErrorCode::NoSuchCell => "no_such_cell",
            ErrorCode::OfferPending => "offer_pending",
            ErrorCode::OfferLimit => "offer_limit",
            ErrorCode::NoOffer => "no_offer",
            ErrorCode::UndoUnavailable => "undo_unavailable",
            ErrorCode::NothingToUndo => "nothing_to_undo",
            ErrorCode::HintUnavailable => "hint_unavailable",
            ErrorCode::Storage => "storage",
            ErrorCode::Unavailable => "unavailable",
            ErrorCode::OnlineOnly => "online_only",
            ErrorCode::SignedOut => "signed_out",
            ErrorCode::NotFinished => "not_finished",
            ErrorCode::PlayAgainUnavailable => "play_again_unavailable",
            ErrorCode::TooManyRatedGames => "too_many_rated_games",
            ErrorCode::UnknownPuzzle => "unknown_puzzle",
            ErrorCode::UnknownAttempt => "unknown_attempt",
            ErrorCode::NoStreak => "no_streak",
            ErrorCode::UnknownEvent => "unknown_event",
            ErrorCode::NotInEvent => "not_in_event",
            ErrorCode::EventOver => "event_over",
            ErrorCode::EventFull => "event_full",
            ErrorCode::EventGame => "event_game",
        }
    }
}

impl core::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}
