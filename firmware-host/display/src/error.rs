//! Errors of opening a display, showing a status, and parsing a backend string.

use std::{fmt, io, path::PathBuf};

/// Why a [`Backend`](crate::Backend) string was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseBackendError {
    /// The string as given.
    pub spec: String,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for ParseBackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid display backend {:?}: {} (expected png:DIR[:WxH], ssd1306:/dev/i2c-N[:0xADDR] or fb:/dev/fbN)",
            self.spec, self.reason
        )
    }
}

impl std::error::Error for ParseBackendError {}

/// Why a display could not be opened or updated.
#[derive(Debug)]
#[non_exhaustive]
pub enum DisplayError {
    /// The backend needs a cargo feature this build lacks.
    NotBuiltIn {
        /// `png` or `ssd1306`.
        backend: &'static str,
        /// The cargo feature of `status-display` that enables it.
        feature: &'static str,
    },
    /// The device file does not exist.
    NoSuchDevice {
        /// The path given.
        path: PathBuf,
        /// What usually fixes it.
        hint: &'static str,
    },
    /// The device exists but this user may not open it.
    PermissionDenied {
        /// The path given.
        path: PathBuf,
        /// What usually fixes it.
        hint: &'static str,
    },
    /// Reading or writing a file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// The cause.
        source: io::Error,
    },
    /// A framebuffer's sysfs attributes are missing or not understood.
    Geometry {
        /// The sysfs file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The framebuffer uses a pixel format this crate does not write.
    UnsupportedPixelFormat {
        /// The device.
        path: PathBuf,
        /// Its bits per pixel.
        bits_per_pixel: u32,
    },
    /// The SSD1306 did not answer or a transfer failed.
    I2c {
        /// The I²C bus device.
        path: PathBuf,
        /// The 7-bit address.
        address: u8,
        /// What was being done.
        action: &'static str,
        /// The driver's account of the failure.
        detail: String,
    },
    /// Encoding a PNG failed.
    Png {
        /// The file being written.
        path: PathBuf,
        /// The encoder's account of the failure.
        detail: String,
    },
}

impl fmt::Display for DisplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DisplayError::NotBuiltIn { backend, feature } => write!(
                f,
                "the {backend} display backend is not in this build (enable the `{feature}` feature of status-display)"
            ),
            DisplayError::NoSuchDevice { path, hint } => {
                write!(f, "no such device {}: {hint}", path.display())
            }
            DisplayError::PermissionDenied { path, hint } => {
                write!(f, "permission denied opening {}: {hint}", path.display())
            }
            DisplayError::Io {
                path,
                action,
                source,
            } => {
                write!(f, "{action} {}: {source}", path.display())
            }
            DisplayError::Geometry { path, reason } => {
                write!(f, "framebuffer geometry from {}: {reason}", path.display())
            }
            DisplayError::UnsupportedPixelFormat {
                path,
                bits_per_pixel,
            } => write!(
                f,
                "framebuffer {} has {bits_per_pixel} bits per pixel; only 16 (RGB565), 24 and 32 are supported",
                path.display()
            ),
            DisplayError::I2c {
                path,
                address,
                action,
                detail,
            } => write!(
                f,
                "SSD1306 at {address:#04x} on {}: {action} failed ({detail}); check the wiring and the address with `i2cdetect -y N`",
                path.display()
            ),
            DisplayError::Png { path, detail } => {
                write!(f, "writing PNG {}: {detail}", path.display())
            }
        }
    }
}

impl std::error::Error for DisplayError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DisplayError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl DisplayError {
    /// An I/O error on `path`, with missing files and permissions told apart.
    pub(crate) fn io(
        path: impl Into<PathBuf>,
        action: &'static str,
        source: io::Error,
        hint: &'static str,
    ) -> DisplayError {
        let path = path.into();
        match source.kind() {
            io::ErrorKind::NotFound => DisplayError::NoSuchDevice { path, hint },
            io::ErrorKind::PermissionDenied => DisplayError::PermissionDenied {
                path,
                hint: "run as root or add the service user to the group owning the device (video, i2c)",
            },
            _ => DisplayError::Io {
                path,
                action,
                source,
            },
        }
    }
}
