//! Every player's ratings in memory, so that a game's start reads them without a read
//! transaction on a blocking thread (the hand-off cost more than the read).
//!
//! The copy is loaded at open and kept true by the writer alone: after each commit, before it
//! answers anyone, the writer reads back from the database every user record the commit may
//! have rewritten ([`touched`]; or every record, after a new season or a restore) through
//! `ladders`, which owns those reads. So a reader can never see a rating older than a commit it
//! was told about, and the copy never holds a value the file does not. When the copy cannot be
//! trusted (a failed commit, a failed read-back) it is dropped, readers go to the file as
//! before, and the next commit that writes a player's record (or the card healing) loads it
//! whole again.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use engine::Game;
use protocol::records::{PlayerRef, UserId};

use super::op::{Op, Outcome};

/// Ratings by user: `[xo, infinite]`.
pub(super) type ByUser = HashMap<UserId, [i32; 2]>;

fn slot(game: Game) -> usize {
    match game {
        Game::Xo => 0,
        Game::Infinite => 1,
    }
}

/// The ratings copy; `None` while it cannot be trusted.
#[derive(Debug, Default)]
pub(super) struct Ratings {
    copy: Mutex<Option<ByUser>>,
}

/// Which players' records a committed write may have rewritten.
pub(super) enum Touched {
    Nobody,
    Users(Vec<UserId>),
    Everyone,
}

/// What `op` (answered `outcome`) may have changed in the users table. Every write is listed,
/// so that a new one has to say.
pub(super) fn touched(op: &Op, outcome: &Outcome) -> Touched {
    match op {
        Op::Register { .. } => match outcome {
            Outcome::Registered(id) => Touched::Users(vec![*id]),
            _ => Touched::Nobody,
        },
        // A rated result rewrites both players' ladders (also when it was already stored:
        // reading back is exact either way).
        Op::CommitGame(game) | Op::CommitEventGame { game, .. } if game.rated => {
            let users = [&game.x, &game.o]
                .into_iter()
                .filter_map(|p| match p {
                    PlayerRef::User { id, .. } => Some(*id),
                    _ => None,
                })
                .collect();
            Touched::Users(users)
        }
        // These rewrite the record (a password, a name) or remove it; read back all the same.
        Op::ChangePassword { user, .. } | Op::DeleteAccount { user } | Op::Rename { user, .. } => {
            Touched::Users(vec![*user])
        }
        // Every ladder reset; every table replaced.
        Op::NewSeason { .. } | Op::Restore { .. } => Touched::Everyone,
        // No user record written.
        Op::CommitGame(_)
        | Op::CommitEventGame { .. }
        | Op::CreateEvent { .. }
        | Op::SaveEvent { .. }
        | Op::CancelEvent { .. }
        | Op::CreateSession { .. }
        | Op::DeleteSession { .. }
        | Op::SaveRoom { .. }
        | Op::DeleteRoom { .. }
        | Op::AddOwner { .. }
        | Op::RemoveOwner { .. }
        | Op::SetSettings(_)
        | Op::IssueResetCode { .. }
        | Op::GuessResetCode { .. }
        | Op::GiveBackResetCode { .. }
        // Puzzle ratings live in their own tables, not in the user record.
        | Op::RecordPuzzle(_)
        | Op::DailySolves { .. } => Touched::Nobody,
    }
}

/// What a commit of `ops` (answered `outcomes`) may have changed, all together.
pub(super) fn touched_by<'a>(ops: impl Iterator<Item = &'a Op>, outcomes: &[Outcome]) -> Touched {
    let mut users = Vec::new();
    for (op, outcome) in ops.zip(outcomes) {
        match touched(op, outcome) {
            Touched::Nobody => {}
            Touched::Users(ids) => users.extend(ids),
            Touched::Everyone => return Touched::Everyone,
        }
    }
    if users.is_empty() {
        Touched::Nobody
    } else {
        Touched::Users(users)
    }
}

impl Ratings {
    fn lock(&self) -> MutexGuard<'_, Option<ByUser>> {
        self.copy.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The rating of each of `users` on `game`'s ladder, when the copy is trusted and holds
    /// them all.
    pub(super) fn get(&self, game: Game, users: &[UserId]) -> Option<Vec<i32>> {
        let copy = self.lock();
        let copy = copy.as_ref()?;
        users
            .iter()
            .map(|id| copy.get(id).map(|r| r[slot(game)]))
            .collect()
    }

    /// Whether the copy is trusted (else it must be loaded whole).
    pub(super) fn trusted(&self) -> bool {
        self.lock().is_some()
    }

    /// A commit may have failed half-way through the file: the copy is no longer trusted.
    pub(super) fn distrust(&self) {
        *self.lock() = None;
    }

    /// Every player's ratings, read whole.
    pub(super) fn replace(&self, all: ByUser) {
        *self.lock() = Some(all);
    }

    /// Some players' ratings, read back (`None`: the player is gone). A copy not trusted
    /// stays so.
    pub(super) fn update(&self, found: Vec<(UserId, Option<[i32; 2]>)>) {
        if let Some(copy) = self.lock().as_mut() {
            for (id, ratings) in found {
                match ratings {
                    Some(ratings) => copy.insert(id, ratings),
                    None => copy.remove(&id),
                };
            }
        }
    }
}
