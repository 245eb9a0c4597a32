//! The password change on one's own profile page. The current
//! password is required (a wrong one is refused in words, nothing changes); after the change
//! this browser stays signed in and another browser signed in to the same account is signed
//! out (its WebSocket comes back as a guest and the page says so without a reload); the new
//! password signs in, the old one does not. Run by `scripts/test-browser password`.

use xo_tests::webdriver::Client;
use xo_tests::{
    Driver, Outcome, Server, check_layout_matrix, click, eventually, open_live, register,
    run_sessions, set_lang, text_of, type_into, wait_text,
};

const PHONE: (u32, u32) = (360, 640);
const KIOSK: (u32, u32) = (800, 480);

/// `register` gives every player this password.
const FIRST: &str = "password123";
const SECOND: &str = "a-new-secret-42";

async fn sign_in(c: &Client, base: &str, name: &str, password: &str) -> Outcome {
    open_live(c, &format!("{base}/signin")).await?;
    type_into(c, "#username", name).await?;
    type_into(c, "#password", password).await?;
    click(c, "#signin-submit").await?;
    Ok(())
}

async fn navbar_names(c: &Client, name: &str) -> Option<bool> {
    Some(text_of(c, ".navbar").await?.contains(name))
}

#[tokio::test]
#[ignore = "needs Chromium and the UI-built server: scripts/test-browser"]
async fn password_change_needs_the_current_password_and_signs_other_browsers_out() {
    let server = Server::start(120).await;
    let driver = Driver::start().await;
    let base = server.base.clone();
    run_sessions(
        &driver,
        "password",
        &[PHONE, KIOSK],
        move |sessions| async move {
            let (mine, other) = (&sessions[0], &sessions[1]);
            register(mine, &base, "pia").await?;
            sign_in(other, &base, "pia", FIRST).await?;
            eventually("the other browser signed in", || async {
                navbar_names(other, "pia").await?.then_some(())
            })
            .await?;

            open_live(mine, &format!("{base}/profile/pia")).await?;
            // A wrong current password is refused; nothing changes.
            type_into(mine, "#old-password", "not-my-password").await?;
            type_into(mine, "#new-password", SECOND).await?;
            click(mine, "#password-submit").await?;
            wait_text(mine, "#password-errors", "current password is wrong").await?;
            assert!(
                navbar_names(other, "pia").await.unwrap_or(false),
                "nobody signed out"
            );
            // A new password that breaks A1 is refused before it is sent.
            type_into(mine, "#old-password", FIRST).await?;
            type_into(mine, "#new-password", "short").await?;
            click(mine, "#password-submit").await?;
            wait_text(mine, "#password-errors", "8 to 128").await?;
            // The right one changes it.
            type_into(mine, "#new-password", SECOND).await?;
            click(mine, "#password-submit").await?;
            wait_text(mine, "#password-status", "Password changed").await?;
            assert_eq!(
                text_of(mine, "#password-errors").await.unwrap_or_default(),
                "",
                "no error left"
            );

            // The other browser is signed out without a reload; this one stays signed in.
            eventually("the other browser signed out", || async {
                (!navbar_names(other, "pia").await?).then_some(())
            })
            .await?;
            open_live(mine, &format!("{base}/")).await?;
            // The navbar names the account once the page has asked for its session.
            eventually("still signed in here", || async {
                navbar_names(mine, "pia").await?.then_some(())
            })
            .await?;

            // The old password no longer signs in; the new one does.
            sign_in(other, &base, "pia", FIRST).await?;
            wait_text(other, "#signin-errors", "Wrong username or password").await?;
            sign_in(other, &base, "pia", SECOND).await?;
            eventually("signed in with the new password", || async {
                navbar_names(other, "pia").await?.then_some(())
            })
            .await?;

            // The form in Arabic, and at every screen size in both languages.
            open_live(other, &format!("{base}/profile/pia")).await?;
            set_lang(other, "ar").await?;
            wait_text(other, "#password-form h2", "تغيير كلمة المرور").await?;
            type_into(other, "#old-password", "not-my-password").await?;
            type_into(other, "#new-password", FIRST).await?;
            click(other, "#password-submit").await?;
            wait_text(other, "#password-errors", "كلمة المرور الحالية غير صحيحة").await?;
            set_lang(other, "en").await?;
            let problems = check_layout_matrix(other, "profile-password", KIOSK).await?;
            assert!(problems.is_empty(), "{problems:#?}");
            Ok(())
        },
    )
    .await;
}
