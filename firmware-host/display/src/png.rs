//! Rendering to PNG files through the embedded-graphics simulator, for working without hardware.

use std::path::Path;

use embedded_graphics::{
    pixelcolor::{BinaryColor, Rgb888},
    prelude::*,
};
use embedded_graphics_simulator::{OutputSettingsBuilder, SimulatorDisplay};

use crate::{OLED_SIZE, draw_status, error::DisplayError, status::Status, theme::Theme};

/// The status screen as the 128×64 OLED shows it.
pub fn render_oled(status: &Status) -> SimulatorDisplay<BinaryColor> {
    let mut display = SimulatorDisplay::new(OLED_SIZE);
    match draw_status(&mut display, status, &Theme::MONO) {
        Ok(()) => {}
        Err(never) => match never {},
    }
    display
}

/// The status screen as a colour TFT of `size` shows it.
pub fn render_tft(status: &Status, size: Size) -> SimulatorDisplay<Rgb888> {
    let mut display = SimulatorDisplay::new(size);
    match draw_status(&mut display, status, &Theme::color()) {
        Ok(()) => {}
        Err(never) => match never {},
    }
    display
}

/// Writes `display` to `path` as a PNG with each pixel `scale` × `scale` (monochrome: off black,
/// on white). The file is written beside `path` and renamed over it, so a viewer never reads half
/// a file.
pub fn write_png<C>(
    display: &SimulatorDisplay<C>,
    path: &Path,
    scale: u32,
) -> Result<(), DisplayError>
where
    C: PixelColor + Into<Rgb888>,
{
    let settings = OutputSettingsBuilder::new().scale(scale.max(1)).build();
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = Path::new(&tmp);
    display
        .to_rgb_output_image(&settings)
        .save_png(tmp)
        .map_err(|e| DisplayError::Png {
            path: tmp.to_owned(),
            detail: e.to_string(),
        })?;
    std::fs::rename(tmp, path).map_err(|e| DisplayError::Io {
        path: path.to_owned(),
        action: "renaming onto",
        source: e,
    })
}
