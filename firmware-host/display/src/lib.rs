//! The XO Kiosk status display (SPEC P5): a small screen showing the address phones should open,
//! as text and as a QR code, with players online, rooms waiting and playing, and uptime.
//!
//! # Layout
//!
//! - [`status`]: [`Status`], the plain data shown, and the uptime format.
//! - [`screen`]: [`draw_status`], generic over any embedded-graphics [`DrawTarget`], and the
//!   [`Layout`] for a given screen size.
//! - [`qr`]: fitting the QR code ([`QrPlan`]) and drawing it dark-on-light with a quiet zone.
//! - [`theme`]: colours, [`Theme::MONO`] for OLEDs and [`Theme::color`] for TFTs.
//! - [`backend`]: [`Backend`], parsed from `png:DIR`, `ssd1306:/dev/i2c-1[:0x3c]` or `fb:/dev/fb1`.
//! - [`display`]: [`Display`], which opens a backend and shows a status (blocking).
//! - [`framebuffer`]: Linux `/dev/fbN` as a [`DrawTarget`] over a buffer in memory.
//! - `oled` (feature `ssd1306`, Linux): the SSD1306 over I²C.
//! - `png` (feature `png`): PNG files through the embedded-graphics simulator.
//! - [`error`]: [`DisplayError`] and [`ParseBackendError`].
//!
//! ```
//! # #[cfg(feature = "png")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use status_display::{Backend, Display, Status};
//!
//! let dir = std::env::temp_dir().join("status-display-doc");
//! let backend: Backend = format!("png:{}", dir.display()).parse()?;
//! let mut display = Display::open(&backend)?;
//! display.show(&Status {
//!     address: "http://xo.local:8080".into(),
//!     players_online: 12,
//!     rooms_waiting: 3,
//!     rooms_playing: 5,
//!     uptime_s: 3 * 86_400 + 4 * 3600 + 12 * 60,
//!     storage: None,
//!     owner_code: None,
//! })?;
//! assert!(dir.join("status.png").exists());
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "png"))]
//! # fn main() {}
//! ```
//!
//! [`DrawTarget`]: embedded_graphics::draw_target::DrawTarget

pub mod backend;
pub mod display;
pub mod error;
pub mod framebuffer;
#[cfg(all(feature = "ssd1306", target_os = "linux"))]
pub mod oled;
#[cfg(feature = "png")]
pub mod png;
pub mod qr;
pub mod screen;
pub mod status;
pub mod theme;

pub use backend::{Backend, PngScreen};
pub use display::Display;
pub use error::{DisplayError, ParseBackendError};
pub use qr::QrPlan;
pub use screen::{Layout, draw_status};
pub use status::{Status, StorageWarning, format_uptime};
pub use theme::Theme;

/// The SSD1306 OLED's size.
pub const OLED_SIZE: embedded_graphics::prelude::Size =
    embedded_graphics::prelude::Size::new(128, 64);
