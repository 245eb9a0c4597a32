//! `/owner/seasons` (SPEC O2): start a new season behind a confirmation that says what happens,
//! and the archived seasons, each linking to its leaderboards as the season ended.

use engine::Game;
use protocol::http::Seasons;
use yew::prelude::*;

use crate::api;
use crate::i18n::T;
use crate::route::{OwnerSection, Route};

use super::context::use_ctx;
use super::link::Link;
use super::owner::{Confirm, OwnerShell, Said, date, error_text, said};

#[component]
pub fn OwnerSeasonsPage() -> Html {
    html! {
        <OwnerShell section={OwnerSection::Seasons}>
            <SeasonsPanel />
        </OwnerShell>
    }
}

#[component]
fn SeasonsPanel() -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let seasons = use_state(|| None::<Seasons>);
    let said_last = use_state(|| None::<Said>);
    let busy = use_state(|| false);
    let generation = use_state(|| 0u32);
    {
        let (seasons, said_last) = (seasons.clone(), said_last.clone());
        use_effect_with(*generation, move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                match api::seasons().await {
                    Ok(s) => seasons.set(Some(s)),
                    Err(e) => said_last.set(Some(Said::Refused(error_text(&e)))),
                }
            });
        });
    }
    let Some(list) = &*seasons else {
        return html! {
            <>
                { said(lang, "seasons-said", &said_last) }
                <p role="status">{ ctx.t(T::Loading) }</p>
            </>
        };
    };
    let start = {
        let (said_last, busy, generation) = (said_last.clone(), busy.clone(), generation.clone());
        Callback::from(move |()| {
            let (said_last, busy, generation) =
                (said_last.clone(), busy.clone(), generation.clone());
            busy.set(true);
            wasm_bindgen_futures::spawn_local(async move {
                match api::new_season().await {
                    Ok(started) => said_last.set(Some(Said::Done(lang.f(
                        T::SeasonStarted,
                        &[&lang.num(started.archived), &lang.num(started.current)],
                    )))),
                    Err(e) => said_last.set(Some(Said::Refused(error_text(&e)))),
                }
                busy.set(false);
                generation.set(generation.wrapping_add(1));
            });
        })
    };
    let current = list.current;
    let archived = list.archived.iter().rev().map(|s| {
        html! {
            <li class="season-row" data-season={s.number.to_string()}>
                <span>{ lang.f(T::SeasonRow, &[&lang.num(s.number), &date(lang, s.ended_ms), &lang.num(s.players)]) }</span>
                <span class="season-links">
                    { for Game::ALL.iter().map(|&game| html! {
                        <Link to={Route::ArchivedLeaderboard { game, season: s.number }} class="text-link">
                            { lang.game(game) }
                        </Link>
                    }) }
                </span>
            </li>
        }
    });
    html! {
        <>
            <section class="panel">
                <p id="season-current">{ lang.f(T::SeasonCurrent, &[&lang.num(current)]) }</p>
                { said(lang, "seasons-said", &said_last) }
                <Confirm id="new-season" label={ctx.t(T::SeasonStart)}
                    question={lang.f(T::SeasonStartAsk, &[&lang.num(current), &lang.num(current + 1)])}
                    yes={lang.f(T::SeasonStartYes, &[&lang.num(current + 1)])} on_yes={start} busy={*busy} />
            </section>
            <section class="panel">
                <h2>{ ctx.t(T::SeasonsArchived) }</h2>
                if list.archived.is_empty() {
                    <p class="note" id="seasons-none">{ ctx.t(T::SeasonsNone) }</p>
                } else {
                    <ul class="season-list" id="season-list">{ for archived }</ul>
                }
            </section>
        </>
    }
}
