//! What each reader sees: the room snapshot for one person (M4; the passcode only to the host,
//! M3.3; the ELO preview, E4), and the lobby row.

use engine::elo;
use engine::{Game, Mark};
use protocol::view::ResultView;
use protocol::{
    ClockView, EloPreview, JoinRequestView, Joining, Phase, PlayerView, RoomKind, RoomSummary,
    RoomView, SeatView, YouView,
};

use super::{Occupant, PlayerKey, Room, Seat};
use crate::settings::{Opponent, Policy};

impl Room {
    /// `mark`'s cells on the board, oldest first: the last of its moves that are still on the
    /// board (all of them in XO, at most three in Infinite XO, R-INF-2). The position itself
    /// keeps XO's marks as a set, so the order comes from the moves.
    fn marks_in_play_order(&self, mark: Mark) -> Vec<engine::Cell> {
        let on_board = self.record.position().marks(mark).len();
        let first = match mark {
            Mark::X => 0,
            Mark::O => 1,
        };
        let mine = self.record.moves().iter().skip(first).step_by(2);
        // The oldest marks have vanished (Infinite XO): skip them rather than collect them.
        let played = mine.clone().count();
        mine.skip(played.saturating_sub(on_board))
            .copied()
            .collect()
    }

    fn kind(&self, reader_is_host: bool) -> RoomKind {
        match &self.settings.opponent {
            Opponent::Player { policy } => RoomKind::Online {
                joining: match policy {
                    Policy::Open => Joining::Open,
                    Policy::Approval => Joining::Approval,
                    // Only the host ever receives the passcode (M3.3).
                    Policy::Passcode(code) => Joining::Passcode {
                        code: reader_is_host.then(|| code.clone()),
                    },
                },
            },
            Opponent::Bot { difficulty, .. } => RoomKind::Bot {
                difficulty: *difficulty,
            },
            Opponent::Local { .. } => RoomKind::Local,
        }
    }

    /// The ELO preview (E4) while a rated game is on and both ratings are known.
    fn elo(&self) -> Option<EloPreview> {
        if !self.is_rated() || self.phase != Phase::Playing {
            return None;
        }
        let x = self.seats[self.seat_with_mark(Mark::X)?].rating?;
        let o = self.seats[self.seat_with_mark(Mark::O)?].rating?;
        let [x_wins, draw, o_wins] = elo::previews(x, o).map(|(a, b)| [a, b]);
        Some(EloPreview {
            x_rating: x,
            o_rating: o,
            x_wins,
            draw,
            o_wins,
        })
    }

    /// The room as the person `key` may see it, at monotonic time `now_ms`.
    pub fn view_for(&self, key: &PlayerKey, now_ms: u64) -> RoomView {
        self.view_with_seats(key, now_ms, self.seat_views())
    }

    /// The two seats as every reader sees them (the `seats` of [`Room::view_for`]).
    pub fn seat_views(&self) -> [SeatView; 2] {
        core::array::from_fn(|i| {
            let seat = &self.seats[i];
            SeatView {
                player: seat.occupant.as_ref().map(|o| PlayerView {
                    player: o.player_ref(),
                    rating: seat.rating,
                    name: o.name_kind(),
                }),
                mark: seat.mark,
                ready: seat.ready,
                present: self.seat_present(seat),
            }
        })
    }

    fn seat_present(&self, seat: &Seat) -> bool {
        match &seat.occupant {
            Some(Occupant::Human { key, .. }) => self.present(key),
            Some(Occupant::Bot { .. }) => true,
            Some(Occupant::Local { .. }) => self.present(&self.host),
            None => false,
        }
    }

    /// Whether [`Room::seat_views`] is `seats`, without making them (names are copied to make
    /// them): the check at every snapshot of whether the room's encoded seats still hold.
    pub fn seats_shown_as(&self, seats: &[SeatView; 2]) -> bool {
        self.seats.iter().zip(seats).all(|(seat, shown)| {
            // Every field, by name: a field added to the seat's view must be compared here too.
            let SeatView {
                player,
                mark,
                ready,
                present,
            } = shown;
            let player_shown = match (&seat.occupant, player) {
                (None, None) => true,
                (
                    Some(occupant),
                    Some(PlayerView {
                        player,
                        rating,
                        name,
                    }),
                ) => {
                    *rating == seat.rating
                        && occupant.is_player_ref(player)
                        && occupant.has_name_kind(name)
                }
                _ => false,
            };
            player_shown
                && *mark == seat.mark
                && *ready == seat.ready
                && *present == self.seat_present(seat)
        })
    }

    /// [`Room::view_for`] with `seats` as its seats: the caller's, when it has them already
    /// (made from [`Room::seat_views`] and checked by [`Room::seats_shown_as`]).
    pub fn view_with_seats(&self, key: &PlayerKey, now_ms: u64, seats: [SeatView; 2]) -> RoomView {
        let is_host = *key == self.host;
        let position = self.record.position();
        let user = match key {
            PlayerKey::User(id) => Some(*id),
            PlayerKey::Guest(_) => None,
        };
        let requests = self
            .requests
            .iter()
            .filter(|(u, _)| is_host || Some(*u) == user)
            .map(|(u, name)| JoinRequestView {
                user: *u,
                name: name.clone(),
            })
            .collect();
        let you = self.you_in(key, position.turn());
        RoomView {
            id: self.id.clone(),
            game: self.settings.game,
            kind: self.kind(is_host),
            phase: self.phase,
            per_move_ms: self.settings.per_move_ms,
            seats,
            x: self.marks_in_play_order(Mark::X),
            o: self.marks_in_play_order(Mark::O),
            turn: position.turn(),
            glowing: position.glowing(),
            moves: self.record.moves().to_vec(),
            clock: self.clock.map(|c| ClockView {
                mark: c.mark,
                remaining_ms: u32::try_from(c.deadline_ms.saturating_sub(now_ms))
                    .unwrap_or(u32::MAX),
                per_move_ms: self.settings.per_move_ms.unwrap_or(0),
                forfeit: self.settings.game == Game::Xo,
            }),
            repetition_warning: self.record.repetition_warning(),
            draw_offer: self.draw_offer,
            requests,
            result: self
                .outcome
                .as_ref()
                .filter(|o| o.announced || o.pending)
                .map(|o| ResultView {
                    end: o.end,
                    rated: o.rated,
                    ratings: o.ratings.clone(),
                    pending: o.pending && !o.announced,
                }),
            elo: self.elo(),
            spectators: self.spectators(),
            can_undo: !self.is_online() && is_host && self.undo_plies() > 0,
            you,
            rematch_offer: self.rematch_offer,
        }
    }

    /// The reader's own place in the room (the `you` of [`Room::view_for`]).
    pub fn you_for(&self, key: &PlayerKey) -> YouView {
        self.you_in(key, self.record.position().turn())
    }

    fn you_in(&self, key: &PlayerKey, turn: Mark) -> YouView {
        let is_host = *key == self.host;
        let user = match key {
            PlayerKey::User(id) => Some(*id),
            PlayerKey::Guest(_) => None,
        };
        YouView {
            seat: match &self.settings.opponent {
                Opponent::Player { .. } => self.seat_of(key).and_then(|s| u8::try_from(s).ok()),
                Opponent::Bot { .. } => is_host.then_some(0),
                Opponent::Local { .. } => None,
            },
            host: is_host,
            to_move: self.phase == Phase::Playing && self.controls(key) == Some(turn),
            requested: self.requests.iter().any(|(u, _)| Some(*u) == user),
        }
    }

    /// Whether every reader's [`Room::view_for`] differs from every other's only in `you`: an
    /// online room (no undo, which is the host's) with no join request (each reader sees only
    /// their own; the host, all) and no passcode (the host's alone). Then one view serves all
    /// of them, with each reader's [`Room::you_for`] (a game in progress always qualifies).
    pub fn views_differ_only_in_you(&self) -> bool {
        matches!(
            &self.settings.opponent,
            Opponent::Player { policy } if !matches!(policy, Policy::Passcode(_))
        ) && self.requests.is_empty()
    }

    /// Whether `key` sees the room exactly as every plain spectator does: not the host, not
    /// seated or in control of a side, and without a join request (the only parts of
    /// [`Room::view_for`] that depend on the reader), so one snapshot serves them all.
    pub fn sees_spectator_view(&self, key: &PlayerKey) -> bool {
        let requested = match key {
            PlayerKey::User(id) => self.requests.iter().any(|(u, _)| u == id),
            PlayerKey::Guest(_) => false,
        };
        *key != self.host
            && self.seat_of(key).is_none()
            && self.controls(key).is_none()
            && !requested
    }

    /// The room's lobby row; never the passcode.
    pub fn summary(&self) -> RoomSummary {
        RoomSummary {
            id: self.id.clone(),
            game: self.settings.game,
            kind: self.kind(false),
            phase: self.phase,
            players: self
                .seats
                .iter()
                .filter_map(|s| s.occupant.as_ref().map(Occupant::name))
                .collect(),
            open_seat: self.is_online()
                && self.phase == Phase::Waiting
                && self.seats[1].occupant.is_none(),
            per_move_ms: self.settings.per_move_ms,
            spectators: self.spectators(),
            names: self
                .seats
                .iter()
                .filter_map(|s| s.occupant.as_ref().map(Occupant::name_kind))
                .collect(),
        }
    }

    /// Whether `listed` is this room's [`Room::summary`], compared without making one: every
    /// snapshot asks whether the lobby's row changed, and a move never changes it (making
    /// the summary's names, made and dropped at every move, were 2 % of the server's work).
    pub fn is_listed_as(&self, listed: &RoomSummary) -> bool {
        // Every field, by name: a field added to the summary must be compared here too.
        let RoomSummary {
            id,
            game,
            kind,
            phase,
            players,
            open_seat,
            per_move_ms,
            spectators,
            names,
        } = listed;
        let seated = || self.seats.iter().filter_map(|s| s.occupant.as_ref());
        *id == self.id
            && *game == self.settings.game
            && *phase == self.phase
            && *per_move_ms == self.settings.per_move_ms
            && *open_seat
                == (self.is_online()
                    && self.phase == Phase::Waiting
                    && self.seats[1].occupant.is_none())
            && *kind == self.kind(false)
            && players.len() == seated().count()
            && players.iter().zip(seated()).all(|(p, o)| o.is_named(p))
            && names.len() == seated().count()
            && names.iter().zip(seated()).all(|(n, o)| o.has_name_kind(n))
            && *spectators == self.spectators()
    }

    /// Whether anyone views the room.
    pub fn is_empty(&self) -> bool {
        self.viewers.is_empty()
    }
}
