//! The room screen: player cards, the rail and the board, the waiting-room controls (ready,
//! kick, start, requests, passcode, share link), draw offers, hints, undo, replay, the ELO
//! preview, the spectator count, and the navbar controls of U9.

use engine::Mark;
use protocol::{ClientMsg, Joining, Phase, RoomKind, RoomView};
use yew::prelude::*;

use crate::board_model::BoardModel;
use crate::dom;
use crate::i18n::{T, mark};
use crate::room_model::{self, NavControls, change_for, named_mark, player_name};
use crate::route::Route;
use crate::state::LiveRoom;

use super::app::{Ctx, use_ctx};
use super::board::Board;
use super::clock::Clock;
use super::elo_panel::EloPanel;
use super::link::Link;
use super::navbar::Navbar;
use super::player_card::PlayerCard;
use super::replay::Replay;

#[derive(Debug, Properties, PartialEq)]
pub struct RoomProps {
    pub id: String,
    pub kiosk: bool,
}

/// A destructive action waiting for its one confirmation (UI.md: ask once, in place).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Confirm {
    Resign,
    ResignExit,
    Kick,
}

fn send(ctx: &Ctx, msg: ClientMsg) -> Callback<MouseEvent> {
    let ctx = ctx.clone();
    Callback::from(move |_| ctx.send.emit(msg.clone()))
}

#[component]
pub fn RoomPage(props: &RoomProps) -> Html {
    let ctx = use_ctx();
    let confirm = use_state(|| None::<Confirm>);
    let replaying = use_state(|| false);
    let Some(live) = ctx.state.room.clone().filter(|r| r.view.id == props.id) else {
        return html! {
            <>
                <Navbar />
                <main id="main" class="page"><p role="status">{ ctx.t(T::Loading) }</p></main>
            </>
        };
    };
    let room = &live.view;
    let lang = ctx.lang();
    let finished = room.phase == Phase::Finished || room.result.is_some();
    // Replay is offered for finished games and during bot and local games (U10).
    let replay_offered = !room.moves.is_empty()
        && (finished || matches!(room.kind, RoomKind::Bot { .. } | RoomKind::Local));
    let show_replay = *replaying && replay_offered;

    let actions = nav_actions(&ctx, room, &confirm);
    let title = lang.game(room.game);

    let cards = room.seats.iter().enumerate().map(|(i, seat)| {
        let index = i as u8;
        let is_you = room.you.seat == Some(index) && room.kind != RoomKind::Local;
        let waiting = room.phase == Phase::Waiting;
        let mut controls = Vec::new();
        if waiting && is_you {
            let ready = seat.ready;
            controls.push(html! {
                <button type="button" class="ready-toggle" id="ready" aria-pressed={ready.to_string()}
                    onclick={send(&ctx, ClientMsg::Ready { id: None, ready: !ready })}>
                    { ctx.t(T::Ready) }
                </button>
            });
        }
        if waiting && room.you.host && index == 1 && seat.player.is_some() {
            let name = seat.player.as_ref().map(|p| player_name(&p.player, lang)).unwrap_or_default();
            controls.push(if *confirm == Some(Confirm::Kick) {
                let no = { let confirm = confirm.clone(); Callback::from(move |_| confirm.set(None)) };
                let yes = {
                    let ctx = ctx.clone();
                    let confirm = confirm.clone();
                    Callback::from(move |_| { ctx.send.emit(ClientMsg::Kick { id: None }); confirm.set(None); })
                };
                html! {
                    <div class="confirm" role="group">
                        <span>{ lang.f(T::KickConfirm, &[&name]) }</span>
                        <button type="button" class="danger" id="kick-yes" onclick={yes}>{ ctx.t(T::Yes) }</button>
                        <button type="button" onclick={no}>{ ctx.t(T::No) }</button>
                    </div>
                }
            } else {
                let ask = { let confirm = confirm.clone(); Callback::from(move |_| confirm.set(Some(Confirm::Kick))) };
                html! { <button type="button" class="danger" id="kick" onclick={ask}>{ ctx.t(T::Kick) }</button> }
            });
        }
        html! {
            <PlayerCard seat={seat.clone()} index={index} host={i == 0 && matches!(room.kind, RoomKind::Online { .. })}
                is_you={is_you} waiting={waiting}
                change={change_for(room, seat.mark)}
                to_move={room.phase == Phase::Playing && !finished && seat.mark == Some(room.turn)}>
                { for controls }
            </PlayerCard>
        }
    }).collect::<Html>();

    let centre = if show_replay {
        html! { <Replay game={room.game} moves={room.moves.clone()} /> }
    } else {
        live_board(&ctx, &live)
    };

    html! {
        <>
            <Navbar title={title} actions={actions} />
            <main id="main" class={classes!("room", props.kiosk.then_some("kiosk-room"))}>
                <aside class="cards" aria-label={ctx.t(T::Players)}>{ cards }</aside>
                <section class="centre">{ centre }</section>
                <aside class="side">
                    { side_panel(&ctx, room, finished, replay_offered, &replaying) }
                </aside>
            </main>
        </>
    }
}

/// The rail (U2) and the board (U1–U5) of the live game.
fn live_board(ctx: &Ctx, live: &LiveRoom) -> Html {
    let room = &live.view;
    let lang = ctx.lang();
    let mut model = BoardModel::from_room(room);
    model.hint = ctx.state.hint;
    let may_move = room.you.to_move && room.phase == Phase::Playing && room.result.is_none();
    let on_move = {
        let ctx = ctx.clone();
        Callback::from(move |cell| ctx.send.emit(ClientMsg::Move { id: None, cell }))
    };
    let clock = room
        .clock
        .filter(|_| room.result.is_none() && room.phase == Phase::Playing)
        .map(|c| html! { <>{ " · " }<Clock clock={c} received_ms={live.received_ms} /></> })
        .unwrap_or_default();
    html! {
        <>
            <div class={classes!("rail", may_move.then_some("my-turn"), room.result.is_some().then_some("over"))} id="rail">
                <p class="rail-main"><span id="rail-text">{ room_model::rail_text(room, lang) }</span>{ clock }</p>
                if room.repetition_warning && room.result.is_none() {
                    <p class="warning" id="repetition-warning">{ ctx.t(T::RepetitionWarning) }</p>
                }
            </div>
            <Board model={model} may_move={may_move} on_move={on_move} />
        </>
    }
}

/// U9: Resign and Resign & Exit during an active rated game, Exit otherwise; each
/// resignation asks once, in place.
fn nav_actions(ctx: &Ctx, room: &RoomView, confirm: &UseStateHandle<Option<Confirm>>) -> Html {
    let ask = |what: Confirm| {
        let confirm = confirm.clone();
        Callback::from(move |_: MouseEvent| confirm.set(Some(what)))
    };
    match room_model::nav_controls(room) {
        NavControls::Resign => match **confirm {
            Some(what @ (Confirm::Resign | Confirm::ResignExit)) => {
                let yes = {
                    let ctx = ctx.clone();
                    let confirm = confirm.clone();
                    Callback::from(move |_| {
                        // Exit during play is the same resignation, answered by `left` (M3.9).
                        ctx.send.emit(if what == Confirm::Resign {
                            ClientMsg::Resign { id: None }
                        } else {
                            ClientMsg::Exit { id: None }
                        });
                        confirm.set(None);
                    })
                };
                let no = {
                    let confirm = confirm.clone();
                    Callback::from(move |_| confirm.set(None))
                };
                html! {
                    <div class="confirm" role="group">
                        <span>{ ctx.t(T::ResignConfirm) }</span>
                        <button type="button" class="danger" id="resign-yes" onclick={yes}>{ ctx.t(T::Yes) }</button>
                        <button type="button" id="resign-no" onclick={no}>{ ctx.t(T::No) }</button>
                    </div>
                }
            }
            _ => html! {
                <>
                    <button type="button" class="danger" id="resign" onclick={ask(Confirm::Resign)}>{ ctx.t(T::Resign) }</button>
                    <button type="button" class="danger" id="resign-exit" onclick={ask(Confirm::ResignExit)}>{ ctx.t(T::ResignExit) }</button>
                </>
            },
        },
        NavControls::Exit => html! {
            <button type="button" id="exit" onclick={send(ctx, ClientMsg::Exit { id: None })}>{ ctx.t(T::Exit) }</button>
        },
        NavControls::Close => {
            let home = ctx.state.route.home();
            let label = ctx.t(T::Exit);
            let ctx = ctx.clone();
            let onclick = Callback::from(move |_| ctx.navigate(home.clone()));
            html! { <button type="button" id="exit" {onclick}>{ label }</button> }
        }
    }
}

fn side_panel(
    ctx: &Ctx,
    room: &RoomView,
    finished: bool,
    replay_offered: bool,
    replaying: &UseStateHandle<bool>,
) -> Html {
    let lang = ctx.lang();
    let seated = room_model::is_player(room);
    let online = matches!(room.kind, RoomKind::Online { .. });
    let mut parts: Vec<Html> = Vec::new();

    if room.phase == Phase::Waiting && online {
        parts.push(waiting_panel(ctx, room));
    }

    if let Some(result) = &room.result {
        parts.push(html! {
            <p class="result" id="result">{ room_model::result_text(room, result.end, lang) }</p>
        });
    }

    if room.phase == Phase::Playing && !finished && online && seated {
        let me = room_model::my_mark(room);
        let offer = match (room.draw_offer, me) {
            (Some(by), Some(me)) if by == me => html! {
                <button type="button" id="offer-draw" disabled=true>{ ctx.t(T::DrawOffered) }</button>
            },
            (Some(by), Some(_)) => html! {
                <div class="draw-offer" role="group">
                    <p>{ lang.f(T::AnnDrawOffered, &[&named_mark(room, by, lang)]) }</p>
                    <button type="button" id="accept-draw" onclick={send(ctx, ClientMsg::AnswerDraw { id: None, accept: true })}>{ ctx.t(T::AcceptDraw) }</button>
                    <button type="button" id="decline-draw" onclick={send(ctx, ClientMsg::AnswerDraw { id: None, accept: false })}>{ ctx.t(T::Decline) }</button>
                </div>
            },
            _ => html! {
                <button type="button" id="offer-draw" onclick={send(ctx, ClientMsg::OfferDraw { id: None })}>{ ctx.t(T::OfferDraw) }</button>
            },
        };
        parts.push(html! { <div class="panel actions">{ offer }</div> });
    }

    if !online && seated {
        let is_bot = matches!(room.kind, RoomKind::Bot { .. });
        let hint_ok = is_bot && room.you.to_move && !finished;
        parts.push(html! {
            <div class="panel actions">
                if is_bot {
                    <button type="button" id="hint" disabled={!hint_ok} onclick={send(ctx, ClientMsg::Hint { id: None })}>{ ctx.t(T::Hint) }</button>
                }
                <button type="button" id="undo" disabled={!room.can_undo || **replaying} onclick={send(ctx, ClientMsg::Undo { id: None })}>{ ctx.t(T::Undo) }</button>
            </div>
        });
    }

    if replay_offered {
        let toggle = {
            let replaying = replaying.clone();
            Callback::from(move |_| replaying.set(!*replaying))
        };
        let label = if **replaying {
            T::BackToGame
        } else {
            T::Replay
        };
        parts.push(html! {
            <div class="panel actions">
                <button type="button" id="replay-toggle" aria-pressed={replaying.to_string()} onclick={toggle}>{ ctx.t(label) }</button>
            </div>
        });
    }

    if let (Some(elo), Phase::Playing, false) = (room.elo, room.phase, finished) {
        let name = |m: Mark| {
            room_model::seat_of(room, m)
                .and_then(|s| s.player.as_ref())
                .map(|p| player_name(&p.player, lang))
                .unwrap_or_else(|| mark(m).to_owned())
        };
        parts.push(html! {
            <EloPanel elo={elo} me={room_model::my_mark(room)}
                x_name={AttrValue::from(name(Mark::X))} o_name={AttrValue::from(name(Mark::O))} />
        });
    }

    if !seated {
        parts.push(html! { <p class="note" id="spectating">{ ctx.t(T::YouWatch) }</p> });
    }
    parts.push(html! {
        <p class="spectators" id="spectators">
            { lang.f(T::Watching, &[&room.spectators.to_string()]) }
        </p>
    });
    parts.into_iter().collect()
}

/// Before play in an online room: the host's passcode, share link, requests and Start; a
/// visitor's Join (with a passcode when asked) or pending request.
fn waiting_panel(ctx: &Ctx, room: &RoomView) -> Html {
    html! { <WaitingPanel room={room.clone()} kiosk={ctx.state.route.is_kiosk()} /> }
}

#[derive(Debug, Properties, PartialEq)]
struct WaitingProps {
    room: RoomView,
    kiosk: bool,
}

#[component]
fn WaitingPanel(props: &WaitingProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let passcode = use_state(String::new);
    let room = &props.room;
    let link = format!(
        "{}{}",
        dom::origin(),
        Route::Room {
            id: room.id.clone(),
            kiosk: false
        }
        .path()
    );
    let seated = room.you.seat.is_some();
    let seat2 = room.seats[1].player.is_some();
    let mut parts: Vec<Html> = Vec::new();

    if room.you.host {
        if let RoomKind::Online {
            joining: Joining::Passcode { code: Some(code) },
        } = &room.kind
        {
            parts.push(
                html! { <p class="passcode" id="passcode">{ lang.f(T::PasscodeIs, &[code]) }</p> },
            );
        }
        if !room.requests.is_empty() {
            parts.push(html! {
                <section class="requests" aria-labelledby="requests-title">
                    <h2 id="requests-title">{ ctx.t(T::Requests) }</h2>
                    <ul>
                        { for room.requests.iter().map(|r| html! {
                            <li>
                                <span class="name">{ r.name.clone() }</span>
                                <button type="button" class="accept" onclick={send(&ctx, ClientMsg::Accept { id: None, user: r.user })}>{ ctx.t(T::Accept) }</button>
                                <button type="button" class="decline" onclick={send(&ctx, ClientMsg::Decline { id: None, user: r.user })}>{ ctx.t(T::Decline) }</button>
                            </li>
                        }) }
                    </ul>
                </section>
            });
        }
        let can_start = seat2 && room.seats.iter().all(|s| s.ready);
        parts.push(html! {
            <div class="start">
                <button type="button" id="start" class="primary" disabled={!can_start}
                    onclick={send(&ctx, ClientMsg::Start { id: None })}>{ ctx.t(T::StartGame) }</button>
                if !can_start { <p class="note">{ ctx.t(T::StartNeedsReady) }</p> }
            </div>
        });
    }

    if !seated {
        if room.you.requested {
            parts.push(html! {
                <div class="join">
                    <p role="status">{ ctx.t(T::RequestSent) }</p>
                    <button type="button" id="cancel-request" onclick={send(&ctx, ClientMsg::CancelRequest { id: None })}>{ ctx.t(T::CancelRequest) }</button>
                </div>
            });
        } else if !seat2 {
            if ctx.state.signed_in() && !props.kiosk {
                let needs_code = matches!(
                    room.kind,
                    RoomKind::Online {
                        joining: Joining::Passcode { .. }
                    }
                );
                let onsubmit = {
                    let ctx = ctx.clone();
                    let passcode = passcode.clone();
                    let id = room.id.clone();
                    Callback::from(move |e: SubmitEvent| {
                        e.prevent_default();
                        ctx.send.emit(ClientMsg::Join {
                            id: None,
                            room: id.clone(),
                            passcode: needs_code.then(|| (*passcode).clone()),
                        });
                    })
                };
                let oninput = {
                    let passcode = passcode.clone();
                    Callback::from(move |e: InputEvent| {
                        let input: web_sys::HtmlInputElement = e.target_unchecked_into();
                        passcode.set(input.value());
                    })
                };
                parts.push(html! {
                    <form class="join" id="join-form" {onsubmit}>
                        if needs_code {
                            <label for="join-passcode">{ ctx.t(T::FieldPasscode) }</label>
                            <input id="join-passcode" inputmode="numeric" autocomplete="off" maxlength="4"
                                pattern="[0-9]{4}" value={(*passcode).clone()} {oninput} />
                        }
                        <button type="submit" class="primary" id="join">{ ctx.t(T::JoinButton) }</button>
                    </form>
                });
            } else if !props.kiosk {
                parts.push(html! {
                    <p class="note"><Link to={Route::SignIn}>{ ctx.t(T::SignInToJoin) }</Link></p>
                });
            }
        }
    }

    parts.push(html! {
        <div class="share">
            <label for="share-link">{ ctx.t(T::ShareLink) }</label>
            <input id="share-link" readonly=true value={link} />
        </div>
    });
    html! { <section class="panel waiting">{ for parts }</section> }
}
