//! Layout checks of every screen: the game against the bot, a local game, an
//! online room as a player and as a spectator, replay with analysis, the kiosk home with Live
//! rooms, a profile, the leaderboard, the rules and sign-in, each at 800×480, 1024×600,
//! 1280×800 and 360×640 in English and Arabic. [`xo_tests::LAYOUT_JS`] states the rules; a
//! failure lists every element that breaks one, with its box. Screenshots of each screen at
//! 800×480 in both languages land beside the failure screenshots. Run by `scripts/test-browser`.

use engine::{Game, GameRecord};
use protocol::{CreateRoom, OpponentRequest};
use xo_tests::webdriver::{Client, Locator};
use xo_tests::{
    ContentList, Driver, Outcome, Server, check_layout_matrix, check_screen, click, eventually, js,
    open_live, play, register, report, room_over_protocol, run_session, run_sessions,
    start_rated_game, wait_marks,
};

/// The replay's moves with their verdicts (U11): five whole at 800×480 (UI.md, U13).
const MOVES: ContentList = ContentList {
    label: "moves",
    list: "#move-list",
    row: "li.move",
    min_rows: 5,
};
/// The kiosk home's Live rooms (U13).
const LIVE_ROOMS: ContentList = ContentList {
    label: "live rooms",
    list: "#room-list",
    row: ".room-row",
    min_rows: 5,
};
/// A room's player cards.
const PLAYERS: ContentList = ContentList {
    label: "players",
    list: ".room .cards",
    row: ".card",
    min_rows: 2,
};
/// A rated room's ELO preview (E4): both projections and the three scenarios, whole at
/// 800×480 for a spectator.
const ELO: ContentList = ContentList {
    label: "ELO preview",
    list: "#elo-panel",
    row: ".projections li, .segmented button",
    min_rows: 5,
};
/// A ladder's standings.
const STANDINGS: ContentList = ContentList {
    label: "standings",
    list: "#leaderboard tbody",
    row: "tr",
    min_rows: 5,
};

/// `plies` moves of `game`, starting with `start`, in which nobody wins and nothing repeats:
/// a long game whose replay has many rows.
fn long_game(game: Game, start: &[u8], plies: usize) -> Vec<u8> {
    fn search(record: &GameRecord, plies: usize, out: &mut Vec<u8>) -> bool {
        if out.len() == plies {
            return true;
        }
        for cell in record.position().legal_moves() {
            let mut next = record.clone();
            match next.play(cell) {
                Ok(played) if played.end.is_none() => {}
                _ => continue,
            }
            out.push(cell);
            if search(&next, plies, out) {
                return true;
            }
            out.pop();
        }
        false
    }
    let record = GameRecord::from_moves(game, start).expect("a legal start");
    let mut out = start.to_vec();
    assert!(
        search(&record, plies, &mut out),
        "no {plies}-ply game of {game:?}"
    );
    out
}

const KIOSK: (u32, u32) = (800, 480);
const DESKTOP: (u32, u32) = (1280, 800);
const PHONE: (u32, u32) = (360, 640);

/// Opens local rooms over the protocol so the lobby has rows to show; the connections must
/// stay open while the rows are looked at.
async fn fill_lobby(base: &str, names: &[[&str; 2]]) -> Result<Vec<xo_client::Client>, String> {
    let mut clients = Vec::new();
    for (i, pair) in names.iter().enumerate() {
        let room = CreateRoom {
            game: if i % 2 == 0 { Game::Infinite } else { Game::Xo },
            opponent: OpponentRequest::Local {
                names: [pair[0].to_owned(), pair[1].to_owned()],
            },
            time_per_move_s: Some(30),
        };
        clients.push(room_over_protocol(base, room).await?);
    }
    Ok(clients)
}

async fn wait_path(c: &Client, prefix: &str) -> Outcome {
    eventually(&format!("the address {prefix}…"), || async {
        let path = js(c, "return location.pathname;").await.ok()?;
        path.as_str()?.starts_with(prefix).then_some(())
    })
    .await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn every_kiosk_screen_fits_every_size_in_both_languages() {
    let server = Server::start(600).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "layout-kiosk", KIOSK, move |c| async move {
        let mut problems = Vec::new();
        let _rooms = fill_lobby(
            &base,
            &[
                ["Sara", "Omar"],
                ["Abcdefghijklmnopqrst", "سارة"],
                ["Lina", "Adam"],
                ["Nour", "Youssef"],
                ["Mia", "Zaid"],
            ],
        )
        .await?;
        // The kiosk home with its Live rooms.
        open_live(&c, &format!("{base}/kiosk")).await?;
        eventually("the live rooms", || async {
            let n = js(
                &c,
                "return document.querySelectorAll('#room-list .room-row').length;",
            )
            .await
            .ok()?;
            (n.as_u64()? >= 5).then_some(())
        })
        .await?;
        problems.extend(check_screen(&c, "kiosk-home", KIOSK, &[LIVE_ROOMS]).await?);

        // A bot game on the kiosk, one move each, then its replay with analysis.
        click(&c, "#play-bot").await?;
        click(&c, "#bot-submit").await?;
        wait_path(&c, "/kiosk/room/").await?;
        play(&c, 4, 2).await?;
        wait_marks(&c, 2).await?;
        problems.extend(check_screen(&c, "kiosk-bot-game", KIOSK, &[PLAYERS]).await?);
        click(&c, "#replay-toggle").await?;
        eventually("the move list", || async {
            c.find(Locator::Css("#move-list li")).await.ok()
        })
        .await?;
        problems.extend(check_screen(&c, "kiosk-bot-replay", KIOSK, &[MOVES]).await?);

        // A local XO game played to its end (nine moves, a win thrown away on the way), then
        // its replay under the result banner: the longest list a kiosk screen shows (U13).
        open_live(&c, &format!("{base}/kiosk")).await?;
        click(&c, "#play-friend").await?;
        click(&c, "#friend-submit").await?;
        wait_path(&c, "/kiosk/room/").await?;
        for (i, cell) in [0u8, 4, 8, 2, 6, 3, 5, 7, 1].into_iter().enumerate() {
            play(&c, cell, i as u64 + 1).await?;
        }
        eventually("the result", || async {
            c.find(Locator::Css("#result-prompt")).await.ok()
        })
        .await?;
        click(&c, "#replay-toggle").await?;
        eventually("nine moves", || async {
            let n = js(
                &c,
                "return document.querySelectorAll('#move-list li').length;",
            )
            .await
            .ok()?;
            (n.as_u64()? == 9).then_some(())
        })
        .await?;
        problems.extend(check_screen(&c, "kiosk-local-replay", KIOSK, &[MOVES]).await?);
        // The verdicts' legend, asked for: over the list, the list still there.
        click(&c, "#analysis-help").await?;
        let note = eventually("the legend", || async {
            xo_tests::text_of(&c, "#analysis-note").await
        })
        .await?;
        assert!(note.contains("before it → after it"), "{note}");
        for p in xo_tests::layout_problems(&c).await? {
            problems.push(format!("kiosk-replay-help 800×480 en: {p}"));
        }
        xo_tests::save_screenshot(&c, "kiosk-replay-help-en").await;
        click(&c, "#analysis-help").await?;
        xo_tests::wait_gone(&c, "#analysis-note").await?;

        // A local Infinite XO game with a clock.
        open_live(&c, &format!("{base}/kiosk")).await?;
        click(&c, "#play-friend").await?;
        click(&c, "label[for='friend-game-1']").await?;
        click(&c, "label[for='friend-time-2']").await?;
        click(&c, "#friend-submit").await?;
        wait_path(&c, "/kiosk/room/").await?;
        for (i, cell) in [0u8, 3, 1, 4].into_iter().enumerate() {
            play(&c, cell, i as u64 + 1).await?;
        }
        problems.extend(check_screen(&c, "kiosk-local-game", KIOSK, &[PLAYERS]).await?);
        // Played on to twelve moves, marks vanishing since the seventh: the longest rows.
        let moves = long_game(Game::Infinite, &[0, 3, 1, 4], 12);
        for (i, &cell) in moves.iter().enumerate().skip(4) {
            play(&c, cell, (i + 1).min(6) as u64).await?;
        }
        click(&c, "#replay-toggle").await?;
        eventually("twelve moves", || async {
            let n = js(
                &c,
                "return document.querySelectorAll('#move-list li').length;",
            )
            .await
            .ok()?;
            (n.as_u64()? == 12).then_some(())
        })
        .await?;
        problems.extend(check_screen(&c, "kiosk-infinite-replay", KIOSK, &[MOVES]).await?);
        report(&problems)
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn every_online_screen_fits_every_size_in_both_languages() {
    let server = Server::start(600).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_sessions(
        &driver,
        "layout-online",
        &[DESKTOP, PHONE, KIOSK],
        move |sessions| async move {
            let (host, guest, kiosk) = (&sessions[0], &sessions[1], &sessions[2]);
            let mut problems = Vec::new();
            // Sign-in and the rules, before anyone has signed in.
            open_live(guest, &format!("{base}/signin")).await?;
            problems.extend(check_layout_matrix(guest, "sign-in", PHONE).await?);
            open_live(guest, &format!("{base}/rules")).await?;
            problems.extend(check_layout_matrix(guest, "rules", PHONE).await?);

            register(host, &base, "hostess").await?;
            register(guest, &base, "visitor").await?;
            let (x, o) = start_rated_game(host, guest, &base, "visitor").await?;
            play(x, 4, 1).await?;
            play(o, 0, 2).await?;
            // A draw offer waits for O's answer while the screens are checked.
            click(x, "#offer-draw").await?;
            eventually("the offer for O", || async {
                o.find(Locator::Css("#accept-draw")).await.ok()
            })
            .await?;
            let room = js(host, "return location.pathname;").await?;
            let room = room
                .as_str()
                .unwrap_or("/")
                .trim_start_matches("/room/")
                .to_owned();
            problems.extend(check_layout_matrix(guest, "online-player", PHONE).await?);
            // The kiosk watches it from its Live rooms.
            open_live(kiosk, &format!("{base}/kiosk")).await?;
            click(
                kiosk,
                &format!("#room-list [data-room='{room}'] .room-link"),
            )
            .await?;
            wait_path(kiosk, "/kiosk/room/").await?;
            eventually("the spectator's board", || async {
                kiosk.find(Locator::Css("#board")).await.ok()
            })
            .await?;
            problems.extend(check_screen(kiosk, "online-spectator", KIOSK, &[PLAYERS, ELO]).await?);

            // Finish the game: X wins on the middle column.
            click(o, "#decline-draw").await?;
            play(x, 1, 3).await?;
            play(o, 2, 4).await?;
            play(x, 7, 5).await?;
            eventually("the result", || async {
                x.find(Locator::Css("#result")).await.ok()
            })
            .await?;
            problems.extend(check_layout_matrix(guest, "online-result", PHONE).await?);
            // The kiosk that watched it: the result, then the replay.
            eventually("the result on the kiosk", || async {
                kiosk.find(Locator::Css("#result-prompt")).await.ok()
            })
            .await?;
            click(kiosk, "#replay-toggle").await?;
            eventually("the watched game's moves", || async {
                kiosk.find(Locator::Css("#move-list li")).await.ok()
            })
            .await?;
            problems.extend(check_screen(kiosk, "online-spectator-replay", KIOSK, &[MOVES]).await?);
            // Profile, its game's replay, the leaderboard.
            open_live(host, &format!("{base}/profile/hostess")).await?;
            eventually("the profile's games", || async {
                host.find(Locator::Css(".games a")).await.ok()
            })
            .await?;
            problems.extend(check_layout_matrix(host, "profile", DESKTOP).await?);
            click(host, ".games a").await?;
            eventually("the stored game's moves", || async {
                host.find(Locator::Css("#move-list li")).await.ok()
            })
            .await?;
            problems.extend(check_screen(host, "game-replay", DESKTOP, &[MOVES]).await?);
            open_live(host, &format!("{base}/leaderboard/xo")).await?;
            eventually("the leaderboard", || async {
                host.find(Locator::Css("#leaderboard tbody tr")).await.ok()
            })
            .await?;
            problems.extend(check_screen(host, "leaderboard", DESKTOP, &[STANDINGS]).await?);
            report(&problems)
        },
    )
    .await;
}
