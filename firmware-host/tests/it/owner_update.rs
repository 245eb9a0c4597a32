//! The owner's update upload and restart (the HTTP side) against the real
//! `firmware-host` process: only an owner may upload, a file that is no `firmware-host` binary
//! is refused with the update check's own reason and nothing kept, the update status and the
//! health page (with the recent warnings) are served, and a restart stops the process cleanly (the image's launcher starts it again).

use crate::support;

use std::time::{Duration, Instant};

use support::owner::{make_owner, send};
use support::{Process, register_at, request};

const PASSWORD: &str = "password one";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_an_owner_uploads_an_update_and_a_bad_one_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut server = Process::start(dir.path(), &[]);
    let addr = server.addr;
    let sara = register_at(addr, "sara", PASSWORD).await;
    let omar = register_at(addr, "omar", PASSWORD).await;
    make_owner(addr, &sara).await;
    let upload = |cookie: String| async move {
        request(
            addr,
            "POST",
            "/api/owner/update",
            &[
                ("Content-Type", "application/octet-stream"),
                ("Cookie", &cookie),
            ],
            Some(b"#!/bin/sh\necho firmware-host 99.0.0\n"),
        )
        .await
    };
    upload(omar.clone()).await.assert_error(403, "not_owner");
    let refused = upload(sara.clone()).await;
    refused.assert_error(400, "update_refused");
    assert!(
        refused.json()["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("not_elf")),
        "{}",
        refused.text()
    );
    let updates = dir.path().join("updates");
    let kept: Vec<_> = std::fs::read_dir(&updates)
        .map(|d| d.filter_map(Result::ok).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        kept.iter()
            .all(|n| !n.to_string_lossy().starts_with("firmware-host-")
                && n.to_string_lossy() != "upload.tmp"),
        "nothing kept: {kept:?}"
    );

    // The health page: /api/health's figures, the recent warnings, the update status.
    support::owner::claim(addr, &omar, "00000000").await;
    send(addr, "GET", "/api/owner/health", None, Some(&omar))
        .await
        .assert_error(403, "not_owner");
    let health = send(addr, "GET", "/api/owner/health", None, Some(&sara)).await;
    assert_eq!(health.status, 200, "{}", health.text());
    let health = health.json();
    assert!(health["health"]["version"].is_string(), "{health}");
    assert!(
        health["health"]["storage"]["free_bytes"].is_u64(),
        "{health}"
    );
    assert!(health["update"]["running"].is_string(), "{health}");
    let recent = health["recent_errors"].to_string();
    assert!(recent.contains("owner code refused"), "{recent}");
    assert!(
        recent.contains("not_elf"),
        "the refused update is there too: {recent}"
    );

    let status = send(addr, "GET", "/api/owner/update", None, Some(&sara)).await;
    assert_eq!(status.status, 200, "{}", status.text());
    assert!(status.json()["running"].is_string(), "{}", status.text());
    send(addr, "POST", "/api/owner/restart", Some("{}"), Some(&omar))
        .await
        .assert_error(403, "not_owner");

    let restarting = send(addr, "POST", "/api/owner/restart", Some("{}"), Some(&sara)).await;
    assert_eq!(restarting.status, 202, "{}", restarting.text());
    assert_eq!(restarting.json()["restarting"], true);
    let deadline = Instant::now() + Duration::from_secs(30);
    let exit = loop {
        if let Some(status) = server.child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "no exit within 30 s of the restart"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    // "Start me again": the status scripts/run and the image's launcher restart on.
    assert_eq!(
        exit.code(),
        Some(i32::from(protocol::http::RESTART_EXIT_STATUS)),
        "an owner's restart exits with 75: {exit}"
    );
    assert!(
        !server
            .wait_log_lines("restarting at an owner's request")
            .await
            .is_empty()
    );
}
