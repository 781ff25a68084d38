//! The process's exit codes: what a shell script or a CI job reads of a command.
//!
//! `run`, `sprt` and `merge` end with their run's verdict (`stats::verdict`), so they exit
//! alike:
//!
//! | code | meaning |
//! | --- | --- |
//! | 0 | H1 accepted, or no test and no rule broken |
//! | 1 | H0 accepted, or a fail-on rule was broken |
//! | 2 | an error (bad input, missing plugin, …); never a verdict |
//! | 3 | the test ended undecided, or the run was stopped before its end |

use crate::stats::verdict::Outcome;

/// A command that did what it was asked (perft, stats, info, a front-end session, …).
pub const SUCCESS: i32 = 0;
/// Success; with an SPRT: H1 accepted (the candidate is stronger).
pub const H1: i32 = 0;
/// H0 accepted (not stronger), or a forfeit under a fail-on rule.
pub const H0: i32 = 1;
/// A check found something wrong: a wrong exact score (`solve`), a failed compliance item.
pub const FAILURE: i32 = 1;
/// Any error: bad input, a missing or mismatched plugin, an unwritable output folder.
pub const ERROR: i32 = 2;
/// The test ended undecided (the game budget ran out, or the run was stopped first).
pub const UNDECIDED: i32 = 3;

/// The exit code of a run's outcome.
pub fn of(outcome: Outcome) -> i32 {
    match outcome {
        Outcome::Pass => H1,
        Outcome::Fail => H0,
        Outcome::Undecided | Outcome::Interrupted | Outcome::Incomplete => UNDECIDED,
    }
}

/// The exit code of a test's decision alone (`sprt`, `merge --watch`): H1 0, H0 1,
/// undecided 3.
pub fn of_decision(decision: crate::stats::sprt::Decision) -> i32 {
    use crate::stats::verdict::{verdict, Evidence};
    of(verdict(&Evidence {
        decision: Some(decision),
        ..Evidence::default()
    })
    .outcome)
}
