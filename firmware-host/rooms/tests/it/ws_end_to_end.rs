//! The hub served on a real 127.0.0.1 listener, played through real WebSocket clients in JSON
//! and postcard. Storage is the in-memory test store of `common` (the redb store lives in
//! `firmware-host`, whose own `tests/ws_*.rs` cover the wired server).

#![allow(clippy::unwrap_used)] // test harness: a failure should panic loudly
#![allow(clippy::result_large_err)] // the handshake callback's type is tungstenite's

use crate::common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use common::*;
use engine::{Game, Mark};
use futures_util::SinkExt;
use protocol::records::GameEnd;
use protocol::{
    ClientMsg, CreateRoom, ErrorCode, Event, Framing, JoiningRequest, OpponentRequest, Phase,
    RoomView, ServerMsg,
};
use rooms::{Hub, HubConfig, Identity};
use tokio::net::{TcpListener, TcpStream};
use tokio_tungstenite::MaybeTlsStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::handshake::server::{Request, Response};

type Ws = MaybeTlsStream<TcpStream>;

/// Serves `hub` on a loopback port. The test stands in for the HTTP layer: the identity comes
/// from the query (`?user=1&name=sara` or `?guest=abc`) instead of cookies.
async fn serve(hub: Hub) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let hub = hub.clone();
            tokio::spawn(async move {
                let mut who: Option<Identity> = None;
                let ws =
                    tokio_tungstenite::accept_hdr_async(tcp, |req: &Request, resp: Response| {
                        who = Some(identity(req.uri().query().unwrap_or("")));
                        Ok(resp)
                    })
                    .await
                    .unwrap();
                hub.serve(ws.into_inner(), Vec::new(), who.unwrap()).await;
            });
        }
    });
    addr
}

fn identity(query: &str) -> Identity {
    let get = |k: &str| {
        query
            .split('&')
            .find_map(|kv| kv.strip_prefix(&format!("{k}=")))
            .map(str::to_owned)
    };
    let mut who = match (get("user"), get("name"), get("guest")) {
        (Some(id), Some(name), _) => user(id.parse().unwrap(), &name),
        (_, _, Some(g)) => guest(&g),
        _ => guest("anonymous"),
    };
    if let Some(session) = get("session") {
        who.session = Some(session);
    }
    who
}

async fn connect(addr: SocketAddr, query: &str, framing: Framing) -> Client<Ws> {
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws?{query}"))
        .await
        .unwrap();
    Client::start(ws, framing).await.0
}

async fn start_hub() -> (Hub, Arc<MemoryStore>, SocketAddr) {
    let store = Arc::new(MemoryStore::default());
    let hub = Hub::start(store.clone(), HubConfig::default());
    let addr = serve(hub.clone()).await;
    (hub, store, addr)
}

fn online(game: Game, joining: JoiningRequest) -> CreateRoom {
    CreateRoom {
        game,
        opponent: OpponentRequest::Player { joining },
        time_per_move_s: None,
    }
}

async fn create(c: &mut Client<Ws>, room: CreateRoom) -> RoomView {
    let reply = c.ask(|id| ClientMsg::CreateRoom { id, room }).await;
    room_of(&reply).clone()
}

/// Host and guest seated, ready and started; returns (x, o) clients and the room id.
async fn started(addr: SocketAddr, game: Game) -> (Client<Ws>, Client<Ws>, String, [u64; 2]) {
    let mut sara = connect(addr, "user=1&name=sara", Framing::Text).await;
    let mut omar = connect(addr, "user=2&name=omar", Framing::Binary).await;
    let room = create(&mut sara, online(game, JoiningRequest::Open)).await;
    let id = room.id.clone();
    let joined = omar
        .ask(|rid| ClientMsg::Join {
            id: rid,
            room: id.clone(),
            passcode: None,
        })
        .await;
    assert_eq!(room_of(&joined).you.seat, Some(1));
    let ready = omar.ask(|id| ClientMsg::Ready { id, ready: true }).await;
    assert!(room_of(&ready).seats[1].ready);
    let start = sara.ask(|id| ClientMsg::Start { id }).await;
    let view = room_of(&start);
    assert_eq!(view.phase, Phase::Playing);
    if view.seats[0].mark == Some(Mark::X) {
        (sara, omar, id, [1, 2])
    } else {
        (omar, sara, id, [2, 1])
    }
}

async fn play(c: &mut Client<Ws>, cell: u8) -> RoomView {
    let reply = c.ask(|id| ClientMsg::Move { id, cell }).await;
    room_of(&reply).clone()
}

async fn result(c: &mut Client<Ws>) -> (GameEnd, Vec<protocol::records::RatingUpdate>) {
    match c
        .until("result", |m| {
            matches!(m, ServerMsg::Event(Event::Result { .. }))
        })
        .await
    {
        ServerMsg::Event(Event::Result { end, ratings, .. }) => (end, ratings),
        _ => unreachable!(),
    }
}

#[tokio::test]
async fn rated_infinite_game_by_line_in_json_and_postcard() {
    let (hub, store, addr) = start_hub().await;
    let (mut x, mut o, id, [x_user, o_user]) = started(addr, Game::Infinite).await;
    assert_eq!(hub.stats().rooms_playing, 1);
    assert_eq!(hub.stats().players_online, 2);
    // The ELO preview (E4) is in the snapshots of the active rated game.
    let first = play(&mut x, 0).await;
    assert_eq!(first.elo.unwrap().x_wins, [1216, 1184]);
    play(&mut o, 3).await;
    for (mover, cell) in [(0, 1), (1, 4)] {
        let c = if mover == 0 { &mut x } else { &mut o };
        play(c, cell).await;
    }
    let last = play(&mut x, 2).await;
    assert_eq!(last.phase, Phase::Finished);
    for c in [&mut x, &mut o] {
        let (end, ratings) = result(c).await;
        assert_eq!(
            end,
            GameEnd::Line {
                winner: Mark::X,
                line: [0, 1, 2]
            }
        );
        assert_eq!(ratings.len(), 2);
        assert_eq!((ratings[0].user, ratings[0].change()), (x_user, 16));
        assert_eq!((ratings[1].user, ratings[1].change()), (o_user, -16));
    }
    let games = store.games.lock().unwrap().clone();
    assert_eq!(games.len(), 1);
    assert!(games[0].rated);
    assert_eq!(games[0].id, id);
    assert_eq!(games[0].moves, vec![0, 3, 1, 4, 2]);
    // A finished room is no longer saved for restoring.
    for _ in 0..50 {
        if !store.rooms.lock().unwrap().contains_key(&id) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(!store.rooms.lock().unwrap().contains_key(&id));
}

#[tokio::test]
async fn lobby_is_pushed_live_and_never_shows_passcode() {
    let (hub, _store, addr) = start_hub().await;
    let mut watcher = connect(addr, "guest=w", Framing::Text).await;
    let first = watcher
        .ask(|id| ClientMsg::WatchLobby { id, limit: None })
        .await;
    assert!(matches!(first, ServerMsg::Lobby { ref rooms, total: 0, .. } if rooms.is_empty()));
    let mut sara = connect(addr, "user=1&name=sara", Framing::Text).await;
    let room = create(
        &mut sara,
        online(
            Game::Xo,
            JoiningRequest::Passcode {
                code: "0420".into(),
            },
        ),
    )
    .await;
    let pushed = watcher
        .until("the room's row", |m| matches!(m, ServerMsg::LobbyUpdate { rows, total: 1, .. } if rows.iter().any(|r| r.id == room.id)))
        .await;
    assert!(!serde_json::to_string(&pushed).unwrap().contains("0420"));
    assert!(
        !serde_json::to_string(&hub.lobby())
            .unwrap()
            .contains("0420")
    );
    assert_eq!(hub.lobby().len(), 1);
    assert_eq!(hub.stats().rooms_waiting, 1);
}

#[tokio::test]
async fn passcode_join_and_passcode_absent_for_non_host() {
    let (_hub, _store, addr) = start_hub().await;
    let mut sara = connect(addr, "user=1&name=sara", Framing::Text).await;
    let room = create(
        &mut sara,
        online(
            Game::Xo,
            JoiningRequest::Passcode {
                code: "0420".into(),
            },
        ),
    )
    .await;
    assert!(
        serde_json::to_string(&room).unwrap().contains("0420"),
        "the host sees it"
    );
    let mut omar = connect(addr, "user=2&name=omar", Framing::Text).await;
    let id = room.id.clone();
    let wrong = omar
        .ask(|rid| ClientMsg::Join {
            id: rid,
            room: id.clone(),
            passcode: Some("1111".into()),
        })
        .await;
    assert_eq!(error_code(&wrong), ErrorCode::WrongPasscode);
    let mut seen = Vec::new();
    let rid = omar.id();
    omar.send(ClientMsg::Join {
        id: rid,
        room: id.clone(),
        passcode: Some("0420".into()),
    })
    .await;
    loop {
        let m = omar.recv().await;
        seen.push(serde_json::to_string(&m).unwrap());
        if reply_id(&m) == Some(rid) {
            assert_eq!(room_of(&m).you.seat, Some(1));
            break;
        }
        assert!(seen.len() < 50);
    }
    omar.ask(|id| ClientMsg::Ready { id, ready: true }).await;
    let pong = omar.ask(|id| ClientMsg::Ping { id }).await;
    seen.push(serde_json::to_string(&pong).unwrap());
    assert!(seen.iter().all(|m| !m.contains("0420")), "{seen:?}");
}

#[tokio::test]
async fn approval_request_accepted_by_host() {
    let (_hub, _store, addr) = start_hub().await;
    let mut sara = connect(addr, "user=1&name=sara", Framing::Text).await;
    let room = create(&mut sara, online(Game::Xo, JoiningRequest::Approval)).await;
    let mut omar = connect(addr, "user=2&name=omar", Framing::Binary).await;
    let id = room.id.clone();
    let asked = omar
        .ask(|rid| ClientMsg::Join {
            id: rid,
            room: id.clone(),
            passcode: None,
        })
        .await;
    assert!(room_of(&asked).you.requested);
    assert_eq!(room_of(&asked).you.seat, None);
    sara.until("join request", |m| {
        matches!(m, ServerMsg::Event(Event::JoinRequested { user: 2, .. }))
    })
    .await;
    let accepted = sara.ask(|id| ClientMsg::Accept { id, user: 2 }).await;
    assert!(room_of(&accepted).seats[1].player.is_some());
    omar.until(
        "seated",
        |m| matches!(m, ServerMsg::Room { room, .. } if room.you.seat == Some(1)),
    )
    .await;
}

#[tokio::test]
async fn kicked_player_cannot_view_again() {
    let (_hub, _store, addr) = start_hub().await;
    let mut sara = connect(addr, "user=1&name=sara", Framing::Text).await;
    let room = create(&mut sara, online(Game::Infinite, JoiningRequest::Open)).await;
    let mut omar = connect(addr, "user=2&name=omar", Framing::Text).await;
    let id = room.id.clone();
    omar.ask(|rid| ClientMsg::Join {
        id: rid,
        room: id.clone(),
        passcode: None,
    })
    .await;
    sara.ask(|id| ClientMsg::Kick { id }).await;
    omar.until("kicked", |m| {
        matches!(m, ServerMsg::Event(Event::Kicked { .. }))
    })
    .await;
    omar.until("left", |m| matches!(m, ServerMsg::Left { .. }))
        .await;
    let again = omar.open(&id).await;
    assert_eq!(error_code(&again), ErrorCode::Kicked);
    // A fresh connection of the same player is refused too.
    let mut other = connect(addr, "user=2&name=omar", Framing::Binary).await;
    let again = other.open(&id).await;
    assert_eq!(error_code(&again), ErrorCode::Kicked);
}

#[tokio::test]
async fn spectator_is_refused_and_others_see_nothing() {
    let (_hub, _store, addr) = start_hub().await;
    let (mut x, mut o, id, _) = started(addr, Game::Xo).await;
    let mut fan = connect(addr, "guest=fan", Framing::Text).await;
    let view = fan.open(&id).await;
    assert_eq!(room_of(&view).spectators, 1);
    assert_eq!(room_of(&view).you.seat, None);
    // Drain what the players got from the spectator's arrival.
    x.ask(|id| ClientMsg::Ping { id }).await;
    o.ask(|id| ClientMsg::Ping { id }).await;
    for intent in [
        ClientMsg::Move {
            id: Some(1),
            cell: 4,
        },
        ClientMsg::Resign { id: Some(2) },
        ClientMsg::OfferDraw { id: Some(3) },
        ClientMsg::AnswerDraw {
            id: Some(4),
            accept: true,
        },
    ] {
        fan.send(intent).await;
        assert_eq!(error_code(&fan.recv().await), ErrorCode::Spectator);
    }
    fan.send(ClientMsg::Start { id: Some(5) }).await;
    assert_eq!(error_code(&fan.recv().await), ErrorCode::NotHost);
    // The players' next message is the answer to their own ping: nothing came in between.
    for c in [&mut x, &mut o] {
        let id = c.id();
        c.send(ClientMsg::Ping { id }).await;
        assert_eq!(c.recv().await, ServerMsg::Pong { id });
    }
    // A refused move by a player: only that player hears of it.
    o.send(ClientMsg::Move {
        id: Some(9),
        cell: 4,
    })
    .await;
    assert_eq!(error_code(&o.recv().await), ErrorCode::NotYourTurn);
    let id = x.id();
    x.send(ClientMsg::Ping { id }).await;
    assert_eq!(x.recv().await, ServerMsg::Pong { id });
}

#[tokio::test]
async fn malformed_and_oversized_frames_get_errors_and_connection_stays_open() {
    let (_hub, _store, addr) = start_hub().await;
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws?guest=x"))
        .await
        .unwrap();
    // Speaking before hello is refused.
    let mut c = Client::start_raw(ws, Framing::Text);
    assert!(matches!(
        c.recv().await,
        ServerMsg::Hello { user: None, .. }
    ));
    c.send(ClientMsg::Ping { id: Some(1) }).await;
    assert_eq!(error_code(&c.recv().await), ErrorCode::HelloRequired);
    c.send(ClientMsg::Hello {
        version: protocol::PROTOCOL_VERSION,
    })
    .await;
    c.send_raw(Message::text("{not json")).await;
    assert_eq!(error_code(&c.recv().await), ErrorCode::BadFrame);
    c.send_raw(Message::text(r#"{"teleport":{"cell":4}}"#))
        .await;
    assert_eq!(error_code(&c.recv().await), ErrorCode::BadFrame);
    c.send_raw(Message::text(format!(
        r#"{{"ping":{{"id":1}}}}{}"#,
        " ".repeat(10_000)
    )))
    .await;
    assert_eq!(error_code(&c.recv().await), ErrorCode::FrameTooLarge);
    c.send(ClientMsg::Move {
        id: Some(2),
        cell: 4,
    })
    .await;
    assert_eq!(error_code(&c.recv().await), ErrorCode::NotInRoom);
    let unknown = c.open("nosuch").await;
    assert_eq!(error_code(&unknown), ErrorCode::UnknownRoom);
    assert!(matches!(
        c.ask(|id| ClientMsg::Ping { id }).await,
        ServerMsg::Pong { .. }
    ));
}

/// Connects a guest, checks the server's hello, answers with a hello of `version`, and
/// expects `unsupported_version` and the connection closed.
async fn hello_of_version_is_refused(version: u32, framing: Framing) {
    let (_hub, _store, addr) = start_hub().await;
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws?guest=x"))
        .await
        .unwrap();
    let mut c = Client::start_raw(ws, framing);
    assert!(matches!(
        c.recv().await,
        ServerMsg::Hello {
            version: protocol::PROTOCOL_VERSION,
            ..
        }
    ));
    c.send(ClientMsg::Hello { version }).await;
    assert_eq!(error_code(&c.recv().await), ErrorCode::UnsupportedVersion);
    assert_eq!(c.next().await, None);
}

#[tokio::test]
async fn unsupported_version_closes_the_connection() {
    hello_of_version_is_refused(999, Framing::Binary).await;
}

/// A version newer than the server's is refused in JSON as in postcard; older versions down
/// to `OLDEST_PROTOCOL_VERSION` are served (`firmware-host`'s `protocol_v1` tests).
#[tokio::test]
async fn a_version_after_the_servers_newest_is_refused() {
    hello_of_version_is_refused(protocol::PROTOCOL_VERSION + 1, Framing::Text).await;
    hello_of_version_is_refused(protocol::OLDEST_PROTOCOL_VERSION - 1, Framing::Binary).await;
}

#[tokio::test]
async fn flood_gets_an_error_then_the_connection_closes() {
    let (hub, _store, addr) = start_hub().await;
    let mut c = connect(addr, "guest=flood", Framing::Text).await;
    for i in 0..200 {
        // The server may close mid-way; later sends may fail.
        if c.ws
            .send(Message::text(format!(r#"{{"ping":{{"id":{i}}}}}"#)))
            .await
            .is_err()
        {
            break;
        }
    }
    let mut flood = false;
    for _ in 0..300 {
        match c.next().await {
            Some(ServerMsg::Error {
                code: ErrorCode::Flood,
                ..
            }) => flood = true,
            Some(_) => {}
            None => break,
        }
    }
    assert!(flood);
    for _ in 0..50 {
        if hub.stats().connections == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(hub.stats().connections, 0);
}

#[tokio::test]
async fn resignation_draw_offer_and_exit_over_the_wire() {
    let (_hub, store, addr) = start_hub().await;
    let (mut x, mut o, _id, _) = started(addr, Game::Xo).await;
    x.ask(|id| ClientMsg::OfferDraw { id }).await;
    o.until("offer", |m| {
        matches!(m, ServerMsg::Event(Event::DrawOffered { by: Mark::X, .. }))
    })
    .await;
    let declined = o
        .ask(|id| ClientMsg::AnswerDraw { id, accept: false })
        .await;
    assert_eq!(room_of(&declined).draw_offer, None);
    // Exit during play is a resignation; the exiting player is told `left` after it.
    let id = x.id();
    x.send(ClientMsg::Exit { id }).await;
    let left = x
        .until("left", |m| matches!(m, ServerMsg::Left { .. }))
        .await;
    assert_eq!(reply_id(&left), Some(id));
    let (end, ratings) = result(&mut o).await;
    assert_eq!(end, GameEnd::Resigned { loser: Mark::X });
    assert_eq!(ratings[1].change(), 16);
    assert_eq!(store.games.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn failed_commit_is_reported_and_no_rating_change_is_announced() {
    let (_hub, store, addr) = start_hub().await;
    let (mut x, mut o, _id, _) = started(addr, Game::Xo).await;
    store.fail_commits.store(true, Ordering::SeqCst);
    x.send(ClientMsg::Resign { id: Some(1) }).await;
    let err = o
        .until("storage error", |m| matches!(m, ServerMsg::Error { .. }))
        .await;
    assert_eq!(error_code(&err), ErrorCode::Storage);
    let (_, ratings) = result(&mut o).await;
    assert!(ratings.is_empty());
    assert!(store.games.lock().unwrap().is_empty());
}

/// A rated result the card cannot take is kept and shown as pending — never an
/// unrated result, never a `storage` error — and stored with its ratings once the card works.
#[tokio::test]
async fn rated_result_stays_pending_until_stored_and_is_never_unrated() {
    let (_hub, store, addr) = start_hub().await;
    let (mut x, mut o, id, _) = started(addr, Game::Xo).await;
    store.card_full.store(true, Ordering::SeqCst);
    x.send(ClientMsg::Resign { id: Some(1) }).await;
    for c in [&mut x, &mut o] {
        let pending = c
            .until("a pending result", |m| {
                matches!(m, ServerMsg::Room { room, .. }
                    if room.result.as_ref().is_some_and(|r| r.pending))
            })
            .await;
        let result = room_of(&pending).result.clone().unwrap();
        assert!(result.rated, "still a rated result: {result:?}");
        assert!(result.ratings.is_empty());
        assert_eq!(room_of(&pending).phase, Phase::Finished);
    }
    // Several retries fail while the card is full; nothing is stored meanwhile.
    tokio::time::sleep(std::time::Duration::from_millis(1_200)).await;
    assert!(store.games.lock().unwrap().is_empty());
    store.card_full.store(false, Ordering::SeqCst);
    for c in [&mut x, &mut o] {
        let stored = c
            .until("the stored result", |m| match m {
                ServerMsg::Room { room, .. } => room.result.as_ref().is_some_and(|r| !r.pending),
                ServerMsg::Error { .. } => panic!("no error for a pending result: {m:?}"),
                _ => false,
            })
            .await;
        let result = room_of(&stored).result.clone().unwrap();
        assert_eq!(result.ratings.len(), 2, "{result:?}");
        assert!(result.rated);
    }
    let games = store.games.lock().unwrap();
    assert_eq!(games.len(), 1, "stored exactly once");
    assert_eq!(games[0].id, id);
    assert!(games[0].rated);
}

#[tokio::test]
async fn second_seat_is_refused_during_an_active_game() {
    let (_hub, _store, addr) = start_hub().await;
    let (mut x, _o, _id, _) = started(addr, Game::Xo).await;
    let mut host2 = connect(addr, "user=3&name=lina", Framing::Text).await;
    let other = create(&mut host2, online(Game::Xo, JoiningRequest::Open)).await;
    let refused = x
        .ask(|id| ClientMsg::Join {
            id,
            room: other.id.clone(),
            passcode: None,
        })
        .await;
    assert_eq!(error_code(&refused), ErrorCode::AlreadySeated);
    let refused = x
        .ask(|id| ClientMsg::CreateRoom {
            id,
            room: online(Game::Xo, JoiningRequest::Open),
        })
        .await;
    assert_eq!(error_code(&refused), ErrorCode::AlreadySeated);
}

#[tokio::test]
async fn bot_game_with_hint_and_undo_for_a_guest() {
    let (_hub, store, addr) = start_hub().await;
    let mut kiosk = connect(addr, "guest=kiosk", Framing::Binary).await;
    let room = create(
        &mut kiosk,
        CreateRoom {
            game: Game::Xo,
            opponent: OpponentRequest::Bot {
                difficulty: Some(100),
                side: None,
            },
            time_per_move_s: None,
        },
    )
    .await;
    assert_eq!(room.phase, Phase::Playing);
    let hint = kiosk.ask(|id| ClientMsg::Hint { id }).await;
    let ServerMsg::Hint { cell, .. } = hint else {
        panic!("{hint:?}")
    };
    let after = play(&mut kiosk, cell).await;
    assert_eq!(after.moves.len(), 2, "the bot replied");
    let undone = kiosk.ask(|id| ClientMsg::Undo { id }).await;
    assert!(room_of(&undone).moves.is_empty());
    // Play to the end: a perfect bot never loses XO.
    let mut view = room_of(&undone).clone();
    for _ in 0..9 {
        if view.phase != Phase::Playing {
            break;
        }
        let free = (0..9)
            .find(|c| !view.x.contains(c) && !view.o.contains(c))
            .unwrap();
        view = play(&mut kiosk, free).await;
    }
    let (end, ratings) = result(&mut kiosk).await;
    assert_ne!(end.winner(), Some(Mark::X));
    assert!(ratings.is_empty());
    assert!(!store.games.lock().unwrap()[0].rated);
}

/// While a result waits for the store, an intent that would replace the finished game (play
/// again) waits for the answer: the player sees the result, then the answer to the last move,
/// then the next room, as if the card were instant; the room answered a spectator meanwhile.
#[tokio::test]
async fn play_again_while_the_result_is_stored_follows_the_result() {
    let (_hub, store, addr) = start_hub().await;
    let mut kiosk = connect(addr, "guest=kiosk", Framing::Text).await;
    let room = create(
        &mut kiosk,
        CreateRoom {
            game: Game::Xo,
            opponent: OpponentRequest::Local {
                names: ["Sara".into(), "Omar".into()],
            },
            time_per_move_s: None,
        },
    )
    .await;
    let mut view = room;
    for cell in [0, 3, 1, 4] {
        view = play(&mut kiosk, cell).await;
    }
    // X's top row ends the game; its result waits for the store.
    store.hold.store(true, Ordering::SeqCst);
    let last = kiosk.id();
    kiosk.send(ClientMsg::Move { id: last, cell: 2 }).await;
    let again = kiosk.id();
    kiosk.send(ClientMsg::PlayAgain { id: again }).await;
    let mut watcher = connect(addr, "guest=watcher", Framing::Text).await;
    let seen = watcher.open(&view.id).await;
    assert_eq!(room_of(&seen).phase, Phase::Finished);
    assert_eq!(
        room_of(&seen).result,
        None,
        "not announced before it is stored"
    );
    store.hold.store(false, Ordering::SeqCst);
    store.released.notify_waiters();
    let mut order = Vec::new();
    for _ in 0..50 {
        let msg = kiosk.recv().await;
        let what = match &msg {
            ServerMsg::Event(Event::Result { .. }) => "result",
            ServerMsg::Event(Event::NextRoom { .. }) => "next room",
            m if reply_id(m) == Some(last) => "move answered",
            _ => continue,
        };
        order.push(what);
        if what == "next room" {
            break;
        }
    }
    assert_eq!(order, ["result", "move answered", "next room"]);
}

#[tokio::test]
async fn local_names_must_differ() {
    let (_hub, _store, addr) = start_hub().await;
    let mut kiosk = connect(addr, "guest=kiosk", Framing::Text).await;
    let clash = kiosk
        .ask(|id| ClientMsg::CreateRoom {
            id,
            room: CreateRoom {
                game: Game::Infinite,
                opponent: OpponentRequest::Local {
                    names: ["Sara".into(), " sara".into()],
                },
                time_per_move_s: Some(30),
            },
        })
        .await;
    assert_eq!(error_code(&clash), ErrorCode::NameClash);
}

#[tokio::test]
async fn reconnection_resends_full_state_and_restart_restores_the_game() {
    let (hub, store, addr) = start_hub().await;
    let (mut x, o, id, [x_user, _]) = started(addr, Game::Infinite).await;
    play(&mut x, 4).await;
    // Reconnect: a new connection of the same player gets the whole room.
    drop(o);
    let x_name = if x_user == 1 { "sara" } else { "omar" };
    let mut again = connect(
        addr,
        &format!("user={x_user}&name={x_name}"),
        Framing::Binary,
    )
    .await;
    let view = again.open(&id).await;
    let view = room_of(&view);
    assert_eq!(view.moves, vec![4]);
    assert!(view.you.seat.is_some());
    assert_eq!(
        view.seats.iter().filter(|s| s.present).count(),
        1,
        "O is away (M3.10)"
    );
    // Restart on the same store.
    hub.shutdown().await;
    assert!(store.rooms.lock().unwrap().contains_key(&id));
    let hub2 = Hub::start(store.clone(), HubConfig::default());
    let addr2 = serve(hub2.clone()).await;
    assert_eq!(hub2.stats().rooms_playing, 1);
    let mut back = connect(
        addr2,
        &format!("user={x_user}&name={x_name}"),
        Framing::Text,
    )
    .await;
    let view = back.open(&id).await;
    let view = room_of(&view);
    assert_eq!(view.phase, Phase::Playing);
    assert_eq!(view.moves, vec![4]);
    assert_eq!(view.turn, Mark::O);
    let clock = view.clock.expect("the side to move has a clock");
    assert_eq!(clock.mark, Mark::O);
    assert!(
        clock.remaining_ms > 9_000,
        "a fresh full clock: {}",
        clock.remaining_ms
    );
}

#[tokio::test]
async fn accepted_request_moves_player_and_reopens_old_seat() {
    let (_hub, _store, addr) = start_hub().await;
    let mut sara = connect(addr, "user=1&name=sara", Framing::Text).await;
    let old = create(&mut sara, online(Game::Xo, JoiningRequest::Open)).await;
    let mut omar = connect(addr, "user=2&name=omar", Framing::Binary).await;
    let old_id = old.id.clone();
    omar.ask(|id| ClientMsg::Join {
        id,
        room: old_id.clone(),
        passcode: None,
    })
    .await;
    let mut lina = connect(addr, "user=3&name=lina", Framing::Text).await;
    let new = create(&mut lina, online(Game::Infinite, JoiningRequest::Approval)).await;
    let new_id = new.id.clone();
    omar.ask(|id| ClientMsg::Join {
        id,
        room: new_id.clone(),
        passcode: None,
    })
    .await;
    // The pending request keeps the old seat (M3.4); only presence changed.
    let seen = sara
        .until("omar away", |m| {
            matches!(m, ServerMsg::Room { room, .. } if room.seats[1].player.is_some() && !room.seats[1].present)
        })
        .await;
    assert!(room_of(&seen).seats[1].player.is_some());
    // Acceptance moves him and reopens the old seat.
    let accepted = lina.ask(|id| ClientMsg::Accept { id, user: 2 }).await;
    assert!(room_of(&accepted).seats[1].player.is_some());
    sara.until(
        "seat reopened",
        |m| matches!(m, ServerMsg::Room { room, .. } if room.seats[1].player.is_none()),
    )
    .await;
    let lobby = omar
        .ask(|id| ClientMsg::WatchLobby { id, limit: None })
        .await;
    let ServerMsg::Lobby { rooms, .. } = lobby else {
        panic!("{lobby:?}")
    };
    assert!(rooms.iter().any(|r| r.id == old_id && r.open_seat));
}

#[tokio::test]
async fn host_leaving_waiting_room_closes_it_and_tells_seated_player() {
    let (hub, _store, addr) = start_hub().await;
    let mut sara = connect(addr, "user=1&name=sara", Framing::Text).await;
    let room = create(&mut sara, online(Game::Xo, JoiningRequest::Open)).await;
    let mut omar = connect(addr, "user=2&name=omar", Framing::Text).await;
    let id = room.id.clone();
    omar.ask(|rid| ClientMsg::Join {
        id: rid,
        room: id.clone(),
        passcode: None,
    })
    .await;
    let left = sara.ask(|id| ClientMsg::Exit { id }).await;
    assert!(matches!(left, ServerMsg::Left { .. }));
    let closed = omar
        .until("room closed", |m| {
            matches!(m, ServerMsg::Event(Event::RoomClosed { .. }))
        })
        .await;
    assert!(matches!(
        closed,
        ServerMsg::Event(Event::RoomClosed {
            reason: protocol::CloseReason::HostLeft,
            ..
        })
    ));
    omar.until("left", |m| matches!(m, ServerMsg::Left { .. }))
        .await;
    assert!(hub.lobby().is_empty());
    // Both may sit elsewhere again.
    let again = create(&mut omar, online(Game::Xo, JoiningRequest::Open)).await;
    assert_eq!(again.you.seat, Some(0));
}

#[tokio::test]
async fn repeated_bad_frames_close_the_connection() {
    let (_hub, _store, addr) = start_hub().await;
    let mut c = connect(addr, "guest=noise", Framing::Text).await;
    let mut errors = 0;
    for _ in 0..10 {
        c.send_raw(Message::text("garbage")).await;
        match c.next().await {
            Some(ServerMsg::Error {
                code: ErrorCode::BadFrame,
                ..
            }) => errors += 1,
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(errors, 10);
    assert_eq!(c.next().await, None, "closed after ten bad frames in a row");
}

/// A WebSocket opened before its session ended (logout, password change) still
/// acted as the player and could create rated rooms. Ending the session closes it (error
/// `signed_out`, close code 4001); other sessions of the player go on until they are ended too.
#[tokio::test]
async fn socket_of_an_ended_session_can_no_longer_act_as_the_player() {
    let (hub, _store, addr) = start_hub().await;
    let mut phone = connect(addr, "user=1&name=sara&session=phone", Framing::Text).await;
    let mut laptop = connect(addr, "user=1&name=sara&session=laptop", Framing::Binary).await;
    let mut omar = connect(addr, "user=2&name=omar&session=omar", Framing::Text).await;
    // Registered once the hello is through.
    for c in [&mut phone, &mut omar] {
        c.ask(|id| ClientMsg::Ping { id }).await;
    }
    laptop.ask(|id| ClientMsg::Ping { id }).await;

    hub.end_session("phone");
    let told = phone.recv().await;
    assert_eq!(error_code(&told), ErrorCode::SignedOut);
    let close = tokio::time::timeout(WAIT, async {
        use futures_util::StreamExt;
        loop {
            match phone.ws.next().await {
                Some(Ok(Message::Close(frame))) => return frame,
                Some(Ok(_)) => continue,
                other => panic!("expected a close frame, got {other:?}"),
            }
        }
    })
    .await
    .expect("closed in time")
    .expect("with a code");
    assert_eq!(u16::from(close.code), 4001);
    assert_eq!(close.reason.as_str(), "signed_out");
    // The closed socket cannot create a rated room: nothing of it reaches the lobby.
    let sent = phone
        .ws
        .send(Message::text(
            r#"{"create_room":{"id":9,"room":{"game":"xo","opponent":{"player":{}}}}}"#,
        ))
        .await;
    assert!(sent.is_err() || phone.next().await.is_none());
    assert!(hub.lobby().is_empty(), "no room was created");

    // The player's other session still acts; the other player is untouched.
    let room = create(&mut laptop, online(Game::Xo, JoiningRequest::Open)).await;
    assert_eq!(room.you.seat, Some(0));
    hub.end_user_sessions(1, Some("laptop"));
    laptop.ask(|id| ClientMsg::Ping { id }).await;
    hub.end_user_sessions(1, None);
    assert_eq!(error_code(&laptop.recv().await), ErrorCode::SignedOut);
    assert!(laptop.next().await.is_none(), "closed");
    omar.ask(|id| ClientMsg::Ping { id }).await;
}

/// A started rated XO game where X has just played its winning move (cell 2, id 99) while the
/// store holds its result; each reader has seen every earlier snapshot.
struct Held {
    /// Kept for the test's length.
    _hub: Hub,
    store: Arc<MemoryStore>,
    addr: SocketAddr,
    x: Client<Ws>,
    o: Client<Ws>,
    room: String,
}

async fn winning_move_held() -> Held {
    let (hub, store, addr) = start_hub().await;
    let (mut x, mut o, id, _) = started(addr, Game::Xo).await;
    // X takes 0 and 1, O takes 3 and 4.
    for (n, cell) in [0u8, 3, 1, 4].into_iter().enumerate() {
        let (mover, other) = if n % 2 == 0 {
            (&mut x, &mut o)
        } else {
            (&mut o, &mut x)
        };
        assert_eq!(play(mover, cell).await.moves.len(), n + 1);
        other
            .until(
                "the move's snapshot",
                |m| matches!(m, ServerMsg::Room { room, .. } if room.moves.len() == n + 1),
            )
            .await;
    }
    // A slow card: the result is stored, its answer held.
    store.hold.store(true, Ordering::SeqCst);
    x.send(ClientMsg::Move {
        id: Some(99),
        cell: 2,
    })
    .await;
    Held {
        _hub: hub,
        store,
        addr,
        x,
        o,
        room: id,
    }
}

/// The store answers the result it held.
fn release(store: &MemoryStore) {
    store.hold.store(false, Ordering::SeqCst);
    store.released.notify_waiters();
}

/// The winning move's event (X in cell 2), as a reader receives it.
fn is_winning_move(msg: &ServerMsg) -> bool {
    matches!(
        msg,
        ServerMsg::Event(Event::Moved {
            cell: 2,
            mark: Mark::X,
            ..
        })
    )
}

/// The stored result's event, with both players' rating changes.
fn is_rated_result(msg: &ServerMsg) -> bool {
    matches!(msg, ServerMsg::Event(Event::Result { ratings, .. }) if ratings.len() == 2)
}

/// Protocol order (the events, then the stored result, then the snapshots): a game-ending
/// move's `moved` event is held with its result while the result is stored, so each reader
/// gets move, result and snapshot together, never the move alone first.
#[tokio::test]
async fn a_game_ending_move_goes_out_with_its_stored_result_not_before() {
    let Held {
        store,
        mut x,
        mut o,
        ..
    } = winning_move_held().await;
    for c in [&mut x, &mut o] {
        let early = tokio::time::timeout(
            std::time::Duration::from_millis(300),
            futures_util::StreamExt::next(&mut c.ws),
        )
        .await;
        assert!(
            early.is_err(),
            "nothing of the winning move before its result is stored: {early:?}"
        );
    }
    release(&store);
    for c in [&mut x, &mut o] {
        let moved = c.recv().await;
        assert!(is_winning_move(&moved), "{moved:?}");
        let result = c.recv().await;
        assert!(is_rated_result(&result), "{result:?}");
        let snapshot = c.recv().await;
        assert_eq!(room_of(&snapshot).phase, Phase::Finished);
    }
}

/// PROTOCOL.md's exception: another change to the room while the result is stored (here a
/// spectator arriving) sends the held move first, with that change's snapshot (the game over,
/// no result yet); the result and the move's answer follow once it is stored.
#[tokio::test]
async fn a_change_while_the_result_is_stored_sends_the_held_move_first() {
    let Held {
        store,
        addr,
        mut x,
        mut o,
        room: id,
        ..
    } = winning_move_held().await;
    let mut watcher = connect(addr, "guest=watcher", Framing::Binary).await;
    let seen = watcher.open(&id).await;
    assert_eq!(room_of(&seen).phase, Phase::Finished);
    assert_eq!(room_of(&seen).result, None, "not before it is stored");
    for c in [&mut x, &mut o] {
        let moved = c.recv().await;
        assert!(is_winning_move(&moved), "{moved:?}");
        let snapshot = c.recv().await;
        assert_eq!(
            reply_id(&snapshot),
            None,
            "the watcher's change: {snapshot:?}"
        );
        assert_eq!(room_of(&snapshot).phase, Phase::Finished);
        assert_eq!(room_of(&snapshot).result, None, "not before it is stored");
    }
    release(&store);
    // Then the result, and the held snapshot: X's is the winning move's answer.
    for (c, answers) in [(&mut x, Some(Some(99))), (&mut o, None)] {
        let result = c.recv().await;
        assert!(is_rated_result(&result), "{result:?}");
        let snapshot = c.recv().await;
        assert_eq!(reply_id(&snapshot), answers, "{snapshot:?}");
        assert!(room_of(&snapshot).result.is_some(), "{snapshot:?}");
    }
}
