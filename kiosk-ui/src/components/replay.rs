//! Replay (U10) with analysis (U11): the step buttons and the arrow keys go through the game,
//! showing vanished marks as they were; each move shows the table's verdict for the mover
//! before → after it (← in Arabic), and marks a move that threw a result away (a red cross,
//! its words for screen readers and in the help).
//!
//! It fills two places of a room's grid: the centre (the board with the step buttons under
//! it) and the side: a header row ("Move N of M", the help toggle that explains the verdicts,
//! and the caller's `actions`, e.g. "Back to the game"), the caller's `summary` (a stored
//! game's players and result), then the move list, which takes the rest of the height,
//! scrolls, and keeps the current move in view. A move is one row, one button. The result is
//! not repeated here: a room shows it in the banner at the top. At 800×480 the move list
//! takes the side panel's place and shows at least five moves (UI.md).

use engine::{Cell, Game, Position};
use wasm_bindgen::JsCast;
use yew::prelude::*;

use crate::analysis::{analyse, positions};
use crate::board_model::BoardModel;
use crate::i18n::{T, mark};

use super::board::Board;
use super::context::use_ctx;
use super::icon::{Icon, icon};

/// Scrolls the move list just enough to show the current move whole (the top at the start).
fn keep_in_view(list_ref: &NodeRef, at: usize) {
    let Some(list) = list_ref.cast::<web_sys::HtmlElement>() else {
        return;
    };
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
        None if at == 0 => list.set_scroll_top(0),
        None => {}
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct ReplayProps {
    pub game: Game,
    /// Where the moves start: the empty board, or a puzzle's position.
    #[prop_or_default]
    pub start: Option<Position>,
    pub moves: Vec<Cell>,
    /// Controls at the end of the side's header row.
    #[prop_or_default]
    pub actions: Html,
    /// Shown between the header and the move list.
    #[prop_or_default]
    pub summary: Html,
}

#[component]
pub fn Replay(props: &ReplayProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let game = props.game;
    let start = props.start.unwrap_or(Position::start(game));
    let all = use_memo((start, props.moves.clone()), |(s, m)| {
        (positions(*s, m), analyse(*s, m))
    });
    let (positions, analysis) = (&all.0, &all.1);
    let last = positions.len().saturating_sub(1);
    let ply = use_state(|| last);
    let help = use_state(|| false);
    let at = (*ply).min(last);
    let list_ref = use_node_ref();
    // Keep the current move in view inside the list (never scrolling the page itself): when
    // it changes, when the language changes the rows, and when the window changes size.
    {
        let list_ref = list_ref.clone();
        use_effect_with((at, lang), move |(at, _)| keep_in_view(&list_ref, *at));
    }
    let at_now = use_mut_ref(|| at);
    *at_now.borrow_mut() = at;
    {
        let list_ref = list_ref.clone();
        use_effect_with((), move |_| {
            let listener = crate::dom::window().map(|w| {
                gloo::events::EventListener::new(&w, "resize", move |_| {
                    keep_in_view(&list_ref, *at_now.borrow());
                })
            });
            move || drop(listener)
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
            <ol class="move-list" id="move-list" ref={list_ref} aria-labelledby="moves-title">
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
                                { " " }
                                <span class="verdict">
                                    <span class={m.before.class()}>{ m.before.text(lang) }</span>
                                    <span class="arrow">{ ctx.t(T::VerdictArrow) }</span>
                                    <span class={m.after.class()}>{ m.after.text(lang) }</span>
                                </span>
                                // The marker alone, so the row stays short; its words are
                                // read out, shown on a long press, and in the help.
                                if let Some(s) = slipped {
                                    <span class="slip" title={ctx.t(s)}>{ icon(Icon::Slip) }<span class="sr-only">{ ctx.t(s) }</span></span>
                                }
                            </button>
                        </li>
                    }
                }) }
            </ol>
        }
    };
    let toggle_help = {
        let help = help.clone();
        Callback::from(move |_: MouseEvent| help.set(!*help))
    };
    html! {
        <>
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
                <div class="replay-head">
                    <h2 class="sr-only" id="moves-title">{ ctx.t(T::MovesTitle) }</h2>
                    <p class="replay-status" aria-live="polite" id="replay-status">{ status }</p>
                    <button type="button" class="help-toggle" id="analysis-help"
                        aria-expanded={(*help).to_string()} aria-controls="analysis-note"
                        aria-label={ctx.t(T::AnalysisHelp)} title={ctx.t(T::AnalysisHelp)}
                        onclick={toggle_help}>{ icon(Icon::Help) }</button>
                    { props.actions.clone() }
                </div>
                if *help {
                    <p class="note analysis-note" id="analysis-note">
                        { ctx.t(T::AnalysisNote) }{ " " }
                        <span class="slip">{ icon(Icon::Slip) }</span>{ " " }{ ctx.t(T::SlipNote) }
                    </p>
                }
                { props.summary.clone() }
                { moves }
            </aside>
        </>
    }
}
