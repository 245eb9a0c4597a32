//! The end of a game: the finished record for storage, then the announced result with rating
//! changes once it is stored (E2, E3, P3). Nothing about a result is sent before it is stored.

use engine::Mark;
use protocol::records::{FinishedGame, GameEnd, RatingUpdate, UserId};
use protocol::{Event, Phase};
use rand::Rng;

use super::{Ctx, Effect, Occupant, Outcome, Room};

impl Room {
    pub(super) fn finish<R: Rng>(
        &mut self,
        end: GameEnd,
        ctx: &mut Ctx<'_, R>,
        fx: &mut Vec<Effect>,
    ) {
        self.phase = Phase::Finished;
        self.clock = None;
        self.draw_offer = None;
        let rated = self.is_rated();
        if self.is_online() {
            for user in self.seated_users() {
                ctx.seats.release(user, &self.id);
            }
        }
        self.outcome = Some(Outcome {
            end,
            rated,
            ratings: Vec::new(),
            announced: false,
            pending: false,
        });
        fx.push(Effect::Commit(self.finished_game(end, rated, ctx.wall_ms)));
    }

    fn finished_game(&self, end: GameEnd, rated: bool, ended_at_ms: u64) -> FinishedGame {
        let player = |mark| {
            self.seat_with_mark(mark)
                .and_then(|s| self.seats[s].occupant.as_ref())
                .map(Occupant::player_ref)
                .expect("both marks are seated once a game is played")
        };
        FinishedGame {
            id: if self.game_no == 0 {
                self.id.clone()
            } else {
                format!("{}-{}", self.id, self.game_no)
            },
            game: self.settings.game,
            rated,
            x: player(Mark::X),
            o: player(Mark::O),
            moves: self.record.moves().to_vec(),
            end,
            started_at_ms: self.started_at_ms,
            ended_at_ms,
        }
    }

    /// Ratings fetched for [`Effect::LoadRatings`].
    pub fn set_ratings(&mut self, ratings: &[(UserId, i32)]) -> Vec<Effect> {
        for seat in &mut self.seats {
            if let Some(user) = seat.occupant.as_ref().and_then(Occupant::user) {
                if let Some((_, r)) = ratings.iter().find(|(u, _)| *u == user) {
                    seat.rating = Some(*r);
                }
            }
        }
        vec![Effect::Changed]
    }

    /// The finished game was stored; announce the result with the rating changes (E3).
    pub fn committed(&mut self, updates: Vec<RatingUpdate>) -> Vec<Effect> {
        for update in &updates {
            if let Some(s) = self.seat_with_mark(update.mark) {
                self.seats[s].rating = Some(update.after);
            }
        }
        self.announce(updates)
    }

    /// Storing a rated result failed because the card cannot write now: the players see the
    /// result as pending while the caller keeps the game and retries; then
    /// [`Room::committed`] announces it with the rating changes. Never an unrated result.
    pub fn commit_pending(&mut self) -> Vec<Effect> {
        match self.outcome.as_mut() {
            Some(outcome) if !outcome.announced && !outcome.pending => {
                outcome.pending = true;
                vec![Effect::Changed]
            }
            _ => Vec::new(),
        }
    }

    /// Whether a rated result waits to be stored.
    pub fn result_pending(&self) -> bool {
        self.outcome.as_ref().is_some_and(|o| o.pending)
    }

    /// Storing the finished game failed for good: announce the result without rating changes.
    pub fn commit_failed(&mut self) -> Vec<Effect> {
        self.announce(Vec::new())
    }

    fn announce(&mut self, ratings: Vec<RatingUpdate>) -> Vec<Effect> {
        let Some(outcome) = self.outcome.as_mut() else {
            return Vec::new();
        };
        outcome.ratings = ratings.clone();
        outcome.announced = true;
        outcome.pending = false;
        vec![
            Effect::to_all(Event::Result {
                room: self.id.clone(),
                end: outcome.end,
                ratings,
            }),
            Effect::Changed,
        ]
    }
}
