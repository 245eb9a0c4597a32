//! The status screens, pixel for pixel, against PNG snapshots in `tests/snapshots/`.
//! `UPDATE_SNAPSHOTS=1 cargo test -p status-display` rewrites them after an intended change.

mod common;

use common::{DEFAULT_ADDRESS, LONG_ADDRESS, SHORT_ADDRESS, assert_snapshot, status};
use embedded_graphics::{prelude::*, primitives::Rectangle};
use status_display::{
    Layout, OLED_SIZE, Status, StorageWarning,
    png::{render_oled, render_tft},
};

#[test]
fn oled_default_address_matches_snapshot() {
    assert_snapshot("oled-default", &render_oled(&status(DEFAULT_ADDRESS)));
}

#[test]
fn oled_short_address_matches_snapshot() {
    assert_snapshot("oled-short-address", &render_oled(&status(SHORT_ADDRESS)));
}

#[test]
fn oled_long_address_matches_snapshot() {
    assert_snapshot("oled-long-address", &render_oled(&status(LONG_ADDRESS)));
}

#[test]
fn oled_large_figures_match_snapshot() {
    let status = Status {
        address: "http://192.168.100.200:8080".into(),
        players_online: 4_294_967_295,
        rooms_waiting: 1234,
        rooms_playing: 99_999,
        uptime_s: 1000 * 86_400 + 23 * 3600 + 59 * 60,
        storage: None,
    };
    assert_snapshot("oled-large-figures", &render_oled(&status));
}

#[test]
fn oled_address_too_long_for_any_qr_code_matches_snapshot() {
    let address = format!("http://{}.local:8080", "x".repeat(300));
    assert!(
        Layout::new(Rectangle::new(Point::zero(), OLED_SIZE), &address)
            .qr()
            .is_none()
    );
    assert_snapshot("oled-no-qr", &render_oled(&status(&address)));
}

#[test]
fn tft_320x240_matches_snapshot() {
    assert_snapshot(
        "tft-320x240",
        &render_tft(&status(DEFAULT_ADDRESS), Size::new(320, 240)),
    );
}

#[test]
fn tft_480x320_matches_snapshot() {
    assert_snapshot(
        "tft-480x320",
        &render_tft(&status(DEFAULT_ADDRESS), Size::new(480, 320)),
    );
}

#[test]
fn tft_portrait_240x320_matches_snapshot() {
    assert_snapshot(
        "tft-240x320",
        &render_tft(&status(DEFAULT_ADDRESS), Size::new(240, 320)),
    );
}

#[test]
fn tft_long_address_matches_snapshot() {
    assert_snapshot(
        "tft-320x240-long-address",
        &render_tft(&status(LONG_ADDRESS), Size::new(320, 240)),
    );
}

/// A failing card replaces the uptime line: the owner sees "degraded" at a glance (issue 10.2).
#[test]
fn oled_degraded_storage_matches_snapshot() {
    let status = Status {
        storage: Some(StorageWarning::Failing),
        ..status(DEFAULT_ADDRESS)
    };
    assert_snapshot("oled-degraded", &render_oled(&status));
}

#[test]
fn tft_nearly_full_card_matches_snapshot() {
    let status = Status {
        storage: Some(StorageWarning::NearlyFull),
        ..status(DEFAULT_ADDRESS)
    };
    assert_snapshot(
        "tft-320x240-degraded",
        &render_tft(&status, Size::new(320, 240)),
    );
}
