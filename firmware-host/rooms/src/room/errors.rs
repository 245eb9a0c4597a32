//! The checks intents share, and which refusal wins when several apply.
//!
//! Every intent is checked in this order, and the first failing check is the one the sender
//! is told:
//!
//! 1. `kicked`: a player the host kicked is refused everything in that room (M3.5).
//! 2. The kind of room: an intent that does not exist in this kind of room (`online_only` for
//!    seat management and draw offers in bot and local games, `undo_unavailable` and
//!    `hint_unavailable` where there is no undo or hint, `not_joinable` for joining a bot or
//!    local game).
//! 3. The sender's role: `spectator` (not a player here), `not_host`, `sign_in_required`.
//! 4. The phase: `not_started`, `already_started`, `game_over`.
//! 5. The intent's own conditions: `not_your_turn`, `no_such_cell`, `cell_occupied`,
//!    `offer_pending`, `room_full`, `wrong_passcode` …
//!
//! So a spectator's `undo` in an online room is `undo_unavailable` (there is no undo there for
//! anyone), and a spectator's `offer_draw` in an online room is `spectator`.

use engine::Mark;
use protocol::Phase;

use super::{Member, PlayerKey, Room};
use crate::refusal::{Reason, Refusal, refuse};
use crate::settings::Opponent;

impl Room {
    /// M3.5: a kicked player can no longer view or rejoin the room.
    pub(super) fn check_not_kicked(&self, member: &Member) -> Result<(), Refusal> {
        if self.kicked.bans(member) {
            return refuse(Reason::Kicked);
        }
        Ok(())
    }

    pub(super) fn check_host_waiting(&self, key: &PlayerKey) -> Result<(), Refusal> {
        if !self.is_online() {
            return refuse(Reason::NoSeatsToManage);
        }
        if *key != self.host {
            return refuse(Reason::NotHost);
        }
        if self.phase != Phase::Waiting {
            return refuse(Reason::OnlyBeforeStart);
        }
        Ok(())
    }

    pub(super) fn check_playing(&self) -> Result<(), Refusal> {
        match self.phase {
            Phase::Waiting => refuse(Reason::NotStarted),
            Phase::Finished => refuse(Reason::GameOver),
            Phase::Playing => Ok(()),
        }
    }

    /// The mark `key` moves for now, or why they cannot move.
    pub(super) fn check_may_move(&self, key: &PlayerKey) -> Result<Mark, Refusal> {
        if !self.is_player(key) {
            return refuse(Reason::SpectatorMove);
        }
        self.check_playing()?;
        let turn = self.record.position().turn();
        if self.controls(key) != Some(turn) {
            return refuse(Reason::NotYourTurn);
        }
        Ok(turn)
    }

    pub(super) fn check_online_player_playing(&self, key: &PlayerKey) -> Result<Mark, Refusal> {
        if !self.is_online() {
            return refuse(Reason::DrawOffersOnline);
        }
        let Some(mark) = self.seat_of(key).and_then(|s| self.seats[s].mark) else {
            return refuse(Reason::SpectatorDraw);
        };
        self.check_playing()?;
        Ok(mark)
    }

    /// The mark that loses by `key` resigning.
    pub(super) fn check_resign(&self, key: &PlayerKey) -> Result<Mark, Refusal> {
        if !self.is_player(key) {
            return refuse(Reason::SpectatorResign);
        }
        self.check_playing()?;
        Ok(match &self.settings.opponent {
            // The device resigns for the player whose turn it is (M2.2).
            Opponent::Local { .. } => self.record.position().turn(),
            _ => self
                .controls(key)
                .expect("a player of an online or bot game holds a mark"),
        })
    }
}
