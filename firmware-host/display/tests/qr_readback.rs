//! The QR code on every screen reads back, with Debian's `zbarimg`, as exactly the address.

mod common;

use common::{
    DEFAULT_ADDRESS, LONG_ADDRESS, SHORT_ADDRESS, render_and_decode, status, zbar_decode,
};
use embedded_graphics::{
    pixelcolor::{BinaryColor, Rgb888},
    prelude::*,
    primitives::Rectangle,
};
use status_display::{
    Backend, Display, Layout, OLED_SIZE,
    png::{render_oled, render_tft},
    qr::QUIET_ZONE,
};

fn oled_area() -> Rectangle {
    Rectangle::new(Point::zero(), OLED_SIZE)
}

#[test]
fn oled_qr_code_reads_back_as_the_default_address() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Scaled up as a phone camera sees the panel; zbarimg needs a few pixels per module.
    let decoded = render_and_decode(
        &render_oled(&status(DEFAULT_ADDRESS)),
        dir.path(),
        "oled",
        4,
    );
    assert_eq!(decoded, [DEFAULT_ADDRESS]);
}

#[test]
fn oled_qr_code_reads_back_at_native_resolution_when_modules_are_two_pixels() {
    let layout = Layout::new(oled_area(), SHORT_ADDRESS);
    assert_eq!(layout.qr().expect("QR fits").scale(), 2);
    let dir = tempfile::tempdir().expect("temp dir");
    let decoded = render_and_decode(&render_oled(&status(SHORT_ADDRESS)), dir.path(), "oled", 1);
    assert_eq!(decoded, [SHORT_ADDRESS]);
}

#[test]
fn long_address_is_shortened_on_screen_but_whole_in_the_qr_code() {
    let layout = Layout::new(oled_area(), LONG_ADDRESS);
    assert!(
        LONG_ADDRESS.len() > 2 * layout.address_chars_per_line(),
        "the test address must be too long for the two text lines"
    );
    let qr = layout.qr_area().expect("a QR code still fits");
    assert!(qr.size.height <= 64);
    let dir = tempfile::tempdir().expect("temp dir");
    let decoded = render_and_decode(
        &render_oled(&status(LONG_ADDRESS)),
        dir.path(),
        "oled-long",
        4,
    );
    assert_eq!(decoded, [LONG_ADDRESS]);
}

#[test]
fn tft_qr_codes_read_back_as_the_address_at_native_resolution() {
    let dir = tempfile::tempdir().expect("temp dir");
    for (w, h) in [(320, 240), (480, 320), (240, 320)] {
        for address in [DEFAULT_ADDRESS, LONG_ADDRESS] {
            let display = render_tft(&status(address), Size::new(w, h));
            let decoded = render_and_decode(&display, dir.path(), &format!("tft-{w}x{h}"), 1);
            assert_eq!(decoded, [address], "{w}x{h}");
        }
    }
}

#[test]
fn qr_dark_modules_are_pixels_off_inside_a_lit_quiet_zone_of_four_modules() {
    let display = render_oled(&status(DEFAULT_ADDRESS));
    let layout = Layout::new(oled_area(), DEFAULT_ADDRESS);
    let area = layout.qr_area().expect("QR fits");
    let plan = layout.qr().expect("QR fits");
    let quiet = i32::try_from(QUIET_ZONE * plan.scale()).expect("small");
    let (x0, y0) = (area.top_left.x, area.top_left.y);
    let side = i32::try_from(area.size.width).expect("small");
    let mut dark = 0;
    for p in area.points() {
        let (dx, dy) = (p.x - x0, p.y - y0);
        let in_quiet_zone = dx < quiet || dy < quiet || dx >= side - quiet || dy >= side - quiet;
        let pixel = display.get_pixel(p);
        if in_quiet_zone {
            assert_eq!(pixel, BinaryColor::On, "quiet zone pixel {p:?} must be lit");
        } else if pixel == BinaryColor::Off {
            dark += 1;
        }
    }
    // The top-left finder pattern's corner module is dark: drawn as a pixel off.
    assert_eq!(
        display.get_pixel(area.top_left + Point::new_equal(quiet)),
        BinaryColor::Off
    );
    assert!(dark > 100, "a QR code has many dark modules, found {dark}");
}

#[test]
fn tft_qr_code_is_black_on_white() {
    let display = render_tft(&status(DEFAULT_ADDRESS), Size::new(320, 240));
    let layout = Layout::new(
        Rectangle::new(Point::zero(), Size::new(320, 240)),
        DEFAULT_ADDRESS,
    );
    let area = layout.qr_area().expect("QR fits");
    let quiet = i32::try_from(QUIET_ZONE * layout.qr().expect("QR fits").scale()).expect("small");
    assert_eq!(display.get_pixel(area.top_left), Rgb888::WHITE);
    assert_eq!(
        display.get_pixel(area.top_left + Point::new_equal(quiet)),
        Rgb888::BLACK
    );
}

#[test]
fn png_backend_writes_status_png_that_reads_back_as_the_address() {
    let dir = tempfile::tempdir().expect("temp dir");
    for spec in [
        format!("png:{}", dir.path().display()),
        format!("png:{}:480x320", dir.path().display()),
    ] {
        let backend: Backend = spec.parse().expect("valid backend");
        let mut display = Display::open(&backend).expect("open PNG backend");
        display.show(&status(DEFAULT_ADDRESS)).expect("show");
        assert_eq!(
            zbar_decode(&dir.path().join("status.png")),
            [DEFAULT_ADDRESS],
            "{spec}"
        );
    }
}

#[test]
fn oled_qr_code_reads_back_for_address_lengths_from_10_to_230_bytes() {
    let dir = tempfile::tempdir().expect("temp dir");
    for len in [10, 17, 18, 26, 32, 53, 78, 106, 154, 192, 230] {
        let address = format!("http://xo.local/{}", "a1-".repeat(100));
        let address = &address[..len];
        let display = render_oled(&status(address));
        let decoded = render_and_decode(&display, dir.path(), &format!("len-{len}"), 4);
        assert_eq!(decoded, [address], "{len} bytes");
    }
}

#[test]
fn oled_has_no_qr_code_for_an_address_over_230_bytes() {
    let address = format!("http://xo.local/{}", "a".repeat(215));
    assert_eq!(address.len(), 231);
    assert!(Layout::new(oled_area(), &address).qr().is_none());
}
