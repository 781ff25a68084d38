//! The words and number formats every view uses for the same things, so that the terminal
//! tables, the reports and the live view never say different things about one test or print
//! one quantity two ways by accident:
//! - a sequential test's decision ([`decision_label`], [`decision_mark`], [`decision_meaning`],
//!   [`decision_evidence`]), and what it is worth in a run that measured nothing
//!   ([`unmeasured_decision`]);
//! - spans of time, one function per format ([`duration_compact`], [`duration_hms`],
//!   [`duration_clock`]);
//! - large counts with a unit suffix ([`count_compact`], [`rate_compact`]);
//! - a run's name as a spectator knows it ([`run_name`]): its engines;
//! - a game's result as a disc difference ([`disc_difference`]) and the side whose view a
//!   score is given from ([`SCORES_VIEW`]).
//!
//! Names of values that have one spelling everywhere (a termination, an SPRT model or unit) are
//! the types' own `as_str`.

use harness_core::stats::sprt::{Decision, SprtParams};
use std::time::Duration;

/// `H1 accepted`, `H0 accepted` or `no decision`.
pub fn decision_label(decision: Decision) -> &'static str {
    match decision {
        Decision::AcceptH1 => "H1 accepted",
        Decision::AcceptH0 => "H0 accepted",
        Decision::Continue => "no decision",
    }
}

/// What a test's decision is worth in a run that measured nothing (an engine never made a
/// move of its own): nothing, and that is what every view says in its place.
pub fn unmeasured_decision(decision: Decision) -> String {
    match decision {
        Decision::Continue => "no decision, and none could count: an engine never made a move".to_string(),
        decided => format!(
            "no measurement: the test's {} was reached on forfeits alone (an engine never made a move) and does not count",
            decision_label(decided)
        ),
    }
}

/// Why a decided test decided: the LLR against the bound it crossed (`ge` and `le` are the
/// view's signs, `digits` its precision). A run's final LLR counts every complete pair, also
/// those in flight when the test crossed and finished after it (as fishtest counts them), so
/// it may have fallen back inside the bounds: then both facts are said, never "2.92 ≥ 2.94".
pub fn decision_evidence(
    decision: Decision,
    llr: f64,
    (lower, upper): (f64, f64),
    digits: usize,
    (ge, le): (&str, &str),
) -> String {
    let crossed = |bound: f64| {
        format!(
            "the LLR crossed {bound:.digits$} when the test decided; with the pairs then in flight finished it is {llr:.digits$}"
        )
    };
    match decision {
        Decision::AcceptH1 if llr >= upper => format!("LLR {llr:.digits$} {ge} {upper:.digits$}"),
        Decision::AcceptH1 => crossed(upper),
        Decision::AcceptH0 if llr <= lower => format!("LLR {llr:.digits$} {le} {lower:.digits$}"),
        Decision::AcceptH0 => crossed(lower),
        Decision::Continue => format!("LLR {llr:.digits$}"),
    }
}

/// ` · H1 accepted`, ` · H0 accepted` or nothing: the decision on a gauge's label (the
/// terminal's), worded as [`decision_label`] words it; ` · no measurement` for a decision that
/// does not measure the run (`measures` false: see [`unmeasured_decision`]).
pub fn decision_mark(decision: Decision, measures: bool) -> &'static str {
    match decision {
        _ if !measures => " · no measurement",
        Decision::AcceptH1 => " · H1 accepted",
        Decision::AcceptH0 => " · H0 accepted",
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

/// A span in whole seconds with at most two units and no spaces: `1h02m`, `3m05s`, `12s` (the
/// live view's elapsed time and estimate of the end).
pub fn duration_compact(d: Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s / 60) % 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// A span of `secs` seconds with every unit down to the second, spaced: `1h 02m 03s`,
/// `2m 05s`; under a minute in tenths: `12.3s` (the reports' elapsed and engine time).
pub fn duration_hms(secs: f64) -> String {
    if secs < 60.0 {
        return format!("{secs:.1}s");
    }
    let total = secs.round() as u64;
    let (h, m, s) = (total / 3600, total / 60 % 60, total % 60);
    if h > 0 {
        format!("{h}h {m:02}m {s:02}s")
    } else {
        format!("{m}m {s:02}s")
    }
}

/// A run's elapsed time as the reports and the command's last lines say it: the total, with
/// the latest session's part when earlier sessions played too (`1m 05s, this session 12.0s`),
/// and a merged run's span with its shards' sum (`2m 10s, its shards' sum 4m 02s`).
pub fn elapsed_words(total: f64, session: Option<f64>, shards_sum: Option<f64>) -> String {
    let mut words = duration_hms(total);
    if let Some(sum) = shards_sum {
        words.push_str(&format!(", its shards' sum {}", duration_hms(sum)));
    } else if let Some(own) = session.filter(|own| (total - own).abs() >= 0.05) {
        words.push_str(&format!(", this session {}", duration_hms(own)));
    }
    words
}

/// A clock's time left in tenths: `1:05.3` from a minute up, `12.3s` under it (the unit said,
/// since `12.3` alone could be minutes).
pub fn duration_clock(d: Duration) -> String {
    let ms = d.as_millis();
    let (m, s, t) = (ms / 60_000, (ms / 1000) % 60, (ms / 100) % 10);
    if m > 0 {
        format!("{m}:{s:02}.{t}")
    } else {
        format!("{s}.{t}s")
    }
}

/// A count with a unit suffix and three or four figures: `950`, `12.3k`, `4.56M`, `1.20G` (the
/// live view's nodes and nodes per second).
pub fn count_compact(n: u64) -> String {
    let f = n as f64;
    if n < 1000 {
        n.to_string()
    } else if f < 1e6 {
        format!("{:.1}k", f / 1e3)
    } else if f < 1e9 {
        format!("{:.2}M", f / 1e6)
    } else {
        format!("{:.2}G", f / 1e9)
    }
}

/// A rate with a unit suffix, whole below a million: `950`, `812k`, `6.73M` (the Engines
/// table's nodes per second).
pub fn rate_compact(rate: f64) -> String {
    if rate >= 1e6 {
        format!("{:.2}M", rate / 1e6)
    } else if rate >= 1e3 {
        format!("{:.0}k", rate / 1e3)
    } else {
        format!("{rate:.0}")
    }
}

/// A run's name as a spectator knows it, from its format and engines (in the tournament's
/// order): `strong vs heuristic` for two, `strong vs a, b, c` for a gauntlet (its first engine
/// against the others), `round robin: a, b, c` for a round robin; past [`NAMED_ENGINES`]
/// engines the rest are counted (`… and 4 more`).
pub fn run_name(format: &str, engines: &[&str]) -> String {
    let list = |names: &[&str]| {
        let shown = names.len().min(NAMED_ENGINES);
        let mut text = names[..shown].join(", ");
        if names.len() > shown {
            text.push_str(&format!(" and {} more", names.len() - shown));
        }
        text
    };
    match (format, engines) {
        (_, []) => "a run with no engines".into(),
        (_, [a, b]) => format!("{a} vs {b}"),
        ("gauntlet", [first, rest @ ..]) => format!("{first} vs {}", list(rest)),
        ("round-robin", _) => format!("round robin: {}", list(engines)),
        _ => list(engines),
    }
}

/// How many engines [`run_name`] names before it counts the rest.
pub const NAMED_ENGINES: usize = 5;

/// A game's final disc difference, from Black's view as records keep it: `Black +20 (disc
/// difference)`, `Black -58 (disc difference)`. Never "Black's discs": -58 is a difference,
/// not a count.
pub fn disc_difference(black_view: i32) -> String {
    format!("Black {black_view:+} (disc difference)")
}

/// The one view every score of a game is shown from where both engines' scores stand side by
/// side (the evaluation chart, the browser's move list and search reports): Black's, `+` good
/// for Black.
pub const SCORES_VIEW: &str = "discs, Black's view";

/// The most a score in discs can be (every square of the board one side's): the ABI's unit.
/// A score past it is not a disc count, and the views say so rather than plot it as one.
pub const DISC_RANGE: f64 = 64.0;

/// `, 3 scores past ±64 left out` where an engine reported scores out of the disc range,
/// else nothing: the note the evaluation charts carry.
pub fn out_of_range_note(left_out: usize) -> String {
    match left_out {
        0 => String::new(),
        1 => format!(", 1 score past ±{DISC_RANGE} left out"),
        n => format!(", {n} scores past ±{DISC_RANGE} left out"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness_core::stats::sprt::{Model, Unit};

    /// A run that decided H1 at 2.95 and finished its pair in flight at 2.919 (seen in a real
    /// run: it printed "LLR 2.919 >= 2.944") says both, and never a false inequality.
    #[test]
    fn the_evidence_of_a_decision_is_never_a_false_inequality() {
        let bounds = (-2.944, 2.944);
        let signs = (">=", "<=");
        let e = |d, llr| decision_evidence(d, llr, bounds, 3, signs);
        assert_eq!(e(Decision::AcceptH1, 3.01), "LLR 3.010 >= 2.944");
        assert_eq!(
            e(Decision::AcceptH1, 2.919),
            "the LLR crossed 2.944 when the test decided; with the pairs then in flight finished it is 2.919"
        );
        assert_eq!(e(Decision::AcceptH0, -3.0), "LLR -3.000 <= -2.944");
        assert!(e(Decision::AcceptH0, -2.5).starts_with("the LLR crossed -2.944"));
    }

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

    /// The meaning follows the bounds: a non-regression test that accepts H1 says "is not
    /// weaker", never "is stronger".
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

    /// Each format as its doc says it.
    #[test]
    fn durations_and_counts_keep_their_formats() {
        let secs = Duration::from_secs;
        assert_eq!(duration_compact(secs(12)), "12s");
        assert_eq!(duration_compact(secs(185)), "3m05s");
        assert_eq!(duration_compact(secs(3725)), "1h02m");
        assert_eq!(duration_hms(12.34), "12.3s");
        assert_eq!(duration_hms(125.4), "2m 05s");
        assert_eq!(duration_hms(3723.0), "1h 02m 03s");
        assert_eq!(duration_clock(Duration::from_millis(12_345)), "12.3s");
        assert_eq!(duration_clock(Duration::from_millis(65_300)), "1:05.3");
        assert_eq!(count_compact(950), "950");
        assert_eq!(count_compact(12_345), "12.3k");
        assert_eq!(count_compact(4_560_000), "4.56M");
        assert_eq!(count_compact(1_200_000_000), "1.20G");
        assert_eq!(rate_compact(950.0), "950");
        assert_eq!(rate_compact(812_345.0), "812k");
        assert_eq!(rate_compact(6.73e6), "6.73M");
    }

    /// A result is a difference, and a run is named by its engines.
    #[test]
    fn results_and_runs_keep_their_wording() {
        assert_eq!(disc_difference(20), "Black +20 (disc difference)");
        assert_eq!(
            run_name("match", &["strong", "heuristic"]),
            "strong vs heuristic"
        );
        assert_eq!(run_name("gauntlet", &["s", "a", "b"]), "s vs a, b");
        assert_eq!(
            run_name("round-robin", &["a", "b", "c"]),
            "round robin: a, b, c"
        );
        let many = ["a", "b", "c", "d", "e", "f", "g"];
        assert_eq!(
            run_name("round-robin", &many),
            "round robin: a, b, c, d, e and 2 more"
        );
        assert_eq!(disc_difference(-58), "Black -58 (disc difference)");
    }
}
