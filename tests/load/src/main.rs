//! `xo-load`: puts a running or freshly started XO Kiosk server (or the `xo-forwarder`
//! baseline) under load and reports moves per second, move latencies, errors, and the
//! process's peak memory and CPU time. See `README.md` in this folder.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use protocol::Framing;
use xo_load::game::Games;
use xo_load::run::{Options, Target, Under};

/// Load generator for the XO Kiosk server: pairs signed-in clients into rated rooms through the
/// real protocol, plays random legal moves as fast as the server answers (within the message
/// rate the server announces), attaches spectators, and reports what it measured.
#[derive(Debug, Parser)]
#[command(name = "xo-load")]
struct Cli {
    /// What to load: the XO Kiosk server, or the plain forwarder it is compared against.
    #[arg(long, value_enum, default_value = "server")]
    target: TargetArg,
    /// Start this binary (firmware-host for `--target server`, xo-forwarder for `--target
    /// forwarder`) on 127.0.0.1 port 0 and stop it afterwards.
    #[arg(long, value_name = "PATH", conflicts_with = "url")]
    spawn_server: Option<PathBuf>,
    /// Pin the started binary to these CPUs (`taskset -c LIST`).
    #[arg(long, value_name = "LIST", requires = "spawn_server")]
    server_cpu: Option<String>,
    /// An extra argument for the started binary (repeat for several), e.g.
    /// `--server-arg=--read-buffer-size=8192` for xo-forwarder.
    #[arg(
        long,
        value_name = "ARG",
        requires = "spawn_server",
        allow_hyphen_values = true
    )]
    server_arg: Vec<String>,
    /// Instead of starting one: the running server's address, e.g. http://127.0.0.1:8080
    /// (it needs --max-ws-per-address 0 or a cap above the connection count).
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// The pid of the server at --url, for its memory and CPU figures.
    #[arg(long, value_name = "PID", requires = "url")]
    server_pid: Option<u32>,
    /// Keep the load accounts (a server data directory and their session cookies) here and
    /// reuse them across runs, so that only the first run pays for registering them.
    #[arg(long, value_name = "DIR", requires = "spawn_server")]
    accounts: Option<PathBuf>,
    /// Games played at once (two player connections each).
    #[arg(long, default_value_t = 10)]
    concurrent: usize,
    /// Stop after this many games are complete (server target).
    #[arg(long, default_value_t = 1_000_000)]
    games: u64,
    /// Length of the measurement window in seconds (the run ends earlier when --games are
    /// complete).
    #[arg(long, default_value_t = 10.0)]
    seconds: f64,
    /// Guest spectators per game; each follows its game from room to room.
    #[arg(long, default_value_t = 1)]
    spectators_per_game: usize,
    /// Extra guest connections that open one game's room once and then only read.
    #[arg(long, default_value_t = 0)]
    idle_spectators: usize,
    /// Extra guests that each open a bot room before the window and keep it open, so that
    /// the lobby holds this many more rooms.
    #[arg(long, default_value_t = 0)]
    open_rooms: usize,
    /// Extra guests that watch the lobby during the window.
    #[arg(long, default_value_t = 0)]
    lobby_watchers: usize,
    /// Which game the rooms play.
    #[arg(long, value_enum, default_value = "both")]
    game: GameArg,
    /// Speak JSON (text frames) instead of postcard (binary frames, the kiosk UI's framing and
    /// the default).
    #[arg(long, conflicts_with = "binary")]
    json: bool,
    /// Speak postcard in binary frames (the default; kept for older commands).
    #[arg(long)]
    binary: bool,
    /// Messages per second per connection (0: unpaced). Default: the limit the server announces
    /// in its hello (20); the forwarder, which announces nothing, gets the same.
    #[arg(long)]
    rate: Option<u32>,
    /// Seed of the random moves (default: from the clock).
    #[arg(long)]
    seed: Option<u64>,
    /// Threads of xo-load's own runtime (default: the CPUs it may run on).
    #[arg(long)]
    client_threads: Option<usize>,
    /// `--target forwarder`: the forwarder also answers each message, with the same frame back
    /// to its sender, as the server answers every request besides telling the partner (the
    /// server's pattern of frames out: two for each frame in). Started with `--answer`.
    #[arg(long)]
    forwarder_answers: bool,
    /// The two players of each game slot play the bot in turn (unrated games, which the server
    /// stores as the signed-in player's history) instead of each other.
    #[arg(long)]
    bot: bool,
    /// Count the process's fsync/fdatasync calls during the window (strace attached: its CPU
    /// figures then include strace's stops).
    #[arg(long)]
    count_syncs: bool,
    /// Print one JSON object instead of the human-readable line.
    #[arg(long)]
    report_json: bool,
    /// Event mode: one arena event of --event-players players on a server xo-load starts
    /// (--spawn-server), for --seconds; reports the pairing delay, games, CPU per game and
    /// memory. --game picks the event's game (xo unless infinite).
    #[arg(long, requires = "spawn_server")]
    event: bool,
    /// Event mode: players in the event.
    #[arg(long, default_value_t = 200)]
    event_players: usize,
    /// Event mode: milliseconds each player waits before each of its moves.
    #[arg(long, default_value_t = 500)]
    think_ms: u64,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum TargetArg {
    Server,
    Forwarder,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum GameArg {
    Infinite,
    Xo,
    Both,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.event {
        return event_mode(&cli);
    }
    let under = match (&cli.spawn_server, &cli.url) {
        (Some(bin), None) => Under::Spawn {
            bin: bin.clone(),
            cpu: cli.server_cpu.clone(),
            args: cli.server_arg.clone(),
        },
        (None, Some(url)) => Under::Running {
            url: url.clone(),
            pid: cli.server_pid,
        },
        _ => {
            eprintln!("xo-load: give either --spawn-server PATH or --url URL");
            return ExitCode::from(2);
        }
    };
    if cli.concurrent == 0 || cli.seconds <= 0.0 || cli.seconds.is_nan() {
        eprintln!("xo-load: --concurrent and --seconds must be positive");
        return ExitCode::from(2);
    }
    let options = Options {
        target: match cli.target {
            TargetArg::Server => Target::Server,
            TargetArg::Forwarder => Target::Forwarder,
        },
        under,
        accounts: cli.accounts.clone(),
        concurrent: cli.concurrent,
        games: cli.games,
        seconds: cli.seconds,
        spectators_per_game: cli.spectators_per_game,
        idle_spectators: cli.idle_spectators,
        open_rooms: cli.open_rooms,
        lobby_watchers: cli.lobby_watchers,
        which: match cli.game {
            GameArg::Infinite => Games::Infinite,
            GameArg::Xo => Games::Xo,
            GameArg::Both => Games::Both,
        },
        framing: framing(&cli),
        rate: cli.rate,
        seed: cli.seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        }),
        count_syncs: cli.count_syncs,
        bot: cli.bot,
        forwarder_answers: cli.forwarder_answers,
    };
    let Some(report) = on_runtime(&cli, xo_load::run::run(options)) else {
        return ExitCode::FAILURE;
    };
    say(&cli, || report.json(), || report.human());
    if let Some(tail) = &report.log_tail {
        eprintln!("xo-load: the last lines of the log of the process under load:\n{tail}");
    }
    ExitCode::SUCCESS
}

/// Runs `work` on xo-load's own runtime (`--client-threads`); `None` when it fails, said on
/// standard error.
fn on_runtime<T, E: std::fmt::Display>(
    cli: &Cli,
    work: impl std::future::Future<Output = Result<T, E>>,
) -> Option<T> {
    let threads = cli.client_threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let done = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads.max(1))
        .enable_all()
        .build()
        .map_err(|e| e.to_string())
        .and_then(|runtime| runtime.block_on(work).map_err(|e| e.to_string()));
    done.map_err(|e| eprintln!("xo-load: {e}")).ok()
}

/// Prints a report: one JSON object with `--report-json`, else the line for people.
fn say(cli: &Cli, json: impl FnOnce() -> serde_json::Value, human: impl FnOnce() -> String) {
    if cli.report_json {
        println!("{}", json());
    } else {
        println!("{}", human());
    }
}

/// The framing the clients speak: the UI's postcard unless `--json`.
fn framing(cli: &Cli) -> Framing {
    if cli.json {
        Framing::Text
    } else {
        Framing::Binary
    }
}

/// `--event`: one arena event under load.
fn event_mode(cli: &Cli) -> ExitCode {
    let (Some(bin), true) = (cli.spawn_server.clone(), cli.event_players >= 2) else {
        eprintln!("xo-load: --event needs --spawn-server PATH and at least 2 --event-players");
        return ExitCode::from(2);
    };
    let options = xo_load::event::EventOptions {
        bin,
        cpu: cli.server_cpu.clone(),
        args: cli.server_arg.clone(),
        accounts: cli.accounts.clone(),
        players: cli.event_players,
        seconds: cli.seconds,
        game: match cli.game {
            GameArg::Infinite => engine::Game::Infinite,
            GameArg::Xo | GameArg::Both => engine::Game::Xo,
        },
        think_ms: cli.think_ms,
        framing: framing(cli),
        seed: cli.seed.unwrap_or(0),
    };
    let Some(report) = on_runtime(cli, xo_load::event::run(options)) else {
        return ExitCode::FAILURE;
    };
    say(cli, || report.json(), || report.human());
    ExitCode::SUCCESS
}
