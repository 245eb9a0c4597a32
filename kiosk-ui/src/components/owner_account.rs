//! Deleting one's own account from the profile page, behind a confirmation that
//! asks for the password.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::api;
use crate::credentials::api_error_text;
use crate::i18n::T;
use crate::route::Route;
use crate::state::Action;

use super::context::use_ctx;

#[component]
pub fn DeleteAccountBox() -> Html {
    let ctx = use_ctx();
    let open = use_state(|| false);
    let password = use_state(String::new);
    let error = use_state(|| None::<T>);
    let busy = use_state(|| false);
    if !*open {
        let open = open.clone();
        return html! {
            <p><button type="button" class="danger" id="delete-account"
                onclick={Callback::from(move |_| open.set(true))}>{ ctx.t(T::DeleteAccount) }</button></p>
        };
    }
    let oninput = {
        let password = password.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            password.set(input.value());
        })
    };
    let onsubmit = {
        let (ctx, password, error, busy) =
            (ctx.clone(), password.clone(), error.clone(), busy.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            busy.set(true);
            let (ctx, pass, error, busy) = (
                ctx.clone(),
                (*password).clone(),
                error.clone(),
                busy.clone(),
            );
            wasm_bindgen_futures::spawn_local(async move {
                match api::delete_me(&pass).await {
                    Ok(_) => {
                        ctx.dispatch(Action::Account(None));
                        ctx.reconnect.emit(());
                        ctx.navigate(Route::Home);
                    }
                    Err(e) => error.set(Some(api_error_text(e.code))),
                }
                busy.set(false);
            });
        })
    };
    let cancel = {
        let (open, error) = (open.clone(), error.clone());
        Callback::from(move |_| {
            error.set(None);
            open.set(false);
        })
    };
    html! {
        <form class="panel delete-account" id="delete-account-form" {onsubmit} novalidate=true>
            <h2>{ ctx.t(T::DeleteAccount) }</h2>
            <p>{ ctx.t(T::DeleteAccountWarn) }</p>
            <div class="field">
                <label for="delete-password">{ ctx.t(T::Password) }</label>
                <input id="delete-password" type="password" autocomplete="current-password"
                    value={(*password).clone()} {oninput} />
            </div>
            <div class="errors" id="delete-errors" role="alert">
                if let Some(t) = *error { <p class="error">{ ctx.t(t) }</p> }
            </div>
            <button type="submit" class="danger" id="delete-confirm" disabled={*busy}>{ ctx.t(T::DeleteAccountConfirm) }</button>
            <button type="button" class="link-button" id="delete-cancel" onclick={cancel}>{ ctx.t(T::DeleteAccountCancel) }</button>
        </form>
    }
}
