//! `firmware-host`: the XO Kiosk server.

fn main() {
    eprintln!("firmware-host: the server is not built yet (see the open server issue)");
    std::process::exit(1);
}
