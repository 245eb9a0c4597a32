//! The banner for errors and news ("The host removed you from the room").

use yew::prelude::*;

use crate::i18n::T;
use crate::state::Action;

use super::app::use_ctx;

#[component]
pub fn NoticeBanner() -> Html {
    let ctx = use_ctx();
    let Some(notice) = ctx.state.notice.clone() else {
        return html! {};
    };
    let dismiss = {
        let ctx = ctx.clone();
        Callback::from(move |_| ctx.dispatch(Action::DismissNotice))
    };
    let class = if notice.error {
        "notice error"
    } else {
        "notice"
    };
    html! {
        <div {class} id="notice" role={if notice.error { "alert" } else { "status" }}>
            <span>{ notice.text }</span>
            <button type="button" class="dismiss" onclick={dismiss}>{ ctx.t(T::Dismiss) }</button>
        </div>
    }
}
