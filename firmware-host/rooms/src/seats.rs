//! The seat book: which registered player sits in which online room, so that a player sits in
//! at most one waiting or active room (M3.4). Rooms are separate actors, so this one table is
//! shared between them; every operation is a single short critical section that checks and
//! claims at once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use protocol::RoomId;
use protocol::records::UserId;

/// Where a player sits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    pub room: RoomId,
    /// The room's game is in progress: nobody leaves it for another seat (M3.4).
    pub active: bool,
}

/// The M3.4 bookkeeping that rooms consult. Implemented by [`Seats`] (one room's tests) and
/// [`SharedSeats`] (the hub).
pub trait SeatBook {
    /// Where `user` sits, if anywhere.
    fn place(&self, user: UserId) -> Option<Place>;
    /// Seats `user` in `room` in one step. Fine when the user sits nowhere or already there;
    /// when they sit in another *waiting* room and `may_move`, they move and that room is
    /// returned so it can reopen the seat; otherwise the place they hold is the error.
    fn claim(&mut self, user: UserId, room: &str, may_move: bool) -> Result<Option<RoomId>, Place>;
    /// Forgets `user`'s seat if it is in `room`.
    fn release(&mut self, user: UserId, room: &str);
    /// Marks `room`'s seats active (game started) or not.
    fn set_active(&mut self, room: &str, active: bool);
    /// Starts `room`'s game in one step: when every one of `users` still sits in `room`,
    /// marks its seats active; otherwise changes nothing and returns the first user who has
    /// meanwhile taken a seat elsewhere (M3.4: a move out of a waiting room reaches that room
    /// only later, so its seats may still show the player).
    fn activate(&mut self, room: &str, users: &[UserId]) -> Result<(), UserId>;
    /// Forgets every seat in `room` (it closed).
    fn release_room(&mut self, room: &str);
}

/// The seat book itself.
#[derive(Debug, Default, Clone)]
pub struct Seats {
    places: HashMap<UserId, Place>,
    /// The same seats by room, so that starting or closing a room touches its own seats
    /// rather than every seat of the server (under the lock every room shares).
    by_room: HashMap<RoomId, Vec<UserId>>,
}

impl Seats {
    /// Seats `user` in `room` (inactive), out of any seat they held.
    fn seat(&mut self, user: UserId, room: &str) {
        self.unseat(user);
        self.places.insert(
            user,
            Place {
                room: room.to_owned(),
                active: false,
            },
        );
        self.by_room.entry(room.to_owned()).or_default().push(user);
    }

    /// Forgets `user`'s seat, wherever it is.
    fn unseat(&mut self, user: UserId) {
        let Some(place) = self.places.remove(&user) else {
            return;
        };
        if let Some(users) = self.by_room.get_mut(&place.room) {
            users.retain(|&u| u != user);
            if users.is_empty() {
                self.by_room.remove(&place.room);
            }
        }
    }
}

impl SeatBook for Seats {
    fn place(&self, user: UserId) -> Option<Place> {
        self.places.get(&user).cloned()
    }

    fn claim(&mut self, user: UserId, room: &str, may_move: bool) -> Result<Option<RoomId>, Place> {
        match self.places.get(&user) {
            None => {
                self.seat(user, room);
                Ok(None)
            }
            Some(place) if place.room == room => Ok(None),
            Some(place) if may_move && !place.active => {
                let from = place.room.clone();
                self.seat(user, room);
                Ok(Some(from))
            }
            Some(place) => Err(place.clone()),
        }
    }

    fn release(&mut self, user: UserId, room: &str) {
        if self.places.get(&user).is_some_and(|p| p.room == room) {
            self.unseat(user);
        }
    }

    fn set_active(&mut self, room: &str, active: bool) {
        for user in self.by_room.get(room).into_iter().flatten() {
            if let Some(place) = self.places.get_mut(user) {
                place.active = active;
            }
        }
    }

    fn release_room(&mut self, room: &str) {
        for user in self.by_room.remove(room).unwrap_or_default() {
            self.places.remove(&user);
        }
    }

    fn activate(&mut self, room: &str, users: &[UserId]) -> Result<(), UserId> {
        if let Some(&gone) = users
            .iter()
            .find(|u| self.places.get(u).is_none_or(|p| p.room != room))
        {
            return Err(gone);
        }
        self.set_active(room, true);
        Ok(())
    }
}

/// The hub's seat book, shared by every room task. The lock is never held across an await.
#[derive(Debug, Default, Clone)]
pub struct SharedSeats(Arc<Mutex<Seats>>);

impl SharedSeats {
    fn lock(&self) -> std::sync::MutexGuard<'_, Seats> {
        // A panic while holding this lock cannot leave it inconsistent: every operation is a
        // single map update, so a poisoned lock is still usable.
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl SeatBook for SharedSeats {
    fn place(&self, user: UserId) -> Option<Place> {
        self.lock().place(user)
    }

    fn claim(&mut self, user: UserId, room: &str, may_move: bool) -> Result<Option<RoomId>, Place> {
        self.lock().claim(user, room, may_move)
    }

    fn release(&mut self, user: UserId, room: &str) {
        self.lock().release(user, room);
    }

    fn set_active(&mut self, room: &str, active: bool) {
        self.lock().set_active(room, active);
    }

    fn release_room(&mut self, room: &str) {
        self.lock().release_room(room);
    }

    fn activate(&mut self, room: &str, users: &[UserId]) -> Result<(), UserId> {
        self.lock().activate(room, users)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claim_moves_only_out_of_waiting_rooms() {
        let mut s = Seats::default();
        assert_eq!(s.claim(1, "a", false), Ok(None));
        assert_eq!(s.claim(1, "a", false), Ok(None));
        assert!(s.claim(1, "b", false).is_err());
        assert_eq!(s.claim(1, "b", true), Ok(Some("a".to_owned())));
        s.set_active("b", true);
        assert_eq!(
            s.claim(1, "c", true),
            Err(Place {
                room: "b".into(),
                active: true
            })
        );
        s.release(1, "c");
        assert!(s.place(1).is_some());
        s.release(1, "b");
        assert_eq!(s.place(1), None);
        s.claim(2, "d", false).unwrap();
        s.claim(3, "d", false).unwrap();
        s.release_room("d");
        assert_eq!((s.place(2), s.place(3)), (None, None));
    }

    #[test]
    fn activate_only_when_every_player_still_sits_in_the_room() {
        let mut s = Seats::default();
        s.claim(1, "a", false).unwrap();
        s.claim(2, "a", false).unwrap();
        // Player 2 takes a seat in "b" before "a" starts: "a" cannot start with them.
        assert_eq!(s.claim(2, "b", true), Ok(Some("a".to_owned())));
        assert_eq!(s.activate("a", &[1, 2]), Err(2));
        assert!(
            s.place(1).is_some_and(|p| !p.active),
            "a refusal changes nothing"
        );
        assert_eq!(s.activate("a", &[1]), Ok(()));
        assert!(s.place(1).is_some_and(|p| p.active && p.room == "a"));
        assert!(s.place(2).is_some_and(|p| !p.active && p.room == "b"));
        // Once "a" is active, its players cannot be moved out.
        assert!(s.claim(1, "b", true).is_err());
    }

    #[test]
    fn a_room_start_and_close_touch_only_its_own_seats_after_moves() {
        let mut s = Seats::default();
        s.claim(1, "a", false).unwrap();
        s.claim(2, "a", false).unwrap();
        s.claim(3, "b", false).unwrap();
        // Player 2 moves to "b" before "a" starts; "a" then holds player 1 alone.
        assert_eq!(s.claim(2, "b", true), Ok(Some("a".to_owned())));
        s.set_active("a", true);
        assert!(s.place(1).is_some_and(|p| p.active));
        assert!(
            s.place(2).is_some_and(|p| !p.active && p.room == "b"),
            "a moved player follows the room they moved to"
        );
        s.release_room("a");
        assert_eq!(s.place(1), None);
        assert!(s.place(2).is_some() && s.place(3).is_some());
        s.release(2, "b");
        s.release_room("b");
        assert_eq!((s.place(2), s.place(3)), (None, None));
        assert!(
            s.by_room.is_empty(),
            "no room is left indexed: {:?}",
            s.by_room
        );
        assert!(s.places.is_empty());
    }
}
