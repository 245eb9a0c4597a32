//! Property tests over random legal games of both games.

use engine::{Game, GameRecord, IllegalMove, Mark, Position, Status};
use proptest::prelude::*;

/// A random legal game: each choice picks among the legal moves by index, modulo their number.
fn play_choices(game: Game, choices: &[u8]) -> GameRecord {
    let mut record = GameRecord::new(game);
    for &choice in choices {
        let moves: Vec<u8> = record.position().legal_moves().collect();
        if moves.is_empty() || record.end().is_some() {
            break;
        }
        let cell = moves[usize::from(choice) % moves.len()];
        record.play(cell).expect("a legal move is accepted");
    }
    record
}

fn any_game() -> impl Strategy<Value = Game> {
    prop_oneof![Just(Game::Xo), Just(Game::Infinite)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn r_inf_2_marks_never_exceed_three(choices in prop::collection::vec(any::<u8>(), 0..80)) {
        let record = play_choices(Game::Infinite, &choices);
        for p in record.positions() {
            prop_assert!(p.marks(Mark::X).len() <= 3);
            prop_assert!(p.marks(Mark::O).len() <= 3);
        }
    }

    #[test]
    fn undo_restores_the_exact_earlier_state(
        game in any_game(),
        choices in prop::collection::vec(any::<u8>(), 0..60),
        back in any::<prop::sample::Index>(),
    ) {
        let record = play_choices(game, &choices);
        let n = record.moves().len();
        let keep = back.index(n + 1);
        let earlier = GameRecord::from_moves(game, &record.moves()[..keep]).expect("prefix replays");
        let mut undone = record.clone();
        undone.undo(n - keep).expect("undo within the history");
        prop_assert_eq!(undone, earlier);
    }

    #[test]
    fn a_decided_game_accepts_no_move(
        game in any_game(),
        choices in prop::collection::vec(any::<u8>(), 0..200),
    ) {
        let mut record = play_choices(game, &choices);
        if record.end().is_some() {
            let before = record.clone();
            for cell in 0..9 {
                prop_assert_eq!(record.play(cell), Err(IllegalMove::GameOver));
            }
            prop_assert_eq!(record, before);
        }
    }

    #[test]
    fn notation_round_trips(game in any_game(), choices in prop::collection::vec(any::<u8>(), 0..40)) {
        let record = play_choices(game, &choices);
        for p in record.positions() {
            let text = p.to_string();
            prop_assert_eq!(Position::parse(game, &text), Ok(*p));
        }
    }

    #[test]
    fn symmetry_preserves_status_and_legality(game in any_game(), choices in prop::collection::vec(any::<u8>(), 0..40)) {
        let p = play_choices(game, &choices).position();
        for sym in 0..8 {
            let t = p.transformed(sym);
            prop_assert_eq!(t.status().is_over(), p.status().is_over());
            prop_assert_eq!(t.legal_mask().count_ones(), p.legal_mask().count_ones());
            prop_assert_eq!(Position::parse(game, &t.to_string()), Ok(t));
        }
    }

    #[test]
    fn r_xo_2_only_the_last_mover_can_hold_a_line(game in any_game(), choices in prop::collection::vec(any::<u8>(), 0..60)) {
        for p in play_choices(game, &choices).positions() {
            if let Status::Won { winner, .. } = p.status() {
                prop_assert_eq!(winner, p.turn().other());
            }
        }
    }
}
