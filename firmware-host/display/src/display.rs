//! [`Display`]: open a backend once, then show a [`Status`] every few seconds.

use embedded_graphics::prelude::*;

#[cfg(feature = "png")]
use std::path::PathBuf;

#[cfg(any(feature = "png", all(feature = "ssd1306", target_os = "linux")))]
use crate::OLED_SIZE;
#[cfg(feature = "png")]
use crate::backend::PngScreen;
use crate::{
    backend::Backend, draw_status, error::DisplayError, framebuffer::Framebuffer, status::Status,
    theme::Theme,
};

/// PNG output is scaled up to at least this many pixels across, so it is comfortable to look at.
#[cfg(feature = "png")]
const PNG_MIN_WIDTH: u32 = 512;

/// An open status display. Blocking: call it from a thread of its own (or `spawn_blocking`),
/// never from an async task. It is `Send`, so it can be moved to that thread.
///
/// ```no_run
/// use status_display::{Backend, Display, Status};
///
/// let backend: Backend = "ssd1306:/dev/i2c-1".parse()?;
/// let mut display = Display::open(&backend)?;
/// display.show(&Status { address: "http://xo.local:8080".into(), ..Status::default() })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Display {
    inner: Inner,
}

#[derive(Debug)]
enum Inner {
    #[cfg(feature = "png")]
    Png {
        path: PathBuf,
        screen: PngScreen,
    },
    #[cfg(all(feature = "ssd1306", target_os = "linux"))]
    Oled(Box<crate::oled::Oled>),
    Framebuffer(Framebuffer),
}

impl Display {
    /// Opens the backend: creates the PNG directory, initialises the OLED, or reads the
    /// framebuffer's geometry. Nothing is shown until [`show`](Self::show).
    pub fn open(backend: &Backend) -> Result<Display, DisplayError> {
        let inner = match backend {
            #[cfg(feature = "png")]
            Backend::Png { dir, screen } => {
                std::fs::create_dir_all(dir).map_err(|e| DisplayError::Io {
                    path: dir.clone(),
                    action: "creating directory",
                    source: e,
                })?;
                Inner::Png {
                    path: dir.join("status.png"),
                    screen: *screen,
                }
            }
            #[cfg(not(feature = "png"))]
            Backend::Png { .. } => {
                return Err(DisplayError::NotBuiltIn {
                    backend: "png",
                    feature: "png",
                });
            }
            #[cfg(all(feature = "ssd1306", target_os = "linux"))]
            Backend::Ssd1306 { device, address } => {
                Inner::Oled(Box::new(crate::oled::Oled::open(device, *address)?))
            }
            #[cfg(not(all(feature = "ssd1306", target_os = "linux")))]
            Backend::Ssd1306 { .. } => {
                return Err(DisplayError::NotBuiltIn {
                    backend: "ssd1306",
                    feature: "ssd1306",
                });
            }
            Backend::Framebuffer { device, sysfs } => {
                Inner::Framebuffer(Framebuffer::open(device, sysfs)?)
            }
        };
        Ok(Display { inner })
    }

    /// The screen's size in pixels.
    pub fn size(&self) -> Size {
        match &self.inner {
            #[cfg(feature = "png")]
            Inner::Png {
                screen: PngScreen::Oled,
                ..
            } => OLED_SIZE,
            #[cfg(feature = "png")]
            Inner::Png {
                screen: PngScreen::Tft { width, height },
                ..
            } => Size::new(*width, *height),
            #[cfg(all(feature = "ssd1306", target_os = "linux"))]
            Inner::Oled(_) => OLED_SIZE,
            Inner::Framebuffer(fb) => fb.size(),
        }
    }

    /// Draws `status` and puts it on the screen.
    pub fn show(&mut self, status: &Status) -> Result<(), DisplayError> {
        match &mut self.inner {
            #[cfg(feature = "png")]
            Inner::Png { path, screen } => match *screen {
                PngScreen::Oled => {
                    let display = crate::png::render_oled(status);
                    crate::png::write_png(&display, path, PNG_MIN_WIDTH.div_ceil(OLED_SIZE.width))
                }
                PngScreen::Tft { width, height } => {
                    let display = crate::png::render_tft(status, Size::new(width, height));
                    crate::png::write_png(&display, path, PNG_MIN_WIDTH.div_ceil(width))
                }
            },
            #[cfg(all(feature = "ssd1306", target_os = "linux"))]
            Inner::Oled(oled) => oled.show(status),
            Inner::Framebuffer(fb) => {
                match draw_status(fb, status, &Theme::color()) {
                    Ok(()) => {}
                    Err(never) => match never {},
                }
                fb.flush()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_can_move_to_a_blocking_thread() {
        fn assert_send<T: Send>() {}
        assert_send::<Display>();
    }
}
