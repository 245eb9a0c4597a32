//! The room pipeline of one move, without sockets or threads: the client's frame decoded, the
//! intent applied by the room, and the snapshots encoded for the two players and one spectator
//! (what the room actor and the sessions do for every move; `…_per_viewer`: each snapshot built
//! and encoded whole, as the server once did for every reader). A regression in the hot path shows
//! here without a load run; `scripts/bench load` measures the whole server.
//!
//! `cargo bench -p rooms --bench pipeline`

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use engine::Game;
use protocol::{
    ClientMsg, CreateRoom, Frame, Framing, JoiningRequest, MAX_FRAME_BYTES, OpponentRequest,
    SeatsJson, ServerMsg, decode_client, room_json,
};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rooms::rated::Unlimited;
use rooms::room::{Ctx, Intent, Member, PlayerKey, Room};
use rooms::seats::{SeatBook, Seats};
use rooms::settings::Settings;

fn user(conn: u64, id: u64, name: &str) -> Member {
    Member {
        conn,
        key: PlayerKey::User(id),
        name: name.into(),
        guest_id: format!("guest{id}"),
        device: None,
    }
}

fn spectator(conn: u64) -> Member {
    Member {
        conn,
        key: PlayerKey::Guest("0123456789abcdef".into()),
        name: rooms::room::guest_name("0123456789abcdef"),
        guest_id: "0123456789abcdef".into(),
        device: None,
    }
}

/// What the bench keeps between iterations: the seat book, the rng and the clock.
struct Bench {
    seats: Seats,
    rng: StdRng,
    now_ms: u64,
}

impl Bench {
    fn apply(&mut self, room: &mut Room, who: &Member, intent: Intent) {
        let mut ctx = Ctx {
            now_ms: self.now_ms,
            wall_ms: 1_700_000_000_000 + self.now_ms,
            rng: &mut self.rng,
            seats: &mut self.seats,
            rated: &Unlimited,
        };
        if let Err(refusal) = room.apply(who, intent, &mut ctx) {
            panic!("the bench's intent was refused: {refusal}");
        }
        self.now_ms += 700;
    }
}

/// A rated room of `game` between `host` and `guest`, started, with `watcher` viewing it, after
/// `opening` (moves by the side to move in turn); returns the room and the player to move next.
fn room_after(
    bench: &mut Bench,
    game: Game,
    players: [&Member; 2],
    watcher: &Member,
    opening: &[u8],
) -> (Room, Member) {
    let settings = Settings::from_request(
        &CreateRoom {
            game,
            opponent: OpponentRequest::Player {
                joining: JoiningRequest::Open,
            },
            time_per_move_s: None,
        },
        true,
    )
    .expect("valid settings");
    let [host, guest] = players;
    let id = "r2d2c3";
    if let PlayerKey::User(u) = host.key {
        bench
            .seats
            .claim(u, id, false)
            .expect("the host sits nowhere else");
    }
    let mut ctx = Ctx {
        now_ms: bench.now_ms,
        wall_ms: 1_700_000_000_000,
        rng: &mut bench.rng,
        seats: &mut bench.seats,
        rated: &Unlimited,
    };
    let mut room = Room::new(id.into(), settings, host, &mut ctx);
    room.resume(&mut ctx);
    bench.apply(&mut room, host, Intent::Open);
    bench.apply(&mut room, guest, Intent::Join { passcode: None });
    bench.apply(&mut room, guest, Intent::Ready { ready: true });
    bench.apply(&mut room, watcher, Intent::Open);
    bench.apply(&mut room, host, Intent::Start);
    let x_first = room.view_for(&host.key, bench.now_ms).you.to_move;
    let (mut mover, mut other) = if x_first {
        (host, guest)
    } else {
        (guest, host)
    };
    for &cell in opening {
        bench.apply(&mut room, mover, Intent::Move { cell });
        std::mem::swap(&mut mover, &mut other);
    }
    (room, mover.clone())
}

/// How a move's snapshots are made.
#[derive(Clone, Copy)]
enum Snapshots {
    /// As the actor does: one view for every reader (only their `you` differs during a game),
    /// its JSON up to `you` encoded once (the seats' part kept from the last snapshot), then
    /// completed per reader.
    Shared,
    /// A view built and encoded whole for each reader (what the server once did for every room,
    /// and still does for rooms where readers see different things).
    PerViewer,
}

/// One move through the pipeline: decode, apply, a snapshot per viewer encoded as JSON.
fn one_move(
    bench: &mut Bench,
    room: &mut Room,
    frame: &Frame,
    mover: &Member,
    viewers: &[&Member; 3],
    how: Snapshots,
    seats: &mut SeatsJson,
) -> usize {
    let msg = decode_client(frame, MAX_FRAME_BYTES).expect("the bench's frame decodes");
    let (id, intent) = match msg {
        ClientMsg::Move { id, cell } => (id, Intent::Move { cell }),
        other => panic!("not a move: {other:?}"),
    };
    bench.apply(room, mover, intent);
    let mut bytes = 0;
    if let Snapshots::Shared = how {
        assert!(room.views_differ_only_in_you());
        let view = room.view_for(&viewers[0].key, bench.now_ms);
        let head = view.json_head(seats);
        for viewer in viewers {
            let id = (viewer.conn == mover.conn).then_some(id).flatten();
            let you = room.you_for(&viewer.key);
            bytes += room_json(id, &head, &you, view.rematch_offer).len();
        }
        return bytes;
    }
    for viewer in viewers {
        let msg = ServerMsg::Room {
            id: (viewer.conn == mover.conn).then_some(id).flatten(),
            room: Box::new(room.view_for(&viewer.key, bench.now_ms)),
        };
        bytes += match msg.encode(Framing::Text) {
            Frame::Text(text) => text.len(),
            Frame::Binary(b) => b.len(),
        };
    }
    bytes
}

fn pipeline(c: &mut Criterion) {
    let sara = user(1, 11, "sara");
    let omar = user(2, 12, "omar");
    let watcher = spectator(3);
    let viewers = [&sara, &omar, &watcher];
    let cases: [(&str, Game, &[u8], u8); 2] = [
        // Infinite XO in mid-game: each side has three marks, so the move also removes one.
        ("infinite_xo_move", Game::Infinite, &[0, 2, 1, 3, 5, 7], 6),
        // XO's fourth move.
        ("xo_move", Game::Xo, &[4, 0, 8], 2),
    ];
    let mut group = c.benchmark_group("room_pipeline");
    for (name, game, opening, cell) in cases {
        let mut bench = Bench {
            seats: Seats::default(),
            rng: StdRng::seed_from_u64(7),
            now_ms: 1_000,
        };
        let (room, mover) = room_after(&mut bench, game, [&sara, &omar], &watcher, opening);
        let frame = Frame::Text(format!(r#"{{"move":{{"id":7,"cell":{cell}}}}}"#));
        for (how, suffix) in [
            (Snapshots::Shared, ""),
            (Snapshots::PerViewer, "_per_viewer"),
        ] {
            // The seats' JSON as the room's actor keeps it: made at the game's first snapshot.
            let mut seats = SeatsJson::default();
            room.view_for(&sara.key, bench.now_ms).json_head(&mut seats);
            group.bench_function(format!("{name}{suffix}"), |b| {
                b.iter_batched_ref(
                    || room.clone(),
                    |room| {
                        black_box(one_move(
                            &mut bench, room, &frame, &mover, &viewers, how, &mut seats,
                        ))
                    },
                    BatchSize::SmallInput,
                );
            });
        }
    }
    // What the actor also does per move: the room's saved state, and its lobby row.
    let mut bench = Bench {
        seats: Seats::default(),
        rng: StdRng::seed_from_u64(7),
        now_ms: 1_000,
    };
    let (room, _) = room_after(
        &mut bench,
        Game::Infinite,
        [&sara, &omar],
        &watcher,
        &[0, 2, 1, 3, 5, 7],
    );
    group.bench_function("save", |b| b.iter(|| black_box(room.save())));
    group.bench_function("summary", |b| b.iter(|| black_box(room.summary())));
    group.finish();
}

criterion_group!(benches, pipeline);
criterion_main!(benches);
