//! The sign-in throttle against the real `firmware-host` process (S1, S4): attempts are counted when admitted, so a held burst cannot race it; a browser with
//! the account's device cookie is exempt from the username's lock-out; registrations are
//! limited per address; failed sign-ins never log the typed username.

use crate::support;

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use firmware_host::throttle::{ADDRESS_ATTEMPTS, REGISTRATIONS, USERNAME_ATTEMPTS};
use support::{Process, credentials, finish, hold_post};

const OWNER: &str = "sara_owner";
const PASSWORD: &str = "correct horse battery";

/// One JSON POST from `from`: status and raw text.
async fn post(
    from: Ipv4Addr,
    addr: SocketAddr,
    path: &str,
    body: &str,
    cookie: Option<&str>,
) -> (u16, String) {
    let last = *body.as_bytes().last().expect("a body");
    finish(hold_post(from, addr, path, body, cookie).await, last).await
}

/// The `name=value` pair of a `Set-Cookie` in a raw answer.
fn set_cookie(answer: &str, name: &str) -> Option<String> {
    answer
        .lines()
        .filter_map(|l| {
            l.strip_prefix("set-cookie: ")
                .or_else(|| l.strip_prefix("Set-Cookie: "))
        })
        .find(|v| v.starts_with(&format!("{name}=")))
        .and_then(|v| v.split(';').next())
        .map(str::to_owned)
}

fn code_of(answer: &str) -> String {
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or("");
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["code"].as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn loopback(last: u8) -> Ipv4Addr {
    Ipv4Addr::new(127, 0, 0, last)
}

/// The owner signs in with the right password from `from`, with an optional cookie.
async fn sign_in_as_owner(from: Ipv4Addr, addr: SocketAddr, cookie: Option<&str>) -> (u16, String) {
    post(
        from,
        addr,
        "/api/login",
        &credentials(OWNER, PASSWORD),
        cookie,
    )
    .await
}

/// Holds `n` requests one byte short, then releases them together; their answers.
async fn burst(
    n: usize,
    from: Ipv4Addr,
    addr: SocketAddr,
    path: &str,
    cookie: Option<&str>,
    body: impl Fn(usize) -> String,
) -> Vec<(u16, String)> {
    let mut held = Vec::with_capacity(n);
    for i in 0..n {
        let body = body(i);
        let last = *body.as_bytes().last().expect("a body");
        held.push((hold_post(from, addr, path, &body, cookie).await, last));
    }
    // Every request has reached the server and waits for its last byte.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let tasks: Vec<_> = held
        .into_iter()
        .map(|(stream, last)| tokio::spawn(finish(stream, last)))
        .collect();
    let mut answers = Vec::with_capacity(n);
    for task in tasks {
        answers.push(task.await.expect("request task"));
    }
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_wrong_guesses_are_counted_when_admitted() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let (status, _) = post(
        loopback(1),
        server.addr,
        "/api/register",
        &credentials(OWNER, PASSWORD),
        None,
    )
    .await;
    assert_eq!(status, 201);

    // 40 wrong guesses from one address, released together.
    let answers = burst(40, loopback(3), server.addr, "/api/login", None, |i| {
        credentials(OWNER, &format!("wrong guess {i:03}"))
    })
    .await;
    let checked = answers.iter().filter(|(s, _)| *s == 401).count();
    let refused = answers
        .iter()
        .filter(|(s, a)| *s == 429 && code_of(a) == "too_many_attempts")
        .count();
    assert_eq!(
        checked, ADDRESS_ATTEMPTS,
        "exactly the address's limit is checked"
    );
    assert_eq!(checked + refused, answers.len(), "the rest are refused");
    assert!(
        answers
            .iter()
            .filter(|(s, _)| *s == 429)
            .all(|(_, a)| a.to_ascii_lowercase().contains("retry-after: ")),
        "refusals say when to retry"
    );
    // The right password is not checked either from that address now.
    let (status, answer) = sign_in_as_owner(loopback(3), server.addr, None).await;
    assert_eq!(
        (status, code_of(&answer).as_str()),
        (429, "too_many_attempts")
    );
    server.stop_with("-TERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn device_cookie_exempts_the_owner_from_the_username_lock() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let owner = loopback(1);
    let (status, answer) = post(
        owner,
        server.addr,
        "/api/register",
        &credentials(OWNER, PASSWORD),
        None,
    )
    .await;
    assert_eq!(status, 201);
    let device = set_cookie(&answer, "xo_device").expect("a device cookie at registration");

    // Strangers from four other addresses use up the username's allowance.
    let per_address = ADDRESS_ATTEMPTS;
    let addresses = USERNAME_ATTEMPTS / per_address;
    for a in 0..addresses {
        let from = loopback(2 + u8::try_from(a).expect("few addresses"));
        let answers = burst(per_address, from, server.addr, "/api/login", None, |i| {
            credentials(OWNER, &format!("stranger {a} guess {i}"))
        })
        .await;
        assert!(answers.iter().all(|(s, _)| *s == 401), "{answers:?}");
    }

    // The username is locked for browsers without its device cookie, the owner's own address
    // included …
    let (status, answer) = sign_in_as_owner(owner, server.addr, None).await;
    assert_eq!(
        (status, code_of(&answer).as_str()),
        (429, "too_many_attempts")
    );
    // … a forged device cookie does not help …
    let forged = format!("xo_device={}.{}", "a".repeat(32), "b".repeat(32));
    let (status, _) = sign_in_as_owner(owner, server.addr, Some(&forged)).await;
    assert_eq!(status, 429);
    // … but the owner's browser signs in, and gets a fresh device cookie.
    let (status, answer) = sign_in_as_owner(owner, server.addr, Some(&device)).await;
    assert_eq!(status, 200, "{answer}");
    assert!(set_cookie(&answer, "xo_session").is_some());
    assert!(set_cookie(&answer, "xo_device").is_some());

    // The device cookie does not lift the per-address limit: a stranger who stole it still
    // gets only the address's attempts.
    let answers = burst(
        per_address + 3,
        loopback(9),
        server.addr,
        "/api/login",
        Some(&device),
        |i| credentials(OWNER, &format!("thief guess {i}")),
    )
    .await;
    assert_eq!(
        answers.iter().filter(|(s, _)| *s == 401).count(),
        per_address
    );
    server.stop_with("-TERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn registrations_are_limited_per_address() {
    let dir = tempfile::tempdir().expect("temp dir");
    // The harness lifts the limit for other tests; this one runs with the default.
    let limit = REGISTRATIONS.to_string();
    let server = Process::start(
        dir.path(),
        &[("XO_MAX_REGISTRATIONS_PER_ADDRESS", limit.as_str())],
    );
    let n = REGISTRATIONS + 4;
    let answers = burst(n, loopback(4), server.addr, "/api/register", None, |i| {
        credentials(&format!("player_{i}"), PASSWORD)
    })
    .await;
    let created = answers.iter().filter(|(s, _)| *s == 201).count();
    let refused: Vec<_> = answers.iter().filter(|(s, _)| *s != 201).collect();
    assert_eq!(created, REGISTRATIONS, "{answers:?}");
    for (status, answer) in &refused {
        assert_eq!(
            (*status, code_of(answer).as_str()),
            (429, "too_many_registrations")
        );
        assert!(answer.contains("too many accounts were registered from this address"));
    }
    // Another address may still register.
    let (status, _) = post(
        loopback(5),
        server.addr,
        "/api/register",
        &credentials("neighbour", PASSWORD),
        None,
    )
    .await;
    assert_eq!(status, 201);
    server.stop_with("-TERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_sign_ins_log_a_hash_never_the_typed_username() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    // Someone types their password into the username field.
    let typed = "MySecret-Pass1";
    let (status, _) = post(
        loopback(6),
        server.addr,
        "/api/login",
        &credentials(typed, "whatever it is"),
        None,
    )
    .await;
    assert_eq!(status, 401);
    let lines = server.wait_log_lines("sign-in failed").await;
    assert_eq!(lines.len(), 1, "one failed sign-in logged");
    let line = &lines[0];
    assert!(line.contains("127.0.0.6"), "the address is logged: {line}");
    assert!(
        line.contains(&firmware_host::accounts::username_hash(typed)),
        "a short hash names the attempt: {line}"
    );
    let all = server.log_lines("");
    assert!(
        all.iter()
            .all(|l| !l.to_lowercase().contains(&typed.to_lowercase())),
        "the typed text appears nowhere in the log"
    );
    server.stop_with("-TERM");
}
