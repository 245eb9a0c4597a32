//! The browser tests, one module per area, in one test binary: the real firmware-host (built
//! with the UI embedded) on 127.0.0.1, driven through Debian's headless Chromium and
//! chromedriver. Every test is `#[ignore]`d, so `cargo test` builds them and
//! `scripts/test-browser` runs them (`--ignored`): it lists this binary's tests and runs each
//! module's tests in one of its lanes (at most two Chromiums at a time), each module's tests one
//! at a time. One binary rather than one per file: each linked the WebDriver client, tokio and hyper
//! again and compiled every generic they use again.

mod attract_browser;
mod browser;
mod console_browser;
mod csp_browser;
mod event_browser;
mod games;
mod kiosk_rules;
mod layout;
mod owner_browser;
mod owner_settings_browser;
mod password_browser;
mod profile_seasons_browser;
mod puzzle_browser;
mod puzzle_rating_browser;
mod restart_browser;
mod screen_sleep_browser;
