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
