//! `xo-client`: talks to a running XO Kiosk server over its WebSocket.
//!
//! ```text
//! xo-client play-bot --url http://127.0.0.1:8080 [--game xo|infinite] [--difficulty 0-100] [--binary]
//! ```
//! plays one bot game as a guest with random moves and prints the result as one JSON line.

use std::process::ExitCode;

use engine::Game;
use protocol::Framing;

const USAGE: &str = "usage: xo-client play-bot --url http://HOST:PORT [--game xo|infinite] [--difficulty 0-100] [--binary]";

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    if args.next().as_deref() != Some("play-bot") {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    }
    let (mut url, mut game, mut difficulty, mut framing) =
        (None, Game::Infinite, 50u8, Framing::Text);
    while let Some(arg) = args.next() {
        let parsed = match arg.as_str() {
            "--url" => args.next().map(|v| url = Some(v)),
            "--game" => args.next().and_then(|v| v.parse().ok()).map(|g| game = g),
            "--difficulty" => args
                .next()
                .and_then(|v| v.parse().ok())
                .filter(|d| *d <= 100)
                .map(|d| difficulty = d),
            "--binary" => {
                framing = Framing::Binary;
                Some(())
            }
            _ => None,
        };
        if parsed.is_none() {
            eprintln!("xo-client: bad argument `{arg}`\n{USAGE}");
            return ExitCode::from(2);
        }
    }
    let Some(url) = url else {
        eprintln!("xo-client: --url is required\n{USAGE}");
        return ExitCode::from(2);
    };
    let outcome = async {
        let mut client = xo_client::Client::connect(&url, None, framing).await?;
        client
            .play_bot_game(game, difficulty, &mut rand::rng())
            .await
    }
    .await;
    match outcome {
        Ok(result) => {
            let line = serde_json::json!({
                "game": game.as_str(),
                "difficulty": difficulty,
                "end": result.end,
                "rated": result.rated,
            });
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("xo-client: {e}");
            ExitCode::FAILURE
        }
    }
}
