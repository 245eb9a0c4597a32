//! The kiosk's settings an owner saves, through the real HTTP API of the real
//! `firmware-host` process on a real redb file: saved settings override the flags, are in
//! force at once (`/api/config`, the status display) and after a restart; concurrent saves end
//! in one of them whole; bad values are refused with the field's code and nothing stored;
//! backups carry them. And password reset codes, kept in redb, survive a restart.

use crate::support;

use std::net::{Ipv4Addr, SocketAddr};
use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use support::owner::{
    a_wrong_code, backup, backup_of_fixture, id_of, make_owner, send, sign_in as sign_in_with,
    upload,
};
use support::{Process, finish, hold_request, register_at, request};

async fn sign_in(addr: SocketAddr, name: &str) -> String {
    sign_in_with(addr, name, PASSWORD).await
}

const PASSWORD: &str = "password one";
/// The flags' defaults the processes of these tests start with.
const FLAGS: &[(&str, &str)] = &[
    ("XO_KIOSK_IDLE", "100"),
    ("XO_PUBLIC_URL", "http://flag.example:8080"),
    ("XO_GUEST_WIFI_SSID", "Flag Net"),
];

fn cafe() -> Value {
    json!({
        "kiosk_idle_s": 45,
        "public_url": "HTTP://Kiosk.Cafe.Example:8080/",
        "default_language": "ar",
        "wifi": {"ssid": "Cafe Guest", "security": "WPA", "password": "correct horse"},
    })
}

/// `cafe()` as the server answers it: in its usual form, stored.
fn cafe_stored() -> Value {
    json!({
        "kiosk_idle_s": 45,
        "public_url": "http://kiosk.cafe.example:8080",
        "default_language": "ar",
        "wifi": {"ssid": "Cafe Guest", "security": "WPA", "password": "correct horse"},
        "screen_sleep": null,
        "screen_off_idle_s": 0,
        "stored": true,
    })
}

async fn put(addr: SocketAddr, cookie: &str, body: &Value) -> support::Reply {
    send(
        addr,
        "PUT",
        "/api/owner/settings",
        Some(&body.to_string()),
        Some(cookie),
    )
    .await
}

async fn get_settings(addr: SocketAddr, cookie: &str) -> Value {
    let reply = send(addr, "GET", "/api/owner/settings", None, Some(cookie)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json()
}

async fn config(addr: SocketAddr) -> Value {
    let reply = send(addr, "GET", "/api/config", None, None).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json()
}

/// The settings part of `/api/config`.
fn config_settings(config: &Value) -> Value {
    json!({
        "kiosk_idle_s": config["kiosk_idle_s"],
        "public_url": config["public_url"],
        "default_language": config["default_language"],
        "wifi": config["wifi"],
    })
}

/// What `/api/config` serves for stored settings `s`.
fn as_config(s: &Value) -> Value {
    json!({
        "kiosk_idle_s": s["kiosk_idle_s"],
        "public_url": s["public_url"],
        "default_language": s["default_language"],
        "wifi": s["wifi"],
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saved_settings_override_the_flags_at_once_and_after_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), FLAGS);
    let addr = server.addr;
    let sara = register_at(addr, "sara", PASSWORD).await;
    make_owner(addr, &sara).await;

    // The flags' settings, not stored.
    let flags = json!({
        "kiosk_idle_s": 100,
        "public_url": "http://flag.example:8080",
        "default_language": "en",
        "wifi": {"ssid": "Flag Net", "security": "nopass", "password": null},
        "screen_sleep": null,
        "screen_off_idle_s": 0,
        "stored": false,
    });
    assert_eq!(get_settings(addr, &sara).await, flags);
    assert_eq!(config_settings(&config(addr).await), as_config(&flags));

    let saved = put(addr, &sara, &cafe()).await;
    assert_eq!(saved.status, 200, "{}", saved.text());
    assert_eq!(saved.json(), cafe_stored());
    // In force at once, without a restart.
    assert_eq!(
        config_settings(&config(addr).await),
        as_config(&cafe_stored())
    );
    assert_eq!(get_settings(addr, &sara).await, cafe_stored());
    // Logged with who and what (not the Wi-Fi password).
    let logged = server.wait_log_lines("saved the settings").await;
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert!(
        logged[0].contains("sara") && logged[0].contains("kiosk.cafe.example"),
        "{logged:?}"
    );
    assert!(!logged[0].contains("correct horse"), "{logged:?}");

    // The owner's settings win over the same flags after a restart.
    server.stop_with("-TERM");
    let server = Process::start(dir.path(), FLAGS);
    let addr = server.addr;
    let sara = sign_in(addr, "sara").await;
    assert_eq!(get_settings(addr, &sara).await, cafe_stored());
    assert_eq!(
        config_settings(&config(addr).await),
        as_config(&cafe_stored())
    );

    // Automatic address, no Wi-Fi: stored as such, over the flags' address and network.
    let plain =
        json!({"kiosk_idle_s": 30, "public_url": null, "default_language": "en", "wifi": null});
    let reply = put(addr, &sara, &plain).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let served = config(addr).await;
    assert_eq!(served["public_url"], format!("http://{addr}"), "{served}");
    assert_eq!(served["wifi"], Value::Null);
    assert_eq!(served["kiosk_idle_s"], 30);

    // Forgetting them puts the flags back in force, at once and after a restart.
    let reset = send(
        addr,
        "DELETE",
        "/api/owner/settings",
        Some("{}"),
        Some(&sara),
    )
    .await;
    assert_eq!(reset.status, 200, "{}", reset.text());
    assert_eq!(reset.json(), flags);
    assert_eq!(config_settings(&config(addr).await), as_config(&flags));
    server.stop_with("-TERM");
    let server = Process::start(dir.path(), FLAGS);
    assert_eq!(
        config_settings(&config(server.addr).await),
        as_config(&flags)
    );
    server.stop_with("-TERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_owners_see_or_change_the_settings() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), FLAGS);
    let addr = server.addr;
    let sara = register_at(addr, "sara", PASSWORD).await;
    let omar = register_at(addr, "omar", PASSWORD).await;
    make_owner(addr, &sara).await;
    let before = config(addr).await;
    for (method, body) in [
        ("GET", None),
        ("PUT", Some(cafe().to_string())),
        ("DELETE", Some("{}".to_owned())),
    ] {
        send(
            addr,
            method,
            "/api/owner/settings",
            body.as_deref(),
            Some(&omar),
        )
        .await
        .assert_error(403, "not_owner");
        send(addr, method, "/api/owner/settings", body.as_deref(), None)
            .await
            .assert_error(401, "not_signed_in");
    }
    send(
        addr,
        "POST",
        "/api/owner/settings",
        Some(&cafe().to_string()),
        Some(&sara),
    )
    .await
    .assert_error(405, "method_not_allowed");
    assert_eq!(config(addr).await, before);
    assert_eq!(get_settings(addr, &sara).await["stored"], false);
    assert!(!server.wait_log_lines("not an owner").await.is_empty());
    server.stop_with("-TERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_settings_are_refused_with_the_fields_code_and_nothing_is_stored() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), FLAGS);
    let addr = server.addr;
    let sara = register_at(addr, "sara", PASSWORD).await;
    make_owner(addr, &sara).await;
    assert_eq!(put(addr, &sara, &cafe()).await.status, 200);

    let with = |key: &str, value: Value| {
        let mut body = cafe();
        body[key] = value;
        body
    };
    let cases = [
        (with("kiosk_idle_s", json!(5)), "invalid_kiosk_idle"),
        (with("kiosk_idle_s", json!(86_400)), "invalid_kiosk_idle"),
        (with("kiosk_idle_s", json!("45")), "invalid_kiosk_idle"),
        (with("kiosk_idle_s", Value::Null), "invalid_kiosk_idle"),
        (
            with("public_url", json!("ftp://kiosk.example")),
            "invalid_public_url",
        ),
        (
            with("public_url", json!("http://kiosk.example/x")),
            "invalid_public_url",
        ),
        (
            with("public_url", json!("http://kiosk.example:99999")),
            "invalid_public_url",
        ),
        (
            with("public_url", json!("javascript:alert(1)")),
            "invalid_public_url",
        ),
        (
            with("default_language", json!("fr")),
            "invalid_default_language",
        ),
        (
            with("default_language", Value::Null),
            "invalid_default_language",
        ),
        (with("wifi", json!({"ssid": ""})), "invalid_wifi_ssid"),
        (
            with("wifi", json!({"ssid": "x".repeat(33)})),
            "invalid_wifi_ssid",
        ),
        (with("wifi", json!("Cafe Guest")), "invalid_wifi_ssid"),
        (
            with("wifi", json!({"ssid": "Cafe", "password": "short"})),
            "invalid_wifi_password",
        ),
        (
            with("wifi", json!({"ssid": "Cafe", "security": "WPA"})),
            "invalid_wifi_password",
        ),
        (
            with(
                "wifi",
                json!({"ssid": "Cafe", "security": "nopass", "password": "correct horse"}),
            ),
            "invalid_wifi_password",
        ),
    ];
    for (body, code) in &cases {
        let reply = put(addr, &sara, body).await;
        reply.assert_error(400, code);
        assert_eq!(
            get_settings(addr, &sara).await,
            cafe_stored(),
            "after {body}"
        );
    }
    for raw in ["[1, 2]", "\"settings\"", "{\"kiosk_idle_s\": 4", ""] {
        send(addr, "PUT", "/api/owner/settings", Some(raw), Some(&sara))
            .await
            .assert_error(400, "bad_json");
    }
    // Not JSON, or from another site's page: refused before anything is read.
    request(
        addr,
        "PUT",
        "/api/owner/settings",
        &[("Content-Type", "text/plain"), ("Cookie", &sara)],
        Some(cafe().to_string().as_bytes()),
    )
    .await
    .assert_error(415, "unsupported_media_type");
    request(
        addr,
        "PUT",
        "/api/owner/settings",
        &[
            ("Content-Type", "application/json"),
            ("Origin", "http://evil.example"),
            ("Cookie", &sara),
        ],
        Some(with("kiosk_idle_s", json!(10)).to_string().as_bytes()),
    )
    .await
    .assert_error(403, "bad_origin");
    assert_eq!(
        config_settings(&config(addr).await),
        as_config(&cafe_stored())
    );
    // Nothing of a refused request reached the file either.
    server.stop_with("-TERM");
    let server = Process::start(dir.path(), FLAGS);
    assert_eq!(
        config_settings(&config(server.addr).await),
        as_config(&cafe_stored())
    );
    server.stop_with("-TERM");
}

/// Settings number `i` of a burst: every field says `i`.
fn numbered(i: u64) -> Value {
    json!({
        "kiosk_idle_s": 10 + i,
        "public_url": format!("http://kiosk-{i}.example"),
        "default_language": if i % 2 == 0 { "en" } else { "ar" },
        "wifi": {"ssid": format!("net-{i}"), "security": "WPA", "password": format!("password-{i}")},
    })
}

/// Which of the numbered settings `s` is, checking that every field says the same.
fn number_of(s: &Value) -> u64 {
    let i = s["kiosk_idle_s"].as_u64().expect("idle") - 10;
    let whole = numbered(i);
    for key in ["public_url", "default_language", "wifi"] {
        assert_eq!(s[key], whole[key], "a mix of saves: {s}");
    }
    i
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_saves_end_in_one_of_the_written_values_never_a_mix() {
    const SAVES: u64 = 12;
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), FLAGS);
    let addr = server.addr;
    let sara = register_at(addr, "sara", PASSWORD).await;
    make_owner(addr, &sara).await;
    for round in 0..3 {
        let mut held = Vec::new();
        for i in 0..SAVES {
            let body = numbered(round * SAVES + i).to_string();
            let last = *body.as_bytes().last().expect("a body");
            let stream = hold_request(
                Ipv4Addr::LOCALHOST,
                addr,
                "PUT",
                "/api/owner/settings",
                &body,
                Some(&sara),
            )
            .await;
            held.push((stream, last));
        }
        let answers = futures_util::future::join_all(
            held.into_iter().map(|(stream, last)| finish(stream, last)),
        )
        .await;
        for (status, text) in &answers {
            assert_eq!(*status, 200, "{text}");
        }
        let stored = get_settings(addr, &sara).await;
        let winner = number_of(&stored);
        assert!(
            (round * SAVES..(round + 1) * SAVES).contains(&winner),
            "{stored}"
        );
        assert_eq!(
            config_settings(&config(addr).await),
            as_config(&stored),
            "what is served is what is stored"
        );
    }
    let stored = get_settings(addr, &sara).await;
    server.stop_with("-TERM");
    let server = Process::start(dir.path(), FLAGS);
    let again = config_settings(&config(server.addr).await);
    assert_eq!(
        again,
        as_config(&stored),
        "the last applied is the last stored"
    );
    server.stop_with("-TERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_carries_the_settings_and_an_older_one_keeps_those_in_force() {
    let old_dir = tempfile::tempdir().expect("temp dir");
    let old = Process::start(old_dir.path(), &[]);
    let sara = register_at(old.addr, "sara", PASSWORD).await;
    make_owner(old.addr, &sara).await;
    assert_eq!(put(old.addr, &sara, &cafe()).await.status, 200);
    let file = backup(old.addr, &sara).await;
    old.stop_with("-TERM");

    // A fresh kiosk with other flags and other saved settings.
    let new_dir = tempfile::tempdir().expect("temp dir");
    let new = Process::start(new_dir.path(), FLAGS);
    let addr = new.addr;
    let lina = register_at(addr, "lina", PASSWORD).await;
    make_owner(addr, &lina).await;
    assert_eq!(put(addr, &lina, &numbered(3)).await.status, 200);
    let preview = upload(addr, "/api/owner/restore/preview", &lina, &file).await;
    assert_eq!(preview.status, 200, "{}", preview.text());
    assert_eq!(preview.json()["settings"], true);
    let restored = upload(addr, "/api/owner/restore", &lina, &file).await;
    assert_eq!(restored.status, 200, "{}", restored.text());
    assert_eq!(
        config_settings(&config(addr).await),
        as_config(&cafe_stored())
    );
    let sara = sign_in(addr, "sara").await;
    assert_eq!(get_settings(addr, &sara).await, cafe_stored());

    // The replaced data was kept with its settings: restoring it brings them back.
    let kept = restored.json()["replaced_kept_as"]
        .as_str()
        .expect("kept")
        .to_owned();
    let replaced = std::fs::read(new_dir.path().join(&kept)).expect("the replaced data");
    assert_eq!(
        upload(addr, "/api/owner/restore", &sara, &replaced)
            .await
            .status,
        200
    );
    assert_eq!(
        config_settings(&config(addr).await),
        as_config(&numbered(3))
    );

    // A backup from before the settings existed restores, and the settings stay.
    let lina = sign_in(addr, "lina").await;
    // The schema-2 fixture was written before the settings table existed.
    let older = backup_of_fixture(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v2.redb"),
        2,
    );
    let preview = upload(addr, "/api/owner/restore/preview", &lina, &older).await;
    assert_eq!(preview.status, 200, "{}", preview.text());
    assert_eq!(preview.json()["settings"], false);
    let restored = upload(addr, "/api/owner/restore", &lina, &older).await;
    assert_eq!(restored.status, 200, "{}", restored.text());
    assert_eq!(
        send(addr, "GET", "/api/users/Ana", None, None).await.status,
        200
    );
    assert_eq!(
        config_settings(&config(addr).await),
        as_config(&numbered(3))
    );
    // And after a restart.
    new.stop_with("-TERM");
    let again = Process::start(new_dir.path(), FLAGS);
    assert_eq!(
        config_settings(&config(again.addr).await),
        as_config(&numbered(3))
    );
    again.stop_with("-TERM");
}

/// The QR codes `zbarimg` reads in the PNG at `path` (empty when there is none yet).
fn qr_codes(path: &Path) -> Vec<String> {
    let output = std::process::Command::new("zbarimg")
        .args(["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable"])
        .arg(path)
        .output()
        .expect("zbarimg runs (Debian's zbar-tools; scripts/test installs it)");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Waits (bounded) until the status display's QR code reads `want`.
async fn screen_shows(png: &Path, want: &str) {
    let mut seen = Vec::new();
    // The display redraws every 5 s.
    for _ in 0..60 {
        if png.exists() {
            seen = qr_codes(png);
            if seen == [want] {
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("the status display shows {seen:?}, not {want:?}, after 15 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_status_display_shows_the_saved_address() {
    let dir = tempfile::tempdir().expect("temp dir");
    let screen = dir.path().join("screen");
    let config = firmware_host::Config {
        display: Some(format!("png:{}:320x240", screen.display())),
        public_url: Some("http://flag.example:8080".into()),
        ..firmware_host::Config::for_tests(dir.path().join("data"))
    };
    let server = firmware_host::Server::start(config).await.expect("start");
    let addr = server.local_addr();
    let png = screen.join("status.png");
    screen_shows(&png, "http://flag.example:8080").await;
    let sara = register_at(addr, "sara", PASSWORD).await;
    make_owner(addr, &sara).await;
    assert_eq!(put(addr, &sara, &cafe()).await.status, 200);
    assert_eq!(
        firmware_host::display::current_status(server.app()).address,
        "http://kiosk.cafe.example:8080"
    );
    screen_shows(&png, "http://kiosk.cafe.example:8080").await;
    server.shutdown().await;
}

async fn reset_code(addr: SocketAddr, owner: &str, user: u64) -> String {
    let path = format!("/api/owner/users/{user}/reset-password");
    let reply = send(addr, "POST", &path, Some("{}"), Some(owner)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json()["code"].as_str().expect("code").to_owned()
}

/// A kiosk on `dir` whose owner Sara made a reset code for Omar: (server, Omar's id, code).
async fn kiosk_with_a_reset_code(dir: &Path) -> (Process, u64, String) {
    let server = Process::start(dir, &[]);
    let addr = server.addr;
    let sara = register_at(addr, "sara", PASSWORD).await;
    let omar = register_at(addr, "omar", PASSWORD).await;
    make_owner(addr, &sara).await;
    let omar_id = id_of(addr, &omar).await;
    let code = reset_code(addr, &sara, omar_id).await;
    (server, omar_id, code)
}

async fn redeem(addr: SocketAddr, code: &str, password: &str) -> support::Reply {
    let body = json!({"username": "omar", "code": code, "new_password": password}).to_string();
    send(addr, "POST", "/api/login/reset", Some(&body), None).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reset_code_still_works_after_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (server, omar_id, code) = kiosk_with_a_reset_code(dir.path()).await;
    // Killed without a chance to save anything: the code was stored when it was made.
    server.stop_with_kill();

    let server = Process::start(dir.path(), &[]);
    let addr = server.addr;
    let reply = redeem(addr, &code, "new password").await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let session = reply.cookie_pair("xo_session").expect("signed in");
    assert_eq!(id_of(addr, &session).await, omar_id);
    // Used once, across restarts too.
    server.stop_with("-TERM");
    let server = Process::start(dir.path(), &[]);
    redeem(server.addr, &code, "third password")
        .await
        .assert_error(403, "bad_reset_code");
    server.stop_with("-TERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn five_wrong_guesses_spend_a_reset_code_across_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (server, omar_id, code) = kiosk_with_a_reset_code(dir.path()).await;
    let addr = server.addr;
    let wrong = a_wrong_code(&code);
    // Three wrong guesses, sent together (each is counted: none is lost to a race).
    let guesses =
        futures_util::future::join_all((0..3).map(|_| redeem(addr, &wrong, "new password"))).await;
    for reply in guesses {
        reply.assert_error(403, "bad_reset_code");
    }
    server.stop_with("-TERM");

    // The restart forgets the sign-in throttle, not the guesses.
    let server = Process::start(dir.path(), &[]);
    let addr = server.addr;
    for _ in 0..2 {
        redeem(addr, &wrong, "new password")
            .await
            .assert_error(403, "bad_reset_code");
    }
    redeem(addr, &code, "new password")
        .await
        .assert_error(403, "bad_reset_code");
    assert_eq!(
        server
            .wait_log_lines("spent by 5 wrong guesses")
            .await
            .len(),
        1
    );
    // The old password still works; a new code from the owner does too.
    let omar = sign_in(addr, "omar").await;
    let sara = sign_in(addr, "sara").await;
    assert_eq!(id_of(addr, &omar).await, omar_id);
    let fresh = reset_code(addr, &sara, omar_id).await;
    let reply = redeem(addr, &fresh, "new password").await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    server.stop_with("-TERM");
}

/// AP3: the screen's sleep settings come from the flags (`xo-kiosk.txt` on the image), an
/// owner's save overrides them at once and after a restart, `/api/config` serves them to the
/// kiosk's page, bad values are refused with their own codes and nothing stored, and a save
/// without them (an older page) means none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn screen_sleep_settings_from_the_flags_and_an_owner() {
    let dir = tempfile::tempdir().expect("temp dir");
    let flags = [
        ("XO_SCREEN_SLEEP", "23:00-08:00"),
        ("XO_SCREEN_OFF_IDLE", "600"),
    ];
    let server = Process::start(dir.path(), &flags);
    let addr = server.addr;
    let served = config(addr).await;
    assert_eq!(
        served["screen_sleep"],
        json!({"from": "23:00", "until": "08:00"}),
        "{served}"
    );
    assert_eq!(served["screen_off_idle_s"], 600, "{served}");
    let sara = register_at(addr, "sara", PASSWORD).await;
    make_owner(addr, &sara).await;

    let mut night = cafe();
    night["screen_sleep"] = json!({"from": "22:30", "until": "07:00"});
    night["screen_off_idle_s"] = json!(300);
    let saved = put(addr, &sara, &night).await;
    assert_eq!(saved.status, 200, "{}", saved.text());
    let saved = saved.json();
    assert_eq!(
        saved["screen_sleep"],
        json!({"from": "22:30", "until": "07:00"})
    );
    assert_eq!(saved["screen_off_idle_s"], 300);
    let served = config(addr).await;
    assert_eq!(served["screen_sleep"], saved["screen_sleep"], "{served}");
    assert_eq!(served["screen_off_idle_s"], 300, "{served}");

    for (field, value, code) in [
        (
            "screen_sleep",
            json!({"from": "22:30", "until": "22:30"}),
            "invalid_screen_sleep",
        ),
        (
            "screen_sleep",
            json!({"from": "7 pm", "until": "07:00"}),
            "invalid_screen_sleep",
        ),
        ("screen_sleep", json!("22:30-07:00"), "invalid_screen_sleep"),
        ("screen_off_idle_s", json!(3), "invalid_screen_off_idle"),
        ("screen_off_idle_s", json!("300"), "invalid_screen_off_idle"),
    ] {
        let mut bad = night.clone();
        bad[field] = value;
        put(addr, &sara, &bad).await.assert_error(400, code);
    }
    assert_eq!(get_settings(addr, &sara).await, saved, "nothing stored");

    server.stop_with("-TERM");
    let server = Process::start(dir.path(), &flags);
    let addr = server.addr;
    let sara = sign_in(addr, "sara").await;
    assert_eq!(
        get_settings(addr, &sara).await,
        saved,
        "kept over a restart"
    );

    // A page without the fields saves none: never sleeps.
    let reply = put(addr, &sara, &cafe()).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let served = config(addr).await;
    assert_eq!(served["screen_sleep"], Value::Null, "{served}");
    assert_eq!(served["screen_off_idle_s"], 0, "{served}");
    server.stop_with("-TERM");
}

/// The kiosk's page reports when its screen sleeps and wakes (`POST /api/kiosk/screen`), and
/// the compositor's hook reads it (`GET`): from the kiosk's own machine.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_kiosk_page_reports_its_screen_sleeping_and_waking() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let addr = server.addr;
    let get = || async { send(addr, "GET", "/api/kiosk/screen", None, None).await };
    let first = get().await;
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!(first.json(), json!({"asleep": false, "changed_ms": 0}));

    let asleep = send(
        addr,
        "POST",
        "/api/kiosk/screen",
        Some(r#"{"asleep":true}"#),
        None,
    )
    .await;
    assert_eq!(asleep.status, 200, "{}", asleep.text());
    let asleep = asleep.json();
    assert_eq!(asleep["asleep"], true);
    let since = asleep["changed_ms"].as_u64().expect("changed_ms");
    assert!(since > 0, "{asleep}");
    assert_eq!(get().await.json(), asleep);
    // The same report again changes nothing.
    let again = send(
        addr,
        "POST",
        "/api/kiosk/screen",
        Some(r#"{"asleep":true}"#),
        None,
    )
    .await;
    assert_eq!(again.json(), asleep);

    let awake = send(
        addr,
        "POST",
        "/api/kiosk/screen",
        Some(r#"{"asleep":false}"#),
        None,
    )
    .await;
    assert_eq!(awake.json()["asleep"], false);
    assert!(awake.json()["changed_ms"].as_u64() >= Some(since));
    send(
        addr,
        "POST",
        "/api/kiosk/screen",
        Some(r#"{"asleep":"yes"}"#),
        None,
    )
    .await
    .assert_error(400, "bad_json");
    assert_eq!(
        server
            .wait_log_lines("the kiosk's screen sleeps")
            .await
            .len(),
        1
    );
    assert_eq!(
        server.wait_log_lines("the kiosk's screen woke").await.len(),
        1
    );
    server.stop_with("-TERM");
}
