//! The listener: binds, opens the store, accepts connections and serves them with hyper
//! (HTTP/1.1 and HTTP/2, upgrades allowed), and shuts everything down in order.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinHandle;

use crate::app::{App, Refusals};
use crate::config::Config;
use crate::connections::FD_RESERVE;
use crate::display::DisplayTask;
use crate::http;
use crate::public_url::PublicUrl;
use crate::store::Store;
use crate::throttle::Throttle;
use rooms::{Hub, HubConfig, Persistence};

/// How long shutdown waits for open HTTP requests to finish.
/// The kernel's send buffer of each connection (Linux doubles it for its bookkeeping). Without
/// it loopback and LAN sockets grow to 4 MiB each (`tcp_wmem`), so a client that never reads
/// could make the kernel hold 4 MiB per connection for it before a send blocks and the send
/// timeout ends the connection; with it a Pi's memory bounds a thousand such readers. A
/// snapshot is about 1 KB and a lobby page at most about 20 KB, so play never waits on it.
const SEND_BUFFER_BYTES: usize = 128 * 1024;

const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);

/// Connections from one client address that have not yet sent their first request bytes; a
/// further connection from that address is closed at once (half-open connections cannot
/// exhaust the server's file descriptors).
pub const MAX_PENDING_PER_ADDRESS: usize = 256;

/// Password hashes computed at once (each takes [`crate::accounts::ARGON2_M_KIB`] of memory).
const HASH_PERMITS: usize = 2;

/// A running server.
#[derive(Debug)]
pub struct Server {
    addr: SocketAddr,
    app: Arc<App>,
    stop: watch::Sender<bool>,
    accept_task: JoinHandle<()>,
    display: Option<DisplayTask>,
}

impl Server {
    /// Resolves when an owner asked for a restart (`POST /api/owner/restart`): the caller shuts
    /// the server down and exits, and the service manager (the image's launcher) starts it
    /// again, on the newest good binary.
    pub async fn restart_requested(&self) {
        self.app.restart.notified().await;
    }

    /// Opens the store in `config.data_dir`, binds `config.bind`, logs "listening on
    /// http://ADDR" (and writes the port to `config.port_file` when set), and starts accepting.
    pub async fn start(config: Config) -> anyhow::Result<Server> {
        let data_dir = config.data_dir.clone();
        let (store, saved) = tokio::task::spawn_blocking(move || {
            let store = Store::open_blocking(&data_dir)?;
            let saved = store.settings_blocking()?;
            Ok::<_, rooms::StoreError>((store, saved))
        })
        .await
        .context("store opening task")??;
        let settings = crate::settings::Live::new(&config, saved.as_ref());
        if saved.is_some() {
            tracing::info!("an owner's saved settings are in force over the flags");
        }
        tracing::info!(path = %store.path().display(), "store open");
        // Restores saved rooms: a brief blocking read at start-up, before anything is served.
        let persistence: Arc<dyn Persistence> = Arc::new(store.clone());
        let hub = Hub::start(
            persistence,
            HubConfig {
                hello_timeout: config.handshake_timeout,
                max_messages_per_s: config.max_messages_per_s,
                burst: config.message_burst,
                xo_move_limit: config.xo_move_limit,
                max_rooms: config.max_rooms,
                rated_games_per_address: config.max_rated_games_per_address,
                ..HubConfig::default()
            },
        );

        // Before the server answers: the code is in its file by the time anyone can use it.
        let owner_codes = crate::owner::OwnerCodes::new(&config.data_dir);
        if let Some(path) = &config.owner_code_out {
            let has_owner = !store
                .owners_blocking()
                .context("reading the owners")?
                .is_empty();
            // The boot partition may be read-only or missing: the kiosk starts all the same.
            match crate::owner::publish_boot_code(&owner_codes, path, has_owner) {
                Ok(()) if has_owner => {}
                Ok(()) => {
                    tracing::info!(path = %path.display(), "no owner yet: an owner code is written for whoever holds the card")
                }
                Err(e) => {
                    tracing::error!(error = %e, path = %path.display(), "cannot write the owner code file")
                }
            }
        }
        let listener =
            listen(config.bind).with_context(|| format!("cannot bind {}", config.bind))?;
        let addr = listener.local_addr().context("bound address")?;
        if let Some(port_file) = &config.port_file {
            std::fs::write(port_file, format!("{}\n", addr.port()))
                .with_context(|| format!("cannot write {}", port_file.display()))?;
        }
        let public_url = PublicUrl::new(settings.current().public_url, addr);
        tracing::info!(%addr, public_url = public_url.current().public_url, ui_built = crate::assets::ui_built(), "listening on http://{addr}");

        let throttle = Throttle::new(config.max_registrations_per_address);
        let shed_at = crate::connections::open_files_limit().map(|limit| {
            let baseline = crate::connections::open_files().unwrap_or(0);
            limit.saturating_sub(baseline + FD_RESERVE)
        });
        tracing::info!(?shed_at, "connections shed near the open-files limit");
        let events = Arc::new(crate::event_runner::Events::new(store.clone(), hub.clone()));
        let app = Arc::new(App {
            store,
            config,
            started: Instant::now(),
            throttle,
            hash_permits: Semaphore::new(HASH_PERMITS),
            connections: AtomicUsize::new(0),
            hub,
            ws_per_address: std::sync::Mutex::default(),
            pending_per_address: std::sync::Mutex::default(),
            refusals: Refusals::default(),
            open: Arc::default(),
            shed_at,
            public_url,
            owner_codes,
            settings,
            restart: tokio::sync::Notify::new(),
            events,
            display: crate::app::DisplayState::default(),
            screen: crate::app::ScreenState::default(),
        });
        {
            let book: Arc<dyn rooms::arena_actor::EventBook> = app.events.clone();
            app.hub.set_events(&book);
        }
        {
            let app = Arc::clone(&app);
            let limits = crate::events_api::limits(&app);
            // Blocking reads; the tasks are spawned from the blocking pool, in the runtime.
            tokio::task::spawn_blocking(move || app.events.restore_blocking(limits))
                .await
                .context("event restoring task")?;
        }
        // The display never stops the start: its errors go to the log and the owner's
        // health page, and the thread tries the device again.
        let display = match crate::display::configured(app.config.display.as_deref()) {
            Some(spec) => Some(
                DisplayTask::start(spec, Arc::clone(&app))
                    .context("cannot start the status display thread")?,
            ),
            None => None,
        };
        let (stop, stopped) = watch::channel(false);
        let accept_task = tokio::spawn(accept_loop(listener, Arc::clone(&app), stopped));
        Ok(Server {
            addr,
            app,
            stop,
            accept_task,
            display,
        })
    }

    /// The address actually bound (the real port when started on port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// The shared state, for tools and tests.
    pub fn app(&self) -> &Arc<App> {
        &self.app
    }

    /// Stops in order: 1. stop accepting and let open HTTP requests finish (up to 10 s);
    /// 2. the hub closes every WebSocket and each room saves its state; 3. the status display
    /// stops; 4. every pending store write is committed durably and the store writer stops.
    pub async fn shutdown(self) {
        // Receivers only see the flag; an error means the accept loop is already gone.
        let _ignored = self.stop.send(true);
        if let Err(e) = self.accept_task.await {
            tracing::error!(error = %e, "accept loop ended abnormally");
        }
        self.app.hub.shutdown().await;
        if let Some(display) = self.display
            && let Err(e) = tokio::task::spawn_blocking(move || display.stop()).await
        {
            tracing::error!(error = %e, "stopping the status display failed");
        }
        let store = self.app.store.clone();
        if let Err(e) = tokio::task::spawn_blocking(move || store.shutdown_blocking()).await {
            tracing::error!(error = %e, "store shutdown task failed");
        }
        tracing::info!("server stopped");
    }
}

/// Decrements the connection count when a connection task ends, however it ends.
struct ConnectionGuard(Arc<App>);

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        self.0.connections.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Connections the kernel completes before the server accepts them. A burst of connections
/// (thousands of half-open ones) overflows a short queue, and then every new connection,
/// well-behaved ones included, waits for a SYN retransmission (a second or more). The kernel
/// caps it at `net.core.somaxconn` (4096 on current Linux).
const LISTEN_BACKLOG: u32 = 4096;

fn listen(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    // As std's and tokio's own bind do: a restart may bind while old connections linger.
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// A connection from an address still waiting for its first request bytes, counted until
/// dropped.
struct PendingSlot {
    app: Arc<App>,
    ip: IpAddr,
}

impl PendingSlot {
    fn take(app: &Arc<App>, ip: IpAddr) -> Option<PendingSlot> {
        let mut pending = app
            .pending_per_address
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let count = pending.entry(ip).or_insert(0);
        if *count >= MAX_PENDING_PER_ADDRESS {
            return None;
        }
        *count += 1;
        Some(PendingSlot {
            app: Arc::clone(app),
            ip,
        })
    }
}

impl Drop for PendingSlot {
    fn drop(&mut self) {
        let mut pending = self
            .app
            .pending_per_address
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(count) = pending.get_mut(&self.ip) {
            *count -= 1;
            if *count == 0 {
                pending.remove(&self.ip);
            }
        }
    }
}

/// Waits until the client has sent enough for hyper to tell HTTP/1 from HTTP/2 (hyper-util
/// waits for that without any timeout, and hyper's header timeout starts only afterwards), or
/// closed. `false` when nothing came within `limit`: a half-open or idle connection.
async fn first_bytes(stream: &TcpStream, limit: Duration) -> bool {
    const H2_PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
    let mut buf = [0u8; 24];
    tokio::time::timeout(limit, async {
        loop {
            match stream.peek(&mut buf).await {
                // End of stream or an error: hyper sees it at once.
                Ok(0) | Err(_) => return,
                Ok(n) if n == buf.len() || buf[..n] != H2_PREFACE[..n] => return,
                // Part of an HTTP/2 preface: wait for the rest.
                Ok(_) => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    })
    .await
    .is_ok()
}

/// Accept failures, logged at most once a second with the count of those not logged.
#[derive(Debug, Default)]
struct AcceptErrors {
    last_logged: Option<Instant>,
    unlogged: u64,
}

impl AcceptErrors {
    fn failed(&mut self, e: &std::io::Error) {
        let now = Instant::now();
        if self
            .last_logged
            .is_some_and(|t| now.duration_since(t) < Duration::from_secs(1))
        {
            self.unlogged += 1;
            return;
        }
        tracing::warn!(error = %e, not_logged_since = self.unlogged, "accept failed");
        self.last_logged = Some(now);
        self.unlogged = 0;
    }
}

/// Near the open-files limit: closes the newest connection of the address holding the most.
fn shed(app: &App) {
    if let Some((ip, held)) = app.open.shed_newest_of_busiest()
        && let Some(total) = Refusals::count(&app.refusals.shed)
    {
        tracing::warn!(%ip, held, total, "connection shed: near the open-files limit");
    }
}

async fn accept_loop(listener: TcpListener, app: Arc<App>, mut stopped: watch::Receiver<bool>) {
    let mut builder = auto::Builder::new(TokioExecutor::new());
    builder
        .http1()
        .timer(TokioTimer::new())
        .header_read_timeout(app.config.handshake_timeout)
        .max_buf_size(64 * 1024);
    // HTTP/2 has no header timeout: a peer that stops answering pings is closed instead.
    builder
        .http2()
        .timer(TokioTimer::new())
        .keep_alive_interval(app.config.handshake_timeout)
        .keep_alive_timeout(app.config.handshake_timeout);
    let builder = Arc::new(builder);
    let graceful = GracefulShutdown::new();
    let mut accept_errors = AcceptErrors::default();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, peer) = match accepted {
                    Ok(pair) => pair,
                    Err(e) => {
                        // Typically EMFILE: back off instead of spinning, log at most once a
                        // second (a flood of them must not flood the card), and make room.
                        accept_errors.failed(&e);
                        shed(&app);
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let Some(slot) = app.open.open(peer.ip(), app.config.max_connections_per_address) else {
                    if let Some(total) = Refusals::count(&app.refusals.address_over_limit) {
                        tracing::warn!(%peer, total, limit = app.config.max_connections_per_address, "connection refused: too many open connections from this address");
                    }
                    continue;
                };
                if app.shed_at.is_some_and(|at| app.open.total() > at) {
                    shed(&app);
                }
                let Some(pending) = PendingSlot::take(&app, peer.ip()) else {
                    if let Some(total) = Refusals::count(&app.refusals.pending_over_limit) {
                        tracing::warn!(%peer, total, limit = MAX_PENDING_PER_ADDRESS, "connection refused: too many connections from this address have sent no request yet");
                    }
                    continue;
                };
                if let Err(e) = stream.set_nodelay(true) {
                    tracing::debug!(error = %e, "set_nodelay failed");
                }
                if let Err(e) = rustix::net::sockopt::set_socket_send_buffer_size(&stream, SEND_BUFFER_BYTES) {
                    tracing::debug!(error = %e, "setting the send buffer failed");
                }
                app.connections.fetch_add(1, Ordering::Relaxed);
                let guard = ConnectionGuard(Arc::clone(&app));
                let service_app = Arc::clone(&app);
                let service_slot = Arc::clone(&slot);
                let service = service_fn(move |req| {
                    let app = Arc::clone(&service_app);
                    let slot = Arc::clone(&service_slot);
                    async move { Ok::<_, Infallible>(http::handle(app, peer, slot, req).await) }
                });
                let builder = Arc::clone(&builder);
                let watcher = graceful.watcher();
                let mut stop = stopped.clone();
                let app = Arc::clone(&app);
                let task_slot = Arc::clone(&slot);
                let task = tokio::spawn(async move {
                    let _guard = guard;
                    let _slot = task_slot;
                    let limit = app.config.handshake_timeout;
                    let arrived = tokio::select! {
                        arrived = first_bytes(&stream, limit) => arrived,
                        _ = stop.wait_for(|stopping| *stopping) => return,
                    };
                    drop(pending);
                    if !arrived {
                        if let Some(total) = Refusals::count(&app.refusals.silent) {
                            tracing::warn!(%peer, total, timeout_s = limit.as_secs(), "connection closed: no request within the handshake timeout");
                        }
                        return;
                    }
                    // Boxed: the connection's state (several KiB) is allocated only once the
                    // client has sent something, not for every connection still waiting.
                    let serve = Box::pin(async move {
                        let conn = builder
                            .serve_connection_with_upgrades(TokioIo::new(stream), service)
                            .into_owned();
                        watcher.watch(conn).await
                    });
                    if let Err(e) = serve.await {
                        tracing::debug!(%peer, error = %e, "connection ended with an error");
                    }
                });
                slot.serve_with(task.abort_handle());
            }
            changed = stopped.changed() => {
                if changed.is_err() || *stopped.borrow() {
                    break;
                }
            }
        }
    }
    drop(listener);
    tracing::info!("no longer accepting connections; draining open requests");
    tokio::select! {
        () = graceful.shutdown() => {}
        () = tokio::time::sleep(DRAIN_TIMEOUT) => {
            tracing::warn!("open connections did not finish in time; closing them");
        }
    }
}
