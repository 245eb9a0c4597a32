//! `xo-tables`: statistics and probes of the embedded solved tables.
//!
//! ```text
//! xo-tables stats --game xo|infinite [--json]
//! xo-tables probe --game xo|infinite [--json] [POSITION ...]
//! xo-tables puzzles [--game xo|infinite] [--json]
//! ```

use std::io::{BufRead, Write};
use std::process::ExitCode;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use engine::{Game, Position};
use serde_json::json;
use tables::mine::{self, Kind};
use tables::{Table, Verdict, puzzle, select, solve, table};

const USAGE: &str = "\
xo-tables: the solved tables of XO and Infinite XO embedded in this binary

usage:
  xo-tables stats --game xo|infinite [--json]
  xo-tables probe --game xo|infinite [--json] [POSITION ...]
  xo-tables puzzles [--game xo|infinite] [--json]

stats   reachable positions, terminal and non-terminal counts, win/draw/loss counts among
        non-terminal positions (for the side to move), the longest distance to the end under
        best play, the start position's value, distance and optimal moves, and the embedded
        table's size in bytes.
probe   for each POSITION (or each line of standard input when none is given): its value for
        the side to move (win, draw, loss, or over when already decided), the distance in
        plies under best play (none for draws and decided positions) and the optimal moves.
        An invalid or unreachable position gets an error line; the exit status is then 1.
puzzles the embedded puzzles of one game (both when --game is left out): how many of each kind
        (win: exactly one move wins; hold: exactly one move does not lose) at each distance
        (win: plies to the win; hold: the slowest loss among the other moves) with their
        lowest and highest initial ratings; the bytes they add to the binary; the days before
        the puzzle of the day repeats and the length of a complete streak; and the time this
        binary takes to solve the game and mine its puzzles as build.rs does (best of 3).

positions are written X:<cells>|O:<cells>|T:<X or O>, cells 0-8 row-major (0 top left), each
side's cells oldest first, e.g. X:1,4|O:0|T:O; the start is X:|O:|T:X.";

struct Args {
    command: String,
    /// Required by stats and probe; puzzles covers both games without it.
    game: Option<Game>,
    json: bool,
    positions: Vec<String>,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let command = args
        .next()
        .ok_or("missing command: stats, probe or puzzles")?;
    if command == "--help" || command == "-h" || command == "help" {
        return Err(String::new());
    }
    if !["stats", "probe", "puzzles"].contains(&command.as_str()) {
        return Err(format!(
            "unknown command `{command}`: expected stats, probe or puzzles"
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
    if game.is_none() && command != "puzzles" {
        return Err("missing --game xo|infinite".to_owned());
    }
    Ok(Args {
        command,
        game,
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
    let result = match (args.command.as_str(), args.game) {
        ("puzzles", game) => puzzles(game.map_or(Game::ALL.to_vec(), |g| vec![g]), args.json),
        ("stats", Some(game)) => stats(table(game), args.json),
        (_, Some(game)) => probe(table(game), args.json, &args.positions),
        (_, None) => unreachable!("parse_args requires --game for stats and probe"),
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

/// The fastest of three runs of `f`, and its last result.
fn best_of_three<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut best = Duration::MAX;
    let mut last = None;
    for _ in 0..3 {
        let start = Instant::now();
        let out = f();
        best = best.min(start.elapsed());
        last = Some(out);
    }
    (best, last.expect("three runs"))
}

fn puzzles(games: Vec<Game>, as_json: bool) -> std::io::Result<bool> {
    let mut out = std::io::stdout().lock();
    if !as_json {
        writeln!(out, "game      kind  distance  puzzles  ratings")?;
    }
    let mut summaries = Vec::new();
    for game in games {
        // (kind, distance) -> (count, lowest rating, highest rating)
        let mut rows: BTreeMap<(Kind, u8), (usize, i32, i32)> = BTreeMap::new();
        for p in puzzle::puzzles(game) {
            let row = rows
                .entry((p.kind(), p.distance()))
                .or_insert((0, i32::MAX, i32::MIN));
            row.0 += 1;
            row.1 = row.1.min(p.rating());
            row.2 = row.2.max(p.rating());
        }
        for (&(kind, distance), &(count, low, high)) in &rows {
            if as_json {
                let value = json!({
                    "game": game.as_str(), "kind": kind.as_str(), "distance": distance,
                    "puzzles": count, "rating_low": low, "rating_high": high,
                });
                writeln!(out, "{value}")?;
            } else {
                writeln!(
                    out,
                    "{:<9} {:<5} {distance:>8}  {count:>7}  {low}-{high}",
                    game.as_str(),
                    kind.as_str()
                )?;
            }
        }
        let (solve_time, blob) = best_of_three(|| solve::solve(game));
        let (mine_time, mined) = best_of_three(|| mine::mine(&mine::Lookup::new(&blob)));
        let count = |kind| {
            puzzle::puzzles(game)
                .iter()
                .filter(|p| p.kind() == kind)
                .count()
        };
        summaries.push(json!({
            "game": game.as_str(),
            "puzzles": puzzle::puzzles(game).len(),
            "win": count(Kind::Win),
            "hold": count(Kind::Hold),
            "puzzle_bytes": puzzle::packed(game).len(),
            "table_bytes": table(game).size_bytes(),
            "daily_cycle_days": select::daily_cycle(game),
            "streak_length": select::streak_length(game),
            "solve_ms": solve_time.as_secs_f64() * 1e3,
            "mine_ms": mine_time.as_secs_f64() * 1e3,
            "mined_again_matches": mine::to_bytes(&mined) == puzzle::packed(game),
        }));
    }
    for s in &summaries {
        if as_json {
            writeln!(out, "{s}")?;
        } else {
            writeln!(
                out,
                "{}: {} puzzles ({} win, {} hold), {} bytes beside a {}-byte table; \
                 daily repeats after {} days; a complete streak is {} puzzles; \
                 solve {:.1} ms + mine {:.1} ms (best of 3, this build)",
                s["game"].as_str().unwrap_or_default(),
                s["puzzles"],
                s["win"],
                s["hold"],
                s["puzzle_bytes"],
                s["table_bytes"],
                s["daily_cycle_days"],
                s["streak_length"],
                s["solve_ms"].as_f64().unwrap_or_default(),
                s["mine_ms"].as_f64().unwrap_or_default(),
            )?;
        }
    }
    if !as_json {
        let bytes = |key: &str| -> u64 { summaries.iter().filter_map(|s| s[key].as_u64()).sum() };
        let (p, t) = (bytes("puzzle_bytes"), bytes("table_bytes"));
        writeln!(
            out,
            "embedded: puzzles {p} + tables {t} = {} bytes (limit 131072)",
            p + t
        )?;
    }
    Ok(summaries
        .iter()
        .all(|s| s["mined_again_matches"] == serde_json::Value::Bool(true)))
}
