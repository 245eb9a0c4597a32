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
        owner_code: None,
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

/// A failing card replaces the uptime line: the owner sees "degraded" at a glance.
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

/// A kiosk without an owner shows a one-time owner code instead of the uptime (AP2): whoever
/// can read the screen holds the kiosk.
#[test]
fn oled_owner_code_matches_snapshot() {
    let status = Status {
        owner_code: Some("12345678".into()),
        ..status(DEFAULT_ADDRESS)
    };
    assert_snapshot("oled-owner-code", &render_oled(&status));
}

#[test]
fn tft_owner_code_matches_snapshot() {
    let status = Status {
        owner_code: Some("12345678".into()),
        ..status(DEFAULT_ADDRESS)
    };
    assert_snapshot(
        "tft-320x240-owner-code",
        &render_tft(&status, Size::new(320, 240)),
    );
}

/// The card's trouble comes first: no owner can be added while writes fail.
#[test]
fn a_failing_card_is_shown_before_the_owner_code() {
    let failing = Status {
        storage: Some(StorageWarning::Failing),
        ..status(DEFAULT_ADDRESS)
    };
    let both = Status {
        owner_code: Some("12345678".into()),
        ..failing.clone()
    };
    assert_eq!(
        render_oled(&both)
            .to_grayscale_output_image(&Default::default())
            .as_image_buffer()
            .into_raw(),
        render_oled(&failing)
            .to_grayscale_output_image(&Default::default())
            .as_image_buffer()
            .into_raw(),
    );
}
