//! Results and ratings (E2, E3, P3).

use super::bench::*;
use super::*;

#[test]
fn rated_result_is_announced_only_after_commit() {
    let mut b = Bench::new();
    let (mut room, x, o) = b.started(&user(1, 1), &user(2, 2), Game::Xo);
    room.set_ratings(&[(1, 1200), (2, 1200)]);
    let mut fx = Vec::new();
    for (who, cell) in [(&x, 0), (&o, 3), (&x, 1), (&o, 4), (&x, 2)] {
        fx = b.ok(&mut room, who, Intent::Move { cell });
    }
    let game = commit(&fx).expect("line win commits").clone();
    assert!(game.rated);
    assert_eq!(
        game.end,
        GameEnd::Line {
            winner: Mark::X,
            line: [0, 1, 2]
        }
    );
    assert_eq!(game.moves, vec![0, 3, 1, 4, 2]);
    assert!(matches!(game.x, PlayerRef::User { .. }));
    assert!(
        !events(&fx)
            .iter()
            .any(|e| matches!(e, Event::Result { .. })),
        "not before commit"
    );
    assert_eq!(room.view_for(&x.key, b.now).result, None);
    let x_user = match x.key {
        PlayerKey::User(u) => u,
        PlayerKey::Guest(_) => unreachable!(),
    };
    let o_user = match o.key {
        PlayerKey::User(u) => u,
        PlayerKey::Guest(_) => unreachable!(),
    };
    let updates = vec![
        RatingUpdate {
            user: x_user,
            mark: Mark::X,
            before: 1200,
            after: 1216,
        },
        RatingUpdate {
            user: o_user,
            mark: Mark::O,
            before: 1200,
            after: 1184,
        },
    ];
    let fx = room.committed(updates.clone());
    assert!(
        events(&fx)
            .iter()
            .any(|e| matches!(e, Event::Result { ratings, .. } if *ratings == updates))
    );
    let view = room.view_for(&o.key, b.now);
    let result = view.result.expect("announced");
    assert_eq!(result.ratings, updates);
    assert!(result.rated);
    let o_seat = usize::from(view.you.seat.expect("seated"));
    assert_eq!(
        view.seats[o_seat].player.as_ref().and_then(|p| p.rating),
        Some(1184)
    );
}

#[test]
fn bot_and_local_games_are_unrated_and_have_no_elo_panel() {
    let mut b = Bench::new();
    let me = guest(1, "kiosk");
    let mut room = b.create(&me, Game::Xo, bot(0, None), None, "r1");
    assert_eq!(room.view_for(&me.key, b.now).elo, None);
    let fx = b.ok(&mut room, &me, Intent::Resign);
    let game = commit(&fx).expect("unrated games are stored for replay");
    assert!(!game.rated);
    assert_eq!(game.o, PlayerRef::Bot { difficulty: 0 });
}
