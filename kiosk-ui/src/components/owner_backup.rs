//! `/owner/backup` (SPEC O3): download a backup of all data (a plain link: the browser saves
//! the file the server names), and restore one: pick a file, see what the server found in it
//! (nothing changes yet), confirm, restore. The data a restore replaces is kept on the kiosk
//! and the page says where; the backups kept there are listed (time, size, version), each
//! with Download and Restore.

use protocol::http::{BackupPreview, KeptBackups, Restored};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::api;
use crate::i18n::{Lang, T};
use crate::route::OwnerSection;
use crate::state::Action;

use super::context::use_ctx;
use super::owner::{Confirm, OwnerShell, Said, date_time, error_text, said};
use super::owner_update::size;

#[component]
pub fn OwnerBackupPage() -> Html {
    html! {
        <OwnerShell section={OwnerSection::Backup}>
            <Backup />
        </OwnerShell>
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Restore {
    Idle,
    Checking,
    Checked(web_sys::File, BackupPreview),
    Restoring,
    Done(Restored),
}

/// What a restore replaces the data with.
#[derive(Debug, Clone, PartialEq)]
enum Source {
    File(web_sys::File),
    /// A backup kept on the kiosk, by name.
    Kept(String),
}

fn preview_text(lang: Lang, p: &BackupPreview) -> String {
    lang.f(
        T::RestorePreview,
        &[
            &date_time(lang, p.created_ms),
            &p.app_version,
            &lang.num(p.format_version),
            &lang.num(p.schema_version),
            &lang.num(p.users),
            &lang.num(p.games),
            &lang.num(p.owners),
        ],
    )
}

#[component]
fn Backup() -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    let step = use_state(|| Restore::Idle);
    let said_last = use_state(|| None::<Said>);
    let kept = use_state(|| None::<KeptBackups>);
    // Bumped after each restore: the list is read again (the replaced data is kept in it).
    let generation = use_state(|| 0u32);
    {
        let (kept, said_last) = (kept.clone(), said_last.clone());
        use_effect_with(*generation, move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                match api::kept_backups().await {
                    Ok(list) => kept.set(Some(list)),
                    Err(e) => said_last.set(Some(Said::Refused(error_text(&e)))),
                }
            });
        });
    }
    let picked = {
        let (step, said_last) = (step.clone(), said_last.clone());
        Callback::from(move |e: Event| {
            let input: HtmlInputElement = e.target_unchecked_into();
            let Some(file) = input.files().and_then(|files| files.get(0)) else {
                step.set(Restore::Idle);
                return;
            };
            said_last.set(None);
            step.set(Restore::Checking);
            let (step, said_last) = (step.clone(), said_last.clone());
            wasm_bindgen_futures::spawn_local(async move {
                match api::restore_preview(&file).await {
                    Ok(preview) => step.set(Restore::Checked(file, preview)),
                    Err(e) => {
                        said_last.set(Some(Said::Refused(error_text(&e))));
                        step.set(Restore::Idle);
                    }
                }
            });
        })
    };
    // Runs a restore (from an uploaded file or a kept backup) and reports it.
    let run_restore = {
        let (step, said_last, ctx, generation) = (
            step.clone(),
            said_last.clone(),
            ctx.clone(),
            generation.clone(),
        );
        Callback::from(move |source: Source| {
            let (step, said_last, ctx, generation) = (
                step.clone(),
                said_last.clone(),
                ctx.clone(),
                generation.clone(),
            );
            said_last.set(None);
            step.set(Restore::Restoring);
            wasm_bindgen_futures::spawn_local(async move {
                let answer = match &source {
                    Source::File(file) => api::restore(file).await,
                    Source::Kept(name) => api::restore_kept(name).await,
                };
                match answer {
                    Ok(done) => {
                        step.set(Restore::Done(done));
                        generation.set(generation.wrapping_add(1));
                        // Every session is gone: this browser is signed out too.
                        ctx.dispatch(Action::Account(None));
                        ctx.reconnect.emit(());
                    }
                    Err(e) => {
                        said_last.set(Some(Said::Refused(error_text(&e))));
                        step.set(Restore::Idle);
                    }
                }
            });
        })
    };
    let restore = {
        let (step, run_restore) = (step.clone(), run_restore.clone());
        Callback::from(move |()| {
            if let Restore::Checked(file, _) = &*step {
                run_restore.emit(Source::File(file.clone()));
            }
        })
    };
    let busy = matches!(*step, Restore::Checking | Restore::Restoring);
    let stage = match &*step {
        Restore::Idle => html! {},
        Restore::Checking | Restore::Restoring => {
            html! { <p role="status" id="restore-status">{ ctx.t(T::RestoreChecking) }</p> }
        }
        Restore::Checked(_, preview) => html! {
            <>
                <p id="restore-preview">{ preview_text(lang, preview) }</p>
                <Confirm id="restore" label={ctx.t(T::RestoreYes)} question={ctx.t(T::RestoreAsk)}
                    yes={ctx.t(T::RestoreYes)} on_yes={restore} {busy} />
            </>
        },
        Restore::Done(done) => html! {
            <p class="done" id="restore-done" role="status">{ lang.f(T::RestoreDone, &[
                &lang.num(done.restored.users), &lang.num(done.restored.games), &done.replaced_kept_as,
            ]) }</p>
        },
    };
    let kept_list = match &*kept {
        None => html! { <p role="status">{ ctx.t(T::Loading) }</p> },
        Some(list) if list.backups.is_empty() => {
            html! { <p class="note" id="kept-none">{ ctx.t(T::KeptNone) }</p> }
        }
        Some(list) => html! {
            <ol class="kept-backups" id="kept-backups">
                { for list.backups.iter().enumerate().map(|(i, b)| {
                    let when = date_time(lang, b.created_ms);
                    let on_yes = {
                        let (run_restore, name) = (run_restore.clone(), b.name.clone());
                        Callback::from(move |()| run_restore.emit(Source::Kept(name.clone())))
                    };
                    html! {
                        <li class="kept-backup" data-name={b.name.clone()}>
                            <p>{ lang.f(T::KeptRow, &[&when, &size(lang, b.bytes), &b.app_version]) }</p>
                            <p class="note" dir="ltr">{ b.name.clone() }</p>
                            <div class="actions">
                                <a class="button-link" id={format!("kept-download-{i}")}
                                    href={api::kept_backup_url(&b.name)} download="">{ ctx.t(T::KeptDownload) }</a>
                                <Confirm id={format!("kept-restore-{i}")} label={ctx.t(T::KeptRestore)}
                                    question={lang.f(T::KeptRestoreAsk, &[&when])}
                                    yes={ctx.t(T::RestoreYes)} {on_yes} {busy} />
                            </div>
                        </li>
                    }
                }) }
            </ol>
        },
    };
    let keep = kept
        .as_ref()
        .map_or_else(String::new, |list| lang.num(list.keep));
    html! {
        <>
            <section class="panel">
                <h2>{ ctx.t(T::BackupDownload) }</h2>
                <p>{ ctx.t(T::BackupDownloadHelp) }</p>
                <a class="button-link primary" id="backup-download" href={api::BACKUP_URL} download="">
                    { ctx.t(T::BackupDownload) }
                </a>
            </section>
            <section class="panel">
                <h2>{ ctx.t(T::RestoreTitle) }</h2>
                <div class="field">
                    <label for="restore-file">{ ctx.t(T::RestorePick) }</label>
                    <input id="restore-file" type="file" accept=".xokb,application/octet-stream"
                        disabled={busy} onchange={picked} />
                </div>
                { said(lang, "restore-said", &said_last) }
                { stage }
            </section>
            <section class="panel" id="kept">
                <h2>{ ctx.t(T::KeptTitle) }</h2>
                <p>{ lang.f(T::KeptHelp, &[&keep]) }</p>
                { kept_list }
            </section>
        </>
    }
}
