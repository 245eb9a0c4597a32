//! Sign in and register (A1), with the rules checked before sending and the server's answer
//! shown in words; and a new password with a reset code from the kiosk's owner (SPEC O2). Not
//! offered on the kiosk (U7).

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::api;
use crate::credentials::{CredentialError, api_error_text, check};
use crate::i18n::T;
use crate::route::Route;
use crate::state::Action;

use super::context::use_ctx;
use super::navbar::Navbar;

#[component]
pub fn SignIn() -> Html {
    let ctx = use_ctx();
    let register = use_state(|| false);
    let reset = use_state(|| false);
    let username = use_state(String::new);
    let password = use_state(String::new);
    let errors = use_state(Vec::<CredentialError>::new);
    let server_error = use_state(|| None::<T>);
    let busy = use_state(|| false);

    // Until `/api/me` answers, neither the form nor "signed in as" is shown: a signed-in
    // player would otherwise see the form flash and could type into it.
    if ctx.state.account.is_none() {
        return html! {
            <>
                <Navbar title={AttrValue::from(ctx.t(T::SignInTitle))} />
                <main id="main" class="page narrow">
                    <p class="note" aria-live="polite">{ ctx.t(T::Loading) }</p>
                </main>
            </>
        };
    }
    if let Some(Some(account)) = &ctx.state.account {
        let ctx2 = ctx.clone();
        let sign_out = {
            let busy = busy.clone();
            Callback::from(move |_| {
                let ctx = ctx2.clone();
                let busy = busy.clone();
                busy.set(true);
                wasm_bindgen_futures::spawn_local(async move {
                    // Signing out succeeds locally even if the server is unreachable: the
                    // cookie is cleared when it answers.
                    if api::logout().await.is_ok() {
                        ctx.dispatch(Action::Account(None));
                        ctx.reconnect.emit(());
                    }
                    busy.set(false);
                });
            })
        };
        return html! {
            <>
                <Navbar title={AttrValue::from(ctx.t(T::SignInTitle))} />
                <main id="main" class="page narrow">
                    <p id="signed-in">{ ctx.lang().f(T::SignedInAs, &[&account.username]) }</p>
                    <button type="button" id="sign-out" disabled={*busy} onclick={sign_out}>{ ctx.t(T::NavSignOut) }</button>
                </main>
            </>
        };
    }

    if *reset {
        let back = {
            let reset = reset.clone();
            Callback::from(move |()| reset.set(false))
        };
        return html! {
            <>
                <Navbar title={AttrValue::from(ctx.t(T::ResetTitle))} />
                <main id="main" class="page narrow"><ResetForm {back} /></main>
            </>
        };
    }

    let field = |state: &UseStateHandle<String>| {
        let state = state.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            state.set(input.value());
        })
    };
    let onsubmit = {
        let ctx = ctx.clone();
        let (register, username, password) = (register.clone(), username.clone(), password.clone());
        let (errors, server_error, busy) = (errors.clone(), server_error.clone(), busy.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let found = check(&username, &password);
            errors.set(found.clone());
            server_error.set(None);
            if !found.is_empty() {
                return;
            }
            busy.set(true);
            let (ctx, name, pass, reg) = (
                ctx.clone(),
                username.trim().to_owned(),
                (*password).clone(),
                *register,
            );
            let (server_error, busy) = (server_error.clone(), busy.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match api::login(&name, &pass, reg).await {
                    Ok(account) => {
                        ctx.dispatch(Action::Account(Some(account)));
                        // A new connection carries the new session cookie to the server.
                        ctx.reconnect.emit(());
                        ctx.navigate(Route::Home);
                    }
                    Err(e) => server_error.set(Some(api_error_text(e.code))),
                }
                busy.set(false);
            });
        })
    };
    let switch = {
        let register = register.clone();
        let errors = errors.clone();
        Callback::from(move |_| {
            register.set(!*register);
            errors.set(Vec::new());
        })
    };
    let title = if *register {
        T::RegisterTitle
    } else {
        T::SignInTitle
    };
    let user_bad = errors.contains(&CredentialError::Username);
    let pass_bad = errors.contains(&CredentialError::Password);
    html! {
        <>
            <Navbar title={AttrValue::from(ctx.t(title))} />
            <main id="main" class="page narrow">
                <form id="signin-form" class="signin" {onsubmit} novalidate=true>
                    <h2>{ ctx.t(title) }</h2>
                    <div class="field">
                        <label for="username">{ ctx.t(T::Username) }</label>
                        <input id="username" name="username" autocomplete="username" autocapitalize="none"
                            value={(*username).clone()} oninput={field(&username)}
                            aria-invalid={user_bad.to_string()} aria-describedby="username-help" />
                        <p class="help" id="username-help">{ ctx.t(T::UsernameHelp) }</p>
                    </div>
                    <div class="field">
                        <label for="password">{ ctx.t(T::Password) }</label>
                        <input id="password" name="password" type="password"
                            autocomplete={if *register { "new-password" } else { "current-password" }}
                            value={(*password).clone()} oninput={field(&password)}
                            aria-invalid={pass_bad.to_string()} aria-describedby="password-help" />
                        <p class="help" id="password-help">{ ctx.t(T::PasswordHelp) }</p>
                    </div>
                    <div class="errors" id="signin-errors" role="alert">
                        { for errors.iter().map(|e| html! { <p class="error">{ ctx.t(e.text()) }</p> }) }
                        if let Some(t) = *server_error { <p class="error">{ ctx.t(t) }</p> }
                    </div>
                    <button type="submit" class="primary big" id="signin-submit" disabled={*busy}>{ ctx.t(title) }</button>
                    <button type="button" class="link-button" id="signin-switch" onclick={switch}>
                        { ctx.t(if *register { T::HaveAccount } else { T::NoAccount }) }
                    </button>
                    if !*register {
                        <button type="button" class="link-button" id="signin-reset"
                            onclick={Callback::from(move |_| reset.set(true))}>{ ctx.t(T::HaveResetCode) }</button>
                    }
                </form>
            </main>
        </>
    }
}

#[derive(Debug, Properties, PartialEq)]
struct ResetProps {
    /// Back to the sign-in form.
    back: Callback<()>,
}

/// Username, the owner's reset code and a new password (A1's rules checked first); on success
/// the player is signed in, as after a sign-in.
#[component]
fn ResetForm(props: &ResetProps) -> Html {
    let ctx = use_ctx();
    let username = use_state(String::new);
    let code = use_state(String::new);
    let password = use_state(String::new);
    let errors = use_state(Vec::<CredentialError>::new);
    let server_error = use_state(|| None::<T>);
    let busy = use_state(|| false);
    let onsubmit = {
        let ctx = ctx.clone();
        let (username, code, password) = (username.clone(), code.clone(), password.clone());
        let (errors, server_error, busy) = (errors.clone(), server_error.clone(), busy.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let found = check(&username, &password);
            errors.set(found.clone());
            server_error.set(None);
            if !found.is_empty() {
                return;
            }
            busy.set(true);
            let (ctx, name, typed, pass) = (
                ctx.clone(),
                username.trim().to_owned(),
                (*code).clone(),
                (*password).clone(),
            );
            let (server_error, busy) = (server_error.clone(), busy.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match api::login_with_reset_code(&name, &typed, &pass).await {
                    Ok(account) => {
                        ctx.dispatch(Action::Account(Some(account)));
                        ctx.reconnect.emit(());
                        ctx.navigate(Route::Home);
                    }
                    Err(e) => server_error.set(Some(super::owner::error_text(&e))),
                }
                busy.set(false);
            });
        })
    };
    let user_bad = errors.contains(&CredentialError::Username);
    let pass_bad = errors.contains(&CredentialError::Password);
    let back = props.back.reform(|_: MouseEvent| ());
    html! {
        <form id="reset-form" class="signin" {onsubmit} novalidate=true>
            <h2>{ ctx.t(T::ResetTitle) }</h2>
            <p class="note">{ ctx.t(T::ResetHelp) }</p>
            <div class="field">
                <label for="reset-username">{ ctx.t(T::Username) }</label>
                <input id="reset-username" autocomplete="username" autocapitalize="none"
                    value={(*username).clone()} oninput={super::owner::input_value(&username)}
                    aria-invalid={user_bad.to_string()} />
            </div>
            <div class="field">
                <label for="reset-code-input">{ ctx.t(T::ResetCodeLabel) }</label>
                <input id="reset-code-input" inputmode="numeric" autocomplete="one-time-code" dir="ltr"
                    value={(*code).clone()} oninput={super::owner::input_value(&code)} />
            </div>
            <div class="field">
                <label for="reset-password">{ ctx.t(T::NewPassword) }</label>
                <input id="reset-password" type="password" autocomplete="new-password"
                    value={(*password).clone()} oninput={super::owner::input_value(&password)}
                    aria-invalid={pass_bad.to_string()} aria-describedby="reset-password-help" />
                <p class="help" id="reset-password-help">{ ctx.t(T::PasswordHelp) }</p>
            </div>
            <div class="errors" id="reset-errors" role="alert">
                { for errors.iter().map(|e| html! { <p class="error">{ ctx.t(e.text()) }</p> }) }
                if let Some(t) = *server_error { <p class="error">{ ctx.t(t) }</p> }
            </div>
            <button type="submit" class="primary big" id="reset-submit" disabled={*busy}>{ ctx.t(T::ResetSubmit) }</button>
            <button type="button" class="link-button" id="reset-back" onclick={back}>{ ctx.t(T::BackToSignIn) }</button>
        </form>
    }
}
