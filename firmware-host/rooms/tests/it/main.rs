//! The rooms crate's integration tests, one module per area, in one test binary (one binary
//! per file linked tokio and the crate again, and compiled every generic they use again).
//! Run one area with a filter, e.g. `cargo test -p rooms --test it -- ws_end_to_end::`.

#[path = "../common/mod.rs"]
mod common;

mod clocks_paused;
mod import_loops;
mod load;
mod room_limits;
mod ws_end_to_end;
