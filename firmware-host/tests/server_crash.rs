//! P3 under power cuts: the real server is killed with SIGKILL at random moments while rated
//! games finish back to back, and restarted on the same data. Afterwards every stored game
//! has both rating updates, each player's ratings chain from 1200 through their stored games
//! to the rating on their profile, and win/loss counts match the games.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use rand::RngExt;
use support::{Process, credentials, play_rated_until_resignation, request};

const ROUNDS: usize = 3;
/// Bounds the games per round so every game stays within a profile's 20 recent games.
const GAMES_PER_ROUND: usize = 5;

#[tokio::test]
async fn sigkill_during_rated_games_leaves_only_whole_results() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut cookies = Vec::new();
    for round in 0..ROUNDS {
        let server = Process::start(dir.path(), &[]);
        let addr = server.addr;
        if round == 0 {
            for name in ["Alice", "Bob"] {
                let reply = request(
                    addr,
                    "POST",
                    "/api/register",
                    &[("Content-Type", "application/json")],
                    Some(credentials(name, "password1").as_bytes()),
                )
                .await;
                assert_eq!(reply.status, 201, "{}", reply.text());
                cookies.push(reply.cookie_pair("xo_session").expect("cookie"));
            }
        }
        let (a, b) = (cookies[0].clone(), cookies[1].clone());
        // Games back to back, hosts alternating so both ratings move both ways.
        let finished = Arc::new(AtomicUsize::new(0));
        let counter = Arc::clone(&finished);
        let games = tokio::spawn(async move {
            for n in 0..GAMES_PER_ROUND {
                let (host, joiner) = if n % 2 == 0 { (&a, &b) } else { (&b, &a) };
                play_rated_until_resignation(addr, host, joiner).await;
                counter.fetch_add(1, Ordering::SeqCst);
            }
        });
        // At least one whole game per round, then a cut at a random moment of the next ones.
        for _ in 0..1500 {
            if finished.load(Ordering::SeqCst) > 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(
            finished.load(Ordering::SeqCst) > 0,
            "a first game within 30 s"
        );
        let delay = rand::rng().random_range(0..400);
        tokio::time::sleep(Duration::from_millis(delay)).await;
        server.stop_with_kill();
        // The game loop fails once the server is gone; its panic is expected and dropped.
        games.abort();
        let _ignored = games.await;
    }

    let server = Process::start(dir.path(), &[]);
    let mut games = std::collections::BTreeMap::new();
    let mut profiles = Vec::new();
    for name in ["Alice", "Bob"] {
        let profile = request(server.addr, "GET", &format!("/api/users/{name}"), &[], None)
            .await
            .json();
        for game in profile["recent_games"].as_array().expect("recent games") {
            let updates = game["rating_updates"].as_array().expect("updates");
            assert_eq!(
                updates.len(),
                2,
                "a stored rated game has both updates: {game}"
            );
            games.insert(
                (
                    game["ended_at_ms"].as_u64().expect("end time"),
                    game["id"].to_string(),
                ),
                game.clone(),
            );
        }
        profiles.push(profile);
    }
    assert!(
        games.len() >= ROUNDS,
        "each round stored at least its first game"
    );
    assert!(
        games.len() < 20,
        "all games fit in the recent list ({})",
        games.len()
    );
    for profile in &profiles {
        let id = &profile["id"];
        let ladder = &profile["ladders"]["infinite"];
        let mut rating = 1200;
        let mut played = 0;
        for game in games.values() {
            for update in game["rating_updates"].as_array().expect("updates") {
                if update["user"] == *id {
                    assert_eq!(update["before"], rating, "ratings chain through the games");
                    rating = update["after"].as_i64().expect("after");
                    played += 1;
                }
            }
        }
        assert_eq!(
            ladder["rating"], rating,
            "profile rating is the replay: {profile}"
        );
        assert_eq!(ladder["games"], played, "{profile}");
        assert_eq!(
            ladder["wins"].as_u64().expect("wins") + ladder["losses"].as_u64().expect("losses"),
            played,
            "{profile}"
        );
    }
    server.stop_with("-TERM");
}
