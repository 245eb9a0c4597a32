//! Clocks inside the room task (M3.7), with tokio's paused time: the test's waiting costs
//! nothing, and the server's timers fire exactly when due. Connections are in-memory duplex
//! pipes carrying a real WebSocket.

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use engine::{Game, Mark};
use protocol::records::GameEnd;
use protocol::{ClientMsg, CreateRoom, Event, JoiningRequest, OpponentRequest, ServerMsg};
use rooms::{Hub, HubConfig, Identity};
use tokio::io::DuplexStream;
use tokio::time::Instant;

async fn connect(hub: &Hub, who: Identity) -> Client<DuplexStream> {
    let mut c = connect_duplex(hub, who).await;
    c.wait = Duration::from_secs(3600);
    c
}

fn moved(m: &ServerMsg) -> Option<(Mark, bool, bool)> {
    match m {
        ServerMsg::Event(Event::Moved {
            mark,
            automatic,
            bot,
            ..
        }) => Some((*mark, *automatic, *bot)),
        _ => None,
    }
}

#[tokio::test(start_paused = true)]
async fn infinite_clock_expiry_plays_random_cell_then_bot_replies() {
    let hub = Hub::start(Arc::new(MemoryStore::default()), HubConfig::default());
    let mut kiosk = connect(&hub, guest("kiosk")).await;
    let created = Instant::now();
    kiosk
        .ask(|id| ClientMsg::CreateRoom {
            id,
            room: CreateRoom {
                game: Game::Infinite,
                opponent: OpponentRequest::Bot {
                    difficulty: Some(50),
                    side: None,
                },
                time_per_move_s: Some(5),
            },
        })
        .await;
    // Nobody moves: after 5 s the server plays for the human, and the bot replies.
    let auto = kiosk.until("automatic move", |m| moved(m).is_some()).await;
    assert_eq!(moved(&auto), Some((Mark::X, true, false)));
    let waited = created.elapsed();
    assert!(
        waited >= Duration::from_secs(5) && waited < Duration::from_secs(6),
        "{waited:?}"
    );
    let reply = kiosk.until("bot reply", |m| moved(m).is_some()).await;
    assert_eq!(moved(&reply), Some((Mark::O, false, true)));
    let snapshot = kiosk
        .until(
            "snapshot",
            |m| matches!(m, ServerMsg::Room { room, .. } if room.moves.len() == 2),
        )
        .await;
    let clock = room_of(&snapshot)
        .clock
        .expect("the human's clock runs again");
    assert_eq!(clock.mark, Mark::X);
    assert_eq!(
        clock.remaining_ms, 5_000,
        "full time after the automatic move and the reply"
    );
    hub.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn xo_online_move_not_made_in_two_minutes_forfeits() {
    let store = Arc::new(MemoryStore::default());
    let hub = Hub::start(store.clone(), HubConfig::default());
    let mut sara = connect(&hub, user(1, "sara")).await;
    let mut omar = connect(&hub, user(2, "omar")).await;
    let room = sara
        .ask(|id| ClientMsg::CreateRoom {
            id,
            room: CreateRoom {
                game: Game::Xo,
                opponent: OpponentRequest::Player {
                    joining: JoiningRequest::Open,
                },
                time_per_move_s: None,
            },
        })
        .await;
    let id = room_of(&room).id.clone();
    omar.ask(|rid| ClientMsg::Join {
        id: rid,
        room: id.clone(),
        passcode: None,
    })
    .await;
    omar.ask(|id| ClientMsg::Ready { id, ready: true }).await;
    let started = sara.ask(|id| ClientMsg::Start { id }).await;
    let x_is_sara = room_of(&started).seats[0].mark == Some(Mark::X);
    let begun = Instant::now();
    let result = omar
        .until("result", |m| {
            matches!(m, ServerMsg::Event(Event::Result { .. }))
        })
        .await;
    let ServerMsg::Event(Event::Result { end, ratings, .. }) = result else {
        unreachable!()
    };
    assert_eq!(end, GameEnd::Timeout { loser: Mark::X });
    let waited = begun.elapsed();
    assert!(
        waited >= Duration::from_secs(120) && waited < Duration::from_secs(121),
        "{waited:?}"
    );
    let x_user = if x_is_sara { 1 } else { 2 };
    assert_eq!(ratings[0].user, x_user);
    assert_eq!(ratings[0].change(), -16, "a timeout is rated (E2)");
    assert_eq!(store.games.lock().unwrap().len(), 1);
    hub.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn clocks_keep_running_while_players_are_away() {
    let store = Arc::new(MemoryStore::default());
    let hub = Hub::start(store.clone(), HubConfig::default());
    let mut sara = connect(&hub, user(1, "sara")).await;
    let mut omar = connect(&hub, user(2, "omar")).await;
    let room = sara
        .ask(|id| ClientMsg::CreateRoom {
            id,
            room: CreateRoom {
                game: Game::Infinite,
                opponent: OpponentRequest::Player {
                    joining: JoiningRequest::Open,
                },
                time_per_move_s: Some(5),
            },
        })
        .await;
    let id = room_of(&room).id.clone();
    omar.ask(|rid| ClientMsg::Join {
        id: rid,
        room: id.clone(),
        passcode: None,
    })
    .await;
    omar.ask(|id| ClientMsg::Ready { id, ready: true }).await;
    sara.ask(|id| ClientMsg::Start { id }).await;
    // Both leave (M3.10): presence only; the clocks play on.
    drop(sara);
    drop(omar);
    tokio::time::sleep(Duration::from_secs(60)).await;
    let mut fan = connect(&hub, guest("fan")).await;
    let view = fan.open(&id).await;
    let view = room_of(&view);
    // One automatic move every 5 s until random play ends the game (a line needs at least
    // five moves), or twelve of them if it goes on.
    match view.phase {
        protocol::Phase::Playing => assert!(view.moves.len() >= 11, "{}", view.moves.len()),
        protocol::Phase::Finished => {
            assert!(view.moves.len() >= 5);
            assert!(view.result.is_some(), "the result of a game nobody watched");
        }
        protocol::Phase::Waiting => panic!("the game had started"),
    }
    assert!(view.seats.iter().all(|s| !s.present));
    hub.shutdown().await;
}

#[tokio::test(start_paused = true)]
async fn abandoned_bot_game_closes_after_idle_time() {
    let config = HubConfig {
        unviewed_game_close: Duration::from_secs(600),
        ..HubConfig::default()
    };
    let hub = Hub::start(Arc::new(MemoryStore::default()), config);
    let mut kiosk = connect(&hub, guest("kiosk")).await;
    kiosk
        .ask(|id| ClientMsg::CreateRoom {
            id,
            room: CreateRoom {
                game: Game::Xo,
                opponent: OpponentRequest::Bot {
                    difficulty: None,
                    side: None,
                },
                time_per_move_s: None,
            },
        })
        .await;
    assert_eq!(hub.lobby().len(), 1);
    drop(kiosk);
    tokio::time::sleep(Duration::from_secs(599)).await;
    assert_eq!(hub.lobby().len(), 1, "still there before the idle time");
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(
        hub.lobby().is_empty(),
        "closed once nobody viewed it for the idle time"
    );
}

/// The kiosk never left an abandoned game, and it stayed "Playing" in Live rooms for
/// half an hour. A bot or local game nobody views ends after `unviewed_game_close` (60 s by
/// default); an online room waits for the longer idle time.
#[tokio::test(start_paused = true)]
async fn abandoned_bot_and_local_games_are_no_longer_listed_as_playing() {
    let hub = Hub::start(Arc::new(MemoryStore::default()), HubConfig::default());
    let mut kiosk = connect(&hub, guest("kiosk")).await;
    for opponent in [
        OpponentRequest::Bot {
            difficulty: None,
            side: None,
        },
        OpponentRequest::Local {
            names: ["Sara".into(), "Omar".into()],
        },
    ] {
        kiosk
            .ask(|id| ClientMsg::CreateRoom {
                id,
                room: CreateRoom {
                    game: Game::Infinite,
                    opponent,
                    time_per_move_s: None,
                },
            })
            .await;
    }
    let mut host = connect(&hub, user(1, "host")).await;
    host.ask(|id| ClientMsg::CreateRoom {
        id,
        room: CreateRoom {
            game: Game::Xo,
            opponent: OpponentRequest::Player {
                joining: protocol::JoiningRequest::Open,
            },
            time_per_move_s: None,
        },
    })
    .await;
    let playing = |hub: &Hub| {
        hub.lobby()
            .iter()
            .filter(|r| r.phase == protocol::Phase::Playing)
            .count()
    };
    assert_eq!(playing(&hub), 2);
    drop(kiosk);
    drop(host);
    tokio::time::sleep(Duration::from_secs(61)).await;
    assert_eq!(playing(&hub), 0, "abandoned games are gone from the lobby");
    assert_eq!(hub.lobby().len(), 1, "the online waiting room stays longer");
    hub.shutdown().await;
}

/// A local XO game between Sara and Omar on the asking device.
fn local_xo(id: Option<u32>) -> ClientMsg {
    ClientMsg::CreateRoom {
        id,
        room: CreateRoom {
            game: Game::Xo,
            opponent: OpponentRequest::Local {
                names: ["Sara".into(), "Omar".into()],
            },
            time_per_move_s: None,
        },
    }
}

/// A room that closed before its saver's first write (a quick game) still cost the
/// store a delete of a room it never held. Now it costs no write at all; a room that lived past
/// its first save is deleted when it ends.
#[tokio::test(start_paused = true)]
async fn a_room_gone_before_its_first_save_costs_no_store_write() {
    use std::sync::atomic::Ordering;
    let store = Arc::new(MemoryStore::default());
    let hub = Hub::start(store.clone(), HubConfig::default());
    let mut kiosk = connect(&hub, guest("kiosk")).await;
    let writes = || store.room_writes.load(Ordering::Relaxed);
    kiosk.ask(local_xo).await;
    kiosk.ask(|id| ClientMsg::Exit { id }).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(writes(), 0, "created and ended within the save coalescing");
    kiosk.ask(local_xo).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(writes(), 1, "saved once it had lasted");
    kiosk.ask(|id| ClientMsg::Exit { id }).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(writes(), 2, "deleted when it ended");
    assert!(store.rooms.lock().unwrap().is_empty());
    hub.shutdown().await;
}

/// A room's state is serialised and written once per [`rooms::SAVE_COALESCE`] after a
/// change, not at every move: a burst of moves costs one write, and that write holds the last
/// of them (a second hub on the same store restores the room with every move).
#[tokio::test(start_paused = true)]
async fn a_burst_of_moves_is_written_once_with_the_last_of_them() {
    use std::sync::atomic::Ordering;
    let store = Arc::new(MemoryStore::default());
    let hub = Hub::start(store.clone(), HubConfig::default());
    let mut kiosk = connect(&hub, guest("kiosk")).await;
    let ServerMsg::Room { room, .. } = kiosk.ask(local_xo).await else {
        panic!("a snapshot")
    };
    let writes = || store.room_writes.load(Ordering::Relaxed);
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(writes(), 1, "the new room, written once it had lasted");
    // Four moves at one instant, no line among them.
    for cell in [0, 4, 8, 2] {
        let reply = kiosk.ask(|id| ClientMsg::Move { id, cell }).await;
        assert!(matches!(reply, ServerMsg::Room { .. }), "{reply:?}");
    }
    assert_eq!(writes(), 1, "nothing written before the coalescing time");
    tokio::time::sleep(rooms::SAVE_COALESCE + Duration::from_millis(1)).await;
    assert_eq!(writes(), 2, "the burst, written once");
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(writes(), 2, "and no more while nothing changes");
    hub.shutdown().await;

    let again = Hub::start(store.clone(), HubConfig::default());
    let mut kiosk = connect(&again, guest("kiosk")).await;
    let ServerMsg::Room { room: restored, .. } = kiosk.open(&room.id).await else {
        panic!("the restored room")
    };
    assert_eq!(restored.moves, vec![0, 4, 8, 2], "every move of the burst");
    again.shutdown().await;
}
