//! Draw offers (M3.8): one pending offer at a time, answered by the opponent. An offer may be
//! made on either player's turn; "at most one per own turn" counts one's own moves, so a player
//! offers at most once between two of their own moves. Making a move withdraws one's own offer
//! (see `play`).

use engine::Mark;
use protocol::Event;
use protocol::records::GameEnd;
use rand::Rng;

use super::{Ctx, Effect, Member, Room, idx};
use crate::refusal::{Reason, Refusal, refuse};

impl Room {
    pub(super) fn offer_draw(
        &mut self,
        from: &Member,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let mark = self.check_online_player_playing(&from.key)?;
        if self.draw_offer.is_some() {
            return refuse(Reason::DrawPending);
        }
        let own_moves = self.own_moves(mark);
        if self.last_offer[idx(mark)] == Some(own_moves) {
            return refuse(Reason::DrawOnce);
        }
        self.last_offer[idx(mark)] = Some(own_moves);
        self.draw_offer = Some(mark);
        self.tell_all(
            Event::DrawOffered {
                room: self.id.clone(),
                by: mark,
            },
            fx,
        );
        Ok(())
    }

    pub(super) fn answer_draw<R: Rng>(
        &mut self,
        from: &Member,
        accept: bool,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let mark = self.check_online_player_playing(&from.key)?;
        if self.draw_offer != Some(mark.other()) {
            return refuse(Reason::NoDrawOffer);
        }
        self.draw_offer = None;
        if accept {
            self.finish(GameEnd::Agreed, ctx, fx);
            fx.push(Effect::Changed);
        } else {
            self.tell_all(
                Event::DrawDeclined {
                    room: self.id.clone(),
                    by: mark,
                },
                fx,
            );
        }
        Ok(())
    }

    fn own_moves(&self, mark: Mark) -> usize {
        let n = self.record.moves().len();
        match mark {
            Mark::X => n.div_ceil(2),
            Mark::O => n / 2,
        }
    }
}
