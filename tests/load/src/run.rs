//! One load run: prepare accounts, start (or find) the process under load, connect every
//! client, open the measurement window, play, close it, and report.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use protocol::Framing;
use rand::SeedableRng;
use rand::rngs::SmallRng;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;
use xo_client::Client;

use crate::forward;
use crate::game::{self, Games, Player, Slot};
use crate::process::{self, Sample, Spawned};
use crate::stats::{Percentiles, Stats};

/// The password of every load account.
pub(crate) const PASSWORD: &str = "xo-load-password";
/// Registrations in flight at once (the server hashes two passwords at a time).
const REGISTER_AT_ONCE: usize = 4;
/// Connections being opened at once.
const CONNECT_AT_ONCE: usize = 32;
/// The accounts file kept in an accounts directory.
const ACCOUNTS_FILE: &str = "xo-load-accounts.json";

/// What is under load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Server,
    Forwarder,
}

/// Where the process under load comes from.
#[derive(Debug, Clone)]
pub enum Under {
    /// xo-load starts this binary (firmware-host or xo-forwarder) on 127.0.0.1 port 0,
    /// pinned with `taskset -c CPU` when `cpu` is given, and stops it afterwards.
    /// `args` are passed on to it before xo-load's own.
    Spawn {
        bin: PathBuf,
        cpu: Option<String>,
        args: Vec<String>,
    },
    /// Already running at `url`; `/proc` figures only when its pid is known.
    Running { url: String, pid: Option<u32> },
}

/// Everything a run needs.
#[derive(Debug, Clone)]
pub struct Options {
    pub target: Target,
    pub under: Under,
    /// Directory holding a prepared server data directory with the load accounts and their
    /// session cookies, reused across runs (spawned server only). `None`: a fresh temporary one.
    pub accounts: Option<PathBuf>,
    pub concurrent: usize,
    /// Games to complete at most (server target).
    pub games: u64,
    pub seconds: f64,
    pub spectators_per_game: usize,
    pub idle_spectators: usize,
    /// Guests that each open a bot room before the window and keep it open (a lobby of many
    /// rooms).
    pub open_rooms: usize,
    /// Guests that watch the lobby during the window.
    pub lobby_watchers: usize,
    pub which: Games,
    pub framing: Framing,
    /// Messages per second per connection; `None`: the server's own limit from its hello
    /// (20 for the forwarder, which has none).
    pub rate: Option<u32>,
    pub seed: u64,
    /// Count the process's `fsync`/`fdatasync` calls during the window (strace attached).
    pub count_syncs: bool,
    /// The players play the bot (unrated games) instead of each other.
    pub bot: bool,
    /// The forwarder answers each frame to its sender too (`xo-forwarder --answer`).
    pub forwarder_answers: bool,
}

/// The figures of a run.
#[derive(Debug, Clone)]
pub struct Report {
    pub options: Options,
    pub command: Option<String>,
    pub connections: usize,
    pub rate: u32,
    pub setup_s: f64,
    pub window_s: f64,
    pub moves: u64,
    pub games: u64,
    pub spectator_messages: u64,
    pub rtt: Percentiles,
    pub ending_rtt: Percentiles,
    /// Moves that did not end their game.
    pub ordinary_rtt: Percentiles,
    pub to_opponent: Percentiles,
    pub errors: std::collections::BTreeMap<String, u64>,
    pub setup_errors: std::collections::BTreeMap<String, u64>,
    pub server: Option<ServerFigures>,
    pub client_peak_rss_kb: u64,
    pub client_cpu_s: f64,
    pub client_cpu_wait_s: f64,
    pub load_start: Option<f64>,
    pub load_end: Option<f64>,
    /// The last lines of the spawned server's log when something went wrong.
    pub log_tail: Option<String>,
}

/// The process under load, from `/proc`.
#[derive(Debug, Clone, Copy)]
pub struct ServerFigures {
    pub pid: u32,
    /// At the start of the window (all clients connected).
    pub rss_start_kb: u64,
    /// The largest `VmRSS` sampled every 100 ms during the window.
    pub peak_rss_kb: u64,
    /// `VmHWM` at the end of the window: the peak over the process's whole life.
    pub hwm_kb: u64,
    /// CPU seconds (user + system) used during the window.
    pub cpu_s: f64,
    /// Seconds its threads were runnable but waited for a CPU during the window (other work
    /// on the same cores), summed over threads.
    pub cpu_wait_s: f64,
    /// Bytes it caused to be written to storage during the window (`/proc/<pid>/io`).
    pub written_bytes: u64,
    /// Bytes it caused to be written from the start of the window to its exit, its shutdown
    /// included (0 when it was not started by xo-load or did not stop cleanly): a store that
    /// holds writes in memory pays for them there.
    pub written_to_exit_bytes: u64,
    /// Its `fsync` and `fdatasync` calls during the window (`--count-syncs`).
    pub syncs: Option<u64>,
}

impl Report {
    pub fn error_count(&self) -> u64 {
        self.errors.values().sum()
    }

    pub fn moves_per_s(&self) -> f64 {
        if self.window_s > 0.0 {
            // Move counts stay far below 2^52.
            #[allow(clippy::cast_precision_loss)]
            let moves = self.moves as f64;
            moves / self.window_s
        } else {
            0.0
        }
    }

    /// CPU time per completed game, µs (0 without one).
    fn cpu_us_per_game(&self, cpu_s: f64) -> f64 {
        if self.games == 0 {
            return 0.0;
        }
        // Game counts stay far below 2^52.
        #[allow(clippy::cast_precision_loss)]
        let games = self.games as f64;
        cpu_s * 1e6 / games
    }

    /// CPU time per completed move, µs.
    fn cpu_us_per_move(&self, cpu_s: f64) -> f64 {
        // Move counts stay far below 2^52.
        #[allow(clippy::cast_precision_loss)]
        let moves = self.moves.max(1) as f64;
        cpu_s * 1e6 / moves
    }

    pub fn json(&self) -> serde_json::Value {
        let o = &self.options;
        serde_json::json!({
            "target": match o.target { Target::Server => "server", Target::Forwarder => "forwarder" },
            "command": self.command,
            "framing": match o.framing { Framing::Text => "json", Framing::Binary => "postcard" },
            "concurrent_games": o.concurrent,
            "spectators_per_game": o.spectators_per_game,
            "idle_spectators": o.idle_spectators,
            "open_rooms": o.open_rooms,
            "lobby_watchers": o.lobby_watchers,
            "connections": self.connections,
            "rate_per_connection": self.rate,
            "setup_s": round3(self.setup_s),
            "window_s": round3(self.window_s),
            "moves": self.moves,
            "moves_per_s": round3(self.moves_per_s()),
            "games_completed": self.games,
            "spectator_messages": self.spectator_messages,
            "rtt": self.rtt.json(),
            "ending_rtt": self.ending_rtt.json(),
            "ordinary_rtt": self.ordinary_rtt.json(),
            "to_opponent": self.to_opponent.json(),
            "errors": { "total": self.error_count(), "by_category": self.errors },
            "setup_errors": self.setup_errors,
            "server": self.server.map(|s| serde_json::json!({
                "pid": s.pid,
                "rss_start_kb": s.rss_start_kb,
                "peak_rss_kb": s.peak_rss_kb,
                "vm_hwm_kb": s.hwm_kb,
                "cpu_s": round3(s.cpu_s),
                "cpu_us_per_move": round3(self.cpu_us_per_move(s.cpu_s)),
                "cpu_us_per_game": round3(self.cpu_us_per_game(s.cpu_s)),
                "cpu_wait_s": round3(s.cpu_wait_s),
                "written_bytes": s.written_bytes,
                "written_to_exit_bytes": s.written_to_exit_bytes,
                "syncs": s.syncs,
            })),
            "client": {
                "peak_rss_kb": self.client_peak_rss_kb,
                "cpu_s": round3(self.client_cpu_s),
                "cpu_wait_s": round3(self.client_cpu_wait_s),
            },
            "load_average": { "start": self.load_start, "end": self.load_end },
        })
    }

    pub fn human(&self) -> String {
        let o = &self.options;
        let target = match o.target {
            Target::Server => "server",
            Target::Forwarder => "forwarder",
        };
        let framing = match o.framing {
            Framing::Text => "JSON",
            Framing::Binary => "postcard",
        };
        let mut line = format!(
            "{target}: {} games ({} connections: +{} spectators/game, +{} idle), {framing}, {:.1} s: \
             {:.0} moves/s ({} moves, {} games completed); move rtt {}{}; to opponent {}; errors {}",
            o.concurrent,
            self.connections,
            o.spectators_per_game,
            o.idle_spectators,
            self.window_s,
            self.moves_per_s(),
            self.moves,
            self.games,
            if self.rtt.count > 0 {
                self.rtt.human()
            } else {
                "n/a".into()
            },
            if self.ending_rtt.count > 0 {
                format!(
                    " (ordinary moves {}; game-ending moves {})",
                    self.ordinary_rtt.human(),
                    self.ending_rtt.human()
                )
            } else {
                String::new()
            },
            self.to_opponent.human(),
            self.error_count(),
        );
        if !self.errors.is_empty() {
            line.push_str(&format!(" {:?}", self.errors));
        }
        if !self.setup_errors.is_empty() {
            line.push_str(&format!("; set-up errors {:?}", self.setup_errors));
        }
        if let Some(s) = self.server {
            line.push_str(&format!(
                "; {target} RSS {} kB at start, peak {} kB (VmHWM {} kB), CPU {:.2} s ({:.0} % of one core, {:.0} µs per move, {:.0} µs per game; waited {:.2} s for a CPU); wrote {} B",
                s.rss_start_kb,
                s.peak_rss_kb,
                s.hwm_kb,
                s.cpu_s,
                100.0 * s.cpu_s / self.window_s.max(1e-9),
                self.cpu_us_per_move(s.cpu_s),
                self.cpu_us_per_game(s.cpu_s),
                s.cpu_wait_s,
                s.written_bytes,
            ));
            if let Some(syncs) = s.syncs {
                line.push_str(&format!(", {syncs} syncs"));
            }
        }
        line.push_str(&format!(
            "; xo-load peak RSS {} kB, CPU {:.2} s, waited {:.2} s for a CPU; load average {} -> {}",
            self.client_peak_rss_kb,
            self.client_cpu_s,
            self.client_cpu_wait_s,
            self.load_start.map_or("?".into(), |l| format!("{l:.2}")),
            self.load_end.map_or("?".into(), |l| format!("{l:.2}")),
        ));
        line
    }
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// Runs the load described by `options`.
pub async fn run(mut options: Options) -> Result<Report, String> {
    if options.target == Target::Forwarder {
        // The forwarder has nothing to watch.
        options.spectators_per_game = 0;
        options.idle_spectators = 0;
        options.open_rooms = 0;
        options.lobby_watchers = 0;
    }
    let work = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
    let stats = Arc::new(Stats::default());
    let setup_started = Instant::now();
    // The process under load, and for the server the session cookies of the players.
    let mut cookies = Vec::new();
    let (spawned, url, pid) = match (&options.under, options.target) {
        (Under::Spawn { bin, cpu, args }, Target::Server) => {
            let accounts = match &options.accounts {
                Some(dir) => dir.clone(),
                None => work.path().join("accounts"),
            };
            cookies = prepare_accounts(bin, &accounts, options.concurrent * 2, &stats).await?;
            // The measured server runs on a copy, so it never hashed a password (hashing takes
            // 19 MiB per hash) and runs do not pile up games in the prepared directory.
            let data = work.path().join("data");
            copy_dir(&accounts.join("data"), &data)?;
            let mut args = args.clone();
            args.extend(server_args(&data));
            let server = Spawned::start(bin, &args, cpu.as_deref(), work.path(), "server")?;
            let (url, pid) = (server.url.clone(), server.pid);
            (Some(server), url, Some(pid))
        }
        (Under::Spawn { bin, cpu, args }, Target::Forwarder) => {
            let mut args = args.clone();
            if options.forwarder_answers {
                args.push("--answer".into());
            }
            let server = Spawned::start(bin, &args, cpu.as_deref(), work.path(), "forwarder")?;
            let (url, pid) = (server.url.clone(), server.pid);
            (Some(server), url, Some(pid))
        }
        (Under::Running { url, pid }, target) => {
            if target == Target::Server {
                cookies = register_fresh(url, options.concurrent * 2, &stats).await?;
            }
            (None, url.clone(), *pid)
        }
    };
    let command = spawned.as_ref().map(|s| s.command.clone());

    // Connect everyone before the window opens.
    // Every task waits for the window to open before it sends anything.
    let (go, _) = watch::channel(false);
    let mut window_tasks = JoinSet::new();
    let mut game_tasks = JoinSet::new();
    let budget = Arc::new(AtomicU64::new(options.games));
    let connections;
    let mut rate = options.rate.unwrap_or(20);
    match options.target {
        Target::Server => {
            let players = connect_all(
                &url,
                cookies.iter().map(|c| Some(c.clone())).collect(),
                options.framing,
                &stats,
            )
            .await;
            let guests = players
                .iter()
                .flatten()
                .filter(|c| c.user.is_none())
                .count();
            if guests > 0 {
                return Err(format!(
                    "{guests} of the {} players are not signed in: their sessions are unknown to \
                     this server (a different or reset data directory?); delete the --accounts \
                     directory to register them again",
                    players.len()
                ));
            }
            if let Some(Some(first)) = players.first() {
                rate = options.rate.unwrap_or(first.max_messages_per_s);
            }
            let guests = options.concurrent * options.spectators_per_game
                + options.idle_spectators
                + options.open_rooms
                + options.lobby_watchers;
            let spectators = connect_all(&url, vec![None; guests], options.framing, &stats).await;
            connections = players
                .iter()
                .chain(&spectators)
                .filter(|c| c.is_some())
                .count();
            let mut spectators = spectators.into_iter().flatten();
            let mut players = players.into_iter();
            let mut receivers = Vec::new();
            for index in 0..options.concurrent {
                let (room, rooms) = watch::channel(None);
                receivers.push(rooms.clone());
                for _ in 0..options.spectators_per_game {
                    if let Some(client) = spectators.next() {
                        window_tasks.spawn(gated(
                            go.subscribe(),
                            game::follow(client, rate, rooms.clone(), stats.clone()),
                        ));
                    }
                }
                let (Some(Some(host)), Some(Some(guest))) = (players.next(), players.next()) else {
                    continue;
                };
                let slot = Slot {
                    index,
                    players: [Player::new(host, rate), Player::new(guest, rate)],
                    room,
                };
                let rng = SmallRng::seed_from_u64(options.seed.wrapping_add(index as u64));
                let delay = stagger(index, options.concurrent, rate);
                let play = game::run_slot(
                    slot,
                    options.which,
                    options.bot,
                    stats.clone(),
                    budget.clone(),
                    rng,
                );
                game_tasks.spawn(gated(go.subscribe(), async move {
                    tokio::time::sleep(delay).await;
                    play.await
                }));
            }
            for (i, client) in spectators
                .by_ref()
                .enumerate()
                .take(options.idle_spectators)
            {
                if let Some(rooms) = receivers.get(i % receivers.len().max(1)) {
                    window_tasks.spawn(gated(
                        go.subscribe(),
                        game::idle(client, rooms.clone(), stats.clone()),
                    ));
                }
            }
            // The open rooms exist before the window opens.
            let mut opening = JoinSet::new();
            for client in spectators.by_ref().take(options.open_rooms) {
                opening.spawn(game::open_bot_room(client));
            }
            while let Some(opened) = opening.join_next().await {
                match opened {
                    Ok(Ok(client)) => {
                        window_tasks.spawn(gated(
                            go.subscribe(),
                            game::read_only(client, stats.clone()),
                        ));
                    }
                    Ok(Err(e)) => stats.setup_error(format!("open_room:{e}")),
                    Err(_) => stats.setup_error("panic"),
                }
            }
            for client in spectators.take(options.lobby_watchers) {
                window_tasks.spawn(gated(
                    go.subscribe(),
                    game::watch_lobby(client, stats.clone()),
                ));
            }
        }
        Target::Forwarder => {
            let gate = Arc::new(Semaphore::new(CONNECT_AT_ONCE / 2));
            let mut connecting = JoinSet::new();
            for index in 0..options.concurrent {
                let (url, gate) = (url.clone(), gate.clone());
                connecting.spawn(async move {
                    let _permit = gate.acquire_owned().await;
                    forward::connect_pair(&url, index)
                        .await
                        .map(|pair| (index, pair))
                });
            }
            let mut pairs = Vec::new();
            while let Some(joined) = connecting.join_next().await {
                match joined {
                    Ok(Ok(pair)) => pairs.push(pair),
                    Ok(Err(_)) => stats.setup_error("connect"),
                    Err(_) => stats.setup_error("panic"),
                }
            }
            connections = pairs.len() * 2;
            // Start the window only once every pair is connected; the tasks hold until then.
            for (index, pair) in pairs {
                let rng = SmallRng::seed_from_u64(options.seed.wrapping_add(index as u64));
                let delay = stagger(index, options.concurrent, rate);
                let play = forward::run_pair(
                    pair,
                    index,
                    options.which,
                    options.framing,
                    rate,
                    options.forwarder_answers,
                    stats.clone(),
                    budget.clone(),
                    rng,
                );
                game_tasks.spawn(gated(go.subscribe(), async move {
                    tokio::time::sleep(delay).await;
                    play.await
                }));
            }
        }
    }

    // The window. Tasks were spawned just above and start now.
    let setup_s = setup_started.elapsed().as_secs_f64();
    let syncs = match pid {
        Some(pid) if options.count_syncs => Some(process::Syncs::start(pid, work.path())?),
        _ => None,
    };
    let pid_text = pid.map(|p| p.to_string());
    let before = pid_text.as_deref().and_then(process::sample);
    let client_before = process::sample("self");
    let load_start = process::load_average();
    stats.open_window();
    go.send_replace(true);
    let started = Instant::now();
    let deadline = started + Duration::from_secs_f64(options.seconds);
    let peak = Arc::new(AtomicU64::new(before.map_or(0, |s| s.rss_kb)));
    let client_peak = Arc::new(AtomicU64::new(client_before.map_or(0, |s| s.rss_kb)));
    let sampler = {
        let (peak, client_peak, pid_text) = (peak.clone(), client_peak.clone(), pid_text.clone());
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(100));
            for _ in 0..u64::MAX {
                tick.tick().await;
                if let Some(s) = pid_text.as_deref().and_then(process::sample) {
                    peak.fetch_max(s.rss_kb, Ordering::Relaxed);
                }
                if let Some(s) = process::sample("self") {
                    client_peak.fetch_max(s.rss_kb, Ordering::Relaxed);
                }
            }
        })
    };
    // Until the deadline, or until every game task is done (the games budget is used up).
    let mut panics = 0;
    while let Ok(Some(joined)) = tokio::time::timeout_at(deadline, game_tasks.join_next()).await {
        if joined.is_err() {
            panics += 1;
        }
    }
    stats.close_window();
    let window_s = started.elapsed().as_secs_f64();
    let after = pid_text.as_deref().and_then(process::sample);
    let syncs = match syncs {
        Some(counting) => Some(counting.stop()?),
        None => None,
    };
    let client_after = process::sample("self");
    let load_end = process::load_average();
    sampler.abort();
    game_tasks.shutdown().await;
    window_tasks.shutdown().await;
    if panics > 0 {
        stats.setup_error(format!("panicked tasks: {panics}"));
    }

    let ticks = process::clock_ticks_per_s();
    let cpu = |a: Option<Sample>, b: Option<Sample>| match (a, b) {
        // Tick counts stay far below 2^52.
        #[allow(clippy::cast_precision_loss)]
        (Some(a), Some(b)) => b.cpu_ticks.saturating_sub(a.cpu_ticks) as f64 / ticks as f64,
        _ => 0.0,
    };
    let server = match (pid, before, after) {
        (Some(pid), Some(b), Some(a)) => Some(ServerFigures {
            pid,
            rss_start_kb: b.rss_kb,
            peak_rss_kb: peak.load(Ordering::Relaxed).max(a.rss_kb),
            hwm_kb: a.hwm_kb,
            cpu_s: cpu(before, after),
            // Nanosecond counts stay far below 2^52.
            #[allow(clippy::cast_precision_loss)]
            cpu_wait_s: a.run_delay_ns.saturating_sub(b.run_delay_ns) as f64 / 1e9,
            written_bytes: a.write_bytes.saturating_sub(b.write_bytes),
            written_to_exit_bytes: 0,
            syncs,
        }),
        _ => None,
    };
    let errors = stats.errors();
    let setup_errors = stats.setup_errors();
    let log_tail = spawned
        .as_ref()
        .filter(|_| !errors.is_empty() || !setup_errors.is_empty())
        .map(|s| s.log_tail(20));
    let mut server = server;
    if let Some(spawned) = spawned {
        match spawned.stop() {
            Ok(at_exit) => {
                if let (Some(s), Some(b)) = (server.as_mut(), before) {
                    s.written_to_exit_bytes = at_exit.saturating_sub(b.write_bytes);
                }
            }
            Err(e) => eprintln!("xo-load: stopping the process under load: {e}"),
        }
    }
    Ok(Report {
        command,
        connections,
        rate,
        setup_s,
        window_s,
        moves: stats.moves.load(Ordering::Relaxed),
        games: stats.games.load(Ordering::Relaxed),
        spectator_messages: stats.spectator_messages.load(Ordering::Relaxed),
        rtt: stats.rtt(),
        ending_rtt: stats.ending_rtt(),
        ordinary_rtt: stats.ordinary_rtt(),
        to_opponent: stats.to_opponent(),
        errors,
        setup_errors,
        server,
        client_peak_rss_kb: client_peak
            .load(Ordering::Relaxed)
            .max(client_after.map_or(0, |s| s.rss_kb)),
        client_cpu_s: cpu(client_before, client_after),
        // Nanosecond counts stay far below 2^52.
        #[allow(clippy::cast_precision_loss)]
        client_cpu_wait_s: match (client_before, client_after) {
            (Some(b), Some(a)) => a.run_delay_ns.saturating_sub(b.run_delay_ns) as f64 / 1e9,
            _ => 0.0,
        },
        load_start,
        load_end,
        log_tail,
        options,
    })
}

/// When paced game `index` of `concurrent` starts after the window opens: spread evenly over
/// one pacing interval. Released together, paced games stay in step (each sends its next move
/// one interval after the last), so the server would see one burst of `concurrent` moves per
/// interval, and the latency measured would be that burst's queue, not the rate offered.
/// Unpaced games (`rate` 0) start together: they measure capacity.
fn stagger(index: usize, concurrent: usize, rate: u32) -> Duration {
    if rate == 0 {
        return Duration::ZERO;
    }
    Duration::from_secs_f64(index as f64 / concurrent.max(1) as f64 / f64::from(rate))
}

/// `task` once `go` turns true (or its sender is gone).
async fn gated<F: std::future::Future>(mut go: watch::Receiver<bool>, task: F) -> F::Output {
    let _ = go.wait_for(|open| *open).await;
    task.await
}

/// The flags of a server under load: its data, warnings only, and no cap on connections,
/// WebSockets or registrations per address (every client comes from 127.0.0.1). Nothing else
/// is relaxed.
pub(crate) fn server_args(data: &Path) -> Vec<String> {
    vec![
        "--data-dir".into(),
        data.display().to_string(),
        "--log".into(),
        "warn".into(),
        "--max-ws-per-address".into(),
        "0".into(),
        "--max-connections-per-address".into(),
        "0".into(),
        "--max-registrations-per-address".into(),
        "0".into(),
        // Thousands of rated games a minute from one machine, far past the per-address budget.
        "--max-rated-games-per-address".into(),
        "0".into(),
    ]
}

/// The session cookies of `n` load accounts (`load0`, `load1`, …) kept in `dir`: those not yet
/// in `dir/xo-load-accounts.json` are registered on a server started on `dir/data` for the
/// purpose and stopped afterwards. Sessions last 30 days.
pub(crate) async fn prepare_accounts(
    bin: &Path,
    dir: &Path,
    n: usize,
    stats: &Stats,
) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let file = dir.join(ACCOUNTS_FILE);
    let mut cookies: Vec<String> = std::fs::read_to_string(&file)
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    if cookies.len() >= n {
        cookies.truncate(n);
        return Ok(cookies);
    }
    let server = Spawned::start(bin, &server_args(&dir.join("data")), None, dir, "register")?;
    let names: Vec<String> = (cookies.len()..n).map(|i| format!("load{i}")).collect();
    let fresh = register_all(&server.url, names, stats).await;
    let stopped = server.stop();
    let fresh = fresh?;
    stopped.map_err(|e| format!("stopping the registration server: {e}"))?;
    cookies.extend(fresh);
    let text = serde_json::to_string(&cookies).map_err(|e| e.to_string())?;
    std::fs::write(&file, text).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(cookies)
}

/// Registers `n` new accounts on a running server, with a prefix unique to this run.
async fn register_fresh(url: &str, n: usize, stats: &Stats) -> Result<Vec<String>, String> {
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() % 1_000_000);
    let names = (0..n).map(|i| format!("ld{stamp}x{i}")).collect();
    register_all(url, names, stats).await
}

/// Registers each name (a few at a time); any failure fails the preparation, as a run with
/// missing players would measure something else. Registration refusals (e.g. the server's
/// throttle of failed attempts per address) are reported as they are.
async fn register_all(url: &str, names: Vec<String>, stats: &Stats) -> Result<Vec<String>, String> {
    let gate = Arc::new(Semaphore::new(REGISTER_AT_ONCE));
    let mut tasks = JoinSet::new();
    for (i, name) in names.into_iter().enumerate() {
        let (url, gate) = (url.to_owned(), gate.clone());
        tasks.spawn(async move {
            let _permit = gate.acquire_owned().await;
            (i, xo_client::register(&url, &name, PASSWORD).await)
        });
    }
    let mut cookies = Vec::new();
    let mut failure = None;
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok((i, Ok(cookie))) => cookies.push((i, cookie)),
            Ok((_, Err(e))) => {
                stats.setup_error(format!("register:{}", game::category(&e)));
                failure.get_or_insert(e.to_string());
            }
            Err(e) => {
                failure.get_or_insert(e.to_string());
            }
        }
    }
    if let Some(e) = failure {
        return Err(format!("registering the load accounts: {e}"));
    }
    cookies.sort_unstable();
    Ok(cookies.into_iter().map(|(_, c)| c).collect())
}

/// Connects one client per entry (a cookie, or `None` for a guest), a few at a time; failures
/// are set-up errors and leave `None` in their place.
pub(crate) async fn connect_all(
    url: &str,
    who: Vec<Option<String>>,
    framing: Framing,
    stats: &Stats,
) -> Vec<Option<Client>> {
    let gate = Arc::new(Semaphore::new(CONNECT_AT_ONCE));
    let mut tasks = JoinSet::new();
    for (i, cookie) in who.into_iter().enumerate() {
        let (url, gate) = (url.to_owned(), gate.clone());
        tasks.spawn(async move {
            let _permit = gate.acquire_owned().await;
            (i, Client::connect(&url, cookie.as_deref(), framing).await)
        });
    }
    let mut clients: Vec<Option<Client>> = Vec::new();
    let mut found = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        match joined {
            Ok((i, Ok(client))) => found.push((i, client)),
            Ok((_, Err(e))) => stats.setup_error(format!("connect:{}", game::category(&e))),
            Err(_) => stats.setup_error("panic"),
        }
    }
    let n = found.iter().map(|(i, _)| i + 1).max().unwrap_or(0);
    clients.resize_with(n, || None);
    for (i, client) in found {
        clients[i] = Some(client);
    }
    clients
}

/// Copies the files of `from` into `to` (created).
pub(crate) fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let entries = std::fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| e.to_string())?;
        if entry.file_type().map_err(|e| e.to_string())?.is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name()))
                .map_err(|e| format!("{}: {e}", entry.path().display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paced_games_start_spread_over_one_interval_and_unpaced_ones_together() {
        let starts: Vec<Duration> = (0..4).map(|i| stagger(i, 4, 2)).collect();
        assert_eq!(
            starts,
            [0, 125, 250, 375].map(Duration::from_millis).to_vec(),
            "4 games at 2 messages/s: one every eighth of a second within the first half second"
        );
        assert!((0..500).all(|i| stagger(i, 500, 2) < Duration::from_millis(500)));
        assert!((0..500).all(|i| stagger(i, 500, 0) == Duration::ZERO));
    }
}
