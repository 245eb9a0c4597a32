//! Finished games (P3, E2): the game records, each registered player's games in order, and
//! the unrated ones among them, of which only the newest [`UNRATED_KEPT`] are kept. A rated
//! result — the record, both players' new ratings, points and W/D/L — is written in the
//! caller's one transaction (`commit_in`), which also forgets the saved open room of the same
//! id. The results and room saves of one group commit share their open tables
//! ([`GameTables`]).

use std::future::Future;

use engine::{Mark, Score};
use protocol::records::{FinishedGame, PlayerRef, RatingUpdate, UserId};
use redb::{ReadableTable, ReadableTableMetadata, TableDefinition, WriteTransaction};
use rooms::StoreError;

use super::accounts::USERS;
use super::error::store_err;
use super::handle::Store;
use super::meta::{self, META};
use super::op::{Op, Outcome, unexpected};
use super::open_rooms::{self, OPEN_ROOMS};
use super::records::{
    GameRecordV1, StoredGame, StoredPlayer, VersionedGame, VersionedUser, decode_game, decode_user,
    encode,
};

/// game id → `VersionedGame`.
pub(super) const GAMES: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("games");
/// (user id, game sequence number) → game id: each registered player's games, oldest first.
pub(super) const USER_GAMES: TableDefinition<'_, (u64, u64), &str> =
    TableDefinition::new("user_games");
/// (user id, game sequence number) → game id: the unrated ones among them, so that only the
/// newest [`UNRATED_KEPT`] are kept (schema 2).
pub(super) const USER_UNRATED: TableDefinition<'_, (u64, u64), &str> =
    TableDefinition::new("user_unrated");

/// The counter of game sequence numbers in `meta`.
const NEXT_GAME: &str = "next_game_seq";

/// Unrated games kept per registered player, newest first: older ones are forgotten, so that
/// a player replaying bot games cannot fill the card. Rated games are all kept: they are the
/// ladder's history.
pub const UNRATED_KEPT: usize = 50;

impl Store {
    /// Stores a finished game durably ([`rooms::Persistence::commit_game`]): the rating
    /// updates, X then O (none for an unrated game).
    pub(super) fn store_game(
        &self,
        game: &FinishedGame,
    ) -> impl Future<Output = Result<Vec<RatingUpdate>, StoreError>> + Send + 'static {
        let outcome = self.write(Op::CommitGame(Box::new(game.clone())));
        async move {
            match outcome.await? {
                Outcome::Rated(updates) => Ok(updates),
                Outcome::Refused(e) => Err(e),
                other => Err(unexpected(&other)),
            }
        }
    }

    /// A finished game by id.
    pub fn game_blocking(&self, id: &str) -> Result<Option<StoredGame>, StoreError> {
        self.read(|txn| {
            let games = txn.open_table(GAMES).map_err(store_err)?;
            games
                .get(id)
                .map_err(store_err)?
                .map(|bytes| decode_game(bytes.value()).map(GameRecordV1::into_stored))
                .transpose()
        })
    }

    /// A player's most recent games, newest first, at most `limit`.
    pub fn recent_games_blocking(
        &self,
        user: UserId,
        limit: usize,
    ) -> Result<Vec<StoredGame>, StoreError> {
        self.read(|txn| {
            let index = txn.open_table(USER_GAMES).map_err(store_err)?;
            let games = txn.open_table(GAMES).map_err(store_err)?;
            let mut out = Vec::new();
            for entry in index
                .range((user, 0)..=(user, u64::MAX))
                .map_err(store_err)?
                .rev()
                .take(limit)
            {
                let (_, id) = entry.map_err(store_err)?;
                let bytes = games.get(id.value()).map_err(store_err)?.ok_or_else(|| {
                    StoreError::Corrupted(format!("game index names missing game {}", id.value()))
                })?;
                out.push(decode_game(bytes.value())?.into_stored());
            }
            Ok(out)
        })
    }

    /// How many games are stored, of every player.
    pub fn game_count_blocking(&self) -> Result<u64, StoreError> {
        self.read(|txn| {
            let games = txn.open_table(GAMES).map_err(store_err)?;
            games.len().map_err(store_err)
        })
    }

    /// Whether a stored game uses `room_id` (or a game id derived from it).
    pub(super) fn room_id_taken(&self, room_id: &str) -> Result<bool, StoreError> {
        self.read(|txn| {
            let games = txn.open_table(GAMES).map_err(store_err)?;
            // Game ids are the room id, then `<room id>-<n>` for later games of the same
            // room; they sort right after the room id.
            for entry in games.range(room_id..).map_err(store_err)? {
                let (id, _) = entry.map_err(store_err)?;
                let Some(rest) = id.value().strip_prefix(room_id) else {
                    return Ok(false);
                };
                if rest.is_empty() || rest.starts_with('-') {
                    return Ok(true);
                }
            }
            Ok(false)
        })
    }
}

/// Creates the tables (every open).
pub(super) fn create_tables(txn: &WriteTransaction) -> Result<(), StoreError> {
    txn.open_table(GAMES).map_err(store_err)?;
    txn.open_table(USER_GAMES).map_err(store_err)?;
    txn.open_table(USER_UNRATED).map_err(store_err)?;
    Ok(())
}

/// Applies a result or a room save alone; `None` for the other writes. (In a batch, a run of
/// rated results and room saves goes through [`shared`] and [`apply_shared`] instead.)
pub(super) fn apply(txn: &WriteTransaction, op: &Op) -> Option<Result<Outcome, StoreError>> {
    Some(match op {
        Op::CommitGame(game) => commit_game(txn, game),
        Op::SaveRoom { .. } | Op::DeleteRoom { .. } => {
            let write = shared(op)?;
            GameTables::open(txn).and_then(|mut t| apply_shared(&mut t, write))
        }
        _ => return None,
    })
}

/// A write that touches only the tables a batch's results share ([`GameTables`]).
pub(super) enum SharedWrite<'o> {
    Rated(&'o FinishedGame),
    SaveRoom(&'o str, &'o [u8]),
    DeleteRoom(&'o str),
}

/// `op` as a write in the shared tables, if it is one.
pub(super) fn shared(op: &Op) -> Option<SharedWrite<'_>> {
    match op {
        Op::CommitGame(game) if game.rated => Some(SharedWrite::Rated(game)),
        Op::SaveRoom { id, state } => Some(SharedWrite::SaveRoom(id, state)),
        Op::DeleteRoom { id } => Some(SharedWrite::DeleteRoom(id)),
        _ => None,
    }
}

/// Applies `write` in tables the caller opened (once for a batch's run of results and room
/// saves: opening tables is most of a save's cost).
pub(super) fn apply_shared(
    t: &mut GameTables<'_>,
    write: SharedWrite<'_>,
) -> Result<Outcome, StoreError> {
    match write {
        // A rated game has no unrated list entries.
        SharedWrite::Rated(game) => Ok(commit_in(t, game)?.0),
        SharedWrite::SaveRoom(id, state) => {
            let stored = t.games.get(id).map_err(store_err)?.is_some();
            open_rooms::save(&mut t.rooms, stored, id, state)
        }
        SharedWrite::DeleteRoom(id) => open_rooms::delete(&mut t.rooms, id),
    }
}

/// The tables a result writes, opened once for a run of rated results in one transaction
/// (opening and closing five tables per game was a third of the writer's work).
pub(super) struct GameTables<'t> {
    games: redb::Table<'t, &'static str, &'static [u8]>,
    users: redb::Table<'t, u64, &'static [u8]>,
    meta: redb::Table<'t, &'static str, &'static [u8]>,
    rooms: open_rooms::RoomsTable<'t>,
    index: redb::Table<'t, (u64, u64), &'static str>,
}

impl<'t> GameTables<'t> {
    pub(super) fn open(txn: &'t WriteTransaction) -> Result<GameTables<'t>, StoreError> {
        Ok(GameTables {
            games: txn.open_table(GAMES).map_err(store_err)?,
            users: txn.open_table(USERS).map_err(store_err)?,
            meta: txn.open_table(META).map_err(store_err)?,
            rooms: txn.open_table(OPEN_ROOMS).map_err(store_err)?,
            index: txn.open_table(USER_GAMES).map_err(store_err)?,
        })
    }
}

/// An unrated game's entries in its players' unrated lists, written after the shared tables
/// are closed (the oldest are then forgotten, which opens tables of its own).
struct UnratedEntries {
    seq: u64,
    players: Vec<UserId>,
}

pub(super) fn commit_game(
    txn: &WriteTransaction,
    game: &FinishedGame,
) -> Result<Outcome, StoreError> {
    let mut tables = GameTables::open(txn)?;
    let (outcome, unrated) = commit_in(&mut tables, game)?;
    drop(tables);
    if let Some(UnratedEntries { seq, players }) = unrated {
        let mut list = txn.open_table(USER_UNRATED).map_err(store_err)?;
        for &id in &players {
            list.insert((id, seq), game.id.as_str())
                .map_err(store_err)?;
        }
        drop(list);
        for &id in &players {
            forget_old_unrated(txn, id)?;
        }
    }
    Ok(outcome)
}

/// Writes `game` through `t`; an unrated game's list entries are left to the caller.
fn commit_in(
    t: &mut GameTables<'_>,
    game: &FinishedGame,
) -> Result<(Outcome, Option<UnratedEntries>), StoreError> {
    let refused = |e| Ok((Outcome::Refused(e), None));
    if let Some(existing) = t.games.get(game.id.as_str()).map_err(store_err)? {
        // The same game sent twice (a retry) is answered with the updates of the first.
        let existing = decode_game(existing.value())?.into_stored();
        if existing.game == *game {
            return Ok((Outcome::Rated(existing.updates), None));
        }
        return refused(StoreError::Refused(format!(
            "a different game is already stored under id {:?}",
            game.id
        )));
    }
    let registered = registered_seats(game);
    if registered.is_empty() {
        // A game without a registered player is nobody's history; it is not written, so
        // guests cannot fill the card (its room shows the replay while it lives).
        t.rooms.remove(game.id.as_str()).map_err(store_err)?;
        return Ok((Outcome::Rated(Vec::new()), None));
    }
    if game.moves.iter().any(|&c| c > 8) {
        return refused(StoreError::Refused(format!(
            "game {:?} has a move outside cells 0-8",
            game.id
        )));
    }

    let users = &mut t.users;
    let mut updates = Vec::new();
    if game.rated {
        let (PlayerRef::User { id: x_id, .. }, PlayerRef::User { id: o_id, .. }) =
            (&game.x, &game.o)
        else {
            return refused(StoreError::Refused(format!(
                "rated game {:?} does not seat two registered players",
                game.id
            )));
        };
        let (x_id, o_id) = (*x_id, *o_id);
        if x_id == o_id {
            return refused(StoreError::Refused(format!(
                "rated game {:?} seats user {x_id} twice",
                game.id
            )));
        }
        let mut x_user = match users.get(x_id).map_err(store_err)? {
            Some(bytes) => decode_user(bytes.value())?,
            None => return refused(StoreError::Refused(format!("no user {x_id}"))),
        };
        let mut o_user = match users.get(o_id).map_err(store_err)? {
            Some(bytes) => decode_user(bytes.value())?,
            None => return refused(StoreError::Refused(format!("no user {o_id}"))),
        };
        let x_score = match game.end.winner() {
            Some(Mark::X) => Score::Win,
            Some(Mark::O) => Score::Loss,
            None => Score::Draw,
        };
        let x_before = x_user.ladder(game.game).rating;
        let o_before = o_user.ladder(game.game).rating;
        let (dx, d_o) = engine::elo::changes(x_before, o_before, x_score);
        x_user.ladder_mut(game.game).record(x_score, dx);
        o_user.ladder_mut(game.game).record(x_score.opposite(), d_o);
        users
            .insert(x_id, encode(&VersionedUser::V1(x_user))?.as_slice())
            .map_err(store_err)?;
        users
            .insert(o_id, encode(&VersionedUser::V1(o_user))?.as_slice())
            .map_err(store_err)?;
        updates.push(RatingUpdate {
            user: x_id,
            mark: Mark::X,
            before: x_before,
            after: x_before + dx,
        });
        updates.push(RatingUpdate {
            user: o_id,
            mark: Mark::O,
            before: o_before,
            after: o_before + d_o,
        });
    }

    let seq = meta::counter_in(&mut t.meta, NEXT_GAME)?;
    let record = GameRecordV1::from_finished(seq, game, &updates);
    t.games
        .insert(
            game.id.as_str(),
            encode(&VersionedGame::V1(record))?.as_slice(),
        )
        .map_err(store_err)?;
    // The room the game was played in is no longer open: forgetting its saved state in the
    // same transaction means a crash can never restore a game whose result is stored.
    t.rooms.remove(game.id.as_str()).map_err(store_err)?;
    for &id in &registered {
        t.index
            .insert((id, seq), game.id.as_str())
            .map_err(store_err)?;
    }
    let unrated = (!game.rated).then_some(UnratedEntries {
        seq,
        players: registered,
    });
    Ok((Outcome::Rated(updates), unrated))
}

/// The registered players of a game, each once.
pub(super) fn registered_seats(game: &FinishedGame) -> Vec<UserId> {
    let mut seated = Vec::new();
    for player in [&game.x, &game.o] {
        if let PlayerRef::User { id, .. } = player
            && !seated.contains(id)
        {
            seated.push(*id);
        }
    }
    seated
}

/// Keeps `user`'s newest [`UNRATED_KEPT`] unrated games and forgets the older ones
/// (undo-then-finish in a bot game makes a record each time). A forgotten game leaves
/// the other registered player's history only if it was theirs alone.
fn forget_old_unrated(txn: &WriteTransaction, user: UserId) -> Result<(), StoreError> {
    let mut unrated = txn.open_table(USER_UNRATED).map_err(store_err)?;
    let count = unrated
        .range((user, 0)..=(user, u64::MAX))
        .map_err(store_err)?
        .count();
    let excess = count.saturating_sub(UNRATED_KEPT);
    if excess == 0 {
        return Ok(());
    }
    let mut old = Vec::with_capacity(excess);
    for entry in unrated
        .range((user, 0)..=(user, u64::MAX))
        .map_err(store_err)?
        .take(excess)
    {
        let (key, id) = entry.map_err(store_err)?;
        old.push((key.value().1, id.value().to_owned()));
    }
    let mut index = txn.open_table(USER_GAMES).map_err(store_err)?;
    let mut games = txn.open_table(GAMES).map_err(store_err)?;
    for (seq, id) in old {
        unrated.remove((user, seq)).map_err(store_err)?;
        index.remove((user, seq)).map_err(store_err)?;
        let others: Vec<UserId> = match games.get(id.as_str()).map_err(store_err)? {
            Some(bytes) => registered_seats(&decode_game(bytes.value())?.into_stored().game)
                .into_iter()
                .filter(|&u| u != user)
                .collect(),
            None => continue,
        };
        let mut kept = false;
        for other in others {
            kept |= index.get((other, seq)).map_err(store_err)?.is_some();
        }
        if !kept {
            games.remove(id.as_str()).map_err(store_err)?;
        }
    }
    Ok(())
}

/// Renames `user`'s seat in each of their games to `name`. With `forget`, also removes the
/// user's game index entries, and the games no other registered player was seated in.
pub(super) fn rewrite_seats(
    txn: &WriteTransaction,
    user: UserId,
    name: Option<&str>,
    forget: bool,
) -> Result<(), StoreError> {
    let mut index = txn.open_table(USER_GAMES).map_err(store_err)?;
    let mut unrated = txn.open_table(USER_UNRATED).map_err(store_err)?;
    let mut games = txn.open_table(GAMES).map_err(store_err)?;
    let mut mine = Vec::new();
    for entry in index
        .range((user, 0)..=(user, u64::MAX))
        .map_err(store_err)?
    {
        let (key, id) = entry.map_err(store_err)?;
        mine.push((key.value().1, id.value().to_owned()));
    }
    for (seq, id) in mine {
        if forget {
            index.remove((user, seq)).map_err(store_err)?;
            unrated.remove((user, seq)).map_err(store_err)?;
        }
        let Some(bytes) = games.get(id.as_str()).map_err(store_err)? else {
            continue;
        };
        let mut game = decode_game(bytes.value())?;
        drop(bytes);
        let mut others = false;
        for seat in [&mut game.x, &mut game.o] {
            if let StoredPlayer::User {
                id: seated,
                name: seat_name,
            } = seat
            {
                if *seated == user {
                    if let Some(name) = name {
                        name.clone_into(seat_name);
                    }
                } else {
                    others = true;
                }
            }
        }
        if forget && !others {
            // Nobody else's history: the deleted player's personal data only.
            games.remove(id.as_str()).map_err(store_err)?;
        } else {
            games
                .insert(id.as_str(), encode(&VersionedGame::V1(game))?.as_slice())
                .map_err(store_err)?;
        }
    }
    Ok(())
}

/// Schema 2: indexes each registered player's unrated games in `user_unrated`. Returns how
/// many entries it made. Older games beyond [`UNRATED_KEPT`] are forgotten at that player's
/// next unrated game.
pub(super) fn migrate_1_to_2(txn: &WriteTransaction) -> Result<u64, StoreError> {
    let games = txn.open_table(GAMES).map_err(store_err)?;
    let mut unrated = txn.open_table(USER_UNRATED).map_err(store_err)?;
    let mut indexed = 0;
    for entry in games.iter().map_err(store_err)? {
        let (id, bytes) = entry.map_err(store_err)?;
        let record = decode_game(bytes.value())?;
        if record.rated {
            continue;
        }
        let seq = record.seq;
        let game = record.into_stored().game;
        for user in registered_seats(&game) {
            unrated.insert((user, seq), id.value()).map_err(store_err)?;
            indexed += 1;
        }
    }
    Ok(indexed)
}
