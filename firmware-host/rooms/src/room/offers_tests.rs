//! Draw offers (M3.8).

use super::bench::*;
use super::*;

#[test]
fn draw_offer_accepted_draws_declined_continues() {
    let mut b = Bench::new();
    let (mut room, x, o) = b.started(&user(1, 1), &user(2, 2), Game::Xo);
    b.refused(
        &mut room,
        &o,
        Intent::AnswerDraw { accept: true },
        ErrorCode::NoOffer,
    );
    let fx = b.ok(&mut room, &x, Intent::OfferDraw);
    assert!(events(&fx).contains(&&Event::DrawOffered {
        room: "r1".into(),
        by: Mark::X
    }));
    assert_eq!(room.view_for(&o.key, b.now).draw_offer, Some(Mark::X));
    b.refused(&mut room, &o, Intent::OfferDraw, ErrorCode::OfferPending);
    b.refused(
        &mut room,
        &x,
        Intent::AnswerDraw { accept: true },
        ErrorCode::NoOffer,
    );
    let fx = b.ok(&mut room, &o, Intent::AnswerDraw { accept: false });
    assert!(events(&fx).contains(&&Event::DrawDeclined {
        room: "r1".into(),
        by: Mark::O
    }));
    assert_eq!(room.phase(), Phase::Playing);
    // At most one offer per own turn.
    b.refused(&mut room, &x, Intent::OfferDraw, ErrorCode::OfferLimit);
    b.ok(&mut room, &x, Intent::Move { cell: 0 });
    b.ok(&mut room, &o, Intent::Move { cell: 4 });
    b.ok(&mut room, &x, Intent::OfferDraw);
    let fx = b.ok(&mut room, &o, Intent::AnswerDraw { accept: true });
    assert_eq!(commit(&fx).map(|g| g.end), Some(GameEnd::Agreed));
}

#[test]
fn making_a_move_withdraws_own_offer() {
    let mut b = Bench::new();
    let (mut room, x, o) = b.started(&user(1, 1), &user(2, 2), Game::Xo);
    b.ok(&mut room, &x, Intent::OfferDraw);
    let fx = b.ok(&mut room, &x, Intent::Move { cell: 4 });
    assert!(events(&fx).contains(&&Event::DrawDeclined {
        room: "r1".into(),
        by: Mark::X
    }));
    assert_eq!(room.view_for(&o.key, b.now).draw_offer, None);
    b.refused(
        &mut room,
        &o,
        Intent::AnswerDraw { accept: true },
        ErrorCode::NoOffer,
    );
}
