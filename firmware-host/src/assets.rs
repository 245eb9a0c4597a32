//! The UI files embedded by `build.rs`, gzip-compressed, and how they are served: gzip to
//! clients that accept it (nearly all), inflated on the fly for the rest; an ETag from the
//! content with `Cache-Control: no-cache`, so browsers revalidate cheaply (304) and never run
//! a stale script after an upgrade (wasm-bindgen's file names carry no content hash).

use std::io::Read;

/// One embedded file.
#[derive(Debug)]
pub struct Asset {
    /// URL path, starting with `/`.
    pub path: &'static str,
    pub content_type: &'static str,
    /// A quoted strong ETag.
    pub etag: &'static str,
    /// Uncompressed length.
    pub len: usize,
    /// The gzip-compressed content.
    pub gzip: &'static [u8],
}

include!(concat!(env!("OUT_DIR"), "/assets.rs"));

impl Asset {
    /// The uncompressed content.
    pub fn inflate(&self) -> std::io::Result<Vec<u8>> {
        let mut out = Vec::with_capacity(self.len);
        flate2::read::GzDecoder::new(self.gzip).read_to_end(&mut out)?;
        Ok(out)
    }
}

/// Whether the UI was embedded at build time.
pub fn ui_built() -> bool {
    index().is_some()
}

/// The embedded file at `path`, exactly.
pub fn find(path: &str) -> Option<&'static Asset> {
    ASSETS
        .binary_search_by(|a| a.path.cmp(path))
        .ok()
        .and_then(|i| ASSETS.get(i))
}

/// The UI's `index.html`, served for `/` and every client-side route (SPA fallback).
pub fn index() -> Option<&'static Asset> {
    find("/index.html")
}

/// Served at `/` and the client-side routes when the UI was not built.
pub const NOT_BUILT_PAGE: &str = r#"<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>XO Kiosk: the UI is not built</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 2em auto; line-height: 1.5">
<h1>XO Kiosk server is running, but its UI is not built</h1>
<p>This <code>firmware-host</code> binary was compiled without the web UI
(<code>kiosk-ui/dist/</code> was missing at build time).</p>
<p>To build the UI and embed it, run from the repository root:</p>
<pre>scripts/build-ui
cargo build -p firmware-host --release</pre>
<p>The HTTP API (<a href="/api/health">/api/health</a>) and the WebSocket at <code>/ws</code>
work without it.</p>
</body>
</html>
"#;
