//! Browser tests of the kiosk's and phones' rules (U7, U12, M3.12): what needs an answer comes to
//! the user in a banner at the top of the viewport (14.4), abandoned kiosk games end (14.5),
//! Play again and Rematch in one tap, followed by spectators (14.6), Arabic keeps names,
//! marks, numbers and clocks in reading order and words the names the server makes (14.7),
//! a rated result waits as pending on a full card, and the kiosk's Wi-Fi QR code reads back.
//! Run by `scripts/test-browser`.

use protocol::{CreateRoom, OpponentRequest};
use xo_tests::webdriver::{Client, Locator};
use xo_tests::{
    Driver, Outcome, Server, TmpfsMount, announced, assert_in_view, check_layout_matrix, click,
    eventually, js, open_live, path, play, plays_x, register, report, room_over_protocol,
    run_session, run_sessions, set_lang, span, start_local_game, text_of, type_into, wait_gone,
    wait_path_is, wait_text,
};

const KIOSK: (u32, u32) = (800, 480);
const PHONE: (u32, u32) = (360, 640);

async fn scroll_to_bottom(c: &Client) -> Outcome {
    js(
        c,
        "window.scrollTo(0, document.scrollingElement.scrollHeight); return 0;",
    )
    .await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn join_requests_and_draw_offers_reach_a_phone_scrolled_down() {
    let server = Server::start(600).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_sessions(
        &driver,
        "prompts-phone",
        &[PHONE, PHONE],
        move |sessions| async move {
            let (host, guest) = (&sessions[0], &sessions[1]);
            register(host, &base, "gatekeeper").await?;
            register(guest, &base, "knocker").await?;
            click(host, "#fab-create").await?;
            click(host, "label[for='create-joining-1']").await?;
            click(host, "#create-submit").await?;
            eventually("the waiting room", || async {
                host.find(Locator::Css("#start")).await.ok()
            })
            .await?;
            scroll_to_bottom(host).await?;
            click(guest, "#room-list .room-link").await?;
            click(guest, "#join").await?;
            // The host, scrolled down to Start, sees the request at the top with its buttons.
            wait_text(host, ".requests", "knocker").await?;
            assert_in_view(host, ".requests", 640.0).await?;
            assert_in_view(host, ".requests .accept", 640.0).await?;
            eventually("the request announced", || async {
                announced(host)
                    .await
                    .contains("knocker asks to join")
                    .then_some(())
            })
            .await?;
            click(host, ".requests .accept").await?;
            click(guest, "#ready").await?;
            eventually("start enabled", || async {
                (xo_tests::attr_of(host, "#start", "disabled")
                    .await
                    .is_none())
                .then_some(())
            })
            .await?;
            click(host, "#start").await?;
            let host_is_x = plays_x(host).await?;
            let (x, o) = if host_is_x {
                (host, guest)
            } else {
                (guest, host)
            };
            play(x, 4, 1).await?;
            // O has scrolled down; X's offer arrives at the top of O's screen, buttons and all.
            scroll_to_bottom(o).await?;
            scroll_to_bottom(x).await?;
            click(x, "#offer-draw").await?;
            eventually("the offer for O", || async {
                o.find(Locator::Css("#draw-prompt")).await.ok()
            })
            .await?;
            assert_in_view(o, "#draw-prompt", 640.0).await?;
            assert_in_view(o, "#accept-draw", 640.0).await?;
            assert_in_view(o, "#decline-draw", 640.0).await?;
            eventually("the offer announced", || async {
                announced(o).await.contains("offers a draw").then_some(())
            })
            .await?;
            click(o, "#decline-draw").await?;
            wait_gone(o, "#draw-prompt").await?;
            Ok(())
        },
    )
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn an_idle_kiosk_game_asks_still_playing_then_ends_and_leaves_live_rooms() {
    let server = Server::start(3).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "still-playing", KIOSK, move |c| async move {
        start_local_game(&c, &base).await?;
        play(&c, 0, 1).await?;
        let room = js(&c, "return location.pathname;").await?;
        let room = room
            .as_str()
            .unwrap_or_default()
            .trim_start_matches("/kiosk/room/")
            .to_owned();
        // No input for the idle time: the question, with a countdown and one large Yes.
        eventually("Still playing?", || async {
            c.find(Locator::Css("#still-playing")).await.ok()
        })
        .await?;
        let note = text_of(&c, "#idle-note").await.unwrap_or_default();
        assert!(note.contains("game ends in"), "{note}");
        let (top, bottom) = span(&c, "#still-playing").await?;
        assert!(bottom - top >= 64.0, "a large Yes: {top}..{bottom}");
        eventually("the question announced", || async {
            announced(&c).await.contains("Still playing?").then_some(())
        })
        .await?;
        // Yes keeps the game.
        click(&c, "#still-playing").await?;
        wait_gone(&c, "#still-playing").await?;
        assert!(path(&c).await?.starts_with("/kiosk/room/"));
        // No answer: the game ends and the kiosk goes home; the room is no longer live.
        eventually("Still playing? again", || async {
            c.find(Locator::Css("#still-playing")).await.ok()
        })
        .await?;
        wait_path_is(&c, "/kiosk").await?;
        eventually("the room gone from Live rooms", || async {
            let n = js(
                &c,
                &format!(
                    "return document.querySelectorAll(\"#room-list [data-room='{room}']\").length;"
                ),
            )
            .await
            .ok()?;
            (n == 0).then_some(())
        })
        .await?;
        Ok(())
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn home_and_exit_in_a_local_game_ask_once_then_end_it() {
    let server = Server::start(600).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "leave-local", KIOSK, move |c| async move {
        start_local_game(&c, &base).await?;
        play(&c, 4, 1).await?;
        // ◀ Home asks first; No keeps the game.
        click(&c, ".home-link").await?;
        click(&c, "#leave-yes-no").await?;
        assert!(path(&c).await?.starts_with("/kiosk/room/"));
        // Exit asks too; Yes ends the game and goes home.
        click(&c, "#exit").await?;
        click(&c, "#leave-yes").await?;
        wait_path_is(&c, "/kiosk").await?;
        eventually("no live rooms", || async {
            c.find(Locator::Css("#lobby-empty")).await.ok()
        })
        .await?;
        Ok(())
    })
    .await;
}

/// The horizontal centres of `parts` inside the first element matching `css`, found in that
/// order in its text.
const CENTRES: &str = "
    const [css, parts] = arguments;
    const el = document.querySelector(css);
    if (!el) return null;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const nodes = [];
    for (let n = walker.nextNode(); n; n = walker.nextNode()) nodes.push(n);
    let from = 0, offset = 0;
    const out = [];
    for (const part of parts) {
      let found = null;
      for (let i = from; i < nodes.length && !found; i++) {
        const at = nodes[i].textContent.indexOf(part, i === from ? offset : 0);
        if (at >= 0) found = [i, at];
      }
      if (!found) return { missing: part, text: el.textContent };
      const r = document.createRange();
      r.setStart(nodes[found[0]], found[1]);
      r.setEnd(nodes[found[0]], found[1] + part.length);
      const b = r.getBoundingClientRect();
      out.push(b.left + b.width / 2);
      from = found[0]; offset = found[1] + part.length;
    }
    return out;";

/// Asserts that `parts`, in their logical order, run right to left on screen.
async fn assert_reads_right_to_left(c: &Client, css: &str, parts: &[&str]) -> Outcome {
    let centres = eventually(&format!("{parts:?} in {css}"), || async {
        let v = c
            .execute(
                CENTRES,
                vec![serde_json::json!(css), serde_json::json!(parts)],
            )
            .await
            .ok()?;
        v.as_array().cloned()
    })
    .await?;
    let xs: Vec<f64> = centres.iter().filter_map(|v| v.as_f64()).collect();
    assert!(
        xs.windows(2).all(|w| w[0] > w[1]),
        "{css}: {parts:?} must read right to left, but their centres are at {xs:?}"
    );
    Ok(())
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn arabic_keeps_names_marks_numbers_and_clocks_in_reading_order() {
    let server = Server::start(600).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "arabic-order", KIOSK, move |c| async move {
        // A room made over the protocol, with Latin names, for the Live rooms row.
        let other = room_over_protocol(
            &base,
            CreateRoom {
                game: engine::Game::Xo,
                opponent: OpponentRequest::Local {
                    names: ["Lina".into(), "Adam".into()],
                },
                time_per_move_s: None,
            },
        )
        .await?;
        open_live(&c, &format!("{base}/kiosk")).await?;
        set_lang(&c, "ar").await?;
        assert_reads_right_to_left(&c, "#room-list .room-players", &["Lina", "ضد", "Adam"]).await?;
        // A local Infinite XO game with a 30 s clock: the rail says whose turn, the mark, then
        // the seconds, in that order from the right.
        click(&c, "#play-friend").await?;
        click(&c, "label[for='friend-game-1']").await?;
        click(&c, "label[for='friend-time-2']").await?;
        type_into(&c, "#friend-name1", "Sara").await?;
        type_into(&c, "#friend-name2", "Omar").await?;
        click(&c, "#friend-submit").await?;
        eventually("the board", || async {
            c.find(Locator::Css("#board")).await.ok()
        })
        .await?;
        let rail = text_of(&c, "#rail").await.unwrap_or_default();
        let (first, mark) = if rail.contains("Sara") {
            ("Sara", "X")
        } else {
            ("Omar", "X")
        };
        assert_reads_right_to_left(&c, "#rail .rail-main", &["دور", first, mark, "ث"]).await?;
        let digits = js(
            &c,
            "return /[٠-٩]/.test(document.querySelector('.clock').textContent);",
        )
        .await?;
        assert_eq!(digits, true, "the clock counts in Arabic digits");
        // X wins along the top row.
        for (i, cell) in [0u8, 3, 1, 4, 2].into_iter().enumerate() {
            play(&c, cell, i as u64 + 1).await?;
        }
        let result = eventually("the result", || async { text_of(&c, "#result").await }).await?;
        let winner = if result.contains("Sara") {
            "Sara"
        } else {
            "Omar"
        };
        assert_reads_right_to_left(&c, "#result", &[winner, "X", "يفوز"]).await?;
        // The replay's verdicts: move number, mark, then before ← after, from the right.
        click(&c, "#replay-toggle").await?;
        eventually("the move list", || async {
            c.find(Locator::Css("#move-list li")).await.ok()
        })
        .await?;
        assert_reads_right_to_left(&c, "#move-list li .move-jump", &["١", "X"]).await?;
        let arrow = text_of(&c, "#move-list li .arrow")
            .await
            .unwrap_or_default();
        assert_eq!(
            arrow.trim(),
            "←",
            "the verdict's arrow points the reading way"
        );
        assert_reads_right_to_left(
            &c,
            "#move-list li:last-child .verdict",
            &["فوز", "←", "فاز"],
        )
        .await?;
        other.close().await;
        Ok(())
    })
    .await;
}

/// The name on the card of the player holding `m`.
async fn name_with_mark(c: &Client, m: &str) -> Result<String, String> {
    let name = js(
        c,
        &format!(
            "const card = [...document.querySelectorAll('.card')].find(c => c.querySelector(\".card-mark[aria-label='{m}']\"));
             return card ? card.querySelector('.name').textContent : null;"
        ),
    )
    .await?;
    name.as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("no card holds {m}"))
}

/// Asserts that `css` is the largest visible button on the screen (UI.md: after a game, Play
/// again or Rematch is the largest button), naming the one that is larger.
async fn assert_largest_button(c: &Client, css: &str) -> Outcome {
    let found = js(
        c,
        &format!(
            "const me = document.querySelector(\"{css}\");
             if (!me) return 'missing';
             const area = e => {{ const r = e.getBoundingClientRect(); return r.width * r.height; }};
             const mine = area(me);
             const bigger = [...document.querySelectorAll('button')]
               .filter(b => b !== me && b.offsetParent !== null && area(b) > mine)
               .map(b => `${{b.id || b.className}} ${{Math.round(area(b))}} px² > ${{Math.round(mine)}} px²`);
             return bigger.length ? bigger.join('; ') : 'ok';"
        ),
    )
    .await?;
    assert_eq!(found, "ok", "{css} must be the largest button");
    Ok(())
}

/// Plays the first free cell until the game is over (a bot game: the bot answers each move).
async fn play_to_the_end(c: &Client) -> Outcome {
    for _ in 0..9 {
        let state = eventually("a move to make or the result", || async {
            let v = js(
                c,
                "if (document.querySelector('#result')) return 'over';
                 const cell = document.querySelector(\"#board [data-cell][aria-disabled='false']\");
                 if (!cell) return null;
                 const n = document.querySelectorAll('#board .mark').length;
                 cell.click();
                 return n;",
            )
            .await
            .ok()?;
            (!v.is_null()).then_some(v)
        })
        .await?;
        if state == "over" {
            return Ok(());
        }
        let before = state.as_u64().unwrap_or(0);
        eventually("the move placed", || async {
            let n = js(
                c,
                "return document.querySelectorAll('#board .mark').length;",
            )
            .await
            .ok()?;
            (n.as_u64()? > before).then_some(())
        })
        .await?;
    }
    eventually("the result", || async {
        c.find(Locator::Css("#result")).await.ok()
    })
    .await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn play_again_starts_the_same_setup_in_one_tap() {
    let server = Server::start(600).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "play-again", KIOSK, move |c| async move {
        let mut problems = Vec::new();
        // A local game, X winning along the top row.
        start_local_game(&c, &base).await?;
        let first = path(&c).await?;
        let x_before = name_with_mark(&c, "X").await?;
        for (i, cell) in [0u8, 3, 1, 4, 2].into_iter().enumerate() {
            play(&c, cell, i as u64 + 1).await?;
        }
        eventually("the result", || async { text_of(&c, "#result").await }).await?;
        assert_largest_button(&c, "#play-again").await?;
        assert_eq!(
            text_of(&c, "#result-play-again").await.as_deref(),
            Some("Play again"),
            "the result banner offers it too"
        );
        problems.extend(check_layout_matrix(&c, "kiosk-local-result", KIOSK).await?);
        click(&c, "#play-again").await?;
        eventually("a new room", || async {
            let p = path(&c).await.ok()?;
            (p != first && p.starts_with("/kiosk/room/")).then_some(())
        })
        .await?;
        xo_tests::wait_marks(&c, 0).await?;
        let x_after = name_with_mark(&c, "X").await?;
        assert_ne!(x_before, x_after, "a local game played again swaps sides");
        assert!(["Sara", "Omar"].contains(&x_after.as_str()), "{x_after}");
        assert!(c.find(Locator::Css("#play-again")).await.is_err());

        // A bot game in Arabic, played to its end, then again: the same bot, the human X.
        open_live(&c, &format!("{base}/kiosk")).await?;
        set_lang(&c, "ar").await?;
        click(&c, "#play-bot").await?;
        click(&c, "#bot-submit").await?;
        eventually("the bot game", || async {
            c.find(Locator::Css("#board")).await.ok()
        })
        .await?;
        let first = path(&c).await?;
        play_to_the_end(&c).await?;
        wait_text(&c, "#play-again", "العب مجددًا").await?;
        assert_largest_button(&c, "#play-again").await?;
        click(&c, "#play-again").await?;
        eventually("a new bot room", || async {
            let p = path(&c).await.ok()?;
            (p != first && p.starts_with("/kiosk/room/")).then_some(())
        })
        .await?;
        xo_tests::wait_marks(&c, 0).await?;
        assert_eq!(
            name_with_mark(&c, "X").await?,
            "أنت",
            "the kiosk's human keeps X"
        );
        let bot = name_with_mark(&c, "O").await?;
        assert!(
            bot.contains("الروبوت") && bot.contains("٥٠"),
            "the same bot: {bot}"
        );
        set_lang(&c, "en").await?;
        report(&problems)
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn rematch_is_offered_answered_and_followed_by_both_players_and_a_spectator() {
    let server = Server::start(600).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_sessions(
        &driver,
        "rematch",
        &[PHONE, PHONE, KIOSK],
        move |sessions| async move {
            let (host, guest, kiosk) = (&sessions[0], &sessions[1], &sessions[2]);
            let mut problems = Vec::new();
            register(host, &base, "rival_one").await?;
            register(guest, &base, "rival_two").await?;
            let (x, o) = xo_tests::start_rated_game(host, guest, &base, "rival_two").await?;
            let x_name = if std::ptr::eq(x, host) {
                "rival_one"
            } else {
                "rival_two"
            };
            let old = path(host).await?;
            let room = old.trim_start_matches("/room/").to_owned();
            open_live(kiosk, &format!("{base}/kiosk/room/{room}")).await?;
            eventually("the spectator's board", || async {
                kiosk.find(Locator::Css("#board")).await.ok()
            })
            .await?;
            // X wins on the middle column.
            for (i, (who, cell)) in [(x, 4u8), (o, 0), (x, 1), (o, 2), (x, 7)]
                .into_iter()
                .enumerate()
            {
                play(who, cell, i as u64 + 1).await?;
            }
            for who in [x, o] {
                eventually("the result", || async {
                    who.find(Locator::Css("#result")).await.ok()
                })
                .await?;
            }
            assert_largest_button(x, "#rematch").await?;
            // X offers; O, scrolled down, is asked at the top of the screen.
            scroll_to_bottom(o).await?;
            click(x, "#rematch").await?;
            eventually("the offer for O", || async {
                o.find(Locator::Css("#rematch-prompt")).await.ok()
            })
            .await?;
            assert_in_view(o, "#rematch-prompt", 640.0).await?;
            assert_in_view(o, "#accept-rematch", 640.0).await?;
            assert_in_view(o, "#decline-rematch", 640.0).await?;
            let asked = text_of(o, "#rematch-prompt").await.unwrap_or_default();
            assert!(
                asked.contains(x_name) && asked.contains("offers a rematch"),
                "{asked}"
            );
            eventually("the offer announced", || async {
                announced(o)
                    .await
                    .contains("offers a rematch")
                    .then_some(())
            })
            .await?;
            eventually("X's offer waiting", || async {
                (xo_tests::attr_of(x, "#rematch", "disabled").await.is_some()).then_some(())
            })
            .await?;
            assert_eq!(
                text_of(x, "#rematch").await.as_deref(),
                Some("Rematch offered")
            );
            wait_text(kiosk, "#rematch-note", "offers a rematch").await?;
            problems.extend(check_layout_matrix(o, "online-rematch-offer", PHONE).await?);
            set_lang(o, "ar").await?;
            wait_text(o, "#rematch-prompt", "يعرض إعادة المباراة").await?;
            set_lang(o, "en").await?;
            // O declines: X hears it in the banner; the question is gone.
            click(o, "#decline-rematch").await?;
            wait_text(x, "#notice", "The rematch was declined").await?;
            wait_gone(o, "#rematch-prompt").await?;
            // Then O offers in turn and X accepts from the banner.
            click(o, "#rematch").await?;
            click(x, "#accept-rematch").await?;
            let new = eventually("the new room for X", || async {
                let p = path(x).await.ok()?;
                (p != old && p.starts_with("/room/")).then_some(p)
            })
            .await?;
            eventually("O in the same new room", || async {
                (path(o).await.ok()? == new).then_some(())
            })
            .await?;
            eventually("the spectator following", || async {
                (path(kiosk).await.ok()? == format!("/kiosk{new}")).then_some(())
            })
            .await?;
            // Colours swapped: the old X is now O, and the new X moves first.
            wait_text(x, "#rail-text", "You are O").await?;
            wait_text(o, "#rail-text", "Your turn — you are X").await?;
            for who in [x, o, kiosk] {
                xo_tests::wait_marks(who, 0).await?;
            }
            assert!(kiosk.find(Locator::Css("#spectating")).await.is_ok());
            play(o, 4, 1).await?;
            for who in [x, kiosk] {
                xo_tests::wait_marks(who, 1).await?;
            }
            report(&problems)
        },
    )
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn server_made_names_are_worded_in_the_readers_language() {
    let server = Server::start(600).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "names", KIOSK, move |c| async move {
        // A guest's bot game at 100 %, made over the protocol: the server names its two
        // players as kinds (a guest with a tag, the bot with its difficulty).
        let other = room_over_protocol(
            &base,
            CreateRoom {
                game: engine::Game::Xo,
                opponent: OpponentRequest::Bot {
                    difficulty: Some(100),
                    side: Some(engine::Mark::X),
                },
                time_per_move_s: None,
            },
        )
        .await?;
        open_live(&c, &format!("{base}/kiosk")).await?;
        let row = wait_text(&c, "#room-list .room-players", "Guest ").await?;
        assert!(row.contains("Bot 100 %"), "{row}");
        set_lang(&c, "ar").await?;
        let row = wait_text(&c, "#room-list .room-players", "ضيف").await?;
        assert!(
            row.contains("الروبوت")
                && row.contains("١٠٠")
                && !row.contains("Guest")
                && !row.contains("Bot"),
            "every word of the row in Arabic: {row}"
        );
        assert_reads_right_to_left(&c, "#room-list .room-players", &["ضيف", "ضد", "الروبوت"])
            .await?;
        // Watched from the kiosk, the cards and the rail word them too.
        click(&c, "#room-list .room-link").await?;
        let guest = wait_text(&c, "#seat-0 .name", "ضيف").await?;
        assert!(!guest.contains("Guest"), "{guest}");
        let bot = wait_text(&c, "#seat-1 .name", "الروبوت").await?;
        assert!(bot.contains("١٠٠") && !bot.contains("Bot"), "{bot}");
        let rail = wait_text(&c, "#rail-text", "ضيف").await?;
        assert!(!rail.contains("Guest"), "{rail}");
        // The kiosk's own bot game: its human is "You", not a guest name.
        open_live(&c, &format!("{base}/kiosk")).await?;
        click(&c, "#play-bot").await?;
        click(&c, "#bot-submit").await?;
        wait_text(&c, "#seat-0 .name", "أنت").await?;
        set_lang(&c, "en").await?;
        wait_text(&c, "#seat-0 .name", "You").await?;
        other.close().await;
        Ok(())
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn a_rated_result_waits_as_pending_then_shows_the_rating_change() {
    const TEST: &str = "a_rated_result_waits_as_pending_then_shows_the_rating_change";
    let card = tempfile::tempdir().expect("a folder for the card");
    let Some(mount) = TmpfsMount::for_test(TEST, &card.path().join("card"), "6m") else {
        return;
    };
    let filler = mount.path.join("filler");
    let server = Server::start_with(600, Some(&mount.path.join("data")), &[]).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_sessions(
        &driver,
        "pending-result",
        &[PHONE, KIOSK],
        move |sessions| async move {
            let (host, guest) = (&sessions[0], &sessions[1]);
            let mut problems = Vec::new();
            register(host, &base, "ana_card").await?;
            register(guest, &base, "ben_card").await?;
            let (x, o) = xo_tests::start_rated_game(host, guest, &base, "ben_card").await?;
            play(x, 4, 1).await?;
            play(o, 0, 2).await?;
            play(x, 1, 3).await?;
            play(o, 2, 4).await?;
            // The card fills. redb may still find free pages inside its file, so accounts are
            // registered (each keeps its pages) until three in a row are refused: what is left
            // inside the file is then too little for a rated result.
            xo_tests::fill_up(&filler)?;
            let mut refused_in_a_row = 0;
            for i in 0..300 {
                let body = format!(r#"{{"username":"probe_{i}","password":"password123"}}"#);
                let reply = xo_client::post_json(&base, "/api/register", &body)
                    .await
                    .map_err(|e| e.to_string())?;
                assert_ne!(reply.status, 500, "never an internal error");
                if reply.status == 503 {
                    refused_in_a_row += 1;
                    if refused_in_a_row == 3 {
                        break;
                    }
                } else {
                    refused_in_a_row = 0;
                    xo_tests::fill_up(&filler)?;
                }
            }
            assert_eq!(refused_in_a_row, 3, "registrations on the full card are refused");
            // X wins; the rated result cannot be written yet: both see it pending, no change.
            play(x, 7, 5).await?;
            for who in [x, o] {
                wait_text(who, "#result-pending", "Result saved when the card can be written")
                    .await?;
                let result = text_of(who, "#result").await.unwrap_or_default();
                assert!(result.contains("win"), "{result}");
                let changes = js(who, "return document.querySelectorAll('.change').length;").await?;
                assert_eq!(changes, 0, "no rating change before the result is stored");
            }
            problems.extend(check_layout_matrix(o, "online-pending", PHONE).await?);
            // Space again: the server stores the result by itself; the change appears.
            std::fs::remove_file(&filler)?;
            for who in [x, o] {
                wait_gone(who, "#result-pending").await?;
                eventually("a gain and a loss", || async {
                    let n = js(
                        who,
                        "return document.querySelectorAll('.change.gain').length + document.querySelectorAll('.change.loss').length;",
                    )
                    .await
                    .ok()?;
                    (n.as_u64()? == 2).then_some(())
                })
                .await?;
                eventually("the saved result announced", || async {
                    announced(who).await.contains("Result saved").then_some(())
                })
                .await?;
            }
            report(&problems)
        },
    )
    .await;
    drop(server);
    drop(mount);
    xo_client::privileged::ran("kiosk_full_card");
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn the_kiosk_wifi_qr_code_reads_back_as_the_guest_network() {
    let server = Server::start_with(
        600,
        None,
        &[
            "--guest-wifi-ssid",
            "Cafe Guests",
            "--guest-wifi-password",
            "pa;ss:word",
        ],
    )
    .await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "wifi-qr", KIOSK, move |c| async move {
        open_live(&c, &format!("{base}/kiosk")).await?;
        for lang in ["en", "ar"] {
            set_lang(&c, lang).await?;
            eventually("the Wi-Fi QR code", || async {
                c.find(Locator::Css("#wifi-qr svg")).await.ok()
            })
            .await?;
            let wifi = xo_tests::qr_decode(&xo_tests::element_png(&c, "#wifi-qr").await?)?;
            assert_eq!(
                wifi,
                ["WIFI:S:Cafe Guests;T:WPA;P:pa\\;ss\\:word;;"],
                "{lang}: the Wi-Fi code joins the guest network"
            );
            let address = xo_tests::qr_decode(&xo_tests::element_png(&c, "#qr").await?)?;
            assert_eq!(
                address.as_slice(),
                std::slice::from_ref(&base),
                "{lang}: the address code opens the kiosk"
            );
            let name = text_of(&c, "#wifi-name").await.unwrap_or_default();
            assert!(name.contains("Cafe Guests"), "{lang}: {name}");
        }
        let problems = check_layout_matrix(&c, "kiosk-home-wifi", KIOSK).await?;
        report(&problems)
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn a_seat_move_is_told_at_the_top_of_the_phone_it_moved() {
    let server = Server::start(600).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_sessions(
        &driver,
        "seat-move",
        &[PHONE, PHONE, PHONE],
        move |sessions| async move {
            let (first, second, mover) = (&sessions[0], &sessions[1], &sessions[2]);
            register(first, &base, "first_host").await?;
            register(second, &base, "second_host").await?;
            register(mover, &base, "mover").await?;
            // The mover sits in the first host's open room.
            click(first, "#fab-create").await?;
            click(first, "#create-submit").await?;
            let first_room = eventually("the first room", || async {
                first.find(Locator::Css("#start")).await.ok()?;
                let p = path(first).await.ok()?;
                p.starts_with("/room/").then_some(p)
            })
            .await?;
            open_live(mover, &format!("{base}{first_room}")).await?;
            click(mover, "#join").await?;
            wait_text(first, "#seat-1", "mover").await?;
            // The second host's room asks for approval; the mover's request keeps the first
            // seat until it is accepted (M3.4).
            click(second, "#fab-create").await?;
            click(second, "label[for='create-joining-1']").await?;
            click(second, "#create-submit").await?;
            let second_room = eventually("the second room", || async {
                second.find(Locator::Css("#start")).await.ok()?;
                let p = path(second).await.ok()?;
                p.starts_with("/room/").then_some(p)
            })
            .await?;
            open_live(mover, &format!("{base}{second_room}")).await?;
            click(mover, "#join").await?;
            wait_text(second, ".requests", "mover").await?;
            scroll_to_bottom(mover).await?;
            click(second, ".requests .accept").await?;
            // The mover is told at the top of the screen, and the first seat is open again.
            let notice = wait_text(mover, "#notice", "You moved to another room").await?;
            assert!(!notice.is_empty());
            assert_in_view(mover, "#notice", 640.0).await?;
            wait_path_is(mover, &second_room).await?;
            wait_text(second, "#seat-1", "mover").await?;
            wait_text(first, "#seat-1", "Open seat").await?;
            Ok(())
        },
    )
    .await;
}

/// A waiting room's link is read off the kiosk's screen by a phone, so it is on
/// the server's public address (as the QR code is), never the kiosk's own loopback address.
#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn the_kiosk_shares_a_waiting_room_by_the_public_address_never_its_own() {
    const PUBLIC: &str = "http://192.168.100.200:8080";
    let server = Server::start_with(120, None, &["--public-url", PUBLIC]).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    let sizes = [PHONE, KIOSK];
    run_sessions(
        &driver,
        "kiosk-share-link",
        &sizes,
        move |clients| async move {
            let (phone, kiosk) = (&clients[0], &clients[1]);
            register(phone, &base, "Hana").await?;
            open_live(phone, &format!("{base}/")).await?;
            click(phone, "#fab-create").await?;
            click(phone, "#create-submit").await?;
            let share = "return (document.querySelector('#share-link') || {}).value || null;";
            let on_phone = eventually("the phone's share link", || async {
                js(phone, share).await.ok()?.as_str().map(str::to_owned)
            })
            .await?;
            assert!(
                on_phone.starts_with(&format!("{PUBLIC}/room/")),
                "the phone shares {on_phone}"
            );

            open_live(kiosk, &format!("{base}/kiosk")).await?;
            click(kiosk, "#room-list .room-link").await?;
            wait_path_is(kiosk, &format!("/kiosk{}", &on_phone[PUBLIC.len()..])).await?;
            let on_kiosk = eventually("the kiosk's share link", || async {
                js(kiosk, share).await.ok()?.as_str().map(str::to_owned)
            })
            .await?;
            assert_eq!(on_kiosk, on_phone, "the kiosk shares another address");
            Ok(())
        },
    )
    .await;
}
