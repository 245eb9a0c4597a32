//! `xo-load --event`: one arena event (EV2–EV5) with many players on a freshly started
//! server: every player joins, plays each game it is paired into (a random empty cell at its
//! turn, after `think_ms`), and waits to be paired again. It reports the pairing delay (from
//! a player being free — joined, or told its last game's result — to its `paired`), games
//! completed, the server's CPU time per game and its memory.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use engine::Game;
use protocol::event::EventId;
use protocol::{ClientMsg, Framing, ServerMsg};
use rand::SeedableRng;
use rand::rngs::SmallRng;
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio::time::Instant;
use xo_client::{Client, random_empty_cell};

use crate::process::{self, Spawned};
use crate::run::{connect_all, copy_dir, prepare_accounts, server_args};
use crate::stats::{Percentiles, Stats};

/// What an event run needs.
#[derive(Debug, Clone)]
pub struct EventOptions {
    pub bin: PathBuf,
    pub cpu: Option<String>,
    pub args: Vec<String>,
    pub accounts: Option<PathBuf>,
    pub players: usize,
    /// The measurement window; the event lasts the whole minutes that cover it.
    pub seconds: f64,
    pub game: Game,
    /// How long a player waits before each move, as a person would.
    pub think_ms: u64,
    pub framing: Framing,
    pub seed: u64,
}

/// What an event run measured.
#[derive(Debug, Clone)]
pub struct EventReport {
    pub options: EventOptions,
    pub command: String,
    pub joined: u64,
    pub setup_s: f64,
    pub window_s: f64,
    pub games: u64,
    pub moves: u64,
    pub pairing_delay: Percentiles,
    pub errors: std::collections::BTreeMap<String, u64>,
    pub rss_start_kb: u64,
    pub peak_rss_kb: u64,
    pub hwm_kb: u64,
    pub cpu_s: f64,
    pub load_start: Option<f64>,
    pub load_end: Option<f64>,
}

impl EventReport {
    pub fn cpu_ms_per_game(&self) -> f64 {
        // Game counts stay far below 2^52.
        #[allow(clippy::cast_precision_loss)]
        let games = self.games.max(1) as f64;
        self.cpu_s * 1e3 / games
    }

    pub fn json(&self) -> serde_json::Value {
        let o = &self.options;
        serde_json::json!({
            "mode": "event",
            "command": self.command,
            "players": o.players,
            "joined": self.joined,
            "game": o.game.to_string(),
            "think_ms": o.think_ms,
            "setup_s": self.setup_s,
            "window_s": self.window_s,
            "games_completed": self.games,
            "moves": self.moves,
            "pairing_delay": self.pairing_delay.json(),
            "errors": self.errors,
            "server": {
                "rss_start_kb": self.rss_start_kb,
                "peak_rss_kb": self.peak_rss_kb,
                "vm_hwm_kb": self.hwm_kb,
                "cpu_s": self.cpu_s,
                "cpu_ms_per_game": self.cpu_ms_per_game(),
            },
            "load_average": { "start": self.load_start, "end": self.load_end },
        })
    }

    pub fn human(&self) -> String {
        format!(
            "event: {} players ({} joined), {} at {} ms a move, {:.1} s: {} games completed, \
             {} moves; pairing delay {} ({} players paired); errors {} {:?}; server RSS {} kB at \
             start, peak {} kB (VmHWM {} kB), CPU {:.2} s ({:.0} % of one core, {:.2} ms per \
             game); load average {} -> {}",
            self.options.players,
            self.joined,
            self.options.game,
            self.options.think_ms,
            self.window_s,
            self.games,
            self.moves,
            self.pairing_delay.human(),
            self.pairing_delay.count,
            self.errors.values().sum::<u64>(),
            self.errors,
            self.rss_start_kb,
            self.peak_rss_kb,
            self.hwm_kb,
            self.cpu_s,
            100.0 * self.cpu_s / self.window_s.max(1e-9),
            self.cpu_ms_per_game(),
            self.load_start.map_or("?".into(), |l| format!("{l:.2}")),
            self.load_end.map_or("?".into(), |l| format!("{l:.2}")),
        )
    }
}

/// Counts shared by the players.
#[derive(Default)]
struct Counts {
    joined: AtomicU64,
    games: AtomicU64,
    moves: AtomicU64,
    delays_us: std::sync::Mutex<Vec<u32>>,
}

/// Runs one event under load.
pub async fn run(options: EventOptions) -> Result<EventReport, String> {
    let work = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
    let stats = Arc::new(Stats::default());
    let setup_started = Instant::now();
    let accounts = options
        .accounts
        .clone()
        .unwrap_or_else(|| work.path().join("accounts"));
    // The players, and one more account for the owner who announces the event.
    let mut cookies =
        prepare_accounts(&options.bin, &accounts, options.players + 1, &stats).await?;
    let owner = cookies.pop().ok_or("no owner account")?;
    let data = work.path().join("data");
    copy_dir(&accounts.join("data"), &data)?;
    let mut args = options.args.clone();
    args.extend(server_args(&data));
    args.extend(["--event-min-minutes".into(), "1".into()]);
    let server = Spawned::start(
        &options.bin,
        &args,
        options.cpu.as_deref(),
        work.path(),
        "server",
    )?;
    let url = server.url.clone();
    let event = announce(&url, &owner, &options).await?;

    let clients = connect_all(
        &url,
        cookies.into_iter().map(Some).collect(),
        options.framing,
        &stats,
    )
    .await;
    let counts = Arc::new(Counts::default());
    let (stop, stopped) = watch::channel(false);
    let mut tasks = JoinSet::new();
    let before = process::sample(&server.pid.to_string());
    let load_start = process::load_average();
    let setup_s = setup_started.elapsed().as_secs_f64();
    let started = Instant::now();
    for (i, client) in clients.into_iter().enumerate() {
        let Some(client) = client else { continue };
        let rng = SmallRng::seed_from_u64(options.seed.wrapping_add(i as u64));
        tasks.spawn(play(
            client,
            event.clone(),
            options.think_ms,
            rng,
            counts.clone(),
            stats.clone(),
            stopped.clone(),
        ));
    }
    stats.open_window();
    let deadline = started + Duration::from_secs_f64(options.seconds);
    let pid = server.pid.to_string();
    let mut peak = before.map_or(0, |s| s.rss_kb);
    while Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if let Some(s) = process::sample(&pid) {
            peak = peak.max(s.rss_kb);
        }
    }
    stats.close_window();
    let window_s = started.elapsed().as_secs_f64();
    let after = process::sample(&pid);
    let load_end = process::load_average();
    stop.send_replace(true);
    while tasks.join_next().await.is_some() {}
    let ticks = process::clock_ticks_per_s();
    let (before, after) = (before.unwrap_or_default(), after.unwrap_or_default());
    // Tick counts stay far below 2^52.
    #[allow(clippy::cast_precision_loss)]
    let cpu_s = after.cpu_ticks.saturating_sub(before.cpu_ticks) as f64 / ticks as f64;
    let command = server.command.clone();
    if let Err(e) = server.stop() {
        eprintln!("xo-load: stopping the server: {e}");
    }
    let mut errors = stats.errors();
    for (k, v) in stats.setup_errors() {
        *errors.entry(format!("setup:{k}")).or_default() += v;
    }
    let mut delays = std::mem::take(&mut *counts.delays_us.lock().map_err(|e| e.to_string())?);
    Ok(EventReport {
        options,
        command,
        joined: counts.joined.load(Ordering::Relaxed),
        setup_s,
        window_s,
        // Each game's result reaches both its players.
        games: counts.games.load(Ordering::Relaxed) / 2,
        moves: counts.moves.load(Ordering::Relaxed),
        pairing_delay: Percentiles::of(&mut delays),
        errors,
        rss_start_kb: before.rss_kb,
        peak_rss_kb: peak.max(after.rss_kb),
        hwm_kb: after.hwm_kb,
        cpu_s,
        load_start,
        load_end,
    })
}

/// Makes the owner's account an owner (a kiosk code, from this machine) and announces an
/// event starting now that covers the window; its id.
async fn announce(url: &str, owner: &str, options: &EventOptions) -> Result<EventId, String> {
    let code = xo_client::request(url, "POST", "/api/kiosk/owner-code", None, "{}")
        .await
        .map_err(|e| format!("owner code: {e}"))?;
    let code: serde_json::Value = serde_json::from_slice(&code.body).map_err(|e| e.to_string())?;
    let claim = serde_json::json!({ "code": code["code"] }).to_string();
    let claimed = xo_client::request(url, "POST", "/api/owner/claim", Some(owner), &claim)
        .await
        .map_err(|e| format!("claiming owner: {e}"))?;
    if claimed.status != 200 {
        return Err(format!("claiming owner: status {}", claimed.status));
    }
    // The seconds are a few: safe as whole minutes.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let minutes = (options.seconds / 60.0).ceil().max(1.0) as u32 + 1;
    let mut form = serde_json::json!({
        "game": options.game.to_string(),
        "duration_min": minutes,
        "name": "xo-load",
    });
    if options.game == Game::Infinite {
        form["time_per_move_s"] = serde_json::json!(5);
    }
    let created = xo_client::request(
        url,
        "POST",
        "/api/owner/events",
        Some(owner),
        &form.to_string(),
    )
    .await
    .map_err(|e| format!("creating the event: {e}"))?;
    let created: serde_json::Value =
        serde_json::from_slice(&created.body).map_err(|e| e.to_string())?;
    created["id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("creating the event: {created}"))
}

/// One player: joins, then plays every game it is paired into until told to stop.
async fn play(
    mut client: Client,
    event: EventId,
    think_ms: u64,
    mut rng: SmallRng,
    counts: Arc<Counts>,
    stats: Arc<Stats>,
    stopped: watch::Receiver<bool>,
) {
    let join = ClientMsg::JoinEvent {
        id: client.id(),
        event: event.clone(),
    };
    if client.send(join).await.is_err() {
        stats.error("join:closed");
        return;
    }
    let mut free_since: Option<Instant> = None;
    let mut moved_at: Option<(String, usize)> = None;
    while !*stopped.borrow() {
        let msg = match client.recv_within(Duration::from_millis(200)).await {
            Ok(Some(msg)) => msg,
            Ok(None) => continue,
            Err(e) => {
                stats.error(format!("recv:{}", crate::game::category(&e)));
                return;
            }
        };
        match msg {
            ServerMsg::EventSnapshot { id: Some(_), .. } => {
                counts.joined.fetch_add(1, Ordering::Relaxed);
                free_since = Some(Instant::now());
            }
            ServerMsg::Paired(_) => {
                if let Some(since) = free_since.take()
                    && stats.is_measuring()
                {
                    let us = u32::try_from(since.elapsed().as_micros()).unwrap_or(u32::MAX);
                    counts.delays_us.lock().map(|mut d| d.push(us)).ok();
                }
            }
            ServerMsg::Event(protocol::Event::Result { .. }) => {
                if stats.is_measuring() {
                    counts.games.fetch_add(1, Ordering::Relaxed);
                }
                free_since = Some(Instant::now());
            }
            ServerMsg::Room { room, .. } => {
                let plies = room.moves.len();
                if room.phase != protocol::Phase::Playing
                    || !room.you.to_move
                    || moved_at.as_ref() == Some(&(room.id.clone(), plies))
                {
                    continue;
                }
                moved_at = Some((room.id.clone(), plies));
                if think_ms > 0 {
                    tokio::time::sleep(Duration::from_millis(think_ms)).await;
                }
                let cell = random_empty_cell(&room, &mut rng);
                let id = client.id();
                if client.send(ClientMsg::Move { id, cell }).await.is_err() {
                    stats.error("move:closed");
                    return;
                }
                if stats.is_measuring() {
                    counts.moves.fetch_add(1, Ordering::Relaxed);
                }
            }
            ServerMsg::Error { code, .. } => stats.error(format!("refused:{code}")),
            _ => {}
        }
    }
}
