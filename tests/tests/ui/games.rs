//! Browser tests that play games through the real server's WebSocket: a local game
//! to a win, keyboard-only play, a bot game with hint, undo and replay, the kiosk's idle
//! return, and a rated game between two browsers with a spectator. Run by
//! `scripts/test-browser`.

use xo_tests::webdriver::key::Key;
use xo_tests::webdriver::{Client, Locator};
use xo_tests::{
    Driver, Outcome, Server, announced, assert_in_view, attr_of, click, click_cell, eventually, js,
    marks, open_live as open, play, plays_x, register, run_session, run_sessions, save_screenshot,
    start_local_game, start_rated_game, text_of, type_into, wait_js, wait_marks, wait_text,
};

const KIOSK: (u32, u32) = (800, 480);
const DESKTOP: (u32, u32) = (1280, 800);
const PHONE: (u32, u32) = (360, 640);

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn local_game_to_a_win_highlights_the_line() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "local-win", KIOSK, move |c| async move {
        start_local_game(&c, &base).await?;
        let rail = text_of(&c, "#rail-text").await.unwrap_or_default();
        assert!(rail.ends_with("(X) to move"), "the rail names X's player: {rail}");
        // X: 0, 1, 2 against O: 3, 4 — whoever holds X wins along the top row.
        play(&c, 0, 1).await?;
        play(&c, 3, 2).await?;
        save_screenshot(&c, "game-in-progress").await;
        for (i, cell) in [1u8, 4, 2].into_iter().enumerate() {
            play(&c, cell, i as u64 + 3).await?;
        }
        eventually("the result", || async {
            let t = text_of(&c, "#result").await?;
            t.contains("wins with a line").then_some(())
        })
        .await?;
        let win = js(&c, "return [...document.querySelectorAll('#board .cell.win')].map(c => c.dataset.cell);").await?;
        assert_eq!(win, serde_json::json!(["0", "1", "2"]));
        assert_eq!(js(&c, "return document.querySelector('#board .win-line') !== null;").await?, true);
        let live = text_of(&c, "#live, #live-alt").await.unwrap_or_default();
        let live2 = js(&c, "return document.querySelector('#live').textContent + document.querySelector('#live-alt').textContent;").await?;
        assert!(live2.as_str().unwrap_or_default().contains("wins with a line"), "announced: {live} / {live2}");
        save_screenshot(&c, "game-won").await;
        Ok(())
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn keyboard_only_play_moves_the_focus_and_places_with_space_and_enter() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "keyboard-play", KIOSK, move |c| async move {
        start_local_game(&c, &base).await?;
        js(
            &c,
            "document.querySelector('#board [tabindex=\"0\"]').focus(); return 0;",
        )
        .await?;
        // Centre with Enter.
        c.active_element()
            .await?
            .send_keys(&Key::Enter.to_string())
            .await?;
        wait_marks(&c, 1).await?;
        // U5: the move is announced in the live region.
        eventually("the move's announcement", || async {
            let said = js(&c, "return document.querySelector('#live').textContent + document.querySelector('#live-alt').textContent;").await.ok()?;
            said.as_str()?.contains("X on centre").then_some(())
        })
        .await?;
        assert!(
            attr_of(&c, "#board [data-cell='4']", "aria-label")
                .await
                .unwrap_or_default()
                .starts_with("centre, "),
        );
        // Up to top centre, Space.
        c.active_element()
            .await?
            .send_keys(&Key::Up.to_string())
            .await?;
        c.active_element().await?.send_keys(" ").await?;
        wait_marks(&c, 2).await?;
        // An occupied cell does nothing.
        c.active_element()
            .await?
            .send_keys(&Key::Enter.to_string())
            .await?;
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        assert_eq!(marks(&c).await?, 2);
        let label = attr_of(&c, "#board [data-cell='1']", "aria-label")
            .await
            .unwrap_or_default();
        assert!(
            label == "top centre, X" || label == "top centre, O",
            "{label}"
        );
        Ok(())
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn bot_game_with_hint_undo_and_replay_analysis() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let url = server.url("/");
    run_session(&driver, "bot-game", DESKTOP, move |c| async move {
        open(&c, &url).await?;
        // Perfect bot (100 %), the human plays X.
        js(&c, "const s = document.querySelector('#create-difficulty'); s.value = '100'; s.dispatchEvent(new Event('input', {bubbles: true})); return 0;").await?;
        click(&c, "#create-submit").await?;
        eventually("the bot room", || async {
            c.find(Locator::Css("#hint")).await.ok().map(|_| ())
        })
        .await?;
        click(&c, "#hint").await?;
        let hinted = eventually("a hinted cell", || async {
            let cell = js(&c, "const h = document.querySelector('#board .cell.hint'); return h ? h.dataset.cell : null;").await.ok()?;
            cell.as_str().map(str::to_owned)
        })
        .await?;
        let label = attr_of(&c, &format!("#board [data-cell='{hinted}']"), "aria-label").await.unwrap_or_default();
        assert!(label.ends_with(", hint"), "{label}");
        play(&c, hinted.parse()?, 1).await?;
        wait_marks(&c, 2).await?;
        // Undo takes back the human's move and the bot's reply.
        eventually("undo enabled", || async {
            (attr_of(&c, "#undo", "disabled").await.is_none()).then_some(())
        })
        .await?;
        click(&c, "#undo").await?;
        wait_marks(&c, 0).await?;
        // Play again, then replay shows the moves with the table's verdicts.
        play(&c, 4, 1).await?;
        wait_marks(&c, 2).await?;
        click(&c, "#replay-toggle").await?;
        let rows = eventually("the move list", || async {
            let n = js(&c, "return document.querySelectorAll('#move-list li').length;").await.ok()?;
            (n.as_u64()? == 2).then_some(n)
        })
        .await?;
        assert_eq!(rows, 2);
        let first = text_of(&c, "#move-list li").await.unwrap_or_default();
        assert!(first.contains("X centre") && first.contains("draw → draw"), "{first}");
        click(&c, "#replay-prev").await?;
        eventually("one mark in the replay", || async {
            let n = js(&c, "return document.querySelectorAll('#replay-board .mark').length;").await.ok()?;
            (n.as_u64()? == 1).then_some(())
        })
        .await?;
        assert_eq!(text_of(&c, "#replay-status").await.as_deref(), Some("Move 1 of 2"));
        Ok(())
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn kiosk_returns_home_after_the_idle_time_once_the_game_is_over() {
    let server = Server::start(3).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "kiosk-idle", KIOSK, move |c| async move {
        start_local_game(&c, &base).await?;
        // A game in progress holds the screen past the idle time, asking "Still playing?".
        play(&c, 0, 1).await?;
        tokio::time::sleep(std::time::Duration::from_secs(5)).await;
        let path = js(&c, "return location.pathname;").await?;
        assert!(
            path.as_str()
                .unwrap_or_default()
                .starts_with("/kiosk/room/"),
            "{path}"
        );
        click(&c, "#still-playing").await?;
        for (i, cell) in [3u8, 1, 4, 2].into_iter().enumerate() {
            play(&c, cell, i as u64 + 2).await?;
        }
        eventually("the result", || async { text_of(&c, "#result").await }).await?;
        eventually("the kiosk home after the idle time", || async {
            let path = js(&c, "return location.pathname;").await.ok()?;
            (path == "/kiosk").then_some(())
        })
        .await?;
        assert_eq!(
            js(&c, "return document.querySelector('#play-bot') !== null;").await?,
            true
        );
        Ok(())
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn two_players_play_a_rated_passcode_game_watched_by_a_spectator() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_sessions(&driver, "rated-game", &[DESKTOP, PHONE, KIOSK], move |sessions| async move {
        let (host, guest, spectator) = (&sessions[0], &sessions[1], &sessions[2]);
        register(host, &base, "hostess").await?;
        register(guest, &base, "visitor").await?;
        // The host creates a passcode room.
        click(host, "label[for='create-joining-2']").await?;
        type_into(host, "#create-passcode", "4321").await?;
        click(host, "#create-submit").await?;
        let passcode = eventually("the passcode shown to the host", || async {
            text_of(host, "#passcode").await
        })
        .await?;
        assert!(passcode.contains("4321"), "{passcode}");
        let room_path = js(host, "return location.pathname;").await?;
        let room_id = room_path.as_str().unwrap_or_default().trim_start_matches("/room/").to_owned();
        // Meanwhile a local game runs on the kiosk, so the phone lobby lists both rooms.
        start_local_game(spectator, &base).await?;
        play(spectator, 4, 1).await?;
        eventually("both rooms in the phone lobby", || async {
            let n = js(guest, "return document.querySelectorAll('#room-list .room-row').length;").await.ok()?;
            (n == 2).then_some(())
        })
        .await?;
        save_screenshot(guest, "phone-lobby").await;
        // The guest finds it in the lobby and joins with the code; a wrong one is refused.
        click(guest, &format!("#room-list [data-room='{room_id}'] .room-link")).await?;
        eventually("the join form", || async {
            guest.find(Locator::Css("#join-passcode")).await.ok()
        })
        .await?;
        assert!(guest.find(Locator::Css("#passcode")).await.is_err(), "only the host sees the code");
        type_into(guest, "#join-passcode", "1111").await?;
        click(guest, "#join").await?;
        eventually("the wrong-passcode error", || async {
            let t = text_of(guest, "#notice").await?;
            t.contains("Wrong passcode").then_some(())
        })
        .await?;
        // The error for what the phone just did shows where its user is: at the top of the
        // viewport, though the browser scrolled down to Join to tap it (14.4).
        assert_in_view(guest, "#notice", 640.0).await?;
        guest.find(Locator::Css("#join-passcode")).await?.clear().await?;
        type_into(guest, "#join-passcode", "4321").await?;
        click(guest, "#join").await?;
        click(guest, "#ready").await?;
        eventually("start enabled", || async {
            (attr_of(host, "#start", "disabled").await.is_none()).then_some(())
        })
        .await?;
        click(host, "#start").await?;
        // A spectator cannot act but sees the ELO preview; the players see the count.
        open(spectator, &format!("{base}{}", room_path.as_str().unwrap_or("/"))).await?;
        eventually("the spectator count", || async {
            let t = text_of(host, "#spectators").await?;
            t.contains("1 watching").then_some(())
        })
        .await?;
        eventually("the spectator's board", || async {
            spectator.find(Locator::Css("#board")).await.ok()
        })
        .await?;
        assert!(spectator.find(Locator::Css("#resign")).await.is_err());
        let disabled = js(spectator, "return [...document.querySelectorAll('#board .cell')].every(c => c.getAttribute('aria-disabled') === 'true');").await?;
        assert_eq!(disabled, true, "a spectator's board does nothing");
        eventually("the ELO preview for the spectator", || async {
            spectator.find(Locator::Css("#elo-panel")).await.ok()
        })
        .await?;
        // Whoever is X plays the top row; O answers on the middle row.
        let host_is_x = plays_x(host).await?;
        let (x, o) = if host_is_x { (host, guest) } else { (guest, host) };
        let (x_name, o_name) = if host_is_x { ("hostess", "visitor") } else { ("visitor", "hostess") };
        // E4, spectator form: either named player as winner, or Draw (the default).
        let projections = "return [...document.querySelectorAll('#elo-panel .projections li')].map(l => l.textContent);";
        let choices = js(spectator, "return [...document.querySelectorAll('#elo-panel button')].map(b => b.textContent);").await?;
        assert_eq!(choices, serde_json::json!([format!("{x_name} wins"), "Draw", format!("{o_name} wins")]));
        assert_eq!(
            js(spectator, projections).await?,
            serde_json::json!([format!("{x_name} 1200 → 1200"), format!("{o_name} 1200 → 1200")])
        );
        click(spectator, "#elo-panel button:nth-child(3)").await?;
        wait_js(
            spectator,
            projections,
            serde_json::json!([format!("{x_name} 1200 → 1184"), format!("{o_name} 1200 → 1216")]),
        )
        .await?;
        // Player form: Win, Draw or Loss from their own side, Win first.
        let choices = js(o, "return [...document.querySelectorAll('#elo-panel button')].map(b => b.textContent);").await?;
        assert_eq!(choices, serde_json::json!(["Win", "Draw", "Loss"]));
        assert_eq!(
            js(o, projections).await?,
            serde_json::json!([format!("{x_name} 1200 → 1184"), format!("{o_name} 1200 → 1216")])
        );
        click(o, "#elo-panel button:nth-child(3)").await?;
        wait_js(
            o,
            projections,
            serde_json::json!([format!("{x_name} 1200 → 1216"), format!("{o_name} 1200 → 1184")]),
        )
        .await?;
        play(x, 0, 1).await?;
        play(o, 3, 2).await?;
        wait_marks(guest, 2).await?;
        js(guest, "window.scrollTo(0, 0); return true;").await?;
        save_screenshot(guest, "phone-game").await;
        play(x, 1, 3).await?;
        play(o, 4, 4).await?;
        play(x, 2, 5).await?;
        let winner_change = eventually("the winner's rating change", || async {
            text_of(x, ".change.gain").await
        })
        .await?;
        assert!(winner_change.starts_with('+'), "{winner_change}");
        let loser_change = eventually("the loser's rating change", || async {
            text_of(o, ".change.loss").await
        })
        .await?;
        assert!(loser_change.starts_with('−'), "{loser_change}");
        save_screenshot(x, "rated-result").await;
        // The leaderboard ranks the winner first; the profile links the game's replay, whose
        // analysis marks O's missed block.
        let winner = if host_is_x { "hostess" } else { "visitor" };
        open(x, &format!("{base}/leaderboard/xo")).await?;
        let first = eventually("the leaderboard", || async {
            text_of(x, "#leaderboard tbody tr").await
        })
        .await?;
        assert!(first.contains(winner) && first.contains("1216"), "{first}");
        open(x, &format!("{base}/profile/{winner}")).await?;
        let profile = eventually("the profile", || async { text_of(x, ".ladders").await }).await?;
        assert!(profile.contains("Rating 1216"), "{profile}");
        click(x, ".games a").await?;
        let moves = eventually("the replay's move list", || async {
            let n = js(x, "return document.querySelectorAll('#move-list li').length;").await.ok()?;
            (n.as_u64()? == 5).then_some(n)
        })
        .await?;
        assert_eq!(moves, 5);
        let slipped = js(x, "return document.querySelectorAll('#move-list li.slipped').length;").await?;
        assert!(slipped.as_u64().unwrap_or(0) >= 1, "the missed block is marked");
        let last = js(x, "return [...document.querySelectorAll('#move-list li')].pop().textContent;").await?;
        assert!(last.as_str().unwrap_or_default().contains("won"), "{last}");
        Ok(())
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn kicked_player_cannot_view_the_room_again() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_sessions(
        &driver,
        "kicked",
        &[DESKTOP, PHONE],
        move |sessions| async move {
            let (host, guest) = (&sessions[0], &sessions[1]);
            register(host, &base, "owner").await?;
            register(guest, &base, "pest").await?;
            click(host, "#create-submit").await?;
            eventually("the waiting room", || async {
                host.find(Locator::Css("#start")).await.ok()
            })
            .await?;
            let room_path = js(host, "return location.pathname;").await?;
            click(guest, "#room-list .room-link").await?;
            click(guest, "#join").await?;
            eventually("the guest seated", || async {
                let t = text_of(host, "#seat-1").await?;
                t.contains("pest").then_some(())
            })
            .await?;
            // Kick asks once, in place.
            click(host, "#kick").await?;
            click(host, "#kick-yes").await?;
            eventually("the kicked player's notice", || async {
                let t = text_of(guest, "#notice").await?;
                t.contains("removed you").then_some(())
            })
            .await?;
            let path = js(guest, "return location.pathname;").await?;
            assert_eq!(path, "/");
            // Opening the room's link again is refused.
            open(
                guest,
                &format!("{base}{}", room_path.as_str().unwrap_or("/")),
            )
            .await?;
            eventually("the refusal", || async {
                let t = text_of(guest, "#notice").await?;
                t.contains("removed you").then_some(())
            })
            .await?;
            assert!(guest.find(Locator::Css("#board")).await.is_err());
            Ok(())
        },
    )
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn agreed_draw_shows_neutral_changes_and_resign_and_exit_returns_to_the_lobby() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_sessions(
        &driver,
        "draw-resign",
        &[DESKTOP, DESKTOP],
        move |sessions| async move {
            let (host, guest) = (&sessions[0], &sessions[1]);
            register(host, &base, "alpha").await?;
            register(guest, &base, "bravo").await?;
            let (x, o) = start_rated_game(host, guest, &base, "bravo").await?;
            // M3.8: X offers, O accepts.
            click(x, "#offer-draw").await?;
            eventually("the offer pending for X", || async {
                (attr_of(x, "#offer-draw", "disabled").await.is_some()).then_some(())
            })
            .await?;
            click(o, "#accept-draw").await?;
            for who in [x, o] {
                let result = eventually("the agreed draw", || async {
                    text_of(who, "#result").await
                })
                .await?;
                assert_eq!(result, "Draw by agreement");
                // E3: equal ratings drawing change by zero: neutral, for both cards.
                let neutral = eventually("two neutral changes", || async {
                    let n = js(
                        who,
                        "return document.querySelectorAll('.change.neutral').length;",
                    )
                    .await
                    .ok()?;
                    (n.as_u64()? == 2).then_some(n)
                })
                .await?;
                assert_eq!(neutral, 2);
            }
            // Both leave the finished room with Exit.
            click(x, "#exit").await?;
            click(o, "#exit").await?;
            for who in [x, o] {
                eventually("the lobby", || async {
                    let path = js(who, "return location.pathname;").await.ok()?;
                    (path == "/").then_some(())
                })
                .await?;
            }
            // U9: Resign & Exit asks once, then resigns and returns to the lobby.
            let (x, o) = start_rated_game(host, guest, &base, "bravo").await?;
            click(x, "#resign-exit").await?;
            assert!(
                x.find(Locator::Css("#offer-draw")).await.is_ok(),
                "the draw offer stays away from the confirmation"
            );
            click(x, "#resign-yes").await?;
            eventually("the resigner back in the lobby", || async {
                let path = js(x, "return location.pathname;").await.ok()?;
                (path == "/").then_some(())
            })
            .await?;
            let result =
                eventually("the resignation", || async { text_of(o, "#result").await }).await?;
            assert!(result.contains("resigned"), "{result}");
            Ok(())
        },
    )
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn arabic_game_mirrors_the_page_but_not_the_board() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "arabic-game", KIOSK, move |c| async move {
        open(&c, &format!("{base}/kiosk")).await?;
        click(&c, "#lang-ar").await?;
        click(&c, "#play-friend").await?;
        type_into(&c, "#friend-name1", "سارة").await?;
        type_into(&c, "#friend-name2", "عمر").await?;
        click(&c, "#friend-submit").await?;
        play(&c, 0, 1).await?;
        assert_eq!(attr_of(&c, "html", "dir").await.as_deref(), Some("rtl"));
        assert_eq!(attr_of(&c, "#board", "dir").await.as_deref(), Some("ltr"));
        // Top left stays top left: the first mark is in the leftmost column.
        let xs = js(
            &c,
            "return [0, 2].map(i => document.querySelector(`#board [data-cell='${i}']`).getBoundingClientRect().x);",
        )
        .await?;
        assert!(xs[0].as_f64() < xs[1].as_f64(), "{xs}");
        let label = attr_of(&c, "#board [data-cell='0']", "aria-label").await.unwrap_or_default();
        assert!(label.starts_with("أعلى اليسار, "), "{label}");
        // The page mirrors: the player cards sit right of the board.
        let cards = js(&c, "return document.querySelector('.cards').getBoundingClientRect().x;").await?;
        let board = js(&c, "return document.querySelector('#board').getBoundingClientRect().x;").await?;
        assert!(cards.as_f64() > board.as_f64(), "cards {cards} vs board {board}");
        let rail = text_of(&c, "#rail-text").await.unwrap_or_default();
        assert!(rail.starts_with("دور "), "{rail}");
        save_screenshot(&c, "arabic-game").await;
        Ok(())
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn host_approval_requests_are_accepted_declined_or_cancelled() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_sessions(
        &driver,
        "approval",
        &[DESKTOP, PHONE],
        move |sessions| async move {
            let (host, guest) = (&sessions[0], &sessions[1]);
            register(host, &base, "gatekeeper").await?;
            register(guest, &base, "knocker").await?;
            click(host, "label[for='create-joining-1']").await?;
            click(host, "#create-submit").await?;
            eventually("the waiting room", || async {
                host.find(Locator::Css("#start")).await.ok()
            })
            .await?;
            click(guest, "#room-list .room-link").await?;
            // Ask, then cancel: the host's list empties.
            click(guest, "#join").await?;
            wait_text(host, ".requests", "knocker").await?;
            click(guest, "#cancel-request").await?;
            eventually("the request withdrawn", || async {
                host.find(Locator::Css(".requests"))
                    .await
                    .is_err()
                    .then_some(())
            })
            .await?;
            // Ask again; the host declines and the requester is told.
            click(guest, "#join").await?;
            click(host, ".requests .decline").await?;
            wait_text(guest, "#notice", "declined").await?;
            // Ask a third time; the host accepts and the seat fills.
            click(guest, "#join").await?;
            click(host, ".requests .accept").await?;
            wait_text(host, "#seat-1", "knocker").await?;
            eventually("the guest's ready toggle", || async {
                guest.find(Locator::Css("#ready")).await.ok()
            })
            .await?;
            Ok(())
        },
    )
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn infinite_xo_glows_the_mark_that_vanishes_next_and_announces_it() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "infinite-glow", KIOSK, move |c| async move {
        open(&c, &format!("{base}/kiosk")).await?;
        click(&c, "#play-friend").await?;
        click(&c, "label[for='friend-game-1']").await?;
        // Infinite XO offers the move time, 10 s by default.
        wait_js(
            &c,
            "return document.querySelector('#friend-time-1').checked;",
            serde_json::json!(true),
        )
        .await?;
        type_into(&c, "#friend-name1", "Lina").await?;
        type_into(&c, "#friend-name2", "Adam").await?;
        click(&c, "#friend-submit").await?;
        for (i, cell) in [0u8, 3, 1, 4, 8, 6].into_iter().enumerate() {
            play(&c, cell, i as u64 + 1).await?;
        }
        // X holds three marks and is to move: its oldest, top left, glows (R-INF-5, U3, U5).
        wait_text(&c, "#rail-text", "(X) to move").await?;
        let glowing = js(&c, "return [...document.querySelectorAll('#board .cell.glow')].map(c => c.dataset.cell);").await?;
        assert_eq!(glowing, serde_json::json!(["0"]));
        assert_eq!(
            attr_of(&c, "#board [data-cell='0']", "aria-label").await.as_deref(),
            Some("top left, X, vanishes next")
        );
        assert_eq!(
            attr_of(&c, "#board [data-cell='0']", "aria-disabled").await.as_deref(),
            Some("true"),
            "the glowing mark is not empty (R-INF-1)"
        );
        let clock = text_of(&c, ".clock").await.unwrap_or_default();
        assert!(clock.ends_with(" s"), "the move clock: {clock}");
        save_screenshot(&c, "infinite-glow").await;
        // Playing top right removes top left and says so.
        play(&c, 2, 6).await?;
        // Six marks before the move and after it (the fourth X takes the oldest's place), so
        // the count cannot tell that the move was drawn: wait for the cell itself.
        wait_marks(&c, 6).await?;
        eventually("top left emptied", || async {
            (attr_of(&c, "#board [data-cell='0']", "aria-label").await.as_deref()
                == Some("top left, empty"))
            .then_some(())
        })
        .await?;
        eventually("the vanishing announced", || async {
            let said = js(&c, "return document.querySelector('#live').textContent + document.querySelector('#live-alt').textContent;").await.ok()?;
            said.as_str()?.contains("X on top right; top left vanished").then_some(())
        })
        .await?;
        Ok(())
    })
    .await;
}

/// Clicks an empty live-board cell once the reader may move, and waits until the cell holds a
/// mark (in Infinite XO the number of marks stops growing at six).
async fn place(client: &Client, cell: u8) -> Outcome {
    click_cell(client, cell).await?;
    let mark = format!("#board [data-cell='{cell}'] .mark");
    eventually(&format!("a mark on cell {cell}"), || async {
        client.find(Locator::Css(&mark)).await.ok()
    })
    .await?;
    Ok(())
}

/// Opens the kiosk and starts a local Infinite XO game with `seconds` per move.
async fn start_local_infinite(c: &Client, base: &str, seconds: u8) -> Outcome {
    open(c, &format!("{base}/kiosk")).await?;
    click(c, "#play-friend").await?;
    click(c, "label[for='friend-game-1']").await?;
    let i = [5u8, 10, 30]
        .iter()
        .position(|&s| s == seconds)
        .unwrap_or(1);
    click(c, &format!("label[for='friend-time-{i}']")).await?;
    click(c, "#friend-submit").await?;
    eventually("the board", || async {
        c.find(Locator::Css("#board")).await.ok().map(|_| ())
    })
    .await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn infinite_xo_warns_before_a_threefold_repetition_and_plays_for_a_sleeping_player() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "repetition-clock", KIOSK, move |c| async move {
        start_local_infinite(&c, &base, 30).await?;
        // X holds 0, 1, 5 and O 2, 3, 7; each side then rotates its marks through a fourth
        // cell, and eight plies later the position is back (engine's record tests).
        const OPENING: [u8; 6] = [0, 2, 1, 3, 5, 7];
        const CYCLE: [u8; 8] = [6, 8, 0, 2, 1, 3, 5, 7];
        for cell in OPENING.into_iter().chain(CYCLE.into_iter().take(7)) {
            place(&c, cell).await?;
        }
        assert!(
            c.find(Locator::Css("#repetition-warning")).await.is_err(),
            "no warning before the position comes back"
        );
        place(&c, CYCLE[7]).await?;
        let warning = wait_text(&c, "#repetition-warning", "once more and it is a draw").await?;
        assert!(warning.starts_with("Same position twice"), "{warning}");
        eventually("the warning announced", || async {
            announced(&c).await.contains("Same position twice").then_some(())
        })
        .await?;
        let below = js(&c, "return document.querySelector('#board').getBoundingClientRect().bottom - window.innerHeight;").await?;
        assert!(below.as_f64().unwrap_or(1.0) <= 0.0, "the board stays wholly on the 800×480 screen: {below}");
        save_screenshot(&c, "repetition-warning").await;
        for cell in CYCLE {
            place(&c, cell).await?;
        }
        wait_text(&c, "#result", "Draw by repetition").await?;
        assert!(c.find(Locator::Css("#repetition-warning")).await.is_err());

        // M3.7: at zero the server plays a random empty cell for the player to move, says so,
        // and the next player gets the full time.
        start_local_infinite(&c, &base, 5).await?;
        wait_text(&c, ".clock", " s").await?;
        assert_eq!(marks(&c).await?, 0);
        eventually("the automatic move", || async {
            (marks(&c).await.ok()? == 1).then_some(())
        })
        .await?;
        eventually("the automatic move announced", || async {
            announced(&c).await.contains("Time ran out.").then_some(())
        })
        .await?;
        wait_text(&c, "#rail-text", "(O) to move").await?;
        let clock = text_of(&c, ".clock").await.unwrap_or_default();
        let left: u32 = clock.trim_end_matches(" s").trim().parse().unwrap_or(0);
        assert!((3..=5).contains(&left), "O gets the full 5 s again: {clock}");
        Ok(())
    })
    .await;
}
