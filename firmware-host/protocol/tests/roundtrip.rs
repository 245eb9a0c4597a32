//! Every message survives both encodings, and the JSON shape is the one docs/PROTOCOL.md shows.

use engine::{Game, Mark};
use protocol::records::{FinishedGame, GameEnd, PlayerRef, RatingUpdate};
use protocol::view::ResultView;
use protocol::*;

fn every_client_msg() -> Vec<ClientMsg> {
    let id = Some(3);
    vec![
        ClientMsg::Hello { version: 1 },
        ClientMsg::Ping { id },
        ClientMsg::WatchLobby { id, limit: None },
        ClientMsg::WatchLobby {
            id,
            limit: Some(40),
        },
        ClientMsg::UnwatchLobby { id: None },
        ClientMsg::CreateRoom {
            id,
            room: CreateRoom {
                game: Game::Infinite,
                opponent: OpponentRequest::Player {
                    joining: JoiningRequest::Passcode {
                        code: "0420".into(),
                    },
                },
                time_per_move_s: Some(5),
            },
        },
        ClientMsg::CreateRoom {
            id,
            room: CreateRoom {
                game: Game::Xo,
                opponent: OpponentRequest::Bot {
                    difficulty: Some(100),
                    side: Some(Mark::O),
                },
                time_per_move_s: None,
            },
        },
        ClientMsg::CreateRoom {
            id: None,
            room: CreateRoom {
                game: Game::Xo,
                opponent: OpponentRequest::Local {
                    names: ["Sara".into(), "Omar".into()],
                },
                time_per_move_s: None,
            },
        },
        ClientMsg::Open {
            id,
            room: "abc234".into(),
        },
        ClientMsg::Close { id },
        ClientMsg::Join {
            id,
            room: "abc234".into(),
            passcode: Some("1234".into()),
        },
        ClientMsg::CancelRequest { id },
        ClientMsg::Accept { id, user: 7 },
        ClientMsg::Decline { id, user: 7 },
        ClientMsg::Kick { id },
        ClientMsg::Ready { id, ready: false },
        ClientMsg::Start { id },
        ClientMsg::Move { id, cell: 8 },
        ClientMsg::OfferDraw { id },
        ClientMsg::AnswerDraw { id, accept: true },
        ClientMsg::Resign { id },
        ClientMsg::Exit { id },
        ClientMsg::Hint { id },
        ClientMsg::Undo { id },
        ClientMsg::PlayAgain { id },
        ClientMsg::OfferRematch { id },
        ClientMsg::AnswerRematch { id, accept: false },
        ClientMsg::PuzzleStart {
            id,
            source: PuzzleSource::Daily { game: Game::Xo },
        },
        ClientMsg::PuzzleStart {
            id,
            source: PuzzleSource::Streak {
                game: Game::Infinite,
                step: 3,
            },
        },
        ClientMsg::PuzzleStart {
            id,
            source: PuzzleSource::Next {
                game: Game::Infinite,
            },
        },
        ClientMsg::PuzzleStart {
            id,
            source: PuzzleSource::ById {
                puzzle: "infinite-hold-311".into(),
            },
        },
        ClientMsg::PuzzleMove {
            id,
            attempt: 17,
            cell: 8,
        },
        ClientMsg::PuzzleRetry { id, attempt: 17 },
        ClientMsg::WatchEvent {
            id,
            event: "e2".into(),
        },
        ClientMsg::UnwatchEvent { id: None },
        ClientMsg::JoinEvent {
            id,
            event: "e2".into(),
        },
        ClientMsg::PauseEvent {
            id,
            event: "e2".into(),
        },
        ClientMsg::ResumeEvent {
            id: None,
            event: "e2".into(),
        },
        ClientMsg::LeaveEvent {
            id,
            event: "e2".into(),
        },
    ]
}

fn sample_event() -> protocol::event::EventView {
    use protocol::event::*;
    let row = |user: u64, rank: u32, points: u32, streak: u32| EventRow {
        user,
        name: format!("p{user}"),
        rank,
        points,
        performance: (points > 0).then_some(1500 + i32::try_from(points).unwrap_or(0)),
        games: 2,
        wins: points / 2,
        draws: points % 2,
        losses: 2 - points / 2 - points % 2,
        streak,
    };
    EventView {
        event: "e2".into(),
        name: "XO night".into(),
        game: Game::Infinite,
        rated: false,
        per_move_ms: 5_000,
        phase: EventPhase::Running,
        starts_in_ms: 0,
        ends_in_ms: 600_000,
        duration_ms: 1_800_000,
        players: 3,
        standings: vec![row(4, 1, 4, 2), row(1, 2, 1, 0), row(7, 2, 1, 0)],
        boards: vec![EventBoard {
            room: "k3mpq2".into(),
            x: 4,
            o: 7,
        }],
        podium: vec![],
        you: Some(EventYou {
            state: EntrantState::Playing,
            room: Some("k3mpq2".into()),
        }),
    }
}

/// An attempt after each kind of step, and the attempt's other optional parts.
fn sample_attempts() -> Vec<PuzzleView> {
    use protocol::puzzle::*;
    let board = PuzzleBoard {
        x: vec![0, 8, 1],
        o: vec![7, 5],
        turn: Mark::O,
        glowing: None,
    };
    let start = PuzzleView {
        attempt: 3,
        puzzle: "infinite-win-5108".into(),
        game: Game::Infinite,
        kind: PuzzleKind::Win,
        origin: PuzzleOrigin::Daily { day: 20_791 },
        you: Mark::O,
        rating: 980,
        start: board.clone(),
        board,
        moves: Vec::new(),
        repetition_warning: false,
        status: AttemptStatus::Playing,
        last: None,
        distance: None,
        rated: false,
        player_rating: None,
        rating_change: None,
        streak: None,
        solved_today: Some(12),
    };
    let mut steps = vec![start.clone()];
    for (last, origin, status) in [
        (
            PuzzleStep::Right { cell: 4, reply: 3 },
            PuzzleOrigin::Next,
            AttemptStatus::Playing,
        ),
        (
            PuzzleStep::Solved { cell: 8 },
            PuzzleOrigin::ById,
            AttemptStatus::Solved,
        ),
        (
            PuzzleStep::Wrong {
                cell: 2,
                verdict: MoveVerdict::Loss(4),
                refutation: vec![4, 0, 7],
            },
            PuzzleOrigin::Streak { step: 2 },
            AttemptStatus::Failed,
        ),
        (
            PuzzleStep::Wrong {
                cell: 2,
                verdict: MoveVerdict::Draw,
                refutation: vec![4],
            },
            PuzzleOrigin::ById,
            AttemptStatus::Failed,
        ),
    ] {
        let mut view = start.clone();
        view.last = Some(last);
        view.origin = origin;
        view.status = status;
        view.distance = Some(5);
        view.solved_today = None;
        view.streak = Some(StreakView {
            game: Game::Infinite,
            step: 2,
            solved: 2,
            over: true,
        });
        view.board.glowing = Some(5);
        view.repetition_warning = true;
        steps.push(view);
    }
    steps
}

fn sample_view() -> RoomView {
    RoomView {
        id: "abc234".into(),
        game: Game::Infinite,
        kind: RoomKind::Online {
            joining: Joining::Passcode {
                code: Some("1234".into()),
            },
        },
        phase: Phase::Playing,
        per_move_ms: Some(10_000),
        seats: [
            SeatView {
                player: Some(PlayerView {
                    player: PlayerRef::User {
                        id: 1,
                        name: "sara".into(),
                    },
                    rating: Some(1216),
                    name: Name::Account {
                        name: "sara".into(),
                    },
                }),
                mark: Some(Mark::X),
                ready: true,
                present: true,
            },
            SeatView {
                player: None,
                mark: None,
                ready: false,
                present: false,
            },
        ],
        x: vec![0, 4],
        o: vec![8],
        turn: Mark::O,
        glowing: None,
        moves: vec![0, 8, 4],
        clock: Some(ClockView {
            mark: Mark::O,
            remaining_ms: 7_500,
            per_move_ms: 10_000,
            forfeit: false,
        }),
        repetition_warning: true,
        draw_offer: Some(Mark::X),
        requests: vec![JoinRequestView {
            user: 9,
            name: "omar".into(),
        }],
        result: Some(ResultView {
            end: GameEnd::Line {
                winner: Mark::X,
                line: [0, 4, 8],
            },
            rated: true,
            ratings: vec![RatingUpdate {
                user: 1,
                mark: Mark::X,
                before: 1200,
                after: 1216,
            }],
            pending: false,
        }),
        elo: Some(EloPreview {
            x_rating: 1200,
            o_rating: 1200,
            x_wins: [1216, 1184],
            draw: [1200, 1200],
            o_wins: [1184, 1216],
        }),
        spectators: 3,
        can_undo: false,
        you: YouView {
            seat: Some(0),
            host: true,
            to_move: false,
            requested: false,
        },
        rematch_offer: Some(Mark::O),
    }
}

fn every_server_msg() -> Vec<ServerMsg> {
    let room: RoomId = "abc234".into();
    let mut events = vec![
        Event::Moved {
            room: room.clone(),
            mark: Mark::X,
            cell: 4,
            removed: Some(0),
            automatic: true,
            bot: false,
        },
        Event::RepetitionWarning { room: room.clone() },
        Event::DrawOffered {
            room: room.clone(),
            by: Mark::O,
        },
        Event::DrawDeclined {
            room: room.clone(),
            by: Mark::X,
        },
        Event::Undone {
            room: room.clone(),
            plies: 2,
        },
        Event::JoinRequested {
            room: room.clone(),
            user: 9,
            name: "omar".into(),
        },
        Event::RequestDeclined { room: room.clone() },
        Event::SeatMoved {
            from: room.clone(),
            to: "zzz999".into(),
        },
        Event::Kicked { room: room.clone() },
        Event::RematchOffered {
            room: room.clone(),
            by: Mark::X,
        },
        Event::RematchDeclined {
            room: room.clone(),
            by: Mark::O,
        },
        Event::NextRoom {
            room: room.clone(),
            next: "next22".into(),
        },
    ];
    for end in [
        GameEnd::FullBoard,
        GameEnd::Repetition,
        GameEnd::Agreed,
        GameEnd::Resigned { loser: Mark::O },
        GameEnd::Timeout { loser: Mark::X },
    ] {
        events.push(Event::Result {
            room: room.clone(),
            end,
            ratings: vec![],
        });
    }
    for reason in [
        CloseReason::HostLeft,
        CloseReason::Ended,
        CloseReason::Idle,
        CloseReason::Shutdown,
    ] {
        events.push(Event::RoomClosed {
            room: room.clone(),
            reason,
        });
    }
    let mut msgs = vec![
        ServerMsg::Hello {
            version: PROTOCOL_VERSION,
            user: Some(1),
            name: "sara".into(),
            max_frame_bytes: 4096,
            max_messages_per_s: 20,
            you: Name::Guest { tag: "e6ce".into() },
        },
        ServerMsg::Pong { id: Some(1) },
        ServerMsg::Lobby {
            id: None,
            rooms: vec![RoomSummary {
                id: room.clone(),
                game: Game::Xo,
                kind: RoomKind::Bot { difficulty: 50 },
                phase: Phase::Waiting,
                players: vec!["sara".into()],
                open_seat: true,
                per_move_ms: None,
                spectators: 0,
                names: vec![
                    Name::Account {
                        name: "sara".into(),
                    },
                    Name::Bot { difficulty: 50 },
                    Name::Local {
                        name: "Omar".into(),
                    },
                ],
            }],
            total: 31,
        },
        ServerMsg::LobbyUpdate {
            rows: vec![RoomSummary {
                id: room.clone(),
                game: Game::Infinite,
                kind: RoomKind::Local,
                phase: Phase::Playing,
                players: vec!["Sara".into(), "Omar".into()],
                open_seat: false,
                per_move_ms: Some(10_000),
                spectators: 2,
                names: Vec::new(),
            }],
            removed: vec!["zd8yup".into()],
            total: 30,
        },
        ServerMsg::Room {
            id: Some(4),
            room: Box::new(sample_view()),
        },
        ServerMsg::Hint {
            id: Some(5),
            cell: 4,
        },
        ServerMsg::Left {
            id: None,
            room: room.clone(),
        },
    ];
    msgs.extend(events.into_iter().map(ServerMsg::Event));
    msgs.extend(sample_attempts().into_iter().map(|view| ServerMsg::Puzzle {
        id: Some(6),
        attempt: Box::new(view),
    }));
    {
        use protocol::event::*;
        let view = sample_event();
        msgs.push(ServerMsg::EventSnapshot {
            id: Some(7),
            event: Box::new(view.clone()),
        });
        msgs.push(ServerMsg::EventSnapshot {
            id: None,
            event: Box::new(EventView {
                phase: EventPhase::Finished,
                ends_in_ms: 0,
                boards: vec![],
                podium: view.standings.clone(),
                you: None,
                ..view.clone()
            }),
        });
        msgs.push(ServerMsg::EventUpdate(Box::new(EventUpdate {
            event: "e2".into(),
            phase: EventPhase::Ending,
            ends_in_ms: 0,
            players: 3,
            standings: Some(StandingsDelta {
                removed: vec![9],
                rows: view.standings[..2].to_vec(),
            }),
            boards: Some(vec![]),
            podium: None,
            you: Some(EventYou {
                state: EntrantState::Paused,
                room: None,
            }),
        })));
        msgs.push(ServerMsg::EventUpdate(Box::new(EventUpdate {
            event: "e2".into(),
            phase: EventPhase::Finished,
            ends_in_ms: 0,
            players: 3,
            standings: None,
            boards: None,
            podium: Some(view.standings.clone()),
            you: None,
        })));
        msgs.push(ServerMsg::Paired(Paired {
            event: "e2".into(),
            room: "k3mpq2".into(),
            mark: Mark::X,
            opponent: 7,
            opponent_name: "lina".into(),
        }));
    }
    for code in [
        ErrorCode::UnknownEvent,
        ErrorCode::NotInEvent,
        ErrorCode::EventOver,
        ErrorCode::EventFull,
        ErrorCode::EventGame,
        ErrorCode::NotYourTurn,
        ErrorCode::CellOccupied,
        ErrorCode::WrongPasscode,
        ErrorCode::Kicked,
        ErrorCode::Spectator,
        ErrorCode::FrameTooLarge,
        ErrorCode::UnknownPuzzle,
        ErrorCode::UnknownAttempt,
        ErrorCode::NoStreak,
    ] {
        msgs.push(ServerMsg::error(Some(2), code, "because"));
    }
    msgs
}

#[test]
fn every_client_message_round_trips_in_json_and_postcard() {
    for msg in every_client_msg() {
        for framing in [Framing::Text, Framing::Binary] {
            let frame = msg.encode(framing);
            assert_eq!(frame.framing(), framing);
            assert_eq!(
                decode_client(&frame, MAX_FRAME_BYTES).unwrap(),
                msg,
                "{frame:?}"
            );
        }
    }
}

#[test]
fn every_server_message_round_trips_in_json_and_postcard() {
    for msg in every_server_msg() {
        for framing in [Framing::Text, Framing::Binary] {
            let frame = msg.encode(framing);
            assert_eq!(decode_server(&frame).unwrap(), msg, "{frame:?}");
        }
    }
}

#[test]
fn json_shape_is_externally_tagged_snake_case_with_optional_id() {
    let msg = decode_client(
        &Frame::Text(
            r#"{"create_room":{"room":{"game":"infinite","opponent":{"bot":{}}}}}"#.into(),
        ),
        MAX_FRAME_BYTES,
    )
    .unwrap();
    assert_eq!(
        msg,
        ClientMsg::CreateRoom {
            id: None,
            room: CreateRoom {
                game: Game::Infinite,
                opponent: OpponentRequest::Bot {
                    difficulty: None,
                    side: None
                },
                time_per_move_s: None,
            }
        }
    );
    let open = decode_client(
        &Frame::Text(r#"{"create_room":{"id":1,"room":{"game":"xo","opponent":{"player":{"joining":"open"}}}}}"#.into()),
        MAX_FRAME_BYTES,
    )
    .unwrap();
    assert_eq!(open.id(), Some(1));
    let Frame::Text(text) =
        ServerMsg::error(Some(9), ErrorCode::NotYourTurn, "wait").encode(Framing::Text)
    else {
        panic!("text framing gives text");
    };
    assert_eq!(
        text,
        r#"{"error":{"id":9,"code":"not_your_turn","message":"wait"}}"#
    );
}

#[test]
fn error_code_wire_names_match_as_str() {
    for msg in every_server_msg() {
        if let ServerMsg::Error { code, .. } = msg {
            assert_eq!(
                serde_json::to_string(&code).unwrap(),
                format!("\"{}\"", code.as_str())
            );
        }
    }
}

#[test]
fn oversized_frame_is_refused_before_parsing() {
    let big = Frame::Text(format!(r#"{{"ping":{{"id":1}}}}{}"#, " ".repeat(5000)));
    let err = decode_client(&big, MAX_FRAME_BYTES).unwrap_err();
    assert_eq!(err.code(), ErrorCode::FrameTooLarge);
}

#[test]
fn malformed_frames_are_bad_frame() {
    for frame in [
        Frame::Text("not json".into()),
        Frame::Text(r#"{"fly":{}}"#.into()),
        Frame::Text(r#"{"move":{"cell":"four"}}"#.into()),
        Frame::Binary(vec![0xff, 0xff, 0xff]),
        Frame::Binary(vec![]),
    ] {
        assert_eq!(
            decode_client(&frame, MAX_FRAME_BYTES).unwrap_err().code(),
            ErrorCode::BadFrame,
            "{frame:?}"
        );
    }
}

#[test]
fn binary_frame_with_trailing_bytes_is_bad_frame() {
    let Frame::Binary(mut bytes) = ClientMsg::Ping { id: None }.encode(Framing::Binary) else {
        panic!("binary framing gives binary");
    };
    bytes.push(0);
    let err = decode_client(&Frame::Binary(bytes), MAX_FRAME_BYTES).unwrap_err();
    assert_eq!(err.code(), ErrorCode::BadFrame);
}

#[test]
fn finished_game_round_trips_in_postcard_for_the_store() {
    let game = FinishedGame {
        id: "abc234".into(),
        game: Game::Infinite,
        rated: true,
        x: PlayerRef::User {
            id: 1,
            name: "sara".into(),
        },
        o: PlayerRef::Bot { difficulty: 50 },
        moves: vec![0, 4, 8],
        end: GameEnd::Resigned { loser: Mark::O },
        started_at_ms: 1,
        ended_at_ms: 2,
    };
    let bytes = postcard::to_allocvec(&game).unwrap();
    assert_eq!(postcard::from_bytes::<FinishedGame>(&bytes).unwrap(), game);
    let json = serde_json::to_string(&game).unwrap();
    assert_eq!(serde_json::from_str::<FinishedGame>(&json).unwrap(), game);
}

/// A room's snapshot is encoded once up to `you` and completed per reader. The result
/// is the very text of encoding the whole message, for every reader and request id, and for
/// views with every optional part present or absent, names that need escaping included. A
/// field added to `RoomView` but not to the shared head fails here (`sample_view` sets them all).
#[test]
fn a_snapshot_completed_per_reader_is_the_text_of_the_whole_message() {
    let full = sample_view();
    let mut bare = sample_view();
    bare.kind = RoomKind::Local;
    bare.per_move_ms = None;
    bare.clock = None;
    bare.draw_offer = None;
    bare.requests.clear();
    bare.result = None;
    bare.elo = None;
    bare.rematch_offer = None;
    bare.x.clear();
    bare.o.clear();
    bare.moves.clear();
    bare.glowing = Some(4);
    let mut escaped = sample_view();
    escaped.rematch_offer = Some(Mark::X);
    escaped.seats[0].player = Some(PlayerView {
        player: PlayerRef::Local {
            name: "\"you\":{} \\ سارة \u{1}".into(),
        },
        rating: None,
        name: Name::Local {
            name: ",\"you\":{\"seat\":1}".into(),
        },
    });
    let readers = [
        YouView {
            seat: Some(1),
            host: false,
            to_move: true,
            requested: false,
        },
        YouView {
            seat: None,
            host: true,
            to_move: false,
            requested: true,
        },
    ];
    // One cache across the views, as a room keeps it: it must notice the seats changing.
    let mut seats = SeatsJson::default();
    for view in [full.clone(), bare, escaped, full] {
        let head = view.json_head(&mut seats);
        for you in readers {
            for id in [None, Some(0), Some(u32::MAX)] {
                let mut whole = view.clone();
                whole.you = you;
                let expected = match (ServerMsg::Room {
                    id,
                    room: Box::new(whole),
                })
                .encode(Framing::Text)
                {
                    Frame::Text(text) => text,
                    Frame::Binary(_) => unreachable!("text framing"),
                };
                assert_eq!(room_json(id, &head, &you, view.rematch_offer), expected);
                // The binary framing's head, completed per reader, is the whole message too.
                let Frame::Binary(whole) = (ServerMsg::Room {
                    id,
                    room: Box::new(RoomView {
                        you,
                        ..view.clone()
                    }),
                })
                .encode(Framing::Binary) else {
                    unreachable!("binary framing")
                };
                let mut out = Vec::new();
                protocol::view::room_postcard_into(
                    &mut out,
                    id,
                    &view.postcard_head(),
                    &you,
                    view.rematch_offer,
                );
                assert_eq!(out, whole);
            }
        }
    }
}
