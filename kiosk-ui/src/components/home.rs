//! The phone home: the lobby's live room list with a floating "Create room" button that opens
//! the create-room box, and links to the leaderboard and the rules.

use yew::prelude::*;

use crate::i18n::T;
use crate::route::Route;

use super::context::use_ctx;
use super::create_room::CreateRoomBox;
use super::link::Link;
use super::lobby_list::LobbyList;
use super::navbar::Navbar;

#[component]
pub fn Home() -> Html {
    let ctx = use_ctx();
    let creating = use_state(|| false);
    let toggle = {
        let creating = creating.clone();
        Callback::from(move |_| creating.set(!*creating))
    };
    html! {
        <>
            <Navbar />
            <main id="main" class="page home">
                <super::event::LobbyEvent />
                <section class="lobby" aria-labelledby="lobby-title">
                    <h2 id="lobby-title">{ ctx.t(T::LobbyTitle) }</h2>
                    <LobbyList rooms={ctx.state.lobby.clone()} total={ctx.state.lobby_total} />
                </section>
                <section class={classes!("create-panel", (*creating).then_some("open"))} aria-labelledby="create-title">
                    <h2 id="create-title">{ ctx.t(T::CreateTitle) }</h2>
                    <CreateRoomBox prefix="create" />
                </section>
                <nav class="more" aria-label={ctx.t(T::LinksTitle)}>
                    <Link to={Route::Events}>{ ctx.t(T::NavEvents) }</Link>
                    <Link to={Route::Puzzles}>{ ctx.t(T::NavPuzzles) }</Link>
                    <Link to={Route::Leaderboard(engine::Game::Xo)}>{ ctx.t(T::NavLeaderboard) }</Link>
                    <Link to={Route::Rules}>{ ctx.t(T::NavRules) }</Link>
                </nav>
                <button type="button" class="fab" id="fab-create" aria-expanded={creating.to_string()}
                    onclick={toggle}>{ ctx.t(T::CreateRoom) }</button>
            </main>
        </>
    }
}
