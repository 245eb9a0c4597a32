//! The app's state as a pure reducer (STYLE 13): server messages, navigation, the language and
//! the account come in as [`Action`]s; WebSocket sends, storage writes and history changes
//! happen in effects (`components/app.rs`) that watch this state.

use std::rc::Rc;

use engine::Cell;
use protocol::{CloseReason, ErrorCode, Event, Phase, RoomSummary, RoomView, ServerMsg};
use yew::Reducible;

use crate::i18n::{Lang, T, mark};
use crate::room_model;
use crate::route::Route;

/// The WebSocket's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Conn {
    #[default]
    Connecting,
    Open,
    /// Lost; a reconnect is scheduled.
    Lost,
}

/// A signed-in account, from `/api/me`, `/api/login` or `/api/register`.
pub use protocol::http::Account;

/// The current room with the moment its snapshot arrived (for the clock, M3.7: time travels
/// as durations from the server).
#[derive(Debug, Clone, PartialEq)]
pub struct LiveRoom {
    pub view: RoomView,
    pub received_ms: f64,
}

/// A message for the reader, shown in a banner and announced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub text: String,
    pub error: bool,
}

/// The live region's text (U5); `seq` changes with every announcement so a repeated sentence
/// is spoken again.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Announcement {
    pub text: String,
    pub seq: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AppState {
    pub lang: Lang,
    /// Whether the visitor chose `lang` (the switch, or a phone's stored or Arabic browser
    /// language); until then pages follow the kiosk's `default_lang`.
    pub lang_chosen: bool,
    /// The owner's default language, from `/api/config`.
    pub default_lang: Lang,
    pub route: Route,
    pub conn: Conn,
    /// `None` until `/api/me` answered.
    pub account: Option<Option<Account>>,
    /// The name the server shows for this connection.
    pub server_name: Option<String>,
    /// The lobby page the server sends: its first rows, kept up to date row by row.
    pub lobby: Vec<RoomSummary>,
    /// Rooms this client may see in all (the page may hold fewer).
    pub lobby_total: u32,
    pub room: Option<LiveRoom>,
    pub hint: Option<Cell>,
    pub notice: Option<Notice>,
    pub announcement: Announcement,
    /// U7: seconds without a game in progress before the kiosk returns home.
    pub kiosk_idle_s: u64,
    /// AP3: the hours the kiosk's screen sleeps, minutes after midnight `(from, until)`.
    pub screen_sleep: Option<(u16, u16)>,
    /// AP3: seconds without a touch before the kiosk's screen sleeps; 0: never.
    pub screen_off_idle_s: u64,
    /// AP3: the kiosk's screen shows its sleep page (black); the next touch only wakes it.
    pub asleep: bool,
    /// The address phones should open; the kiosk shows no QR code until the server has said
    /// it (15.1: never this page's own, perhaps loopback, address).
    pub public_url: Option<String>,
    /// The `.local` name, shown in words beside the QR code (15.3).
    pub local_url: Option<String>,
    /// A Wi-Fi network for guests, offered as a `WIFI:` QR code (15.3).
    pub wifi: Option<protocol::http::Wifi>,
    /// The room the server itself made current with `next_room` (M3.12): the screen follows
    /// it without opening it again (which would close it first). Any navigation or new
    /// connection ends it.
    pub followed: Option<String>,
    /// U13: the kiosk's home, left alone for the idle time, shows what is happening instead
    /// of its controls (attract), until the next touch. Any navigation ends it.
    pub attract: bool,
    /// The puzzle attempt a puzzle screen shows (PZ2): the server's latest view of it.
    pub puzzle: Option<protocol::PuzzleView>,
    /// The arena event an event screen shows (EV6), kept while its player is in its games.
    pub event: Option<crate::event_model::LiveEvent>,
    /// The last game an event paired this player into, with its event: its end leads back to
    /// the event, not to a rematch (EV3).
    pub event_room: Option<(String, String)>,
}

/// Applies a `lobby_update` to the page: rows replace the row with their id or join it, removed
/// ids leave it, and the page stays in the server's order (waiting, playing, finished; a row
/// that joins goes after the rows already in its phase).
pub fn apply_lobby_update(
    lobby: &mut Vec<RoomSummary>,
    rows: Vec<RoomSummary>,
    removed: &[String],
) {
    lobby.retain(|r| !removed.contains(&r.id));
    for row in rows {
        match lobby.iter_mut().find(|r| r.id == row.id) {
            Some(old) => *old = row,
            None => lobby.push(row),
        }
    }
    let rank = |p: protocol::Phase| match p {
        protocol::Phase::Waiting => 0,
        protocol::Phase::Playing => 1,
        protocol::Phase::Finished => 2,
    };
    lobby.sort_by_key(|r| rank(r.phase));
}

impl Default for AppState {
    fn default() -> Self {
        AppState {
            lang: Lang::En,
            lang_chosen: false,
            default_lang: Lang::En,
            route: Route::Home,
            conn: Conn::Connecting,
            account: None,
            server_name: None,
            lobby: Vec::new(),
            lobby_total: 0,
            room: None,
            hint: None,
            notice: None,
            announcement: Announcement::default(),
            kiosk_idle_s: 120,
            screen_sleep: None,
            screen_off_idle_s: 0,
            asleep: false,
            public_url: None,
            local_url: None,
            wifi: None,
            followed: None,
            attract: false,
            puzzle: None,
            event: None,
            event_room: None,
        }
    }
}

/// Everything that changes the state.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// The visitor chose a language.
    SetLang(Lang),
    /// Back to the kiosk's default language for the next visitor (the kiosk's idle return).
    ResetLang,
    Navigate(Route),
    Connected,
    Disconnected,
    Server {
        msg: ServerMsg,
        now_ms: f64,
    },
    Account(Option<Account>),
    Config(crate::api::ServerConfig),
    /// AP3: the kiosk's screen goes to sleep (`true`) or wakes.
    Sleep(bool),
    Notice(Notice),
    DismissNotice,
    Announce(String),
    /// The kiosk's home starts (`true`) or stops showing what is happening (U13).
    Attract(bool),
}

impl AppState {
    pub fn signed_in(&self) -> bool {
        matches!(self.account, Some(Some(_)))
    }

    pub fn room_view(&self) -> Option<&RoomView> {
        self.room.as_ref().map(|r| &r.view)
    }

    fn announce(&mut self, text: String) {
        self.announcement = Announcement {
            text,
            seq: self.announcement.seq.wrapping_add(1),
        };
    }

    fn notify(&mut self, text: String, error: bool) {
        self.announce(text.clone());
        self.notice = Some(Notice { text, error });
    }

    /// Leaves the current room screen for the home of its mode.
    fn go_home(&mut self) {
        self.room = None;
        self.hint = None;
        if self.route.room_id().is_some() {
            self.route = self.route.home();
        }
    }

    /// The state after `action`.
    pub fn next(mut self, action: Action) -> AppState {
        match action {
            Action::SetLang(lang) => {
                self.lang = lang;
                self.lang_chosen = true;
            }
            Action::ResetLang => {
                self.lang = self.default_lang;
                self.lang_chosen = false;
            }
            Action::Navigate(route) => {
                self.followed = None;
                self.attract = false;
                if route.room_id() != self.route.room_id() {
                    self.room = None;
                    self.hint = None;
                }
                if route != self.route {
                    self.notice = None;
                    self.puzzle = None;
                }
                self.route = route;
            }
            Action::Connected => {
                self.conn = Conn::Open;
                self.followed = None;
            }
            Action::Disconnected => {
                self.conn = Conn::Lost;
                self.followed = None;
                // Attempts end with their connection; the screen starts a new one.
                self.puzzle = None;
            }
            Action::Account(account) => self.account = Some(account),
            Action::Config(config) => {
                self.kiosk_idle_s = config.kiosk_idle_s;
                self.screen_sleep = config
                    .screen_sleep
                    .as_ref()
                    .and_then(|h| protocol::rules::sleep_hours(&h.from, &h.until).ok());
                self.screen_off_idle_s = config.screen_off_idle_s;
                self.default_lang = match config.default_language {
                    protocol::http::Language::En => Lang::En,
                    protocol::http::Language::Ar => Lang::Ar,
                };
                if !self.lang_chosen {
                    self.lang = self.default_lang;
                }
                self.public_url = config.public_url.filter(|u| !u.trim().is_empty());
                self.local_url = config.local_url.filter(|u| !u.trim().is_empty());
                self.wifi = config.wifi;
            }
            Action::Notice(notice) => {
                self.announce(notice.text.clone());
                self.notice = Some(notice);
            }
            Action::DismissNotice => self.notice = None,
            Action::Announce(text) => self.announce(text),
            Action::Attract(on) => self.attract = on && self.route == Route::Kiosk,
            // Only the kiosk's own screen sleeps, never a phone's.
            Action::Sleep(on) => self.asleep = on && self.route.is_kiosk(),
            Action::Server { msg, now_ms } => self.server(msg, now_ms),
        }
        self
    }

    fn server(&mut self, msg: ServerMsg, now_ms: f64) {
        let lang = self.lang;
        match msg {
            ServerMsg::Hello { name, user, .. } => {
                self.server_name = Some(name);
                // The session ended elsewhere (sign-out, another device's password change,
                // S3): the socket came back as a guest, so the page must not show the player
                // signed in any more.
                if user.is_none() && self.signed_in() {
                    self.account = Some(None);
                }
            }
            ServerMsg::Pong { .. } => {}
            ServerMsg::EventSnapshot { event, .. } => {
                self.event = Some(crate::event_model::LiveEvent {
                    view: *event,
                    received_ms: now_ms,
                });
            }
            ServerMsg::EventUpdate(update) => {
                if let Some(e) = self.event.as_mut() {
                    e.apply(*update, now_ms);
                }
            }
            ServerMsg::Paired(p) => {
                // EV3: the server has made the new game this connection's room and sends its
                // snapshot next; the game has started.
                self.room = None;
                self.hint = None;
                self.notice = None;
                self.attract = false;
                self.route = Route::Room {
                    id: p.room.clone(),
                    kiosk: self.route.is_kiosk(),
                };
                self.followed = Some(p.room.clone());
                self.event_room = Some((p.room, p.event));
                self.announce(lang.f(T::AnnPaired, &[&p.opponent_name, mark(p.mark)]));
            }
            ServerMsg::Puzzle { attempt, .. } => {
                if matches!(self.route, Route::Puzzle { .. }) {
                    self.notice = None;
                    self.puzzle = Some(*attempt);
                }
            }
            ServerMsg::Lobby { rooms, total, .. } => {
                self.lobby = rooms;
                self.lobby_total = total;
            }
            ServerMsg::LobbyUpdate {
                rows,
                removed,
                total,
            } => {
                apply_lobby_update(&mut self.lobby, rows, &removed);
                self.lobby_total = total;
            }
            ServerMsg::Room { id, room } => self.snapshot(id.is_some(), *room, now_ms),
            ServerMsg::Event(event) => self.event(event),
            ServerMsg::Hint { cell, .. } => {
                self.hint = Some(cell);
                self.announce(lang.f(T::AnnHint, &[lang.cell(cell)]));
            }
            ServerMsg::Left { room, .. } => {
                if self.route.room_id() == Some(room.as_str())
                    || self.room_view().is_some_and(|r| r.id == room)
                {
                    self.go_home();
                }
            }
            ServerMsg::Error {
                code: ErrorCode::NotInRoom,
                ..
            } if self.route.room_id().is_none() => {
                // The answer to closing a room the server had already let go of.
            }
            ServerMsg::Error {
                code: ErrorCode::HelloRequired,
                ..
            } => {
                // This socket's hello came too late (a slow browser, e.g. the kiosk's right
                // after boot): the server closes it and the socket reconnects by itself,
                // re-opening the lobby and room. Nothing the visitor did; nothing to say.
            }
            ServerMsg::Error { code, message, .. } => {
                let text = error_text(code).map_or(message, |t| lang.t(t).to_owned());
                self.notify(text, true);
                if matches!(
                    code,
                    ErrorCode::Kicked | ErrorCode::UnknownRoom | ErrorCode::RoomClosed
                ) && self.route.room_id().is_some()
                {
                    self.go_home();
                }
            }
        }
    }

    fn snapshot(&mut self, answers_me: bool, view: RoomView, now_ms: f64) {
        let lang = self.lang;
        let on_this_room = self.route.room_id() == Some(view.id.as_str());
        if !on_this_room {
            // A late snapshot of a room this screen has left. After `next_room` the old room's
            // last snapshot may still echo the request that ended it.
            if !answers_me || self.followed.is_some() {
                return;
            }
            self.route = Route::Room {
                id: view.id.clone(),
                kiosk: self.route.is_kiosk(),
            };
            self.notice = None;
        }
        let previous = self.room.take();
        if let Some(prev) = &previous {
            if prev.view.moves != view.moves {
                self.hint = None;
            }
            let was_pending = prev.view.result.as_ref().is_some_and(|r| r.pending);
            if was_pending && view.result.as_ref().is_some_and(|r| !r.pending) {
                self.announce(lang.t(T::AnnResultSaved).to_owned());
            }
            if prev.view.phase == Phase::Waiting && view.phase == Phase::Playing {
                let who = match room_model::my_mark(&view) {
                    Some(m) => lang.f(T::YouAre, &[mark(m)]),
                    None => room_model::rail_text(&view, lang),
                };
                self.announce(lang.f(T::AnnGameStarted, &[&who]));
            }
        }
        self.room = Some(LiveRoom {
            view,
            received_ms: now_ms,
        });
    }

    fn event(&mut self, event: Event) {
        let lang = self.lang;
        let current = self.room_view().map(|r| r.id.clone());
        let here = |room: &str| current.as_deref() == Some(room);
        match event {
            Event::Moved {
                room,
                mark: m,
                cell,
                removed,
                automatic,
                bot,
            } if here(&room) => {
                let mut text = match removed {
                    Some(gone) => lang.f(
                        T::AnnMovedRemoved,
                        &[mark(m), lang.cell(cell), lang.cell(gone)],
                    ),
                    None => lang.f(T::AnnMoved, &[mark(m), lang.cell(cell)]),
                };
                if bot {
                    text = lang.f(T::AnnBot, &[&text]);
                }
                if automatic {
                    text = lang.f(T::AnnAutomatic, &[&text]);
                }
                self.hint = None;
                self.announce(text);
            }
            Event::RepetitionWarning { room } if here(&room) => {
                self.announce(lang.t(T::RepetitionWarning).to_owned());
            }
            Event::Result { room, end, .. } if here(&room) => {
                let text = match self.room_view() {
                    Some(view) => room_model::result_text(view, end, lang),
                    None => String::new(),
                };
                self.announce(text);
            }
            Event::DrawOffered { room, by } if here(&room) => {
                let who = self
                    .room_view()
                    .map(|v| room_model::named_mark(v, by, lang))
                    .unwrap_or_else(|| mark(by).to_owned());
                self.announce(lang.f(T::AnnDrawOffered, &[&who]));
            }
            Event::DrawDeclined { room, .. } if here(&room) => {
                self.announce(lang.t(T::AnnDrawDeclined).to_owned());
            }
            Event::Undone { room, .. } if here(&room) => {
                self.hint = None;
                self.announce(lang.t(T::AnnUndone).to_owned());
            }
            Event::JoinRequested { room, name, .. } if here(&room) => {
                self.announce(lang.f(T::AnnJoinRequested, &[&name]));
            }
            Event::RequestDeclined { .. } => {
                self.notify(lang.t(T::AnnRequestDeclined).to_owned(), false);
            }
            Event::SeatMoved { to, .. } => {
                self.notify(lang.t(T::AnnSeatMoved).to_owned(), false);
                self.room = None;
                self.route = Route::Room {
                    id: to,
                    kiosk: self.route.is_kiosk(),
                };
            }
            Event::RematchOffered { room, by } if here(&room) => {
                let who = self
                    .room_view()
                    .map(|v| room_model::named_mark(v, by, lang))
                    .unwrap_or_else(|| mark(by).to_owned());
                self.announce(lang.f(T::AnnRematchOffered, &[&who]));
            }
            Event::RematchDeclined { room, by } if here(&room) => {
                // The one who offered hears it in the banner; everyone else in the live region.
                let offered = self
                    .room_view()
                    .and_then(room_model::my_mark)
                    .is_some_and(|me| me != by);
                let text = lang.t(T::AnnRematchDeclined).to_owned();
                if offered {
                    self.notify(text, false);
                } else {
                    self.announce(text);
                }
            }
            Event::NextRoom { room, next }
                if here(&room) || self.route.room_id() == Some(room.as_str()) =>
            {
                // M3.12: the server has already made `next` this connection's room and sends
                // its snapshot next; players and spectators alike follow it.
                self.room = None;
                self.hint = None;
                self.notice = None;
                self.route = Route::Room {
                    id: next.clone(),
                    kiosk: self.route.is_kiosk(),
                };
                self.followed = Some(next);
                self.announce(lang.t(T::AnnNextGame).to_owned());
            }
            Event::Kicked { room } => {
                if here(&room) || self.route.room_id() == Some(room.as_str()) {
                    self.go_home();
                }
                self.notify(lang.t(T::AnnKicked).to_owned(), true);
            }
            Event::RoomClosed { room, reason }
                if here(&room) || self.route.room_id() == Some(room.as_str()) =>
            {
                self.go_home();
                let t = match &reason {
                    CloseReason::HostLeft => T::AnnClosedHostLeft,
                    CloseReason::Ended => T::AnnClosedEnded,
                    CloseReason::Idle => T::AnnClosedIdle,
                    CloseReason::Shutdown => T::AnnClosedShutdown,
                    CloseReason::Owner { .. } => T::AnnClosedOwner,
                };
                let text = match reason {
                    CloseReason::Owner { message } if !message.is_empty() => {
                        format!("{}: {message}", lang.t(t))
                    }
                    _ => lang.t(t).to_owned(),
                };
                self.notify(text, false);
            }
            // Events of a room this screen no longer shows.
            _ => {}
        }
    }
}

impl Reducible for AppState {
    type Action = Action;

    fn reduce(self: Rc<Self>, action: Action) -> Rc<Self> {
        Rc::new((*self).clone().next(action))
    }
}

/// The localized sentence for an error code.
pub fn error_text(code: ErrorCode) -> Option<T> {
    Some(match code {
        ErrorCode::BadFrame => T::ErrBadFrame,
        ErrorCode::FrameTooLarge => T::ErrFrameTooLarge,
        ErrorCode::HelloRequired => T::ErrHelloRequired,
        ErrorCode::UnsupportedVersion => T::ErrUnsupportedVersion,
        ErrorCode::Flood => T::ErrFlood,
        ErrorCode::UnknownRoom => T::ErrUnknownRoom,
        ErrorCode::NotInRoom => T::ErrNotInRoom,
        ErrorCode::Kicked => T::ErrKicked,
        ErrorCode::RoomClosed => T::ErrRoomClosed,
        ErrorCode::SignInRequired => T::ErrSignInRequired,
        ErrorCode::NotJoinable => T::ErrNotJoinable,
        ErrorCode::AlreadySeated => T::ErrAlreadySeated,
        ErrorCode::RoomFull => T::ErrRoomFull,
        ErrorCode::PasscodeRequired => T::ErrPasscodeRequired,
        ErrorCode::WrongPasscode => T::ErrWrongPasscode,
        ErrorCode::AlreadyRequested => T::ErrAlreadyRequested,
        ErrorCode::NoRequest => T::ErrNoRequest,
        ErrorCode::NotHost => T::ErrNotHost,
        ErrorCode::Spectator => T::ErrSpectator,
        ErrorCode::BadSettings => T::ErrBadSettings,
        ErrorCode::BadName => T::ErrBadName,
        ErrorCode::NameClash => T::ErrNameClash,
        ErrorCode::NotStarted => T::ErrGameNotStarted,
        ErrorCode::AlreadyStarted => T::ErrAlreadyStarted,
        ErrorCode::GameOver => T::ErrGameOver,
        ErrorCode::NotReady => T::ErrNotReady,
        ErrorCode::SeatEmpty => T::ErrSeatEmpty,
        ErrorCode::NotYourTurn => T::ErrNotYourTurn,
        ErrorCode::CellOccupied => T::ErrCellOccupied,
        ErrorCode::NoSuchCell => T::ErrNoSuchCell,
        ErrorCode::OfferPending => T::ErrOfferPending,
        ErrorCode::OfferLimit => T::ErrOfferLimit,
        ErrorCode::NoOffer => T::ErrNoOffer,
        ErrorCode::UndoUnavailable => T::ErrUndoUnavailable,
        ErrorCode::NothingToUndo => T::ErrNothingToUndo,
        ErrorCode::HintUnavailable => T::ErrHintUnavailable,
        ErrorCode::Storage => T::ErrStorage,
        ErrorCode::Unavailable => T::ErrUnavailable,
        ErrorCode::OnlineOnly => T::ErrOnlineOnly,
        ErrorCode::SignedOut => T::ErrSignedOut,
        ErrorCode::NotFinished => T::ErrNotFinished,
        ErrorCode::PlayAgainUnavailable => T::ErrPlayAgainUnavailable,
        ErrorCode::TooManyRatedGames => T::ErrTooManyRatedGames,
        ErrorCode::UnknownPuzzle => T::ErrUnknownPuzzle,
        ErrorCode::UnknownAttempt => T::ErrUnknownAttempt,
        ErrorCode::NoStreak => T::ErrNoStreak,
        ErrorCode::UnknownEvent => T::ErrUnknownEvent,
        ErrorCode::NotInEvent => T::ErrNotInEvent,
        ErrorCode::EventOver => T::ErrEventOver,
        ErrorCode::EventFull => T::ErrEventFull,
        ErrorCode::EventGame => T::ErrEventGame,
    })
}

/// U7: whether the kiosk should go back to its home screen now.
pub fn idle_return_due(
    route: &Route,
    room: Option<&RoomView>,
    idle_ms: f64,
    kiosk_idle_s: u64,
) -> bool {
    route.is_kiosk()
        && *route != Route::Kiosk
        && !room_model::in_progress(room)
        && idle_ms >= kiosk_idle_s as f64 * 1000.0
}

/// On the kiosk, whether the idle time has passed with a visitor's language still showing: the
/// next visitor gets the owner's default language again.
pub fn lang_reset_due(route: &Route, lang_chosen: bool, idle_ms: f64, kiosk_idle_s: u64) -> bool {
    lang_chosen && *route == Route::Kiosk && idle_ms >= kiosk_idle_s as f64 * 1000.0
}

/// U13: whether the kiosk's home, untouched for the idle time, should start showing what is
/// happening.
pub fn attract_due(route: &Route, attract: bool, idle_ms: f64, kiosk_idle_s: u64) -> bool {
    !attract && *route == Route::Kiosk && idle_ms >= kiosk_idle_s as f64 * 1000.0
}

/// AP3: whether the kiosk's screen should go to sleep now, at `minute` after midnight (local
/// time) after `idle_ms` without a touch: after `screen_off_idle_s` at any hour (0: never), and
/// in the sleep hours as soon as it was left alone for the kiosk's idle time. Phones never
/// sleep.
pub fn sleep_due(
    route: &Route,
    asleep: bool,
    minute: u16,
    idle_ms: f64,
    (hours, screen_off_idle_s, kiosk_idle_s): (Option<(u16, u16)>, u64, u64),
) -> bool {
    let after = |s: u64| idle_ms >= s as f64 * 1000.0;
    !asleep
        && route.is_kiosk()
        && ((screen_off_idle_s > 0 && after(screen_off_idle_s))
            || hours
                .is_some_and(|h| protocol::rules::in_sleep_hours(minute, h) && after(kiosk_idle_s)))
}

/// 14.5: how long "Still playing?" waits for an answer: a quarter of the idle time, 5 to 30 s.
pub fn still_playing_countdown_s(kiosk_idle_s: u64) -> u64 {
    (kiosk_idle_s / 4).clamp(5, 30)
}

/// 14.5: on the kiosk, a bot or local game in progress with no input for the idle time asks
/// "Still playing?"; the seconds left before it ends, or `None` while no question is due.
pub fn still_playing_left(
    route: &Route,
    room: Option<&RoomView>,
    idle_ms: f64,
    kiosk_idle_s: u64,
) -> Option<u32> {
    let room = room?;
    let casual = matches!(
        room.kind,
        protocol::RoomKind::Bot { .. } | protocol::RoomKind::Local
    );
    let due = route.is_kiosk()
        && route.room_id().is_some()
        && casual
        && room_model::is_player(room)
        && room_model::in_progress(Some(room));
    let over_ms = idle_ms - kiosk_idle_s as f64 * 1000.0;
    if !due || over_ms < 0.0 {
        return None;
    }
    let left_ms = still_playing_countdown_s(kiosk_idle_s) as f64 * 1000.0 - over_ms;
    Some(if left_ms <= 0.0 {
        0
    } else {
        (left_ms / 1000.0).ceil() as u32
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::room_model::fixtures::online_playing;
    use engine::Mark;
    use protocol::records::GameEnd;

    fn on_room(id: &str) -> AppState {
        AppState::default().next(Action::Navigate(Route::Room {
            id: id.into(),
            kiosk: false,
        }))
    }

    fn server(msg: ServerMsg) -> Action {
        Action::Server {
            msg,
            now_ms: 1000.0,
        }
    }

    #[test]
    fn a_snapshot_answering_my_create_opens_its_room() {
        let state = AppState::default().next(server(ServerMsg::Room {
            id: Some(3),
            room: Box::new(online_playing()),
        }));
        assert_eq!(
            state.route,
            Route::Room {
                id: "r1".into(),
                kiosk: false
            }
        );
        assert!(state.room.is_some());
    }

    #[test]
    fn a_kiosk_create_stays_in_kiosk_mode() {
        let state = AppState::default()
            .next(Action::Navigate(Route::Kiosk))
            .next(server(ServerMsg::Room {
                id: Some(1),
                room: Box::new(online_playing()),
            }));
        assert!(state.route.is_kiosk());
    }

    #[test]
    fn late_snapshots_of_a_left_room_are_ignored() {
        let state = AppState::default().next(server(ServerMsg::Room {
            id: None,
            room: Box::new(online_playing()),
        }));
        assert_eq!(state.route, Route::Home);
        assert!(state.room.is_none());
    }

    #[test]
    fn moves_are_announced_with_cell_names_and_vanished_marks() {
        let state = on_room("r1")
            .next(server(ServerMsg::Room {
                id: None,
                room: Box::new(online_playing()),
            }))
            .next(server(ServerMsg::Event(Event::Moved {
                room: "r1".into(),
                mark: Mark::X,
                cell: 4,
                removed: Some(0),
                automatic: true,
                bot: false,
            })));
        assert_eq!(
            state.announcement.text,
            "Time ran out. X on centre; top left vanished"
        );
        let again = state
            .clone()
            .next(Action::Announce(state.announcement.text.clone()));
        assert_ne!(again.announcement.seq, state.announcement.seq);
    }

    #[test]
    fn results_and_warnings_are_announced() {
        let base = on_room("r1").next(server(ServerMsg::Room {
            id: None,
            room: Box::new(online_playing()),
        }));
        let warned = base
            .clone()
            .next(server(ServerMsg::Event(Event::RepetitionWarning {
                room: "r1".into(),
            })));
        assert!(warned.announcement.text.starts_with("Same position twice"));
        let won = base.next(server(ServerMsg::Event(Event::Result {
            room: "r1".into(),
            end: GameEnd::Line {
                winner: Mark::O,
                line: [2, 4, 6],
            },
            ratings: vec![],
        })));
        assert_eq!(won.announcement.text, "Omar (O) wins with a line");
    }

    #[test]
    fn next_room_moves_players_and_spectators_to_the_new_game() {
        for kiosk in [false, true] {
            let state = AppState::default()
                .next(Action::Navigate(Route::Room {
                    id: "r1".into(),
                    kiosk,
                }))
                .next(server(ServerMsg::Room {
                    id: None,
                    room: Box::new(online_playing()),
                }))
                .next(server(ServerMsg::Event(Event::NextRoom {
                    room: "r1".into(),
                    next: "r2".into(),
                })));
            assert_eq!(
                state.route,
                Route::Room {
                    id: "r2".into(),
                    kiosk
                }
            );
            assert_eq!(state.followed.as_deref(), Some("r2"));
            assert!(state.room.is_none());
            // The old room's last snapshot, echoing the request that ended it, stays away.
            let state = state.next(server(ServerMsg::Room {
                id: Some(10),
                room: Box::new(online_playing()),
            }));
            assert_eq!(
                state.route,
                Route::Room {
                    id: "r2".into(),
                    kiosk
                }
            );
            assert!(state.room.is_none());
            // The new room's snapshot, sent without an id to the followers, is shown.
            let mut next = online_playing();
            next.id = "r2".into();
            let state = state.next(server(ServerMsg::Room {
                id: None,
                room: Box::new(next),
            }));
            assert_eq!(state.room_view().map(|r| r.id.as_str()), Some("r2"));
            // Navigating away ends the following: coming back opens the room again.
            let state = state.next(Action::Navigate(Route::Home));
            assert_eq!(state.followed, None);
        }
    }

    #[test]
    fn an_event_is_watched_updated_and_pairs_the_phone_into_its_game() {
        use protocol::event::{EventPhase, EventRow, EventUpdate, EventView, Paired};
        let view = EventView {
            event: "e1".into(),
            name: "XO night".into(),
            game: engine::Game::Xo,
            rated: true,
            per_move_ms: 120_000,
            phase: EventPhase::Running,
            starts_in_ms: 0,
            ends_in_ms: 600_000,
            duration_ms: 600_000,
            players: 0,
            standings: vec![],
            boards: vec![],
            podium: vec![],
            you: None,
        };
        let state = AppState::default()
            .next(Action::Navigate(Route::Event("e1".into())))
            .next(server(ServerMsg::EventSnapshot {
                id: None,
                event: Box::new(view),
            }));
        let row = EventRow {
            user: 7,
            name: "pia".into(),
            rank: 1,
            points: 2,
            performance: None,
            games: 1,
            wins: 1,
            draws: 0,
            losses: 0,
            streak: 1,
        };
        let state = state.next(server(ServerMsg::EventUpdate(Box::new(EventUpdate {
            event: "e1".into(),
            phase: EventPhase::Running,
            ends_in_ms: 500_000,
            players: 1,
            standings: Some(protocol::event::StandingsDelta {
                removed: vec![],
                rows: vec![row],
            }),
            boards: None,
            podium: None,
            you: None,
        }))));
        let live = state.event.clone().expect("the event");
        assert_eq!(live.view.standings.len(), 1);
        assert_eq!(live.view.players, 1);
        let state = state.next(server(ServerMsg::Paired(Paired {
            event: "e1".into(),
            room: "r5".into(),
            mark: Mark::O,
            opponent: 3,
            opponent_name: "omar".into(),
        })));
        assert_eq!(
            state.route,
            Route::Room {
                id: "r5".into(),
                kiosk: false
            }
        );
        assert_eq!(state.followed.as_deref(), Some("r5"));
        assert_eq!(state.event_room, Some(("r5".into(), "e1".into())));
        assert_eq!(state.announcement.text, "Paired with omar: you are O");
    }

    #[test]
    fn a_declined_rematch_is_told_to_the_one_who_offered() {
        let mut room = online_playing();
        room.phase = Phase::Finished;
        let state = on_room("r1").next(server(ServerMsg::Room {
            id: None,
            room: Box::new(room),
        }));
        let offered = state
            .clone()
            .next(server(ServerMsg::Event(Event::RematchOffered {
                room: "r1".into(),
                by: Mark::O,
            })));
        assert_eq!(
            offered.announcement.text,
            "Omar (O) offers a rematch, colours swapped"
        );
        // Omar (O) declined Sara's offer: Sara, the reader, sees it in the banner.
        let declined = state.next(server(ServerMsg::Event(Event::RematchDeclined {
            room: "r1".into(),
            by: Mark::O,
        })));
        assert_eq!(
            declined.notice.map(|n| n.text).as_deref(),
            Some("The rematch was declined")
        );
    }

    #[test]
    fn a_pending_result_announces_when_it_is_saved() {
        let mut room = online_playing();
        room.phase = Phase::Finished;
        room.result = Some(protocol::view::ResultView {
            end: GameEnd::Agreed,
            rated: true,
            ratings: vec![],
            pending: true,
        });
        let state = on_room("r1").next(server(ServerMsg::Room {
            id: None,
            room: Box::new(room.clone()),
        }));
        if let Some(r) = room.result.as_mut() {
            r.pending = false;
        }
        let state = state.next(server(ServerMsg::Room {
            id: None,
            room: Box::new(room),
        }));
        assert_eq!(state.announcement.text, "Result saved: the ratings changed");
    }

    #[test]
    fn a_guest_hello_signs_the_page_out() {
        let hello = |user| {
            server(ServerMsg::Hello {
                version: protocol::PROTOCOL_VERSION,
                user,
                name: "Guest 3f9a".into(),
                max_frame_bytes: 4096,
                max_messages_per_s: 20,
                you: protocol::Name::Guest { tag: "3f9a".into() },
            })
        };
        let signed_in = AppState::default().next(Action::Account(Some(Account {
            id: 7,
            username: "pia".into(),
        })));
        assert!(signed_in.clone().next(hello(Some(7))).signed_in());
        let ended = signed_in.next(hello(None));
        assert_eq!(ended.account, Some(None));
    }

    #[test]
    fn kicked_player_returns_home_with_a_notice() {
        let state = on_room("r1")
            .next(server(ServerMsg::Room {
                id: None,
                room: Box::new(online_playing()),
            }))
            .next(server(ServerMsg::Event(Event::Kicked {
                room: "r1".into(),
            })));
        assert_eq!(state.route, Route::Home);
        assert!(state.room.is_none());
        assert!(state.notice.as_ref().is_some_and(|n| n.error));
    }

    #[test]
    fn errors_are_localized_by_code() {
        let state = AppState::default()
            .next(Action::SetLang(Lang::Ar))
            .next(server(ServerMsg::error(
                Some(1),
                ErrorCode::WrongPasscode,
                "wrong passcode",
            )));
        assert_eq!(
            state.notice.map(|n| n.text),
            Some("رمز الدخول غير صحيح.".to_owned())
        );
    }

    #[test]
    fn not_in_room_after_leaving_is_not_shown() {
        let state = AppState::default().next(server(ServerMsg::error(
            Some(4),
            ErrorCode::NotInRoom,
            "not in a room",
        )));
        assert_eq!(state.notice, None);
    }

    #[test]
    fn a_late_hello_reconnects_without_a_notice() {
        let state = AppState::default()
            .next(Action::Connected)
            .next(server(ServerMsg::error(
                None,
                ErrorCode::HelloRequired,
                "no hello in time; closing",
            )));
        assert_eq!(state.notice, None);
    }

    #[test]
    fn left_answer_returns_to_the_mode_home() {
        let state = AppState::default()
            .next(Action::Navigate(Route::Room {
                id: "r1".into(),
                kiosk: true,
            }))
            .next(server(ServerMsg::Left {
                id: Some(2),
                room: "r1".into(),
            }));
        assert_eq!(state.route, Route::Kiosk);
    }

    #[test]
    fn hint_is_kept_until_the_next_move() {
        let mut room = online_playing();
        let state = on_room("r1")
            .next(server(ServerMsg::Room {
                id: None,
                room: Box::new(room.clone()),
            }))
            .next(server(ServerMsg::Hint { id: None, cell: 4 }));
        assert_eq!(state.hint, Some(4));
        assert_eq!(state.announcement.text, "Hint: centre");
        room.moves.push(4);
        room.x.push(4);
        let state = state.next(server(ServerMsg::Room {
            id: None,
            room: Box::new(room),
        }));
        assert_eq!(state.hint, None);
    }

    #[test]
    fn an_idle_kiosk_game_asks_still_playing_then_counts_down_to_its_end() {
        let kiosk_room = Route::Room {
            id: "r1".into(),
            kiosk: true,
        };
        let mut room = online_playing();
        room.kind = protocol::RoomKind::Local;
        room.you.seat = None;
        assert_eq!(
            still_playing_left(&kiosk_room, Some(&room), 119_000.0, 120),
            None
        );
        assert_eq!(
            still_playing_left(&kiosk_room, Some(&room), 120_000.0, 120),
            Some(30)
        );
        assert_eq!(
            still_playing_left(&kiosk_room, Some(&room), 140_500.0, 120),
            Some(10)
        );
        assert_eq!(
            still_playing_left(&kiosk_room, Some(&room), 150_000.0, 120),
            Some(0)
        );
        assert_eq!(
            still_playing_left(&kiosk_room, Some(&room), 3_000.0, 3),
            Some(5)
        );
        // Not on a phone, not for a rated game, not once the game is over.
        let phone = Route::Room {
            id: "r1".into(),
            kiosk: false,
        };
        assert_eq!(
            still_playing_left(&phone, Some(&room), 500_000.0, 120),
            None
        );
        room.phase = Phase::Finished;
        assert_eq!(
            still_playing_left(&kiosk_room, Some(&room), 500_000.0, 120),
            None
        );
        assert_eq!(
            still_playing_left(&kiosk_room, Some(&online_playing()), 500_000.0, 120),
            None
        );
    }

    #[test]
    fn kiosk_returns_home_only_when_idle_and_no_game_is_in_progress() {
        let kiosk_room = Route::Room {
            id: "r1".into(),
            kiosk: true,
        };
        let mut room = online_playing();
        assert!(!idle_return_due(&kiosk_room, Some(&room), 200_000.0, 120));
        room.phase = Phase::Finished;
        assert!(idle_return_due(&kiosk_room, Some(&room), 120_000.0, 120));
        assert!(!idle_return_due(&kiosk_room, Some(&room), 119_000.0, 120));
        assert!(!idle_return_due(&Route::Kiosk, None, 500_000.0, 120));
        assert!(!idle_return_due(&Route::Rules, None, 500_000.0, 120));
        assert!(idle_return_due(&kiosk_room, None, 500_000.0, 120));
    }

    fn config(default_language: protocol::http::Language, idle: u64) -> Action {
        Action::Config(crate::api::ServerConfig {
            kiosk_idle_s: idle,
            public_url: Some("http://192.168.1.20".into()),
            local_url: None,
            wifi: None,
            default_language,
            screen_sleep: None,
            screen_off_idle_s: 0,
            version: "0.1.0".into(),
            protocol_version: protocol::PROTOCOL_VERSION,
        })
    }

    #[test]
    fn the_kiosk_screen_sleeps_after_its_idle_time_and_in_its_hours_and_a_phone_never() {
        let kiosk = Route::Kiosk;
        let night = Some((23 * 60, 8 * 60));
        let min = |m: u16| m;
        // At any hour after the screen's own idle time (0: never).
        assert!(sleep_due(
            &kiosk,
            false,
            min(12 * 60),
            600_000.0,
            (None, 600, 120)
        ));
        assert!(!sleep_due(
            &kiosk,
            false,
            min(12 * 60),
            599_000.0,
            (None, 600, 120)
        ));
        assert!(!sleep_due(&kiosk, false, min(12 * 60), 1e9, (None, 0, 120)));
        // In the sleep hours after the kiosk's idle time; not outside them.
        assert!(sleep_due(
            &kiosk,
            false,
            min(23 * 60 + 30),
            120_000.0,
            (night, 0, 120)
        ));
        assert!(sleep_due(
            &kiosk,
            false,
            min(3 * 60),
            120_000.0,
            (night, 0, 120)
        ));
        assert!(!sleep_due(
            &kiosk,
            false,
            min(3 * 60),
            119_000.0,
            (night, 0, 120)
        ));
        assert!(!sleep_due(&kiosk, false, min(9 * 60), 1e9, (night, 0, 120)));
        // A game on the kiosk sleeps too (the waking touch plays nothing); a phone never.
        let game = Route::Room {
            id: "r".into(),
            kiosk: true,
        };
        assert!(sleep_due(
            &game,
            false,
            min(12 * 60),
            600_000.0,
            (None, 600, 120)
        ));
        let phone = Route::Room {
            id: "r".into(),
            kiosk: false,
        };
        assert!(!sleep_due(
            &phone,
            false,
            min(3 * 60),
            1e9,
            (night, 600, 120)
        ));
        assert!(!sleep_due(
            &Route::Home,
            false,
            min(3 * 60),
            1e9,
            (night, 600, 120)
        ));
        // Already asleep: nothing more to do.
        assert!(!sleep_due(
            &kiosk,
            true,
            min(3 * 60),
            1e9,
            (night, 600, 120)
        ));
        // The state follows the configuration, and only a kiosk route sleeps.
        let state = AppState::default().next(Action::Sleep(true));
        assert!(!state.asleep, "the lobby (a phone) never sleeps");
        let state = AppState {
            route: Route::Kiosk,
            ..AppState::default()
        };
        assert!(state.clone().next(Action::Sleep(true)).asleep);
        assert!(
            !state
                .next(Action::Sleep(true))
                .next(Action::Sleep(false))
                .asleep
        );
    }

    #[test]
    fn pages_follow_the_default_language_until_the_visitor_chooses() {
        use protocol::http::Language;
        let state = AppState::default().next(config(Language::Ar, 60));
        assert_eq!((state.lang, state.kiosk_idle_s), (Lang::Ar, 60));
        // A new default (the owner saved one) follows at the next poll.
        let state = state.next(config(Language::En, 30));
        assert_eq!((state.lang, state.kiosk_idle_s), (Lang::En, 30));
        let chosen = state
            .next(Action::SetLang(Lang::Ar))
            .next(config(Language::En, 30));
        assert_eq!(chosen.lang, Lang::Ar, "the visitor's choice stays");
        // The kiosk's idle return hands the next visitor the default again.
        let reset = chosen.next(Action::ResetLang);
        assert_eq!((reset.lang, reset.lang_chosen), (Lang::En, false));
    }

    #[test]
    fn only_the_kiosk_home_left_alone_for_the_idle_time_attracts() {
        assert!(attract_due(&Route::Kiosk, false, 120_000.0, 120));
        assert!(!attract_due(&Route::Kiosk, false, 119_000.0, 120));
        assert!(!attract_due(&Route::Kiosk, true, 500_000.0, 120));
        assert!(!attract_due(&Route::Home, false, 500_000.0, 120));
        let room = Route::Room {
            id: "r1".into(),
            kiosk: true,
        };
        assert!(!attract_due(&room, false, 500_000.0, 120));
        // Only the kiosk's home holds it, and leaving it ends it.
        let home = AppState::default().next(Action::Navigate(Route::Kiosk));
        let on = home.clone().next(Action::Attract(true));
        assert!(on.attract);
        assert!(!on.clone().next(Action::Attract(false)).attract);
        assert!(!on.next(Action::Navigate(room)).attract);
        assert!(!AppState::default().next(Action::Attract(true)).attract);
    }

    #[test]
    fn the_kiosk_home_resets_a_chosen_language_after_the_idle_time() {
        assert!(lang_reset_due(&Route::Kiosk, true, 60_000.0, 60));
        assert!(!lang_reset_due(&Route::Kiosk, true, 59_000.0, 60));
        assert!(!lang_reset_due(&Route::Kiosk, false, 60_000.0, 60));
        assert!(!lang_reset_due(&Route::Home, true, 60_000.0, 60));
    }
}

#[cfg(test)]
mod lobby_tests {
    use protocol::{Joining, Phase, RoomKind, RoomSummary};

    use super::apply_lobby_update;

    fn row(id: &str, phase: Phase) -> RoomSummary {
        RoomSummary {
            id: id.into(),
            game: engine::Game::Xo,
            kind: RoomKind::Online {
                joining: Joining::Open,
            },
            phase,
            players: vec!["sara".into()],
            open_seat: phase == Phase::Waiting,
            per_move_ms: None,
            spectators: 0,
            names: Vec::new(),
        }
    }

    #[test]
    fn lobby_update_replaces_adds_and_removes_rows_in_server_order() {
        let mut lobby = vec![row("a", Phase::Waiting), row("b", Phase::Waiting)];
        apply_lobby_update(
            &mut lobby,
            vec![row("a", Phase::Playing), row("c", Phase::Waiting)],
            &["b".to_owned()],
        );
        let ids: Vec<&str> = lobby.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(ids, ["c", "a"], "waiting rooms first");
        assert_eq!(lobby[1].phase, Phase::Playing);
    }
}
