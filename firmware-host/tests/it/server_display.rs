//! P5 wired into the server: `--display png:DIR` draws the status screen with the public
//! address and the hub's counts; a bad backend stops the start with a clear error.

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

#[tokio::test]
async fn unknown_display_backend_stops_the_start() {
    let dir = tempfile::tempdir().expect("temp dir");
    let config = Config {
        display: Some("hologram:/dev/null".into()),
        ..Config::for_tests(dir.path())
    };
    let error = Server::start(config).await.expect_err("refused");
    assert!(format!("{error:#}").contains("hologram"), "{error:#}");
}
