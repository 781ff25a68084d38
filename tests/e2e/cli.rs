//! The small commands of the command line.

use crate::support::{harness, TempDir};

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
