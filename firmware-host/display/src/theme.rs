//! Colours of the status screen.

use embedded_graphics::pixelcolor::{BinaryColor, Rgb888, RgbColor};

/// The colours [`draw_status`](crate::draw_status) uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme<C> {
    /// Everything not drawn otherwise.
    pub background: C,
    /// Figures and the address.
    pub text: C,
    /// Labels next to the figures.
    pub label: C,
    /// The heading, on screens with room for one.
    pub accent: C,
    /// The field behind the QR code and its quiet zone. Must be light: scanners need dark on light.
    pub qr_light: C,
    /// The QR code's dark modules.
    pub qr_dark: C,
}

impl Theme<BinaryColor> {
    /// Monochrome OLEDs: lit text on a dark panel, the QR code's dark modules as pixels off on a
    /// lit square.
    pub const MONO: Theme<BinaryColor> = Theme {
        background: BinaryColor::Off,
        text: BinaryColor::On,
        label: BinaryColor::On,
        accent: BinaryColor::On,
        qr_light: BinaryColor::On,
        qr_dark: BinaryColor::Off,
    };
}

impl<C: From<Rgb888>> Theme<C> {
    /// Colour screens (SPI TFTs): light text on dark blue, a black-on-white QR code.
    pub fn color() -> Theme<C> {
        Theme {
            background: Rgb888::new(0x10, 0x18, 0x30).into(),
            text: Rgb888::WHITE.into(),
            label: Rgb888::new(0xa0, 0xb4, 0xd0).into(),
            accent: Rgb888::new(0xff, 0xc8, 0x3c).into(),
            qr_light: Rgb888::WHITE.into(),
            qr_dark: Rgb888::BLACK.into(),
        }
    }
}
