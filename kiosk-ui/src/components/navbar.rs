//! The navbar: top-left links (on a room screen they change only presence, M3.10), the
//! language switch, and the screen's own controls on the right (U9).

use yew::prelude::*;

use crate::i18n::T;
use crate::route::Route;

use super::context::use_ctx;
use super::icon::{Icon, icon};
use super::lang_switch::LangSwitch;
use super::link::Link;

#[derive(Debug, Properties, PartialEq)]
pub struct NavbarProps {
    /// The screen's title, centred.
    #[prop_or_default]
    pub title: Option<AttrValue>,
    /// Controls on the trailing side (Resign, Exit …).
    #[prop_or_default]
    pub actions: Html,
    /// Runs instead of following the home link (a bot or local game asks before it ends).
    #[prop_or_default]
    pub on_home: Option<Callback<MouseEvent>>,
}

#[component]
pub fn Navbar(props: &NavbarProps) -> Html {
    let ctx = use_ctx();
    let route = &ctx.state.route;
    let kiosk = route.is_kiosk();
    let home = route.home();
    // On the home screen itself a link back to it would only confuse.
    let at_home = *route == home;
    let home_label = if kiosk { T::NavHome } else { T::NavLobby };
    // On a room screen a phone keeps the navbar to one row: the account link waits.
    let in_room = route.room_id().is_some();
    let account_link = if kiosk {
        // U7: no sign-in on the kiosk.
        html! {}
    } else {
        match &ctx.state.account {
            Some(Some(account)) => html! {
                <Link to={Route::Profile(account.username.clone())} class={classes!("nav-link", in_room.then_some("wide-only"))}>
                    { account.username.clone() }
                </Link>
            },
            _ => html! {
                <Link to={Route::SignIn} class={classes!("nav-link", in_room.then_some("wide-only"))}>{ ctx.t(T::NavSignIn) }</Link>
            },
        }
    };
    html! {
        <header class={classes!("navbar", in_room.then_some("in-room"))}>
            <nav class="nav-start" aria-label={ctx.t(T::NavMain)}>
                if !at_home {
                    <Link to={home} class="nav-link home-link" intercept={props.on_home.clone()}>
                        { icon(Icon::Back) }
                        <span class="home-label">{ ctx.t(home_label) }</span>
                    </Link>
                }
                if !kiosk && !in_room {
                    <Link to={Route::Puzzles} class="nav-link wide-only">{ ctx.t(T::NavPuzzles) }</Link>
                    <Link to={Route::Leaderboard(engine::Game::Xo)} class="nav-link wide-only">
                        { ctx.t(T::NavLeaderboard) }
                    </Link>
                    <Link to={Route::Rules} class="nav-link wide-only">{ ctx.t(T::NavRules) }</Link>
                }
                { account_link }
            </nav>
            <h1 class="nav-title">{ props.title.clone().unwrap_or_else(|| ctx.t(T::AppName).into()) }</h1>
            <div class="nav-end">
                { props.actions.clone() }
                <LangSwitch />
            </div>
        </header>
    }
}
