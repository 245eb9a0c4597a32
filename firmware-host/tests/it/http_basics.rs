//! P1 and the limits: health, config, the embedded UI with its SPA fallback, cookies for
//! guests, and the answers to bad requests (404, 405, 413, 400).

use crate::support;

use support::{TestServer, request, send_raw};

#[tokio::test]
async fn health_reports_status_version_uptime_rooms_connections() {
    let s = TestServer::start().await;
    let reply = s.get("/api/health", None).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let json = reply.json();
    assert_eq!(json["status"], "ok");
    assert_eq!(json["version"], env!("CARGO_PKG_VERSION"));
    assert!(json["uptime_s"].is_u64(), "{json}");
    assert_eq!(json["rooms"], 0);
    assert_eq!(json["connections"], 0, "no WebSocket is open");
    // This very request's connection is open.
    assert!(
        json["http_connections"].as_u64().is_some_and(|n| n >= 1),
        "{json}"
    );
    s.server.shutdown().await;
}

#[tokio::test]
async fn config_serves_the_kiosk_idle_time() {
    let s = TestServer::start().await;
    let json = s.get("/api/config", None).await.json();
    assert_eq!(json["kiosk_idle_s"], 120);
    assert_eq!(
        json["public_url"],
        format!("http://{}", s.addr()),
        "bound to one address: that address"
    );
    s.server.shutdown().await;
}

#[tokio::test]
async fn spa_fallback_serves_the_app_for_client_routes() {
    let s = TestServer::start().await;
    let root = s.get("/", None).await;
    assert_eq!(root.status, 200);
    assert!(
        root.header("content-type")
            .is_some_and(|t| t.starts_with("text/html"))
    );
    for path in ["/kiosk", "/room/abc", "/profile/sara"] {
        let reply = s.get(path, None).await;
        assert_eq!(reply.status, 200, "{path}");
        assert!(
            reply
                .header("content-type")
                .is_some_and(|t| t.starts_with("text/html")),
            "{path}"
        );
        assert_eq!(reply.body, root.body, "{path} serves the same page as /");
    }
    if firmware_host::assets::ui_built() {
        assert!(
            root.text().to_lowercase().contains("<html")
                || root.header("content-encoding") == Some("gzip")
        );
    } else {
        let page = root.text();
        assert!(page.contains("scripts/build-ui"), "{page}");
        assert!(page.contains("not built"), "{page}");
    }
    s.server.shutdown().await;
}

#[tokio::test]
async fn embedded_assets_are_gzip_with_etag_and_revalidate() {
    let s = TestServer::start().await;
    let Some(index) = firmware_host::assets::index() else {
        // Without a built UI there is nothing embedded to check; the page test covers `/`.
        assert!(!firmware_host::assets::ui_built());
        s.server.shutdown().await;
        return;
    };
    let gz = request(
        s.addr(),
        "GET",
        "/index.html",
        &[("Accept-Encoding", "gzip")],
        None,
    )
    .await;
    assert_eq!(gz.status, 200);
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    assert_eq!(gz.header("etag"), Some(index.etag));
    assert_eq!(gz.header("cache-control"), Some("no-cache"));
    let plain = request(s.addr(), "GET", "/index.html", &[], None).await;
    assert_eq!(plain.header("content-encoding"), None);
    assert_eq!(support::gunzip(&gz.body), plain.body);
    let again = request(
        s.addr(),
        "GET",
        "/index.html",
        &[("If-None-Match", index.etag)],
        None,
    )
    .await;
    assert_eq!(again.status, 304);
    s.server.shutdown().await;
}

#[tokio::test]
async fn missing_file_with_an_extension_is_404_not_the_app() {
    let s = TestServer::start().await;
    s.get("/no-such-file.js", None)
        .await
        .assert_error(404, "not_found");
    s.server.shutdown().await;
}

#[tokio::test]
async fn unknown_api_path_is_404_json() {
    let s = TestServer::start().await;
    s.get("/api/nope", None)
        .await
        .assert_error(404, "not_found");
    s.get("/api/users", None)
        .await
        .assert_error(404, "not_found");
    s.server.shutdown().await;
}

#[tokio::test]
async fn wrong_method_is_405_with_allow() {
    let s = TestServer::start().await;
    let reply = s.post_json("/api/health", "{}", None).await;
    reply.assert_error(405, "method_not_allowed");
    assert_eq!(reply.header("allow"), Some("GET, HEAD"));
    let reply = s.get("/api/login", None).await;
    reply.assert_error(405, "method_not_allowed");
    assert_eq!(reply.header("allow"), Some("POST"));
    let reply = request(s.addr(), "DELETE", "/room/abc", &[], None).await;
    reply.assert_error(405, "method_not_allowed");
    s.server.shutdown().await;
}

#[tokio::test]
async fn oversized_body_is_413() {
    let s = TestServer::start().await;
    let big = format!(
        "{{\"username\":\"sara\",\"password\":\"{}\"}}",
        "x".repeat(20 * 1024)
    );
    s.post_json("/api/login", &big, None)
        .await
        .assert_error(413, "body_too_large");
    // The same without a Content-Length (chunked) is cut off by the limit too.
    let mut raw = format!(
        "POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n",
        big.len()
    )
    .into_bytes();
    raw.extend_from_slice(big.as_bytes());
    raw.extend_from_slice(b"\r\n0\r\n\r\n");
    send_raw(s.addr(), &raw)
        .await
        .assert_error(413, "body_too_large");
    s.server.shutdown().await;
}

#[tokio::test]
async fn bad_json_is_400_with_a_clear_message() {
    let s = TestServer::start().await;
    let reply = s.post_json("/api/register", "{not json", None).await;
    reply.assert_error(400, "bad_json");
    let reply = s
        .post_json("/api/login", r#"{"username":"sara"}"#, None)
        .await;
    reply.assert_error(400, "bad_json");
    assert!(
        reply.json()["message"]
            .as_str()
            .is_some_and(|m| m.contains("password"))
    );
    s.server.shutdown().await;
}

#[tokio::test]
async fn guest_cookie_is_set_only_for_clients_without_one() {
    let s = TestServer::start().await;
    let first = s.get("/api/health", None).await;
    let set = first
        .set_cookie("xo_guest")
        .expect("guest cookie for a new client");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age="] {
        assert!(set.contains(attribute), "{set} lacks {attribute}");
    }
    let pair = first.cookie_pair("xo_guest").expect("pair");
    let again = s.get("/api/health", Some(&pair)).await;
    assert_eq!(
        again.set_cookie("xo_guest"),
        None,
        "a known guest keeps its id"
    );
    s.server.shutdown().await;
}

#[tokio::test]
async fn leaderboard_requires_a_known_game() {
    let s = TestServer::start().await;
    s.get("/api/leaderboard", None)
        .await
        .assert_error(400, "bad_game");
    s.get("/api/leaderboard?game=chess", None)
        .await
        .assert_error(400, "bad_game");
    for game in ["xo", "infinite"] {
        let reply = s.get(&format!("/api/leaderboard?game={game}"), None).await;
        assert_eq!(reply.status, 200);
        assert_eq!(reply.json()["game"], game);
        assert_eq!(reply.json()["players"], serde_json::json!([]));
    }
    s.server.shutdown().await;
}

#[tokio::test]
async fn unknown_game_and_user_are_404_json() {
    let s = TestServer::start().await;
    s.get("/api/games/no-such-game", None)
        .await
        .assert_error(404, "unknown_game");
    s.get("/api/users/nobody", None)
        .await
        .assert_error(404, "unknown_user");
    s.server.shutdown().await;
}
