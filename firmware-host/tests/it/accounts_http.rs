//! A1 and A2 over real HTTP: register, sign in, sign out, `/api/me`, the cookie, the rules for
//! names and passwords, and the throttle.

use crate::support;

use std::net::Ipv4Addr;

use support::{TestServer, credentials, http_from};

#[tokio::test]
async fn register_signs_in_with_a_session_cookie() {
    let s = TestServer::start().await;
    let reply = s
        .post_json("/api/register", &credentials("Sara", "password1"), None)
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text());
    assert_eq!(reply.json()["username"], "Sara");
    let set = reply.set_cookie("xo_session").expect("session cookie");
    for attribute in ["HttpOnly", "SameSite=Strict", "Path=/", "Max-Age=2592000"] {
        assert!(set.contains(attribute), "{set} lacks {attribute}");
    }
    let token = set
        .split(';')
        .next()
        .and_then(|p| p.strip_prefix("xo_session="))
        .expect("value");
    assert_eq!(token.len(), 64, "32 random bytes in hex");
    let cookie = reply.cookie_pair("xo_session").expect("pair");
    let me = s.get("/api/me", Some(&cookie)).await;
    assert_eq!(me.status, 200, "{}", me.text());
    assert_eq!(me.json()["username"], "Sara");
    s.server.shutdown().await;
}

#[tokio::test]
async fn me_without_a_session_is_401() {
    let s = TestServer::start().await;
    s.get("/api/me", None)
        .await
        .assert_error(401, "not_signed_in");
    let forged = format!("xo_session={}", "ab".repeat(32));
    s.get("/api/me", Some(&forged))
        .await
        .assert_error(401, "not_signed_in");
    s.server.shutdown().await;
}

#[tokio::test]
async fn session_answers_a_signed_out_browser_without_an_error() {
    let s = TestServer::start().await;
    for cookie in [None, Some(format!("xo_session={}", "ab".repeat(32)))] {
        let reply = s.get("/api/session", cookie.as_deref()).await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        assert_eq!(reply.json(), serde_json::json!({ "account": null }));
    }
    let cookie = s.register("Sara", "password1").await;
    let reply = s.get("/api/session", Some(&cookie)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["account"]["username"], "Sara");
    s.server.shutdown().await;
}

#[tokio::test]
async fn username_unique_ignoring_case() {
    let s = TestServer::start().await;
    s.register("Sara", "password1").await;
    for name in ["sara", "SARA", "sArA"] {
        s.post_json("/api/register", &credentials(name, "password2"), None)
            .await
            .assert_error(409, "username_taken");
    }
    s.server.shutdown().await;
}

#[tokio::test]
async fn username_and_password_rules_are_enforced() {
    let s = TestServer::start().await;
    for (name, password, code) in [
        ("ab", "password1", "invalid_username"),
        ("a_name_of_21_chars_x_", "password1", "invalid_username"),
        ("with space", "password1", "invalid_username"),
        ("dot.name", "password1", "invalid_username"),
        ("good_name", "short", "invalid_password"),
    ] {
        s.post_json("/api/register", &credentials(name, password), None)
            .await
            .assert_error(400, code);
    }
    let long = "p".repeat(129);
    s.post_json("/api/register", &credentials("good_name", &long), None)
        .await
        .assert_error(400, "invalid_password");
    s.server.shutdown().await;
}

#[tokio::test]
async fn longest_name_and_password_are_accepted() {
    let s = TestServer::start().await;
    let name = "A-b_".repeat(5);
    assert_eq!(name.len(), 20);
    s.register(&name, &"p".repeat(128)).await;
    s.server.shutdown().await;
}

#[tokio::test]
async fn login_needs_the_right_password_and_ignores_name_case() {
    let s = TestServer::start().await;
    s.register("Omar", "password1").await;
    s.post_json("/api/login", &credentials("Omar", "password2"), None)
        .await
        .assert_error(401, "bad_credentials");
    s.post_json("/api/login", &credentials("nobody", "password1"), None)
        .await
        .assert_error(401, "bad_credentials");
    let ok = s
        .post_json("/api/login", &credentials("omar", "password1"), None)
        .await;
    assert_eq!(ok.status, 200, "{}", ok.text());
    assert_eq!(ok.json()["username"], "Omar", "the name as registered");
    let cookie = ok.cookie_pair("xo_session").expect("session cookie");
    assert_eq!(
        s.get("/api/me", Some(&cookie)).await.json()["username"],
        "Omar"
    );
    s.server.shutdown().await;
}

#[tokio::test]
async fn logout_ends_the_session() {
    let s = TestServer::start().await;
    let cookie = s.register("Lina", "password1").await;
    let out = s.post_json("/api/logout", "", Some(&cookie)).await;
    assert_eq!(out.status, 200);
    assert!(
        out.set_cookie("xo_session")
            .is_some_and(|c| c.contains("Max-Age=0")),
        "the cookie is cleared"
    );
    s.get("/api/me", Some(&cookie))
        .await
        .assert_error(401, "not_signed_in");
    s.server.shutdown().await;
}

#[tokio::test]
async fn sign_in_is_throttled_per_username_after_five_failures() {
    let s = TestServer::start().await;
    // Passwords shorter than 8 characters fail without hashing, which keeps this test fast.
    for _ in 0..5 {
        s.post_json("/api/login", &credentials("victim", "bad"), None)
            .await
            .assert_error(401, "bad_credentials");
    }
    let refused = s
        .post_json("/api/login", &credentials("VICTIM", "bad"), None)
        .await;
    refused.assert_error(429, "too_many_attempts");
    let wait: u64 = refused
        .header("retry-after")
        .and_then(|v| v.parse().ok())
        .expect("Retry-After in seconds");
    assert!((1..=300).contains(&wait), "{wait}");
    s.server.shutdown().await;
}

#[tokio::test]
async fn a_prankster_cannot_lock_the_owner_out_from_another_address() {
    let s = TestServer::start().await;
    s.register("owner", "password1").await;
    let login = |from: [u8; 4], password: &'static str| {
        let addr = s.addr();
        async move {
            let body = credentials("owner", password);
            http_from(
                Ipv4Addr::from(from),
                addr,
                "POST",
                "/api/login",
                Some(&body),
            )
            .await
        }
    };
    for _ in 0..5 {
        let (status, body) = login([127, 0, 0, 2], "bad").await;
        assert_eq!(status, 401, "{body}");
    }
    let (status, body) = login([127, 0, 0, 2], "bad").await;
    assert_eq!(status, 429, "the prankster's address is held back: {body}");
    let (status, body) = login([127, 0, 0, 3], "password1").await;
    assert_eq!(
        status, 200,
        "the owner signs in from their own phone: {body}"
    );
    s.server.shutdown().await;
}

#[tokio::test]
async fn sign_in_is_throttled_per_address_across_usernames() {
    let s = TestServer::start().await;
    for i in 0..5 {
        s.post_json("/api/login", &credentials(&format!("name{i}"), "bad"), None)
            .await
            .assert_error(401, "bad_credentials");
    }
    s.post_json("/api/login", &credentials("fresh_name", "bad"), None)
        .await
        .assert_error(429, "too_many_attempts");
    // Registration from the same address is throttled too.
    s.post_json(
        "/api/register",
        &credentials("fresh_name", "password1"),
        None,
    )
    .await
    .assert_error(429, "too_many_attempts");
    s.server.shutdown().await;
}

#[tokio::test]
async fn identity_from_headers_names_the_player_and_the_guest() {
    let s = TestServer::start().await;
    let session = s.register("Nadia", "password1").await;
    let guest = format!("xo_guest={}", "0123456789abcdef".repeat(2));
    let mut headers = hyper::HeaderMap::new();
    headers.insert(
        hyper::header::COOKIE,
        format!("{session}; {guest}").parse().expect("header"),
    );
    let store = s.server.app().store.clone();
    let identity = tokio::task::spawn_blocking(move || {
        firmware_host::accounts::identity_from_headers_blocking(&store, &headers)
    })
    .await
    .expect("task")
    .expect("store");
    assert_eq!(identity.account.expect("signed in").name, "Nadia");
    assert_eq!(identity.guest_id, "0123456789abcdef".repeat(2));

    let store = s.server.app().store.clone();
    let anonymous = tokio::task::spawn_blocking(move || {
        firmware_host::accounts::identity_from_headers_blocking(&store, &hyper::HeaderMap::new())
    })
    .await
    .expect("task")
    .expect("store");
    assert_eq!(anonymous.account, None);
    assert_eq!(anonymous.guest_id.len(), 32, "a fresh guest id");
    s.server.shutdown().await;
}
