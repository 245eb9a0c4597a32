//! The event as the wire carries it ([`protocol::event`]): the snapshot one reader sees,
//! and the update every watcher gets after a change. Names come from the entrants, time as
//! durations from the caller's now.

use std::collections::BTreeMap;

use protocol::event::{
    EntrantState, EventBoard, EventId, EventPhase, EventRow, EventUpdate, EventView, EventYou,
    StandingsDelta as WireDelta,
};
use protocol::records::UserId;

use crate::event::arena::{Arena, Effect, Phase, Presence, Status};
use crate::event::score::Row;

fn wire_phase(phase: Phase) -> EventPhase {
    match phase {
        Phase::Announced => EventPhase::Announced,
        Phase::Running => EventPhase::Running,
        Phase::Ending => EventPhase::Ending,
        Phase::Finished => EventPhase::Finished,
        Phase::Cancelled => EventPhase::Cancelled,
    }
}

impl Arena {
    /// One row as sent, with the player's name.
    pub fn wire_row(&self, row: &Row) -> EventRow {
        EventRow {
            user: row.user,
            name: self
                .entry(row.user)
                .map(|e| e.player.name.clone())
                .unwrap_or_default(),
            rank: row.rank,
            points: row.points,
            performance: row.performance,
            games: row.games,
            wins: row.wins,
            draws: row.draws,
            losses: row.losses,
            streak: row.streak,
        }
    }

    /// The games in progress whose rooms exist, to watch (EV6).
    pub fn boards(&self) -> Vec<EventBoard> {
        self.open_games()
            .filter_map(|g| {
                g.room.as_ref().map(|room| EventBoard {
                    room: room.clone(),
                    x: g.x,
                    o: g.o,
                })
            })
            .collect()
    }

    /// A player's own state, if they ever joined.
    pub fn state_of(&self, user: UserId) -> Option<EntrantState> {
        let e = self.entry(user)?;
        Some(match (e.status, e.in_game, e.presence) {
            (Status::Left, ..) => EntrantState::Left,
            (_, Some(_), _) => EntrantState::Playing,
            (Status::Paused, ..) => EntrantState::Paused,
            (Status::Active, None, Presence::Offline | Presence::Elsewhere) => EntrantState::Away,
            (Status::Active, None, Presence::Online) => EntrantState::Waiting,
        })
    }

    fn ends_in_ms(&self, now_ms: u64) -> u64 {
        match self.phase() {
            Phase::Announced | Phase::Running => {
                self.settings().ends_at_ms().saturating_sub(now_ms)
            }
            Phase::Ending | Phase::Finished | Phase::Cancelled => 0,
        }
    }

    /// A player's own state and the room of their game in progress, if they ever joined.
    pub fn you(&self, user: UserId) -> Option<EventYou> {
        let state = self.state_of(user)?;
        let room = self
            .entry(user)
            .and_then(|e| e.in_game)
            .and_then(|no| self.open.get(&no))
            .and_then(|g| g.room.clone());
        Some(EventYou { state, room })
    }

    /// An update that changes nothing but the time and count (for a reader's own `you`).
    pub fn bare_update(&self, event: &EventId, now_ms: u64) -> EventUpdate {
        EventUpdate {
            event: event.clone(),
            phase: wire_phase(self.phase()),
            ends_in_ms: self.ends_in_ms(now_ms),
            players: u32::try_from(self.player_count()).unwrap_or(u32::MAX),
            standings: None,
            boards: None,
            podium: None,
            you: None,
        }
    }

    /// The snapshot for `reader` (a guest: `None`).
    pub fn view(&self, event: &EventId, reader: Option<UserId>, now_ms: u64) -> EventView {
        let settings = self.settings();
        let you = reader.and_then(|user| self.you(user));
        EventView {
            event: event.clone(),
            name: settings.name.clone(),
            game: settings.game,
            rated: settings.rated,
            per_move_ms: settings.per_move_ms,
            phase: wire_phase(self.phase()),
            starts_in_ms: settings.starts_at_ms.saturating_sub(now_ms),
            ends_in_ms: self.ends_in_ms(now_ms),
            duration_ms: settings.duration_ms,
            players: u32::try_from(self.player_count()).unwrap_or(u32::MAX),
            standings: self
                .standings()
                .rows
                .iter()
                .map(|r| self.wire_row(r))
                .collect(),
            boards: self.boards(),
            podium: self.final_podium(),
            you,
        }
    }

    fn final_podium(&self) -> Vec<EventRow> {
        if self.phase() != Phase::Finished {
            return Vec::new();
        }
        self.standings()
            .podium()
            .iter()
            .map(|r| self.wire_row(r))
            .collect()
    }

    /// What every watcher is sent after a call that returned `fx`; `None` when nothing they
    /// see changed. Several standings changes in `fx` are merged into one delta.
    pub fn update(&self, event: &EventId, fx: &[Effect], now_ms: u64) -> Option<EventUpdate> {
        if fx.is_empty() {
            return None;
        }
        let mut removed: BTreeMap<UserId, ()> = BTreeMap::new();
        let mut rows: BTreeMap<UserId, &Row> = BTreeMap::new();
        let mut changed = false;
        for effect in fx {
            if let Effect::Standings(delta) = effect {
                changed = true;
                for user in &delta.removed {
                    rows.remove(user);
                    removed.insert(*user, ());
                }
                for row in &delta.rows {
                    removed.remove(&row.user);
                    rows.insert(row.user, row);
                }
            }
        }
        let standings = changed.then(|| {
            let mut rows: Vec<EventRow> = rows.values().map(|r| self.wire_row(r)).collect();
            rows.sort_by_key(|r| (r.rank, r.user));
            WireDelta {
                removed: removed.into_keys().collect(),
                rows,
            }
        });
        let ended = fx.iter().any(|e| matches!(e, Effect::Ended { .. }));
        Some(EventUpdate {
            event: event.clone(),
            phase: wire_phase(self.phase()),
            ends_in_ms: self.ends_in_ms(now_ms),
            players: u32::try_from(self.player_count()).unwrap_or(u32::MAX),
            standings,
            boards: Some(self.boards()),
            podium: ended.then(|| self.final_podium()),
            you: None,
        })
    }
}

/// A watcher's table after `update` (what a client does with it): removed rows go, new and
/// changed rows replace theirs by user, and the table is sorted by rank then user.
pub fn apply_update(table: &mut Vec<EventRow>, update: &WireDelta) {
    table.retain(|r| {
        !update.removed.contains(&r.user) && !update.rows.iter().any(|n| n.user == r.user)
    });
    table.extend(update.rows.iter().cloned());
    table.sort_by_key(|r| (r.rank, r.user));
}
