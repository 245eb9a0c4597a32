//! Command-line flags and environment variables (P1), parsed once in `main`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;

use protocol::http::{Language, Supervisor};

use crate::public_url::GuestWifi;

/// XO Kiosk server: serves the UI, the HTTP API and the WebSocket (`/ws`) on one port, and
/// keeps accounts, ratings and games in one redb file in the data directory.
///
/// Every flag can also be set from the environment variable named beside it; a flag given on
/// the command line wins.
///
/// The kiosk's settings (--kiosk-idle, --public-url, --default-language and the guest Wi-Fi
/// network) are defaults: once an owner saves settings on the owner page (PUT
/// /api/owner/settings), the saved ones are in force instead, until an owner resets them
/// (DELETE /api/owner/settings).
///
/// Other commands: `firmware-host install-update FILE --data-dir DIR` checks a new version of
/// this binary and keeps it for the image's launcher; `firmware-host owner-code --data-dir
/// DIR` prints a one-time owner code. Each has its own `--help`.
#[derive(Debug, Clone, Parser)]
#[command(name = "firmware-host", version = crate::VERSION, about, long_about)]
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
    /// screen (U7). Served to the UI by GET /api/config. An owner's saved setting overrides
    /// it.
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

    /// Most accounts registered from one client address per hour; further registrations get
    /// 429 `too_many_registrations`. 0 means no limit (for test and load harnesses that
    /// register many players from one machine).
    #[arg(
        long,
        env = "XO_MAX_REGISTRATIONS_PER_ADDRESS",
        default_value_t = crate::throttle::REGISTRATIONS,
        value_name = "N"
    )]
    pub max_registrations_per_address: usize,

    /// Most rated games started within an hour from one client address (a game counts for
    /// each address its two players are connected from); further starts get
    /// `too_many_rated_games`. Rated games are kept for ever, so this bounds what one address
    /// can make the card keep. 0 means no limit (for test and load harnesses).
    #[arg(
        long,
        env = "XO_MAX_RATED_GAMES_PER_ADDRESS",
        default_value_t = rooms::config::RATED_GAMES_PER_ADDRESS,
        value_name = "N"
    )]
    pub max_rated_games_per_address: usize,

    /// Most TCP connections open at once from one client address, for their whole life
    /// (HTTP and WebSocket); further connections are closed at once. 0 means no limit.
    #[arg(
        long,
        env = "XO_MAX_CONNECTIONS_PER_ADDRESS",
        default_value_t = 256,
        value_name = "N"
    )]
    pub max_connections_per_address: usize,

    /// Messages per second one WebSocket may send, sustained; beyond it and the burst the
    /// connection gets `flood` and is closed.
    #[arg(
        long,
        env = "XO_MAX_MESSAGES_PER_S",
        default_value_t = 20,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub max_messages_per_s: u32,

    /// Messages one WebSocket may send at once above the sustained rate.
    #[arg(
        long,
        env = "XO_MESSAGE_BURST",
        default_value_t = 40,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    pub message_burst: u32,

    /// Most rooms open at once on the server, finished games included until they close. Past
    /// three quarters of it, creating a room closes at once the oldest rooms nobody views
    /// (bot, local and finished games) instead of 30 minutes after their last viewer; at the
    /// limit, with every room in use, `create_room` gets `unavailable`. Each open room holds
    /// memory (its game, viewers and lobby row).
    #[arg(
        long,
        env = "XO_MAX_ROOMS",
        default_value_t = rooms::config::MAX_ROOMS,
        value_name = "N",
        value_parser = clap::value_parser!(u32).range(8..=100_000)
    )]
    pub max_rooms: u32,

    /// Seconds a player of a rated XO room has for a move before the game is forfeited to
    /// the opponent (M3.7). Infinite XO's time per move is chosen per room instead.
    #[arg(
        long,
        env = "XO_XO_MOVE_LIMIT",
        default_value_t = 120,
        value_name = "SECONDS",
        value_parser = clap::value_parser!(u32).range(1..=86_400)
    )]
    pub xo_move_limit: u32,

    /// Seconds a new connection has to send its request headers, and a new WebSocket its
    /// hello, before the server closes it (so idle and half-open connections cannot pile up).
    #[arg(
        long,
        env = "XO_HANDSHAKE_TIMEOUT",
        default_value_t = 10,
        value_name = "SECONDS",
        value_parser = clap::value_parser!(u64).range(1..=3600)
    )]
    pub handshake_timeout: u64,

    /// The shortest arena event an owner may create, in minutes (EV1: 10). Lower it only to
    /// try or test an event quickly.
    #[arg(
        long,
        env = "XO_EVENT_MIN_MINUTES",
        default_value_t = 10,
        value_name = "MINUTES",
        value_parser = clap::value_parser!(u32).range(1..=180)
    )]
    pub event_min_minutes: u32,

    /// The address phones should open, shown on the status display and by the kiosk's QR
    /// code (GET /api/config). Default: when listening on all interfaces, the device's
    /// current LAN IP address (`http://192.168.1.20:PORT`, read again every 5 s; the
    /// `HOSTNAME.local` name is served beside it), else `http://ADDR:PORT`. `http://` or
    /// `https://`, a host and an optional port. An owner's saved setting overrides it.
    #[arg(long, env = "XO_PUBLIC_URL", value_name = "URL", value_parser = public_url)]
    pub public_url: Option<String>,

    /// The language pages open in until the visitor chooses one: `en` or `ar`. An owner's
    /// saved setting overrides it.
    #[arg(
        long,
        env = "XO_DEFAULT_LANGUAGE",
        default_value = "en",
        value_name = "LANG",
        value_parser = default_language
    )]
    pub default_language: Language,

    /// A Wi-Fi network for guests (1 to 32 bytes), shown by the kiosk as a `WIFI:` QR code
    /// beside the game's so a phone joins the network, then the game (GET /api/config). An
    /// owner's saved setting overrides it (and the password).
    #[arg(long, env = "XO_GUEST_WIFI_SSID", value_name = "NAME", value_parser = guest_wifi_ssid)]
    pub guest_wifi_ssid: Option<String>,

    /// The guest network's WPA password (8 to 63 bytes); without it the network is open.
    #[arg(
        long,
        env = "XO_GUEST_WIFI_PASSWORD",
        value_name = "PASSWORD",
        requires = "guest_wifi_ssid",
        hide_env_values = true,
        value_parser = guest_wifi_password
    )]
    pub guest_wifi_password: Option<String>,

    /// Optional status display (P5): `png:DIR` (writes DIR/status.png, for desktops),
    /// `ssd1306:/dev/i2c-1[:0x3c]` (OLED over I2C) or `fb:/dev/fb1` (Linux framebuffer).
    /// Refreshed every 5 seconds.
    #[arg(long, env = "XO_DISPLAY", value_name = "BACKEND")]
    pub display: Option<String>,

    /// After binding, write the bound port number (digits and a newline) to this file, for
    /// scripts and tests that start the server with port 0.
    #[arg(long, env = "XO_PORT_FILE", value_name = "FILE")]
    pub port_file: Option<PathBuf>,

    /// While the kiosk has no owner, write a new one-time owner code at every start to this
    /// file (for a kiosk without a screen: on the image, a file on the boot partition that
    /// any computer can read), and show it on the status display. The file is removed once
    /// an owner exists.
    #[arg(long, env = "XO_OWNER_CODE_OUT", value_name = "FILE")]
    pub owner_code_out: Option<PathBuf>,

    /// What starts this server again when an owner restarts it, as the owner's Update page
    /// says: `none` (it stops and must be started again by hand), `run-script` (scripts/run
    /// starts the same program again) or `launcher` (the SD-card image's launcher starts the
    /// newest installed version not marked bad). An owner's restart exits with status 75.
    #[arg(
        long,
        env = "XO_SUPERVISOR",
        default_value = "none",
        value_name = "WHO",
        value_parser = supervisor
    )]
    pub supervisor: Supervisor,

    /// Hours the kiosk's screen sleeps (AP3), in this machine's local time, as HH:MM-HH:MM
    /// (23:00-08:00 runs past midnight; empty or `none`: none). In those hours the kiosk's
    /// page goes black once left alone for --kiosk-idle; a touch wakes it and does nothing
    /// else. An owner's saved setting overrides it.
    #[arg(long, env = "XO_SCREEN_SLEEP", value_name = "HH:MM-HH:MM", value_parser = screen_sleep)]
    pub screen_sleep: Option<ScreenSleep>,

    /// Seconds without a touch after which the kiosk's screen sleeps at any hour; 0: never
    /// (10 to 86400 otherwise). An owner's saved setting overrides it.
    #[arg(
        long,
        env = "XO_SCREEN_OFF_IDLE",
        default_value_t = 0,
        value_name = "SECONDS",
        value_parser = screen_off_idle
    )]
    pub screen_off_idle: u64,
}

/// `--screen-sleep` as minutes after midnight (`None` inside: the flag given empty, none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScreenSleep(pub Option<(u16, u16)>);

/// What the server needs to start; built from [`Cli`] or directly by tests.
#[derive(Debug, Clone)]
pub struct Config {
    pub bind: SocketAddr,
    pub data_dir: PathBuf,
    pub kiosk_idle_s: u64,
    /// 0: no limit.
    pub max_ws_per_address: usize,
    /// Accounts per client address per hour; 0: no limit.
    pub max_registrations_per_address: usize,
    /// Rated games started per client address per hour; 0: no limit.
    pub max_rated_games_per_address: usize,
    /// TCP connections per client address; 0: no limit.
    pub max_connections_per_address: usize,
    /// See [`Cli::max_messages_per_s`].
    pub max_messages_per_s: u32,
    /// See [`Cli::message_burst`].
    pub message_burst: u32,
    /// See [`Cli::max_rooms`].
    pub max_rooms: usize,
    /// See [`Cli::xo_move_limit`].
    pub xo_move_limit: Duration,
    /// See [`Cli::handshake_timeout`].
    pub handshake_timeout: Duration,
    /// See [`Cli::event_min_minutes`].
    pub event_min_minutes: u32,
    /// `None`: derived from the bound address (see [`Cli::public_url`]).
    pub public_url: Option<String>,
    /// A `status_display::Backend` spec, or `None` for no display.
    pub display: Option<String>,
    pub port_file: Option<PathBuf>,
    /// See [`Cli::owner_code_out`].
    pub owner_code_out: Option<PathBuf>,
    /// See [`Cli::guest_wifi_ssid`].
    pub guest_wifi: Option<GuestWifi>,
    /// See [`Cli::default_language`].
    pub default_language: Language,
    /// See [`Cli::supervisor`].
    pub supervisor: Supervisor,
    /// See [`Cli::screen_sleep`]: minutes after midnight, `(from, until)`.
    pub screen_sleep: Option<(u16, u16)>,
    /// See [`Cli::screen_off_idle`]; 0: never.
    pub screen_off_idle_s: u64,
}

impl Config {
    /// A configuration for tests and tools: the given data directory, loopback port 0.
    pub fn for_tests(data_dir: impl Into<PathBuf>) -> Config {
        Config {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            data_dir: data_dir.into(),
            kiosk_idle_s: 120,
            max_ws_per_address: 32,
            max_registrations_per_address: crate::throttle::REGISTRATIONS,
            max_rated_games_per_address: rooms::config::RATED_GAMES_PER_ADDRESS,
            max_connections_per_address: 256,
            max_messages_per_s: 20,
            message_burst: 40,
            max_rooms: rooms::config::MAX_ROOMS as usize,
            xo_move_limit: Duration::from_secs(120),
            handshake_timeout: Duration::from_secs(10),
            event_min_minutes: 10,
            public_url: None,
            display: None,
            port_file: None,
            owner_code_out: None,
            guest_wifi: None,
            default_language: Language::En,
            supervisor: Supervisor::None,
            screen_sleep: None,
            screen_off_idle_s: 0,
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
            max_registrations_per_address: cli.max_registrations_per_address,
            max_rated_games_per_address: cli.max_rated_games_per_address,
            max_connections_per_address: cli.max_connections_per_address,
            max_messages_per_s: cli.max_messages_per_s,
            message_burst: cli.message_burst,
            max_rooms: cli.max_rooms as usize,
            xo_move_limit: Duration::from_secs(u64::from(cli.xo_move_limit)),
            handshake_timeout: Duration::from_secs(cli.handshake_timeout),
            event_min_minutes: cli.event_min_minutes,
            public_url: cli.public_url.clone(),
            display: cli.display.clone(),
            port_file: cli.port_file.clone(),
            owner_code_out: cli.owner_code_out.clone(),
            guest_wifi: cli
                .guest_wifi_ssid
                .as_ref()
                .map(|ssid| GuestWifi::from_checked(ssid.clone(), cli.guest_wifi_password.clone())),
            default_language: cli.default_language,
            supervisor: cli.supervisor,
            screen_sleep: cli.screen_sleep.and_then(|s| s.0),
            screen_off_idle_s: cli.screen_off_idle,
        }
    }
}

fn guest_wifi_ssid(ssid: &str) -> Result<String, String> {
    GuestWifi::new(ssid, None).map(|w| w.ssid)
}

fn guest_wifi_password(password: &str) -> Result<String, String> {
    // Any valid name: only the password is checked here.
    GuestWifi::new("x", Some(password)).map(|_| password.to_owned())
}

fn screen_sleep(text: &str) -> Result<ScreenSleep, String> {
    Ok(ScreenSleep(
        match protocol::rules::parse_sleep_hours(text)? {
            Some((from, until)) => Some(protocol::rules::sleep_hours(&from, &until)?),
            None => None,
        },
    ))
}

fn screen_off_idle(text: &str) -> Result<u64, String> {
    let range = protocol::http::SCREEN_OFF_IDLE_RANGE_S;
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|s| *s == 0 || range.contains(s))
        .ok_or_else(|| {
            format!(
                "{text:?} is not 0 (never) nor a whole number of seconds from {} to {}",
                range.start(),
                range.end()
            )
        })
}

fn supervisor(who: &str) -> Result<Supervisor, String> {
    match who {
        "none" => Ok(Supervisor::None),
        "run-script" => Ok(Supervisor::RunScript),
        "launcher" => Ok(Supervisor::Launcher),
        other => Err(format!(
            "{other:?} is not one of none, run-script, launcher"
        )),
    }
}

fn public_url(url: &str) -> Result<String, String> {
    protocol::rules::check_public_url(url)
}

fn default_language(code: &str) -> Result<Language, String> {
    code.parse()
        .map_err(|()| format!("{code:?} is not a language of the kiosk: use en or ar"))
}
