//! Rooms, the lobby, clocks, the bot inside rooms, and WebSocket sessions.
//!
//! # Layout
//!
//! Files from the bottom of the import graph up (none imports a file above it; the test
//! `tests/it/import_loops.rs` keeps it so):
//!
//! - [`refusal`]: every refusal of the WebSocket channel: [`refusal::Reason`], typed, and the
//!   one table from it to the stable code and the message the sender alone is told ([`Refusal`]).
//! - [`persistence`]: what rooms need from storage ([`Persistence`], [`Identity`]), implemented
//!   by `firmware-host`'s redb store.
//! - `results` (private): storing a finished game's result in a task of its own, with one
//!   retry policy (pending while the card fails, after its room closed, at shutdown); the
//!   store's answer comes back to the room as a message.
//! - [`settings`]: the creation box, checked once into valid [`settings::Settings`].
//! - [`seats`]: the seat book shared by rooms: one seat per player (M3.4).
//! - [`room`]: [`room::Room`], one game's rules as a pure state machine, one file per part of
//!   a room's life (its own docs list them).
//! - [`event`]: arena events (EV1–EV5) as a pure state machine: settings, scoring and
//!   standings, standings deltas, pairing of waves, [`event::Arena`] (its own docs list the
//!   files).
//! - [`saved`]: the versioned saved form of an open room, for restarts.
//! - [`arena_actor`]: the task that owns a running event's arena: its clock, its players'
//!   intents and watchers, and the order of saving, storing and making rooms (EV2–EV5, EV7);
//!   what it needs from the server is an [`arena_actor::EventHost`].
//! - `handle` (private): a room task's address and the messages it takes.
//! - `lobby` (private): the directory of open rooms and their lobby rows.
//! - `conns` (private): every open connection, for events to a person and ending sessions.
//! - [`config`]: [`HubConfig`], the limits and timings.
//! - `shared` (private): what rooms and sessions share (storage, seat book, lobby, clock).
//! - `actor` (private): the task that owns one room, its clock and its bot, and carries out
//!   the room's effects (snapshots, events, storage); it never waits on the card.
//! - `create` (private): creating a room: limits, id, the creator's seat.
//! - [`puzzles`]: puzzle attempts over the WebSocket: each connection's attempts and streak,
//!   the count of today's daily solves.
//! - `session` (private): one WebSocket connection: hello, limits, decoding, routing.
//! - [`hub`]: [`Hub`], the handle `firmware-host` calls: start (restoring saved rooms), serve a
//!   WebSocket, lobby list, stats, shutdown.
//!
//! # Where each rule of SPEC.md lives
//!
//! | rule | file |
//! | --- | --- |
//! | R-XO-*, R-INF-1…3, R-INF-5 (the games) | `engine`; applied by `room/play.rs` |
//! | R-INF-4 repetition | `engine::GameRecord`; warned and drawn in `room/play.rs` |
//! | T2–T4 the bot's move, T5 hints | `tables::bot`; played in `room/play.rs` |
//! | M1.1, M1.2, M2.1, M3.1 the creation box | `settings.rs`; sides and X/O at random in `room/mod.rs` (`Room::new`) |
//! | M1.3, M2.2, M3.11 undo, hints, who the device moves for | `room/play.rs`; `controls` in `room/mod.rs` |
//! | M2.3, M3.9 exit; M3.9 resign | `room/seating.rs` (`exit`); `room/play.rs` (`resign`) |
//! | M3.2 listing, shareable id | `lobby.rs`, `create.rs` (ids); host ready in `room/mod.rs` |
//! | M3.3 joining by policy | `room/seating.rs` (`join`, `accept`, `decline`, `cancel_request`) |
//! | M3.3 wrong-passcode throttle | `room/passcode.rs` |
//! | M3.3 passcode only to the host | `room/view.rs` |
//! | M3.4 one seat per player | `seats.rs`; claimed in `create.rs` and `room/seating.rs` (`seat_guest`, `start`, `vacate`) |
//! | M3.5 kick, banning account, browser and device | `room/seating.rs` (`kick`), `room/bans.rs`; refused views in `room/errors.rs`; rows hidden in `lobby.rs` |
//! | M3.6 ready, start, marks at random | `room/seating.rs` (`ready`, `start`) |
//! | M3.7 clocks | `room/clock.rs`; the timer in `actor.rs` |
//! | M3.8 draw offers | `room/offers.rs`; withdrawn by a move in `room/play.rs` |
//! | M3.10 presence, idle rooms | `room/seating.rs` (`open`, `disconnect`), `room/view.rs` (`present`); idle close in `actor.rs` |
//! | M4 spectators | `room/seating.rs` (`open`), `room/view.rs` (count, what they see), `room/errors.rs` (what they may not do) |
//! | M3.12 play again, rematch (spectators follow) | `room/rematch.rs`; the new room and the move of every viewer in `actor.rs` (`next_game`), followed in `session.rs` |
//! | Abandoned bot and local games end (`unviewed_game_close`) | `actor.rs` (idle timer), `config.rs` |
//! | U6 names as kinds the client words | `room/occupant.rs`, `room/member.rs` (`name_kind`) |
//! | E2, E3 rated results, P3 stored before announced | `room/result.rs`; stored (and kept, retried) by `results.rs`, announced by `actor.rs` when the store's answer comes |
//! | E4 ELO preview | `room/view.rs` |
//! | P3 open rooms survive a restart | `saved.rs`; written by the saver in `actor.rs`, restored in `hub.rs` |
//! | EV1 event settings | `event/setup.rs` |
//! | EV2 join, pause, leave, who may be paired; EV5 phases and the end | `event/arena.rs` |
//! | EV3 pairing a wave, colours | `event/pairing.rs`; waves gathered in `event/arena.rs` |
//! | EV4 points, streaks, performance, standings | `event/score.rs`; deltas in `event/delta.rs` |
//! | Bad input: which refusal wins | `room/errors.rs` |
//! | Bad input: every refusal's code and words | `refusal.rs` (`Reason::told`) |
//! | Bad input: frames, sizes, rates, hello | `session.rs` (limits in `config.rs`) |
//! | S3 sessions ended on open WebSockets | `conns.rs`, `hub.rs` (`end_session`, `end_user_sessions`), `session.rs` (close 4001) |
//! | S4 room limits per host and server | `create.rs` |
//! | PZ2 attempts judged, defence and refutation | `tables::puzzle`; whose attempt, what is shown in `puzzles.rs`, routed in `session.rs` |
//! | PZ3 puzzle ratings, first attempts only | `tables::select::rate`; which attempts may count in `puzzles.rs`; asked and told in `session.rs`; decided and stored by `firmware-host`'s store (`store/puzzles.rs`) |
//! | PZ4 puzzle of the day, solved-today count | `tables::select::daily`; the UTC day and the count in `puzzles.rs` (stored, loaded by `hub.rs`) |
//! | PZ5 streaks | `tables::select::streak`; the connection's streak in `puzzles.rs`; the best streak stored with each attempt |
//!
//! # Rules an outside client asks about
//!
//! - **Which refusal wins** when several apply: the order in `room/errors.rs` (kicked, then the
//!   kind of room, the sender's role, the phase, the intent's own conditions); a spectator's
//!   `undo` in an online room is `undo_unavailable`.
//! - **Draw offers** may be made on either player's turn, at most one between two of one's own
//!   moves (`offer_limit`), one pending at a time (`offer_pending`), `room/offers.rs`.
//! - **`seat_moved`** is sent whenever a waiting seat is left for another room, however the new
//!   seat was taken (open, passcode or accepted request), `room/seating.rs`.
//! - **Events for one person** (`join_requested`, `request_declined`, `seat_moved`, `kicked`)
//!   reach every connection of that person, whatever room it views (`conns.rs`).
//! - **Bot and local games never count for `already_seated`**: the seat book holds online
//!   rooms only, so a player in a bot or local game may create or join an online room.
//! - **A refused `open` or `join` leaves the connection's current room** as it was; the room
//!   becomes current only once it accepted (`session.rs`).
//! - **Every intent is answered**: a snapshot (with the intent's `id`), `left`, `hint` or an
//!   error; one sent to a room that is closing is answered `room_closed` (`actor.rs`).
//! - **Marks in snapshots** (`x`, `o`) are in play order, oldest first, in both games.
//! - **Names the server makes** are sent as kinds (`protocol::Name`: account, guest with a tag,
//!   bot with its difficulty, local name) beside the old English strings.
//! - **Play again / rematch** (M3.12): `play_again` (bot, local: the device's person, after the
//!   end), `offer_rematch` / `answer_rematch` (online: seated players, after the end; one offer
//!   each per game; offering while the opponent's offer is pending accepts it). The next game is
//!   a new room; every viewer of the old one gets `next_room` and the new room's snapshot, and
//!   the new room is their current room. A bot or local game nobody views ends after
//!   `HubConfig::unviewed_game_close` (60 s).
//! - **Puzzle attempts** belong to the connection that started them (its last 4): any other
//!   connection, the same player's included, gets `unknown_attempt` for them (`puzzles.rs`).
//! - **Sign-out** (S3): a WebSocket whose sign-in session ends gets the error `signed_out` and a
//!   close frame with code 4001 `signed_out` (`Hub::end_session`, `Hub::end_user_sessions`).
//!
//! The rules of a room are a pure state machine: an intent in, effects out, no I/O, so every
//! rule is a unit test away.
//!
//! ```
//! use rand::SeedableRng;
//! use rooms::room::{Ctx, Intent, Member, PlayerKey, Room};
//! use rooms::rated::Unlimited;
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
//! let me = Member {
//!     conn: 1,
//!     key: PlayerKey::Guest("kiosk".into()),
//!     name: "Guest".into(),
//!     guest_id: "kiosk".into(),
//!     device: None,
//! };
//! let mut rng = rand::rngs::StdRng::seed_from_u64(1);
//! let mut seats = Seats::default();
//! let mut ctx = Ctx { now_ms: 0, wall_ms: 0, rng: &mut rng, seats: &mut seats, rated: &Unlimited };
//! let mut room = Room::new("r1".into(), settings, &me, &mut ctx);
//! room.resume(&mut ctx);
//! room.apply(&me, Intent::Move { cell: 4 }, &mut ctx)?;
//! assert_eq!(room.position().mark_count(), 2); // the bot replied inside the room
//! let refused = room.apply(&me, Intent::Move { cell: 4 }, &mut ctx).unwrap_err();
//! assert_eq!(refused.code, protocol::ErrorCode::CellOccupied);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod actor;
pub use actor::SAVE_COALESCE;
pub mod arena_actor;
pub mod config;
mod conns;
mod create;
pub mod event;
mod handle;
pub mod hub;
mod lobby;
pub mod persistence;
pub mod puzzles;
pub mod rated;
pub mod refusal;
mod results;
pub mod room;
pub mod saved;
pub mod seats;
mod session;
pub mod settings;
mod shared;
mod wire;
pub use wire::MAX_WS_MESSAGE;
#[cfg(any(test, feature = "fuzzing"))]
#[doc(hidden)]
pub mod wire_oracle;

pub use config::HubConfig;
pub use hub::{Hub, HubStats};
pub use persistence::{
    Account, Identity, Persistence, PuzzleRecorded, PuzzleResult, PuzzleStanding, StoreError,
    StoreFuture,
};
pub use refusal::{Reason, Refusal};
