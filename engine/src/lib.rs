//! The rules of both games of XO Kiosk, pure: no I/O, no async, no clock, no randomness.
//!
//! # Layout
//!
//! - [`position`]: cells, marks, [`Position`] with [`Position::play`] for XO (G1) and
//!   Infinite XO (G2), the winning lines and the board symmetries.
//! - [`notation`]: the text form `X:<cells>|O:<cells>|T:<X or O>`.
//! - [`record`]: [`GameRecord`], a game with its history, repetition counting and undo.
//! - [`elo`]: rating changes (E2) and the preview (E4).
//!
//! ```
//! use engine::{Game, Mark, Position, Status};
//!
//! let p = Position::parse(Game::Infinite, "X:0,1,4|O:3,5,8|T:X")?;
//! assert_eq!(p.glowing(), Some(0)); // X's oldest mark vanishes next (R-INF-5)
//! // Playing 7 removes 0 first and leaves 1, 4, 7: a column (R-INF-3).
//! let next = p.play(7)?;
//! assert_eq!(next.status(), Status::Won { winner: Mark::X, line: [1, 4, 7] });
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod elo;
pub mod notation;
pub mod position;
pub mod record;

pub use elo::{INITIAL_RATING, Score};
pub use notation::NotationError;
pub use position::{
    CELL_NAMES, Cell, Game, IllegalMove, LINES, Mark, Marks, Position, Setup, SetupError, Status,
};
pub use record::{GameRecord, Played, RuleEnd, UndoTooFar};
