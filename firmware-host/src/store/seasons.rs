//! Seasons (SPEC O2): an owner archives the current ladders and starts fresh. The archive of
//! season N is every player's standing on both ladders when it ended; it stays viewable on
//! profiles and the leaderboard (`?season=N`). The season being played is
//! [`Store::current_season_blocking`], from 1.
//!
//! `seasons` is a table of its own beside the schema-2 tables (as `owners`), so an older
//! release still opens the file; games keep their rating changes as they were.

use engine::Game;
use protocol::records::UserId;
use redb::{ReadTransaction, ReadableTable, TableDefinition, WriteTransaction};
use rooms::StoreError;
use serde::{Deserialize, Serialize};

use super::accounts::{self, USERS};
use super::error::store_err;
use super::handle::Store;
use super::ladders::{LeaderboardRow, rank};
use super::meta::{self, META};
use super::op::{Op, Outcome, unexpected};
use super::records::{
    LadderStats, UserRecord, VersionedUser, decode, decode_user, encode, u64_from_meta,
};

/// season number → `VersionedSeason`.
pub(super) const SEASONS: TableDefinition<'_, u64, &[u8]> = TableDefinition::new("seasons");

/// Seasons archived so far (u64 little-endian, missing means 0): the one played is the next.
const META_SEASONS_ARCHIVED: &str = "seasons_archived";

/// One player's standing when a season ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeasonRow {
    pub user: UserId,
    /// The name when the season ended.
    pub name: String,
    pub xo: LadderStats,
    pub infinite: LadderStats,
}

/// An archived season.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeasonRecord {
    pub number: u64,
    /// When it ended (the previous one's end, or the first account's creation, is its start).
    pub ended_ms: u64,
    /// Players with at least one rated game that season.
    pub rows: Vec<SeasonRow>,
}

/// One player's part in an archived season, for their profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerSeason {
    pub number: u64,
    pub ended_ms: u64,
    pub xo: LadderStats,
    pub infinite: LadderStats,
    /// The places on the season's ladders (xo, infinite), from 1, as its archived leaderboard
    /// orders them; `None` on a ladder the player had no game of.
    pub xo_rank: Option<u32>,
    pub infinite_rank: Option<u32>,
}

/// One ladder of an archived season, ranked as [`Store::leaderboard_blocking`] ranks the
/// current one.
pub(super) fn season_ladder(
    season: &SeasonRecord,
    game: Game,
    limit: usize,
) -> Vec<LeaderboardRow> {
    let mut rows: Vec<LeaderboardRow> = season
        .rows
        .iter()
        .map(|row| LeaderboardRow {
            user: row.user,
            stats: match game {
                Game::Xo => row.xo,
                Game::Infinite => row.infinite,
            },
            name: row.name.clone(),
        })
        .filter(|row| row.stats.games() > 0)
        .collect();
    rank(&mut rows, limit);
    rows
}

/// `user`'s place on one ladder of `season`, from 1.
fn place(season: &SeasonRecord, game: Game, user: UserId) -> Option<u32> {
    season_ladder(season, game, usize::MAX)
        .iter()
        .position(|row| row.user == user)
        .and_then(|i| u32::try_from(i + 1).ok())
}

fn seasons_in(txn: &ReadTransaction) -> Result<Vec<SeasonRecord>, StoreError> {
    let seasons = txn.open_table(SEASONS).map_err(store_err)?;
    let mut out = Vec::new();
    for entry in seasons.iter().map_err(store_err)? {
        let (_, bytes) = entry.map_err(store_err)?;
        let VersionedSeason::V1(s) = decode(bytes.value(), "season")?;
        out.push(s);
    }
    Ok(out)
}

#[derive(Serialize, Deserialize)]
pub(super) enum VersionedSeason {
    V1(SeasonRecord),
}

impl Store {
    /// The season being played, from 1.
    pub fn current_season_blocking(&self) -> Result<u64, StoreError> {
        self.read(|txn| {
            let meta = txn.open_table(META).map_err(store_err)?;
            meta.get(META_SEASONS_ARCHIVED)
                .map_err(store_err)?
                .map(|v| u64_from_meta(v.value()))
                .transpose()
                .map(|archived| archived.unwrap_or(0) + 1)
        })
    }

    /// An archived season; `None` when `number` was never archived.
    pub fn season_blocking(&self, number: u64) -> Result<Option<SeasonRecord>, StoreError> {
        self.read(|txn| {
            let seasons = txn.open_table(SEASONS).map_err(store_err)?;
            seasons
                .get(number)
                .map_err(store_err)?
                .map(|bytes| {
                    decode::<VersionedSeason>(bytes.value(), "season")
                        .map(|VersionedSeason::V1(s)| s)
                })
                .transpose()
        })
    }

    /// The ladder of `game` as archived season `number` ended, ordered as
    /// [`Store::leaderboard_blocking`]; `None` when that season was never archived.
    pub fn season_leaderboard_blocking(
        &self,
        number: u64,
        game: Game,
        limit: usize,
    ) -> Result<Option<Vec<LeaderboardRow>>, StoreError> {
        let Some(season) = self.season_blocking(number)? else {
            return Ok(None);
        };
        Ok(Some(season_ladder(&season, game, limit)))
    }

    /// Every archived season, oldest first.
    pub fn seasons_blocking(&self) -> Result<Vec<SeasonRecord>, StoreError> {
        self.read(seasons_in)
    }

    /// A player by username (any case) with the archived seasons they played, oldest first,
    /// from one read: a season archived meanwhile is either in the seasons with the ladders
    /// back at the start, or not yet archived with the ladders as they were.
    pub fn user_with_seasons_blocking(
        &self,
        name: &str,
    ) -> Result<Option<(UserId, UserRecord, Vec<PlayerSeason>)>, StoreError> {
        self.read(|txn| {
            let Some((id, user)) = accounts::user_by_name_in(txn, name)? else {
                return Ok(None);
            };
            let played = seasons_in(txn)?
                .iter()
                .filter_map(|season| {
                    let row = season.rows.iter().find(|r| r.user == id)?;
                    Some(PlayerSeason {
                        number: season.number,
                        ended_ms: season.ended_ms,
                        xo: row.xo,
                        infinite: row.infinite,
                        xo_rank: place(season, Game::Xo, id),
                        infinite_rank: place(season, Game::Infinite, id),
                    })
                })
                .collect();
            Ok(Some((id, user, played)))
        })
    }

    /// Archives the current season's ladders and starts the next one, every player back at
    /// the start (rating 1200, no points, no games), in one durable transaction. Returns the
    /// number of the season archived.
    pub async fn new_season(&self, now_ms: u64) -> Result<u64, StoreError> {
        match self.write(Op::NewSeason { now_ms }).await? {
            Outcome::Season(n) => Ok(n),
            other => Err(unexpected(&other)),
        }
    }
}

/// Creates the table (every open).
pub(super) fn create_tables(txn: &WriteTransaction) -> Result<(), StoreError> {
    txn.open_table(SEASONS).map_err(store_err)?;
    Ok(())
}

/// Applies a season write; `None` for the other writes.
pub(super) fn apply(txn: &WriteTransaction, op: &Op) -> Option<Result<Outcome, StoreError>> {
    match op {
        Op::NewSeason { now_ms } => Some(new_season(txn, *now_ms)),
        _ => None,
    }
}

/// The writer's half of [`Store::new_season`].
fn new_season(txn: &WriteTransaction, now_ms: u64) -> Result<Outcome, StoreError> {
    let number = meta::next_counter(txn, META_SEASONS_ARCHIVED)? + 1;
    let mut users = txn.open_table(USERS).map_err(store_err)?;
    let mut rows = Vec::new();
    let mut all = Vec::new();
    for entry in users.iter().map_err(store_err)? {
        let (id, bytes) = entry.map_err(store_err)?;
        all.push((id.value(), decode_user(bytes.value())?));
    }
    for (id, mut user) in all {
        if user.xo.games() + user.infinite.games() > 0 {
            rows.push(SeasonRow {
                user: id,
                name: user.name.clone(),
                xo: user.xo,
                infinite: user.infinite,
            });
        }
        user.xo = LadderStats::default();
        user.infinite = LadderStats::default();
        users
            .insert(id, encode(&VersionedUser::V1(user))?.as_slice())
            .map_err(store_err)?;
    }
    let record = VersionedSeason::V1(SeasonRecord {
        number,
        ended_ms: now_ms,
        rows,
    });
    txn.open_table(SEASONS)
        .map_err(store_err)?
        .insert(number, encode(&record)?.as_slice())
        .map_err(store_err)?;
    Ok(Outcome::Season(number))
}
