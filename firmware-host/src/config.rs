//! Command-line flags and environment variables (P1), parsed once in `main`.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;

/// XO Kiosk server: serves the UI, the HTTP API and the WebSocket (`/ws`) on one port, and
/// keeps accounts, ratings and games in one redb file in the data directory.
///
/// Every flag can also be set from the environment variable named beside it; a flag given on
/// the command line wins.
#[derive(Debug, Clone, Parser)]
#[command(name = "firmware-host", version, about, long_about)]
pub struct Cli {
    /// Address and port to listen on. Use port 0 to let the system pick a free port; the
    /// bound address is logged at start ("listening on http://ADDR") and written to
    /// --port-file when given.
    #[arg(
        long,
        env = "XO_BIND",
        default_value = "0.0.0.0:8080",
        value_name = "ADDR:PORT"
    )]
    pub bind: SocketAddr,

    /// Directory holding the database file (xo-kiosk.redb); created if missing.
    #[arg(
        long,
        env = "XO_DATA_DIR",
        default_value = "./data",
        value_name = "DIR"
    )]
    pub data_dir: PathBuf,

    /// Log level or tracing filter, e.g. `info`, `debug`, `firmware_host=debug,info`.
    /// Logs go to standard error.
    #[arg(long, env = "XO_LOG", default_value = "info", value_name = "LEVEL")]
    pub log: String,

    /// Seconds without a game in progress after which the kiosk screen returns to its home
    /// screen (U7). Served to the UI by GET /api/config.
    #[arg(
        long,
        env = "XO_KIOSK_IDLE",
        default_value_t = 120,
        value_name = "SECONDS"
    )]
    pub kiosk_idle: u64,

    /// Most WebSocket connections open at once from one client address; further upgrades
    /// get 429. 0 means no limit (for load tests from one machine).
    #[arg(
        long,
        env = "XO_MAX_WS_PER_ADDRESS",
        default_value_t = 32,
        value_name = "N"
    )]
    pub max_ws_per_address: usize,

    /// After binding, write the bound port number (digits and a newline) to this file, for
    /// scripts and tests that start the server with port 0.
    #[arg(long, env = "XO_PORT_FILE", value_name = "FILE")]
    pub port_file: Option<PathBuf>,
}

/// What the server needs to start; built from [`Cli`] or directly by tests.
#[derive(Debug, Clone)]
pub struct Config {
    pub bind: SocketAddr,
    pub data_dir: PathBuf,
    pub kiosk_idle_s: u64,
    /// 0: no limit.
    pub max_ws_per_address: usize,
    pub port_file: Option<PathBuf>,
}

impl Config {
    /// A configuration for tests and tools: the given data directory, loopback port 0.
    pub fn for_tests(data_dir: impl Into<PathBuf>) -> Config {
        Config {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            data_dir: data_dir.into(),
            kiosk_idle_s: 120,
            max_ws_per_address: 32,
            port_file: None,
        }
    }
}

impl From<&Cli> for Config {
    fn from(cli: &Cli) -> Config {
        Config {
            bind: cli.bind,
            data_dir: cli.data_dir.clone(),
            kiosk_idle_s: cli.kiosk_idle,
            max_ws_per_address: cli.max_ws_per_address,
            port_file: cli.port_file.clone(),
        }
    }
}
