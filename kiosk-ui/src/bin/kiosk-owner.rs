//! The owner's pages' entry point (`kiosk-owner.js`, loaded by `index.html` at `/owner…`):
//! mounts the app with those pages on the page's `<body>`.

fn main() {
    kiosk_ui::start_owner();
}
