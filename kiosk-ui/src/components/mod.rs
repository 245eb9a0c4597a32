//! One file per component (STYLE 13). Components read the shared [`Ctx`] and keep only
//! local, visual state (a focused cell, an open confirmation); everything the server decides
//! arrives through the app's reducer.

pub mod app;
pub mod attract;
pub mod board;
pub mod clock;
pub mod context;
pub mod create_room;
pub mod elo_panel;
pub mod event;
pub mod game_replay;
pub mod home;
pub mod icon;
pub mod kiosk;
pub mod lang_switch;
pub mod leaderboard;
pub mod link;
pub mod live_region;
pub mod lobby_list;
pub mod navbar;
pub mod owner;
pub mod owner_account;
pub mod owner_backup;
pub mod owner_code;
pub mod owner_events;
pub mod owner_players;
pub mod owner_rooms;
pub mod owner_seasons;
pub mod owner_settings;
pub mod owner_update;
pub mod player_card;
pub mod profile;
pub mod prompts;
pub mod puzzle;
pub mod puzzle_replay;
pub mod qr;
pub mod replay;
pub mod room;
pub mod rules;
pub mod sign_in;

pub use app::App;
pub use context::Ctx;
