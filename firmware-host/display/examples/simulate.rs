//! Shows a sample status on any backend; without hardware, writes PNG files:
//! `cargo run -p status-display --example simulate -- [BACKEND] [ADDRESS]`
//! (default backend `png:target/status-display`, default address `http://xo.local:8080`).

use std::process::ExitCode;

use status_display::{Backend, Display, Status};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let backend: Backend = args
        .next()
        .unwrap_or_else(|| "png:target/status-display".to_owned())
        .parse()?;
    let address = args
        .next()
        .unwrap_or_else(|| "http://xo.local:8080".to_owned());
    let mut display = Display::open(&backend)?;
    display.show(&Status {
        address,
        players_online: 12,
        rooms_waiting: 3,
        rooms_playing: 5,
        uptime_s: 3 * 86_400 + 4 * 3600 + 12 * 60,
        storage: None,
        owner_code: None,
    })?;
    let size = display.size();
    println!("{backend}: {}x{} updated", size.width, size.height);
    Ok(())
}
