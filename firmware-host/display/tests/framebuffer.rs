//! The framebuffer backend against a temporary file standing in for `/dev/fbN`, with a fake
//! sysfs directory describing it.

mod common;

use std::{fs, path::Path};

use common::{DEFAULT_ADDRESS, status, zbar_decode};
use embedded_graphics::{pixelcolor::Rgb888, prelude::*};
use embedded_graphics_simulator::SimulatorDisplay;
use status_display::{Backend, Display, DisplayError, png::render_tft, png::write_png};

/// A fake `/dev/fb1` of `len` bytes (pre-filled with 0xAA to show what is overwritten) and a fake
/// `/sys/class/graphics/fb1` with the given attributes.
fn fake_framebuffer(root: &Path, attrs: &[(&str, &str)], len: usize) -> Backend {
    let sysfs = root.join("sys");
    fs::create_dir_all(sysfs.join("fb1")).expect("mkdir");
    for (name, value) in attrs {
        fs::write(sysfs.join("fb1").join(name), format!("{value}\n")).expect("write attribute");
    }
    let device = root.join("fb1");
    fs::write(&device, vec![0xaa; len]).expect("write device");
    Backend::Framebuffer { device, sysfs }
}

/// Embedded-graphics' conversion to RGB565: each channel rounded to its bit depth.
fn rgb565(c: Rgb888) -> u16 {
    let ch = |v: u8, max: u32| (u32::from(v) * max + 127) / 255;
    u16::try_from(ch(c.r(), 31) << 11 | ch(c.g(), 63) << 5 | ch(c.b(), 31)).expect("16 bits")
}

fn show_on(backend: &Backend) -> Vec<u8> {
    let mut display = Display::open(backend).expect("open framebuffer");
    display.show(&status(DEFAULT_ADDRESS)).expect("show");
    match backend {
        Backend::Framebuffer { device, .. } => fs::read(device).expect("read device"),
        _ => unreachable!("framebuffer backend"),
    }
}

#[test]
fn framebuffer_16bpp_holds_the_rendered_screen_as_rgb565() {
    let dir = tempfile::tempdir().expect("temp dir");
    let backend = fake_framebuffer(
        dir.path(),
        &[("virtual_size", "320,240"), ("bits_per_pixel", "16")],
        320 * 240 * 2,
    );
    let bytes = show_on(&backend);
    assert_eq!(bytes.len(), 320 * 240 * 2);
    let expected = render_tft(&status(DEFAULT_ADDRESS), Size::new(320, 240));
    for p in expected.bounding_box().points() {
        let at = (p.y as usize * 320 + p.x as usize) * 2;
        let got = u16::from_ne_bytes([bytes[at], bytes[at + 1]]);
        assert_eq!(got, rgb565(expected.get_pixel(p)), "pixel {p:?}");
    }
}

#[test]
fn framebuffer_32bpp_holds_blue_green_red_and_an_opaque_byte() {
    let dir = tempfile::tempdir().expect("temp dir");
    let backend = fake_framebuffer(
        dir.path(),
        &[("virtual_size", "480,320"), ("bits_per_pixel", "32")],
        480 * 320 * 4,
    );
    let bytes = show_on(&backend);
    let expected = render_tft(&status(DEFAULT_ADDRESS), Size::new(480, 320));
    for p in expected.bounding_box().points() {
        let at = (p.y as usize * 480 + p.x as usize) * 4;
        let c = expected.get_pixel(p);
        let want =
            (0xff00_0000u32 | u32::from(c.r()) << 16 | u32::from(c.g()) << 8 | u32::from(c.b()))
                .to_ne_bytes();
        assert_eq!(bytes[at..at + 4], want, "pixel {p:?}");
    }
    if cfg!(target_endian = "little") {
        // White is FF FF FF FF; the first pixel is the background, stored blue first.
        assert_eq!(&bytes[..4], &[0x30, 0x18, 0x10, 0xff]);
    }
}

#[test]
fn framebuffer_honours_stride_padding_between_lines() {
    let dir = tempfile::tempdir().expect("temp dir");
    // 100 pixels of 2 bytes need 200 bytes per line; the driver pads lines to 256.
    let backend = fake_framebuffer(
        dir.path(),
        &[
            ("virtual_size", "100,80"),
            ("bits_per_pixel", "16"),
            ("stride", "256"),
        ],
        256 * 80,
    );
    let bytes = show_on(&backend);
    let expected = render_tft(&status(DEFAULT_ADDRESS), Size::new(100, 80));
    for y in 0..80usize {
        let line = &bytes[y * 256..(y + 1) * 256];
        for x in 0..100usize {
            let c = expected.get_pixel(Point::new(x as i32, y as i32));
            assert_eq!(
                u16::from_ne_bytes([line[2 * x], line[2 * x + 1]]),
                rgb565(c),
                "pixel ({x}, {y})"
            );
        }
        // The buffer is zero-filled: padding is written as zeros, never as pixels.
        assert!(line[200..].iter().all(|&b| b == 0), "padding of line {y}");
    }
}

#[test]
fn framebuffer_contents_read_back_as_the_address_with_zbarimg() {
    let dir = tempfile::tempdir().expect("temp dir");
    let backend = fake_framebuffer(
        dir.path(),
        &[("virtual_size", "320,240"), ("bits_per_pixel", "16")],
        320 * 240 * 2,
    );
    let bytes = show_on(&backend);
    // Expand RGB565 back to RGB888 as the panel would show it.
    let mut image = SimulatorDisplay::<Rgb888>::new(Size::new(320, 240));
    let pixels = (0..240)
        .flat_map(|y| (0..320).map(move |x| (x, y)))
        .map(|(x, y)| {
            let at = (y * 320 + x) * 2;
            let v = u16::from_ne_bytes([bytes[at], bytes[at + 1]]);
            let (r, g, b) = ((v >> 11) as u8, ((v >> 5) & 0x3f) as u8, (v & 0x1f) as u8);
            Pixel(
                Point::new(x as i32, y as i32),
                Rgb888::new(r << 3, g << 2, b << 3),
            )
        });
    image.draw_iter(pixels).expect("infallible");
    let png = dir.path().join("fb.png");
    write_png(&image, &png, 1).expect("write PNG");
    assert_eq!(zbar_decode(&png), [DEFAULT_ADDRESS]);
}

#[test]
fn framebuffer_with_8_bits_per_pixel_is_refused_by_name() {
    let dir = tempfile::tempdir().expect("temp dir");
    let backend = fake_framebuffer(
        dir.path(),
        &[("virtual_size", "320,240"), ("bits_per_pixel", "8")],
        320 * 240,
    );
    let err = Display::open(&backend).expect_err("8 bpp is not supported");
    assert!(
        matches!(
            err,
            DisplayError::UnsupportedPixelFormat {
                bits_per_pixel: 8,
                ..
            }
        ),
        "{err:?}"
    );
    assert!(err.to_string().contains("8 bits per pixel"), "{err}");
}

#[test]
fn framebuffer_without_sysfs_geometry_names_the_missing_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let backend = fake_framebuffer(dir.path(), &[("bits_per_pixel", "16")], 16);
    let err = Display::open(&backend).expect_err("no virtual_size");
    assert!(matches!(err, DisplayError::Geometry { .. }), "{err:?}");
    assert!(err.to_string().contains("fb1/virtual_size"), "{err}");
}

#[test]
fn framebuffer_with_garbled_virtual_size_is_refused() {
    let dir = tempfile::tempdir().expect("temp dir");
    let backend = fake_framebuffer(
        dir.path(),
        &[("virtual_size", "320x240"), ("bits_per_pixel", "16")],
        16,
    );
    let err = Display::open(&backend).expect_err("bad virtual_size");
    assert!(err.to_string().contains("expected WIDTH,HEIGHT"), "{err}");
}

#[test]
fn framebuffer_device_that_does_not_exist_is_no_such_device() {
    let dir = tempfile::tempdir().expect("temp dir");
    let backend = Backend::Framebuffer {
        device: dir.path().join("fb7"),
        sysfs: dir.path().to_owned(),
    };
    let err = Display::open(&backend).expect_err("missing device");
    assert!(matches!(err, DisplayError::NoSuchDevice { .. }), "{err:?}");
    assert!(err.to_string().starts_with("no such device"), "{err}");
}
