//! Plugins that cannot be used: refused with a clear error before any game is played.

use crate::support::{artifacts, engine, harness, s, TempDir, TournamentFile};
use std::path::Path;

/// A match of `bad` against greedy; returns the tournament file's name.
fn write_match(dir: &TempDir, bad: &str) -> &'static str {
    let a = artifacts();
    let toml = TournamentFile::new("match", 1, "depth = 1")
        .engine(engine("greedy", s(&a.greedy), ""))
        .engine(bad.to_string())
        .text();
    dir.write("t.toml", &toml);
    "t.toml"
}

/// Nothing was played: no journal, or one without games.
fn assert_no_games(out: &Path) {
    let journal = out.join("games.jsonl");
    let text = std::fs::read_to_string(&journal).unwrap_or_default();
    assert!(text.trim().is_empty(), "games were written:\n{text}");
}

#[test]
fn plugin_of_another_abi_major_version_is_refused() {
    let a = artifacts();
    let dir = TempDir::new("wrong-abi");
    let path = s(&a.wrong_abi);
    // Refused after reading the table's header: no function of it is called (they abort).
    harness(dir.path(), &["info", path])
        .assert_error()
        .assert_stderr_has(&[path, "ABI 2.1", "ABI 1.1"]);

    let file = write_match(&dir, &engine("future", path, ""));
    let run = harness(dir.path(), &["run", file]);
    run.assert_error()
        .assert_stderr_has(&["future", path, "ABI 2.1", "ABI 1.1"]);
    assert!(!run.stdout.contains("pair "), "a game was played:\n{run}");
    // The error is the first thing printed: no line of a run that looks started.
    assert!(
        run.stdout.trim().is_empty(),
        "printed before the error:\n{run}"
    );
    assert_no_games(&dir.join("out"));
}

#[test]
fn library_without_the_entry_symbol_is_refused() {
    let a = artifacts();
    let dir = TempDir::new("not-a-plugin");
    let path = s(&a.not_a_plugin);
    harness(dir.path(), &["info", path])
        .assert_error()
        .assert_stderr_has(&[path, "othello_engine_v1"]);

    let file = write_match(&dir, &engine("stranger", path, ""));
    harness(dir.path(), &["run", file])
        .assert_error()
        .assert_stderr_has(&["stranger", path, "othello_engine_v1"]);
    assert_no_games(&dir.join("out"));

    // A file that is no library at all.
    let text = dir.write("libtext.so", "not an ELF file\n");
    // With the system's reason, not only "dlopen failed".
    harness(dir.path(), &["info", s(&text)])
        .assert_error()
        .assert_stderr_has(&[
            s(&text),
            "cannot be loaded",
            "dlopen failed: ",
            "file too short",
        ]);
}

#[test]
fn missing_plugin_is_an_error_naming_the_engine_and_the_path() {
    let dir = TempDir::new("missing-plugin");
    let missing = dir.join("plugins/libghost.so");
    let file = write_match(&dir, &engine("ghost", s(&missing), ""));
    harness(dir.path(), &["run", file])
        .assert_error()
        .assert_stderr_has(&["t.toml", "`ghost`", s(&missing)]);
    assert_no_games(&dir.join("out"));

    // A bare name is looked up in --plugin-dir.
    let file = write_match(&dir, &engine("ghost", "ghost", ""));
    let plugins = dir.join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    let expected = plugins.join(format!(
        "{}ghost{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    harness(dir.path(), &["run", file, "--plugin-dir", s(&plugins)])
        .assert_error()
        .assert_stderr_has(&["`ghost`", s(&expected)]);

    harness(dir.path(), &["info", s(&missing)])
        .assert_error()
        .assert_stderr_has(&[s(&missing)]);
}

/// An option the engine rejects stops the run before the first game, naming the engine, the
/// option and the engine's own message.
#[test]
fn bad_engine_option_stops_the_run_before_any_game() {
    let a = artifacts();
    let dir = TempDir::new("bad-option");
    let file = write_match(&dir, &engine("deep", s(&a.minimax), "Depth = 99"));
    harness(dir.path(), &["run", file])
        .assert_error()
        .assert_stderr_has(&["deep", "Depth", "99"]);
    assert_no_games(&dir.join("out"));

    let file = write_match(&dir, &engine("c", s(&a.first_move), "Skipp = 1"));
    harness(dir.path(), &["run", file])
        .assert_error()
        .assert_stderr_has(&["`c`", "Skipp", "unknown option"]);
    assert_no_games(&dir.join("out"));
}

/// The strong engine's weight file (`EvalFile`): missing, or damaged by one flipped bit,
/// stops the run before the first game with the engine, the option, the file and what is
/// wrong; the engine never falls back silently to another evaluation.
#[test]
fn strong_refuses_a_missing_or_damaged_weight_file() {
    let a = artifacts();
    let dir = TempDir::new("eval-file");
    let missing = dir.join("missing.weights");
    let opt = |p: &Path| format!("EvalFile = \"{}\"", p.display());
    let file = write_match(&dir, &engine("patterns", s(&a.strong), &opt(&missing)));
    harness(dir.path(), &["run", file])
        .assert_error()
        .assert_stderr_has(&["patterns", "EvalFile", "missing.weights"]);
    assert_no_games(&dir.join("out"));

    let real = Path::new(env!("CARGO_MANIFEST_DIR")).join("../engines/strong/data/eval.weights");
    let mut bytes = std::fs::read(&real).expect("the committed weight file");
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x04;
    let damaged = dir.join("damaged.weights");
    std::fs::write(&damaged, &bytes).unwrap();
    let file = write_match(&dir, &engine("patterns", s(&a.strong), &opt(&damaged)));
    harness(dir.path(), &["run", file])
        .assert_error()
        .assert_stderr_has(&["patterns", "EvalFile", "damaged.weights", "checksum"]);
    assert_no_games(&dir.join("out"));
}

/// A plugin whose entry returns no table, or a table too small for the version it claims, is
/// refused after the header, naming the file.
#[test]
fn null_or_truncated_tables_are_refused() {
    let a = artifacts();
    let dir = TempDir::new("bad-tables");
    let null = s(&a.null_table);
    harness(dir.path(), &["info", null])
        .assert_error()
        .assert_stderr_has(&[null, "null table"]);
    let short = s(&a.short_table);
    harness(dir.path(), &["info", short])
        .assert_error()
        .assert_stderr_has(&[short, "8 bytes", "ABI 1.0"]);
    let file = write_match(&dir, &engine("short", short, ""));
    harness(dir.path(), &["run", file])
        .assert_error()
        .assert_stderr_has(&["short", short, "8 bytes"]);
    assert_no_games(&dir.join("out"));
}
