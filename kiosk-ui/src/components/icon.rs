//! Symbols drawn as inline SVG (14.3): the kiosk's image has DejaVu as its only font, which
//! lacks glyphs such as ⏮ and ⏭, so no control depends on a font for its symbol.

use yew::prelude::*;

/// A symbol of the interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Icon {
    /// Back, towards the start of the reading direction (mirrored in Arabic by CSS).
    Back,
    /// Forward, towards the end of the reading direction (mirrored in Arabic by CSS).
    Forward,
    /// Replay: the first position.
    First,
    /// Replay: one move back.
    Prev,
    /// Replay: one move on.
    Next,
    /// Replay: the last position.
    Last,
    /// A presence dot.
    Dot,
    /// A move that threw a result away.
    Slip,
    /// What a list's symbols mean: a question mark in a circle.
    Help,
    /// A win streak in an arena event (the next win scores 4).
    Fire,
}

/// The SVG of `icon`, sized to the text around it, hidden from screen readers (the control
/// it sits in carries the words).
pub fn icon(icon: Icon) -> Html {
    let (class, body) = match icon {
        Icon::Back => ("icon flip-rtl", html! { <path d="M15 4 L7 12 L15 20" /> }),
        Icon::Forward => ("icon flip-rtl", html! { <path d="M9 4 L17 12 L9 20" /> }),
        Icon::First => (
            "icon",
            html! { <><path d="M6 4 V20" /><path class="solid" d="M19 4 L9 12 L19 20 Z" /></> },
        ),
        Icon::Prev => (
            "icon",
            html! { <path class="solid" d="M17 4 L7 12 L17 20 Z" /> },
        ),
        Icon::Next => (
            "icon",
            html! { <path class="solid" d="M7 4 L17 12 L7 20 Z" /> },
        ),
        Icon::Last => (
            "icon",
            html! { <><path d="M18 4 V20" /><path class="solid" d="M5 4 L15 12 L5 20 Z" /></> },
        ),
        Icon::Dot => (
            "icon dot",
            html! { <circle class="solid" cx="12" cy="12" r="5" /> },
        ),
        Icon::Slip => ("icon", html! { <path d="M6 6 L18 18 M18 6 L6 18" /> }),
        Icon::Help => (
            "icon",
            html! {
                <>
                    <circle cx="12" cy="12" r="10" />
                    <path d="M9.2 9.2 A2.9 2.9 0 1 1 12 13 V14.6" />
                    <circle class="solid" cx="12" cy="18.2" r="1.5" />
                </>
            },
        ),
        Icon::Fire => (
            "icon fire",
            html! { <path class="solid" d="M12 1C13 6 19 8 19 15A7 7 0 0 1 5 15C5 11 8 9 9 6C10 9 11 10 12.5 10C12 7 11 4 12 1Z" /> },
        ),
    };
    html! {
        <svg {class} viewBox="0 0 24 24" aria-hidden="true" focusable="false">{ body }</svg>
    }
}
