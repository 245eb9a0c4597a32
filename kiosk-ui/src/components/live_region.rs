//! The polite live region (U5): moves, warnings and results are spoken here.

use yew::prelude::*;

use super::context::use_ctx;

#[component]
pub fn LiveRegion() -> Html {
    let ctx = use_ctx();
    let a = &ctx.state.announcement;
    // Two alternating nodes make screen readers speak a repeated sentence again.
    let (first, second) = if a.seq % 2 == 0 {
        (a.text.clone(), String::new())
    } else {
        (String::new(), a.text.clone())
    };
    html! {
        <div class="sr-only">
            <div id="live" aria-live="polite" aria-atomic="true">{ first }</div>
            <div id="live-alt" aria-live="polite" aria-atomic="true">{ second }</div>
        </div>
    }
}
