//! A Linux framebuffer (`/dev/fbN`), as small SPI TFTs expose them, as a [`DrawTarget`].
//!
//! Pixels are drawn into a buffer in memory and written to the device in one go by
//! [`Framebuffer::flush`]: no mmap, no ioctl. The geometry comes from sysfs: `virtual_size`
//! (`320,240`), `bits_per_pixel` (16, 24 or 32) and, when present, `stride` (bytes per line).
//! 16 bits are RGB565; 24 and 32 bits are blue, green, red (and an unused byte) in memory order,
//! the layout of the common XRGB8888 format. Framebuffers hold pixels in CPU byte order.

use std::{
    fs,
    io::{Seek, SeekFrom, Write},
    path::{Path, PathBuf},
};

use embedded_graphics::{
    pixelcolor::{Rgb565, Rgb888, raw::RawU16},
    prelude::*,
};

use crate::error::DisplayError;

/// How one pixel is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PixelFormat {
    /// 16 bits: 5 red, 6 green, 5 blue.
    Rgb565,
    /// 24 bits: blue, green, red bytes.
    Bgr888,
    /// 32 bits: blue, green, red, unused bytes.
    Xrgb8888,
}

impl PixelFormat {
    /// Bytes per pixel.
    pub fn bytes(self) -> usize {
        match self {
            PixelFormat::Rgb565 => 2,
            PixelFormat::Bgr888 => 3,
            PixelFormat::Xrgb8888 => 4,
        }
    }

    /// Writes `color` into `out`, which is [`bytes`](Self::bytes) long.
    fn encode(self, color: Rgb888, out: &mut [u8]) {
        match self {
            PixelFormat::Rgb565 => {
                let raw = RawU16::from(Rgb565::from(color)).into_inner();
                out.copy_from_slice(&raw.to_ne_bytes());
            }
            PixelFormat::Bgr888 => out.copy_from_slice(&[color.b(), color.g(), color.r()]),
            PixelFormat::Xrgb8888 => {
                let value =
                    u32::from(color.r()) << 16 | u32::from(color.g()) << 8 | u32::from(color.b());
                out.copy_from_slice(&(0xff00_0000 | value).to_ne_bytes());
            }
        }
    }
}

/// A framebuffer's shape as sysfs tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    /// Pixels across.
    pub width: u32,
    /// Pixels down.
    pub height: u32,
    /// Pixel layout.
    pub format: PixelFormat,
    /// Bytes from one line to the next (at least `width` pixels).
    pub stride: usize,
}

impl Geometry {
    /// Reads the geometry of `device` (`/dev/fb1`) from `sysfs` (`/sys/class/graphics`), which
    /// holds a directory named like the device (`fb1`).
    pub fn read(device: &Path, sysfs: &Path) -> Result<Geometry, DisplayError> {
        let name = device.file_name().ok_or_else(|| DisplayError::Geometry {
            path: device.to_owned(),
            reason: "not a device path".to_owned(),
        })?;
        let dir = sysfs.join(name);
        let read = |attr: &str| -> Result<(PathBuf, String), DisplayError> {
            let path = dir.join(attr);
            let text = fs::read_to_string(&path).map_err(|e| DisplayError::Geometry {
                path: path.clone(),
                reason: format!(
                    "cannot read it ({e}); is {} a framebuffer?",
                    device.display()
                ),
            })?;
            Ok((path, text.trim().to_owned()))
        };

        let (path, size) = read("virtual_size")?;
        let bad_size = || DisplayError::Geometry {
            path: path.clone(),
            reason: format!("expected WIDTH,HEIGHT, found {size:?}"),
        };
        let (w, h) = size.split_once(',').ok_or_else(bad_size)?;
        let width: u32 = w.trim().parse().map_err(|_| bad_size())?;
        let height: u32 = h.trim().parse().map_err(|_| bad_size())?;
        if width == 0 || height == 0 || width > 8192 || height > 8192 {
            return Err(bad_size());
        }

        let (path, bpp) = read("bits_per_pixel")?;
        let bits_per_pixel: u32 = bpp.parse().map_err(|_| DisplayError::Geometry {
            path: path.clone(),
            reason: format!("expected a number, found {bpp:?}"),
        })?;
        let format = match bits_per_pixel {
            16 => PixelFormat::Rgb565,
            24 => PixelFormat::Bgr888,
            32 => PixelFormat::Xrgb8888,
            _ => {
                return Err(DisplayError::UnsupportedPixelFormat {
                    path: device.to_owned(),
                    bits_per_pixel,
                });
            }
        };

        let packed = usize::try_from(width).unwrap_or(usize::MAX) * format.bytes();
        // Older kernels have no `stride`; lines are then packed.
        let stride = match read("stride") {
            Ok((path, s)) => {
                let stride: usize = s.parse().map_err(|_| DisplayError::Geometry {
                    path: path.clone(),
                    reason: format!("expected a number, found {s:?}"),
                })?;
                if stride < packed {
                    return Err(DisplayError::Geometry {
                        path,
                        reason: format!("stride {stride} is shorter than a line of {packed} bytes"),
                    });
                }
                stride
            }
            Err(_) => packed,
        };
        Ok(Geometry {
            width,
            height,
            format,
            stride,
        })
    }
}

/// A framebuffer device drawn through a buffer in memory.
#[derive(Debug)]
pub struct Framebuffer {
    device: PathBuf,
    geometry: Geometry,
    buffer: Vec<u8>,
}

impl Framebuffer {
    /// Reads the geometry of `device` from `sysfs` and checks that the device can be opened for
    /// writing. Nothing is written until [`flush`](Self::flush).
    pub fn open(device: &Path, sysfs: &Path) -> Result<Framebuffer, DisplayError> {
        fs::OpenOptions::new()
            .write(true)
            .open(device)
            .map_err(|e| {
                DisplayError::io(
                    device,
                    "opening",
                    e,
                    "no framebuffer there; is the TFT's overlay loaded (ls /dev/fb*)?",
                )
            })?;
        let geometry = Geometry::read(device, sysfs)?;
        Ok(Framebuffer::with_geometry(device, geometry))
    }

    /// A framebuffer of known geometry; [`open`](Self::open) reads it from sysfs.
    pub fn with_geometry(device: &Path, geometry: Geometry) -> Framebuffer {
        let len = geometry.stride * usize::try_from(geometry.height).unwrap_or(0);
        Framebuffer {
            device: device.to_owned(),
            geometry,
            buffer: vec![0; len],
        }
    }

    /// The geometry in use.
    pub fn geometry(&self) -> Geometry {
        self.geometry
    }

    /// The bytes [`flush`](Self::flush) writes.
    pub fn buffer(&self) -> &[u8] {
        &self.buffer
    }

    /// Writes the whole buffer to the device from its start.
    pub fn flush(&mut self) -> Result<(), DisplayError> {
        let hint = "the framebuffer device went away";
        let mut file = fs::OpenOptions::new()
            .write(true)
            .open(&self.device)
            .map_err(|e| DisplayError::io(&self.device, "opening", e, hint))?;
        file.seek(SeekFrom::Start(0))
            .and_then(|_| file.write_all(&self.buffer))
            .and_then(|()| file.flush())
            .map_err(|e| DisplayError::io(&self.device, "writing", e, hint))
    }
}

impl OriginDimensions for Framebuffer {
    fn size(&self) -> Size {
        Size::new(self.geometry.width, self.geometry.height)
    }
}

impl DrawTarget for Framebuffer {
    type Color = Rgb888;
    type Error = core::convert::Infallible;

    fn draw_iter<I>(&mut self, pixels: I) -> Result<(), Self::Error>
    where
        I: IntoIterator<Item = Pixel<Self::Color>>,
    {
        let Geometry {
            width,
            height,
            format,
            stride,
        } = self.geometry;
        let bytes = format.bytes();
        for Pixel(point, color) in pixels {
            let (Ok(x), Ok(y)) = (u32::try_from(point.x), u32::try_from(point.y)) else {
                continue;
            };
            if x >= width || y >= height {
                continue;
            }
            let at = y as usize * stride + x as usize * bytes;
            if let Some(out) = self.buffer.get_mut(at..at + bytes) {
                format.encode(color, out);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rgb565_packs_five_six_five_bits() {
        let mut out = [0; 2];
        PixelFormat::Rgb565.encode(Rgb888::new(0xff, 0, 0), &mut out);
        assert_eq!(u16::from_ne_bytes(out), 0xf800);
        PixelFormat::Rgb565.encode(Rgb888::new(0, 0xff, 0), &mut out);
        assert_eq!(u16::from_ne_bytes(out), 0x07e0);
        PixelFormat::Rgb565.encode(Rgb888::new(0, 0, 0xff), &mut out);
        assert_eq!(u16::from_ne_bytes(out), 0x001f);
    }

    #[test]
    fn xrgb8888_puts_red_in_the_third_byte_on_little_endian() {
        let mut out = [0; 4];
        PixelFormat::Xrgb8888.encode(Rgb888::new(0x11, 0x22, 0x33), &mut out);
        assert_eq!(u32::from_ne_bytes(out), 0xff11_2233);
    }

    #[test]
    fn pixels_outside_the_screen_are_ignored() {
        let geometry = Geometry {
            width: 2,
            height: 2,
            format: PixelFormat::Rgb565,
            stride: 4,
        };
        let mut fb = Framebuffer::with_geometry(Path::new("/nonexistent"), geometry);
        let white = Rgb888::new(255, 255, 255);
        fb.draw_iter([
            Pixel(Point::new(-1, 0), white),
            Pixel(Point::new(2, 0), white),
            Pixel(Point::new(1, 1), white),
        ])
        .unwrap();
        assert_eq!(fb.buffer(), &[0, 0, 0, 0, 0, 0, 0xff, 0xff]);
    }
}
