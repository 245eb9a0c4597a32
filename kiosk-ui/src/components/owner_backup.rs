//! `/owner/backup` (SPEC O3): download a backup of all data (a plain link: the browser saves
//! the file the server names), and restore one: pick a file, see what the server found in it
//! (nothing changes yet), confirm, restore. The data a restore replaces is kept on the kiosk
//! and the page says where.

use protocol::http::{BackupPreview, Restored};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::api;
use crate::i18n::{Lang, T};
use crate::route::OwnerSection;
use crate::state::Action;

use super::context::use_ctx;
use super::owner::{Confirm, OwnerShell, Said, date_time, error_text, said};

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
    let restore = {
        let (step, said_last, ctx) = (step.clone(), said_last.clone(), ctx.clone());
        Callback::from(move |()| {
            let Restore::Checked(file, _) = &*step else {
                return;
            };
            let file = file.clone();
            let (step, said_last, ctx) = (step.clone(), said_last.clone(), ctx.clone());
            step.set(Restore::Restoring);
            wasm_bindgen_futures::spawn_local(async move {
                match api::restore(&file).await {
                    Ok(done) => {
                        step.set(Restore::Done(done));
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
        </>
    }
}
