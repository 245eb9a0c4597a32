//! M3.3: wrong passcodes tried in one room, so that four digits cannot be guessed at the message
//! rate. A player who fails too often in the window waits; all players together have a larger
//! room-wide budget.
//!
//! This is the only memory a refusal leaves in a room: a `wrong_passcode` refusal records the
//! failure here, and nothing else in the room changes.

use std::collections::{HashMap, VecDeque};

use protocol::records::UserId;

/// How many wrong passcodes are allowed, and over how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PasscodeLimits {
    /// Wrong passcodes one player may try within the window.
    pub per_player: usize,
    /// Wrong passcodes all players together may try within the window.
    pub per_room: usize,
    pub window_ms: u64,
}

impl Default for PasscodeLimits {
    fn default() -> Self {
        PasscodeLimits {
            per_player: 5,
            per_room: 50,
            window_ms: 5 * 60 * 1000,
        }
    }
}

/// The times (room milliseconds) of the failures still inside the window, per player and for
/// the whole room.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Passcodes {
    pub(crate) limits: PasscodeLimits,
    per_user: HashMap<UserId, VecDeque<u64>>,
    room: VecDeque<u64>,
}

/// Players remembered at most; past it, those whose failures have all left the window are
/// forgotten.
const REMEMBERED_PLAYERS: usize = 1000;

impl Passcodes {
    fn forget_old(times: &mut VecDeque<u64>, now_ms: u64, window_ms: u64) {
        while times
            .front()
            .is_some_and(|&t| now_ms.saturating_sub(t) >= window_ms)
        {
            times.pop_front();
        }
    }

    /// How long `user` must wait before trying again, if locked out: by their own failures, or
    /// by the room-wide budget once they have failed at least once in the window. A player who
    /// has not failed (the friend with the right code) is never held by others' guesses.
    pub(crate) fn locked(&mut self, user: UserId, now_ms: u64) -> Option<u64> {
        let PasscodeLimits {
            per_player,
            per_room,
            window_ms,
        } = self.limits;
        Self::forget_old(&mut self.room, now_ms, window_ms);
        let times = self.per_user.get_mut(&user)?;
        Self::forget_old(times, now_ms, window_ms);
        let oldest_mine = *times.front()?;
        let mut wait = None;
        if times.len() >= per_player {
            wait = Some(oldest_mine + window_ms - now_ms);
        }
        if self.room.len() >= per_room {
            let room = self.room.front().map(|&t| t + window_ms - now_ms);
            wait = wait.max(room);
        }
        wait
    }

    /// Records a wrong passcode from `user`.
    pub(crate) fn failed(&mut self, user: UserId, now_ms: u64) {
        let PasscodeLimits {
            per_player,
            per_room,
            window_ms,
        } = self.limits;
        // Bounded: the per-user lists are trimmed to the limit, and players who leave the
        // window are forgotten when the map grows.
        if self.per_user.len() > REMEMBERED_PLAYERS {
            self.per_user.retain(|_, t| {
                t.back()
                    .is_some_and(|&t| now_ms.saturating_sub(t) < window_ms)
            });
        }
        let times = self.per_user.entry(user).or_default();
        times.push_back(now_ms);
        while times.len() > per_player {
            times.pop_front();
        }
        self.room.push_back(now_ms);
        while self.room.len() > per_room {
            self.room.pop_front();
        }
    }

    /// Forgets every failure (for comparing rooms apart from this memory).
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn forget(&mut self) {
        self.per_user.clear();
        self.room.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> PasscodeLimits {
        PasscodeLimits {
            per_player: 3,
            per_room: 5,
            window_ms: 1_000,
        }
    }

    #[test]
    fn player_locked_after_limit_until_oldest_failure_leaves_window() {
        let mut p = Passcodes {
            limits: limits(),
            ..Passcodes::default()
        };
        for t in [0, 100, 200] {
            assert_eq!(p.locked(1, t), None);
            p.failed(1, t);
        }
        assert_eq!(p.locked(1, 300), Some(700));
        assert_eq!(p.locked(1, 999), Some(1));
        assert_eq!(
            p.locked(1, 1_000),
            None,
            "the first failure left the window"
        );
    }

    #[test]
    fn room_wide_budget_holds_players_who_have_failed() {
        let mut p = Passcodes {
            limits: limits(),
            ..Passcodes::default()
        };
        for (user, t) in [(1, 0), (2, 10), (3, 20), (4, 30), (5, 40)] {
            p.failed(user, t);
        }
        assert_eq!(p.locked(5, 50), Some(950), "one failure, room budget spent");
        assert_eq!(p.locked(5, 1_000), None);
    }

    /// 50 wrong codes from several accounts locked everyone out, the friend with
    /// the right code included.
    #[test]
    fn player_without_failed_attempts_is_never_refused_by_the_room_wide_lock() {
        let mut p = Passcodes::default();
        let accounts = 10;
        for n in 0..p.limits.per_room as u64 {
            p.failed(n % accounts, n);
        }
        assert!(p.locked(0, 100).is_some(), "the guessers are held");
        assert_eq!(p.locked(999, 100), None, "the friend is not");
    }

    #[test]
    fn remembered_players_are_bounded() {
        let mut p = Passcodes::default();
        let far = p.limits.window_ms * 2;
        for user in 0..=REMEMBERED_PLAYERS as u64 {
            p.failed(user, 0);
        }
        p.failed(9_999_999, far);
        assert_eq!(p.per_user.len(), 1);
        assert!(p.room.len() <= p.limits.per_room);
    }
}
