//! Play: a move under the game's rules (R-XO-*, R-INF-*), the bot's reply inside the room (M1,
//! T2–T4), resignation (M3.9, M2.2), hints (T5) and undo (M1.3, M2.2).

use engine::{Cell, Game, Mark};
use protocol::records::GameEnd;
use protocol::{Event, Phase};
use rand::Rng;

use super::{Ctx, Effect, Member, Room};
use crate::refusal::{Reason, Refusal, refuse};

impl Room {
    /// A move by the player `from` controls the side to move for.
    pub(super) fn play_move<R: Rng>(
        &mut self,
        from: &Member,
        cell: Cell,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let mark = self.check_may_move(&from.key)?;
        debug_assert_eq!(mark, self.record.position().turn());
        // The cell itself (on the board, empty) is the engine's to judge, in `play`.
        self.play(cell, false, false, ctx, fx)?;
        self.after_move(ctx, fx);
        fx.push(Effect::Changed);
        Ok(())
    }

    /// M3.9: the player resigns and stays in the completed room; in a local game the device
    /// resigns for the side to move (M2.2).
    pub(super) fn resign<R: Rng>(
        &mut self,
        from: &Member,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let loser = self.check_resign(&from.key)?;
        self.finish(GameEnd::Resigned { loser }, ctx, fx);
        fx.push(Effect::Changed);
        Ok(())
    }

    /// T5: one Perfect move for the human of a bot game, on their turn.
    pub(super) fn hint<R: Rng>(
        &mut self,
        from: &Member,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let Some((_, bot)) = self.bot() else {
            return refuse(Reason::HintBotOnly);
        };
        if from.key != self.host {
            return refuse(Reason::SpectatorHint);
        }
        let position = self.record.position();
        if self.phase != Phase::Playing || position.turn() == bot {
            return refuse(Reason::HintOwnTurn);
        }
        let Some(cell) = tables::bot::hint(&position, ctx.rng) else {
            return refuse(Reason::NoHint);
        };
        fx.push(Effect::Hint {
            conn: from.conn,
            cell,
        });
        Ok(())
    }

    /// M1.3, M2.2: the device's person takes back their last move (and the bot's reply); after
    /// a finished game, play goes on as a new game.
    pub(super) fn undo<R: Rng>(
        &mut self,
        from: &Member,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        if self.is_online() {
            return refuse(Reason::UndoOnline);
        }
        if from.key != self.host {
            return refuse(Reason::SpectatorUndo);
        }
        let plies = self.undo_plies();
        if plies == 0 {
            return refuse(Reason::NothingToUndo);
        }
        self.record
            .undo(plies)
            .expect("undo_plies never exceeds the moves played");
        if self.outcome.take().is_some() {
            self.game_no += 1;
            self.started_at_ms = ctx.wall_ms;
        }
        self.phase = Phase::Playing;
        self.restart_clock(ctx.now_ms);
        self.tell_all(
            Event::Undone {
                room: self.id.clone(),
                plies: u8::try_from(plies).unwrap_or(u8::MAX),
            },
            fx,
        );
        Ok(())
    }

    /// How many plies an undo takes back now: in a bot game the human's last move and the
    /// bot's reply (M1.3); in a local game the last move (M2.2).
    pub(super) fn undo_plies(&self) -> usize {
        let n = self.record.moves().len();
        match self.bot() {
            Some((_, bot)) => {
                // The mark that made the last move.
                let last = if n % 2 == 1 { Mark::X } else { Mark::O };
                if n == 0 {
                    0
                } else if last == bot {
                    // Take back the bot's reply and the human move before it, if there is one
                    // (when the bot opened, its first move is not the human's to undo).
                    if n >= 2 { 2 } else { 0 }
                } else {
                    1
                }
            }
            None => n.min(1),
        }
    }

    /// Plays `cell` for the side to move, with its events; ends the game when the rules do.
    pub(super) fn play<R: Rng>(
        &mut self,
        cell: Cell,
        automatic: bool,
        bot: bool,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) -> Result<(), Refusal> {
        let before = self.record.position();
        let mark = before.turn();
        let played = self.record.play(cell).map_err(Refusal::from)?;
        let own = before.marks(mark);
        let removed =
            (self.settings.game == Game::Infinite && own.len() == 3).then(|| own.as_slice()[0]);
        // M3.8: making a move withdraws one's own pending offer.
        if self.draw_offer == Some(mark) {
            self.draw_offer = None;
            fx.push(Effect::to_all(Event::DrawDeclined {
                room: self.id.clone(),
                by: mark,
            }));
        }
        fx.push(Effect::to_all(Event::Moved {
            room: self.id.clone(),
            mark,
            cell,
            removed,
            automatic,
            bot,
        }));
        if played.repetition_warning {
            fx.push(Effect::to_all(Event::RepetitionWarning {
                room: self.id.clone(),
            }));
        }
        if let Some(end) = played.end {
            self.finish(end.into(), ctx, fx);
        }
        Ok(())
    }

    /// After a move: the bot replies inside the room (M1), then the side to move gets a full
    /// clock (M3.7).
    pub(super) fn after_move<R: Rng>(&mut self, ctx: &mut Ctx<'_, R>, fx: &mut Vec<Effect>) {
        if self.phase != Phase::Playing {
            return;
        }
        if let Some((difficulty, bot)) = self.bot() {
            let position = self.record.position();
            if position.turn() == bot {
                if let Some(choice) = tables::bot::choose(&position, difficulty, ctx.rng) {
                    self.play(choice.cell, false, true, ctx, fx)
                        .expect("the bot plays legal moves");
                }
            }
        }
        self.restart_clock(ctx.now_ms);
    }

    /// Starts clocks and lets the bot move when it is its turn: after creation and restore.
    pub fn resume<R: Rng>(&mut self, ctx: &mut Ctx<'_, R>) -> Vec<Effect> {
        let mut fx = Vec::new();
        if self.phase == Phase::Playing {
            self.after_move(ctx, &mut fx);
        }
        let users = self.seated_users();
        if self.is_online() && !users.is_empty() {
            fx.push(Effect::LoadRatings(users));
        }
        fx.push(Effect::Changed);
        fx
    }
}
