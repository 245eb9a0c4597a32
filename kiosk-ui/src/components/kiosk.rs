//! The kiosk's home (U7): Play a friend, Play the bot (game, difficulty, side, time), live
//! rooms to watch, and the QR code of the address phones should open. No sign-in.
//!
//! Left alone for the idle time it shows what is happening in place of the controls
//! ([`Attract`], U13), under a sheet that covers the whole screen: the next touch (or key)
//! brings the controls back and does nothing else. The QR code and the live rooms keep their
//! place throughout.

use yew::prelude::*;

use crate::create_form::Opponent;
use crate::i18n::T;
use crate::state::Action;

use super::attract::Attract;
use super::context::use_ctx;
use super::create_room::CreateRoomBox;
use super::lobby_list::LobbyList;
use super::navbar::Navbar;
use super::owner_code::OwnerCodeHeading;
use super::puzzle::daily_list;
use super::qr::{Qr, wifi_qr_text};

/// The address as people read it beside the QR code: an IP address without its `http://`,
/// which every phone's browser adds by itself, so that it stays on one line in the kiosk's
/// narrow column; any other address (a name, `https://`) whole.
pub fn shown_address(url: &str) -> &str {
    let Some(rest) = url.strip_prefix("http://") else {
        return url;
    };
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let host = rest.rsplit_once(':').map_or(rest, |(host, port)| {
        if port.bytes().all(|b| b.is_ascii_digit()) {
            host
        } else {
            rest
        }
    });
    if host.parse::<std::net::Ipv4Addr>().is_ok() {
        rest
    } else {
        url
    }
}

/// "or type {0}" with the address in a span of its own that never breaks: the sentence may
/// wrap between its words, never inside the address.
fn or_type(template: &str, local: &str) -> Html {
    let (before, after) = template.split_once("{0}").unwrap_or((template, ""));
    html! {
        <>
            { before }<span class="url" dir="ltr">{ local.to_owned() }</span>{ after }
        </>
    }
}

/// Which of the two big buttons is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Friend,
    Bot,
    /// The day's puzzles, played on the kiosk itself (PZ4).
    Puzzle,
}

#[component]
pub fn Kiosk() -> Html {
    let ctx = use_ctx();
    // EV6: while an event is on, the home is its board; "Play on the kiosk" shows the home's
    // own controls until the kiosk is left alone again.
    let board = super::event::use_board_event();
    let play_here = use_state(|| false);
    {
        let play_here = play_here.clone();
        use_effect_with(ctx.state.attract, move |attract| {
            if *attract {
                play_here.set(false);
            }
        });
    }
    if let Some(id) = board.filter(|_| !*play_here) {
        let on_play = {
            let (play_here, ctx) = (play_here.clone(), ctx.clone());
            Callback::from(move |_| {
                ctx.dispatch(Action::Attract(false));
                play_here.set(true);
            })
        };
        return html! { <super::event::EventBoard id={AttrValue::from(id)} {on_play} /> };
    }
    html! { <KioskHome /> }
}

/// The kiosk's own home: the play choices, the QR code, the live rooms.
#[component]
fn KioskHome() -> Html {
    let ctx = use_ctx();
    let open = use_state(|| Open::Bot);
    let lang = ctx.lang();
    let two = ctx.state.wifi.is_some() && ctx.state.public_url.is_some();
    // A long press on this heading shows the owner code (SPEC O1). With one code it sits
    // beside the code, above the address, so the live rooms keep the column's height.
    let heading = html! { <OwnerCodeHeading text={AttrValue::from(ctx.t(T::JoinFromPhone))} /> };
    // 15.1: no QR code until the server has said where phones should go; this page's own
    // address may be the kiosk's loopback, which would send a phone to itself.
    let join = match ctx.state.public_url.clone() {
        Some(address) => html! {
            <div class="qr-card">
                <Qr text={AttrValue::from(address.clone())}
                    label={AttrValue::from(lang.f(T::QrLabel, &[&address]))} />
                // One column beside the code: the address on one line, the name under it.
                <div class="qr-text">
                    if !two { { heading.clone() } }
                    <p class="address" id="address" dir="ltr">{ shown_address(&address) }</p>
                    if let Some(local) = ctx.state.local_url.clone().filter(|l| *l != address) {
                        <p class="local-address" id="local-address">{ or_type(lang.t(T::OrType), &local) }</p>
                    }
                </div>
            </div>
        },
        None => html! {
            <div class="qr-text">
                { heading.clone() }
                <p class="note" id="address-pending" role="status">{ ctx.t(T::AddressPending) }</p>
            </div>
        },
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
    let button = |which: Open, label: T, id: &str| {
        let open = open.clone();
        let expanded = *open == which;
        let onclick = Callback::from(move |_| open.set(which));
        html! {
            <button type="button" class={classes!("kiosk-choice", expanded.then_some("active"))}
                id={id.to_owned()} aria-expanded={expanded.to_string()} {onclick}>{ ctx.t(label) }</button>
        }
    };
    // The day's puzzles and their solve counts, asked again each time the choice opens.
    let daily = super::puzzle::use_daily(u32::from(*open == Open::Puzzle));
    let attract = ctx.state.attract;
    let wake = {
        let ctx = ctx.clone();
        Callback::from(move |e: MouseEvent| {
            e.prevent_default();
            ctx.dispatch(Action::Attract(false));
        })
    };
    let wake_key = {
        let ctx = ctx.clone();
        Callback::from(move |e: KeyboardEvent| {
            e.prevent_default();
            ctx.dispatch(Action::Attract(false));
        })
    };
    // The sheet takes the focus, so a key goes to it and not to a control under it.
    let sheet = use_node_ref();
    {
        let sheet = sheet.clone();
        use_effect_with(attract, move |on| {
            if *on && let Some(el) = sheet.cast::<web_sys::HtmlElement>() {
                // Focus is a courtesy to keyboards; a page that cannot take it still wakes.
                let _focus = el.focus();
            }
        });
    }
    html! {
        <>
            <Navbar />
            <main id="main" class={classes!("kiosk-home", attract.then_some("attracting"))}>
                if attract {
                    <Attract />
                } else {
                    <section class="kiosk-play">
                        <div class="kiosk-choices">
                            { button(Open::Friend, T::PlayFriend, "play-friend") }
                            { button(Open::Bot, T::PlayBot, "play-bot") }
                            { button(Open::Puzzle, T::DailyPuzzle, "play-puzzle") }
                        </div>
                        if *open == Open::Puzzle {
                            <section class="kiosk-daily" aria-label={ctx.t(T::PuzzleOfDay)}>
                                if let Some(puzzles) = daily {
                                    { daily_list(&ctx, &puzzles, true) }
                                }
                            </section>
                        } else if *open == Open::Friend {
                            <CreateRoomBox key="friend" prefix="friend" fixed={Some(Opponent::Local)} compact={true} submit={AttrValue::from(ctx.t(T::StartGame))} />
                        } else {
                            <CreateRoomBox key="bot" prefix="bot" fixed={Some(Opponent::Bot)} compact={true} submit={AttrValue::from(ctx.t(T::StartGame))} />
                        }
                    </section>
                }
                <section class="kiosk-side">
                    if two { { heading } }
                    <div class={classes!("qr-box", two.then_some("two"))}>
                        { wifi.unwrap_or_default() }
                        { join }
                    </div>
                    <h2>{ ctx.t(T::LiveRooms) }</h2>
                    <LobbyList rooms={ctx.state.lobby.clone()} total={ctx.state.lobby_total} kiosk={true} />
                </section>
            </main>
            if attract {
                // Over everything, the navbar's language switch included: the waking touch
                // lands here and nowhere else.
                <button type="button" class="attract-wake" id="attract-wake" data-prompt="attract"
                    ref={sheet} onclick={wake} onkeydown={wake_key}>
                    <span class="sr-only">{ ctx.t(T::AttractTouch) }</span>
                </button>
            }
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::shown_address;

    #[test]
    fn an_ip_address_is_shown_without_its_scheme_and_a_name_whole() {
        assert_eq!(shown_address("http://192.168.100.200"), "192.168.100.200");
        assert_eq!(shown_address("http://10.0.2.15:8080/"), "10.0.2.15:8080");
        assert_eq!(shown_address("http://xo.local"), "http://xo.local");
        assert_eq!(shown_address("https://192.168.1.2"), "https://192.168.1.2");
        assert_eq!(
            shown_address("http://[fd00::1]:8080"),
            "http://[fd00::1]:8080"
        );
        assert_eq!(shown_address("http://1.2.3.4/path"), "http://1.2.3.4/path");
    }
}
