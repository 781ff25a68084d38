//! The verdict of a run: whether it passed, failed or ended undecided, and why.
//!
//! Four things decide it: the fail-on rules (an engine's `fail-on`, or the `[sprt]` table's
//! `fail-on-crash` / `fail-on-forfeit` for the candidate), whose broken rule fails the run
//! whatever the results say; whether the run played all it was to play (a run stopped by a
//! signal or a stop file is interrupted); and the sequential test's decision, when the
//! tournament has one; and whether every engine was measured at all: a run in which an engine
//! never made a move of its own ([`never_moved`]) cannot pass, whatever the other two say (its
//! opponent's wins are forfeits, not strength): it is unmeasured where it would have passed. `run`, `sprt` and `merge` all end here, so they end alike; the command
//! line turns an [`Outcome`] into the process's exit code (`cli::exit`), and the reports
//! state the same verdict.

use super::sprt::Decision;
use crate::record::{GameRecord, Termination};
use serde::Deserialize;
use std::fmt;

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

pub use crate::record::verdict_record::Outcome;

/// An engine that took part in a run's games but never made a move of its own in them.
#[derive(Clone, Debug, PartialEq)]
pub struct NeverMoved {
    pub engine: String,
    /// The games it took part in.
    pub games: usize,
    /// The first of them (0-based, as in the journal) and how it ended for the engine.
    pub first_game: usize,
    pub first_reason: String,
}

impl fmt::Display for NeverMoved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let how = if self.first_reason.is_empty() {
            String::new()
        } else {
            format!(": game {}, {}", self.first_game + 1, self.first_reason)
        };
        write!(
            f,
            "{} never made a move in its {} game(s) (first{how}); nothing was measured, whatever the results say",
            self.engine, self.games
        )
    }
}

/// Whether engine `engine` made a move of its own (see [`never_moved`]) in any of `records`.
pub fn has_moved(engine: &str, records: &[GameRecord]) -> bool {
    records
        .iter()
        .any(|r| moves_of(engine, r).is_some_and(|m| m > 0))
}

/// The moves of its own `engine` made in `r`; `None` when it did not play `r`.
fn moves_of(engine: &str, r: &GameRecord) -> Option<u32> {
    let searched = r.search_totals();
    if r.black == engine {
        Some(searched.black.moves)
    } else if r.white == engine {
        Some(searched.white.moves)
    } else {
        None
    }
}

/// The engines of `engines` that take part in some of `records` but made no move of their own
/// in any: every move the records give them is a book move or a forced pass (what
/// [`GameRecord::search_totals`] counts as searched). In the order of `engines`.
pub fn never_moved(engines: &[String], records: &[GameRecord]) -> Vec<NeverMoved> {
    let mut silent = Vec::new();
    for engine in engines {
        let mut games = 0;
        let mut moved = false;
        let mut first: Option<&GameRecord> = None;
        for r in records {
            let Some(moves) = moves_of(engine, r) else {
                continue;
            };
            games += 1;
            moved |= moves > 0;
            if first.is_none_or(|f| r.game < f.game) {
                first = Some(r);
            }
        }
        if let (false, Some(first)) = (moved, first) {
            silent.push(NeverMoved {
                engine: engine.clone(),
                games,
                first_game: first.game,
                first_reason: first.reason.clone(),
            });
        }
    }
    silent
}

/// What decides a run's verdict.
#[derive(Clone, Debug, Default)]
pub struct Evidence<'a> {
    /// The test's decision, when the tournament has one.
    pub decision: Option<Decision>,
    /// The fail-on rules the games broke.
    pub broken: &'a [RuleBroken],
    /// Why the run stopped before its end (`interrupted by SIGINT: 14 of 400 games played`),
    /// when it did; `None` for a run that played all it was to play.
    pub stopped: Option<String>,
    /// A merge: why not every game is in (`12 of 16 games`), when some are missing.
    pub missing: Option<String>,
    /// One shard of a sharded run (`shard 0/2: its 6 games played`): it holds no verdict of
    /// the run unless a fail-on rule broke (which fails the run whatever the other shards
    /// play) or an engine never moved in its games.
    pub shard: Option<String>,
    /// The engines that never made a move of their own in the games ([`never_moved`]).
    pub never_moved: &'a [NeverMoved],
}

/// A run's verdict: its outcome and the reasons, one sentence each (the broken rules first).
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub outcome: Outcome,
    pub reasons: Vec<String>,
}

/// Whether a test's decision measures the run: not an H1 (a pass) reached in games where an
/// engine never made a move of its own ([`never_moved`]), which forfeits alone decided. H0
/// and an undecided test stay what they are (a candidate that never moves is weaker, not
/// unmeasured). Every view words such a decision as not counting; [`verdict`] makes the run
/// unmeasured by the same rule.
pub fn decision_measures(decision: Decision, never_moved: &[NeverMoved]) -> bool {
    decision != Decision::AcceptH1 || never_moved.is_empty()
}

/// The verdict: a broken rule fails the run; a run stopped before the test decided is
/// interrupted (or, merged, incomplete); a run in which an engine never moved cannot pass: what
/// would (a shard done, H1, no test) is unmeasured; a shard that played its games is done, with
/// the run's verdict left to the merge; otherwise the test's decision (no test: a pass).
pub fn verdict(e: &Evidence) -> Verdict {
    let decided = matches!(e.decision, Some(Decision::AcceptH0 | Decision::AcceptH1));
    if !e.broken.is_empty() {
        return Verdict {
            outcome: Outcome::Fail,
            reasons: e.broken.iter().map(ToString::to_string).collect(),
        };
    }
    if let (Some(why), false) = (&e.stopped, decided) {
        return Verdict {
            outcome: Outcome::Interrupted,
            reasons: vec![why.clone()],
        };
    }
    if let (Some(why), false) = (&e.missing, decided) {
        return Verdict {
            outcome: Outcome::Incomplete,
            reasons: vec![why.clone()],
        };
    }
    // What would pass (a shard done, a test's H1, no test) measured nothing when an engine
    // never moved; a test's H0 and an undecided test stay what they are (a candidate that
    // never moves is weaker, not unmeasured; nothing passes either way).
    let would_pass = e.shard.is_some() || e.decision.is_none();
    let unmeasured = match e.decision {
        Some(decision) => !decision_measures(decision, e.never_moved),
        None => false,
    };
    if (!e.never_moved.is_empty() && would_pass) || unmeasured {
        return Verdict {
            outcome: Outcome::Unmeasured,
            reasons: e.never_moved.iter().map(ToString::to_string).collect(),
        };
    }
    if let Some(shard) = &e.shard {
        return Verdict {
            outcome: Outcome::ShardDone,
            reasons: vec![format!(
                "{shard}; the run's verdict is `harness merge`'s, over every shard"
            )],
        };
    }
    let (outcome, reason) = match e.decision {
        None => (Outcome::Pass, "every game played, no fail-on rule broken"),
        Some(Decision::AcceptH1) => (Outcome::Pass, "the test accepted H1"),
        Some(Decision::AcceptH0) => (Outcome::Fail, "the test accepted H0"),
        Some(Decision::Continue) => (
            Outcome::Undecided,
            "the test ran out of games before it decided",
        ),
    };
    Verdict {
        outcome,
        reasons: vec![reason.to_string()],
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
        let outcome = |decision, broken: &[RuleBroken], stopped: Option<&str>| {
            verdict(&Evidence {
                decision,
                broken,
                stopped: stopped.map(str::to_string),
                missing: None,
                shard: None,
                never_moved: &[],
            })
            .outcome
        };
        let one = std::slice::from_ref(&broken);
        assert_eq!(outcome(Some(Decision::AcceptH1), one, None), Outcome::Fail);
        assert_eq!(outcome(None, one, Some("SIGINT")), Outcome::Fail);
        assert_eq!(outcome(None, &[], None), Outcome::Pass);
        assert_eq!(outcome(Some(Decision::AcceptH1), &[], None), Outcome::Pass);
        assert_eq!(outcome(Some(Decision::AcceptH0), &[], None), Outcome::Fail);
        assert_eq!(
            outcome(Some(Decision::Continue), &[], None),
            Outcome::Undecided
        );
        assert_eq!(
            outcome(Some(Decision::Continue), &[], Some("SIGINT")),
            Outcome::Interrupted
        );
        assert_eq!(outcome(None, &[], Some("SIGINT")), Outcome::Interrupted);
        // A test that decided before the stop stays decided.
        assert_eq!(
            outcome(Some(Decision::AcceptH0), &[], Some("SIGINT")),
            Outcome::Fail
        );
        let failed = verdict(&Evidence {
            decision: Some(Decision::AcceptH1),
            broken: one,
            ..Evidence::default()
        });
        assert_eq!(failed.reasons, [broken.to_string()]);
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

    #[test]
    fn a_shard_never_holds_the_runs_verdict() {
        let shard = |decision, broken: &[RuleBroken], stopped: Option<&str>| {
            verdict(&Evidence {
                decision,
                broken,
                stopped: stopped.map(str::to_string),
                shard: Some("shard 0/2: its 6 games played".into()),
                ..Evidence::default()
            })
        };
        let done = shard(None, &[], None);
        assert_eq!(done.outcome, Outcome::ShardDone);
        assert!(done.reasons[0].contains("`harness merge`"), "{done:?}");
        assert_eq!(
            shard(Some(Decision::AcceptH1), &[], None).outcome,
            Outcome::ShardDone
        );
        assert_eq!(
            serde_json::to_value(Outcome::ShardDone).unwrap(),
            "shard-done"
        );
        // A stopped shard is interrupted, and a broken rule fails the run from any shard.
        assert_eq!(
            shard(None, &[], Some("SIGINT")).outcome,
            Outcome::Interrupted
        );
        let broken = RuleBroken {
            engine: "cand".into(),
            forfeits: 1,
            first_game: 0,
            first_reason: "crashed".into(),
        };
        assert_eq!(shard(None, &[broken], None).outcome, Outcome::Fail);
    }

    /// A game `cand` (Black) against `base` (White) from the start position: the book move
    /// f5, then `engine_moves` moves of the engines (Black's first), then `base` forfeits.
    fn game(number: usize, engine_moves: usize) -> GameRecord {
        use crate::record::PlayedMove;
        let mut r = GameRecord::skeleton(number, "cand", "base", 64);
        let line = ["f5", "d6", "c3", "d3", "c4"];
        r.moves = line[..1 + engine_moves]
            .iter()
            .enumerate()
            .map(|(i, mv)| PlayedMove {
                mv: mv.to_string(),
                book: i == 0,
                score: None,
                depth: None,
                nodes: None,
                time_ms: (i > 0).then_some(3),
            })
            .collect();
        r.termination = Termination::Crash;
        r.forfeit_by = Some(othello_board::Color::White);
        r.reason = "engine `base` crashed: exited with status 2".into();
        r
    }

    #[test]
    fn an_engine_that_never_moved_measured_nothing_whatever_the_test_says() {
        let engines = ["cand".to_string(), "base".to_string()];
        // After the book move f5 it is White's (base's) turn: with no engine move, base
        // forfeits before ever moving; cand never got a turn either.
        let records = [game(0, 0), game(1, 0)];
        let silent = never_moved(&engines, &records);
        assert_eq!(
            silent.iter().map(|s| s.engine.as_str()).collect::<Vec<_>>(),
            ["cand", "base"]
        );
        assert_eq!(silent[1].games, 2);
        assert_eq!(silent[1].first_game, 0);
        // One move of base's (d6) measures base, not cand; two moves (d6 c3) measure both.
        assert_eq!(
            never_moved(&engines, &[game(0, 0), game(1, 1)])[0].engine,
            "cand"
        );
        assert!(never_moved(&engines, &[game(0, 0), game(1, 2)]).is_empty());
        // Records without their moves keep the count (what the coordinator holds).
        let light: Vec<GameRecord> = [game(0, 0), game(1, 2)]
            .iter()
            .map(GameRecord::without_moves)
            .collect();
        assert!(never_moved(&engines, &light).is_empty());
        // An engine with no game in the records (a shard without its games) is not silent.
        assert!(never_moved(&["other".to_string()], &records).is_empty());
        let outcome = |decision, broken: &[RuleBroken], stopped: Option<&str>, shard| {
            verdict(&Evidence {
                decision,
                broken,
                stopped: stopped.map(str::to_string),
                shard,
                never_moved: &silent[1..],
                ..Evidence::default()
            })
        };
        let h1 = outcome(Some(Decision::AcceptH1), &[], None, None);
        assert_eq!(h1.outcome, Outcome::Unmeasured);
        assert_eq!(
            h1.reasons,
            ["base never made a move in its 2 game(s) (first: game 1, engine `base` crashed: exited with status 2); nothing was measured, whatever the results say"]
        );
        assert_eq!(outcome(None, &[], None, None).outcome, Outcome::Unmeasured);
        // Nothing passes either way: H0 stays a failure (a candidate that never moves is
        // weaker, and `git bisect` must call its commit bad), an undecided test undecided.
        assert_eq!(
            outcome(Some(Decision::AcceptH0), &[], None, None).outcome,
            Outcome::Fail
        );
        assert_eq!(
            outcome(Some(Decision::Continue), &[], None, None).outcome,
            Outcome::Undecided
        );
        let shard = Some("shard 0/2: its 2 games played".to_string());
        assert_eq!(outcome(None, &[], None, shard).outcome, Outcome::Unmeasured);
        // A broken rule still fails, and a run stopped early is interrupted (it may go on).
        let broken = RuleBroken {
            engine: "base".into(),
            forfeits: 2,
            first_game: 0,
            first_reason: "crashed".into(),
        };
        assert_eq!(
            outcome(Some(Decision::AcceptH1), &[broken], None, None).outcome,
            Outcome::Fail
        );
        assert_eq!(
            outcome(None, &[], Some("SIGINT"), None).outcome,
            Outcome::Interrupted
        );
        assert_eq!(
            serde_json::to_value(Outcome::Unmeasured).unwrap(),
            "unmeasured"
        );
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
