//! The kiosk's settings an owner changes from a phone instead of the SD card: the idle time,
//! the public address, the default language, the guests' Wi-Fi network, and when the kiosk's
//! screen sleeps (AP3: sleep hours, and an idle time at any hour).
//!
//! Which wins: the command-line flags (and the image's `xo-kiosk.txt`, which sets them) are
//! the defaults; once an owner saves the settings (`PUT /api/owner/settings`), the saved record
//! is in force, all of it, until an owner forgets it (`DELETE /api/owner/settings`) and the
//! flags apply again. Saved settings apply at once, without a restart: `GET /api/config`
//! serves them, the kiosk's idle return reads them from there, and the status display and the
//! QR code show the new address.
//!
//! A request is parsed in two steps (STYLE 2): the body as plain JSON, then [`parse`] checks
//! each field and yields the [`SettingsRecord`] to store, or the first field it refuses, with
//! that field's stable code.

use std::sync::{PoisonError, RwLock};

use protocol::http::{
    ApiErrorCode, KIOSK_IDLE_RANGE_S, Language, OwnerSettings, SCREEN_OFF_IDLE_RANGE_S, SleepHours,
    Wifi, WifiSecurity,
};
use protocol::rules;
use serde_json::Value;

use crate::config::Config;
use crate::public_url::{GuestWifi, PublicUrl};
use crate::store::{ScreenRecord, SettingsRecord, StoredLanguage, StoredWifi};

/// A field a settings request got wrong, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingError {
    /// The field's stable code (`invalid_kiosk_idle`, …).
    pub code: ApiErrorCode,
    pub why: String,
}

fn refuse(code: ApiErrorCode, why: impl Into<String>) -> SettingError {
    SettingError {
        code,
        why: why.into(),
    }
}

/// Checks a `PUT /api/owner/settings` body field by field (in the order of
/// [`OwnerSettings`]'s fields); `stored` and unknown fields are ignored.
pub fn parse(body: &Value) -> Result<SettingsRecord, SettingError> {
    let field = |name: &str| body.get(name).unwrap_or(&Value::Null);
    let (min, max) = (KIOSK_IDLE_RANGE_S.start(), KIOSK_IDLE_RANGE_S.end());
    let kiosk_idle_s = field("kiosk_idle_s")
        .as_u64()
        .filter(|s| KIOSK_IDLE_RANGE_S.contains(s))
        .ok_or_else(|| {
            refuse(
                ApiErrorCode::InvalidKioskIdle,
                format!("`kiosk_idle_s` must be a whole number of seconds from {min} to {max}"),
            )
        })?;
    let public_url = match field("public_url") {
        Value::Null => None,
        Value::String(s) if s.trim().is_empty() => None,
        Value::String(s) => Some(rules::check_public_url(s).map_err(|why| {
            refuse(
                ApiErrorCode::InvalidPublicUrl,
                format!("`public_url`: {why}"),
            )
        })?),
        _ => {
            return Err(refuse(
                ApiErrorCode::InvalidPublicUrl,
                "`public_url` must be an address or null (automatic)",
            ));
        }
    };
    let default_language = match field("default_language").as_str() {
        Some("en") => StoredLanguage::En,
        Some("ar") => StoredLanguage::Ar,
        _ => {
            return Err(refuse(
                ApiErrorCode::InvalidDefaultLanguage,
                "`default_language` must be \"en\" or \"ar\"",
            ));
        }
    };
    let wifi = match field("wifi") {
        Value::Null => None,
        Value::Object(wifi) => Some(parse_wifi(wifi)?),
        _ => {
            return Err(refuse(
                ApiErrorCode::InvalidWifiSsid,
                "`wifi` must be an object with `ssid` (and `password`) or null (none)",
            ));
        }
    };
    Ok(SettingsRecord {
        kiosk_idle_s,
        public_url,
        default_language,
        wifi,
        screen: Some(parse_screen(body)?),
    })
}

/// `screen_sleep` and `screen_off_idle_s`; missing (a page of an older release) means none.
fn parse_screen(body: &Value) -> Result<ScreenRecord, SettingError> {
    let field = |name: &str| body.get(name).unwrap_or(&Value::Null);
    let sleep = match field("screen_sleep") {
        Value::Null => None,
        Value::Object(hours) => {
            let text = |name: &str| hours.get(name).and_then(Value::as_str).unwrap_or("");
            Some(
                rules::sleep_hours(text("from"), text("until")).map_err(|why| {
                    refuse(
                        ApiErrorCode::InvalidScreenSleep,
                        format!("`screen_sleep`: {why}"),
                    )
                })?,
            )
        }
        _ => {
            return Err(refuse(
                ApiErrorCode::InvalidScreenSleep,
                "`screen_sleep` must be {\"from\":\"HH:MM\",\"until\":\"HH:MM\"} or null (none)",
            ));
        }
    };
    let (min, max) = (
        SCREEN_OFF_IDLE_RANGE_S.start(),
        SCREEN_OFF_IDLE_RANGE_S.end(),
    );
    let off_idle_s = match field("screen_off_idle_s") {
        Value::Null => 0,
        value => value
            .as_u64()
            .filter(|s| *s == 0 || SCREEN_OFF_IDLE_RANGE_S.contains(s))
            .ok_or_else(|| {
                refuse(
                    ApiErrorCode::InvalidScreenOffIdle,
                    format!(
                        "`screen_off_idle_s` must be 0 (never) or a whole number of seconds from {min} to {max}"
                    ),
                )
            })?,
    };
    Ok(ScreenRecord { sleep, off_idle_s })
}

/// Minutes after midnight as `"HH:MM"`.
fn clock(minutes: u16) -> String {
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

fn wire_sleep((from, until): (u16, u16)) -> SleepHours {
    SleepHours {
        from: clock(from),
        until: clock(until),
    }
}

fn parse_wifi(wifi: &serde_json::Map<String, Value>) -> Result<StoredWifi, SettingError> {
    let ssid = wifi
        .get("ssid")
        .and_then(Value::as_str)
        .ok_or_else(|| refuse(ApiErrorCode::InvalidWifiSsid, "`wifi.ssid` must be a name"))?;
    rules::check_wifi_ssid(ssid)
        .map_err(|why| refuse(ApiErrorCode::InvalidWifiSsid, format!("`wifi.ssid`: {why}")))?;
    let password = match wifi.get("password").unwrap_or(&Value::Null) {
        Value::Null => None,
        Value::String(p) if p.is_empty() => None,
        Value::String(p) => {
            rules::check_wifi_password(p).map_err(|why| {
                refuse(
                    ApiErrorCode::InvalidWifiPassword,
                    format!("`wifi.password`: {why}"),
                )
            })?;
            Some(p.clone())
        }
        _ => {
            return Err(refuse(
                ApiErrorCode::InvalidWifiPassword,
                "`wifi.password` must be a string or null (an open network)",
            ));
        }
    };
    match (wifi.get("security").and_then(Value::as_str), &password) {
        (None | Some("WPA"), Some(_)) | (None | Some("nopass"), None) => {}
        (Some("WPA"), None) => {
            return Err(refuse(
                ApiErrorCode::InvalidWifiPassword,
                "`wifi.security` is WPA: `wifi.password` is required",
            ));
        }
        (Some("nopass"), Some(_)) => {
            return Err(refuse(
                ApiErrorCode::InvalidWifiPassword,
                "`wifi.security` is nopass (an open network): `wifi.password` must be null",
            ));
        }
        (Some(other), _) => {
            return Err(refuse(
                ApiErrorCode::InvalidWifiPassword,
                format!("`wifi.security` must be \"WPA\" or \"nopass\", not {other:?}"),
            ));
        }
    }
    Ok(StoredWifi {
        ssid: ssid.to_owned(),
        password,
    })
}

fn wire_wifi(ssid: &str, password: Option<&str>) -> Wifi {
    Wifi {
        ssid: ssid.to_owned(),
        security: if password.is_some() {
            WifiSecurity::Wpa
        } else {
            WifiSecurity::Nopass
        },
        password: password.map(str::to_owned),
    }
}

fn language(stored: StoredLanguage) -> Language {
    match stored {
        StoredLanguage::En => Language::En,
        StoredLanguage::Ar => Language::Ar,
    }
}

/// The settings in force now, and the flags' defaults under them.
#[derive(Debug)]
pub struct Live {
    defaults: OwnerSettings,
    current: RwLock<OwnerSettings>,
    /// Held by every change from its store write until it is in force, so that concurrent
    /// saves are in force in the order they were stored (the last stored is the last applied).
    pub saving: tokio::sync::Mutex<()>,
}

impl Live {
    /// The flags' settings under `stored` (an owner's saved ones, if any).
    pub fn new(config: &Config, stored: Option<&SettingsRecord>) -> Live {
        let defaults = OwnerSettings {
            kiosk_idle_s: config.kiosk_idle_s,
            public_url: config.public_url.clone(),
            default_language: config.default_language,
            wifi: config
                .guest_wifi
                .as_ref()
                .map(|w: &GuestWifi| wire_wifi(&w.ssid, w.password.as_deref())),
            screen_sleep: config.screen_sleep.map(wire_sleep),
            screen_off_idle_s: config.screen_off_idle_s,
            stored: false,
        };
        let current = effective(&defaults, stored);
        Live {
            defaults,
            current: RwLock::new(current),
            saving: tokio::sync::Mutex::new(()),
        }
    }

    /// The settings in force.
    pub fn current(&self) -> OwnerSettings {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Puts `stored` (or, with `None`, the flags' settings) in force, the public address
    /// included, and returns what is in force now. The caller holds [`Live::saving`].
    pub fn apply(&self, stored: Option<&SettingsRecord>, public_url: &PublicUrl) -> OwnerSettings {
        let now = effective(&self.defaults, stored);
        public_url.set_configured(now.public_url.clone());
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = now.clone();
        now
    }
}

/// `stored` when an owner saved settings, else the flags' `defaults`.
fn effective(defaults: &OwnerSettings, stored: Option<&SettingsRecord>) -> OwnerSettings {
    match stored {
        None => defaults.clone(),
        Some(s) => OwnerSettings {
            kiosk_idle_s: s.kiosk_idle_s,
            public_url: s.public_url.clone(),
            default_language: language(s.default_language),
            wifi: s
                .wifi
                .as_ref()
                .map(|w| wire_wifi(&w.ssid, w.password.as_deref())),
            // Saved by a release without them: the flags' still apply.
            screen_sleep: match &s.screen {
                Some(screen) => screen.sleep.map(wire_sleep),
                None => defaults.screen_sleep.clone(),
            },
            screen_off_idle_s: s
                .screen
                .as_ref()
                .map_or(defaults.screen_off_idle_s, |screen| screen.off_idle_s),
            stored: true,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn good() -> Value {
        json!({"kiosk_idle_s": 90, "public_url": "HTTP://Cafe.Example:8080/",
               "default_language": "ar", "wifi": {"ssid": "Cafe Guest", "security": "WPA", "password": "correct horse"}})
    }

    fn code_of(body: &Value) -> ApiErrorCode {
        parse(body).expect_err("refused").code
    }

    #[test]
    fn a_good_request_is_stored_in_its_usual_form() {
        let record = parse(&good()).expect("valid");
        assert_eq!(record.kiosk_idle_s, 90);
        assert_eq!(
            record.public_url.as_deref(),
            Some("http://cafe.example:8080")
        );
        assert_eq!(record.default_language, StoredLanguage::Ar);
        assert_eq!(
            record.wifi,
            Some(StoredWifi {
                ssid: "Cafe Guest".into(),
                password: Some("correct horse".into())
            })
        );
        let automatic = parse(&json!({"kiosk_idle_s": 120, "public_url": "", "default_language": "en", "wifi": null, "stored": true}))
            .expect("valid");
        assert_eq!((automatic.public_url, automatic.wifi), (None, None));
    }

    #[test]
    fn screen_sleep_settings_are_checked_and_missing_ones_mean_none() {
        let mut body = good();
        assert_eq!(
            parse(&body).expect("valid").screen,
            Some(ScreenRecord {
                sleep: None,
                off_idle_s: 0
            })
        );
        body["screen_sleep"] = json!({"from": "23:00", "until": "08:30"});
        body["screen_off_idle_s"] = json!(600);
        assert_eq!(
            parse(&body).expect("valid").screen,
            Some(ScreenRecord {
                sleep: Some((23 * 60, 8 * 60 + 30)),
                off_idle_s: 600
            })
        );
        for bad in [
            json!({"from": "23:00", "until": "23:00"}),
            json!({"from": "25:00", "until": "08:00"}),
            json!({"from": "23:00"}),
            json!("23:00-08:00"),
        ] {
            let mut body = good();
            body["screen_sleep"] = bad.clone();
            assert_eq!(code_of(&body), ApiErrorCode::InvalidScreenSleep, "{bad}");
        }
        for bad in [json!(5), json!(86_401), json!(-1), json!("600"), json!(1.5)] {
            let mut body = good();
            body["screen_off_idle_s"] = bad.clone();
            assert_eq!(code_of(&body), ApiErrorCode::InvalidScreenOffIdle, "{bad}");
        }
    }

    #[test]
    fn each_bad_field_is_refused_with_its_own_code() {
        let with = |key: &str, value: Value| {
            let mut body = good();
            body[key] = value;
            body
        };
        for idle in [
            json!(9),
            json!(3601),
            json!(-5),
            json!(1.5),
            json!("120"),
            Value::Null,
        ] {
            assert_eq!(
                code_of(&with("kiosk_idle_s", idle.clone())),
                ApiErrorCode::InvalidKioskIdle,
                "{idle}"
            );
        }
        for url in [
            json!("ftp://x.example"),
            json!("http://x.example/path"),
            json!(5),
        ] {
            assert_eq!(
                code_of(&with("public_url", url)),
                ApiErrorCode::InvalidPublicUrl
            );
        }
        for lang in [json!("fr"), json!("EN"), Value::Null] {
            assert_eq!(
                code_of(&with("default_language", lang)),
                ApiErrorCode::InvalidDefaultLanguage
            );
        }
        for wifi in [
            json!("cafe"),
            json!({"ssid": ""}),
            json!({"ssid": "x".repeat(33)}),
        ] {
            assert_eq!(code_of(&with("wifi", wifi)), ApiErrorCode::InvalidWifiSsid);
        }
        for wifi in [
            json!({"ssid": "cafe", "password": "short"}),
            json!({"ssid": "cafe", "security": "WPA"}),
            json!({"ssid": "cafe", "security": "nopass", "password": "correct horse"}),
            json!({"ssid": "cafe", "security": "WEP", "password": "correct horse"}),
        ] {
            assert_eq!(
                code_of(&with("wifi", wifi.clone())),
                ApiErrorCode::InvalidWifiPassword,
                "{wifi}"
            );
        }
    }
}
