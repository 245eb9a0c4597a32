//! The room screen: the rail across the top, the player cards, the board, and the side panel
//! (the result, hints, undo, replay, draw offers, the waiting-room controls, the ELO
//! preview, the spectator count), with the navbar controls of U9.
//!
//! Landscape screens (the 800×480 kiosk first) lay it out as a grid that fills the viewport:
//! the rail spans the top and always keeps room for its warning line, so the board below is
//! as large as the height allows and does not change size when a warning comes or goes.
//! Phones stack rail, board, cards and side.

use engine::Mark;
use protocol::{ClientMsg, Joining, Phase, RoomKind, RoomView};
use yew::prelude::*;

use crate::board_model::BoardModel;
use crate::dom;
use crate::i18n::{T, mark};
use crate::room_model::{self, NavControls, change_for, seat_name, share_link};
use crate::route::Route;
use crate::state::LiveRoom;

use super::board::Board;
use super::clock::Clock;
use super::context::{Ctx, use_ctx};
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

/// An action waiting for its one confirmation (UI.md: ask once, in place).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Confirm {
    Resign,
    ResignExit,
    Kick,
    /// Leaving a bot or local game in progress ends it (◀ Home or Exit, 14.5).
    Leave,
}

fn send(ctx: &Ctx, msg: ClientMsg) -> Callback<MouseEvent> {
    let ctx = ctx.clone();
    Callback::from(move |_| ctx.send.emit(msg.clone()))
}

/// A bot or local game (M1, M2): Exit ends it, and it may be played again.
pub fn casual(room: &RoomView) -> bool {
    matches!(room.kind, RoomKind::Bot { .. } | RoomKind::Local)
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
    let lang = ctx.lang();
    let view = if props.kiosk {
        room_model::kiosk_view(&live.view, lang)
    } else {
        live.view.clone()
    };
    let room = &view;
    let finished = room.phase == Phase::Finished || room.result.is_some();
    // Replay is offered for finished games and during bot and local games (U10).
    let replay_offered = !room.moves.is_empty() && (finished || casual(room));
    let show_replay = *replaying && replay_offered;
    let player = room_model::is_player(room);
    // Leaving a casual game in progress ends it: ask once. A finished one just ends.
    let leave_asks = casual(room) && player && room_model::in_progress(Some(room));

    let actions = nav_actions(&ctx, room, &confirm, leave_asks);
    let on_home = (casual(room) && player).then(|| {
        let ctx = ctx.clone();
        let confirm = confirm.clone();
        Callback::from(move |_: MouseEvent| {
            if leave_asks {
                confirm.set(Some(Confirm::Leave));
            } else {
                ctx.send.emit(ClientMsg::Exit { id: None });
            }
        })
    });
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
            let name = seat.player.as_ref().map(|p| seat_name(p, lang)).unwrap_or_default();
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
        // The kiosk's human is already "You"; the tag would say it twice.
        let tag_you = is_you && !(props.kiosk && matches!(room.kind, RoomKind::Bot { .. }));
        html! {
            <PlayerCard seat={seat.clone()} index={index} host={i == 0 && matches!(room.kind, RoomKind::Online { .. })}
                is_you={tag_you} waiting={waiting}
                change={change_for(room, seat.mark)}
                to_move={room.phase == Phase::Playing && !finished && seat.mark == Some(room.turn)}>
                { for controls }
            </PlayerCard>
        }
    }).collect::<Html>();

    let toggle = {
        let replaying = replaying.clone();
        Callback::from(move |_| replaying.set(!*replaying))
    };
    let game_line = html! {
        <p class="room-game-line" id="room-game">{ room_game_line(&ctx, room) }</p>
    };
    let body = if show_replay {
        html! {
            // The result is in the banner at the top (said once, UI.md).
            <Replay game={room.game} moves={room.moves.clone()} actions={html! {
                <button type="button" class="back-to-game" id="replay-toggle" aria-pressed="true" onclick={toggle}>{ ctx.t(T::BackToGame) }</button>
            }} />
        }
    } else {
        html! {
            <>
                { rail(&ctx, &live, room) }
                <aside class="cards" aria-label={ctx.t(T::Players)}>{ cards }</aside>
                <section class="centre">
                    <div class="board-wrap">{ live_board(&ctx, room) }</div>
                </section>
                <aside class="side">
                    { side_panel(&ctx, room, finished, replay_offered, toggle) }
                </aside>
            </>
        }
    };

    html! {
        <>
            <Navbar title={title} actions={actions} on_home={on_home} />
            <main id="main" class={classes!("room", props.kiosk.then_some("kiosk-room"), show_replay.then_some("replaying"))}>
                { game_line }
                { body }
            </main>
        </>
    }
}

/// The game and its kind in words, for phones, whose navbar has no room for a title.
fn room_game_line(ctx: &Ctx, room: &RoomView) -> String {
    let lang = ctx.lang();
    let kind = ctx.t(match room.kind {
        RoomKind::Online { .. } => T::KindPlayer,
        RoomKind::Bot { .. } => T::KindBot,
        RoomKind::Local => T::KindLocal,
    });
    let mut line = format!("{} · {}", lang.game(room.game), kind);
    if let (engine::Game::Infinite, Some(ms)) = (room.game, room.per_move_ms) {
        line.push_str(" · ");
        line.push_str(&lang.f(T::Seconds, &[&lang.num(ms / 1000)]));
    }
    line
}

/// The rail (U2): whose turn in words, the mark, the clock, and a second line that holds the
/// repetition warning when there is one (and keeps its place when there is none).
fn rail(ctx: &Ctx, live: &LiveRoom, room: &RoomView) -> Html {
    let may_move = room.you.to_move && room.phase == Phase::Playing && room.result.is_none();
    let clock = room
        .clock
        .filter(|_| room.result.is_none() && room.phase == Phase::Playing)
        .map(|c| html! { <>{ " · " }<bdi class="rail-clock"><Clock clock={c} received_ms={live.received_ms} /></bdi></> })
        .unwrap_or_default();
    html! {
        <div class={classes!("rail", may_move.then_some("my-turn"), room.result.is_some().then_some("over"))} id="rail">
            <p class="rail-main"><span id="rail-text">{ room_model::rail_text(room, ctx.lang()) }</span>{ clock }</p>
            if room.repetition_warning && room.result.is_none() {
                <p class="warning" id="repetition-warning">{ ctx.t(T::RepetitionWarning) }</p>
            } else {
                <p class="warning-slot" aria-hidden="true"></p>
            }
        </div>
    }
}

/// The board (U1–U5) of the live game.
fn live_board(ctx: &Ctx, room: &RoomView) -> Html {
    let mut model = BoardModel::from_room(room);
    model.hint = ctx.state.hint;
    let may_move = room.you.to_move && room.phase == Phase::Playing && room.result.is_none();
    let on_move = {
        let ctx = ctx.clone();
        Callback::from(move |cell| ctx.send.emit(ClientMsg::Move { id: None, cell }))
    };
    html! { <Board model={model} may_move={may_move} on_move={on_move} /> }
}

/// U9: Resign and Resign & Exit during an active rated game, Exit otherwise; each
/// resignation asks once, in place, and so does ending a bot or local game in progress.
fn nav_actions(
    ctx: &Ctx,
    room: &RoomView,
    confirm: &UseStateHandle<Option<Confirm>>,
    leave_asks: bool,
) -> Html {
    let ask = |what: Confirm| {
        let confirm = confirm.clone();
        Callback::from(move |_: MouseEvent| confirm.set(Some(what)))
    };
    let no = {
        let confirm = confirm.clone();
        Callback::from(move |_| confirm.set(None))
    };
    let confirming = |question: T, yes_id: &'static str, msg: ClientMsg| {
        let yes = {
            let ctx = ctx.clone();
            let confirm = confirm.clone();
            Callback::from(move |_| {
                ctx.send.emit(msg.clone());
                confirm.set(None);
            })
        };
        html! {
            <div class="confirm" role="group">
                <span>{ ctx.t(question) }</span>
                <button type="button" class="danger" id={yes_id} onclick={yes}>{ ctx.t(T::Yes) }</button>
                <button type="button" id={format!("{yes_id}-no")} onclick={no.clone()}>{ ctx.t(T::No) }</button>
            </div>
        }
    };
    match room_model::nav_controls(room) {
        NavControls::Resign => match **confirm {
            // Exit during play is the same resignation, answered by `left` (M3.9).
            Some(Confirm::Resign) => confirming(
                T::ResignConfirm,
                "resign-yes",
                ClientMsg::Resign { id: None },
            ),
            Some(Confirm::ResignExit) => {
                confirming(T::ResignConfirm, "resign-yes", ClientMsg::Exit { id: None })
            }
            _ => html! {
                <>
                    <button type="button" class="danger" id="resign" onclick={ask(Confirm::Resign)}>{ ctx.t(T::Resign) }</button>
                    <button type="button" class="danger" id="resign-exit" onclick={ask(Confirm::ResignExit)}>{ ctx.t(T::ResignExit) }</button>
                </>
            },
        },
        NavControls::Exit if leave_asks && **confirm == Some(Confirm::Leave) => {
            confirming(T::EndGameConfirm, "leave-yes", ClientMsg::Exit { id: None })
        }
        NavControls::Exit if leave_asks => html! {
            <button type="button" id="exit" onclick={ask(Confirm::Leave)}>{ ctx.t(T::Exit) }</button>
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
    toggle: Callback<MouseEvent>,
) -> Html {
    let lang = ctx.lang();
    let seated = room_model::is_player(room);
    let online = matches!(room.kind, RoomKind::Online { .. });
    let mut parts: Vec<Html> = Vec::new();

    if let Some(result) = &room.result {
        parts.push(html! {
            <p class="result" id="result">{ room_model::result_text(room, result.end, lang) }</p>
        });
        if result.pending {
            parts.push(html! {
                <p class="note pending" id="result-pending" role="status">{ ctx.t(T::ResultPending) }</p>
            });
        }
    }

    if let Some(again) = again_button(ctx, room, false) {
        parts.push(html! { <div class="panel actions again-panel">{ again }</div> });
    }
    if let (Some(by), false, true) = (room.rematch_offer, seated, finished) {
        parts.push(html! {
            <p class="note" id="rematch-note">
                { lang.f(T::AnnRematchOffered, &[&room_model::named_mark(room, by, lang)]) }
            </p>
        });
    }

    if room.phase == Phase::Waiting && online {
        parts.push(waiting_panel(ctx, room));
    }

    if room.phase == Phase::Playing && !finished && online && seated {
        let me = room_model::my_mark(room);
        // Answering the opponent's offer happens in the banner at the top (UI.md).
        let offer = match (room.draw_offer, me) {
            (Some(by), Some(me)) if by == me => Some(html! {
                <button type="button" id="offer-draw" disabled=true>{ ctx.t(T::DrawOffered) }</button>
            }),
            (Some(_), Some(_)) => None,
            _ => Some(html! {
                <button type="button" id="offer-draw" onclick={send(ctx, ClientMsg::OfferDraw { id: None })}>{ ctx.t(T::OfferDraw) }</button>
            }),
        };
        if let Some(offer) = offer {
            parts.push(html! { <div class="panel actions">{ offer }</div> });
        }
    }

    // After the end only what comes next: Play again, then the replay (Undo would take the
    // result back, 14.8, and a hint has nothing left to help with).
    if !online && seated && !finished {
        let is_bot = matches!(room.kind, RoomKind::Bot { .. });
        let hint_ok = is_bot && room.you.to_move;
        parts.push(html! {
            <div class="panel actions">
                if is_bot {
                    <button type="button" id="hint" disabled={!hint_ok} onclick={send(ctx, ClientMsg::Hint { id: None })}>{ ctx.t(T::Hint) }</button>
                }
                <button type="button" id="undo" disabled={!room.can_undo} onclick={send(ctx, ClientMsg::Undo { id: None })}>{ ctx.t(T::Undo) }</button>
            </div>
        });
    }

    if replay_offered {
        parts.push(html! {
            <div class="panel actions">
                <button type="button" id="replay-toggle" aria-pressed="false" onclick={toggle}>{ ctx.t(T::Replay) }</button>
            </div>
        });
    }

    if let (Some(elo), Phase::Playing, false) = (room.elo, room.phase, finished) {
        let name = |m: Mark| {
            room_model::seat_of(room, m)
                .and_then(|s| s.player.as_ref())
                .map(|p| seat_name(p, lang))
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
        <p class="spectators note" id="spectators">
            { lang.f(T::Watching, &[&lang.num(room.spectators)]) }
        </p>
    });
    parts.into_iter().collect()
}

/// M3.12, after a game, for the reader who played it: Play again (bot, local: the same setup,
/// local sides swapped) or Rematch (rated, colours swapped): offer one, see one's own offer
/// waiting, or accept the opponent's. `None` for spectators and during play. The side panel
/// holds it as `#play-again` or `#rematch`; the result banner repeats it (`in_banner`) as
/// `#result-play-again` or `#result-rematch`.
pub fn again_button(ctx: &Ctx, room: &RoomView, in_banner: bool) -> Option<Html> {
    let finished = room.phase == Phase::Finished || room.result.is_some();
    if !finished || !room_model::is_player(room) {
        return None;
    }
    // An event's game: the event pairs the next one (EV3); its page is the way on.
    if let Some((_, event)) = ctx.state.event_room.as_ref().filter(|(r, _)| *r == room.id) {
        let id = if in_banner {
            "result-event"
        } else {
            "back-to-event"
        };
        return Some(html! {
            <super::link::Link to={crate::route::Route::Event(event.clone())} class="button-link primary again">
                <span {id}>{ ctx.t(T::EventBoardBack) }</span>
            </super::link::Link>
        });
    }
    if casual(room) {
        let id = if in_banner {
            "result-play-again"
        } else {
            "play-again"
        };
        return Some(html! {
            <button type="button" class="primary big again" {id}
                onclick={send(ctx, ClientMsg::PlayAgain { id: None })}>{ ctx.t(T::PlayAgain) }</button>
        });
    }
    let me = room_model::my_mark(room)?;
    let id = if in_banner {
        "result-rematch"
    } else {
        "rematch"
    };
    Some(match room.rematch_offer {
        Some(by) if by == me => html! {
            <button type="button" class="big again" {id} disabled=true>{ ctx.t(T::RematchOffered) }</button>
        },
        Some(_) => html! {
            <button type="button" class="primary big again" {id}
                onclick={send(ctx, ClientMsg::AnswerRematch { id: None, accept: true })}>{ ctx.t(T::AcceptRematch) }</button>
        },
        None => html! {
            <button type="button" class="primary big again" {id}
                onclick={send(ctx, ClientMsg::OfferRematch { id: None })}>{ ctx.t(T::Rematch) }</button>
        },
    })
}

/// Before play in an online room: the host's passcode, share link and Start; a visitor's
/// Join (with a passcode when asked) or pending request. Join requests are answered in the
/// banner at the top.
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
    let link = share_link(
        ctx.state.public_url.as_deref(),
        &dom::origin(),
        &Route::Room {
            id: room.id.clone(),
            kiosk: false,
        }
        .path(),
        props.kiosk,
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
                    <p class="note"><Link to={Route::SignIn} class="text-link">{ ctx.t(T::SignInToJoin) }</Link></p>
                });
            }
        }
    }

    if let Some(link) = link {
        parts.push(html! {
            <div class="share">
                <label for="share-link">{ ctx.t(T::ShareLink) }</label>
                <input id="share-link" readonly=true value={link} />
            </div>
        });
    }
    html! { <section class="panel waiting">{ for parts }</section> }
}
