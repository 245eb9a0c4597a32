//! Every refusal the WebSocket channel words: [`Reason`], why an intent, a frame or a creation
//! box was refused, typed, and [`Reason::told`], the one table from a reason to its stable
//! code and the message its sender alone is told. [`Refusal`] is that answer as sent.
//!
//! ```
//! use protocol::ErrorCode;
//! use rooms::refusal::{Reason, Refusal};
//!
//! let refusal = Refusal::from(Reason::CellOccupied { cell: 4 });
//! assert_eq!(refusal.code, ErrorCode::CellOccupied);
//! assert_eq!(refusal.message, "the centre cell is taken");
//! assert_eq!(refusal.reason(), &Reason::CellOccupied { cell: 4 });
//! ```

use std::borrow::Cow;

use engine::{Cell, IllegalMove};
use protocol::records::UserId;
use protocol::rules::NameError;
use protocol::{AttemptId, ErrorCode, FrameError, RoomId};

/// Why something was refused. Grouped by who refuses; the words are in [`Reason::told`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reason {
    // The connection (`session.rs`): frames, the hello, where an intent goes.
    /// A frame that does not decode, or is too large.
    Frame(FrameError),
    /// A hello naming a version the server does not serve.
    UnsupportedVersion {
        version: u32,
        oldest: u32,
        newest: u32,
    },
    /// An intent before the hello.
    HelloRequired,
    /// No hello within the hello timeout; the connection closes.
    NoHelloInTime,
    /// A second hello.
    HelloAgain,
    /// Over the message rate; the connection closes.
    Flood,
    /// The connection's sign-in session ended (S3); it closes.
    SignedOut,
    /// An intent for a room while none is current.
    NoCurrentRoom,
    /// `open` or `join` of a room that does not exist.
    UnknownRoom { room: RoomId },
    /// The room closed before it took the intent.
    RoomClosed,
    /// The server is shutting down.
    ShuttingDown,
    /// A finished game's result could not be stored (told to everyone in the room, unasked).
    ResultNotStored,

    // Creating a room (`create.rs`, `settings.rs`).
    /// The server holds its most open rooms.
    TooManyRooms,
    /// The creator holds its most open rooms.
    TooManyOwnRooms { hosted: usize },
    /// The creator sits in another waiting or active room (M3.4).
    SitsElsewhere { room: RoomId },
    /// A guest asked for an online room (M3).
    SignInToCreate,
    /// A passcode that is not four digits (M3.1).
    PasscodeDigits,
    /// A bot difficulty over 100 (T4).
    Difficulty,
    /// A time per move other than 5, 10 or 30 s (M3.1).
    TimePerMove,
    /// Both local names the same (M2.1); `name` as the first was typed, trimmed.
    NameClash { name: String },
    /// A local name missing, too long or with control characters (M2.1).
    BadName(NameError),

    // Who may ask what of a room (`room/errors.rs`).
    /// The host kicked the sender (M3.5).
    Kicked,
    /// Seat management in a bot or local room.
    NoSeatsToManage,
    /// A host action by someone else.
    NotHost,
    /// A host action once the game started.
    OnlyBeforeStart,
    /// A game intent before the start.
    NotStarted,
    /// A game intent after the end.
    GameOver,
    /// A move by a spectator.
    SpectatorMove,
    /// A move out of turn.
    NotYourTurn,
    /// A draw offer in a bot or local game.
    DrawOffersOnline,
    /// A draw offer or answer by a spectator.
    SpectatorDraw,
    /// A resignation by a spectator.
    SpectatorResign,

    // Seats (`room/seating.rs`).
    /// `close` of a room the connection does not view.
    NotViewing,
    /// `exit` of a room the sender has no part in.
    NotInThisRoom,
    /// Cancelling a join request the sender did not make.
    NoOwnRequest,
    /// Accepting or declining a request nobody made.
    NoRequestFrom,
    /// Kicking from an empty seat 2.
    SeatTwoEmpty,
    /// `ready` by a spectator.
    SpectatorReady,
    /// `ready` or `join` once the game started.
    AlreadyStarted,
    /// Joining a bot or local game.
    NotJoinable,
    /// A guest joining an online room (M3).
    SignInToJoin,
    /// Joining a room one already sits in.
    AlreadyHere,
    /// Joining, or accepting a request, while seat 2 is taken.
    RoomFull,
    /// Joining while playing in another room (M3.4).
    PlayingElsewhere { room: RoomId },
    /// A second join request to the same room.
    AlreadyRequested,
    /// Joining a passcode room without a passcode.
    PasscodeRequired,
    /// Too many wrong passcodes (M3.3): refused for `secs` more seconds, even the right one.
    PasscodeLockedOut { secs: u64 },
    /// A wrong passcode.
    WrongPasscode,
    /// Accepting a player who now plays in another room.
    OtherPlayerInGame { room: RoomId },
    /// Starting with seat 2 empty.
    WaitForSecondPlayer,
    /// Starting before both players are ready.
    NotReady,
    /// Starting while the host has taken a seat in another room.
    SeatedElsewhere,
    /// Starting while the other player has taken a seat in another room.
    OpponentSeatedElsewhere,

    // Play (`room/play.rs`), from the engine's [`IllegalMove`] alone.
    /// A cell past 8.
    NoSuchCell { cell: u8 },
    /// A cell that holds a mark (R-INF-1: the mover's oldest too).
    CellOccupied { cell: Cell },
    /// A hint in a game without the bot (T5).
    HintBotOnly,
    /// A hint asked by a spectator.
    SpectatorHint,
    /// A hint off the human's turn.
    HintOwnTurn,
    /// The table suggests no move.
    NoHint,
    /// Undo in an online game (M3.11).
    UndoOnline,
    /// Undo by someone not at the device.
    SpectatorUndo,
    /// Undo with no move of the sender's to take back.
    NothingToUndo,

    // Draw offers (`room/offers.rs`).
    /// A second pending offer.
    DrawPending,
    /// A second offer within one turn of one's own (M3.8).
    DrawOnce,
    /// Answering an offer nobody made.
    NoDrawOffer,

    // After the game (`room/rematch.rs`).
    /// Play again in an online game.
    PlayAgainOnline,
    /// Play again by a spectator.
    SpectatorPlayAgain,
    /// A rematch offer while one's own is pending.
    RematchPending,
    /// A second rematch offer in one game.
    RematchOnce,
    /// Answering a rematch offer nobody made.
    NoRematchOffer,
    /// A rematch while one of the players sits in `room` now (M3.4).
    RematchSeatedElsewhere { room: RoomId },
    /// The rated-game budget of an address is spent; the next game can start in `minutes`.
    TooManyRatedGames { minutes: u64 },
    /// A rematch in a bot or local game.
    RematchOnline,
    /// A rematch asked by a spectator.
    SpectatorRematch,
    /// Play again or a rematch before the end.
    NotFinished,

    // Puzzles (`puzzles.rs`).
    /// `by_id` naming no puzzle; `puzzle` as it was sent.
    UnknownPuzzle { puzzle: String },
    /// A move in an attempt that is over.
    AttemptOver,
    /// A retry of an attempt that is not over.
    RetryOnlyWhenOver,
    /// An attempt that is not this connection's.
    UnknownAttempt { attempt: AttemptId },
    /// A streak step that does not follow the connection's streak.
    NoStreak { step: u32 },

    // Arena events (`session.rs`, `create.rs`, `room/rematch.rs`).
    /// No event has that id; `event` as it was sent.
    UnknownEvent { event: String },
    /// A guest's join, pause, resume or leave (EV2: guests watch).
    EventSignIn,
    /// Pause, resume or leave by someone not in the event.
    NotInEvent,
    /// An intent for an event that is over.
    EventOver,
    /// A join when the event holds its most players.
    EventFull,
    /// An event refusal that is no answer to a player's intent (said plainly if ever sent).
    EventOther { why: &'static str },
    /// The event's task has stopped (the server is stopping).
    EventStopped,
    /// A stored event could not be read.
    EventUnreadable,
    /// A rematch of an event's game: the event pairs the next one (EV3).
    EventRematch,
    /// A player of a pairing has no connection now (the pairing is given up).
    NotConnected { name: String },
    /// A player of a pairing sits in another room now (the pairing is given up).
    PlayerSeatedElsewhere { user: UserId, room: RoomId },
}

impl Reason {
    /// The one table: the stable code and the message for people.
    pub fn told(&self) -> (ErrorCode, Cow<'static, str>) {
        use ErrorCode as C;
        let (code, message): (ErrorCode, Cow<'static, str>) = match self {
            Reason::Frame(e) => (e.code(), e.to_string().into()),
            Reason::UnsupportedVersion {
                version,
                oldest,
                newest,
            } => (
                C::UnsupportedVersion,
                format!("this server speaks protocol versions {oldest} to {newest}, not {version}")
                    .into(),
            ),
            Reason::HelloRequired => (C::HelloRequired, "send hello first".into()),
            Reason::NoHelloInTime => (C::HelloRequired, "no hello in time; closing".into()),
            Reason::HelloAgain => (C::BadFrame, "hello was already received".into()),
            Reason::Flood => (C::Flood, "too many messages; closing".into()),
            Reason::SignedOut => (C::SignedOut, "you were signed out; reconnect".into()),
            Reason::NoCurrentRoom => (C::NotInRoom, "open or join a room first".into()),
            Reason::UnknownRoom { room } => {
                (C::UnknownRoom, format!("there is no room {room}").into())
            }
            Reason::RoomClosed => (C::RoomClosed, "the room has closed".into()),
            Reason::ShuttingDown => (C::Unavailable, "the server is shutting down".into()),
            Reason::ResultNotStored => (
                C::Storage,
                "the result could not be stored; ratings are unchanged".into(),
            ),

            Reason::TooManyRooms => (
                C::Unavailable,
                "the server has too many open rooms; try again later".into(),
            ),
            Reason::TooManyOwnRooms { hosted } => (
                C::Unavailable,
                format!("you have {hosted} rooms open; leave one (exit) before creating another")
                    .into(),
            ),
            Reason::SitsElsewhere { room } => (
                C::AlreadySeated,
                format!("you already sit in room {room}; leave it first").into(),
            ),
            Reason::SignInToCreate => (
                C::SignInRequired,
                "sign in to create an online room; guests can play the bot or a friend here".into(),
            ),
            Reason::PasscodeDigits => (
                C::BadSettings,
                "the passcode must be exactly four digits".into(),
            ),
            Reason::Difficulty => (C::BadSettings, "the bot's difficulty is 0 to 100".into()),
            Reason::TimePerMove => (
                C::BadSettings,
                "the time per move is 5, 10 or 30 seconds".into(),
            ),
            // Name the clash, so the players see which name to change.
            Reason::NameClash { name } => (
                C::NameClash,
                format!("{}: both are called {name}", NameError::Clash).into(),
            ),
            Reason::BadName(e) => (C::BadName, e.to_string().into()),

            Reason::Kicked => (
                C::Kicked,
                "the host removed you from this room; you cannot view or rejoin it".into(),
            ),
            Reason::NoSeatsToManage => (C::OnlineOnly, "this room has no seats to manage".into()),
            Reason::NotHost => (C::NotHost, "only the host can do that".into()),
            Reason::OnlyBeforeStart => (
                C::AlreadyStarted,
                "only possible before the game starts".into(),
            ),
            Reason::NotStarted => (C::NotStarted, "the game has not started yet".into()),
            Reason::GameOver => (C::GameOver, "the game is over".into()),
            Reason::SpectatorMove => (C::Spectator, "spectators cannot move".into()),
            Reason::NotYourTurn => (C::NotYourTurn, "it is not your turn".into()),
            Reason::DrawOffersOnline => (C::OnlineOnly, "draw offers are for online games".into()),
            Reason::SpectatorDraw => (
                C::Spectator,
                "spectators cannot offer or answer draws".into(),
            ),
            Reason::SpectatorResign => (C::Spectator, "spectators cannot resign".into()),

            Reason::NotViewing => (C::NotInRoom, "you are not viewing this room".into()),
            Reason::NotInThisRoom => (C::NotInRoom, "you are not in this room".into()),
            Reason::NoOwnRequest => (C::NoRequest, "you have no pending request here".into()),
            Reason::NoRequestFrom => (C::NoRequest, "that player has no pending request".into()),
            Reason::SeatTwoEmpty => (C::SeatEmpty, "nobody is in seat 2".into()),
            Reason::SpectatorReady => (C::Spectator, "only seated players can get ready".into()),
            Reason::AlreadyStarted => (C::AlreadyStarted, "the game has already started".into()),
            Reason::NotJoinable => (
                C::NotJoinable,
                "bot and local games are played on their own device; you can watch this one".into(),
            ),
            Reason::SignInToJoin => (C::SignInRequired, "sign in to join online rooms".into()),
            Reason::AlreadyHere => (C::AlreadySeated, "you already sit in this room".into()),
            Reason::RoomFull => (C::RoomFull, "seat 2 is taken".into()),
            Reason::PlayingElsewhere { room } => (
                C::AlreadySeated,
                format!("you are playing in room {room}; finish that game first").into(),
            ),
            Reason::AlreadyRequested => (
                C::AlreadyRequested,
                "your request is already pending".into(),
            ),
            Reason::PasscodeRequired => (
                C::PasscodeRequired,
                "this room asks for a 4-digit passcode".into(),
            ),
            Reason::PasscodeLockedOut { secs } => (
                C::WrongPasscode,
                format!("too many wrong passcodes; try again in {secs} s").into(),
            ),
            Reason::WrongPasscode => (C::WrongPasscode, "wrong passcode".into()),
            Reason::OtherPlayerInGame { room } => (
                C::AlreadySeated,
                format!("that player is in a game in room {room}").into(),
            ),
            Reason::WaitForSecondPlayer => (C::SeatEmpty, "wait for a second player".into()),
            Reason::NotReady => (C::NotReady, "both players must be ready".into()),
            Reason::SeatedElsewhere => (
                C::AlreadySeated,
                "you have taken a seat in another room".into(),
            ),
            Reason::OpponentSeatedElsewhere => (
                C::SeatEmpty,
                "the other player has taken a seat in another room".into(),
            ),

            Reason::NoSuchCell { cell } => (
                C::NoSuchCell,
                format!("there is no cell {cell}; cells are 0 to 8").into(),
            ),
            Reason::CellOccupied { cell } => (
                C::CellOccupied,
                format!(
                    "the {} cell is taken",
                    engine::CELL_NAMES[usize::from(*cell)]
                )
                .into(),
            ),
            Reason::HintBotOnly => (
                C::HintUnavailable,
                "hints are only for games against the bot".into(),
            ),
            Reason::SpectatorHint => (C::Spectator, "spectators cannot ask for hints".into()),
            Reason::HintOwnTurn => (
                C::HintUnavailable,
                "a hint is only for your own turn".into(),
            ),
            Reason::NoHint => (C::HintUnavailable, "no move to suggest here".into()),
            Reason::UndoOnline => (C::UndoUnavailable, "online games have no undo".into()),
            Reason::SpectatorUndo => (C::Spectator, "spectators cannot undo".into()),
            Reason::NothingToUndo => (
                C::NothingToUndo,
                "there is no move of yours to take back".into(),
            ),

            Reason::DrawPending => (C::OfferPending, "a draw offer is already pending".into()),
            Reason::DrawOnce => (
                C::OfferLimit,
                "you can offer a draw once per turn of yours".into(),
            ),
            Reason::NoDrawOffer => (
                C::NoOffer,
                "there is no draw offer from your opponent".into(),
            ),

            Reason::PlayAgainOnline => (
                C::PlayAgainUnavailable,
                "online games offer a rematch instead".into(),
            ),
            Reason::SpectatorPlayAgain => (C::Spectator, "spectators cannot start a game".into()),
            Reason::RematchPending => (C::OfferPending, "your rematch offer is pending".into()),
            Reason::RematchOnce => (
                C::OfferLimit,
                "you can offer a rematch once per game".into(),
            ),
            Reason::NoRematchOffer => (
                C::NoOffer,
                "there is no rematch offer from your opponent".into(),
            ),
            Reason::RematchSeatedElsewhere { room } => (
                C::AlreadySeated,
                format!("a player now sits in room {room}; no rematch here").into(),
            ),
            Reason::TooManyRatedGames { minutes } => (
                C::TooManyRatedGames,
                format!(
                    "too many rated games from this network address in the last hour; \
                     the next can start in {minutes} min"
                )
                .into(),
            ),
            Reason::RematchOnline => (
                C::OnlineOnly,
                "rematches are for online games; bot and local games play again".into(),
            ),
            Reason::SpectatorRematch => {
                (C::Spectator, "spectators cannot ask for a rematch".into())
            }
            Reason::NotFinished => (C::NotFinished, "the game is not over yet".into()),

            Reason::UnknownPuzzle { puzzle } => (
                C::UnknownPuzzle,
                format!("there is no puzzle {puzzle:?}").into(),
            ),
            Reason::AttemptOver => (
                C::GameOver,
                "this attempt is over; retry it or start another".into(),
            ),
            Reason::RetryOnlyWhenOver => (
                C::NotFinished,
                "an attempt can be retried once it is over".into(),
            ),
            Reason::UnknownAttempt { attempt } => (
                C::UnknownAttempt,
                format!("this connection has no attempt {attempt}").into(),
            ),
            Reason::NoStreak { step } => (
                C::NoStreak,
                format!(
                    "step {step} does not follow this connection's streak: start one with step 0"
                )
                .into(),
            ),

            Reason::UnknownEvent { event } => (
                C::UnknownEvent,
                format!("no event with id {event:?}").into(),
            ),
            Reason::EventSignIn => (
                C::SignInRequired,
                "sign in to play in the event; guests can watch".into(),
            ),
            Reason::NotInEvent => (C::NotInEvent, "you are not in this event".into()),
            Reason::EventOver => (C::EventOver, "the event is over".into()),
            Reason::EventFull => (C::EventFull, "the event is full".into()),
            Reason::EventOther { why } => (C::Unavailable, (*why).into()),
            Reason::EventStopped => (C::Unavailable, "the event's task has stopped".into()),
            Reason::EventUnreadable => (C::Storage, "the event could not be read".into()),
            Reason::EventRematch => (
                C::EventGame,
                "an event's games have no rematch: the event pairs your next game".into(),
            ),
            Reason::NotConnected { name } => (
                C::Unavailable,
                format!("{name} has no open connection now").into(),
            ),
            Reason::PlayerSeatedElsewhere { user, room } => (
                C::AlreadySeated,
                format!("player {user} sits in room {room} now").into(),
            ),
        };
        (code, message)
    }
}

/// The engine's verdict on a move is the only move check: its refusal, worded here.
impl From<IllegalMove> for Reason {
    fn from(e: IllegalMove) -> Reason {
        match e {
            IllegalMove::NoSuchCell(cell) => Reason::NoSuchCell { cell },
            IllegalMove::Occupied(cell) => Reason::CellOccupied { cell },
            IllegalMove::GameOver => Reason::GameOver,
        }
    }
}

/// A refusal as its sender is told: the stable code and a message for people, both from its
/// [`Reason`] (the only way to make one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub code: ErrorCode,
    pub message: String,
    reason: Reason,
}

impl Refusal {
    /// Why it was refused.
    pub fn reason(&self) -> &Reason {
        &self.reason
    }
}

impl From<Reason> for Refusal {
    fn from(reason: Reason) -> Refusal {
        let (code, message) = reason.told();
        Refusal {
            code,
            message: message.into_owned(),
            reason,
        }
    }
}

impl From<IllegalMove> for Refusal {
    fn from(e: IllegalMove) -> Refusal {
        Refusal::from(Reason::from(e))
    }
}

impl core::fmt::Display for Refusal {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Refusal {}

/// Refuses for `reason`.
pub(crate) fn refuse<T>(reason: Reason) -> Result<T, Refusal> {
    Err(Refusal::from(reason))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_illegal_move_is_worded_as_the_room_words_it() {
        let occupied = Refusal::from(IllegalMove::Occupied(0));
        assert_eq!(occupied.code, ErrorCode::CellOccupied);
        assert_eq!(occupied.message, "the top left cell is taken");
        let outside = Refusal::from(IllegalMove::NoSuchCell(9));
        assert_eq!(outside.code, ErrorCode::NoSuchCell);
        assert_eq!(outside.message, "there is no cell 9; cells are 0 to 8");
        assert_eq!(
            Refusal::from(IllegalMove::GameOver).code,
            ErrorCode::GameOver
        );
    }

    #[test]
    fn a_locked_out_passcode_is_a_wrong_passcode_saying_when_to_retry() {
        let locked = Refusal::from(Reason::PasscodeLockedOut { secs: 42 });
        assert_eq!(locked.code, ErrorCode::WrongPasscode);
        assert!(
            locked.message.starts_with("too many wrong passcodes"),
            "{}",
            locked.message
        );
        assert!(locked.message.ends_with("try again in 42 s"));
    }
}
