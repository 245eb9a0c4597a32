//! Replay analysis (U11): for each move, what the solved table promised the mover before it
//! and after it, so a player sees where a win slipped away.
//!
//! The table knows positions only, never the repetition history, so a verdict is what
//! perfect play from that position gives (T1).

use engine::{Cell, GameRecord, Mark, Position, Status};
use tables::Verdict;

use crate::i18n::{Lang, T};

/// A result for one side, with its distance in plies under best play.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outlook {
    Win(u8),
    Draw,
    Loss(u8),
    /// The game is over and this side won (after a winning move).
    Won,
    /// The move brought a position back a third time: drawn by repetition (R-INF-4), a rule
    /// of the game's history that the table, which sees positions only, knows nothing of.
    Repeated,
    /// The table does not know the position (never for positions reached by legal play).
    Unknown,
}

impl Outlook {
    /// Win 2, draw 1, loss 0: a move that lowers the rank threw a result away.
    fn rank(self) -> Option<u8> {
        match self {
            Outlook::Win(_) | Outlook::Won => Some(2),
            Outlook::Draw => Some(1),
            Outlook::Loss(_) => Some(0),
            Outlook::Repeated | Outlook::Unknown => None,
        }
    }

    pub fn text(self, lang: Lang) -> String {
        match self {
            Outlook::Win(d) => lang.f(T::VerdictWin, &[&lang.num(d)]),
            Outlook::Loss(d) => lang.f(T::VerdictLoss, &[&lang.num(d)]),
            Outlook::Repeated => lang.t(T::ResultRepetition).to_owned(),
            Outlook::Draw => lang.t(T::VerdictDraw).to_owned(),
            Outlook::Won => lang.t(T::VerdictWon).to_owned(),
            Outlook::Unknown => lang.t(T::VerdictNone).to_owned(),
        }
    }

    /// A CSS class for the colour of the verdict.
    pub fn class(self) -> &'static str {
        match self {
            Outlook::Win(_) | Outlook::Won => "v-win",
            Outlook::Draw | Outlook::Repeated => "v-draw",
            Outlook::Loss(_) => "v-loss",
            Outlook::Unknown => "v-none",
        }
    }
}

/// One analysed move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoveAnalysis {
    /// 1-based move number.
    pub number: usize,
    pub mover: Mark,
    pub cell: Cell,
    /// In Infinite XO, the mover's mark that vanished with this move (R-INF-2).
    pub removed: Option<Cell>,
    pub before: Outlook,
    pub after: Outlook,
}

impl MoveAnalysis {
    /// What the move threw away, if it lowered the mover's result.
    pub fn slipped(&self) -> Option<T> {
        match (self.before.rank(), self.after.rank()) {
            (Some(2), Some(a)) if a < 2 => Some(T::WinSlipped),
            (Some(1), Some(0)) => Some(T::DrawSlipped),
            _ => None,
        }
    }
}

/// The verdict of `p` for its side to move.
fn outlook_to_move(p: &Position) -> Outlook {
    match tables::table(p.game()).probe(p) {
        Ok(Verdict::Win(d)) => Outlook::Win(d),
        Ok(Verdict::Loss(d)) => Outlook::Loss(d),
        Ok(Verdict::Draw) => Outlook::Draw,
        Ok(Verdict::Over) => match p.status() {
            // The side to move lost: the previous mover completed a line.
            Status::Won { .. } => Outlook::Loss(0),
            _ => Outlook::Draw,
        },
        Err(_) => Outlook::Unknown,
    }
}

/// The verdict of `child` for the player who just moved into it.
fn outlook_for_mover(child: &Position) -> Outlook {
    if let Status::Won { .. } = child.status() {
        return Outlook::Won;
    }
    match outlook_to_move(child) {
        Outlook::Win(d) => Outlook::Loss(d),
        Outlook::Loss(d) => Outlook::Win(d),
        other => other,
    }
}

/// Analyses every move of a game from `start` (the empty board, or a puzzle's position);
/// stops at the first illegal move (a corrupt record).
pub fn analyse(start: Position, moves: &[Cell]) -> Vec<MoveAnalysis> {
    let mut record = GameRecord::starting_at(start);
    let mut out = Vec::with_capacity(moves.len());
    for (i, &cell) in moves.iter().enumerate() {
        let before_pos = record.position();
        let mover = before_pos.turn();
        let before = outlook_to_move(&before_pos);
        if record.play(cell).is_err() {
            break;
        }
        let after_pos = record.position();
        let removed = before_pos
            .marks(mover)
            .as_slice()
            .iter()
            .copied()
            .find(|c| after_pos.cell(*c).is_none() && *c != cell);
        out.push(MoveAnalysis {
            number: i + 1,
            mover,
            cell,
            removed,
            before,
            after: if record.end() == Some(engine::RuleEnd::Repetition) {
                Outlook::Repeated
            } else {
                outlook_for_mover(&after_pos)
            },
        });
    }
    out
}

/// The positions of a game from `start`, one per ply (U10: vanished marks as they were).
pub fn positions(start: Position, moves: &[Cell]) -> Vec<Position> {
    let mut record = GameRecord::starting_at(start);
    for &cell in moves {
        if record.play(cell).is_err() {
            break;
        }
    }
    record.positions().to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Game;

    #[test]
    fn opening_xo_keeps_the_draw_and_a_missed_block_throws_it_away() {
        // X centre, O corner (draw kept), X top centre, O misses the block at bottom centre.
        let a = analyse(Position::start(Game::Xo), &[4, 0, 1, 2]);
        assert_eq!(a[0].before, Outlook::Draw);
        assert_eq!(a[0].after, Outlook::Draw);
        assert_eq!(a[0].slipped(), None);
        assert_eq!(a[3].mover, Mark::O);
        assert_eq!(a[3].before, Outlook::Draw);
        assert!(matches!(a[3].after, Outlook::Loss(_)));
        assert_eq!(a[3].slipped(), Some(T::DrawSlipped));
    }

    #[test]
    fn a_winning_move_is_won_and_a_missed_win_slips() {
        // X: 0, 1 with O: 3, 4; X to move wins at 2.
        let win = analyse(Position::start(Game::Xo), &[0, 3, 1, 4, 2]);
        assert_eq!(win[4].before, Outlook::Win(1));
        assert_eq!(win[4].after, Outlook::Won);
        let missed = analyse(Position::start(Game::Xo), &[0, 3, 1, 4, 8]);
        assert_eq!(missed[4].slipped(), Some(T::WinSlipped));
    }

    #[test]
    fn infinite_moves_report_the_vanished_mark() {
        let a = analyse(Position::start(Game::Infinite), &[0, 3, 1, 5, 4, 8, 7]);
        assert_eq!(a[6].removed, Some(0));
        assert_eq!(a[6].after, Outlook::Won);
        assert_eq!(a[5].removed, None);
        assert_eq!(
            positions(Position::start(Game::Infinite), &[0, 3, 1, 5, 4, 8, 7]).len(),
            8
        );
    }

    #[test]
    fn a_repetition_draw_is_not_analysed_as_a_slipped_win() {
        // X holds 0, 1, 5 and O 2, 3, 7; both rotate through a fourth cell and the position
        // comes back every eight plies; the third time draws.
        let mut moves = vec![0, 2, 1, 3, 5, 7];
        for _ in 0..2 {
            moves.extend([6, 8, 0, 2, 1, 3, 5, 7]);
        }
        let a = analyse(Position::start(Game::Infinite), &moves);
        assert_eq!(a.len(), moves.len(), "every move is legal");
        let last = a.last().expect("moves");
        assert_eq!(last.after, Outlook::Repeated);
        assert_eq!(last.slipped(), None);
        assert_eq!(last.after.text(Lang::En), "Draw by repetition");
    }

    #[test]
    fn outlooks_read_in_both_languages() {
        assert_eq!(Outlook::Win(5).text(Lang::En), "win in 5");
        assert_eq!(Outlook::Draw.text(Lang::En), "draw");
        assert!(Outlook::Loss(2).text(Lang::Ar).contains('٢'));
    }
}
