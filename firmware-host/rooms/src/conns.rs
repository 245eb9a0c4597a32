//! Every open connection, by id, with whose it is and how to reach it from outside its room:
//! events addressed to a person reach all of that person's connections (M3.4's `seat_moved`
//! included, whatever room they view), and ending a sign-in session closes its connections
//! (S3). The lock is held only to read or change the map, never across an await.

use std::collections::{HashMap, HashSet};
use std::net::IpAddr;
use std::sync::Mutex;

use protocol::ServerMsg;
use protocol::records::UserId;
use tokio::sync::oneshot;

use crate::handle::{Outbox, ToSession};
use crate::room::{ConnId, PlayerKey};

struct Conn {
    key: PlayerKey,
    /// The sign-in session it was opened with (`Identity::session`).
    session: Option<String>,
    /// The client's network address (`Identity::address`), for the rated-game budget.
    address: Option<IpAddr>,
    outbox: Outbox,
    /// Fired once to end the connection because its session ended.
    sign_out: Option<oneshot::Sender<()>>,
}

/// The registry of open connections.
#[derive(Default)]
pub(crate) struct Conns {
    by_id: Mutex<HashMap<ConnId, Conn>>,
}

impl Conns {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ConnId, Conn>> {
        // Every change inserts or removes one entry whole, so a poisoned lock is consistent.
        self.by_id
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Registers a connection; the receiver fires when its session is ended.
    pub(crate) fn insert(
        &self,
        conn: ConnId,
        key: PlayerKey,
        session: Option<String>,
        address: Option<IpAddr>,
        outbox: Outbox,
    ) -> oneshot::Receiver<()> {
        let (tx, rx) = oneshot::channel();
        self.lock().insert(
            conn,
            Conn {
                key,
                session,
                address,
                outbox,
                sign_out: Some(tx),
            },
        );
        rx
    }

    pub(crate) fn remove(&self, conn: ConnId) {
        self.lock().remove(&conn);
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }

    /// Distinct people with at least one open connection.
    pub(crate) fn people(&self) -> usize {
        self.lock()
            .values()
            .map(|c| &c.key)
            .collect::<HashSet<_>>()
            .len()
    }

    /// The distinct addresses from which any of `users` is connected now.
    pub(crate) fn addresses_of(&self, users: &[UserId]) -> Vec<IpAddr> {
        let mut addresses: Vec<IpAddr> = self
            .lock()
            .values()
            .filter(|c| matches!(c.key, PlayerKey::User(u) if users.contains(&u)))
            .filter_map(|c| c.address)
            .collect();
        addresses.sort_unstable();
        addresses.dedup();
        addresses
    }

    /// Each signed-in player with an open connection, and how many they have.
    pub(crate) fn users_online(&self) -> HashMap<UserId, usize> {
        let mut online = HashMap::new();
        for conn in self.lock().values() {
            if let PlayerKey::User(id) = conn.key {
                *online.entry(id).or_insert(0) += 1;
            }
        }
        online
    }

    /// Queues `msg` for every connection of `key`. A connection whose queue is full misses it;
    /// it is too slow and its room drops it at the next snapshot.
    pub(crate) fn send_to_person(&self, key: &PlayerKey, msg: &ServerMsg) {
        for conn in self.lock().values().filter(|c| c.key == *key) {
            if conn
                .outbox
                .try_send(ToSession::Msg(Box::new(msg.clone())))
                .is_err()
            {
                tracing::debug!(?key, "person-addressed event not queued: connection full");
            }
        }
    }

    /// Signs out every connection for which `which` holds; how many.
    fn sign_out(&self, which: impl Fn(&Conn) -> bool) -> usize {
        let mut n = 0;
        for conn in self.lock().values_mut().filter(|c| which(c)) {
            if let Some(tx) = conn.sign_out.take() {
                // The session may be ending on its own already; then there is nothing to stop.
                tx.send(()).ok();
                n += 1;
            }
        }
        n
    }

    /// Ends every connection opened with sign-in session `session`.
    pub(crate) fn end_session(&self, session: &str) -> usize {
        self.sign_out(|c| c.session.as_deref() == Some(session))
    }

    /// Ends every connection of `user` but those of session `except`.
    pub(crate) fn end_user_sessions(&self, user: UserId, except: Option<&str>) -> usize {
        self.sign_out(|c| {
            c.key == PlayerKey::User(user) && (except.is_none() || c.session.as_deref() != except)
        })
    }
}
