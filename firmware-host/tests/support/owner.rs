//! Owner mode's steps, for the owner tests: requests with a cookie, a kiosk code, a claim.

use std::net::SocketAddr;

use super::{Reply, request};

pub async fn send(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
    cookie: Option<&str>,
) -> Reply {
    let mut headers = vec![("Content-Type", "application/json")];
    if let Some(c) = cookie {
        headers.push(("Cookie", c));
    }
    request(addr, method, path, &headers, body.map(str::as_bytes)).await
}

/// A code as the kiosk's screen gets it.
pub async fn kiosk_code(addr: SocketAddr) -> String {
    let reply = send(addr, "POST", "/api/kiosk/owner-code", Some("{}"), None).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let json = reply.json();
    assert_eq!(json["expires_s"], 300, "{json}");
    json["code"].as_str().expect("code").to_owned()
}

pub async fn claim(addr: SocketAddr, cookie: &str, code: &str) -> Reply {
    let body = serde_json::json!({ "code": code }).to_string();
    send(addr, "POST", "/api/owner/claim", Some(&body), Some(cookie)).await
}

pub fn a_wrong_code(right: &str) -> String {
    if right == "00000000" {
        "11111111".into()
    } else {
        "00000000".into()
    }
}

/// The account id behind a session cookie.
pub async fn id_of(addr: SocketAddr, cookie: &str) -> u64 {
    let me = send(addr, "GET", "/api/me", None, Some(cookie)).await;
    assert_eq!(me.status, 200, "{}", me.text());
    me.json()["id"].as_u64().expect("id")
}

pub async fn make_owner(addr: SocketAddr, cookie: &str) {
    let code = kiosk_code(addr).await;
    let reply = claim(addr, cookie, &code).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
}
