//! The lobby: every open room's handle and summary, and what its watchers receive.
//!
//! This directory is the only state shared by all rooms besides the seat book; it holds no
//! game state, only what the lobby list shows, and its lock is never held across an await.
//! Nothing here scans every room on a room's change: the list's order, the rooms per host and
//! the closable rooms are kept as indexes, and a change is logged by room id so that each
//! watcher ([`Watch`]) sends only the rows of its page that changed.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::ops::Bound;
use std::sync::Mutex;

use protocol::{Phase, RoomId, RoomKind, RoomSummary, ServerMsg};
use rand::seq::IndexedRandom;
use tokio::sync::watch;

use crate::handle::RoomHandle;
use crate::room::{Bans, Member, PlayerKey};

/// Rows a watcher receives when it does not ask for a number: about one phone screen.
pub const LOBBY_PAGE: u32 = 20;
/// Most rows one watcher may ask for.
pub const LOBBY_PAGE_MAX: u32 = 100;
/// A watcher gets at most one `lobby_update` this often; changes in between come together.
pub const LOBBY_UPDATE_INTERVAL: std::time::Duration = std::time::Duration::from_millis(100);
/// Changes remembered for watchers; one further behind gets its whole page again.
const CHANGE_LOG: usize = 4096;

/// A room's place in the lobby: waiting rooms first, then games in progress, then finished
/// ones, each in creation order.
type Place = (u8, u64);

fn rank(phase: Phase) -> u8 {
    match phase {
        Phase::Waiting => 0,
        Phase::Playing => 1,
        Phase::Finished => 2,
    }
}

/// Rooms that may close when nobody views them: finished games, bot and local games.
fn closable(summary: &RoomSummary) -> bool {
    summary.phase == Phase::Finished || !matches!(summary.kind, RoomKind::Online { .. })
}

struct Entry {
    handle: RoomHandle,
    summary: RoomSummary,
    /// Who created it, for the per-host room limit.
    host: PlayerKey,
    /// Creation order, for a stable list.
    seq: u64,
    /// Who may not see the row (M3.5: kicked people cannot view the room).
    bans: Bans,
    /// Someone has the room open (a player or a spectator), as its actor last said.
    viewed: bool,
}

impl Entry {
    fn place(&self) -> Place {
        (rank(self.summary.phase), self.seq)
    }

    /// It may close now: a closable room nobody views.
    fn closable_now(&self) -> bool {
        closable(&self.summary) && !self.viewed
    }
}

#[derive(Default)]
struct Rooms {
    by_id: HashMap<RoomId, Entry>,
    /// Every room in lobby order.
    order: BTreeMap<Place, RoomId>,
    /// Each host's rooms by creation order.
    by_host: HashMap<PlayerKey, BTreeMap<u64, RoomId>>,
    /// Closable rooms nobody views now, by creation order: the ones the room limit closes
    /// first. Viewed rooms stay out, so that old games still being played or watched do not
    /// hide the finished ones behind them.
    closable: BTreeMap<u64, RoomId>,
    /// Rooms whose row someone may not see.
    with_bans: HashSet<RoomId>,
    next_seq: u64,
    /// Places taken by rooms being created, not yet listed: in all and per host.
    reserved: usize,
    reserved_of: HashMap<PlayerKey, usize>,
    /// The latest changes, oldest first: change number and room.
    log: VecDeque<(u64, RoomId)>,
    /// The number of the latest change.
    change: u64,
}

impl Rooms {
    fn logged(&mut self, id: &str) -> u64 {
        self.change += 1;
        if self.log.len() == CHANGE_LOG {
            self.log.pop_front();
        }
        self.log.push_back((self.change, id.to_owned()));
        self.change
    }

    /// Puts the room in the closable index or takes it out, as it is now.
    fn index_closable(&mut self, id: &str) {
        let Some(entry) = self.by_id.get(id) else {
            return;
        };
        if entry.closable_now() {
            self.closable.insert(entry.seq, id.to_owned());
        } else {
            self.closable.remove(&entry.seq);
        }
    }

    fn visible(&self, id: &str, member: &Member) -> Option<&Entry> {
        self.by_id.get(id).filter(|e| !e.bans.bans(member))
    }

    /// Rooms `member` may see.
    fn total_for(&self, member: &Member) -> usize {
        let hidden = self
            .with_bans
            .iter()
            .filter(|id| self.by_id.get(*id).is_some_and(|e| e.bans.bans(member)))
            .count();
        self.by_id.len() - hidden
    }

    /// Up to `n` rooms `member` may see, in lobby order, after `after` (from the start when
    /// `None`).
    fn page_after(&self, after: Option<Place>, n: usize, member: &Member) -> Vec<(Place, &Entry)> {
        let from = after.map_or(Bound::Unbounded, Bound::Excluded);
        self.order
            .range((from, Bound::Unbounded))
            .filter_map(|(place, id)| self.visible(id, member).map(|e| (*place, e)))
            .take(n)
            .collect()
    }
}

/// The directory of open rooms.
pub(crate) struct Lobby {
    rooms: Mutex<Rooms>,
    /// The number of the latest change; watchers look at the log when it moves.
    changed: watch::Sender<u64>,
}

impl Lobby {
    pub(crate) fn new() -> Lobby {
        Lobby {
            rooms: Mutex::new(Rooms::default()),
            changed: watch::channel(0).0,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Rooms> {
        // Every update changes one entry and its indexes under the lock without a panic point
        // in between, so a poisoned lock is still consistent.
        self.rooms
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn bump(&self, change: u64) {
        self.changed.send_replace(change);
    }

    pub(crate) fn contains(&self, id: &str) -> bool {
        self.lock().by_id.contains_key(id)
    }

    /// An id no open room has and `taken` does not refuse: short and easy to read aloud and
    /// type (no 0/o, 1/l/i).
    pub(crate) fn fresh_id<R: rand::Rng>(
        &self,
        rng: &mut R,
        taken: impl Fn(&str) -> bool,
    ) -> RoomId {
        const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
        loop {
            let id: String = (0..6)
                .map(|_| char::from(*ALPHABET.choose(rng).expect("the alphabet is not empty")))
                .collect();
            if !self.contains(&id) && !taken(&id) {
                return id;
            }
        }
    }

    /// Counts the rooms open in all and those `host` created (rooms being created included)
    /// and, when both are under their limits, takes a place for one more until the returned
    /// reservation is dropped. Counting and taking under one lock: a burst of creations
    /// cannot pass the limits together.
    pub(crate) fn reserve(
        &self,
        host: &PlayerKey,
        max_rooms: usize,
        max_of_host: usize,
    ) -> Reservation<'_> {
        let mut rooms = self.lock();
        let reserved_of = rooms.reserved_of.get(host).copied().unwrap_or(0);
        let open = rooms.by_id.len() + rooms.reserved;
        let hosted = rooms.by_host.get(host).map_or(0, BTreeMap::len) + reserved_of;
        let granted = open < max_rooms && hosted < max_of_host;
        if granted {
            rooms.reserved += 1;
            rooms.reserved_of.insert(host.clone(), reserved_of + 1);
        }
        Reservation {
            lobby: self,
            host: host.clone(),
            open,
            hosted,
            granted,
        }
    }

    /// The oldest `n` rooms `host` created that may close now (bot, local and finished games
    /// nobody views), oldest first. One host's rooms are few (at most `max_rooms_per_host`).
    pub(crate) fn oldest_closable_of(&self, host: &PlayerKey, n: usize) -> Vec<RoomHandle> {
        let rooms = self.lock();
        rooms.by_host.get(host).map_or_else(Vec::new, |mine| {
            mine.values()
                .filter_map(|id| rooms.by_id.get(id))
                .filter(|e| e.closable_now())
                .map(|e| e.handle.clone())
                .take(n)
                .collect()
        })
    }

    /// The oldest `n` rooms that may close now (finished games, bot and local games that
    /// nobody views), oldest first.
    pub(crate) fn oldest_closable(&self, n: usize) -> Vec<RoomHandle> {
        let rooms = self.lock();
        rooms
            .closable
            .values()
            .filter_map(|id| rooms.by_id.get(id).map(|e| e.handle.clone()))
            .take(n)
            .collect()
    }

    /// Lists a room. `viewed`: someone views it or is about to (a new room's creator, whose
    /// `open` follows the creation), so the room limit does not close it meanwhile.
    pub(crate) fn insert(
        &self,
        handle: RoomHandle,
        summary: RoomSummary,
        host: PlayerKey,
        viewed: bool,
    ) {
        let change = {
            let mut rooms = self.lock();
            let seq = rooms.next_seq;
            rooms.next_seq += 1;
            let id = summary.id.clone();
            if let Some(old) = rooms.by_id.remove(&id) {
                // Ids are fresh (`fresh_id`); a clash would be a bug, but the indexes stay whole.
                forget(&mut rooms, &id, &old);
            }
            let entry = Entry {
                handle,
                summary,
                host,
                seq,
                bans: Bans::default(),
                viewed,
            };
            rooms.order.insert(entry.place(), id.clone());
            rooms
                .by_host
                .entry(entry.host.clone())
                .or_default()
                .insert(seq, id.clone());
            rooms.by_id.insert(id.clone(), entry);
            rooms.index_closable(&id);
            rooms.logged(&id)
        };
        self.bump(change);
    }

    /// Replaces a room's summary and who may not see it; a no-op for an unknown room or when
    /// neither changed.
    pub(crate) fn update(&self, summary: RoomSummary, bans: &Bans) {
        let change = {
            let mut guard = self.lock();
            let rooms = &mut *guard;
            let Some(entry) = rooms.by_id.get_mut(&summary.id) else {
                return;
            };
            if entry.summary == summary && entry.bans == *bans {
                return;
            }
            let id = summary.id.clone();
            let before = entry.place();
            entry.summary = summary;
            if entry.bans != *bans {
                entry.bans = bans.clone();
                if entry.bans.is_empty() {
                    rooms.with_bans.remove(&id);
                } else {
                    rooms.with_bans.insert(id.clone());
                }
            }
            let after = entry.place();
            if before != after {
                rooms.order.remove(&before);
                rooms.order.insert(after, id.clone());
            }
            rooms.index_closable(&id);
            rooms.logged(&id)
        };
        self.bump(change);
    }

    /// Whether anyone has the room open now (its actor tells on every change). Not a change
    /// of the list: it only decides which rooms the room limit may close first.
    pub(crate) fn set_viewed(&self, id: &str, viewed: bool) {
        let mut rooms = self.lock();
        let Some(entry) = rooms.by_id.get_mut(id) else {
            return;
        };
        if entry.viewed != viewed {
            entry.viewed = viewed;
            rooms.index_closable(id);
        }
    }

    pub(crate) fn remove(&self, id: &str) {
        let change = {
            let mut rooms = self.lock();
            let Some(old) = rooms.by_id.remove(id) else {
                return;
            };
            forget(&mut rooms, id, &old);
            rooms.logged(id)
        };
        self.bump(change);
    }

    pub(crate) fn handle(&self, id: &str) -> Option<RoomHandle> {
        self.lock().by_id.get(id).map(|e| e.handle.clone())
    }

    pub(crate) fn handles(&self) -> Vec<RoomHandle> {
        self.lock()
            .by_id
            .values()
            .map(|e| e.handle.clone())
            .collect()
    }

    /// Every room, waiting rooms first, then games in progress, then finished ones, each in
    /// creation order.
    pub(crate) fn list(&self) -> Vec<RoomSummary> {
        let rooms = self.lock();
        rooms
            .order
            .values()
            .filter_map(|id| rooms.by_id.get(id).map(|e| e.summary.clone()))
            .collect()
    }

    /// The list as `member` may see it: without the rooms they were kicked from (M3.5).
    pub(crate) fn list_for(&self, member: &Member) -> Vec<RoomSummary> {
        let rooms = self.lock();
        rooms
            .page_after(None, usize::MAX, member)
            .into_iter()
            .map(|(_, e)| e.summary.clone())
            .collect()
    }

    /// Rooms waiting and playing.
    pub(crate) fn counts(&self) -> (usize, usize) {
        let rooms = self.lock();
        let in_rank = |r: u8| rooms.order.range((r, 0)..(r + 1, 0)).count();
        (in_rank(0), in_rank(1))
    }

    pub(crate) fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }
}

/// A place for a room being created ([`Lobby::reserve`]), given back when dropped (by then
/// the room is listed, or was never made).
pub(crate) struct Reservation<'l> {
    lobby: &'l Lobby,
    host: PlayerKey,
    /// Rooms open in all, and those of the host, before this one.
    pub(crate) open: usize,
    pub(crate) hosted: usize,
    /// Both were under their limits: the place is taken.
    pub(crate) granted: bool,
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if !self.granted {
            return;
        }
        let mut rooms = self.lobby.lock();
        rooms.reserved -= 1;
        if let Some(n) = rooms.reserved_of.get_mut(&self.host) {
            *n -= 1;
            if *n == 0 {
                rooms.reserved_of.remove(&self.host);
            }
        }
    }
}

/// Drops a removed room from the indexes.
fn forget(rooms: &mut Rooms, id: &str, old: &Entry) {
    rooms.order.remove(&old.place());
    if let Some(mine) = rooms.by_host.get_mut(&old.host) {
        mine.remove(&old.seq);
        if mine.is_empty() {
            rooms.by_host.remove(&old.host);
        }
    }
    rooms.closable.remove(&old.seq);
    rooms.with_bans.remove(id);
}

/// One connection's view of the lobby: the first `limit` rooms it may see, kept up to date
/// row by row.
#[derive(Debug)]
pub(crate) struct Watch {
    limit: usize,
    /// The rows it has, in lobby order.
    shown: BTreeMap<Place, RoomId>,
    places: HashMap<RoomId, Place>,
    /// The last change it has seen.
    seen: u64,
    /// The count it was last sent.
    total: u32,
    /// Every change comes as the whole page (protocol version 1's `lobby`), not as a
    /// `lobby_update`.
    whole: bool,
}

/// The number of rows a watcher asked for, within bounds.
pub(crate) fn page_limit(asked: Option<u32>) -> usize {
    let limit = asked.unwrap_or(LOBBY_PAGE).clamp(1, LOBBY_PAGE_MAX);
    usize::try_from(limit).unwrap_or(usize::MAX)
}

fn total_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Watch {
    /// Starts watching: the page now, as the `lobby` message answering request `id`.
    pub(crate) fn start(
        lobby: &Lobby,
        member: &Member,
        limit: usize,
        id: Option<protocol::RequestId>,
    ) -> (Watch, ServerMsg) {
        let rooms = lobby.lock();
        let page = rooms.page_after(None, limit, member);
        let mut watch = Watch {
            limit,
            shown: BTreeMap::new(),
            places: HashMap::new(),
            seen: rooms.change,
            total: total_u32(rooms.total_for(member)),
            whole: false,
        };
        let rows = page
            .into_iter()
            .map(|(place, e)| {
                watch.show(place, &e.summary.id);
                e.summary.clone()
            })
            .collect();
        let msg = ServerMsg::Lobby {
            id,
            rooms: rows,
            total: watch.total,
        };
        (watch, msg)
    }

    /// As [`Watch::start`] for a client of protocol version 1: the first
    /// [`LOBBY_PAGE_MAX`] rooms, and every change as that page whole.
    pub(crate) fn start_whole(
        lobby: &Lobby,
        member: &Member,
        id: Option<protocol::RequestId>,
    ) -> (Watch, ServerMsg) {
        let (mut watch, msg) = Watch::start(lobby, member, page_limit(Some(LOBBY_PAGE_MAX)), id);
        watch.whole = true;
        (watch, msg)
    }

    fn show(&mut self, place: Place, id: &str) {
        self.shown.insert(place, id.to_owned());
        self.places.insert(id.to_owned(), place);
    }

    fn hide(&mut self, id: &str) -> bool {
        match self.places.remove(id) {
            Some(place) => {
                self.shown.remove(&place);
                true
            }
            None => false,
        }
    }

    /// What changed on this watcher's page since it last looked, as one `lobby_update` (or the
    /// whole page again when it fell behind the change log); `None` when nothing it shows
    /// changed, not even the count.
    pub(crate) fn refresh(&mut self, lobby: &Lobby, member: &Member) -> Option<ServerMsg> {
        let rooms = lobby.lock();
        if rooms.change == self.seen {
            return None;
        }
        let behind = rooms
            .log
            .front()
            .is_none_or(|(first, _)| *first > self.seen + 1);
        if behind {
            drop(rooms);
            let (watch, msg) = Watch::start(lobby, member, self.limit, None);
            *self = Watch {
                whole: self.whole,
                ..watch
            };
            return Some(msg);
        }
        let mut ids: Vec<&RoomId> = rooms
            .log
            .iter()
            .filter(|(n, _)| *n > self.seen)
            .map(|(_, id)| id)
            .collect();
        self.seen = rooms.change;
        ids.sort_unstable();
        ids.dedup();
        // The page is the first `limit` rooms the watcher may see. Rows that did not change
        // keep their places; changed rooms go where they rank now; rooms past the old page's
        // end may move up when a shown room left it.
        let before: HashSet<RoomId> = self.places.keys().cloned().collect();
        let boundary = (self.shown.len() >= self.limit)
            .then(|| self.shown.last_key_value().map(|(place, _)| *place))
            .flatten();
        let mut left = false;
        for id in &ids {
            left |= self.hide(id);
        }
        for id in &ids {
            if let Some(e) = rooms.visible(id, member) {
                self.show(e.place(), id);
            }
        }
        if let Some(boundary) = boundary.filter(|_| left) {
            let more: Vec<(Place, RoomId)> = rooms
                .page_after(Some(boundary), self.limit, member)
                .into_iter()
                .filter(|(_, e)| !self.places.contains_key(&e.summary.id))
                .map(|(place, e)| (place, e.summary.id.clone()))
                .collect();
            for (place, id) in more {
                self.show(place, &id);
            }
        }
        while self.shown.len() > self.limit {
            if let Some((_, id)) = self.shown.pop_last() {
                self.places.remove(&id);
            }
        }
        let changed: HashSet<&RoomId> = ids.into_iter().collect();
        let rows: Vec<RoomSummary> = self
            .shown
            .values()
            .filter(|id| changed.contains(id) || !before.contains(*id))
            .filter_map(|id| rooms.by_id.get(id).map(|e| e.summary.clone()))
            .collect();
        let mut removed: Vec<RoomId> = before
            .into_iter()
            .filter(|id| !self.places.contains_key(id))
            .collect();
        removed.sort_unstable();
        let total = total_u32(rooms.total_for(member));
        if rows.is_empty() && removed.is_empty() && total == self.total {
            return None;
        }
        self.total = total;
        if self.whole {
            let page = self
                .shown
                .values()
                .filter_map(|id| rooms.by_id.get(id).map(|e| e.summary.clone()))
                .collect();
            return Some(ServerMsg::Lobby {
                id: None,
                rooms: page,
                total,
            });
        }
        Some(ServerMsg::LobbyUpdate {
            rows,
            removed,
            total,
        })
    }
}

#[cfg(test)]
mod tests {
    use engine::Game;
    use protocol::Joining;

    use super::*;

    fn summary(id: &str, phase: Phase) -> RoomSummary {
        RoomSummary {
            id: id.into(),
            game: Game::Xo,
            kind: RoomKind::Online {
                joining: Joining::Open,
            },
            phase,
            players: vec!["sara".into()],
            open_seat: phase == Phase::Waiting,
            per_move_ms: None,
            spectators: 0,
            names: Vec::new(),
        }
    }

    fn member(user: u64) -> Member {
        Member {
            conn: user,
            key: PlayerKey::User(user),
            name: format!("user{user}"),
            guest_id: format!("g{user}"),
            device: None,
        }
    }

    /// Rooms `r0`, `r1`, … created by users 100, 101, … (the receivers keep the handles open).
    fn lobby_with(
        n: usize,
    ) -> (
        Lobby,
        Vec<tokio::sync::mpsc::Receiver<crate::handle::RoomMsg>>,
    ) {
        let lobby = Lobby::new();
        let mut queues = Vec::new();
        for i in 0..n {
            let (handle, rx) = RoomHandle::new(format!("r{i}"));
            let host = PlayerKey::User(100 + u64::try_from(i).expect("small"));
            lobby.insert(
                handle,
                summary(&format!("r{i}"), Phase::Waiting),
                host,
                false,
            );
            queues.push(rx);
        }
        (lobby, queues)
    }

    fn update(msg: Option<ServerMsg>) -> (Vec<RoomId>, Vec<RoomId>, u32) {
        match msg {
            Some(ServerMsg::LobbyUpdate {
                rows,
                removed,
                total,
            }) => (rows.into_iter().map(|r| r.id).collect(), removed, total),
            other => panic!("expected a lobby_update, got {other:?}"),
        }
    }

    fn ids(list: &[&str]) -> Vec<RoomId> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn lobby_page_is_bounded_and_counts_every_room() {
        let (lobby, _queues) = lobby_with(30);
        let (_, first) = Watch::start(&lobby, &member(1), page_limit(None), Some(4));
        let ServerMsg::Lobby { id, rooms, total } = first else {
            panic!("{first:?}")
        };
        assert_eq!(id, Some(4));
        assert_eq!(total, 30);
        assert_eq!(rooms.len(), usize::try_from(LOBBY_PAGE).expect("small"));
        assert_eq!(rooms[0].id, "r0", "oldest first");
        assert_eq!(
            page_limit(Some(100_000)),
            100,
            "at most LOBBY_PAGE_MAX rows"
        );
        assert_eq!(page_limit(Some(0)), 1);
    }

    #[test]
    fn lobby_change_reaches_watcher_as_one_row() {
        let (lobby, _queues) = lobby_with(5);
        let watcher = member(1);
        let (mut watch, _) = Watch::start(&lobby, &watcher, 3, None);
        assert!(watch.refresh(&lobby, &watcher).is_none(), "nothing changed");
        // A shown room changes: that row alone.
        lobby.update(summary("r1", Phase::Playing), &Bans::default());
        let (rows, removed, total) = update(watch.refresh(&lobby, &watcher));
        // r1 now plays, so it ranks after the waiting rooms: r3 takes its place on the page.
        assert_eq!((rows, removed, total), (ids(&["r3"]), ids(&["r1"]), 5));
        // A room past the page changes: nothing to send (the count is the same).
        lobby.update(summary("r4", Phase::Playing), &Bans::default());
        assert!(watch.refresh(&lobby, &watcher).is_none());
        // A shown room closes: it leaves, and the next room fills the page.
        lobby.remove("r0");
        let (rows, removed, total) = update(watch.refresh(&lobby, &watcher));
        assert_eq!((rows, removed, total), (ids(&["r1"]), ids(&["r0"]), 4));
        // A new waiting room ranks before the playing ones: it enters, the last row leaves.
        let (handle, _rx) = RoomHandle::new("r9".into());
        lobby.insert(
            handle,
            summary("r9", Phase::Waiting),
            PlayerKey::User(9),
            false,
        );
        let (rows, removed, total) = update(watch.refresh(&lobby, &watcher));
        assert_eq!((rows, removed, total), (ids(&["r9"]), ids(&["r1"]), 5));
        // Several changes since the last look come as one batch.
        lobby.update(summary("r2", Phase::Finished), &Bans::default());
        lobby.update(summary("r3", Phase::Finished), &Bans::default());
        let (rows, removed, _) = update(watch.refresh(&lobby, &watcher));
        assert_eq!(removed, ids(&["r2", "r3"]));
        assert_eq!(rows, ids(&["r1", "r4"]));
    }

    #[test]
    fn kicked_watcher_loses_the_row_and_the_count() {
        let (lobby, _queues) = lobby_with(2);
        let kicked = member(7);
        let (mut watch, _) = Watch::start(&lobby, &kicked, 10, None);
        let mut bans = Bans::default();
        bans.keys.insert(kicked.key.clone());
        lobby.update(summary("r0", Phase::Waiting), &bans);
        let (rows, removed, total) = update(watch.refresh(&lobby, &kicked));
        assert_eq!((rows, removed, total), (Vec::new(), ids(&["r0"]), 1));
        assert_eq!(lobby.list_for(&kicked).len(), 1);
        assert_eq!(lobby.list().len(), 2);
    }

    #[test]
    fn watcher_far_behind_gets_its_page_again() {
        let (lobby, _queues) = lobby_with(3);
        let watcher = member(1);
        let (mut watch, _) = Watch::start(&lobby, &watcher, 2, None);
        for i in 0..CHANGE_LOG + 1 {
            let phase = if i % 2 == 0 {
                Phase::Playing
            } else {
                Phase::Waiting
            };
            lobby.update(summary("r2", phase), &Bans::default());
        }
        match watch.refresh(&lobby, &watcher) {
            Some(ServerMsg::Lobby {
                id: None,
                rooms,
                total: 3,
            }) => assert_eq!(rooms.len(), 2),
            other => panic!("expected the whole page, got {other:?}"),
        }
    }

    #[test]
    fn viewed_rooms_do_not_hide_the_closable_ones_behind_them() {
        let (lobby, _queues) = lobby_with(4);
        for id in ["r0", "r1", "r2", "r3"] {
            lobby.update(summary(id, Phase::Finished), &Bans::default());
        }
        // The two oldest are still watched: the room limit closes the two behind them.
        lobby.set_viewed("r0", true);
        lobby.set_viewed("r1", true);
        let oldest =
            |n| -> Vec<RoomId> { lobby.oldest_closable(n).into_iter().map(|h| h.id).collect() };
        assert_eq!(oldest(2), ids(&["r2", "r3"]));
        // The last viewer of r1 leaves: it is the oldest that may close again.
        lobby.set_viewed("r1", false);
        assert_eq!(oldest(2), ids(&["r1", "r2"]));
        // A summary change keeps what the actor said.
        lobby.update(summary("r0", Phase::Finished), &Bans::default());
        assert_eq!(oldest(10), ids(&["r1", "r2", "r3"]));
        lobby.remove("r1");
        lobby.set_viewed("r1", false);
        assert_eq!(oldest(10), ids(&["r2", "r3"]));
    }

    /// Rooms open in all and of user `host`, as a creation counts them.
    fn counted(lobby: &Lobby, host: u64) -> (usize, usize) {
        let place = lobby.reserve(&PlayerKey::User(host), usize::MAX, usize::MAX);
        (place.open, place.hosted)
    }

    #[test]
    fn a_reserved_place_counts_until_it_is_given_back() {
        let (lobby, _queues) = lobby_with(3);
        let host = PlayerKey::User(100);
        // Three rooms, one of them user 100's: one more place on the server and one for them.
        let first = lobby.reserve(&host, 4, 2);
        assert!(first.granted);
        assert_eq!((first.open, first.hosted), (3, 1));
        let second = lobby.reserve(&PlayerKey::User(7), 4, 2);
        assert!(!second.granted, "the server's last place is taken");
        assert_eq!(second.open, 4);
        drop(second);
        let again = lobby.reserve(&host, 5, 2);
        assert!(!again.granted, "the host's last place is taken");
        assert_eq!(again.hosted, 2);
        drop((first, again));
        assert_eq!(counted(&lobby, 100), (3, 1));
    }

    #[test]
    fn room_counts_come_from_the_indexes() {
        let (lobby, _queues) = lobby_with(4);
        let (handle, _rx) = RoomHandle::new("mine".into());
        lobby.insert(
            handle,
            summary("mine", Phase::Waiting),
            PlayerKey::User(100),
            false,
        );
        assert_eq!(counted(&lobby, 100), (5, 2));
        let closable_of = |n| -> Vec<RoomId> {
            lobby
                .oldest_closable_of(&PlayerKey::User(100), n)
                .into_iter()
                .map(|h| h.id)
                .collect()
        };
        // r0 is an online room waiting for a player: it does not close when nobody views it.
        assert!(closable_of(10).is_empty());
        lobby.update(summary("r1", Phase::Finished), &Bans::default());
        lobby.update(summary("r2", Phase::Playing), &Bans::default());
        let closable: Vec<RoomId> = lobby
            .oldest_closable(10)
            .into_iter()
            .map(|h| h.id)
            .collect();
        assert_eq!(closable, ids(&["r1"]));
        assert_eq!(lobby.counts(), (3, 1));
        lobby.remove("mine");
        assert_eq!(counted(&lobby, 100), (4, 1));
        let order: Vec<RoomId> = lobby.list().into_iter().map(|r| r.id).collect();
        assert_eq!(order, ids(&["r0", "r3", "r2", "r1"]));
    }
}
