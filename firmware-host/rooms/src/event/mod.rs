//! Arena events (SPEC EV1–EV5): the pure core the server drives. No I/O, no clock, no
//! randomness source: time and a seed come in, [`Effect`]s come out, as in [`crate::room`].
//!
//! | file | what |
//! | --- | --- |
//! | [`setup`] | the owner's form checked into [`EventSettings`] (EV1) |
//! | [`score`] | points, streaks, performance, [`Standings`], [`standings_from_games`] (EV4) |
//! | [`delta`] | [`StandingsDelta`]: what changed between two tables, and applying it |
//! | [`pairing`] | one wave paired: [`pairing::pair`] (EV3) |
//! | [`arena`] | [`Arena`]: joining, pausing, presence, waves, games, phases (EV2, EV3, EV5) |
//! | [`view`] | the event on the wire: the snapshot per reader, the update after a change |
//! | [`saved`] | [`SavedArena`]: what survives a restart besides the stored games (EV7) |
//!
//! ```
//! use engine::Game;
//! use protocol::records::GameEnd;
//! use rooms::event::{
//!     Arena, Effect, EventLimits, EventSettings, EventSetup, Player, StartRequest, Today,
//!     WaveTimes, standings_from_games,
//! };
//!
//! let now = 1_800_000_000_000;
//! let setup = EventSetup {
//!     game: Game::Xo,
//!     duration_min: 60,
//!     start: StartRequest::Now,
//!     time_per_move_s: None,
//!     rated: None,
//!     name: Some("XO night".into()),
//! };
//! let today = Today { now_ms: now, tomorrow_ms: now + 3_600_000 * 6 };
//! let settings = EventSettings::from_setup(&setup, today, &EventLimits::default())?;
//! let mut arena = Arena::new(settings, EventLimits::default(), WaveTimes::default(), 7);
//! for (user, name) in [(1, "ana"), (2, "ben")] {
//!     arena.join(Player { user, name: name.into(), rating: 1200 }, now).expect("open");
//! }
//! let fx = arena.tick(now + 3_000); // the gathering window has passed
//! let Some(Effect::Paired { game, x, .. }) = fx.iter().find(|e| matches!(e, Effect::Paired { .. }))
//! else { panic!("paired") };
//! let end = GameEnd::Resigned { loser: engine::Mark::O };
//! let record = arena.result(*game, "r1".into(), end, now + 60_000)?; // store this with the game
//! assert_eq!(record.x_points, 2);
//! arena.record(record, now + 60_000)?;
//! assert_eq!(arena.standings().rows[0].user, *x);
//! assert_eq!(arena.standings(), &standings_from_games(arena.games()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod arena;
pub mod delta;
pub mod pairing;
pub mod saved;
pub mod score;
pub mod setup;
pub mod view;

#[cfg(test)]
mod arena_tests;
#[cfg(test)]
mod pairing_tests;
#[cfg(test)]
mod props;
#[cfg(test)]
mod saved_tests;
#[cfg(test)]
mod score_tests;
#[cfg(test)]
mod view_tests;

pub use self::arena::{
    Arena, ArenaError, Effect, Entry, OpenGame, Phase, Player, Presence, Status, WaveTimes,
};
pub use self::delta::{StandingsDelta, diff};
pub use self::saved::SavedArena;
pub use self::score::{
    EventGame, GameNo, Outcome, Row, Sheet, Standings, sheets_from_games, standings_from_games,
};
pub use self::setup::{EventLimits, EventSettings, EventSetup, SetupError, StartRequest, Today};
