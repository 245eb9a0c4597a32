//! The engine with arbitrary move sequences and undos, checked against a reference model of
//! both games written here from SPEC G1/G2 (plain vectors, lines found by coordinates rather
//! than the engine's `LINES` table):
//!
//! - every move is accepted or refused exactly as the model says, and a refusal changes nothing;
//! - the position (each side's marks in order, the side to move) equals the model's;
//! - `status` and the record's end agree with a brute-force line check, the full board and
//!   repetition counts counted from the whole history (R-XO-2, R-INF-3, R-INF-4);
//! - Infinite XO never shows more than 3 marks per player;
//! - undo restores the record exactly as it was before those moves (positions, repetition
//!   counts, end), and undoing too far changes nothing;
//! - notation, setup and symmetry round-trips of every position reached.
#![no_main]

use arbitrary::Arbitrary;
use engine::{Game, GameRecord, IllegalMove, Mark, Position, RuleEnd, Status};
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
enum Op {
    Play(u8),
    Undo(u8),
}

#[derive(Debug, Arbitrary)]
struct Input {
    infinite: bool,
    ops: Vec<Op>,
}

/// A position as SPEC describes it: each side's cells oldest first, and the side to move.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Model {
    game: Game,
    x: Vec<u8>,
    o: Vec<u8>,
    turn: Mark,
}

/// Whether three distinct cells lie on a row, a column or a diagonal of the 3×3 board.
fn collinear(a: u8, b: u8, c: u8) -> bool {
    let rc = |n: u8| (n / 3, n % 3);
    let [(r1, c1), (r2, c2), (r3, c3)] = [rc(a), rc(b), rc(c)];
    let distinct = a != b && b != c && a != c;
    distinct
        && ((r1 == r2 && r2 == r3)
            || (c1 == c2 && c2 == c3)
            || (r1 == c1 && r2 == c2 && r3 == c3)
            || (r1 + c1 == 2 && r2 + c2 == 2 && r3 + c3 == 2))
}

/// Brute force: any three of `cells` in a line.
fn has_line(cells: &[u8]) -> bool {
    let n = cells.len();
    (0..n).any(|i| (i + 1..n).any(|j| (j + 1..n).any(|k| collinear(cells[i], cells[j], cells[k]))))
}

impl Model {
    fn start(game: Game) -> Model {
        Model {
            game,
            x: Vec::new(),
            o: Vec::new(),
            turn: Mark::X,
        }
    }

    fn marks(&self, mark: Mark) -> &Vec<u8> {
        match mark {
            Mark::X => &self.x,
            Mark::O => &self.o,
        }
    }

    fn occupied(&self, cell: u8) -> bool {
        self.x.contains(&cell) || self.o.contains(&cell)
    }

    /// The side that moved last holds a line.
    fn won(&self) -> bool {
        has_line(self.marks(self.turn.other()))
    }

    fn full(&self) -> bool {
        self.game == Game::Xo && self.x.len() + self.o.len() == 9
    }

    fn over(&self) -> bool {
        self.won() || self.full()
    }

    /// R-XO-1/2, R-INF-1/2/3. Returns the new position; the caller checks legality.
    fn play(&self, cell: u8) -> Model {
        let mut next = self.clone();
        let own = match self.turn {
            Mark::X => &mut next.x,
            Mark::O => &mut next.o,
        };
        own.push(cell);
        match self.game {
            // XO: order carries no meaning; the engine keeps it sorted.
            Game::Xo => own.sort_unstable(),
            Game::Infinite => {
                if own.len() > 3 {
                    own.remove(0);
                }
            }
        }
        next.turn = self.turn.other();
        next
    }

    fn matches(&self, p: &Position) -> bool {
        p.game() == self.game
            && p.marks(Mark::X).as_slice() == self.x.as_slice()
            && p.marks(Mark::O).as_slice() == self.o.as_slice()
            && p.turn() == self.turn
    }
}

fn check_position(p: &Position, model: &Model) {
    assert!(model.matches(p), "engine {p:?} but model {model:?}");
    if p.game() == Game::Infinite {
        assert!(
            p.marks(Mark::X).len() <= 3 && p.marks(Mark::O).len() <= 3,
            "{p:?}"
        );
    }
    // The side to move never holds a line (play stops at a win).
    assert!(!has_line(model.marks(model.turn)), "{p:?}");
    let board = p.board();
    for c in 0..9u8 {
        let want = if model.x.contains(&c) {
            Some(Mark::X)
        } else if model.o.contains(&c) {
            Some(Mark::O)
        } else {
            None
        };
        assert_eq!(board[usize::from(c)], want, "{p:?} cell {c}");
    }
    // Status against the brute-force line check.
    match p.status() {
        Status::Won { winner, line } => {
            assert_eq!(winner, model.turn.other(), "{p:?}");
            assert!(model.won(), "{p:?} reports a line the model does not see");
            assert!(collinear(line[0], line[1], line[2]), "{p:?}: {line:?}");
            assert!(
                line.iter().all(|c| model.marks(winner).contains(c)),
                "{p:?}"
            );
        }
        Status::Full => {
            assert!(model.full() && !model.won(), "{p:?}");
        }
        Status::Ongoing => assert!(!model.over(), "{p:?} should be over"),
    }
    let legal: Vec<u8> = p.legal_moves().collect();
    let want: Vec<u8> = if model.over() {
        Vec::new()
    } else {
        (0..9).filter(|&c| !model.occupied(c)).collect()
    };
    assert_eq!(legal, want, "{p:?}");
    // R-INF-5.
    let own = model.marks(model.turn);
    let glow = (model.game == Game::Infinite && own.len() == 3).then(|| own[0]);
    assert_eq!(p.glowing(), glow, "{p:?}");
    // Notation and setup round-trips.
    assert_eq!(Position::parse(p.game(), &p.to_string()).as_ref(), Ok(p));
    assert_eq!(Position::from_setup(&p.to_setup()).as_ref(), Ok(p));
    // The rules are unchanged by the board's symmetries.
    for sym in 0..8 {
        let t = p.transformed(sym);
        assert_eq!(
            t.status().is_over(),
            p.status().is_over(),
            "{p:?} sym {sym}"
        );
        assert_eq!(t.legal_mask().count_ones(), p.legal_mask().count_ones());
    }
    // Win and Block's look-ahead agrees with playing the move.
    if !model.over() {
        for c in 0..9u8 {
            let wins = p.wins_by_playing(model.turn, c);
            let want = !model.occupied(c) && has_line(model.play(c).marks(model.turn));
            assert_eq!(wins, want, "{p:?} cell {c}");
        }
    }
}

fuzz_target!(|input: Input| {
    let game = if input.infinite {
        Game::Infinite
    } else {
        Game::Xo
    };
    let mut record = GameRecord::new(game);
    // The model's history, start included, and the record after each number of plies.
    let mut history = vec![Model::start(game)];
    let mut snapshots = vec![record.clone()];
    for op in input.ops.iter().take(400) {
        match *op {
            Op::Play(cell) => {
                let cur = history.last().expect("history holds the start").clone();
                let ended = record.end().is_some();
                let expected_err = if ended {
                    Some(IllegalMove::GameOver)
                } else if cell > 8 {
                    Some(IllegalMove::NoSuchCell(cell))
                } else if cur.over() {
                    Some(IllegalMove::GameOver)
                } else if cur.occupied(cell) {
                    Some(IllegalMove::Occupied(cell))
                } else {
                    None
                };
                let before = record.clone();
                match record.play(cell) {
                    Err(e) => {
                        assert_eq!(Some(e), expected_err, "{cur:?} play {cell}");
                        assert_eq!(record, before, "a refused move changed the record");
                    }
                    Ok(played) => {
                        assert_eq!(expected_err, None, "{cur:?} play {cell} accepted");
                        let next = cur.play(cell);
                        history.push(next.clone());
                        let count = history.iter().filter(|m| **m == next).count();
                        assert_eq!(usize::from(played.occurrences), count, "{next:?}");
                        let want_end = if next.won() {
                            "line"
                        } else if next.full() {
                            "full"
                        } else if count >= 3 {
                            "repetition"
                        } else {
                            "none"
                        };
                        let got_end = match played.end {
                            Some(RuleEnd::Line { winner, .. }) => {
                                assert_eq!(winner, cur.turn);
                                "line"
                            }
                            Some(RuleEnd::FullBoard) => "full",
                            Some(RuleEnd::Repetition) => "repetition",
                            None => "none",
                        };
                        assert_eq!(got_end, want_end, "{next:?}");
                        assert_eq!(played.repetition_warning, count == 2 && want_end == "none");
                        assert_eq!(played.position, record.position());
                        if game == Game::Xo {
                            assert!(count == 1, "an XO position cannot repeat");
                        }
                        snapshots.push(record.clone());
                    }
                }
            }
            Op::Undo(n) => {
                let plies = usize::from(n % 8);
                let available = record.moves().len();
                let before = record.clone();
                match record.undo(plies) {
                    Err(e) => {
                        assert!(plies > available);
                        assert_eq!((e.requested, e.available), (plies, available));
                        assert_eq!(record, before, "a refused undo changed the record");
                    }
                    Ok(()) => {
                        assert!(plies <= available);
                        history.truncate(history.len() - plies);
                        snapshots.truncate(snapshots.len() - plies);
                        let then = snapshots.last().expect("snapshots hold the start");
                        if plies > 0 {
                            // Exactly as it was: positions, moves, repetition counts, end.
                            assert_eq!(&record, then, "undo {plies} did not restore the record");
                        } else {
                            assert_eq!(record, before);
                        }
                    }
                }
            }
        }
        // Every step: the record agrees with the model and its own history.
        let model = history.last().expect("history holds the start");
        let p = record.position();
        check_position(&p, model);
        assert_eq!(record.moves().len() + 1, history.len());
        assert_eq!(record.positions().len(), history.len());
        for (pos, m) in record.positions().iter().zip(&history) {
            assert!(m.matches(pos), "history {pos:?} vs {m:?}");
            let count = history.iter().filter(|h| *h == m).count();
            assert_eq!(usize::from(record.occurrences(pos)), count, "{pos:?}");
        }
        assert_eq!(
            record.repetition_warning(),
            record.end().is_none() && record.occurrences(&p) == 2
        );
        assert_eq!(record.end().is_some(), {
            let count = history.iter().filter(|h| *h == model).count();
            model.over() || count >= 3
        });
        // Replaying the moves from the start gives the same record.
        let replayed = GameRecord::from_moves(game, record.moves()).expect("moves replay");
        assert_eq!(replayed, record);
    }
});
