//! Every open TCP connection, by client address, for its whole life (HTTP requests and the
//! WebSocket it may become): the per-address cap, and the shedding that keeps the server
//! below its open-files limit.
//!
//! A connection holds a [`ConnectionSlot`] from accept until its last task ends; the slot
//! knows the task to abort when the connection must be shed. Near the descriptor limit the
//! server sheds the **newest** connections of the address holding the most: a flood from one
//! address loses its own latest sockets, while other clients and long-lived games stay.

use std::collections::{BTreeMap, HashMap};
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::task::AbortHandle;

/// Descriptors kept free below the soft open-files limit: the store, the log, a status
/// display, accept itself and the sockets of requests being answered need some.
pub const FD_RESERVE: usize = 64;

#[derive(Debug, Default)]
struct Table {
    next_id: u64,
    total: usize,
    /// Per address: connection id (increasing, so the last is the newest) → its task.
    by_address: HashMap<IpAddr, BTreeMap<u64, Option<AbortHandle>>>,
}

/// The open connections.
#[derive(Debug, Default)]
pub struct Connections {
    table: Mutex<Table>,
}

/// One open connection, counted until the last clone is dropped.
#[derive(Debug)]
pub struct ConnectionSlot {
    connections: Arc<Connections>,
    ip: IpAddr,
    id: u64,
}

impl Connections {
    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts a new connection from `ip`, or `None` when that address already holds `limit`
    /// (0: no limit).
    pub fn open(self: &Arc<Self>, ip: IpAddr, limit: usize) -> Option<Arc<ConnectionSlot>> {
        let mut table = self.lock();
        let open = table.by_address.get(&ip).map_or(0, BTreeMap::len);
        if limit != 0 && open >= limit {
            return None;
        }
        table.next_id += 1;
        let id = table.next_id;
        table.total += 1;
        table.by_address.entry(ip).or_default().insert(id, None);
        Some(Arc::new(ConnectionSlot {
            connections: Arc::clone(self),
            ip,
            id,
        }))
    }

    /// Open connections in all.
    pub fn total(&self) -> usize {
        self.lock().total
    }

    /// Open connections from `ip`.
    pub fn from_address(&self, ip: IpAddr) -> usize {
        self.lock().by_address.get(&ip).map_or(0, BTreeMap::len)
    }

    /// Aborts the newest connection of the address holding the most that has a task to
    /// abort; that address and its count before, or `None` when there is nothing to shed.
    pub fn shed_newest_of_busiest(&self) -> Option<(IpAddr, usize)> {
        let mut table = self.lock();
        let (ip, held) = table
            .by_address
            .iter()
            .filter(|(_, conns)| conns.values().any(Option::is_some))
            .max_by_key(|(_, conns)| conns.len())
            .map(|(ip, conns)| (*ip, conns.len()))?;
        let conns = table.by_address.get_mut(&ip)?;
        let (id, task) = conns
            .iter_mut()
            .rev()
            .find(|(_, task)| task.is_some())
            .map(|(id, task)| (*id, task.take()))?;
        // The slot stays until its task is dropped; marked so it is not chosen again.
        tracing::trace!(%ip, id, "shedding a connection");
        if let Some(task) = task {
            task.abort();
        }
        Some((ip, held))
    }
}

impl ConnectionSlot {
    /// The task serving this connection now (the HTTP connection, then its WebSocket): the
    /// one aborted if the connection is shed.
    pub fn serve_with(&self, task: AbortHandle) {
        let mut table = self.connections.lock();
        if let Some(entry) = table
            .by_address
            .get_mut(&self.ip)
            .and_then(|conns| conns.get_mut(&self.id))
        {
            *entry = Some(task);
        }
    }
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        let mut table = self.connections.lock();
        let Some(conns) = table.by_address.get_mut(&self.ip) else {
            return;
        };
        if conns.remove(&self.id).is_some() {
            if conns.is_empty() {
                table.by_address.remove(&self.ip);
            }
            table.total -= 1;
        }
    }
}

/// The soft limit on open files of this process (Linux), or `None` when unknown or unlimited.
pub fn open_files_limit() -> Option<usize> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

/// Descriptors open now (Linux), or `None` when unknown.
pub fn open_files() -> Option<usize> {
    std::fs::read_dir("/proc/self/fd").ok().map(Iterator::count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_busiest_address_loses_its_newest_connection() {
        let connections = Arc::new(Connections::default());
        let flood: IpAddr = [127, 0, 0, 2].into();
        let good: IpAddr = [127, 0, 0, 3].into();
        let mut tasks = Vec::new();
        let mut slots = Vec::new();
        for ip in [good, flood, flood, flood] {
            let slot = connections.open(ip, 3).expect("under the cap");
            let task = tokio::spawn(std::future::pending::<()>());
            slot.serve_with(task.abort_handle());
            tasks.push(task);
            slots.push(slot);
        }
        assert!(connections.open(flood, 3).is_none(), "the cap holds");
        assert_eq!(connections.total(), 4);
        assert_eq!(connections.shed_newest_of_busiest(), Some((flood, 3)));
        let newest = tasks.pop().expect("four tasks");
        assert!(newest.await.expect_err("aborted").is_cancelled());
        for task in &tasks {
            assert!(!task.is_finished(), "the others keep running");
        }
        drop(slots.pop());
        assert_eq!(connections.from_address(flood), 2);
        assert_eq!(connections.from_address(good), 1);
    }
}
