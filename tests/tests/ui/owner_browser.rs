//! Owner mode in the browser (SPEC O1), in English and Arabic: a long press
//! on the kiosk's home (800×480) shows a one-time owner code; a phone signed in to an account
//! enters it on /owner and becomes an owner; a player deletes their account from the profile
//! page behind its confirmation. Run by `scripts/test-browser`.

use xo_tests::webdriver::{Client, Locator};
use xo_tests::{
    Driver, Outcome, Server, click, eventually, js, open_live, register, report, run_session,
    run_sessions, save_screenshot, set_lang, text_of, type_into, wait_gone, wait_text,
};

const KIOSK: (u32, u32) = (800, 480);
const PHONE: (u32, u32) = (360, 640);

/// Holds the kiosk's heading down as a finger would (no pointer up), and reads the code.
async fn owner_code_from_the_kiosk(
    kiosk: &Client,
    base: &str,
    lang: &str,
) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
    open_live(kiosk, &format!("{base}/kiosk")).await?;
    set_lang(kiosk, lang).await?;
    eventually("the kiosk's heading", || async {
        kiosk.find(Locator::Css("#owner-code-hold")).await.ok()
    })
    .await?;
    // A short press shows nothing.
    js(
        kiosk,
        "const h = document.querySelector('#owner-code-hold');
         h.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true}));
         h.dispatchEvent(new PointerEvent('pointerup', {bubbles: true}));
         return 0;",
    )
    .await?;
    tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
    assert!(
        kiosk.find(Locator::Css("#owner-code")).await.is_err(),
        "a short press must not show the owner code"
    );
    js(
        kiosk,
        "document.querySelector('#owner-code-hold')
            .dispatchEvent(new PointerEvent('pointerdown', {bubbles: true}));
         return 0;",
    )
    .await?;
    let code = eventually("the owner code", || async {
        let text = text_of(kiosk, "#owner-code").await?;
        let digits: String = text.chars().filter(char::is_ascii_digit).collect();
        (digits.len() == 8).then_some(text)
    })
    .await?;
    let help = text_of(kiosk, "#owner-code-dialog")
        .await
        .unwrap_or_default();
    assert!(
        help.contains("/owner") && !help.contains('{'),
        "the help names the owner page: {help}"
    );
    save_screenshot(kiosk, &format!("owner-code-kiosk-{lang}")).await;
    click(kiosk, "#owner-code-close").await?;
    Ok(code)
}

async fn become_owner(phone: &Client, base: &str, lang: &str, name: &str, code: &str) -> Outcome {
    register(phone, base, name).await?;
    set_lang(phone, lang).await?;
    open_live(phone, &format!("{base}/owner")).await?;
    // A wrong code first: a clear error, and still no owner.
    let wrong = if code.starts_with('0') {
        "11111111"
    } else {
        "00000000"
    };
    type_into(phone, "#owner-code-input", wrong).await?;
    click(phone, "#owner-claim").await?;
    eventually("the wrong code refused", || async {
        let text = text_of(phone, "#owner-errors").await?;
        (!text.trim().is_empty()).then_some(())
    })
    .await?;
    // One wrong guess does not spend the code (five do): the right one still works.
    let input = phone
        .find(Locator::Css("#owner-code-input"))
        .await
        .map_err(|e| e.to_string())?;
    input.clear().await.map_err(|e| e.to_string())?;
    type_into(phone, "#owner-code-input", code).await?;
    click(phone, "#owner-claim").await?;
    wait_text(phone, "#owner-list", name).await?;
    save_screenshot(phone, &format!("owner-page-phone-{lang}")).await;
    Ok(())
}

async fn delete_account(phone: &Client, base: &str, lang: &str, name: &str) -> Outcome {
    register(phone, base, name).await?;
    set_lang(phone, lang).await?;
    open_live(phone, &format!("{base}/profile/{name}")).await?;
    click(phone, "#delete-account").await?;
    // The wrong password keeps the account.
    type_into(phone, "#delete-password", "not the password").await?;
    click(phone, "#delete-confirm").await?;
    eventually("the wrong password refused", || async {
        let text = text_of(phone, "#delete-errors").await?;
        (!text.trim().is_empty()).then_some(())
    })
    .await?;
    save_screenshot(phone, &format!("delete-account-phone-{lang}")).await;
    let input = phone
        .find(Locator::Css("#delete-password"))
        .await
        .map_err(|e| e.to_string())?;
    input.clear().await.map_err(|e| e.to_string())?;
    type_into(phone, "#delete-password", "password123").await?;
    click(phone, "#delete-confirm").await?;
    eventually("signed out and home", || async {
        let nav = text_of(phone, ".navbar").await?;
        (!nav.contains(name)).then_some(())
    })
    .await?;
    let gone = js(
        phone,
        &format!("return fetch('/api/users/{name}').then(r => r.status);"),
    )
    .await?;
    assert_eq!(gone, serde_json::json!(404), "the profile is gone");
    Ok(())
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn an_owner_code_from_the_kiosk_makes_a_phone_an_owner_in_both_languages() {
    let server = Server::start(600).await;
    let driver = Driver::start().await;
    for lang in ["en", "ar"] {
        let base = server.base.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let kiosk_base = base.clone();
        run_session(
            &driver,
            &format!("owner-kiosk-{lang}"),
            KIOSK,
            move |kiosk| async move {
                let code = owner_code_from_the_kiosk(&kiosk, &kiosk_base, lang).await?;
                tx.send(code)
                    .map_err(|_| "the code was not taken".to_owned())?;
                Ok(())
            },
        )
        .await;
        let code = rx.recv().expect("the kiosk's code");
        run_session(
            &driver,
            &format!("owner-phone-{lang}"),
            PHONE,
            move |phone| async move {
                become_owner(&phone, &base, lang, &format!("boss_{lang}"), &code).await
            },
        )
        .await;
    }
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn a_player_deletes_their_account_from_the_profile_in_both_languages() {
    let server = Server::start(600).await;
    let driver = Driver::start().await;
    for (lang, size) in [("en", PHONE), ("ar", KIOSK)] {
        let base = server.base.clone();
        run_session(
            &driver,
            &format!("delete-account-{lang}"),
            size,
            move |phone| async move {
                delete_account(&phone, &base, lang, &format!("leaver_{lang}")).await
            },
        )
        .await;
    }
}

// ---------------------------------------------------------------------------------------------
// The owner's pages: from the kiosk's owner code to each page's main action, in
// both languages, on the kiosk's 800×480 and a phone, checked against what the server holds.

/// A phone the owner pages are checked on besides the kiosk.
const TALL_PHONE: (u32, u32) = (390, 844);
const PASSWORD: &str = "password123";

/// An HTTP answer: status, lower-cased headers, body.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_default()
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One request on a fresh connection (`Connection: close`), as the owner's browser would send
/// it but outside the browser: what the server holds, not what the page shows.
async fn http(
    base: &str,
    method: &str,
    path: &str,
    cookie: Option<&str>,
    body: Option<(&str, &[u8])>,
) -> Result<Reply, String> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let host = base.trim_start_matches("http://");
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n");
    if let Some(cookie) = cookie {
        head.push_str(&format!("Cookie: {cookie}\r\n"));
    }
    let (kind, bytes) = body.unwrap_or(("application/json", b""));
    if body.is_some() || method != "GET" {
        head.push_str(&format!(
            "Content-Type: {kind}\r\nContent-Length: {}\r\n",
            bytes.len()
        ));
    }
    head.push_str("\r\n");
    let exchange = async {
        let mut stream = tokio::net::TcpStream::connect(host)
            .await
            .map_err(|e| e.to_string())?;
        stream
            .write_all(head.as_bytes())
            .await
            .map_err(|e| e.to_string())?;
        stream.write_all(bytes).await.map_err(|e| e.to_string())?;
        let mut answer = Vec::new();
        stream
            .read_to_end(&mut answer)
            .await
            .map_err(|e| e.to_string())?;
        Ok::<_, String>(answer)
    };
    let answer = tokio::time::timeout(std::time::Duration::from_secs(30), exchange)
        .await
        .map_err(|_| format!("{method} {path}: no answer within 30 s"))??;
    let split = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| format!("{method} {path}: an answer without a header end"))?;
    let text = String::from_utf8_lossy(&answer[..split]).into_owned();
    let mut lines = text.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{method} {path}: no status"))?;
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    // The server answers these with a Content-Length, never chunked.
    Ok(Reply {
        status,
        headers,
        body: answer[split + 4..].to_vec(),
    })
}

/// The browser's session cookie, for asking the server directly.
async fn session_cookie(c: &Client) -> Result<String, String> {
    let value = c
        .cookie_value("xo_session")
        .await
        .map_err(|e| format!("no session cookie: {e}"))?;
    Ok(format!("xo_session={value}"))
}

/// The text of `css` once it has some.
async fn said_text(c: &Client, css: &str) -> Result<String, String> {
    eventually(&format!("{css} to say something"), || async {
        let text = text_of(c, css).await?;
        (!text.trim().is_empty()).then_some(text)
    })
    .await
}

/// Words, never a raw server code (`snake_case` with an underscore), and no unfilled hole.
fn assert_worded(text: &str, what: &str) {
    let raw = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find(|w| {
            w.split('_').count() > 1
                && w.split('_').all(|part| !part.is_empty())
                && w.chars().all(|c| c.is_ascii_lowercase() || c == '_')
        });
    assert!(
        raw.is_none() && !text.contains('{'),
        "{what} must be words, not a code: {text:?}"
    );
}

/// Every layout rule on the current page at the kiosk's and a phone's size in both languages;
/// leaves the page at `back_to` in `lang`.
async fn owner_layout(
    c: &Client,
    name: &str,
    lang: &str,
    back_to: (u32, u32),
    problems: &mut Vec<String>,
) -> Outcome {
    for l in ["en", "ar"] {
        set_lang(c, l).await?;
        for (w, h) in [KIOSK, TALL_PHONE] {
            xo_tests::set_viewport(c, w, h).await?;
            tokio::time::sleep(std::time::Duration::from_millis(350)).await;
            for p in xo_tests::layout_problems(c).await? {
                problems.push(format!("{name} {w}×{h} {l}: {p}"));
            }
            let size = if w == KIOSK.0 { "kiosk" } else { "phone" };
            js(c, "window.scrollTo(0, 0); return 0;").await?;
            save_screenshot(c, &format!("{name}-{size}-{l}")).await;
        }
    }
    set_lang(c, lang).await?;
    xo_tests::set_viewport(c, back_to.0, back_to.1).await?;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    Ok(())
}

/// Opens an owner page by its link on the hub, as an owner would.
async fn open_section(c: &Client, base: &str, segment: &str) -> Outcome {
    open_live(c, &format!("{base}/owner")).await?;
    click(c, &format!("#owner-sections a[href='/owner/{segment}']")).await?;
    xo_tests::wait_path_is(c, &format!("/owner/{segment}")).await?;
    Ok(())
}

async fn sign_in(c: &Client, base: &str, name: &str, password: &str) -> Outcome {
    open_live(c, &format!("{base}/signin")).await?;
    type_into(c, "#username", name).await?;
    type_into(c, "#password", password).await?;
    click(c, "#signin-submit").await?;
    eventually("signed in", || async {
        text_of(c, ".navbar").await?.contains(name).then_some(())
    })
    .await?;
    Ok(())
}

/// What one round of the walk needs.
struct Round {
    base: String,
    lang: &'static str,
    size: (u32, u32),
    boss: String,
    /// The owner of the earlier round, still an owner of the kiosk (none in the first).
    earlier_owner: Option<String>,
    /// Whether this round checks every page's layout (once is enough: it covers both
    /// languages and both sizes).
    layout: bool,
    /// The last round ends with a restart, which stops the server.
    restart: bool,
}

/// Hub: the section links, and removing an owner (refused for the last one, in words).
async fn hub(owner: &Client, r: &Round, cookie: &str, problems: &mut Vec<String>) -> Outcome {
    open_live(owner, &format!("{}/owner", r.base)).await?;
    eventually("the hub's links", || async {
        owner.find(Locator::Css("#owner-sections a")).await.ok()
    })
    .await?;
    let links = js(
        owner,
        "return [...document.querySelectorAll('#owner-sections a')].map(a => a.getAttribute('href'));",
    )
    .await?;
    let want: Vec<String> = [
        "events", "players", "rooms", "seasons", "backup", "update", "health", "settings",
    ]
    .iter()
    .map(|s| format!("/owner/{s}"))
    .collect();
    assert_eq!(
        links,
        serde_json::json!(want),
        "the hub links every section"
    );
    let owners = http(&r.base, "GET", "/api/owner", Some(cookie), None)
        .await?
        .json();
    let id_of = |name: &str| {
        owners["owners"]
            .as_array()
            .and_then(|a| a.iter().find(|o| o["username"] == name))
            .and_then(|o| o["id"].as_u64())
    };
    match &r.earlier_owner {
        None => {
            // The only owner: the server refuses, and the page says so in words.
            let me = id_of(&r.boss).ok_or("the owner is listed")?;
            click(owner, &format!("#remove-owner-{me}")).await?;
            click(owner, &format!("#remove-owner-{me}-yes")).await?;
            let text = said_text(owner, "#owners-said").await?;
            assert_worded(&text, "the last-owner refusal");
            if r.lang == "en" {
                assert!(text.contains("last owner"), "{text}");
            }
            let after = http(&r.base, "GET", "/api/owner", Some(cookie), None)
                .await?
                .json();
            assert_eq!(after["owners"].as_array().map(Vec::len), Some(1));
        }
        Some(earlier) => {
            let id = id_of(earlier).ok_or("the earlier owner is listed")?;
            click(owner, &format!("#remove-owner-{id}")).await?;
            let question = text_of(owner, &format!("#remove-owner-{id}-question"))
                .await
                .unwrap_or_default();
            assert!(question.contains(earlier.as_str()), "{question}");
            click(owner, &format!("#remove-owner-{id}-yes")).await?;
            wait_gone(owner, &format!("[data-owner='{earlier}']")).await?;
            let after = http(&r.base, "GET", "/api/owner", Some(cookie), None)
                .await?
                .json();
            let names: Vec<&str> = after["owners"]
                .as_array()
                .map(|a| a.iter().filter_map(|o| o["username"].as_str()).collect())
                .unwrap_or_default();
            assert_eq!(names, [r.boss.as_str()], "the earlier owner was removed");
        }
    }
    if r.layout {
        owner_layout(owner, "owner-hub", r.lang, r.size, problems).await?;
    }
    Ok(())
}

/// Opens the player's actions unless they are open already.
async fn open_manage(owner: &Client, name: &str) -> Outcome {
    let row = format!("#player-list [data-user='{name}']");
    eventually(&format!("{name}'s actions open"), || async {
        if owner
            .find(Locator::Css(&format!("{row} #manage-player")))
            .await
            .is_ok()
        {
            return Some(());
        }
        let button = owner
            .find(Locator::Css(&format!("{row} .manage")))
            .await
            .ok()?;
        if button.attr("aria-expanded").await.ok().flatten().as_deref() == Some("false") {
            button.click().await.ok()?;
        }
        None
    })
    .await?;
    Ok(())
}

fn user_id(list: &serde_json::Value, name: &str) -> Option<u64> {
    list["users"]
        .as_array()?
        .iter()
        .find(|u| u["username"] == name)?["id"]
        .as_u64()
}

/// Players: who is online, rename (taken and invalid refused in words), a reset code the
/// player then signs in with on their own phone, and a removal behind its confirmation.
async fn players(
    owner: &Client,
    player: &Client,
    r: &Round,
    cookie: &str,
    problems: &mut Vec<String>,
) -> Outcome {
    let pat = format!("pat_{}", r.lang);
    let taken = format!("taken_{}", r.lang);
    let gone = format!("gone_{}", r.lang);
    register(player, &r.base, &pat).await?;
    for name in [&taken, &gone] {
        xo_client::register(&r.base, name, PASSWORD)
            .await
            .map_err(|e| e.to_string())?;
    }
    open_section(owner, &r.base, "players").await?;
    type_into(owner, "#players-search", &pat).await?;
    let row = format!("#player-list [data-user='{pat}']");
    wait_text(owner, &row, &pat).await?;
    eventually("the player shown online", || async {
        owner
            .find(Locator::Css(&format!("{row} .presence.here")))
            .await
            .ok()
    })
    .await?;
    let rows = js(
        owner,
        "return document.querySelectorAll('#player-list .player-row').length;",
    )
    .await?;
    assert_eq!(rows, serde_json::json!(1), "the search narrows the list");
    open_manage(owner, &pat).await?;
    // The rename button's words stay on one line beside the field, in Arabic too.
    let heights = js(
        owner,
        "const h = (css) => document.querySelector(css).getBoundingClientRect().height; \
         return [h('#rename-submit'), h('#rename-input')];",
    )
    .await?;
    assert!(
        heights[0].as_f64() <= heights[1].as_f64(),
        "{}: the rename button is one line, as tall as its field: {heights}",
        r.lang
    );

    // A taken name and an invalid one: refused, in words; nothing changes.
    let refusals = if r.lang == "ar" {
        [(taken.as_str(), "مأخوذ"), ("no spaces here", "من 3 إلى 20")]
    } else {
        [
            (taken.as_str(), "taken"),
            ("no spaces here", "3 to 20 letters"),
        ]
    };
    for (bad, words) in refusals {
        type_into(owner, "#rename-input", bad).await?;
        click(owner, "#rename-submit").await?;
        let text = wait_text(owner, "#players-said", words).await?;
        assert_worded(&text, "a rename refusal");
    }
    let list = http(&r.base, "GET", "/api/owner/users", Some(cookie), None)
        .await?
        .json();
    let id = user_id(&list, &pat).ok_or("the player is still listed under the old name")?;

    let renamed = format!("pal_{}", r.lang);
    type_into(owner, "#rename-input", &renamed).await?;
    click(owner, "#rename-submit").await?;
    wait_text(owner, "#players-said", &renamed).await?;
    let list = http(&r.base, "GET", "/api/owner/users", Some(cookie), None)
        .await?
        .json();
    assert_eq!(user_id(&list, &renamed), Some(id), "renamed on the server");
    assert_eq!(user_id(&list, &pat), None);

    // The reset code: eight digits, large enough to read out, with its life.
    type_into(owner, "#players-search", &renamed).await?;
    open_manage(owner, &renamed).await?;
    click(owner, "#reset-password").await?;
    let shown = said_text(owner, "#reset-code").await?;
    let code: String = shown.chars().filter(char::is_ascii_digit).collect();
    assert_eq!(code.len(), 8, "{shown}");
    let px = js(
        owner,
        "return parseFloat(getComputedStyle(document.querySelector('#reset-code')).fontSize);",
    )
    .await?;
    assert!(
        px.as_f64().unwrap_or(0.0) >= 32.0,
        "the code is large: {px}"
    );
    let help = text_of(owner, "#reset-code-box").await.unwrap_or_default();
    if r.lang == "en" {
        assert!(help.contains("30 minutes"), "{help}");
    }
    js(
        owner,
        "document.querySelector('#reset-code-box').scrollIntoView({block: 'end'}); return 0;",
    )
    .await?;
    save_screenshot(owner, &format!("owner-players-reset-{}", r.lang)).await;
    if r.layout {
        owner_layout(owner, "owner-players", r.lang, r.size, problems).await?;
    }

    // The player, signed out, sets a new password with the code on the sign-in page.
    open_live(player, &format!("{}/signin", r.base)).await?;
    click(player, "#sign-out").await?;
    click(player, "#signin-reset").await?;
    type_into(player, "#reset-username", &renamed).await?;
    type_into(player, "#reset-code-input", "00000000").await?;
    type_into(player, "#reset-password", "battery staple").await?;
    click(player, "#reset-submit").await?;
    let wrong = said_text(player, "#reset-errors").await?;
    assert_worded(&wrong, "a wrong reset code");
    if r.lang == "en" {
        assert!(wrong.contains("reset code is wrong"), "{wrong}");
    }
    type_into(player, "#reset-code-input", &code).await?;
    type_into(player, "#reset-password", "short").await?;
    click(player, "#reset-submit").await?;
    let weak = said_text(player, "#reset-errors").await?;
    if r.lang == "en" {
        assert!(weak.contains("8 to 128"), "{weak}");
    }
    if r.layout {
        owner_layout(player, "reset-code-form", r.lang, r.size, problems).await?;
    }
    type_into(player, "#reset-password", "battery staple").await?;
    click(player, "#reset-submit").await?;
    eventually("signed in with the new password", || async {
        text_of(player, ".navbar")
            .await?
            .contains(&renamed)
            .then_some(())
    })
    .await?;
    xo_client::login(&r.base, &renamed, "battery staple")
        .await
        .map_err(|e| format!("the new password works: {e}"))?;
    assert!(
        xo_client::login(&r.base, &renamed, PASSWORD).await.is_err(),
        "the old password no longer works"
    );

    // Removing an account asks first, naming it.
    type_into(owner, "#players-search", &gone).await?;
    open_manage(owner, &gone).await?;
    click(owner, "#remove-account").await?;
    let question = said_text(owner, "#remove-account-question").await?;
    assert!(question.contains(&gone), "{question}");
    click(owner, "#remove-account-yes").await?;
    wait_text(owner, "#players-said", &gone).await?;
    let profile = http(&r.base, "GET", &format!("/api/users/{gone}"), None, None).await?;
    assert_eq!(profile.status, 404, "the removed account is gone");
    Ok(())
}

/// Rooms: close one made over the protocol (its WebSocket gets the owner's reason) and the
/// kiosk's own local game (its screen shows the reason); an empty reason is refused first.
async fn rooms(owner: &Client, kiosk: &Client, r: &Round, problems: &mut Vec<String>) -> Outcome {
    let mut guest = xo_tests::room_over_protocol(
        &r.base,
        protocol::CreateRoom {
            game: engine::Game::Xo,
            opponent: protocol::OpponentRequest::Local {
                names: ["Lina".into(), "Adam".into()],
            },
            time_per_move_s: None,
        },
    )
    .await?;
    xo_tests::start_local_game(kiosk, &r.base).await?;
    set_lang(kiosk, r.lang).await?;
    let kiosk_room = xo_tests::path(kiosk)
        .await?
        .trim_start_matches("/kiosk/room/")
        .to_owned();
    let open: Vec<String> = http(&r.base, "GET", "/api/rooms", None, None)
        .await?
        .json()
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|room| room["id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let ws_room = open
        .iter()
        .find(|id| **id != kiosk_room)
        .cloned()
        .ok_or("the protocol's room is open")?;

    open_section(owner, &r.base, "rooms").await?;
    let row = |id: &str| format!("#owner-room-list [data-room='{id}']");
    wait_text(owner, &row(&ws_room), "").await?;
    if r.layout {
        owner_layout(owner, "owner-rooms", r.lang, r.size, problems).await?;
    }
    // An empty reason: refused on the page, the room stays.
    click(owner, &format!("#close-room-{ws_room}")).await?;
    type_into(owner, &format!("#close-reason-{ws_room}"), " ").await?;
    click(owner, &format!("#close-room-{ws_room}-yes")).await?;
    let text = said_text(owner, "#rooms-said").await?;
    assert_worded(&text, "an empty reason");
    let still = http(&r.base, "GET", "/api/rooms", None, None).await?.json();
    assert!(
        still
            .as_array()
            .is_some_and(|a| a.iter().any(|x| x["id"] == ws_room.as_str())),
        "a refused close leaves the room open"
    );

    let reason = if r.lang == "ar" {
        "نغلق الليلة، عودوا غدًا"
    } else {
        "Closing for the night"
    };
    for room in [&ws_room, &kiosk_room] {
        click(owner, &format!("#close-room-{room}")).await?;
        type_into(owner, &format!("#close-reason-{room}"), reason).await?;
        click(owner, &format!("#close-room-{room}-yes")).await?;
        wait_text(owner, "#rooms-said", reason).await?;
    }
    // The WebSocket's players are told why.
    let told = tokio::time::timeout(std::time::Duration::from_secs(10), async {
        loop {
            match guest.recv().await {
                Ok(protocol::ServerMsg::Event(protocol::Event::RoomClosed {
                    reason: why, ..
                })) => break Ok(why),
                Ok(_) => continue,
                Err(e) => break Err(e.to_string()),
            }
        }
    })
    .await
    .map_err(|_| "no room_closed within 10 s".to_owned())??;
    assert_eq!(
        told,
        protocol::CloseReason::Owner {
            message: reason.to_owned()
        }
    );
    // So is the kiosk's screen, back on its home.
    xo_tests::wait_path_is(kiosk, "/kiosk").await?;
    wait_text(kiosk, "#notice", reason).await?;
    let left = http(&r.base, "GET", "/api/rooms", None, None).await?.json();
    assert!(
        left.as_array().is_some_and(|a| a
            .iter()
            .all(|x| x["id"] != ws_room.as_str() && x["id"] != kiosk_room.as_str())),
        "both rooms are closed: {left}"
    );
    Ok(())
}

/// Seasons: the confirmation says what happens; the season moves on; the archive links to
/// its leaderboard.
async fn seasons(owner: &Client, r: &Round, problems: &mut Vec<String>) -> Outcome {
    let before = http(&r.base, "GET", "/api/seasons", None, None)
        .await?
        .json();
    let current = before["current"].as_u64().ok_or("a current season")?;
    open_section(owner, &r.base, "seasons").await?;
    said_text(owner, "#season-current").await?;
    click(owner, "#new-season").await?;
    let question = said_text(owner, "#new-season-question").await?;
    if r.lang == "en" {
        assert!(
            question.contains("archived") && question.contains("1200"),
            "{question}"
        );
    }
    if r.layout {
        owner_layout(owner, "owner-seasons", r.lang, r.size, problems).await?;
    }
    click(owner, "#new-season-yes").await?;
    said_text(owner, "#seasons-said").await?;
    let after = http(&r.base, "GET", "/api/seasons", None, None)
        .await?
        .json();
    assert_eq!(after["current"].as_u64(), Some(current + 1));
    assert!(
        after["archived"]
            .as_array()
            .is_some_and(|a| a.iter().any(|s| s["number"].as_u64() == Some(current))),
        "season {current} is archived: {after}"
    );
    click(
        owner,
        &format!(
            "#season-list [data-season='{current}'] a[href='/leaderboard/xo/season/{current}']"
        ),
    )
    .await?;
    xo_tests::wait_path_is(owner, &format!("/leaderboard/xo/season/{current}")).await?;
    said_text(owner, "#season-title").await?;
    Ok(())
}

/// Backup and restore: the download link serves a backup file; a bad file is refused in words;
/// a good one is previewed, then restored after a confirmation, the replaced data kept.
async fn backup(owner: &Client, r: &Round, cookie: &str, problems: &mut Vec<String>) -> Outcome {
    open_section(owner, &r.base, "backup").await?;
    // The page shows the link once it knows the reader is an owner.
    let link = eventually("a download link", || async {
        xo_tests::attr_of(owner, "#backup-download", "href").await
    })
    .await?;
    assert!(
        xo_tests::attr_of(owner, "#backup-download", "download")
            .await
            .is_some(),
        "the link downloads"
    );
    let file = http(&r.base, "GET", &link, Some(cookie), None).await?;
    assert_eq!(file.status, 200);
    assert!(
        file.header("content-disposition")
            .is_some_and(|d| d.starts_with("attachment") && d.contains(".xokb")),
        "a file to save"
    );
    assert!(file.body.starts_with(b"{\"format\":\"xo-kiosk-backup\""));
    let dir = tempfile::tempdir()?;
    let good = dir.path().join("kiosk.xokb");
    let bad = dir.path().join("holiday-photo.xokb");
    std::fs::write(&good, &file.body)?;
    std::fs::write(&bad, b"not a backup at all")?;
    // Made after the backup: the restore takes it away.
    let late = format!("late_{}", r.lang);
    xo_client::register(&r.base, &late, PASSWORD)
        .await
        .map_err(|e| e.to_string())?;

    let input = owner.find(Locator::Css("#restore-file")).await?;
    input.send_keys(&bad.display().to_string()).await?;
    let refused = said_text(owner, "#restore-said").await?;
    assert_worded(&refused, "a bad backup");
    if r.lang == "en" {
        assert!(refused.contains("Nothing was changed"), "{refused}");
    }
    let input = owner.find(Locator::Css("#restore-file")).await?;
    input.send_keys(&good.display().to_string()).await?;
    let preview = said_text(owner, "#restore-preview").await?;
    let users = http(&r.base, "GET", "/api/owner/users", Some(cookie), None)
        .await?
        .json()["users"]
        .as_array()
        .map_or(0, Vec::len);
    if r.lang == "en" {
        // Every account but the one made after the backup.
        assert!(
            preview.contains(&format!("{} accounts", users - 1)),
            "{preview}"
        );
    }
    click(owner, "#restore").await?;
    said_text(owner, "#restore-question").await?;
    if r.layout {
        owner_layout(owner, "owner-backup", r.lang, r.size, problems).await?;
    }
    click(owner, "#restore-yes").await?;
    let done = said_text(owner, "#restore-done").await?;
    assert!(done.contains("backups/before-restore-"), "{done}");
    assert!(
        done.contains(".xokb"),
        "the page names the kept file: {done}"
    );
    // Everyone is signed out; the data is the backup's.
    let me = http(&r.base, "GET", "/api/owner", Some(cookie), None).await?;
    assert_eq!(me.status, 401, "a restore signs everyone out");
    let late_profile = http(&r.base, "GET", &format!("/api/users/{late}"), None, None).await?;
    assert_eq!(late_profile.status, 404, "the restore replaced the data");
    let boss = http(
        &r.base,
        "GET",
        &format!("/api/users/{}", r.boss),
        None,
        None,
    )
    .await?;
    assert_eq!(boss.status, 200, "the backup's accounts are back");
    Ok(())
}

/// Update: the status, two uploads refused in words, and (last) a restart. Health: version,
/// uptime, storage and the recent warnings.
async fn update_and_health(
    owner: &Client,
    r: &Round,
    cookie: &str,
    problems: &mut Vec<String>,
) -> Outcome {
    let version = http(&r.base, "GET", "/api/health", None, None)
        .await?
        .json()["version"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    open_section(owner, &r.base, "update").await?;
    wait_text(owner, "#update-running", &version).await?;
    let dir = tempfile::tempdir()?;
    let text_file = dir.path().join("notes.txt");
    std::fs::write(&text_file, b"just some notes")?;
    // The start of a real server binary: an ELF for this machine that cannot run.
    let elf = dir.path().join("firmware-host-cut");
    let whole = std::fs::read(xo_tests::server_binary())?;
    std::fs::write(&elf, &whole[..64 * 1024])?;
    let refusals = if r.lang == "ar" {
        [(&text_file, "ليس برنامجًا"), (&elf, "لم يعمل هذا البرنامج")]
    } else {
        [(&text_file, "not a program"), (&elf, "did not start")]
    };
    for (file, words) in refusals {
        let input = owner.find(Locator::Css("#update-file")).await?;
        input.send_keys(&file.display().to_string()).await?;
        click(owner, "#update-upload").await?;
        let text = wait_text(owner, "#update-said", words).await?;
        assert_worded(&text, "an update refusal");
    }
    let status = http(&r.base, "GET", "/api/owner/update", Some(cookie), None)
        .await?
        .json();
    assert_eq!(
        status["installed"],
        serde_json::json!([]),
        "nothing refused is kept"
    );
    if r.layout {
        owner_layout(owner, "owner-update", r.lang, r.size, problems).await?;
    }

    open_section(owner, &r.base, "health").await?;
    wait_text(owner, "#health-version", &version).await?;
    said_text(owner, "#health-uptime").await?;
    let storage = said_text(owner, "#health-storage").await?;
    if r.lang == "en" {
        assert!(storage.contains("B used"), "{storage}");
    }
    // The wrong owner code of the claim was logged as a warning.
    let errors = said_text(owner, "#health-errors").await?;
    assert!(errors.contains("owner code refused"), "{errors}");
    let held = http(&r.base, "GET", "/api/owner/health", Some(cookie), None)
        .await?
        .json();
    assert!(
        held["recent_errors"]
            .as_array()
            .is_some_and(|a| !a.is_empty())
    );
    if r.layout {
        owner_layout(owner, "owner-health", r.lang, r.size, problems).await?;
    }

    if r.restart {
        open_section(owner, &r.base, "update").await?;
        click(owner, "#restart").await?;
        said_text(owner, "#restart-question").await?;
        click(owner, "#restart-yes").await?;
        said_text(owner, "#restarting").await?;
        // The server stops (the image's service would start it again).
        let host = r.base.trim_start_matches("http://").to_owned();
        eventually("the server to stop", || async {
            tokio::net::TcpStream::connect(host.as_str())
                .await
                .is_err()
                .then_some(())
        })
        .await?;
    }
    Ok(())
}

async fn owner_round(clients: Vec<Client>, r: Round) -> Outcome {
    let (kiosk, owner, player) = (&clients[0], &clients[1], &clients[2]);
    let mut problems = Vec::new();
    let code = owner_code_from_the_kiosk(kiosk, &r.base, r.lang).await?;
    become_owner(owner, &r.base, r.lang, &r.boss, &code).await?;
    let cookie = session_cookie(owner).await?;
    hub(owner, &r, &cookie, &mut problems).await?;
    players(owner, player, &r, &cookie, &mut problems).await?;
    rooms(owner, kiosk, &r, &mut problems).await?;
    seasons(owner, &r, &mut problems).await?;
    backup(owner, &r, &cookie, &mut problems).await?;
    // The restore signed the owner out: back in with the backup's account.
    sign_in(owner, &r.base, &r.boss, PASSWORD).await?;
    let cookie = session_cookie(owner).await?;
    update_and_health(owner, &r, &cookie, &mut problems).await?;
    report(&problems)
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn an_owner_runs_every_owner_page_from_the_kiosk_code_in_both_languages() {
    let server = Server::start(600).await;
    let driver = Driver::start().await;
    let rounds = [("en", KIOSK, None), ("ar", TALL_PHONE, Some("boss_en"))];
    let last = rounds.len() - 1;
    for (i, (lang, size, earlier)) in rounds.into_iter().enumerate() {
        let round = Round {
            base: server.base.clone(),
            lang,
            size,
            boss: format!("boss_{lang}"),
            earlier_owner: earlier.map(str::to_owned),
            layout: i == 0,
            restart: i == last,
        };
        run_sessions(
            &driver,
            &format!("owner-walk-{lang}"),
            &[KIOSK, size, size],
            move |clients| owner_round(clients, round),
        )
        .await;
    }
}
