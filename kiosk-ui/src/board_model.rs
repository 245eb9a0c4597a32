//! What the board shows and says (U1–U5), independent of the DOM: the marks, the glowing mark,
//! the winning line, each cell's spoken label, and arrow-key movement of the focus.

use engine::{Cell, Mark, Position};
use protocol::RoomView;

use crate::i18n::{Lang, T, mark};

/// One board as drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BoardModel {
    pub cells: [Option<Mark>; 9],
    /// R-INF-5: the mark that vanishes when the side to move plays.
    pub glowing: Option<Cell>,
    /// U4: the three cells of the line that ended the game.
    pub line: Option<[Cell; 3]>,
    /// T5: the suggested cell, shown until the next move.
    pub hint: Option<Cell>,
}

impl BoardModel {
    /// The board of a room snapshot.
    pub fn from_room(room: &RoomView) -> BoardModel {
        let mut cells = [None; 9];
        for &c in &room.x {
            if let Some(slot) = cells.get_mut(usize::from(c)) {
                *slot = Some(Mark::X);
            }
        }
        for &c in &room.o {
            if let Some(slot) = cells.get_mut(usize::from(c)) {
                *slot = Some(Mark::O);
            }
        }
        let line = match room.result.as_ref().map(|r| r.end) {
            Some(protocol::records::GameEnd::Line { line, .. }) => Some(line),
            _ => None,
        };
        BoardModel {
            cells,
            // A finished game has no mark about to vanish.
            glowing: if room.result.is_some() {
                None
            } else {
                room.glowing
            },
            line,
            hint: None,
        }
    }

    /// The board of an engine position (replay, the rules' example).
    pub fn from_position(p: &Position) -> BoardModel {
        let status = p.status();
        BoardModel {
            cells: p.board(),
            glowing: if status.is_over() { None } else { p.glowing() },
            line: match status {
                engine::Status::Won { line, .. } => Some(line),
                _ => None,
            },
            hint: None,
        }
    }

    /// The cell's label for screen readers (U5): "top left, empty", "centre, X",
    /// "top right, O, vanishes next".
    pub fn label(&self, cell: Cell, lang: Lang) -> String {
        let i = usize::from(cell);
        let content = match self.cells.get(i).copied().flatten() {
            Some(m) => mark(m),
            None => lang.t(T::CellEmpty),
        };
        let mut label = format!("{}, {}", lang.cell(cell), content);
        if self.glowing == Some(cell) {
            label.push_str(", ");
            label.push_str(lang.t(T::VanishesNext));
        }
        if self.line.is_some_and(|l| l.contains(&cell)) {
            label.push_str(", ");
            label.push_str(lang.t(T::WinningLine));
        }
        if self.hint == Some(cell) {
            label.push_str(", ");
            label.push_str(lang.t(T::HintLabel));
        }
        label
    }

    /// Whether a press on `cell` asks for a move: only empty cells, only when the reader may
    /// move now (U1).
    pub fn playable(&self, cell: Cell, may_move: bool) -> bool {
        may_move
            && self
                .cells
                .get(usize::from(cell))
                .is_some_and(Option::is_none)
    }
}

/// A key that moves the focus inside the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nav {
    Up,
    Down,
    Left,
    Right,
    RowStart,
    RowEnd,
    First,
    Last,
}

impl Nav {
    /// Reads a `KeyboardEvent.key`; `ctrl` turns Home/End into first/last cell (WAI-ARIA grid).
    pub fn from_key(key: &str, ctrl: bool) -> Option<Nav> {
        Some(match key {
            "ArrowUp" => Nav::Up,
            "ArrowDown" => Nav::Down,
            "ArrowLeft" => Nav::Left,
            "ArrowRight" => Nav::Right,
            "Home" if ctrl => Nav::First,
            "End" if ctrl => Nav::Last,
            "Home" => Nav::RowStart,
            "End" => Nav::RowEnd,
            _ => return None,
        })
    }
}

/// The focused cell after `nav` from `cell`. The board never mirrors, so Left is always
/// towards column 0; movement stops at the edges.
pub fn move_focus(cell: Cell, nav: Nav) -> Cell {
    let (row, col) = (cell / 3, cell % 3);
    match nav {
        Nav::Up => row.saturating_sub(1) * 3 + col,
        Nav::Down => (row + 1).min(2) * 3 + col,
        Nav::Left => row * 3 + col.saturating_sub(1),
        Nav::Right => row * 3 + (col + 1).min(2),
        Nav::RowStart => row * 3,
        Nav::RowEnd => row * 3 + 2,
        Nav::First => 0,
        Nav::Last => 8,
    }
}

/// Whether a key places a mark (U1: Space and Enter).
pub fn is_place_key(key: &str) -> bool {
    matches!(key, " " | "Enter" | "Spacebar")
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Game;

    #[test]
    fn arrows_move_within_the_grid_and_stop_at_edges() {
        assert_eq!(move_focus(4, Nav::Up), 1);
        assert_eq!(move_focus(4, Nav::Down), 7);
        assert_eq!(move_focus(4, Nav::Left), 3);
        assert_eq!(move_focus(4, Nav::Right), 5);
        assert_eq!(move_focus(0, Nav::Up), 0);
        assert_eq!(move_focus(0, Nav::Left), 0);
        assert_eq!(move_focus(8, Nav::Right), 8);
        assert_eq!(move_focus(8, Nav::Down), 8);
        assert_eq!(move_focus(5, Nav::RowStart), 3);
        assert_eq!(move_focus(3, Nav::RowEnd), 5);
        assert_eq!(move_focus(5, Nav::First), 0);
        assert_eq!(move_focus(1, Nav::Last), 8);
        assert_eq!(Nav::from_key("Home", true), Some(Nav::First));
        assert_eq!(Nav::from_key("a", false), None);
        assert!(is_place_key(" ") && is_place_key("Enter") && !is_place_key("x"));
    }

    #[test]
    fn labels_say_position_and_content_and_the_glowing_mark() {
        let p = Position::parse(Game::Infinite, "X:0,1,4|O:3,5,8|T:X").expect("legal");
        let board = BoardModel::from_position(&p);
        assert_eq!(board.label(2, Lang::En), "top right, empty");
        assert_eq!(board.label(4, Lang::En), "centre, X");
        assert_eq!(board.label(0, Lang::En), "top left, X, vanishes next");
        assert_eq!(board.label(8, Lang::En), "bottom right, O");
        assert_eq!(board.label(2, Lang::Ar), "أعلى اليمين, فارغة");
    }

    #[test]
    fn a_won_position_has_its_line_and_no_glow() {
        let p = Position::parse(Game::Infinite, "X:0,1,4|O:3,5,8|T:X").expect("legal");
        let won = p.play(7).expect("legal");
        let board = BoardModel::from_position(&won);
        assert_eq!(board.line, Some([1, 4, 7]));
        assert_eq!(board.glowing, None);
        assert!(board.label(7, Lang::En).ends_with("winning line"));
    }

    #[test]
    fn only_empty_cells_on_ones_turn_are_playable() {
        let p = Position::parse(Game::Xo, "X:4|O:|T:O").expect("legal");
        let board = BoardModel::from_position(&p);
        assert!(board.playable(0, true));
        assert!(!board.playable(4, true), "occupied");
        assert!(!board.playable(0, false), "not your turn");
    }
}
