//! Browser tests of issue 14's rules for the kiosk and phones: what needs an answer comes to
//! the user in a banner at the top of the viewport (14.4), abandoned kiosk games end (14.5),
//! and Arabic keeps names, marks, numbers and clocks in reading order (14.7). Run by
//! `scripts/test-browser`.

use fantoccini::{Client, Locator};
use protocol::{ClientMsg, CreateRoom, Framing, OpponentRequest};
use xo_tests::{
    Driver, Outcome, Server, click, eventually, js, open_live, play, register, run_session,
    run_sessions, set_lang, start_local_game, text_of, type_into, wait_text,
};

const KIOSK: (u32, u32) = (800, 480);
const PHONE: (u32, u32) = (360, 640);

/// The top and bottom of an element's box, relative to the viewport.
async fn span(c: &Client, css: &str) -> Result<(f64, f64), String> {
    let v = js(
        c,
        &format!(
            "const r = document.querySelector(\"{css}\").getBoundingClientRect(); return [r.top, r.bottom];"
        ),
    )
    .await?;
    Ok((v[0].as_f64().unwrap_or(-1.0), v[1].as_f64().unwrap_or(1e9)))
}

async fn assert_in_view(c: &Client, css: &str, height: f64) -> Outcome {
    let (top, bottom) = span(c, css).await?;
    assert!(
        top >= -0.5 && bottom <= height + 0.5,
        "{css} must be inside the {height} px viewport: {top}..{bottom}"
    );
    Ok(())
}

async fn scroll_to_bottom(c: &Client) -> Outcome {
    js(
        c,
        "window.scrollTo(0, document.scrollingElement.scrollHeight); return 0;",
    )
    .await?;
    Ok(())
}

async fn announced(c: &Client) -> String {
    js(c, "return document.querySelector('#live').textContent + document.querySelector('#live-alt').textContent;")
        .await
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
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
            let host_is_x = eventually("the marks assigned", || async {
                let rail = text_of(host, "#rail-text").await?;
                if rail.contains("you are X") || rail.contains("You are X") {
                    Some(true)
                } else if rail.contains("you are O") || rail.contains("You are O") {
                    Some(false)
                } else {
                    None
                }
            })
            .await?;
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
            eventually("the offer answered", || async {
                o.find(Locator::Css("#draw-prompt"))
                    .await
                    .is_err()
                    .then_some(())
            })
            .await?;
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
        eventually("the question gone", || async {
            c.find(Locator::Css("#still-playing"))
                .await
                .is_err()
                .then_some(())
        })
        .await?;
        assert!(
            js(&c, "return location.pathname;")
                .await?
                .as_str()
                .unwrap_or_default()
                .starts_with("/kiosk/room/")
        );
        // No answer: the game ends and the kiosk goes home; the room is no longer live.
        eventually("Still playing? again", || async {
            c.find(Locator::Css("#still-playing")).await.ok()
        })
        .await?;
        eventually("the kiosk home", || async {
            let path = js(&c, "return location.pathname;").await.ok()?;
            (path == "/kiosk").then_some(())
        })
        .await?;
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
        assert!(
            js(&c, "return location.pathname;")
                .await?
                .as_str()
                .unwrap_or_default()
                .starts_with("/kiosk/room/")
        );
        // Exit asks too; Yes ends the game and goes home.
        click(&c, "#exit").await?;
        click(&c, "#leave-yes").await?;
        eventually("the kiosk home", || async {
            let path = js(&c, "return location.pathname;").await.ok()?;
            (path == "/kiosk").then_some(())
        })
        .await?;
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
        let mut other = xo_client::Client::connect(&base, None, Framing::Text)
            .await
            .map_err(|e| e.to_string())?;
        let id = other.id();
        other
            .send(ClientMsg::CreateRoom {
                id,
                room: CreateRoom {
                    game: engine::Game::Xo,
                    opponent: OpponentRequest::Local {
                        names: ["Lina".into(), "Adam".into()],
                    },
                    time_per_move_s: None,
                },
            })
            .await
            .map_err(|e| e.to_string())?;
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
