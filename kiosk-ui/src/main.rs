//! The web app's entry point: mounts the app on the page's `<body>`.

fn main() {
    kiosk_ui::start();
}
