//! Seating and viewing: open and close (M4, M3.10), join by policy (M3.3) with one seat per
//! player (M3.4), requests, kick (M3.5), ready and start (M3.6), exit (M3.9, M2.3), and the seat
//! reopened when its player moved to another room (M3.4).
//!
//! A player sits in at most one *online* room that is waiting or playing; bot and local games
//! are not in the seat book and never make `already_seated`. When a player's waiting seat is
//! left for a seat elsewhere (an open or passcode join, or an accepted request), the old room
//! reopens it and sends that player `seat_moved` (to all of their connections); a host's
//! waiting room closes instead (`room_closed`, `host_left`).

use engine::Mark;
use protocol::records::{GameEnd, UserId};
use protocol::{CloseReason, Event, Phase};
use rand::{Rng, RngExt};

use super::{Audience, ConnId, Ctx, Effect, Member, Occupant, PlayerKey, Room, Seat};
use crate::refusal::{Reason, Refusal, refuse};
use crate::seats::SeatBook;
use crate::settings::{Opponent, Policy};

impl Room {
    /// M4: anyone not kicked may view; a seated player's presence returns (M3.10).
    pub(super) fn open(&mut self, from: &Member, fx: &mut Vec<Effect>) -> Result<(), Refusal> {
        self.viewers.insert(from.conn, from.key.clone());
        fx.push(Effect::Changed);
        Ok(())
    }

    /// Stops viewing: presence only.
    pub(super) fn close(&mut self, from: &Member, fx: &mut Vec<Effect>) -> Result<(), Refusal> {
        if self.viewers.remove(&from.conn).is_none() {
            return refuse(Reason::NotViewing);
        }
        fx.extend([Effect::Detach { conn: from.conn }, Effect::Changed]);
        Ok(())
    }

    /// M3.3: the requester withdraws their pending request.
    pub(super) fn cancel_request(
        &mut self,
        from: &Member,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let user = from.user();
        let Some(i) = self.requests.iter().position(|(u, _)| Some(*u) == user) else {
            return refuse(Reason::NoOwnRequest);
        };
        self.requests.remove(i);
        fx.push(Effect::Changed);
        Ok(())
    }

    /// M3.3: the host declines a pending request; the requester is told.
    pub(super) fn decline(
        &mut self,
        from: &Member,
        user: UserId,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        self.check_host_waiting(&from.key)?;
        let Some(i) = self.requests.iter().position(|(u, _)| *u == user) else {
            return refuse(Reason::NoRequestFrom);
        };
        self.requests.remove(i);
        fx.push(Effect::Event {
            to: Audience::Person(PlayerKey::User(user)),
            event: Event::RequestDeclined {
                room: self.id.clone(),
            },
        });
        fx.push(Effect::Changed);
        Ok(())
    }

    /// M3.5: before play the host removes the seated player, who can no longer view or rejoin.
    pub(super) fn kick<R: Rng>(
        &mut self,
        from: &Member,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        self.check_host_waiting(&from.key)?;
        let Some(Occupant::Human { key: guest, .. }) = self.seats[1].occupant.clone() else {
            return refuse(Reason::SeatTwoEmpty);
        };
        self.seats[1] = Seat::default();
        if let PlayerKey::User(id) = guest {
            ctx.seats.release(id, &self.id);
        }
        fx.push(Effect::Event {
            to: Audience::Person(guest.clone()),
            event: Event::Kicked {
                room: self.id.clone(),
            },
        });
        for conn in self.conns_of(&guest) {
            self.viewers.remove(&conn);
            fx.push(Effect::Detach { conn });
        }
        // The person is banned, not only the account: signed out in the same browser they are
        // still refused.
        if let PlayerKey::User(id) = guest
            && let Some(badge) = self.badges.remove(&id)
        {
            self.kicked.keys.insert(PlayerKey::Guest(badge.guest_id));
            self.kicked.devices.extend(badge.device);
        }
        self.kicked.keys.insert(guest);
        fx.push(Effect::Changed);
        Ok(())
    }

    /// M3.6: a seated player toggles ready before play.
    pub(super) fn ready(
        &mut self,
        from: &Member,
        ready: bool,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let Some(seat) = self.seat_of(&from.key).filter(|_| self.is_online()) else {
            return refuse(Reason::SpectatorReady);
        };
        if self.phase != Phase::Waiting {
            return refuse(Reason::AlreadyStarted);
        }
        self.seats[seat].ready = ready;
        fx.push(Effect::Changed);
        Ok(())
    }

    pub(super) fn join<R: Rng>(
        &mut self,
        from: &Member,
        passcode: Option<String>,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let Opponent::Player { policy } = &self.settings.opponent else {
            return refuse(Reason::NotJoinable);
        };
        let Some(user) = from.user() else {
            return refuse(Reason::SignInToJoin);
        };
        if self.seat_of(&from.key).is_some() {
            return refuse(Reason::AlreadyHere);
        }
        if self.phase != Phase::Waiting {
            return refuse(Reason::AlreadyStarted);
        }
        if self.seats[1].occupant.is_some() {
            return refuse(Reason::RoomFull);
        }
        if let Some(place) = ctx
            .seats
            .place(user)
            .filter(|p| p.room != self.id && p.active)
        {
            return refuse(Reason::PlayingElsewhere { room: place.room });
        }
        match policy {
            Policy::Approval => {
                if self.requests.iter().any(|(u, _)| *u == user) {
                    return refuse(Reason::AlreadyRequested);
                }
                self.requests.push((user, from.name.clone()));
                self.remember_badge(user, from);
                self.viewers.insert(from.conn, from.key.clone());
                fx.push(Effect::Event {
                    to: Audience::Person(self.host.clone()),
                    event: Event::JoinRequested {
                        room: self.id.clone(),
                        user,
                        name: from.name.clone(),
                    },
                });
                fx.push(Effect::Changed);
                return Ok(());
            }
            Policy::Passcode(code) => match passcode {
                None => {
                    return refuse(Reason::PasscodeRequired);
                }
                Some(given) => {
                    if let Some(wait_ms) = self.passcodes.locked(user, ctx.now_ms) {
                        let secs = wait_ms.div_ceil(1000).max(1);
                        return refuse(Reason::PasscodeLockedOut { secs });
                    }
                    if given != *code {
                        self.passcodes.failed(user, ctx.now_ms);
                        return refuse(Reason::WrongPasscode);
                    }
                }
            },
            Policy::Open => {}
        }
        self.seat_guest(user, from.name.clone(), ctx, fx)?;
        self.remember_badge(user, from);
        self.viewers.insert(from.conn, from.key.clone());
        fx.push(Effect::Changed);
        Ok(())
    }

    /// Keeps the browser of `user`, who asked for seat 2, for a kick to ban (M3.5); only for
    /// the seated player and pending requests, so the map stays as small as they are.
    fn remember_badge(&mut self, user: UserId, from: &Member) {
        self.badges.insert(user, super::Badge::of(from));
        let seated = self.seated_users();
        let requests = &self.requests;
        self.badges
            .retain(|u, _| seated.contains(u) || requests.iter().any(|(r, _)| r == u));
    }

    pub(super) fn accept<R: Rng>(
        &mut self,
        from: &Member,
        user: UserId,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        self.check_host_waiting(&from.key)?;
        let Some(i) = self.requests.iter().position(|(u, _)| *u == user) else {
            return refuse(Reason::NoRequestFrom);
        };
        if self.seats[1].occupant.is_some() {
            return refuse(Reason::RoomFull);
        }
        let name = self.requests[i].1.clone();
        self.seat_guest(user, name, ctx, fx)?;
        self.requests.remove(i);
        fx.push(Effect::Changed);
        Ok(())
    }

    /// Puts `user` in seat 2, claiming them in the seat book (M3.4). The last check that can
    /// fail, so callers change nothing before it.
    fn seat_guest<R: Rng>(
        &mut self,
        user: UserId,
        name: String,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        match ctx.seats.claim(user, &self.id, true) {
            Ok(moved_from) => {
                if let Some(from) = moved_from {
                    fx.push(Effect::Vacate { user, from });
                }
            }
            Err(place) => {
                return refuse(Reason::OtherPlayerInGame { room: place.room });
            }
        }
        self.seats[1] = Seat {
            occupant: Some(Occupant::Human {
                key: PlayerKey::User(user),
                name,
            }),
            mark: None,
            ready: false,
            rating: None,
        };
        fx.push(Effect::LoadRatings(self.seated_users()));
        Ok(())
    }

    pub(super) fn start<R: Rng>(
        &mut self,
        key: &PlayerKey,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        self.check_host_waiting(key)?;
        if self.seats[1].occupant.is_none() {
            return refuse(Reason::WaitForSecondPlayer);
        }
        if !(self.seats[0].ready && self.seats[1].ready) {
            return refuse(Reason::NotReady);
        }
        // M3.4: a player who has just taken a seat in another room still shows here until that
        // room's message reopens this seat; the game must not start with them. Checked and
        // marked active in one step of the seat book, so no move can slip in between.
        if let Err(gone) = ctx.seats.activate(&self.id, &self.seated_users()) {
            return if PlayerKey::User(gone) == self.host {
                refuse(Reason::SeatedElsewhere)
            } else {
                refuse(Reason::OpponentSeatedElsewhere)
            };
        }
        // Charged after the seat check, so a refused start costs nothing; the
        // seats marked active just above are released again when the budget refuses.
        if let Err(refusal) = self.admit_rated(ctx) {
            ctx.seats.set_active(&self.id, false);
            return Err(refusal);
        }
        // M3.6: X and O at random; X moves first.
        let host_mark = if ctx.rng.random_bool(0.5) {
            Mark::X
        } else {
            Mark::O
        };
        self.seats[0].mark = Some(host_mark);
        self.seats[1].mark = Some(host_mark.other());
        self.phase = Phase::Playing;
        self.requests.clear();
        self.started_at_ms = ctx.wall_ms;
        self.restart_clock(ctx.now_ms);
        fx.push(Effect::LoadRatings(self.seated_users()));
        fx.push(Effect::Changed);
        Ok(())
    }

    pub(super) fn exit<R: Rng>(
        &mut self,
        from: &Member,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let key = &from.key;
        match (self.phase, self.is_online(), self.is_player(key)) {
            // M3.9: Exit during active play is a resignation; the player stays in the roster.
            (Phase::Playing, true, true) => {
                let loser = self.check_resign(key)?;
                self.finish(GameEnd::Resigned { loser }, ctx, fx);
                self.viewers.remove(&from.conn);
                fx.push(Effect::Detach { conn: from.conn });
            }
            // M2.3: leaving a bot or local game ends it, unrated and unrecorded.
            (Phase::Playing | Phase::Finished, false, true) => {
                self.viewers.remove(&from.conn);
                fx.push(Effect::Detach { conn: from.conn });
                fx.push(Effect::Close(CloseReason::Ended));
            }
            // M3.9: the host leaving a waiting room closes it.
            (Phase::Waiting, true, true) if *key == self.host => {
                for user in self.seated_users() {
                    ctx.seats.release(user, &self.id);
                }
                self.viewers.remove(&from.conn);
                fx.push(Effect::Detach { conn: from.conn });
                fx.push(Effect::Close(CloseReason::HostLeft));
            }
            (Phase::Waiting, true, true) => {
                if let PlayerKey::User(user) = key {
                    ctx.seats.release(*user, &self.id);
                }
                self.seats[1] = Seat::default();
                for conn in self.conns_of(key) {
                    self.viewers.remove(&conn);
                    fx.push(Effect::Detach { conn });
                }
            }
            // A spectator, a requester (whose request goes with them), or a player of a
            // finished game leaves.
            _ => {
                let requested = from
                    .user()
                    .is_some_and(|user| self.requests.iter().any(|(u, _)| *u == user));
                let viewing = self.viewers.contains_key(&from.conn);
                if !viewing && !requested {
                    return refuse(Reason::NotInThisRoom);
                }
                if let Some(user) = from.user() {
                    self.requests.retain(|(u, _)| *u != user);
                }
                if self.viewers.remove(&from.conn).is_some() {
                    fx.push(Effect::Detach { conn: from.conn });
                }
            }
        }
        fx.push(Effect::Changed);
        Ok(())
    }

    /// Ends a connection's presence (it closed). Never refused.
    pub fn disconnect(&mut self, conn: ConnId) -> Vec<Effect> {
        if self.viewers.remove(&conn).is_some() {
            vec![Effect::Changed]
        } else {
            Vec::new()
        }
    }

    /// M3.4: `user` took a seat in room `to` (joined it or was accepted); reopen their waiting
    /// seat here and tell them `seat_moved`, or close the room when they were its host.
    pub fn vacate(&mut self, user: UserId, to: &str, ctx_seats: &mut dyn SeatBook) -> Vec<Effect> {
        let key = PlayerKey::User(user);
        let mut fx = Vec::new();
        self.requests.retain(|(u, _)| *u != user);
        if self.phase != Phase::Waiting {
            return fx;
        }
        if key == self.host {
            if let Some(guest) = self.seats[1].occupant.as_ref().and_then(Occupant::user) {
                ctx_seats.release(guest, &self.id);
            }
            fx.push(Effect::Close(CloseReason::HostLeft));
            return fx;
        }
        if self.seat_of(&key) == Some(1) {
            self.seats[1] = Seat::default();
            fx.push(Effect::Event {
                to: Audience::Person(key.clone()),
                event: Event::SeatMoved {
                    from: self.id.clone(),
                    to: to.to_owned(),
                },
            });
            for conn in self.conns_of(&key) {
                self.viewers.remove(&conn);
                fx.push(Effect::Detach { conn });
            }
        }
        fx.push(Effect::Changed);
        fx
    }
}
