//! The owner's settings page (`/owner/settings`): the kiosk's idle time, the
//! public address its QR code shows, the language pages open in and the guests' Wi-Fi network,
//! and when the kiosk's screen sleeps, which an owner would otherwise edit on the SD card. The server checks every field and
//! answers a refusal with the field's code; the page words it in the reader's language.

use protocol::http::{ApiErrorCode, KIOSK_IDLE_RANGE_S, Language};
use serde_json::{Value, json};
use web_sys::HtmlInputElement;
use yew::prelude::*;

use crate::api::{self, ApiError};
use crate::credentials::api_error_text;
use crate::i18n::{Lang, T};
use crate::route::Route;
use crate::state::Action;

use super::context::use_ctx;
use super::link::Link;
use super::navbar::Navbar;

/// What the form holds, as typed.
#[derive(Debug, Clone, PartialEq, Default)]
struct Form {
    idle: String,
    url: String,
    language: Option<Language>,
    ssid: String,
    password: String,
    sleep_from: String,
    sleep_until: String,
    /// Seconds; "0": never.
    screen_off: String,
    /// The settings shown are an owner's saved ones (else the SD card's).
    stored: bool,
}

impl Form {
    fn from_settings(s: &protocol::http::OwnerSettings) -> Form {
        Form {
            idle: s.kiosk_idle_s.to_string(),
            url: s.public_url.clone().unwrap_or_default(),
            language: Some(s.default_language),
            ssid: s.wifi.as_ref().map(|w| w.ssid.clone()).unwrap_or_default(),
            password: s
                .wifi
                .as_ref()
                .and_then(|w| w.password.clone())
                .unwrap_or_default(),
            sleep_from: s
                .screen_sleep
                .as_ref()
                .map(|h| h.from.clone())
                .unwrap_or_default(),
            sleep_until: s
                .screen_sleep
                .as_ref()
                .map(|h| h.until.clone())
                .unwrap_or_default(),
            screen_off: s.screen_off_idle_s.to_string(),
            stored: s.stored,
        }
    }

    /// The request body: a field that does not read as its type is sent as typed, and the
    /// server refuses it with that field's code.
    fn body(&self) -> Value {
        let idle = self.idle.trim();
        let wifi = if self.ssid.is_empty() {
            Value::Null
        } else if self.password.is_empty() {
            json!({ "ssid": self.ssid, "security": "nopass", "password": null })
        } else {
            json!({ "ssid": self.ssid, "security": "WPA", "password": self.password })
        };
        let (from, until) = (self.sleep_from.trim(), self.sleep_until.trim());
        let sleep = if from.is_empty() && until.is_empty() {
            Value::Null
        } else {
            json!({ "from": from, "until": until })
        };
        let off = self.screen_off.trim();
        let off = if off.is_empty() { "0" } else { off };
        json!({
            "kiosk_idle_s": idle.parse::<u64>().map_or_else(|_| json!(idle), |n| json!(n)),
            "public_url": if self.url.trim().is_empty() { Value::Null } else { json!(self.url.trim()) },
            "default_language": self.language.map(Language::as_str),
            "wifi": wifi,
            "screen_sleep": sleep,
            "screen_off_idle_s": off.parse::<u64>().map_or_else(|_| json!(off), |n| json!(n)),
        })
    }
}

/// The words for a refused save.
fn error_text(code: Option<ApiErrorCode>) -> T {
    match code {
        Some(ApiErrorCode::InvalidKioskIdle) => T::ErrSettingsIdle,
        Some(ApiErrorCode::InvalidPublicUrl) => T::ErrSettingsUrl,
        Some(ApiErrorCode::InvalidDefaultLanguage) => T::ErrSettingsLanguage,
        Some(ApiErrorCode::InvalidWifiSsid) => T::ErrSettingsSsid,
        Some(ApiErrorCode::InvalidWifiPassword) => T::ErrSettingsPassword,
        Some(ApiErrorCode::InvalidScreenSleep) => T::ErrSettingsSleep,
        Some(ApiErrorCode::InvalidScreenOffIdle) => T::ErrSettingsScreenOff,
        Some(ApiErrorCode::NotOwner) => T::SettingsNotOwner,
        other => api_error_text(other),
    }
}

/// A text field of the form.
fn text_field(
    id: &'static str,
    label: String,
    value: &str,
    mode: &'static str,
    on: Callback<String>,
) -> Html {
    let oninput = Callback::from(move |e: InputEvent| {
        let input: HtmlInputElement = e.target_unchecked_into();
        on.emit(input.value());
    });
    html! {
        <div class="field">
            <label for={id}>{ label }</label>
            <input id={id} type="text" inputmode={mode} dir="ltr" autocomplete="off"
                spellcheck="false" value={value.to_owned()} {oninput} />
        </div>
    }
}

#[component]
pub fn OwnerSettings() -> Html {
    let ctx = use_ctx();
    let lang = ctx.lang();
    // `None` while loading; `Some(Err)` when the settings cannot be read (not an owner).
    let loaded = use_state(|| None::<Result<(), ApiError>>);
    let form = use_state(Form::default);
    let error = use_state(|| None::<T>);
    let saved = use_state(|| None::<T>);
    let busy = use_state(|| false);
    let signed_in = ctx.state.signed_in();
    {
        let (loaded, form) = (loaded.clone(), form.clone());
        use_effect_with(signed_in, move |_| {
            wasm_bindgen_futures::spawn_local(async move {
                match api::owner_settings().await {
                    Ok(settings) => {
                        form.set(Form::from_settings(&settings));
                        loaded.set(Some(Ok(())));
                    }
                    Err(e) => loaded.set(Some(Err(e))),
                }
            });
        });
    }
    let edit = |f: fn(&mut Form, String)| {
        let (form, saved) = (form.clone(), saved.clone());
        Callback::from(move |value: String| {
            let mut next = (*form).clone();
            f(&mut next, value);
            form.set(next);
            saved.set(None);
        })
    };
    // Applies a settings answer: the form shows it, and the app takes the new configuration
    // at once instead of at its next poll.
    let applied = {
        let (ctx, form, error, saved, busy) = (
            ctx.clone(),
            form.clone(),
            error.clone(),
            saved.clone(),
            busy.clone(),
        );
        Callback::from(
            move |(answer, done): (Result<protocol::http::OwnerSettings, ApiError>, T)| {
                match answer {
                    Ok(settings) => {
                        form.set(Form::from_settings(&settings));
                        error.set(None);
                        saved.set(Some(done));
                        let ctx = ctx.clone();
                        wasm_bindgen_futures::spawn_local(async move {
                            if let Ok(config) = api::config().await {
                                ctx.dispatch(Action::Config(config));
                            }
                        });
                    }
                    Err(e) => {
                        saved.set(None);
                        error.set(Some(error_text(e.code)));
                    }
                }
                busy.set(false);
            },
        )
    };
    let onsubmit = {
        let (form, busy, applied) = (form.clone(), busy.clone(), applied.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            busy.set(true);
            let (body, applied) = (form.body(), applied.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let answer = api::save_owner_settings(&body).await;
                applied.emit((answer, T::SettingsSaved));
            });
        })
    };
    let onreset = {
        let (busy, applied) = (busy.clone(), applied.clone());
        Callback::from(move |_| {
            busy.set(true);
            let applied = applied.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let answer = api::reset_owner_settings().await;
                applied.emit((answer, T::SettingsResetDone));
            });
        })
    };
    let body = match &*loaded {
        _ if !signed_in => html! {
            <>
                <p id="settings-sign-in-first">{ ctx.t(T::OwnerSignInFirst) }</p>
                <p><Link to={Route::SignIn} class="text-link">{ ctx.t(T::SignInTitle) }</Link></p>
            </>
        },
        None => html! { <p role="status">{ ctx.t(T::Loading) }</p> },
        Some(Err(e)) => html! {
            <>
                <p id="settings-errors" role="alert" class="error">{ ctx.t(error_text(e.code)) }</p>
                <p><Link to={Route::Owner(crate::route::OwnerSection::Hub)} class="text-link">{ ctx.t(T::OwnerTitle) }</Link></p>
            </>
        },
        Some(Ok(())) => {
            let (min, max) = (KIOSK_IDLE_RANGE_S.start(), KIOSK_IDLE_RANGE_S.end());
            let language = form.language;
            html! {
                <form class="signin owner-settings" id="settings-form" {onsubmit} novalidate=true>
                    <p id="settings-source">{ ctx.t(if form.stored { T::SettingsStored } else { T::SettingsFromCard }) }</p>
                    { text_field("settings-idle", lang.f(T::SettingsIdle, &[&lang.num(*min), &lang.num(*max)]),
                        &form.idle, "numeric", edit(|f, v| f.idle = v)) }
                    { text_field("settings-url", lang.t(T::SettingsUrl).to_owned(), &form.url, "url",
                        edit(|f, v| f.url = v)) }
                    <p class="note">{ ctx.t(T::SettingsUrlNote) }</p>
                    <fieldset class="choice" id="settings-language">
                        <legend>{ ctx.t(T::SettingsLanguage) }</legend>
                        <div class="segmented">
                            { for [(Language::En, Lang::En), (Language::Ar, Lang::Ar)].into_iter().map(|(value, shown)| {
                                let form = form.clone();
                                let saved = saved.clone();
                                let id = format!("settings-lang-{}", value.as_str());
                                let onchange = Callback::from(move |_: Event| {
                                    form.set(Form { language: Some(value), ..(*form).clone() });
                                    saved.set(None);
                                });
                                let checked = language == Some(value);
                                html! {
                                    <label for={id.clone()} class={classes!("option", checked.then_some("checked"))}>
                                        <input type="radio" id={id} name="settings-language" {checked} {onchange} />
                                        <span lang={shown.code()}>{ shown.native_name() }</span>
                                    </label>
                                }
                            }) }
                        </div>
                    </fieldset>
                    <fieldset id="settings-wifi">
                        <legend>{ ctx.t(T::SettingsWifi) }</legend>
                        { text_field("settings-wifi-ssid", lang.t(T::SettingsWifiName).to_owned(),
                            &form.ssid, "text", edit(|f, v| f.ssid = v)) }
                        { text_field("settings-wifi-password", lang.t(T::SettingsWifiPassword).to_owned(),
                            &form.password, "text", edit(|f, v| f.password = v)) }
                    </fieldset>
                    <fieldset id="settings-screen">
                        <legend>{ ctx.t(T::SettingsScreen) }</legend>
                        <div class="field-row">
                            { text_field("settings-sleep-from", lang.t(T::SettingsSleepFrom).to_owned(),
                                &form.sleep_from, "numeric", edit(|f, v| f.sleep_from = v)) }
                            { text_field("settings-sleep-until", lang.t(T::SettingsSleepUntil).to_owned(),
                                &form.sleep_until, "numeric", edit(|f, v| f.sleep_until = v)) }
                        </div>
                        { text_field("settings-screen-off", lang.f(T::SettingsScreenOff, &[&lang.num(0)]),
                            &form.screen_off, "numeric", edit(|f, v| f.screen_off = v)) }
                        <p class="note">{ ctx.t(T::SettingsScreenNote) }</p>
                    </fieldset>
                    <div class="errors" id="settings-errors" role="alert">
                        if let Some(t) = *error { <p class="error">{ ctx.t(t) }</p> }
                    </div>
                    <p id="settings-saved" role="status">
                        if let Some(t) = *saved { { ctx.t(t) } }
                    </p>
                    <div class="form-actions">
                        <button type="submit" class="primary big" id="settings-save" disabled={*busy}>{ ctx.t(T::SettingsSave) }</button>
                        if form.stored {
                            <button type="button" class="link-button" id="settings-reset" disabled={*busy}
                                onclick={onreset}>{ ctx.t(T::SettingsReset) }</button>
                        }
                    </div>
                </form>
            }
        }
    };
    html! {
        <>
            <Navbar title={AttrValue::from(ctx.t(T::SettingsTitle))} />
            <main id="main" class="page narrow owner">{ body }</main>
        </>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_sends_what_the_owner_typed() {
        let form = Form {
            idle: " 45 ".into(),
            url: "".into(),
            language: Some(Language::Ar),
            ssid: "Cafe".into(),
            password: "".into(),
            sleep_from: "".into(),
            sleep_until: "".into(),
            screen_off: "".into(),
            stored: false,
        };
        assert_eq!(
            form.body(),
            json!({"kiosk_idle_s": 45, "public_url": null, "default_language": "ar",
                   "wifi": {"ssid": "Cafe", "security": "nopass", "password": null},
                   "screen_sleep": null, "screen_off_idle_s": 0})
        );
        let night = Form {
            sleep_from: " 23:00".into(),
            sleep_until: "08:00 ".into(),
            screen_off: "600".into(),
            ..form.clone()
        };
        assert_eq!(
            night.body()["screen_sleep"],
            json!({"from": "23:00", "until": "08:00"})
        );
        assert_eq!(night.body()["screen_off_idle_s"], 600);
        let typed = Form {
            sleep_from: "late".into(),
            screen_off: "soon".into(),
            ..form.clone()
        };
        assert_eq!(
            typed.body()["screen_sleep"],
            json!({"from": "late", "until": ""})
        );
        assert_eq!(typed.body()["screen_off_idle_s"], "soon");
        let typed = Form {
            idle: "soon".into(),
            ssid: "".into(),
            ..form
        };
        assert_eq!(typed.body()["kiosk_idle_s"], "soon");
        assert_eq!(typed.body()["wifi"], Value::Null);
    }
}
