//! Pieces of JSON text written directly, as serde_json writes them (the messages of
//! every move, written without serde's per-field work; tests hold each to serde's text).

use engine::{Cell, Mark};
use serde::Serialize;

/// A JSON string: as it is between quotes when nothing in it needs escaping (room ids,
/// names, codes nearly always), else serde_json's escaping.
pub(crate) fn string(j: &mut Vec<u8>, s: &str) {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        j.push(b'"');
        j.extend_from_slice(s.as_bytes());
        j.push(b'"');
    } else {
        serde(j, s);
    }
}

pub(crate) fn number<N: itoa::Integer>(j: &mut Vec<u8>, n: N) {
    j.extend_from_slice(itoa::Buffer::new().format(n).as_bytes());
}

pub(crate) fn flag(j: &mut Vec<u8>, b: bool) {
    j.extend_from_slice(if b { b"true" } else { b"false" });
}

pub(crate) fn mark(j: &mut Vec<u8>, m: Mark) {
    j.extend_from_slice(match m {
        Mark::X => b"\"X\"",
        Mark::O => b"\"O\"",
    });
}

pub(crate) fn option<T>(j: &mut Vec<u8>, v: Option<T>, write: fn(&mut Vec<u8>, T)) {
    match v {
        Some(v) => write(j, v),
        None => j.extend_from_slice(b"null"),
    }
}

pub(crate) fn cells(j: &mut Vec<u8>, cells: &[Cell]) {
    j.push(b'[');
    for (i, &c) in cells.iter().enumerate() {
        if i > 0 {
            j.push(b',');
        }
        number(j, c);
    }
    j.push(b']');
}

pub(crate) fn serde<T: Serialize + ?Sized>(j: &mut Vec<u8>, v: &T) {
    serde_json::to_writer(j, v).expect("wire types always serialise to JSON");
}
