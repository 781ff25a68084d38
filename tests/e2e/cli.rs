//! The small commands of the command line (`perft`, `solve`, `check`, `merge --watch` before
//! any shard), the seconds flags of every command, and the pairs a progress line counts.

use crate::support::{artifacts, harness, match_args, run, s, TempDir};

/// `harness perft` counts the published leaves in both pass conventions (they first differ at
/// depth 9).
#[test]
fn perft_counts_leaves_in_both_modes() {
    let dir = TempDir::new("perft");
    for (mode, leaves) in [("1", "3005288 leaves"), ("2", "3005320 leaves")] {
        let run = harness(dir.path(), &["perft", "9", "--mode", mode]);
        run.assert_success();
        assert!(
            run.stdout
                .starts_with(&format!("perft 9 (mode {mode}): {leaves} in ")),
            "{run}"
        );
    }
    harness(dir.path(), &["perft", "3", "--mode", "3"])
        .assert_error()
        .assert_stderr_has(&["--mode"]);
}

/// `harness solve` checks an engine's exact scores against an OBF file: FFO #1-#3 (14 to 16
/// empties) solved by the strong engine are right (exit code 0); the same file with one best
/// score changed (FFO #1's G8 +18 written as +16) has that position WRONG and exits 1.
#[test]
fn solve_exits_1_on_a_wrong_score() {
    let a = artifacts();
    let dir = TempDir::new("solve");
    let ffo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../engines/strong/data/fforum-1-19.obf");
    let lines: Vec<String> = std::fs::read_to_string(&ffo)
        .unwrap()
        .lines()
        .take(3)
        .map(str::to_string)
        .collect();
    assert!(lines[0].contains("G8:+18;"), "FFO #1: {}", lines[0]);
    dir.write("right.obf", &(lines.join("\n") + "\n"));
    let wrong = lines[0].replace("G8:+18;", "G8:+16;");
    dir.write(
        "wrong.obf",
        &([wrong.as_str(), &lines[1], &lines[2]].join("\n") + "\n"),
    );
    let solve = |file: &str| harness(dir.path(), &["solve", file, "--engine", s(&a.strong)]);

    let right = solve("right.obf");
    right.assert_success();
    assert!(right.stdout.contains("total: 3 solved, 0 wrong"), "{right}");
    let wrong = solve("wrong.obf");
    assert_eq!(wrong.status.code(), Some(1), "{wrong}");
    assert!(wrong.stdout.contains("total: 2 solved, 1 wrong"), "{wrong}");
    let row = wrong
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("1 "))
        .unwrap_or_else(|| panic!("no row for position 1:\n{wrong}"));
    assert!(
        row.contains("g8") && row.contains("+18") && row.contains("+16") && row.contains("WRONG"),
        "{row}"
    );
}

/// An OBF line that lists an illegal move is a broken file (exit 2 naming the line and the
/// move), not a WRONG answer of the engine.
#[test]
fn solve_names_an_illegal_listed_move() {
    let a = artifacts();
    let dir = TempDir::new("solve-illegal");
    // 4 empties; d4 holds a disc.
    dir.write(
        "bad.obf",
        "OOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOX---- X; D4:+64;\n",
    );
    harness(dir.path(), &["solve", "bad.obf", "--engine", s(&a.minimax)])
        .assert_error()
        .assert_stderr_has(&["bad.obf:1:", "lists d4, which is not a legal move"]);
}

/// Seconds flags refuse infinite, huge, negative and not-a-number values with a message and
/// exit code 2 (they panicked, or were clamped silently).
#[test]
fn seconds_flags_refuse_absurd_values() {
    let dir = TempDir::new("seconds");
    let a = artifacts();
    let strong = s(&a.strong);
    let cases: Vec<Vec<&str>> = vec![
        vec!["analyze", ".", "--timeout", "inf"],
        vec!["analyze", ".", "--timeout", "1e300"],
        vec!["analyze", ".", "--timeout", "-1"],
        vec!["analyze", ".", "--timeout", "nan"],
        vec!["solve", "x.obf", "--engine", strong, "--timeout", "inf"],
        vec!["nboard", "--engine", strong, "--move-time", "inf"],
        vec!["merge", ".", "--watch", "--interval", "inf"],
        vec!["tune", "--aggregate", "--watch", "--interval", "inf"],
    ];
    for args in cases {
        let out = harness(dir.path(), &args);
        let err = out.stderr;
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("give a number of seconds above 0 and at most 1000000"),
            "{args:?}: {err}"
        );
    }
}

/// `check` of a plugin that does not load is one error (exit 2), as `info` and `bench` say
/// it; a solver that fails the exact proof is told why without blaming depth limits alone;
/// `merge --watch` of a folder where no shard has begun says so; a progress line counts the
/// pairs done apart from the pair's number.
#[test]
fn rough_edges_of_check_analyze_merge_and_progress() {
    let a = artifacts();
    let dir = TempDir::new("rough-edges");
    let check = harness(dir.path(), &["check", s(&a.not_a_plugin)]);
    assert_eq!(check.status.code(), Some(2), "{}", check.stdout);
    assert!(!check.stdout.contains("FAIL"), "{}", check.stdout);
    assert_eq!(check.stderr.lines().count(), 1, "{}", check.stderr);
    assert!(check
        .stderr
        .contains("cannot check a plugin that does not start"));
    let played = run(dir.path(), &match_args("--time depth=2 --pairs 2 --out p"));
    assert!(
        played.stdout.contains("pair    1 (1/2 done)")
            || played.stdout.contains("pair    2 (1/2 done)"),
        "{}",
        played.stdout
    );
    assert!(played.stdout.contains("(2/2 done)"), "{}", played.stdout);
    let solver = harness(
        dir.path(),
        &[
            "analyze",
            "p",
            "--from-empties",
            "8",
            "--engine",
            s(&a.minimax),
        ],
    );
    solver
        .assert_error()
        .assert_stderr_has(&["counts a pass as a ply"]);
    let mut watch = std::process::Command::new(&a.harness)
        .args([
            "merge",
            "--watch",
            "nowhere",
            "--interval",
            "0.2",
            "--stop-file",
            "stop",
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(watch.stdout.take().unwrap()),
        &mut first,
    )
    .unwrap();
    let _ = watch.kill();
    let _ = watch.wait();
    assert!(
        first.contains("no shard has begun in nowhere yet (no such folder yet)"),
        "{first}"
    );
}
