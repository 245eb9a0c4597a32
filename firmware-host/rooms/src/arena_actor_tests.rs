//! The event task with a recording host and tokio's paused clock: the order of saves, stored
//! results and rooms; what watchers and paired players are sent; the end; a restart.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use engine::{Game, Mark};
use protocol::event::EventPhase;
use protocol::records::{FinishedGame, GameEnd, PlayerRef, RatingUpdate, UserId};
use tokio::sync::mpsc;

use super::{ArenaHandle, EventHost, EventOut, Pairing, RoomFuture, WallClock, spawn};
use crate::event::{
    Arena, EventGame, EventLimits, EventSettings, EventSetup, Phase, Player, Presence, SavedArena,
    StartRequest, Today, WaveTimes, standings_from_games,
};
use crate::persistence::{StoreError, StoreFuture};
use crate::refusal::Refusal;

const T0: u64 = 1_800_000_000_000;

/// What the host was asked, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Call {
    /// A save, with the games in progress it holds and their rooms.
    Save {
        open: Vec<(u32, Option<String>)>,
    },
    Store(u32),
    Open(u32),
}

#[derive(Default)]
struct Host {
    calls: Mutex<Vec<Call>>,
    saved: Mutex<Option<SavedArena>>,
    games: Mutex<Vec<EventGame>>,
    /// Players whose rooms cannot be made (seated elsewhere).
    busy: Mutex<Vec<UserId>>,
    /// The store fails while set.
    failing: Mutex<bool>,
}

impl Host {
    fn calls(&self) -> Vec<Call> {
        self.calls.lock().expect("calls").clone()
    }
}

impl EventHost for Host {
    fn save(&self, _event: &String, saved: SavedArena) -> StoreFuture<()> {
        let open = saved.open.iter().map(|g| (g.no, g.room.clone())).collect();
        self.calls.lock().expect("calls").push(Call::Save { open });
        *self.saved.lock().expect("saved") = Some(saved);
        Box::pin(async { Ok(()) })
    }

    fn store_game(
        &self,
        _event: &String,
        game: &FinishedGame,
        record: &EventGame,
    ) -> StoreFuture<Vec<RatingUpdate>> {
        if *self.failing.lock().expect("failing") {
            return Box::pin(async { Err(StoreError::Full("card full".into())) });
        }
        assert_eq!(game.id, record.room, "the record is the game's");
        self.calls
            .lock()
            .expect("calls")
            .push(Call::Store(record.no));
        let mut games = self.games.lock().expect("games");
        if !games.contains(record) {
            games.push(record.clone());
        }
        Box::pin(async { Ok(Vec::new()) })
    }

    fn open_game(&self, _event: &String, pairing: Pairing) -> RoomFuture {
        self.calls
            .lock()
            .expect("calls")
            .push(Call::Open(pairing.no));
        let busy = self.busy.lock().expect("busy");
        let answer = if busy.contains(&pairing.x.user) || busy.contains(&pairing.o.user) {
            Err(Refusal::from(crate::refusal::Reason::SeatedElsewhere))
        } else {
            Ok(format!("r{}", pairing.no))
        };
        Box::pin(async move { answer })
    }
}

fn clock() -> WallClock {
    let start = tokio::time::Instant::now();
    Arc::new(move || T0 + u64::try_from(start.elapsed().as_millis()).unwrap_or(0))
}

fn arena(minutes: u32) -> Arena {
    let setup = EventSetup {
        game: Game::Xo,
        duration_min: minutes,
        start: StartRequest::Now,
        time_per_move_s: None,
        rated: None,
        name: None,
    };
    let today = Today {
        now_ms: T0,
        tomorrow_ms: T0 + 86_400_000,
    };
    let settings =
        EventSettings::from_setup(&setup, today, &EventLimits::default()).expect("valid");
    Arena::new(settings, EventLimits::default(), WaveTimes::default(), 5)
}

fn player(user: UserId) -> Player {
    Player {
        user,
        name: format!("p{user}"),
        rating: 1200,
    }
}

fn finished(room: &str, x: UserId, o: UserId, end: GameEnd, at: u64) -> FinishedGame {
    let seat = |id| PlayerRef::User {
        id,
        name: format!("p{id}"),
    };
    FinishedGame {
        id: room.into(),
        game: Game::Xo,
        rated: true,
        x: seat(x),
        o: seat(o),
        moves: vec![4, 0, 2],
        end,
        started_at_ms: at,
        ended_at_ms: at,
    }
}

/// Everything `rx` holds now.
fn drain(rx: &mut mpsc::Receiver<EventOut>) -> Vec<EventOut> {
    let mut out = Vec::new();
    while let Ok(o) = rx.try_recv() {
        out.push(o);
    }
    out
}

fn paired_of(out: &[EventOut]) -> Vec<protocol::event::Paired> {
    out.iter()
        .filter_map(|o| match o {
            EventOut::Paired(p) => Some(p.clone()),
            EventOut::Update(_) => None,
        })
        .collect()
}

async fn join_watching(handle: &ArenaHandle, user: UserId) -> mpsc::Receiver<EventOut> {
    let (tx, rx) = mpsc::channel(64);
    handle
        .watch(user, Some(user), tx)
        .await
        .expect("task alive");
    handle
        .join(player(user))
        .await
        .expect("task alive")
        .expect("joined");
    rx
}

#[tokio::test(start_paused = true)]
async fn a_pairing_is_saved_before_its_room_and_both_players_are_told_their_room() {
    let host = Arc::new(Host::default());
    let (handle, _task) = spawn("e1".into(), arena(60), host.clone(), clock());
    let mut a = join_watching(&handle, 1).await;
    let mut b = join_watching(&handle, 2).await;
    assert!(paired_of(&drain(&mut a)).is_empty(), "gathering first");
    tokio::time::sleep(Duration::from_secs(4)).await;
    let view = handle.view(Some(1)).await.expect("alive");
    assert_eq!(view.phase, EventPhase::Running);
    assert_eq!(view.boards.len(), 1, "{view:?}");

    let to_a = paired_of(&drain(&mut a));
    let to_b = paired_of(&drain(&mut b));
    assert_eq!(to_a.len(), 1);
    assert_eq!(to_b.len(), 1);
    assert_eq!(to_a[0].room, "r1");
    assert_eq!(to_a[0].opponent, 2);
    assert_eq!(to_b[0].opponent, 1);
    assert_ne!(to_a[0].mark, to_b[0].mark);

    let calls = host.calls();
    let open_at = calls
        .iter()
        .position(|c| *c == Call::Open(1))
        .expect("room made");
    assert!(
        calls[..open_at].contains(&Call::Save {
            open: vec![(1, None)]
        }),
        "the pairing is saved before its room is made: {calls:?}"
    );
    assert!(
        calls[open_at..].contains(&Call::Save {
            open: vec![(1, Some("r1".into()))]
        }),
        "then its room: {calls:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_game_counts_once_after_it_is_stored_and_watchers_get_the_standings() {
    let host = Arc::new(Host::default());
    let (handle, _task) = spawn("e1".into(), arena(60), host.clone(), clock());
    let mut a = join_watching(&handle, 1).await;
    let _b = join_watching(&handle, 2).await;
    let (guest_tx, mut guest) = mpsc::channel(64);
    handle.watch(99, None, guest_tx).await.expect("alive");
    tokio::time::sleep(Duration::from_secs(4)).await;
    let paired = paired_of(&drain(&mut a)).pop().expect("paired");
    let (x, o) = match paired.mark {
        Mark::X => (1, 2),
        Mark::O => (2, 1),
    };
    drain(&mut guest);

    // The card is full: not counted, the room keeps the result and retries.
    *host.failing.lock().expect("failing") = true;
    let game = finished(
        "r1",
        x,
        o,
        GameEnd::Resigned { loser: Mark::O },
        T0 + 60_000,
    );
    let refused = handle.game_over(1, game.clone()).await;
    assert!(matches!(refused, Err(StoreError::Full(_))), "{refused:?}");
    assert!(host.games.lock().expect("games").is_empty());
    assert_eq!(
        handle.view(None).await.expect("alive").standings[0].points,
        0
    );

    *host.failing.lock().expect("failing") = false;
    handle.game_over(1, game.clone()).await.expect("stored");
    // A retry after the answer was lost is the same record: counted once.
    let again = handle.game_over(1, game).await;
    assert!(again.is_err(), "no longer in progress: {again:?}");
    let stored = host.games.lock().expect("games").clone();
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].x_points, 2);
    let view = handle.view(None).await.expect("alive");
    assert_eq!(view.standings[0].user, x);
    assert_eq!(view.standings[0].points, 2);

    let updates: Vec<_> = drain(&mut guest)
        .into_iter()
        .filter_map(|o| match o {
            EventOut::Update(u) => u.standings,
            EventOut::Paired(_) => panic!("a guest is never paired"),
        })
        .collect();
    assert!(
        updates
            .iter()
            .any(|d| d.rows.iter().any(|r| r.user == x && r.points == 2)),
        "the delta names the winner: {updates:?}"
    );
    assert_eq!(
        standings_from_games(&stored),
        *Arena::restore(
            host.saved.lock().expect("saved").clone().expect("saved"),
            stored.clone(),
            EventLimits::default(),
            WaveTimes::default()
        )
        .standings()
    );
}

#[tokio::test(start_paused = true)]
async fn a_room_that_cannot_be_made_aborts_the_pairing_and_paused_or_away_players_wait() {
    let host = Arc::new(Host::default());
    host.busy.lock().expect("busy").push(3);
    let (handle, _task) = spawn("e1".into(), arena(60), host.clone(), clock());
    let mut a = join_watching(&handle, 3).await;
    let _b = join_watching(&handle, 4).await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert!(paired_of(&drain(&mut a)).is_empty());
    assert!(host.calls().contains(&Call::Open(1)));
    let saved = host.saved.lock().expect("saved").clone().expect("saved");
    assert!(saved.open.is_empty(), "the aborted pairing is forgotten");

    // Paused and offline players are not paired.
    host.busy.lock().expect("busy").clear();
    handle.pause(3).await.expect("alive").expect("paused");
    handle.presence(4, Presence::Offline).await;
    let opened = host
        .calls()
        .iter()
        .filter(|c| matches!(c, Call::Open(_)))
        .count();
    tokio::time::sleep(Duration::from_secs(30)).await;
    let now_opened = host
        .calls()
        .iter()
        .filter(|c| matches!(c, Call::Open(_)))
        .count();
    assert_eq!(opened, now_opened, "nobody waiting");
    handle.resume(3).await.expect("alive").expect("resumed");
    handle.presence(4, Presence::Online).await;
    tokio::time::sleep(Duration::from_secs(30)).await;
    assert!(
        paired_of(&drain(&mut a)).len() == 1,
        "paired once both are back"
    );
    assert_eq!(
        handle.leave(9).await.expect("alive"),
        Err(crate::event::ArenaError::NotInEvent)
    );
}

#[tokio::test(start_paused = true)]
async fn time_up_lets_the_game_in_progress_count_then_the_event_ends_and_a_restart_keeps_it() {
    let host = Arc::new(Host::default());
    let (handle, task) = spawn("e1".into(), arena(10), host.clone(), clock());
    let mut a = join_watching(&handle, 1).await;
    let _b = join_watching(&handle, 2).await;
    tokio::time::sleep(Duration::from_secs(4)).await;
    let paired = paired_of(&drain(&mut a)).pop().expect("paired");
    let (x, o) = match paired.mark {
        Mark::X => (1, 2),
        Mark::O => (2, 1),
    };
    tokio::time::sleep(Duration::from_secs(10 * 60)).await;
    assert_eq!(
        handle.view(None).await.expect("alive").phase,
        EventPhase::Ending
    );
    assert_eq!(
        handle.join(player(5)).await.expect("alive"),
        Err(crate::event::ArenaError::EventOver)
    );
    let end = finished("r1", x, o, GameEnd::FullBoard, T0 + 11 * 60_000);
    handle.game_over(1, end).await.expect("stored");
    let view = handle.view(None).await.expect("alive");
    assert_eq!(view.phase, EventPhase::Finished);
    assert_eq!(view.podium.len(), 2, "a draw: both share first place");
    let ended = drain(&mut a)
        .into_iter()
        .any(|o| matches!(o, EventOut::Update(u) if u.podium.is_some()));
    assert!(ended, "watchers get the podium");
    drop(handle);
    let arena = task.await.expect("the task ends with its last handle");
    assert_eq!(arena.phase(), Phase::Finished);

    // The saved arena and the stored games make the same event again.
    let saved = host.saved.lock().expect("saved").clone().expect("saved");
    let games = host.games.lock().expect("games").clone();
    let again = Arena::restore(saved, games, EventLimits::default(), WaveTimes::default());
    assert_eq!(again.phase(), Phase::Finished);
    assert_eq!(again.standings(), arena.standings());
}
