//! An SSD1306 128×64 OLED on a Linux I²C bus (`/dev/i2c-N`).

use std::path::{Path, PathBuf};

use linux_embedded_hal::I2cdev;
use ssd1306::{I2CDisplayInterface, Ssd1306, mode::BufferedGraphicsMode, prelude::*};

use crate::{draw_status, error::DisplayError, status::Status, theme::Theme};

type Driver =
    Ssd1306<I2CInterface<I2cdev>, DisplaySize128x64, BufferedGraphicsMode<DisplaySize128x64>>;

/// An initialised SSD1306 with a frame buffer in memory.
pub struct Oled {
    driver: Driver,
    device: PathBuf,
    address: u8,
    /// Set after a failed transfer: the panel may have lost power or been replugged, so the next
    /// `show` initialises it again before drawing.
    needs_init: bool,
}

impl std::fmt::Debug for Oled {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Oled")
            .field("device", &self.device)
            .field("address", &self.address)
            .finish_non_exhaustive()
    }
}

impl Oled {
    /// Opens the bus, then initialises and clears the display at `address`.
    pub fn open(device: &Path, address: u8) -> Result<Oled, DisplayError> {
        // Opening it ourselves first tells a missing bus and a missing permission apart.
        std::fs::OpenOptions::new().read(true).write(true).open(device).map_err(|e| {
            DisplayError::io(
                device,
                "opening",
                e,
                "no such I2C bus; enable I2C (dtparam=i2c_arm=on in config.txt) and check the bus number (ls /dev/i2c-*)",
            )
        })?;
        let i2c_err = |action, detail: String| DisplayError::I2c {
            path: device.to_owned(),
            address,
            action,
            detail,
        };
        let i2c = I2cdev::new(device).map_err(|e| i2c_err("opening the bus", e.to_string()))?;
        let interface = I2CDisplayInterface::new_custom_address(i2c, address);
        let mut driver = Ssd1306::new(interface, DisplaySize128x64, DisplayRotation::Rotate0)
            .into_buffered_graphics_mode();
        driver
            .init()
            .map_err(|e| i2c_err("initialising", format!("{e:?}")))?;
        Ok(Oled {
            driver,
            device: device.to_owned(),
            address,
            needs_init: false,
        })
    }

    /// Draws `status` and sends the changed part of the frame to the display.
    pub fn show(&mut self, status: &Status) -> Result<(), DisplayError> {
        let result = self.try_show(status);
        self.needs_init = result.is_err();
        result
    }

    fn try_show(&mut self, status: &Status) -> Result<(), DisplayError> {
        let i2c_err = |action, detail: String| DisplayError::I2c {
            path: self.device.clone(),
            address: self.address,
            action,
            detail,
        };
        if self.needs_init {
            // `init` clears the buffer and marks all of it for sending.
            self.driver
                .init()
                .map_err(|e| i2c_err("initialising", format!("{e:?}")))?;
        }
        draw_status(&mut self.driver, status, &Theme::MONO)
            .map_err(|e| i2c_err("drawing", format!("{e:?}")))?;
        self.driver
            .flush()
            .map_err(|e| i2c_err("sending the frame", format!("{e:?}")))
    }
}
