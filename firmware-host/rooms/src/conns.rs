//! Every open connection, by id, with whose it is and how to reach it from outside its room:
//! events addressed to a person reach all of that person's connections (M3.4's `seat_moved`
//! included, whatever room they view), and ending a sign-in session closes its connections
//! (S3). The lock is held only to read or change the map, never across an await.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;

use protocol::ServerMsg;
use protocol::records::UserId;
use tokio::sync::oneshot;

use crate::handle::{Outbox, RoomHandle, ToSession};
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
    inner: Mutex<Inner>,
}

/// The connections by id, and the ids of each person's: what is asked per person (a rated
/// game's addresses, a person-addressed event, signing one user out) costs that person's
/// connections, not every open one.
#[derive(Default)]
struct Inner {
    by_id: HashMap<ConnId, Conn>,
    by_key: HashMap<PlayerKey, Vec<ConnId>>,
}

impl Inner {
    /// The open connections of `key`.
    fn of<'a>(&'a self, key: &PlayerKey) -> impl Iterator<Item = &'a Conn> + use<'a> {
        self.by_key
            .get(key)
            .into_iter()
            .flatten()
            .filter_map(|id| self.by_id.get(id))
    }
}

impl Conns {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // Every change inserts or removes one connection in both maps before the lock is let
        // go, and nothing in between can panic, so a poisoned lock is consistent.
        self.inner
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
        let mut inner = self.lock();
        inner.by_key.entry(key.clone()).or_default().push(conn);
        let old = inner.by_id.insert(
            conn,
            Conn {
                key,
                session,
                address,
                outbox,
                sign_out: Some(tx),
            },
        );
        debug_assert!(old.is_none(), "connection ids are not reused");
        rx
    }

    pub(crate) fn remove(&self, conn: ConnId) {
        let mut inner = self.lock();
        let Some(gone) = inner.by_id.remove(&conn) else {
            return;
        };
        if let Some(ids) = inner.by_key.get_mut(&gone.key) {
            ids.retain(|&id| id != conn);
            if ids.is_empty() {
                inner.by_key.remove(&gone.key);
            }
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.lock().by_id.len()
    }

    /// Distinct people with at least one open connection.
    pub(crate) fn people(&self) -> usize {
        self.lock().by_key.len()
    }

    /// The distinct addresses from which any of `users` is connected now.
    pub(crate) fn addresses_of(&self, users: &[UserId]) -> Vec<IpAddr> {
        let inner = self.lock();
        let mut addresses: Vec<IpAddr> = users
            .iter()
            .flat_map(|&u| inner.of(&PlayerKey::User(u)))
            .filter_map(|c| c.address)
            .collect();
        addresses.sort_unstable();
        addresses.dedup();
        addresses
    }

    /// Each signed-in player with an open connection, and how many they have.
    pub(crate) fn users_online(&self) -> HashMap<UserId, usize> {
        self.lock()
            .by_key
            .iter()
            .filter_map(|(key, ids)| match key {
                PlayerKey::User(id) => Some((*id, ids.len())),
                PlayerKey::Guest(_) => None,
            })
            .collect()
    }

    /// Queues `msg` for every connection of `key`. A connection whose queue is full misses it;
    /// it is too slow and its room drops it at the next snapshot.
    pub(crate) fn send_to_person(&self, key: &PlayerKey, msg: &ServerMsg) {
        for conn in self.lock().of(key) {
            if conn
                .outbox
                .try_send(ToSession::Msg(Box::new(msg.clone())))
                .is_err()
            {
                tracing::debug!(?key, "person-addressed event not queued: connection full");
            }
        }
    }

    /// Whether `key` has an open connection.
    pub(crate) fn has(&self, key: &PlayerKey) -> bool {
        self.lock().by_key.contains_key(key)
    }

    /// EV3: tells every connection of `key` `msg` (`paired`) and moves it into `room`; how
    /// many were reached. A connection whose queue is full is not moved; it can open the
    /// room itself.
    pub(crate) fn move_person(&self, key: &PlayerKey, msg: &ServerMsg, room: &RoomHandle) -> usize {
        let mut n = 0;
        for conn in self.lock().of(key) {
            let item = ToSession::Enter(Box::new((msg.clone(), room.clone())));
            if conn.outbox.try_send(item).is_ok() {
                n += 1;
            } else {
                tracing::debug!(?key, "connection too slow to follow into its event game");
            }
        }
        n
    }

    /// Signs out every connection in `ids` for which `which` holds; how many.
    fn sign_out(inner: &mut Inner, ids: &[ConnId], which: impl Fn(&Conn) -> bool) -> usize {
        let mut n = 0;
        for id in ids {
            if let Some(conn) = inner.by_id.get_mut(id)
                && which(conn)
                && let Some(tx) = conn.sign_out.take()
            {
                // The session may be ending on its own already; then there is nothing to stop.
                tx.send(()).ok();
                n += 1;
            }
        }
        n
    }

    /// Ends every connection opened with sign-in session `session`.
    pub(crate) fn end_session(&self, session: &str) -> usize {
        let mut inner = self.lock();
        // Rare (a sign-out, an owner's reset): every connection is looked at.
        let ids: Vec<ConnId> = inner.by_id.keys().copied().collect();
        Self::sign_out(&mut inner, &ids, |c| c.session.as_deref() == Some(session))
    }

    /// Ends every connection of `user` but those of session `except`.
    pub(crate) fn end_user_sessions(&self, user: UserId, except: Option<&str>) -> usize {
        let mut inner = self.lock();
        let ids = inner
            .by_key
            .get(&PlayerKey::User(user))
            .cloned()
            .unwrap_or_default();
        Self::sign_out(&mut inner, &ids, |c| {
            except.is_none() || c.session.as_deref() != except
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::mpsc;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([10, 0, 0, last])
    }

    /// A registry of `users` users with two connections each (from addresses `2u` and
    /// `2u + 1`) and one guest; the receiving ends, and the sign-out receivers, by connection.
    #[allow(clippy::type_complexity)]
    fn registry(
        users: u8,
    ) -> (
        Conns,
        HashMap<ConnId, mpsc::Receiver<ToSession>>,
        HashMap<ConnId, oneshot::Receiver<()>>,
    ) {
        let conns = Conns::default();
        let (mut inboxes, mut signed_out) = (HashMap::new(), HashMap::new());
        let mut next = 0;
        let mut add = |key: PlayerKey, session: &str, address: IpAddr| {
            let (tx, rx) = mpsc::channel(4);
            next += 1;
            let fired = conns.insert(next, key, Some(session.into()), Some(address), tx);
            inboxes.insert(next, rx);
            signed_out.insert(next, fired);
        };
        for u in 0..users {
            let key = PlayerKey::User(u64::from(u));
            add(key.clone(), &format!("s{u}a"), ip(2 * u));
            add(key, &format!("s{u}b"), ip(2 * u + 1));
        }
        add(PlayerKey::Guest("g".into()), "guest", ip(250));
        (conns, inboxes, signed_out)
    }

    #[test]
    fn each_persons_connections_are_found_by_person_and_leave_with_them() {
        let (conns, _inboxes, _signed_out) = registry(50);
        assert_eq!((conns.len(), conns.people()), (101, 51));
        assert_eq!(
            conns.addresses_of(&[3, 7, 99]),
            vec![ip(6), ip(7), ip(14), ip(15)]
        );
        let online = conns.users_online();
        assert_eq!((online.len(), online[&0]), (50, 2));
        // User 3's first connection (id 7) goes: its other one stays found; when that goes
        // too, the person is gone.
        conns.remove(7);
        conns.remove(7);
        assert_eq!(conns.addresses_of(&[3]), vec![ip(7)]);
        assert_eq!(conns.users_online()[&3], 1);
        conns.remove(8);
        assert!(conns.addresses_of(&[3]).is_empty());
        assert!(!conns.users_online().contains_key(&3));
        assert_eq!((conns.len(), conns.people()), (99, 50));
    }

    #[test]
    fn a_person_addressed_event_reaches_that_persons_connections_alone() {
        let (conns, mut inboxes, _signed_out) = registry(20);
        let msg = ServerMsg::Left {
            id: None,
            room: "abcdef".into(),
        };
        conns.send_to_person(&PlayerKey::User(4), &msg);
        conns.send_to_person(&PlayerKey::Guest("g".into()), &msg);
        conns.send_to_person(&PlayerKey::Guest("nobody".into()), &msg);
        let reached: Vec<ConnId> = inboxes
            .iter_mut()
            .filter_map(|(&id, rx)| rx.try_recv().is_ok().then_some(id))
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        assert_eq!(reached, vec![9, 10, 41]);
    }

    #[test]
    fn signing_a_user_out_ends_their_other_sessions_and_nobody_elses() {
        let (conns, _inboxes, mut signed_out) = registry(10);
        assert_eq!(conns.end_user_sessions(2, Some("s2a")), 1);
        assert_eq!(conns.end_session("s5b"), 1);
        assert_eq!(conns.end_user_sessions(8, None), 2);
        // Ended once: asking again ends nothing more.
        assert_eq!(conns.end_user_sessions(8, None), 0);
        let fired: std::collections::BTreeSet<ConnId> = signed_out
            .iter_mut()
            .filter_map(|(&id, rx)| rx.try_recv().is_ok().then_some(id))
            .collect();
        assert_eq!(fired.into_iter().collect::<Vec<_>>(), vec![6, 12, 17, 18]);
    }
}
