//! `/owner/rooms` (SPEC O2): the open rooms, as the lobby lists them (`GET /api/rooms`,
//! refreshed every few seconds), each with a close button that asks for the reason its players
//! will read (at most [`CLOSE_REASON_MAX`] characters).

use gloo::timers::callback::Interval;
use protocol::RoomSummary;
use protocol::http::CLOSE_REASON_MAX;
use yew::prelude::*;

use crate::api;
use crate::i18n::T;
use crate::room_model::summary_text;
use crate::route::OwnerSection;

use super::context::use_ctx;
use super::owner::{Confirm, OwnerShell, Said, error_text, input_value, said};

/// How often the list is asked for again, in milliseconds.
const REFRESH_MS: u32 = 5_000;

#[component]
pub fn OwnerRoomsPage() -> Html {
    html! {
        <OwnerShell section={OwnerSection::Rooms}>
            <Rooms />
        </OwnerShell>
    }
}

/// Whether a reason may be sent as it is (the server's rule: 1 to the maximum, no control
/// characters, after trimming).
pub fn reason_ok(reason: &str) -> bool {
    let reason = reason.trim();
    let n = reason.chars().count();
    (1..=CLOSE_REASON_MAX).contains(&n) && !reason.chars().any(char::is_control)
}

#[component]
fn Rooms() -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let rooms = use_state(|| None::<Vec<RoomSummary>>);
    let said_last = use_state(|| None::<Said>);
    let generation = use_state(|| 0u32);
    {
        let (rooms, said_last) = (rooms.clone(), said_last.clone());
        use_effect_with(*generation, move |_| {
            let load = move || {
                let (rooms, said_last) = (rooms.clone(), said_last.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    match api::rooms().await {
                        Ok(list) => rooms.set(Some(list)),
                        Err(e) => said_last.set(Some(Said::Refused(error_text(&e)))),
                    }
                });
            };
            load();
            let timer = Interval::new(REFRESH_MS, load);
            move || drop(timer)
        });
    }
    let reload = {
        let generation = generation.clone();
        Callback::from(move |()| generation.set(generation.wrapping_add(1)))
    };
    let on_said = {
        let said_last = said_last.clone();
        Callback::from(move |s: Said| said_last.set(Some(s)))
    };
    let list = match &*rooms {
        None => html! { <p role="status">{ ctx.t(T::Loading) }</p> },
        Some(list) if list.is_empty() => {
            html! { <p class="note" id="rooms-none">{ ctx.t(T::RoomsNone) }</p> }
        }
        Some(list) => html! {
            <ul class="owner-room-list" id="owner-room-list">
                { for list.iter().map(|room| {
                    let s = summary_text(room, lang);
                    html! {
                        <li class="owner-room panel" data-room={room.id.clone()}>
                            <p class="room-main">
                                <strong>{ s.game }</strong>{ " · " }<span>{ s.players }</span>
                            </p>
                            <p class="room-meta">{ s.kind }{ " · " }{ s.state }{ " · " }{ s.spectators }</p>
                            <CloseRoom id={room.id.clone()} on_said={on_said.clone()} on_closed={reload.clone()} />
                        </li>
                    }
                }) }
            </ul>
        },
    };
    html! {
        <>
            <div class="owner-tools">
                <button type="button" id="rooms-refresh" onclick={reload.reform(|_| ())}>{ ctx.t(T::Refresh) }</button>
            </div>
            { said(lang, "rooms-said", &said_last) }
            { list }
        </>
    }
}

#[derive(Debug, Properties, PartialEq)]
struct CloseProps {
    id: String,
    on_said: Callback<Said>,
    on_closed: Callback<()>,
}

#[component]
fn CloseRoom(props: &CloseProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let reason = use_state(|| ctx.t(T::RoomReasonDefault).to_owned());
    let busy = use_state(|| false);
    let close = {
        let (reason, busy, on_said, on_closed, id) = (
            reason.clone(),
            busy.clone(),
            props.on_said.clone(),
            props.on_closed.clone(),
            props.id.clone(),
        );
        Callback::from(move |()| {
            let why = reason.trim().to_owned();
            if !reason_ok(&why) {
                on_said.emit(Said::Invalid(
                    lang.f(T::RoomReasonNeeded, &[&lang.num(CLOSE_REASON_MAX)]),
                ));
                return;
            }
            let (busy, on_said, on_closed, id) =
                (busy.clone(), on_said.clone(), on_closed.clone(), id.clone());
            busy.set(true);
            wasm_bindgen_futures::spawn_local(async move {
                match api::close_room(&id, &why).await {
                    Ok(closed) => {
                        on_said.emit(Said::Done(lang.f(T::RoomClosedDone, &[&closed.reason])));
                        on_closed.emit(());
                    }
                    Err(e) => {
                        on_said.emit(Said::Refused(error_text(&e)));
                        on_closed.emit(());
                    }
                }
                busy.set(false);
            });
        })
    };
    let field = format!("close-reason-{}", props.id);
    html! {
        <Confirm id={format!("close-room-{}", props.id)} label={ctx.t(T::RoomClose)}
            question={ctx.t(T::RoomCloseAsk)} yes={ctx.t(T::RoomCloseYes)} on_yes={close} busy={*busy}>
            <div class="field">
                <label for={field.clone()}>{ ctx.t(T::RoomCloseReason) }</label>
                <input id={field} class="close-reason" maxlength={CLOSE_REASON_MAX.to_string()}
                    value={(*reason).clone()} oninput={input_value(&reason)} />
                <p class="help">{ lang.f(T::RoomReasonNeeded, &[&lang.num(CLOSE_REASON_MAX)]) }</p>
            </div>
        </Confirm>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_has_one_to_the_maximum_characters_without_control_characters() {
        assert!(reason_ok("Closing for the night"));
        assert!(reason_ok(&"ع".repeat(CLOSE_REASON_MAX)));
        assert!(!reason_ok(&"a".repeat(CLOSE_REASON_MAX + 1)));
        assert!(!reason_ok("   "));
        assert!(!reason_ok("two\nlines"));
    }
}
