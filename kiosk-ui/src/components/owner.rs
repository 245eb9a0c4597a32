//! The owner page (SPEC O1): a signed-in account enters the owner code the kiosk shows and
//! becomes an owner; an owner sees the kiosk's owners. Every action is checked by the server.

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::api::{self, ApiError};
use crate::credentials::api_error_text;
use crate::i18n::T;
use crate::route::Route;

use super::context::use_ctx;
use super::link::Link;
use super::navbar::Navbar;

#[component]
pub fn OwnerPage() -> Html {
    let ctx = use_ctx();
    // `None` while loading; `Some(Err)` with `not_owner` shows the claim form.
    let owners = use_state(|| None::<Result<protocol::http::Owners, ApiError>>);
    let code = use_state(String::new);
    let error = use_state(|| None::<T>);
    let busy = use_state(|| false);
    let signed_in = ctx.state.signed_in();
    {
        let owners = owners.clone();
        use_effect_with(signed_in, move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                owners.set(Some(api::owners().await));
            });
        });
    }
    let oninput = {
        let code = code.clone();
        Callback::from(move |e: InputEvent| {
            let input: HtmlInputElement = e.target_unchecked_into();
            code.set(input.value());
        })
    };
    let onsubmit = {
        let (owners, code, error, busy) =
            (owners.clone(), code.clone(), error.clone(), busy.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            busy.set(true);
            error.set(None);
            let (owners, typed, error, busy) =
                (owners.clone(), (*code).clone(), error.clone(), busy.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match api::claim_owner(&typed).await {
                    Ok(list) => owners.set(Some(Ok(list))),
                    Err(e) => error.set(Some(api_error_text(e.code))),
                }
                busy.set(false);
            });
        })
    };
    let body = match &*owners {
        _ if !signed_in => html! {
            <>
                <p id="owner-sign-in-first">{ ctx.t(T::OwnerSignInFirst) }</p>
                <p><Link to={Route::SignIn} class="text-link">{ ctx.t(T::SignInTitle) }</Link></p>
            </>
        },
        None => html! { <p role="status">{ ctx.t(T::Loading) }</p> },
        Some(Ok(list)) => html! {
            <section class="panel" id="owners">
                <p id="owner-you">{ ctx.t(T::OwnerYouAre) }</p>
                <h2>{ ctx.t(T::OwnersOfKiosk) }</h2>
                <ul id="owner-list">
                    { for list.owners.iter().map(|o| html! { <li><bdi>{ o.username.clone() }</bdi></li> }) }
                </ul>
            </section>
        },
        Some(Err(_)) => html! {
            <form class="signin" id="owner-claim-form" {onsubmit} novalidate=true>
                <p>{ ctx.t(T::OwnerClaimHelp) }</p>
                <div class="field">
                    <label for="owner-code-input">{ ctx.t(T::OwnerCodeLabel) }</label>
                    <input id="owner-code-input" inputmode="numeric" autocomplete="one-time-code"
                        dir="ltr" value={(*code).clone()} {oninput} />
                </div>
                <div class="errors" id="owner-errors" role="alert">
                    if let Some(t) = *error { <p class="error">{ ctx.t(t) }</p> }
                </div>
                <button type="submit" class="primary big" id="owner-claim" disabled={*busy}>{ ctx.t(T::OwnerClaim) }</button>
            </form>
        },
    };
    html! {
        <>
            <Navbar title={AttrValue::from(ctx.t(T::OwnerTitle))} />
            <main id="main" class="page narrow owner">{ body }</main>
        </>
    }
}
