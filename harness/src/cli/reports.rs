//! The reports of an output folder, written by whichever command ends or rewrites a run:
//! `run` and `merge` with their verdict, `tune` for its games, `analyze` and `stats` from the
//! folder's files alone. Every writer takes the folder's analysis along, so a rewrite never
//! drops it.

use crate::host::sandbox::Enforced;
use crate::plan::config::Tournament;
use crate::play::resume::ENFORCED_KEY;
use crate::record::analysis::read_analysis;
use crate::record::journal;
use crate::record::GameRecord;
use crate::show::report;
use std::path::Path;
use std::time::Duration;

/// Write report.json, report.md and report.html of `t`'s folder, with the folder's analysis
/// when it has one (a rewrite never drops what `harness analyze` found). A failure is a
/// warning, never fatal: the journal is the record.
pub fn write_reports(
    t: &Tournament,
    records: &[GameRecord],
    elapsed: Option<Duration>,
    finished: bool,
    verdict: Option<&report::VerdictReport>,
) {
    let analysis = match read_analysis(&t.out) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("warning: the reports leave the analysis out: {e:#}");
            Vec::new()
        }
    };
    let enforced = sandbox_enforced(&t.out);
    let input = report::ReportInput {
        tournament: t,
        records,
        elapsed,
        finished,
        analysis: Some(&analysis[..]).filter(|a| !a.is_empty()),
        verdict,
        sandbox_enforced: &enforced,
    };
    if let Err(e) = report::write_reports(&t.out, &input) {
        eprintln!(
            "warning: cannot write the reports in {}: {e:#}",
            t.out.display()
        );
    }
}

/// What the kernel enforced of each engine's sandbox, in words, as the folder's
/// `tournament.json` records it (empty for a folder without one, or of an earlier version).
fn sandbox_enforced(folder: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(folder.join(journal::FINGERPRINT_FILE)).unwrap_or_default();
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Vec::new();
    };
    let Some(by_engine) = value[ENFORCED_KEY].as_object() else {
        return Vec::new();
    };
    let words =
        |record: &serde_json::Value| match serde_json::from_value::<Enforced>(record.clone()) {
            Ok(enforced) => enforced.to_string(),
            Err(_) => record.as_str().unwrap_or("unknown").to_string(),
        };
    by_engine
        .iter()
        .map(|(name, r)| (name.clone(), words(r)))
        .collect()
}

/// Rewrite the reports of an output folder from its files alone: the tournament it is pinned
/// to, its journal, its analysis (after `harness analyze`) and what its last report said of
/// the run's end. A folder without a
/// `tournament.json` (a journal copied on its own) has no tournament to report on: nothing is
/// written.
pub fn refresh_reports(folder: &Path) -> anyhow::Result<()> {
    let Ok(pinned) = std::fs::read_to_string(folder.join(journal::FINGERPRINT_FILE)) else {
        return Ok(());
    };
    let mut t = crate::play::resume::tournament_of(&pinned)?;
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
    let (finished, verdict) =
        report::read_conclusion(folder).unwrap_or_else(|| (records.len() >= t.game_count(), None));
    let enforced = sandbox_enforced(folder);
    let input = report::ReportInput {
        tournament: &t,
        records: &records,
        elapsed: None,
        finished,
        analysis: Some(&analysis[..]).filter(|a| !a.is_empty()),
        verdict: verdict.as_ref(),
        sandbox_enforced: &enforced,
    };
    report::write_reports(folder, &input)
}
