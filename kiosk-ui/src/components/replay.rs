//! Replay (U10) with analysis (U11): ◀ ▶ and the arrow keys step through the game, showing
//! vanished marks as they were; each move shows the table's verdict for the mover before →
//! after it, and marks a move that threw a result away.

use engine::{Cell, Game};
use yew::prelude::*;

use crate::analysis::{analyse, positions};
use crate::board_model::BoardModel;
use crate::i18n::{T, mark};

use super::app::use_ctx;
use super::board::Board;

#[derive(Debug, Properties, PartialEq)]
pub struct ReplayProps {
    pub game: Game,
    pub moves: Vec<Cell>,
}

#[component]
pub fn Replay(props: &ReplayProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let game = props.game;
    let all = use_memo((game, props.moves.clone()), |(g, m)| {
        (positions(*g, m), analyse(*g, m))
    });
    let (positions, analysis) = (&all.0, &all.1);
    let last = positions.len().saturating_sub(1);
    let ply = use_state(|| last);
    let at = (*ply).min(last);
    let go = {
        let ply = ply.clone();
        move |to: usize| {
            let ply = ply.clone();
            Callback::from(move |_: MouseEvent| ply.set(to.min(last)))
        }
    };
    let onkeydown = {
        let ply = ply.clone();
        Callback::from(move |e: KeyboardEvent| {
            // Arrow keys step in reading order of the move list, not by screen direction.
            let next = match e.key().as_str() {
                "ArrowLeft" | "ArrowUp" => Some(at.saturating_sub(1)),
                "ArrowRight" | "ArrowDown" => Some((at + 1).min(last)),
                "Home" => Some(0),
                "End" => Some(last),
                _ => None,
            };
            if let Some(n) = next {
                e.prevent_default();
                ply.set(n);
            }
        })
    };
    let model = positions
        .get(at)
        .map(BoardModel::from_position)
        .unwrap_or_default();
    let status = if at == 0 {
        ctx.t(T::StartPosition).to_owned()
    } else {
        lang.f(T::ReplayPosition, &[&at.to_string(), &last.to_string()])
    };
    html! {
        <section class="replay" id="replay" aria-label={ctx.t(T::Replay)}>
            <div class="replay-board">
                <p class="rail" aria-live="polite" id="replay-status">{ status }</p>
                <Board model={model} may_move={false} id="replay-board" />
                <div class="replay-controls" dir="ltr" tabindex="0" {onkeydown}>
                    <button type="button" onclick={go(0)} disabled={at == 0} aria-label={ctx.t(T::ReplayFirst)}>{ "⏮" }</button>
                    <button type="button" id="replay-prev" onclick={go(at.saturating_sub(1))} disabled={at == 0} aria-label={ctx.t(T::ReplayPrev)}>{ "◀" }</button>
                    <button type="button" id="replay-next" onclick={go(at + 1)} disabled={at >= last} aria-label={ctx.t(T::ReplayNext)}>{ "▶" }</button>
                    <button type="button" onclick={go(last)} disabled={at >= last} aria-label={ctx.t(T::ReplayLast)}>{ "⏭" }</button>
                </div>
            </div>
            <details class="panel moves" open=true>
                <summary><h2>{ ctx.t(T::MovesTitle) }</h2></summary>
                <p class="note">{ ctx.t(T::AnalysisNote) }</p>
                <ol class="move-list" id="move-list">
                    { for analysis.iter().map(|m| {
                        let slipped = m.slipped();
                        let current = m.number == at;
                        let mut text = format!("{} {}", mark(m.mover), lang.cell(m.cell));
                        if let Some(gone) = m.removed {
                            text.push_str(&format!(" (−{})", lang.cell(gone)));
                        }
                        html! {
                            <li class={classes!("move", current.then_some("current"), slipped.map(|_| "slipped"))}
                                aria-current={current.then_some("step")}>
                                <button type="button" class="move-jump" onclick={go(m.number)}>
                                    <span class="move-no">{ format!("{}.", m.number) }</span>
                                    <span class="move-text">{ text }</span>
                                </button>
                                <span class="verdict">
                                    <span class={m.before.class()}>{ m.before.text(lang) }</span>
                                    { " → " }
                                    <span class={m.after.class()}>{ m.after.text(lang) }</span>
                                </span>
                                if let Some(s) = slipped {
                                    <span class="slip">{ "✗ " }{ ctx.t(s) }</span>
                                }
                            </li>
                        }
                    }) }
                </ol>
            </details>
        </section>
    }
}
