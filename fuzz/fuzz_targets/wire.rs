//! The server's own WebSocket reader (`rooms::wire`) against tungstenite as the oracle: any
//! byte stream, read in any pieces, gives the same messages, pings, pongs and answers, or a
//! close with the same code (`rooms::wire_oracle` says where the two may differ and why).
//!
//! Input: the first byte says how many cut points follow (at most 15, each two bytes, little
//! endian, taken modulo the stream's length); the rest is the stream as it comes from a
//! client after the handshake.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&n, rest)) = data.split_first() else {
        return;
    };
    let n = usize::from(n % 16).min(rest.len() / 2);
    let (cuts, stream) = rest.split_at(n * 2);
    let cuts: Vec<usize> = cuts
        .chunks_exact(2)
        .map(|c| usize::from(u16::from_le_bytes([c[0], c[1]])) % stream.len().max(1))
        .collect();
    if let Err(difference) = rooms::wire_oracle::check(stream, &cuts) {
        panic!("the reader and tungstenite differ on {stream:02x?} cut at {cuts:?}:\n{difference}");
    }
});
