//! The live room list (lobby, kiosk "Live rooms").

use protocol::{ClientMsg, RoomSummary};
use yew::prelude::*;

use crate::i18n::T;
use crate::room_model::summary_text;
use crate::route::Route;

use super::context::use_ctx;
use super::icon::{Icon, icon};
use super::link::Link;

#[derive(Debug, Properties, PartialEq)]
pub struct LobbyListProps {
    pub rooms: Vec<RoomSummary>,
    /// Rooms there are in all (the list shows the first ones).
    #[prop_or_default]
    pub total: u32,
    /// Room links open the kiosk's room screen.
    #[prop_or_default]
    pub kiosk: bool,
}

#[component]
pub fn LobbyList(props: &LobbyListProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    if props.rooms.is_empty() {
        let t = if props.kiosk {
            T::NoLiveRooms
        } else {
            T::LobbyEmpty
        };
        return html! { <p class="note empty-list" id="lobby-empty">{ ctx.t(t) }</p> };
    }
    let shown = u32::try_from(props.rooms.len()).unwrap_or(u32::MAX);
    let more = props.total.saturating_sub(shown);
    let show_more = {
        let send = ctx.send.clone();
        Callback::from(move |_| {
            send.emit(ClientMsg::WatchLobby {
                id: None,
                limit: Some(shown.saturating_add(LOBBY_STEP)),
            })
        })
    };
    html! {
        <>
        <ul class="room-list" id="room-list">
            { for props.rooms.iter().map(|room| {
                let s = summary_text(room, lang);
                let to = Route::Room { id: room.id.clone(), kiosk: props.kiosk };
                let action = if room.open_seat && !props.kiosk { T::OpenRoom } else { T::Watch };
                html! {
                    <li class="room-row" data-room={room.id.clone()}>
                        <Link to={to} class="room-link">
                            <span class="room-main">
                                <strong class="room-game">{ s.game }</strong>
                                { " · " }
                                <span class="room-players">{ s.players }</span>
                            </span>
                            <span class="room-meta">
                                <span>{ s.kind }</span>
                                { " · " }
                                <span>{ s.state }</span>
                                if let Some(j) = s.joining { { " · " }<span>{ j }</span> }
                                { " · " }
                                <span>{ s.spectators }</span>
                            </span>
                            // The kiosk's narrow column keeps its width for the names: the
                            // arrow says it, the word is for screen readers.
                            <span class="room-action">
                                if props.kiosk {
                                    <span class="sr-only">{ ctx.t(action) }</span>
                                } else {
                                    { ctx.t(action) }
                                }
                                { icon(Icon::Forward) }
                            </span>
                        </Link>
                    </li>
                }
            }) }
        </ul>
        if more > 0 {
            <p class="note lobby-more" id="lobby-more">
                { ctx.state.lang.f(T::LobbyMore, &[&more.to_string()]) }
                { " " }
                <button type="button" id="lobby-show-more" onclick={show_more}>
                    { ctx.t(T::ShowMore) }
                </button>
            </p>
        }
        </>
    }
}

/// Rows one "Show more" adds.
const LOBBY_STEP: u32 = 20;
