//! Sessions end everywhere, against the real `firmware-host` process: signing
//! out closes that session's WebSockets, which then come back as guests; other sessions of the
//! same player are untouched.

use crate::support;

use std::time::Duration;

use futures_util::StreamExt;
use support::{Process, Ws, credentials, register_at, request, ws_connect, ws_send, ws_wait_for};
use tokio_tungstenite::tungstenite::Message;

const PASSWORD: &str = "password one";

async fn sign_in(addr: std::net::SocketAddr, name: &str) -> String {
    let reply = request(
        addr,
        "POST",
        "/api/login",
        &[("Content-Type", "application/json")],
        Some(credentials(name, PASSWORD).as_bytes()),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.cookie_pair("xo_session").expect("session cookie")
}

/// The hello's `user` field.
async fn hello_user(ws: &mut Ws) -> serde_json::Value {
    let hello = ws_wait_for(ws, "hello", |v| v.get("hello").is_some()).await;
    hello["hello"]["user"].clone()
}

/// The error code and close frame a signed-out socket gets, reading at most 50 messages.
async fn signed_out(ws: &mut Ws) -> (Option<String>, Option<(u16, String)>) {
    let mut code = None;
    for _ in 0..50 {
        let next = tokio::time::timeout(Duration::from_secs(10), ws.next())
            .await
            .expect("the socket hears about the sign-out in time");
        match next {
            Some(Ok(Message::Text(text))) => {
                let v: serde_json::Value = serde_json::from_str(text.as_str()).expect("JSON");
                if let Some(c) = v["error"]["code"].as_str() {
                    code = Some(c.to_owned());
                }
            }
            Some(Ok(Message::Close(frame))) => {
                return (
                    code,
                    frame.map(|f| (u16::from(f.code), f.reason.as_str().to_owned())),
                );
            }
            Some(Ok(_)) => {}
            Some(Err(_)) | None => return (code, None),
        }
    }
    panic!("no close among 50 messages");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logout_closes_that_sessions_websockets() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let laptop = register_at(server.addr, "lina", PASSWORD).await;
    let phone = sign_in(server.addr, "lina").await;

    let mut laptop_ws = ws_connect(server.addr, Some(&laptop)).await;
    let mut phone_ws = ws_connect(server.addr, Some(&phone)).await;
    let user = hello_user(&mut laptop_ws).await;
    assert!(user.is_u64(), "signed in: {user}");
    assert_eq!(hello_user(&mut phone_ws).await, user);

    let out = request(
        server.addr,
        "POST",
        "/api/logout",
        &[("Content-Type", "application/json"), ("Cookie", &laptop)],
        Some(b"{}"),
    )
    .await;
    assert_eq!(out.status, 200, "{}", out.text());

    let (code, close) = signed_out(&mut laptop_ws).await;
    assert_eq!(code.as_deref(), Some("signed_out"));
    assert_eq!(close, Some((4001, "signed_out".to_owned())));

    // The phone's own session still acts as the player.
    ws_send(&mut phone_ws, serde_json::json!({"ping": {"id": 7}})).await;
    let pong = ws_wait_for(&mut phone_ws, "pong", |v| v.get("pong").is_some()).await;
    assert_eq!(pong["pong"]["id"], 7);

    // The laptop reconnecting with its old cookie is a guest.
    let mut again = ws_connect(server.addr, Some(&laptop)).await;
    assert!(hello_user(&mut again).await.is_null());
    server.stop_with("-TERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_change_ends_every_other_session() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let laptop = register_at(server.addr, "omar", PASSWORD).await;
    let phone = sign_in(server.addr, "omar").await;
    let mut laptop_ws = ws_connect(server.addr, Some(&laptop)).await;
    let mut phone_ws = ws_connect(server.addr, Some(&phone)).await;
    assert!(hello_user(&mut laptop_ws).await.is_u64());
    assert!(hello_user(&mut phone_ws).await.is_u64());

    let change = |old: &str, new: &str| {
        serde_json::json!({"old_password": old, "new_password": new}).to_string()
    };
    let json_with = |cookie: &str| {
        [
            ("Content-Type", "application/json".to_owned()),
            ("Cookie", cookie.to_owned()),
        ]
    };
    let post = |cookie: String, body: String| async move {
        let headers = json_with(&cookie);
        let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        request(
            server.addr,
            "POST",
            "/api/me/password",
            &headers,
            Some(body.as_bytes()),
        )
        .await
    };
    // The current password is required; nothing changes without it.
    post(laptop.clone(), change("not the password", "a new password"))
        .await
        .assert_error(403, "wrong_password");
    post(laptop.clone(), change(PASSWORD, "short"))
        .await
        .assert_error(400, "invalid_password");
    let reply = post(laptop.clone(), change(PASSWORD, "a new password")).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(
        reply.set_cookie("xo_device").is_some(),
        "a fresh device cookie"
    );

    // The phone's socket is signed out; the laptop's keeps acting as the player.
    let (code, close) = signed_out(&mut phone_ws).await;
    assert_eq!(code.as_deref(), Some("signed_out"));
    assert_eq!(close, Some((4001, "signed_out".to_owned())));
    ws_send(&mut laptop_ws, serde_json::json!({"ping": {"id": 3}})).await;
    ws_wait_for(&mut laptop_ws, "pong", |v| v.get("pong").is_some()).await;

    let me = |cookie: String| async move {
        request(
            server.addr,
            "GET",
            "/api/me",
            &[("Cookie", cookie.as_str())],
            None,
        )
        .await
    };
    me(phone).await.assert_error(401, "not_signed_in");
    assert_eq!(me(laptop).await.status, 200);
    let old = request(
        server.addr,
        "POST",
        "/api/login",
        &[("Content-Type", "application/json")],
        Some(credentials("omar", PASSWORD).as_bytes()),
    )
    .await;
    old.assert_error(401, "bad_credentials");
    let new = request(
        server.addr,
        "POST",
        "/api/login",
        &[("Content-Type", "application/json")],
        Some(credentials("omar", "a new password").as_bytes()),
    )
    .await;
    assert_eq!(new.status, 200, "{}", new.text());
    server.stop_with("-TERM");
}
