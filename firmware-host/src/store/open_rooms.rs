//! Open rooms (P3): each waiting or playing room's state in the rooms crate's own encoding,
//! restored at the next start. Saves and deletes wait in the writer's memory for the next
//! durable commit (at most `DURABLE_WITHIN`). A room's save and its game's result share the writer's
//! open tables (`games`): storing the result forgets the room in the same transaction, and a
//! save that arrives after its game is stored is ignored.

use redb::{ReadableTable, ReadableTableMetadata, TableDefinition, WriteTransaction};
use rooms::StoreError;

use super::error::store_err;
use super::handle::Store;
use super::op::{Op, Outcome};

/// room id → the rooms crate's own encoding of an open room.
pub(super) const OPEN_ROOMS: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("open_rooms");

/// The table as a write transaction holds it.
pub(super) type RoomsTable<'t> = redb::Table<'t, &'static str, &'static [u8]>;

impl Store {
    /// Saves an open room's state ([`rooms::Persistence::save_room`]); may be a non-durable
    /// commit.
    pub(super) fn save_room_write(
        &self,
        room_id: &str,
        state: Vec<u8>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send + 'static {
        let done = self.write(Op::SaveRoom {
            id: room_id.to_owned(),
            state,
        });
        async move { done.await.map(drop) }
    }

    /// Forgets an open room ([`rooms::Persistence::delete_room`]).
    pub(super) fn delete_room_write(
        &self,
        room_id: &str,
    ) -> impl Future<Output = Result<(), StoreError>> + Send + 'static {
        let done = self.write(Op::DeleteRoom {
            id: room_id.to_owned(),
        });
        async move { done.await.map(drop) }
    }

    /// How many open rooms are saved.
    pub fn open_room_count_blocking(&self) -> Result<u64, StoreError> {
        self.read(|txn| {
            let rooms = txn.open_table(OPEN_ROOMS).map_err(store_err)?;
            rooms.len().map_err(store_err)
        })
    }

    /// Every saved open room, for restoring after a restart.
    pub(super) fn load_rooms(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
        self.read(|txn| {
            let rooms = txn.open_table(OPEN_ROOMS).map_err(store_err)?;
            rooms
                .iter()
                .map_err(store_err)?
                .map(|entry| {
                    let (id, state) = entry.map_err(store_err)?;
                    Ok((id.value().to_owned(), state.value().to_vec()))
                })
                .collect()
        })
    }
}

/// Creates the table (every open).
pub(super) fn create_tables(txn: &WriteTransaction) -> Result<(), StoreError> {
    txn.open_table(OPEN_ROOMS).map_err(store_err)?;
    Ok(())
}

/// Saves room `id`, unless `game_stored`: a room whose game is stored is over, and a late
/// save (racing the result) must not bring it back at the next start.
pub(super) fn save(
    rooms: &mut RoomsTable<'_>,
    game_stored: bool,
    id: &str,
    state: &[u8],
) -> Result<Outcome, StoreError> {
    if game_stored {
        tracing::debug!(room = %id, "ignoring a save of a room whose game is stored");
        return Ok(Outcome::Done);
    }
    rooms.insert(id, state).map_err(store_err)?;
    Ok(Outcome::Done)
}

/// Forgets room `id` (closed, finished, or its result stored).
pub(super) fn delete(rooms: &mut RoomsTable<'_>, id: &str) -> Result<Outcome, StoreError> {
    rooms.remove(id).map_err(store_err)?;
    Ok(Outcome::Done)
}
