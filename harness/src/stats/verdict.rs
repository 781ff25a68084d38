//! The verdict of a run, as an exit code a CI job can act on.
//!
//! Two things decide it: the sequential test's decision, when the tournament has one, and the
//! fail-on rules (an engine's `fail-on`, or the `[sprt]` table's `fail-on-crash` /
//! `fail-on-forfeit` for the candidate): a forfeit a rule covers fails the run whatever the
//! results say. `run`, `sprt` and `merge` all end here, so they exit alike:
//!
//! | code | meaning |
//! | --- | --- |
//! | 0 | H1 accepted, or no test and no rule broken |
//! | 1 | H0 accepted, or a fail-on rule was broken |
//! | 2 | an error (bad input, missing plugin, …); never decided here |
//! | 3 | the test ended undecided |

use super::sprt::Decision;
use crate::record::{GameRecord, Termination};
use serde::Deserialize;
use std::fmt;

/// Exit codes of the `harness` program.
pub mod exit {
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
}

/// Which of an engine's forfeits make the whole run fail, for CI jobs that must go red when an
/// engine under test crashes even though it won the match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FailOn {
    /// Forfeits count as lost games only (the default).
    #[default]
    Nothing,
    /// A crash (signal, abort, exit mid-game) fails the run.
    Crash,
    /// Any forfeit (crash, time, stall, illegal move, engine error) fails the run.
    Forfeit,
}

/// The fail-on rule of every engine, in their order: its own (`own`), made stricter for the
/// candidate (the first engine) by a sequential test's `candidate` rules, `(fail_on_crash,
/// fail_on_forfeit)`: any forfeit, or a crash when the engine has no rule of its own.
pub fn fail_rules(
    own: Vec<(String, FailOn)>,
    candidate: Option<(bool, bool)>,
) -> Vec<(String, FailOn)> {
    let mut rules = own;
    if let (Some(first), Some((on_crash, on_forfeit))) = (rules.first_mut(), candidate) {
        if on_forfeit {
            first.1 = FailOn::Forfeit;
        } else if on_crash && first.1 == FailOn::Nothing {
            first.1 = FailOn::Crash;
        }
    }
    rules
}

impl FailOn {
    /// Whether a forfeit with this termination fails the run.
    pub fn fails(self, termination: Termination) -> bool {
        match self {
            FailOn::Nothing => false,
            FailOn::Crash => termination == Termination::Crash,
            FailOn::Forfeit => termination.is_forfeit(),
        }
    }
}

/// An engine whose forfeits broke its rule.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleBroken {
    pub engine: String,
    /// Forfeits that the rule covers.
    pub forfeits: usize,
    /// The first of them: its game number (0-based, as in the journal) and reason.
    pub first_game: usize,
    pub first_reason: String,
}

impl fmt::Display for RuleBroken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} forfeited {} game(s) (first: game {}, {}); the run fails whatever the results say",
            self.engine,
            self.forfeits,
            self.first_game + 1,
            self.first_reason
        )
    }
}

/// The engines whose rule (engine name, rule) their forfeits in `records` broke, in rule order.
pub fn broken_rules(rules: &[(String, FailOn)], records: &[GameRecord]) -> Vec<RuleBroken> {
    let mut broken = Vec::new();
    for (engine, rule) in rules {
        let forfeits: Vec<&GameRecord> = records
            .iter()
            .filter(|r| r.forfeited_by() == Some(engine.as_str()))
            .filter(|r| rule.fails(r.termination))
            .collect();
        if let Some(first) = forfeits.first() {
            broken.push(RuleBroken {
                engine: engine.clone(),
                forfeits: forfeits.len(),
                first_game: first.game,
                first_reason: first.reason.clone(),
            });
        }
    }
    broken
}

/// The exit code: a broken rule fails the run; otherwise the test's decision (no test: 0).
pub fn exit_code(decision: Option<Decision>, broken: &[RuleBroken]) -> i32 {
    if !broken.is_empty() {
        return exit::H0;
    }
    match decision {
        None | Some(Decision::AcceptH1) => exit::H1,
        Some(Decision::AcceptH0) => exit::H0,
        Some(Decision::Continue) => exit::UNDECIDED,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_rule_outranks_the_decision() {
        let broken = RuleBroken {
            engine: "cand".into(),
            forfeits: 1,
            first_game: 4,
            first_reason: "crashed".into(),
        };
        assert_eq!(
            exit_code(Some(Decision::AcceptH1), std::slice::from_ref(&broken)),
            1
        );
        assert_eq!(exit_code(None, std::slice::from_ref(&broken)), 1);
        assert_eq!(exit_code(None, &[]), 0);
        assert_eq!(exit_code(Some(Decision::AcceptH1), &[]), 0);
        assert_eq!(exit_code(Some(Decision::AcceptH0), &[]), 1);
        assert_eq!(exit_code(Some(Decision::Continue), &[]), 3);
        assert_eq!(
            broken.to_string(),
            "cand forfeited 1 game(s) (first: game 5, crashed); the run fails whatever the results say"
        );
        assert!(FailOn::Crash.fails(Termination::Crash));
        assert!(!FailOn::Crash.fails(Termination::TimeForfeit));
        assert!(FailOn::Forfeit.fails(Termination::Stalled));
        assert!(!FailOn::Forfeit.fails(Termination::Normal));
        assert!(!FailOn::Nothing.fails(Termination::Crash));
    }

    /// The rules of a match `cand` vs `base` whose own rules are `own`, under the `[sprt]`
    /// rules `candidate` (`(fail_on_crash, fail_on_forfeit)`).
    fn rules(own: (FailOn, FailOn), candidate: Option<(bool, bool)>) -> Vec<(String, FailOn)> {
        fail_rules(
            vec![("cand".into(), own.0), ("base".into(), own.1)],
            candidate,
        )
    }

    #[test]
    fn without_a_test_each_engine_keeps_its_own_rule() {
        use FailOn::{Crash, Forfeit, Nothing};
        assert_eq!(
            rules((Crash, Forfeit), None),
            [("cand".into(), Crash), ("base".into(), Forfeit)]
        );
        assert_eq!(
            rules((Nothing, Nothing), Some((false, false))),
            [("cand".into(), Nothing), ("base".into(), Nothing)]
        );
        assert_eq!(fail_rules(Vec::new(), Some((true, true))), []);
    }

    /// The test's rules make the candidate's rule stricter, never looser, and never touch the
    /// other engines' rules.
    #[test]
    fn the_tests_rules_only_make_the_candidates_stricter() {
        use FailOn::{Crash, Forfeit, Nothing};
        let cases = [
            // (own rule, [sprt] fail-on-crash, fail-on-forfeit) → the candidate's rule
            (Nothing, true, false, Crash),
            (Crash, true, false, Crash),
            (Forfeit, true, false, Forfeit),
            (Nothing, false, true, Forfeit),
            (Crash, false, true, Forfeit),
            (Forfeit, true, true, Forfeit),
            (Nothing, true, true, Forfeit),
            (Forfeit, false, false, Forfeit),
        ];
        for (own, on_crash, on_forfeit, expected) in cases {
            let got = rules((own, Nothing), Some((on_crash, on_forfeit)));
            assert_eq!(
                got,
                [("cand".into(), expected), ("base".into(), Nothing)],
                "own {own:?}, fail-on-crash {on_crash}, fail-on-forfeit {on_forfeit}"
            );
        }
        assert_eq!(
            rules((Nothing, Forfeit), Some((true, true)))[1],
            ("base".into(), Forfeit)
        );
    }
}
