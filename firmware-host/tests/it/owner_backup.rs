//! Backup and restore (SPEC O3) against the real `firmware-host` process:
//! a backup of one kiosk restored on a fresh one gives the same data (accounts sign in,
//! ladders, games); a damaged, cut or newer file is refused with nothing changed; the replaced
//! data is kept as a backup; a backup of an older schema goes through the same migration as an
//! old database file.

use crate::support;

use std::net::SocketAddr;
use std::path::Path;

use sha2::{Digest, Sha256};
use support::owner::{
    backup, backup_of_fixture, hex, id_of, join, make_owner, send, sign_in as sign_in_with, split,
    upload,
};
use support::{Process, register_at, request};

async fn sign_in(addr: SocketAddr, name: &str) -> String {
    sign_in_with(addr, name, PASSWORD).await
}

const PASSWORD: &str = "password one";

/// What a visitor sees of the data: the ladders, the puzzle streak boards, the profiles
/// (with their puzzles) and a game.
async fn public_view(addr: SocketAddr, room: &str) -> serde_json::Value {
    let mut view = serde_json::Map::new();
    for game in ["xo", "infinite"] {
        let board = send(
            addr,
            "GET",
            &format!("/api/leaderboard?game={game}"),
            None,
            None,
        )
        .await;
        view.insert(game.into(), board.json());
        let streaks = send(
            addr,
            "GET",
            &format!("/api/puzzles/streaks?game={game}"),
            None,
            None,
        )
        .await;
        view.insert(format!("{game}-streaks"), streaks.json());
    }
    for name in ["sara", "omar", "lina"] {
        let profile = send(addr, "GET", &format!("/api/users/{name}"), None, None).await;
        view.insert(name.into(), profile.json());
    }
    let game = send(addr, "GET", &format!("/api/games/{room}"), None, None).await;
    view.insert("game".into(), game.json());
    serde_json::Value::Object(view)
}

/// The first puzzle of an XO streak, solved by the player of `cookie`: a rated attempt, a
/// best streak of 1 and a recent puzzle on their profile.
async fn solve_a_streak_step(addr: SocketAddr, cookie: &str) {
    use protocol::puzzle::{AttemptStatus, PuzzleSource};
    let mut c = xo_client::Client::connect(
        &format!("http://{addr}"),
        Some(cookie),
        protocol::Framing::Text,
    )
    .await
    .expect("connect");
    let mut view = c
        .start_puzzle(PuzzleSource::Streak {
            game: engine::Game::Xo,
            step: 0,
        })
        .await
        .expect("a streak");
    let id: tables::puzzle::PuzzleId = view.puzzle.parse().expect("an embedded puzzle");
    let puzzle = tables::puzzle::puzzle(id).expect("embedded");
    while view.status == AttemptStatus::Playing {
        let position = view.moves.iter().fold(puzzle.position(), |p, &c| {
            p.play(c).expect("the attempt's moves are legal")
        });
        let cell = if view.moves.is_empty() {
            puzzle.solution()
        } else {
            tables::table(view.game)
                .best_moves(&position)
                .expect("in the table")[0]
        };
        view = c
            .puzzle_move(view.attempt, cell)
            .await
            .expect("a right move");
    }
    assert_eq!(view.status, AttemptStatus::Solved);
    assert!(view.rating_change.is_some(), "rated");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_restored_on_a_fresh_kiosk_gives_the_same_data() {
    let old_dir = tempfile::tempdir().expect("temp dir");
    let old = Process::start(old_dir.path(), &[]);
    let sara = register_at(old.addr, "sara", PASSWORD).await;
    let omar = register_at(old.addr, "omar", PASSWORD).await;
    let lina = register_at(old.addr, "lina", PASSWORD).await;
    make_owner(old.addr, &sara).await;
    let (room, _) = support::play_rated_until_resignation(old.addr, &omar, &lina).await;
    solve_a_streak_step(old.addr, &lina).await;
    let before = public_view(old.addr, &room).await;
    assert_eq!(before["xo-streaks"]["players"][0]["username"], "lina");
    assert_ne!(before["lina"]["puzzles"]["xo"]["rating"], 1200, "{before}");
    let file = backup(old.addr, &sara).await;
    let (header, _) = split(&file);
    assert_eq!(header["format"], "xo-kiosk-backup");
    assert_eq!(header["format_version"], 1);
    assert_eq!(
        header["schema_version"],
        firmware_host::store::SCHEMA_VERSION
    );
    old.stop_with("-TERM");

    let new_dir = tempfile::tempdir().expect("temp dir");
    let new = Process::start(new_dir.path(), &[]);
    let dina = register_at(new.addr, "dina", PASSWORD).await;
    make_owner(new.addr, &dina).await;
    let preview = upload(new.addr, "/api/owner/restore/preview", &dina, &file).await;
    assert_eq!(preview.status, 200, "{}", preview.text());
    let preview = preview.json();
    assert_eq!(preview["users"], 3, "{preview}");
    assert_eq!(preview["games"], 1, "{preview}");
    assert_eq!(preview["owners"], 1, "{preview}");
    // A preview changes nothing.
    assert_eq!(id_of(new.addr, &dina).await, 0);

    let restored = upload(new.addr, "/api/owner/restore", &dina, &file).await;
    assert_eq!(restored.status, 200, "{}", restored.text());
    let restored = restored.json();
    assert_eq!(restored["restored"], preview);
    let kept = restored["replaced_kept_as"].as_str().expect("kept as");
    let kept = std::fs::read(new_dir.path().join(kept)).expect("the replaced data is kept");

    // Everyone is signed out; the restored accounts sign in with their passwords.
    send(new.addr, "GET", "/api/me", None, Some(&dina))
        .await
        .assert_error(401, "not_signed_in");
    let sara = sign_in(new.addr, "sara").await;
    sign_in(new.addr, "omar").await;
    assert_eq!(public_view(new.addr, &room).await, before);
    let owners = send(new.addr, "GET", "/api/owner", None, Some(&sara)).await;
    assert_eq!(
        owners.status,
        200,
        "the owner is restored: {}",
        owners.text()
    );
    send(new.addr, "GET", "/api/users/dina", None, None)
        .await
        .assert_error(404, "unknown_user");

    // The kept backup brings the replaced data back.
    let back = upload(new.addr, "/api/owner/restore", &sara, &kept).await;
    assert_eq!(back.status, 200, "{}", back.text());
    sign_in(new.addr, "dina").await;
    send(new.addr, "GET", "/api/users/sara", None, None)
        .await
        .assert_error(404, "unknown_user");
    assert!(!new.wait_log_lines("restored a backup").await.is_empty());
    new.stop_with("-TERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_or_newer_backup_is_refused_and_nothing_changes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let addr = server.addr;
    let sara = register_at(addr, "sara", PASSWORD).await;
    let omar = register_at(addr, "omar", PASSWORD).await;
    make_owner(addr, &sara).await;
    let file = backup(addr, &sara).await;
    let (header, data) = split(&file);

    let mut flipped = data.to_vec();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0xff;
    let mut newer = header.clone();
    newer["schema_version"] = serde_json::json!(firmware_host::store::SCHEMA_VERSION + 1);
    // Checksum right, but not a database.
    let garbage = vec![7u8; 4096];
    let mut garbage_header = header.clone();
    garbage_header["bytes"] = serde_json::json!(garbage.len());
    garbage_header["sha256"] = serde_json::json!(hex(&Sha256::digest(&garbage)));
    let cases: [(&str, Vec<u8>, u16, &str); 5] = [
        ("damaged", join(&header, &flipped), 400, "bad_backup"),
        (
            "cut short",
            file[..file.len() - 100].to_vec(),
            400,
            "bad_backup",
        ),
        ("not a backup", b"hello\nworld".to_vec(), 400, "bad_backup"),
        (
            "not a database",
            join(&garbage_header, &garbage),
            400,
            "bad_backup",
        ),
        ("newer", join(&newer, data), 409, "backup_too_new"),
    ];
    for (what, bad, status, code) in &cases {
        for path in ["/api/owner/restore/preview", "/api/owner/restore"] {
            let reply = upload(addr, path, &sara, bad).await;
            assert_eq!(reply.status, *status, "{what} at {path}: {}", reply.text());
            reply.assert_error(*status, code);
        }
    }
    // Only an owner, and only as a file.
    upload(addr, "/api/owner/restore", &omar, &file)
        .await
        .assert_error(403, "not_owner");
    request(addr, "GET", "/api/owner/backup", &[("Cookie", &omar)], None)
        .await
        .assert_error(403, "not_owner");
    request(
        addr,
        "POST",
        "/api/owner/restore",
        &[("Content-Type", "application/json"), ("Cookie", &sara)],
        Some(&file),
    )
    .await
    .assert_error(415, "unsupported_media_type");

    // Nothing changed: both still signed in, no scratch files left.
    assert_eq!(id_of(addr, &sara).await, 0);
    assert_eq!(id_of(addr, &omar).await, 1);
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .expect("data dir")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "scratch files left: {left:?}");
    server.stop_with("-TERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_of_schema_1_restores_through_the_migration() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v1.redb");
    let file = backup_of_fixture(&fixture, 1);
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let addr = server.addr;
    let sara = register_at(addr, "sara", PASSWORD).await;
    make_owner(addr, &sara).await;

    let preview = upload(addr, "/api/owner/restore/preview", &sara, &file).await;
    assert_eq!(preview.status, 200, "{}", preview.text());
    let preview = preview.json();
    assert_eq!(preview["schema_version"], 1);
    assert_eq!(preview["users"], 2, "{preview}");
    assert_eq!(preview["owners"], 0, "{preview}");
    let restored = upload(addr, "/api/owner/restore", &sara, &file).await;
    assert_eq!(restored.status, 200, "{}", restored.text());

    // The fixture's data set: Ana and Ben, a rated game, Ben's unrated one (indexed by the
    // migration to schema 2).
    let ana = send(addr, "GET", "/api/users/Ana", None, None).await.json();
    let ids: Vec<&str> = ana["recent_games"]
        .as_array()
        .expect("games")
        .iter()
        .filter_map(|g| g["id"].as_str())
        .collect();
    assert!(ids.contains(&"fixture-rated"), "{ana}");
    assert_eq!(ana["ladders"]["xo"]["wins"], 1);
    let game = send(addr, "GET", "/api/games/fixture-unrated", None, None).await;
    assert_eq!(game.status, 200, "{}", game.text());
    // The fixture has no owner: owner mode is claimed again with a code from the kiosk.
    send(addr, "GET", "/api/owner", None, Some(&sara))
        .await
        .assert_error(401, "not_signed_in");
    server.stop_with("-TERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_refuse_what_a_cross_site_form_can_send() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let addr = server.addr;
    let sara = register_at(addr, "sara", PASSWORD).await;
    make_owner(addr, &sara).await;
    let file = backup(addr, &sara).await;
    for path in [
        "/api/owner/restore/preview",
        "/api/owner/restore",
        "/api/owner/update",
    ] {
        // The types a page of another site can send without a CORS preflight.
        for kind in [
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
        ] {
            request(
                addr,
                "POST",
                path,
                &[("Content-Type", kind), ("Cookie", &sara)],
                Some(&file),
            )
            .await
            .assert_error(415, "unsupported_media_type");
        }
        // The right type from another site's page.
        request(
            addr,
            "POST",
            path,
            &[
                ("Content-Type", "application/octet-stream"),
                ("Origin", "http://evil.example"),
                ("Cookie", &sara),
            ],
            Some(&file),
        )
        .await
        .assert_error(403, "bad_origin");
    }
    // Nothing was restored or installed: the owner is still signed in.
    assert_eq!(id_of(addr, &sara).await, 0);
    server.stop_with("-TERM");
}

/// Memory that does not grow with the file (a kiosk has little): an owner's backup reads every page of a
/// file of 40,000 rated games (a 17 MB backup); the server keeps at most its page cache of
/// them (`store::CACHE_BYTES`, 2 MiB). With redb's default 1 GiB cache this debug build grew
/// by 11.6 MB here, against 2.4 MB with a 4 MiB cache; `scripts/bench cache` measured the
/// release code at 72 MB resident after a backup of a 36 MB file, against 13.6 MB now.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_does_not_keep_the_file_in_memory() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().to_owned();
    let store =
        tokio::task::spawn_blocking(move || firmware_host::store::Store::open_blocking(&data))
            .await
            .expect("open")
            .expect("store");
    firmware_host::store::fill::rated_games(&store, 40_000)
        .await
        .expect("filled");
    tokio::task::spawn_blocking(move || store.shutdown_blocking())
        .await
        .expect("closed");
    let server = Process::start(dir.path(), &[]);
    let sara = register_at(server.addr, "sara", PASSWORD).await;
    make_owner(server.addr, &sara).await;
    let before = server.status_kib("VmRSS");
    let file = backup(server.addr, &sara).await;
    assert!(
        file.len() > 12_000_000,
        "a large file: {} bytes",
        file.len()
    );
    let after = server.status_kib("VmRSS");
    assert!(
        after.saturating_sub(before) < 7 * 1024,
        "resident memory grew from {before} kB to {after} kB with a backup of {} bytes",
        file.len()
    );
    // Restoring it writes the whole file in one transaction, four times the cache: whole.
    let preview = upload(server.addr, "/api/owner/restore/preview", &sara, &file).await;
    assert_eq!(preview.status, 200, "{}", preview.text());
    let preview = preview.json();
    assert_eq!(preview["games"], 40_000, "{preview}");
    let restored = upload(server.addr, "/api/owner/restore", &sara, &file).await;
    assert_eq!(restored.status, 200, "{}", restored.text());
    assert_eq!(restored.json()["restored"], preview);
    let sara = sign_in(server.addr, "sara").await;
    assert_eq!(backup(server.addr, &sara).await.len(), file.len());
    server.stop_with("-TERM");
}

/// The names of the files in the data directory's `backups/`, sorted.
fn files_in_backups(data_dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(data_dir.join("backups"))
        .expect("backups/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// O3 with AP5's bound: every restore keeps the data it replaced in `backups/`, which keeps
/// the newest five; the owner lists them (name, time, size), downloads one as it is on the
/// card and restores one by name; nobody else can, and no name reaches outside `backups/`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kept_backups_are_listed_downloaded_restored_and_only_the_newest_five_kept() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let addr = server.addr;
    let mut sara = register_at(addr, "sara", PASSWORD).await;
    make_owner(addr, &sara).await;
    let file = backup(addr, &sara).await;

    // Omar exists only in the data the first restore replaces.
    let omar = register_at(addr, "omar", PASSWORD).await;
    let mut kept_names = Vec::new();
    for _ in 0..7 {
        let restored = upload(addr, "/api/owner/restore", &sara, &file).await;
        assert_eq!(restored.status, 200, "{}", restored.text());
        let kept = restored.json()["replaced_kept_as"]
            .as_str()
            .expect("kept as")
            .to_owned();
        let name = kept
            .strip_prefix("backups/")
            .expect("in backups/")
            .to_owned();
        kept_names.push(name);
        sara = sign_in(addr, "sara").await;
    }
    let first_kept = kept_names[0].clone();

    let list = send(addr, "GET", "/api/owner/backups", None, Some(&sara)).await;
    assert_eq!(list.status, 200, "{}", list.text());
    let list = list.json();
    assert_eq!(list["keep"], 5, "{list}");
    let listed: Vec<&str> = list["backups"]
        .as_array()
        .expect("backups")
        .iter()
        .map(|b| b["name"].as_str().expect("name"))
        .collect();
    let newest_five: Vec<&str> = kept_names
        .iter()
        .rev()
        .take(5)
        .map(String::as_str)
        .collect();
    assert_eq!(listed, newest_five, "newest first, the two oldest pruned");
    let mut on_card: Vec<String> = newest_five.iter().map(|n| (*n).to_owned()).collect();
    on_card.sort();
    assert_eq!(
        files_in_backups(dir.path()),
        on_card,
        "nothing else left in backups/"
    );
    let mut last_ms = u64::MAX;
    for entry in list["backups"].as_array().expect("backups") {
        let name = entry["name"].as_str().expect("name");
        let bytes = std::fs::metadata(dir.path().join("backups").join(name))
            .expect("kept file")
            .len();
        assert_eq!(entry["bytes"], bytes, "{entry}");
        assert_eq!(entry["app_version"], firmware_host::VERSION, "{entry}");
        let created = entry["created_ms"].as_u64().expect("created_ms");
        assert!(created <= last_ms, "newest first: {list}");
        last_ms = created;
    }

    // A download is the file on the card, named as it is there.
    let newest = newest_five[0];
    let got = request(
        addr,
        "GET",
        &format!("/api/owner/backups/{newest}"),
        &[("Cookie", &sara)],
        None,
    )
    .await;
    assert_eq!(got.status, 200, "{}", got.text());
    assert_eq!(
        got.header("content-disposition"),
        Some(format!("attachment; filename=\"{newest}\"").as_str())
    );
    assert_eq!(
        got.body,
        std::fs::read(dir.path().join("backups").join(newest)).expect("kept file")
    );

    // Only owners; no name outside backups/.
    for path in [
        "/api/owner/backups".to_owned(),
        format!("/api/owner/backups/{newest}"),
    ] {
        send(addr, "GET", &path, None, Some(&omar))
            .await
            .assert_error(401, "not_signed_in");
        send(addr, "GET", &path, None, None)
            .await
            .assert_error(401, "not_signed_in");
    }
    let lina = register_at(addr, "lina", PASSWORD).await;
    send(addr, "GET", "/api/owner/backups", None, Some(&lina))
        .await
        .assert_error(403, "not_owner");
    send(
        addr,
        "POST",
        &format!("/api/owner/backups/{newest}/restore"),
        Some("{}"),
        Some(&lina),
    )
    .await
    .assert_error(403, "not_owner");
    for name in [
        "..%2Fxo-kiosk.redb",
        "xo-kiosk.redb",
        ".hidden.xokb",
        "no-such-backup.xokb",
        &first_kept,
    ] {
        send(
            addr,
            "GET",
            &format!("/api/owner/backups/{name}"),
            None,
            Some(&sara),
        )
        .await
        .assert_error(404, "not_found");
        send(
            addr,
            "POST",
            &format!("/api/owner/backups/{name}/restore"),
            Some("{}"),
            Some(&sara),
        )
        .await
        .assert_error(404, "not_found");
    }
    // A state change is JSON: a cross-site form's body is refused.
    let form = request(
        addr,
        "POST",
        &format!("/api/owner/backups/{newest}/restore"),
        &[
            ("Content-Type", "application/x-www-form-urlencoded"),
            ("Cookie", &sara),
        ],
        Some(b"a=b"),
    )
    .await;
    assert_eq!(form.status, 415, "{}", form.text());

    // Restoring a kept backup by name: lina (registered since) is gone with it, and the
    // data it replaced is kept in turn, still five in all.
    let back = send(
        addr,
        "POST",
        &format!("/api/owner/backups/{newest}/restore"),
        Some("{}"),
        Some(&sara),
    )
    .await;
    assert_eq!(back.status, 200, "{}", back.text());
    let replaced = back.json()["replaced_kept_as"]
        .as_str()
        .expect("kept as")
        .to_owned();
    send(addr, "GET", "/api/users/lina", None, None)
        .await
        .assert_error(404, "unknown_user");
    sign_in(addr, "sara").await;
    assert_eq!(files_in_backups(dir.path()).len(), 5);
    assert!(
        files_in_backups(dir.path()).contains(&replaced.trim_start_matches("backups/").to_owned()),
        "{replaced}"
    );
    server.stop_with("-TERM");
}
