//! The HTTP API as data: one table of every endpoint (method, path, success status, request
//! and response types). The server's router finds a request's endpoint in it
//! ([`Endpoint::find`]), the UI builds its requests from it ([`Endpoint::url`], [`Call`]), and
//! `docs/PROTOCOL.md` documents each row (its test `api_docs` checks it). `GET /ws`, the
//! WebSocket upgrade, is no row: what passes over it is the rest of this crate.
//!
//! ```
//! use protocol::api::{Call, Endpoint, Found, Method, call};
//!
//! assert_eq!(Endpoint::find("POST", "/api/owner/users/7/rename"),
//!            Found::Endpoint(Endpoint::RenameUser, vec!["7"]));
//! assert_eq!(Endpoint::RenameUser.url(&["7"]), "/api/owner/users/7/rename");
//! assert_eq!(<call::RenameUser as Call>::ENDPOINT.method(), Method::Post);
//! // The same path with another method: the methods it takes, for `Allow`.
//! assert_eq!(Endpoint::find("PUT", "/api/me"), Found::WrongMethod("GET, HEAD, DELETE"));
//! ```

use serde::{Deserialize, Serialize};

/// An HTTP method the API uses. `HEAD` is answered as `GET`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
    Put,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Delete => "DELETE",
        }
    }

    /// The method named `name` (`HEAD` as `GET`), if the API uses it.
    pub fn from_name(name: &str) -> Option<Method> {
        match name {
            "GET" | "HEAD" => Some(Method::Get),
            "POST" => Some(Method::Post),
            "PUT" => Some(Method::Put),
            "DELETE" => Some(Method::Delete),
            _ => None,
        }
    }
}

/// A set of [`Method`]s: the methods a path takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Methods(u8);

impl Methods {
    /// This set and `method`.
    pub const fn with(self, method: Method) -> Methods {
        Methods(self.0 | 1 << method as u8)
    }

    pub const fn contains(self, method: Method) -> bool {
        self.0 & (1 << method as u8) != 0
    }

    /// The value of `Allow`: the methods in the order `GET` (and `HEAD`, answered as `GET`),
    /// `POST`, `PUT`, `DELETE`.
    pub const fn allow(self) -> &'static str {
        match self.0 {
            0 => "",
            1 => "GET, HEAD",
            2 => "POST",
            3 => "GET, HEAD, POST",
            4 => "PUT",
            5 => "GET, HEAD, PUT",
            6 => "POST, PUT",
            7 => "GET, HEAD, POST, PUT",
            8 => "DELETE",
            9 => "GET, HEAD, DELETE",
            10 => "POST, DELETE",
            11 => "GET, HEAD, POST, DELETE",
            12 => "PUT, DELETE",
            13 => "GET, HEAD, PUT, DELETE",
            14 => "POST, PUT, DELETE",
            _ => "GET, HEAD, POST, PUT, DELETE",
        }
    }
}

/// A request that carries no body (a `GET`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoBody;

/// `{}`: the body of a state change without fields (state changes are JSON, SPEC S2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Empty {}

/// A file sent as `application/octet-stream` (a backup to restore, an update).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Upload;

/// A file answered as `application/octet-stream` (a backup).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Download;

/// One endpoint's types: what [`call`]'s types implement, for a client to send the right body
/// and read the right answer.
pub trait Call {
    const ENDPOINT: Endpoint;
    type Request;
    type Response;
}

/// What [`Endpoint::find`] makes of a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found<'p> {
    /// The endpoint and the path's `{…}` segments, in order (as sent: still percent-encoded).
    Endpoint(Endpoint, Vec<&'p str>),
    /// The path exists, not for this method: the methods it takes, as `Allow` names them.
    WrongMethod(&'static str),
    /// No endpoint has this path.
    NotFound,
}

/// Declares the table: a line per endpoint, `Name = METHOD "path", status, Request => Response;`.
macro_rules! endpoints {
    ($($(#[$doc:meta])* $name:ident = $method:ident $path:literal, $status:literal, $req:ty => $resp:ty;)*) => {
        /// Every endpoint of the HTTP API.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Endpoint {
            $($(#[$doc])* $name,)*
        }

        impl Endpoint {
            /// Every endpoint, in the table's order.
            pub const ALL: [Endpoint; [$($path),*].len()] = [$(Endpoint::$name),*];

            pub const fn method(self) -> Method {
                match self {
                    $(Endpoint::$name => Method::$method,)*
                }
            }

            /// The path, with `{name}` for each segment the caller fills in.
            pub const fn path(self) -> &'static str {
                match self {
                    $(Endpoint::$name => $path,)*
                }
            }

            /// The status of a success.
            pub const fn status(self) -> u16 {
                match self {
                    $(Endpoint::$name => $status,)*
                }
            }

            /// The names of the request and response types, as the table spells them.
            pub fn types(self) -> (&'static str, &'static str) {
                match self {
                    $(Endpoint::$name => (stringify!($req), stringify!($resp)),)*
                }
            }

            /// Whether the request's body is a file ([`Upload`], `application/octet-stream`)
            /// rather than JSON.
            pub fn takes_file(self) -> bool {
                self.types().0 == stringify!(Upload)
            }
        }

        /// One type per endpoint, naming its request and response types ([`Call`]).
        pub mod call {
            #[allow(unused_imports)]
            use crate::{api::*, http, view};
            $(
                $(#[$doc])*
                #[derive(Debug, Clone, Copy)]
                pub struct $name;
                impl Call for $name {
                    const ENDPOINT: Endpoint = Endpoint::$name;
                    type Request = $req;
                    type Response = $resp;
                }
            )*
        }
    };
}

endpoints! {
    // Read-only, anyone.
    /// The server's and the card's health.
    Health = Get "/api/health", 200, NoBody => http::Health;
    /// What the UI needs to know about this kiosk.
    Config = Get "/api/config", 200, NoBody => http::ServerConfig;
    /// The open rooms, as the lobby lists them (unpaged).
    Rooms = Get "/api/rooms", 200, NoBody => Vec<view::RoomSummary>;
    /// A player's profile, by username (percent-encoded).
    Profile = Get "/api/users/{name}", 200, NoBody => http::Profile;
    /// The season being played and the archived ones.
    Seasons = Get "/api/seasons", 200, NoBody => http::Seasons;
    /// A ladder (`?game=xo|infinite`, optionally `&season=N`).
    Leaderboard = Get "/api/leaderboard", 200, NoBody => http::Leaderboard;
    /// Today's puzzle of each game.
    DailyPuzzles = Get "/api/puzzles/daily", 200, NoBody => http::DailyPuzzles;
    /// The streak leaderboard of one game (`?game=xo|infinite`).
    PuzzleStreaks = Get "/api/puzzles/streaks", 200, NoBody => http::StreakBoard;
    /// Arena events.
    Events = Get "/api/events", 200, NoBody => http::EventList;
    /// One arena event with its games.
    Event = Get "/api/events/{id}", 200, NoBody => http::EventPage;
    /// A finished game, for replay.
    Game = Get "/api/games/{id}", 200, NoBody => http::GameView;
    // Accounts.
    /// A new account, signed in.
    Register = Post "/api/register", 201, http::Credentials => http::Account;
    /// Sign in.
    Login = Post "/api/login", 200, http::Credentials => http::Account;
    /// A new password with an owner's reset code, signed in.
    LoginReset = Post "/api/login/reset", 200, http::ResetPassword => http::Account;
    /// Sign out.
    Logout = Post "/api/logout", 200, Empty => http::SignedOut;
    /// A new password; the account's other sessions end.
    ChangePassword = Post "/api/me/password", 200, http::ChangePassword => http::Account;
    /// The signed-in account (401 for a guest).
    Me = Get "/api/me", 200, NoBody => http::Account;
    /// Deletes the signed-in account.
    DeleteMe = Delete "/api/me", 200, http::DeleteAccount => http::SignedOut;
    /// The signed-in account, or none for a guest.
    Session = Get "/api/session", 200, NoBody => http::Session;
    // Owner mode.
    /// A one-time owner code, for the kiosk's own screen only.
    KioskOwnerCode = Post "/api/kiosk/owner-code", 200, Empty => http::OwnerCode;
    /// Whether the kiosk's screen sleeps, for the kiosk's machine only.
    KioskScreen = Get "/api/kiosk/screen", 200, NoBody => http::KioskScreen;
    /// The kiosk's page reports that its screen sleeps or woke.
    ReportScreen = Post "/api/kiosk/screen", 200, http::KioskScreen => http::KioskScreen;
    /// The signed-in account becomes an owner with a code.
    ClaimOwner = Post "/api/owner/claim", 200, http::ClaimOwner => http::Owners;
    /// Who asks, and every owner.
    Owners = Get "/api/owner", 200, NoBody => http::Owners;
    /// Makes an account an owner no longer.
    RemoveOwner = Delete "/api/owner/owners/{id}", 200, Empty => http::Owners;
    /// Creates an arena event.
    CreateEvent = Post "/api/owner/events", 201, http::NewEvent => http::EventSummary;
    /// Cancels an announced arena event.
    CancelEvent = Delete "/api/owner/events/{id}", 200, Empty => http::EventSummary;
    /// Every account.
    Users = Get "/api/owner/users", 200, NoBody => http::AccountList;
    /// The accounts with an open connection.
    Online = Get "/api/owner/online", 200, NoBody => http::AccountList;
    /// Renames an account.
    RenameUser = Post "/api/owner/users/{id}/rename", 200, http::Rename => http::Account;
    /// A password reset code for an account.
    ResetPassword = Post "/api/owner/users/{id}/reset-password", 200, Empty => http::PasswordReset;
    /// Removes an account.
    RemoveUser = Delete "/api/owner/users/{id}", 200, Empty => http::AccountRemoved;
    /// The health page: health, recent warnings and errors, the update's state.
    OwnerHealth = Get "/api/owner/health", 200, NoBody => http::OwnerHealth;
    /// The update's state.
    UpdateStatus = Get "/api/owner/update", 200, NoBody => http::UpdateStatus;
    /// Uploads a new binary.
    Update = Post "/api/owner/update", 200, Upload => http::UpdateInstalled;
    /// Restarts the server.
    Restart = Post "/api/owner/restart", 202, Empty => http::Restarting;
    /// Archives the ladders and starts the next season.
    NewSeason = Post "/api/owner/seasons", 200, Empty => http::SeasonStarted;
    /// A backup file of all data.
    Backup = Get "/api/owner/backup", 200, NoBody => Download;
    /// The backups kept on the kiosk, newest first.
    KeptBackups = Get "/api/owner/backups", 200, NoBody => http::KeptBackups;
    /// One kept backup file, as it is on the card.
    KeptBackup = Get "/api/owner/backups/{name}", 200, NoBody => Download;
    /// Replaces all data with a kept backup.
    RestoreKept = Post "/api/owner/backups/{name}/restore", 200, Empty => http::Restored;
    /// What a backup file holds; nothing changes.
    RestorePreview = Post "/api/owner/restore/preview", 200, Upload => http::BackupPreview;
    /// Replaces all data with a backup.
    Restore = Post "/api/owner/restore", 200, Upload => http::Restored;
    /// Closes an open room, saying why.
    CloseRoom = Post "/api/owner/rooms/{id}/close", 200, http::CloseRoom => http::ClosedRoom;
    /// The settings in force.
    Settings = Get "/api/owner/settings", 200, NoBody => http::OwnerSettings;
    /// Saves the settings.
    SaveSettings = Put "/api/owner/settings", 200, http::OwnerSettings => http::OwnerSettings;
    /// Forgets the saved settings.
    ResetSettings = Delete "/api/owner/settings", 200, Empty => http::OwnerSettings;
}

/// The `{…}` segments of `path` if it has `template`'s shape.
fn matches<'p>(template: &str, path: &'p str) -> Option<Vec<&'p str>> {
    let mut params = Vec::new();
    let mut wanted = template.split('/');
    let mut given = path.split('/');
    loop {
        match (wanted.next(), given.next()) {
            (None, None) => return Some(params),
            (Some(w), Some(g)) if w.starts_with('{') && w.ends_with('}') => params.push(g),
            (Some(w), Some(g)) if w == g => {}
            _ => return None,
        }
    }
}

impl Endpoint {
    /// The endpoint of a request: its method's name (`HEAD` is answered as `GET`; a method the
    /// API does not use is refused with `Allow` where the path exists) and path (without the
    /// query). A `{…}` segment matches any one segment, an empty one too.
    pub fn find<'p>(method: &str, path: &'p str) -> Found<'p> {
        let method = Method::from_name(method);
        let mut allow = Methods::default();
        for endpoint in Endpoint::ALL {
            let Some(params) = matches(endpoint.path(), path) else {
                continue;
            };
            if Some(endpoint.method()) == method {
                return Found::Endpoint(endpoint, params);
            }
            allow = allow.with(endpoint.method());
        }
        if allow == Methods::default() {
            Found::NotFound
        } else {
            Found::WrongMethod(allow.allow())
        }
    }

    /// Whether a request to `path` (whatever its method) sends a file ([`Upload`]) rather
    /// than JSON.
    pub fn is_upload_path(path: &str) -> bool {
        Endpoint::ALL
            .iter()
            .any(|e| e.takes_file() && matches(e.path(), path).is_some())
    }

    /// The path with its `{…}` segments replaced by `args`, in order; the caller encodes them.
    pub fn url(self, args: &[&str]) -> String {
        let mut args = args.iter();
        let mut url = String::with_capacity(self.path().len());
        for (i, segment) in self.path().split('/').enumerate() {
            if i > 0 {
                url.push('/');
            }
            if segment.starts_with('{') {
                url.push_str(args.next().expect("one argument for each {…} segment"));
            } else {
                url.push_str(segment);
            }
        }
        url
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_endpoint_is_found_by_its_own_path_and_method() {
        for endpoint in Endpoint::ALL {
            let args: Vec<&str> = endpoint
                .path()
                .split('/')
                .filter(|s| s.starts_with('{'))
                .map(|_| "x1")
                .collect();
            let url = endpoint.url(&args);
            assert_eq!(
                Endpoint::find(endpoint.method().as_str(), &url),
                Found::Endpoint(endpoint, args.clone()),
                "{url}"
            );
        }
    }

    #[test]
    fn a_path_no_endpoint_has_is_not_found_and_another_method_is_refused_with_allow() {
        assert_eq!(Endpoint::find("GET", "/api/nothing"), Found::NotFound);
        assert_eq!(Endpoint::find("HEAD", "/api/health/"), Found::NotFound);
        assert_eq!(
            Endpoint::find("PATCH", "/api/owner/settings"),
            Found::WrongMethod("GET, HEAD, PUT, DELETE")
        );
        assert_eq!(
            Endpoint::find("DELETE", "/api/owner/update"),
            Found::WrongMethod("GET, HEAD, POST")
        );
        assert_eq!(Method::from_name("HEAD"), Some(Method::Get));
    }

    #[test]
    fn allow_names_every_method_of_the_set_in_one_order() {
        let order = [Method::Get, Method::Post, Method::Put, Method::Delete];
        for bits in 0..16u8 {
            let set = order
                .iter()
                .filter(|m| bits & (1 << **m as u8) != 0)
                .fold(Methods::default(), |set, m| set.with(*m));
            let named: Vec<&str> = order
                .iter()
                .filter(|m| set.contains(**m))
                .map(|m| match m {
                    Method::Get => "GET, HEAD",
                    other => other.as_str(),
                })
                .collect();
            assert_eq!(set.allow(), named.join(", "), "{bits:04b}");
        }
    }

    /// `protocol::http`'s table of routes, with each one's errors, names every row.
    #[test]
    fn the_http_modules_table_names_every_row() {
        let docs: String = include_str!("http.rs")
            .lines()
            .filter_map(|line| line.strip_prefix("//! |"))
            .collect::<Vec<_>>()
            .join("\n");
        for endpoint in Endpoint::ALL {
            let named = format!("`{} {}", endpoint.method().as_str(), endpoint.path());
            assert!(
                docs.contains(&format!("{named}`")) || docs.contains(&format!("{named}?")),
                "protocol::http's table has no row for {named}`"
            );
        }
    }

    #[test]
    fn the_uploads_are_the_restores_and_the_update() {
        let uploads: Vec<&str> = Endpoint::ALL
            .iter()
            .filter(|e| e.takes_file())
            .map(|e| e.path())
            .collect();
        assert_eq!(
            uploads,
            [
                "/api/owner/update",
                "/api/owner/restore/preview",
                "/api/owner/restore"
            ]
        );
        assert!(Endpoint::is_upload_path("/api/owner/update"));
        assert!(!Endpoint::is_upload_path(
            "/api/owner/backups/x.xokb/restore"
        ));
        assert!(!Endpoint::is_upload_path("/api/owner/update/"));
    }
}
