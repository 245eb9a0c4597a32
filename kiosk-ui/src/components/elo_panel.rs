//! The ELO preview (E4): projected ratings for a chosen scenario. A player picks Win, Draw or
//! Loss from their own side; a spectator picks either named player as winner, or Draw. It
//! changes nothing.

use engine::{Mark, Score};
use protocol::EloPreview;
use yew::prelude::*;

use crate::i18n::T;
use crate::room_model::Scenario;

use super::context::use_ctx;

#[derive(Debug, Properties, PartialEq)]
pub struct EloPanelProps {
    pub elo: EloPreview,
    /// The reader's mark when they play; `None` for a spectator.
    pub me: Option<Mark>,
    pub x_name: AttrValue,
    pub o_name: AttrValue,
}

#[component]
pub fn EloPanel(props: &EloPanelProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let chosen = use_state(|| match props.me {
        Some(me) => Scenario::for_player(me, Score::Win),
        None => Scenario::Draw,
    });
    let options: Vec<(Scenario, String)> = match props.me {
        Some(me) => [Score::Win, Score::Draw, Score::Loss]
            .into_iter()
            .map(|s| {
                let key = match s {
                    Score::Win => T::Win,
                    Score::Draw => T::Draw,
                    Score::Loss => T::Loss,
                };
                (Scenario::for_player(me, s), ctx.t(key).to_owned())
            })
            .collect(),
        None => vec![
            (Scenario::XWins, lang.f(T::NameWins, &[&props.x_name])),
            (Scenario::Draw, ctx.t(T::Draw).to_owned()),
            (Scenario::OWins, lang.f(T::NameWins, &[&props.o_name])),
        ],
    };
    let [x_after, o_after] = chosen.ratings(&props.elo);
    let row = |name: &str, before: i32, after: i32| {
        html! {
            <li>
                <bdi class="name">{ name.to_owned() }</bdi>{ " " }
                <span class="projection">{ lang.f(T::RatingArrow, &[&lang.num(before), &lang.num(after)]) }</span>
            </li>
        }
    };
    html! {
        // A disclosure, so phones can fold it away under the board (UI.md). The projected
        // ratings come first, so a short kiosk screen shows them above the scenario buttons.
        <details class="panel elo" id="elo-panel" open=true>
            <summary><h2 id="elo-title">{ ctx.t(T::EloTitle) }</h2></summary>
            <ul class="projections" aria-live="polite">
                { row(&props.x_name, props.elo.x_rating, x_after) }
                { row(&props.o_name, props.elo.o_rating, o_after) }
            </ul>
            <div class="segmented" role="group" aria-labelledby="elo-title">
                { for options.into_iter().map(|(scenario, label)| {
                    let chosen = chosen.clone();
                    let pressed = *chosen == scenario;
                    let onclick = Callback::from(move |_| chosen.set(scenario));
                    html! {
                        <button type="button" aria-pressed={pressed.to_string()} {onclick}>{ label }</button>
                    }
                }) }
            </div>
            <p class="note">{ ctx.t(T::EloNote) }</p>
        </details>
    }
}
