//! `firmware-host`: the XO Kiosk server. One binary serves the UI, the HTTP API and the
//! WebSocket on one port (P1), and keeps its data in one redb file (P3).
//!
//! # Layout
//!
//! - [`config`]: command-line flags and environment variables.
//! - [`server`]: the listener, connection handling and ordered shutdown.
//! - [`http`]: routing and the JSON API handlers.
//! - [`accounts`]: credential rules, password hashing, sessions, cookies, the sign-in throttle,
//!   and the identity of a connection.
//! - [`store`]: the redb store with its single group-committing writer; implements
//!   [`rooms::Persistence`].
//! - [`ws`]: the WebSocket upgrade at `/ws`, handed to the rooms hub.
//! - [`assets`]: the UI files embedded at build time.
//! - [`display`]: the optional status display thread (P5).
//! - [`public_url`]: the address phones should open (the LAN IP address by default).
//! - [`shutdown`]: waiting for SIGINT or SIGTERM.
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

pub mod accounts;
pub mod assets;
pub mod config;
pub mod display;
pub mod http;
pub mod public_url;
pub mod server;
pub mod shutdown;
pub mod store;
pub mod ws;

pub use config::{Cli, Config};
pub use server::Server;
