//! What an event keeps across a restart (EV7), apart from its finished games, which are
//! stored with their results (EV4): [`SavedArena`], and [`Arena::restore`] from it.
//!
//! Everything else is rebuilt: the sheets and the table from the games, each player's last
//! opponent, last mark and colour balance from the games and the games in progress in pairing
//! order. Nobody is connected after a restart, so every player starts away
//! ([`Presence::Offline`]) and waits again when their phone reconnects
//! ([`Arena::presence`]).
//!
//! Save the arena after every change that returns [`Effect::Paired`] *before* creating the
//! rooms (as rooms save before announcing), and after join, pause, resume, leave, seating and
//! abort. A game paired but never saved is not the arena's after a restart: its room plays on
//! as an ordinary rated game and [`Arena::record`] refuses its result.
//!
//! [`Effect::Paired`]: crate::event::arena::Effect::Paired

use std::collections::BTreeMap;

use engine::Mark;
use serde::{Deserialize, Serialize};

use crate::event::arena::{Arena, Entry, OpenGame, Phase, Player, Presence, Status, WaveTimes};
use crate::event::score::{EventGame, GameNo, Standings, sheets_from_games};
use crate::event::setup::{EventLimits, EventSettings};

/// An event's saved state, versioned by its shape (postcard).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SavedArena {
    pub settings: EventSettings,
    pub seed: u64,
    pub phase: Phase,
    /// Every player who ever joined, with whether they are active, paused or gone.
    pub entrants: Vec<(Player, Status)>,
    pub open: Vec<OpenGame>,
    pub next_game: GameNo,
    pub waves: u64,
}

impl Arena {
    /// The state to save.
    pub fn saved(&self) -> SavedArena {
        SavedArena {
            settings: self.settings.clone(),
            seed: self.seed,
            phase: self.phase,
            entrants: self
                .entries
                .values()
                .map(|e| (e.player.clone(), e.status))
                .collect(),
            open: self.open.values().cloned().collect(),
            next_game: self.next_game,
            waves: self.waves,
        }
    }

    /// The event as saved, with its finished `games` as stored (in the order they were
    /// stored). A game in `saved.open` that is among `games` finished before the save caught
    /// up and counts once, as finished. Call [`Arena::tick`] next: time may have run out
    /// meanwhile.
    pub fn restore(
        saved: SavedArena,
        games: Vec<EventGame>,
        limits: EventLimits,
        times: WaveTimes,
    ) -> Arena {
        let finished: BTreeMap<GameNo, ()> = games.iter().map(|g| (g.no, ())).collect();
        let open: BTreeMap<GameNo, OpenGame> = saved
            .open
            .into_iter()
            .filter(|g| !finished.contains_key(&g.no))
            .map(|g| (g.no, g))
            .collect();
        let mut entries: BTreeMap<_, Entry> = saved
            .entrants
            .into_iter()
            .map(|(player, status)| {
                (
                    player.user,
                    Entry {
                        player,
                        status,
                        presence: Presence::Offline,
                        in_game: None,
                        waiting_since: None,
                        sat_out: false,
                        last_opponent: None,
                        last_mark: None,
                        balance: 0,
                    },
                )
            })
            .collect();
        // Colour history and last opponents, game by game in pairing order.
        let mut played: Vec<(GameNo, u64, u64)> = games
            .iter()
            .map(|g| (g.no, g.x, g.o))
            .chain(open.values().map(|g| (g.no, g.x, g.o)))
            .collect();
        played.sort_unstable();
        for (_, x, o) in played {
            for (user, opponent, mark) in [(x, o, Mark::X), (o, x, Mark::O)] {
                if let Some(entry) = entries.get_mut(&user) {
                    entry.last_opponent = Some(opponent);
                    entry.last_mark = Some(mark);
                    entry.balance += if mark == Mark::X { 1 } else { -1 };
                }
            }
        }
        for game in open.values() {
            for user in [game.x, game.o] {
                if let Some(entry) = entries.get_mut(&user) {
                    entry.in_game = Some(game.no);
                }
            }
        }
        // The table: players still in, and everyone who played or is playing.
        let listed: Vec<u64> = entries
            .values()
            .filter(|e| e.status != Status::Left || e.in_game.is_some())
            .map(|e| e.player.user)
            .collect();
        let sheets = sheets_from_games(&listed, &games);
        let standings = Standings::from_sheets(sheets.iter().map(|(u, s)| (*u, s)));
        let next_game = open
            .keys()
            .chain(finished.keys())
            .max()
            .map_or(saved.next_game, |n| saved.next_game.max(n + 1));
        Arena {
            settings: saved.settings,
            limits,
            times,
            seed: saved.seed,
            phase: saved.phase,
            entries,
            sheets,
            games,
            open,
            next_game,
            waves: saved.waves,
            held: None,
            standings,
        }
    }
}
