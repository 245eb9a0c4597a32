//! Helpers shared by the integration tests: fixed statuses, PNG snapshots and QR decoding.

#![allow(dead_code)] // Each test binary uses a different subset.

use std::{
    io::ErrorKind,
    path::{Path, PathBuf},
    process::Command,
};

use embedded_graphics::{pixelcolor::Rgb888, prelude::*};
use embedded_graphics_simulator::SimulatorDisplay;
use status_display::{Status, png::write_png};

/// The address the server shows by default.
pub const DEFAULT_ADDRESS: &str = "http://xo.local:8080";

/// An address of 16 bytes: small enough for a version-1 QR code.
pub const SHORT_ADDRESS: &str = "http://xo.local/";

/// An address far too long for two lines of text on the OLED.
pub const LONG_ADDRESS: &str =
    "http://xo-kiosk-in-the-school-library-second-floor.local:8080/lobby?from=status-display";

pub fn status(address: &str) -> Status {
    Status {
        address: address.to_owned(),
        players_online: 12,
        rooms_waiting: 3,
        rooms_playing: 5,
        uptime_s: 3 * 86_400 + 4 * 3600 + 12 * 60 + 7,
        storage: None,
        owner_code: None,
    }
}

/// A display's pixels as RGB (monochrome: off black, on white, as the snapshots store them).
pub fn to_rgb<C: PixelColor + Into<Rgb888>>(
    display: &SimulatorDisplay<C>,
) -> SimulatorDisplay<Rgb888> {
    let mut rgb = SimulatorDisplay::new(display.size());
    let pixels = display
        .bounding_box()
        .points()
        .map(|p| Pixel(p, display.get_pixel(p).into()));
    rgb.draw_iter(pixels)
        .expect("simulator drawing is infallible");
    rgb
}

fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("snapshots")
}

/// Compares `display` pixel for pixel with `tests/snapshots/NAME.png`. Writes the snapshot when
/// it is missing or `UPDATE_SNAPSHOTS=1`; on a mismatch writes `NAME.actual.png` beside it and
/// fails naming it.
pub fn assert_snapshot<C: PixelColor + Into<Rgb888>>(name: &str, display: &SimulatorDisplay<C>) {
    let actual = to_rgb(display);
    let dir = snapshot_dir();
    let path = dir.join(format!("{name}.png"));
    let update = std::env::var("UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1");
    if update || !path.exists() {
        std::fs::create_dir_all(&dir).expect("create snapshot dir");
        write_png(&actual, &path, 1).expect("write snapshot");
        eprintln!("wrote snapshot {}", path.display());
        return;
    }
    let expected = SimulatorDisplay::<Rgb888>::load_png(&path)
        .unwrap_or_else(|e| panic!("cannot read snapshot {}: {e}", path.display()));
    let actual_path = dir.join(format!("{name}.actual.png"));
    if expected.size() != actual.size() {
        write_png(&actual, &actual_path, 1).expect("write actual image");
        panic!(
            "{name}: rendered {:?} but snapshot {} is {:?}; actual image saved as {} (UPDATE_SNAPSHOTS=1 to accept)",
            actual.size(),
            path.display(),
            expected.size(),
            actual_path.display()
        );
    }
    let differing: Vec<Point> = actual
        .bounding_box()
        .points()
        .filter(|&p| actual.get_pixel(p) != expected.get_pixel(p))
        .collect();
    if !differing.is_empty() {
        write_png(&actual, &actual_path, 1).expect("write actual image");
        panic!(
            "{name}: {} pixels differ from {} (first at {:?}); actual image saved as {} (UPDATE_SNAPSHOTS=1 to accept)",
            differing.len(),
            path.display(),
            differing[0],
            actual_path.display()
        );
    }
    // A stale .actual.png from an earlier failure would mislead.
    let _ignored_if_absent = std::fs::remove_file(&actual_path);
}

/// The QR codes `zbarimg` finds in the image at `path`, one string per code.
pub fn zbar_decode(path: &Path) -> Vec<String> {
    let output = match Command::new("zbarimg")
        .args(["--quiet", "--raw", "-Sdisable", "-Sqrcode.enable"])
        .arg(path)
        .output()
    {
        Ok(output) => output,
        Err(e) if e.kind() == ErrorKind::NotFound => {
            panic!(
                "zbarimg is not on PATH: install Debian's zbar-tools (apt-get install zbar-tools); scripts/test installs it"
            )
        }
        Err(e) => panic!("cannot run zbarimg: {e}"),
    };
    // zbarimg exits 4 when it finds nothing; the empty list says so.
    let stdout = String::from_utf8(output.stdout).expect("zbarimg prints UTF-8");
    stdout.lines().map(str::to_owned).collect()
}

/// Writes `display` scaled by `scale` to `dir/NAME.png` and decodes it with `zbarimg`.
pub fn render_and_decode<C: PixelColor + Into<Rgb888>>(
    display: &SimulatorDisplay<C>,
    dir: &Path,
    name: &str,
    scale: u32,
) -> Vec<String> {
    let path = dir.join(format!("{name}.png"));
    write_png(display, &path, scale).expect("write PNG");
    zbar_decode(&path)
}
