//! The create-room box (M1.1, M1.2, M2.1, M3.1) as a pure reducer: what it shows, its
//! defaults, and the check that turns it into a [`CreateRoom`] intent.

use engine::{Game, Mark};
use protocol::rules::{self, NameError};
use protocol::{CreateRoom, JoiningRequest, OpponentRequest};

use crate::i18n::T;

/// The Infinite XO move times on offer (M3.1).
pub const TIMES: [u8; 3] = [5, 10, 30];
pub const DEFAULT_TIME: u8 = 10;
pub const DEFAULT_DIFFICULTY: u8 = 50;

/// Who the creator plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Opponent {
    Player,
    Bot,
    Local,
}

impl Opponent {
    /// The opponents a creator may pick: guests only Bot and Local (M3).
    pub fn offered(signed_in: bool) -> &'static [Opponent] {
        if signed_in {
            &[Opponent::Player, Opponent::Bot, Opponent::Local]
        } else {
            &[Opponent::Bot, Opponent::Local]
        }
    }

    pub fn label(self) -> T {
        match self {
            Opponent::Player => T::OppPlayer,
            Opponent::Bot => T::OppBot,
            Opponent::Local => T::OppLocal,
        }
    }
}

/// How seat 2 of an online room is taken (M3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JoinKind {
    Open,
    Approval,
    Passcode,
}

impl JoinKind {
    pub const ALL: [JoinKind; 3] = [JoinKind::Open, JoinKind::Approval, JoinKind::Passcode];

    pub fn label(self) -> T {
        match self {
            JoinKind::Open => T::JoiningOpen,
            JoinKind::Approval => T::JoiningApproval,
            JoinKind::Passcode => T::JoiningPasscode,
        }
    }
}

/// The box's state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreateForm {
    pub game: Game,
    pub opponent: Opponent,
    pub difficulty: u8,
    pub side: Mark,
    pub names: [String; 2],
    pub time_s: u8,
    pub joining: JoinKind,
    pub passcode: String,
}

/// A change made in the box.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormAction {
    Game(Game),
    Opponent(Opponent),
    Difficulty(u8),
    Side(Mark),
    Name(usize, String),
    Time(u8),
    Joining(JoinKind),
    Passcode(String),
}

/// Why the box cannot create its room yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FormError {
    /// Player 1 or 2 (0-based) has no name.
    NameMissing(usize),
    NameTooLong(usize),
    /// The name of that player contains a control character.
    NameControl(usize),
    /// M2.1: the names are equal ignoring case and surrounding spaces.
    NameClash,
    PasscodeFormat,
}

impl FormError {
    pub fn text(self) -> T {
        match self {
            FormError::NameMissing(_) => T::ErrNameMissing,
            FormError::NameTooLong(_) => T::ErrNameLong,
            FormError::NameControl(_) => T::ErrNameControl,
            FormError::NameClash => T::ErrNameClash,
            FormError::PasscodeFormat => T::ErrPasscodeFormat,
        }
    }
}

impl CreateForm {
    /// SPEC's defaults: XO, the bot at 50 % with the human as X, 10 s, open joining; a
    /// signed-in creator starts on Player.
    pub fn new(signed_in: bool) -> CreateForm {
        CreateForm {
            game: Game::Xo,
            opponent: if signed_in {
                Opponent::Player
            } else {
                Opponent::Bot
            },
            difficulty: DEFAULT_DIFFICULTY,
            side: Mark::X,
            names: [String::new(), String::new()],
            time_s: DEFAULT_TIME,
            joining: JoinKind::Open,
            passcode: String::new(),
        }
    }

    /// The box after `action`. Out-of-range values are clamped or ignored, never stored.
    pub fn apply(&self, action: FormAction) -> CreateForm {
        let mut next = self.clone();
        match action {
            FormAction::Game(g) => next.game = g,
            FormAction::Opponent(o) => next.opponent = o,
            FormAction::Difficulty(d) => next.difficulty = d.min(100),
            FormAction::Side(m) => next.side = m,
            FormAction::Name(i, name) => {
                if let Some(slot) = next.names.get_mut(i) {
                    *slot = name;
                }
            }
            FormAction::Time(t) => {
                if TIMES.contains(&t) {
                    next.time_s = t;
                }
            }
            FormAction::Joining(j) => next.joining = j,
            FormAction::Passcode(p) => {
                next.passcode = p.chars().filter(char::is_ascii_digit).take(4).collect();
            }
        }
        next
    }

    /// The box as a guest may use it: a guest never keeps Player selected.
    pub fn for_user(&self, signed_in: bool) -> CreateForm {
        let mut form = self.clone();
        if !signed_in && form.opponent == Opponent::Player {
            form.opponent = Opponent::Bot;
        }
        form
    }

    pub fn shows_difficulty(&self) -> bool {
        self.opponent == Opponent::Bot
    }

    pub fn shows_names(&self) -> bool {
        self.opponent == Opponent::Local
    }

    pub fn shows_time(&self) -> bool {
        self.game == Game::Infinite
    }

    pub fn shows_joining(&self) -> bool {
        self.opponent == Opponent::Player
    }

    /// Everything wrong with the box now, in display order.
    pub fn errors(&self) -> Vec<FormError> {
        let mut errors = Vec::new();
        if self.shows_names() {
            // M2.1's rules are the server's own (protocol::rules).
            errors.extend(
                rules::local_name_problems(&self.names)
                    .into_iter()
                    .map(|problem| match problem {
                        NameError::Missing(i) => FormError::NameMissing(i),
                        NameError::TooLong(i) => FormError::NameTooLong(i),
                        NameError::Control(i) => FormError::NameControl(i),
                        NameError::Clash => FormError::NameClash,
                    }),
            );
        }
        if self.shows_joining()
            && self.joining == JoinKind::Passcode
            && !(self.passcode.len() == 4 && self.passcode.chars().all(|c| c.is_ascii_digit()))
        {
            errors.push(FormError::PasscodeFormat);
        }
        errors
    }

    /// The intent this box sends, or what must be fixed first.
    pub fn to_request(&self, signed_in: bool) -> Result<CreateRoom, Vec<FormError>> {
        let form = self.for_user(signed_in);
        let errors = form.errors();
        if !errors.is_empty() {
            return Err(errors);
        }
        let opponent = match form.opponent {
            Opponent::Player => OpponentRequest::Player {
                joining: match form.joining {
                    JoinKind::Open => JoiningRequest::Open,
                    JoinKind::Approval => JoiningRequest::Approval,
                    JoinKind::Passcode => JoiningRequest::Passcode {
                        code: form.passcode.clone(),
                    },
                },
            },
            Opponent::Bot => OpponentRequest::Bot {
                difficulty: Some(form.difficulty),
                side: Some(form.side),
            },
            Opponent::Local => OpponentRequest::Local {
                names: [
                    form.names[0].trim().to_owned(),
                    form.names[1].trim().to_owned(),
                ],
            },
        };
        Ok(CreateRoom {
            game: form.game,
            opponent,
            time_per_move_s: form.shows_time().then_some(form.time_s),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(a: &str, b: &str) -> CreateForm {
        CreateForm::new(false)
            .apply(FormAction::Opponent(Opponent::Local))
            .apply(FormAction::Name(0, a.into()))
            .apply(FormAction::Name(1, b.into()))
    }

    #[test]
    fn defaults_follow_the_spec() {
        let form = CreateForm::new(true);
        assert_eq!(form.game, Game::Xo);
        assert_eq!(form.opponent, Opponent::Player);
        assert_eq!(form.difficulty, 50);
        assert_eq!(form.side, Mark::X);
        assert_eq!(form.time_s, 10);
        assert_eq!(form.joining, JoinKind::Open);
        assert_eq!(CreateForm::new(false).opponent, Opponent::Bot);
    }

    #[test]
    fn guests_are_offered_only_bot_and_local() {
        assert_eq!(Opponent::offered(false), &[Opponent::Bot, Opponent::Local]);
        assert!(Opponent::offered(true).contains(&Opponent::Player));
        let signed_in_form = CreateForm::new(true);
        let request = signed_in_form.to_request(false).expect("valid bot room");
        assert!(matches!(request.opponent, OpponentRequest::Bot { .. }));
    }

    #[test]
    fn difficulty_shows_only_for_the_bot_and_names_only_for_local() {
        let bot = CreateForm::new(false);
        assert!(bot.shows_difficulty() && !bot.shows_names() && !bot.shows_joining());
        let l = local("a", "b");
        assert!(l.shows_names() && !l.shows_difficulty());
        let p = CreateForm::new(true);
        assert!(p.shows_joining() && !p.shows_difficulty());
    }

    #[test]
    fn time_is_offered_and_sent_only_for_infinite_xo() {
        let xo = CreateForm::new(false);
        assert!(!xo.shows_time());
        assert_eq!(xo.to_request(false).expect("valid").time_per_move_s, None);
        let inf = xo.apply(FormAction::Game(Game::Infinite));
        assert_eq!(
            inf.to_request(false).expect("valid").time_per_move_s,
            Some(10)
        );
        let inf = inf.apply(FormAction::Time(30)).apply(FormAction::Time(7));
        assert_eq!(inf.time_s, 30, "7 s is not on offer");
    }

    #[test]
    fn bot_request_carries_difficulty_and_side() {
        let form = CreateForm::new(false)
            .apply(FormAction::Difficulty(130))
            .apply(FormAction::Side(Mark::O));
        assert_eq!(form.difficulty, 100);
        assert_eq!(
            form.to_request(false).expect("valid").opponent,
            OpponentRequest::Bot {
                difficulty: Some(100),
                side: Some(Mark::O)
            }
        );
    }

    #[test]
    fn local_names_are_required_unique_ignoring_case_and_spaces() {
        assert_eq!(
            local("", " ").errors(),
            vec![FormError::NameMissing(0), FormError::NameMissing(1)]
        );
        assert_eq!(local(" Sara ", "sARA").errors(), vec![FormError::NameClash]);
        assert_eq!(
            local(&"x".repeat(21), "Omar").errors(),
            vec![FormError::NameTooLong(0)]
        );
        let ok = local(" Sara ", "Omar").to_request(false).expect("valid");
        assert_eq!(
            ok.opponent,
            OpponentRequest::Local {
                names: ["Sara".into(), "Omar".into()]
            }
        );
    }

    #[test]
    fn passcode_is_four_digits_and_only_for_passcode_rooms() {
        let form = CreateForm::new(true).apply(FormAction::Joining(JoinKind::Passcode));
        assert_eq!(form.errors(), vec![FormError::PasscodeFormat]);
        let form = form.apply(FormAction::Passcode("12a345".into()));
        assert_eq!(form.passcode, "1234");
        assert_eq!(
            form.to_request(true).expect("valid").opponent,
            OpponentRequest::Player {
                joining: JoiningRequest::Passcode {
                    code: "1234".into()
                }
            }
        );
        let approval = form.apply(FormAction::Joining(JoinKind::Approval));
        assert_eq!(
            approval.to_request(true).expect("valid").opponent,
            OpponentRequest::Player {
                joining: JoiningRequest::Approval
            }
        );
    }
}
