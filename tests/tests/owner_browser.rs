//! Owner mode in the browser (SPEC O1, issue 16.1, 11.5), in English and Arabic: a long press
//! on the kiosk's home (800×480) shows a one-time owner code; a phone signed in to an account
//! enters it on /owner and becomes an owner; a player deletes their account from the profile
//! page behind its confirmation. Run by `scripts/test-browser`.

use fantoccini::{Client, Locator};
use xo_tests::{
    Driver, Outcome, Server, click, eventually, js, open_live, register, run_session,
    save_screenshot, set_lang, text_of, type_into, wait_text,
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
