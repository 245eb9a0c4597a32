//! The write vocabulary: every write the store's writer takes ([`Op`]) and what it produced
//! ([`Outcome`]). This module names no noun and no noun names the writer: the writer hands
//! each `Op` to the noun that owns it (`dispatch`), and each noun builds its `Op`s here.

use protocol::records::{FinishedGame, RatingUpdate, UserId};
use rooms::{PuzzleRecorded, PuzzleResult, StoreError};
use tokio::sync::oneshot;

use super::records::{EventGame, ResetCodeRecord, ResetGuess, SavedArena, SettingsRecord};

/// A write for the writer thread, by noun.
#[derive(Debug)]
pub(super) enum Op {
    /// `accounts`: a player and their first session.
    Register {
        name: String,
        password_hash: String,
        token_hash: [u8; 32],
        now_ms: u64,
        expires_ms: u64,
    },
    /// `accounts`: a new password hash for `user`, and every session of that user but `keep`
    /// forgotten.
    ChangePassword {
        user: UserId,
        password_hash: String,
        keep: [u8; 32],
    },
    /// `sessions`.
    CreateSession {
        token_hash: [u8; 32],
        user: UserId,
        now_ms: u64,
        expires_ms: u64,
    },
    DeleteSession {
        token_hash: [u8; 32],
    },
    /// `games`: a finished game, with both ratings when it is rated (E2).
    CommitGame(Box<FinishedGame>),
    /// `open_rooms`.
    SaveRoom {
        id: String,
        state: Vec<u8>,
    },
    DeleteRoom {
        id: String,
    },
    /// `owners`: `user` becomes an owner.
    AddOwner {
        user: UserId,
        now_ms: u64,
    },
    RemoveOwner {
        user: UserId,
    },
    /// `owners`: an account and its personal data removed.
    DeleteAccount {
        user: UserId,
    },
    /// `owners`: an owner renames an account; `name` is already valid (A1).
    Rename {
        user: UserId,
        name: String,
    },
    /// `seasons`: the current ladders archived as a season, and every player's reset.
    NewSeason {
        now_ms: u64,
    },
    /// `backup`: every backed-up table replaced by a verified backup's.
    Restore {
        source: std::path::PathBuf,
        with_settings: bool,
    },
    /// `settings`: an owner's settings saved whole, or forgotten.
    SetSettings(Option<Box<SettingsRecord>>),
    /// `reset_codes`: a password reset code stored for `user`.
    IssueResetCode {
        user: UserId,
        record: ResetCodeRecord,
        now_ms: u64,
    },
    /// `reset_codes`: a guess at `user`'s reset code: taken when right, counted when wrong.
    GuessResetCode {
        user: UserId,
        hash: [u8; 32],
        now_ms: u64,
    },
    /// `reset_codes`: a redeemed code returned after its reset failed.
    GiveBackResetCode {
        user: UserId,
        record: ResetCodeRecord,
    },
    /// `events`: a new event, refused when its time overlaps another's that is not over.
    CreateEvent {
        saved: Box<SavedArena>,
        now_ms: u64,
    },
    /// `events`: an event's saved state replaced (EV7).
    SaveEvent {
        id: String,
        saved: Box<SavedArena>,
    },
    /// `events`: an announced event cancelled (EV1); nothing else is cancelled.
    CancelEvent {
        id: String,
    },
    /// `events`: a finished game of an event with its points, in the transaction of its
    /// result (EV4), as `CommitGame` writes it.
    CommitEventGame {
        game: Box<FinishedGame>,
        event: String,
        record: Box<EventGame>,
    },
    /// `puzzles`: a signed-in player's ended puzzle attempt; rated, with both ratings, when
    /// it may be and is the player's first at that puzzle (PZ3).
    RecordPuzzle(Box<PuzzleResult>),
    /// `puzzles`: a day's daily solve counts (XO, Infinite XO), each kept when higher.
    DailySolves {
        day: u32,
        counts: [u32; 2],
    },
}

impl Op {
    /// Whether the caller may be answered before the data reaches the disk.
    pub(super) fn durable(&self) -> bool {
        // A daily count lost to a power cut is a count one short, like a room's last second.
        !matches!(self, Op::SaveRoom { .. } | Op::DailySolves { .. })
    }
}

/// What a write produced.
#[derive(Debug)]
pub(super) enum Outcome {
    Registered(UserId),
    NameTaken,
    Done,
    Rated(Vec<RatingUpdate>),
    /// Refused before writing anything (a malformed rated game, an id reused).
    Refused(StoreError),
    /// Whether an owner-mode write changed anything.
    Changed(bool),
    /// Refused: it would leave the kiosk without an owner.
    LastOwner,
    /// Refused: no such account.
    UnknownUser,
    /// The account was deleted or renamed: the name it had.
    OldName(String),
    /// A season was archived: its number.
    Season(u64),
    /// What a guess at a reset code found.
    ResetGuess(ResetGuess),
    /// An event was created: its id.
    EventCreated(String),
    /// An event was refused: it would overlap this one.
    EventClash(String),
    /// A puzzle attempt was stored: the rating change when it was rated, the player's
    /// rating now.
    PuzzleRated(PuzzleRecorded),
}

/// Why an owner-mode write was refused (`owners`, `reset_codes`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OwnerError {
    /// It would leave the kiosk without an owner.
    LastOwner,
    /// No such account.
    UnknownUser,
    /// A rename to a name another account has.
    NameTaken,
    Store(StoreError),
}

impl From<StoreError> for OwnerError {
    fn from(e: StoreError) -> Self {
        OwnerError::Store(e)
    }
}

impl std::fmt::Display for OwnerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OwnerError::LastOwner => f.write_str("the last owner cannot be removed"),
            OwnerError::UnknownUser => f.write_str("no such account"),
            OwnerError::NameTaken => f.write_str("username taken"),
            OwnerError::Store(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for OwnerError {}

/// An outcome a write cannot have: a bug.
pub(super) fn unexpected(outcome: &Outcome) -> StoreError {
    StoreError::Internal(format!("unexpected store outcome {outcome:?}"))
}

/// Where the writer answers a write, once the commit holding it is done.
pub(super) type Reply = oneshot::Sender<Result<Outcome, StoreError>>;

/// What the writer's channel carries.
#[derive(Debug)]
pub(super) enum Request {
    Write(Op, Reply),
    /// Commit everything before this request durably, answer, and stop.
    Shutdown(oneshot::Sender<()>),
}
