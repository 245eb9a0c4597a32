//! The owner's settings page in the browser, against the real server: an owner on
//! a phone sees the kiosk's settings with their current values, a bad idle time is refused in
//! words, then the owner saves a new default language and idle time; `/api/config` serves them
//! and a fresh kiosk page opens in that language; a visitor's switch is remembered across a
//! reload until the new idle time passes, then the kiosk is back in the default language. The
//! page is checked at every size in English and Arabic. Run by `scripts/test-browser`.

use xo_tests::webdriver::Client;
use xo_tests::{
    Driver, Outcome, Server, assert_in_view, check_layout_matrix, click, eventually, js, open_live,
    register, report, run_session, save_screenshot, set_lang, set_viewport, text_of, type_into,
    wait_js, wait_text,
};

const KIOSK: (u32, u32) = (800, 480);
const PHONE: (u32, u32) = (360, 640);

/// A JSON answer of `path`, fetched by the page (with its cookies).
async fn fetch_json(client: &Client, path: &str) -> Result<serde_json::Value, String> {
    js(
        client,
        &format!("return fetch('{path}').then(r => r.json());"),
    )
    .await
}

/// Registers `name` on the phone and makes it an owner with a code the kiosk's own endpoint
/// gives (the browser runs on the kiosk's machine), entered on `/owner`.
async fn become_owner(phone: &Client, base: &str, name: &str) -> Outcome {
    register(phone, base, name).await?;
    let code = js(
        phone,
        "return fetch('/api/kiosk/owner-code', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'}).then(r => r.json()).then(j => j.code);",
    )
    .await?;
    let code = code.as_str().ok_or("no owner code")?.to_owned();
    open_live(phone, &format!("{base}/owner")).await?;
    type_into(phone, "#owner-code-input", &code).await?;
    click(phone, "#owner-claim").await?;
    wait_text(phone, "#owner-list", name).await?;
    Ok(())
}

async fn value_of(client: &Client, css: &str) -> Result<serde_json::Value, String> {
    js(
        client,
        &format!("return document.querySelector('{css}')?.value ?? null;"),
    )
    .await
}

/// At 800 × 480 the form is taller than the screen: the save button stays in view at the top
/// of the page and scrolled to the middle, and the language's legend starts where the fields'
/// labels start (left in English, right in Arabic). Leaves the phone's size, in English.
async fn save_stays_in_view_and_labels_line_up(phone: &Client) -> Outcome {
    set_viewport(phone, KIOSK.0, KIOSK.1).await?;
    for lang in ["en", "ar"] {
        set_lang(phone, lang).await?;
        for scroll in ["0", "document.body.scrollHeight / 3"] {
            js(phone, &format!("window.scrollTo(0, {scroll}); return 0;")).await?;
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            assert_in_view(phone, "#settings-save", f64::from(KIOSK.1)).await?;
        }
        save_screenshot(phone, &format!("owner-settings-save-in-view-{lang}")).await;
        let edges = js(
            phone,
            "const e = (css) => document.querySelector(css).getBoundingClientRect(); \
             const rtl = document.documentElement.dir === 'rtl'; \
             const edge = (r) => rtl ? r.right : r.left; \
             return [edge(e('#settings-language legend')), edge(e('label[for=settings-idle]')), \
                     edge(e('#settings-wifi legend'))];",
        )
        .await?;
        let at = |i: usize| edges[i].as_f64().unwrap_or(f64::NAN);
        assert!(
            (at(0) - at(1)).abs() < 0.5 && (at(2) - at(1)).abs() < 0.5,
            "{lang}: the legends start where the labels do: {edges}"
        );
    }
    js(phone, "window.scrollTo(0, 0); return 0;").await?;
    set_lang(phone, "en").await?;
    set_viewport(phone, PHONE.0, PHONE.1).await?;
    Ok(())
}

async fn owner_changes_the_settings(phone: Client, base: String) -> Outcome {
    become_owner(&phone, &base, "boss").await?;
    open_live(&phone, &format!("{base}/owner/settings")).await?;
    // The current values: the flags' (the server started with --kiosk-idle 600).
    eventually("the settings form", || async {
        (value_of(&phone, "#settings-idle").await.ok()? == "600").then_some(())
    })
    .await?;
    let checked = js(
        &phone,
        "return document.querySelector('#settings-lang-en').checked;",
    )
    .await?;
    assert_eq!(checked, serde_json::json!(true), "English is the default");
    assert_eq!(value_of(&phone, "#settings-wifi-ssid").await?, "");

    let problems = check_layout_matrix(&phone, "owner-settings", PHONE).await?;
    report(&problems)?;
    save_stays_in_view_and_labels_line_up(&phone).await?;

    // A bad idle time, in Arabic: refused in words, nothing stored.
    set_lang(&phone, "ar").await?;
    type_into(&phone, "#settings-idle", "5").await?;
    click(&phone, "#settings-save").await?;
    let said = eventually("the refusal", || async {
        let text = text_of(&phone, "#settings-errors").await?;
        (!text.trim().is_empty()).then_some(text)
    })
    .await?;
    assert!(said.contains("3600") || said.contains("٣٦٠٠"), "{said}");
    assert!(
        said.chars().any(|c| ('\u{0600}'..='\u{06FF}').contains(&c)),
        "worded in Arabic: {said}"
    );
    let stored = fetch_json(&phone, "/api/owner/settings").await?;
    assert_eq!(stored["kiosk_idle_s"], 600, "{stored}");
    assert_eq!(stored["stored"], false, "{stored}");

    // The new default language and idle time.
    set_lang(&phone, "en").await?;
    type_into(&phone, "#settings-idle", "10").await?;
    click(&phone, "#settings-lang-ar").await?;
    click(&phone, "#settings-save").await?;
    wait_text(&phone, "#settings-saved", "Saved").await?;
    let config = fetch_json(&phone, "/api/config").await?;
    assert_eq!(config["kiosk_idle_s"], 10, "{config}");
    assert_eq!(config["default_language"], "ar", "{config}");
    // The page shows what is stored now.
    wait_text(&phone, "#settings-source", "Saved by an owner").await?;
    Ok(())
}

async fn a_fresh_kiosk_opens_in_the_default_language(kiosk: Client, base: String) -> Outcome {
    let lang_and_dir =
        "return [document.documentElement.lang, document.documentElement.dir].join(' ');";
    open_live(&kiosk, &format!("{base}/kiosk")).await?;
    wait_js(&kiosk, lang_and_dir, serde_json::json!("ar rtl")).await?;
    // A visitor switches to English: remembered across a reload (U6) ...
    set_lang(&kiosk, "en").await?;
    open_live(&kiosk, &format!("{base}/kiosk")).await?;
    wait_js(&kiosk, lang_and_dir, serde_json::json!("en ltr")).await?;
    // ... until the new idle time (10 s) passes: the next visitor gets the default again,
    // after a reload too.
    wait_js(&kiosk, lang_and_dir, serde_json::json!("ar rtl")).await?;
    open_live(&kiosk, &format!("{base}/kiosk")).await?;
    wait_js(&kiosk, lang_and_dir, serde_json::json!("ar rtl")).await?;
    Ok(())
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn an_owner_sets_the_default_language_and_idle_time_and_a_fresh_kiosk_follows() {
    let server = Server::start(600).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_session(&driver, "owner-settings-phone", PHONE, move |phone| {
        owner_changes_the_settings(phone, base)
    })
    .await;
    let base = server.base.clone();
    run_session(&driver, "owner-settings-kiosk", KIOSK, move |kiosk| {
        a_fresh_kiosk_opens_in_the_default_language(kiosk, base)
    })
    .await;
}
