//! Connections cannot be exhausted from one address, against the real
//! `firmware-host` process: request bodies time out as headers do, and 1,100 connections from
//! one address against a server whose open-files limit is 1,024 (set with `prlimit`, from
//! util-linux) leave another address served within [`ANSWER_BOUND`] — by the per-address cap,
//! and without it by shedding the flooding address's newest connections.

use crate::support;

use std::net::{Ipv4Addr, SocketAddr};
use std::time::{Duration, Instant};

use support::{Process, half_requests, http_from, tcp_from};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Every answer to the well-behaved client arrives within this, while an attack runs.
const ANSWER_BOUND: Duration = Duration::from_secs(2);
/// Connections the flooding address opens.
const FLOOD: usize = 1_100;
/// The server's open-files limit in the flood tests (the Pi's default before `LimitNOFILE`).
const NOFILE: &str = "--nofile=1024:1024";

const FLOODER: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 2);
const GOOD: Ipv4Addr = Ipv4Addr::new(127, 0, 0, 3);

/// The well-behaved client: `n` health checks, each answered 200 within [`ANSWER_BOUND`].
async fn well_behaved(addr: SocketAddr, n: usize) -> Vec<Duration> {
    let mut times = Vec::with_capacity(n);
    for i in 0..n {
        let started = Instant::now();
        let (status, body) = tokio::time::timeout(
            ANSWER_BOUND,
            http_from(GOOD, addr, "GET", "/api/health", None),
        )
        .await
        .unwrap_or_else(|_| panic!("health check {i} not answered within {ANSWER_BOUND:?}"));
        assert_eq!(status, 200, "health check {i}: {body}");
        times.push(started.elapsed());
    }
    times
}

async fn flood(addr: SocketAddr) -> Vec<TcpStream> {
    half_requests(FLOODER, addr, FLOOD).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_trickled_request_body_is_timed_out() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[("XO_HANDSHAKE_TIMEOUT", "2")]);
    let mut stream = tcp_from(GOOD, server.addr, None).await;
    let head = format!(
        "POST /api/login HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 64\r\nConnection: close\r\n\r\n",
        server.addr
    );
    stream.write_all(head.as_bytes()).await.expect("headers");
    let started = Instant::now();
    // One byte every half second: 64 of them would take 32 s.
    let trickle = async {
        for b in b"{\"username\":\"sara\",\"password\":" {
            if stream.write_all(&[*b]).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        stream
    };
    let mut stream = tokio::time::timeout(Duration::from_secs(40), trickle)
        .await
        .expect("trickle ends");
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut answer))
        .await
        .expect("answer in time")
        .ok();
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("\"code\":\"body_timeout\""), "{text}");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "closed long before the body could have arrived"
    );
    server.stop_with("-TERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_address_is_capped_for_the_whole_life_of_its_connections() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start_wrapped(
        &["prlimit", NOFILE, "--"],
        dir.path(),
        &[("XO_HANDSHAKE_TIMEOUT", "60")],
    );
    let held = flood(server.addr).await;
    let times = well_behaved(server.addr, 20).await;
    assert!(
        !server
            .wait_log_lines("too many open connections from this address")
            .await
            .is_empty(),
        "the cap refused the flood"
    );
    assert!(server.open_fds() < 1024, "below the open-files limit");
    println!(
        "cap: {} flood connections held on our side, good client's slowest answer {:?}",
        held.len(),
        times.iter().max()
    );
    drop(held);
    server.stop_with("-TERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn near_the_descriptor_limit_the_busiest_address_is_shed() {
    let dir = tempfile::tempdir().expect("temp dir");
    // No per-address cap: only shedding stands between the flood and the limit.
    let server = Process::start_wrapped(
        &["prlimit", NOFILE, "--"],
        dir.path(),
        &[
            ("XO_HANDSHAKE_TIMEOUT", "60"),
            ("XO_MAX_CONNECTIONS_PER_ADDRESS", "0"),
        ],
    );
    let held = flood(server.addr).await;
    let times = well_behaved(server.addr, 20).await;
    assert!(
        !server.wait_log_lines("connection shed").await.is_empty(),
        "connections were shed"
    );
    assert!(server.open_fds() < 1024, "below the open-files limit");
    let accept_failures = server.log_lines("accept failed").len();
    assert!(
        accept_failures <= 5,
        "accept failures logged at a bounded rate: {accept_failures}"
    );
    println!(
        "shed: {} flood connections held on our side, good client's slowest answer {:?}",
        held.len(),
        times.iter().max()
    );
    drop(held);
    server.stop_with("-TERM");
}
