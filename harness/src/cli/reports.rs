//! The reports of an output folder, written by whichever command ends or rewrites a run:
//! `run` and `merge` with their verdict, `tune` for its games, `analyze` and `stats` from the
//! folder's files alone. Every writer takes the folder's analysis along, so a rewrite never
//! drops it.

use crate::show::report;
use harness_core::plan::config::Tournament;
use harness_core::record::analysis::read_analysis;
use harness_core::record::journal;
use harness_core::record::tournament_record::{TournamentRecord, TOURNAMENT_FILE};
use harness_core::record::verdict_record::{Conclusion, Elapsed, RunVerdict};
use harness_core::record::GameRecord;
use std::path::Path;

/// Write the run's end (`verdict.json`: the verdict of a run that ended; none while it goes
/// on), then report.json, report.md and report.html of `t`'s folder, with the folder's
/// analysis when it has one (a rewrite never drops what `harness analyze` found). A failure is
/// a warning, never fatal: the journal is the record.
pub fn write_reports(
    t: &Tournament,
    records: &[GameRecord],
    elapsed: Option<Elapsed>,
    finished: bool,
    verdict: Option<&RunVerdict>,
) {
    // The run's end first, so that no report states a verdict the folder does not record.
    let conclusion = Conclusion {
        finished,
        verdict: verdict.cloned(),
        elapsed,
    };
    if let Err(e) = conclusion.write(&t.out) {
        eprintln!("warning: {e:#}");
    }
    let analysis = match read_analysis(&t.out) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("warning: the reports leave the analysis out: {e:#}");
            Vec::new()
        }
    };
    let enforced = sandbox_enforced(&t.out);
    let test = run_test(t, &t.out, records);
    let input = report::ReportInput {
        tournament: t,
        records,
        elapsed,
        finished,
        analysis: Some(&analysis[..]).filter(|a| !a.is_empty()),
        verdict,
        sandbox_enforced: &enforced,
        test: test.as_ref(),
    };
    if let Err(e) = report::write_reports(&t.out, &input) {
        eprintln!(
            "warning: cannot write the reports in {}: {e:#}",
            t.out.display()
        );
    }
}

/// The sequential test of the run in `folder` as decided (`stats::test_decision`): on the
/// folder's journal in its own order, with the watcher's `decision.json` when there is one;
/// on `records` where the folder has no journal (yet).
pub fn run_test(
    t: &Tournament,
    folder: &Path,
    records: &[GameRecord],
) -> Option<harness_core::stats::sprt::SprtStatus> {
    t.sprt.as_ref()?;
    let path = folder.join(journal::JSONL_FILE);
    let journal_order = path
        .exists()
        .then(|| journal::read_journal(&path).ok())
        .flatten()
        .filter(|read| read.len() == records.len());
    let recorded = harness_core::record::decision_record::DecisionRecord::decision_in(folder)
        .ok()
        .flatten();
    t.test_status(journal_order.as_deref().unwrap_or(records), recorded)
}

/// What the kernel enforced of each engine's sandbox, in words, as the folder's
/// `tournament.json` records it (empty for a folder without one, or of an earlier version).
fn sandbox_enforced(folder: &Path) -> Vec<(String, String)> {
    let Ok(record) = TournamentRecord::read(folder) else {
        return Vec::new();
    };
    record
        .sandbox_enforced
        .unwrap_or_default()
        .into_iter()
        .map(|(name, enforced)| (name, enforced.to_string()))
        .collect()
}

/// Rewrite the reports of an output folder from its files alone: the tournament it is pinned
/// to, its journal, its analysis (after `harness analyze`) and its end as recorded
/// (`verdict.json`). A folder without a
/// `tournament.json` (a journal copied on its own) has no tournament to report on: nothing is
/// written.
pub fn refresh_reports(folder: &Path) -> anyhow::Result<()> {
    if !folder.join(TOURNAMENT_FILE).exists() {
        return Ok(());
    }
    let mut t = harness_core::plan::recorded::tournament_of(&TournamentRecord::read(folder)?)?;
    t.out = folder.to_path_buf();
    let path = folder.join(journal::JSONL_FILE);
    let records = if path.exists() {
        journal::read_journal(&path)?
    } else {
        Vec::new()
    };
    let analysis = read_analysis(folder)?;
    // The run's own word on its end stands: a rewrite neither ends a live run nor revives a
    // finished one.
    let mut conclusion = Conclusion::read(folder)?.unwrap_or(Conclusion {
        finished: records.len() >= t.game_count(),
        verdict: None,
        elapsed: None,
    });
    // A run without its end recorded (it goes on, or was killed): its time as its clock
    // last said.
    if conclusion.verdict.is_none() {
        if let Some(clock) = harness_core::record::run_clock::ClockFile::read(folder)? {
            conclusion.elapsed = Some(clock.elapsed());
        }
    }
    let enforced = sandbox_enforced(folder);
    let test = run_test(&t, folder, &records);
    let input = report::ReportInput {
        tournament: &t,
        records: &records,
        elapsed: conclusion.elapsed,
        finished: conclusion.finished,
        analysis: Some(&analysis[..]).filter(|a| !a.is_empty()),
        verdict: conclusion.verdict.as_ref(),
        sandbox_enforced: &enforced,
        test: test.as_ref(),
    };
    report::write_reports(folder, &input)
}
