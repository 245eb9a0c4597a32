//! The store's writes for a blocking caller: the store itself only awaits its writes (the
//! server never waits on a thread for the card), so the tests that drive it from plain
//! threads wait here, on the same futures the server awaits.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;

use engine::{Game, Mark};
use firmware_host::store::{RegisterError, Store};
use protocol::records::{FinishedGame, GameEnd, PlayerRef, RatingUpdate, UserId};
use rooms::{Persistence as _, StoreError};

/// Wakes the thread that waits in [`wait`].
struct Unpark(Thread);

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// Runs `future` to its end on this thread, parked while it waits. The store's answers come
/// from its writer thread through a oneshot, which needs no runtime.
pub fn wait<F: Future>(future: F) -> F::Output {
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}

/// The store's writes, each waited for on the calling thread (never an async one).
pub trait BlockingWrites {
    fn register_blocking(
        &self,
        name: &str,
        password_hash: &str,
        token_hash: [u8; 32],
        now_ms: u64,
        expires_ms: u64,
    ) -> Result<UserId, RegisterError>;
    fn create_session_blocking(
        &self,
        token_hash: [u8; 32],
        user: UserId,
        now_ms: u64,
        expires_ms: u64,
    ) -> Result<(), StoreError>;
    fn delete_session_blocking(&self, token_hash: [u8; 32]) -> Result<(), StoreError>;
    fn commit_game_blocking(&self, game: &FinishedGame) -> Result<Vec<RatingUpdate>, StoreError>;
    fn save_room_blocking(&self, room_id: &str, state: &[u8]) -> Result<(), StoreError>;
    fn delete_room_blocking(&self, room_id: &str) -> Result<(), StoreError>;
}

impl BlockingWrites for Store {
    fn register_blocking(
        &self,
        name: &str,
        password_hash: &str,
        token_hash: [u8; 32],
        now_ms: u64,
        expires_ms: u64,
    ) -> Result<UserId, RegisterError> {
        wait(self.register(name, password_hash, token_hash, now_ms, expires_ms))
    }

    fn create_session_blocking(
        &self,
        token_hash: [u8; 32],
        user: UserId,
        now_ms: u64,
        expires_ms: u64,
    ) -> Result<(), StoreError> {
        wait(self.create_session(token_hash, user, now_ms, expires_ms))
    }

    fn delete_session_blocking(&self, token_hash: [u8; 32]) -> Result<(), StoreError> {
        wait(self.delete_session(token_hash))
    }

    fn commit_game_blocking(&self, game: &FinishedGame) -> Result<Vec<RatingUpdate>, StoreError> {
        wait(self.commit_game(game))
    }

    fn save_room_blocking(&self, room_id: &str, state: &[u8]) -> Result<(), StoreError> {
        wait(self.save_room(room_id, state.to_vec()))
    }

    fn delete_room_blocking(&self, room_id: &str) -> Result<(), StoreError> {
        wait(self.delete_room(room_id))
    }
}

pub const DAY_MS: u64 = 24 * 60 * 60 * 1000;

/// The clock the store's callers use.
pub fn now() -> u64 {
    firmware_host::clock::now_ms()
}

/// Registers `name` with a session `[n; 32]` that lives 30 days from now.
pub fn register(store: &Store, name: &str, n: u8) -> UserId {
    store
        .register_blocking(
            name,
            "$argon2id$not-a-real-hash",
            [n; 32],
            now(),
            now() + 30 * DAY_MS,
        )
        .expect("registered")
}

/// A rated XO game between registered players: X wins on the top row, O wins by X's
/// resignation, or (`None`) a draw agreed.
pub fn rated(id: &str, x: (UserId, &str), o: (UserId, &str), winner: Option<Mark>) -> FinishedGame {
    let (moves, end) = match winner {
        Some(Mark::X) => (
            vec![0, 3, 1, 4, 2],
            GameEnd::Line {
                winner: Mark::X,
                line: [0, 1, 2],
            },
        ),
        Some(Mark::O) => (vec![4, 0], GameEnd::Resigned { loser: Mark::X }),
        None => (vec![4, 0], GameEnd::Agreed),
    };
    let player = |(id, name): (UserId, &str)| PlayerRef::User {
        id,
        name: name.into(),
    };
    FinishedGame {
        id: id.into(),
        game: Game::Xo,
        rated: true,
        x: player(x),
        o: player(o),
        moves,
        end,
        started_at_ms: 1_000,
        ended_at_ms: 2_000,
    }
}
