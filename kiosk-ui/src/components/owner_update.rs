//! `/owner/update` (SPEC O4): the running, installed and failed versions and the last rollback;
//! upload a new `firmware-host` (the server checks it before keeping it, and each refusal is
//! worded); restart onto the newest good version. `/owner/health` (SPEC O2): version, uptime,
//! the data card's space, activity and the recent warnings and errors.

use gloo::timers::callback::Interval;
use protocol::http::{
    DisplayState, HealthStatus, OwnerHealth, StorageState, Supervisor, UpdateStatus,
};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::api;
use crate::dom;
use crate::i18n::{Lang, T};
use crate::route::OwnerSection;

use super::context::use_ctx;
use super::owner::{Confirm, OwnerShell, Said, date_time, error_text, said};

#[component]
pub fn OwnerUpdatePage() -> Html {
    html! {
        <OwnerShell section={OwnerSection::Update}>
            <Update />
        </OwnerShell>
    }
}

#[component]
pub fn OwnerHealthPage() -> Html {
    html! {
        <OwnerShell section={OwnerSection::Health}>
            <HealthPanel />
        </OwnerShell>
    }
}

/// Where a restart is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Restart {
    No,
    /// Asked; waiting for the server to go away.
    Going,
    /// It went away; waiting for it to answer again.
    Gone,
}

/// Whether a server whose uptime is `uptime_s` started after the restart was asked,
/// `since_asked_ms` ago: then it is the new process, even when it came back between two polls
/// and no poll ever saw it gone.
pub fn came_back(uptime_s: u64, since_asked_ms: f64) -> bool {
    // Uptimes are seconds since start, far below f64's exact range.
    #[allow(clippy::cast_precision_loss)]
    let up_ms = uptime_s as f64 * 1000.0;
    up_ms < since_asked_ms
}

/// What the page says once the server answers again after a restart, `running` now: the
/// version, and never that the newest runs when it does not (an installed version not marked
/// bad that is not the one running: rolled back under the launcher, or never run elsewhere).
pub fn after_restart(lang: Lang, running: &str, status: &UpdateStatus) -> String {
    let back = lang.f(T::RestartedBack, &[running]);
    let newest_good = status
        .installed
        .iter()
        .rev()
        .find(|v| !status.bad.contains(v));
    match newest_good {
        Some(newest) if newest != running => {
            let key = if status.supervisor == Supervisor::Launcher {
                T::RestartedRolledBack
            } else {
                T::RestartedNotNewest
            };
            format!("{back} {}", lang.f(key, &[newest]))
        }
        _ => back,
    }
}

/// A version list in words ("none" when empty).
fn versions(lang: Lang, list: &[String]) -> String {
    if list.is_empty() {
        lang.t(T::HealthUnknown).to_owned()
    } else {
        list.join(", ")
    }
}

fn status_lines(lang: Lang, status: &UpdateStatus) -> Html {
    let rollback = match &status.last_rollback {
        None => lang.t(T::UpdateNoRollback).to_owned(),
        Some(r) => {
            let to = if r.to == "image" {
                lang.t(T::UpdateImage).to_owned()
            } else {
                r.to.clone()
            };
            lang.f(
                T::UpdateRollback,
                &[
                    &r.from,
                    &to,
                    &r.reason,
                    &date_time(lang, r.at_unix.saturating_mul(1000)),
                ],
            )
        }
    };
    html! {
        <ul class="facts" id="update-status">
            <li id="update-running">{ lang.f(T::UpdateRunning, &[&status.running]) }</li>
            <li id="update-installed">{
                if status.installed.is_empty() { lang.t(T::UpdateNoneInstalled).to_owned() }
                else { lang.f(T::UpdateInstalled, &[&status.installed.join(", ")]) }
            }</li>
            if !status.bad.is_empty() {
                <li id="update-bad" class="warning">{ lang.f(T::UpdateBad, &[&versions(lang, &status.bad)]) }</li>
            }
            <li id="update-rollback">{ rollback }</li>
            if let Some(room) = status.room.filter(|r| !r.enough) {
                <li id="update-no-room" class="warning">{ lang.f(T::UpdateNoRoomNow, &[
                    &size(lang, room.free_bytes), &size(lang, room.needed_bytes), &size(lang, room.reserve_bytes),
                ]) }</li>
            }
        </ul>
    }
}

#[component]
fn Update() -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let status = use_state(|| None::<UpdateStatus>);
    let file = use_state(|| None::<web_sys::File>);
    let said_last = use_state(|| None::<Said>);
    let busy = use_state(|| false);
    let restart = use_state(|| Restart::No);
    // When the restart was asked (the browser's clock, ms).
    let asked_ms = use_mut_ref(|| 0.0_f64);
    let generation = use_state(|| 0u32);
    {
        let (status, said_last) = (status.clone(), said_last.clone());
        use_effect_with(*generation, move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                match api::update_status().await {
                    Ok(s) => status.set(Some(s)),
                    Err(e) => said_last.set(Some(Said::Refused(error_text(&e)))),
                }
            });
        });
    }
    // After a restart: watch /api/health go away and come back, or answer with the uptime
    // of a process started since.
    {
        let (restart, said_last, generation, asked_ms) = (
            restart.clone(),
            said_last.clone(),
            generation.clone(),
            asked_ms.clone(),
        );
        use_effect_with(*restart, move |&now| {
            let timer = (now != Restart::No).then(|| {
                Interval::new(1_000, move || {
                    let (restart, said_last, generation) =
                        (restart.clone(), said_last.clone(), generation.clone());
                    let asked = *asked_ms.borrow();
                    wasm_bindgen_futures::spawn_local(async move {
                        match (api::health().await, *restart) {
                            (Err(_), Restart::Going) => restart.set(Restart::Gone),
                            (Ok(health), was)
                                if was == Restart::Gone
                                    || came_back(health.uptime_s, dom::now_ms() - asked) =>
                            {
                                // What is installed now, read from the new process.
                                let text = match api::update_status().await {
                                    Ok(now) => after_restart(lang, &health.version, &now),
                                    Err(_) => lang.f(T::RestartedBack, &[&health.version]),
                                };
                                said_last.set(Some(Said::Done(text)));
                                restart.set(Restart::No);
                                generation.set(generation.wrapping_add(1));
                            }
                            _ => {}
                        }
                    });
                })
            });
            move || drop(timer)
        });
    }
    let supervisor = status.as_ref().map_or(Supervisor::None, |s| s.supervisor);
    let picked = {
        let file = file.clone();
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            file.set(input.files().and_then(|files| files.get(0)));
        })
    };
    let upload = {
        let (file, said_last, busy, generation) = (
            file.clone(),
            said_last.clone(),
            busy.clone(),
            generation.clone(),
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let Some(chosen) = (*file).clone() else {
                return;
            };
            let (said_last, busy, generation) =
                (said_last.clone(), busy.clone(), generation.clone());
            busy.set(true);
            said_last.set(None);
            wasm_bindgen_futures::spawn_local(async move {
                match api::upload_update(&chosen).await {
                    Ok(done) => {
                        // Only the image's launcher runs an installed version at a restart.
                        let key = if supervisor == Supervisor::Launcher {
                            T::UpdateDone
                        } else {
                            T::UpdateDoneManual
                        };
                        said_last.set(Some(Said::Done(lang.f(key, &[&done.version]))))
                    }
                    Err(e) => said_last.set(Some(Said::Refused(error_text(&e)))),
                }
                busy.set(false);
                generation.set(generation.wrapping_add(1));
            });
        })
    };
    let do_restart = {
        let (restart, said_last) = (restart.clone(), said_last.clone());
        Callback::from(move |()| {
            let (restart, said_last) = (restart.clone(), said_last.clone());
            *asked_ms.borrow_mut() = dom::now_ms();
            wasm_bindgen_futures::spawn_local(async move {
                match api::restart().await {
                    Ok(_) => restart.set(Restart::Going),
                    Err(e) => said_last.set(Some(Said::Refused(error_text(&e)))),
                }
            });
        })
    };
    html! {
        <>
            <section class="panel">
                { match &*status {
                    None => html! { <p role="status">{ ctx.t(T::Loading) }</p> },
                    Some(s) => status_lines(lang, s),
                } }
            </section>
            <section class="panel">
                <form id="update-form" onsubmit={upload} novalidate=true>
                    <div class="field">
                        <label for="update-file">{ ctx.t(T::UpdatePick) }</label>
                        <input id="update-file" type="file" disabled={*busy} onchange={picked} />
                    </div>
                    <button type="submit" class="primary" id="update-upload"
                        disabled={*busy || file.is_none()}>{ ctx.t(T::UpdateUpload) }</button>
                </form>
                if *busy { <p role="status" id="update-checking">{ ctx.t(T::UpdateChecking) }</p> }
                { said(lang, "update-said", &said_last) }
            </section>
            <section class="panel">
                if *restart == Restart::No {
                    { match supervisor {
                        Supervisor::Launcher => html! {
                            <Confirm id="restart" label={ctx.t(T::Restart)} question={ctx.t(T::RestartAsk)}
                                yes={ctx.t(T::RestartYes)} on_yes={do_restart} busy={*busy} />
                        },
                        Supervisor::RunScript => html! {
                            <Confirm id="restart" label={ctx.t(T::Restart)} question={ctx.t(T::RestartAskRunScript)}
                                yes={ctx.t(T::RestartYes)} on_yes={do_restart} busy={*busy} />
                        },
                        // Nothing starts it again: say so, and call it what it is.
                        Supervisor::None => html! {
                            <Confirm id="restart" label={ctx.t(T::StopServer)} question={ctx.t(T::StopAsk)}
                                yes={ctx.t(T::StopYes)} on_yes={do_restart} busy={*busy} />
                        },
                    } }
                } else if supervisor == Supervisor::None {
                    <p role="status" id="restarting">{ ctx.t(T::Stopped) }</p>
                } else {
                    <p role="status" id="restarting">{ ctx.t(T::Restarting) }</p>
                }
            </section>
        </>
    }
}

/// Bytes in MB below a gigabyte, else GB with one decimal, in the reader's digits.
pub fn size(lang: Lang, bytes: u64) -> String {
    const MB: u64 = 1_000_000;
    const GB: u64 = 1_000_000_000;
    if bytes < GB {
        lang.f(T::SizeMb, &[&lang.num(bytes.div_ceil(MB))])
    } else {
        let tenths = (bytes + GB / 20) / (GB / 10);
        lang.f(
            T::SizeGb,
            &[&lang.num(format!("{}.{}", tenths / 10, tenths % 10))],
        )
    }
}

/// An uptime in days and hours, hours and minutes, or minutes.
pub fn uptime(lang: Lang, seconds: u64) -> String {
    let (days, hours, minutes) = (seconds / 86_400, seconds / 3_600 % 24, seconds / 60 % 60);
    if days > 0 {
        lang.f(T::UptimeDays, &[&lang.num(days), &lang.num(hours)])
    } else if hours > 0 {
        lang.f(T::UptimeHours, &[&lang.num(hours), &lang.num(minutes)])
    } else {
        lang.f(T::UptimeMinutes, &[&lang.num(minutes)])
    }
}

fn health_facts(lang: Lang, h: &OwnerHealth) -> Html {
    let health = &h.health;
    let overall = match health.status {
        HealthStatus::Ok => {
            html! { <p class="done" id="health-status">{ lang.t(T::HealthOk) }</p> }
        }
        HealthStatus::Degraded => html! {
            <p class="error" id="health-status">{ lang.f(T::HealthDegraded, &[health.reason.as_deref().unwrap_or_default()]) }</p>
        },
    };
    let storage = &health.storage;
    let space = match (storage.free_bytes, storage.total_bytes) {
        (Some(free), Some(total)) => lang.f(
            T::HealthStorageLine,
            &[&size(lang, total.saturating_sub(free)), &size(lang, free)],
        ),
        _ => lang.t(T::HealthUnknown).to_owned(),
    };
    let state = match storage.state {
        StorageState::Ok => String::new(),
        StorageState::NearlyFull => format!(" · {}", lang.t(T::HealthStorageNearlyFull)),
        StorageState::Failing => format!(
            " · {}",
            lang.f(
                T::HealthStorageFailing,
                &[storage.reason.as_deref().unwrap_or_default()]
            )
        ),
    };
    html! {
        <>
            { overall }
            <dl class="facts" id="health-facts">
                <dt>{ lang.t(T::HealthVersion) }</dt><dd id="health-version" dir="ltr">{ health.version.clone() }</dd>
                <dt>{ lang.t(T::HealthUptime) }</dt><dd id="health-uptime">{ uptime(lang, health.uptime_s) }</dd>
                <dt>{ lang.t(T::HealthStorage) }</dt><dd id="health-storage">{ space }{ state }</dd>
                if let Some(d) = &h.display {
                    <dt>{ lang.t(T::HealthDisplay) }</dt>
                    <dd id="health-display" class={(d.state == DisplayState::Failing).then_some("error")}>{
                        match d.state {
                            DisplayState::Ok => lang.f(T::HealthDisplayOk, &[&d.backend]),
                            DisplayState::Starting => lang.f(T::HealthDisplayStarting, &[&d.backend]),
                            DisplayState::Failing => lang.f(T::HealthDisplayFailing, &[
                                &d.backend, d.error.as_deref().unwrap_or_default(),
                            ]),
                        }
                    }</dd>
                }
                <dt>{ lang.t(T::HealthActivity) }</dt><dd id="health-activity">{ lang.f(T::HealthActivityLine, &[
                    &lang.num(health.players_online), &lang.num(health.rooms), &lang.num(health.connections),
                ]) }</dd>
            </dl>
        </>
    }
}

#[component]
fn HealthPanel() -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let health = use_state(|| None::<OwnerHealth>);
    let said_last = use_state(|| None::<Said>);
    let generation = use_state(|| 0u32);
    {
        let (health, said_last) = (health.clone(), said_last.clone());
        use_effect_with(*generation, move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                match api::owner_health().await {
                    Ok(h) => health.set(Some(h)),
                    Err(e) => said_last.set(Some(Said::Refused(error_text(&e)))),
                }
            });
        });
    }
    let reload = {
        let generation = generation.clone();
        Callback::from(move |_| generation.set(generation.wrapping_add(1)))
    };
    html! {
        <>
            <div class="owner-tools">
                <button type="button" id="health-refresh" onclick={reload}>{ ctx.t(T::Refresh) }</button>
            </div>
            { said(lang, "health-said", &said_last) }
            { match &*health {
                None => html! { <p role="status">{ ctx.t(T::Loading) }</p> },
                Some(h) => html! {
                    <>
                        <section class="panel">{ health_facts(lang, h) }</section>
                        <section class="panel">{ status_lines(lang, &h.update) }</section>
                        <section class="panel">
                            <h2>{ ctx.t(T::HealthErrors) }</h2>
                            if h.recent_errors.is_empty() {
                                <p class="note" id="health-no-errors">{ ctx.t(T::HealthNoErrors) }</p>
                            } else {
                                <ol class="log-lines" id="health-errors" dir="ltr">
                                    { for h.recent_errors.iter().rev().map(|line| html! { <li>{ line.clone() }</li> }) }
                                </ol>
                            }
                        </section>
                    </>
                },
            } }
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_megabytes_below_a_gigabyte_then_tenths_of_gigabytes() {
        assert_eq!(size(Lang::En, 81_920), "1 MB");
        assert_eq!(size(Lang::En, 7_516_192_768), "7.5 GB");
        assert_eq!(size(Lang::En, 31_914_983_424), "31.9 GB");
    }

    #[test]
    fn a_server_started_since_the_restart_was_asked_is_the_new_one() {
        // Asked 2.5 s ago: a process up for 2 s started since; the old one, up an hour, did not.
        assert!(came_back(2, 2_500.0));
        assert!(came_back(0, 900.0));
        assert!(!came_back(3_600, 2_500.0));
        assert!(!came_back(3, 2_500.0));
    }

    fn status(installed: &[&str], bad: &[&str], supervisor: Supervisor) -> UpdateStatus {
        UpdateStatus {
            running: "0.1.0".into(),
            installed: installed.iter().map(|v| (*v).to_owned()).collect(),
            bad: bad.iter().map(|v| (*v).to_owned()).collect(),
            last_rollback: None,
            supervisor,
            room: None,
        }
    }

    #[test]
    fn after_a_restart_the_page_never_says_an_installed_version_runs_when_it_does_not() {
        let launcher = status(&["0.1.1", "0.1.2"], &["0.1.2"], Supervisor::Launcher);
        assert_eq!(
            after_restart(Lang::En, "0.1.1", &launcher),
            "The server is back, running version 0.1.1."
        );
        assert_eq!(
            after_restart(Lang::En, "0.1.0", &launcher),
            "The server is back, running version 0.1.0. Version 0.1.1 is installed but not running: see the last rollback."
        );
        let by_hand = status(&["0.1.1"], &[], Supervisor::RunScript);
        assert_eq!(
            after_restart(Lang::En, "0.1.0", &by_hand),
            "The server is back, running version 0.1.0. Version 0.1.1 is installed but not running."
        );
        let nothing = status(&[], &[], Supervisor::RunScript);
        assert_eq!(
            after_restart(Lang::En, "0.1.0", &nothing),
            "The server is back, running version 0.1.0."
        );
    }

    #[test]
    fn uptimes_name_the_two_largest_units() {
        assert_eq!(uptime(Lang::En, 42), "0 min");
        assert_eq!(uptime(Lang::En, 3 * 3600 + 7 * 60), "3 h 7 min");
        assert_eq!(uptime(Lang::En, 2 * 86_400 + 5 * 3600), "2 d 5 h");
    }
}
