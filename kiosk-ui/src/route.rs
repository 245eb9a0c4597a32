//! The app's addresses. The server answers every non-API path with `index.html`, so each
//! screen has a real URL that can be shared, reloaded and opened from the lobby.

use engine::Game;

/// The owner's pages, each at `/owner/<segment>`; the hub is `/owner`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnerSection {
    Hub,
    Players,
    Rooms,
    Seasons,
    Backup,
    Update,
    Health,
    Settings,
    Events,
}

impl OwnerSection {
    /// Every page but the hub, in the hub's order.
    pub const PAGES: [OwnerSection; 8] = [
        OwnerSection::Events,
        OwnerSection::Players,
        OwnerSection::Rooms,
        OwnerSection::Seasons,
        OwnerSection::Backup,
        OwnerSection::Update,
        OwnerSection::Health,
        OwnerSection::Settings,
    ];

    /// The path segment after `/owner/` (empty for the hub).
    pub fn segment(self) -> &'static str {
        match self {
            OwnerSection::Hub => "",
            OwnerSection::Players => "players",
            OwnerSection::Rooms => "rooms",
            OwnerSection::Seasons => "seasons",
            OwnerSection::Backup => "backup",
            OwnerSection::Update => "update",
            OwnerSection::Health => "health",
            OwnerSection::Settings => "settings",
            OwnerSection::Events => "events",
        }
    }

    fn from_segment(segment: &str) -> Option<OwnerSection> {
        OwnerSection::PAGES
            .into_iter()
            .find(|page| page.segment() == segment)
    }
}

/// Which puzzle a puzzle screen plays (PZ2, PZ4, PZ5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PuzzleWhat {
    /// The puzzle of the day of a game.
    Daily(Game),
    /// A streak of a game, from its first puzzle.
    Streak(Game),
    /// Puzzles the server picks near the player's level.
    Next(Game),
    /// One puzzle by its id.
    ById(String),
}

impl PuzzleWhat {
    /// What `puzzle_start` asks for.
    pub fn source(&self) -> protocol::PuzzleSource {
        use protocol::PuzzleSource as S;
        match self {
            PuzzleWhat::Daily(game) => S::Daily { game: *game },
            PuzzleWhat::Streak(game) => S::Streak {
                game: *game,
                step: 0,
            },
            PuzzleWhat::Next(game) => S::Next { game: *game },
            PuzzleWhat::ById(id) => S::ById { puzzle: id.clone() },
        }
    }

    fn path(&self) -> String {
        match self {
            PuzzleWhat::Daily(game) => format!("daily/{}", game.as_str()),
            PuzzleWhat::Streak(game) => format!("streak/{}", game.as_str()),
            PuzzleWhat::Next(game) => format!("next/{}", game.as_str()),
            PuzzleWhat::ById(id) => encode(id),
        }
    }

    fn parse(parts: &[&str]) -> Option<PuzzleWhat> {
        Some(match parts {
            ["daily", game] => PuzzleWhat::Daily(game.parse().ok()?),
            ["streak", game] => PuzzleWhat::Streak(game.parse().ok()?),
            ["next", game] => PuzzleWhat::Next(game.parse().ok()?),
            [id] if valid_segment(id) => PuzzleWhat::ById(decode(id)),
            _ => return None,
        })
    }
}

/// A screen and what it shows.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Route {
    /// The phone home: the lobby with the create-room box.
    #[default]
    Home,
    /// The kiosk's home (U7).
    Kiosk,
    /// A room; `kiosk` keeps the kiosk's large layout and its idle return.
    Room {
        id: String,
        kiosk: bool,
    },
    /// The puzzles' page on phones: the day's puzzles, streaks, the next puzzle.
    Puzzles,
    /// A puzzle being played; `kiosk` keeps the kiosk's large layout and its idle return.
    Puzzle {
        what: PuzzleWhat,
        kiosk: bool,
    },
    Profile(String),
    /// One of a player's recent puzzle attempts, replayed from its start (PZ3).
    PuzzleReplay {
        name: String,
        id: u64,
    },
    Leaderboard(Game),
    /// The streak leaderboard of a game (PZ5).
    Streaks(Game),
    /// A ladder as an archived season ended (SPEC O2).
    ArchivedLeaderboard {
        game: Game,
        season: u64,
    },
    SignIn,
    Rules,
    /// The arena events: scheduled, running and finished (EV5).
    Events,
    /// One event: join, pause, leave; standings; the podium and every game (EV2, EV5, EV6).
    Event(String),
    /// A finished game's replay with analysis (U10, U11).
    Replay(String),
    /// Owner mode (SPEC O1, O2): the hub (the claim form until the account is an owner) and
    /// the owner's pages.
    Owner(OwnerSection),
    NotFound(String),
}

impl Route {
    /// Parses a location path (no query, no fragment).
    pub fn parse(path: &str) -> Route {
        let parts: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        match parts.as_slice() {
            [] | ["lobby"] => Route::Home,
            ["kiosk"] => Route::Kiosk,
            ["room", id] if valid_segment(id) => Route::Room {
                id: (*id).to_owned(),
                kiosk: false,
            },
            ["kiosk", "room", id] if valid_segment(id) => Route::Room {
                id: (*id).to_owned(),
                kiosk: true,
            },
            ["puzzles"] => Route::Puzzles,
            ["puzzle", rest @ ..] => match PuzzleWhat::parse(rest) {
                Some(what) => Route::Puzzle { what, kiosk: false },
                None => Route::NotFound(path.to_owned()),
            },
            ["kiosk", "puzzle", rest @ ..] => match PuzzleWhat::parse(rest) {
                Some(what) => Route::Puzzle { what, kiosk: true },
                None => Route::NotFound(path.to_owned()),
            },
            ["profile", name] if valid_segment(name) => Route::Profile(decode(name)),
            ["profile", name, "puzzle", id] if valid_segment(name) => match id.parse() {
                Ok(id) => Route::PuzzleReplay {
                    name: decode(name),
                    id,
                },
                Err(_) => Route::NotFound(path.to_owned()),
            },
            ["puzzles", "streaks", game] => match game.parse() {
                Ok(game) => Route::Streaks(game),
                Err(_) => Route::NotFound(path.to_owned()),
            },
            ["leaderboard"] => Route::Leaderboard(Game::Xo),
            ["leaderboard", game] => match game.parse() {
                Ok(game) => Route::Leaderboard(game),
                Err(_) => Route::NotFound(path.to_owned()),
            },
            ["leaderboard", game, "season", n] => match (game.parse(), n.parse()) {
                (Ok(game), Ok(season)) => Route::ArchivedLeaderboard { game, season },
                _ => Route::NotFound(path.to_owned()),
            },
            ["signin"] => Route::SignIn,
            ["rules"] => Route::Rules,
            ["owner"] => Route::Owner(OwnerSection::Hub),
            ["owner", page] => match OwnerSection::from_segment(page) {
                Some(section) => Route::Owner(section),
                None => Route::NotFound(path.to_owned()),
            },
            ["game", id] if valid_segment(id) => Route::Replay((*id).to_owned()),
            ["events"] => Route::Events,
            ["events", id] if valid_segment(id) => Route::Event(decode(id)),
            _ => Route::NotFound(path.to_owned()),
        }
    }

    /// The path of this route.
    pub fn path(&self) -> String {
        match self {
            Route::Home => "/".to_owned(),
            Route::Kiosk => "/kiosk".to_owned(),
            Route::Room { id, kiosk: false } => format!("/room/{id}"),
            Route::Room { id, kiosk: true } => format!("/kiosk/room/{id}"),
            Route::Puzzles => "/puzzles".to_owned(),
            Route::Puzzle { what, kiosk: false } => format!("/puzzle/{}", what.path()),
            Route::Puzzle { what, kiosk: true } => format!("/kiosk/puzzle/{}", what.path()),
            Route::Profile(name) => format!("/profile/{}", encode(name)),
            Route::PuzzleReplay { name, id } => format!("/profile/{}/puzzle/{id}", encode(name)),
            Route::Streaks(game) => format!("/puzzles/streaks/{}", game.as_str()),
            Route::Leaderboard(game) => format!("/leaderboard/{}", game.as_str()),
            Route::ArchivedLeaderboard { game, season } => {
                format!("/leaderboard/{}/season/{season}", game.as_str())
            }
            Route::SignIn => "/signin".to_owned(),
            Route::Rules => "/rules".to_owned(),
            Route::Owner(OwnerSection::Hub) => "/owner".to_owned(),
            Route::Owner(section) => format!("/owner/{}", section.segment()),
            Route::Replay(id) => format!("/game/{id}"),
            Route::Events => "/events".to_owned(),
            Route::Event(id) => format!("/events/{}", encode(id)),
            Route::NotFound(path) => path.clone(),
        }
    }

    /// Kiosk screens: large targets, no sign-in, idle return (U7).
    pub fn is_kiosk(&self) -> bool {
        matches!(
            self,
            Route::Kiosk | Route::Room { kiosk: true, .. } | Route::Puzzle { kiosk: true, .. }
        )
    }

    /// The home of this route's mode: the kiosk home for kiosk screens, else the lobby.
    pub fn home(&self) -> Route {
        if self.is_kiosk() {
            Route::Kiosk
        } else {
            Route::Home
        }
    }

    /// The room this route shows, if any.
    pub fn room_id(&self) -> Option<&str> {
        match self {
            Route::Room { id, .. } => Some(id),
            _ => None,
        }
    }

    /// Whether the route shows the live room list.
    pub fn watches_lobby(&self) -> bool {
        matches!(self, Route::Home | Route::Kiosk)
    }

    /// The bundle that shows this route (the UI's size budget: what every visitor downloads
    /// first stays under 300 KiB): the owner's pages are a download of their own, loaded only
    /// at `/owner…`, and so are the pages a visitor reads rather than plays (sign-in, profiles,
    /// leaderboards, rules), which the kiosk's own screens never open; `None` for a path either
    /// shows as "not found".
    pub fn bundle(&self) -> Option<Bundle> {
        match self {
            Route::Owner(_) => Some(Bundle::Owner),
            Route::SignIn
            | Route::Profile(_)
            | Route::PuzzleReplay { .. }
            | Route::Leaderboard(_)
            | Route::ArchivedLeaderboard { .. }
            | Route::Rules => Some(Bundle::Pages),
            Route::NotFound(_) => None,
            _ => Some(Bundle::Main),
        }
    }
}

/// One of the UI's three downloads. `index.html` picks one by the path's first segment:
/// [`Bundle::OWNER_SEGMENTS`] and [`Bundle::PAGES_SEGMENTS`], exactly those that
/// [`Route::parse`] makes pages of that bundle or "not found"; every other path loads the
/// main bundle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bundle {
    /// `kiosk-ui.js`: the lobby, the kiosk's screens, rooms, replays, puzzles.
    Main,
    /// `kiosk-owner.js`: the owner's pages.
    Owner,
    /// `kiosk-pages.js`: sign-in, profiles, leaderboards and the rules.
    Pages,
}

impl Bundle {
    /// The first path segments whose pages are the owner's bundle (as `index.html` lists them).
    pub const OWNER_SEGMENTS: &'static [&'static str] = &["owner"];
    /// The first path segments whose pages are [`Bundle::Pages`] (as `index.html` lists them).
    pub const PAGES_SEGMENTS: &'static [&'static str] =
        &["signin", "profile", "leaderboard", "rules"];
}

fn valid_segment(s: &str) -> bool {
    !s.is_empty() && s.len() <= 64
}

/// Usernames are letters, digits, `_` and `-` (A1), so only a stray `%` needs escaping.
fn encode(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c.to_string()
            } else {
                let mut buf = [0u8; 4];
                c.encode_utf8(&mut buf)
                    .bytes()
                    .map(|b| format!("%{b:02X}"))
                    .collect()
            }
        })
        .collect()
}

fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_route_round_trips_through_its_path() {
        let routes = [
            Route::Home,
            Route::Kiosk,
            Route::Room {
                id: "k3x9".into(),
                kiosk: false,
            },
            Route::Room {
                id: "k3x9".into(),
                kiosk: true,
            },
            Route::Profile("sara_99".into()),
            Route::Profile("a b%".into()),
            Route::Leaderboard(Game::Xo),
            Route::Leaderboard(Game::Infinite),
            Route::SignIn,
            Route::Rules,
            Route::Owner(OwnerSection::Hub),
            Route::ArchivedLeaderboard {
                game: Game::Infinite,
                season: 3,
            },
            Route::Replay("g1".into()),
            Route::Events,
            Route::Event("e12".into()),
            Route::PuzzleReplay {
                name: "a b".into(),
                id: 41,
            },
            Route::Streaks(Game::Infinite),
            Route::Puzzles,
            Route::Puzzle {
                what: PuzzleWhat::Daily(Game::Xo),
                kiosk: true,
            },
            Route::Puzzle {
                what: PuzzleWhat::Streak(Game::Infinite),
                kiosk: false,
            },
            Route::Puzzle {
                what: PuzzleWhat::Next(Game::Xo),
                kiosk: false,
            },
            Route::Puzzle {
                what: PuzzleWhat::ById("infinite-hold-311".into()),
                kiosk: false,
            },
        ];
        let owner_pages = OwnerSection::PAGES.into_iter().map(Route::Owner);
        for r in routes.into_iter().chain(owner_pages) {
            assert_eq!(Route::parse(&r.path()), r, "{}", r.path());
        }
    }

    #[test]
    fn unknown_paths_are_not_found_and_trailing_slashes_are_ignored() {
        assert_eq!(Route::parse("/rules/"), Route::Rules);
        assert_eq!(Route::parse("/lobby"), Route::Home);
        assert_eq!(Route::parse("/leaderboard"), Route::Leaderboard(Game::Xo));
        assert!(matches!(Route::parse("/nope"), Route::NotFound(_)));
        assert!(matches!(
            Route::parse("/leaderboard/chess"),
            Route::NotFound(_)
        ));
        assert!(matches!(Route::parse("/owner/nope"), Route::NotFound(_)));
        assert!(matches!(
            Route::parse("/leaderboard/xo/season/x"),
            Route::NotFound(_)
        ));
        assert_eq!(Route::parse("/owner/"), Route::Owner(OwnerSection::Hub));
    }

    #[test]
    fn each_bundle_has_the_paths_index_html_loads_it_for() {
        let html = include_str!("../index.html");
        let listed = |name: &str| {
            let line = html
                .lines()
                .find(|l| l.contains(&format!("const {name} = [")))
                .unwrap_or_else(|| panic!("index.html lists {name}"));
            let inner = &line[line.find('[').unwrap() + 1..line.find(']').unwrap()];
            inner
                .split(',')
                .map(|s| s.trim().trim_matches('"').to_owned())
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
        };
        assert_eq!(listed("owner"), Bundle::OWNER_SEGMENTS);
        assert_eq!(listed("pages"), Bundle::PAGES_SEGMENTS);
        for path in [
            "/signin",
            "/profile/sara",
            "/leaderboard",
            "/leaderboard/infinite",
            "/leaderboard/xo/season/2",
            "/rules",
        ] {
            assert_eq!(Route::parse(path).bundle(), Some(Bundle::Pages), "{path}");
        }
        // Not found, which every bundle shows, so the page never reloads in a loop.
        for path in ["/profile", "/leaderboard/chess", "/rules/x", "/signin/x"] {
            assert_eq!(Route::parse(path).bundle(), None, "{path}");
        }
        for path in [
            "/",
            "/kiosk",
            "/room/ab",
            "/kiosk/room/ab",
            "/puzzles",
            "/game/ab",
        ] {
            assert_eq!(Route::parse(path).bundle(), Some(Bundle::Main), "{path}");
        }
        // Each route's first segment is its bundle's, as index.html decides.
        for route in [
            Route::SignIn,
            Route::Profile("sara".into()),
            Route::Leaderboard(Game::Infinite),
            Route::Rules,
            Route::Home,
            Route::Kiosk,
            Route::ArchivedLeaderboard {
                game: Game::Xo,
                season: 2,
            },
            Route::PuzzleReplay {
                name: "sara".into(),
                id: 41,
            },
            Route::Streaks(Game::Xo),
            Route::Puzzles,
            Route::Events,
            Route::Event("e2".into()),
            Route::Replay("g1".into()),
        ] {
            let path = route.path();
            let first = path.split('/').find(|s| !s.is_empty()).unwrap_or("");
            let by_html = if Bundle::OWNER_SEGMENTS.contains(&first) {
                Bundle::Owner
            } else if Bundle::PAGES_SEGMENTS.contains(&first) {
                Bundle::Pages
            } else {
                Bundle::Main
            };
            assert_eq!(route.bundle(), Some(by_html), "{path}");
        }
    }

    #[test]
    fn owner_paths_belong_to_the_owner_bundle_and_no_other_path_does() {
        for path in ["/owner", "/owner/", "//owner/players", "/owner/settings"] {
            assert_eq!(Route::parse(path).bundle(), Some(Bundle::Owner), "{path}");
        }
        // What index.html loads the owner's bundle for but no owner page is: "not found",
        // which both bundles show, so the page never reloads in a loop.
        assert_eq!(Route::parse("/owner/nope").bundle(), None);
        for path in [
            "/",
            "/kiosk",
            "/profile/sara",
            "/leaderboard/xo/season/2",
            "/ownerx",
        ] {
            assert_ne!(Route::parse(path).bundle(), Some(Bundle::Owner), "{path}");
        }
    }

    #[test]
    fn kiosk_routes_keep_kiosk_mode_and_return_to_the_kiosk_home() {
        let room = Route::parse("/kiosk/room/ab");
        assert!(room.is_kiosk());
        assert_eq!(room.home(), Route::Kiosk);
        assert_eq!(Route::parse("/room/ab").home(), Route::Home);
        assert_eq!(room.room_id(), Some("ab"));
        let puzzle = Route::parse("/kiosk/puzzle/daily/infinite");
        assert!(puzzle.is_kiosk());
        assert_eq!(puzzle.home(), Route::Kiosk);
        assert!(matches!(
            Route::parse("/puzzle/daily/chess"),
            Route::NotFound(_)
        ));
    }
}
