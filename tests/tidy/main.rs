//! Tidy tests: the architecture invariants of `docs/architecture.md`, checked on the sources.
//!
//! They read the workspace's files as text (no build of anything) and fail with a list of
//! every violation:
//! - the harness's stages import only stages of a lower layer (the layers are read from the
//!   `layer N: …` lines of `docs/architecture.md`, so the document and the code cannot drift);
//! - no import loop between the harness's files, nor between the strong engine's files but for
//!   the search's own recursion (`search` ↔ `parallel`, named in the document);
//! - the strong engine's modules import only from lower layers of the list in its crate docs
//!   (`layer N: …` lines of `engines/strong/src/lib.rs`), but for that loop;
//! - `unsafe` only in the files the document lists, each block or impl under a `SAFETY:`
//!   comment;
//! - every workspace member inherits `rust-version` from the workspace;
//! - the limits (`limits`): code lines per source file, and timed waits only where the
//!   document lists them.
//!
//! An import is a `use crate::…` item or an inline `crate::…` / `super::…` path. A module's use
//! of its own sub-modules (a `mod.rs` calling or re-exporting its parts) is containment, not a
//! dependency; a part importing its parent, or two modules importing each other, are.

mod limits;
mod os_seam;
mod run_files;
mod wording;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ is inside the workspace")
        .to_path_buf()
}

fn architecture_doc() -> String {
    std::fs::read_to_string(workspace().join("docs/architecture.md"))
        .expect("docs/architecture.md exists")
}

/// Every `.rs` file below `dir` (or `dir` itself, a file), sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    if dir.is_file() {
        return vec![dir.to_path_buf()];
    }
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target") {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The text with comments and the contents of string and char literals blanked out, so that
/// paths and keywords are found only in code.
fn code_only(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            let end = rest.find('\n').unwrap_or(rest.len());
            i += end;
        } else if rest.starts_with("/*") {
            let end = rest.find("*/").map_or(rest.len(), |e| e + 2);
            out.extend(rest[..end].chars().filter(|&c| c == '\n'));
            i += end;
        } else if rest.starts_with("r#\"") || rest.starts_with("r\"") {
            let hashes = rest[1..].chars().take_while(|&c| c == '#').count();
            let close = format!("\"{}", "#".repeat(hashes));
            let body = 2 + hashes;
            let end = rest[body..]
                .find(&close)
                .map_or(rest.len(), |e| body + e + close.len());
            out.push_str("\"\"");
            out.extend(rest[..end].chars().filter(|&c| c == '\n'));
            i += end;
        } else if rest.starts_with('"') {
            let mut j = 1;
            let b = rest.as_bytes();
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            out.push_str("\"\"");
            out.extend(rest[..j.min(rest.len())].chars().filter(|&c| c == '\n'));
            i += (j + 1).min(rest.len());
        } else if rest.starts_with("'")
            && rest.len() > 3
            && (rest.as_bytes()[2] == b'\''
                || (rest.as_bytes()[1] == b'\\' && rest[2..].contains('\'')))
        {
            // A char literal ('x' or '\n'); lifetimes ('a) are left alone.
            let end = if rest.as_bytes()[1] == b'\\' {
                rest[2..].find('\'').map_or(rest.len(), |e| e + 3)
            } else {
                3
            };
            out.push_str("' '");
            i += end;
        } else {
            let c = rest.chars().next().expect("not at the end");
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The module path of a source file below a crate's `src`: `lib.rs` / `main.rs` are the root
/// (empty), `a/mod.rs` is `a`, `a/b.rs` is `a::b`. Files of binaries below `src/bin` get their
/// own root `bin::…` and are left out by the callers.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).expect("file below src");
    let mut parts: Vec<String> = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The inline modules (`mod tests { … }`) of a file's code: name and byte range of the body.
fn inline_modules(code: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("mod ") {
        let start = from + at;
        from = start + 4;
        if start > 0 {
            let c = code.as_bytes()[start - 1];
            if c.is_ascii_alphanumeric() || c == b'_' {
                continue;
            }
        }
        let after = &code[start + 4..];
        let name: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let rest = after[name.len()..].trim_start();
        if name.is_empty() || !rest.starts_with('{') {
            continue;
        }
        let open = start + 4 + after.len() - rest.len();
        let mut depth = 0;
        let mut close = code.len();
        for (i, b) in code.bytes().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = i;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.push((name, open..close));
    }
    out
}

/// The module a position of a file's code is in: the file's module and the inline modules
/// around the position.
fn scope_at(
    module: &[String],
    inline: &[(String, std::ops::Range<usize>)],
    at: usize,
) -> Vec<String> {
    let mut scope = module.to_vec();
    scope.extend(
        inline
            .iter()
            .filter(|(_, body)| body.contains(&at))
            .map(|(name, _)| name.clone()),
    );
    scope
}

/// Where a file's paths lead: the module path of its crate's root (`crate::…`), and the names
/// of the other crates it may name (`harness_core::…`) with the module path of each one's root.
struct Roots<'a> {
    own: &'a [String],
    others: &'a [(&'a str, Vec<String>)],
}

/// Every path a file names from its crate's root: `use crate::{a::b, c}` gives `a::b` and `c`;
/// `super::x` is resolved against the module it is written in; a path through another crate of
/// `roots` continues from that crate's root.
fn imported_paths(code: &str, module: &[String], roots: &Roots) -> Vec<Vec<String>> {
    let inline = inline_modules(code);
    let mut paths = Vec::new();
    // `use` items, with their braces expanded.
    let mut from = 0;
    while let Some(at) = code[from..].find("use ") {
        let start = from + at;
        let b = code.as_bytes();
        let before_ok =
            start == 0 || !(b[start - 1].is_ascii_alphanumeric() || b[start - 1] == b'_');
        let tail = &code[start + 4..];
        let end = tail.find(';').unwrap_or(tail.len());
        if before_ok {
            let tree: String = without_aliases(&tail[..end])
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            let scope = scope_at(module, &inline, start);
            for p in expand_use_tree(&tree) {
                if let Some(resolved) = resolve(&p, &scope, roots).filter(|p| !p.is_empty()) {
                    paths.push(resolved);
                }
            }
        }
        from = start + 4 + end;
    }
    // Inline paths: `crate::a::b`, `super::x` and `other_crate::y` anywhere in the code.
    let prefixes: Vec<String> = ["crate", "super"]
        .into_iter()
        .chain(roots.others.iter().map(|(name, _)| *name))
        .map(|name| format!("{name}::"))
        .collect();
    for prefix in &prefixes {
        let mut from = 0;
        while let Some(at) = code[from..].find(prefix) {
            let start = from + at;
            from = start + prefix.len();
            if start > 0 {
                let c = code.as_bytes()[start - 1];
                if c.is_ascii_alphanumeric() || c == b'_' || c == b':' {
                    continue;
                }
            }
            let path: String = code[start..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            let segments: Vec<String> = path
                .split("::")
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            // `crate::{…}` is a use tree, read above; the root itself is no dependency.
            let scope = scope_at(module, &inline, start);
            if let Some(resolved) = resolve(&segments, &scope, roots).filter(|p| !p.is_empty()) {
                paths.push(resolved);
            }
        }
    }
    paths
}

/// A use tree without its renamings: `a::{b as c, d}` -> `a::{b, d}`.
fn without_aliases(tree: &str) -> String {
    let mut out = String::new();
    let mut words = tree.split_whitespace();
    while let Some(word) = words.next() {
        if word == "as" {
            // Drop the new name, keep the punctuation after it.
            if let Some(alias) = words.next() {
                out.extend(alias.chars().filter(|c| matches!(c, ',' | '}' | '{')));
            }
            continue;
        }
        out.push(' ');
        out.push_str(word);
    }
    out
}

/// `a::{b, c::{d, e}}` -> `a::b`, `a::c::d`, `a::c::e` (whitespace already removed).
fn expand_use_tree(tree: &str) -> Vec<Vec<String>> {
    let tree = tree
        .trim_start_matches("pub(crate)")
        .trim_start_matches("pub");
    let Some(open) = tree.find('{') else {
        let path: Vec<String> = tree
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        return vec![path];
    };
    let prefix: Vec<String> = tree[..open]
        .split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    let bytes = inner.as_bytes();
    for i in 0..=bytes.len() {
        let at_end = i == bytes.len();
        if !at_end {
            match bytes[i] {
                b'{' => depth += 1,
                b'}' => depth -= 1,
                _ => {}
            }
        }
        if at_end || (bytes[i] == b',' && depth == 0) {
            let item = &inner[start..i];
            start = i + 1;
            if item.is_empty() {
                continue;
            }
            for mut p in expand_use_tree(item) {
                if p.first().is_some_and(|s| s == "self") {
                    p.remove(0);
                }
                let mut full = prefix.clone();
                full.append(&mut p);
                out.push(full);
            }
        }
    }
    out
}

/// A module path, for paths starting with `crate`, `super` or another crate of `roots`
/// (others: `None`).
fn resolve(path: &[String], module: &[String], roots: &Roots) -> Option<Vec<String>> {
    let rooted = |root: &[String]| {
        let mut p = root.to_vec();
        p.extend(path[1..].iter().cloned());
        p
    };
    match path.first().map(String::as_str) {
        Some("crate") => Some(rooted(roots.own)),
        Some(name) if roots.others.iter().any(|(n, _)| *n == name) => {
            let (_, root) = roots.others.iter().find(|(n, _)| *n == name)?;
            Some(rooted(root))
        }
        Some("super") => {
            let mut base = module.to_vec();
            let mut rest = path;
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = &rest[1..];
            }
            base.extend(rest.iter().cloned());
            Some(base)
        }
        _ => None,
    }
}

/// The import graph of a crate's files: module -> modules it depends on. A path names the
/// longest module that is a prefix of it; uses of a module's own descendants are left out.
fn module_graph(src: &Path, skip: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let one = Crate {
        src: src.to_path_buf(),
        root: Vec::new(),
        name: "",
    };
    crates_graph(&[one], skip)
}

/// A crate of a graph: its source folder, the module path its root is in the graph, and the
/// name other crates import it by.
struct Crate {
    src: PathBuf,
    root: Vec<String>,
    name: &'static str,
}

/// The harness's crates as one tree of stages: the program (`harness/src`, its root the stages'
/// root), `harness-core` (its modules are stages at the root: `record`, `plan`, …) and
/// `harness-ledger` (its root is the stage `ledger`).
fn harness_crates() -> Vec<Crate> {
    let root = workspace();
    vec![
        Crate {
            src: root.join("harness/src"),
            root: Vec::new(),
            name: "harness",
        },
        Crate {
            src: root.join("harness/core/src"),
            root: Vec::new(),
            name: "harness_core",
        },
        Crate {
            src: root.join("harness/ledger/src"),
            root: vec!["ledger".to_string()],
            name: "harness_ledger",
        },
    ]
}

/// The import graph of the files of several crates (see [`module_graph`]), a path through
/// another crate of the list read from that crate's root.
fn crates_graph(crates: &[Crate], skip: &[&str]) -> BTreeMap<String, BTreeSet<String>> {
    let mut files: Vec<(PathBuf, Vec<String>, usize)> = Vec::new();
    for (i, c) in crates.iter().enumerate() {
        for f in rust_files(&c.src) {
            let rel = f
                .strip_prefix(&c.src)
                .unwrap()
                .to_string_lossy()
                .to_string();
            if !skip.iter().any(|s| rel.starts_with(s)) {
                let mut module = c.root.clone();
                module.extend(module_of(&c.src, &f));
                files.push((f, module, i));
            }
        }
    }
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(_, m, _)| m.clone()).collect();
    let mut graph = BTreeMap::new();
    for (file, module, i) in &files {
        let others: Vec<(&str, Vec<String>)> = crates
            .iter()
            .enumerate()
            .filter(|(j, c)| j != i && !c.name.is_empty())
            .map(|(_, c)| (c.name, c.root.clone()))
            .collect();
        let roots = Roots {
            own: &crates[*i].root,
            others: &others,
        };
        let module = module.clone();
        let text = std::fs::read_to_string(file).expect("readable source");
        let mut deps = BTreeSet::new();
        for path in imported_paths(&code_only(&text), &module, &roots) {
            let target = (0..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|p| modules.contains(p))
                .unwrap_or_default();
            let is_descendant_or_self =
                target.len() >= module.len() && target[..module.len()] == module[..];
            if !is_descendant_or_self {
                deps.insert(target.join("::"));
            }
        }
        graph.insert(module.join("::"), deps);
    }
    graph
}

/// The import cycles of a graph, each as its sorted set of modules (Tarjan's strongly connected
/// components of more than one module).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        out: Vec<BTreeSet<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.graph.contains_key(w) {
                    continue;
                }
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut component = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    component.insert(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.out.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v.as_str()) {
            walk.visit(v);
        }
    }
    walk.out
}

/// The harness's layers from the document: `layer 0: record search` -> stage -> 0.
fn layers(doc: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for line in doc.lines() {
        let Some(rest) = line.trim().strip_prefix("layer ") else {
            continue;
        };
        let Some((n, stages)) = rest.split_once(':') else {
            continue;
        };
        let Ok(n) = n.trim().parse::<usize>() else {
            continue;
        };
        for stage in stages.split_whitespace() {
            out.insert(stage.to_string(), n);
        }
    }
    out
}

/// The stage table's rows: stage -> the module names its Modules cell lists outside
/// parentheses (what is inside them describes a module, or names its parts).
fn stage_table(doc: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out = BTreeMap::new();
    for (stage, cell) in stage_cells(doc) {
        let (mut depth, mut outside) = (0, String::new());
        for c in cell.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ if depth == 0 => outside.push(c),
                _ => {}
            }
        }
        let names = outside
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect();
        out.insert(stage, names);
    }
    out
}

/// The stage table's Modules cells, whole: stage -> the text of its cell.
fn stage_cells(doc: &str) -> BTreeMap<String, String> {
    let start = doc.find("| Stage | Modules |").expect("the stage table");
    doc[start..]
        .lines()
        .skip(2)
        .take_while(|line| line.starts_with("| `"))
        .map(|line| {
            let cells: Vec<&str> = line.split(" | ").collect();
            let stage = cells[0].trim_start_matches("| ").trim_matches('`');
            (stage.to_string(), cells[1].to_string())
        })
        .collect()
}

/// The files the document allows `unsafe` in: the lines of its `unsafe in:` block.
fn unsafe_allowed(doc: &str) -> BTreeSet<String> {
    listed_files(doc, "unsafe in:")
}

/// `file`'s path from the workspace root, with `/` separators (as the document lists files).
fn relative(root: &Path, file: &Path) -> String {
    file.strip_prefix(root)
        .expect("a file of the workspace")
        .to_string_lossy()
        .replace('\\', "/")
}

/// The lines of the document's block that begins with the line `heading`.
fn listed_files(doc: &str, heading: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut inside = false;
    for line in doc.lines() {
        let line = line.trim();
        if line == heading {
            inside = true;
        } else if inside && (line.is_empty() || line.starts_with("```")) {
            break;
        } else if inside {
            out.insert(line.to_string());
        }
    }
    out
}

/// Layering violations of a harness import graph: `from -> to` where `to`'s stage is not on a
/// lower layer than `from`'s.
fn layering_violations(
    graph: &BTreeMap<String, BTreeSet<String>>,
    layers: &BTreeMap<String, usize>,
) -> Vec<String> {
    let stage = |m: &str| m.split("::").next().unwrap_or("").to_string();
    let mut out = Vec::new();
    for (from, deps) in graph {
        let Some(&from_layer) = layers.get(&stage(from)) else {
            if !from.is_empty() {
                out.push(format!("{from}: not in any layer of docs/architecture.md"));
            }
            continue;
        };
        for to in deps {
            if stage(to) == stage(from) {
                continue;
            }
            match layers.get(&stage(to)) {
                Some(&l) if l < from_layer => {}
                Some(&l) => out.push(format!(
                    "{from} (layer {from_layer}) imports {to} (layer {l}): imports go down"
                )),
                None => out.push(format!("{from} imports {to}, which is in no layer")),
            }
        }
    }
    out
}

/// The program's `crate::X` paths each lead to a module of its own folder (`harness/src/X.rs`
/// or `harness/src/X/`): the stages of the lower crates are named by their crates
/// (`harness_core::record`, `harness_ledger`), never re-exported under a program path that
/// matches no folder.
#[test]
fn program_paths_match_its_folders() {
    let src = workspace().join("harness/src");
    let mut found = BTreeSet::new();
    for file in rust_files(&src) {
        let text = std::fs::read_to_string(&file).expect("a source file");
        let rel = relative(&workspace(), &file);
        for (n, line) in text.lines().enumerate() {
            // A lower crate, or one of its stages, re-exported whole (a type may be).
            if let Some(path) = line.trim_start().strip_prefix("pub use ") {
                let path = path.split([';', ' ']).next().unwrap_or_default();
                let segments: Vec<&str> = path.split("::").collect();
                let whole = matches!(segments[..], ["harness_ledger"] | ["harness_core", _]);
                if whole && segments[0].starts_with("harness_") {
                    found.insert(format!("{rel}:{}: {}", n + 1, line.trim()));
                }
            }
            for (at, _) in line.match_indices("crate::") {
                let name: String = line[at + "crate::".len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                let module = src.join(format!("{name}.rs")).is_file() || src.join(&name).is_dir();
                let before = line[..at].chars().next_back();
                let own_path = !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
                if own_path && !name.is_empty() && !module {
                    found.insert(format!("{rel}:{}: crate::{name}", n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "paths of the program that match no folder of harness/src:\n{}",
        found.into_iter().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn harness_stages_import_only_lower_layers() {
    let layers = layers(&architecture_doc());
    assert!(
        layers.len() >= 8,
        "the layer lines of docs/architecture.md: {layers:?}"
    );
    let graph = crates_graph(&harness_crates(), &["main.rs"]);
    let violations = layering_violations(&graph, &layers);
    assert!(violations.is_empty(), "{}", violations.join("\n"));
}

#[test]
fn no_import_loops_in_the_harness() {
    let graph = crates_graph(&harness_crates(), &["main.rs"]);
    let loops = cycles(&graph);
    assert!(loops.is_empty(), "import loops: {loops:?}");
}

#[test]
fn the_strong_engine_has_no_loop_but_the_search_recursion() {
    let graph = module_graph(&workspace().join("engines/strong/src"), &["bin/"]);
    let allowed: BTreeSet<String> = ["search", "parallel"].map(String::from).into();
    let loops = cycles(&graph);
    let bad: Vec<&BTreeSet<String>> = loops.iter().filter(|c| **c != allowed).collect();
    assert!(
        bad.is_empty(),
        "import loops besides search <-> parallel: {bad:?}"
    );
}

/// Every module of a stage folder is in the stage table, and every module the table names is
/// there (a stage that is one file, `search_terms.rs`, lists its types instead). A module below a
/// stage's top level (`plan/config/raw.rs`, `show/tui/view/board.rs`) is named in its stage's
/// row too, in the parentheses that describe its parent.
#[test]
fn the_stage_table_names_every_module() {
    let doc = architecture_doc();
    let cells = stage_cells(&doc);
    let crates = harness_crates();
    let mut wrong = Vec::new();
    for (stage, listed) in stage_table(&doc) {
        // The stage's folder: a crate whose root is the stage, or a folder of a crate whose
        // root is the stages' root; a stage that is one file has none.
        let folder = crates.iter().find_map(|c| {
            if c.root == [stage.clone()] {
                Some((c.src.clone(), c.src.clone(), c.root.clone()))
            } else if c.root.is_empty() && c.src.join(&stage).is_dir() {
                Some((c.src.join(&stage), c.src.clone(), Vec::new()))
            } else {
                None
            }
        });
        let Some((dir, src, root)) = folder else {
            assert!(
                crates
                    .iter()
                    .any(|c| c.root.is_empty() && c.src.join(format!("{stage}.rs")).exists()),
                "stage `{stage}` has no file"
            );
            continue;
        };
        let mut on_disk = BTreeSet::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            let module = name.strip_suffix(".rs").unwrap_or(&name).to_string();
            if !["mod", "lib", "tests"].contains(&module.as_str()) {
                on_disk.insert(module);
            }
        }
        // The stage's own `mod.rs` may be listed under the stage's name.
        let listed: BTreeSet<String> = listed.into_iter().filter(|m| *m != stage).collect();
        for m in on_disk.difference(&listed) {
            let dir = relative(&workspace(), &dir);
            wrong.push(format!("{dir}/{m}: not in the stage table"));
        }
        for m in listed.difference(&on_disk) {
            wrong.push(format!("`{stage}` lists `{m}`, which has no file"));
        }
        for file in rust_files(&dir) {
            let mut module = root.clone();
            module.extend(module_of(&src, &file));
            let name = module.last().expect("a file below a stage folder");
            if module.len() > 2 && name != "tests" && !cells[&stage].contains(&format!("`{name}`"))
            {
                let file = relative(&workspace(), &file);
                wrong.push(format!("{file}: not in the row of `{stage}`"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "docs/architecture.md disagrees with the files: {wrong:#?}"
    );
}

/// The strong engine's modules import only from lower layers of the list in its crate docs
/// (the `layer N: …` lines of `engines/strong/src/lib.rs`; `crate` is the crate root), but
/// for the one import loop those docs name (`loop: a b`). A module is in the layer of the
/// longest listed path it is or lies in (`pattern::eval` in `pattern`'s); parts of one listed
/// module may import each other.
#[test]
fn the_strong_engine_imports_follow_its_crate_docs_layers() {
    let src = workspace().join("engines/strong/src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).expect("engines/strong/src/lib.rs");
    let docs: String = lib
        .lines()
        .filter_map(|l| l.trim().strip_prefix("//!"))
        .map(|l| format!("{}\n", l.trim()))
        .collect();
    let layers = layers(&docs);
    let allowed_loop: BTreeSet<String> = docs
        .lines()
        .find_map(|l| l.strip_prefix("loop:"))
        .map(|m| m.split_whitespace().map(String::from).collect())
        .unwrap_or_default();
    assert!(
        layers.len() >= 15 && allowed_loop.len() == 2,
        "the layer and loop lines of the strong engine's crate docs: {layers:?}, {allowed_loop:?}"
    );
    let layer_of = |module: &str| -> Option<(String, usize)> {
        let name = if module.is_empty() { "crate" } else { module };
        let segments: Vec<&str> = name.split("::").collect();
        (1..=segments.len()).rev().find_map(|n| {
            let listed = segments[..n].join("::");
            layers.get(&listed).map(|&l| (listed, l))
        })
    };
    let mut problems = Vec::new();
    for (from, deps) in module_graph(&src, &["bin/"]) {
        let Some((from_listed, from_layer)) = layer_of(&from) else {
            problems.push(format!("{from}: in no layer of the crate docs"));
            continue;
        };
        for to in deps {
            match layer_of(&to) {
                None => problems.push(format!("{from} imports {to}, which is in no layer")),
                Some((to_listed, l)) if l < from_layer || to_listed == from_listed => {}
                Some((to_listed, _))
                    if allowed_loop.contains(&from_listed) && allowed_loop.contains(&to_listed) => {
                }
                Some((_, l)) => problems.push(format!(
                    "{from} (layer {from_layer}) imports {to} (layer {l}): imports go down"
                )),
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn unsafe_only_where_the_document_allows_it() {
    let allowed = unsafe_allowed(&architecture_doc());
    assert!(
        !allowed.is_empty(),
        "docs/architecture.md has no `unsafe in:` block"
    );
    let root = workspace();
    let mut problems = Vec::new();
    let mut with_unsafe = BTreeSet::new();
    for dir in ["harness", "engines", "tests"] {
        for file in rust_files(&root.join(dir)) {
            let rel = relative(&root, &file);
            let text = std::fs::read_to_string(&file).expect("readable source");
            let code = code_only(&text);
            let code_lines: Vec<&str> = code.lines().collect();
            let text_lines: Vec<&str> = text.lines().collect();
            for (n, line) in code_lines.iter().enumerate() {
                let has_unsafe = line
                    .split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                    .any(|w| w == "unsafe");
                if !has_unsafe {
                    continue;
                }
                with_unsafe.insert(rel.clone());
                if !allowed.contains(&rel) {
                    problems.push(format!(
                        "{rel}:{}: `unsafe` outside the allowed files",
                        n + 1
                    ));
                    continue;
                }
                // A block or impl must say why it is sound, just above it.
                let opens = line.contains("unsafe {") || line.contains("unsafe impl");
                let explained = text_lines[n.saturating_sub(8)..=n]
                    .iter()
                    .any(|l| l.contains("SAFETY"));
                if opens && !explained {
                    problems.push(format!(
                        "{rel}:{}: `unsafe` without a SAFETY comment",
                        n + 1
                    ));
                }
            }
        }
    }
    // The list is the places `unsafe` lives: a file listed without any is a stale line.
    for listed in allowed.difference(&with_unsafe) {
        problems.push(format!(
            "{listed}: listed in `unsafe in:` but has no `unsafe`"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_member_inherits_the_rust_version() {
    let root = workspace();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("workspace manifest");
    let members_block = manifest
        .split("members = [")
        .nth(1)
        .and_then(|m| m.split(']').next())
        .expect("a members list");
    let members: Vec<&str> = members_block
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .collect();
    assert!(members.len() >= 10, "members: {members:?}");
    let missing: Vec<&str> = members
        .iter()
        .copied()
        .filter(|m| {
            let text = std::fs::read_to_string(root.join(m).join("Cargo.toml")).unwrap_or_default();
            !text
                .lines()
                .any(|l| l.trim() == "rust-version.workspace = true")
        })
        .collect();
    assert!(
        missing.is_empty(),
        "without rust-version.workspace = true: {missing:?}"
    );
}

/// The checker itself: a loop, an upward import and a `super` path are found in a small tree.
#[test]
fn the_checks_find_what_they_look_for() {
    let dir = std::env::temp_dir().join(format!("tidy-selftest-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let write = |rel: &str, text: &str| {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod record; pub mod show; pub mod play;");
    write(
        "record/mod.rs",
        "pub mod journal; pub mod ggf; pub use journal::Journal;",
    );
    write(
        "record/journal.rs",
        "use super::ggf::write; // crate::play::nothing\npub struct Journal;",
    );
    write(
        "record/ggf.rs",
        "use crate::record::{journal::Journal, self};\nconst S: &str = \"crate::play\";",
    );
    write(
        "show/mod.rs",
        "fn f() { let _ = crate::play::run(); }\nmod tests { use super::*; use super::super::record::ggf; }",
    );
    write(
        "play/mod.rs",
        "use crate::{record::Journal as J, show};\nuse crate::record::ggf as g;",
    );
    let graph = module_graph(&dir, &[]);
    assert_eq!(
        graph["record::ggf"],
        ["record", "record::journal"].map(String::from).into()
    );
    assert!(
        graph["record"].is_empty(),
        "containment is not a dependency"
    );
    assert_eq!(
        graph["show"],
        ["play", "record::ggf"].map(String::from).into(),
        "super:: inside an inline module"
    );
    assert_eq!(
        graph["play"],
        ["record", "record::ggf", "show"].map(String::from).into()
    );
    let loops = cycles(&graph);
    assert!(loops.contains(&["record::ggf", "record::journal"].map(String::from).into()));
    assert!(loops.contains(&["play", "show"].map(String::from).into()));
    let layers: BTreeMap<String, usize> = [("record", 0), ("play", 1), ("show", 1)]
        .map(|(s, l)| (s.to_string(), l))
        .into();
    let violations = layering_violations(&graph, &layers);
    assert_eq!(violations.len(), 2, "{violations:?}");
    // Across crates: a crate whose root is the stage `ledger` imports the core crate's stages
    // by its name, and the core crate's `crate::` paths stay its own.
    write("core/lib.rs", "pub mod record; pub mod play;");
    write("core/record.rs", "use crate::play::x;");
    write("core/play.rs", "");
    write(
        "ledger/lib.rs",
        "pub mod store; use harness_core::record::Journal;",
    );
    write(
        "ledger/store.rs",
        "fn f() { harness_core::play::go(); crate::x(); super::y(); }",
    );
    let crates = [
        Crate {
            src: dir.join("core"),
            root: Vec::new(),
            name: "harness_core",
        },
        Crate {
            src: dir.join("ledger"),
            root: vec!["ledger".to_string()],
            name: "harness_ledger",
        },
    ];
    let graph = crates_graph(&crates, &[]);
    assert_eq!(graph["record"], ["play"].map(String::from).into());
    assert_eq!(graph["ledger"], ["record"].map(String::from).into());
    assert_eq!(
        graph["ledger::store"],
        ["ledger", "play"].map(String::from).into()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
