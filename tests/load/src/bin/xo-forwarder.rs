//! `xo-forwarder`: pairs WebSocket connections two per match and forwards each message to the
//! partner.

fn main() {}
