//! The one WebSocket to `/ws`: hello first, postcard binary frames, an id on every intent, a
//! keep-alive ping, and reconnection with back-off. Incoming messages become
//! [`Action::Server`]s; the connection's state becomes `Connected` / `Disconnected`.
//!
//! Binary frames rather than JSON text keep the download small: postcard's decoder of the
//! server's messages is about half the code serde_json's is (the UI's size budget).
//! Only the server's hello comes as JSON text (it has not seen this client's framing yet); it
//! is read by [`HelloFrame`] alone.

use std::cell::RefCell;
use std::rc::Rc;

use gloo::timers::callback::{Interval, Timeout};
use protocol::records::UserId;
use protocol::view::Name;
use protocol::{ClientMsg, PROTOCOL_VERSION, RequestId, ServerMsg};
use serde::Deserialize;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use web_sys::{CloseEvent, MessageEvent, WebSocket};
use yew::Callback;

use crate::dom;
use crate::state::Action;

/// Seconds between keep-alive pings.
const PING_MS: u32 = 25_000;

/// Back-off before reconnect attempt `n` (0-based): 0.5 s, 1 s, 2 s, then 4 s.
pub fn backoff_ms(attempt: u32) -> u32 {
    500 * (1 << attempt.min(3))
}

/// `ws://host/ws` or `wss://host/ws` for a page at `origin`.
pub fn socket_url(origin: &str) -> String {
    match origin.strip_prefix("https://") {
        Some(host) => format!("wss://{host}/ws"),
        None => format!(
            "ws://{}/ws",
            origin.strip_prefix("http://").unwrap_or(origin)
        ),
    }
}

/// The server's first frame, its hello in JSON: `{"hello":{...}}`.
#[derive(Deserialize)]
struct HelloFrame {
    hello: HelloFields,
}

#[derive(Deserialize)]
struct HelloFields {
    version: u32,
    user: Option<UserId>,
    name: String,
    max_frame_bytes: u32,
    max_messages_per_s: u32,
    you: Name,
}

/// The server's hello, from its JSON text frame.
fn decode_hello(text: &str) -> Result<ServerMsg, String> {
    let HelloFrame { hello: h } = serde_json::from_str(text).map_err(|e| e.to_string())?;
    Ok(ServerMsg::Hello {
        version: h.version,
        user: h.user,
        name: h.name,
        max_frame_bytes: h.max_frame_bytes,
        max_messages_per_s: h.max_messages_per_s,
        you: h.you,
    })
}

/// A message from the server: postcard in a binary frame, or the JSON hello in a text one.
fn decode(data: &wasm_bindgen::JsValue) -> Result<ServerMsg, String> {
    match data.as_string() {
        Some(text) => decode_hello(&text),
        None => {
            postcard::from_bytes(&js_sys::Uint8Array::new(data).to_vec()).map_err(|e| e.to_string())
        }
    }
}

struct Inner {
    ws: Option<WebSocket>,
    open: bool,
    next_id: RequestId,
    attempt: u32,
    dispatch: Callback<Action>,
    retry: Option<Timeout>,
    _ping: Option<Interval>,
    // The handlers must live as long as the socket that calls them.
    _on_open: Option<Closure<dyn FnMut()>>,
    _on_message: Option<Closure<dyn FnMut(MessageEvent)>>,
    _on_close: Option<Closure<dyn FnMut(CloseEvent)>>,
}

/// A handle on the connection; clones share it.
#[derive(Clone)]
pub struct Socket {
    inner: Rc<RefCell<Inner>>,
}

impl std::fmt::Debug for Socket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Socket").finish_non_exhaustive()
    }
}

impl Socket {
    /// Opens the connection; it reconnects by itself until dropped.
    pub fn connect(dispatch: Callback<Action>) -> Socket {
        let socket = Socket {
            inner: Rc::new(RefCell::new(Inner {
                ws: None,
                open: false,
                next_id: 1,
                attempt: 0,
                dispatch,
                retry: None,
                _ping: None,
                _on_open: None,
                _on_message: None,
                _on_close: None,
            })),
        };
        socket.open();
        let pinger = socket.clone();
        socket.inner.borrow_mut()._ping = Some(Interval::new(PING_MS, move || {
            pinger.send(ClientMsg::Ping { id: None });
        }));
        socket
    }

    fn open(&self) {
        let was_open = {
            // One socket at a time: a pending retry is cancelled (dropping its timeout), and an
            // old socket is detached before it is closed so its handlers never fire again.
            let mut inner = self.inner.borrow_mut();
            inner.retry = None;
            let was_open = std::mem::replace(&mut inner.open, false);
            if let Some(old) = inner.ws.take() {
                detach(&old);
            }
            was_open.then(|| inner.dispatch.clone())
        };
        // The app re-sends its lobby and room intents when the new socket opens.
        if let Some(dispatch) = was_open {
            dispatch.emit(Action::Disconnected);
        }
        let url = socket_url(&dom::origin());
        let ws = match WebSocket::new(&url) {
            Ok(ws) => ws,
            Err(e) => {
                gloo::console::error!("cannot open the WebSocket", e);
                self.schedule_retry();
                return;
            }
        };
        ws.set_binary_type(web_sys::BinaryType::Arraybuffer);
        let weak = Rc::downgrade(&self.inner);
        let on_open = Closure::<dyn FnMut()>::new({
            let weak = weak.clone();
            move || {
                if let Some(inner) = weak.upgrade() {
                    let socket = Socket { inner };
                    socket.on_open();
                }
            }
        });
        let on_message = Closure::<dyn FnMut(MessageEvent)>::new({
            let weak = weak.clone();
            move |e: MessageEvent| {
                let Some(inner) = weak.upgrade() else { return };
                match decode(&e.data()) {
                    Ok(msg) => {
                        let dispatch = inner.borrow().dispatch.clone();
                        dispatch.emit(Action::Server {
                            msg,
                            now_ms: dom::now_ms(),
                        });
                    }
                    Err(err) => gloo::console::error!("bad server frame", err.to_string()),
                }
            }
        });
        let on_close = Closure::<dyn FnMut(CloseEvent)>::new(move |_e: CloseEvent| {
            if let Some(inner) = weak.upgrade() {
                let socket = Socket { inner };
                socket.on_close();
            }
        });
        ws.set_onopen(Some(on_open.as_ref().unchecked_ref()));
        ws.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        ws.set_onclose(Some(on_close.as_ref().unchecked_ref()));
        let mut inner = self.inner.borrow_mut();
        inner.ws = Some(ws);
        inner._on_open = Some(on_open);
        inner._on_message = Some(on_message);
        inner._on_close = Some(on_close);
    }

    fn on_open(&self) {
        let dispatch = {
            let mut inner = self.inner.borrow_mut();
            inner.open = true;
            inner.attempt = 0;
            inner.dispatch.clone()
        };
        self.send_raw(&ClientMsg::Hello {
            version: PROTOCOL_VERSION,
        });
        dispatch.emit(Action::Connected);
    }

    fn on_close(&self) {
        let dispatch = {
            let mut inner = self.inner.borrow_mut();
            inner.open = false;
            inner.ws = None;
            inner.dispatch.clone()
        };
        dispatch.emit(Action::Disconnected);
        self.schedule_retry();
    }

    fn schedule_retry(&self) {
        let delay = {
            let mut inner = self.inner.borrow_mut();
            let delay = backoff_ms(inner.attempt);
            inner.attempt = inner.attempt.saturating_add(1);
            delay
        };
        let weak = Rc::downgrade(&self.inner);
        let timeout = Timeout::new(delay, move || {
            if let Some(inner) = weak.upgrade() {
                Socket { inner }.open();
            }
        });
        self.inner.borrow_mut().retry = Some(timeout);
    }

    /// Drops the connection and opens a new one, e.g. after signing in, so the server sees
    /// the new session cookie.
    pub fn reconnect(&self) {
        self.open();
    }

    /// Closes the connection for good: no reconnect and no more pings. The ping's timer holds
    /// a handle on the socket, so a socket that is not closed lives on after its last handle
    /// is dropped.
    pub fn close(&self) {
        let mut inner = self.inner.borrow_mut();
        inner.retry = None;
        inner._ping = None;
        inner.open = false;
        if let Some(ws) = inner.ws.take() {
            detach(&ws);
        }
    }

    /// Sends an intent with a fresh id; dropped (with a warning) while disconnected, since the
    /// app re-opens its room and lobby on every reconnect.
    pub fn send(&self, msg: ClientMsg) -> Option<RequestId> {
        let id = {
            let mut inner = self.inner.borrow_mut();
            let id = inner.next_id;
            inner.next_id = inner.next_id.wrapping_add(1).max(1);
            id
        };
        self.send_raw(&msg.with_id(id)).then_some(id)
    }

    fn send_raw(&self, msg: &ClientMsg) -> bool {
        let inner = self.inner.borrow();
        let (Some(ws), true) = (inner.ws.as_ref(), inner.open) else {
            return false;
        };
        let bytes = match postcard::to_allocvec(msg) {
            Ok(bytes) => bytes,
            Err(e) => {
                gloo::console::error!("cannot encode an intent", e.to_string());
                return false;
            }
        };
        match ws.send_with_u8_array(&bytes) {
            Ok(()) => true,
            Err(e) => {
                gloo::console::warn!("WebSocket send failed", e);
                false
            }
        }
    }
}

/// Removes a socket's handlers and closes it.
fn detach(ws: &WebSocket) {
    ws.set_onopen(None);
    ws.set_onmessage(None);
    ws.set_onclose(None);
    // Closing an already closed socket is not an error worth reporting.
    let _closed = ws.close();
}

impl Drop for Inner {
    fn drop(&mut self) {
        if let Some(ws) = self.ws.take() {
            detach(&ws);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_grows_and_caps() {
        assert_eq!(backoff_ms(0), 500);
        assert_eq!(backoff_ms(1), 1000);
        assert_eq!(backoff_ms(3), 4000);
        assert_eq!(backoff_ms(30), 4000);
    }

    #[test]
    fn the_json_hello_decodes_as_the_whole_decoder_would() {
        for text in [
            r#"{"hello":{"version":2,"user":1,"name":"sara","you":{"account":{"name":"sara"}},"max_frame_bytes":4096,"max_messages_per_s":20}}"#,
            r#"{"hello":{"version":2,"user":null,"name":"Guest 3f9a","you":{"guest":{"tag":"3f9a"}},"max_frame_bytes":4096,"max_messages_per_s":20}}"#,
        ] {
            let whole: ServerMsg = serde_json::from_str(text).expect("a server hello");
            assert_eq!(decode_hello(text), Ok(whole));
        }
        assert!(decode_hello(r#"{"pong":{"id":1}}"#).is_err());
    }

    #[test]
    fn intents_and_messages_cross_in_postcard_as_the_server_codes_them() {
        let msg = ClientMsg::Move {
            id: Some(7),
            cell: 4,
        };
        let bytes = postcard::to_allocvec(&msg).expect("an intent encodes");
        let decoded = protocol::decode_client(&protocol::Frame::Binary(bytes), 4096);
        assert_eq!(decoded.ok(), Some(msg));
        let pong = ServerMsg::Pong { id: Some(3) };
        let protocol::Frame::Binary(bytes) = pong.encode(protocol::Framing::Binary) else {
            panic!("a binary frame")
        };
        assert_eq!(postcard::from_bytes::<ServerMsg>(&bytes).ok(), Some(pong));
    }

    #[test]
    fn socket_url_follows_the_page_scheme() {
        assert_eq!(socket_url("http://xo.local:8080"), "ws://xo.local:8080/ws");
        assert_eq!(socket_url("https://xo.example"), "wss://xo.example/ws");
    }
}
