//! The reading pages' entry point (`kiosk-pages.js`, loaded by `index.html` at `/signin`,
//! `/profile…`, `/leaderboard…` and `/rules`): mounts the app with those pages on the page's
//! `<body>`.

fn main() {
    kiosk_ui::start_pages();
}
