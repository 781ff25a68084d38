//! The process's exit codes: what a shell script or a CI job reads of a command.
//!
//! `run`, `sprt` and `merge` end with their run's verdict (`stats::verdict`), so they exit
//! alike:
//!
//! | code | meaning |
//! | --- | --- |
//! | 0 | H1 accepted, or no test and no rule broken |
//! | 1 | H0 accepted, or a fail-on rule was broken |
//! | 2 | an error (bad input, missing plugin, an engine that cannot start, …), or a run that measured nothing (an engine never made a move: outcome `unmeasured`) |
//! | 3 | the test ended undecided, or the run was stopped before its end |
//!
//! A shard (`run --shard`) that played its games exits 0 with the outcome `shard-done`: the
//! run's verdict is the merge's.
//!
//! `run --exit-codes bisect` uses `git bisect run`'s convention instead ([`Convention`]): there
//! an engine that cannot start, and a run that measured nothing, are 125 (skip this commit),
//! not a verdict on it.

use harness_core::stats::verdict::Outcome;

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

/// `git bisect run`'s "skip this commit": the test could not decide.
pub const BISECT_SKIP: i32 = 125;
/// `git bisect run` stops on an exit code above 127: an error of the harness.
pub const BISECT_ERROR: i32 = 128;
/// `git bisect run` stops: the run was interrupted (128 + SIGINT's number, as a shell says).
pub const BISECT_INTERRUPTED: i32 = 130;

/// How `run` turns its outcome into an exit code (`--exit-codes`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Convention {
    /// 0 pass, 1 fail, 3 undecided or interrupted (errors 2).
    #[default]
    Verdict,
    /// `git bisect run`'s: 0 good, 1 bad, 125 skip, 128 and 130 stop.
    Bisect,
}

impl Convention {
    /// The exit code of `outcome`.
    pub fn code(self, outcome: Outcome) -> i32 {
        match (self, outcome) {
            (Convention::Verdict, o) => of(o),
            (Convention::Bisect, Outcome::Pass) => H1,
            (Convention::Bisect, Outcome::Fail) => H0,
            // A shard cannot tell a good commit from a bad one.
            (Convention::Bisect, Outcome::Undecided | Outcome::ShardDone) => BISECT_SKIP,
            // Nothing was measured: the commit is neither good nor bad.
            (Convention::Bisect, Outcome::Unmeasured) => BISECT_SKIP,
            (Convention::Bisect, Outcome::Interrupted | Outcome::Incomplete) => BISECT_INTERRUPTED,
        }
    }
}

/// The exit code of a run's outcome.
pub fn of(outcome: Outcome) -> i32 {
    match outcome {
        // A shard that played its games succeeded (job arrays read 0); the run's verdict is
        // the merge's.
        Outcome::Pass | Outcome::ShardDone => H1,
        Outcome::Fail => H0,
        Outcome::Undecided | Outcome::Interrupted | Outcome::Incomplete => UNDECIDED,
        // Not a verdict on the engines: something kept one of them from playing.
        Outcome::Unmeasured => ERROR,
    }
}

/// The exit code of a test's decision alone (`sprt`, `merge --watch`): H1 0, H0 1,
/// undecided 3.
pub fn of_decision(decision: harness_core::stats::sprt::Decision) -> i32 {
    use harness_core::stats::verdict::{verdict, Evidence};
    of(verdict(&Evidence {
        decision: Some(decision),
        ..Evidence::default()
    })
    .outcome)
}
