//! Owner mode's steps, for the owner tests: requests with a cookie, a kiosk code, a claim,
//! signing in again, and backups (download, upload, a file around an older release's data).

use std::net::SocketAddr;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::{Reply, credentials, request};

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

/// Signs `name` in with `password` and returns the `xo_session=...` cookie pair.
pub async fn sign_in(addr: SocketAddr, name: &str, password: &str) -> String {
    let reply = send(
        addr,
        "POST",
        "/api/login",
        Some(&credentials(name, password)),
        None,
    )
    .await;
    assert_eq!(reply.status, 200, "{name}: {}", reply.text());
    reply.cookie_pair("xo_session").expect("session cookie")
}

/// `GET /api/owner/backup`: the file, checked to come as a download.
pub async fn backup(addr: SocketAddr, cookie: &str) -> Vec<u8> {
    let reply = request(
        addr,
        "GET",
        "/api/owner/backup",
        &[("Cookie", cookie)],
        None,
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(
        reply.header("content-type"),
        Some("application/octet-stream")
    );
    assert!(
        reply
            .header("content-disposition")
            .is_some_and(|d| d.starts_with("attachment")),
        "{:?}",
        reply.headers
    );
    reply.body
}

/// A file upload (a backup to preview or restore, an update) to `path`.
pub async fn upload(addr: SocketAddr, path: &str, cookie: &str, file: &[u8]) -> Reply {
    request(
        addr,
        "POST",
        path,
        &[
            ("Content-Type", "application/octet-stream"),
            ("Cookie", cookie),
        ],
        Some(file),
    )
    .await
}

/// The header line and the data of a backup file.
pub fn split(file: &[u8]) -> (serde_json::Value, &[u8]) {
    let newline = file
        .iter()
        .position(|&b| b == b'\n')
        .expect("a header line");
    let header = serde_json::from_slice(&file[..newline]).expect("a JSON header");
    (header, &file[newline + 1..])
}

/// A backup file of `header` and `data`.
pub fn join(header: &serde_json::Value, data: &[u8]) -> Vec<u8> {
    let mut file = serde_json::to_vec(header).expect("header");
    file.push(b'\n');
    file.extend_from_slice(data);
    file
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A backup file around a database file written by an earlier release (`tests/fixtures/`).
pub fn backup_of_fixture(fixture: &Path, schema: u64) -> Vec<u8> {
    let data = std::fs::read(fixture).expect("fixture");
    let header = serde_json::json!({
        "format": "xo-kiosk-backup",
        "format_version": 1,
        "schema_version": schema,
        "app_version": "0.1.0",
        "created_ms": 1_780_000_000_000_u64,
        "bytes": data.len(),
        "sha256": hex(&Sha256::digest(&data)),
    });
    join(&header, &data)
}
