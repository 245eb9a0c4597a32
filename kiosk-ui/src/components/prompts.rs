//! What needs an answer comes to the user (U12, UI.md "What needs an answer"): the error or
//! news about what they just did, a draw offer to answer, join requests for the host and the
//! result, in one banner held at the top of the viewport with its buttons, however far down
//! the page the user is. Each is also spoken in the live region by the reducer.

use protocol::{ClientMsg, Phase, RoomView};
use yew::prelude::*;

use crate::i18n::T;
use crate::room_model;
use crate::state::Action;

use super::context::use_ctx;
use super::room::again_button;

/// Which result the reader has put away: the room and the number of moves it ended on.
type Seen = Option<(String, usize)>;

#[component]
pub fn Prompts() -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let seen_result = use_state(|| Seen::None);
    let mut parts: Vec<Html> = Vec::new();

    if let Some(notice) = ctx.state.notice.clone() {
        let dismiss = {
            let ctx = ctx.clone();
            Callback::from(move |_| ctx.dispatch(Action::DismissNotice))
        };
        parts.push(html! {
            <div class={classes!("prompt", "notice", notice.error.then_some("error"))} id="notice"
                role={if notice.error { "alert" } else { "status" }}>
                <p class="prompt-text">{ notice.text }</p>
                <div class="prompt-actions">
                    <button type="button" class="dismiss" onclick={dismiss}>{ ctx.t(T::Dismiss) }</button>
                </div>
            </div>
        });
    }

    let here = ctx
        .state
        .room_view()
        .filter(|r| ctx.state.route.room_id() == Some(r.id.as_str()));
    if let Some(raw) = here {
        let room: RoomView = if ctx.state.route.is_kiosk() {
            room_model::kiosk_view(raw, lang)
        } else {
            raw.clone()
        };
        let send = |msg: ClientMsg| {
            let ctx = ctx.clone();
            Callback::from(move |_: MouseEvent| ctx.send.emit(msg.clone()))
        };
        // M3.8: the opponent's offer, for a seated player to answer.
        if let (Some(by), Some(me), Phase::Playing, None) = (
            room.draw_offer,
            room_model::my_mark(&room),
            room.phase,
            &room.result,
        ) {
            if by != me {
                parts.push(html! {
                    <div class="prompt draw-offer" id="draw-prompt" role="alert">
                        <p class="prompt-text">{ lang.f(T::AnnDrawOffered, &[&room_model::named_mark(&room, by, lang)]) }</p>
                        <div class="prompt-actions">
                            <button type="button" class="primary" id="accept-draw"
                                onclick={send(ClientMsg::AnswerDraw { id: None, accept: true })}>{ ctx.t(T::AcceptDraw) }</button>
                            <button type="button" id="decline-draw"
                                onclick={send(ClientMsg::AnswerDraw { id: None, accept: false })}>{ ctx.t(T::Decline) }</button>
                        </div>
                    </div>
                });
            }
        }
        // M3.12: the opponent's rematch offer, for the other player to answer.
        if let (Some(by), Some(me)) = (room.rematch_offer, room_model::my_mark(&room)) {
            if by != me {
                parts.push(html! {
                    <div class="prompt rematch-offer" id="rematch-prompt" role="alert">
                        <p class="prompt-text">{ lang.f(T::AnnRematchOffered, &[&room_model::named_mark(&room, by, lang)]) }</p>
                        <div class="prompt-actions">
                            <button type="button" class="primary" id="accept-rematch"
                                onclick={send(ClientMsg::AnswerRematch { id: None, accept: true })}>{ ctx.t(T::AcceptRematch) }</button>
                            <button type="button" id="decline-rematch"
                                onclick={send(ClientMsg::AnswerRematch { id: None, accept: false })}>{ ctx.t(T::Decline) }</button>
                        </div>
                    </div>
                });
            }
        }
        // M3.3: requests for the host to accept or decline.
        if room.you.host && room.phase == Phase::Waiting && !room.requests.is_empty() {
            parts.push(html! {
                <section class="prompt requests" aria-labelledby="requests-title" role="alert">
                    <h2 id="requests-title" class="prompt-text">{ ctx.t(T::Requests) }</h2>
                    <ul>
                        { for room.requests.iter().map(|r| html! {
                            <li>
                                <bdi class="name">{ r.name.clone() }</bdi>
                                <button type="button" class="accept primary" onclick={send(ClientMsg::Accept { id: None, user: r.user })}>{ ctx.t(T::Accept) }</button>
                                <button type="button" class="decline" onclick={send(ClientMsg::Decline { id: None, user: r.user })}>{ ctx.t(T::Decline) }</button>
                            </li>
                        }) }
                    </ul>
                </section>
            });
        }
        // The result, until the reader puts it away.
        if let Some(result) = &room.result {
            let key = (room.id.clone(), room.moves.len());
            if (*seen_result).as_ref() != Some(&key) {
                let dismiss = {
                    let seen = seen_result.clone();
                    Callback::from(move |_| seen.set(Some(key.clone())))
                };
                // The opponent's rematch offer has its own prompt above.
                let answering = room
                    .rematch_offer
                    .is_some_and(|by| room_model::my_mark(&room) != Some(by));
                let again = (!answering)
                    .then(|| again_button(&ctx, &room, true))
                    .flatten();
                parts.push(html! {
                    <div class="prompt result-prompt" id="result-prompt" role="status">
                        <p class="prompt-text">
                            { room_model::result_text(&room, result.end, lang) }
                            if result.pending {
                                <span class="prompt-note" id="result-prompt-pending">{ ctx.t(T::ResultPending) }</span>
                            }
                        </p>
                        <div class="prompt-actions">
                            { for again }
                            <button type="button" class="dismiss" id="result-dismiss" onclick={dismiss}>{ ctx.t(T::Dismiss) }</button>
                        </div>
                    </div>
                });
            }
        }
    }

    if parts.is_empty() {
        return html! {};
    }
    html! { <div class="prompts" id="prompts">{ for parts }</div> }
}
