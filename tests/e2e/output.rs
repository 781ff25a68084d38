//! What the user sees on the terminal: a reader that goes away costs nothing.

use crate::support::{artifacts, engine, read_games, s, TempDir, TournamentFile};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

/// Regression (issue 19, bug 3): `harness run … | head -1` used to panic on the broken pipe
/// ("failed printing to stdout", exit 101) and stop the tournament after two games. Printing
/// now stops and the run goes on to its end: every game, the reports, exit code 0.
#[test]
fn a_closed_stdout_stops_the_printing_not_the_run() {
    let a = artifacts();
    let dir = TempDir::new("broken-pipe");
    // Games of about a second, so that the run prints long after the reader has gone.
    let toml = TournamentFile::new("match", 6, "move-time = 0.03")
        .engine(engine("greedy", s(&a.greedy), ""))
        .engine(engine("heuristic", s(&a.heuristic), ""))
        .text();
    dir.write("t.toml", &toml);
    let mut child = Command::new(&a.harness)
        .args(["run", "t.toml", "--no-tui"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the harness starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.contains("t.toml"), "{first}");
    // The reader is dropped here: the pipe is closed after one line, as `head -1` does.
    let out = child.wait_with_output().expect("the harness ends");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(read_games(&dir.join("out")).len(), 12);
    let report = std::fs::read_to_string(dir.join("out/report.json")).unwrap();
    assert!(report.contains("\"finished\": true"), "{report}");
}

/// Regression (issue 19, bug 4): `harness perft 99` ran forever without a word; depths that
/// cannot finish are refused with the range.
#[test]
fn perft_refuses_a_depth_that_cannot_finish() {
    let dir = TempDir::new("perft-depth");
    crate::support::harness(dir.path(), &["perft", "99"])
        .assert_error()
        .assert_stderr_has(&["99 is not in 0..=15"]);
}
