//! The position notation `X:<cells>|O:<cells>|T:<X or O>`.
//!
//! Cells are 0–8 row-major, each side's cells oldest to newest (in XO any order is accepted and
//! they print sorted). The start is `X:|O:|T:X`; `X:1,4|O:0|T:O` has X on 1 and 4 (4 newest),
//! O on 0, and O to move. Parsing yields a [`Setup`], which [`Position::from_setup`] checks.

use core::fmt;

use crate::position::{Game, Mark, Position, Setup, SetupError};

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list = |f: &mut fmt::Formatter<'_>, mark: Mark| -> fmt::Result {
            for (i, c) in self.marks(mark).as_slice().iter().enumerate() {
                if i > 0 {
                    f.write_str(",")?;
                }
                write!(f, "{c}")?;
            }
            Ok(())
        };
        f.write_str("X:")?;
        list(f, Mark::X)?;
        f.write_str("|O:")?;
        list(f, Mark::O)?;
        write!(f, "|T:{}", self.turn())
    }
}

/// Why a notation string could not be read as a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotationError {
    /// The text does not have the shape `X:…|O:…|T:…`.
    Syntax(String),
    /// The text is well formed, but the position cannot occur.
    Impossible(SetupError),
}

impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NotationError::Syntax(why) => write!(
                f,
                "not a position ({why}); expected X:<cells>|O:<cells>|T:<X or O>, e.g. X:1,4|O:0|T:O"
            ),
            NotationError::Impossible(e) => write!(f, "impossible position: {e}"),
        }
    }
}

impl std::error::Error for NotationError {}

impl From<SetupError> for NotationError {
    fn from(e: SetupError) -> Self {
        NotationError::Impossible(e)
    }
}

impl Setup {
    /// Reads the notation without checking that the position can occur.
    pub fn parse(game: Game, text: &str) -> Result<Setup, NotationError> {
        let syntax = |why: &str| NotationError::Syntax(why.to_owned());
        let mut parts = text.trim().split('|');
        let mut field = |name: &str| -> Result<&str, NotationError> {
            let part = parts
                .next()
                .ok_or_else(|| syntax(&format!("missing the {name}: part")))?;
            part.trim()
                .strip_prefix(name)
                .and_then(|rest| rest.strip_prefix(':'))
                .ok_or_else(|| syntax(&format!("expected {name}: but found `{}`", part.trim())))
        };
        let x = field("X")?;
        let o = field("O")?;
        let t = field("T")?;
        if parts.next().is_some() {
            return Err(syntax("text after the T: part"));
        }
        let cells = |list: &str| -> Result<Vec<u8>, NotationError> {
            let list = list.trim();
            if list.is_empty() {
                return Ok(Vec::new());
            }
            list.split(',')
                .map(|c| {
                    let c = c.trim();
                    match c.parse::<u8>() {
                        Ok(n) if n <= 8 => Ok(n),
                        _ => Err(syntax(&format!("`{c}` is not a cell from 0 to 8"))),
                    }
                })
                .collect()
        };
        let turn = match t.trim() {
            "X" | "x" => Mark::X,
            "O" | "o" => Mark::O,
            other => return Err(syntax(&format!("`{other}` is not X or O"))),
        };
        Ok(Setup {
            game,
            x: cells(x)?,
            o: cells(o)?,
            turn,
        })
    }
}

impl Position {
    /// Parses and checks a position of `game` written in the notation.
    pub fn parse(game: Game, text: &str) -> Result<Position, NotationError> {
        Ok(Position::from_setup(&Setup::parse(game, text)?)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::SetupError;

    #[test]
    fn start_prints_as_documented() {
        assert_eq!(Position::start(Game::Xo).to_string(), "X:|O:|T:X");
        assert_eq!(Position::start(Game::Infinite).to_string(), "X:|O:|T:X");
    }

    #[test]
    fn example_round_trips() {
        let p = Position::parse(Game::Infinite, "X:1,4|O:0|T:O").unwrap();
        assert_eq!(p.marks(Mark::X).as_slice(), &[1, 4]);
        assert_eq!(p.to_string(), "X:1,4|O:0|T:O");
        let played = Position::start(Game::Infinite)
            .play(1)
            .and_then(|p| p.play(0))
            .and_then(|p| p.play(4))
            .unwrap();
        assert_eq!(played, p);
    }

    #[test]
    fn xo_order_does_not_matter() {
        let a = Position::parse(Game::Xo, "X:4,1|O:0|T:O").unwrap();
        let b = Position::parse(Game::Xo, "X:1,4|O:0|T:O").unwrap();
        assert_eq!(a, b);
        assert_eq!(a.to_string(), "X:1,4|O:0|T:O");
    }

    #[test]
    fn infinite_order_matters() {
        let a = Position::parse(Game::Infinite, "X:4,1|O:0|T:O").unwrap();
        let b = Position::parse(Game::Infinite, "X:1,4|O:0|T:O").unwrap();
        assert_ne!(a, b);
    }

    #[test]
    fn rejects_overlapping_cells() {
        assert_eq!(
            Position::parse(Game::Xo, "X:1,4|O:4|T:O"),
            Err(NotationError::Impossible(SetupError::Overlap(4)))
        );
    }

    #[test]
    fn rejects_too_many_marks() {
        assert!(matches!(
            Position::parse(Game::Infinite, "X:0,1,5,7|O:2,3,4|T:O"),
            Err(NotationError::Impossible(SetupError::TooManyMarks {
                mark: Mark::X,
                count: 4
            }))
        ));
    }

    #[test]
    fn rejects_wrong_side_to_move() {
        assert!(matches!(
            Position::parse(Game::Xo, "X:0|O:|T:X"),
            Err(NotationError::Impossible(SetupError::WrongTurn { .. }))
        ));
        assert!(matches!(
            Position::parse(Game::Xo, "X:0,1|O:3|T:X"),
            Err(NotationError::Impossible(SetupError::WrongTurn { .. }))
        ));
        // Three each with O to move happens only in Infinite XO.
        assert!(Position::parse(Game::Infinite, "X:0,1,5|O:2,3,7|T:O").is_ok());
        assert!(Position::parse(Game::Xo, "X:0,1,5|O:2,3,7|T:O").is_err());
    }

    #[test]
    fn rejects_already_decided_boards() {
        // The side to move holds a line.
        assert_eq!(
            Position::parse(Game::Xo, "X:0,1,2|O:3,4,7|T:X"),
            Err(NotationError::Impossible(SetupError::AlreadyDecided))
        );
        // Both hold lines.
        assert_eq!(
            Position::parse(Game::Infinite, "X:0,1,2|O:3,4,5|T:O"),
            Err(NotationError::Impossible(SetupError::AlreadyDecided))
        );
        // A just-completed line is a legal, decided position.
        assert!(
            Position::parse(Game::Xo, "X:0,1,2|O:3,4|T:O")
                .unwrap()
                .status()
                .is_over()
        );
    }

    #[test]
    fn rejects_bad_syntax_with_a_clear_message() {
        for bad in [
            "",
            "X:|O:",
            "X:1|O:|T:Z",
            "X:9|O:|T:O",
            "X:a|O:|T:O",
            "O:|X:|T:X",
            "X:|O:|T:X|",
        ] {
            let err = Position::parse(Game::Xo, bad).unwrap_err();
            assert!(matches!(err, NotationError::Syntax(_)), "{bad}: {err}");
            assert!(err.to_string().contains("expected X:<cells>"));
        }
    }
}
