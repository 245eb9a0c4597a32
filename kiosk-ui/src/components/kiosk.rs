//! The kiosk's home (U7): Play a friend, Play the bot (game, difficulty, side, time), live
//! rooms to watch, and the QR code of the address phones should open. No sign-in.

use yew::prelude::*;

use crate::create_form::Opponent;
use crate::i18n::T;

use super::context::use_ctx;
use super::create_room::CreateRoomBox;
use super::lobby_list::LobbyList;
use super::navbar::Navbar;
use super::owner_code::OwnerCodeHeading;
use super::qr::{Qr, wifi_qr_text};

/// Which of the two big buttons is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Friend,
    Bot,
}

#[component]
pub fn Kiosk() -> Html {
    let ctx = use_ctx();
    let open = use_state(|| Open::Bot);
    let lang = ctx.lang();
    // 15.1: no QR code until the server has said where phones should go; this page's own
    // address may be the kiosk's loopback, which would send a phone to itself.
    let join = match ctx.state.public_url.clone() {
        Some(address) => html! {
            <div class="qr-card">
                <Qr text={AttrValue::from(address.clone())}
                    label={AttrValue::from(lang.f(T::QrLabel, &[&address]))} />
                <p class="address" id="address" dir="ltr">{ address.clone() }</p>
                if let Some(local) = ctx.state.local_url.clone().filter(|l| *l != address) {
                    <p class="local-address" id="local-address">{ lang.f(T::OrType, &[&local]) }</p>
                }
            </div>
        },
        None => {
            html! { <p class="note" id="address-pending" role="status">{ ctx.t(T::AddressPending) }</p> }
        }
    };
    let wifi = ctx
        .state
        .wifi
        .clone()
        .filter(|_| ctx.state.public_url.is_some())
        .map(|w| {
            let text = wifi_qr_text(&w.ssid, w.security, w.password.as_deref());
            html! {
                <div class="qr-card">
                    <Qr id="wifi-qr" text={AttrValue::from(text)}
                        label={AttrValue::from(lang.f(T::WifiQrLabel, &[&w.ssid]))} />
                    <p class="wifi-name" id="wifi-name">{ lang.f(T::WifiStep, &[&w.ssid]) }</p>
                </div>
            }
        });
    let two = wifi.is_some();
    let button = |which: Open, label: T, id: &str| {
        let open = open.clone();
        let expanded = *open == which;
        let onclick = Callback::from(move |_| open.set(which));
        html! {
            <button type="button" class={classes!("kiosk-choice", expanded.then_some("active"))}
                id={id.to_owned()} aria-expanded={expanded.to_string()} {onclick}>{ ctx.t(label) }</button>
        }
    };
    html! {
        <>
            <Navbar />
            <main id="main" class="kiosk-home">
                <section class="kiosk-play">
                    <div class="kiosk-choices">
                        { button(Open::Friend, T::PlayFriend, "play-friend") }
                        { button(Open::Bot, T::PlayBot, "play-bot") }
                    </div>
                    if *open == Open::Friend {
                        <CreateRoomBox key="friend" prefix="friend" fixed={Some(Opponent::Local)} compact={true} submit={AttrValue::from(ctx.t(T::StartGame))} />
                    } else {
                        <CreateRoomBox key="bot" prefix="bot" fixed={Some(Opponent::Bot)} compact={true} submit={AttrValue::from(ctx.t(T::StartGame))} />
                    }
                </section>
                <section class="kiosk-side">
                    // A long press on this heading shows the owner code (SPEC O1).
                    <OwnerCodeHeading text={AttrValue::from(ctx.t(T::JoinFromPhone))} />
                    <div class={classes!("qr-box", two.then_some("two"))}>
                        { wifi.unwrap_or_default() }
                        { join }
                    </div>
                    <h2>{ ctx.t(T::LiveRooms) }</h2>
                    <LobbyList rooms={ctx.state.lobby.clone()} total={ctx.state.lobby_total} kiosk={true} />
                </section>
            </main>
        </>
    }
}
