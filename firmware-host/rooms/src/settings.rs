//! Room settings: the creation box as sent ([`protocol::CreateRoom`]) is checked once here and
//! becomes [`Settings`], which is always valid (SPEC M1.1, M1.2, M2.1, M3.1, M3.7).

use engine::{Game, Mark};
use protocol::{CreateRoom, JoiningRequest, OpponentRequest};
use serde::{Deserialize, Serialize};

use crate::refusal::{Reason, Refusal, refuse};

/// The choices of Infinite XO's move clock, in seconds (M3.1).
pub const TIMES_PER_MOVE_S: [u8; 3] = [5, 10, 30];
/// Infinite XO's default time per move (M3.1).
pub const DEFAULT_TIME_PER_MOVE_S: u8 = 10;
/// XO online: a move not made within two minutes forfeits (M3.7).
pub const XO_FORFEIT_MS: u32 = 120_000;
/// How seat 2 of an online room is taken.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Policy {
    Open,
    Approval,
    /// Exactly four ASCII digits.
    Passcode(String),
}

/// Who the creator plays against, validated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Opponent {
    /// M3: another signed-in player; rated.
    Player { policy: Policy },
    /// M1: the bot at `difficulty` 0–100; the human plays `human`.
    Bot { difficulty: u8, human: Mark },
    /// M2: two trimmed, distinct names on one device.
    Local { names: [String; 2] },
}

/// Valid room settings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    pub game: Game,
    pub opponent: Opponent,
    /// The move clock: Infinite XO's chosen time in every kind of room (M3.7), XO's two-minute
    /// forfeit online; `None` for XO against the bot or locally.
    pub per_move_ms: Option<u32>,
}

impl Settings {
    /// Checks the creation box. `signed_in` is whether the creator has an account: guests may
    /// create only bot and local rooms (M3).
    pub fn from_request(req: &CreateRoom, signed_in: bool) -> Result<Settings, Refusal> {
        let opponent = match &req.opponent {
            OpponentRequest::Player { joining } => {
                if !signed_in {
                    return refuse(Reason::SignInToCreate);
                }
                let policy = match joining {
                    JoiningRequest::Open => Policy::Open,
                    JoiningRequest::Approval => Policy::Approval,
                    JoiningRequest::Passcode { code } => {
                        if code.len() != 4 || !code.bytes().all(|b| b.is_ascii_digit()) {
                            return refuse(Reason::PasscodeDigits);
                        }
                        Policy::Passcode(code.clone())
                    }
                };
                Opponent::Player { policy }
            }
            OpponentRequest::Bot { difficulty, side } => {
                let difficulty = difficulty.unwrap_or(tables::bot::DEFAULT_DIFFICULTY);
                if difficulty > tables::bot::MAX_DIFFICULTY {
                    return refuse(Reason::Difficulty);
                }
                Opponent::Bot {
                    difficulty,
                    human: side.unwrap_or(Mark::X),
                }
            }
            OpponentRequest::Local { names } => Opponent::Local {
                names: local_names(names)?,
            },
        };
        let per_move_ms = match req.game {
            Game::Infinite => {
                let s = req.time_per_move_s.unwrap_or(DEFAULT_TIME_PER_MOVE_S);
                if !TIMES_PER_MOVE_S.contains(&s) {
                    return refuse(Reason::TimePerMove);
                }
                Some(u32::from(s) * 1000)
            }
            // XO has no chosen time; `time_per_move_s` is ignored for it.
            Game::Xo => match opponent {
                Opponent::Player { .. } => Some(XO_FORFEIT_MS),
                Opponent::Bot { .. } | Opponent::Local { .. } => None,
            },
        };
        Ok(Settings {
            game: req.game,
            opponent,
            per_move_ms,
        })
    }

    pub fn is_online(&self) -> bool {
        matches!(self.opponent, Opponent::Player { .. })
    }

    /// The same settings with a rated XO room's move limit set to `limit` (the operator's
    /// `--xo-move-limit`); other rooms are unchanged.
    pub fn with_xo_move_limit(mut self, limit: std::time::Duration) -> Settings {
        if self.game == Game::Xo && self.is_online() {
            self.per_move_ms = Some(u32::try_from(limit.as_millis()).unwrap_or(u32::MAX));
        }
        self
    }
}

/// M2.1: two names, required, at most 20 characters, unique ignoring case and surrounding
/// spaces (the rules of [`protocol::rules`], which the UI checks too). Returns them trimmed.
pub fn local_names(names: &[String; 2]) -> Result<[String; 2], Refusal> {
    protocol::rules::check_local_names(names).map_err(|e| {
        Refusal::from(match e {
            protocol::rules::NameError::Clash => Reason::NameClash {
                name: names[0].trim().to_owned(),
            },
            _ => Reason::BadName(e),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::ErrorCode;

    fn req(game: Game, opponent: OpponentRequest, time: Option<u8>) -> CreateRoom {
        CreateRoom {
            game,
            opponent,
            time_per_move_s: time,
        }
    }

    #[test]
    fn bot_defaults_are_difficulty_50_human_x_and_ten_seconds() {
        let s = Settings::from_request(
            &req(
                Game::Infinite,
                OpponentRequest::Bot {
                    difficulty: None,
                    side: None,
                },
                None,
            ),
            false,
        )
        .unwrap();
        assert_eq!(
            s.opponent,
            Opponent::Bot {
                difficulty: 50,
                human: Mark::X
            }
        );
        assert_eq!(s.per_move_ms, Some(10_000));
    }

    #[test]
    fn difficulty_over_100_is_refused() {
        let e = Settings::from_request(
            &req(
                Game::Xo,
                OpponentRequest::Bot {
                    difficulty: Some(101),
                    side: None,
                },
                None,
            ),
            false,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::BadSettings);
    }

    #[test]
    fn time_per_move_only_5_10_or_30() {
        for (t, ok) in [
            (5, true),
            (10, true),
            (30, true),
            (0, false),
            (7, false),
            (60, false),
        ] {
            let r = Settings::from_request(
                &req(
                    Game::Infinite,
                    OpponentRequest::Local {
                        names: ["a".into(), "b".into()],
                    },
                    Some(t),
                ),
                false,
            );
            assert_eq!(r.is_ok(), ok, "{t} s");
        }
    }

    #[test]
    fn guest_cannot_create_online_room() {
        let e = Settings::from_request(
            &req(
                Game::Xo,
                OpponentRequest::Player {
                    joining: JoiningRequest::Open,
                },
                None,
            ),
            false,
        )
        .unwrap_err();
        assert_eq!(e.code, ErrorCode::SignInRequired);
    }

    #[test]
    fn online_xo_has_two_minute_forfeit_clock() {
        let s = Settings::from_request(
            &req(
                Game::Xo,
                OpponentRequest::Player {
                    joining: JoiningRequest::Open,
                },
                Some(5),
            ),
            true,
        )
        .unwrap();
        assert_eq!(s.per_move_ms, Some(XO_FORFEIT_MS));
    }

    #[test]
    fn passcode_must_be_four_digits() {
        for (code, ok) in [
            ("1234", true),
            ("123", false),
            ("12345", false),
            ("12a4", false),
        ] {
            let r = Settings::from_request(
                &req(
                    Game::Xo,
                    OpponentRequest::Player {
                        joining: JoiningRequest::Passcode { code: code.into() },
                    },
                    None,
                ),
                true,
            );
            assert_eq!(r.is_ok(), ok, "{code}");
        }
    }

    #[test]
    fn local_names_clash_ignoring_case_and_spaces() {
        let e = local_names(&["Sara".into(), "  sARA ".into()]).unwrap_err();
        assert_eq!(e.code, ErrorCode::NameClash);
        assert!(e.message.contains("Sara"));
        assert_eq!(
            local_names(&[" Sara ".into(), "Omar".into()]).unwrap(),
            ["Sara".to_owned(), "Omar".to_owned()]
        );
    }

    #[test]
    fn local_names_required_and_at_most_20_chars() {
        assert_eq!(
            local_names(&["".into(), "Omar".into()]).unwrap_err().code,
            ErrorCode::BadName
        );
        assert!(local_names(&["a".repeat(20), "b".into()]).is_ok());
        assert_eq!(
            local_names(&["é".repeat(21), "b".into()]).unwrap_err().code,
            ErrorCode::BadName
        );
    }
}
