//! Open rooms are bounded (every room holds memory until it closes): past three quarters of
//! `max_rooms`, creating a room closes the oldest rooms nobody views; at `max_rooms` of rooms
//! that are all in use, creating one is refused with `unavailable`. Past `rooms_per_host_soft`
//! rooms of one creator, creating another closes that creator's oldest rooms nobody views.
//! Wrong passcodes are limited per player and room (M3.3).

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::*;
use engine::Game;
use protocol::{ClientMsg, CreateRoom, ErrorCode, OpponentRequest, ServerMsg};
use rooms::{Hub, HubConfig};
use tokio::io::DuplexStream;

fn bot_room() -> CreateRoom {
    CreateRoom {
        game: Game::Xo,
        opponent: OpponentRequest::Bot {
            difficulty: None,
            side: None,
        },
        time_per_move_s: None,
    }
}

async fn create(c: &mut Client<DuplexStream>) -> ServerMsg {
    c.ask(|id| ClientMsg::CreateRoom {
        id,
        room: bot_room(),
    })
    .await
}

/// The lobby settles once the closing rooms have finished.
async fn lobby_len(hub: &Hub) -> usize {
    tokio::time::sleep(Duration::from_millis(100)).await;
    hub.lobby().len()
}

#[tokio::test]
async fn rooms_nobody_views_make_way_and_rooms_in_use_are_refused_at_the_limit() {
    let config = HubConfig {
        max_rooms: 8,
        ..HubConfig::default()
    };
    let hub = Hub::start(Arc::new(MemoryStore::default()), config);
    // Twenty guests each open a bot game and leave it: the server never holds more than 8.
    for i in 0..20 {
        let mut c = connect_duplex(&hub, guest(&format!("passer{i}"))).await;
        let created = create(&mut c).await;
        assert!(matches!(created, ServerMsg::Room { .. }), "{created:?}");
        c.ask(|id| ClientMsg::Close { id }).await;
        assert!(lobby_len(&hub).await <= 8);
    }
    // Eight guests who stay in their rooms fill it; a ninth is refused, and told why.
    let mut stayers = Vec::new();
    for i in 0..8 {
        let mut c = connect_duplex(&hub, guest(&format!("stayer{i}"))).await;
        let created = create(&mut c).await;
        assert!(matches!(created, ServerMsg::Room { .. }), "{created:?}");
        stayers.push(c);
        // The rooms asked to make way close in their own tasks.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(lobby_len(&hub).await, 8);
    let mut late = connect_duplex(&hub, guest("late")).await;
    let refused = create(&mut late).await;
    assert_eq!(error_code(&refused), ErrorCode::Unavailable);
    hub.shutdown().await;
}

/// The rooms the limit closes first are the oldest ones nobody views, not the oldest bot
/// games: six guests still playing the server's first bot games (three quarters of 8) once
/// stopped it closing anything, and the third passer-by after them was refused.
#[tokio::test]
async fn viewed_rooms_do_not_stop_the_limit_closing_the_ones_nobody_views() {
    let config = HubConfig {
        max_rooms: 8,
        ..HubConfig::default()
    };
    let hub = Hub::start(Arc::new(MemoryStore::default()), config);
    let (mut stayers, mut in_use) = (Vec::new(), Vec::new());
    for i in 0..6 {
        let mut c = connect_duplex(&hub, guest(&format!("stayer{i}"))).await;
        let created = create(&mut c).await;
        in_use.push(room_of(&created).id.clone());
        stayers.push(c);
    }
    for i in 0..20 {
        let mut c = connect_duplex(&hub, guest(&format!("passer{i}"))).await;
        let created = create(&mut c).await;
        assert!(
            matches!(created, ServerMsg::Room { .. }),
            "passer {i} after six rooms in use: {created:?}"
        );
        c.ask(|id| ClientMsg::Close { id }).await;
        assert!(lobby_len(&hub).await <= 8);
    }
    // The rooms in use are all still open.
    let open: Vec<String> = hub.lobby().into_iter().map(|r| r.id).collect();
    for room in &in_use {
        assert!(
            open.contains(room),
            "{room} was closed under its player: {open:?}"
        );
    }
    drop(stayers);
    hub.shutdown().await;
}

#[tokio::test]
async fn one_creator_keeps_about_twenty_rooms() {
    let hub = Hub::start(Arc::new(MemoryStore::default()), HubConfig::default());
    let mut kiosk = connect_duplex(&hub, guest("kiosk")).await;
    for _ in 0..30 {
        let created = create(&mut kiosk).await;
        assert!(matches!(created, ServerMsg::Room { .. }), "{created:?}");
    }
    let open = lobby_len(&hub).await;
    assert!(open <= 21, "{open} rooms of one creator");
    hub.shutdown().await;
}

/// The same for one creator's rooms: a kiosk whose first games are still watched from phones
/// goes on creating games, its later rooms nobody views making way. Before, the rooms asked to
/// make way were its oldest, watched or not, and with four of them watched (a limit of 4 and 8
/// here, 20 and 50 by default) the kiosk was refused its next game at eight.
#[tokio::test]
async fn watched_rooms_of_one_creator_do_not_stop_its_others_closing() {
    let config = HubConfig {
        rooms_per_host_soft: 4,
        max_rooms_per_host: 8,
        ..HubConfig::default()
    };
    let hub = Hub::start(Arc::new(MemoryStore::default()), config);
    let mut kiosk = connect_duplex(&hub, guest("kiosk")).await;
    let mut phones = Vec::new();
    for i in 0..4 {
        let created = create(&mut kiosk).await;
        let room = room_of(&created).id.clone();
        let mut phone = connect_duplex(&hub, guest(&format!("phone{i}"))).await;
        let seen = phone.open(&room).await;
        assert!(matches!(seen, ServerMsg::Room { .. }), "{seen:?}");
        phones.push(phone);
    }
    for game in 0..20 {
        let created = create(&mut kiosk).await;
        assert!(
            matches!(created, ServerMsg::Room { .. }),
            "game {game} after four watched ones: {created:?}"
        );
        // The rooms asked to make way close in their own tasks.
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    drop(phones);
    hub.shutdown().await;
}

/// Creates an online XO room asking for `code`; its id.
async fn passcode_room(host: &mut Client<DuplexStream>, code: &str) -> String {
    let created = host
        .ask(|id| ClientMsg::CreateRoom {
            id,
            room: CreateRoom {
                game: Game::Xo,
                opponent: OpponentRequest::Player {
                    joining: protocol::JoiningRequest::Passcode { code: code.into() },
                },
                time_per_move_s: None,
            },
        })
        .await;
    room_of(&created).id.clone()
}

/// A `join` of `room` with passcode `code`, for [`Client::ask`].
fn join_with(room: &str, code: &str) -> impl FnOnce(Option<u32>) -> ClientMsg + use<> {
    let (room, code) = (room.to_owned(), code.to_owned());
    move |id| ClientMsg::Join {
        id,
        room,
        passcode: Some(code),
    }
}

/// M3.3 with paused time: five wrong passcodes lock that player out of that room for five
/// minutes, even with the right code; the lock-out ends with the window, and other players are
/// not affected meanwhile.
#[tokio::test(start_paused = true)]
async fn wrong_passcodes_lock_the_guesser_out_for_the_window() {
    let hub = Hub::start(Arc::new(MemoryStore::default()), HubConfig::default());
    let mut host = connect_duplex(&hub, user(1, "host")).await;
    host.wait = Duration::from_secs(3600);
    let room = passcode_room(&mut host, "4711").await;
    let mut guesser = connect_duplex(&hub, user(2, "guesser")).await;
    guesser.wait = Duration::from_secs(3600);
    let join = |code: &str| join_with(&room, code);
    for code in ["0000", "0001", "0002", "0003", "0004"] {
        let answer = guesser.ask(join(code)).await;
        assert_eq!(error_code(&answer), ErrorCode::WrongPasscode);
    }
    let locked = guesser.ask(join("4711")).await;
    assert_eq!(error_code(&locked), ErrorCode::WrongPasscode);
    assert!(
        matches!(&locked, ServerMsg::Error { message, .. } if message.contains("too many")),
        "{locked:?}"
    );
    // Another player is not locked out (they just guess wrong).
    let mut other = connect_duplex(&hub, user(3, "other")).await;
    other.wait = Duration::from_secs(3600);
    let wrong = other.ask(join("9999")).await;
    assert!(
        matches!(&wrong, ServerMsg::Error { message, .. } if message == "wrong passcode"),
        "{wrong:?}"
    );
    // After the window the right code seats the guesser.
    tokio::time::sleep(Duration::from_secs(5 * 60 + 1)).await;
    let seated = guesser.ask(join("4711")).await;
    assert!(matches!(seated, ServerMsg::Room { .. }), "{seated:?}");
    hub.shutdown().await;
}

/// After the room-wide budget of wrong passcodes was spent by several accounts,
/// everyone was refused for five minutes, the friend with the right code included. A player who
/// has made no failed attempt is never held by the room-wide lock; the guessers are.
#[tokio::test(start_paused = true)]
async fn friend_with_no_failed_attempt_is_not_held_by_the_room_wide_lock() {
    let config = HubConfig {
        passcode_attempts: 5,
        passcode_attempts_per_room: 6,
        ..HubConfig::default()
    };
    let hub = Hub::start(Arc::new(MemoryStore::default()), config);
    let mut host = connect_duplex(&hub, user(1, "host")).await;
    let room = passcode_room(&mut host, "4711").await;
    let join = |code: &str| join_with(&room, code);
    // Three accounts spend the room's budget, two wrong codes each.
    let mut guessers = Vec::new();
    for n in 2..5 {
        let mut g = connect_duplex(&hub, user(n, "guesser")).await;
        for code in ["0000", "0001"] {
            assert_eq!(
                error_code(&g.ask(join(code)).await),
                ErrorCode::WrongPasscode
            );
        }
        guessers.push(g);
    }
    let held = guessers[0].ask(join("4711")).await;
    assert!(
        matches!(&held, ServerMsg::Error { message, .. } if message.contains("too many")),
        "a guesser is held by the room-wide lock: {held:?}"
    );
    let mut friend = connect_duplex(&hub, user(9, "friend")).await;
    let seated = friend.ask(join("4711")).await;
    assert!(matches!(seated, ServerMsg::Room { .. }), "{seated:?}");
    hub.shutdown().await;
}
