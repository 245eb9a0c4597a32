//! docs/PROTOCOL.md documents every row of the HTTP API's table ([`protocol::api::Endpoint`]),
//! and names no `/api` endpoint the table does not have.
//!
//! An endpoint is documented by a heading of the document's "HTTP API" section that names it
//! in backticks: `` `GET /api/users/{name}` ``, with a query if it takes one
//! (`` `GET /api/leaderboard?game=xo|infinite` ``), or several methods of one path
//! (`` `GET`, `PUT` and `DELETE /api/owner/settings` ``).

use std::collections::BTreeSet;

use protocol::api::{Endpoint, Method};

const DOC_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/PROTOCOL.md");

const METHODS: [Method; 4] = [Method::Get, Method::Post, Method::Put, Method::Delete];

fn method_named(name: &str) -> Option<Method> {
    METHODS.into_iter().find(|m| m.as_str() == name)
}

/// The `(method, path)` pairs the headings of `section` name (paths without their query).
fn documented(section: &str) -> BTreeSet<(&'static str, String)> {
    let mut found = BTreeSet::new();
    for heading in section.lines().filter(|l| l.starts_with('#')) {
        // Backticked spans are the odd pieces of a split on '`'.
        let mut bare: Vec<Method> = Vec::new();
        for span in heading.split('`').skip(1).step_by(2) {
            if let Some(method) = method_named(span) {
                bare.push(method);
                continue;
            }
            let Some((name, target)) = span.split_once(' ') else {
                continue;
            };
            let Some(method) = method_named(name) else {
                continue;
            };
            let path = target.split('?').next().unwrap_or(target).to_owned();
            for m in bare.drain(..).chain([method]) {
                found.insert((m.as_str(), path.clone()));
            }
        }
    }
    found
}

fn http_section(doc: &str) -> &str {
    let start = doc
        .find("\n## HTTP API")
        .expect("PROTOCOL.md has ## HTTP API");
    let rest = &doc[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

#[test]
fn every_row_of_the_api_table_has_a_heading_in_protocol_md() {
    let doc = std::fs::read_to_string(DOC_PATH).expect("docs/PROTOCOL.md is readable");
    let documented = documented(http_section(&doc));
    let missing: Vec<String> = Endpoint::ALL
        .iter()
        .map(|e| (e.method().as_str(), e.path().to_owned()))
        .filter(|row| !documented.contains(row))
        .map(|(m, p)| format!("{m} {p}"))
        .collect();
    assert!(
        missing.is_empty(),
        "endpoints of protocol::api without a heading in PROTOCOL.md's HTTP API: {missing:?}"
    );
    let rows: BTreeSet<(&str, String)> = Endpoint::ALL
        .iter()
        .map(|e| (e.method().as_str(), e.path().to_owned()))
        .collect();
    let stale: Vec<String> = documented
        .iter()
        .filter(|(_, path)| path.starts_with("/api"))
        .filter(|row| !rows.contains(row))
        .map(|(m, p)| format!("{m} {p}"))
        .collect();
    assert!(
        stale.is_empty(),
        "PROTOCOL.md documents endpoints protocol::api does not have: {stale:?}"
    );
}

#[test]
fn headings_name_one_or_several_methods_of_a_path() {
    let section = "## HTTP API\n\
        ### `GET /api/leaderboard?game=xo|infinite`\n\
        #### `GET`, `PUT` and `DELETE /api/owner/settings`\n\
        #### Updates: `POST /api/owner/update`, `GET /api/owner/update`\n\
        `POST /api/not-a-heading`\n";
    let found: Vec<(&str, String)> = documented(section).into_iter().collect();
    let expected: Vec<(&str, String)> = [
        ("DELETE", "/api/owner/settings"),
        ("GET", "/api/leaderboard"),
        ("GET", "/api/owner/settings"),
        ("GET", "/api/owner/update"),
        ("POST", "/api/owner/update"),
        ("PUT", "/api/owner/settings"),
    ]
    .into_iter()
    .map(|(m, p)| (m, p.to_owned()))
    .collect();
    assert_eq!(found, expected);
}
