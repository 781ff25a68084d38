//! Tournament files with mistakes: a clear error naming the file, the line and the key, and
//! nothing played or written.

use crate::support::{artifacts, engine, harness, s, Output, TempDir};

/// A valid match file; the cases below break one line of it. Line numbers matter.
fn good() -> String {
    let a = artifacts();
    format!(
        r#"[tournament]
format = "match"
pairs = 2
out = "out"

[time]
depth = 1

[openings]
builtin = "xot-small"
{}{}"#,
        engine("greedy", s(&a.greedy), ""),
        engine("minimax", s(&a.minimax), ""),
    )
}

/// Run `text` as `t.toml` (from its folder) and expect a clean failure that writes nothing.
fn run_bad(label: &str, text: &str) -> Output {
    let dir = TempDir::new(label);
    dir.write("t.toml", text);
    let run = harness(dir.path(), &["run", "t.toml"]);
    run.assert_error();
    assert!(
        !dir.join("out").exists(),
        "output written for a bad file:\n{run}"
    );
    run
}

fn edit(from: &str, to: &str) -> String {
    let good = good();
    assert!(good.contains(from), "{from}");
    good.replacen(from, to, 1)
}

#[test]
fn good_file_runs() {
    // The baseline of the cases below is valid.
    let dir = TempDir::new("config-good");
    dir.write("t.toml", &good());
    harness(dir.path(), &["run", "t.toml"]).assert_success();
    assert!(dir.join("out/games.jsonl").is_file());
}

#[test]
fn unknown_key_names_file_line_and_key() {
    run_bad("unknown-key", &edit("pairs = 2", "pair = 3"))
        .assert_stderr_has(&["t.toml:3:", "`pair`"]);
    run_bad("unknown-time-key", &edit("depth = 1", "depht = 1"))
        .assert_stderr_has(&["t.toml:7:", "`depht`"]);
}

#[test]
fn bad_value_names_file_line_and_key() {
    run_bad("zero-pairs", &edit("pairs = 2", "pairs = 0")).assert_stderr_has(&[
        "t.toml:3:",
        "`pairs`",
        "at least 1",
    ]);
    run_bad("bad-format", &edit("\"match\"", "\"swiss\"")).assert_stderr_has(&[
        "t.toml:2:",
        "`format`",
        "swiss",
    ]);
    run_bad("two-limits", &edit("depth = 1", "depth = 1\nnodes = 100")).assert_stderr_has(&[
        "t.toml:8:",
        "`nodes`",
        "`depth`",
    ]);
}

#[test]
fn duplicate_engine_names_are_refused() {
    let text = edit("name = \"minimax\"", "name = \"greedy\"");
    let second = 1 + text
        .lines()
        .enumerate()
        .filter(|(_, l)| *l == "name = \"greedy\"")
        .map(|(i, _)| i)
        .nth(1)
        .expect("two engine names");
    run_bad("duplicate-names", &text).assert_stderr_has(&[
        &format!("t.toml:{second}:"),
        "`name`",
        "`greedy`",
        "duplicate",
    ]);
}

#[test]
fn malformed_opening_file_names_file_and_line() {
    let dir = TempDir::new("bad-openings");
    // Line 3: a1 is not a legal third move.
    dir.write("bad.txt", "# openings\nf5d6c3d3\nf5f6a1\nf5f6e6f4\n");
    dir.write(
        "t.toml",
        &edit("builtin = \"xot-small\"", "file = \"bad.txt\""),
    );
    let run = harness(dir.path(), &["run", "t.toml"]);
    run.assert_error().assert_stderr_has(&["bad.txt:3:", "a1"]);
    assert!(
        !dir.join("out").exists(),
        "output written for a bad file:\n{run}"
    );
}

#[test]
fn empty_opening_file_is_refused() {
    let dir = TempDir::new("empty-openings");
    dir.write("none.txt", "# only a comment\n\n");
    dir.write(
        "t.toml",
        &edit("builtin = \"xot-small\"", "file = \"none.txt\""),
    );
    harness(dir.path(), &["run", "t.toml"])
        .assert_error()
        .assert_stderr_has(&["none.txt", "no openings"]);
    assert!(!dir.join("out").exists());
}

/// An output folder that cannot be created (here: below a regular file) is a clear error
/// naming it, before any game.
#[test]
fn unwritable_output_folder_is_refused() {
    let dir = TempDir::new("unwritable-out");
    dir.write("blocker", "a file, not a folder\n");
    dir.write("t.toml", &edit("out = \"out\"", "out = \"blocker/out\""));
    let run = harness(dir.path(), &["run", "t.toml"]);
    run.assert_error().assert_stderr_has(&["blocker/out"]);
    assert!(!run.stdout.contains("pair "), "a game was played:\n{run}");
}
