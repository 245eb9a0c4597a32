//! The WebSocket upgrade at `/ws`: checks the handshake and the browser Origin, establishes
//! who is connecting from the cookies, answers 101, and hands the upgraded connection to the
//! rooms [`Hub`](rooms::Hub).

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{
    CONNECTION, HOST, HeaderMap, HeaderValue, ORIGIN, SEC_WEBSOCKET_ACCEPT, SEC_WEBSOCKET_KEY,
    SEC_WEBSOCKET_VERSION, SET_COOKIE, UPGRADE,
};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use hyper_util::server::conn::auto::upgrade;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::handshake::derive_accept_key;
use tracing::Instrument as _;

use crate::accounts;
use crate::api_error::{ApiError, Body};
use crate::app::App;
use crate::connections::ConnectionSlot;

/// Largest WebSocket message or frame a connection buffers. The hub refuses frames above
/// `protocol::MAX_FRAME_BYTES` with a clear error; anything beyond this hard limit closes the
/// connection (1009) before it is buffered whole.
pub const MAX_WS_MESSAGE: usize = rooms::MAX_WS_MESSAGE;

fn header_has_token(headers: &HeaderMap, name: hyper::header::HeaderName, token: &str) -> bool {
    headers
        .get_all(name)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim().eq_ignore_ascii_case(token))
}

/// Whether a browser's `Origin` names the host it connects to. Clients that send no Origin
/// (tools, bots) are allowed; `null` and other hosts are not (cross-site WebSocket hijacking).
pub fn origin_allowed(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(ORIGIN) else {
        return true;
    };
    let Some(host) = headers.get(HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let Ok(origin) = origin.to_str() else {
        return false;
    };
    let authority = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    authority.is_some_and(|a| a.trim_end_matches('/').eq_ignore_ascii_case(host.trim()))
}

/// One open WebSocket of a client address, counted until dropped.
struct AddressSlot {
    app: Arc<App>,
    ip: IpAddr,
}

impl AddressSlot {
    /// Takes a slot for `ip`, or `None` when it already holds the configured maximum.
    fn take(app: &Arc<App>, ip: IpAddr) -> Option<AddressSlot> {
        let limit = app.config.max_ws_per_address;
        let mut open = app
            .ws_per_address
            .lock()
            .expect("address counts lock not poisoned");
        let count = open.entry(ip).or_insert(0);
        if limit != 0 && *count >= limit {
            return None;
        }
        *count += 1;
        Some(AddressSlot {
            app: Arc::clone(app),
            ip,
        })
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut open = self
            .app
            .ws_per_address
            .lock()
            .expect("address counts lock not poisoned");
        if let Some(count) = open.get_mut(&self.ip) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.ip);
            }
        }
    }
}

/// Answers a WebSocket upgrade request and starts serving the connection with the hub.
pub async fn upgrade(
    app: &Arc<App>,
    peer: SocketAddr,
    connection: Arc<ConnectionSlot>,
    mut req: Request<Incoming>,
) -> Result<Response<Body>, ApiError> {
    if req.method() != Method::GET {
        return Err(ApiError::MethodNotAllowed("GET"));
    }
    let headers = req.headers();
    let is_upgrade = header_has_token(headers, CONNECTION, "upgrade")
        && header_has_token(headers, UPGRADE, "websocket");
    let Some(key) = headers.get(SEC_WEBSOCKET_KEY).filter(|_| is_upgrade) else {
        return Err(ApiError::WebsocketRequired);
    };
    if headers
        .get(SEC_WEBSOCKET_VERSION)
        .map(HeaderValue::as_bytes)
        != Some(b"13")
    {
        return Err(ApiError::WebsocketVersion);
    }
    if !origin_allowed(headers) {
        return Err(ApiError::BadOrigin(format!(
            "{:?} for Host {:?}",
            headers.get(ORIGIN),
            headers.get(HOST)
        )));
    }
    let Some(slot) = AddressSlot::take(app, peer.ip()) else {
        tracing::warn!(%peer, limit = app.config.max_ws_per_address, "WebSocket refused: too many from this address");
        return Err(ApiError::TooManyConnections);
    };
    let accept = derive_accept_key(key.as_bytes());
    let had_guest =
        accounts::cookie(headers, accounts::GUEST_COOKIE).is_some_and(accounts::valid_guest_id);
    let store = app.store.clone();
    let cookie_headers = headers.clone();
    let mut identity = tokio::task::spawn_blocking(move || {
        accounts::identity_from_headers_blocking(&store, &cookie_headers)
    })
    .await
    .map_err(|e| ApiError::internal("identity lookup task", e))??;
    identity.address = Some(peer.ip());

    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = StatusCode::SWITCHING_PROTOCOLS;
    let h = response.headers_mut();
    h.insert(CONNECTION, HeaderValue::from_static("Upgrade"));
    h.insert(UPGRADE, HeaderValue::from_static("websocket"));
    h.insert(
        SEC_WEBSOCKET_ACCEPT,
        HeaderValue::from_str(&accept).expect("base64 is a valid header value"),
    );
    if !had_guest {
        // The guest id the hub sees is the one the browser keeps.
        let cookie = HeaderValue::from_str(&accounts::guest_cookie(&identity.guest_id))
            .expect("hex guest id is a valid header value");
        h.append(SET_COOKIE, cookie);
    }

    let on_upgrade = hyper::upgrade::on(&mut req);
    let hub = app.hub.clone();
    let socket_slot = Arc::clone(&connection);
    let task = tokio::spawn(async move {
        let _slot = slot;
        // The TCP connection stays counted against its address while the WebSocket lives.
        let _connection = socket_slot;
        let upgraded = match on_upgrade.await {
            Ok(upgraded) => upgraded,
            Err(e) => {
                tracing::debug!(error = %e, "WebSocket upgrade did not complete");
                return;
            }
        };
        // Every line the session logs (refusals, closes) names the client's address.
        let user = identity.account.as_ref().map(|a| a.id);
        let span = tracing::info_span!("ws", %peer, user);
        // The WebSocket reads and writes the TCP socket itself, not through hyper's upgraded
        // stream (a boxed trait object behind a rewind buffer: 2-3 % of the server's CPU
        // under load). Bytes hyper read past the handshake are read first.
        match upgrade::downcast::<TokioIo<TcpStream>>(upgraded) {
            Ok(upgrade::Parts { io, read_buf, .. }) => {
                // Copied and let go at once: the bytes share hyper's whole read buffer (about
                // 10 KB), which the connection would otherwise keep for its lifetime.
                let read = read_buf.to_vec();
                drop(read_buf);
                hub.serve(io.into_inner(), read, identity)
                    .instrument(span)
                    .await;
            }
            Err(_) => {
                // Every connection this server accepts is a TcpStream in hyper-util's TokioIo
                // (server.rs); serving another transport would compile the whole session a
                // second time for a case that cannot occur.
                tracing::error!(%peer, "WebSocket closed: not a TCP connection");
            }
        }
    });
    connection.serve_with(task.abort_handle());
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(origin: Option<&str>, host: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(HOST, host.parse().expect("header"));
        if let Some(o) = origin {
            h.insert(ORIGIN, o.parse().expect("header"));
        }
        h
    }

    #[test]
    fn origin_must_match_host_when_present() {
        assert!(origin_allowed(&headers(None, "kiosk.local:8080")));
        assert!(origin_allowed(&headers(
            Some("http://kiosk.local:8080"),
            "kiosk.local:8080"
        )));
        assert!(origin_allowed(&headers(
            Some("http://KIOSK.local:8080"),
            "kiosk.local:8080"
        )));
        assert!(!origin_allowed(&headers(
            Some("http://evil.example"),
            "kiosk.local:8080"
        )));
        assert!(!origin_allowed(&headers(Some("null"), "kiosk.local:8080")));
        assert!(!origin_allowed(&headers(
            Some("http://kiosk.local:9090"),
            "kiosk.local:8080"
        )));
    }
}
