//! The kiosk's discreet owner control (SPEC O1): a long press on a heading of the kiosk's home
//! asks the server for a one-time owner code (it answers only the kiosk itself) and shows it
//! until it is closed or expires.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::timers::callback::Timeout;
use yew::prelude::*;

use crate::api;
use crate::i18n::T;

use super::context::use_ctx;

/// How long the heading must be held.
const HOLD_MS: u32 = 800;

#[derive(Debug, Properties, PartialEq)]
pub struct OwnerCodeProps {
    pub text: AttrValue,
}

#[derive(Debug, Clone, PartialEq)]
enum Shown {
    Hidden,
    Code { code: String, minutes: u64 },
    Failed,
}

#[component]
pub fn OwnerCodeHeading(props: &OwnerCodeProps) -> Html {
    let ctx = use_ctx();
    let shown = use_state(|| Shown::Hidden);
    let hold = use_mut_ref(|| None::<Timeout>);
    let expiry: Rc<RefCell<Option<Timeout>>> = use_mut_ref(|| None);

    let start = {
        let (shown, hold, expiry) = (shown.clone(), hold.clone(), expiry.clone());
        Callback::from(move |_: PointerEvent| {
            let (shown, expiry) = (shown.clone(), expiry.clone());
            *hold.borrow_mut() = Some(Timeout::new(HOLD_MS, move || {
                wasm_bindgen_futures::spawn_local(async move {
                    match api::kiosk_owner_code().await {
                        Ok(answer) => {
                            let hide = shown.clone();
                            let ms = u32::try_from(answer.expires_s.saturating_mul(1000))
                                .unwrap_or(u32::MAX);
                            *expiry.borrow_mut() =
                                Some(Timeout::new(ms, move || hide.set(Shown::Hidden)));
                            shown.set(Shown::Code {
                                code: answer.code,
                                minutes: answer.expires_s / 60,
                            });
                        }
                        Err(_) => shown.set(Shown::Failed),
                    }
                });
            }));
        })
    };
    let stop = {
        let hold = hold.clone();
        Callback::from(move |_: PointerEvent| {
            // Dropping the timer cancels it: the press was too short.
            hold.borrow_mut().take();
        })
    };
    let close = {
        let (shown, expiry) = (shown.clone(), expiry.clone());
        Callback::from(move |_: MouseEvent| {
            expiry.borrow_mut().take();
            shown.set(Shown::Hidden);
        })
    };
    // A long touch would otherwise open the browser's context menu.
    let no_menu = Callback::from(|e: MouseEvent| e.prevent_default());
    let dialog = match &*shown {
        Shown::Hidden => Html::default(),
        Shown::Code { code, minutes } => {
            let grouped = format!(
                "{} {}",
                &code[..4.min(code.len())],
                &code[4.min(code.len())..]
            );
            html! {
                <div class="owner-code-dialog panel" id="owner-code-dialog" role="dialog"
                    aria-modal="true" aria-labelledby="owner-code-title">
                    <h2 id="owner-code-title">{ ctx.t(T::OwnerCodeTitle) }</h2>
                    <p class="owner-code" id="owner-code" dir="ltr">{ grouped }</p>
                    <p>{ ctx.lang().f(T::OwnerCodeHelp, &[&ctx.lang().num(*minutes)]) }</p>
                    <button type="button" id="owner-code-close" onclick={close}>{ ctx.t(T::Close) }</button>
                </div>
            }
        }
        Shown::Failed => html! {
            <div class="owner-code-dialog panel" id="owner-code-dialog" role="alertdialog"
                aria-modal="true" aria-labelledby="owner-code-title">
                <h2 id="owner-code-title">{ ctx.t(T::OwnerCodeFailed) }</h2>
                <button type="button" id="owner-code-close" onclick={close}>{ ctx.t(T::Close) }</button>
            </div>
        },
    };
    html! {
        <>
            <h2 id="owner-code-hold" class="owner-hold" onpointerdown={start}
                onpointerup={stop.clone()} onpointerleave={stop.clone()} onpointercancel={stop}
                oncontextmenu={no_menu}>{ props.text.clone() }</h2>
            { dialog }
        </>
    }
}
