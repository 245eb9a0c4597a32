//! Cross-site requests refused: state-changing requests must be JSON and, when a
//! browser sends `Origin`, same-origin; a `Host` that is none of the server's names or
//! addresses is refused (DNS rebinding); the pages the app runs under carry a
//! `Content-Security-Policy`.

use std::net::IpAddr;
use std::sync::OnceLock;

use hyper::HeaderMap;
use hyper::header::{CONTENT_TYPE, HOST};
use protocol::api::Endpoint;
use sha2::{Digest, Sha256};

use crate::api_error::ApiError;
use crate::app::App;

/// Whether the body is declared JSON (`application/json`, parameters allowed). Browsers send
/// cross-site `text/plain` and form bodies without asking first; JSON needs a preflight this
/// server never grants.
pub fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/json"))
}

/// The host name of a `Host` header or URL authority: lower case, port and brackets removed.
fn host_name(authority: &str) -> String {
    let authority = authority.trim();
    let name = if let Some(rest) = authority.strip_prefix('[') {
        rest.split(']').next().unwrap_or(rest)
    } else {
        authority
            .rsplit_once(':')
            .map_or(authority, |(name, port)| {
                if port.bytes().all(|b| b.is_ascii_digit()) {
                    name
                } else {
                    authority
                }
            })
    };
    name.trim_end_matches('.').to_ascii_lowercase()
}

/// The host of an `http://…` URL.
fn url_host(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split('/').next()?;
    Some(host_name(authority))
}

/// Whether `authority` (a `Host` header or an HTTP/2 `:authority`) names this server: any IP
/// address (an address cannot be rebound to another server), `localhost`, this machine's
/// name with or without `.local`, or the host of the public or local URL.
pub fn host_allowed(app: &App, authority: &str) -> bool {
    let name = host_name(authority);
    if name.parse::<IpAddr>().is_ok() || name == "localhost" {
        return true;
    }
    if let Some(own) = crate::public_url::hostname().map(|h| h.to_ascii_lowercase()) {
        let own = own.strip_suffix(".local").unwrap_or(&own).to_owned();
        if name == own || name == format!("{own}.local") {
            return true;
        }
    }
    let urls = app.public_url.current();
    [
        Some(urls.public_url),
        urls.local_url,
        app.config.public_url.clone(),
    ]
    .into_iter()
    .flatten()
    .filter_map(|url| url_host(&url))
    .any(|host| host == name)
}

/// Refuses a request whose `Host` (or HTTP/2 authority) is not this server.
pub fn check_host(app: &App, headers: &HeaderMap, uri: &hyper::Uri) -> Result<(), ApiError> {
    let authority = headers
        .get(HOST)
        .and_then(|h| h.to_str().ok())
        .map(str::to_owned)
        .or_else(|| uri.authority().map(|a| a.as_str().to_owned()));
    match authority {
        // HTTP/1.0 tools may send none; browsers always do.
        None => Ok(()),
        Some(a) if host_allowed(app, &a) => Ok(()),
        Some(a) => Err(ApiError::BadHost(a)),
    }
}

fn is_octet_stream(headers: &HeaderMap) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| v.trim().eq_ignore_ascii_case("application/octet-stream"))
}

/// Refuses a state-changing request that is not JSON (a file, for an upload's path) or comes
/// from another site's page.
pub fn check_state_change(headers: &HeaderMap, path: &str) -> Result<(), ApiError> {
    // The endpoints whose body is a file (`application/octet-stream`) instead of JSON, an
    // owner's restore and update uploads, are the rows of the API's table that take an
    // `Upload`. A cross-site page cannot send that type without a CORS preflight, which this
    // server never grants, so they are as safe as JSON.
    let typed = if Endpoint::is_upload_path(path) {
        is_octet_stream(headers)
    } else {
        is_json(headers)
    };
    if !typed {
        return Err(ApiError::UnsupportedMediaType);
    }
    if !crate::ws::origin_allowed(headers) {
        return Err(ApiError::BadOrigin(format!(
            "{:?} for Host {:?}",
            headers.get(hyper::header::ORIGIN),
            headers.get(HOST)
        )));
    }
    Ok(())
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> shift) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `'sha256-…'` sources for every inline `<script>` of `html`.
fn inline_script_hashes(html: &str) -> Vec<String> {
    let mut hashes = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<script") {
        let after = &rest[start..];
        let Some(open_end) = after.find('>') else {
            break;
        };
        let tag = &after[..open_end];
        let body_and_more = &after[open_end + 1..];
        let Some(close) = body_and_more.find("</script>") else {
            break;
        };
        if !tag.contains("src=") {
            let body = &body_and_more[..close];
            hashes.push(format!(
                "'sha256-{}'",
                base64(&Sha256::digest(body.as_bytes()))
            ));
        }
        rest = &body_and_more[close..];
    }
    hashes
}

/// The policy of the app's pages: everything from this server only; scripts are the app's
/// files and the inline loader of `index.html` (by hash); WebAssembly may be compiled
/// (`'wasm-unsafe-eval'`); no framing, no plugins, forms post only here.
pub fn content_security_policy(index_html: Option<&str>) -> String {
    let hashes = index_html.map(inline_script_hashes).unwrap_or_default();
    format!(
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval' {}; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        hashes.join(" ")
    )
}

/// [`content_security_policy`] for the embedded `index.html`, computed once.
pub fn app_policy() -> &'static str {
    static POLICY: OnceLock<String> = OnceLock::new();
    POLICY.get_or_init(|| {
        let index = crate::assets::index().and_then(|asset| match asset.inflate() {
            Ok(bytes) => String::from_utf8(bytes).ok(),
            Err(e) => {
                tracing::error!(error = %e, "inflating index.html for its script hashes");
                None
            }
        });
        content_security_policy(index.as_deref())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_names_lose_port_brackets_and_case() {
        assert_eq!(host_name("XO.local:8080"), "xo.local");
        assert_eq!(host_name("[::1]:80"), "::1");
        assert_eq!(host_name("127.0.0.1"), "127.0.0.1");
        assert_eq!(
            url_host("http://192.168.1.20:8080/x").as_deref(),
            Some("192.168.1.20")
        );
    }

    #[test]
    fn json_bodies_only() {
        let mut h = HeaderMap::new();
        assert!(!is_json(&h));
        h.insert(CONTENT_TYPE, "text/plain".parse().expect("header"));
        assert!(!is_json(&h));
        h.insert(
            CONTENT_TYPE,
            "application/json; charset=utf-8".parse().expect("header"),
        );
        assert!(is_json(&h));
    }

    #[test]
    fn the_policy_allows_the_inline_loader_by_its_hash() {
        assert_eq!(base64(b"abc"), "YWJj");
        assert_eq!(base64(b"ab"), "YWI=");
        let html = "<script type=\"module\">init();</script><script src=\"/a.js\"></script>";
        let policy = content_security_policy(Some(html));
        let expected = format!("'sha256-{}'", base64(&Sha256::digest(b"init();")));
        assert!(policy.contains(&expected), "{policy}");
        assert!(policy.contains("'wasm-unsafe-eval'"));
        assert_eq!(inline_script_hashes(html).len(), 1);
    }
}
