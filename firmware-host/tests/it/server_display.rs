//! P5 wired into the server: `--display png:DIR` draws the status screen with the public
//! address and the hub's counts. AP4: a display that cannot be used (a setting not
//! understood, a device that does not open) never stops the server; the owner's health page
//! (`GET /api/owner/health`) says why, and `none` means no display.

use std::time::Duration;

use firmware_host::{Config, Server};

#[tokio::test]
async fn png_status_display_is_drawn_with_the_public_url() {
    let dir = tempfile::tempdir().expect("temp dir");
    let screen_dir = dir.path().join("screen");
    let config = Config {
        display: Some(format!("png:{}", screen_dir.display())),
        public_url: Some("http://xo.local:8080".into()),
        ..Config::for_tests(dir.path().join("data"))
    };
    let server = Server::start(config).await.expect("start");
    let png = screen_dir.join("status.png");
    let mut drawn = false;
    for _ in 0..250 {
        if std::fs::metadata(&png).is_ok_and(|m| m.len() > 0) {
            drawn = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(drawn, "{} written within 5 s", png.display());
    let status = firmware_host::display::current_status(server.app());
    assert_eq!(status.address, "http://xo.local:8080");
    assert_eq!((status.rooms_waiting, status.rooms_playing), (0, 0));
    server.shutdown().await;
}

/// The owner's health page's `display` for a server started with `display`.
async fn display_health(display: Option<&str>) -> serde_json::Value {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = Config {
        display: display.map(str::to_owned),
        ..Config::for_tests(dir.path().join("data"))
    };
    let server = Server::start(config)
        .await
        .expect("the server starts whatever the display");
    let addr = server.local_addr();
    let cookie = crate::support::register_at(addr, "owner", "password1").await;
    crate::support::owner::make_owner(addr, &cookie).await;
    // The display thread reports within a moment.
    let mut health = serde_json::Value::Null;
    for _ in 0..100 {
        let reply =
            crate::support::owner::send(addr, "GET", "/api/owner/health", None, Some(&cookie))
                .await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        health = reply.json();
        if health["display"]["state"] != "starting" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    server.shutdown().await;
    health["display"].clone()
}

#[tokio::test]
async fn a_display_setting_not_understood_is_reported_and_the_server_runs() {
    let display = display_health(Some("hologram:/dev/null")).await;
    assert_eq!(display["backend"], "hologram:/dev/null", "{display}");
    assert_eq!(display["state"], "failing", "{display}");
    assert!(
        display["error"]
            .as_str()
            .is_some_and(|e| e.contains("hologram")),
        "{display}"
    );
}

#[tokio::test]
async fn a_display_device_that_does_not_open_is_reported_and_the_server_runs() {
    for spec in ["fb:/dev/no-such-fb", "ssd1306:/dev/no-such-i2c"] {
        let display = display_health(Some(spec)).await;
        assert_eq!(display["backend"], spec, "{display}");
        assert_eq!(display["state"], "failing", "{display}");
        assert!(
            display["error"]
                .as_str()
                .is_some_and(|e| e.contains("/dev/no-such-")),
            "{display}"
        );
    }
}

#[tokio::test]
async fn display_none_means_no_display_and_a_working_one_says_ok() {
    assert_eq!(display_health(None).await, serde_json::Value::Null);
    assert_eq!(display_health(Some("none")).await, serde_json::Value::Null);
    let dir = tempfile::tempdir().expect("temp dir");
    let spec = format!("png:{}", dir.path().display());
    let display = display_health(Some(&spec)).await;
    assert_eq!(display["state"], "ok", "{display}");
    assert_eq!(display["error"], serde_json::Value::Null, "{display}");
}
