//! The limits of `docs/architecture.md` ("Limits"), checked on the sources: the code lines of
//! a source file, and the timed waits of the crates that host engines and serve runs.
//!
//! A code line is a line of a file before its tests (the first line that reads `#[cfg(test)]`)
//! that is neither blank nor a comment (`//`, `///`, `//!`). Files that are tests themselves
//! (`tests.rs`, anything below a `tests` folder) are not counted. Scope: the harness's crates
//! (`harness/src`, `harness/core/src`, `harness/ledger/src`) and every `engines/*/src`.
//!
//! A timed wait is a fixed pause or a polling interval: a `sleep` (not `sleep_until`, which is
//! a deadline), a `park_timeout`, tokio's `interval`, and a `recv_timeout` or `wait_timeout`
//! that a loop repeats. A `recv_timeout` / `wait_timeout` outside a loop, or whose timeout is a
//! deadline's remainder (`saturating_duration_since`, `deadline`) or a named bound (`…_TIMEOUT`,
//! `…_GRACE`), bounds the wait for one event and is not a timed wait.

use crate::{architecture_doc, code_only, listed_files, relative, rust_files, workspace};

/// The most code lines a source file may hold before its tests.
const MAX_CODE_LINES: usize = 800;

/// The text of a file before its tests: up to the first line that reads `#[cfg(test)]`.
pub(crate) fn before_tests(text: &str) -> &str {
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        if line.trim() == "#[cfg(test)]" {
            return &text[..at];
        }
        at += line.len();
    }
    text
}

/// The code lines of a file's text (see the module docs).
fn code_lines(text: &str) -> usize {
    let mut in_block_comment = false;
    before_tests(text)
        .lines()
        .map(str::trim)
        .filter(|l| {
            if in_block_comment {
                in_block_comment = !l.contains("*/");
                return false;
            }
            if l.starts_with("/*") {
                in_block_comment = !l.contains("*/");
                return false;
            }
            !l.is_empty() && !l.starts_with("//")
        })
        .count()
}

fn is_test_file(rel: &str) -> bool {
    rel.ends_with("/tests.rs") || rel.contains("/tests/")
}

/// Every source file of the harness's crates and the engines.
fn source_files() -> Vec<std::path::PathBuf> {
    let root = workspace();
    let mut dirs = vec![
        root.join("harness/src"),
        root.join("harness/core/src"),
        root.join("harness/ledger/src"),
    ];
    let engines = std::fs::read_dir(root.join("engines")).expect("engines/");
    for entry in engines {
        let src = entry.expect("an entry of engines/").path().join("src");
        if src.is_dir() {
            dirs.push(src);
        }
    }
    dirs.sort();
    dirs.iter().flat_map(|d| rust_files(d)).collect()
}

#[test]
fn no_source_file_holds_more_than_800_code_lines() {
    let root = workspace();
    let mut problems = Vec::new();
    for file in source_files() {
        let rel = relative(&root, &file);
        if is_test_file(&rel) {
            continue;
        }
        let n = code_lines(&std::fs::read_to_string(&file).expect("readable source"));
        if n > MAX_CODE_LINES {
            problems.push(format!(
                "{rel}: {n} code lines before its tests (at most {MAX_CODE_LINES}): split it by concept"
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Whether the code before `at` puts it inside a loop of its function: in a `while` or `for`
/// header, or in a block opened by `loop`, `while` or `for`. The walk stops at the function.
fn in_a_loop(code: &str, at: usize) -> bool {
    let header = |end: usize| -> &str {
        let start = code[..end].rfind([';', '{', '}']).map_or(0, |i| i + 1);
        code[start..end].trim()
    };
    let starts_a_loop = |h: &str| {
        let h = match h.strip_prefix('\'') {
            // A labelled loop: `'outer: loop`.
            Some(rest) => rest.split_once(':').map_or(h, |(_, r)| r.trim()),
            None => h,
        };
        // `loop`, a loop whose value is kept (`let found = loop`), `while …`, `for …`.
        let last_word = h.rsplit([' ', '=', '(']).next().unwrap_or(h);
        last_word == "loop" || h.starts_with("while ") || h.starts_with("for ")
    };
    if starts_a_loop(header(at)) {
        return true;
    }
    let bytes = code.as_bytes();
    let mut depth = 0usize;
    let mut i = at;
    while i > 0 {
        i -= 1;
        match bytes[i] {
            b'}' => depth += 1,
            b'{' if depth > 0 => depth -= 1,
            b'{' => {
                let h = header(i);
                if starts_a_loop(h) {
                    return true;
                }
                if h.contains("fn ") {
                    return false;
                }
            }
            _ => {}
        }
    }
    false
}

/// The text of a call's arguments, from just after its `(` to the matching `)`.
fn arguments(code: &str, open: usize) -> &str {
    let mut depth = 0usize;
    for (i, b) in code[open..].bytes().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' if depth == 1 => return &code[open + 1..open + i],
            b')' => depth -= 1,
            _ => {}
        }
    }
    &code[open + 1..]
}

/// Whether a timeout names a deadline or a bound rather than an interval.
fn is_a_bound(argument: &str) -> bool {
    argument.contains("saturating_duration_since")
        || argument.contains("deadline")
        || argument
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| w.ends_with("_TIMEOUT") || w.ends_with("_GRACE"))
}

/// The timed waits of a file's code (comments and strings blanked, tests cut off):
/// `(line number, line)`.
pub(crate) fn timed_waits(code: &str) -> Vec<(usize, String)> {
    let code = before_tests(code);
    let mut found = Vec::new();
    let calls = [
        "sleep(",
        "park_timeout(",
        "interval(",
        "interval_at(",
        "recv_timeout(",
        "wait_timeout(",
    ];
    for call in calls {
        for (at, _) in code.match_indices(call) {
            let before = &code[..at];
            // A whole name only (`sleep(` but not `sleep_until(` or `fn sleep(`).
            if before
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                || before.trim_end().ends_with("fn")
            {
                continue;
            }
            let counts = match call {
                // tokio's interval, not a function of this crate that happens to share the name.
                "interval(" | "interval_at(" => before.ends_with("time::"),
                "recv_timeout(" | "wait_timeout(" => {
                    in_a_loop(code, at) && !is_a_bound(arguments(code, at + call.len() - 1))
                }
                _ => true,
            };
            if counts {
                let n = before.matches('\n').count() + 1;
                let line = code
                    .lines()
                    .nth(n - 1)
                    .unwrap_or_default()
                    .trim()
                    .to_string();
                found.push((n, line));
            }
        }
    }
    found.sort();
    found
}

/// Nothing in the coordinator, the hosts, the front-ends, the browser view, the ledger, the
/// `external` plugin or the strong engine's thread pool waits on a timer, except where
/// docs/architecture.md's `timed waits in:` block allows it (each with its reason there).
#[test]
fn no_timed_waits_outside_the_documented_places() {
    let allowed = listed_files(&architecture_doc(), "timed waits in:");
    assert!(
        !allowed.is_empty(),
        "docs/architecture.md has no `timed waits in:` block"
    );
    let root = workspace();
    let mut files = Vec::new();
    for dir in [
        "harness/src",
        "harness/core/src",
        "harness/ledger/src",
        "engines/external/src",
    ] {
        files.extend(rust_files(&root.join(dir)));
    }
    files.push(root.join("engines/strong/src/parallel.rs"));
    let mut problems = Vec::new();
    let mut with_waits = std::collections::BTreeSet::new();
    for file in files {
        let rel = relative(&root, &file);
        let code = code_only(&std::fs::read_to_string(&file).expect("readable source"));
        let waits = timed_waits(&code);
        if !waits.is_empty() {
            with_waits.insert(rel.clone());
        }
        if allowed.contains(&rel) {
            continue;
        }
        for (n, line) in waits {
            problems.push(format!(
                "{rel}:{n}: a timed wait not in docs/architecture.md's `timed waits in:`: {line}"
            ));
        }
    }
    for listed in allowed.difference(&with_waits) {
        problems.push(format!(
            "{listed}: listed in `timed waits in:` but waits on no timer"
        ));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The checks themselves, on small texts: what counts as a code line and as a timed wait.
#[test]
fn the_limit_checks_find_what_they_look_for() {
    let text = "//! docs\nuse a;\n\n/// f\nfn f() {\n    /* note\n    more */\n    g();\n}\n#[cfg(test)]\nmod tests {\n    fn t() {}\n}\n";
    assert_eq!(code_lines(text), 4, "use, fn, g(), the closing brace");

    let waits = |s: &str| -> Vec<usize> {
        timed_waits(&code_only(s))
            .into_iter()
            .map(|(n, _)| n)
            .collect()
    };
    let polling = "fn f(rx: R) {\n    loop {\n        if let Ok(e) = rx.recv_timeout(EVERY) {\n            h(e);\n        }\n    }\n}\n";
    assert_eq!(waits(polling), [3], "a recv_timeout a loop repeats");
    let in_while_header =
        "fn f(rx: R) {\n    while let Err(_) = rx.recv_timeout(EVERY) {\n        h();\n    }\n}\n";
    assert_eq!(waits(in_while_header), [2], "in a while's condition");
    let bounded = "fn f(rx: R) {\n    loop {\n        rx.recv_timeout(d.saturating_duration_since(now));\n        rx.recv_timeout(DESTROY_GRACE);\n    }\n    rx.recv_timeout(EVERY);\n}\n";
    assert_eq!(
        waits(bounded),
        Vec::<usize>::new(),
        "deadlines and one wait"
    );
    let pauses = "fn f() {\n    std::thread::sleep(d); // sleep(1)\n    tokio::time::sleep_until(t);\n    let s = \"sleep(2)\";\n    let i = tokio::time::interval(p);\n    let e = interval(&elo);\n    std::thread::park_timeout(d);\n}\n#[cfg(test)]\nmod tests { fn t() { std::thread::sleep(d); } }\n";
    assert_eq!(
        waits(pauses),
        [2, 5, 7],
        "sleep, tokio's interval, park_timeout"
    );
    let kept = "fn f() {\n    let found = loop {\n        c.wait_timeout(g, FIVE_MS);\n    };\n}\n";
    assert_eq!(waits(kept), [3], "a loop whose value is kept");
    let closure_in_loop = "fn f() {\n    'outer: loop {\n        let ok = (0..3).any(|_| {\n            c.wait_timeout(g, FIVE_MS)\n        });\n    }\n}\n";
    assert_eq!(
        waits(closure_in_loop),
        [4],
        "a labelled loop around a closure"
    );
}

/// Every line of the non-test code under `folders` (files named `tests.rs`, folders named
/// `tests` and `#[cfg(test)]` modules left out), as (file relative to the workspace, line
/// number from 1, the line).
pub(crate) fn non_test_lines(folders: &[&str]) -> Vec<(String, usize, String)> {
    let root = crate::workspace();
    let mut out = Vec::new();
    for folder in folders {
        for file in crate::rust_files(&root.join(folder)) {
            let rel = crate::relative(&root, &file);
            if rel.ends_with("/tests.rs") || rel.contains("/tests/") {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("a source file");
            for (n, line) in before_tests(&text).lines().enumerate() {
                out.push((rel.clone(), n + 1, line.to_string()));
            }
        }
    }
    out
}
