//! The arena (EV2, EV3, EV5): who is in the event, who waits, the games in progress, the
//! phases, as a pure state machine. Calls change it and return [`Effect`]s for the server to
//! carry out; time comes in as `now_ms` (Unix milliseconds, the clock the event's schedule is
//! in, so that it means the same after a restart).
//!
//! Phases: [`Phase::Announced`] (a countdown; players may join) → [`Phase::Running`] (waves
//! are paired) → [`Phase::Ending`] (time is up: nothing new is paired, games in progress
//! finish and count) → [`Phase::Finished`] (final standings, podium). An announced event may
//! be [`Phase::Cancelled`].
//!
//! A player is paired only while *waiting*: joined and not left, not paused, online, not
//! seated in another room, and not in a game of the event. A wave is paired by
//! [`crate::event::pairing::pair`] once the second-longest-waiting player has waited
//! [`WaveTimes::gather_ms`] (so two or more can be matched well rather than the first two),
//! or at once when [`WaveTimes::crowd`] wait. A game that would repeat a last game, made
//! only because nobody else waits, is held back for up to [`WaveTimes::rematch_wait_ms`] while
//! other players are still in games.
//!
//! # Driving it
//!
//! One task owns the arena (like a room's actor) and is the only caller:
//!
//! - intents from sessions: [`Arena::join`] (with [`Player::signed_in`]), [`Arena::pause`],
//!   [`Arena::resume`], [`Arena::leave`]; the owner's [`Arena::cancel`];
//! - presence from the hub: [`Arena::presence`] when a player's last connection closes or
//!   their first opens, and when they take or leave a seat outside the event (the event's own
//!   rooms are tracked here, never reported as `Elsewhere`);
//! - rooms: [`Arena::seated`] once a paired game's room exists, [`Arena::abort`] if it could
//!   not be made, and at the end [`Arena::result`] (stored with the game) then
//!   [`Arena::record`] after the commit;
//! - time: after every call, sleep until [`Arena::next_deadline`] and then call
//!   [`Arena::tick`]; nothing else needs a timer.

use std::collections::BTreeMap;

use engine::Mark;
use protocol::RoomId;
use protocol::records::{GameEnd, UserId};
use serde::{Deserialize, Serialize};

use crate::event::delta::{StandingsDelta, diff};
use crate::event::pairing::{Candidate, pair};
use crate::event::score::{EventGame, GameNo, Outcome, Row, Sheet, Standings};
use crate::event::setup::{EventLimits, EventSettings};
use crate::room::member::Member;

/// A signed-in player entering the event. Guests have no account id, so there is no
/// `Player` for them ([`Player::signed_in`] refuses one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub user: UserId,
    pub name: String,
    /// Rating on the event's ladder (E1), for pairing and performance.
    pub rating: i32,
}

impl Player {
    /// The player behind `member`, if signed in (EV2: guests watch).
    pub fn signed_in(member: &Member, rating: i32) -> Result<Player, ArenaError> {
        let user = member.user().ok_or(ArenaError::SignInRequired)?;
        Ok(Player {
            user,
            name: member.name.clone(),
            rating,
        })
    }
}

/// The event's phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    Announced,
    Running,
    Ending,
    Finished,
    Cancelled,
}

/// Where a player is, as the server's sessions and seat book say (EV2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Presence {
    /// Connected, and free to be paired.
    Online,
    /// No open connection.
    Offline,
    /// Seated in a room outside the event (M3.4).
    Elsewhere,
}

/// A player's standing in the event apart from points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Status {
    Active,
    Paused,
    /// Withdrew; their games still count and they stay in the table if they played.
    Left,
}

/// Why a call is refused; the arena is unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArenaError {
    /// A guest tried to join.
    SignInRequired,
    /// The player has not joined, or has left.
    NotInEvent,
    /// Joining or pausing after time is up.
    EventOver,
    /// [`EventLimits::max_players`] are in.
    EventFull,
    /// No game of that number is in progress, or the record does not match it.
    UnknownGame,
    /// Cancelling an event that has started.
    AlreadyStarted,
}

impl ArenaError {
    /// What a person is told.
    pub fn words(self) -> &'static str {
        match self {
            ArenaError::SignInRequired => "sign in to play in the event; guests can watch",
            ArenaError::NotInEvent => "you are not in this event",
            ArenaError::EventOver => "the event is over",
            ArenaError::EventFull => "the event is full",
            ArenaError::UnknownGame => "no such game in progress in the event",
            ArenaError::AlreadyStarted => "the event has started and cannot be cancelled",
        }
    }
}

impl core::fmt::Display for ArenaError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.words())
    }
}

impl std::error::Error for ArenaError {}

/// The wire's words for an arena's refusal ([`crate::refusal`]).
impl From<ArenaError> for crate::refusal::Reason {
    fn from(e: ArenaError) -> Self {
        use crate::refusal::Reason;
        match e {
            ArenaError::SignInRequired => Reason::EventSignIn,
            ArenaError::NotInEvent => Reason::NotInEvent,
            ArenaError::EventOver => Reason::EventOver,
            ArenaError::EventFull => Reason::EventFull,
            ArenaError::UnknownGame | ArenaError::AlreadyStarted => {
                Reason::EventOther { why: e.words() }
            }
        }
    }
}

/// How long a wave gathers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WaveTimes {
    /// A wave is paired once the second-longest-waiting player has waited this long: 3 s.
    pub gather_ms: u64,
    /// … or at once when this many wait: 12.
    pub crowd: usize,
    /// A game that would repeat either player's last game, made only because nobody else
    /// waits, is held back this long while other players of the event are in games (they
    /// may be free soon): 10 s.
    pub rematch_wait_ms: u64,
}

impl Default for WaveTimes {
    fn default() -> Self {
        WaveTimes {
            gather_ms: 3_000,
            crowd: 12,
            rematch_wait_ms: 10_000,
        }
    }
}

/// What the server must do after a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// The countdown is over: the event runs until `ends_at_ms`.
    Started { ends_at_ms: u64 },
    /// Create a room for this game (the event's game and clock, rated as the event is), seat
    /// both players with these marks, start it without ready/start, and move both players'
    /// connections in (as `next_room` does), then call [`Arena::seated`]. Report its end
    /// with [`Arena::result`] and [`Arena::record`], or [`Arena::abort`] if it could not be
    /// created.
    Paired {
        game: GameNo,
        x: UserId,
        o: UserId,
        x_rating: i32,
        o_rating: i32,
    },
    /// The standings changed: send this delta to everyone watching the event.
    Standings(StandingsDelta),
    /// Time is up: nothing new is paired; games in progress finish and count.
    TimeUp,
    /// The last game has counted: these are the final podium rows (ties included).
    Ended { podium: Vec<Row> },
    /// The announced event was cancelled.
    Cancelled,
}

/// A game of the event in progress.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenGame {
    pub no: GameNo,
    pub x: UserId,
    pub o: UserId,
    pub x_rating: i32,
    pub o_rating: i32,
    pub paired_at_ms: u64,
    /// The room the game is played in, once the server made it ([`Arena::seated`]).
    pub room: Option<RoomId>,
}

/// One player's entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub player: Player,
    pub status: Status,
    pub presence: Presence,
    /// The event game they are playing.
    pub in_game: Option<GameNo>,
    /// Since when they have been waiting to be paired.
    pub waiting_since: Option<u64>,
    /// Left out of the last wave as the odd one: not again while another can be.
    pub sat_out: bool,
    /// The opponent and mark of their last game (paired, finished or not).
    pub last_opponent: Option<UserId>,
    pub last_mark: Option<Mark>,
    /// Games as X minus games as O.
    pub balance: i32,
}

impl Entry {
    fn new(player: Player) -> Entry {
        Entry {
            player,
            status: Status::Active,
            presence: Presence::Online,
            in_game: None,
            waiting_since: None,
            sat_out: false,
            last_opponent: None,
            last_mark: None,
            balance: 0,
        }
    }

    /// May be paired now (phase aside).
    pub fn is_waiting(&self) -> bool {
        self.status == Status::Active && self.presence == Presence::Online && self.in_game.is_none()
    }
}

/// One arena event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arena {
    pub(crate) settings: EventSettings,
    pub(crate) limits: EventLimits,
    pub(crate) times: WaveTimes,
    pub(crate) seed: u64,
    pub(crate) phase: Phase,
    pub(crate) entries: BTreeMap<UserId, Entry>,
    /// Every player in the table: entrants still in, and anyone who played.
    pub(crate) sheets: BTreeMap<UserId, Sheet>,
    pub(crate) games: Vec<EventGame>,
    pub(crate) open: BTreeMap<GameNo, OpenGame>,
    pub(crate) next_game: GameNo,
    pub(crate) waves: u64,
    /// Rematches held back by the last wave: no wave before this time while the same number
    /// of players wait.
    pub(crate) held: Option<(u64, usize)>,
    /// The table as last announced ([`Effect::Standings`] deltas lead to it).
    pub(crate) standings: Standings,
}

impl Arena {
    /// A new event, announced. Call [`Arena::tick`] at once: an event starting now starts.
    /// `seed` makes every pairing of the event reproducible.
    pub fn new(settings: EventSettings, limits: EventLimits, times: WaveTimes, seed: u64) -> Arena {
        Arena {
            settings,
            limits,
            times,
            seed,
            phase: Phase::Announced,
            entries: BTreeMap::new(),
            sheets: BTreeMap::new(),
            games: Vec::new(),
            open: BTreeMap::new(),
            next_game: 1,
            waves: 0,
            held: None,
            standings: Standings::default(),
        }
    }

    pub fn settings(&self) -> &EventSettings {
        &self.settings
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The table as last announced.
    pub fn standings(&self) -> &Standings {
        &self.standings
    }

    /// Finished games, in the order they were recorded.
    pub fn games(&self) -> &[EventGame] {
        &self.games
    }

    /// Games in progress, by number.
    pub fn open_games(&self) -> impl Iterator<Item = &OpenGame> {
        self.open.values()
    }

    pub fn entry(&self, user: UserId) -> Option<&Entry> {
        self.entries.get(&user)
    }

    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.values()
    }

    /// Players in the event (joined and not left).
    pub fn player_count(&self) -> usize {
        self.entries
            .values()
            .filter(|e| e.status != Status::Left)
            .count()
    }

    fn may_join(&self) -> Result<(), ArenaError> {
        match self.phase {
            Phase::Announced | Phase::Running => Ok(()),
            Phase::Ending | Phase::Finished | Phase::Cancelled => Err(ArenaError::EventOver),
        }
    }

    /// EV2: joins (or rejoins after leaving, or comes back from a pause) while the event is
    /// announced or running.
    pub fn join(&mut self, player: Player, now_ms: u64) -> Result<Vec<Effect>, ArenaError> {
        self.may_join()?;
        let user = player.user;
        match self.entries.get_mut(&user) {
            Some(entry) => {
                entry.player.name = player.name;
                entry.status = Status::Active;
            }
            None => {
                if self.player_count() >= self.limits.max_players {
                    return Err(ArenaError::EventFull);
                }
                self.entries.insert(user, Entry::new(player));
            }
        }
        self.sheets.entry(user).or_default();
        self.refresh(user, now_ms);
        Ok(self.publish())
    }

    /// EV2: not paired until [`Arena::resume`]; a game in progress goes on.
    pub fn pause(&mut self, user: UserId, now_ms: u64) -> Result<Vec<Effect>, ArenaError> {
        self.set_status(user, Status::Paused, now_ms)
    }

    /// EV2: paired again.
    pub fn resume(&mut self, user: UserId, now_ms: u64) -> Result<Vec<Effect>, ArenaError> {
        self.set_status(user, Status::Active, now_ms)
    }

    /// EV2: withdraws. A game in progress goes on and counts; a player who never played
    /// leaves the table.
    pub fn leave(&mut self, user: UserId, now_ms: u64) -> Result<Vec<Effect>, ArenaError> {
        let fx = self.set_status(user, Status::Left, now_ms)?;
        self.forget_if_unplayed(user);
        Ok(fx.into_iter().chain(self.publish()).collect())
    }

    fn set_status(
        &mut self,
        user: UserId,
        status: Status,
        now_ms: u64,
    ) -> Result<Vec<Effect>, ArenaError> {
        if self
            .entries
            .get(&user)
            .is_none_or(|e| e.status == Status::Left)
        {
            return Err(ArenaError::NotInEvent);
        }
        if status != Status::Left {
            self.may_join()?;
        }
        if let Some(entry) = self.entries.get_mut(&user) {
            entry.status = status;
        }
        self.refresh(user, now_ms);
        Ok(Vec::new())
    }

    /// A player out of the event with no game played and none in progress has no row.
    fn forget_if_unplayed(&mut self, user: UserId) {
        let gone = self
            .entries
            .get(&user)
            .is_some_and(|e| e.status == Status::Left && e.in_game.is_none());
        if gone && self.sheets.get(&user).is_some_and(|s| s.games == 0) {
            self.sheets.remove(&user);
        }
    }

    /// EV2: the player's connections or seat changed. Unknown players are ignored.
    pub fn presence(&mut self, user: UserId, presence: Presence, now_ms: u64) {
        if let Some(entry) = self.entries.get_mut(&user) {
            entry.presence = presence;
            self.refresh(user, now_ms);
        }
    }

    /// The player's rating on the event's ladder changed (after a rated game).
    pub fn set_rating(&mut self, user: UserId, rating: i32) {
        if let Some(entry) = self.entries.get_mut(&user) {
            entry.player.rating = rating;
        }
    }

    /// Starts or stops a player's wait to match whether they may be paired now.
    fn refresh(&mut self, user: UserId, now_ms: u64) {
        if let Some(entry) = self.entries.get_mut(&user) {
            if !entry.is_waiting() {
                entry.waiting_since = None;
                entry.sat_out = false;
            } else if entry.waiting_since.is_none() {
                entry.waiting_since = Some(now_ms);
            }
        }
    }

    /// The server made game `no`'s room: shown on the board as a game to watch (EV6), and
    /// kept for a restart (EV7).
    pub fn seated(&mut self, no: GameNo, room: RoomId) -> Result<(), ArenaError> {
        let open = self.open.get_mut(&no).ok_or(ArenaError::UnknownGame)?;
        open.room = Some(room);
        Ok(())
    }

    /// The record of game `no` ended by `end` in `room`: what to store with the game's result
    /// (EV4: in the same transaction), then pass to [`Arena::record`]. Changes nothing.
    pub fn result(
        &self,
        no: GameNo,
        room: RoomId,
        end: GameEnd,
        now_ms: u64,
    ) -> Result<EventGame, ArenaError> {
        let open = self.open.get(&no).ok_or(ArenaError::UnknownGame)?;
        if open.room.as_ref().is_some_and(|r| *r != room) {
            return Err(ArenaError::UnknownGame);
        }
        let sheet = |u: UserId| self.sheets.get(&u).copied().unwrap_or_default();
        Ok(EventGame {
            no,
            room,
            x: open.x,
            o: open.o,
            x_rating: open.x_rating,
            o_rating: open.o_rating,
            end,
            x_points: sheet(open.x).points_for(Outcome::of(end, Mark::X)),
            o_points: sheet(open.o).points_for(Outcome::of(end, Mark::O)),
            ended_at_ms: now_ms,
        })
    }

    /// Counts a finished game (after it was stored): standings change, its players wait
    /// again; the last game after time is up ends the event.
    pub fn record(&mut self, game: EventGame, now_ms: u64) -> Result<Vec<Effect>, ArenaError> {
        let open = self.open.get(&game.no).ok_or(ArenaError::UnknownGame)?;
        if (open.x, open.o, open.x_rating, open.o_rating)
            != (game.x, game.o, game.x_rating, game.o_rating)
        {
            return Err(ArenaError::UnknownGame);
        }
        self.open.remove(&game.no);
        crate::event::score::score_game(&mut self.sheets, &game);
        for user in [game.x, game.o] {
            if let Some(entry) = self.entries.get_mut(&user) {
                entry.in_game = None;
            }
            self.refresh(user, now_ms);
        }
        self.games.push(game);
        let mut fx = self.publish();
        fx.extend(self.finish_if_done());
        Ok(fx)
    }

    /// [`Arena::result`] then [`Arena::record`], for a caller with nothing to store.
    pub fn game_finished(
        &mut self,
        no: GameNo,
        room: RoomId,
        end: GameEnd,
        now_ms: u64,
    ) -> Result<Vec<Effect>, ArenaError> {
        let game = self.result(no, room, end, now_ms)?;
        self.record(game, now_ms)
    }

    /// The room for game `no` could not be made (a player took a seat elsewhere meanwhile):
    /// the pairing is forgotten, as if never made, and its players wait again.
    pub fn abort(&mut self, no: GameNo, now_ms: u64) -> Result<Vec<Effect>, ArenaError> {
        let open = self.open.remove(&no).ok_or(ArenaError::UnknownGame)?;
        for (user, mark) in [(open.x, Mark::X), (open.o, Mark::O)] {
            if let Some(entry) = self.entries.get_mut(&user) {
                entry.in_game = None;
                entry.balance -= if mark == Mark::X { 1 } else { -1 };
            }
        }
        // The last game of each is now the one before; rebuilt from the record.
        for user in [open.x, open.o] {
            let last = self.last_game_of(user);
            if let Some(entry) = self.entries.get_mut(&user) {
                (entry.last_opponent, entry.last_mark) = last.unzip();
            }
            self.forget_if_unplayed(user);
            self.refresh(user, now_ms);
        }
        let mut fx = self.publish();
        fx.extend(self.finish_if_done());
        Ok(fx)
    }

    /// The opponent and mark of `user`'s latest game, in progress or finished.
    fn last_game_of(&self, user: UserId) -> Option<(UserId, Mark)> {
        let latest = |x: UserId, o: UserId, no: GameNo| {
            if x == user {
                Some((no, o, Mark::X))
            } else if o == user {
                Some((no, x, Mark::O))
            } else {
                None
            }
        };
        self.games
            .iter()
            .filter_map(|g| latest(g.x, g.o, g.no))
            .chain(self.open.values().filter_map(|g| latest(g.x, g.o, g.no)))
            .max_by_key(|(no, ..)| *no)
            .map(|(_, opp, mark)| (opp, mark))
    }

    /// EV1: an announced event may be cancelled.
    pub fn cancel(&mut self) -> Result<Vec<Effect>, ArenaError> {
        if self.phase != Phase::Announced {
            return Err(ArenaError::AlreadyStarted);
        }
        self.phase = Phase::Cancelled;
        Ok(vec![Effect::Cancelled])
    }

    /// The waiting players, as pairing sees them, in user order.
    pub fn candidates(&self) -> Vec<Candidate> {
        self.entries
            .values()
            .filter(|e| e.is_waiting())
            .map(|e| Candidate {
                user: e.player.user,
                points: self.sheets.get(&e.player.user).map_or(0, |s| s.points),
                rating: e.player.rating,
                last_opponent: e.last_opponent,
                balance: e.balance,
                last_mark: e.last_mark,
                sat_out: e.sat_out,
            })
            .collect()
    }

    /// When the next wave is due, if two or more are waiting and the event runs.
    fn wave_due(&self) -> Option<u64> {
        if self.phase != Phase::Running {
            return None;
        }
        let mut since: Vec<u64> = self
            .entries
            .values()
            .filter(|e| e.is_waiting())
            .filter_map(|e| e.waiting_since)
            .collect();
        if since.len() < 2 {
            return None;
        }
        since.sort_unstable();
        let due = if since.len() >= self.times.crowd {
            since[0]
        } else {
            since[1].saturating_add(self.times.gather_ms)
        };
        Some(match self.held {
            Some((until, waiting)) if waiting == since.len() => due.max(until),
            _ => due,
        })
    }

    /// The next moment [`Arena::tick`] has something to do: the start, the end, or a wave.
    pub fn next_deadline(&self) -> Option<u64> {
        match self.phase {
            Phase::Announced => Some(self.settings.starts_at_ms),
            Phase::Running => Some(self.wave_due().map_or(self.settings.ends_at_ms(), |w| {
                w.min(self.settings.ends_at_ms())
            })),
            Phase::Ending | Phase::Finished | Phase::Cancelled => None,
        }
    }

    /// Moves time on: starts the event, pairs a wave that is due, ends the event.
    pub fn tick(&mut self, now_ms: u64) -> Vec<Effect> {
        let mut fx = Vec::new();
        if self.phase == Phase::Announced && now_ms >= self.settings.starts_at_ms {
            self.phase = Phase::Running;
            fx.push(Effect::Started {
                ends_at_ms: self.settings.ends_at_ms(),
            });
        }
        if self.phase == Phase::Running && now_ms >= self.settings.ends_at_ms() {
            self.phase = Phase::Ending;
            fx.push(Effect::TimeUp);
        }
        // Also after a restore: an event saved while ending whose last games have since
        // been stored (or were lost) is over.
        if self.phase == Phase::Ending {
            fx.extend(self.finish_if_done());
        }
        if self.wave_due().is_some_and(|due| now_ms >= due) {
            self.pair_wave(now_ms, &mut fx);
        }
        fx
    }

    fn pair_wave(&mut self, now_ms: u64, fx: &mut Vec<Effect>) {
        self.waves += 1;
        let candidates = self.candidates();
        let wave = pair(&candidates, wave_seed(self.seed, self.waves));
        self.held = None;
        let is_rematch = |g: &crate::event::pairing::Game| {
            let last = |u: UserId| self.entries.get(&u).and_then(|e| e.last_opponent);
            last(g.x) == Some(g.o) || last(g.o) == Some(g.x)
        };
        // Rematches last, so that players paired by this wave count as playing.
        let (rematches, games): (Vec<_>, Vec<_>) = wave.games.into_iter().partition(is_rematch);
        let mut hold_until: Option<u64> = None;
        for game in games.into_iter().chain(rematches) {
            if let Some(until) = self.hold_back(&game, now_ms) {
                hold_until = Some(hold_until.map_or(until, |u| u.min(until)));
                continue;
            }
            let no = self.next_game;
            self.next_game += 1;
            let rating = |u: UserId| self.entries.get(&u).map_or(0, |e| e.player.rating);
            let open = OpenGame {
                no,
                x: game.x,
                o: game.o,
                x_rating: rating(game.x),
                o_rating: rating(game.o),
                paired_at_ms: now_ms,
                room: None,
            };
            for (user, opponent, mark) in [(game.x, game.o, Mark::X), (game.o, game.x, Mark::O)] {
                let entry = self
                    .entries
                    .get_mut(&user)
                    .expect("candidates are entrants");
                entry.in_game = Some(no);
                entry.waiting_since = None;
                entry.sat_out = false;
                entry.last_opponent = Some(opponent);
                entry.last_mark = Some(mark);
                entry.balance += if mark == Mark::X { 1 } else { -1 };
            }
            fx.push(Effect::Paired {
                game: no,
                x: open.x,
                o: open.o,
                x_rating: open.x_rating,
                o_rating: open.o_rating,
            });
            self.open.insert(no, open);
        }
        if let Some(user) = wave.sits_out {
            if let Some(entry) = self.entries.get_mut(&user) {
                entry.sat_out = true;
            }
        }
        if let Some(until) = hold_until {
            let waiting = self.entries.values().filter(|e| e.is_waiting()).count();
            self.held = Some((until, waiting));
        }
    }

    /// Whether `game`, a rematch, should wait for other players until the returned time.
    fn hold_back(&self, game: &crate::event::pairing::Game, now_ms: u64) -> Option<u64> {
        let last = |u: UserId| self.entries.get(&u).and_then(|e| e.last_opponent);
        if last(game.x) != Some(game.o) && last(game.o) != Some(game.x) {
            return None;
        }
        let others_playing = self
            .entries
            .values()
            .any(|e| e.in_game.is_some() && e.status == Status::Active);
        let since = [game.x, game.o]
            .iter()
            .filter_map(|u| self.entries.get(u).and_then(|e| e.waiting_since))
            .min()?;
        let until = since.saturating_add(self.times.rematch_wait_ms);
        (others_playing && now_ms < until).then_some(until)
    }

    fn finish_if_done(&mut self) -> Vec<Effect> {
        if self.phase != Phase::Ending || !self.open.is_empty() {
            return Vec::new();
        }
        self.phase = Phase::Finished;
        vec![Effect::Ended {
            podium: self.standings.podium(),
        }]
    }

    /// The table now, from the sheets kept game by game.
    pub fn live_standings(&self) -> Standings {
        Standings::from_sheets(self.sheets.iter().map(|(u, s)| (*u, s)))
    }

    /// Recomputes the table and announces what changed, if anything.
    fn publish(&mut self) -> Vec<Effect> {
        let now = self.live_standings();
        let delta = diff(&self.standings, &now);
        self.standings = now;
        if delta.is_empty() {
            Vec::new()
        } else {
            vec![Effect::Standings(delta)]
        }
    }
}

/// Each wave's own seed from the event's.
fn wave_seed(seed: u64, wave: u64) -> u64 {
    seed.rotate_left(17) ^ wave.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}
