//! The words every view uses for the same things: a sequential test's decision, so that the
//! terminal tables, the reports and the live view never say different things about one test.

use crate::stats::sprt::{Decision, SprtParams};

/// `H1 accepted`, `H0 accepted` or `no decision`.
pub fn decision_label(decision: Decision) -> &'static str {
    match decision {
        Decision::AcceptH1 => "H1 accepted",
        Decision::AcceptH0 => "H0 accepted",
        Decision::Continue => "no decision",
    }
}

/// ` H1`, ` H0` or nothing: the decision on a gauge's label.
pub fn decision_mark(decision: Decision) -> &'static str {
    match decision {
        Decision::AcceptH1 => " H1",
        Decision::AcceptH0 => " H0",
        Decision::Continue => "",
    }
}

/// What an accepted hypothesis says about the candidate, in the test's own bounds: H1 is
/// "Elo ≥ elo1", H0 is "Elo ≤ elo0". A gainer test (`[0, 5]`) reads "is stronger than"; a
/// non-regression test (`[-5, 0]`) reads "is not weaker than" or "is weaker than". `None` while
/// the test has not decided.
pub fn decision_meaning(
    decision: Decision,
    params: &SprtParams,
    candidate: &str,
    baseline: &str,
) -> Option<String> {
    let elo = |x: f64| format!("{}", x.abs());
    Some(match decision {
        Decision::Continue => return None,
        Decision::AcceptH1 if params.elo1 > 0.0 => {
            format!("{candidate} is stronger than {baseline}")
        }
        Decision::AcceptH1 if params.elo1 == 0.0 => {
            format!("{candidate} is not weaker than {baseline}")
        }
        Decision::AcceptH1 => format!(
            "{candidate} is at most {} Elo weaker than {baseline}",
            elo(params.elo1)
        ),
        Decision::AcceptH0 if params.elo0 > 0.0 => format!(
            "{candidate} is not stronger than {baseline} by more than {} Elo",
            elo(params.elo0)
        ),
        Decision::AcceptH0 if params.elo0 == 0.0 => {
            format!("{candidate} is not stronger than {baseline}")
        }
        Decision::AcceptH0 => format!(
            "{candidate} is weaker than {baseline} by {} Elo or more",
            elo(params.elo0)
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::sprt::{Model, Unit};

    fn params(elo0: f64, elo1: f64) -> SprtParams {
        SprtParams {
            elo0,
            elo1,
            alpha: 0.05,
            beta: 0.05,
            model: Model::Logistic,
            unit: Unit::Pentanomial,
        }
    }

    /// Regression (issue 32): a non-regression test that accepts H1 said "is stronger".
    #[test]
    fn the_meaning_follows_the_bounds() {
        let say = |d, e0, e1| decision_meaning(d, &params(e0, e1), "new", "old").unwrap();
        assert_eq!(
            say(Decision::AcceptH1, 0.0, 5.0),
            "new is stronger than old"
        );
        assert_eq!(
            say(Decision::AcceptH0, 0.0, 5.0),
            "new is not stronger than old"
        );
        assert_eq!(
            say(Decision::AcceptH1, -5.0, 0.0),
            "new is not weaker than old"
        );
        assert_eq!(
            say(Decision::AcceptH0, -5.0, 0.0),
            "new is weaker than old by 5 Elo or more"
        );
        assert_eq!(
            say(Decision::AcceptH1, -10.0, -3.0),
            "new is at most 3 Elo weaker than old"
        );
        assert_eq!(
            say(Decision::AcceptH0, 2.0, 7.0),
            "new is not stronger than old by more than 2 Elo"
        );
        assert_eq!(
            decision_meaning(Decision::Continue, &params(0.0, 5.0), "a", "b"),
            None
        );
    }
}
