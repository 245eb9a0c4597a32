//! Owner mode (SPEC O1, O2): the hub at `/owner` and what every owner page shares. A guest is
//! asked to sign in, a signed-in account that is not an owner gets the claim form (the code the
//! kiosk shows), an owner sees the page. Every action is checked again by the server; its
//! refusals are shown in words ([`error_text`]).
//!
//! The pages: [`super::owner_players`], [`super::owner_rooms`], [`super::owner_seasons`],
//! [`super::owner_backup`], [`super::owner_update`] (update and health), the settings page
//! and [`super::owner_events`].

use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::api::{self, ApiError, ApiErrorCode};
use crate::credentials::api_error_text;
use crate::i18n::{Lang, OT, T};
use crate::route::{OwnerSection, Route};

use super::context::use_ctx;
use super::icon::{Icon, icon};
use super::link::Link;
use super::navbar::Navbar;

/// The sentence for an owner action's refusal: the server's code, never shown raw.
pub fn error_text(e: &ApiError) -> T {
    match e.code {
        Some(ApiErrorCode::NotOwner) => T::ErrNotOwner,
        Some(ApiErrorCode::NotFound | ApiErrorCode::UnknownUser) => T::ErrGone,
        Some(ApiErrorCode::BadResetCode) => T::ErrBadResetCode,
        Some(ApiErrorCode::BadBackup) => T::ErrBadBackup,
        Some(ApiErrorCode::BackupTooNew) => T::ErrBackupTooNew,
        Some(ApiErrorCode::BodyTooLarge) => T::ErrFileTooLarge,
        Some(ApiErrorCode::UpdateRefused) => update_refusal(&e.message),
        Some(ApiErrorCode::Internal) => T::ErrServerFault,
        code => api_error_text(code),
    }
}

/// `update_refused`'s message starts with the check's code (`not_elf: …`).
fn update_refusal(message: &str) -> T {
    match message.split(':').next().unwrap_or_default() {
        "not_elf" => T::UpdateNotElf,
        "wrong_arch" => T::UpdateWrongArch,
        "not_newer" => T::UpdateNotNewer,
        "does_not_start" => T::UpdateDoesNotStart,
        "unhealthy" => T::UpdateUnhealthy,
        "no_room" => T::UpdateNoRoom,
        "data_in_use" => T::UpdateDataInUse,
        _ => T::UpdateIo,
    }
}

/// A day in the reader's language, from milliseconds since the epoch.
pub fn date(lang: Lang, ms: u64) -> String {
    // Milliseconds since the epoch fit an f64 exactly until the year 287 396.
    #[allow(clippy::cast_precision_loss)]
    let when = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms as f64));
    String::from(when.to_locale_date_string(lang.code(), &wasm_bindgen::JsValue::UNDEFINED))
}

/// A day and time in the reader's language.
pub fn date_time(lang: Lang, ms: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let when = js_sys::Date::new(&wasm_bindgen::JsValue::from_f64(ms as f64));
    String::from(when.to_locale_string(lang.code(), &wasm_bindgen::JsValue::UNDEFINED))
}

/// An input's new value, for `oninput`.
pub fn input_value(state: &UseStateHandle<String>) -> Callback<InputEvent> {
    let state = state.clone();
    Callback::from(move |e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        state.set(input.value());
    })
}

/// What an action said last: a success in words or a refusal.
#[derive(Debug, Clone, PartialEq)]
pub enum Said {
    Done(String),
    Refused(T),
    /// A refusal that needs words filled in (a length).
    Invalid(String),
}

/// Shows [`Said`] in a live region: success as status, refusal as an alert.
pub fn said(lang: Lang, id: &'static str, said: &Option<Said>) -> Html {
    match said {
        None => html! { <div id={id} class="said" role="status"></div> },
        Some(Said::Done(text)) => {
            html! { <div id={id} class="said" role="status"><p class="done">{ text.clone() }</p></div> }
        }
        Some(Said::Refused(t)) => {
            html! { <div id={id} class="said" role="alert"><p class="error">{ lang.t(*t) }</p></div> }
        }
        Some(Said::Invalid(text)) => {
            html! { <div id={id} class="said" role="alert"><p class="error">{ text.clone() }</p></div> }
        }
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct ConfirmProps {
    /// Prefix of the ids: `{id}` opens, `{id}-yes` confirms, `{id}-no` cancels.
    pub id: AttrValue,
    pub label: AttrValue,
    /// What will happen, in words.
    pub question: AttrValue,
    pub yes: AttrValue,
    pub on_yes: Callback<()>,
    #[prop_or_default]
    pub busy: bool,
    /// Fields the confirmation needs (a reason), shown once it is open.
    #[prop_or_default]
    pub children: Html,
}

/// A destructive action asks once, in place (UI.md): the button opens the question with its
/// own confirm and cancel buttons, away from every other control.
#[component]
pub fn Confirm(props: &ConfirmProps) -> Html {
    let ctx = use_ctx();
    let open = use_state(|| false);
    if !*open {
        let open = open.clone();
        return html! {
            <button type="button" class="danger" id={props.id.clone()} disabled={props.busy}
                onclick={Callback::from(move |_| open.set(true))}>{ props.label.clone() }</button>
        };
    }
    let yes = {
        let (open, on_yes) = (open.clone(), props.on_yes.clone());
        Callback::from(move |_| {
            open.set(false);
            on_yes.emit(());
        })
    };
    let no = {
        let open = open.clone();
        Callback::from(move |_| open.set(false))
    };
    html! {
        <div class="confirm-box" role="group" aria-labelledby={format!("{}-question", props.id)}>
            <p id={format!("{}-question", props.id)}>{ props.question.clone() }</p>
            { props.children.clone() }
            <div class="actions">
                <button type="button" class="danger solid" id={format!("{}-yes", props.id)}
                    disabled={props.busy} onclick={yes}>{ props.yes.clone() }</button>
                <button type="button" id={format!("{}-no", props.id)} onclick={no}>{ ctx.t(T::Cancel) }</button>
            </div>
        </div>
    }
}

#[derive(Debug, Properties, PartialEq)]
pub struct OwnerShellProps {
    pub section: OwnerSection,
    pub children: Html,
}

/// The title of an owner page.
pub fn section_title(lang: Lang, section: OwnerSection) -> &'static str {
    lang.t(match section {
        OwnerSection::Events => return lang.to(OT::Events),
        OwnerSection::Hub => T::OwnerTitle,
        OwnerSection::Players => T::OwnerPlayers,
        OwnerSection::Rooms => T::OwnerRooms,
        OwnerSection::Seasons => T::OwnerSeasons,
        OwnerSection::Backup => T::OwnerBackup,
        OwnerSection::Update => T::OwnerUpdate,
        OwnerSection::Health => T::OwnerHealth,
        OwnerSection::Settings => T::OwnerSettings,
    })
}

fn section_help(lang: Lang, section: OwnerSection) -> &'static str {
    lang.t(match section {
        OwnerSection::Events => return lang.to(OT::EventsHelp),
        OwnerSection::Hub => T::OwnerHubHelp,
        OwnerSection::Players => T::OwnerPlayersHelp,
        OwnerSection::Rooms => T::OwnerRoomsHelp,
        OwnerSection::Seasons => T::OwnerSeasonsHelp,
        OwnerSection::Backup => T::OwnerBackupHelp,
        OwnerSection::Update => T::OwnerUpdateHelp,
        OwnerSection::Health => T::OwnerHealthHelp,
        OwnerSection::Settings => T::OwnerSettingsHelp,
    })
}

/// Every owner page: the navbar with the page's title, a way back to the hub, and the page
/// once the server says this account is an owner (else the claim form). Once shown, the page
/// stays when the account is signed out under it (a restore signs everyone out and says so).
#[component]
pub fn OwnerShell(props: &OwnerShellProps) -> Html {
    let ctx = use_ctx();
    // `None` while asking; `Some(Err)` with `not_owner` shows the claim form.
    let owners = use_state(|| None::<Result<protocol::http::Owners, ApiError>>);
    let signed_in = ctx.state.signed_in();
    {
        let owners = owners.clone();
        use_effect_with(signed_in, move |signed_in| {
            if *signed_in {
                wasm_bindgen_futures::spawn_local(async move {
                    owners.set(Some(api::owners().await));
                });
            }
        });
    }
    let claimed = {
        let owners = owners.clone();
        Callback::from(move |list: protocol::http::Owners| owners.set(Some(Ok(list))))
    };
    let body = match &*owners {
        Some(Ok(_)) => props.children.clone(),
        _ if ctx.state.account.is_none() => {
            html! { <p role="status">{ ctx.t(T::Loading) }</p> }
        }
        _ if !signed_in => html! {
            <>
                <p id="owner-sign-in-first">{ ctx.t(T::OwnerSignInFirst) }</p>
                <p><Link to={Route::SignIn} class="text-link">{ ctx.t(T::SignInTitle) }</Link></p>
            </>
        },
        None => html! { <p role="status">{ ctx.t(T::Loading) }</p> },
        Some(Err(e)) if e.code == Some(ApiErrorCode::NotOwner) => html! { <ClaimForm {claimed} /> },
        Some(Err(e)) => html! { <p class="error" role="alert">{ ctx.t(error_text(e)) }</p> },
    };
    let back = (props.section != OwnerSection::Hub).then(|| {
        html! {
            <p class="owner-back">
                <Link to={Route::Owner(OwnerSection::Hub)} class="text-link" >
                    { icon(Icon::Back) }{ ctx.t(T::OwnerBack) }
                </Link>
            </p>
        }
    });
    html! {
        <>
            <Navbar title={AttrValue::from(section_title(ctx.lang(), props.section))} />
            <main id="main" class={classes!("page", "narrow", "owner", format!("owner-{}", props.section.segment()))}>
                { for back }
                { body }
            </main>
        </>
    }
}

#[derive(Debug, Properties, PartialEq)]
struct ClaimProps {
    claimed: Callback<protocol::http::Owners>,
}

/// A signed-in account enters the code the kiosk shows and becomes an owner.
#[component]
fn ClaimForm(props: &ClaimProps) -> Html {
    let ctx = use_ctx();
    let code = use_state(String::new);
    let error = use_state(|| None::<T>);
    let busy = use_state(|| false);
    let onsubmit = {
        let (code, error, busy, claimed) = (
            code.clone(),
            error.clone(),
            busy.clone(),
            props.claimed.clone(),
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            busy.set(true);
            error.set(None);
            let (typed, error, busy, claimed) = (
                (*code).clone(),
                error.clone(),
                busy.clone(),
                claimed.clone(),
            );
            wasm_bindgen_futures::spawn_local(async move {
                match api::claim_owner(&typed).await {
                    Ok(list) => claimed.emit(list),
                    Err(e) => error.set(Some(error_text(&e))),
                }
                busy.set(false);
            });
        })
    };
    html! {
        <form class="signin" id="owner-claim-form" {onsubmit} novalidate=true>
            <p>{ ctx.t(T::OwnerClaimHelp) }</p>
            <div class="field">
                <label for="owner-code-input">{ ctx.t(T::OwnerCodeLabel) }</label>
                <input id="owner-code-input" inputmode="numeric" autocomplete="one-time-code"
                    dir="ltr" value={(*code).clone()} oninput={input_value(&code)} />
            </div>
            <div class="errors" id="owner-errors" role="alert">
                if let Some(t) = *error { <p class="error">{ ctx.t(t) }</p> }
            </div>
            <button type="submit" class="primary big" id="owner-claim" disabled={*busy}>{ ctx.t(T::OwnerClaim) }</button>
        </form>
    }
}

/// `/owner`: links to every owner page and the kiosk's owners.
#[component]
pub fn OwnerPage() -> Html {
    html! {
        <OwnerShell section={OwnerSection::Hub}>
            <OwnerHub />
        </OwnerShell>
    }
}

#[component]
fn OwnerHub() -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let owners = use_state(|| None::<protocol::http::Owners>);
    let said_last = use_state(|| None::<Said>);
    let busy = use_state(|| false);
    {
        let (owners, said_last) = (owners.clone(), said_last.clone());
        use_effect_with((), move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                match api::owners().await {
                    Ok(list) => owners.set(Some(list)),
                    Err(e) => said_last.set(Some(Said::Refused(error_text(&e)))),
                }
            });
        });
    }
    let sections = OwnerSection::PAGES.iter().map(|&section| {
        html! {
            <li>
                <Link to={Route::Owner(section)} class="owner-section" >
                    <strong>{ section_title(ctx.lang(), section) }</strong>
                    <span class="note">{ section_help(ctx.lang(), section) }</span>
                </Link>
            </li>
        }
    });
    let list = match &*owners {
        None => html! { <p role="status">{ ctx.t(T::Loading) }</p> },
        Some(list) => {
            let rows = list.owners.iter().map(|o| {
                let remove = {
                    let (owners, said_last, busy) = (owners.clone(), said_last.clone(), busy.clone());
                    let (id, name) = (o.id, o.username.clone());
                    Callback::from(move |()| {
                        let (owners, said_last, busy, name) =
                            (owners.clone(), said_last.clone(), busy.clone(), name.clone());
                        busy.set(true);
                        wasm_bindgen_futures::spawn_local(async move {
                            match api::remove_owner(id).await {
                                Ok(list) => {
                                    owners.set(Some(list));
                                    said_last.set(Some(Said::Done(
                                        lang.f(T::OwnerRemovedOwner, &[&name]),
                                    )));
                                }
                                Err(e) => said_last.set(Some(Said::Refused(error_text(&e)))),
                            }
                            busy.set(false);
                        });
                    })
                };
                let you = o.id == list.you.id;
                html! {
                    <li class="owner-row" data-owner={o.username.clone()}>
                        <span class="owner-name"><bdi>{ o.username.clone() }</bdi>
                            if you { { " " }<span class="tag">{ ctx.t(T::OwnerYouTag) }</span> }
                        </span>
                        <Confirm id={format!("remove-owner-{}", o.id)} label={ctx.t(T::OwnerRemoveOwner)}
                            question={lang.f(T::OwnerRemoveOwnerAsk, &[&o.username])}
                            yes={ctx.t(T::OwnerRemoveOwner)} on_yes={remove} busy={*busy} />
                    </li>
                }
            });
            html! {
                <>
                    <p id="owner-you">{ ctx.t(T::OwnerYouAre) }</p>
                    <ul id="owner-list" class="owner-list">{ for rows }</ul>
                    <p class="note">{ ctx.t(T::OwnerAddHelp) }</p>
                </>
            }
        }
    };
    html! {
        <>
            <nav aria-label={ctx.t(T::OwnerBack)}>
                <ul class="owner-sections" id="owner-sections">{ for sections }</ul>
            </nav>
            <section class="panel" id="owners">
                <h2>{ ctx.t(T::OwnersOfKiosk) }</h2>
                { said(lang, "owners-said", &said_last) }
                { list }
            </section>
        </>
    }
}
