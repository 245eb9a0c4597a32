//! Standings changes for the wire (EV6, issue "standings as deltas"): what changed between two
//! tables, and applying it to the old table gives the new one exactly.
//!
//! A delta lists the rows that are new or differ in anything (rank included, so every row a
//! game moved up or down is there) and the players no longer in the table. Rows are ordered by
//! rank, then user id, which is the table's own order (ranks are shared only by rows equal in
//! everything the order looks at before the id), so a client re-sorts by those two fields.

use std::collections::BTreeMap;

use protocol::records::UserId;
use serde::{Deserialize, Serialize};

use crate::event::score::{Row, Standings};

/// The change from one table to the next.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StandingsDelta {
    /// Players no longer in the table (left before playing).
    pub removed: Vec<UserId>,
    /// Rows that are new or changed, in the new table's order.
    pub rows: Vec<Row>,
}

impl StandingsDelta {
    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.rows.is_empty()
    }
}

/// The change from `old` to `new`.
pub fn diff(old: &Standings, new: &Standings) -> StandingsDelta {
    let before: BTreeMap<UserId, &Row> = old.rows.iter().map(|r| (r.user, r)).collect();
    let after: BTreeMap<UserId, &Row> = new.rows.iter().map(|r| (r.user, r)).collect();
    StandingsDelta {
        removed: before
            .keys()
            .filter(|u| !after.contains_key(u))
            .copied()
            .collect(),
        rows: new
            .rows
            .iter()
            .filter(|r| before.get(&r.user).copied() != Some(*r))
            .cloned()
            .collect(),
    }
}

impl Standings {
    /// This table changed by `delta` (made by [`diff`] from this table).
    pub fn apply(&self, delta: &StandingsDelta) -> Standings {
        let mut rows: BTreeMap<UserId, Row> = self
            .rows
            .iter()
            .filter(|r| !delta.removed.contains(&r.user))
            .map(|r| (r.user, r.clone()))
            .collect();
        for row in &delta.rows {
            rows.insert(row.user, row.clone());
        }
        let mut rows: Vec<Row> = rows.into_values().collect();
        rows.sort_by_key(|r| (r.rank, r.user));
        Standings { rows }
    }
}
