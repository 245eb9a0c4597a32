//! AP2 through the real binary: a kiosk without a screen gets an owner by whoever holds its
//! card. With `--owner-code-out FILE` every start while there is no owner writes a fresh
//! one-time code to FILE; the code makes a signed-in account an owner once; the file is
//! removed once an owner exists and is not written again.

use crate::support;

use support::owner::claim;
use support::{Process, register_at};

/// The code in the file's first line, `XO Kiosk owner code: 1234 5678`.
fn code_in(file: &std::path::Path) -> String {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|e| panic!("{} is not there: {e}", file.display()));
    let first = text.lines().next().unwrap_or_default();
    let code: String = first
        .strip_prefix("XO Kiosk owner code: ")
        .unwrap_or_else(|| panic!("first line {first:?}"))
        .split_whitespace()
        .collect();
    assert_eq!(code.len(), 8, "{text}");
    assert!(text.contains("open Owner and enter this code"), "{text}");
    code
}

#[tokio::test]
async fn a_kiosk_without_an_owner_writes_a_fresh_code_at_every_start_until_one_claims_it() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let card = dir.path().join("boot");
    std::fs::create_dir_all(&card).expect("the boot partition");
    let file = card.join("owner-code.txt");
    let file_env = file.to_str().expect("a UTF-8 path");
    let env = [("XO_OWNER_CODE_OUT", file_env)];

    let first = Process::start(&data, &env);
    let old = code_in(&file);
    first.stop_with("-TERM");

    // The next start writes a new code; the old one no longer works.
    let server = Process::start(&data, &env);
    let code = code_in(&file);
    assert_ne!(code, old);
    let sara = register_at(server.addr, "sara", "password1").await;
    claim(server.addr, &sara, &old)
        .await
        .assert_error(403, "bad_owner_code");
    // Five minutes are nothing to it, and spaces are fine.
    let reply = claim(
        server.addr,
        &sara,
        &format!("{} {}", &code[..4], &code[4..]),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["you"]["username"], "sara");
    assert!(!file.exists(), "the file goes once an owner exists");
    // Used once.
    let omar = register_at(server.addr, "omar", "password1").await;
    claim(server.addr, &omar, &code)
        .await
        .assert_error(403, "bad_owner_code");
    server.stop_with("-TERM");

    // With an owner, a start writes nothing (and removes a file left from before).
    std::fs::write(&file, "XO Kiosk owner code: 0000 0000\n").expect("a stale file");
    let again = Process::start(&data, &env);
    let health = support::request(again.addr, "GET", "/api/health", &[], None).await;
    assert_eq!(health.status, 200, "{}", health.text());
    assert!(
        !file.exists(),
        "no code is written while the kiosk has an owner"
    );
    again.stop_with("-TERM");
}

#[tokio::test]
async fn an_owner_made_with_the_kiosk_screen_s_code_removes_the_boot_code_file() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let file = dir.path().join("owner-code.txt");
    let file_env = file.to_str().expect("a UTF-8 path");
    let server = Process::start(&data, &[("XO_OWNER_CODE_OUT", file_env)]);
    let boot = code_in(&file);
    let kiosk = support::owner::kiosk_code(server.addr).await;
    let sara = register_at(server.addr, "sara", "password1").await;
    let reply = claim(server.addr, &sara, &kiosk).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(!file.exists());
    // The boot code is no longer good for anyone.
    let omar = register_at(server.addr, "omar", "password1").await;
    claim(server.addr, &omar, &boot)
        .await
        .assert_error(403, "bad_owner_code");
    server.stop_with("-TERM");
}
