//! Storing finished games (P3, E2), out of the room's way: each result is stored by a task of
//! its own, which tells the room what became of it as a message on the room's channel
//! ([`Stored`]), so the room keeps serving its viewers while the card syncs, fails or heals.
//!
//! One policy for every result, rated or not:
//!
//! - stored: the room announces it with the rating changes ([`Answer::Committed`]);
//! - the card cannot write now (full, failing, reopening): the result is kept, the room shows
//!   it as pending ([`Answer::Pending`], once), and it is tried again after [`RETRY_FIRST`],
//!   then twice as long each time up to [`RETRY_MAX`], until it is stored — also after its
//!   room closed, which no longer hears of it;
//! - the store refuses it for what it holds (it can never be stored): the room announces it
//!   without rating changes and says so ([`Answer::Refused`]);
//! - the server stopping: a result waiting for its next try gets one last try at once, and is
//!   given up (logged) if that fails too, as a power cut would lose it.
//!
//! A rated result is announced only after its durable commit: the room hears
//! [`Answer::Committed`] only from the store's answer, which comes after the commit.

use std::sync::Arc;
use std::time::Duration;

use protocol::records::{FinishedGame, RatingUpdate};
use tokio::sync::{mpsc, watch};
use tokio::task::JoinHandle;

use crate::persistence::Persistence;

/// First wait before storing a result again; it doubles up to [`RETRY_MAX`].
pub const RETRY_FIRST: Duration = Duration::from_millis(500);
/// Longest wait between two attempts: the store heals within about a second of the card
/// working again, so a result is stored a few seconds after that at the latest.
pub const RETRY_MAX: Duration = Duration::from_secs(5);

/// What became of the result of game `game` (its id), for its room.
#[derive(Debug)]
pub(crate) struct Stored {
    pub(crate) game: String,
    pub(crate) answer: Answer,
}

/// What the store said.
#[derive(Debug)]
pub(crate) enum Answer {
    /// Stored durably; the rating changes, X then O (none for an unrated game).
    Committed(Vec<RatingUpdate>),
    /// Not stored yet: the card cannot write now. Kept and tried again.
    Pending,
    /// Refused for what it holds: it will never be stored.
    Refused,
}

/// Stores `game` by the policy above, in a task of its own (returned, for shutdown to wait
/// on). `room` hears each answer while it is open; `stopping` turns `true` when the server
/// stops.
pub(crate) fn store<M>(
    store: Arc<dyn Persistence>,
    game: FinishedGame,
    room: mpsc::WeakSender<M>,
    stopping: watch::Receiver<bool>,
) -> JoinHandle<()>
where
    M: From<Stored> + Send + 'static,
{
    store_by(move |g| store.commit_game(g), game, room, stopping)
}

/// [`store`] through `commit`, called at each try: an arena event's game goes through the
/// event's task, which stores it with its points in one transaction (EV4).
pub(crate) fn store_by<M, C>(
    commit: C,
    game: FinishedGame,
    room: mpsc::WeakSender<M>,
    mut stopping: watch::Receiver<bool>,
) -> JoinHandle<()>
where
    M: From<Stored> + Send + 'static,
    C: Fn(&FinishedGame) -> crate::persistence::StoreFuture<Vec<RatingUpdate>> + Send + 'static,
{
    tokio::spawn(async move {
        let id = game.id.clone();
        let mut wait = RETRY_FIRST;
        let mut pending = false;
        loop {
            let answer = match commit(&game).await {
                Ok(updates) => {
                    tracing::info!(room = %id, end = ?game.end, rated = game.rated, pending, "game stored");
                    Answer::Committed(updates)
                }
                Err(e) if e.is_unavailable() => {
                    if *stopping.borrow() {
                        tracing::error!(room = %id, rated = game.rated, error = %e, "server stopping: a result was never stored");
                        return;
                    }
                    if !pending {
                        pending = true;
                        tracing::warn!(room = %id, rated = game.rated, error = %e, "storage unavailable: the result is pending");
                        tell(&room, &id, Answer::Pending).await;
                    } else {
                        tracing::debug!(room = %id, error = %e, "pending result still not stored");
                    }
                    tokio::select! {
                        () = tokio::time::sleep(wait) => {}
                        // One last try at once, then the loop gives up.
                        _ = stopping.wait_for(|stop| *stop) => {}
                    }
                    wait = (wait * 2).min(RETRY_MAX);
                    continue;
                }
                Err(e) => {
                    tracing::error!(room = %id, rated = game.rated, error = %e, "result refused by the store");
                    Answer::Refused
                }
            };
            tell(&room, &id, answer).await;
            return;
        }
    })
}

/// Tells the room, if it is still open (a closed room's result is stored all the same).
async fn tell<M: From<Stored>>(room: &mpsc::WeakSender<M>, game: &str, answer: Answer) {
    let stored = Stored {
        game: game.to_owned(),
        answer,
    };
    let told = match room.upgrade() {
        Some(room) => room.send(stored.into()).await.is_ok(),
        None => false,
    };
    if !told {
        tracing::info!(room = %game, "the result's room has closed; nobody left to tell");
    }
}

#[cfg(test)]
mod tests {
    use std::collections::VecDeque;
    use std::sync::Mutex;
    use std::time::Duration;

    use engine::{Game, Mark};
    use protocol::records::{FinishedGame, GameEnd, PlayerRef, RatingUpdate, UserId};
    use tokio::sync::{mpsc, watch};

    use super::{Answer, RETRY_FIRST, RETRY_MAX, Stored, store};
    use crate::persistence::{Persistence, StoreError, StoreFuture};

    /// A store that answers each commit with the next of its scripted answers (then stores),
    /// and notes when each commit came.
    #[derive(Default)]
    struct Scripted {
        answers: Mutex<VecDeque<StoreError>>,
        commits: Mutex<Vec<tokio::time::Instant>>,
    }

    impl Persistence for Scripted {
        fn commit_game(&self, _: &FinishedGame) -> StoreFuture<Vec<RatingUpdate>> {
            self.commits
                .lock()
                .expect("commits")
                .push(tokio::time::Instant::now());
            let answer = self.answers.lock().expect("answers").pop_front();
            Box::pin(async move { answer.map_or(Ok(Vec::new()), Err) })
        }
        fn ratings_blocking(&self, _: Game, users: &[UserId]) -> Result<Vec<i32>, StoreError> {
            Ok(vec![1200; users.len()])
        }
        fn save_room(&self, _: &str, _: Vec<u8>) -> StoreFuture<()> {
            Box::pin(async { Ok(()) })
        }
        fn delete_room(&self, _: &str) -> StoreFuture<()> {
            Box::pin(async { Ok(()) })
        }
        fn load_rooms_blocking(&self) -> Result<Vec<(String, Vec<u8>)>, StoreError> {
            Ok(Vec::new())
        }
        fn room_id_taken_blocking(&self, _: &str) -> Result<bool, StoreError> {
            Ok(false)
        }
    }

    fn game() -> FinishedGame {
        FinishedGame {
            id: "room".into(),
            game: Game::Xo,
            rated: false,
            x: PlayerRef::Guest { name: "a".into() },
            o: PlayerRef::Bot { difficulty: 0 },
            moves: vec![4],
            end: GameEnd::Resigned { loser: Mark::O },
            started_at_ms: 0,
            ended_at_ms: 1,
        }
    }

    fn full() -> StoreError {
        StoreError::Full("the card is full".into())
    }

    /// Every answer the room got, in order.
    async fn heard(rx: &mut mpsc::Receiver<Stored>) -> Vec<Answer> {
        let mut answers = Vec::new();
        while let Some(stored) = rx.recv().await {
            assert_eq!(stored.game, "room");
            answers.push(stored.answer);
        }
        answers
    }

    /// One policy: a result the card cannot take is pending (said once), tried again after
    /// 0.5 s, then twice as long each time up to 5 s, until it is stored.
    #[tokio::test(start_paused = true)]
    async fn a_result_is_pending_and_retried_with_a_growing_wait_until_stored() {
        let scripted = std::sync::Arc::new(Scripted::default());
        scripted
            .answers
            .lock()
            .expect("answers")
            .extend((0..6).map(|_| full()));
        let (tx, mut rx) = mpsc::channel(8);
        let (_stop, stopping) = watch::channel(false);
        let task = store(scripted.clone(), game(), tx.downgrade(), stopping);
        task.await.expect("the task ends once stored");
        drop(tx);
        let answers = heard(&mut rx).await;
        assert!(
            matches!(answers.as_slice(), [Answer::Pending, Answer::Committed(_)]),
            "{answers:?}"
        );
        let commits = scripted.commits.lock().expect("commits").clone();
        let waits: Vec<Duration> = commits.windows(2).map(|w| w[1] - w[0]).collect();
        let expected: Vec<Duration> = [500, 1_000, 2_000, 4_000, 5_000, 5_000]
            .into_iter()
            .map(Duration::from_millis)
            .collect();
        assert_eq!(waits, expected);
        assert_eq!(RETRY_FIRST, expected[0]);
        assert_eq!(RETRY_MAX, expected[5]);
    }

    /// A result the store refuses is told once and never tried again; a room that closed is
    /// not told, and its result is stored all the same.
    #[tokio::test(start_paused = true)]
    async fn a_refused_result_is_not_retried_and_a_closed_room_is_not_needed() {
        let scripted = std::sync::Arc::new(Scripted::default());
        scripted
            .answers
            .lock()
            .expect("answers")
            .push_back(StoreError::Refused("a different game has this id".into()));
        let (tx, mut rx) = mpsc::channel(8);
        let (_stop, stopping) = watch::channel(false);
        store(scripted.clone(), game(), tx.downgrade(), stopping.clone())
            .await
            .expect("ends");
        drop(tx);
        let answers = heard(&mut rx).await;
        assert!(
            matches!(answers.as_slice(), [Answer::Refused]),
            "{answers:?}"
        );
        assert_eq!(scripted.commits.lock().expect("commits").len(), 1);

        let scripted = std::sync::Arc::new(Scripted::default());
        scripted.answers.lock().expect("answers").push_back(full());
        let (tx, rx) = mpsc::channel::<Stored>(8);
        let weak = tx.downgrade();
        drop((tx, rx));
        store(scripted.clone(), game(), weak, stopping)
            .await
            .expect("ends");
        assert_eq!(
            scripted.commits.lock().expect("commits").len(),
            2,
            "stored after its room closed"
        );
    }

    /// The server stopping: a result waiting for its next try is tried once more at once, and
    /// given up when that fails too.
    #[tokio::test(start_paused = true)]
    async fn stopping_gives_a_waiting_result_one_last_try() {
        let scripted = std::sync::Arc::new(Scripted::default());
        scripted
            .answers
            .lock()
            .expect("answers")
            .extend((0..3).map(|_| full()));
        let (tx, mut rx) = mpsc::channel(8);
        let (stop, stopping) = watch::channel(false);
        let task = store(scripted.clone(), game(), tx.downgrade(), stopping);
        tokio::time::sleep(RETRY_FIRST + RETRY_FIRST / 2).await;
        stop.send_replace(true);
        task.await.expect("ends");
        drop(tx);
        let answers = heard(&mut rx).await;
        assert!(
            matches!(answers.as_slice(), [Answer::Pending]),
            "{answers:?}"
        );
        let commits = scripted.commits.lock().expect("commits").clone();
        assert_eq!(commits.len(), 3, "first, one retry, one last try");
        assert_eq!(
            commits[2] - commits[0],
            RETRY_FIRST + RETRY_FIRST / 2,
            "at once when stopping"
        );
    }
}
