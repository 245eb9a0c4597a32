//! Embeds the built UI (`kiosk-ui/dist/`, or the folder named by `XO_UI_DIST`) into the
//! binary, each file gzip-compressed once here so the server never compresses at run time.
//! When the folder is missing the build still succeeds with a cargo warning, and the server
//! serves a page that says how to build the UI.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(
        std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"),
    );
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    println!("cargo::rerun-if-env-changed=XO_UI_DIST");
    let ui_root = manifest.join("..").join("kiosk-ui");
    let dist = std::env::var_os("XO_UI_DIST").map_or_else(|| ui_root.join("dist"), PathBuf::from);
    // Watch the UI folder (a dist appearing changes it); a missing path would rerun every build.
    if dist.exists() {
        println!("cargo::rerun-if-changed={}", dist.display());
    } else if ui_root.exists() {
        println!("cargo::rerun-if-changed={}", ui_root.display());
    }
    println!("cargo::rerun-if-changed=build.rs");

    let mut files = Vec::new();
    if dist.join("index.html").is_file() {
        collect(&dist, &dist, &mut files);
        files.sort();
    } else {
        println!(
            "cargo::warning=the UI is not built ({} has no index.html): the server will serve a page saying to run scripts/build-ui",
            dist.display()
        );
    }

    let asset_dir = out.join("assets");
    std::fs::create_dir_all(&asset_dir).expect("create OUT_DIR/assets");
    let mut code = String::from(
        "/// The embedded UI files, sorted by path.\npub static ASSETS: &[Asset] = &[\n",
    );
    for (i, (url, file)) in files.iter().enumerate() {
        let raw = std::fs::read(file).expect("read a UI file");
        let gz_path = asset_dir.join(format!("{i}.gz"));
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        encoder.write_all(&raw).expect("gzip in memory");
        let gz = encoder.finish().expect("gzip in memory");
        std::fs::write(&gz_path, &gz).expect("write a compressed UI file");
        writeln!(
            code,
            "    Asset {{ path: {url:?}, content_type: {:?}, etag: \"\\\"{:016x}\\\"\", len: {}, gzip: include_bytes!({:?}) }},",
            content_type(url),
            fnv1a(&raw),
            raw.len(),
            gz_path.display().to_string(),
        )
        .expect("write to a String");
    }
    code.push_str("];\n");
    std::fs::write(out.join("assets.rs"), code).expect("write assets.rs");
}

fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, PathBuf)>) {
    for entry in std::fs::read_dir(dir).expect("read the UI folder") {
        let path = entry.expect("read a UI folder entry").path();
        if path.is_dir() {
            collect(root, &path, files);
        } else {
            let rel = path.strip_prefix(root).expect("below the UI folder");
            let url = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .fold(String::new(), |acc, part| acc + "/" + &part);
            files.push((url, path));
        }
    }
}

fn content_type(path: &str) -> &'static str {
    let ext = path.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
    match ext.as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "ico" => "image/x-icon",
        "woff2" => "font/woff2",
        "woff" => "font/woff",
        "ttf" => "font/ttf",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// FNV-1a 64: a content hash for ETags (not security).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
