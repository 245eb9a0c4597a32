//! Browser tests of the web UI: the real server with the UI embedded, driven through
//! headless Chromium. Run by `scripts/test-browser`; ignored by a plain `cargo test` because
//! they need Chromium and a server binary built with the UI.

use xo_tests::webdriver::key::Key;
use xo_tests::webdriver::{Client, Locator};
use xo_tests::{
    Driver, Outcome, Server, attr_of, click, eventually, js, origin_of, run_session,
    save_screenshot, text_of, type_into, wait_for_app, wait_js, wait_text,
};

const PHONE: (u32, u32) = (360, 640);
const KIOSK: (u32, u32) = (800, 480);
const DESKTOP: (u32, u32) = (1280, 800);

async fn open(client: &Client, url: &str) -> Outcome {
    client.goto(url).await?;
    wait_for_app(client).await?;
    Ok(())
}

/// The `x` and `width` of an element's box.
async fn rect(client: &Client, css: &str) -> Result<(f64, f64), String> {
    let el = client
        .find(Locator::Css(css))
        .await
        .map_err(|e| format!("no {css}: {e}"))?;
    let (x, _y, w, _h) = el.rectangle().await.map_err(|e| e.to_string())?;
    Ok((x, w))
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn rules_explain_both_games_with_an_example_board() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let url = server.url("/rules");
    run_session(&driver, "rules", DESKTOP, move |c| async move {
        open(&c, &url).await?;
        let title = text_of(&c, ".nav-title").await.unwrap_or_default();
        assert_eq!(title, "Rules and tips");
        let headings = js(
            &c,
            "return [...document.querySelectorAll('main h2')].map(h => h.textContent);",
        )
        .await?;
        assert_eq!(headings, serde_json::json!(["XO", "Infinite XO"]));
        // U5: position and content, and the glowing mark vanishes next.
        assert_eq!(
            attr_of(&c, "#example-board [data-cell='0']", "aria-label")
                .await
                .as_deref(),
            Some("top left, X, vanishes next")
        );
        assert_eq!(
            attr_of(&c, "#example-board [data-cell='2']", "aria-label")
                .await
                .as_deref(),
            Some("top right, empty")
        );
        assert_eq!(
            attr_of(&c, "#example-board [data-cell='8']", "aria-label")
                .await
                .as_deref(),
            Some("bottom right, O")
        );
        let glowing = js(
            &c,
            "return document.querySelectorAll('#example-board .cell.glow').length;",
        )
        .await?;
        assert_eq!(glowing, 1);
        Ok(())
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn arabic_lays_out_right_to_left_but_the_board_never_mirrors() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let url = server.url("/rules");
    run_session(&driver, "arabic-rtl", DESKTOP, move |c| async move {
        open(&c, &url).await?;
        c.find(Locator::Css("#lang-ar")).await?.click().await?;
        eventually("dir=rtl on the page", || async {
            (attr_of(&c, "html", "dir").await.as_deref() == Some("rtl")).then_some(())
        })
        .await?;
        assert_eq!(attr_of(&c, "html", "lang").await.as_deref(), Some("ar"));
        assert_eq!(
            text_of(&c, ".nav-title").await.as_deref(),
            Some("القواعد والنصائح")
        );
        // The page mirrors: the home link now sits to the right of the language switch.
        let (home_x, _) = rect(&c, ".home-link").await?;
        let (switch_x, _) = rect(&c, ".lang-switch").await?;
        assert!(
            home_x > switch_x,
            "navbar mirrored: home {home_x} vs switch {switch_x}"
        );
        // The board does not: top left stays on the left.
        assert_eq!(
            attr_of(&c, "#example-board", "dir").await.as_deref(),
            Some("ltr")
        );
        let direction = js(
            &c,
            "return getComputedStyle(document.querySelector('#example-board')).direction;",
        )
        .await?;
        assert_eq!(direction, "ltr");
        let (x0, _) = rect(&c, "#example-board [data-cell='0']").await?;
        let (x2, _) = rect(&c, "#example-board [data-cell='2']").await?;
        assert!(x0 < x2, "cell 0 at {x0} must be left of cell 2 at {x2}");
        assert_eq!(
            attr_of(&c, "#example-board [data-cell='0']", "aria-label")
                .await
                .as_deref(),
            Some("أعلى اليسار, X, تختفي تاليًا")
        );
        // U6: remembered across a reload.
        c.refresh().await?;
        wait_for_app(&c).await?;
        wait_js(
            &c,
            "return document.documentElement.dir;",
            serde_json::json!("rtl"),
        )
        .await?;
        c.find(Locator::Css("#lang-en")).await?.click().await?;
        eventually("dir=ltr again", || async {
            (attr_of(&c, "html", "dir").await.as_deref() == Some("ltr")).then_some(())
        })
        .await?;
        Ok(())
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn board_is_one_tab_stop_moved_by_arrow_keys() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let url = server.url("/rules");
    run_session(&driver, "board-keyboard", DESKTOP, move |c| async move {
        open(&c, &url).await?;
        let stops = js(&c, "return document.querySelectorAll('#example-board [tabindex=\"0\"]').length;").await?;
        assert_eq!(stops, 1, "roving tabindex: one tab stop in the grid");
        assert_eq!(attr_of(&c, "#example-board", "role").await.as_deref(), Some("grid"));
        let rows = js(&c, "return document.querySelectorAll('#example-board [role=row]').length;").await?;
        assert_eq!(rows, 3);
        // Tab from the last control before the board lands on its single stop (the centre).
        js(&c, "document.querySelector('#example-board').previousElementSibling?.focus(); document.querySelector('#example-board [tabindex=\"0\"]').focus(); return 0;").await?;
        let focused = || async { js(&c, "return document.activeElement.dataset.cell ?? null;").await };
        assert_eq!(focused().await?, "4");
        let active = c.active_element().await?;
        active.send_keys(&Key::Left.to_string()).await?;
        assert_eq!(focused().await?, "3");
        c.active_element().await?.send_keys(&Key::Up.to_string()).await?;
        assert_eq!(focused().await?, "0");
        c.active_element().await?.send_keys(&Key::Up.to_string()).await?;
        assert_eq!(focused().await?, "0", "stops at the edge");
        c.active_element().await?.send_keys(&Key::End.to_string()).await?;
        assert_eq!(focused().await?, "2");
        let stops = js(&c, "return document.querySelectorAll('#example-board [tabindex=\"0\"]').length;").await?;
        assert_eq!(stops, 1, "still one tab stop after moving");
        // Tab leaves the grid in one step.
        c.active_element().await?.send_keys(&Key::Tab.to_string()).await?;
        let inside = js(&c, "return document.querySelector('#example-board').contains(document.activeElement);").await?;
        assert_eq!(inside, false);
        Ok(())
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn sign_in_form_checks_the_rules_then_registers_and_signs_out() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let url = server.url("/signin");
    run_session(&driver, "sign-in", PHONE, move |c| async move {
        open(&c, &url).await?;
        click(&c, "#signin-submit").await?;
        let errors = wait_text(&c, "#signin-errors", "A username has 3 to 20 letters").await?;
        assert!(errors.contains("A password has 8 to 128 characters"), "{errors}");
        assert_eq!(
            attr_of(&c, "#username", "aria-invalid").await.as_deref(),
            Some("true")
        );
        // Switch to registering, fix the fields, and register for real.
        c.find(Locator::Css("#signin-switch"))
            .await?
            .click()
            .await?;
        wait_text(&c, "#signin-submit", "Register").await?;
        c.find(Locator::Css("#username"))
            .await?
            .send_keys("sara omar")
            .await?;
        c.find(Locator::Css("#password"))
            .await?
            .send_keys("long enough")
            .await?;
        c.find(Locator::Css("#signin-submit"))
            .await?
            .click()
            .await?;
        // Spaces are refused; the password is now fine.
        wait_js(
            &c,
            "const t = document.querySelector('#signin-errors').textContent; return t.includes('A username has') && !t.includes('A password has');",
            serde_json::json!(true),
        )
        .await?;
        c.find(Locator::Css("#username")).await?.clear().await?;
        c.find(Locator::Css("#username"))
            .await?
            .send_keys("sara_99")
            .await?;
        c.find(Locator::Css("#signin-submit"))
            .await?
            .click()
            .await?;
        // Registered: back on the lobby with the name in the navbar.
        eventually("the lobby with the account name", || async {
            let path = js(&c, "return location.pathname;").await.ok()?;
            let link = text_of(&c, ".navbar").await?;
            (path == "/" && link.contains("sara_99")).then_some(())
        })
        .await?;
        // Signed-in players may create rated rooms: Player is offered.
        let labels = js(
            &c,
            "return document.querySelector('#create-opponent').textContent;",
        )
        .await?;
        assert!(
            labels.as_str().unwrap_or_default().contains("Player"),
            "{labels}"
        );
        // The same name cannot register twice.
        let here = c.current_url().await?;
        c.goto(&format!("{}/signin", origin_of(&here))).await?;
        wait_for_app(&c).await?;
        // `/api/me` answers after the first render: wait for the signed-in page.
        click(&c, "#sign-out").await?;
        eventually("the sign-in form again", || async {
            c.find(Locator::Css("#signin-form")).await.ok().map(|_| ())
        })
        .await?;
        c.find(Locator::Css("#signin-switch"))
            .await?
            .click()
            .await?;
        c.find(Locator::Css("#username"))
            .await?
            .send_keys("SARA_99")
            .await?;
        c.find(Locator::Css("#password"))
            .await?
            .send_keys("another one")
            .await?;
        c.find(Locator::Css("#signin-submit"))
            .await?
            .click()
            .await?;
        eventually("the taken-name error", || async {
            let t = text_of(&c, "#signin-errors").await?;
            t.contains("That username is taken.").then_some(())
        })
        .await?;
        Ok(())
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn guests_create_only_bot_and_local_rooms_with_spec_defaults() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let url = server.url("/");
    run_session(&driver, "create-box", DESKTOP, move |c| async move {
        open(&c, &url).await?;
        let opponents = js(&c, "return [...document.querySelectorAll('#create-opponent .option')].map(o => o.textContent);").await?;
        assert_eq!(opponents, serde_json::json!(["Bot", "Local player"]));
        // Bot: the difficulty slider 0–100 at 50 %, X by default.
        assert_eq!(attr_of(&c, "#create-difficulty", "min").await.as_deref(), Some("0"));
        assert_eq!(attr_of(&c, "#create-difficulty", "max").await.as_deref(), Some("100"));
        assert_eq!(js(&c, "return document.querySelector('#create-difficulty').value;").await?, "50");
        assert_eq!(js(&c, "return document.querySelector('#create-side-0').checked;").await?, true);
        assert!(c.find(Locator::Css("#create-time")).await.is_err(), "no time for XO");
        // Infinite XO offers 5 / 10 / 30 s with 10 chosen.
        c.find(Locator::Css("label[for='create-game-1']")).await?.click().await?;
        wait_js(&c, "return [...document.querySelectorAll('#create-time .option')].map(o => o.textContent);", serde_json::json!(["5 s", "10 s", "30 s"])).await?;
        assert_eq!(js(&c, "return document.querySelector('#create-time-1').checked;").await?, true);
        // Local: two names, and a clear message when they clash.
        c.find(Locator::Css("label[for='create-opponent-1']")).await?.click().await?;
        wait_js(&c, "return document.querySelector('#create-difficulty') === null;", serde_json::json!(true)).await?;
        eventually("the name fields", || async {
            c.find(Locator::Css("#create-name1")).await.ok()
        })
        .await?
        .send_keys(" Sara")
        .await?;
        c.find(Locator::Css("#create-name2")).await?.send_keys("sARA ").await?;
        eventually("the clash message", || async {
            let t = text_of(&c, "#create-errors").await?;
            t.contains("The two names must differ").then_some(())
        })
        .await?;
        Ok(())
    })
    .await;
}

/// What of the kiosk home lies outside an 800 × 480 screen: the page's vertical overflow in
/// pixels and the ids of controls whose box is not wholly on screen.
const KIOSK_FIT: &str = "
    const out = [...document.querySelectorAll('.kiosk-choice, .kiosk-play fieldset, .kiosk-play .field, .kiosk-play button[type=submit]')]
        .filter(e => { const r = e.getBoundingClientRect(); return r.top < 0 || r.bottom > window.innerHeight + 0.5; })
        .map(e => e.id || e.className);
    return [document.scrollingElement.scrollHeight - window.innerHeight, out];";

async fn assert_kiosk_fits(c: &Client, what: &str) -> Outcome {
    let fit = js(c, KIOSK_FIT).await?;
    assert!(
        fit[0].as_f64().unwrap_or(1.0) <= 0.0 && fit[1] == serde_json::json!([]),
        "{what}: the kiosk home must fit 800×480 without scrolling: {fit}"
    );
    Ok(())
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn kiosk_home_has_the_qr_code_and_both_play_choices_without_sign_in() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let url = server.url("/kiosk");
    let base = server.base.clone();
    run_session(&driver, "kiosk-home", KIOSK, move |c| async move {
        open(&c, &url).await?;
        wait_js(
            &c,
            "return document.documentElement.classList.contains('kiosk');",
            serde_json::json!(true),
        )
        .await?;
        // The code follows the kiosk's address, read from the server once the page is up.
        wait_js(
            &c,
            "return document.querySelector('#qr svg') !== null;",
            serde_json::json!(true),
        )
        .await?;
        // An IP address is shown without its `http://`; the QR code encodes it whole.
        let address = text_of(&c, ".address").await.unwrap_or_default();
        assert_eq!(address, base.trim_start_matches("http://"));
        assert_eq!(attr_of(&c, "#qr", "aria-label").await, Some(format!("QR code for {base}")));
        let nav = text_of(&c, ".navbar").await.unwrap_or_default();
        assert!(!nav.contains("Sign in"), "no sign-in on the kiosk: {nav}");
        assert!(
            c.find(Locator::Css(".home-link")).await.is_err(),
            "no link home on the home screen itself"
        );
        // Large touch targets (U7): at least 64 px for the two choices, 52 px for settings.
        for css in ["#play-friend", "#play-bot"] {
            let h = js(&c, &format!("return document.querySelector('{css}').getBoundingClientRect().height;")).await?;
            assert!(h.as_f64().unwrap_or(0.0) >= 64.0, "{css}: {h}");
        }
        let small = js(&c, "return [...document.querySelectorAll('.kiosk-play .option, .kiosk-play input[type=text], #bot-submit')].filter(e => e.getBoundingClientRect().height < 52).length;").await?;
        assert_eq!(small, 0, "settings are at least 52 px tall");
        // The bot is open by default with SPEC's defaults: XO, 50 %, the human as X.
        assert_eq!(js(&c, "return document.querySelector('#bot-difficulty').value;").await?, "50");
        assert_eq!(js(&c, "return document.querySelector('#bot-side-0').checked;").await?, true);
        assert_kiosk_fits(&c, "bot, XO").await?;
        // Infinite XO adds the time row; everything still fits.
        click(&c, "label[for='bot-game-1']").await?;
        wait_js(&c, "return document.querySelector('#bot-time') !== null;", serde_json::json!(true)).await?;
        assert_kiosk_fits(&c, "bot, Infinite XO").await?;
        save_screenshot(&c, "kiosk-home").await;
        // A friend game needs no keyboard: the names start filled and distinct.
        click(&c, "#play-friend").await?;
        wait_js(&c, "return document.querySelector('#friend-name1')?.value;", serde_json::json!("Player 1")).await?;
        assert_eq!(attr_of(&c, "#play-friend", "aria-expanded").await.as_deref(), Some("true"));
        assert_eq!(
            js(&c, "return document.querySelector('#friend-name2').value;").await?,
            "Player 2"
        );
        assert_kiosk_fits(&c, "friend").await?;
        // Names that clash ignoring case and spaces are refused at once (M2.1).
        type_into(&c, "#friend-name2", " player 1 ").await?;
        wait_text(&c, "#friend-errors", "The two names must differ").await?;
        assert_eq!(attr_of(&c, "#friend-name2", "aria-invalid").await.as_deref(), Some("true"));
        // Arabic mirrors the rows (labels on the right) and still fits.
        click(&c, "#play-bot").await?;
        click(&c, "#lang-ar").await?;
        wait_js(&c, "return document.documentElement.dir;", serde_json::json!("rtl")).await?;
        assert_kiosk_fits(&c, "Arabic").await?;
        let (legend_x, _) = rect(&c, "#bot-game legend").await?;
        let (options_x, _) = rect(&c, "#bot-game .segmented .option").await?;
        assert!(legend_x > options_x, "the label sits right of its options in Arabic");
        save_screenshot(&c, "kiosk-home-arabic").await;
        click(&c, "#lang-en").await?;
        Ok(())
    })
    .await;
}

/// Lines of text each element takes (the distinct tops of its text's boxes), the width its
/// text would take on one line, and the width of the column it sits in.
const LINES: &str = r#"
const lines = el => {
  const r = document.createRange(); r.selectNodeContents(el);
  // An inline box and the text in it start a few pixels apart on the same line: tops closer
  // than half a line are one line.
  const tops = [...r.getClientRects()].filter(x => x.width > 0).map(x => x.top).sort((a, b) => a - b);
  const half = parseFloat(getComputedStyle(el).fontSize) / 2;
  return tops.filter((t, i) => i === 0 || t - tops[i - 1] > half).length;
};
const natural = el => {
  const c = el.cloneNode(true);
  Object.assign(c.style, { position: 'absolute', visibility: 'hidden', whiteSpace: 'nowrap', width: 'auto', maxWidth: 'none' });
  document.body.appendChild(c); const w = c.getBoundingClientRect().width; c.remove(); return w;
};
const q = s => document.querySelector(s);
const side = q('.kiosk-side');
return {
  address: lines(q('#address')),
  address_text: q('#address').textContent,
  address_natural: natural(q('#address')),
  local: lines(q('#local-address')),
  url: lines(q('#local-address .url')),
  url_text: q('#local-address .url').textContent,
  url_natural: natural(q('#local-address .url')),
  column: q('.qr-text').getBoundingClientRect().width,
  side_overflow: side.scrollWidth - side.clientWidth,
};
"#;

/// U7 at 800×480: beside the QR code, the address a phone types stays on one line and
/// the `.local` name under it never breaks inside itself ("or type" may wrap before it), in
/// English and in Arabic. The longest LAN address there is, with the server on every
/// interface as on the Pi (so the name is shown).
#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn kiosk_address_stays_on_one_line_beside_the_qr_code_in_both_languages() {
    kiosk_address_on_one_line(&[], "kiosk-address").await;
}

/// The same with the guest Wi-Fi's code beside the game's (two codes share the column).
#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn kiosk_address_stays_on_one_line_beside_two_qr_codes_in_both_languages() {
    kiosk_address_on_one_line(
        &[
            "--guest-wifi-ssid",
            "Cafe Guests",
            "--guest-wifi-password",
            "espresso",
        ],
        "kiosk-address-wifi",
    )
    .await;
}

async fn kiosk_address_on_one_line(extra: &[&str], shot: &'static str) {
    let mut args = vec![
        "--bind",
        "0.0.0.0:0",
        "--public-url",
        "http://192.168.100.200",
    ];
    args.extend_from_slice(extra);
    let server = Server::start_with(120, None, &args).await;
    let driver = Driver::start().await;
    let url = server.url("/kiosk");
    run_session(&driver, shot, KIOSK, move |c| async move {
        open(&c, &url).await?;
        wait_js(
            &c,
            "return document.querySelector('#local-address .url') !== null;",
            serde_json::json!(true),
        )
        .await?;
        for (lang, dir) in [("en", "ltr"), ("ar", "rtl")] {
            click(&c, &format!("#lang-{lang}")).await?;
            wait_js(
                &c,
                "return document.documentElement.dir;",
                serde_json::json!(dir),
            )
            .await?;
            let m = js(&c, LINES).await?;
            assert_eq!(m["address_text"], "192.168.100.200", "{lang}: {m}");
            assert_eq!(m["address"], 1, "{lang}: the address takes one line: {m}");
            let fits = m["url_natural"].as_f64().unwrap_or(f64::MAX)
                <= m["column"].as_f64().unwrap_or(0.0);
            if fits {
                assert_eq!(
                    m["url"], 1,
                    "{lang}: the name fits its column, so it is not broken: {m}"
                );
                assert!(
                    m["local"].as_u64().unwrap_or(9) <= 2,
                    "{lang}: 'or type' and the name, at most two lines: {m}"
                );
            }
            assert!(
                m["side_overflow"].as_f64().unwrap_or(1.0) <= 0.0,
                "{lang}: nothing wider than the column: {m}"
            );
            assert_kiosk_fits(&c, lang).await?;
            save_screenshot(&c, &format!("{shot}-{lang}")).await;
            // This machine's name may be too long for the column; the Pi's is `xo`. With its
            // name in place, the name must sit whole on one line, under "or type" at most.
            js(
                &c,
                "document.querySelector('#local-address .url').textContent = 'http://xo.local';",
            )
            .await?;
            let pi = js(&c, LINES).await?;
            assert_eq!(pi["address"], 1, "{lang}: {pi}");
            assert_eq!(pi["url"], 1, "{lang}: the Pi's name is not broken: {pi}");
            assert!(
                pi["local"].as_u64().unwrap_or(9) <= 2,
                "{lang}: 'or type' and the Pi's name, at most two lines: {pi}"
            );
        }
        click(&c, "#lang-en").await?;
        Ok(())
    })
    .await;
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn layouts_fit_phone_and_kiosk_screens_without_sideways_scrolling() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    for (name, size, path) in [
        ("phone-lobby-empty", PHONE, "/"),
        ("phone-rules", PHONE, "/rules"),
        ("kiosk-800", KIOSK, "/kiosk"),
        ("kiosk-1280", DESKTOP, "/kiosk"),
        ("landscape-rules", KIOSK, "/rules"),
    ] {
        let url = server.url(path);
        run_session(&driver, name, size, move |c| async move {
            open(&c, &url).await?;
            let overflow = js(&c, "return document.documentElement.scrollWidth - window.innerWidth;").await?;
            assert!(overflow.as_f64().unwrap_or(1.0) <= 0.0, "{name}: {overflow} px too wide");
            let small = js(&c, "return [...document.querySelectorAll('.cell')].filter(c => c.getBoundingClientRect().width < 48).length;").await?;
            assert_eq!(small, 0, "{name}: cells are at least 48 px");
            save_screenshot(&c, name).await;
            Ok(())
        })
        .await;
    }
}
