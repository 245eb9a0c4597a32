//! M3.12: the next game. Bot and local games offer Play again (the same setup; local sides
//! swapped); after a rated game either player may offer a rematch, which the other accepts
//! (a new rated room with the same settings, colours swapped, started at once) or declines.
//! Each player offers at most once per game; offering while the opponent's offer is pending
//! accepts it. The room only decides: [`Effect::NextGame`] asks the actor to build the new room
//! with [`Room::next_game`] and to move every viewer, spectators included, there.

use engine::Mark;
use protocol::{Event, Phase, RoomId};
use rand::Rng;

use super::{Ctx, Effect, Member, Room, idx};
use crate::refusal::{Reason, Refusal, refuse};

impl Room {
    /// Play again: the device's person of a finished bot or local game.
    pub(super) fn play_again(
        &mut self,
        from: &Member,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        self.check_not_event()?;
        if self.is_online() {
            return refuse(Reason::PlayAgainOnline);
        }
        if from.key != self.host {
            return refuse(Reason::SpectatorPlayAgain);
        }
        self.check_finished()?;
        fx.push(Effect::NextGame);
        Ok(())
    }

    /// A seated player of a finished online game offers a rematch, or accepts the pending one.
    pub(super) fn offer_rematch<R: Rng>(
        &mut self,
        from: &Member,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let mark = self.check_rematch_player(from)?;
        match self.rematch_offer {
            Some(by) if by == mark => {
                return refuse(Reason::RematchPending);
            }
            Some(_) => return self.accept_rematch(ctx, fx),
            None => {}
        }
        if self.rematch_offered[idx(mark)] {
            return refuse(Reason::RematchOnce);
        }
        self.rematch_offered[idx(mark)] = true;
        self.rematch_offer = Some(mark);
        self.tell_all(
            Event::RematchOffered {
                room: self.id.clone(),
                by: mark,
            },
            fx,
        );
        Ok(())
    }

    /// The opponent answers a rematch offer.
    pub(super) fn answer_rematch<R: Rng>(
        &mut self,
        from: &Member,
        accept: bool,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let mark = self.check_rematch_player(from)?;
        if self.rematch_offer != Some(mark.other()) {
            return refuse(Reason::NoRematchOffer);
        }
        if accept {
            return self.accept_rematch(ctx, fx);
        }
        self.rematch_offer = None;
        self.tell_all(
            Event::RematchDeclined {
                room: self.id.clone(),
                by: mark,
            },
            fx,
        );
        Ok(())
    }

    /// Both agreed: checked here (M3.4, neither may sit in another room meanwhile), built by
    /// the actor.
    fn accept_rematch<R: Rng>(
        &mut self,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        if let Some(place) = self
            .seated_users()
            .into_iter()
            .find_map(|u| ctx.seats.place(u))
        {
            return refuse(Reason::RematchSeatedElsewhere { room: place.room });
        }
        // The pending offer stays when the budget refuses: it can be accepted later.
        self.admit_rated(ctx)?;
        self.rematch_offer = None;
        fx.push(Effect::NextGame);
        Ok(())
    }

    /// A rated game of this room's two players may start now (and is charged to
    /// their addresses), or the refusal saying when it could.
    pub(super) fn admit_rated<R: Rng>(&self, ctx: &Ctx<'_, R>) -> Result<(), Refusal> {
        ctx.rated
            .admit(&self.seated_users(), ctx.now_ms)
            .or_else(|wait_ms| {
                let minutes = wait_ms.div_ceil(60_000);
                refuse(Reason::TooManyRatedGames { minutes })
            })
    }

    /// The mark `from` held in this finished online game, or why they cannot ask for a rematch.
    fn check_rematch_player(&self, from: &Member) -> Result<Mark, Refusal> {
        self.check_not_event()?;
        if !self.is_online() {
            return refuse(Reason::RematchOnline);
        }
        let Some(mark) = self.seat_of(&from.key).and_then(|s| self.seats[s].mark) else {
            return refuse(Reason::SpectatorRematch);
        };
        self.check_finished()?;
        Ok(mark)
    }

    /// EV3: the event pairs its players' next games.
    fn check_not_event(&self) -> Result<(), Refusal> {
        if self.event.is_some() {
            return refuse(Reason::EventRematch);
        }
        Ok(())
    }

    fn check_finished(&self) -> Result<(), Refusal> {
        if self.phase == Phase::Finished {
            Ok(())
        } else {
            refuse(Reason::NotFinished)
        }
    }

    /// The next game as room `id`: the same settings and people; local and online games swap
    /// sides, a bot game keeps the human's side. Online players are seated in the new room
    /// (M3.4) and it starts at once; the error is a player who meanwhile sits elsewhere. Call
    /// [`Room::resume`] on it next (the bot's opening, clocks, ratings).
    pub fn next_game<R: Rng>(&self, id: RoomId, ctx: &mut Ctx<'_, R>) -> Result<Room, Refusal> {
        let mut seats = self.seats.clone();
        let swap = !matches!(
            self.settings.opponent,
            crate::settings::Opponent::Bot { .. }
        );
        for seat in &mut seats {
            seat.ready = true;
            if swap {
                seat.mark = seat.mark.map(Mark::other);
            }
        }
        let mut next = Room::fresh(
            id,
            self.settings.clone(),
            self.host.clone(),
            seats,
            Phase::Playing,
            ctx.wall_ms,
        );
        // Kicked people stay out of the room's next game too.
        next.kicked = self.kicked.clone();
        next.set_passcode_limits(self.passcodes.limits);
        let users = next.seated_users();
        for (i, user) in users.iter().enumerate() {
            if let Err(place) = ctx.seats.claim(*user, &next.id, false) {
                for claimed in &users[..i] {
                    ctx.seats.release(*claimed, &next.id);
                }
                return refuse(Reason::RematchSeatedElsewhere { room: place.room });
            }
        }
        if !users.is_empty() {
            ctx.seats.set_active(&next.id, true);
        }
        Ok(next)
    }
}
