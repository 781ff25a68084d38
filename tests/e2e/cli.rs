//! The small commands of the command line.

use crate::support::{artifacts, harness, s, TempDir};

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
