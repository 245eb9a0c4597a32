//! Solves both games by retrograde analysis and writes the tables to `OUT_DIR` (T1), then mines
//! the puzzles from each solved table and writes them beside it (PZ1).
//! The library embeds both with `include_bytes!`; nothing is solved or mined at run time.

#[path = "src/index.rs"]
#[allow(dead_code)]
mod index;
#[path = "src/mine.rs"]
#[allow(dead_code)]
mod mine;
#[path = "src/solve.rs"]
#[allow(dead_code)]
mod solve;

use engine::Game;

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-changed=src/index.rs");
    println!("cargo::rerun-if-changed=src/mine.rs");
    println!("cargo::rerun-if-changed=src/solve.rs");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let write = |name: String, bytes: &[u8]| {
        let path = out.join(name);
        std::fs::write(&path, bytes).unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    };
    for game in Game::ALL {
        let blob = solve::solve(game);
        let bytes = postcard::to_allocvec(&blob).expect("a table always encodes");
        write(format!("{}.table", game.as_str()), &bytes);
        let puzzles = mine::mine(&mine::Lookup::new(&blob));
        write(
            format!("{}.puzzles", game.as_str()),
            &mine::to_bytes(&puzzles),
        );
    }
}
