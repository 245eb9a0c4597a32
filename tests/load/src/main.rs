//! `xo-load`: a load generator for the XO Kiosk server (see README.md).

fn main() {}
