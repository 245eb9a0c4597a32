//! Every one-line JSON example in docs/PROTOCOL.md decodes as a client or server message, so
//! the document cannot drift from the types.

use protocol::{Frame, decode_client, decode_server};

const DOC: &str = include_str!("../../../docs/PROTOCOL.md");

#[test]
fn every_json_example_in_protocol_md_decodes() {
    let mut checked = 0;
    for line in DOC.lines() {
        // Examples sit alone on a line, possibly after a `>`, `<`, `(X)` or `(O)` prompt.
        let Some(start) = line.find('{') else {
            continue;
        };
        let candidate = line[start..].trim();
        if serde_json::from_str::<serde_json::Value>(candidate).is_err() {
            continue;
        }
        let frame = Frame::Text(candidate.to_owned());
        let client = decode_client(&frame, usize::MAX);
        let server = decode_server(&frame);
        assert!(
            client.is_ok() || server.is_ok(),
            "{candidate}\n client: {client:?}\n server: {server:?}"
        );
        checked += 1;
    }
    assert!(checked >= 30, "only {checked} examples found");
}
