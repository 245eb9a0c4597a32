//! The protocol's contract as an outside client meets it (defects, each named after the
//! rule it broke): the real server in-process on 127.0.0.1 with a real redb file, real
//! WebSockets through `xo-client`, JSON framing.

use crate::support;

use std::collections::BTreeSet;

use engine::{Game, Mark};
use protocol::{
    ClientMsg, CreateRoom, ErrorCode, Event, Framing, JoiningRequest, OpponentRequest, Phase,
    RequestId, RoomView, ServerMsg,
};
use support::TestServer;
use xo_client::Client;

/// Messages read at most while waiting for one (each within the client's reply timeout).
const READ_LIMIT: usize = 500;

async fn connect(s: &TestServer, cookie: Option<&str>) -> Client {
    Client::connect(&format!("http://{}", s.addr()), cookie, Framing::Text)
        .await
        .expect("connects and exchanges hellos")
}

/// Reads until `want` picks a message; panics on a timeout or after [`READ_LIMIT`] messages.
async fn until<T>(c: &mut Client, what: &str, want: impl Fn(&ServerMsg) -> Option<T>) -> T {
    for _ in 0..READ_LIMIT {
        let msg = c
            .recv()
            .await
            .unwrap_or_else(|e| panic!("waiting for {what}: {e}"));
        if let Some(found) = want(&msg) {
            return found;
        }
    }
    panic!("waiting for {what}: not among {READ_LIMIT} messages");
}

/// The snapshot answering request `id`; an error answering it fails the test.
async fn snapshot(c: &mut Client, id: Option<RequestId>, what: &str) -> RoomView {
    until(c, what, |m| match m {
        ServerMsg::Room { id: got, room } if *got == id => Some((**room).clone()),
        ServerMsg::Error {
            id: got,
            code,
            message,
        } if *got == id => panic!("{what}: refused with {code}: {message}"),
        _ => None,
    })
    .await
}

/// The error answering request `id`; anything else answering it fails the test.
async fn refusal(c: &mut Client, id: Option<RequestId>, what: &str) -> ErrorCode {
    until(c, what, |m| match m {
        ServerMsg::Error { id: got, code, .. } if *got == id => Some(*code),
        ServerMsg::Room { id: got, .. } | ServerMsg::Left { id: got, .. } if *got == id => {
            panic!("{what}: accepted")
        }
        _ => None,
    })
    .await
}

async fn send(c: &mut Client, msg: ClientMsg) -> Option<RequestId> {
    let id = c.id();
    c.send(msg.with_id(id.expect("ids are numbered")))
        .await
        .expect("sent");
    id
}

async fn create(c: &mut Client, game: Game, opponent: OpponentRequest) -> RoomView {
    let id = send(
        c,
        ClientMsg::CreateRoom {
            id: None,
            room: CreateRoom {
                game,
                opponent,
                time_per_move_s: None,
            },
        },
    )
    .await;
    snapshot(c, id, "room created").await
}

fn online(joining: JoiningRequest) -> OpponentRequest {
    OpponentRequest::Player { joining }
}

async fn join(c: &mut Client, room: &str, passcode: Option<&str>) -> Option<RequestId> {
    send(
        c,
        ClientMsg::Join {
            id: None,
            room: room.into(),
            passcode: passcode.map(str::to_owned),
        },
    )
    .await
}

async fn mv(c: &mut Client, cell: u8) -> Option<RequestId> {
    send(c, ClientMsg::Move { id: None, cell }).await
}

/// A rated room of `game` hosted by `host`, `guest` seated and ready, started: its id and the
/// host's snapshot of the start.
async fn rated_game(host: &mut Client, guest: &mut Client, game: Game) -> (String, RoomView) {
    let room = create(host, game, online(JoiningRequest::Open)).await.id;
    let id = join(guest, &room, None).await;
    snapshot(guest, id, "guest seated").await;
    let id = send(
        guest,
        ClientMsg::Ready {
            id: None,
            ready: true,
        },
    )
    .await;
    snapshot(guest, id, "guest ready").await;
    let id = send(host, ClientMsg::Start { id: None }).await;
    let started = snapshot(host, id, "started").await;
    (room, started)
}

/// The lobby list as this connection is shown it (its first 100 rows).
async fn lobby_rows(c: &mut Client) -> Vec<protocol::RoomSummary> {
    let id = send(
        c,
        ClientMsg::WatchLobby {
            id: None,
            limit: Some(100),
        },
    )
    .await;
    until(c, "the lobby", |m| match m {
        ServerMsg::Lobby { id: got, rooms, .. } if *got == id => Some(rooms.clone()),
        _ => None,
    })
    .await
}

/// Signed-in clients, registered one after another.
async fn players<const N: usize>(s: &TestServer, names: [&str; N]) -> [Client; N] {
    let mut out = Vec::new();
    for name in names {
        let cookie = s.register(name, "password-123").await;
        out.push(connect(s, Some(&cookie)).await);
    }
    out.try_into().map_err(|_| "N clients").expect("N clients")
}

/// A refused `join` (already_seated, not_joinable, room_full, wrong_passcode) used to
/// switch the connection's current room to the target, so the player's next move in their own
/// game got `spectator`, and a host's kick got `online_only`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_join_keeps_current_room() {
    let s = TestServer::start().await;
    let [mut alice, mut bob, mut carol, mut henry, mut ivan] =
        players(&s, ["alice", "bob", "carol", "henry", "ivan"]).await;
    let mut kiosk = connect(&s, None).await;

    // Alice and Bob play a rated game in room A.
    let (_, started) = rated_game(&mut alice, &mut bob, Game::Xo).await;
    let alice_is_x = started.seats[0].mark == Some(Mark::X);
    let (x, o) = if alice_is_x {
        (&mut alice, &mut bob)
    } else {
        (&mut bob, &mut alice)
    };

    // Carol waits in passcode room C; Henry and Ivan fill waiting room W; a guest plays the bot.
    let c = create(
        &mut carol,
        Game::Xo,
        online(JoiningRequest::Passcode {
            code: "4321".into(),
        }),
    )
    .await
    .id;
    let w = create(&mut henry, Game::Xo, online(JoiningRequest::Open))
        .await
        .id;
    let id = join(&mut ivan, &w, None).await;
    snapshot(&mut ivan, id, "ivan seated in W").await;
    let b = create(
        &mut kiosk,
        Game::Xo,
        OpponentRequest::Bot {
            difficulty: Some(0),
            side: None,
        },
    )
    .await
    .id;

    // X, in an active game, asks for C's seat: already_seated; then moves in A.
    let id = join(x, &c, Some("4321")).await;
    assert_eq!(refusal(x, id, "x joins C").await, ErrorCode::AlreadySeated);
    let id = mv(x, 0).await;
    assert_eq!(
        snapshot(x, id, "x moves after already_seated").await.x,
        vec![0]
    );

    // O asks to join the bot game: not_joinable; then moves in A.
    let id = join(o, &b, None).await;
    assert_eq!(
        refusal(o, id, "o joins the bot room").await,
        ErrorCode::NotJoinable
    );
    let id = mv(o, 4).await;
    assert_eq!(
        snapshot(o, id, "o moves after not_joinable").await.o,
        vec![4]
    );

    // X asks for W's taken seat: room_full; then moves in A.
    let id = join(x, &w, None).await;
    assert_eq!(refusal(x, id, "x joins W").await, ErrorCode::RoomFull);
    let id = mv(x, 8).await;
    assert_eq!(
        snapshot(x, id, "x moves after room_full").await.x,
        vec![0, 8]
    );

    // Henry, host of waiting room W, tries C with a wrong passcode; then kicks in W.
    let id = join(&mut henry, &c, Some("0000")).await;
    assert_eq!(
        refusal(&mut henry, id, "henry joins C").await,
        ErrorCode::WrongPasscode
    );
    let id = send(&mut henry, ClientMsg::Kick { id: None }).await;
    let after_kick = snapshot(&mut henry, id, "henry kicks after wrong_passcode").await;
    assert_eq!(after_kick.id, w);
    assert!(after_kick.seats[1].player.is_none(), "seat 2 reopened");
    until(&mut ivan, "ivan told he was kicked", |m| {
        matches!(m, ServerMsg::Event(Event::Kicked { room }) if *room == w).then_some(())
    })
    .await;
}

/// An intent sent while its room was closing got no answer at all (the room stopped
/// reading its queue but kept it open while its last save finished). Every intent is answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_intent_to_a_closing_room_is_answered() {
    let s = TestServer::start().await;
    for round in 0..5 {
        let mut kiosk = connect(&s, None).await;
        let local = OpponentRequest::Local {
            names: ["Sara".into(), "Omar".into()],
        };
        create(&mut kiosk, Game::Infinite, local).await;
        // Exit ends the local game (M2.3); the intents behind it, sent at once without waiting,
        // reach a room that is closing or closed.
        let mut asked = BTreeSet::new();
        asked.insert(send(&mut kiosk, ClientMsg::Exit { id: None }).await);
        for cell in 0..12u8 {
            let msg = match cell % 3 {
                0 => ClientMsg::Move {
                    id: None,
                    cell: cell % 9,
                },
                1 => ClientMsg::Undo { id: None },
                _ => ClientMsg::Resign { id: None },
            };
            asked.insert(send(&mut kiosk, msg).await);
        }
        let mut answered = BTreeSet::new();
        while answered.len() < asked.len() {
            let msg = kiosk
                .recv()
                .await
                .unwrap_or_else(|e| panic!("round {round}: {answered:?} of {asked:?}: {e}"));
            let id = match msg {
                ServerMsg::Room { id, .. }
                | ServerMsg::Left { id, .. }
                | ServerMsg::Error { id, .. }
                | ServerMsg::Hint { id, .. } => id,
                _ => continue,
            };
            if id.is_some() {
                assert!(answered.insert(id), "round {round}: {id:?} answered twice");
            }
        }
        assert_eq!(answered, asked, "round {round}");
    }
}

/// M3.4: `seat_moved` went only to viewers of the old room, so the player it concerns
/// (now viewing the room that accepted them) never got it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seat_moved_reaches_the_player_it_concerns() {
    let s = TestServer::start().await;
    let [mut carol, mut bob, mut dave] = players(&s, ["carol", "bob", "dave"]).await;
    let a = create(&mut carol, Game::Xo, online(JoiningRequest::Open))
        .await
        .id;
    let id = join(&mut bob, &a, None).await;
    snapshot(&mut bob, id, "bob seated in A").await;
    let d = create(&mut dave, Game::Xo, online(JoiningRequest::Approval))
        .await
        .id;
    // A pending request elsewhere keeps Bob's seat in A (M3.4); his connection now views D.
    let id = join(&mut bob, &d, None).await;
    let asked = snapshot(&mut bob, id, "bob asks for D").await;
    assert!(asked.you.requested);
    let bob_id = bob.user.expect("bob is signed in");
    until(&mut dave, "dave told of the request", |m| {
        matches!(m, ServerMsg::Event(Event::JoinRequested { user, .. }) if *user == bob_id)
            .then_some(())
    })
    .await;
    let id = send(
        &mut dave,
        ClientMsg::Accept {
            id: None,
            user: bob_id,
        },
    )
    .await;
    snapshot(&mut dave, id, "dave accepts bob").await;
    let (from, to) = until(&mut bob, "bob told his seat moved", |m| match m {
        ServerMsg::Event(Event::SeatMoved { from, to }) => Some((from.clone(), to.clone())),
        _ => None,
    })
    .await;
    assert_eq!((from.as_str(), to.as_str()), (a.as_str(), d.as_str()));
    let reopened = until(&mut carol, "A's seat 2 reopened", |m| match m {
        ServerMsg::Room { room, .. } if room.seats[1].player.is_none() => Some(()),
        _ => None,
    });
    reopened.await;
}

/// XO snapshots listed marks sorted, while the protocol says oldest first (replays
/// and animations need the order). Snapshots and `/api/games/{id}` agree on play order.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn xo_snapshot_lists_marks_in_play_order() {
    let s = TestServer::start().await;
    // A rated game: games without a registered player are not stored, and a
    // local game's seats are names, not accounts.
    let [mut sara, mut omar] = players(&s, ["sara", "omar"]).await;
    let room = create(&mut sara, Game::Xo, online(JoiningRequest::Open))
        .await
        .id;
    let id = join(&mut omar, &room, None).await;
    snapshot(&mut omar, id, "omar seated").await;
    let id = send(
        &mut omar,
        ClientMsg::Ready {
            id: None,
            ready: true,
        },
    )
    .await;
    snapshot(&mut omar, id, "omar ready").await;
    let id = send(&mut sara, ClientMsg::Start { id: None }).await;
    let started = snapshot(&mut sara, id, "started").await;
    let (mut x, mut o) = if started.seats[0].mark == Some(Mark::X) {
        (sara, omar)
    } else {
        (omar, sara)
    };
    // X takes the right column bottom up: 8, 5, 2; O plays 0 and 1.
    let mut last = None;
    for (n, cell) in [8, 0, 5, 1, 2].into_iter().enumerate() {
        let mover = if n % 2 == 0 { &mut x } else { &mut o };
        let id = mv(mover, cell).await;
        last = Some(snapshot(mover, id, "move").await);
    }
    let mut kiosk = x;
    let played = last.expect("five moves");
    assert_eq!(played.x, vec![8, 5, 2], "X's marks oldest first");
    assert_eq!(played.o, vec![0, 1]);
    assert_eq!(
        played.phase,
        Phase::Finished,
        "X completed the right column"
    );

    // The stored game agrees: a signed-in player's bot game (games with no registered player
    // are not stored). X opens in the corner, then takes the lowest free cell.
    let bot = OpponentRequest::Bot {
        difficulty: Some(0),
        side: Some(Mark::X),
    };
    let game = create(&mut kiosk, Game::Xo, bot).await.id;
    let id = mv(&mut kiosk, 8).await;
    let view = snapshot(&mut kiosk, id, "x opens").await;
    let free = (0..9)
        .find(|c| !view.x.contains(c) && !view.o.contains(c))
        .expect("a free cell");
    let id = mv(&mut kiosk, free).await;
    let view = snapshot(&mut kiosk, id, "x again").await;
    assert_eq!(view.x, vec![8, free], "oldest first, not sorted");
    let id = send(&mut kiosk, ClientMsg::Resign { id: None }).await;
    snapshot(&mut kiosk, id, "resigned").await;
    let stored = s.get(&format!("/api/games/{game}"), None).await;
    assert_eq!(stored.status, 200, "{}", stored.text());
    let moves: Vec<u8> = serde_json::from_value(stored.json()["moves"].clone()).expect("moves");
    let x_from_moves: Vec<u8> = moves.iter().step_by(2).copied().collect();
    let o_from_moves: Vec<u8> = moves.iter().skip(1).step_by(2).copied().collect();
    assert_eq!(view.x, x_from_moves, "snapshot and stored game agree");
    assert_eq!(view.o, o_from_moves);
}

/// M3.5: a kick banned only the account, so the kicked person could watch again
/// signed out in the same browser (the same guest cookie), and the lobby offered them
/// the room anyway.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kicked_person_signed_out_in_the_same_browser_is_refused() {
    let s = TestServer::start().await;
    let browser = "xo_guest=0123456789abcdef0123456789abcdef";
    let carol_cookie = s.register("carol", "password-123").await;
    let bob_cookie = s.register("bob", "password-123").await;
    let mut carol = connect(&s, Some(&carol_cookie)).await;
    let mut bob = connect(&s, Some(&format!("{bob_cookie}; {browser}"))).await;
    let room = create(&mut carol, Game::Xo, online(JoiningRequest::Open))
        .await
        .id;
    let id = join(&mut bob, &room, None).await;
    snapshot(&mut bob, id, "bob seated").await;
    let id = send(&mut carol, ClientMsg::Kick { id: None }).await;
    snapshot(&mut carol, id, "carol kicks bob").await;

    // Bob signs out; the browser keeps its guest cookie.
    let mut signed_out = connect(&s, Some(browser)).await;
    assert_eq!(signed_out.user, None, "a guest now");
    let id = send(
        &mut signed_out,
        ClientMsg::Open {
            id: None,
            room: room.clone(),
        },
    )
    .await;
    assert_eq!(
        refusal(&mut signed_out, id, "open after the kick").await,
        ErrorCode::Kicked
    );
    let rows = lobby_rows(&mut signed_out).await;
    assert!(
        rows.iter().all(|r| r.id != room),
        "the kicked browser is not offered the room"
    );
    let listed = s.get("/api/rooms", Some(browser)).await;
    assert_eq!(listed.status, 200, "{}", listed.text());
    assert!(
        !listed.text().contains(&format!("\"{room}\"")),
        "GET /api/rooms does not offer the room to the kicked browser either: {}",
        listed.text()
    );
    let everyone = s.get("/api/rooms", None).await;
    assert!(everyone.text().contains(&format!("\"{room}\"")));
    // Someone else's browser sees it and may watch.
    let mut stranger = connect(&s, None).await;
    let rows = lobby_rows(&mut stranger).await;
    assert!(rows.iter().any(|r| r.id == room));
    let id = send(&mut stranger, ClientMsg::Open { id: None, room }).await;
    snapshot(&mut stranger, id, "a stranger watches").await;
}

/// The `next_room` event and the next room's snapshot that follows it on one connection, with
/// the request id that snapshot echoes.
async fn follows(c: &mut Client, old: &str, what: &str) -> (RoomView, Option<RequestId>) {
    let next = until(c, what, |m| match m {
        ServerMsg::Event(Event::NextRoom { room, next }) if room == old => Some(next.clone()),
        _ => None,
    })
    .await;
    until(c, what, |m| match m {
        ServerMsg::Room { room, id } if room.id == next => Some(((**room).clone(), *id)),
        _ => None,
    })
    .await
}

/// M3.12: after a local game, Play again starts the same setup with the sides
/// swapped in a new room, and whoever watched follows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_again_starts_the_same_setup_with_sides_swapped_and_watchers_follow() {
    let s = TestServer::start().await;
    let mut kiosk = connect(&s, None).await;
    let mut watcher = connect(&s, None).await;
    let local = OpponentRequest::Local {
        names: ["Sara".into(), "Omar".into()],
    };
    let first = create(&mut kiosk, Game::Xo, local).await;
    let id = send(
        &mut watcher,
        ClientMsg::Open {
            id: None,
            room: first.id.clone(),
        },
    )
    .await;
    snapshot(&mut watcher, id, "watching").await;
    let id = send(&mut kiosk, ClientMsg::PlayAgain { id: None }).await;
    assert_eq!(
        refusal(&mut kiosk, id, "play again mid-game").await,
        ErrorCode::NotFinished
    );
    let id = send(&mut kiosk, ClientMsg::Resign { id: None }).await;
    snapshot(&mut kiosk, id, "resigned").await;
    let id = send(&mut kiosk, ClientMsg::PlayAgain { id: None }).await;
    let (next, echoed) = follows(&mut kiosk, &first.id, "the next game").await;
    assert_eq!(echoed, id, "the sender's snapshot answers its play_again");
    assert_ne!(next.id, first.id);
    assert_eq!(next.phase, Phase::Playing);
    assert_eq!(next.kind, first.kind);
    for (old, new) in first.seats.iter().zip(&next.seats) {
        assert_eq!(
            old.player.as_ref().map(|p| &p.name),
            new.player.as_ref().map(|p| &p.name)
        );
        assert_eq!(new.mark, old.mark.map(Mark::other), "sides swapped");
    }
    assert!(next.you.to_move, "the kiosk plays the new game");
    let (watched, _) = follows(&mut watcher, &first.id, "the watcher follows").await;
    assert_eq!(watched.id, next.id);
    // The old room is gone; the new one is the connection's current room.
    let id = mv(&mut kiosk, 4).await;
    assert_eq!(
        snapshot(&mut kiosk, id, "a move in the new game").await.id,
        next.id
    );
}

/// M3.12: the answer to `play_again` is the next room's snapshot (echoing its id) and nothing
/// from the old room: the finished room must not send its own snapshot with that id after
/// `next_room`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_again_is_answered_by_the_next_room_only() {
    let s = TestServer::start().await;
    let mut kiosk = connect(&s, None).await;
    let local = OpponentRequest::Local {
        names: ["Sara".into(), "Omar".into()],
    };
    let first = create(&mut kiosk, Game::Xo, local).await;
    let id = send(&mut kiosk, ClientMsg::Resign { id: None }).await;
    snapshot(&mut kiosk, id, "resigned").await;
    let id = send(&mut kiosk, ClientMsg::PlayAgain { id: None }).await;
    until(&mut kiosk, "next_room", |m| {
        matches!(m, ServerMsg::Event(Event::NextRoom { room, .. }) if *room == first.id)
            .then_some(())
    })
    .await;
    let old_echoes = std::sync::atomic::AtomicUsize::new(0);
    let next = until(&mut kiosk, "the next room's snapshot", |m| match m {
        ServerMsg::Room { room, id: got } if room.id == first.id && *got == id => {
            old_echoes.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            None
        }
        ServerMsg::Room { room, id: got } if room.id != first.id => Some((room.id.clone(), *got)),
        _ => None,
    })
    .await;
    assert_eq!(next.1, id, "the next room's snapshot echoes play_again");
    assert_eq!(
        old_echoes.into_inner(),
        0,
        "the old room answered play_again too"
    );
}

/// M3.12: after a rated game either player offers a rematch; the other accepts; a
/// new rated room with the same settings starts with colours swapped, and spectators follow.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn accepted_rematch_swaps_colours_in_a_new_rated_room_and_spectators_follow() {
    let s = TestServer::start().await;
    let [mut alice, mut bob] = players(&s, ["alice", "bob"]).await;
    let mut spectator = connect(&s, None).await;
    let (a, started) = rated_game(&mut alice, &mut bob, Game::Infinite).await;
    let id = send(
        &mut spectator,
        ClientMsg::Open {
            id: None,
            room: a.clone(),
        },
    )
    .await;
    snapshot(&mut spectator, id, "watching").await;
    let id = send(&mut bob, ClientMsg::Resign { id: None }).await;
    snapshot(&mut bob, id, "bob resigns").await;

    let id = send(&mut alice, ClientMsg::OfferRematch { id: None }).await;
    let offered = snapshot(&mut alice, id, "alice offers a rematch").await;
    let alice_mark = started.seats[0].mark.expect("alice holds a mark");
    assert_eq!(offered.rematch_offer, Some(alice_mark));
    until(&mut bob, "bob told of the offer", |m| {
        matches!(m, ServerMsg::Event(Event::RematchOffered { by, .. }) if *by == alice_mark)
            .then_some(())
    })
    .await;
    let id = send(
        &mut spectator,
        ClientMsg::AnswerRematch {
            id: None,
            accept: true,
        },
    )
    .await;
    assert_eq!(
        refusal(&mut spectator, id, "a spectator answers").await,
        ErrorCode::Spectator
    );
    let id = send(
        &mut bob,
        ClientMsg::AnswerRematch {
            id: None,
            accept: true,
        },
    )
    .await;
    let (for_bob, echoed) = follows(&mut bob, &a, "bob follows").await;
    assert_eq!(echoed, id, "bob's snapshot answers his accept");
    let (for_alice, _) = follows(&mut alice, &a, "alice follows").await;
    let (watched, _) = follows(&mut spectator, &a, "the spectator follows").await;
    assert_eq!(for_alice.id, for_bob.id);
    assert_eq!(watched.id, for_bob.id);
    assert_ne!(for_bob.id, a);
    assert_eq!(for_alice.phase, Phase::Playing);
    assert_eq!(for_alice.kind, started.kind, "same settings, rated");
    assert_eq!(for_alice.per_move_ms, started.per_move_ms);
    assert_eq!(
        for_alice.seats[0].mark,
        Some(alice_mark.other()),
        "colours swapped"
    );
    assert_eq!(for_alice.you.seat, Some(0));
    assert_eq!(for_bob.you.seat, Some(1));
    assert!(watched.you.seat.is_none());
}
