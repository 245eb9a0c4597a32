//! Rooms, the lobby, clocks, the bot inside rooms, and WebSocket sessions.
//!
//! # Layout
//!
//! - [`persistence`]: what rooms need from storage, implemented by `firmware-host`'s redb store.
//! - [`settings`]: the creation box, checked once into valid [`settings::Settings`].
//! - [`room`]: [`room::Room`], one game's rules of play as a pure state machine.
//! - [`seats`]: the seat book shared by rooms: one seat per player (M3.4).
//! - [`saved`]: the versioned saved form of an open room, for restarts.
//! - `lobby` (private): the directory of open rooms and their lobby rows.
//! - `actor` (private): the task that owns one room, its clock and its bot.
//! - `session` (private): one WebSocket connection: hello, limits, decoding, routing.
//! - [`hub`]: [`Hub`], the handle `firmware-host` calls: start (restoring saved rooms), serve a
//!   WebSocket, lobby list, stats, shutdown.
//!
//! The rules of a room are a pure state machine: an intent in, effects out, no I/O, so every
//! rule is a unit test away.
//!
//! ```
//! use rand::SeedableRng;
//! use rooms::room::{Ctx, Intent, Member, PlayerKey, Room};
//! use rooms::seats::Seats;
//! use rooms::settings::Settings;
//!
//! let settings = Settings::from_request(
//!     &protocol::CreateRoom {
//!         game: engine::Game::Xo,
//!         opponent: protocol::OpponentRequest::Bot { difficulty: Some(100), side: None },
//!         time_per_move_s: None,
//!     },
//!     false, // a guest may play the bot
//! )?;
//! let me = Member { conn: 1, key: PlayerKey::Guest("kiosk".into()), name: "Guest".into() };
//! let mut rng = rand::rngs::StdRng::seed_from_u64(1);
//! let mut seats = Seats::default();
//! let mut ctx = Ctx { now_ms: 0, wall_ms: 0, rng: &mut rng, seats: &mut seats };
//! let mut room = Room::new("r1".into(), settings, &me, &mut ctx);
//! room.resume(&mut ctx);
//! room.apply(&me, Intent::Move { cell: 4 }, &mut ctx)?;
//! assert_eq!(room.position().mark_count(), 2); // the bot replied inside the room
//! let refused = room.apply(&me, Intent::Move { cell: 4 }, &mut ctx).unwrap_err();
//! assert_eq!(refused.code, protocol::ErrorCode::CellOccupied);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod actor;
pub mod hub;
mod lobby;
pub mod persistence;
pub mod room;
pub mod saved;
pub mod seats;
mod session;
pub mod settings;

pub use hub::{Hub, HubConfig, HubStats};
pub use persistence::{Account, Identity, Persistence, StoreError, StoreFuture};
