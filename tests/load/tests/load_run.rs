//! xo-load against the real firmware-host binary on 127.0.0.1, and against xo-forwarder: a
//! few games, then the figures must be there and sane.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

/// The firmware-host binary: `XO_FIRMWARE_HOST` if set; else the one in the target directory
/// this test was built in, if it is newer than every source it is built from (as after
/// `cargo test --workspace`, which builds it for firmware-host's own tests); else built there
/// with `cargo build -p firmware-host`. Cargo gives a test the path of its own package's
/// binaries only, so the server's is found beside them.
fn firmware_host() -> PathBuf {
    if let Some(path) = std::env::var_os("XO_FIRMWARE_HOST") {
        return path.into();
    }
    let profile_dir = PathBuf::from(env!("CARGO_BIN_EXE_xo-load"))
        .parent()
        .expect("the binary is in a profile directory")
        .to_owned();
    let binary = profile_dir.join("firmware-host");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let sources = [
        "firmware-host",
        "engine",
        "tables",
        "Cargo.lock",
        "Cargo.toml",
    ]
    .iter()
    .filter_map(|p| newest(&root.join(p)))
    .max();
    let built = std::fs::metadata(&binary).and_then(|m| m.modified()).ok();
    if let (Some(built), Some(sources)) = (built, sources)
        && built > sources
    {
        return binary;
    }
    let target_dir = profile_dir.parent().expect("a target directory").to_owned();
    let mut build = Command::new(env!("CARGO"));
    build
        .args([
            "build",
            "--quiet",
            "--locked",
            "-p",
            "firmware-host",
            "--bin",
            "firmware-host",
        ])
        .arg("--target-dir")
        .arg(&target_dir);
    if profile_dir.ends_with("release") {
        build.arg("--release");
    }
    let status = build.status().expect("run cargo build for firmware-host");
    assert!(status.success(), "building firmware-host failed: {status}");
    binary
}

/// The newest modification time of a file or of the files under a folder (at most 20,000
/// entries; `target` folders skipped).
fn newest(path: &Path) -> Option<SystemTime> {
    let mut stack = vec![path.to_owned()];
    let mut newest = None;
    for _ in 0..20_000 {
        let Some(path) = stack.pop() else {
            break;
        };
        let Ok(meta) = std::fs::metadata(&path) else {
            continue;
        };
        if meta.is_dir() {
            if path.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            if let Ok(entries) = std::fs::read_dir(&path) {
                stack.extend(entries.filter_map(Result::ok).map(|e| e.path()));
            }
        } else if let Ok(modified) = meta.modified() {
            newest = newest.max(Some(modified));
        }
    }
    newest
}

fn xo_load(args: &[&str]) -> serde_json::Value {
    let output = Command::new(env!("CARGO_BIN_EXE_xo-load"))
        .args(args)
        .arg("--report-json")
        .output()
        .expect("run xo-load");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "xo-load failed: {stderr}\n{stdout}"
    );
    serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\n{stderr}"))
}

fn number(report: &serde_json::Value, pointer: &str) -> f64 {
    report
        .pointer(pointer)
        .and_then(serde_json::Value::as_f64)
        .unwrap_or_else(|| panic!("{pointer} missing in {report}"))
}

/// Latencies: present, ordered, and below the clients' 30 s reply timeout.
fn assert_latencies(report: &serde_json::Value, name: &str) {
    let p50 = number(report, &format!("/{name}/p50_us"));
    let p99 = number(report, &format!("/{name}/p99_us"));
    let max = number(report, &format!("/{name}/max_us"));
    assert!(
        0.0 < p50 && p50 <= p99 && p99 <= max && max < 30e6,
        "{name}: {report}"
    );
}

#[test]
fn a_few_rated_games_against_the_real_server_then_the_forwarder() {
    let server = firmware_host();
    let server = server.to_str().expect("a UTF-8 path");
    let report = xo_load(&[
        "--spawn-server",
        server,
        "--concurrent",
        "2",
        "--games",
        "6",
        "--seconds",
        "20",
        "--spectators-per-game",
        "1",
        "--idle-spectators",
        "2",
    ]);
    assert_eq!(report["errors"]["total"], 0, "{report}");
    assert_eq!(report["setup_errors"], serde_json::json!({}), "{report}");
    assert_eq!(report["connections"], 2 * 2 + 2 + 2, "{report}");
    assert_eq!(
        report["games_completed"], 6,
        "the games bound ends the run: {report}"
    );
    let moves = number(&report, "/moves");
    // Each game has at least five moves (XO's shortest) and random XO ends by the ninth.
    assert!(moves >= 30.0, "{report}");
    assert_eq!(number(&report, "/rtt/count"), moves, "{report}");
    assert_eq!(number(&report, "/to_opponent/count"), moves, "{report}");
    assert_latencies(&report, "rtt");
    assert_latencies(&report, "to_opponent");
    let window = number(&report, "/window_s");
    assert!(window > 0.0 && window < 20.5, "{report}");
    // Paced at the server's 20 messages per second per connection: at most 40 moves per
    // second per game, plus the clients' small starting burst.
    let rate = number(&report, "/moves_per_s");
    assert!(rate > 0.0 && rate <= 2.0 * 45.0, "{report}");
    assert!(number(&report, "/spectator_messages") > 0.0, "{report}");
    assert!(number(&report, "/server/peak_rss_kb") > 1000.0, "{report}");
    assert!(number(&report, "/server/vm_hwm_kb") >= number(&report, "/server/rss_start_kb"));
    assert!(number(&report, "/server/cpu_s") > 0.0, "{report}");
    assert_eq!(
        report["framing"], "postcard",
        "the UI's framing by default: {report}"
    );

    // Unrated games against the bot, in JSON text.
    let report = xo_load(&[
        "--spawn-server",
        server,
        "--concurrent",
        "1",
        "--games",
        "2",
        "--seconds",
        "20",
        "--spectators-per-game",
        "0",
        "--bot",
        "--json",
    ]);
    assert_eq!(report["errors"]["total"], 0, "{report}");
    assert_eq!(report["framing"], "json", "{report}");
    assert_eq!(report["games_completed"], 2, "{report}");
    // The player moves first and every game has at least three of its moves.
    assert!(number(&report, "/moves") >= 6.0, "{report}");
    assert_latencies(&report, "rtt");

    // The forwarder, plain and answering (`--forwarder-answers` starts it with `--answer`).
    // Answered, each move's answer is timed as the server's are ("rtt"): a sender that did
    // not read its answers would find them where it waits for the partner's frames.
    let forwarder = PathBuf::from(env!("CARGO_BIN_EXE_xo-forwarder"));
    for answers in [false, true] {
        let mut args = vec![
            "--target",
            "forwarder",
            "--spawn-server",
            forwarder.to_str().expect("UTF-8"),
            "--concurrent",
            "2",
            "--seconds",
            "2",
        ];
        if answers {
            args.push("--forwarder-answers");
        }
        let report = xo_load(&args);
        assert_eq!(report["errors"]["total"], 0, "{report}");
        assert_eq!(report["connections"], 4, "{report}");
        let moves = number(&report, "/moves");
        assert!(moves > 10.0, "{report}");
        assert!(number(&report, "/games_completed") >= 1.0, "{report}");
        assert_latencies(&report, "to_opponent");
        let command = report["command"].as_str().unwrap_or_default();
        if answers {
            assert!(command.contains("--answer"), "{report}");
            assert_eq!(
                number(&report, "/rtt/count"),
                moves,
                "every move answered: {report}"
            );
            assert_latencies(&report, "rtt");
        } else {
            assert!(!command.contains("--answer"), "{report}");
            assert_eq!(
                report["rtt"]["count"], 0,
                "the plain forwarder answers nobody: {report}"
            );
        }
    }
}
