//! Replay (U10) with analysis (U11): the step buttons and the arrow keys go through the game,
//! showing vanished marks as they were; each move shows the table's verdict for the mover
//! before → after it (← in Arabic), and marks a move that threw a result away.
//!
//! It fills the three places of a room's grid: the rail ("Move N of M"), the centre (the
//! board with the step buttons under it) and the side (what the caller puts first, e.g. the
//! result and "Back to the game", then the move list, which scrolls and keeps the current move
//! in view). At 800×480 the move list takes the side panel's place (UI.md).

use engine::{Cell, Game};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::analysis::{analyse, positions};
use crate::board_model::BoardModel;
use crate::i18n::{T, mark};

use super::board::Board;
use super::context::use_ctx;
use super::icon::{Icon, icon};

#[derive(Debug, Properties, PartialEq)]
pub struct ReplayProps {
    pub game: Game,
    pub moves: Vec<Cell>,
    /// Shown at the top of the side, above the move list.
    #[prop_or_default]
    pub children: Html,
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
    let list_ref = use_node_ref();
    // Keep the current move in view inside the list (never scrolling the page itself).
    {
        let list_ref = list_ref.clone();
        use_effect_with(at, move |at| {
            if let Some(list) = list_ref.cast::<web_sys::HtmlElement>() {
                let current = list
                    .query_selector("li.current")
                    .ok()
                    .flatten()
                    .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
                match current {
                    Some(li) => {
                        let (top, bottom) = (li.offset_top(), li.offset_top() + li.offset_height());
                        let (view_top, view_h) = (list.scroll_top(), list.client_height());
                        if top < view_top {
                            list.set_scroll_top(top);
                        } else if bottom > view_top + view_h {
                            list.set_scroll_top(bottom - view_h);
                        }
                    }
                    None if *at == 0 => list.set_scroll_top(0),
                    None => {}
                }
            }
        });
    }
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
            // Arrow keys step in the order of the move list, not by screen direction.
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
        lang.f(T::ReplayPosition, &[&lang.num(at), &lang.num(last)])
    };
    let step = |id: &'static str, to: usize, off: bool, label: T, which: Icon| {
        html! {
            <button type="button" class="step" id={id} onclick={go(to)} disabled={off}
                aria-label={ctx.t(label)} title={ctx.t(label)}>{ icon(which) }</button>
        }
    };
    let moves = if analysis.is_empty() {
        html! { <p class="note" id="no-moves">{ ctx.t(T::NoMoves) }</p> }
    } else {
        html! {
            <ol class="move-list" id="move-list" ref={list_ref}>
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
                                <bdi class="move-no">{ lang.f(T::MoveNumber, &[&lang.num(m.number)]) }</bdi>
                                { " " }
                                <bdi class="move-text">{ text }</bdi>
                            </button>
                            <span class="verdict">
                                <span class={m.before.class()}>{ m.before.text(lang) }</span>
                                <span class="arrow">{ ctx.t(T::VerdictArrow) }</span>
                                <span class={m.after.class()}>{ m.after.text(lang) }</span>
                            </span>
                            if let Some(s) = slipped {
                                <span class="slip">{ icon(Icon::Slip) }{ ctx.t(s) }</span>
                            }
                        </li>
                    }
                }) }
            </ol>
        }
    };
    html! {
        <>
            <div class="rail replay-rail">
                <p class="rail-main" aria-live="polite" id="replay-status">{ status }</p>
            </div>
            <section class="centre replay" id="replay" aria-label={ctx.t(T::Replay)}>
                <div class="board-wrap">
                    <Board model={model} may_move={false} id="replay-board" />
                </div>
                <div class="replay-controls" dir="ltr" tabindex="0" {onkeydown}>
                    { step("replay-first", 0, at == 0, T::ReplayFirst, Icon::First) }
                    { step("replay-prev", at.saturating_sub(1), at == 0, T::ReplayPrev, Icon::Prev) }
                    { step("replay-next", at + 1, at >= last, T::ReplayNext, Icon::Next) }
                    { step("replay-last", last, at >= last, T::ReplayLast, Icon::Last) }
                </div>
            </section>
            <aside class="side replay-side">
                { props.children.clone() }
                <section class="moves" aria-labelledby="moves-title">
                    <h2 id="moves-title">{ ctx.t(T::MovesTitle) }</h2>
                    { moves }
                    <p class="note analysis-note">{ ctx.t(T::AnalysisNote) }</p>
                </section>
            </aside>
        </>
    }
}
