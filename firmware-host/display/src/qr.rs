//! The QR code: choosing a version, error-correction level and scale that fit a square, and
//! drawing it so that cameras read it.
//!
//! Dark modules are drawn in the theme's `qr_dark` colour (pixels *off* on a monochrome OLED) on a
//! lit `qr_light` square that includes a quiet zone of [`QUIET_ZONE`] modules on every side:
//! scanners look for dark finder patterns on a light field, and an unlit panel border does not
//! count as light.

use embedded_graphics::{prelude::*, primitives::Rectangle};
use qrcode::{Color, QrCode};

/// QR error-correction levels, re-exported so callers need not depend on `qrcode`.
pub use qrcode::EcLevel;

/// Light modules around the code on every side. The QR standard asks for four.
pub const QUIET_ZONE: u32 = 4;

/// A QR code laid out for a square of a given side.
#[derive(Clone)]
pub struct QrPlan {
    code: QrCode,
    scale: u32,
}

impl core::fmt::Debug for QrPlan {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("QrPlan")
            .field("version", &self.version())
            .field("ec_level", &self.ec_level())
            .field("modules", &self.modules())
            .field("scale", &self.scale)
            .finish()
    }
}

impl QrPlan {
    /// The plan with the largest whole-pixel module that fits `data` and its quiet zone in a square
    /// of `max_side` pixels; among plans of that module size the smallest code, which leaves the
    /// most room for text; among codes of that size the highest error-correction level, which
    /// costs nothing there. `None` when even one pixel per module does not fit.
    ///
    /// Bigger modules come first because what limits a phone camera reading a small panel is
    /// pixels per module; denser codes at the same module size are not easier to read.
    pub fn fit(data: &str, max_side: u32) -> Option<QrPlan> {
        // Highest correction first so that, at equal scale and size, the first found wins.
        let mut best: Option<QrPlan> = None;
        for ec in [EcLevel::H, EcLevel::Q, EcLevel::M, EcLevel::L] {
            let Ok(code) = QrCode::with_error_correction_level(data.as_bytes(), ec) else {
                continue;
            };
            let modules = u32::try_from(code.width()).unwrap_or(u32::MAX);
            let scale = max_side / modules.saturating_add(2 * QUIET_ZONE);
            if scale == 0 {
                continue;
            }
            let better = best.as_ref().is_none_or(|b| {
                scale > b.scale || (scale == b.scale && code.width() < b.code.width())
            });
            if better {
                best = Some(QrPlan { code, scale });
            }
        }
        best
    }

    /// Modules per side, without the quiet zone (21 for version 1, +4 per version).
    pub fn modules(&self) -> u32 {
        u32::try_from(self.code.width()).unwrap_or(u32::MAX)
    }

    /// Pixels per module side.
    pub fn scale(&self) -> u32 {
        self.scale
    }

    /// Side in pixels of the lit square: the code and its quiet zone.
    pub fn side(&self) -> u32 {
        (self.modules() + 2 * QUIET_ZONE) * self.scale
    }

    /// The QR version number, 1–40.
    pub fn version(&self) -> i16 {
        match self.code.version() {
            qrcode::Version::Normal(v) | qrcode::Version::Micro(v) => v,
        }
    }

    /// The error-correction level.
    pub fn ec_level(&self) -> EcLevel {
        self.code.error_correction_level()
    }

    /// Draws the lit square with its top-left corner at `top_left`.
    pub fn draw<D>(
        &self,
        target: &mut D,
        top_left: Point,
        light: D::Color,
        dark: D::Color,
    ) -> Result<(), D::Error>
    where
        D: DrawTarget,
    {
        let side = self.side();
        target.fill_solid(&Rectangle::new(top_left, Size::new(side, side)), light)?;
        let modules = self.code.width();
        let origin = top_left + Point::new_equal(to_i32(QUIET_ZONE * self.scale));
        let module = Size::new_equal(self.scale);
        for (i, color) in self.code.to_colors().into_iter().enumerate() {
            if color == Color::Dark {
                let x = to_i32(u32::try_from(i % modules).unwrap_or(0) * self.scale);
                let y = to_i32(u32::try_from(i / modules).unwrap_or(0) * self.scale);
                target.fill_solid(&Rectangle::new(origin + Point::new(x, y), module), dark)?;
            }
        }
        Ok(())
    }
}

/// Pixel coordinates on a screen are far below `i32::MAX`.
fn to_i32(v: u32) -> i32 {
    i32::try_from(v).unwrap_or(i32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_address_gets_two_pixel_modules_on_a_64_pixel_screen() {
        // 16 bytes fit version 1 (21 modules): 29 with the quiet zone, twice is 58 <= 64.
        let plan = QrPlan::fit("http://xo.local/", 64).expect("fits");
        assert_eq!(plan.version(), 1);
        assert_eq!(plan.scale(), 2);
        assert_eq!(plan.side(), 58);
    }

    #[test]
    fn default_address_fits_64_pixels_as_the_smallest_code_with_the_best_correction_at_that_size() {
        // 20 bytes: version 2 holds them at L, M and Q (20 bytes exactly), not at H.
        let plan = QrPlan::fit("http://xo.local:8080", 64).expect("fits");
        assert_eq!(plan.scale(), 1);
        assert_eq!(plan.version(), 2);
        assert_eq!(plan.ec_level(), EcLevel::Q);
        assert_eq!(plan.side(), 33);
    }

    #[test]
    fn larger_square_prefers_bigger_modules_over_correction() {
        let plan = QrPlan::fit("http://192.168.100.200:8080", 152).expect("fits");
        assert!(plan.side() <= 152);
        // A version-2 code (33 modules with quiet zone) at scale 4 is the best possible here.
        assert_eq!(plan.scale(), 4);
    }

    #[test]
    fn address_too_long_for_the_square_has_no_plan() {
        let long = format!("http://{}.local:8080", "x".repeat(400));
        assert!(QrPlan::fit(&long, 64).is_none());
    }
}
