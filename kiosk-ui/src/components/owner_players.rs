//! `/owner/players` (SPEC O2): every account with who is online; one at a time is opened to
//! rename it, make a password reset code for it, or remove it (behind a confirmation naming
//! it). The list is searched on the page: `GET /api/owner/users` answers every account.

use protocol::http::{AccountList, AccountRow, PasswordReset};
use protocol::records::UserId;
use yew::prelude::*;

use crate::api;
use crate::i18n::{Lang, T};
use crate::route::OwnerSection;

use super::context::use_ctx;
use super::owner::{Confirm, OwnerShell, Said, date, error_text, input_value, said};

/// Rows shown at most; a search narrows a longer list.
const SHOWN: usize = 50;

#[component]
pub fn OwnerPlayersPage() -> Html {
    html! {
        <OwnerShell section={OwnerSection::Players}>
            <Players />
        </OwnerShell>
    }
}

/// The rows matching `query` (any part of the name, any case) and the online filter.
pub fn matching<'a>(
    users: &'a [AccountRow],
    query: &str,
    online_only: bool,
) -> Vec<&'a AccountRow> {
    let query = query.trim().to_lowercase();
    users
        .iter()
        .filter(|u| !online_only || u.connections > 0)
        .filter(|u| query.is_empty() || u.username.to_lowercase().contains(&query))
        .collect()
}

#[component]
fn Players() -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let list = use_state(|| None::<AccountList>);
    let query = use_state(String::new);
    let online_only = use_state(|| false);
    let open = use_state(|| None::<UserId>);
    let said_last = use_state(|| None::<Said>);
    // Bumped to load the list again after a change.
    let generation = use_state(|| 0u32);
    {
        let (list, said_last) = (list.clone(), said_last.clone());
        use_effect_with(*generation, move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                match api::owner_users().await {
                    Ok(l) => list.set(Some(l)),
                    Err(e) => said_last.set(Some(Said::Refused(error_text(&e)))),
                }
            });
        });
    }
    let reload = {
        let generation = generation.clone();
        Callback::from(move |()| generation.set(generation.wrapping_add(1)))
    };
    let on_said = {
        let said_last = said_last.clone();
        Callback::from(move |s: Said| said_last.set(Some(s)))
    };
    let toggle_online = {
        let online_only = online_only.clone();
        Callback::from(move |_| online_only.set(!*online_only))
    };
    let Some(accounts) = &*list else {
        return html! {
            <>
                { said(lang, "players-said", &said_last) }
                <p role="status">{ ctx.t(T::Loading) }</p>
            </>
        };
    };
    let online = accounts.users.iter().filter(|u| u.connections > 0).count();
    let found = matching(&accounts.users, &query, *online_only);
    let more = found.len().saturating_sub(SHOWN);
    let rows = found.iter().take(SHOWN).map(|user| {
        let is_open = *open == Some(user.id);
        let toggle = {
            let (open, id) = (open.clone(), user.id);
            Callback::from(move |_| open.set(if is_open { None } else { Some(id) }))
        };
        let presence = if user.connections > 0 {
            html! { <span class="presence here">{ lang.f(T::PlayerOnline, &[&lang.num(user.connections)]) }</span> }
        } else {
            html! { <span class="presence">{ ctx.t(T::PlayerOffline) }</span> }
        };
        html! {
            <li class={classes!("player-row", is_open.then_some("open"))} data-user={user.username.clone()}>
                <div class="player-head">
                    <span class="player-name">
                        <strong><bdi>{ user.username.clone() }</bdi></strong>
                        if user.owner { { " " }<span class="tag">{ ctx.t(T::PlayerOwnerTag) }</span> }
                        <span class="player-meta">
                            { presence }{ " · " }
                            <span class="tag">{ lang.f(T::PlayerJoined, &[&date(lang, user.created_ms)]) }</span>
                        </span>
                    </span>
                    <button type="button" class="manage" aria-expanded={is_open.to_string()}
                        onclick={toggle}>{ ctx.t(T::PlayerManage) }</button>
                </div>
                if is_open {
                    <ManagePlayer user={(*user).clone()} on_said={on_said.clone()} on_change={reload.clone()} />
                }
            </li>
        }
    });
    html! {
        <>
            <p class="note" id="players-count">{ lang.f(T::PlayersCount, &[
                &lang.num(accounts.users.len()), &lang.num(online), &lang.num(accounts.connections),
            ]) }</p>
            <div class="field">
                <label for="players-search">{ ctx.t(T::PlayersSearch) }</label>
                <input id="players-search" type="search" autocapitalize="none" autocomplete="off"
                    value={(*query).clone()} oninput={input_value(&query)} />
            </div>
            <div class="owner-tools">
                <button type="button" id="players-online-only" aria-pressed={online_only.to_string()}
                    onclick={toggle_online}>{ ctx.t(T::PlayersOnlineOnly) }</button>
                <button type="button" id="players-refresh" onclick={reload.reform(|_| ())}>{ ctx.t(T::Refresh) }</button>
            </div>
            { said(lang, "players-said", &said_last) }
            if found.is_empty() {
                <p class="note" id="players-none">{ ctx.t(T::PlayersNone) }</p>
            }
            <ul class="player-list" id="player-list">{ for rows }</ul>
            if more > 0 {
                <p class="note" id="players-more">{ lang.f(T::PlayersMore, &[&lang.num(more)]) }</p>
            }
        </>
    }
}

#[derive(Debug, Properties, PartialEq)]
struct ManageProps {
    user: AccountRow,
    on_said: Callback<Said>,
    /// The list changed on the server: load it again.
    on_change: Callback<()>,
}

/// One account's actions: rename, reset code, remove.
#[component]
fn ManagePlayer(props: &ManageProps) -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let new_name = use_state(|| props.user.username.clone());
    let busy = use_state(|| false);
    let reset = use_state(|| None::<PasswordReset>);
    let id = props.user.id;
    let name = props.user.username.clone();

    let rename = {
        let (new_name, busy, on_said, on_change, old) = (
            new_name.clone(),
            busy.clone(),
            props.on_said.clone(),
            props.on_change.clone(),
            name.clone(),
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let wanted = new_name.trim().to_owned();
            let (busy, on_said, on_change, old) = (
                busy.clone(),
                on_said.clone(),
                on_change.clone(),
                old.clone(),
            );
            busy.set(true);
            wasm_bindgen_futures::spawn_local(async move {
                match api::rename_user(id, &wanted).await {
                    Ok(account) => {
                        on_said.emit(Said::Done(
                            lang.f(T::PlayerRenamed, &[&old, &account.username]),
                        ));
                        on_change.emit(());
                    }
                    Err(e) => on_said.emit(Said::Refused(error_text(&e))),
                }
                busy.set(false);
            });
        })
    };
    let make_code = {
        let (reset, busy, on_said) = (reset.clone(), busy.clone(), props.on_said.clone());
        Callback::from(move |_| {
            let (reset, busy, on_said) = (reset.clone(), busy.clone(), on_said.clone());
            busy.set(true);
            wasm_bindgen_futures::spawn_local(async move {
                match api::reset_password(id).await {
                    Ok(code) => reset.set(Some(code)),
                    Err(e) => on_said.emit(Said::Refused(error_text(&e))),
                }
                busy.set(false);
            });
        })
    };
    let remove = {
        let (busy, on_said, on_change, name) = (
            busy.clone(),
            props.on_said.clone(),
            props.on_change.clone(),
            name.clone(),
        );
        Callback::from(move |()| {
            let (busy, on_said, on_change, name) = (
                busy.clone(),
                on_said.clone(),
                on_change.clone(),
                name.clone(),
            );
            busy.set(true);
            wasm_bindgen_futures::spawn_local(async move {
                match api::remove_user(id).await {
                    Ok(_) => {
                        on_said.emit(Said::Done(lang.f(T::PlayerRemoved, &[&name])));
                        on_change.emit(());
                    }
                    Err(e) => on_said.emit(Said::Refused(error_text(&e))),
                }
                busy.set(false);
            });
        })
    };
    html! {
        <div class="manage-player" id="manage-player">
            <form class="rename" id="rename-form" onsubmit={rename} novalidate=true>
                <label for="rename-input">{ lang.f(T::PlayerRenameLabel, &[&name]) }</label>
                <div class="inline-field">
                    <input id="rename-input" autocapitalize="none" autocomplete="off" dir="ltr"
                        value={(*new_name).clone()} oninput={input_value(&new_name)} />
                    <button type="submit" id="rename-submit" disabled={*busy}>{ ctx.t(T::PlayerRename) }</button>
                </div>
                <p class="help">{ ctx.t(T::UsernameHelp) }</p>
            </form>
            <button type="button" id="reset-password" disabled={*busy} onclick={make_code}>{ ctx.t(T::PlayerReset) }</button>
            if let Some(code) = &*reset {
                { reset_code(lang, code) }
            }
            <Confirm id="remove-account" label={ctx.t(T::PlayerRemove)}
                question={lang.f(T::PlayerRemoveAsk, &[&name])}
                yes={lang.f(T::PlayerRemoveYes, &[&name])} on_yes={remove} busy={*busy} />
        </div>
    }
}

/// The reset code, large enough to read out, grouped in fours, with its life.
fn reset_code(lang: Lang, code: &PasswordReset) -> Html {
    let split = code.code.len().min(4);
    let grouped = format!("{} {}", &code.code[..split], &code.code[split..]);
    html! {
        <div class="panel reset-code" id="reset-code-box" role="status">
            <h3>{ lang.f(T::PlayerResetCode, &[&code.username]) }</h3>
            <p class="owner-code" id="reset-code" dir="ltr">{ grouped }</p>
            <p>{ lang.f(T::PlayerResetHelp, &[&code.username, &lang.num(code.expires_s / 60)]) }</p>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, connections: usize) -> AccountRow {
        AccountRow {
            id: 1,
            username: name.to_owned(),
            created_ms: 0,
            owner: false,
            connections,
        }
    }

    #[test]
    fn search_matches_any_part_of_a_name_in_any_case_and_filters_who_is_online() {
        let users = [row("Sara", 0), row("omar", 2), row("samir", 1)];
        let names = |found: Vec<&AccountRow>| -> Vec<String> {
            found.iter().map(|u| u.username.clone()).collect()
        };
        assert_eq!(names(matching(&users, "SAR", false)), ["Sara"]);
        assert_eq!(names(matching(&users, " m", false)), ["omar", "samir"]);
        assert_eq!(names(matching(&users, "", true)), ["omar", "samir"]);
        assert_eq!(names(matching(&users, "sa", true)), ["samir"]);
        assert_eq!(names(matching(&users, "x", false)), Vec::<String>::new());
    }
}
