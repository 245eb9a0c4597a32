//! The `xo-tables` binary as a user runs it.

use std::io::Write;
use std::process::{Command, Stdio};

fn xo_tables(args: &[&str], stdin: Option<&str>) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_xo-tables"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("xo-tables starts");
    {
        let mut input = child.stdin.take().expect("piped stdin");
        if let Some(text) = stdin {
            input.write_all(text.as_bytes()).expect("write stdin");
        }
    }
    let out = child.wait_with_output().expect("xo-tables ends");
    (
        out.status.code().expect("exit code"),
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
    )
}

fn json_lines(text: &str) -> Vec<serde_json::Value> {
    text.lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

#[test]
fn stats_json_has_the_documented_keys() {
    for game in ["xo", "infinite"] {
        let (code, out, _) = xo_tables(&["stats", "--game", game, "--json"], None);
        assert_eq!(code, 0);
        let v = &json_lines(&out)[0];
        for key in [
            "reachable",
            "terminal",
            "non_terminal",
            "win",
            "draw",
            "loss",
            "max_distance",
            "table_bytes",
        ] {
            assert!(v[key].is_u64(), "{game}: {key} in {v}");
        }
        assert_eq!(
            v["reachable"].as_u64(),
            Some(v["terminal"].as_u64().unwrap() + v["non_terminal"].as_u64().unwrap())
        );
        assert_eq!(
            v["non_terminal"].as_u64(),
            Some(
                v["win"].as_u64().unwrap()
                    + v["draw"].as_u64().unwrap()
                    + v["loss"].as_u64().unwrap()
            )
        );
        assert!(v["start"]["value"].is_string());
        assert!(v["start"]["best"].is_array());
    }
    let (_, out, _) = xo_tables(&["stats", "--game", "xo", "--json"], None);
    let v = &json_lines(&out)[0];
    assert_eq!(v["reachable"], 5478);
    assert_eq!(v["start"]["value"], "draw");
    assert_eq!(v["start"]["distance"], serde_json::Value::Null);
}

#[test]
fn stats_text_names_every_figure() {
    let (code, out, _) = xo_tables(&["stats", "--game", "infinite"], None);
    assert_eq!(code, 0);
    for label in [
        "reachable",
        "terminal",
        "non-terminal",
        "win",
        "draw",
        "loss",
        "max distance",
        "table bytes",
        "start",
    ] {
        assert!(out.contains(label), "{label} missing in\n{out}");
    }
}

#[test]
fn probe_answers_each_argument_on_its_own_line() {
    let (code, out, _) = xo_tables(
        &[
            "probe",
            "--game",
            "xo",
            "X:1,4|O:0|T:O",
            "X:0,1,2|O:3,4|T:O",
            "X:|O:|T:X",
        ],
        None,
    );
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "X:1,4|O:0|T:O draw - 7",
            "X:0,1,2|O:3,4|T:O over - -",
            "X:|O:|T:X draw - 0,1,2,3,4,5,6,7,8"
        ]
    );
}

#[test]
fn probe_json_from_standard_input() {
    let (code, out, _) = xo_tables(
        &["probe", "--game", "infinite", "--json"],
        Some("X:0,1,4|O:3,5,8|T:X\n\nX:|O:|T:X\n"),
    );
    assert_eq!(code, 0);
    let v = json_lines(&out);
    assert_eq!(v.len(), 2);
    assert_eq!(v[0]["position"], "X:0,1,4|O:3,5,8|T:X");
    assert_eq!(v[0]["value"], "win");
    assert_eq!(v[0]["distance"], 1);
    assert_eq!(v[0]["best"], serde_json::json!([7]));
    assert_eq!(v[1]["value"], "win");
}

#[test]
fn probe_reports_bad_positions_and_still_answers_the_rest() {
    let (code, out, _) = xo_tables(
        &[
            "probe",
            "--game",
            "xo",
            "--json",
            "X:4|O:4|T:O",
            "nonsense",
            "X:|O:|T:X",
        ],
        None,
    );
    assert_ne!(code, 0);
    let v = json_lines(&out);
    assert_eq!(v.len(), 3);
    assert!(v[0]["error"].as_str().unwrap().contains("more than once"));
    assert!(
        v[1]["error"]
            .as_str()
            .unwrap()
            .contains("expected X:<cells>")
    );
    assert_eq!(v[2]["value"], "draw");

    let (code, out, _) = xo_tables(&["probe", "--game", "xo", "X:0|O:|T:X"], None);
    assert_ne!(code, 0);
    assert!(out.starts_with("X:0|O:|T:X error:"), "{out}");
}

#[test]
fn usage_errors_exit_2_with_help() {
    let (code, _, err) = xo_tables(&["stats"], None);
    assert_eq!(code, 2);
    assert!(err.contains("--game"));
    let (code, _, err) = xo_tables(&["stats", "--game", "chess"], None);
    assert_eq!(code, 2);
    assert!(err.contains("unknown game"));
    let (code, out, _) = xo_tables(&["--help"], None);
    assert_eq!(code, 0);
    assert!(out.contains("xo-tables probe"));
}

#[test]
fn puzzles_json_counts_every_embedded_puzzle() {
    let (code, out, _) = xo_tables(&["puzzles", "--json"], None);
    assert_eq!(code, 0, "the puzzles mined again match the embedded ones");
    let lines = json_lines(&out);
    for game in ["xo", "infinite"] {
        let rows: u64 = lines
            .iter()
            .filter(|v| v["game"] == game && v["distance"].is_u64())
            .map(|v| v["puzzles"].as_u64().unwrap())
            .sum();
        let summary = lines
            .iter()
            .find(|v| v["game"] == game && v["puzzle_bytes"].is_u64())
            .expect("a summary line per game");
        assert_eq!(summary["puzzles"].as_u64(), Some(rows), "{game}");
        assert_eq!(summary["puzzle_bytes"].as_u64(), Some(4 * rows), "{game}");
        assert_eq!(summary["mined_again_matches"], true);
    }
    let (code, out, _) = xo_tables(&["puzzles", "--game", "xo"], None);
    assert_eq!(code, 0);
    assert!(out.contains("xo        win"), "{out}");
    assert!(!out.contains("infinite"), "{out}");
}
