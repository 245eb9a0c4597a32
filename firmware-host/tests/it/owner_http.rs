//! Owner mode through the real HTTP API (SPEC O1, O2): a code from the
//! kiosk's screen or `firmware-host owner-code` makes a signed-in account an owner; every owner
//! endpoint is checked on the server; the last owner stays; an account deleted by its player
//! or removed by an owner leaves its games to the other players with the name replaced.

use crate::support;

use std::net::Ipv4Addr;

use support::owner::{a_wrong_code, claim, id_of, kiosk_code, make_owner, send};
use support::{
    Process, TestServer, credentials, finish, hold_post, hold_request, request, ws_connect,
};

const PASSWORD: &str = "password one";

/// An in-process server that lets the test register more than five players from 127.0.0.1.
async fn start() -> TestServer {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = firmware_host::Config::for_tests(dir.path().join("data"));
    config.max_registrations_per_address = 0;
    let server = firmware_host::Server::start(config)
        .await
        .expect("server starts");
    TestServer { server, dir }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kiosk_code_makes_an_owner_once_and_owner_endpoints_check_it() {
    let server = start().await;
    let addr = server.addr();
    let sara = server.register("sara", PASSWORD).await;
    let omar = server.register("omar", PASSWORD).await;

    // Before anyone is an owner, nobody may use an owner endpoint.
    send(addr, "GET", "/api/owner", None, None)
        .await
        .assert_error(401, "not_signed_in");
    send(addr, "GET", "/api/owner", None, Some(&omar))
        .await
        .assert_error(403, "not_owner");
    let omar_id = id_of(addr, &omar).await;
    send(
        addr,
        "DELETE",
        &format!("/api/owner/users/{omar_id}"),
        Some("{}"),
        Some(&sara),
    )
    .await
    .assert_error(403, "not_owner");

    // A guest cannot claim; a malformed code is refused without being counted.
    let code = kiosk_code(addr).await;
    claim(addr, "xo_guest=x", &code)
        .await
        .assert_error(401, "not_signed_in");
    claim(addr, &sara, "12ab")
        .await
        .assert_error(403, "bad_owner_code");

    let reply = claim(addr, &sara, &format!("{} {}", &code[..4], &code[4..])).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let owners = reply.json();
    assert_eq!(owners["you"]["username"], "sara");
    assert_eq!(
        owners["owners"].as_array().map(Vec::len),
        Some(1),
        "{owners}"
    );
    assert_eq!(owners["owners"][0]["username"], "sara");

    // Single use: the same code does not make a second owner.
    claim(addr, &omar, &code)
        .await
        .assert_error(403, "bad_owner_code");
    send(addr, "GET", "/api/owner", None, Some(&omar))
        .await
        .assert_error(403, "not_owner");
    let reply = send(addr, "GET", "/api/owner", None, Some(&sara)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());

    // More owners the same way.
    make_owner(addr, &omar).await;
    let reply = send(addr, "GET", "/api/owner", None, Some(&omar)).await;
    assert_eq!(reply.json()["owners"].as_array().map(Vec::len), Some(2));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_burst_of_wrong_owner_codes_spends_the_code() {
    let server = start().await;
    let addr = server.addr();
    let mallory = server.register("mallory", PASSWORD).await;
    let sara = server.register("sara", PASSWORD).await;
    let code = kiosk_code(addr).await;
    let wrong = a_wrong_code(&code);
    let body = serde_json::json!({ "code": wrong }).to_string();

    // 40 wrong guesses, each held one byte short, then released together.
    let mut held = Vec::new();
    for _ in 0..40 {
        held.push(
            hold_post(
                Ipv4Addr::LOCALHOST,
                addr,
                "/api/owner/claim",
                &body,
                Some(&mallory),
            )
            .await,
        );
    }
    let last = *body.as_bytes().last().expect("body");
    let answers = futures_util::future::join_all(held.into_iter().map(|s| finish(s, last))).await;
    for (status, text) in &answers {
        assert_eq!(*status, 403, "{text}");
        assert!(text.contains("bad_owner_code"), "{text}");
    }

    // The right code is spent: at most five guesses were checked against it.
    claim(addr, &sara, &code)
        .await
        .assert_error(403, "bad_owner_code");
    send(addr, "GET", "/api/owner", None, Some(&sara))
        .await
        .assert_error(403, "not_owner");
    // The kiosk shows a new one, which works.
    make_owner(addr, &sara).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_claims_of_one_code_make_one_owner() {
    let server = start().await;
    let addr = server.addr();
    let mut cookies = Vec::new();
    for name in ["ana", "ben", "dina", "omar", "sara", "zaid"] {
        cookies.push(server.register(name, PASSWORD).await);
    }
    let code = kiosk_code(addr).await;
    let body = serde_json::json!({ "code": code }).to_string();
    let mut held = Vec::new();
    for cookie in &cookies {
        held.push(
            hold_post(
                Ipv4Addr::LOCALHOST,
                addr,
                "/api/owner/claim",
                &body,
                Some(cookie),
            )
            .await,
        );
    }
    let last = *body.as_bytes().last().expect("body");
    let answers = futures_util::future::join_all(held.into_iter().map(|s| finish(s, last))).await;
    let ok = answers.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(ok, 1, "exactly one claim wins: {answers:?}");
    let owners = send(addr, "GET", "/api/owner", None, Some(&cookies[0])).await;
    let count = if owners.status == 200 {
        owners.json()["owners"].as_array().map(Vec::len)
    } else {
        let winner = answers
            .iter()
            .position(|(s, _)| *s == 200)
            .expect("a winner");
        send(addr, "GET", "/api/owner", None, Some(&cookies[winner]))
            .await
            .json()["owners"]
            .as_array()
            .map(Vec::len)
    };
    assert_eq!(count, Some(1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_owner_cannot_be_removed() {
    let server = start().await;
    let addr = server.addr();
    let sara = server.register("sara", PASSWORD).await;
    let omar = server.register("omar", PASSWORD).await;
    make_owner(addr, &sara).await;
    make_owner(addr, &omar).await;
    let (sara_id, omar_id) = (id_of(addr, &sara).await, id_of(addr, &omar).await);

    let reply = send(
        addr,
        "DELETE",
        &format!("/api/owner/owners/{omar_id}"),
        Some("{}"),
        Some(&sara),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["owners"].as_array().map(Vec::len), Some(1));
    // Omar is no owner any more: refused on the server.
    send(
        addr,
        "DELETE",
        &format!("/api/owner/owners/{sara_id}"),
        Some("{}"),
        Some(&omar),
    )
    .await
    .assert_error(403, "not_owner");
    // Sara is the last one: she cannot remove herself, nor delete her account.
    send(
        addr,
        "DELETE",
        &format!("/api/owner/owners/{sara_id}"),
        Some("{}"),
        Some(&sara),
    )
    .await
    .assert_error(409, "last_owner");
    let body = serde_json::json!({ "password": PASSWORD }).to_string();
    send(addr, "DELETE", "/api/me", Some(&body), Some(&sara))
        .await
        .assert_error(409, "last_owner");
    assert_eq!(id_of(addr, &sara).await, sara_id, "nothing changed");
    // Removing someone who is no owner is a clear 404.
    send(
        addr,
        "DELETE",
        &format!("/api/owner/owners/{omar_id}"),
        Some("{}"),
        Some(&sara),
    )
    .await
    .assert_error(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn owner_code_cli_works_while_the_server_runs() {
    let dir = tempfile::tempdir().expect("temp dir");
    let data = dir.path().join("data");
    let server = Process::start(&data, &[]);
    let sara = support::register_at(server.addr, "sara", PASSWORD).await;

    let output = std::process::Command::new(env!("CARGO_BIN_EXE_firmware-host"))
        .args(["owner-code", "--data-dir"])
        .arg(&data)
        .env_remove("XO_DATA_DIR")
        .output()
        .expect("run owner-code");
    assert!(output.status.success(), "{output:?}");
    let stdout = String::from_utf8(output.stdout).expect("UTF-8");
    let code = stdout.lines().last().expect("a last line").to_owned();
    assert_eq!(
        code.chars().filter(char::is_ascii_digit).count(),
        8,
        "{stdout}"
    );

    let reply = claim(server.addr, &sara, &code).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert!(
        !server.wait_log_lines("became an owner").await.is_empty(),
        "the owner action is logged"
    );
    // Used once.
    claim(server.addr, &sara, &code).await;
    let omar = support::register_at(server.addr, "omar", PASSWORD).await;
    claim(server.addr, &omar, &code)
        .await
        .assert_error(403, "bad_owner_code");
    server.stop_with("-TERM");
}

/// A signed-in player's WebSocket is closed with `signed_out` once its account is gone.
async fn closed_as_signed_out(ws: &mut support::Ws) {
    use futures_util::StreamExt;
    use tokio_tungstenite::tungstenite::Message;
    for _ in 0..100 {
        let next = tokio::time::timeout(support::STEP, ws.next())
            .await
            .expect("the socket hears about the deletion in time");
        match next {
            Some(Ok(Message::Close(frame))) => {
                let frame = frame.expect("a close frame");
                assert_eq!(frame.reason.as_str(), "signed_out");
                return;
            }
            Some(Ok(_)) => {}
            Some(Err(_)) | None => return,
        }
    }
    panic!("no close among 100 messages");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_account_leaves_its_games_with_the_name_replaced() {
    let dir = tempfile::tempdir().expect("temp dir");
    let server = Process::start(dir.path(), &[]);
    let addr = server.addr;
    let lina = support::register_at(addr, "lina", PASSWORD).await;
    let omar = support::register_at(addr, "omar", PASSWORD).await;
    let lina_id = id_of(addr, &lina).await;
    let (room, _) = support::play_rated_until_resignation(addr, &lina, &omar).await;
    let before = send(addr, "GET", &format!("/api/games/{room}"), None, None)
        .await
        .json();

    let mut socket = ws_connect(addr, Some(&lina)).await;
    support::ws_wait_for(&mut socket, "hello", |v| v.get("hello").is_some()).await;

    // The wrong password changes nothing.
    let wrong = serde_json::json!({ "password": "not her password" }).to_string();
    send(addr, "DELETE", "/api/me", Some(&wrong), Some(&lina))
        .await
        .assert_error(403, "wrong_password");
    assert_eq!(id_of(addr, &lina).await, lina_id);
    send(addr, "DELETE", "/api/me", Some("{}"), Some(&lina))
        .await
        .assert_error(400, "bad_json");

    let body = serde_json::json!({ "password": PASSWORD }).to_string();
    let reply = send(addr, "DELETE", "/api/me", Some(&body), Some(&lina)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["signed_in"], false);
    assert!(
        reply
            .set_cookie("xo_session")
            .is_some_and(|c| c.contains("Max-Age=0")),
        "the session cookie is cleared"
    );
    closed_as_signed_out(&mut socket).await;

    // Her sessions, name and profile are gone; she cannot sign in.
    send(addr, "GET", "/api/me", None, Some(&lina))
        .await
        .assert_error(401, "not_signed_in");
    send(addr, "GET", "/api/users/lina", None, None)
        .await
        .assert_error(404, "unknown_user");
    let login = request(
        addr,
        "POST",
        "/api/login",
        &[("Content-Type", "application/json")],
        Some(credentials("lina", PASSWORD).as_bytes()),
    )
    .await;
    login.assert_error(401, "bad_credentials");

    // The game stays, with its result and rating changes, her seat renamed.
    let after = send(addr, "GET", &format!("/api/games/{room}"), None, None)
        .await
        .json();
    // Seats are drawn at random: find hers by id.
    let (hers, his) = if before["x"]["user"]["id"] == lina_id {
        ("x", "o")
    } else {
        ("o", "x")
    };
    assert_eq!(before[hers]["user"]["name"], "lina", "{before}");
    assert_eq!(after[hers]["user"]["name"], "deleted player", "{after}");
    assert_eq!(after[hers]["user"]["id"], lina_id);
    assert_eq!(after[his], before[his]);
    assert_eq!(after["winner"], before["winner"]);
    assert_eq!(after["rating_updates"], before["rating_updates"]);
    let profile = send(addr, "GET", "/api/users/omar", None, None)
        .await
        .json();
    assert_eq!(
        profile["recent_games"][0][hers]["user"]["name"],
        "deleted player"
    );
    assert_eq!(profile["ladders"]["infinite"]["games"], 1);

    // The name is free again, for a new account with a new id.
    let again = support::register_at(addr, "lina", PASSWORD).await;
    assert_ne!(id_of(addr, &again).await, lina_id);
    let profile = send(addr, "GET", "/api/users/lina", None, None)
        .await
        .json();
    assert_eq!(profile["recent_games"].as_array().map(Vec::len), Some(0));
    server.stop_with("-TERM");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_removes_an_account_with_the_same_function() {
    let server = start().await;
    let addr = server.addr();
    let sara = server.register("sara", PASSWORD).await;
    let troll = server.register("troll", PASSWORD).await;
    make_owner(addr, &sara).await;
    let troll_id = id_of(addr, &troll).await;
    let mut socket = ws_connect(addr, Some(&troll)).await;
    support::ws_wait_for(&mut socket, "hello", |v| v.get("hello").is_some()).await;

    let reply = send(
        addr,
        "DELETE",
        &format!("/api/owner/users/{troll_id}"),
        Some("{}"),
        Some(&sara),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["username"], "troll");
    closed_as_signed_out(&mut socket).await;
    send(addr, "GET", "/api/me", None, Some(&troll))
        .await
        .assert_error(401, "not_signed_in");
    send(addr, "GET", "/api/users/troll", None, None)
        .await
        .assert_error(404, "unknown_user");
    send(
        addr,
        "DELETE",
        &format!("/api/owner/users/{troll_id}"),
        Some("{}"),
        Some(&sara),
    )
    .await
    .assert_error(404, "unknown_user");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_renames_an_account_in_its_games_too() {
    let server = start().await;
    let addr = server.addr();
    let sara = server.register("sara", PASSWORD).await;
    let rude = server.register("rude_name", PASSWORD).await;
    let omar = server.register("omar", PASSWORD).await;
    make_owner(addr, &sara).await;
    let rude_id = id_of(addr, &rude).await;
    support::play_rated_until_resignation(addr, &rude, &omar).await;
    let path = format!("/api/owner/users/{rude_id}/rename");

    send(
        addr,
        "POST",
        &path,
        Some(r#"{"username":"nice"}"#),
        Some(&omar),
    )
    .await
    .assert_error(403, "not_owner");
    send(
        addr,
        "POST",
        &path,
        Some(r#"{"username":"no spaces"}"#),
        Some(&sara),
    )
    .await
    .assert_error(400, "invalid_username");
    send(
        addr,
        "POST",
        &path,
        Some(r#"{"username":"OMAR"}"#),
        Some(&sara),
    )
    .await
    .assert_error(409, "username_taken");
    send(
        addr,
        "POST",
        "/api/owner/users/999/rename",
        Some(r#"{"username":"nice"}"#),
        Some(&sara),
    )
    .await
    .assert_error(404, "unknown_user");

    let reply = send(
        addr,
        "POST",
        &path,
        Some(r#"{"username":"nice"}"#),
        Some(&sara),
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["username"], "nice");
    send(addr, "GET", "/api/users/rude_name", None, None)
        .await
        .assert_error(404, "unknown_user");
    // The renamed player stays signed in, under the new name, and the games show it.
    let me = send(addr, "GET", "/api/me", None, Some(&rude)).await.json();
    assert_eq!(me["username"], "nice");
    let profile = send(addr, "GET", "/api/users/omar", None, None)
        .await
        .json();
    let game = &profile["recent_games"][0];
    let names = [&game["x"]["user"]["name"], &game["o"]["user"]["name"]];
    assert!(names.contains(&&serde_json::json!("nice")), "{game}");
    assert!(!game.to_string().contains("rude_name"), "{game}");
    // The old name is free.
    server.register("rude_name", PASSWORD).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_password_reset_code_sets_a_new_password_once() {
    let server = start().await;
    let addr = server.addr();
    let sara = server.register("sara", PASSWORD).await;
    let omar = server.register("omar", PASSWORD).await;
    make_owner(addr, &sara).await;
    let omar_id = id_of(addr, &omar).await;
    let path = format!("/api/owner/users/{omar_id}/reset-password");
    send(addr, "POST", &path, Some("{}"), Some(&omar))
        .await
        .assert_error(403, "not_owner");
    let reset = send(addr, "POST", &path, Some("{}"), Some(&sara)).await;
    assert_eq!(reset.status, 200, "{}", reset.text());
    let reset = reset.json();
    assert_eq!(reset["username"], "omar");
    assert_eq!(reset["expires_s"], 1800);
    let code = reset["code"].as_str().expect("code").to_owned();

    let body = |code: &str, password: &str| {
        serde_json::json!({"username": "omar", "code": code, "new_password": password}).to_string()
    };
    send(
        addr,
        "POST",
        "/api/login/reset",
        Some(&body(&a_wrong_code(&code), "new password")),
        None,
    )
    .await
    .assert_error(403, "bad_reset_code");
    send(
        addr,
        "POST",
        "/api/login/reset",
        Some(&body(&code, "short")),
        None,
    )
    .await
    .assert_error(400, "invalid_password");
    let reply = send(
        addr,
        "POST",
        "/api/login/reset",
        Some(&body(&code, "new password")),
        None,
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    let new_session = reply.cookie_pair("xo_session").expect("signed in");
    assert_eq!(id_of(addr, &new_session).await, omar_id);
    // Every earlier session ended; the old password is gone, the new one works.
    send(addr, "GET", "/api/me", None, Some(&omar))
        .await
        .assert_error(401, "not_signed_in");
    let login = |password: &'static str| async move {
        request(
            addr,
            "POST",
            "/api/login",
            &[("Content-Type", "application/json")],
            Some(credentials("omar", password).as_bytes()),
        )
        .await
    };
    login(PASSWORD).await.assert_error(401, "bad_credentials");
    assert_eq!(login("new password").await.status, 200);
    // Used once.
    send(
        addr,
        "POST",
        "/api/login/reset",
        Some(&body(&code, "third password")),
        None,
    )
    .await
    .assert_error(403, "bad_reset_code");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn who_is_online_lists_the_connected_players() {
    let server = start().await;
    let addr = server.addr();
    let sara = server.register("sara", PASSWORD).await;
    let omar = server.register("omar", PASSWORD).await;
    make_owner(addr, &sara).await;
    let mut phone = ws_connect(addr, Some(&omar)).await;
    support::ws_wait_for(&mut phone, "hello", |v| v.get("hello").is_some()).await;
    let mut laptop = ws_connect(addr, Some(&omar)).await;
    support::ws_wait_for(&mut laptop, "hello", |v| v.get("hello").is_some()).await;
    let mut guest = ws_connect(addr, None).await;
    support::ws_wait_for(&mut guest, "hello", |v| v.get("hello").is_some()).await;

    send(addr, "GET", "/api/owner/online", None, Some(&omar))
        .await
        .assert_error(403, "not_owner");
    let online = send(addr, "GET", "/api/owner/online", None, Some(&sara)).await;
    assert_eq!(online.status, 200, "{}", online.text());
    let online = online.json();
    assert_eq!(
        online["users"].as_array().map(Vec::len),
        Some(1),
        "{online}"
    );
    assert_eq!(online["users"][0]["username"], "omar");
    assert_eq!(online["users"][0]["connections"], 2);
    assert_eq!(online["connections"], 3);
    let all = send(addr, "GET", "/api/owner/users", None, Some(&sara))
        .await
        .json();
    let names: Vec<&str> = all["users"]
        .as_array()
        .expect("users")
        .iter()
        .filter_map(|u| u["username"].as_str())
        .collect();
    assert_eq!(names, ["omar", "sara"]);
    assert_eq!(all["users"][1]["owner"], true);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_owner_closes_a_room_and_its_players_are_told_why() {
    let server = start().await;
    let addr = server.addr();
    let sara = server.register("sara", PASSWORD).await;
    let omar = server.register("omar", PASSWORD).await;
    make_owner(addr, &sara).await;
    let mut host = ws_connect(addr, Some(&omar)).await;
    support::ws_send(
        &mut host,
        serde_json::json!({"create_room": {"id": 1, "room": {"game": "xo", "opponent": {"player": {}}}}}),
    )
    .await;
    let created = support::ws_wait_for(&mut host, "the room", |v| v.get("room").is_some()).await;
    let room = created["room"]["room"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let mut watcher = ws_connect(addr, None).await;
    support::ws_send(
        &mut watcher,
        serde_json::json!({"open": {"id": 1, "room": room}}),
    )
    .await;
    support::ws_wait_for(&mut watcher, "the snapshot", |v| v["room"]["id"] == 1).await;
    let path = format!("/api/owner/rooms/{room}/close");
    let why = r#"{"reason":"Closing for the night"}"#;

    send(addr, "POST", &path, Some(why), Some(&omar))
        .await
        .assert_error(403, "not_owner");
    send(addr, "POST", &path, Some(r#"{"reason":"  "}"#), Some(&sara))
        .await
        .assert_error(400, "bad_json");
    send(
        addr,
        "POST",
        "/api/owner/rooms/nosuch/close",
        Some(why),
        Some(&sara),
    )
    .await
    .assert_error(404, "not_found");
    let reply = send(addr, "POST", &path, Some(why), Some(&sara)).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["room"], room.as_str());
    for ws in [&mut host, &mut watcher] {
        let closed = support::ws_wait_for(ws, "room_closed", |v| {
            v["event"].get("room_closed").is_some()
        })
        .await;
        assert_eq!(
            closed["event"]["room_closed"]["reason"],
            serde_json::json!({"owner": {"message": "Closing for the night"}}),
            "{closed}"
        );
    }
    let lobby = send(addr, "GET", "/api/rooms", None, None).await.json();
    assert!(!lobby.to_string().contains(&room), "{lobby}");
    // Closing it again is a clear 404.
    send(addr, "POST", &path, Some(why), Some(&sara))
        .await
        .assert_error(404, "not_found");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_season_archives_the_ladders_and_starts_fresh() {
    let server = start().await;
    let addr = server.addr();
    let sara = server.register("sara", PASSWORD).await;
    let omar = server.register("omar", PASSWORD).await;
    let lina = server.register("lina", PASSWORD).await;
    make_owner(addr, &sara).await;
    support::play_rated_until_resignation(addr, &omar, &lina).await;
    let board = |query: &'static str| async move {
        send(
            addr,
            "GET",
            &format!("/api/leaderboard?game=infinite{query}"),
            None,
            None,
        )
        .await
    };
    let before = board("").await.json();
    assert_eq!(before["season"], 1);
    assert_eq!(
        before["players"].as_array().map(Vec::len),
        Some(2),
        "{before}"
    );

    send(addr, "POST", "/api/owner/seasons", Some("{}"), Some(&omar))
        .await
        .assert_error(403, "not_owner");
    let started = send(addr, "POST", "/api/owner/seasons", Some("{}"), Some(&sara)).await;
    assert_eq!(started.status, 200, "{}", started.text());
    assert_eq!(
        started.json(),
        serde_json::json!({"archived": 1, "current": 2})
    );

    // The new season starts fresh; the archive is the old ladder as it was.
    let now = board("").await.json();
    assert_eq!(now["season"], 2);
    assert_eq!(now["players"], serde_json::json!([]));
    let archived = board("&season=1").await.json();
    assert_eq!(archived["season"], 1);
    assert_eq!(archived["players"], before["players"]);
    board("&season=7").await.assert_error(404, "not_found");
    board("&season=x").await.assert_error(404, "not_found");

    let profile = send(addr, "GET", "/api/users/omar", None, None)
        .await
        .json();
    assert_eq!(profile["ladders"]["infinite"]["games"], 0);
    assert_eq!(profile["ratings"]["infinite"], 1200);
    assert_eq!(profile["seasons"][0]["season"], 1);
    assert_eq!(profile["seasons"][0]["ladders"]["infinite"]["games"], 1);
    assert_eq!(
        profile["recent_games"].as_array().map(Vec::len),
        Some(1),
        "games stay"
    );
    let seasons = send(addr, "GET", "/api/seasons", None, None).await.json();
    assert_eq!(seasons["current"], 2);
    assert_eq!(seasons["archived"][0]["number"], 1);
    assert_eq!(seasons["archived"][0]["players"], 2);
}

/// The body of a raw answer from [`finish`], as JSON.
fn body_json(text: &str) -> serde_json::Value {
    let (_, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("an answer with a body: {text}"));
    serde_json::from_str(body).unwrap_or_else(|e| panic!("JSON body ({e}): {text}"))
}

/// Infinite XO games on a profile: the current ladder's and every archived season's.
fn infinite_games(profile: &serde_json::Value) -> u64 {
    let archived: u64 = profile["seasons"]
        .as_array()
        .unwrap_or_else(|| panic!("seasons in {profile}"))
        .iter()
        .map(|s| s["ladders"]["infinite"]["games"].as_u64().unwrap_or(0))
        .sum();
    profile["ladders"]["infinite"]["games"]
        .as_u64()
        .unwrap_or(0)
        + archived
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_profile_keeps_each_archived_season_with_its_rank() {
    let server = start().await;
    let addr = server.addr();
    let sara = server.register("sara", PASSWORD).await;
    let omar = server.register("omar", PASSWORD).await;
    let lina = server.register("lina", PASSWORD).await;
    let nour = server.register("nour", PASSWORD).await;
    make_owner(addr, &sara).await;
    // Season 1: omar beats lina and nour at Infinite XO.
    support::play_rated_until_resignation(addr, &omar, &lina).await;
    support::play_rated_until_resignation(addr, &omar, &nour).await;
    let started = send(addr, "POST", "/api/owner/seasons", Some("{}"), Some(&sara)).await;
    assert_eq!(started.status, 200, "{}", started.text());
    let profile = |name: &'static str| async move {
        let reply = send(addr, "GET", &format!("/api/users/{name}"), None, None).await;
        assert_eq!(reply.status, 200, "{}", reply.text());
        reply.json()
    };

    // Each player's rank is their row's rank on the archived leaderboard; no rank on the
    // ladder they did not play; the owner, who played nothing, has no archived season.
    let board = send(
        addr,
        "GET",
        "/api/leaderboard?game=infinite&season=1",
        None,
        None,
    )
    .await
    .json();
    let rows = board["players"].as_array().cloned().unwrap_or_default();
    assert_eq!(rows.len(), 3, "{board}");
    let ended =
        send(addr, "GET", "/api/seasons", None, None).await.json()["archived"][0]["ended_ms"]
            .clone();
    assert!(ended.as_u64().is_some_and(|ms| ms > 0), "{ended}");
    for row in &rows {
        let name = row["username"].as_str().expect("a username").to_owned();
        let reply = send(addr, "GET", &format!("/api/users/{name}"), None, None).await;
        let p = reply.json();
        let seasons = p["seasons"].as_array().cloned().unwrap_or_default();
        assert_eq!(seasons.len(), 1, "{p}");
        let s = &seasons[0];
        assert_eq!(s["season"], 1, "{p}");
        assert_eq!(s["ended_ms"], ended, "{p}");
        assert_eq!(
            s["ranks"]["infinite"], row["rank"],
            "{name}: {p} vs {board}"
        );
        assert_eq!(s["ranks"]["xo"], serde_json::Value::Null, "{p}");
        assert_eq!(s["ladders"]["infinite"]["rating"], row["rating"], "{p}");
        assert_eq!(s["ladders"]["infinite"]["games"], row["games"], "{p}");
    }
    assert_eq!(profile("omar").await["seasons"][0]["ranks"]["infinite"], 1);
    assert_eq!(profile("sara").await["seasons"], serde_json::json!([]));

    // Season 2: lina beats omar. Profiles read while the owner archives it, all held and
    // released together, each see one moment: season 2's game on the current ladder or in
    // the archive, never in both or in neither.
    support::play_rated_until_resignation(addr, &lina, &omar).await;
    let mut held = Vec::new();
    for _ in 0..24 {
        held.push(
            hold_request(
                Ipv4Addr::LOCALHOST,
                addr,
                "GET",
                "/api/users/omar",
                "",
                None,
            )
            .await,
        );
    }
    let archive = hold_post(
        Ipv4Addr::LOCALHOST,
        addr,
        "/api/owner/seasons",
        "{}",
        Some(&sara),
    )
    .await;
    let reads = futures_util::future::join_all(held.into_iter().map(|s| finish(s, b'\n')));
    let (answers, (status, text)) = tokio::join!(reads, finish(archive, b'}'));
    assert_eq!(status, 200, "{text}");
    assert_eq!(body_json(&text)["archived"], 2, "{text}");
    for (status, text) in &answers {
        assert_eq!(*status, 200, "{text}");
        let p = body_json(text);
        let archived = p["seasons"].as_array().map_or(0, Vec::len);
        let current = &p["ladders"]["infinite"]["games"];
        assert!(
            (archived == 1 && *current == 1) || (archived == 2 && *current == 0),
            "a profile read across the archive: {p}"
        );
        assert_eq!(infinite_games(&p), 3, "{p}");
    }

    // Both seasons, oldest first, each with omar's place in it.
    let omar_now = profile("omar").await;
    let seasons = &omar_now["seasons"];
    assert_eq!(seasons.as_array().map(Vec::len), Some(2), "{omar_now}");
    assert_eq!(seasons[0]["season"], 1);
    assert_eq!(seasons[0]["ranks"]["infinite"], 1);
    assert_eq!(seasons[0]["ladders"]["infinite"]["wins"], 2);
    assert_eq!(seasons[1]["season"], 2);
    assert_eq!(seasons[1]["ranks"]["infinite"], 2);
    assert_eq!(seasons[1]["ladders"]["infinite"]["losses"], 1);
    assert_eq!(profile("lina").await["seasons"][1]["ranks"]["infinite"], 1);
    // nour played no game in season 2, so only season 1 is on the profile.
    let nour = profile("nour").await;
    assert_eq!(nour["seasons"].as_array().map(Vec::len), Some(1), "{nour}");
}
