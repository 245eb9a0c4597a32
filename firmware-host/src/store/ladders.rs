//! The ladders (E1, E5): each player's standing per game, kept in their user record
//! (`accounts`), read as a leaderboard, as ratings for a game's start, and into the ratings
//! copy in memory (`ratings`) that the writer keeps true after each commit.

use engine::Game;
use protocol::records::UserId;
use redb::{Database, ReadTransaction, ReadableDatabase, ReadableTable};
use rooms::StoreError;

use super::accounts::USERS;
use super::error::store_err;
use super::handle::Store;
use super::ratings::{ByUser, Ratings, Touched};
use super::records::{LadderStats, decode_user};

/// One row of a leaderboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeaderboardRow {
    pub user: UserId,
    pub name: String,
    pub stats: LadderStats,
}

impl Store {
    /// The ladder of `game`: players with at least one rated game on it, best rating first
    /// (then more points, then name), at most `limit`. Scans the users table, which is small on
    /// a kiosk.
    pub fn leaderboard_blocking(
        &self,
        game: Game,
        limit: usize,
    ) -> Result<Vec<LeaderboardRow>, StoreError> {
        let mut rows = self.read(|txn| {
            let users = txn.open_table(USERS).map_err(store_err)?;
            let mut rows = Vec::new();
            for entry in users.iter().map_err(store_err)? {
                let (id, bytes) = entry.map_err(store_err)?;
                let user = decode_user(bytes.value())?;
                let stats = *user.ladder(game);
                if stats.games() > 0 {
                    rows.push(LeaderboardRow {
                        user: id.value(),
                        name: user.name,
                        stats,
                    });
                }
            }
            Ok(rows)
        })?;
        rank(&mut rows, limit);
        Ok(rows)
    }

    /// The current rating of each user on `game`'s ladder, from the file.
    pub(super) fn ratings_from_file(
        &self,
        game: Game,
        users: &[UserId],
    ) -> Result<Vec<i32>, StoreError> {
        self.read(|txn| {
            let table = txn.open_table(USERS).map_err(store_err)?;
            users
                .iter()
                .map(|&id| match table.get(id).map_err(store_err)? {
                    Some(bytes) => Ok(decode_user(bytes.value())?.ladder(game).rating),
                    None => Err(StoreError::Refused(format!("no user {id}"))),
                })
                .collect()
        })
    }
}

/// Best rating first, then more points, then name; at most `limit`.
pub(super) fn rank(rows: &mut Vec<LeaderboardRow>, limit: usize) {
    rows.sort_by(|a, b| {
        b.stats
            .rating
            .cmp(&a.stats.rating)
            .then(b.stats.points.cmp(&a.stats.points))
            .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
    });
    rows.truncate(limit);
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

/// Loads every player's ratings into `ratings` (at open, before the writer starts).
pub(super) fn load(ratings: &Ratings, db: &Database) -> Result<(), StoreError> {
    let all = load_all(&db.begin_read().map_err(store_err)?)?;
    ratings.replace(all);
    Ok(())
}

/// After a successful commit that `touched` players' records: reads back what it may have
/// changed into `ratings` (whole when the copy was not trusted). Called by the writer before
/// it answers.
pub(super) fn read_back(ratings: &Ratings, db: &Database, touched: Touched) {
    let users = match touched {
        Touched::Nobody => return,
        // An untrusted copy is loaded whole again.
        Touched::Users(_) if !ratings.trusted() => Vec::new(),
        Touched::Users(users) => users,
        Touched::Everyone => Vec::new(),
    };
    let everyone = users.is_empty();
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
    match read {
        Ok(Reread::All(all)) => ratings.replace(all),
        Ok(Reread::Some(found)) => ratings.update(found),
        Err(e) => {
            // Said once, when the copy stops being trusted, not at every commit after.
            if ratings.trusted() {
                tracing::warn!(error = %e, "reading ratings back failed; reading them from the file until a later commit");
            }
            ratings.distrust();
        }
    }
}

enum Reread {
    All(ByUser),
    Some(Vec<(UserId, Option<[i32; 2]>)>),
}
