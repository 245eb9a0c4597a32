//! docs/PROTOCOL.md is checked against the wire types, so that an outside client written from
//! the document alone speaks the protocol the server speaks.
//!
//! - Every fenced JSON block names what it holds in its info string: ```` ```json client-msg ````,
//!   ```` ```json server-msg ````, or ```` ```json http METHOD PATH request|STATUS ````. Each JSON
//!   value in it must decode as that type and say nothing the type does not: a client example may
//!   leave optional fields out, a server example must be exactly what the server would send.
//! - ```` ```postcard client-msg|server-msg ```` blocks hold `hex bytes   JSON` lines: the bytes
//!   must be the postcard encoding of the JSON message.
//! - In ```` ```text ```` walk-throughs, a line `> {...}`, `< {...}`, `(X) {...}` or `(O) {...}` is
//!   a client message.
//! - Every variant of `ClientMsg`, `ServerMsg` and `Event` has an example, and every error code
//!   and close reason is in the document.
//! - The postcard tables between the `postcard-tables` markers are produced from the types;
//!   `XO_UPDATE_DOCS=1 cargo test -p protocol --test docs_examples` rewrites them.
//! - Protocol version 1 is still served: its page as published (`tests/fixtures/PROTOCOL-v1.md`)
//!   is kept, every WebSocket example on it reads and encodes as the server does for a
//!   version-1 client ([`protocol::v1`]), and every postcard table on it is still the start of
//!   today's, but for the two lobby messages that `v1` speaks in their old shape.

use std::collections::{BTreeMap, BTreeSet};

use protocol::records::FinishedGame;
use protocol::{
    ClientMsg, CreateRoom, ErrorCode, Event, Frame, Framing, MAX_FRAME_BYTES, RoomSummary,
    ServerMsg, decode_client, decode_server, http, v1,
};
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_reflection::{ContainerFormat, Format, Registry, Tracer, TracerConfig, VariantFormat};

const DOC_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/PROTOCOL.md");
/// The page version-1 clients were written from, as it was published (before the lobby was
/// paged, commit 882b8f0).
const V1_DOC_PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/PROTOCOL-v1.md");
const TABLES_BEGIN: &str = "<!-- postcard-tables:begin";
const TABLES_END: &str = "<!-- postcard-tables:end -->";

fn doc() -> String {
    std::fs::read_to_string(DOC_PATH).expect("docs/PROTOCOL.md is readable")
}

/// What a fenced block or a walk-through line holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Client,
    Server,
    /// An HTTP body: method, path as written in the doc (`/api/users/{name}`), and `request`
    /// or the status code.
    Http {
        method: String,
        path: String,
        which: String,
    },
}

/// One fenced block of the document.
#[derive(Debug)]
struct Block {
    /// 1-based line of the opening fence.
    line: usize,
    info: String,
    body: String,
}

fn blocks(doc: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String, usize, String)> = None;
    for (n, raw) in doc.lines().enumerate() {
        let trimmed = raw.trim_start();
        let indent = raw.len() - trimmed.len();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some((n + 1, info.trim().to_owned(), indent, String::new()));
                }
            }
            Some((line, info, fence_indent, body)) => {
                if trimmed.starts_with("```") {
                    out.push(Block {
                        line: *line,
                        info: std::mem::take(info),
                        body: std::mem::take(body),
                    });
                    open = None;
                } else {
                    // Blocks inside list items are indented like their fence.
                    let cut = raw
                        .char_indices()
                        .find(|&(i, c)| i >= *fence_indent || !c.is_whitespace())
                        .map_or(raw.len(), |(i, _)| i);
                    body.push_str(&raw[cut..]);
                    body.push('\n');
                }
            }
        }
    }
    assert!(open.is_none(), "PROTOCOL.md has an unclosed code fence");
    out
}

fn kind_of(words: &[&str]) -> Result<Kind, String> {
    match words {
        ["client-msg"] => Ok(Kind::Client),
        ["server-msg"] => Ok(Kind::Server),
        ["http", method, path, which] => Ok(Kind::Http {
            method: (*method).to_owned(),
            path: (*path).to_owned(),
            which: (*which).to_owned(),
        }),
        _ => Err(format!(
            "unknown example kind {words:?}: use `client-msg`, `server-msg` or `http METHOD PATH request|STATUS`"
        )),
    }
}

/// Every JSON value in `text`, one after the other (one per line, or one over many lines).
fn json_values(text: &str) -> Result<Vec<Value>, String> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .map_err(|e| format!("not JSON: {e}"))
}

/// `example` says nothing that `full` (the type's own rendering of it) does not: every key it
/// has is in `full` with the same value. Optional fields may be left out.
fn subset(example: &Value, full: &Value, at: &str) -> Result<(), String> {
    match (example, full) {
        (Value::Object(e), Value::Object(f)) => {
            for (k, v) in e {
                let Some(fv) = f.get(k) else {
                    return Err(format!("{at}.{k} is not a field of the type"));
                };
                subset(v, fv, &format!("{at}.{k}"))?;
            }
            Ok(())
        }
        (Value::Array(e), Value::Array(f)) if e.len() == f.len() => e
            .iter()
            .zip(f)
            .enumerate()
            .try_for_each(|(i, (e, f))| subset(e, f, &format!("{at}[{i}]"))),
        _ if example == full => Ok(()),
        _ => Err(format!("{at} is {example} but the type reads it as {full}")),
    }
}

/// The name of an externally tagged enum value: its only key, or the string itself.
fn variant(value: &Value) -> Option<&str> {
    match value {
        Value::String(s) => Some(s),
        Value::Object(o) if o.len() == 1 => o.keys().next().map(String::as_str),
        _ => None,
    }
}

#[derive(Debug, Default)]
struct Seen {
    client: BTreeSet<String>,
    server: BTreeSet<String>,
    event: BTreeSet<String>,
    http: BTreeSet<(String, String, String)>,
    checked: usize,
}

fn check_client(value: &Value, seen: &mut Seen) -> Result<(), String> {
    let text = value.to_string();
    let msg = decode_client(&Frame::Text(text), MAX_FRAME_BYTES)
        .map_err(|e| format!("is not a client message: {e}"))?;
    let full = serde_json::to_value(&msg).map_err(|e| e.to_string())?;
    subset(value, &full, "$")?;
    let again = decode_client(&msg.encode(Framing::Binary), MAX_FRAME_BYTES)
        .map_err(|e| format!("its postcard form does not decode: {e}"))?;
    if again != msg {
        return Err("its postcard form decodes to another message".into());
    }
    seen.client
        .insert(variant(&full).unwrap_or_default().to_owned());
    Ok(())
}

fn check_server(value: &Value, seen: &mut Seen) -> Result<(), String> {
    let msg = decode_server(&Frame::Text(value.to_string()))
        .map_err(|e| format!("is not a server message: {e}"))?;
    let full = serde_json::to_value(&msg).map_err(|e| e.to_string())?;
    if full != *value {
        // Name the first difference.
        subset(value, &full, "$")?;
        subset(&full, value, "$").map_err(|e| format!("the server would also send {e}"))?;
    }
    if let ServerMsg::Event(event) = &msg {
        let event = serde_json::to_value(event).map_err(|e| e.to_string())?;
        seen.event
            .insert(variant(&event).unwrap_or_default().to_owned());
    }
    seen.server
        .insert(variant(&full).unwrap_or_default().to_owned());
    Ok(())
}

/// `value` decodes as `T` and, rendered back, is exactly `value`.
fn exactly<T: DeserializeOwned + serde::Serialize>(value: &Value) -> Result<(), String> {
    let typed: T = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
    let full = serde_json::to_value(&typed).map_err(|e| e.to_string())?;
    if full == *value {
        Ok(())
    } else {
        subset(value, &full, "$")?;
        subset(&full, value, "$").map_err(|e| format!("the server would also send {e}"))
    }
}

/// `value` decodes as `T` and says nothing `T` does not; a request may leave out fields the
/// server fills in (an `OwnerSettings` request has no `stored`).
fn request<T: DeserializeOwned + serde::Serialize>(value: &Value) -> Result<(), String> {
    let typed: T = serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
    let full = serde_json::to_value(&typed).map_err(|e| e.to_string())?;
    subset(value, &full, "$")
}

/// The body types of every HTTP endpoint: (method, path as the doc writes it, the request
/// body's check, the success status and the response body's check).
type BodyCheck = fn(&Value) -> Result<(), String>;
const ENDPOINTS: &[(&str, &str, Option<BodyCheck>, &str, BodyCheck)] = &[
    ("GET", "/api/health", None, "200", exactly::<http::Health>),
    (
        "GET",
        "/api/config",
        None,
        "200",
        exactly::<http::ServerConfig>,
    ),
    (
        "POST",
        "/api/register",
        Some(exactly::<http::Credentials>),
        "201",
        exactly::<http::Account>,
    ),
    (
        "POST",
        "/api/login",
        Some(exactly::<http::Credentials>),
        "200",
        exactly::<http::Account>,
    ),
    (
        "POST",
        "/api/logout",
        None,
        "200",
        exactly::<http::SignedOut>,
    ),
    ("GET", "/api/me", None, "200", exactly::<http::Account>),
    ("GET", "/api/session", None, "200", exactly::<http::Session>),
    (
        "POST",
        "/api/me/password",
        Some(exactly::<http::ChangePassword>),
        "200",
        exactly::<http::Account>,
    ),
    (
        "GET",
        "/api/users/{name}",
        None,
        "200",
        exactly::<http::Profile>,
    ),
    (
        "GET",
        "/api/leaderboard",
        None,
        "200",
        exactly::<http::Leaderboard>,
    ),
    (
        "GET",
        "/api/games/{id}",
        None,
        "200",
        exactly::<http::GameView>,
    ),
    (
        "GET",
        "/api/rooms",
        None,
        "200",
        exactly::<Vec<RoomSummary>>,
    ),
    (
        "GET",
        "/api/puzzles/daily",
        None,
        "200",
        exactly::<http::DailyPuzzles>,
    ),
    (
        "GET",
        "/api/puzzles/streaks",
        None,
        "200",
        exactly::<http::StreakBoard>,
    ),
    (
        "DELETE",
        "/api/me",
        Some(exactly::<http::DeleteAccount>),
        "200",
        exactly::<http::SignedOut>,
    ),
    (
        "POST",
        "/api/kiosk/owner-code",
        None,
        "200",
        exactly::<http::OwnerCode>,
    ),
    (
        "POST",
        "/api/owner/claim",
        Some(exactly::<http::ClaimOwner>),
        "200",
        exactly::<http::Owners>,
    ),
    ("GET", "/api/owner", None, "200", exactly::<http::Owners>),
    (
        "DELETE",
        "/api/owner/owners/{id}",
        None,
        "200",
        exactly::<http::Owners>,
    ),
    (
        "DELETE",
        "/api/owner/users/{id}",
        None,
        "200",
        exactly::<http::AccountRemoved>,
    ),
    (
        "GET",
        "/api/owner/users",
        None,
        "200",
        exactly::<http::AccountList>,
    ),
    (
        "GET",
        "/api/owner/online",
        None,
        "200",
        exactly::<http::AccountList>,
    ),
    (
        "POST",
        "/api/owner/users/{id}/rename",
        Some(exactly::<http::Rename>),
        "200",
        exactly::<http::Account>,
    ),
    (
        "POST",
        "/api/owner/users/{id}/reset-password",
        None,
        "200",
        exactly::<http::PasswordReset>,
    ),
    (
        "POST",
        "/api/owner/rooms/{id}/close",
        Some(exactly::<http::CloseRoom>),
        "200",
        exactly::<http::ClosedRoom>,
    ),
    (
        "POST",
        "/api/owner/restore/preview",
        None,
        "200",
        exactly::<http::BackupPreview>,
    ),
    (
        "POST",
        "/api/owner/restore",
        None,
        "200",
        exactly::<http::Restored>,
    ),
    (
        "GET",
        "/api/owner/backups",
        None,
        "200",
        exactly::<http::KeptBackups>,
    ),
    (
        "POST",
        "/api/owner/backups/{name}/restore",
        None,
        "200",
        exactly::<http::Restored>,
    ),
    (
        "POST",
        "/api/kiosk/screen",
        Some(request::<http::KioskScreen>),
        "200",
        exactly::<http::KioskScreen>,
    ),
    (
        "GET",
        "/api/kiosk/screen",
        None,
        "200",
        exactly::<http::KioskScreen>,
    ),
    ("GET", "/api/seasons", None, "200", exactly::<http::Seasons>),
    (
        "POST",
        "/api/owner/update",
        None,
        "200",
        exactly::<http::UpdateInstalled>,
    ),
    (
        "POST",
        "/api/owner/restart",
        None,
        "202",
        exactly::<http::Restarting>,
    ),
    (
        "POST",
        "/api/owner/seasons",
        None,
        "200",
        exactly::<http::SeasonStarted>,
    ),
    (
        "GET",
        "/api/owner/settings",
        None,
        "200",
        exactly::<http::OwnerSettings>,
    ),
    (
        "PUT",
        "/api/owner/settings",
        Some(request::<http::OwnerSettings>),
        "200",
        exactly::<http::OwnerSettings>,
    ),
    (
        "DELETE",
        "/api/owner/settings",
        None,
        "200",
        exactly::<http::OwnerSettings>,
    ),
    (
        "POST",
        "/api/login/reset",
        Some(exactly::<http::ResetPassword>),
        "200",
        exactly::<http::Account>,
    ),
    // Arena events.
    (
        "POST",
        "/api/owner/events",
        Some(request::<http::NewEvent>),
        "201",
        exactly::<http::EventSummary>,
    ),
    (
        "DELETE",
        "/api/owner/events/{id}",
        None,
        "200",
        exactly::<http::EventSummary>,
    ),
    (
        "GET",
        "/api/events",
        None,
        "200",
        exactly::<http::EventList>,
    ),
    (
        "GET",
        "/api/events/{id}",
        None,
        "200",
        exactly::<http::EventPage>,
    ),
];

fn check_http(method: &str, path: &str, which: &str, value: &Value) -> Result<(), String> {
    let status: Option<u16> = which.parse().ok();
    if status.is_none() && which != "request" {
        return Err(format!("`{which}` is neither `request` nor a status code"));
    }
    if let Some(status) = status.filter(|s| *s >= 400) {
        // Every HTTP error has one shape, and its code one status.
        exactly::<http::ApiErrorBody>(value)?;
        let body: http::ApiErrorBody =
            serde_json::from_value(value.clone()).map_err(|e| e.to_string())?;
        if body.code == http::ApiErrorCode::Other {
            return Err(format!("{} is not an error code", value["code"]));
        }
        if body.code.status() != status {
            return Err(format!(
                "`{}` is answered with status {}, not {status}",
                body.code,
                body.code.status()
            ));
        }
        return Ok(());
    }
    let Some((_, _, request, ok, response)) = ENDPOINTS
        .iter()
        .find(|(m, p, ..)| *m == method && *p == path)
    else {
        return Err(format!("no endpoint {method} {path} in protocol::http"));
    };
    match (which, request) {
        ("request", Some(check)) => check(value),
        ("request", None) => Err(format!("{method} {path} takes no body")),
        (status, _) if status == *ok => response(value),
        (status, _) => Err(format!("{method} {path} succeeds with {ok}, not {status}")),
    }
}

/// Decodes a `hex bytes   JSON` line of a postcard block and checks that both say the same.
fn check_postcard_line(line: &str, kind: &Kind, seen: &mut Seen) -> Result<(), String> {
    let start = line.find('{').or_else(|| line.find('"')).ok_or("no JSON")?;
    let (hex, json) = line.split_at(start);
    let bytes = hex
        .split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).map_err(|e| format!("bad hex byte {b:?}: {e}")))
        .collect::<Result<Vec<u8>, String>>()?;
    let value: Value = serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    let frame = Frame::Binary(bytes.clone());
    match kind {
        Kind::Client => {
            check_client(&value, seen)?;
            let from_json = decode_client(&Frame::Text(json.to_owned()), MAX_FRAME_BYTES)
                .map_err(|e| e.to_string())?;
            let encoded = from_json.encode(Framing::Binary);
            if encoded != frame {
                return Err(format!("postcard encodes it as {}", hex_of(&encoded)));
            }
            // The server's decoder reads the documented bytes back as the same message.
            let from_bytes = decode_client(&frame, MAX_FRAME_BYTES)
                .map_err(|e| format!("the bytes do not decode: {e}"))?;
            if from_bytes != from_json {
                return Err(format!("the bytes decode to {from_bytes:?}"));
            }
        }
        Kind::Server => {
            check_server(&value, seen)?;
            let from_json =
                decode_server(&Frame::Text(json.to_owned())).map_err(|e| e.to_string())?;
            let encoded = from_json.encode(Framing::Binary);
            if encoded != frame {
                return Err(format!("postcard encodes it as {}", hex_of(&encoded)));
            }
        }
        Kind::Http { .. } => return Err("HTTP bodies are JSON only".into()),
    }
    Ok(())
}

fn hex_of(frame: &Frame) -> String {
    match frame {
        Frame::Binary(b) => b
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(" "),
        Frame::Text(t) => t.clone(),
    }
}

/// The typed lines of a walk-through: their index, the line, and the client message's JSON
/// after its prompt (`> `, `< `, `(X) `, `(O) `) up to a gap of two spaces.
fn typed_lines(body: &str) -> impl Iterator<Item = (usize, &str, &str)> {
    body.lines().enumerate().filter_map(|(i, line)| {
        let t = line.trim_start();
        let json = ["> ", "< ", "(X) ", "(O) "]
            .iter()
            .find_map(|prompt| t.strip_prefix(prompt))?;
        Some((i, t, json.split("  ").next().unwrap_or(json).trim()))
    })
}

/// Checks every example, returning what they cover, or every failing example by its line.
fn check_examples(doc: &str) -> Result<Seen, Vec<String>> {
    let mut seen = Seen::default();
    let mut failures = Vec::new();
    for block in blocks(doc) {
        let words: Vec<&str> = block.info.split_whitespace().collect();
        let (lang, rest) = words.split_first().map_or(("", &[][..]), |(l, r)| (*l, r));
        let mut fail = |line: usize, what: &str, why: String| {
            failures.push(format!("PROTOCOL.md:{line} {what}: {why}"));
        };
        match lang {
            "json" => {
                let kind = match kind_of(rest) {
                    Ok(kind) => kind,
                    Err(why) => {
                        fail(block.line, "unmarked JSON example", why);
                        continue;
                    }
                };
                let values = match json_values(&block.body) {
                    Ok(values) => values,
                    Err(why) => {
                        fail(block.line, "example", why);
                        continue;
                    }
                };
                if values.is_empty() {
                    fail(block.line, "example", "the block is empty".into());
                }
                for (i, value) in values.iter().enumerate() {
                    let what = format!("{} example #{} {value}", block.info, i + 1);
                    let checked = match &kind {
                        Kind::Client => check_client(value, &mut seen),
                        Kind::Server => check_server(value, &mut seen),
                        Kind::Http {
                            method,
                            path,
                            which,
                        } => {
                            seen.http
                                .insert((method.clone(), path.clone(), which.clone()));
                            check_http(method, path, which, value)
                        }
                    };
                    match checked {
                        Ok(()) => seen.checked += 1,
                        Err(why) => fail(block.line, &what, why),
                    }
                }
            }
            "postcard" => {
                let kind = match kind_of(rest) {
                    Ok(kind) => kind,
                    Err(why) => {
                        fail(block.line, "unmarked postcard example", why);
                        continue;
                    }
                };
                for (i, line) in block.body.lines().enumerate() {
                    if line.trim().is_empty() {
                        continue;
                    }
                    match check_postcard_line(line, &kind, &mut seen) {
                        Ok(()) => seen.checked += 1,
                        Err(why) => fail(block.line + 1 + i, &format!("postcard {line}"), why),
                    }
                }
            }
            "text" => {
                for (i, t, json) in typed_lines(&block.body) {
                    let checked = serde_json::from_str::<Value>(json)
                        .map_err(|e| format!("not JSON: {e}"))
                        .and_then(|value| check_client(&value, &mut seen));
                    match checked {
                        Ok(()) => seen.checked += 1,
                        Err(why) => fail(block.line + 1 + i, &format!("typed line {t}"), why),
                    }
                }
            }
            _ => {}
        }
    }
    if failures.is_empty() {
        Ok(seen)
    } else {
        Err(failures)
    }
}

fn checked_examples(doc: &str) -> Seen {
    check_examples(doc).unwrap_or_else(|failures| {
        panic!(
            "docs/PROTOCOL.md disagrees with the protocol crate:\n{}",
            failures.join("\n")
        )
    })
}

#[test]
fn every_json_example_in_protocol_md_decodes_as_its_type() {
    let seen = checked_examples(&doc());
    assert!(seen.checked >= 60, "only {} examples found", seen.checked);
}

#[test]
fn a_wrong_example_is_refused_naming_its_line() {
    let refused = |doc: &str| check_examples(doc).err().unwrap_or_default().join("\n");
    // serde alone ignores an unknown field; the check does not.
    let misspelled = "text\n```json client-msg\n{\"join\":{\"id\":4,\"room\":\"zd8yup\",\"pascode\":\"0420\"}}\n```\n";
    assert!(
        refused(misspelled).contains("PROTOCOL.md:2"),
        "{}",
        refused(misspelled)
    );
    assert!(refused(misspelled).contains("pascode"));
    // A server example leaves nothing out.
    assert!(refused("```json server-msg\n{\"pong\":{}}\n```\n").contains("id"));
    assert!(!refused("```json\n{\"pong\":{\"id\":null}}\n```\n").is_empty());
    assert!(
        !refused("```postcard client-msg\n00 02   {\"hello\":{\"version\":1}}\n```\n").is_empty()
    );
    assert!(!refused("```json http GET /api/me 401\n{\"code\":\"x\"}\n```\n").is_empty());
    assert!(
        refused("```postcard client-msg\n00 01   {\"hello\":{\"version\":1}}\n```\n").is_empty()
    );
}

/// Every type reachable from the two message enums and the HTTP records, traced through serde.
fn registry() -> Registry {
    let mut tracer = Tracer::new(TracerConfig::default());
    // A nested enum is only complete once traced itself; a new one missing here makes
    // `registry()` fail and names it.
    macro_rules! trace {
        ($($t:ty),* $(,)?) => {$(
            tracer
                .trace_simple_type::<$t>()
                .unwrap_or_else(|e| panic!("tracing {}: {e}", stringify!($t)));
        )*};
    }
    trace!(
        ClientMsg,
        ServerMsg,
        Event,
        CreateRoom,
        protocol::OpponentRequest,
        protocol::JoiningRequest,
        protocol::RoomKind,
        protocol::Joining,
        protocol::view::Name,
        protocol::Phase,
        protocol::CloseReason,
        ErrorCode,
        protocol::records::PlayerRef,
        protocol::records::GameEnd,
        FinishedGame,
        engine::Game,
        engine::Mark,
        protocol::puzzle::PuzzleSource,
        protocol::puzzle::PuzzleKind,
        protocol::puzzle::PuzzleOrigin,
        protocol::puzzle::AttemptStatus,
        protocol::puzzle::MoveVerdict,
        protocol::puzzle::PuzzleStep,
        protocol::event::EventPhase,
        protocol::event::EntrantState,
    );
    tracer
        .registry()
        .unwrap_or_else(|e| panic!("the wire types cannot be traced: {e}"))
}

fn enum_variants(registry: &Registry, name: &str) -> Vec<String> {
    match registry.get(name) {
        Some(ContainerFormat::Enum(variants)) => {
            variants.values().map(|v| v.name.clone()).collect()
        }
        other => panic!("{name} is not an enum in the registry: {other:?}"),
    }
}

#[test]
fn every_message_and_event_has_an_example() {
    let doc = doc();
    let seen = checked_examples(&doc);
    let registry = registry();
    let missing = |name: &str, seen: &BTreeSet<String>| -> Vec<String> {
        enum_variants(&registry, name)
            .into_iter()
            .filter(|v| !seen.contains(v))
            .map(|v| format!("{name}::{v}"))
            .collect()
    };
    let mut gaps = missing("ClientMsg", &seen.client);
    gaps.extend(missing("ServerMsg", &seen.server));
    gaps.extend(missing("Event", &seen.event));
    assert!(gaps.is_empty(), "no example in PROTOCOL.md for {gaps:?}");
}

#[test]
fn every_http_endpoint_and_error_code_has_an_example() {
    let doc = doc();
    let seen = checked_examples(&doc);
    let mut gaps = Vec::new();
    for (method, path, request, ok, _) in ENDPOINTS {
        let has = |which: &str| {
            seen.http
                .contains(&((*method).to_owned(), (*path).to_owned(), which.to_owned()))
        };
        if request.is_some() && !has("request") {
            gaps.push(format!("{method} {path} request"));
        }
        if !has(ok) {
            gaps.push(format!("{method} {path} {ok}"));
        }
    }
    assert!(gaps.is_empty(), "no example in PROTOCOL.md for {gaps:?}");
    let api = &doc[doc
        .find("\n## HTTP API")
        .expect("PROTOCOL.md has ## HTTP API")..];
    let missing: Vec<&str> = http::ApiErrorCode::ALL
        .iter()
        .map(|c| c.as_str())
        .filter(|code| !api.contains(&format!("`{code}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "HTTP error codes missing from PROTOCOL.md's HTTP API: {missing:?}"
    );
}

/// The endpoints whose examples are checked are rows of the table the server routes by, with
/// the table's success status.
#[test]
fn every_example_endpoint_is_a_row_of_the_api_table() {
    use protocol::api::{Endpoint, Found};
    for (method, path, _, ok, _) in ENDPOINTS {
        match Endpoint::find(method, path) {
            Found::Endpoint(endpoint, _) => {
                assert_eq!(endpoint.path(), *path, "{method} {path}");
                assert_eq!(endpoint.status().to_string(), *ok, "{method} {path}");
            }
            other => panic!("{method} {path} is not in protocol::api: {other:?}"),
        }
    }
}

#[test]
fn every_error_code_and_close_reason_is_documented() {
    let doc = doc();
    let registry = registry();
    let section = |title: &str| -> String {
        let start = doc
            .find(title)
            .unwrap_or_else(|| panic!("PROTOCOL.md has no {title:?}"));
        let rest = &doc[start + title.len()..];
        let end = rest.find("\n## ").unwrap_or(rest.len());
        rest[..end].to_owned()
    };
    let errors = section("\n## Error codes");
    let missing: Vec<String> = enum_variants(&registry, "ErrorCode")
        .into_iter()
        .filter(|code| !errors.contains(&format!("`{code}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "error codes missing from PROTOCOL.md's table: {missing:?}"
    );
    let missing: Vec<String> = enum_variants(&registry, "CloseReason")
        .into_iter()
        .filter(|r| !doc.contains(&format!("`{r}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "close reasons not in PROTOCOL.md: {missing:?}"
    );
}

fn render(format: &Format) -> String {
    match format {
        Format::TypeName(name) => format!("[{name}](#{})", name.to_lowercase()),
        Format::Unit => "()".into(),
        Format::Bool => "bool".into(),
        Format::I8 => "i8".into(),
        Format::I16 => "i16".into(),
        Format::I32 => "i32".into(),
        Format::I64 => "i64".into(),
        Format::I128 => "i128".into(),
        Format::U8 => "u8".into(),
        Format::U16 => "u16".into(),
        Format::U32 => "u32".into(),
        Format::U64 => "u64".into(),
        Format::U128 => "u128".into(),
        Format::F32 => "f32".into(),
        Format::F64 => "f64".into(),
        Format::Char => "char".into(),
        Format::Str => "string".into(),
        Format::Bytes => "bytes".into(),
        Format::Option(inner) => format!("option&lt;{}&gt;", render(inner)),
        Format::Seq(inner) => format!("list&lt;{}&gt;", render(inner)),
        Format::Map { key, value } => format!("map&lt;{}, {}&gt;", render(key), render(value)),
        Format::Tuple(items) => format!(
            "({})",
            items.iter().map(render).collect::<Vec<_>>().join(", ")
        ),
        Format::TupleArray { content, size } => format!("[{}; {size}]", render(content)),
        Format::Variable(_) => "?".into(),
    }
}

fn fields(fields: &[serde_reflection::Named<Format>]) -> String {
    if fields.is_empty() {
        return "—".into();
    }
    fields
        .iter()
        .map(|f| format!("`{}`: {}", f.name, render(&f.value)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Container names in reading order: the roots, then each type where it is first used.
fn reading_order(registry: &Registry) -> Vec<String> {
    fn visit_format(format: &Format, registry: &Registry, out: &mut Vec<String>) {
        match format {
            Format::TypeName(name) => visit(name, registry, out),
            Format::Option(inner) | Format::Seq(inner) => visit_format(inner, registry, out),
            Format::TupleArray { content, .. } => visit_format(content, registry, out),
            Format::Tuple(items) => items.iter().for_each(|f| visit_format(f, registry, out)),
            Format::Map { key, value } => {
                visit_format(key, registry, out);
                visit_format(value, registry, out);
            }
            _ => {}
        }
    }
    fn visit(name: &str, registry: &Registry, out: &mut Vec<String>) {
        if out.iter().any(|n| n == name) {
            return;
        }
        out.push(name.to_owned());
        match registry.get(name) {
            Some(ContainerFormat::Struct(fs)) => {
                fs.iter()
                    .for_each(|f| visit_format(&f.value, registry, out));
            }
            Some(ContainerFormat::Enum(vs)) => {
                for v in vs.values() {
                    match &v.value {
                        VariantFormat::Struct(fs) => {
                            fs.iter()
                                .for_each(|f| visit_format(&f.value, registry, out));
                        }
                        VariantFormat::NewType(f) => visit_format(f, registry, out),
                        VariantFormat::Tuple(fs) => {
                            fs.iter().for_each(|f| visit_format(f, registry, out));
                        }
                        VariantFormat::Unit | VariantFormat::Variable(_) => {}
                    }
                }
            }
            Some(ContainerFormat::NewTypeStruct(f)) => visit_format(f, registry, out),
            Some(ContainerFormat::TupleStruct(fs)) => {
                fs.iter().for_each(|f| visit_format(f, registry, out));
            }
            Some(ContainerFormat::UnitStruct) | None => {}
        }
    }
    let mut out = Vec::new();
    for root in ["ClientMsg", "ServerMsg", "FinishedGame"] {
        visit(root, registry, &mut out);
    }
    // Anything traced but not reachable from the roots still gets a table.
    for name in registry.keys() {
        visit(name, registry, &mut out);
    }
    out
}

fn line(out: &mut String, text: impl AsRef<str>) {
    out.push_str(text.as_ref());
    out.push('\n');
}

/// The generated part of PROTOCOL.md: one table per type, in declaration order.
fn postcard_tables() -> String {
    let registry = registry();
    let mut out = String::new();
    for name in reading_order(&registry) {
        let container = &registry[&name];
        match container {
            ContainerFormat::Enum(variants) => {
                line(&mut out, format!("#### {name}\n"));
                line(&mut out, "| index | variant | fields, in order |");
                line(&mut out, "| --- | --- | --- |");
                for (index, v) in variants {
                    let body = match &v.value {
                        VariantFormat::Unit => "—".to_owned(),
                        VariantFormat::Struct(fs) => fields(fs),
                        VariantFormat::NewType(f) => render(f),
                        VariantFormat::Tuple(fs) => {
                            fs.iter().map(render).collect::<Vec<_>>().join(", ")
                        }
                        VariantFormat::Variable(_) => "?".to_owned(),
                    };
                    line(&mut out, format!("| {index} | `{}` | {body} |", v.name));
                }
            }
            ContainerFormat::Struct(fs) => {
                line(&mut out, format!("#### {name}\n"));
                line(&mut out, "| # | field | type |");
                line(&mut out, "| --- | --- | --- |");
                for (i, f) in fs.iter().enumerate() {
                    line(
                        &mut out,
                        format!("| {i} | `{}` | {} |", f.name, render(&f.value)),
                    );
                }
            }
            other => line(&mut out, format!("#### {name}\n\n{other:?}")),
        }
        out.push('\n');
    }
    out
}

/// Where the generated tables of `doc` lie: just after the begin marker, and at the end marker.
fn tables_span(doc: &str) -> (usize, usize) {
    let begin = doc
        .find(TABLES_BEGIN)
        .expect("the page has a postcard-tables:begin marker");
    let after_begin = begin
        + doc[begin..]
            .find("-->")
            .expect("the begin marker is a closed comment")
        + "-->".len();
    let end = doc
        .find(TABLES_END)
        .expect("the page has a postcard-tables:end marker");
    (after_begin, end)
}

#[test]
fn postcard_tables_in_protocol_md_match_the_types() {
    let doc = doc();
    let (after_begin, end) = tables_span(&doc);
    let current = doc[after_begin..end].trim();
    let generated = postcard_tables();
    if std::env::var_os("XO_UPDATE_DOCS").is_some_and(|v| v == "1") {
        let updated = format!(
            "{}\n\n{}\n{}",
            &doc[..after_begin],
            generated.trim(),
            &doc[end..]
        );
        std::fs::write(DOC_PATH, updated).expect("docs/PROTOCOL.md is writable");
        return;
    }
    if current != generated.trim() {
        let first = current
            .lines()
            .zip(generated.trim().lines())
            .position(|(a, b)| a != b)
            .map_or_else(String::new, |i| {
                format!(
                    "\nfirst difference, table line {}:\n  doc:   {}\n  types: {}",
                    i + 1,
                    current.lines().nth(i).unwrap_or(""),
                    generated.lines().nth(i).unwrap_or("")
                )
            });
        panic!(
            "PROTOCOL.md's postcard tables are stale; run \
             `XO_UPDATE_DOCS=1 cargo test -p protocol --test docs_examples`{first}"
        );
    }
}

/// Declaration order is the wire contract of postcard: a variant's index never changes.
#[test]
fn postcard_variant_indices_follow_declaration_order() {
    let registry = registry();
    let codes: BTreeMap<u32, String> = match &registry["ErrorCode"] {
        ContainerFormat::Enum(v) => v.iter().map(|(i, n)| (*i, n.name.clone())).collect(),
        other => panic!("ErrorCode is {other:?}"),
    };
    // Spot checks against the encoder itself.
    for (index, name) in &codes {
        let code: ErrorCode =
            serde_json::from_value(Value::String(name.clone())).expect("a code by its name");
        let bytes = postcard::to_allocvec(&code).expect("postcard encodes codes");
        let (decoded, rest) =
            postcard::take_from_bytes::<u32>(&bytes).expect("a variant index is a varint");
        assert!(rest.is_empty());
        assert_eq!(decoded, *index, "{name}");
    }
}

fn v1_doc() -> String {
    std::fs::read_to_string(V1_DOC_PATH).expect("tests/fixtures/PROTOCOL-v1.md is readable")
}

/// `example` and `full` say the same, or the first difference.
fn same(example: &Value, full: &Value) -> Result<(), String> {
    if full == example {
        return Ok(());
    }
    subset(example, full, "$")?;
    subset(full, example, "$").map_err(|e| format!("the server would also send {e}"))
}

/// A version-1 client message decodes as the server reads it from such a client.
fn v1_client(value: &Value) -> Result<ClientMsg, String> {
    let msg = v1::decode_client(&Frame::Text(value.to_string()), MAX_FRAME_BYTES)
        .map_err(|e| format!("is not a version-1 client message: {e}"))?;
    let full = serde_json::to_value(&msg).map_err(|e| e.to_string())?;
    subset(value, &full, "$")?;
    Ok(msg)
}

/// A version-1 server message as the server sends it to such a client, in `framing`: its
/// `lobby` in version 1's shape, the rest as today's types.
fn v1_server(json: &str, framing: Framing) -> Result<Frame, String> {
    let frame = Frame::Text(json.to_owned());
    let value: Value = serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    if value.get("lobby").is_some() {
        let lobby = v1::Lobby::decode(&frame).map_err(|e| format!("not a v1 lobby: {e}"))?;
        Ok(lobby.encode(framing))
    } else {
        let msg = decode_server(&frame).map_err(|e| format!("is not a server message: {e}"))?;
        Ok(msg.encode(framing))
    }
}

fn v1_check_server(value: &Value) -> Result<(), String> {
    let Frame::Text(sent) = v1_server(&value.to_string(), Framing::Text)? else {
        return Err("JSON framing gave a binary frame".into());
    };
    same(
        value,
        &serde_json::from_str(&sent).map_err(|e| e.to_string())?,
    )
}

fn v1_check_postcard_line(line: &str, kind: &Kind) -> Result<(), String> {
    let start = line.find('{').ok_or("no JSON")?;
    let (hex, json) = line.split_at(start);
    let bytes = hex
        .split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).map_err(|e| format!("bad hex byte {b:?}: {e}")))
        .collect::<Result<Vec<u8>, String>>()?;
    let frame = Frame::Binary(bytes);
    let value: Value = serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    match kind {
        Kind::Client => {
            let from_json = v1_client(&value)?;
            let from_bytes = v1::decode_client(&frame, MAX_FRAME_BYTES)
                .map_err(|e| format!("the bytes do not decode: {e}"))?;
            if from_bytes != from_json {
                return Err(format!("the bytes decode to {from_bytes:?}"));
            }
        }
        Kind::Server => {
            v1_check_server(&value)?;
            let sent = v1_server(json, Framing::Binary)?;
            if sent != frame {
                return Err(format!("the server sends {}", hex_of(&sent)));
            }
        }
        Kind::Http { .. } => return Err("HTTP bodies are JSON only".into()),
    }
    Ok(())
}

/// Checks the WebSocket examples of the version-1 page (HTTP is not versioned by the
/// WebSocket protocol's number; its bodies have grown fields since): how many were checked,
/// or every failing one by its line.
fn v1_check_examples(doc: &str) -> Result<usize, Vec<String>> {
    let mut checked = 0;
    let mut failures = Vec::new();
    for block in blocks(doc) {
        let words: Vec<&str> = block.info.split_whitespace().collect();
        let (lang, rest) = words.split_first().map_or(("", &[][..]), |(l, r)| (*l, r));
        let kind = kind_of(rest);
        let mut outcome = |line: usize, what: &str, result: Result<(), String>| match result {
            Ok(()) => checked += 1,
            Err(why) => failures.push(format!("PROTOCOL-v1.md:{line} {what}: {why}")),
        };
        match (lang, kind) {
            ("json", Ok(kind @ (Kind::Client | Kind::Server))) => {
                let values = json_values(&block.body).unwrap_or_default();
                for value in &values {
                    let result = match kind {
                        Kind::Client => v1_client(value).map(drop),
                        _ => v1_check_server(value),
                    };
                    outcome(block.line, &value.to_string(), result);
                }
            }
            ("postcard", Ok(kind)) => {
                for (i, line) in block.body.lines().enumerate() {
                    if !line.trim().is_empty() {
                        let result = v1_check_postcard_line(line, &kind);
                        outcome(block.line + 1 + i, line, result);
                    }
                }
            }
            ("text", _) => {
                for (i, t, json) in typed_lines(&block.body) {
                    let result = serde_json::from_str::<Value>(json)
                        .map_err(|e| format!("not JSON: {e}"))
                        .and_then(|value| v1_client(&value).map(drop));
                    outcome(block.line + 1 + i, t, result);
                }
            }
            _ => {}
        }
    }
    if failures.is_empty() {
        Ok(checked)
    } else {
        Err(failures)
    }
}

#[test]
fn every_websocket_example_of_protocol_version_1_is_still_served() {
    let checked = v1_check_examples(&v1_doc()).unwrap_or_else(|failures| {
        panic!(
            "a version-1 client written from its page would not be understood:\n{}",
            failures.join("\n")
        )
    });
    assert!(checked >= 40, "only {checked} version-1 examples found");
    // The page has no postcard lobby examples; these are version 1's by its tables.
    let watch = v1::decode_client(&Frame::Binary(vec![0x02, 0x01, 0x02]), MAX_FRAME_BYTES);
    assert_eq!(
        watch,
        Ok(ClientMsg::WatchLobby {
            id: Some(2),
            limit: None
        })
    );
    let lobby = v1::Lobby {
        id: None,
        rooms: Vec::new(),
    };
    assert_eq!(
        lobby.encode(Framing::Binary),
        Frame::Binary(vec![0x02, 0x00, 0x00])
    );
}

#[test]
fn a_wrong_version_1_example_is_refused_naming_its_line() {
    let refused = |doc: &str| v1_check_examples(doc).err().unwrap_or_default().join("\n");
    // Version 1's lobby had no `total`: a page claiming it did is refused.
    let with_total =
        "x\n```json server-msg\n{\"lobby\":{\"id\":null,\"rooms\":[],\"total\":0}}\n```\n";
    assert!(
        refused(with_total).contains("PROTOCOL-v1.md:2"),
        "{}",
        refused(with_total)
    );
    let paged = "x\n```postcard client-msg\n02 01 02 00   {\"watch_lobby\":{\"id\":2}}\n```\n";
    assert!(
        refused(paged).contains("PROTOCOL-v1.md:3"),
        "{}",
        refused(paged)
    );
}

/// The rows of each `#### Type` table in `tables`, by type.
fn tables_by_type(tables: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut current = None;
    for line in tables.lines() {
        if let Some(name) = line.strip_prefix("#### ") {
            current = Some(name.trim().to_owned());
            out.entry(name.trim().to_owned()).or_default();
        } else if let Some(name) = &current
            && line.starts_with("| ")
            && !line.starts_with("| index")
            && !line.starts_with("| #")
        {
            out.entry(name.clone()).or_default().push(line.to_owned());
        }
    }
    out
}

/// Every postcard shape of version 1 is still today's: each of its tables is the start of
/// today's table of that type (variants are only ever appended), but for `watch_lobby` and
/// `lobby`, which [`protocol::v1`] reads and writes in their version-1 shape.
#[test]
fn version_1_postcard_tables_are_the_start_of_todays() {
    let doc = v1_doc();
    let (begin, end) = tables_span(&doc);
    let old = tables_by_type(&doc[begin..end]);
    let now = tables_by_type(&postcard_tables());
    let v1_only = [
        (
            "ClientMsg",
            "| 2 | `watch_lobby` | `id`: option&lt;u32&gt; |",
        ),
        (
            "ServerMsg",
            "| 2 | `lobby` | `id`: option&lt;u32&gt;, `rooms`: list&lt;[RoomSummary](#roomsummary)&gt; |",
        ),
    ];
    assert!(old.len() >= 20, "only {} tables on the v1 page", old.len());
    for (name, rows) in &old {
        let today = now
            .get(name)
            .unwrap_or_else(|| panic!("type {name} of version 1 is gone"));
        assert!(today.len() >= rows.len(), "{name} lost rows");
        for (i, (was, is)) in rows.iter().zip(today).enumerate() {
            if v1_only.contains(&(name.as_str(), was.as_str())) {
                assert_ne!(was, is, "{name} table row {i}: the v1 module speaks it");
                continue;
            }
            assert_eq!(was, is, "{name} table row {i} changed since version 1");
        }
    }
}
