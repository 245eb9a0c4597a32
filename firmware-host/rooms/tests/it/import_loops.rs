//! No file of the rooms crate (nor of the server, the protocol crate or the UI) imports a
//! file that imports it back, directly or through others
//! (STYLE 4: each shared type has its own file, so the module graph stays a tree one can read
//! from the bottom up).
//!
//! The check reads `src/` as text: every `crate::…` path (in `use` lines and inline) and every
//! top-level `use super::…` or `use self::…` is resolved to the file that defines the named module, and the
//! graph of those edges must have no cycle. `super::` inside an inline module (`mod tests {`)
//! points at its own file and is not an edge. `mod` declarations are not imports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path (`["room", "seating"]`) of a file under `src/`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("file under src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_owned());
    }
    parts
}

/// The file defining the longest prefix of `path` that is a module of the crate.
fn resolve(modules: &BTreeMap<Vec<String>, PathBuf>, path: &[String]) -> Option<PathBuf> {
    (0..=path.len())
        .rev()
        .find_map(|n| modules.get(&path[..n]).cloned())
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The path segments after `crate::` or `super::` at `text`'s start, as far as identifiers go.
fn segments(text: &str) -> Vec<String> {
    text.split("::")
        .map(|s| {
            s.chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<String>()
        })
        .take_while(|s| !s.is_empty())
        .collect()
}

/// Every edge `file → file it imports` of the crate under `src`.
fn import_graph(src: &Path) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeMap<Vec<String>, PathBuf> = files
        .iter()
        .map(|f| (module_of(src, f), f.clone()))
        .collect();
    let mut graph = BTreeMap::new();
    for file in &files {
        let here = module_of(src, file);
        let text = std::fs::read_to_string(file).expect("read source");
        let mut edges = BTreeSet::new();
        for line in text.lines() {
            let code = line.split("//").next().unwrap_or_default();
            let mut rest = code;
            while let Some(at) = rest.find("crate::") {
                let after = &rest[at + "crate::".len()..];
                if let Some(target) = resolve(&modules, &segments(after)) {
                    edges.insert(target);
                }
                rest = after;
            }
            // Top-level `use super::…` names the parent module and `use self::…` a child;
            // indented ones sit in an inline module and name their own file.
            let code = match code.strip_prefix("pub") {
                // `pub use`, `pub(crate) use` …
                Some(rest) => rest.trim_start_matches(|c| c != ' ').trim_start(),
                None => code,
            };
            let relative = if let Some(after) = code.strip_prefix("use super::") {
                Some((here[..here.len().saturating_sub(1)].to_vec(), after))
            } else {
                code.strip_prefix("use self::")
                    .map(|after| (here.clone(), after))
            };
            if let Some((mut path, after)) = relative {
                path.extend(segments(after));
                if let Some(target) = resolve(&modules, &path) {
                    edges.insert(target);
                }
            }
        }
        edges.remove(file);
        graph.insert(file.clone(), edges);
    }
    graph
}

/// One cycle of the graph, if any, as the files along it.
fn find_cycle(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>) -> Option<Vec<PathBuf>> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Open,
        Done,
    }
    fn visit(
        node: &PathBuf,
        graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>,
        state: &mut BTreeMap<PathBuf, State>,
        stack: &mut Vec<PathBuf>,
    ) -> Option<Vec<PathBuf>> {
        match state.get(node) {
            Some(State::Done) => return None,
            Some(State::Open) => {
                let from = stack
                    .iter()
                    .position(|n| n == node)
                    .expect("open is on stack");
                let mut cycle = stack[from..].to_vec();
                cycle.push(node.clone());
                return Some(cycle);
            }
            None => {}
        }
        state.insert(node.clone(), State::Open);
        stack.push(node.clone());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, state, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        state.insert(node.clone(), State::Done);
        None
    }
    let mut state = BTreeMap::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut state, &mut Vec::new()))
}

/// The crates checked: this one and, from here, the server, the wire types and the UI
/// (issue 12: no file of them imports another that imports it back).
const CRATES: [&str; 4] = [".", "../protocol", "..", "../../kiosk-ui"];

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    for krate in CRATES {
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(krate)
            .join("src");
        let graph = import_graph(&src);
        assert!(graph.len() > 5, "the check found {}'s files", src.display());
        if let Some(cycle) = find_cycle(&graph) {
            let shown: Vec<String> = cycle
                .iter()
                .map(|f| f.strip_prefix(&src).unwrap_or(f).display().to_string())
                .collect();
            panic!("import loop in {}: {}", src.display(), shown.join(" → "));
        }
    }
}

#[test]
fn the_check_finds_a_loop_when_there_is_one() {
    let dir = std::env::temp_dir().join(format!("rooms-import-loops-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("room")).expect("temp dir");
    std::fs::write(src.join("lib.rs"), "mod a;\nmod room;\n").expect("write");
    std::fs::write(src.join("a.rs"), "use crate::room::Thing;\n").expect("write");
    std::fs::write(src.join("room/mod.rs"), "mod b;\npub struct Thing;\n").expect("write");
    std::fs::write(
        src.join("room/b.rs"),
        "use super::Thing;\nfn f() { crate::a::g() }\n",
    )
    .expect("write");
    let graph = import_graph(&src);
    assert_eq!(
        find_cycle(&graph),
        None,
        "a → room, b → room, b → a: no loop"
    );
    std::fs::write(
        src.join("room/mod.rs"),
        "mod b;\npub struct Thing;\nuse crate::a::g;\n",
    )
    .expect("write");
    let cycle = find_cycle(&import_graph(&src)).expect("room → a → room");
    assert!(cycle.len() >= 3);
    std::fs::remove_dir_all(&dir).expect("clean up");
}
