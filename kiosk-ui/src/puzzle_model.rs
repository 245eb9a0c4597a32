//! What a puzzle screen shows and says (PZ2), independent of the DOM: the boards of an attempt
//! ply by ply (the screen steps through the defence's reply and a refutation with a short
//! delay), the task, what the last move led to, and each ply's announcement.

use engine::{Cell, Position, Setup};
use protocol::PuzzleView;
use protocol::puzzle::{MoveVerdict, PuzzleBoard, PuzzleKind, PuzzleStep};

use crate::i18n::{Lang, T, mark};

/// The attempt's positions: its start, then the position after each ply of `moves`. The
/// server only sends legal plies; a ply the engine refused would end the list there.
pub fn positions(view: &PuzzleView) -> Vec<Position> {
    let Some(mut p) = start(view.game, &view.start) else {
        return Vec::new();
    };
    let mut out = vec![p];
    for &cell in &view.moves {
        match p.play(cell) {
            Ok(next) => {
                p = next;
                out.push(p);
            }
            Err(_) => break,
        }
    }
    out
}

/// A puzzle's start as a position; `None` if the server sent one the rules do not allow.
pub fn start(game: engine::Game, board: &PuzzleBoard) -> Option<Position> {
    let setup = Setup {
        game,
        x: board.x.clone(),
        o: board.o.clone(),
        turn: board.turn,
    };
    Position::from_setup(&setup).ok()
}

/// "X to move and win" or, for a hold puzzle, "X to move: do not lose".
pub fn task(view: &PuzzleView, lang: Lang) -> String {
    task_of(view.kind, view.you, lang)
}

pub fn task_of(kind: PuzzleKind, you: engine::Mark, lang: Lang) -> String {
    let t = match kind {
        PuzzleKind::Win => T::PuzzleTaskWin,
        PuzzleKind::Hold => T::PuzzleTaskHold,
    };
    lang.f(t, &[mark(you)])
}

/// A move's verdict in the replay's words: "win in 3", "draw", "loss in 4".
pub fn verdict(v: MoveVerdict, lang: Lang) -> String {
    match v {
        MoveVerdict::Win(n) => lang.f(T::VerdictWin, &[&lang.num(n)]),
        MoveVerdict::Draw => lang.t(T::VerdictDraw).to_owned(),
        MoveVerdict::Loss(n) => lang.f(T::VerdictLoss, &[&lang.num(n)]),
    }
}

/// What the last move led to: "Right — keep going", "Solved in 2 moves", "Wrong: centre —
/// loss in 4"; `None` before the first move.
pub fn outcome(view: &PuzzleView, lang: Lang) -> Option<String> {
    Some(match view.last.as_ref()? {
        PuzzleStep::Right { .. } => lang.t(T::PuzzleRight).to_owned(),
        PuzzleStep::Solved { .. } if view.kind == PuzzleKind::Hold => {
            lang.t(T::PuzzleSolvedHold).to_owned()
        }
        PuzzleStep::Solved { .. } => {
            // The player moves first and every other ply.
            let mine = view.moves.len().div_ceil(2);
            let moves = if mine == 1 {
                lang.t(T::PuzzleOneMove).to_owned()
            } else {
                lang.f(T::PuzzleMoves, &[&lang.num(mine)])
            };
            lang.f(T::PuzzleSolvedIn, &[&moves])
        }
        PuzzleStep::Wrong {
            cell, verdict: v, ..
        } => {
            let t = match v {
                MoveVerdict::Win(_) => T::PuzzleTooSlow,
                _ => T::PuzzleWrong,
            };
            lang.f(t, &[lang.cell(*cell), &verdict(*v, lang)])
        }
    })
}

/// The puzzle's distance, said once the attempt is over: "Best play wins in 3".
pub fn distance(view: &PuzzleView, lang: Lang) -> Option<String> {
    let d = view.distance?;
    Some(match view.kind {
        PuzzleKind::Win => lang.f(T::PuzzleDistanceWin, &[&lang.num(d)]),
        PuzzleKind::Hold => lang.f(T::PuzzleDistanceHold, &[&lang.num(d)]),
    })
}

/// The live region's sentence for the ply from `before` to `after` on `cell`: "O on top
/// right", "X on centre; top left vanished" (as in games).
pub fn ply_text(before: &Position, after: &Position, cell: Cell, lang: Lang) -> String {
    let mover = before.turn();
    let gone = before
        .marks(mover)
        .as_slice()
        .iter()
        .copied()
        .find(|c| !after.marks(mover).as_slice().contains(c));
    match gone {
        Some(gone) => lang.f(
            T::AnnMovedRemoved,
            &[mark(mover), lang.cell(cell), lang.cell(gone)],
        ),
        None => lang.f(T::AnnMoved, &[mark(mover), lang.cell(cell)]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::{Game, Mark};
    use protocol::puzzle::{AttemptStatus, PuzzleBoard, PuzzleOrigin};

    /// The puzzle of the day in PROTOCOL.md, after X's right move and O's reply.
    fn xo_view() -> PuzzleView {
        PuzzleView {
            attempt: 2,
            puzzle: "xo-win-802".into(),
            game: Game::Xo,
            kind: PuzzleKind::Win,
            origin: PuzzleOrigin::Daily { day: 20791 },
            you: Mark::X,
            rating: 910,
            start: PuzzleBoard {
                x: vec![0, 6],
                o: vec![2, 3],
                turn: Mark::X,
                glowing: None,
            },
            board: PuzzleBoard {
                x: vec![0, 6, 8],
                o: vec![2, 3, 1],
                turn: Mark::X,
                glowing: None,
            },
            moves: vec![8, 1],
            repetition_warning: false,
            status: AttemptStatus::Playing,
            last: Some(PuzzleStep::Right { cell: 8, reply: 1 }),
            distance: None,
            rated: false,
            player_rating: None,
            rating_change: None,
            streak: None,
            solved_today: Some(0),
        }
    }

    #[test]
    fn the_boards_follow_the_plies_from_the_start() {
        let view = xo_view();
        let boards = positions(&view);
        assert_eq!(boards.len(), 3);
        assert_eq!(boards[0].cell(3), Some(Mark::O));
        assert_eq!(boards[2].cell(8), Some(Mark::X));
        assert_eq!(boards[2].cell(1), Some(Mark::O));
        assert_eq!(boards[2].turn(), Mark::X);
        assert_eq!(task(&view, Lang::En), "X to move and win");
        assert_eq!(
            outcome(&view, Lang::En).as_deref(),
            Some("Right — keep going")
        );
        assert_eq!(distance(&view, Lang::En), None, "not before the end");
    }

    #[test]
    fn solved_and_wrong_say_how_many_moves_and_why() {
        let mut solved = xo_view();
        solved.moves.push(4);
        solved.last = Some(PuzzleStep::Solved { cell: 4 });
        solved.status = AttemptStatus::Solved;
        solved.distance = Some(3);
        assert_eq!(
            outcome(&solved, Lang::En).as_deref(),
            Some("Solved in 2 moves")
        );
        assert_eq!(
            distance(&solved, Lang::En).as_deref(),
            Some("Best play wins in 3")
        );
        let mut wrong = xo_view();
        wrong.moves = vec![1, 5, 4, 8];
        wrong.last = Some(PuzzleStep::Wrong {
            cell: 1,
            verdict: MoveVerdict::Loss(4),
            refutation: vec![5, 4, 8],
        });
        assert_eq!(
            outcome(&wrong, Lang::En).as_deref(),
            Some("Wrong: top centre — loss in 4")
        );
        let boards = positions(&wrong);
        assert_eq!(boards.len(), 5);
        assert!(boards[4].status().is_over(), "the refutation ends the game");
    }

    #[test]
    fn a_ply_that_removes_the_oldest_mark_says_so() {
        let before = Position::parse(Game::Infinite, "X:0,1,4|O:3,5,8|T:X").expect("legal");
        let after = before.play(7).expect("legal");
        assert_eq!(
            ply_text(&before, &after, 7, Lang::En),
            "X on bottom centre; top left vanished"
        );
        let start = Position::start(Game::Xo);
        let one = start.play(4).expect("legal");
        assert_eq!(ply_text(&start, &one, 4, Lang::En), "X on centre");
    }
}
