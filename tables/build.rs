//! Solves both games by retrograde analysis and writes the tables to `OUT_DIR` (T1).
//! The library embeds them with `include_bytes!`; nothing is solved at run time.

#[path = "src/index.rs"]
#[allow(dead_code)]
mod index;
#[path = "src/solve.rs"]
#[allow(dead_code)]
mod solve;

use engine::Game;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/index.rs");
    println!("cargo::rerun-if-changed=src/solve.rs");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    for game in Game::ALL {
        let blob = solve::solve(game);
        let bytes = postcard::to_allocvec(&blob).expect("a table always encodes");
        let path = out.join(format!("{}.table", game.as_str()));
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    }
}
