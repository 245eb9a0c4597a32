//! Opening backends that cannot work here fails with a typed error and a message that says why.

use status_display::{Backend, Display};

#[cfg(all(feature = "ssd1306", target_os = "linux"))]
#[test]
fn ssd1306_on_a_missing_i2c_bus_is_no_such_device_with_a_hint() {
    let backend: Backend = "ssd1306:/dev/i2c-no-such-bus"
        .parse()
        .expect("valid backend");
    let err = Display::open(&backend).expect_err("no such bus");
    assert!(
        matches!(err, status_display::DisplayError::NoSuchDevice { .. }),
        "{err:?}"
    );
    let message = err.to_string();
    assert!(
        message.contains("/dev/i2c-no-such-bus") && message.contains("enable I2C"),
        "{message}"
    );
}

#[cfg(all(feature = "ssd1306", target_os = "linux"))]
#[test]
fn ssd1306_on_a_file_that_is_not_an_i2c_bus_is_an_i2c_error() {
    // /dev/null opens but refuses the I2C ioctls.
    let backend: Backend = "ssd1306:/dev/null:0x3c".parse().expect("valid backend");
    let err = Display::open(&backend).expect_err("not a bus");
    assert!(
        matches!(err, status_display::DisplayError::I2c { address: 0x3c, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("SSD1306 at 0x3c on /dev/null"),
        "{err}"
    );
}

#[cfg(not(all(feature = "ssd1306", target_os = "linux")))]
#[test]
fn ssd1306_without_the_feature_says_which_feature_to_enable() {
    let backend: Backend = "ssd1306".parse().expect("valid backend");
    let err = Display::open(&backend).expect_err("not built in");
    assert!(err.to_string().contains("`ssd1306` feature"), "{err}");
}

#[cfg(not(feature = "png"))]
#[test]
fn png_without_the_feature_says_which_feature_to_enable() {
    let backend: Backend = "png:out".parse().expect("valid backend");
    let err = Display::open(&backend).expect_err("not built in");
    assert!(err.to_string().contains("`png` feature"), "{err}");
}

#[cfg(feature = "png")]
#[test]
fn png_backend_in_an_unwritable_place_is_an_io_error() {
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"").expect("write");
    // A directory cannot be created under a regular file.
    let backend = Backend::Png {
        dir: file.join("sub"),
        screen: status_display::PngScreen::Oled,
    };
    let err = Display::open(&backend).expect_err("cannot create");
    assert!(err.to_string().contains("creating directory"), "{err}");
}
