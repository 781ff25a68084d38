//! The run's sequential test as every view states it (`harness stats`, the reports, the
//! browser, the ledger): the LLR over every complete pair of the run, with the decision the
//! test took where it first crossed a bound, or the one the watcher recorded in
//! `decision.json`, which is the run's once written. The crossing is found walking the games
//! in the journal's order: the order they finished, in which the coordinator counted them and
//! took its decision (a merged journal is in game order, as `merge` decides). The pairs in flight when the test crossed count in the LLR, so a decided test's
//! final LLR may have moved back inside its bounds; the decision stands (as fishtest counts).

use super::running::RunningTotals;
use super::sprt::{Decision, SprtParams, SprtStatus};
use crate::record::GameRecord;

/// The test of `params` between `candidate` and `baseline` on `records` (in journal order),
/// decided as the module says; `recorded` is the watcher's decision, when there is one.
pub fn decided(
    params: SprtParams,
    (candidate, baseline): (&str, &str),
    records: &[GameRecord],
    recorded: Option<Decision>,
) -> SprtStatus {
    let decision = recorded
        .or_else(|| first_crossing(params, (candidate, baseline), records).map(|s| s.decision));
    let mut status = params.status_of_records(records, candidate, baseline);
    if let Some(d) = decision {
        status.decision = d;
    }
    status
}

/// Where the test first crossed a bound, walking `records` in journal order; `None` if it never
/// crossed.
pub fn first_crossing(
    params: SprtParams,
    (candidate, baseline): (&str, &str),
    records: &[GameRecord],
) -> Option<SprtStatus> {
    let mut totals = RunningTotals::new(records.len() / 2, Some((params, candidate, baseline)));
    for r in records {
        if totals.add(r).is_some() {
            let status = totals.sprt_status()?;
            if status.decision != Decision::Continue {
                return Some(status);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::sprt::{Model, Unit};

    /// Game `game` of pair `game / 2` (colours swapped in the second), won by `winner`.
    fn game(game: usize, winner: &str) -> GameRecord {
        let (black, white) = if game.is_multiple_of(2) {
            ("a", "b")
        } else {
            ("b", "a")
        };
        let score = if winner == black { 10 } else { -10 };
        serde_json::from_value(serde_json::json!({
            "game": game, "pair": game / 2, "black": black, "white": white,
            "opening": {"index": 0, "line": 1, "text": ""},
            "start": othello_board::Position::START.to_string(), "moves": [],
            "discs": {"black": 32 + score / 2, "white": 32 - score / 2}, "score": score,
            "result": GameRecord::result_text(score), "termination": "normal",
            "time_ms": {"black": 0, "white": 0}, "nodes": {"black": 0, "white": 0},
        }))
        .expect("a record")
    }

    /// A test that crossed H1 and then lost pairs until its LLR fell back inside the bounds
    /// stays decided (as the coordinator decided it); the watcher's decision overrides; a test
    /// that never crossed has no decision.
    #[test]
    fn a_crossing_stands_though_the_llr_moves_back() {
        let params =
            SprtParams::new(0.0, 20.0, 0.05, 0.05, Model::Logistic, Unit::Pentanomial).unwrap();
        // Pairs the candidate wins both games of (`2`), splits (`1`) or loses both (`0`).
        let pairs = |from: usize, points: &[u8]| -> Vec<GameRecord> {
            let mut out = Vec::new();
            for (i, p) in points.iter().enumerate() {
                let g = 2 * (from + i);
                out.push(game(g, if *p >= 1 { "a" } else { "b" }));
                out.push(game(g + 1, if *p == 2 { "a" } else { "b" }));
            }
            out
        };
        let winning: Vec<u8> = (0..60).map(|i| if i % 4 == 3 { 1 } else { 2 }).collect();
        let mut records = pairs(0, &winning);
        let crossed = first_crossing(params, ("a", "b"), &records).expect("it crossed");
        assert_eq!(crossed.decision, Decision::AcceptH1);
        let losing: Vec<u8> = (0..60).map(|i| if i % 4 == 3 { 1 } else { 0 }).collect();
        records.extend(pairs(60, &losing));
        let now = params.status_of_records(&records, "a", "b");
        assert_ne!(
            now.decision,
            Decision::AcceptH1,
            "the LLR fell back: {}",
            now.llr
        );
        let status = decided(params, ("a", "b"), &records, None);
        assert_eq!(status.decision, Decision::AcceptH1);
        assert_eq!(status.llr, now.llr, "the LLR counts every pair");
        let watched = decided(params, ("a", "b"), &records, Some(Decision::AcceptH0));
        assert_eq!(watched.decision, Decision::AcceptH0);
        let even = pairs(0, &[1; 20]);
        assert_eq!(
            decided(params, ("a", "b"), &even, None).decision,
            Decision::Continue
        );
    }
}
