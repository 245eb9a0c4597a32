//! An in-app link: a real `<a href>` (so it can be opened in a new tab or shared) that
//! navigates without reloading the page.

use yew::prelude::*;

use crate::route::Route;

use super::context::use_ctx;

#[derive(Debug, Properties, PartialEq)]
pub struct LinkProps {
    pub to: Route,
    #[prop_or_default]
    pub class: Classes,
    #[prop_or_default]
    pub label: Option<AttrValue>,
    #[prop_or_default]
    pub children: Html,
    /// Runs instead of navigating (e.g. to ask before leaving a game).
    #[prop_or_default]
    pub intercept: Option<Callback<MouseEvent>>,
}

#[component]
pub fn Link(props: &LinkProps) -> Html {
    let ctx = use_ctx();
    let to = props.to.clone();
    let intercept = props.intercept.clone();
    let onclick = Callback::from(move |e: MouseEvent| {
        if let Some(instead) = &intercept {
            e.prevent_default();
            instead.emit(e);
            return;
        }
        // Let the browser handle new-tab clicks.
        if e.ctrl_key() || e.meta_key() || e.shift_key() || e.button() != 0 {
            return;
        }
        e.prevent_default();
        ctx.navigate(to.clone());
    });
    html! {
        <a href={props.to.path()} class={props.class.clone()} aria-label={props.label.clone()} {onclick}>
            { props.children.clone() }
        </a>
    }
}
