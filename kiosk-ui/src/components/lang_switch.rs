//! The language switcher (U6), on every screen.

use yew::prelude::*;

use crate::i18n::{Lang, T};
use crate::state::Action;

use super::context::use_ctx;

#[component]
pub fn LangSwitch() -> Html {
    let ctx = use_ctx();
    let current = ctx.lang();
    html! {
        <div class="lang-switch" role="group" aria-label={ctx.t(T::LanguageLabel)}>
            { for Lang::ALL.iter().map(|&lang| {
                let ctx = ctx.clone();
                let onclick = Callback::from(move |_| ctx.dispatch(Action::SetLang(lang)));
                html! {
                    <button type="button" lang={lang.code()} class="lang"
                        id={format!("lang-{}", lang.code())}
                        aria-pressed={(lang == current).to_string()} {onclick}>
                        { lang.native_name() }
                    </button>
                }
            }) }
        </div>
    }
}
