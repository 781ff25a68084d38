//! The tournament and the schedule a run folder's `tournament.json` pins, rebuilt from the
//! record: what merge, the reports, the ledger and the browser read a finished or running
//! folder by.

use super::config::Tournament;
use super::schedule::PairedSchedule;
use crate::record::tournament_record::TournamentRecord;
use anyhow::Context;

/// The tournament a `tournament.json` was written for, rebuilt from its definition.
pub fn tournament_of(record: &TournamentRecord) -> anyhow::Result<Tournament> {
    let definition = record
        .definition
        .as_ref()
        .context("no `definition` (written by an older harness)")?;
    let mut t = definition.parse()?;
    // The clock scale the run measured (or a merge's, over its shards) is the run's own.
    t.clock_scale = record.clock_scale.clone();
    // A tune's folders hold its tune match (θ+ against θ−), not the file's tournament: the
    // engines pinned say which.
    let tournament_json = record.engine_names();
    if let Some(mut m) = t.tune_match() {
        let names: Vec<&str> = m.engines.iter().map(|e| e.name.as_str()).collect();
        if names == tournament_json {
            m.out = t.out.clone();
            m.clock_scale = t.clock_scale.clone();
            return Ok(m);
        }
    }
    Ok(t)
}

/// The schedule of the run `record` pins (the whole run's, also for a shard).
pub fn schedule_of(record: &TournamentRecord) -> anyhow::Result<PairedSchedule> {
    Ok(tournament_of(record)?.schedule(record.openings.count as usize))
}
