//! The one place the store's writer meets the nouns: [`NOUNS`] lists each noun's tables
//! (created at every open, `schema`) and the writes it takes. The writer applies a batch
//! through [`apply_batch`] and knows nothing else of them.

use redb::WriteTransaction;
use rooms::StoreError;

use super::games::{self, GameTables};
use super::op::{Op, Outcome};
use super::{
    accounts, backup, events, meta, open_rooms, owners, puzzles, reset_codes, seasons, sessions,
    settings,
};

/// A noun as the writer sees it: what creates its tables (a table a release adds is created
/// at its first open), and what applies the writes it owns — `None` for every other write. A
/// refusal is decided before anything is written, so a refused write leaves a shared
/// transaction as it found it.
type Noun = (
    fn(&WriteTransaction) -> Result<(), StoreError>,
    fn(&WriteTransaction, &Op) -> Option<Result<Outcome, StoreError>>,
);

/// A noun without writes of its own, or without tables of its own.
fn no_writes(_: &WriteTransaction, _: &Op) -> Option<Result<Outcome, StoreError>> {
    None
}
fn no_tables(_: &WriteTransaction) -> Result<(), StoreError> {
    Ok(())
}

/// Every noun of the store, one line each.
const NOUNS: [Noun; 12] = [
    (meta::create_tables, no_writes),
    (accounts::create_tables, accounts::apply),
    (sessions::create_tables, sessions::apply),
    // Results, and the room saves that share their tables.
    (games::create_tables, games::apply),
    (open_rooms::create_tables, no_writes),
    (owners::create_tables, owners::apply),
    (seasons::create_tables, seasons::apply),
    (settings::create_tables, settings::apply),
    (reset_codes::create_tables, reset_codes::apply),
    (no_tables, backup::apply),
    // Events, and their games' points with their results.
    (events::create_tables, events::apply),
    // Puzzle ratings, tries, attempts, daily counts.
    (puzzles::create_tables, puzzles::apply),
];

/// Creates every noun's tables.
pub(super) fn create_tables(txn: &WriteTransaction) -> Result<(), StoreError> {
    NOUNS
        .iter()
        .try_for_each(|(create_tables, _)| create_tables(txn))
}

/// Applies one write in `txn`, by the noun that owns it.
pub(super) fn apply(txn: &WriteTransaction, op: &Op) -> Result<Outcome, StoreError> {
    NOUNS
        .iter()
        .find_map(|(_, apply)| apply(txn, op))
        .unwrap_or_else(|| Err(StoreError::Internal("a write no noun takes".into())))
}

/// Applies a batch in `txn`, in order. A run of rated results and room saves shares its open
/// tables (`games`); any other write closes them first. On error nothing of the batch may be
/// kept: the caller drops the transaction.
pub(super) fn apply_batch<'o>(
    txn: &WriteTransaction,
    ops: impl ExactSizeIterator<Item = &'o Op>,
) -> Result<Vec<Outcome>, StoreError> {
    let mut outcomes = Vec::with_capacity(ops.len());
    let mut results: Option<GameTables<'_>> = None;
    for op in ops {
        let outcome = match games::shared(op) {
            Some(write) => {
                let tables = match &mut results {
                    Some(tables) => tables,
                    None => results.insert(GameTables::open(txn)?),
                };
                games::apply_shared(tables, write)?
            }
            None => {
                results = None;
                apply(txn, op)?
            }
        };
        outcomes.push(outcome);
    }
    Ok(outcomes)
}
