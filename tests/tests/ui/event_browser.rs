//! Arena events in the browser (EV1, EV2, EV5, EV6), as a café would run one: the owner
//! announces a two-minute XO event (and schedules and cancels a later one) from the owner's
//! page on a phone; the kiosk's home becomes the event board; a player scans its QR code,
//! signs in, joins from the event page and is moved into a game when paired, plays it, and
//! pauses; eleven more players play over the WebSocket (two with the solved tables' best
//! moves, so streaks show). The board is checked at every size in both languages with its
//! standings rows counted (ten whole at 800×480), then the podium after the end, then the
//! phone's final standings with every game's replay. Run by `scripts/test-browser event`.

use std::time::{Duration, Instant};

use engine::{Game, Position, Setup};
use protocol::event::EventPhase;
use protocol::{ClientMsg, Framing, Phase, ServerMsg};
use xo_tests::webdriver::{Client, Locator};
use xo_tests::{
    ContentList, Outcome, Server, check_screen, click, element_png, eventually, js,
    layout_problems, open_live, path, qr_decode, register, report, run_prepared, save_screenshot,
    set_lang, text_of, type_into, wait_path_is,
};

const KIOSK: (u32, u32) = (800, 480);
const PHONE: (u32, u32) = (360, 640);
const PASSWORD: &str = "password123";

/// The standings on the board: all ten rows whole at 800×480 (and larger landscape screens).
const STANDINGS: ContentList = ContentList {
    label: "standings",
    list: "#standings",
    row: "tbody tr",
    min_rows: 10,
};

type Error = Box<dyn std::error::Error + Send + Sync>;

/// The move a protocol player makes: the tables' fastest win (or best defence) for the
/// strong, the first empty cell for the others.
fn choose(room: &protocol::RoomView, strong: bool) -> Result<u8, Error> {
    let empty = (0..9u8).find(|c| !room.x.contains(c) && !room.o.contains(c));
    if !strong {
        return empty.ok_or_else(|| "a full board to move on".into());
    }
    let p = Position::from_setup(&Setup {
        game: Game::Xo,
        x: room.x.clone(),
        o: room.o.clone(),
        turn: room.turn,
    })
    .map_err(|e| e.to_string())?;
    let best = tables::table(Game::Xo)
        .best_moves(&p)
        .map_err(|_| "an unreachable position")?;
    Ok(best.first().copied().or(empty).ok_or("no move")?)
}

/// A player over the WebSocket, signed in with `cookie`: joins the event and plays every game
/// it is paired into until `until` (or the event is over).
async fn protocol_player(
    base: String,
    (name, cookie): (String, String),
    event: String,
    strong: bool,
    until: Instant,
) -> Result<u32, Error> {
    let mut c = xo_client::Client::connect(&base, Some(&cookie), Framing::Binary).await?;
    let id = c.id();
    c.send(ClientMsg::JoinEvent { id, event }).await?;
    let mut games = 0;
    // The position this player last moved on: a snapshot may come again before the move's.
    let mut moved_on = None;
    while Instant::now() < until {
        let Some(msg) = c.recv_within(Duration::from_millis(500)).await? else {
            continue;
        };
        match msg {
            ServerMsg::Room { room, .. } => {
                let here = Some((room.id.clone(), room.moves.len()));
                if room.phase == Phase::Playing && room.you.to_move && moved_on != here {
                    moved_on = here;
                    let cell = choose(&room, strong)?;
                    let id = c.id();
                    c.send(ClientMsg::Move { id, cell }).await?;
                }
            }
            ServerMsg::Paired(_) => games += 1,
            ServerMsg::EventSnapshot { event, .. } if event.phase == EventPhase::Finished => break,
            ServerMsg::EventUpdate(u) if u.phase == EventPhase::Finished => break,
            ServerMsg::Error { code, message, .. } => {
                eprintln!("{name}: {code:?}: {message}");
            }
            _ => {}
        }
    }
    c.close().await;
    Ok(games)
}

/// The phone's game, from its board: taps the first playable cell on each turn until the
/// game is over. Returns once the result shows, or the phone was moved on to its next game
/// (the event pairs it again at once).
async fn play_on_phone(c: &Client) -> Outcome {
    let deadline = Instant::now() + Duration::from_secs(60);
    let start = path(c).await?;
    loop {
        assert!(Instant::now() < deadline, "the phone's game did not end");
        if path(c).await? != start {
            return Ok(());
        }
        let state = js(
            c,
            "if (document.querySelector('.prompt.result-prompt')) return 'over'; \
             const b = document.querySelector('#board'); \
             if (!b) return 'none'; \
             const cell = b.classList.contains('my-turn') && b.querySelector(\".cell[aria-disabled='false']\"); \
             if (cell) { cell.click(); return 'moved'; } return 'wait';",
        )
        .await?;
        match state.as_str() {
            Some("over") => return Ok(()),
            _ => tokio::time::sleep(Duration::from_millis(250)).await,
        }
    }
}

async fn wait_path_prefix(c: &Client, prefix: &str) -> Outcome {
    eventually(&format!("a page under {prefix}"), || async {
        path(c).await.ok()?.starts_with(prefix).then_some(())
    })
    .await?;
    Ok(())
}

/// The owner's page: claims the kiosk with a code (asked over HTTP as the kiosk's screen
/// would), announces the event on now, then schedules one for later today and cancels it.
async fn announce(phone: &Client, base: &str) -> Outcome {
    register(phone, base, "olivia").await?;
    let code = xo_client::post_json(base, "/api/kiosk/owner-code", "{}").await?;
    let code: serde_json::Value = serde_json::from_slice(&code.body)?;
    let code = code["code"].as_str().ok_or("an owner code")?.to_owned();
    open_live(phone, &format!("{base}/owner")).await?;
    type_into(phone, "#owner-code-input", &code).await?;
    click(phone, "#owner-claim").await?;
    eventually("the owner's hub", || async {
        phone.find(Locator::Css("#owner-sections")).await.ok()
    })
    .await?;
    click(phone, "#owner-sections a[href='/owner/events']").await?;
    wait_path_is(phone, "/owner/events").await?;
    eventually("the event form", || async {
        phone.find(Locator::Css("#event-form")).await.ok()
    })
    .await?;
    type_into(phone, "#event-name", "XO night").await?;
    let minutes = phone.find(Locator::Css("#event-minutes")).await?;
    minutes.clear().await?;
    minutes.send_keys("2").await?;
    click(phone, "#event-create").await?;
    let said = xo_tests::wait_text(phone, "#event-said", "XO night").await?;
    assert!(said.contains("announced"), "{said}");
    eventually("the event listed", || async {
        phone
            .find(Locator::Css("#owner-events [data-event='e1']"))
            .await
            .ok()
    })
    .await?;
    // Later today (three hours on, when the day has them): scheduled, then cancelled.
    let later = js(
        phone,
        "const d = new Date(Date.now() + 3 * 3600e3); \
         if (d.getDate() !== new Date().getDate()) return null; \
         return String(d.getHours()).padStart(2, '0') + ':' + String(d.getMinutes()).padStart(2, '0');",
    )
    .await?;
    if let Some(at) = later.as_str() {
        click(phone, "#event-start-1").await?;
        let set = format!(
            "const i = document.querySelector('#event-at'); i.value = '{at}'; \
             i.dispatchEvent(new Event('input', {{ bubbles: true }})); return 0;"
        );
        eventually("the time field", || async {
            phone.find(Locator::Css("#event-at")).await.ok()
        })
        .await?;
        js(phone, &set).await?;
        let name = phone.find(Locator::Css("#event-name")).await?;
        name.clear().await?;
        name.send_keys("Late XO").await?;
        click(phone, "#event-create").await?;
        xo_tests::wait_text(phone, "#event-said", "Late XO").await?;
        // The scheduled and running events in view, the later one with its Cancel.
        js(
            phone,
            "document.querySelector('#owner-events').scrollIntoView({block: 'end'}); return 0;",
        )
        .await?;
        for lang in ["en", "ar"] {
            set_lang(phone, lang).await?;
            tokio::time::sleep(Duration::from_millis(300)).await;
            let problems = layout_problems(phone).await?;
            assert!(problems.is_empty(), "owner events {lang}: {problems:?}");
            save_screenshot(phone, &format!("owner-events-phone-{lang}")).await;
        }
        set_lang(phone, "en").await?;
        click(phone, "#cancel-event-e2").await?;
        click(phone, "#cancel-event-e2-yes").await?;
        xo_tests::wait_text(phone, "#event-said", "cancelled").await?;
    }
    Ok(())
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn the_kiosk_board_and_podium_and_a_phone_joining_by_the_qr_code() {
    let flags = [
        "--event-min-minutes",
        "1",
        "--max-rated-games-per-address",
        "0",
    ];
    // The kiosk's idle time is longer than the test: its language stays as the test sets it.
    let server = Server::start_with(900, None, &flags).await;
    let driver = xo_tests::Driver::start().await;
    let kiosk = driver.session(KIOSK.0, KIOSK.1).await;
    let phone = driver.session(PHONE.0, PHONE.1).await;
    let owner = driver.session(PHONE.0, PHONE.1).await;
    let base = server.base.clone();
    run_prepared(
        "event-board",
        vec![kiosk, phone, owner],
        move |clients| async move {
            let [kiosk, phone, owner] = &clients[..] else {
                return Err("three sessions".into());
            };
            let mut problems = Vec::new();
            announce(owner, &base).await?;

            // The kiosk's home is the event's board, with the QR code to its page.
            open_live(kiosk, &format!("{base}/kiosk")).await?;
            eventually("the event board", || async {
                kiosk.find(Locator::Css("#event-clock")).await.ok()
            })
            .await?;
            let clock = text_of(kiosk, "#event-clock").await.unwrap_or_default();
            assert!(clock.ends_with("left"), "time left on the board: {clock}");
            let link = eventually("the event's QR code", || async {
                let png = element_png(kiosk, "#event-qr").await.ok()?;
                qr_decode(&png).ok()?.into_iter().next()
            })
            .await?;
            assert!(link.ends_with("/events/e1"), "the QR code's link: {link}");

            // A player scans it: signs in, comes back to the link, joins.
            register(phone, &base, "pia").await?;
            open_live(phone, &link).await?;
            click(phone, "#event-join").await?;
            xo_tests::wait_text(phone, "#event-you-state", "waiting").await?;

            // Eleven more players over the WebSocket (registered one after the other, as
            // people would); two play the tables' best moves.
            let mut accounts = Vec::new();
            for i in 0..11 {
                let name = format!("player{i:02}");
                let cookie = xo_client::register(&base, &name, PASSWORD).await?;
                accounts.push((name, cookie));
            }
            let until = Instant::now() + Duration::from_secs(200);
            let players: Vec<_> = accounts
                .into_iter()
                .enumerate()
                .map(|(i, account)| {
                    tokio::spawn(protocol_player(
                        base.clone(),
                        account,
                        "e1".into(),
                        i < 2,
                        until,
                    ))
                })
                .collect();

            // Paired: the phone moves into its game at once, plays it, then pauses.
            eventually("the phone paired into a game", || async {
                path(phone).await.ok()?.starts_with("/room/").then_some(())
            })
            .await?;
            play_on_phone(phone).await?;
            // Then it pauses from the event page: a game in progress goes on (played out on
            // the phone), and no new one is paired.
            let mut paused = false;
            let mut asked = false;
            for _ in 0..10 {
                open_live(phone, &link).await?;
                let state = eventually("the event page or a game", || async {
                    if path(phone).await.ok()?.starts_with("/room/") {
                        return Some("room");
                    }
                    if phone.find(Locator::Css("#event-resume")).await.is_ok() {
                        return Some("paused");
                    }
                    phone.find(Locator::Css("#event-pause")).await.ok()?;
                    Some("pausable")
                })
                .await?;
                match state {
                    "paused" => {
                        paused = true;
                        break;
                    }
                    "room" => play_on_phone(phone).await?,
                    _ if !asked => {
                        click(phone, "#event-pause").await?;
                        asked = true;
                        tokio::time::sleep(Duration::from_millis(500)).await;
                    }
                    _ => {
                        if phone
                            .find(Locator::Css("#event-you a.button-link"))
                            .await
                            .is_ok()
                        {
                            click(phone, "#event-you a.button-link").await?;
                            wait_path_prefix(phone, "/room/").await?;
                            play_on_phone(phone).await?;
                        } else {
                            tokio::time::sleep(Duration::from_millis(500)).await;
                        }
                    }
                }
            }
            assert!(paused, "the phone paused");

            // The board, live: twelve players, ten rows and "2 more", streaks shown.
            eventually("twelve rows and a streak", || async {
                let v = js(
                    kiosk,
                    "return [document.querySelectorAll('#standings tbody tr').length, \
                     document.querySelectorAll('#standings .streak').length];",
                )
                .await
                .ok()?;
                (v[0] == 10 && v[1].as_u64()? > 0).then_some(())
            })
            .await?;
            let more = text_of(kiosk, "#event-players").await.unwrap_or_default();
            assert!(
                more.contains("12 players") && more.contains("2 more"),
                "{more}"
            );
            problems.extend(check_screen(kiosk, "event-board", KIOSK, &[STANDINGS]).await?);

            // The phone's page: its own row marked, in both languages.
            open_live(phone, &link).await?;
            eventually("the phone's own row", || async {
                phone.find(Locator::Css("#standings tr.me")).await.ok()
            })
            .await?;
            for lang in ["en", "ar"] {
                set_lang(phone, lang).await?;
                tokio::time::sleep(Duration::from_millis(300)).await;
                for p in layout_problems(phone).await? {
                    problems.push(format!("phone event {lang}: {p}"));
                }
                save_screenshot(phone, &format!("phone-event-{lang}")).await;
            }
            set_lang(phone, "en").await?;
            // The lobby shows the event with a way in.
            open_live(phone, &format!("{base}/")).await?;
            eventually("the lobby's event", || async {
                text_of(phone, "#lobby-event").await
            })
            .await?;

            // The end: the podium on the kiosk, with the final standings.
            let deadline = Instant::now() + Duration::from_secs(240);
            while kiosk.find(Locator::Css("#podium")).await.is_err() {
                assert!(Instant::now() < deadline, "no podium after the end");
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            for p in players {
                let games = p.await??;
                assert!(games > 0, "every protocol player played");
            }
            problems.extend(check_screen(kiosk, "event-podium", KIOSK, &[STANDINGS]).await?);

            // The phone's page after the end: the podium, every game, each with its replay.
            open_live(phone, &link).await?;
            eventually("the final page", || async {
                phone
                    .find(Locator::Css("#event-games .room-link"))
                    .await
                    .ok()
            })
            .await?;
            phone.find(Locator::Css("#podium")).await?;
            for lang in ["en", "ar"] {
                set_lang(phone, lang).await?;
                tokio::time::sleep(Duration::from_millis(300)).await;
                for p in layout_problems(phone).await? {
                    problems.push(format!("phone event final {lang}: {p}"));
                }
                save_screenshot(phone, &format!("phone-event-final-{lang}")).await;
            }
            set_lang(phone, "en").await?;
            click(phone, "#event-games .room-link").await?;
            eventually("a replay", || async {
                path(phone).await.ok()?.starts_with("/game/").then_some(())
            })
            .await?;
            // EV5: the player's profile lists the event with their place, linking to it.
            open_live(phone, &format!("{base}/profile/pia")).await?;
            phone.find(Locator::Css("#profile-events li")).await?;
            let place = text_of(phone, "#profile-events li")
                .await
                .unwrap_or_default();
            assert!(
                place.contains(" of 12"),
                "the place among the 12 rows: {place}"
            );
            for lang in ["en", "ar"] {
                set_lang(phone, lang).await?;
                tokio::time::sleep(Duration::from_millis(300)).await;
                for p in layout_problems(phone).await? {
                    problems.push(format!("phone profile events {lang}: {p}"));
                }
                save_screenshot(phone, &format!("phone-profile-events-{lang}")).await;
            }
            set_lang(phone, "en").await?;
            click(phone, "#profile-events a").await?;
            eventually("the event's page from the profile", || async {
                path(phone)
                    .await
                    .ok()?
                    .starts_with("/events/")
                    .then_some(())
            })
            .await?;
            report(&problems)
        },
    )
    .await;
}
