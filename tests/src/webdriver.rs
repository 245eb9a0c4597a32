//! A W3C WebDriver client with exactly the commands the browser tests use, over plain HTTP/1.1
//! to chromedriver on 127.0.0.1: one connection per command (`Connection: close`), JSON bodies.
//!
//! It replaces fantoccini, whose dependencies (the `webdriver` crate with its ICU text
//! segmentation, `url` with IDNA, `cookie`, `time`, a second `http`) were about fifty crates
//! compiled for these tests alone (BENCHMARKS.md, "CI time", session 8). The surface mirrors
//! fantoccini's, so the tests read the same: [`Client::find`] with a [`Locator`], then
//! [`Element::click`], [`Element::send_keys`] and so on.
//!
//! Protocol: <https://www.w3.org/TR/webdriver2/>.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The key of an element reference in a WebDriver JSON value.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// A command that takes longer than this is reported as failed, so a hung browser cannot hang
/// a test run (every test has shorter deadlines of its own).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(120);

/// A failed command: the WebDriver error code and message, or what went wrong on the wire.
#[derive(Debug, Clone)]
pub struct Error(String);

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

fn error(what: impl Into<String>) -> Error {
    Error(what.into())
}

/// How an element is found. Only CSS selectors: every test finds elements that way.
#[derive(Debug, Clone, Copy)]
pub enum Locator<'a> {
    Css(&'a str),
}

impl Locator<'_> {
    fn body(self) -> Value {
        match self {
            Locator::Css(css) => json!({ "using": "css selector", "value": css }),
        }
    }
}

/// The keys the tests press that are not characters, as WebDriver codes them (private-use
/// code points).
pub mod key {
    use std::fmt;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Key {
        Tab,
        Enter,
        End,
        Left,
        Up,
    }

    impl Key {
        /// The code point chromedriver reads as this key.
        pub fn code(self) -> char {
            match self {
                Key::Tab => '\u{E004}',
                Key::Enter => '\u{E007}',
                Key::End => '\u{E010}',
                Key::Left => '\u{E012}',
                Key::Up => '\u{E013}',
            }
        }
    }

    impl fmt::Display for Key {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "{}", self.code())
        }
    }
}

#[derive(Debug)]
struct Session {
    /// `host:port` of chromedriver.
    authority: String,
    id: String,
}

/// A browser session. Clones share it; [`Client::close`] ends it for all of them.
#[derive(Debug, Clone)]
pub struct Client {
    session: Arc<Session>,
}

/// An element of the page, found through a [`Client`].
#[derive(Debug, Clone)]
pub struct Element {
    client: Client,
    id: String,
}

impl Client {
    /// Starts a session at the driver `driver_url` (`http://127.0.0.1:PORT`) with these
    /// capabilities (`alwaysMatch`).
    pub async fn new_session(driver_url: &str, capabilities: Value) -> Result<Client, Error> {
        let authority = driver_url
            .strip_prefix("http://")
            .ok_or_else(|| error(format!("not an http:// driver address: {driver_url}")))?
            .trim_end_matches('/')
            .to_owned();
        let body = json!({ "capabilities": { "alwaysMatch": capabilities } });
        let value = command(&authority, "POST", "/session", Some(&body)).await?;
        let id = value["sessionId"]
            .as_str()
            .ok_or_else(|| error(format!("new session: no sessionId in {value}")))?
            .to_owned();
        Ok(Client {
            session: Arc::new(Session { authority, id }),
        })
    }

    /// A command on this session: `suffix` is the path after `/session/{id}`.
    async fn cmd(&self, method: &str, suffix: &str, body: Option<&Value>) -> Result<Value, Error> {
        let path = format!("/session/{}{suffix}", self.session.id);
        command(&self.session.authority, method, &path, body).await
    }

    pub async fn goto(&self, url: &str) -> Result<(), Error> {
        self.cmd("POST", "/url", Some(&json!({ "url": url })))
            .await
            .map(drop)
    }

    /// The address of the page shown.
    pub async fn current_url(&self) -> Result<String, Error> {
        let value = self.cmd("GET", "/url", None).await?;
        value
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| error(format!("current url: {value}")))
    }

    pub async fn refresh(&self) -> Result<(), Error> {
        self.cmd("POST", "/refresh", Some(&json!({})))
            .await
            .map(drop)
    }

    pub async fn find(&self, locator: Locator<'_>) -> Result<Element, Error> {
        let value = self.cmd("POST", "/element", Some(&locator.body())).await?;
        self.element(&value)
    }

    pub async fn find_all(&self, locator: Locator<'_>) -> Result<Vec<Element>, Error> {
        let value = self.cmd("POST", "/elements", Some(&locator.body())).await?;
        value
            .as_array()
            .ok_or_else(|| error(format!("find all: {value}")))?
            .iter()
            .map(|v| self.element(v))
            .collect()
    }

    /// The element that has the keyboard focus.
    pub async fn active_element(&self) -> Result<Element, Error> {
        let value = self.cmd("GET", "/element/active", None).await?;
        self.element(&value)
    }

    fn element(&self, value: &Value) -> Result<Element, Error> {
        let id = value[ELEMENT_KEY]
            .as_str()
            .ok_or_else(|| error(format!("not an element reference: {value}")))?;
        Ok(Element {
            client: self.clone(),
            id: id.to_owned(),
        })
    }

    /// Runs `script` as the body of a function with `arguments` = `args`; its return value.
    pub async fn execute(&self, script: &str, args: Vec<Value>) -> Result<Value, Error> {
        let body = json!({ "script": script, "args": args });
        self.cmd("POST", "/execute/sync", Some(&body)).await
    }

    /// Sets the outer size of the browser window.
    pub async fn set_window_size(&self, width: u32, height: u32) -> Result<(), Error> {
        let body = json!({ "width": width, "height": height });
        self.cmd("POST", "/window/rect", Some(&body))
            .await
            .map(drop)
    }

    /// A PNG of the viewport.
    pub async fn screenshot(&self) -> Result<Vec<u8>, Error> {
        let value = self.cmd("GET", "/screenshot", None).await?;
        png_of(&value)
    }

    /// The value of the cookie `name` of the current page.
    pub async fn cookie_value(&self, name: &str) -> Result<String, Error> {
        let value = self.cmd("GET", &format!("/cookie/{name}"), None).await?;
        value["value"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| error(format!("cookie {name}: {value}")))
    }

    /// A Chrome DevTools Protocol command, through chromedriver's `goog/cdp/execute`.
    pub async fn devtools(&self, cmd: &str, params: Value) -> Result<Value, Error> {
        let body = json!({ "cmd": cmd, "params": params });
        self.cmd("POST", "/goog/cdp/execute", Some(&body)).await
    }

    /// The browser's console and network log since the last call (chromedriver's
    /// `goog:loggingPrefs`: the session must ask for the `browser` log): each entry's level
    /// (`SEVERE`, `WARNING`, `INFO` …) and message.
    pub async fn browser_log(&self) -> Result<Vec<(String, String)>, Error> {
        let body = json!({ "type": "browser" });
        let value = self.cmd("POST", "/se/log", Some(&body)).await?;
        Ok(value
            .as_array()
            .map(|entries| {
                entries
                    .iter()
                    .map(|e| {
                        let field = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
                        (field("level"), field("message"))
                    })
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Ends the session (the browser quits).
    pub async fn close(self) -> Result<(), Error> {
        self.cmd("DELETE", "", None).await.map(drop)
    }
}

impl Element {
    async fn cmd(&self, method: &str, what: &str, body: Option<&Value>) -> Result<Value, Error> {
        let suffix = format!("/element/{}{what}", self.id);
        self.client.cmd(method, &suffix, body).await
    }

    pub async fn click(&self) -> Result<(), Error> {
        self.cmd("POST", "/click", Some(&json!({}))).await.map(drop)
    }

    /// Types `text` into the element ([`key::Key`]s as their characters).
    pub async fn send_keys(&self, text: &str) -> Result<(), Error> {
        self.cmd("POST", "/value", Some(&json!({ "text": text })))
            .await
            .map(drop)
    }

    pub async fn clear(&self) -> Result<(), Error> {
        self.cmd("POST", "/clear", Some(&json!({}))).await.map(drop)
    }

    /// The attribute `name`, or `None` when the element has none.
    pub async fn attr(&self, name: &str) -> Result<Option<String>, Error> {
        let value = self.cmd("GET", &format!("/attribute/{name}"), None).await?;
        Ok(value.as_str().map(str::to_owned))
    }

    /// The rendered text.
    pub async fn text(&self) -> Result<String, Error> {
        let value = self.cmd("GET", "/text", None).await?;
        value
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| error(format!("element text: {value}")))
    }

    /// The element's box: x, y, width and height in CSS pixels.
    pub async fn rectangle(&self) -> Result<(f64, f64, f64, f64), Error> {
        let value = self.cmd("GET", "/rect", None).await?;
        let field = |name: &str| {
            value[name]
                .as_f64()
                .ok_or_else(|| error(format!("element rect: {value}")))
        };
        Ok((field("x")?, field("y")?, field("width")?, field("height")?))
    }

    /// A PNG of the element as drawn.
    pub async fn screenshot(&self) -> Result<Vec<u8>, Error> {
        let value = self.cmd("GET", "/screenshot", None).await?;
        png_of(&value)
    }
}

fn png_of(value: &Value) -> Result<Vec<u8>, Error> {
    let text = value
        .as_str()
        .ok_or_else(|| error(format!("screenshot: {value}")))?;
    base64_decode(text).ok_or_else(|| error("screenshot: not base64"))
}

/// One WebDriver command: its `value` on success, its error code and message otherwise.
async fn command(
    authority: &str,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<Value, Error> {
    let what = format!("{method} {path}");
    let (status, body) = tokio::time::timeout(COMMAND_TIMEOUT, http(authority, method, path, body))
        .await
        .map_err(|_| error(format!("{what}: no answer within {COMMAND_TIMEOUT:?}")))?
        .map_err(|e| error(format!("{what}: {e}")))?;
    let json: Value = serde_json::from_slice(&body).map_err(|e| {
        error(format!(
            "{what}: HTTP {status}, not JSON ({e}): {}",
            String::from_utf8_lossy(&body)
        ))
    })?;
    let mut value = match json {
        Value::Object(mut map) => map.remove("value").unwrap_or(Value::Null),
        other => return Err(error(format!("{what}: HTTP {status}: {other}"))),
    };
    if status == 200 {
        Ok(value)
    } else {
        let code = value["error"].take();
        let message = value["message"].take();
        Err(error(format!(
            "{what}: {} ({})",
            code.as_str().unwrap_or("unknown error"),
            message.as_str().unwrap_or_default()
        )))
    }
}

/// A plain HTTP/1.1 exchange on a fresh connection: the status and the body. The answer is
/// read until it is whole (chromedriver may keep the connection open after it).
async fn http(
    authority: &str,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> std::io::Result<(u16, Vec<u8>)> {
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut stream = TcpStream::connect(authority).await?;
    let mut request =
        format!("{method} {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n");
    if method != "GET" {
        request.push_str("Content-Type: application/json; charset=utf-8\r\n");
        request.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    stream.write_all(request.as_bytes()).await?;
    let invalid = |e: String| std::io::Error::new(std::io::ErrorKind::InvalidData, e);
    let mut raw = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            return parse_response(&raw, true)
                .map_err(invalid)?
                .ok_or_else(|| invalid("the connection closed mid-answer".into()));
        }
        raw.extend_from_slice(&buf[..n]);
        if let Some(whole) = parse_response(&raw, false).map_err(invalid)? {
            return Ok(whole);
        }
    }
}

/// The status and body of an HTTP/1.1 response (by `Content-Length`, chunked, or up to the end
/// of the connection when `at_end`); `None` while more bytes are needed.
fn parse_response(raw: &[u8], at_end: bool) -> Result<Option<(u16, Vec<u8>)>, String> {
    let Some(end) = raw.windows(4).position(|w| w == b"\r\n\r\n") else {
        return if at_end {
            Err("no end of the response head".into())
        } else {
            Ok(None)
        };
    };
    let head = std::str::from_utf8(&raw[..end]).map_err(|_| "a head that is not UTF-8")?;
    let rest = &raw[end + 4..];
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or("no status")?;
    let mut chunked = false;
    let mut length = None;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.eq_ignore_ascii_case("chunked");
        } else if name.eq_ignore_ascii_case("content-length") {
            length = Some(value.parse::<usize>().map_err(|_| "a bad Content-Length")?);
        }
    }
    let body = if chunked {
        dechunk(rest)?
    } else if let Some(n) = length {
        rest.get(..n).map(<[u8]>::to_vec)
    } else {
        at_end.then(|| rest.to_vec())
    };
    match body {
        Some(body) => Ok(Some((status, body))),
        None if at_end => Err("the answer is cut short".into()),
        None => Ok(None),
    }
}

/// A chunked body: `None` until its last chunk has arrived.
fn dechunk(mut data: &[u8]) -> Result<Option<Vec<u8>>, String> {
    let mut out = Vec::new();
    loop {
        let Some(eol) = data.windows(2).position(|w| w == b"\r\n") else {
            return Ok(None);
        };
        let size_text = std::str::from_utf8(&data[..eol]).map_err(|_| "a bad chunk size")?;
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let size = usize::from_str_radix(size_text, 16).map_err(|_| "a bad chunk size")?;
        data = &data[eol + 2..];
        if size == 0 {
            return Ok(Some(out));
        }
        let (Some(chunk), Some(next)) = (data.get(..size), data.get(size + 2..)) else {
            return Ok(None);
        };
        out.extend_from_slice(chunk);
        data = next;
    }
}

/// Standard base64 (screenshots), padding optional; `None` on any other character.
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    fn sextet(c: u8) -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        } as u32)
    }
    let bytes = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= sextet(c)? << (18 - 6 * i);
        }
        let full = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        match chunk.len() {
            4 => out.extend_from_slice(&full),
            3 => out.extend_from_slice(&full[..2]),
            2 => out.push(full[0]),
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_decodes_with_and_without_padding() {
        assert_eq!(base64_decode("aGVsbG8=").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64_decode("aGVsbG8").as_deref(), Some(&b"hello"[..]));
        assert_eq!(base64_decode("aGk=").as_deref(), Some(&b"hi"[..]));
        assert_eq!(base64_decode("YWJj").as_deref(), Some(&b"abc"[..]));
        assert_eq!(base64_decode("").as_deref(), Some(&b""[..]));
        assert_eq!(base64_decode("a"), None);
        assert_eq!(base64_decode("a$=="), None);
    }

    #[test]
    fn responses_parse_by_length_by_chunks_and_to_the_end() {
        let sized = b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"value\":1}";
        let want = Some((200, b"{\"value\":1}".to_vec()));
        assert_eq!(parse_response(sized, false), Ok(want));
        let chunked = b"HTTP/1.1 404 Not Found\r\nTransfer-Encoding: chunked\r\n\r\n\
            4\r\n{\"va\r\n7;x=1\r\nlue\":2}\r\n0\r\n\r\n";
        let want = Some((404, b"{\"value\":2}".to_vec()));
        assert_eq!(parse_response(chunked, false), Ok(want));
        let open = b"HTTP/1.1 500 Internal\r\n\r\n{}";
        assert_eq!(parse_response(open, false), Ok(None));
        assert_eq!(parse_response(open, true), Ok(Some((500, b"{}".to_vec()))));
    }

    #[test]
    fn a_partial_response_waits_for_more_and_is_an_error_at_the_end() {
        let head_only = b"HTTP/1.1 200 OK\r\n";
        assert_eq!(parse_response(head_only, false), Ok(None));
        assert!(parse_response(head_only, true).is_err());
        let short = b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n{}";
        assert_eq!(parse_response(short, false), Ok(None));
        assert!(parse_response(short, true).is_err());
        let half_chunk = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"";
        assert_eq!(parse_response(half_chunk, false), Ok(None));
    }

    #[test]
    fn keys_are_webdriver_code_points() {
        assert_eq!(key::Key::Enter.to_string(), "\u{E007}");
        assert_eq!(key::Key::Up.to_string(), "\u{E013}");
    }
}
