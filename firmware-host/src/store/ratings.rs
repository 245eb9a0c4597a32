//! Every player's ratings in memory, so that a game's start reads them without a read
//! transaction on a blocking thread (issue 13: the hand-off cost more than the read).
//!
//! The copy is loaded at open and kept true by the writer alone: after each commit, before it
//! answers anyone, the writer reads back from the database every user record the commit may
//! have rewritten (or every record, after a new season or a restore). So a reader can never see
//! a rating older than a commit it was told about, and the copy never holds a value the file
//! does not. When the copy cannot be trusted (a failed commit, a failed read-back) it is
//! dropped, readers go to the file as before, and the next commit that writes a player's record
//! (or the card healing) loads it whole again.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use engine::Game;
use protocol::records::{PlayerRef, UserId};
use redb::{Database, ReadTransaction, ReadableDatabase, ReadableTable};
use rooms::StoreError;

use super::records::decode_user;
use super::writer::{Op, Outcome};
use super::{USERS, store_err};

/// Ratings by user: `[xo, infinite]`.
type ByUser = HashMap<UserId, [i32; 2]>;

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
enum Touched {
    Nobody,
    Users(Vec<UserId>),
    Everyone,
}

/// What `op` (answered `outcome`) may have changed in the users table. Every write is listed,
/// so that a new one has to say.
fn touched(op: &Op, outcome: &Outcome) -> Touched {
    match op {
        Op::Register { .. } => match outcome {
            Outcome::Registered(id) => Touched::Users(vec![*id]),
            _ => Touched::Nobody,
        },
        // A rated result rewrites both players' ladders (also when it was already stored:
        // reading back is exact either way).
        Op::CommitGame(game) if game.rated => {
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
        | Op::CreateSession { .. }
        | Op::DeleteSession { .. }
        | Op::SaveRoom { .. }
        | Op::DeleteRoom { .. }
        | Op::AddOwner { .. }
        | Op::RemoveOwner { .. }
        | Op::SetSettings(_)
        | Op::IssueResetCode { .. }
        | Op::GuessResetCode { .. }
        | Op::GiveBackResetCode { .. } => Touched::Nobody,
    }
}

fn load_all(txn: &ReadTransaction) -> Result<ByUser, StoreError> {
    let users = txn.open_table(USERS).map_err(store_err)?;
    let mut all = ByUser::new();
    for entry in users.iter().map_err(store_err)? {
        let (id, bytes) = entry.map_err(store_err)?;
        let user = decode_user(bytes.value())?;
        all.insert(id.value(), [user.xo.rating, user.infinite.rating]);
    }
    Ok(all)
}

impl Ratings {
    fn lock(&self) -> MutexGuard<'_, Option<ByUser>> {
        self.copy.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Loads every player's ratings (at open, before the writer starts).
    pub(super) fn load(&self, db: &Database) -> Result<(), StoreError> {
        let all = load_all(&db.begin_read().map_err(store_err)?)?;
        *self.lock() = Some(all);
        Ok(())
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

    /// A commit may have failed half-way through the file: the copy is no longer trusted.
    pub(super) fn distrust(&self) {
        *self.lock() = None;
    }

    /// After a successful commit of `ops` (answered `outcomes`): reads back what it may have
    /// changed. Called by the writer before it answers.
    pub(super) fn committed<'a>(
        &self,
        db: &Database,
        ops: impl Iterator<Item = &'a Op>,
        outcomes: &[Outcome],
    ) {
        let mut users = Vec::new();
        let mut everyone = false;
        for (op, outcome) in ops.zip(outcomes) {
            match touched(op, outcome) {
                Touched::Nobody => {}
                Touched::Users(ids) => users.extend(ids),
                Touched::Everyone => everyone = true,
            }
        }
        if !everyone && users.is_empty() {
            return;
        }
        // An untrusted copy is loaded whole again.
        everyone |= self.lock().is_none();
        self.read_back(db, everyone, &users);
    }

    /// Loads the copy whole again (after the card healed).
    pub(super) fn reload(&self, db: &Database) {
        self.read_back(db, true, &[]);
    }

    fn read_back(&self, db: &Database, everyone: bool, users: &[UserId]) {
        let read = db.begin_read().map_err(store_err).and_then(|txn| {
            if everyone {
                return load_all(&txn).map(Reread::All);
            }
            let table = txn.open_table(USERS).map_err(store_err)?;
            users
                .iter()
                .map(|&id| {
                    let ratings = table
                        .get(id)
                        .map_err(store_err)?
                        .map(|bytes| decode_user(bytes.value()))
                        .transpose()?
                        .map(|user| [user.xo.rating, user.infinite.rating]);
                    Ok((id, ratings))
                })
                .collect::<Result<Vec<_>, StoreError>>()
                .map(Reread::Some)
        });
        let mut copy = self.lock();
        match read {
            Ok(Reread::All(all)) => *copy = Some(all),
            Ok(Reread::Some(found)) => {
                if let Some(copy) = copy.as_mut() {
                    for (id, ratings) in found {
                        match ratings {
                            Some(ratings) => copy.insert(id, ratings),
                            None => copy.remove(&id),
                        };
                    }
                }
            }
            Err(e) => {
                // Said once, when the copy stops being trusted, not at every commit after.
                if copy.is_some() {
                    tracing::warn!(error = %e, "reading ratings back failed; reading them from the file until a later commit");
                }
                *copy = None;
            }
        }
    }
}

enum Reread {
    All(ByUser),
    Some(Vec<(UserId, Option<[i32; 2]>)>),
}

#[cfg(test)]
mod tests {
    use engine::{Game, Mark};
    use protocol::records::{FinishedGame, GameEnd, PlayerRef, UserId};
    use rooms::Persistence;

    use crate::store::Store;

    fn rated(id: &str, game: Game, x: UserId, o: UserId, loser: Mark) -> FinishedGame {
        FinishedGame {
            id: id.into(),
            game,
            rated: true,
            x: PlayerRef::User {
                id: x,
                name: format!("p{x}"),
            },
            o: PlayerRef::User {
                id: o,
                name: format!("p{o}"),
            },
            moves: vec![4, 0, 2],
            end: GameEnd::Resigned { loser },
            started_at_ms: 10_000,
            ended_at_ms: 20_000,
        }
    }

    /// The copy in memory says what the file says, on both ladders.
    fn assert_true(store: &Store, users: &[UserId]) -> [Vec<i32>; 2] {
        [Game::Xo, Game::Infinite].map(|game| {
            let file = store.ratings_blocking(game, users).expect("ratings read");
            assert_eq!(
                store.ratings_in_memory(game, users),
                Some(file.clone()),
                "{game:?} ratings of {users:?} in memory"
            );
            file
        })
    }

    #[tokio::test]
    async fn ratings_in_memory_follow_every_write_of_the_users_table() {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Store::open_blocking(dir.path()).expect("open");
        let a = store
            .register("alpha", "hash", [1; 32], 0, u64::MAX)
            .await
            .expect("register");
        let b = store
            .register("beta", "hash", [2; 32], 0, u64::MAX)
            .await
            .expect("register");
        let start = assert_true(&store, &[a, b]);
        assert_eq!(start[0], vec![1200, 1200], "E1: a new player's rating");
        let backup = store.backup_blocking(0).expect("backup");

        // A rated result, then the same result committed again (a retried commit).
        store
            .commit_game(&rated("r1", Game::Xo, a, b, Mark::O))
            .await
            .expect("commit");
        let after = assert_true(&store, &[a, b]);
        assert!(after[0][0] > 1200 && after[0][1] < 1200, "{after:?}");
        store
            .commit_game(&rated("r1", Game::Xo, a, b, Mark::O))
            .await
            .expect("commit again");
        assert_eq!(assert_true(&store, &[a, b]), after);
        store
            .commit_game(&rated("r2", Game::Infinite, b, a, Mark::X))
            .await
            .expect("commit");
        assert_ne!(assert_true(&store, &[a, b])[1], vec![1200, 1200]);

        // A rename and a new password keep the ratings.
        store.rename(a, "alpha2").await.expect("rename");
        store
            .change_password(b, "other".into(), [2; 32])
            .await
            .expect("password");
        assert_true(&store, &[a, b]);

        // A new season puts everyone back at the start.
        store.new_season(30_000).await.expect("new season");
        assert_eq!(assert_true(&store, &[a, b]), start);
        store
            .commit_game(&rated("r3", Game::Xo, b, a, Mark::O))
            .await
            .expect("commit");
        assert_ne!(assert_true(&store, &[a, b]), start);

        // A restore brings back the backup's ratings.
        let (_, source) = store.verify_backup_blocking(&backup).expect("verify");
        store.restore(source, false).await.expect("restore");
        assert_eq!(assert_true(&store, &[a, b]), start);
        store
            .commit_game(&rated("r4", Game::Xo, a, b, Mark::X))
            .await
            .expect("commit");
        assert_true(&store, &[a, b]);

        // A removed player is no longer there; a new one is, at the start.
        store.delete_account(b).await.expect("delete");
        assert_eq!(store.ratings_in_memory(Game::Xo, &[b]), None);
        assert!(store.ratings_blocking(Game::Xo, &[b]).is_err());
        let c = store
            .register("gamma", "hash", [3; 32], 0, u64::MAX)
            .await
            .expect("register");
        assert_eq!(assert_true(&store, &[a, c])[0][1], 1200);

        // Opened again, the copy is loaded from the file.
        let expected = assert_true(&store, &[a, c]);
        tokio::task::spawn_blocking(move || store.shutdown_blocking())
            .await
            .expect("shut down");
        let store = Store::open_blocking(dir.path()).expect("reopen");
        assert_eq!(assert_true(&store, &[a, c]), expected);
    }
}
