//! Whole games against the real server (in-process, real redb in a temporary folder, real
//! WebSockets on 127.0.0.1), with typed clients speaking JSON or postcard: the rated endings,
//! the join policies, kicks, M3.4, spectators, bot and local games, reconnection (M3.10).
//! Clock expiry is covered with paused time in `firmware-host/rooms/tests`.

use crate::support;

use std::collections::VecDeque;

use engine::{Game, Mark};
use futures_util::{SinkExt, StreamExt};
use protocol::records::{GameEnd, RatingUpdate};
use protocol::{
    ClientMsg, CreateRoom, ErrorCode, Event, Frame, Framing, JoiningRequest, OpponentRequest,
    Phase, RoomView, ServerMsg, decode_server,
};
use support::{STEP, TestServer};
use tokio::net::TcpStream;
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::Message;

/// A typed protocol client.
struct Client {
    ws: WebSocketStream<TcpStream>,
    framing: Framing,
    next_id: u32,
    /// Messages skipped by `until`, searched first by later calls.
    backlog: VecDeque<ServerMsg>,
    /// Every message received, as JSON, for leak checks.
    seen: Vec<String>,
}

impl Client {
    async fn connect(s: &TestServer, cookie: Option<&str>, framing: Framing) -> Client {
        let (ws, _) = support::ws_handshake(s.addr(), cookie).await;
        let mut c = Client {
            ws,
            framing,
            next_id: 100,
            backlog: VecDeque::new(),
            seen: Vec::new(),
        };
        let hello = c.recv().await;
        assert!(matches!(hello, ServerMsg::Hello { .. }), "{hello:?}");
        c.send(ClientMsg::Hello {
            version: protocol::PROTOCOL_VERSION,
        })
        .await;
        c
    }

    async fn send(&mut self, msg: ClientMsg) {
        let frame = match msg.encode(self.framing) {
            Frame::Text(t) => Message::text(t),
            Frame::Binary(b) => Message::binary(b),
        };
        self.ws.send(frame).await.expect("send");
    }

    async fn recv(&mut self) -> ServerMsg {
        loop {
            let msg = tokio::time::timeout(STEP, self.ws.next())
                .await
                .expect("a message in time")
                .expect("connection open")
                .expect("valid frame");
            let frame = match msg {
                Message::Text(t) => Frame::Text(t.as_str().to_owned()),
                Message::Binary(b) => {
                    assert_eq!(self.framing, Framing::Binary, "answers in our framing");
                    Frame::Binary(b.to_vec())
                }
                _ => continue,
            };
            let msg = decode_server(&frame).expect("server messages decode");
            self.seen
                .push(serde_json::to_string(&msg).expect("JSON of a server message"));
            return msg;
        }
    }

    async fn until(&mut self, what: &str, pred: impl Fn(&ServerMsg) -> bool) -> ServerMsg {
        if let Some(i) = self.backlog.iter().position(&pred) {
            return self.backlog.remove(i).expect("found above");
        }
        for _ in 0..200 {
            let msg = self.recv().await;
            if pred(&msg) {
                return msg;
            }
            self.backlog.push_back(msg);
        }
        panic!("no {what} among 200 messages");
    }

    /// Sends an intent and returns the message answering it (snapshot, hint, left, pong,
    /// lobby or error).
    async fn ask(&mut self, make: impl FnOnce(Option<u32>) -> ClientMsg) -> ServerMsg {
        self.next_id += 1;
        let id = Some(self.next_id);
        self.send(make(id)).await;
        self.until("the reply", |m| answer_id(m) == Some(id)).await
    }

    async fn view(&mut self, make: impl FnOnce(Option<u32>) -> ClientMsg) -> RoomView {
        match self.ask(make).await {
            ServerMsg::Room { room, .. } => *room,
            other => panic!("expected a snapshot, got {other:?}"),
        }
    }

    async fn refused(&mut self, make: impl FnOnce(Option<u32>) -> ClientMsg) -> ErrorCode {
        match self.ask(make).await {
            ServerMsg::Error { code, .. } => code,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    async fn result(&mut self) -> (GameEnd, Vec<RatingUpdate>) {
        match self
            .until("the result", |m| {
                matches!(m, ServerMsg::Event(Event::Result { .. }))
            })
            .await
        {
            ServerMsg::Event(Event::Result { end, ratings, .. }) => (end, ratings),
            _ => unreachable!("matched above"),
        }
    }
}

fn answer_id(m: &ServerMsg) -> Option<Option<u32>> {
    match m {
        ServerMsg::Room { id, .. }
        | ServerMsg::Hint { id, .. }
        | ServerMsg::Left { id, .. }
        | ServerMsg::Pong { id }
        | ServerMsg::Lobby { id, .. }
        | ServerMsg::Error { id, .. } => id.map(Some),
        _ => None,
    }
}

fn online(game: Game, joining: JoiningRequest) -> CreateRoom {
    CreateRoom {
        game,
        opponent: OpponentRequest::Player { joining },
        time_per_move_s: Some(30),
    }
}

/// Two registered players seated, ready and started: (server, x, o, room id, x's name).
async fn rated(
    game: Game,
    host_framing: Framing,
    joiner_framing: Framing,
) -> (TestServer, Client, Client, String, String) {
    let s = TestServer::start().await;
    let sara = s.register("Sara", "password1").await;
    let omar = s.register("Omar", "password2").await;
    let mut host = Client::connect(&s, Some(&sara), host_framing).await;
    let mut joiner = Client::connect(&s, Some(&omar), joiner_framing).await;
    let room = host
        .view(|id| ClientMsg::CreateRoom {
            id,
            room: online(game, JoiningRequest::Open),
        })
        .await;
    let rid = room.id.clone();
    let seat = joiner
        .view(|id| ClientMsg::Join {
            id,
            room: rid.clone(),
            passcode: None,
        })
        .await;
    assert_eq!(seat.you.seat, Some(1));
    joiner.view(|id| ClientMsg::Ready { id, ready: true }).await;
    let started = host.view(|id| ClientMsg::Start { id }).await;
    assert_eq!(started.phase, Phase::Playing);
    if started.seats[0].mark == Some(Mark::X) {
        (s, host, joiner, rid, "Sara".into())
    } else {
        (s, joiner, host, rid, "Omar".into())
    }
}

async fn play(c: &mut Client, cell: u8) -> RoomView {
    c.view(|id| ClientMsg::Move { id, cell }).await
}

#[tokio::test]
async fn rated_infinite_game_ends_by_line_json_and_postcard() {
    let (s, mut x, mut o, rid, x_name) =
        rated(Game::Infinite, Framing::Text, Framing::Binary).await;
    let first = play(&mut x, 0).await;
    let elo = first.elo.expect("the ELO preview during a rated game (E4)");
    assert_eq!((elo.x_wins, elo.draw), ([1216, 1184], [1200, 1200]));
    play(&mut o, 3).await;
    play(&mut x, 1).await;
    play(&mut o, 4).await;
    let last = play(&mut x, 2).await;
    assert_eq!(last.phase, Phase::Finished);
    for c in [&mut x, &mut o] {
        let (end, ratings) = c.result().await;
        assert_eq!(
            end,
            GameEnd::Line {
                winner: Mark::X,
                line: [0, 1, 2]
            }
        );
        let changes: Vec<i32> = ratings.iter().map(RatingUpdate::change).collect();
        assert_eq!(changes, vec![16, -16]);
    }
    let game = s.get(&format!("/api/games/{rid}"), None).await.json();
    assert_eq!(game["moves"], serde_json::json!([0, 3, 1, 4, 2]), "{game}");
    let profile = s.get(&format!("/api/users/{x_name}"), None).await.json();
    assert!(profile.to_string().contains("1216"), "{profile}");
    s.server.shutdown().await;
}

/// X holds 0, 1, 5 and O holds 2, 3, 7: each side can rotate its marks without a line.
const OPENING: [u8; 6] = [0, 2, 1, 3, 5, 7];
/// Eight plies that return to the position after `OPENING`.
const CYCLE: [u8; 8] = [6, 8, 0, 2, 1, 3, 5, 7];

#[tokio::test]
async fn rated_infinite_game_drawn_by_repetition_after_a_warning() {
    let (s, mut x, mut o, _rid, _) = rated(Game::Infinite, Framing::Binary, Framing::Text).await;
    let moves: Vec<u8> = OPENING
        .iter()
        .chain(CYCLE.iter())
        .chain(CYCLE.iter())
        .copied()
        .collect();
    let mut warned = false;
    for (i, cell) in moves.iter().enumerate() {
        let c = if i % 2 == 0 { &mut x } else { &mut o };
        let view = play(c, *cell).await;
        warned |= view.repetition_warning;
    }
    assert!(warned, "the second occurrence is announced (R-INF-4)");
    o.until("the warning event", |m| {
        matches!(m, ServerMsg::Event(Event::RepetitionWarning { .. }))
    })
    .await;
    let (end, ratings) = o.result().await;
    assert_eq!(end, GameEnd::Repetition);
    assert_eq!(
        ratings.iter().map(RatingUpdate::change).collect::<Vec<_>>(),
        vec![0, 0]
    );
    s.server.shutdown().await;
}

#[tokio::test]
async fn rated_xo_game_ends_by_agreed_draw() {
    let (s, mut x, mut o, _rid, _) = rated(Game::Xo, Framing::Text, Framing::Text).await;
    play(&mut x, 4).await;
    let offered = o.view(|id| ClientMsg::OfferDraw { id }).await;
    assert_eq!(offered.draw_offer, Some(Mark::O));
    assert_eq!(
        o.refused(|id| ClientMsg::OfferDraw { id }).await,
        ErrorCode::OfferPending
    );
    x.view(|id| ClientMsg::AnswerDraw { id, accept: true })
        .await;
    let (end, ratings) = x.result().await;
    assert_eq!(end, GameEnd::Agreed);
    assert_eq!(ratings.len(), 2);
    s.server.shutdown().await;
}

#[tokio::test]
async fn every_join_policy_and_a_wrong_passcode() {
    let s = TestServer::start().await;
    let sara = s.register("Sara", "password1").await;
    let omar = s.register("Omar", "password2").await;
    let lina = s.register("Lina", "password3").await;
    let mut host = Client::connect(&s, Some(&sara), Framing::Text).await;
    let mut o = Client::connect(&s, Some(&omar), Framing::Binary).await;
    let mut l = Client::connect(&s, Some(&lina), Framing::Text).await;

    // Passcode: wrong, then right; only the host ever receives it.
    let room = host
        .view(|id| ClientMsg::CreateRoom {
            id,
            room: online(
                Game::Xo,
                JoiningRequest::Passcode {
                    code: "0420".into(),
                },
            ),
        })
        .await;
    let rid = room.id.clone();
    let wrong = o
        .refused(|id| ClientMsg::Join {
            id,
            room: rid.clone(),
            passcode: Some("0421".into()),
        })
        .await;
    assert_eq!(wrong, ErrorCode::WrongPasscode);
    let watch = l
        .view(|id| ClientMsg::Open {
            id,
            room: rid.clone(),
        })
        .await;
    assert_eq!(watch.spectators, 1);
    let seated = o
        .view(|id| ClientMsg::Join {
            id,
            room: rid.clone(),
            passcode: Some("0420".into()),
        })
        .await;
    assert_eq!(seated.you.seat, Some(1));
    o.ask(|id| ClientMsg::Ping { id }).await;
    l.ask(|id| ClientMsg::Ping { id }).await;
    for c in [&o, &l] {
        assert!(c.seen.iter().all(|m| !m.contains("0420")), "{:?}", c.seen);
    }
    assert!(host.seen.iter().any(|m| m.contains("0420")));
    let lobby = s.get("/api/rooms", None).await.text();
    assert!(!lobby.contains("0420"), "{lobby}");
    host.ask(|id| ClientMsg::Exit { id }).await;
    o.until("the room closing", |m| {
        matches!(m, ServerMsg::Event(Event::RoomClosed { .. }))
    })
    .await;

    // Approval: request, decline, request again, accept.
    let room = host
        .view(|id| ClientMsg::CreateRoom {
            id,
            room: online(Game::Infinite, JoiningRequest::Approval),
        })
        .await;
    let rid = room.id.clone();
    let asked = l
        .view(|id| ClientMsg::Join {
            id,
            room: rid.clone(),
            passcode: None,
        })
        .await;
    assert!(asked.you.requested);
    let declined = host
        .view(|id| ClientMsg::Decline {
            id,
            user: asked.requests[0].user,
        })
        .await;
    assert!(declined.requests.is_empty());
    l.until("the refusal", |m| {
        matches!(m, ServerMsg::Event(Event::RequestDeclined { .. }))
    })
    .await;
    let asked = l
        .view(|id| ClientMsg::Join {
            id,
            room: rid.clone(),
            passcode: None,
        })
        .await;
    let accepted = host
        .view(|id| ClientMsg::Accept {
            id,
            user: asked.requests[0].user,
        })
        .await;
    assert!(accepted.seats[1].player.is_some());
    s.server.shutdown().await;
}

#[tokio::test]
async fn kicked_player_cannot_view_the_room_again() {
    let s = TestServer::start().await;
    let sara = s.register("Sara", "password1").await;
    let omar = s.register("Omar", "password2").await;
    let mut host = Client::connect(&s, Some(&sara), Framing::Text).await;
    let mut o = Client::connect(&s, Some(&omar), Framing::Binary).await;
    let room = host
        .view(|id| ClientMsg::CreateRoom {
            id,
            room: online(Game::Xo, JoiningRequest::Open),
        })
        .await;
    let rid = room.id.clone();
    o.view(|id| ClientMsg::Join {
        id,
        room: rid.clone(),
        passcode: None,
    })
    .await;
    let after = host.view(|id| ClientMsg::Kick { id }).await;
    assert!(after.seats[1].player.is_none());
    o.until("the kick", |m| {
        matches!(m, ServerMsg::Event(Event::Kicked { .. }))
    })
    .await;
    let refused = o
        .refused(|id| ClientMsg::Open {
            id,
            room: rid.clone(),
        })
        .await;
    assert_eq!(refused, ErrorCode::Kicked);
    s.server.shutdown().await;
}

#[tokio::test]
async fn one_seat_per_player_across_two_rooms() {
    let (s, mut x, _o, _rid, _) = rated(Game::Infinite, Framing::Text, Framing::Text).await;
    let lina = s.register("Lina", "password3").await;
    let mut l = Client::connect(&s, Some(&lina), Framing::Text).await;
    let other = l
        .view(|id| ClientMsg::CreateRoom {
            id,
            room: online(Game::Xo, JoiningRequest::Open),
        })
        .await;
    let code = x
        .refused(|id| ClientMsg::Join {
            id,
            room: other.id.clone(),
            passcode: None,
        })
        .await;
    assert_eq!(
        code,
        ErrorCode::AlreadySeated,
        "nobody joins during an active game (M3.4)"
    );
    s.server.shutdown().await;
}

#[tokio::test]
async fn spectators_are_denied_every_player_action() {
    let (s, mut x, _o, rid, _) = rated(Game::Infinite, Framing::Text, Framing::Binary).await;
    let mut fan = Client::connect(&s, None, Framing::Binary).await;
    let view = fan
        .view(|id| ClientMsg::Open {
            id,
            room: rid.clone(),
        })
        .await;
    assert_eq!((view.you.seat, view.spectators), (None, 1));
    x.view(|id| ClientMsg::OfferDraw { id }).await;
    let denied: [fn(Option<u32>) -> ClientMsg; 5] = [
        |id| ClientMsg::Move { id, cell: 4 },
        |id| ClientMsg::Resign { id },
        |id| ClientMsg::OfferDraw { id },
        |id| ClientMsg::AnswerDraw { id, accept: true },
        |id| ClientMsg::Ready { id, ready: true },
    ];
    for make in denied {
        assert_eq!(fan.refused(make).await, ErrorCode::Spectator);
    }
    for make in [|id| ClientMsg::Start { id }, |id| ClientMsg::Kick { id }]
        as [fn(Option<u32>) -> ClientMsg; 2]
    {
        assert_eq!(fan.refused(make).await, ErrorCode::NotHost);
    }
    let still = x
        .view(|id| ClientMsg::Open {
            id,
            room: rid.clone(),
        })
        .await;
    assert_eq!(
        still.moves.len(),
        0,
        "nothing a spectator sent changed the room"
    );
    assert_eq!(still.phase, Phase::Playing);
    s.server.shutdown().await;
}

#[tokio::test]
async fn bot_games_at_0_and_100_with_hint_and_undo() {
    let s = TestServer::start().await;
    for difficulty in [0u8, 100] {
        let mut kiosk = Client::connect(&s, None, Framing::Binary).await;
        let room = kiosk
            .view(|id| ClientMsg::CreateRoom {
                id,
                room: CreateRoom {
                    game: Game::Infinite,
                    opponent: OpponentRequest::Bot {
                        difficulty: Some(difficulty),
                        side: Some(Mark::O),
                    },
                    time_per_move_s: Some(30),
                },
            })
            .await;
        assert_eq!(room.moves.len(), 1, "with O, the bot opens (M1.2)");
        assert!(room.you.to_move);
        let ServerMsg::Hint { cell, .. } = kiosk.ask(|id| ClientMsg::Hint { id }).await else {
            panic!("a hint")
        };
        let after = play(&mut kiosk, cell).await;
        assert_eq!(after.moves.len(), 3, "the bot replied");
        assert!(after.can_undo);
        let undone = kiosk.view(|id| ClientMsg::Undo { id }).await;
        assert_eq!(
            undone.moves, room.moves,
            "your move and the bot's reply (M1.3)"
        );
        let ended = kiosk.ask(|id| ClientMsg::Exit { id }).await;
        assert!(matches!(ended, ServerMsg::Left { .. }));
    }
    s.server.shutdown().await;
}

#[tokio::test]
async fn local_game_on_one_device() {
    let s = TestServer::start().await;
    let mut kiosk = Client::connect(&s, None, Framing::Text).await;
    let clash = kiosk
        .refused(|id| ClientMsg::CreateRoom {
            id,
            room: CreateRoom {
                game: Game::Xo,
                opponent: OpponentRequest::Local {
                    names: ["Sara".into(), " SARA ".into()],
                },
                time_per_move_s: None,
            },
        })
        .await;
    assert_eq!(clash, ErrorCode::NameClash);
    let room = kiosk
        .view(|id| ClientMsg::CreateRoom {
            id,
            room: CreateRoom {
                game: Game::Xo,
                opponent: OpponentRequest::Local {
                    names: ["Sara".into(), "Omar".into()],
                },
                time_per_move_s: None,
            },
        })
        .await;
    assert_eq!(room.clock, None, "local XO has no clock");
    for cell in [0, 3, 1, 4] {
        play(&mut kiosk, cell).await;
    }
    let undone = kiosk.view(|id| ClientMsg::Undo { id }).await;
    assert_eq!(undone.moves, vec![0, 3, 1]);
    play(&mut kiosk, 4).await;
    let won = play(&mut kiosk, 2).await;
    assert_eq!(won.phase, Phase::Finished);
    let (end, ratings) = kiosk.result().await;
    assert_eq!(
        end,
        GameEnd::Line {
            winner: Mark::X,
            line: [0, 1, 2]
        }
    );
    assert!(ratings.is_empty(), "local games are unrated");
    s.server.shutdown().await;
}

#[tokio::test]
async fn reconnection_resends_the_whole_room() {
    let (s, mut x, o, rid, x_name) = rated(Game::Infinite, Framing::Text, Framing::Text).await;
    play(&mut x, 4).await;
    drop(o);
    drop(x);
    let password = if x_name == "Sara" {
        "password1"
    } else {
        "password2"
    };
    let login = s
        .post_json("/api/login", &support::credentials(&x_name, password), None)
        .await;
    let cookie = login.cookie_pair("xo_session").expect("session cookie");
    let mut back = Client::connect(&s, Some(&cookie), Framing::Binary).await;
    let view = back
        .view(|id| ClientMsg::Open {
            id,
            room: rid.clone(),
        })
        .await;
    assert_eq!(view.moves, vec![4]);
    assert_eq!(view.phase, Phase::Playing);
    assert!(view.you.seat.is_some());
    assert_eq!(view.seats.iter().filter(|seat| seat.present).count(), 1);
    s.server.shutdown().await;
}

/// The server builds a game's snapshot once and completes it per reader, to save work on the
/// hot path. From outside: a burst of
/// twelve spectators (JSON and postcard) open the room at once, then a move is played; each of
/// the two players and every spectator gets the move's snapshot with their own place in the
/// room, the mover with its request id, and the spectators' snapshots are all the same.
#[tokio::test]
async fn a_burst_of_readers_each_get_their_own_place_in_one_move_s_snapshot() {
    let (s, mut x, mut o, rid, _) = rated(Game::Xo, Framing::Text, Framing::Binary).await;
    let mut fans = futures_util::future::join_all((0..12).map(|i| {
        let (s, rid) = (&s, rid.clone());
        async move {
            let framing = if i % 3 == 0 {
                Framing::Binary
            } else {
                Framing::Text
            };
            let mut fan = Client::connect(s, None, framing).await;
            fan.view(|id| ClientMsg::Open { id, room: rid }).await;
            fan
        }
    }))
    .await;
    let moved = play(&mut x, 4).await;
    assert_eq!(moved.moves, vec![4]);
    assert!(
        !moved.you.to_move && moved.you.seat.is_some(),
        "{:?}",
        moved.you
    );
    let after_move = |m: &ServerMsg| matches!(m, ServerMsg::Room { room, .. } if room.moves == [4]);
    let ServerMsg::Room { id, room: for_o } = o.until("the move's snapshot", after_move).await
    else {
        unreachable!("matched above")
    };
    assert_eq!(id, None, "only the mover's snapshot answers a request");
    assert!(for_o.you.to_move, "O moves next: {:?}", for_o.you);
    assert_ne!(for_o.you.seat, moved.you.seat);
    let mut spectator_views = Vec::new();
    for fan in &mut fans {
        let ServerMsg::Room { id, room } = fan.until("the move's snapshot", after_move).await
        else {
            unreachable!("matched above")
        };
        assert_eq!(id, None);
        assert_eq!(
            (
                room.you.seat,
                room.you.host,
                room.you.to_move,
                room.you.requested
            ),
            (None, false, false, false),
            "a spectator's own place"
        );
        assert_eq!(room.spectators, 12);
        spectator_views.push(room);
    }
    assert!(
        spectator_views.windows(2).all(|w| w[0] == w[1]),
        "every spectator sees the same room"
    );
    let mut as_o_sees = (*for_o).clone();
    as_o_sees.you = spectator_views[0].you;
    assert_eq!(
        as_o_sees, *spectator_views[0],
        "the rest is the players' view"
    );
    s.server.shutdown().await;
}
