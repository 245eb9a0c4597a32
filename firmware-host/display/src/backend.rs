//! Which screen to draw on, parsed from a command-line string.

use std::{fmt, path::PathBuf, str::FromStr};

use crate::error::ParseBackendError;

/// Where sysfs describes framebuffers.
pub const DEFAULT_SYSFS_GRAPHICS: &str = "/sys/class/graphics";

/// The SSD1306's usual I²C address (0x3D when its address pad is bridged).
pub const SSD1306_DEFAULT_ADDRESS: u8 = 0x3c;

/// The Raspberry Pi's I²C bus on header pins 3 and 5.
pub const SSD1306_DEFAULT_DEVICE: &str = "/dev/i2c-1";

/// What a PNG backend imitates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PngScreen {
    /// The 128×64 monochrome OLED.
    Oled,
    /// A colour TFT of this size.
    Tft {
        /// Pixels across.
        width: u32,
        /// Pixels down.
        height: u32,
    },
}

/// A display backend.
///
/// | string | backend |
/// |---|---|
/// | `png:DIR` | `DIR/status.png`, as the 128×64 OLED would show it |
/// | `png:DIR:320x240` | `DIR/status.png`, as a colour TFT of that size would show it |
/// | `ssd1306` or `ssd1306:/dev/i2c-1[:0x3c]` | an SSD1306 128×64 OLED on a Linux I²C bus |
/// | `fb:/dev/fb1` | a Linux framebuffer (SPI TFTs), geometry from `/sys/class/graphics/fb1` |
///
/// ```
/// use status_display::Backend;
///
/// let backend: Backend = "ssd1306:/dev/i2c-1:0x3d".parse().unwrap();
/// assert_eq!(backend, Backend::Ssd1306 { device: "/dev/i2c-1".into(), address: 0x3d });
/// assert_eq!(backend.to_string(), "ssd1306:/dev/i2c-1:0x3d");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// PNG files through the embedded-graphics simulator, for working without hardware.
    Png {
        /// The directory `status.png` is written to; created if missing.
        dir: PathBuf,
        /// The screen imitated.
        screen: PngScreen,
    },
    /// An SSD1306 128×64 OLED on a Linux I²C bus.
    Ssd1306 {
        /// The bus device, e.g. `/dev/i2c-1`.
        device: PathBuf,
        /// The 7-bit address, usually 0x3C.
        address: u8,
    },
    /// A Linux framebuffer device.
    Framebuffer {
        /// The device, e.g. `/dev/fb1`.
        device: PathBuf,
        /// The directory holding one directory per framebuffer (`fb1/virtual_size`, …);
        /// [`DEFAULT_SYSFS_GRAPHICS`] except in tests.
        sysfs: PathBuf,
    },
}

impl FromStr for Backend {
    type Err = ParseBackendError;

    fn from_str(spec: &str) -> Result<Backend, ParseBackendError> {
        let err = |reason: &str| ParseBackendError {
            spec: spec.to_owned(),
            reason: reason.to_owned(),
        };
        let (kind, rest) = match spec.split_once(':') {
            Some((kind, rest)) => (kind, Some(rest)),
            None => (spec, None),
        };
        match kind {
            "png" => {
                let rest = rest
                    .filter(|r| !r.is_empty())
                    .ok_or_else(|| err("png needs a directory"))?;
                let (dir, screen) = match rest.rsplit_once(':') {
                    Some((dir, size)) if looks_like_size(size) => {
                        let (width, height) = parse_size(size).map_err(|r| err(&r))?;
                        (dir, PngScreen::Tft { width, height })
                    }
                    _ => (rest, PngScreen::Oled),
                };
                if dir.is_empty() {
                    return Err(err("png needs a directory"));
                }
                Ok(Backend::Png {
                    dir: dir.into(),
                    screen,
                })
            }
            "ssd1306" => {
                let rest = rest.unwrap_or("");
                let (device, address) = match rest.rsplit_once(':') {
                    Some((device, address)) => {
                        (device, parse_address(address).map_err(|r| err(&r))?)
                    }
                    None => (rest, SSD1306_DEFAULT_ADDRESS),
                };
                let device = if device.is_empty() {
                    SSD1306_DEFAULT_DEVICE
                } else {
                    device
                };
                Ok(Backend::Ssd1306 {
                    device: device.into(),
                    address,
                })
            }
            "fb" => {
                let device = rest
                    .filter(|r| !r.is_empty())
                    .ok_or_else(|| err("fb needs a device such as /dev/fb1"))?;
                Ok(Backend::Framebuffer {
                    device: device.into(),
                    sysfs: DEFAULT_SYSFS_GRAPHICS.into(),
                })
            }
            _ => Err(err("unknown backend kind")),
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Backend::Png {
                dir,
                screen: PngScreen::Oled,
            } => write!(f, "png:{}", dir.display()),
            Backend::Png {
                dir,
                screen: PngScreen::Tft { width, height },
            } => {
                write!(f, "png:{}:{width}x{height}", dir.display())
            }
            Backend::Ssd1306 { device, address } => {
                write!(f, "ssd1306:{}:{address:#04x}", device.display())
            }
            Backend::Framebuffer { device, .. } => write!(f, "fb:{}", device.display()),
        }
    }
}

fn looks_like_size(s: &str) -> bool {
    s.split_once('x').is_some_and(|(w, h)| {
        !w.is_empty() && !h.is_empty() && (w.to_owned() + h).bytes().all(|b| b.is_ascii_digit())
    })
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("size {s:?} must be WIDTHxHEIGHT between 32 and 4096");
    let (w, h) = s.split_once('x').ok_or_else(bad)?;
    let w: u32 = w.parse().map_err(|_| bad())?;
    let h: u32 = h.parse().map_err(|_| bad())?;
    if !(32..=4096).contains(&w) || !(32..=4096).contains(&h) {
        return Err(bad());
    }
    Ok((w, h))
}

fn parse_address(s: &str) -> Result<u8, String> {
    let bad = || format!("I2C address {s:?} must be a 7-bit address such as 0x3c or 0x3d");
    let value = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u8::from_str_radix(hex, 16),
        None => s.parse(),
    }
    .map_err(|_| bad())?;
    if value > 0x7f {
        return Err(bad());
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Backend, ParseBackendError> {
        s.parse()
    }

    #[test]
    fn png_backend_defaults_to_the_oled() {
        assert_eq!(
            parse("png:out").unwrap(),
            Backend::Png {
                dir: "out".into(),
                screen: PngScreen::Oled
            }
        );
    }

    #[test]
    fn png_backend_takes_a_tft_size() {
        assert_eq!(
            parse("png:/tmp/a:b:320x240").unwrap(),
            Backend::Png {
                dir: "/tmp/a:b".into(),
                screen: PngScreen::Tft {
                    width: 320,
                    height: 240
                }
            }
        );
    }

    #[test]
    fn png_backend_refuses_a_missing_directory_or_a_silly_size() {
        assert!(parse("png").is_err());
        assert!(parse("png:").is_err());
        assert!(parse("png:out:0x240").is_err());
    }

    #[test]
    fn ssd1306_backend_defaults_to_bus_1_and_address_0x3c() {
        let expected = Backend::Ssd1306 {
            device: "/dev/i2c-1".into(),
            address: 0x3c,
        };
        assert_eq!(parse("ssd1306").unwrap(), expected);
        assert_eq!(parse("ssd1306:/dev/i2c-1").unwrap(), expected);
    }

    #[test]
    fn ssd1306_backend_takes_hex_or_decimal_address() {
        let expected = Backend::Ssd1306 {
            device: "/dev/i2c-3".into(),
            address: 0x3d,
        };
        assert_eq!(parse("ssd1306:/dev/i2c-3:0x3d").unwrap(), expected);
        assert_eq!(parse("ssd1306:/dev/i2c-3:61").unwrap(), expected);
    }

    #[test]
    fn ssd1306_backend_refuses_an_address_over_seven_bits() {
        let e = parse("ssd1306:/dev/i2c-1:0x80").unwrap_err();
        assert!(e.to_string().contains("7-bit"), "{e}");
        assert!(parse("ssd1306:/dev/i2c-1:zz").is_err());
    }

    #[test]
    fn fb_backend_reads_sysfs_by_default() {
        assert_eq!(
            parse("fb:/dev/fb1").unwrap(),
            Backend::Framebuffer {
                device: "/dev/fb1".into(),
                sysfs: DEFAULT_SYSFS_GRAPHICS.into()
            }
        );
        assert!(parse("fb").is_err());
    }

    #[test]
    fn unknown_backend_is_refused_with_the_accepted_forms() {
        let e = parse("hdmi:0").unwrap_err();
        assert!(e.to_string().contains("png:DIR"), "{e}");
    }

    #[test]
    fn backend_strings_round_trip() {
        for s in [
            "png:out",
            "png:out:480x320",
            "ssd1306:/dev/i2c-1:0x3c",
            "fb:/dev/fb1",
        ] {
            assert_eq!(parse(s).unwrap().to_string(), s);
        }
    }
}
