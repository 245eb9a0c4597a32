//! The server routes by `protocol::api`'s table: every row's path, asked with a method it
//! does not take, answers 405 with the methods of the table's rows for that path in `Allow`
//! (never 404), the owner paths once the owner check passed.

use crate::support;

use std::net::SocketAddr;

use protocol::api::{Endpoint, Found, Method};
use support::owner::make_owner;
use support::{Reply, TestServer, request};

/// A request as a client of the table sends it: a state change with a body of the type its
/// path takes (a file for an upload, `{}` otherwise), so it gets past the content check.
async fn send(addr: SocketAddr, method: &str, path: &str, cookie: Option<&str>) -> Reply {
    let content_type = if Endpoint::is_upload_path(path) {
        "application/octet-stream"
    } else {
        "application/json"
    };
    let mut headers = vec![("Content-Type", content_type)];
    if let Some(c) = cookie {
        headers.push(("Cookie", c));
    }
    let body = (method != "GET").then_some(b"{}".as_slice());
    request(addr, method, path, &headers, body).await
}

/// `endpoint`'s path with each `{…}` segment filled in.
fn sample_path(endpoint: Endpoint) -> String {
    let args: Vec<&str> = endpoint
        .path()
        .split('/')
        .filter(|segment| segment.starts_with('{'))
        .map(|_| "x1")
        .collect();
    endpoint.url(&args)
}

/// What `Allow` lists for `path`: the methods of every row with that path, `HEAD` with `GET`,
/// in the order `GET`, `POST`, `PUT`, `DELETE`.
fn allow_of(path: &str) -> String {
    [Method::Get, Method::Post, Method::Put, Method::Delete]
        .into_iter()
        .filter(|m| {
            Endpoint::ALL
                .iter()
                .any(|e| e.path() == path && e.method() == *m)
        })
        .map(|m| match m {
            Method::Get => "GET, HEAD",
            other => other.as_str(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_row_of_the_api_table_is_routed_and_a_wrong_method_is_405_with_its_allow() {
    let s = TestServer::start().await;
    let owner = s.register("olga", "password one").await;
    make_owner(s.addr(), &owner).await;
    for endpoint in Endpoint::ALL {
        let path = sample_path(endpoint);
        let allow = allow_of(endpoint.path());
        match Endpoint::find("PATCH", &path) {
            Found::WrongMethod(found) => assert_eq!(found, allow, "{path}"),
            other => panic!("PATCH {path}: {other:?}"),
        }
        // The owner's cookie on every request: the owner paths check it first.
        let reply = send(s.addr(), "PATCH", &path, Some(&owner)).await;
        reply.assert_error(405, "method_not_allowed");
        assert_eq!(reply.header("allow"), Some(allow.as_str()), "{path}");
        // A method the path takes but this row does not: 405 too, unless another row has it.
        for other in ["GET", "POST", "PUT", "DELETE"] {
            if allow.split(", ").any(|m| m == other) {
                continue;
            }
            let reply = send(s.addr(), other, &path, Some(&owner)).await;
            reply.assert_error(405, "method_not_allowed");
            assert_eq!(
                reply.header("allow"),
                Some(allow.as_str()),
                "{other} {path}"
            );
        }
    }
    s.server.shutdown().await;
}

/// A guest asking an owner path learns nothing of it: neither 404 nor 405, whatever the
/// method, but 401 before the path is looked at.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guest_learns_nothing_of_the_owner_rows() {
    let s = TestServer::start().await;
    for endpoint in Endpoint::ALL
        .into_iter()
        .filter(|e| e.path().starts_with("/api/owner") && *e != Endpoint::ClaimOwner)
    {
        let path = sample_path(endpoint);
        for method in ["GET", "POST", "PUT", "DELETE", "PATCH"] {
            send(s.addr(), method, &path, None)
                .await
                .assert_error(401, "not_signed_in");
        }
    }
    s.server.shutdown().await;
}
