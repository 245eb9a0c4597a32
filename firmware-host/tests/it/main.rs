//! firmware-host's integration tests, one module per area, in one test binary: the real
//! server (in-process or as a real process) on 127.0.0.1, real redb files, real WebSocket and
//! HTTP clients. One binary rather than one per file: each binary linked the whole server and
//! its dependencies again, and compiled the shared support code and every generic it uses
//! again (BENCHMARKS.md, "CI time").
//!
//! Run one area with a filter, e.g. `cargo test -p firmware-host --test it -- abuse::`.
//! `tests/update.rs` stays a binary of its own: `cross/update-check` runs it against a second
//! build of the server.

#[path = "../support/mod.rs"]
mod support;

mod abuse;
mod accounts_http;
mod api_table;
mod connection_limits;
mod cross_site;
mod events_http;
mod events_process;
mod events_ws;
mod flags;
mod http_basics;
mod http_read_endpoints;
mod http_websocket;
mod lobby_updates;
mod owner_backup;
mod owner_boot_code;
mod owner_http;
mod owner_settings;
mod owner_update;
mod protocol_v1;
mod public_url;
mod puzzles;
mod rated_games_limit;
mod results_held;
mod server_crash;
mod server_disk_full;
mod server_display;
mod server_power_cut;
mod server_process;
mod server_rated_result;
mod server_restart_game;
mod sessions_end;
mod sign_in_throttle;
mod store_faults;
mod store_fixtures;
mod store_journal;
mod store_limits;
mod store_power_cuts;
mod store_redb;
mod ws_contract;
mod ws_games;
mod ws_guest;
