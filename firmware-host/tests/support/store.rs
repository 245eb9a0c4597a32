//! The store's writes for a blocking caller: the store itself only awaits its writes (the
//! server never waits on a thread for the card), so the tests that drive it from plain
//! threads wait here, on the same futures the server awaits.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread::Thread;

use firmware_host::store::{RegisterError, Store};
use protocol::records::{FinishedGame, RatingUpdate, UserId};
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
