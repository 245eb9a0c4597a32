//! Cross-site requests refused, against the real `firmware-host` process:
//! state changes only as JSON and, from a browser, only from this server's own pages; a
//! foreign `Host` (DNS rebinding) is refused; every page carries the Content-Security-Policy.

use crate::support;

use support::{Process, Reply, credentials, request, send_raw};

const PASSWORD: &str = "password one";

async fn post(server: &Process, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    request(server.addr, "POST", path, headers, Some(body.as_bytes())).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn state_changes_must_be_same_origin_json() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let body = credentials("sara", PASSWORD);
    // A cross-site form can send these without a preflight: login CSRF.
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ] {
        let reply = post(
            &server,
            "/api/register",
            &[("Content-Type", content_type)],
            &body,
        )
        .await;
        reply.assert_error(415, "unsupported_media_type");
        assert!(reply.set_cookie("xo_session").is_none());
    }
    let reply = post(&server, "/api/login", &[], &body).await;
    reply.assert_error(415, "unsupported_media_type");
    // JSON from another site's page.
    let foreign = [
        ("Content-Type", "application/json"),
        ("Origin", "http://evil.example"),
    ];
    let reply = post(&server, "/api/register", &foreign, &body).await;
    reply.assert_error(403, "bad_origin");
    assert!(reply.set_cookie("xo_session").is_none());
    let null_origin = [("Content-Type", "application/json"), ("Origin", "null")];
    post(&server, "/api/logout", &null_origin, "{}")
        .await
        .assert_error(403, "bad_origin");
    // Nothing was created: the name is still free, and this server's own page may register.
    let own = format!("http://{}", server.addr);
    let same = [
        ("Content-Type", "application/json"),
        ("Origin", own.as_str()),
    ];
    let reply = post(&server, "/api/register", &same, &body).await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    // Tools without an Origin still work.
    let reply = post(
        &server,
        "/api/login",
        &[("Content-Type", "application/json; charset=utf-8")],
        &body,
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    server.stop_with("-TERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_host_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let port = server.addr.port();
    for path in ["/api/health", "/", "/api/me"] {
        let raw = format!(
            "GET {path} HTTP/1.1\r\nHost: rebind.evil.example:{port}\r\nConnection: close\r\n\r\n"
        );
        send_raw(server.addr, raw.as_bytes())
            .await
            .assert_error(421, "bad_host");
    }
    for host in [
        format!("localhost:{port}"),
        format!("127.0.0.1:{port}"),
        format!("[::1]:{port}"),
    ] {
        let raw = format!("GET /api/health HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        let reply = send_raw(server.addr, raw.as_bytes()).await;
        assert_eq!(reply.status, 200, "Host {host}: {}", reply.text());
    }
    server.stop_with("-TERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pages_carry_a_content_security_policy() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    for path in ["/", "/kiosk", "/api/health"] {
        let reply = request(server.addr, "GET", path, &[], None).await;
        let policy = reply
            .header("content-security-policy")
            .unwrap_or_else(|| panic!("{path} has a Content-Security-Policy"));
        for needle in [
            "default-src 'self'",
            "'wasm-unsafe-eval'",
            "frame-ancestors 'none'",
            "object-src 'none'",
        ] {
            assert!(policy.contains(needle), "{path}: {policy}");
        }
    }
    server.stop_with("-TERM");
}
