//! `firmware-host`: the XO Kiosk server. One binary serves the UI, the HTTP API and the
//! WebSocket on one port (P1), and keeps its data in one redb file (P3).
//!
//! # Layout
//!
//! - [`config`]: command-line flags and environment variables.
//! - [`server`]: the listener, connection handling and ordered shutdown.
//! - [`connections`]: open connections per address, the per-address cap and shedding near
//!   the open-files limit.
//! - [`cross_site`]: JSON-only, same-origin state changes, the `Host` check and the CSP.
//! - HTTP routes: every endpoint is a row of [`protocol::api::Endpoint`] (method, path,
//!   success status, request and response types), the one table the server routes by and
//!   the UI calls by; `docs/PROTOCOL.md` documents each row (a test holds them together).
//!   [`http`]'s `route` finds a request's row and hands it to its one handler: the owner
//!   endpoints' in [`owner_api`] (`serve`), the accounts' in [`account_api`], the arena
//!   events' in [`events_api`], the read-only ones in [`http`] itself.
//! - [`http`]: routing (the owner check before anything else under `/api/owner`, `405` with
//!   the table's `Allow`), the read-only JSON endpoints and the embedded files.
//! - [`health`]: what `/api/health` answers (the owner's health page shows it too).
//! - [`account_api`]: the account endpoints (register, sign in and out, password change).
//! - [`owner`]: owner codes (physical presence) and `firmware-host owner-code`.
//! - [`owner_api`]: owner mode's endpoints under `/api/owner`, each checked on the server.
//! - [`owner_health`]: the owner's health page and the ring of recent warnings and errors.
//! - [`settings`]: the kiosk's settings an owner saves (idle time, public address, default
//!   language, guest Wi-Fi), over the flags' defaults, applied without a restart.
//! - [`api_error`]: every HTTP failure and the one table from it to code, status and log level.
//!   Error wording: HTTP's codes and statuses are one table in `protocol::http`
//!   (`ApiErrorCode`); every WebSocket refusal is a typed `rooms::refusal::Reason`, worded in
//!   one place (`Reason::told`).
//! - [`events_api`]: the arena events' endpoints (the owner's announce and cancel, the lists);
//!   [`event_runner`]: the live events' tasks, their rooms and stored events (EV1–EV7; the
//!   pure pairing, scoring and arena are `rooms::event`).
//! - [`app`]: what every handler shares (store, hub, settings, the display's and the
//!   screen's state).
//! - [`accounts`]: password hashing, sessions, the device cookie and the other cookies, and
//!   the identity of a connection.
//! - [`throttle`]: sign-in and registration attempts, counted when admitted.
//! - [`store`]: the redb store, one module per noun with its tables, writes and reads (its own
//!   `# Layout` lists them bottom up); implements [`rooms::Persistence`]. Where each storage
//!   rule lives:
//!   - P3 a rated result (record, both ratings, points) in one transaction, E2 only M3 games
//!     rated, unrated games bounded a player: `store/games.rs` (`commit_in`).
//!   - P3 one writer, group commit, room saves durable within a second, healing after a card
//!     failure: `store/writer.rs`; the card's health: `store/health.rs`.
//!   - P3 a result kept and retried while the card fails: `rooms`' `results.rs`.
//!   - A1 unique names, registering signs in: `store/accounts.rs`; A2 sessions, at most 20 a
//!     player: `store/sessions.rs`; open rooms: `store/open_rooms.rs`.
//!   - O1 owners, O2 account removal and renames: `store/owners.rs`; O2 seasons:
//!     `store/seasons.rs`; reset codes: `store/reset_codes.rs`; settings:
//!     `store/settings.rs`; O3 backup and restore: `store/backup.rs`.
//!   - O4 data of every earlier version opens: `store/schema.rs` (and `tests/fixtures/`).
//!   - EV4 an event game's points in the transaction of its result, EV7 events kept across
//!     restarts: `store/events.rs`.
//!   - PZ3 a rated puzzle attempt with both ratings in one transaction, first attempts
//!     only; PZ5 best streaks; PZ4 daily solve counts: `store/puzzles.rs`.
//! - [`ws`]: the WebSocket upgrade at `/ws`, handed to the rooms hub.
//! - [`assets`]: the UI files embedded at build time.
//! - [`display`]: the optional status display thread (P5).
//! - [`public_url`]: the address phones should open (the LAN IP address by default).
//! - [`shutdown`]: waiting for SIGINT or SIGTERM.
//! - [`update`]: checking and keeping a new version of this binary (`install-update`).
//!
//! # Example
//!
//! Start a server on a free loopback port with a fresh data directory, then stop it:
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! use firmware_host::{config::Config, server::Server};
//! let server = Server::start(Config::for_tests("/tmp/xo-data")).await?;
//! println!("serving on http://{}", server.local_addr());
//! server.shutdown().await;
//! # Ok(())
//! # }
//! ```

pub mod account_api;
pub mod accounts;
pub mod api_error;
pub mod app;
pub mod assets;
pub mod clock;
pub mod config;
pub mod connections;
pub mod cross_site;
pub mod display;
pub mod event_runner;
pub mod events_api;
pub mod handler;
pub mod health;
pub mod http;
pub mod owner;
pub mod owner_api;
pub mod owner_health;
pub mod public_url;
pub mod server;
pub mod settings;
pub mod shutdown;
pub mod store;
pub mod throttle;
pub mod update;
pub mod ws;

pub use config::{Cli, Config};

/// This build's version, as `--version`, `/api/health` and `/api/config` name it: the
/// package version, or `XO_VERSION` when it was set at build time (a pre-release, or the
/// second version that the update tests install over the first).
pub const VERSION: &str = match option_env!("XO_VERSION") {
    Some(version) => version,
    None => env!("CARGO_PKG_VERSION"),
};
pub use server::Server;
