//! `decision.json`: what `merge --watch` records when the sequential test of a sharded run
//! decides, in the run's folder. It is the run's decision from then on: the merged run, its
//! statistics, its reports and the ledger take the decision from here (the pairs still in
//! flight when the test crossed may move the final LLR back inside the bounds). One type,
//! [`DecisionRecord`], one reader ([`DecisionRecord::read`]) and one writer
//! ([`DecisionRecord::write`]); its schema is `reports/decision.schema.json`.

use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file's name in a run folder.
pub const DECISION_FILE: &str = "decision.json";

/// The outcome of a sequential test so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    AcceptH1,
    AcceptH0,
    Continue,
}

/// What the Elo bounds mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// Logistic Elo: a bound is an expected score.
    Logistic,
    /// Normalised Elo: a bound is a t-value (signal over noise), independent of the draw rate.
    Normalized,
}

/// The unit of observation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Single games: loss, draw, win.
    Trinomial,
    /// Complete game pairs: LL, LD, WL+DD, WD, WW.
    Pentanomial,
    /// Complete game pairs by their summed disc difference (normalised model only).
    Discs,
}

/// A test's parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtParams {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: Model,
    pub unit: Unit,
}

/// A test's decision as the watcher took it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DecisionRecord {
    pub decision: Decision,
    /// The log-likelihood ratio when it crossed, and the bounds it crossed.
    pub llr: f64,
    pub lower_bound: f64,
    pub upper_bound: f64,
    /// Pairs (or games, for a per-game model) counted.
    pub observations: u64,
    pub candidate: String,
    pub baseline: String,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Pairs scoring 0, ½, 1, 1½ and 2 for the candidate.
    pub pentanomial: [u64; 5],
    /// The test's parameters.
    pub params: SprtParams,
    /// When it decided (seconds since the Unix epoch) and after how long a watch.
    pub decided_at_unix: f64,
    pub watch_seconds: f64,
}

impl DecisionRecord {
    /// The decision recorded in the run folder `dir`; `None` when there is none.
    pub fn read(dir: &Path) -> anyhow::Result<Option<DecisionRecord>> {
        let folder = super::run_folder::RunFolder::at(dir);
        let path = folder.file(DECISION_FILE);
        let Some(text) = folder.read_file(DECISION_FILE)? else {
            return Ok(None);
        };
        let record = serde_json::from_str(&text)
            .with_context(|| format!("{}: not a decision of this harness", path.display()))?;
        Ok(Some(record))
    }

    /// Only the decision recorded in `dir`, if there is one.
    pub fn decision_in(dir: &Path) -> anyhow::Result<Option<Decision>> {
        Ok(DecisionRecord::read(dir)?.map(|r| r.decision))
    }

    /// Write the record into `dir`, whole or not at all.
    pub fn write(&self, dir: &Path) -> anyhow::Result<std::path::PathBuf> {
        let path = dir.join(DECISION_FILE);
        let text = serde_json::to_string_pretty(self).expect("JSON of plain values") + "\n";
        super::journal::write_durably(&path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(path)
    }
}
