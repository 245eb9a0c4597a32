//! A player's card: name, mark, rating, presence, ready flag, and the rating change after a
//! rated result (E3: green gain, red loss, neutral white for zero).

use protocol::SeatView;
use yew::prelude::*;

use crate::i18n::{T, mark};
use crate::room_model::{change_class, seat_name, signed};

use super::board::mark_svg;
use super::context::use_ctx;
use super::icon::{Icon, icon};

#[derive(Debug, Properties, PartialEq)]
pub struct PlayerCardProps {
    pub seat: SeatView,
    pub index: u8,
    pub host: bool,
    pub is_you: bool,
    /// Waiting rooms show ready flags.
    pub waiting: bool,
    pub change: Option<i32>,
    /// It is this player's turn.
    pub to_move: bool,
    /// Extra controls (Kick, Ready) placed on the card.
    #[prop_or_default]
    pub children: Html,
}

#[component]
pub fn PlayerCard(props: &PlayerCardProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let seat = &props.seat;
    let Some(player) = &seat.player else {
        return html! {
            <section class="card empty" id={format!("seat-{}", props.index)}>
                <p class="card-name">{ ctx.t(T::SeatOpen) }</p>
                { props.children.clone() }
            </section>
        };
    };
    let name = seat_name(player, lang);
    let is_bot = matches!(player.player, protocol::records::PlayerRef::Bot { .. });
    html! {
        <section class={classes!("card", props.to_move.then_some("to-move"))} id={format!("seat-{}", props.index)}>
            <p class="card-name">
                <bdi class="name" title={name.clone()}>{ name }</bdi>
                if props.is_you { <span class="tag">{ format!(" ({})", ctx.t(T::You)) }</span> }
                if let Some(m) = seat.mark {
                    <span class="card-mark" aria-label={mark(m)}>{ mark_svg(m) }</span>
                }
            </p>
            <p class="card-meta">
                if props.host { <span class="tag host">{ ctx.t(T::Host) }</span> }
                if let Some(r) = player.rating {
                    <span class="rating">{ lang.f(T::RatingValue, &[&lang.num(r)]) }</span>
                }
                if let Some(c) = props.change {
                    <span class={classes!("change", change_class(c))}
                        aria-label={lang.f(T::RatingChange, &[&signed(c)])}>{ lang.num(signed(c)) }</span>
                }
            </p>
            <p class="card-meta">
                if !is_bot {
                    <span class={classes!("presence", seat.present.then_some("here"))}>
                        { icon(Icon::Dot) }
                        { ctx.t(if seat.present { T::Present } else { T::Away }) }
                    </span>
                }
                if props.waiting {
                    <span class={classes!("ready", seat.ready.then_some("yes"))}>
                        { ctx.t(if seat.ready { T::Ready } else { T::NotReady }) }
                    </span>
                }
            </p>
            { props.children.clone() }
        </section>
    }
}
