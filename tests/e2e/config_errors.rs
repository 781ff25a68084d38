//! Tournament files and command lines with mistakes: a clear error naming the file, the line
//! and the key (or the flag), with the real rule (a value's type and range, every missing
//! table), and nothing played or written; `--dry-run` refuses what the run would fail on.

use crate::support::{
    artifacts, engine, engine_flag, harness, harness_line, match_args, match_file, run, s, tune_of,
    Output, TempDir, TournamentFile,
};

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

/// `--dry-run` refuses what a run would fail on: an output folder that cannot be made, an
/// external engine without a program, or with one that does not exist. The run refuses them
/// too, before any game.
#[test]
fn dry_run_refuses_runs_that_would_fail() {
    let a = artifacts();
    let dir = TempDir::new("dry-run-refuses");
    dir.write("t.toml", &match_file(1));
    harness(
        dir.path(),
        &["run", "t.toml", "--dry-run", "--out", "t.toml"],
    )
    .assert_error()
    .assert_stderr_has(&["is a file, not a folder"]);
    harness(
        dir.path(),
        &["run", "t.toml", "--dry-run", "--out", "/proc/nope"],
    )
    .assert_error()
    .assert_stderr_has(&["/proc/nope: cannot create the output folder"]);
    // A good folder that does not exist yet: accepted, and not left behind.
    harness(
        dir.path(),
        &["run", "t.toml", "--dry-run", "--out", "new/deep"],
    )
    .assert_success();
    assert!(!dir.join("new").exists());
    for (options, message) in [
        ("", "the `Command` option is empty"),
        (
            "Command = \"/nonexistent/engine -q\"",
            "cannot start `/nonexistent/engine -q`",
        ),
    ] {
        let toml = TournamentFile::new("match", 1, "depth = 1")
            .engine(engine("ext", s(&a.external), options))
            .engine(engine("greedy", s(&a.greedy), ""))
            .text();
        dir.write("ext.toml", &toml);
        harness(dir.path(), &["run", "ext.toml", "--dry-run"])
            .assert_error()
            .assert_stderr_has(&["engine `ext`", message]);
        harness(dir.path(), &["run", "ext.toml", "--no-tui"])
            .assert_error()
            .assert_stderr_has(&["engine `ext`", message]);
        assert!(!dir.join("out/games.jsonl").exists());
    }
}

/// Messages that name the real rule: the range of `exact-at-empties` (1 to 30, not a u32's),
/// a decimal called a decimal, a negative value checked rather than mistaken for a flag, a
/// `--tune` error without a line of a document the user never saw, and every missing table
/// in one error.
#[test]
fn messages_name_the_real_rule() {
    let dir = TempDir::new("messages");
    for (value, fragment) in [
        ("x", "\"x\" is text: expected a whole number from 1 to 30"),
        (
            "20.5",
            "`20.5` is a decimal number: expected a whole number from 1 to 30",
        ),
        (
            "-1",
            "is out of range: expected a whole number from 1 to 30",
        ),
        ("31", "exact-at-empties"),
    ] {
        let out = run(
            dir.path(),
            &match_args(&format!(
                "--time depth=2 --pairs 1 --out m --adjudication {value}"
            )),
        );
        assert_eq!(out.status.code(), Some(2), "{value}: {}", out.stderr);
        assert!(out.stderr.contains(fragment), "{value}: {}", out.stderr);
        assert!(!out.stderr.contains("tip:"), "{value}: {}", out.stderr);
    }
    let a = artifacts();
    dir.write(
        "adj.toml",
        &format!(
            "[tournament]\nformat = \"match\"\npairs = 1\n[time]\ndepth = 2\n[openings]\nbuiltin = \"xot-small\"\n\
             [adjudication]\nexact-at-empties = \"20\"\n\
             [[engine]]\nname = \"a\"\nplugin = \"{0}\"\n[[engine]]\nname = \"b\"\nplugin = \"{0}\"\n",
            s(&a.greedy)
        ),
    );
    let quoted = harness_line(dir.path(), "run adj.toml --no-tui");
    assert!(
        quoted
            .stderr
            .contains("\"20\" is text: expected a whole number from 1 to 30"),
        "{}",
        quoted.stderr
    );
    let mm = engine_flag("mm", &a.minimax, "");
    let width = "mm,iterations=2,params.Width.start=2,params.Width.min=1,params.Width.max=5,params.Width.c-end=1.0,params.Width.r-end=0.1";
    let tune = tune_of(dir.path(), &mm, width, "");
    tune.assert_error()
        .assert_stderr_has(&["declares no option `Width`"]);
    assert!(!tune.stderr.contains("<command line>:"), "{}", tune.stderr);
    dir.write("bare.toml", "[tournament]\nformat = \"match\"\npairs = 1\n");
    let bare = harness_line(dir.path(), "run bare.toml --no-tui");
    bare.assert_error().assert_stderr_has(&[
        "bare.toml: missing [time] and [openings]: every tournament file has",
    ]);
}
