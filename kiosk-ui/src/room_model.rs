//! What the room screen says, computed from a [`RoomView`] snapshot: names, the rail's words
//! (U2), the result, the navbar controls (U9), the cards' rating changes (E3) and the ELO
//! preview's scenarios (E4). Pure, so every rule is tested natively.

use engine::Mark;
use protocol::records::{GameEnd, PlayerRef};
use protocol::{EloPreview, Name, Phase, PlayerView, RoomKind, RoomSummary, RoomView, SeatView};

use crate::i18n::{Lang, T, mark};

/// A name the server sent as a kind, worded in `lang` (U6): a guest is "Guest" and their tag,
/// the bot "Bot" and its difficulty, both translated; names people chose stay as they are.
pub fn name_text(name: &Name, lang: Lang) -> String {
    match name {
        Name::Account { name } | Name::Local { name } => name.clone(),
        Name::Guest { tag } if tag.is_empty() => lang.t(T::Guest).to_owned(),
        Name::Guest { tag } => lang.f(T::GuestName, &[tag]),
        Name::Bot { difficulty } => lang.f(T::BotName, &[&lang.num(difficulty)]),
    }
}

/// The name shown for a seated player, from the kind the server sent.
pub fn seat_name(player: &PlayerView, lang: Lang) -> String {
    name_text(&player.name, lang)
}

/// The name shown for a player of a stored game, which carries no name kind: a guest's
/// English "Guest 3f9a" is worded again from its tag.
pub fn player_name(player: &PlayerRef, lang: Lang) -> String {
    match player {
        PlayerRef::User { name, .. } | PlayerRef::Local { name } => name.clone(),
        PlayerRef::Guest { name } => {
            let tag = name.strip_prefix("Guest").unwrap_or(name).trim();
            name_text(
                &Name::Guest {
                    tag: tag.to_owned(),
                },
                lang,
            )
        }
        PlayerRef::Bot { difficulty } => name_text(
            &Name::Bot {
                difficulty: *difficulty,
            },
            lang,
        ),
    }
}

/// The room as the kiosk shows it: its human in a bot game is "You" (14.7), since nobody at a
/// café screen is the guest name the server made up.
pub fn kiosk_view(room: &RoomView, lang: Lang) -> RoomView {
    let mut room = room.clone();
    if let (RoomKind::Bot { .. }, Some(seat)) = (&room.kind, room.you.seat) {
        if let Some(p) = room
            .seats
            .get_mut(usize::from(seat))
            .and_then(|s| s.player.as_mut())
        {
            let you = lang.t(T::YouName).to_owned();
            p.player = PlayerRef::Local { name: you.clone() };
            p.name = Name::Local { name: you };
        }
    }
    room
}

/// The seat holding `m`, if marks are assigned.
pub fn seat_of(room: &RoomView, m: Mark) -> Option<&SeatView> {
    room.seats.iter().find(|s| s.mark == Some(m))
}

/// "Sara (X)", or just "X" when nobody holds the mark.
pub fn named_mark(room: &RoomView, m: Mark, lang: Lang) -> String {
    match seat_of(room, m).and_then(|s| s.player.as_ref()) {
        Some(p) => lang.f(T::NamedMark, &[&seat_name(p, lang), mark(m)]),
        None => mark(m).to_owned(),
    }
}

/// The reader's own mark, when they hold a seat with one. A local game's device plays both.
pub fn my_mark(room: &RoomView) -> Option<Mark> {
    if room.kind == RoomKind::Local {
        return None;
    }
    let seat = room.you.seat?;
    room.seats.get(usize::from(seat))?.mark
}

/// How the game ended, in words.
pub fn result_text(room: &RoomView, end: GameEnd, lang: Lang) -> String {
    match end {
        GameEnd::Line { winner, .. } if my_mark(room) == Some(winner) => {
            lang.t(T::ResultYouWinLine).to_owned()
        }
        GameEnd::Line { winner, .. } => lang.f(T::ResultLine, &[&named_mark(room, winner, lang)]),
        GameEnd::FullBoard => lang.t(T::ResultFullBoard).to_owned(),
        GameEnd::Repetition => lang.t(T::ResultRepetition).to_owned(),
        GameEnd::Agreed => lang.t(T::ResultAgreed).to_owned(),
        GameEnd::Resigned { loser } => lang.f(
            T::ResultResigned,
            &[
                &named_mark(room, loser, lang),
                &named_mark(room, loser.other(), lang),
            ],
        ),
        GameEnd::Timeout { loser } => lang.f(
            T::ResultTimeout,
            &[
                &named_mark(room, loser, lang),
                &named_mark(room, loser.other(), lang),
            ],
        ),
    }
}

/// The rail's main line (U2): whose turn in words and which mark is the reader's.
pub fn rail_text(room: &RoomView, lang: Lang) -> String {
    if let Some(result) = &room.result {
        return result_text(room, result.end, lang);
    }
    match room.phase {
        Phase::Waiting => lang.t(T::WaitingToStart).to_owned(),
        Phase::Finished => lang.t(T::AnnClosedEnded).to_owned(),
        Phase::Playing => match my_mark(room) {
            Some(m) if room.you.to_move => lang.f(T::YourTurn, &[mark(m)]),
            Some(m) => format!(
                "{} · {}",
                lang.f(T::NameToMove, &[&turn_name(room, lang), mark(room.turn)]),
                lang.f(T::YouAre, &[mark(m)])
            ),
            None => lang.f(T::NameToMove, &[&turn_name(room, lang), mark(room.turn)]),
        },
    }
}

fn turn_name(room: &RoomView, lang: Lang) -> String {
    seat_of(room, room.turn)
        .and_then(|s| s.player.as_ref())
        .map(|p| seat_name(p, lang))
        .unwrap_or_else(|| mark(room.turn).to_owned())
}

/// Whether the reader plays in this room: holds a seat, or is the device of a local game
/// (which holds no seat but plays both sides, M2.2).
pub fn is_player(room: &RoomView) -> bool {
    room.you.seat.is_some() || (room.kind == RoomKind::Local && room.you.host)
}

/// The navbar's right-hand controls (U9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NavControls {
    /// An active rated game the reader plays: Resign, and Resign & Exit.
    Resign,
    /// Leave the room with `exit` (a seat holder: ends a bot or local game, leaves a seat).
    Exit,
    /// A spectator: stop viewing (presence only).
    Close,
}

pub fn nav_controls(room: &RoomView) -> NavControls {
    let seated = is_player(room);
    let online = matches!(room.kind, RoomKind::Online { .. });
    match (seated, online, room.phase) {
        (true, true, Phase::Playing) => NavControls::Resign,
        (true, _, _) => NavControls::Exit,
        (false, _, _) => NavControls::Close,
    }
}

/// Whether a game is being played in this room now (kiosk idle return waits for it).
pub fn in_progress(room: Option<&RoomView>) -> bool {
    room.is_some_and(|r| r.phase == Phase::Playing && r.result.is_none())
}

/// E3: the colour class of a rating change: gain green, loss red, zero neutral white.
pub fn change_class(change: i32) -> &'static str {
    match change.signum() {
        1 => "gain",
        -1 => "loss",
        _ => "neutral",
    }
}

/// "+15", "−12", "±0".
pub fn signed(change: i32) -> String {
    match change.signum() {
        1 => format!("+{change}"),
        -1 => format!("−{}", change.unsigned_abs()),
        _ => "±0".to_owned(),
    }
}

/// The rating change of the player holding `m`, after a rated result.
pub fn change_for(room: &RoomView, m: Option<Mark>) -> Option<i32> {
    let m = m?;
    let result = room.result.as_ref()?;
    result
        .ratings
        .iter()
        .find(|u| u.mark == m)
        .map(|u| u.change())
}

/// One ELO preview scenario (E4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scenario {
    XWins,
    Draw,
    OWins,
}

impl Scenario {
    /// `[x_after, o_after]` under this scenario.
    pub fn ratings(self, elo: &EloPreview) -> [i32; 2] {
        match self {
            Scenario::XWins => elo.x_wins,
            Scenario::Draw => elo.draw,
            Scenario::OWins => elo.o_wins,
        }
    }

    /// A seated player's Win / Draw / Loss as a scenario.
    pub fn for_player(me: Mark, outcome: engine::Score) -> Scenario {
        match (me, outcome) {
            (_, engine::Score::Draw) => Scenario::Draw,
            (Mark::X, engine::Score::Win) | (Mark::O, engine::Score::Loss) => Scenario::XWins,
            (Mark::O, engine::Score::Win) | (Mark::X, engine::Score::Loss) => Scenario::OWins,
        }
    }
}

/// A lobby row's words: game, players, kind, state, joining, spectators.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SummaryText {
    pub game: &'static str,
    pub players: String,
    pub kind: &'static str,
    pub state: &'static str,
    pub joining: Option<&'static str>,
    pub spectators: String,
}

pub fn summary_text(room: &RoomSummary, lang: Lang) -> SummaryText {
    // The names as kinds, worded here; a server that sends none still sends English names.
    let names: Vec<String> = if room.names.is_empty() {
        room.players.clone()
    } else {
        room.names.iter().map(|n| name_text(n, lang)).collect()
    };
    let players = match names.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [a, b, ..] => lang.f(T::Versus, &[a, b]),
    };
    let kind = lang.t(match room.kind {
        RoomKind::Online { .. } => T::KindPlayer,
        RoomKind::Bot { .. } => T::KindBot,
        RoomKind::Local => T::KindLocal,
    });
    let state = lang.t(match room.phase {
        Phase::Waiting if room.open_seat => T::PhaseWaiting,
        Phase::Waiting => T::PhaseWaitingFull,
        Phase::Playing => T::PhasePlaying,
        Phase::Finished => T::PhaseFinished,
    });
    let joining = match &room.kind {
        RoomKind::Online { joining } => Some(lang.t(match joining {
            protocol::Joining::Open => T::JoinOpen,
            protocol::Joining::Approval => T::JoinApproval,
            protocol::Joining::Passcode { .. } => T::JoinPasscode,
        })),
        _ => None,
    };
    SummaryText {
        game: lang.game(room.game),
        players,
        kind,
        state,
        joining,
        spectators: lang.f(T::Watching, &[&lang.num(room.spectators)]),
    }
}

/// The address a waiting room is shared by: the room's path on the server's public address
/// when it is known (a phone cannot open the kiosk's own, loopback, address), else on this
/// page's address — except on the kiosk, which then shows no link at all (15.1: never
/// `location.origin` there).
pub fn share_link(
    public_url: Option<&str>,
    origin: &str,
    path: &str,
    kiosk: bool,
) -> Option<String> {
    let base = match public_url {
        Some(url) => url,
        None if kiosk => return None,
        None => origin,
    };
    Some(format!("{}{path}", base.trim_end_matches('/')))
}

#[cfg(test)]
pub(crate) mod fixtures {
    use engine::{Game, Mark};
    use protocol::records::PlayerRef;
    use protocol::{Joining, Phase, PlayerView, RoomKind, RoomView, SeatView, YouView};

    fn seat(name: &str, id: u64, m: Mark) -> SeatView {
        SeatView {
            player: Some(PlayerView {
                player: PlayerRef::User {
                    id,
                    name: name.into(),
                },
                rating: Some(1200),
                name: protocol::Name::Account { name: name.into() },
            }),
            mark: Some(m),
            ready: true,
            present: true,
        }
    }

    /// An online XO game in play: Sara (X, the reader, host) against Omar (O), X to move.
    pub fn online_playing() -> RoomView {
        RoomView {
            id: "r1".into(),
            game: Game::Xo,
            kind: RoomKind::Online {
                joining: Joining::Open,
            },
            phase: Phase::Playing,
            per_move_ms: Some(120_000),
            seats: [seat("Sara", 1, Mark::X), seat("Omar", 2, Mark::O)],
            x: vec![],
            o: vec![],
            turn: Mark::X,
            glowing: None,
            moves: vec![],
            clock: None,
            repetition_warning: false,
            draw_offer: None,
            requests: vec![],
            result: None,
            elo: None,
            spectators: 0,
            can_undo: false,
            you: YouView {
                seat: Some(0),
                host: true,
                to_move: true,
                requested: false,
            },
            rematch_offer: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::online_playing;
    use super::*;
    use protocol::YouView;
    use protocol::records::RatingUpdate;
    use protocol::view::ResultView;

    #[test]
    fn rail_speaks_whose_turn_and_which_mark_is_yours() {
        let mut room = online_playing();
        assert_eq!(rail_text(&room, Lang::En), "Your turn — you are X");
        room.turn = Mark::O;
        room.you.to_move = false;
        assert_eq!(rail_text(&room, Lang::En), "Omar (O) to move · You are X");
        room.you = YouView {
            seat: None,
            host: false,
            to_move: false,
            requested: false,
        };
        assert_eq!(rail_text(&room, Lang::En), "Omar (O) to move");
    }

    #[test]
    fn arabic_isolates_names_and_marks_so_they_keep_their_order() {
        let mut room = online_playing();
        room.turn = Mark::O;
        room.you.to_move = false;
        assert_eq!(
            rail_text(&room, Lang::Ar),
            "دور \u{2068}Omar\u{2069} (\u{2068}O\u{2069}) · أنت \u{2068}X\u{2069}"
        );
    }

    #[test]
    fn the_kiosk_calls_its_human_you_and_a_win_is_yours() {
        let mut room = online_playing();
        room.kind = RoomKind::Bot { difficulty: 50 };
        room.seats[1].player = Some(protocol::PlayerView {
            player: PlayerRef::Bot { difficulty: 50 },
            rating: None,
            name: protocol::Name::Bot { difficulty: 50 },
        });
        let kiosk = kiosk_view(&room, Lang::En);
        assert_eq!(named_mark(&kiosk, Mark::X, Lang::En), "You (X)");
        assert_eq!(named_mark(&kiosk, Mark::O, Lang::En), "Bot 50 % (O)");
        let line = GameEnd::Line {
            winner: Mark::X,
            line: [0, 1, 2],
        };
        assert_eq!(result_text(&kiosk, line, Lang::En), "You win with a line");
    }

    #[test]
    fn server_made_names_are_worded_from_their_kinds_in_both_languages() {
        let guest = Name::Guest { tag: "e6ce".into() };
        assert_eq!(name_text(&guest, Lang::En), "Guest e6ce");
        assert_eq!(name_text(&guest, Lang::Ar), "ضيف \u{2068}e6ce\u{2069}");
        let bot = Name::Bot { difficulty: 100 };
        assert_eq!(name_text(&bot, Lang::En), "Bot 100 %");
        assert_eq!(name_text(&bot, Lang::Ar), "الروبوت \u{2068}١٠٠\u{2069}٪");
        assert_eq!(
            name_text(&Name::Guest { tag: String::new() }, Lang::Ar),
            "ضيف"
        );
        assert_eq!(
            name_text(
                &Name::Account {
                    name: "sara".into()
                },
                Lang::Ar
            ),
            "sara"
        );
        // A stored game's guest carries only the English name; its tag is worded again.
        let stored = PlayerRef::Guest {
            name: "Guest 3f9a".into(),
        };
        assert_eq!(player_name(&stored, Lang::Ar), "ضيف \u{2068}3f9a\u{2069}");
    }

    #[test]
    fn lobby_rows_word_the_names_the_server_sent_as_kinds() {
        let row = RoomSummary {
            id: "r1".into(),
            game: engine::Game::Xo,
            kind: RoomKind::Bot { difficulty: 100 },
            phase: Phase::Playing,
            players: vec!["Guest 0da1".into(), "Bot 100%".into()],
            open_seat: false,
            per_move_ms: None,
            spectators: 0,
            names: vec![
                Name::Guest { tag: "0da1".into() },
                Name::Bot { difficulty: 100 },
            ],
        };
        assert_eq!(
            summary_text(&row, Lang::En).players,
            "Guest 0da1 vs Bot 100 %"
        );
        let ar = summary_text(&row, Lang::Ar).players;
        assert!(ar.contains("ضيف") && ar.contains("الروبوت"), "{ar}");
        assert!(!ar.contains("Guest") && !ar.contains("Bot"), "{ar}");
        // An older server's row, without kinds, still shows its names.
        let old = RoomSummary {
            names: vec![],
            ..row
        };
        assert_eq!(
            summary_text(&old, Lang::En).players,
            "Guest 0da1 vs Bot 100%"
        );
    }

    #[test]
    fn results_name_the_winner() {
        let mut room = online_playing();
        room.phase = Phase::Finished;
        room.result = Some(ResultView {
            end: GameEnd::Resigned { loser: Mark::O },
            rated: true,
            ratings: vec![],
            pending: false,
        });
        assert_eq!(
            rail_text(&room, Lang::En),
            "Omar (O) resigned: Sara (X) wins"
        );
        assert_eq!(
            result_text(
                &room,
                GameEnd::Line {
                    winner: Mark::X,
                    line: [0, 1, 2]
                },
                Lang::En
            ),
            "You win with a line",
            "the reader is Sara, who holds X"
        );
        room.you.seat = None;
        assert_eq!(
            result_text(
                &room,
                GameEnd::Line {
                    winner: Mark::X,
                    line: [0, 1, 2]
                },
                Lang::En
            ),
            "Sara (X) wins with a line"
        );
    }

    #[test]
    fn navbar_offers_resign_only_in_an_active_rated_game() {
        let mut room = online_playing();
        assert_eq!(nav_controls(&room), NavControls::Resign);
        room.phase = Phase::Finished;
        assert_eq!(nav_controls(&room), NavControls::Exit);
        room.phase = Phase::Playing;
        room.kind = RoomKind::Bot { difficulty: 50 };
        assert_eq!(nav_controls(&room), NavControls::Exit);
        room.you.seat = None;
        room.you.host = false;
        assert_eq!(nav_controls(&room), NavControls::Close);
        // The device of a local game holds no seat but plays, so it may Exit.
        room.kind = RoomKind::Local;
        room.you.host = true;
        assert_eq!(nav_controls(&room), NavControls::Exit);
        assert!(is_player(&room));
    }

    #[test]
    fn rating_changes_are_green_red_or_neutral() {
        assert_eq!(change_class(15), "gain");
        assert_eq!(change_class(-3), "loss");
        assert_eq!(change_class(0), "neutral");
        assert_eq!(signed(15), "+15");
        assert_eq!(signed(-3), "−3");
        let mut room = online_playing();
        room.result = Some(ResultView {
            end: GameEnd::Agreed,
            rated: true,
            ratings: vec![RatingUpdate {
                user: 1,
                mark: Mark::X,
                before: 1200,
                after: 1200,
            }],
            pending: false,
        });
        assert_eq!(change_for(&room, Some(Mark::X)), Some(0));
        assert_eq!(change_for(&room, Some(Mark::O)), None);
    }

    #[test]
    fn elo_scenarios_follow_the_players_side() {
        let elo = EloPreview {
            x_rating: 1200,
            o_rating: 1200,
            x_wins: [1216, 1184],
            draw: [1200, 1200],
            o_wins: [1184, 1216],
        };
        let s = Scenario::for_player(Mark::O, engine::Score::Win);
        assert_eq!(s, Scenario::OWins);
        assert_eq!(s.ratings(&elo), [1184, 1216]);
        assert_eq!(
            Scenario::for_player(Mark::X, engine::Score::Loss),
            Scenario::OWins
        );
        assert_eq!(
            Scenario::for_player(Mark::X, engine::Score::Draw),
            Scenario::Draw
        );
    }

    #[test]
    fn in_progress_only_while_playing() {
        let mut room = online_playing();
        assert!(in_progress(Some(&room)));
        room.phase = Phase::Waiting;
        assert!(!in_progress(Some(&room)));
        assert!(!in_progress(None));
    }

    #[test]
    fn a_room_is_shared_by_the_public_address_and_never_by_the_kiosk_s_own() {
        let path = "/room/r-7";
        let public = Some("http://192.168.1.20/");
        assert_eq!(
            share_link(public, "http://127.0.0.1:8080", path, true).as_deref(),
            Some("http://192.168.1.20/room/r-7")
        );
        assert_eq!(
            share_link(public, "http://xo.local", path, false).as_deref(),
            Some("http://192.168.1.20/room/r-7")
        );
        assert_eq!(share_link(None, "http://127.0.0.1:8080", path, true), None);
        assert_eq!(
            share_link(None, "http://192.168.1.20", path, false).as_deref(),
            Some("http://192.168.1.20/room/r-7")
        );
    }
}
