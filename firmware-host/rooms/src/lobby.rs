//! The lobby: every open room's handle and summary, and a change signal for watchers.
//!
//! This directory is the only state shared by all rooms besides the seat book; it holds no
//! game state, only what the lobby list shows, and its lock is never held across an await.

use std::collections::HashMap;
use std::sync::Mutex;

use protocol::{Phase, RoomId, RoomKind, RoomSummary};
use rand::seq::IndexedRandom;
use tokio::sync::watch;

use crate::handle::RoomHandle;
use crate::room::{Bans, Member, PlayerKey};

struct Entry {
    handle: RoomHandle,
    summary: RoomSummary,
    /// Who created it, for the per-host room limit.
    host: PlayerKey,
    /// Creation order, for a stable list.
    seq: u64,
    /// Who may not see the row (M3.5: kicked people cannot view the room).
    bans: Bans,
}

#[derive(Default)]
struct Rooms {
    by_id: HashMap<RoomId, Entry>,
    next_seq: u64,
}

/// The directory of open rooms.
pub(crate) struct Lobby {
    rooms: Mutex<Rooms>,
    /// Bumped after every change of the list; watchers resend the list when it moves.
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
        // Every update replaces one entry whole, so a poisoned lock is still consistent.
        self.rooms
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn bump(&self) {
        self.changed.send_modify(|n| *n = n.wrapping_add(1));
    }

    pub(crate) fn contains(&self, id: &str) -> bool {
        self.lock().by_id.contains_key(id)
    }

    /// An id no open room has: short and easy to read aloud and type (no 0/o, 1/l/i).
    pub(crate) fn fresh_id<R: rand::Rng>(&self, rng: &mut R) -> RoomId {
        const ALPHABET: &[u8] = b"abcdefghjkmnpqrstuvwxyz23456789";
        loop {
            let id: String = (0..6)
                .map(|_| char::from(*ALPHABET.choose(rng).expect("the alphabet is not empty")))
                .collect();
            if !self.contains(&id) {
                return id;
            }
        }
    }

    /// Rooms open in all, and those of them `host` created.
    pub(crate) fn count(&self, host: &PlayerKey) -> (usize, usize) {
        let rooms = self.lock();
        let hosted = rooms.by_id.values().filter(|e| e.host == *host).count();
        (rooms.by_id.len(), hosted)
    }

    /// The rooms `host` created, oldest first.
    pub(crate) fn hosted(&self, host: &PlayerKey) -> Vec<RoomHandle> {
        let rooms = self.lock();
        let mut mine: Vec<&Entry> = rooms.by_id.values().filter(|e| e.host == *host).collect();
        mine.sort_by_key(|e| e.seq);
        mine.into_iter().map(|e| e.handle.clone()).collect()
    }

    /// The oldest `n` rooms that may close when nobody views them (finished games, bot and
    /// local games), oldest first.
    pub(crate) fn oldest_closable(&self, n: usize) -> Vec<RoomHandle> {
        let rooms = self.lock();
        let mut closable: Vec<&Entry> = rooms
            .by_id
            .values()
            .filter(|e| {
                e.summary.phase == Phase::Finished
                    || !matches!(e.summary.kind, RoomKind::Online { .. })
            })
            .collect();
        closable.sort_by_key(|e| e.seq);
        closable
            .into_iter()
            .take(n)
            .map(|e| e.handle.clone())
            .collect()
    }

    pub(crate) fn insert(&self, handle: RoomHandle, summary: RoomSummary, host: PlayerKey) {
        {
            let mut rooms = self.lock();
            let seq = rooms.next_seq;
            rooms.next_seq += 1;
            rooms.by_id.insert(
                summary.id.clone(),
                Entry {
                    handle,
                    summary,
                    host,
                    seq,
                    bans: Bans::default(),
                },
            );
        }
        self.bump();
    }

    /// Replaces a room's summary and who may not see it; a no-op for an unknown room or when
    /// neither changed.
    pub(crate) fn update(&self, summary: RoomSummary, bans: &Bans) {
        let changed = match self.lock().by_id.get_mut(&summary.id) {
            Some(entry) if entry.summary != summary || entry.bans != *bans => {
                entry.summary = summary;
                if entry.bans != *bans {
                    entry.bans = bans.clone();
                }
                true
            }
            _ => false,
        };
        if changed {
            self.bump();
        }
    }

    pub(crate) fn remove(&self, id: &str) {
        if self.lock().by_id.remove(id).is_some() {
            self.bump();
        }
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
        self.list_where(|_| true)
    }

    /// The list as `member` may see it: without the rooms they were kicked from (M3.5).
    pub(crate) fn list_for(&self, member: &Member) -> Vec<RoomSummary> {
        self.list_where(|e| !e.bans.bans(member))
    }

    fn list_where(&self, shown: impl Fn(&Entry) -> bool) -> Vec<RoomSummary> {
        let rooms = self.lock();
        let mut entries: Vec<&Entry> = rooms.by_id.values().filter(|e| shown(e)).collect();
        let rank = |p: Phase| match p {
            Phase::Waiting => 0,
            Phase::Playing => 1,
            Phase::Finished => 2,
        };
        entries.sort_by_key(|e| (rank(e.summary.phase), e.seq));
        entries.into_iter().map(|e| e.summary.clone()).collect()
    }

    /// Rooms waiting and playing.
    pub(crate) fn counts(&self) -> (usize, usize) {
        let rooms = self.lock();
        let waiting = rooms
            .by_id
            .values()
            .filter(|e| e.summary.phase == Phase::Waiting)
            .count();
        let playing = rooms
            .by_id
            .values()
            .filter(|e| e.summary.phase == Phase::Playing)
            .count();
        (waiting, playing)
    }

    pub(crate) fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }
}
