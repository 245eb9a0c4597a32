//! Arena events as the screens show them (EV1, EV5, EV6): the live event with its clocks, the
//! standings' changes applied, the board's top rows, streaks, the podium's steps, which event
//! the kiosk shows, and the owner's "later today at 20:00" as milliseconds from now.

use protocol::event::{EventPhase, EventRow, EventUpdate, EventView};
use protocol::http::EventSummary;
use protocol::records::UserId;

/// Rows of the standings on the kiosk's board (EV6): the rest are counted.
pub const BOARD_ROWS: usize = 10;

/// How long the kiosk shows the podium after the event's last game (EV6: "a few minutes").
pub const PODIUM_MS: u64 = 5 * 60_000;

/// From this many wins in a row the next win scores 4 (EV4): the row shows a streak.
pub const STREAK_FROM: u32 = 2;

/// The event a screen shows, with the moment its times were read: they travel as durations
/// from the server's now, never as a clock.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveEvent {
    pub view: EventView,
    pub received_ms: f64,
}

impl LiveEvent {
    /// Milliseconds left until the start, at `now_ms` on this page's clock.
    pub fn starts_in(&self, now_ms: f64) -> u64 {
        left(self.view.starts_in_ms, self.received_ms, now_ms)
    }

    /// Milliseconds left until time is up.
    pub fn ends_in(&self, now_ms: f64) -> u64 {
        left(self.view.ends_in_ms, self.received_ms, now_ms)
    }

    /// Applies an update that arrived at `now_ms`: the times are read again from then.
    pub fn apply(&mut self, update: EventUpdate, now_ms: f64) {
        if update.event != self.view.event {
            return;
        }
        self.view.starts_in_ms = self.starts_in(now_ms);
        self.received_ms = now_ms;
        apply_update(&mut self.view, update);
    }

    /// The row of player `user`.
    pub fn row(&self, user: UserId) -> Option<&EventRow> {
        self.view.standings.iter().find(|r| r.user == user)
    }

    /// A player's name from the standings (every player of a game has a row).
    pub fn name(&self, user: UserId) -> String {
        self.row(user)
            .map_or_else(|| format!("#{user}"), |r| r.name.clone())
    }
}

fn left(ms: u64, received_ms: f64, now_ms: f64) -> u64 {
    let gone = (now_ms - received_ms).max(0.0);
    // Durations of at most a day: exact in an f64.
    #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
    let rest = (ms as f64 - gone).max(0.0) as u64;
    rest
}

/// Applies an update to the event it is about (EV6): standings as a delta (removed users
/// leave, rows replace the row of their user or join), sorted by rank then user; the games in
/// progress and the podium when sent.
pub fn apply_update(view: &mut EventView, update: EventUpdate) {
    if update.event != view.event {
        return;
    }
    view.phase = update.phase;
    view.ends_in_ms = update.ends_in_ms;
    if update.phase != EventPhase::Announced {
        view.starts_in_ms = 0;
    }
    view.players = update.players;
    if let Some(delta) = update.standings {
        view.standings.retain(|r| !delta.removed.contains(&r.user));
        for row in delta.rows {
            match view.standings.iter_mut().find(|r| r.user == row.user) {
                Some(old) => *old = row,
                None => view.standings.push(row),
            }
        }
        view.standings.sort_by_key(|r| (r.rank, r.user));
    }
    if let Some(boards) = update.boards {
        view.boards = boards;
    }
    if let Some(podium) = update.podium {
        view.podium = podium;
    }
    if update.you.is_some() {
        view.you = update.you;
    }
}

/// A duration as a clock: `37:05`, `1:02:05` from an hour on (rounded up to the second, so it
/// reads 0:00 only when the time is up).
pub fn clock(ms: u64) -> String {
    let s = ms.div_ceil(1000);
    let (h, m, s) = (s / 3600, s / 60 % 60, s % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// Whether a row shows the streak mark: its next win scores 4.
pub fn on_streak(row: &EventRow) -> bool {
    row.streak >= STREAK_FROM
}

/// The podium's steps, each with its rows: 1st, 2nd, 3rd (ties share a step; a step may be
/// empty when a tie above took its place).
pub fn podium_steps(podium: &[EventRow]) -> [Vec<&EventRow>; 3] {
    let mut steps: [Vec<&EventRow>; 3] = [Vec::new(), Vec::new(), Vec::new()];
    for row in podium {
        if let Some(step) = usize::try_from(row.rank)
            .ok()
            .and_then(|r| r.checked_sub(1))
            .and_then(|i| steps.get_mut(i))
        {
            step.push(row);
        }
    }
    steps
}

/// Whether the event is still to be played or being played (joinable, paused, …).
pub fn is_live(phase: EventPhase) -> bool {
    matches!(
        phase,
        EventPhase::Announced | EventPhase::Running | EventPhase::Ending
    )
}

/// What the kiosk's home shows (EV6), from the list of events: the event running (or whose
/// last games are finishing); else a finished one whose podium is still due (`recent`,
/// checked with its games' end by [`podium_due`]); else the next announced one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BoardPick {
    Live(String),
    /// A finished event whose time was up less than an hour ago: its podium may be due.
    Recent(String),
    None,
}

/// Picks the event the kiosk shows; `now_ms` is the kiosk's clock, which is the server's
/// (the kiosk runs on the machine that serves it).
pub fn pick_board(events: &[EventSummary], now_ms: u64) -> BoardPick {
    if let Some(e) = events
        .iter()
        .find(|e| matches!(e.phase, EventPhase::Running | EventPhase::Ending))
    {
        return BoardPick::Live(e.id.clone());
    }
    let recent = events
        .iter()
        .filter(|e| e.phase == EventPhase::Finished)
        .filter(|e| e.starts_at_ms + e.duration_ms + 3_600_000 > now_ms)
        .max_by_key(|e| e.starts_at_ms);
    if let Some(e) = recent {
        return BoardPick::Recent(e.id.clone());
    }
    events
        .iter()
        .filter(|e| e.phase == EventPhase::Announced)
        .min_by_key(|e| e.starts_in_ms)
        .map_or(BoardPick::None, |e| BoardPick::Live(e.id.clone()))
}

/// Whether a finished event's podium still shows at `now_ms`: for [`PODIUM_MS`] after its
/// last game ended (or its time was up, when no game ended later).
pub fn podium_due(time_up_ms: u64, last_game_end_ms: Option<u64>, now_ms: u64) -> bool {
    let end = last_game_end_ms.unwrap_or(0).max(time_up_ms);
    now_ms < end + PODIUM_MS
}

/// The owner's "later today at HH:MM" as milliseconds from now (`NewEvent::start_in_ms`), on
/// the owner's phone's clock: `now_of_day_ms` is the time of day now. `None` when that time
/// has passed today (or is malformed).
pub fn start_in_ms(now_of_day_ms: u64, at: &str) -> Option<u64> {
    let (h, m) = at.trim().split_once(':')?;
    let (h, m): (u64, u64) = (h.parse().ok()?, m.parse().ok()?);
    if h > 23 || m > 59 {
        return None;
    }
    let at_ms = (h * 60 + m) * 60_000;
    at_ms.checked_sub(now_of_day_ms).filter(|&ms| ms > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::Game;
    use protocol::event::{EventBoard, StandingsDelta};

    fn row(user: UserId, rank: u32, points: u32, streak: u32) -> EventRow {
        EventRow {
            user,
            name: format!("p{user}"),
            rank,
            points,
            performance: None,
            games: 1,
            wins: 0,
            draws: 0,
            losses: 0,
            streak,
        }
    }

    fn view() -> EventView {
        EventView {
            event: "e1".into(),
            name: "XO night".into(),
            game: Game::Xo,
            rated: true,
            per_move_ms: 120_000,
            phase: EventPhase::Running,
            starts_in_ms: 0,
            ends_in_ms: 600_000,
            duration_ms: 3_600_000,
            players: 3,
            standings: vec![row(1, 1, 4, 2), row(2, 2, 2, 1), row(3, 3, 0, 0)],
            boards: vec![],
            podium: vec![],
            you: None,
        }
    }

    fn summary(id: &str, phase: EventPhase, starts_at_ms: u64) -> EventSummary {
        EventSummary {
            id: id.into(),
            name: "Arena".into(),
            game: Game::Xo,
            rated: true,
            per_move_ms: 120_000,
            phase,
            starts_at_ms,
            starts_in_ms: 0,
            ends_in_ms: 0,
            duration_ms: 600_000,
            players: 0,
        }
    }

    #[test]
    fn a_delta_moves_changed_rows_removes_the_gone_and_keeps_the_rest() {
        let mut v = view();
        apply_update(
            &mut v,
            EventUpdate {
                event: "e1".into(),
                phase: EventPhase::Running,
                ends_in_ms: 500_000,
                players: 3,
                standings: Some(StandingsDelta {
                    removed: vec![2],
                    rows: vec![row(3, 1, 6, 3), row(1, 2, 4, 0), row(4, 3, 0, 0)],
                }),
                boards: Some(vec![EventBoard {
                    room: "r1".into(),
                    x: 3,
                    o: 1,
                }]),
                podium: None,
                you: None,
            },
        );
        let order: Vec<(UserId, u32)> = v.standings.iter().map(|r| (r.user, r.rank)).collect();
        assert_eq!(order, [(3, 1), (1, 2), (4, 3)]);
        assert_eq!(v.ends_in_ms, 500_000);
        assert_eq!(v.boards.len(), 1);
        // Another event's update changes nothing.
        let before = v.clone();
        apply_update(
            &mut v,
            EventUpdate {
                event: "e2".into(),
                phase: EventPhase::Finished,
                ends_in_ms: 0,
                players: 0,
                standings: None,
                boards: None,
                podium: None,
                you: None,
            },
        );
        assert_eq!(v, before);
    }

    #[test]
    fn an_update_restarts_the_clocks_from_its_arrival_and_keeps_the_countdown() {
        let mut live = LiveEvent {
            view: EventView {
                phase: EventPhase::Announced,
                starts_in_ms: 60_000,
                ..view()
            },
            received_ms: 0.0,
        };
        live.apply(
            EventUpdate {
                event: "e1".into(),
                phase: EventPhase::Announced,
                ends_in_ms: 660_000,
                players: 4,
                standings: None,
                boards: None,
                podium: None,
                you: Some(protocol::event::EventYou {
                    state: protocol::event::EntrantState::Waiting,
                    room: None,
                }),
            },
            10_000.0,
        );
        assert_eq!(live.starts_in(10_000.0), 50_000);
        assert_eq!(live.ends_in(20_000.0), 650_000);
        assert_eq!(live.view.players, 4);
        assert!(live.view.you.is_some(), "the reader's state");
    }

    #[test]
    fn clocks_read_minutes_and_hours_and_count_down_from_arrival() {
        assert_eq!(clock(0), "0:00");
        assert_eq!(clock(1), "0:01");
        assert_eq!(clock(65_000), "1:05");
        assert_eq!(clock(37 * 60_000 + 12_000), "37:12");
        assert_eq!(clock(3_725_000), "1:02:05");
        let live = LiveEvent {
            view: view(),
            received_ms: 1000.0,
        };
        assert_eq!(live.ends_in(61_000.0), 540_000);
        assert_eq!(live.ends_in(10_000_000.0), 0);
        assert_eq!(live.ends_in(0.0), 600_000, "a clock that went back");
        assert_eq!(live.name(2), "p2");
        assert_eq!(live.name(9), "#9");
    }

    #[test]
    fn streaks_show_from_two_wins_and_ties_share_a_podium_step() {
        assert!(on_streak(&row(1, 1, 4, 2)));
        assert!(!on_streak(&row(1, 1, 4, 1)));
        let podium = [row(1, 1, 9, 0), row(2, 1, 9, 0), row(3, 3, 5, 0)];
        let [first, second, third] = podium_steps(&podium);
        assert_eq!(first.len(), 2);
        assert!(second.is_empty());
        assert_eq!(third.first().map(|r| r.user), Some(3));
    }

    #[test]
    fn the_kiosk_shows_the_running_event_then_a_recent_podium_then_the_next() {
        let hour = 3_600_000;
        let now = 10 * hour;
        let running = summary("e2", EventPhase::Running, now - hour / 6);
        let done = summary("e1", EventPhase::Finished, now - hour);
        let old = summary("e0", EventPhase::Finished, now - 5 * hour);
        let mut next = summary("e3", EventPhase::Announced, now + hour);
        next.starts_in_ms = hour;
        let cancelled = summary("e4", EventPhase::Cancelled, now);
        let all = [old.clone(), done.clone(), running, next.clone(), cancelled];
        assert_eq!(pick_board(&all, now), BoardPick::Live("e2".into()));
        assert_eq!(
            pick_board(&[old.clone(), done, next.clone()], now),
            BoardPick::Recent("e1".into())
        );
        assert_eq!(
            pick_board(&[old.clone(), next], now),
            BoardPick::Live("e3".into())
        );
        assert_eq!(pick_board(&[old], now), BoardPick::None);
        // The podium for five minutes after the last game (or time up).
        assert!(podium_due(now, None, now + PODIUM_MS - 1));
        assert!(!podium_due(now, None, now + PODIUM_MS));
        assert!(podium_due(now, Some(now + 60_000), now + PODIUM_MS));
    }

    #[test]
    fn later_today_is_the_milliseconds_until_then_and_a_past_time_is_refused() {
        let now = (19 * 60 + 30) * 60_000 + 15_000; // 19:30:15
        assert_eq!(start_in_ms(now, "20:00"), Some(29 * 60_000 + 45_000));
        assert_eq!(
            start_in_ms(now, " 23:59 "),
            Some((4 * 60 + 28) * 60_000 + 45_000)
        );
        assert_eq!(start_in_ms(now, "19:30"), None);
        assert_eq!(start_in_ms(now, "08:00"), None);
        assert_eq!(start_in_ms(now, "24:00"), None);
        assert_eq!(start_in_ms(now, "noon"), None);
    }
}
