//! Move clocks (M3.7): the side to move gets the full time; on expiry Infinite XO plays a random
//! empty cell for it, XO forfeits. Never while the bot is to move.

use engine::{Cell, Game};
use protocol::Phase;
use protocol::records::GameEnd;
use rand::Rng;
use rand::seq::IndexedRandom;

use super::{Clock, Ctx, Effect, Room};

impl Room {
    /// The clock: when it has run out, plays a random cell (Infinite XO) or forfeits (online
    /// XO) for the side to move (M3.7). Does nothing before the deadline.
    pub fn tick<R: Rng>(&mut self, ctx: &mut Ctx<'_, R>) -> Vec<Effect> {
        let mut fx = Vec::new();
        let Some(clock) = self.clock else {
            return fx;
        };
        if ctx.now_ms < clock.deadline_ms || self.phase != Phase::Playing {
            return fx;
        }
        match self.settings.game {
            Game::Xo => self.finish(GameEnd::Timeout { loser: clock.mark }, ctx, &mut fx),
            Game::Infinite => {
                let legal: Vec<Cell> = self.record.position().legal_moves().collect();
                let cell = *legal
                    .choose(ctx.rng)
                    .expect("an ongoing Infinite XO position always has an empty cell");
                self.play(cell, true, false, ctx, &mut fx)
                    .expect("a legal move of an ongoing game plays");
                self.after_move(ctx, &mut fx);
            }
        }
        fx.push(Effect::Changed);
        fx
    }

    pub(super) fn restart_clock(&mut self, now_ms: u64) {
        let turn = self.record.position().turn();
        let bot_to_move = self.bot().is_some_and(|(_, bot)| bot == turn);
        self.clock = match self.settings.per_move_ms {
            Some(ms) if self.phase == Phase::Playing && !bot_to_move => Some(Clock {
                mark: turn,
                deadline_ms: now_ms + u64::from(ms),
            }),
            _ => None,
        };
    }
}
