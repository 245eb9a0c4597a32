//! `/owner/events` (EV1): announce an arena event (game, duration, now or later today, the
//! move clock of Infinite XO, rated or casual, a name for the board), and the events scheduled
//! or running, each scheduled one with Cancel behind a confirmation. The server checks every
//! field; its refusals are worded here by their code.

use engine::Game;
use protocol::event::EventPhase;
use protocol::http::{ApiErrorCode, EventSummary, NewEvent};
use yew::prelude::*;

use crate::api::{self, ApiError};
use crate::event_model::{is_live, start_in_ms};
use crate::i18n::{Lang, OT, T};
use crate::route::{OwnerSection, Route};

use super::context::use_ctx;
use super::create_room::choice;
use super::link::Link;
use super::owner::{Confirm, OwnerShell, Said, error_text, input_value, said};

/// EV1's bounds, as the form says them (a test flag may let the server take shorter ones).
const MINUTES: (u32, u32) = (10, 180);

#[component]
pub fn OwnerEventsPage() -> Html {
    html! {
        <OwnerShell section={OwnerSection::Events}>
            <EventsPanel />
        </OwnerShell>
    }
}

/// The sentence for a refusal of the event form or a cancel.
fn refusal(lang: Lang, e: &ApiError) -> Said {
    let (lo, hi) = (lang.num(MINUTES.0), lang.num(MINUTES.1));
    Said::Invalid(match e.code {
        Some(ApiErrorCode::InvalidEventDuration) => lang.fo(OT::ErrDuration, &[&lo, &hi]),
        Some(ApiErrorCode::InvalidEventStart) => lang.to(OT::ErrStart).to_owned(),
        Some(ApiErrorCode::InvalidEventTimePerMove) => lang.to(OT::ErrPerMove).to_owned(),
        Some(ApiErrorCode::InvalidEventName) => lang.to(OT::ErrName).to_owned(),
        Some(ApiErrorCode::EventClash) => lang.to(OT::ErrClash).to_owned(),
        Some(ApiErrorCode::EventStarted) => lang.to(OT::ErrStarted).to_owned(),
        Some(ApiErrorCode::UnknownEvent) => lang.t(T::ErrUnknownEvent).to_owned(),
        _ => return Said::Refused(error_text(e)),
    })
}

/// The time of day now on this phone, in milliseconds since its midnight.
fn now_of_day_ms() -> u64 {
    let d = js_sys::Date::new_0();
    let minutes = u64::from(d.get_hours()) * 60 + u64::from(d.get_minutes());
    minutes * 60_000 + u64::from(d.get_seconds()) * 1000 + u64::from(d.get_milliseconds())
}

#[component]
fn EventsPanel() -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let events = use_state(|| None::<Vec<EventSummary>>);
    let said_last = use_state(|| None::<Said>);
    let busy = use_state(|| false);
    let generation = use_state(|| 0u32);
    // The form, as typed.
    let game = use_state(|| Game::Xo);
    let minutes = use_state(|| "60".to_owned());
    let later = use_state(|| false);
    let at = use_state(String::new);
    let per_move = use_state(|| 10u8);
    let rated = use_state(|| true);
    let name = use_state(String::new);
    {
        let (events, said_last) = (events.clone(), said_last.clone());
        use_effect_with(*generation, move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                match api::events().await {
                    Ok(list) => events.set(Some(list)),
                    Err(e) => said_last.set(Some(refusal(lang, &e))),
                }
            });
        });
    }
    let onsubmit = {
        let (said_last, busy, generation) = (said_last.clone(), busy.clone(), generation.clone());
        let (game, minutes, later, at, per_move, rated, name) = (
            *game,
            (*minutes).clone(),
            *later,
            (*at).clone(),
            *per_move,
            *rated,
            (*name).clone(),
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let start = if later {
                match start_in_ms(now_of_day_ms(), &at) {
                    Some(ms) => ms,
                    None => {
                        said_last.set(Some(Said::Invalid(lang.to(OT::ErrStart).to_owned())));
                        return;
                    }
                }
            } else {
                0
            };
            let Ok(duration_min) = minutes.trim().parse::<u32>() else {
                let (lo, hi) = (lang.num(MINUTES.0), lang.num(MINUTES.1));
                said_last.set(Some(Said::Invalid(lang.fo(OT::ErrDuration, &[&lo, &hi]))));
                return;
            };
            let form = NewEvent {
                game,
                duration_min,
                start_in_ms: start,
                time_per_move_s: (game == Game::Infinite).then_some(per_move),
                rated: Some(rated),
                name: Some(name.trim().to_owned()).filter(|n| !n.is_empty()),
            };
            let (said_last, busy, generation) =
                (said_last.clone(), busy.clone(), generation.clone());
            busy.set(true);
            wasm_bindgen_futures::spawn_local(async move {
                match api::create_event(&form).await {
                    Ok(created) => {
                        said_last.set(Some(Said::Done(lang.fo(OT::Created, &[&created.name]))));
                    }
                    Err(e) => said_last.set(Some(refusal(lang, &e))),
                }
                busy.set(false);
                generation.set(generation.wrapping_add(1));
            });
        })
    };
    let set = |state: &UseStateHandle<bool>| {
        let state = state.clone();
        Callback::from(move |v: bool| state.set(v))
    };
    let on_game = {
        let game = game.clone();
        Callback::from(move |g: Game| game.set(g))
    };
    let on_per_move = {
        let per_move = per_move.clone();
        Callback::from(move |s: u8| per_move.set(s))
    };
    let games = Game::ALL
        .iter()
        .map(|&g| (g, lang.game(g).to_owned()))
        .collect();
    let clocks = [5u8, 10, 30]
        .into_iter()
        .map(|s| (s, lang.f(T::Seconds, &[&lang.num(s)])))
        .collect();
    let starts = vec![
        (false, lang.to(OT::StartNow).to_owned()),
        (true, lang.to(OT::StartLater).to_owned()),
    ];
    let kinds = vec![
        (true, lang.t(T::KindPlayer).to_owned()),
        (false, lang.t(T::EventCasual).to_owned()),
    ];
    let live: Vec<&EventSummary> = events
        .as_ref()
        .map(|l| l.iter().filter(|e| is_live(e.phase)).collect())
        .unwrap_or_default();
    let rows = live.iter().map(|e| {
        let when = super::event::when(lang, e.phase, e.starts_in_ms, e.ends_in_ms);
        let cancel = {
            let (said_last, busy, generation) =
                (said_last.clone(), busy.clone(), generation.clone());
            let (id, name) = (e.id.clone(), e.name.clone());
            Callback::from(move |()| {
                let (said_last, busy, generation, id, name) = (
                    said_last.clone(),
                    busy.clone(),
                    generation.clone(),
                    id.clone(),
                    name.clone(),
                );
                busy.set(true);
                wasm_bindgen_futures::spawn_local(async move {
                    match api::cancel_event(&id).await {
                        Ok(_) => said_last.set(Some(Said::Done(lang.fo(OT::Cancelled, &[&name])))),
                        Err(e) => said_last.set(Some(refusal(lang, &e))),
                    }
                    busy.set(false);
                    generation.set(generation.wrapping_add(1));
                });
            })
        };
        html! {
            <li class="owner-row event-row" data-event={e.id.clone()}>
                <span class="owner-name">
                    <Link to={Route::Event(e.id.clone())} class="text-link"><bdi>{ e.name.clone() }</bdi></Link>
                    <span class="note">{ format!(" · {} · {} · {}", lang.game(e.game),
                        lang.fo(OT::Minutes, &[&lang.num(e.duration_ms / 60_000)]), when) }</span>
                </span>
                if e.phase == EventPhase::Announced {
                    <Confirm id={format!("cancel-event-{}", e.id)} label={lang.to(OT::Cancel)}
                        question={lang.fo(OT::CancelAsk, &[&e.name])}
                        yes={lang.fo(OT::CancelYes, &[&e.name])} on_yes={cancel} busy={*busy} />
                }
            </li>
        }
    });
    html! {
        <>
            <section class="panel">
                <h2>{ lang.to(OT::New) }</h2>
                <form class="create event-form" id="event-form" {onsubmit} novalidate=true>
                    <div class="field">
                        <label for="event-name">{ lang.to(OT::Name) }</label>
                        <input id="event-name" maxlength="40" value={(*name).clone()} oninput={input_value(&name)} />
                    </div>
                    { choice("event", "game", lang.t(T::FieldGame), games, *game, on_game) }
                    <div class="field">
                        <label for="event-minutes">{ lang.fo(OT::Duration, &[&lang.num(MINUTES.0), &lang.num(MINUTES.1)]) }</label>
                        <input id="event-minutes" type="number" inputmode="numeric" min="1" max="180" dir="ltr"
                            value={(*minutes).clone()} oninput={input_value(&minutes)} />
                    </div>
                    { choice("event", "start", lang.to(OT::Start), starts, *later, set(&later)) }
                    if *later {
                        <div class="field">
                            <label for="event-at">{ lang.to(OT::StartAt) }</label>
                            <input id="event-at" type="time" dir="ltr" value={(*at).clone()} oninput={input_value(&at)} />
                        </div>
                    }
                    if *game == Game::Infinite {
                        { choice("event", "clock", lang.t(T::FieldTime), clocks, *per_move, on_per_move) }
                    } else {
                        <p class="note">{ lang.to(OT::XoClock) }</p>
                    }
                    { choice("event", "rated", lang.to(OT::Rated), kinds, *rated, set(&rated)) }
                    { said(lang, "event-said", &said_last) }
                    <button type="submit" class="primary big" id="event-create" disabled={*busy}>{ lang.to(OT::Create) }</button>
                </form>
            </section>
            <section class="panel">
                <h2>{ lang.to(OT::Scheduled) }</h2>
                if events.is_none() {
                    <p role="status">{ ctx.t(T::Loading) }</p>
                } else if live.is_empty() {
                    <p class="note" id="events-none">{ lang.to(OT::None) }</p>
                } else {
                    <ul class="owner-list" id="owner-events">{ for rows }</ul>
                }
            </section>
        </>
    }
}
