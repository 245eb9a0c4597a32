//! `xo-tables`: statistics and probes of the embedded solved tables.
//!
//! ```text
//! xo-tables stats --game xo|infinite [--json]
//! xo-tables probe --game xo|infinite [--json] [POSITION ...]
//! ```

use std::io::{BufRead, Write};
use std::process::ExitCode;

use engine::{Game, Position};
use serde_json::json;
use tables::{Table, Verdict, table};

const USAGE: &str = "\
xo-tables: the solved tables of XO and Infinite XO embedded in this binary

usage:
  xo-tables stats --game xo|infinite [--json]
  xo-tables probe --game xo|infinite [--json] [POSITION ...]

stats   reachable positions, terminal and non-terminal counts, win/draw/loss counts among
        non-terminal positions (for the side to move), the longest distance to the end under
        best play, the start position's value, distance and optimal moves, and the embedded
        table's size in bytes.
probe   for each POSITION (or each line of standard input when none is given): its value for
        the side to move (win, draw, loss, or over when already decided), the distance in
        plies under best play (none for draws and decided positions) and the optimal moves.
        An invalid or unreachable position gets an error line; the exit status is then 1.

positions are written X:<cells>|O:<cells>|T:<X or O>, cells 0-8 row-major (0 top left), each
side's cells oldest first, e.g. X:1,4|O:0|T:O; the start is X:|O:|T:X.";

struct Args {
    command: String,
    game: Game,
    json: bool,
    positions: Vec<String>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let command = args.next().ok_or("missing command: stats or probe")?;
    if command == "--help" || command == "-h" || command == "help" {
        return Err(String::new());
    }
    if command != "stats" && command != "probe" {
        return Err(format!(
            "unknown command `{command}`: expected stats or probe"
        ));
    }
    let (mut game, mut json, mut positions) = (None, false, Vec::new());
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--json" => json = true,
            "--game" => {
                let value = args.next().ok_or("--game needs a value: xo or infinite")?;
                game = Some(
                    value
                        .parse::<Game>()
                        .map_err(|e| format!("--game {value}: {e}"))?,
                );
            }
            "-h" | "--help" => return Err(String::new()),
            other if other.starts_with("--game=") => {
                let value = &other["--game=".len()..];
                game = Some(
                    value
                        .parse::<Game>()
                        .map_err(|e| format!("--game {value}: {e}"))?,
                );
            }
            other if other.starts_with("--") => return Err(format!("unknown option `{other}`")),
            other if command == "probe" => positions.push(other.to_owned()),
            other => return Err(format!("unexpected argument `{other}`")),
        }
    }
    Ok(Args {
        command,
        game: game.ok_or("missing --game xo|infinite")?,
        json,
        positions,
    })
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(args) => args,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("xo-tables: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let t = table(args.game);
    let result = match args.command.as_str() {
        "stats" => stats(t, args.json),
        _ => probe(t, args.json, &args.positions),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            // A closed pipe (`xo-tables probe | head`) is not an error worth a message.
            if e.kind() != std::io::ErrorKind::BrokenPipe {
                eprintln!("xo-tables: {e}");
            }
            ExitCode::FAILURE
        }
    }
}

fn moves_text(cells: &[u8]) -> String {
    if cells.is_empty() {
        "-".to_owned()
    } else {
        cells
            .iter()
            .map(u8::to_string)
            .collect::<Vec<_>>()
            .join(",")
    }
}

fn stats(t: &Table, as_json: bool) -> std::io::Result<bool> {
    let s = t.stats();
    let start = Position::start(t.game());
    let verdict = t.probe(&start).expect("the start is always in the table");
    let best = t
        .best_moves(&start)
        .expect("the start is always in the table");
    let mut out = std::io::stdout().lock();
    if as_json {
        let value = json!({
            "game": t.game().as_str(),
            "reachable": s.reachable,
            "terminal": s.terminal,
            "non_terminal": s.non_terminal,
            "win": s.win,
            "draw": s.draw,
            "loss": s.loss,
            "max_distance": s.max_distance,
            "stored": s.stored,
            "table_bytes": s.table_bytes,
            "start": { "value": verdict.name(), "distance": verdict.distance(), "best": best },
        });
        writeln!(out, "{value}")?;
    } else {
        writeln!(out, "game            {}", t.game())?;
        writeln!(out, "reachable       {}", s.reachable)?;
        writeln!(out, "terminal        {}", s.terminal)?;
        writeln!(out, "non-terminal    {}", s.non_terminal)?;
        writeln!(out, "  win           {}", s.win)?;
        writeln!(out, "  draw          {}", s.draw)?;
        writeln!(out, "  loss          {}", s.loss)?;
        writeln!(out, "max distance    {}", s.max_distance)?;
        writeln!(out, "stored          {} (one per symmetry class)", s.stored)?;
        writeln!(out, "table bytes     {}", s.table_bytes)?;
        writeln!(
            out,
            "start           {} {} best {}",
            verdict.name(),
            verdict.distance().map_or("-".to_owned(), |d| d.to_string()),
            moves_text(&best)
        )?;
    }
    Ok(true)
}

/// Answers one line per position; returns whether every position was answered.
fn probe(t: &Table, as_json: bool, positions: &[String]) -> std::io::Result<bool> {
    let mut out = std::io::stdout().lock();
    let mut all_ok = true;
    let mut answer = |text: &str, out: &mut dyn Write| -> std::io::Result<()> {
        let text = text.trim();
        match verdict_of(t, text) {
            Ok((position, verdict, best)) => {
                if as_json {
                    let value = json!({
                        "position": position.to_string(),
                        "value": verdict.name(),
                        "distance": verdict.distance(),
                        "best": best,
                    });
                    writeln!(out, "{value}")
                } else {
                    writeln!(
                        out,
                        "{position} {} {} {}",
                        verdict.name(),
                        verdict.distance().map_or("-".to_owned(), |d| d.to_string()),
                        moves_text(&best)
                    )
                }
            }
            Err(e) => {
                all_ok = false;
                if as_json {
                    writeln!(out, "{}", json!({ "position": text, "error": e }))
                } else {
                    writeln!(out, "{text} error: {e}")
                }
            }
        }
    };
    if positions.is_empty() {
        for line in std::io::stdin().lock().lines() {
            let line = line?;
            if !line.trim().is_empty() {
                answer(&line, &mut out)?;
            }
        }
    } else {
        for p in positions {
            answer(p, &mut out)?;
        }
    }
    Ok(all_ok)
}

fn verdict_of(t: &Table, text: &str) -> Result<(Position, Verdict, Vec<u8>), String> {
    let position = Position::parse(t.game(), text).map_err(|e| e.to_string())?;
    let verdict = t.probe(&position).map_err(|e| e.to_string())?;
    let best = t.best_moves(&position).map_err(|e| e.to_string())?;
    Ok((position, verdict, best))
}
