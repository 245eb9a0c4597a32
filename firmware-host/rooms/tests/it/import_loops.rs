//! No file of any crate of the workspace imports a file that imports it back, directly or
//! through others (STYLE 4: each noun has its own file, so the module graph stays a tree one
//! can read from the bottom up).
//!
//! The check reads the sources as text. Each crate root (`src/lib.rs`, `src/main.rs`,
//! `src/bin/*.rs`, `build.rs`, each integration test and bench) gives one module tree,
//! followed through its `mod` declarations (`#[path]` included). Comments, strings and
//! character literals are blanked out first. Then every path of the code counts — in `use`
//! trees (`use super::{a::X, b::{Y, Z}}`) and inline (`super::owners::apply(..)`,
//! `crate::store::writer::Op`): paths starting with `crate`, `self`, `super`, a child module,
//! or a name the module imported. A path leads to the file that defines what it names: through
//! the `use` items of the modules on the way (a re-export `pub use writer::Op` in `store/mod.rs`
//! sends `crate::store::Op` on to `store/writer.rs`), so a façade that re-exports is not a loop
//! by itself; a `pub use` of the module's own descendants is no more an import than the `mod`
//! declaring them. `super::` inside an inline module (`mod tests {`) names its own file, which
//! is no edge. `mod` declarations and `pub(in crate::x)` are not imports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Blanks out comments, string literals and character literals (newlines kept), so that
/// only code is left for the path scan.
fn strip(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if (c == 'r' || (c == 'b' && next == Some('r')))
            && (i == 0 || !ident(chars[i - 1]))
            && {
                let mut j = i + if c == 'b' { 2 } else { 1 };
                while chars.get(j) == Some(&'#') {
                    j += 1;
                }
                chars.get(j) == Some(&'"')
            }
        {
            // A raw string: r"…", r#"…"#, br#"…"#.
            let mut j = i + if c == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while chars[j] == '#' {
                hashes += 1;
                j += 1;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (0..hashes).all(|h| chars.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            for &c in &chars[i..j.min(chars.len())] {
                out.push(blank(c));
            }
            i = j;
        } else if c == '"' {
            out.push(' ');
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                if chars[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < chars.len() {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c == '\'' && next == Some('\\') {
            // An escaped character: '\n', '\'', '\u{1F600}'.
            let mut j = i + 2;
            while j < chars.len() && chars[j] != '\'' {
                j += 1;
            }
            for _ in i..=j.min(chars.len() - 1) {
                out.push(' ');
            }
            i = j + 1;
        } else if c == '\'' && chars.get(i + 2) == Some(&'\'') {
            out.push_str("   ");
            i += 3;
        } else {
            // Anything else, a lifetime's quote included.
            out.push(c);
            i += 1;
        }
    }
    out
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

fn tokens(code: &str) -> Vec<(Token, usize)> {
    let bytes: Vec<(usize, char)> = code.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let (at, c) = bytes[i];
        if c.is_alphabetic() || c == '_' || (c == '$' && code[at..].starts_with("$crate")) {
            let start = at;
            i += 1;
            while i < bytes.len() && (bytes[i].1.is_alphanumeric() || bytes[i].1 == '_') {
                i += 1;
            }
            let end = bytes.get(i).map_or(code.len(), |b| b.0);
            let word = code[start..end].trim_start_matches('$');
            // `r#type`: the raw identifier.
            out.push((
                Token::Ident(word.trim_start_matches("r#").to_owned()),
                start,
            ));
        } else if c == ':' && bytes.get(i + 1).is_some_and(|b| b.1 == ':') {
            out.push((Token::Sep, at));
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else {
            out.push((Token::Punct(c), at));
            i += 1;
        }
    }
    out
}

/// A path as written: its first segment (`crate`, `self`, `super` or a name) and the rest.
type RawPath = Vec<String>;

/// What one module (a file or an inline module) holds: its file, and the names its `use`
/// items bring in, with the paths they name.
#[derive(Debug, Default)]
struct Module {
    file: PathBuf,
    imports: BTreeMap<String, RawPath>,
}

/// One crate root's modules by path, and each file's path references (with the module they
/// were written in).
#[derive(Debug, Default)]
struct Tree {
    modules: BTreeMap<Vec<String>, Module>,
    references: Vec<Reference>,
}

/// A path written in `file`, in module `module`.
#[derive(Debug)]
struct Reference {
    file: PathBuf,
    module: Vec<String>,
    path: RawPath,
    /// Written in a `pub use`: a module showing its own descendants' items, which is no
    /// more an import than the `mod` declaring them.
    reexport: bool,
}

fn ident(tokens: &[(Token, usize)], i: usize) -> Option<&str> {
    match tokens.get(i) {
        Some((Token::Ident(s), _)) => Some(s),
        _ => None,
    }
}

fn is(tokens: &[(Token, usize)], i: usize, t: &Token) -> bool {
    tokens.get(i).is_some_and(|(x, _)| x == t)
}

/// Parses a use tree or a path at `i`, with `prefix` before it; every leaf goes to `out` as
/// (the path, the name it binds). Returns the index after it.
fn path_tree(
    tokens: &[(Token, usize)],
    mut i: usize,
    mut prefix: RawPath,
    out: &mut Vec<(RawPath, Option<String>)>,
) -> usize {
    loop {
        if is(tokens, i, &Token::Punct('{')) {
            i += 1;
            while i < tokens.len() && !is(tokens, i, &Token::Punct('}')) {
                if is(tokens, i, &Token::Punct(',')) {
                    i += 1;
                    continue;
                }
                let before = i;
                i = path_tree(tokens, i, prefix.clone(), out);
                if i == before {
                    i += 1;
                }
            }
            return i + 1;
        }
        if is(tokens, i, &Token::Punct('*')) {
            out.push((prefix, None));
            return i + 1;
        }
        let Some(name) = ident(tokens, i) else {
            if !prefix.is_empty() {
                out.push((prefix, None));
            }
            return i;
        };
        i += 1;
        if name == "self" && !prefix.is_empty() {
            // `use a::{self, X}`: `a` itself.
            let bound = prefix.last().cloned();
            let (bound, i) = alias(tokens, i, bound);
            out.push((prefix, bound));
            return i;
        }
        prefix.push(name.to_owned());
        if is(tokens, i, &Token::Sep) {
            i += 1;
            continue;
        }
        let bound = prefix.last().cloned();
        let (bound, i) = alias(tokens, i, bound);
        out.push((prefix, bound));
        return i;
    }
}

/// `as name` after a use leaf.
fn alias(tokens: &[(Token, usize)], i: usize, bound: Option<String>) -> (Option<String>, usize) {
    if ident(tokens, i) == Some("as") {
        let name = ident(tokens, i + 1).map(str::to_owned);
        return (name.filter(|n| n != "_"), i + 2);
    }
    (bound, i)
}

/// The file of module `name` declared in `file` (at module depth `inline` within it).
fn child_file(
    file: &Path,
    inline: &[String],
    name: &str,
    path_attr: Option<&str>,
    exists: &dyn Fn(&Path) -> bool,
) -> PathBuf {
    let dir = file.parent().expect("a file has a directory");
    let owns_dir = matches!(
        file.file_name().and_then(|n| n.to_str()),
        Some("mod.rs" | "lib.rs" | "main.rs")
    ) || file.parent().and_then(Path::file_name) == Some("bin".as_ref())
        || file.file_name() == Some("build.rs".as_ref())
        || file.parent().and_then(Path::file_name) == Some("tests".as_ref())
        || file.parent().and_then(Path::file_name) == Some("benches".as_ref());
    let mut base = if owns_dir {
        dir.to_owned()
    } else {
        dir.join(file.file_stem().expect("a file name"))
    };
    if let Some(p) = path_attr {
        return if inline.is_empty() {
            dir.join(p)
        } else {
            base.extend(inline);
            base.join(p)
        };
    }
    base.extend(inline);
    let flat = base.join(format!("{name}.rs"));
    if exists(&flat) {
        flat
    } else {
        base.join(name).join("mod.rs")
    }
}

/// Reads the module tree rooted at `root`, as `sources` gives the text of each file.
fn tree(root: &Path, sources: &dyn Fn(&Path) -> Option<String>) -> Tree {
    let mut tree = Tree::default();
    let mut todo = vec![(root.to_owned(), Vec::<String>::new())];
    while let Some((file, module)) = todo.pop() {
        if tree.modules.contains_key(&module) {
            continue;
        }
        let Some(text) = sources(&file) else {
            continue;
        };
        tree.modules.insert(
            module.clone(),
            Module {
                file: file.clone(),
                imports: BTreeMap::new(),
            },
        );
        let code = strip(&text);
        let toks = tokens(&code);
        // Inline modules open at a brace depth: (name, depth inside it).
        let mut inline: Vec<(String, usize)> = Vec::new();
        let mut depth = 0;
        let mut i = 0;
        while i < toks.len() {
            let here: Vec<String> = module
                .iter()
                .cloned()
                .chain(inline.iter().map(|(n, _)| n.clone()))
                .collect();
            match &toks[i].0 {
                Token::Punct('{') => depth += 1,
                Token::Punct('}') => {
                    if inline.last().is_some_and(|(_, d)| *d == depth) {
                        inline.pop();
                    }
                    depth -= 1;
                }
                Token::Ident(w) if w == "mod" => {
                    if let Some(name) = ident(&toks, i + 1) {
                        if is(&toks, i + 2, &Token::Punct(';')) {
                            let path_attr = path_attribute(&text, &code, toks[i].1);
                            let names: Vec<String> =
                                inline.iter().map(|(n, _)| n.clone()).collect();
                            let exists = |p: &Path| sources(p).is_some();
                            let child =
                                child_file(&file, &names, name, path_attr.as_deref(), &exists);
                            let mut m = here.clone();
                            m.push(name.to_owned());
                            todo.push((child, m));
                        } else if is(&toks, i + 2, &Token::Punct('{')) {
                            let mut m = here.clone();
                            m.push(name.to_owned());
                            tree.modules.insert(
                                m,
                                Module {
                                    file: file.clone(),
                                    imports: BTreeMap::new(),
                                },
                            );
                            inline.push((name.to_owned(), depth + 1));
                            depth += 1;
                            i += 3;
                            continue;
                        }
                        i += 2;
                        continue;
                    }
                }
                Token::Ident(w) if w == "use" => {
                    let mut leaves = Vec::new();
                    let start = if is(&toks, i + 1, &Token::Sep) {
                        // `use ::ext::…`: another crate.
                        i + 2
                    } else {
                        i + 1
                    };
                    let end = path_tree(&toks, start, Vec::new(), &mut leaves);
                    let external = start == i + 2;
                    let reexport = visibility_before(&toks, i);
                    for (path, bound) in leaves {
                        if let Some(bound) = bound {
                            let target = if external {
                                vec![String::from("::"), bound.clone()]
                            } else {
                                path.clone()
                            };
                            if let Some(m) = tree.modules.get_mut(&here) {
                                m.imports.insert(bound, target);
                            }
                        }
                        if !external {
                            tree.references.push(Reference {
                                file: file.clone(),
                                module: here.clone(),
                                path,
                                reexport,
                            });
                        }
                    }
                    i = end.max(i + 1);
                    continue;
                }
                Token::Ident(_) => {
                    let after_sep = i > 0 && is(&toks, i - 1, &Token::Sep);
                    let after_dot = i > 0 && is(&toks, i - 1, &Token::Punct('.'));
                    let after_in = i > 0 && ident(&toks, i - 1) == Some("in");
                    if !after_sep && !after_dot && !after_in && is(&toks, i + 1, &Token::Sep) {
                        let mut leaves = Vec::new();
                        let end = path_tree(&toks, i, Vec::new(), &mut leaves);
                        for (path, _) in leaves {
                            tree.references.push(Reference {
                                file: file.clone(),
                                module: here.clone(),
                                path,
                                reexport: false,
                            });
                        }
                        i = end.max(i + 1);
                        continue;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
    tree
}

/// Whether the `use` at `i` is `pub`, `pub(crate)`, `pub(super)` …
fn visibility_before(tokens: &[(Token, usize)], i: usize) -> bool {
    if i == 0 {
        return false;
    }
    if ident(tokens, i - 1) == Some("pub") {
        return true;
    }
    if !is(tokens, i - 1, &Token::Punct(')')) {
        return false;
    }
    let mut j = i - 1;
    while j > 0 && !is(tokens, j, &Token::Punct('(')) {
        j -= 1;
    }
    j > 0 && ident(tokens, j - 1) == Some("pub")
}

/// The string of a `#[path = "…"]` attribute right before the `mod` at `at`, if any.
fn path_attribute(text: &str, code: &str, at: usize) -> Option<String> {
    let before = &code[..at];
    let from = before.rfind([';', '}', '{']).map_or(0, |p| p + 1);
    let attr = before[from..].find("#[path")? + from;
    let open = text[attr..].find('"')? + attr + 1;
    let close = text[open..].find('"')? + open;
    Some(text[open..close].to_owned())
}

impl Tree {
    /// The absolute module path a path written in module `here` names; `None` when it leads
    /// out of the crate.
    fn absolute(&self, here: &[String], path: &[String], hops: usize) -> Option<Vec<String>> {
        let (first, rest) = path.split_first()?;
        if hops > 16 {
            return None;
        }
        let mut base: Vec<String> = match first.as_str() {
            "crate" => Vec::new(),
            "self" => here.to_vec(),
            "super" => {
                let mut base = here.to_vec();
                base.pop();
                let mut rest = rest;
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                base.extend(rest.iter().cloned());
                return Some(base);
            }
            "::" => return None,
            name => {
                let mut child = here.to_vec();
                child.push(name.to_owned());
                if self.modules.contains_key(&child) {
                    child
                } else {
                    let target = self.modules.get(here)?.imports.get(name)?;
                    let mut base = self.absolute(here, target, hops + 1)?;
                    base.extend(rest.iter().cloned());
                    return Some(base);
                }
            }
        };
        base.extend(rest.iter().cloned());
        Some(base)
    }

    /// The file defining what absolute path `path` names, followed through imports.
    fn file_of(&self, path: &[String], hops: usize) -> Option<PathBuf> {
        let n = (0..=path.len())
            .rev()
            .find(|&n| self.modules.contains_key(&path[..n]))?;
        let module = &self.modules[&path[..n]];
        if let Some(next) = path.get(n)
            && hops < 16
            && let Some(target) = module.imports.get(next)
        {
            if let Some(mut followed) = self.absolute(&path[..n], target, hops + 1) {
                followed.extend(path[n + 1..].iter().cloned());
                if let Some(file) = self.file_of(&followed, hops + 1) {
                    return Some(file);
                }
            }
        }
        Some(module.file.clone())
    }

    /// Every edge `file → file it names`.
    fn graph(&self) -> BTreeMap<PathBuf, BTreeSet<PathBuf>> {
        let mut graph: BTreeMap<PathBuf, BTreeSet<PathBuf>> = self
            .modules
            .values()
            .map(|m| (m.file.clone(), BTreeSet::new()))
            .collect();
        for r in &self.references {
            let Some(absolute) = self.absolute(&r.module, &r.path, 0) else {
                continue;
            };
            let descendant = absolute.len() > r.module.len() && absolute.starts_with(&r.module);
            if r.reexport && descendant {
                continue;
            }
            if let Some(target) = self.file_of(&absolute, 0)
                && target != r.file
            {
                graph.entry(r.file.clone()).or_default().insert(target);
            }
        }
        graph
    }
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

/// Every crate of the workspace, from this crate's directory.
const CRATES: [&str; 10] = [
    "../../engine",
    "../../tables",
    "../protocol",
    ".",
    "../display",
    "..",
    "../../kiosk-ui",
    "../../tests",
    "../../tests/client",
    "../../tests/load",
];

/// A crate's roots: library, binaries, build script, integration tests and benches.
fn roots(krate: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["src/lib.rs", "src/main.rs", "build.rs"]
        .iter()
        .map(|p| krate.join(p))
        .filter(|p| p.exists())
        .collect();
    for dir in ["src/bin", "tests", "benches"] {
        let Ok(entries) = std::fs::read_dir(krate.join(dir)) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .map(|e| e.expect("dir entry").path())
            .filter_map(|p| {
                if p.extension().is_some_and(|e| e == "rs") {
                    Some(p)
                } else {
                    Some(p.join("main.rs")).filter(|m| m.exists())
                }
            })
            .collect();
        found.sort();
        roots.extend(found);
    }
    roots
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

/// The files `from` reaches.
fn reach(graph: &BTreeMap<PathBuf, BTreeSet<PathBuf>>, from: &Path) -> BTreeSet<PathBuf> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_owned()];
    while let Some(node) = todo.pop() {
        for next in graph.get(&node).into_iter().flatten() {
            if seen.insert(next.clone()) {
                todo.push(next.clone());
            }
        }
    }
    seen
}

/// The first loop of the tree at `root`, and every file caught in a loop with its files,
/// shown relative to `base`.
fn loop_at(root: &Path, sources: &dyn Fn(&Path) -> Option<String>, base: &Path) -> Option<String> {
    let graph = tree(root, sources).graph();
    let cycle = find_cycle(&graph)?;
    let show = |f: &PathBuf| f.strip_prefix(base).unwrap_or(f).display().to_string();
    let shown: Vec<String> = cycle.iter().map(show).collect();
    let first = &cycle[0];
    let from_first = reach(&graph, first);
    let caught: Vec<String> = from_first
        .iter()
        .filter(|f| reach(&graph, f).contains(first))
        .map(show)
        .collect();
    Some(format!(
        "{} (files in this knot: {})",
        shown.join(" → "),
        caught.join(", ")
    ))
}

#[test]
fn no_file_imports_a_file_that_imports_it_back() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut loops = Vec::new();
    let mut files = 0;
    for krate in CRATES {
        let krate = here.join(krate);
        let roots = roots(&krate);
        assert!(!roots.is_empty(), "{} has a root", krate.display());
        for root in roots {
            files += tree(&root, &read).modules.len();
            if let Some(shown) = loop_at(&root, &read, &krate) {
                loops.push(format!("{}: {shown}", krate.display()));
            }
        }
    }
    assert!(
        files > 200,
        "the check found the workspace's modules ({files})"
    );
    assert!(loops.is_empty(), "import loops:\n{}", loops.join("\n"));
}

/// Files held in memory, for the checks of the check.
fn in_memory(files: &[(&str, &str)]) -> impl Fn(&Path) -> Option<String> + use<> {
    let files: BTreeMap<PathBuf, String> = files
        .iter()
        .map(|(p, t)| (PathBuf::from(p), (*t).to_owned()))
        .collect();
    move |p: &Path| files.get(p).cloned()
}

#[test]
fn the_check_finds_a_loop_of_use_lines() {
    let lib = Path::new("/c/src/lib.rs");
    let base = Path::new("/c");
    let fine = in_memory(&[
        ("/c/src/lib.rs", "mod a;\nmod room;\n"),
        ("/c/src/a.rs", "use crate::room::Thing;\npub fn g() {}\n"),
        ("/c/src/room/mod.rs", "mod b;\npub struct Thing;\n"),
        (
            "/c/src/room/b.rs",
            "use super::Thing;\nfn f() { crate::a::g() }\n",
        ),
    ]);
    assert_eq!(loop_at(lib, &fine, base), None, "a → room, b → room, b → a");
    let looped = in_memory(&[
        ("/c/src/lib.rs", "mod a;\nmod room;\n"),
        ("/c/src/a.rs", "use crate::room::Thing;\npub fn g() {}\n"),
        (
            "/c/src/room/mod.rs",
            "mod b;\npub struct Thing;\nuse crate::a::g;\n",
        ),
        (
            "/c/src/room/b.rs",
            "use super::Thing;\nfn f() { crate::a::g() }\n",
        ),
    ]);
    let shown = loop_at(lib, &looped, base).expect("room → a → room");
    assert!(
        shown.contains("src/a.rs") && shown.contains("src/room/mod.rs"),
        "{shown}"
    );
}

/// The store's old shape: the writer names each noun inline (`super::owners::apply(..)`),
/// each noun takes the write vocabulary from the writer, in a nested use tree or as an inline
/// `crate::` path, and the parent re-exports. The old check (top-level `use super::` lines
/// only) saw none of these.
#[test]
fn the_check_finds_a_loop_of_inline_paths() {
    let lib = Path::new("/c/src/lib.rs");
    let base = Path::new("/c");
    let store = |owners: &'static str| {
        in_memory(&[
            ("/c/src/lib.rs", "pub mod store;\n"),
            (
                "/c/src/store/mod.rs",
                "mod owners;\nmod writer;\npub use owners::OwnerRecord;\npub struct Core;\n",
            ),
            (
                "/c/src/store/writer.rs",
                "pub enum Op { Add }\nfn apply(op: &Op) {\n    // super::nothing::here()\n    \
                 let _ = \"super::owners::no\";\n    if let Some(o) = super::owners::apply(op) {}\n}\n",
            ),
            ("/c/src/store/owners.rs", owners),
        ])
    };
    // The noun names nothing of the writer: no loop.
    let fine = store("pub struct OwnerRecord;\npub fn apply(_: &()) -> Option<()> { None }\n");
    assert_eq!(loop_at(lib, &fine, base), None);
    for owners in [
        // A nested use tree.
        "use super::{Core, writer::{Op}};\npub struct OwnerRecord;\n",
        // An inline path from the crate's root.
        "pub struct OwnerRecord;\npub fn apply(op: &crate::store::writer::Op) {}\n",
        // Through the parent's re-export.
        "pub struct OwnerRecord;\nfn f() -> super::Op { todo!() }\n",
        // A `use` inside a function.
        "pub struct OwnerRecord;\nfn f() {\n    use super::writer::Op;\n}\n",
    ] {
        let old = store(owners);
        let with_reexport = |p: &Path| {
            old(p).map(|t| {
                if p.ends_with("store/mod.rs") {
                    t + "pub use writer::Op;\n"
                } else {
                    t
                }
            })
        };
        let shown = loop_at(lib, &with_reexport, base)
            .unwrap_or_else(|| panic!("a loop through {owners:?}"));
        assert!(
            shown.contains("store/writer.rs") && shown.contains("store/owners.rs"),
            "{shown}"
        );
    }
}

#[test]
fn comments_strings_and_inline_test_modules_are_no_edges() {
    let lib = Path::new("/c/src/lib.rs");
    let files = in_memory(&[
        ("/c/src/lib.rs", "mod a;\nmod b;\n"),
        ("/c/src/a.rs", "pub fn f() { crate::b::g() }\n"),
        (
            "/c/src/b.rs",
            "pub fn g() {}\n/* crate::a::f() /* nested */ crate::a::f() */\n\
             const S: &str = r#\"crate::a::f()\"#;\nconst C: char = '\"';\n\
             fn h<'a>(x: &'a str) -> &'a str { x }\n\
             #[cfg(test)]\nmod tests {\n    use super::g;\n    fn t() { super::g() }\n}\n",
        ),
    ]);
    assert_eq!(loop_at(lib, &files, Path::new("/c")), None);
}
