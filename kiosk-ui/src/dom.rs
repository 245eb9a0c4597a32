//! Thin wrappers over the browser: time, the address bar, the document and local storage.
//! They compile everywhere; they only work in a browser, so pure modules never call them.

use gloo::storage::{LocalStorage, Storage};

use crate::i18n::Lang;

const LANG_KEY: &str = "xo.lang";

/// Minutes after local midnight now (the kiosk's clock and time zone are the server's: the
/// same machine).
pub fn minute_of_day() -> u16 {
    let now = js_sys::Date::new_0();
    u16::try_from(now.get_hours() * 60 + now.get_minutes()).unwrap_or(0)
}

/// Milliseconds since the epoch, by the browser's clock (used only for local countdowns).
pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

pub fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

/// The address bar's path.
pub fn current_path() -> String {
    window()
        .and_then(|w| w.location().pathname().ok())
        .unwrap_or_else(|| "/".to_owned())
}

/// `http://host:port` of this page.
pub fn origin() -> String {
    window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default()
}

/// Opens `path` as a new page load (for a page of the other bundle).
pub fn load(path: &str) {
    if let Some(w) = window()
        && let Err(e) = w.location().assign(path)
    {
        gloo::console::warn!("location.assign failed", e);
    }
}

/// Adds `path` to the history unless it is already the address.
pub fn push_path(path: &str) {
    if current_path() == path {
        return;
    }
    if let Some(history) = window().and_then(|w| w.history().ok()) {
        if let Err(e) = history.push_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(path)) {
            gloo::console::warn!("history.pushState failed", e);
        }
    }
}

/// The language this browser chose before (stored by [`store_lang`]), else, on a phone
/// (`kiosk` false), the browser's own when it is Arabic; `None`: the page follows the kiosk's
/// default language.
pub fn stored_lang(kiosk: bool) -> Option<Lang> {
    if let Ok(code) = LocalStorage::get::<String>(LANG_KEY) {
        if let Some(lang) = Lang::from_code(&code) {
            return Some(lang);
        }
    }
    let browser = window()
        .and_then(|w| w.navigator().language())
        .unwrap_or_default();
    (!kiosk && browser.starts_with("ar")).then_some(Lang::Ar)
}

/// Remembers the visitor's choice of language (U6) for their next visit.
pub fn store_lang(lang: Lang) {
    if let Err(e) = LocalStorage::set(LANG_KEY, lang.code()) {
        // Private browsing may refuse storage; the switch still works for this visit.
        gloo::console::warn!("cannot store the language", e.to_string());
    }
}

/// Forgets the stored choice: the kiosk's next visitor gets the default language.
pub fn forget_lang() {
    LocalStorage::delete(LANG_KEY);
}

/// Lays the page out in the language's direction.
pub fn apply_lang(lang: Lang) {
    if let Some(root) = window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        // Both attributes always exist on <html>; failures only mean a detached document.
        let _lang_set = root.set_attribute("lang", lang.code());
        let _dir_set = root.set_attribute("dir", lang.dir());
    }
}

pub fn set_title(title: &str) {
    if let Some(doc) = window().and_then(|w| w.document()) {
        doc.set_title(title);
    }
}

/// Marks the page as the kiosk's (dark theme, large targets) or a phone's.
pub fn set_kiosk_class(kiosk: bool) {
    if let Some(root) = window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let list = root.class_list();
        let _toggled = list.toggle_with_force("kiosk", kiosk);
    }
}

/// Focuses the element with `id`, e.g. the board after a screen opens.
pub fn focus_id(id: &str) {
    use wasm_bindgen::JsCast;
    if let Some(el) = window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(id))
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok())
    {
        let _focused = el.focus();
    }
}
