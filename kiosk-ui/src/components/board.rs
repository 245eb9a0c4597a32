//! The board (U1–U5): a WAI-ARIA grid with one tab stop and a roving focus moved by the arrow
//! keys; Space and Enter place. It never mirrors (`dir="ltr"`), even in Arabic.

use engine::{Cell, Mark};
use web_sys::HtmlElement;
use yew::prelude::*;

use crate::board_model::{BoardModel, Nav, is_place_key, move_focus};
use crate::i18n::T;

use super::context::use_ctx;

#[derive(Debug, Properties, PartialEq)]
pub struct BoardProps {
    pub model: BoardModel,
    /// The reader may move now (their turn, or a local game's device).
    pub may_move: bool,
    #[prop_or_default]
    pub on_move: Callback<Cell>,
    /// The grid's id, for tests and focus.
    #[prop_or_else(|| AttrValue::from("board"))]
    pub id: AttrValue,
}

/// The mark's shape: X two strokes, O a ring; with their colours they differ three ways.
pub fn mark_svg(m: Mark) -> Html {
    match m {
        Mark::X => html! {
            <svg class="mark mark-x" viewBox="0 0 100 100" aria-hidden="true" focusable="false">
                <path d="M22 22 L78 78 M78 22 L22 78" />
            </svg>
        },
        Mark::O => html! {
            <svg class="mark mark-o" viewBox="0 0 100 100" aria-hidden="true" focusable="false">
                <circle cx="50" cy="50" r="29" />
            </svg>
        },
    }
}

/// Percent coordinates of a cell's centre on the board.
fn centre(cell: Cell) -> (u32, u32) {
    let (row, col) = (u32::from(cell / 3), u32::from(cell % 3));
    (col * 200 / 6 + 100 / 6, row * 200 / 6 + 100 / 6)
}

#[component]
pub fn Board(props: &BoardProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let focus = use_state(|| 4u8);
    let refs = use_state(|| (0..9).map(|_| NodeRef::default()).collect::<Vec<_>>());
    let model = props.model;

    let cells = (0..9u8)
        .map(|cell| {
            let playable = model.playable(cell, props.may_move);
            let onclick = {
                let on_move = props.on_move.clone();
                let focus = focus.clone();
                Callback::from(move |_: MouseEvent| {
                    focus.set(cell);
                    if playable {
                        on_move.emit(cell);
                    }
                })
            };
            let onkeydown = {
                let on_move = props.on_move.clone();
                let focus = focus.clone();
                let refs = refs.clone();
                Callback::from(move |e: KeyboardEvent| {
                    let key = e.key();
                    if let Some(nav) = Nav::from_key(&key, e.ctrl_key()) {
                        e.prevent_default();
                        let next = move_focus(cell, nav);
                        focus.set(next);
                        if let Some(el) = refs
                            .get(usize::from(next))
                            .and_then(|r| r.cast::<HtmlElement>())
                        {
                            // Focus can only fail on a detached node, which is about to vanish.
                            let _focused = el.focus();
                        }
                    } else if is_place_key(&key) {
                        e.prevent_default();
                        if playable {
                            on_move.emit(cell);
                        }
                    }
                })
            };
            let content = model.cells[usize::from(cell)];
            let class = classes!(
                "cell",
                content.map(|m| if m == Mark::X { "has-x" } else { "has-o" }),
                (model.glowing == Some(cell)).then_some("glow"),
                model
                    .line
                    .is_some_and(|l| l.contains(&cell))
                    .then_some("win"),
                (model.hint == Some(cell)).then_some("hint"),
                playable.then_some("playable"),
            );
            let tabindex = if *focus == cell { "0" } else { "-1" };
            html! {
                <div role="gridcell" {class} {tabindex} data-cell={cell.to_string()}
                    aria-label={model.label(cell, lang)}
                    aria-disabled={(!playable).to_string()}
                    ref={refs[usize::from(cell)].clone()} {onclick} {onkeydown}>
                    { content.map(mark_svg).unwrap_or_default() }
                </div>
            }
        })
        .collect::<Vec<Html>>();

    let rows = cells
        .chunks(3)
        .map(|row| {
            html! {
                <div role="row" class="board-row">{ for row.iter().cloned() }</div>
            }
        })
        .collect::<Html>();

    let line = model.line.map(|l| {
        let (x1, y1) = centre(l[0]);
        let (x2, y2) = centre(l[2]);
        html! {
            <svg class="win-line" viewBox="0 0 100 100" preserveAspectRatio="none" aria-hidden="true" focusable="false">
                <line x1={x1.to_string()} y1={y1.to_string()} x2={x2.to_string()} y2={y2.to_string()} />
            </svg>
        }
    }).unwrap_or_default();

    html! {
        <div class={classes!("board", props.may_move.then_some("my-turn"))} id={props.id.clone()}
            role="grid" dir="ltr" aria-label={ctx.t(T::BoardLabel)}>
            { rows }
            { line }
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::centre;

    #[test]
    fn the_line_runs_through_cell_centres() {
        assert_eq!(centre(0), (16, 16));
        assert_eq!(centre(4), (49, 49));
        assert_eq!(centre(8), (82, 82));
    }
}
