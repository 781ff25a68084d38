//! `verdict.json`: how a run ended, as the command that ended it decided (`run`, `sprt`,
//! `merge`), in the run's folder. It is the run's own word on its end: the reports state it,
//! the browser shows it, the ledger records it and `harness analyze` keeps it, each read
//! through [`Conclusion::read`]; none of them reads it back from a report.
//!
//! One writer, [`Conclusion::write`], called where the reports are written: a run that ends
//! writes its verdict before its reports; a run that goes on (started, resumed, extended) holds
//! none, and [`Conclusion::clear`] removes the one an earlier end left. A folder written before
//! this file existed kept the same facts in `report.json` (its `finished`, `verdict` and
//! `totals.elapsed_seconds`): the reader falls back to those. Schema:
//! `reports/verdict.schema.json`.

use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// The file's name in a run folder.
pub const VERDICT_FILE: &str = "verdict.json";

/// Where a folder written before `verdict.json` existed kept its verdict (the report the run
/// wrote last; see the module's docs).
const OLDER_REPORT_FILE: &str = "report.json";

/// How a run ended, as a CI job acts on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// H1 accepted, or no test and every game played with no rule broken.
    Pass,
    /// H0 accepted, or a fail-on rule was broken.
    Fail,
    /// The test's game budget ran out before it decided.
    Undecided,
    /// Stopped (a signal, a stop file) before every game was played and before the test
    /// decided; running it again resumes.
    Interrupted,
    /// A merge of shards that do not hold every game yet.
    Incomplete,
    /// One shard of a sharded run played all its games: the run's verdict is the merge's,
    /// over every shard, never a shard's.
    #[serde(rename = "shard-done")]
    ShardDone,
    /// An engine never made a move of its own in the run's games (book moves and forced
    /// passes are not its own), and the run would otherwise have passed (no test, H1, a shard
    /// done): nothing was measured. Exit code 2 (125 under `--exit-codes bisect`).
    Unmeasured,
}

impl Outcome {
    /// `pass`, `fail`, `shard-done`, …: the name the run files and the ledger store, and the
    /// ledger's tables print.
    pub fn key(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Undecided => "undecided",
            Outcome::Interrupted => "interrupted",
            Outcome::Incomplete => "incomplete",
            Outcome::ShardDone => "shard-done",
            Outcome::Unmeasured => "unmeasured",
        }
    }

    /// `PASS`, `FAIL`, … as a report's headline opens.
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Pass => "PASS",
            Outcome::Fail => "FAIL",
            Outcome::Undecided => "UNDECIDED",
            Outcome::Interrupted => "INTERRUPTED",
            Outcome::Incomplete => "INCOMPLETE",
            Outcome::ShardDone => "SHARD DONE",
            Outcome::Unmeasured => "UNMEASURED",
        }
    }
}

/// The verdict of a run that ended: the outcome, the process's exit code and the reasons (one
/// sentence each: the fail-on rules broken, the test's decision, why the run stopped).
/// `report.json` states it as its `verdict`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunVerdict {
    pub exit_code: i32,
    pub outcome: Outcome,
    pub reasons: Vec<String>,
    /// Per engine, the games of this session whose worker could not be started for it (its
    /// start, options or `new_game` failed): not results, so not in the journal; each game was
    /// tried again with a new worker. Empty (and not written) when every start succeeded.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub start_failures: BTreeMap<String, u64>,
}

/// A run's elapsed time as its end, its reports and its views state it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Elapsed {
    /// The run's time: its sessions' sum; for a merged run, the span of its shards.
    pub total: Duration,
    /// The latest session's own part of `total`, when the run was played in this folder.
    pub session: Option<Duration>,
    /// A merged run: the sum of its shards' totals (each shard's time, as if played one after
    /// another).
    pub shards_sum: Option<Duration>,
}

impl Elapsed {
    /// The seconds the run files hold of `elapsed`: `elapsed_seconds`, `session_seconds` and
    /// `shards_elapsed_seconds`.
    pub fn seconds(elapsed: Option<Elapsed>) -> (Option<f64>, Option<f64>, Option<f64>) {
        let secs = |d: Duration| d.as_secs_f64();
        (
            elapsed.map(|e| secs(e.total)),
            elapsed.and_then(|e| e.session).map(secs),
            elapsed.and_then(|e| e.shards_sum).map(secs),
        )
    }

    /// A run played in one go, or of which only the total is known.
    pub fn total(total: Duration) -> Elapsed {
        Elapsed {
            total,
            session: None,
            shards_sum: None,
        }
    }
}

/// What a folder records of its run's end.
#[derive(Clone, Debug, PartialEq)]
pub struct Conclusion {
    /// True when the run played all it was to play (or its test decided); false for a run
    /// stopped before its end, and for one that goes on.
    pub finished: bool,
    /// How it ended; `None` while it goes on.
    pub verdict: Option<RunVerdict>,
    /// The run's elapsed time ([`super::run_clock`]: its sessions' sum, its session's part, a
    /// merged run's span and sum), when it is known.
    pub elapsed: Option<Elapsed>,
}

/// `verdict.json` as written.
#[derive(Serialize, Deserialize)]
struct VerdictFile {
    finished: bool,
    verdict: RunVerdict,
    /// The run's total ([`Elapsed::total`]).
    elapsed_seconds: Option<f64>,
    /// The latest session's part of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    session_seconds: Option<f64>,
    /// A merged run: the sum of its shards' totals.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shards_elapsed_seconds: Option<f64>,
}

/// The keys an older folder's `report.json` kept of the run's end.
#[derive(Deserialize)]
struct OlderReport {
    finished: bool,
    verdict: Option<RunVerdict>,
    totals: Option<OlderTotals>,
}

#[derive(Deserialize)]
struct OlderTotals {
    elapsed_seconds: Option<f64>,
}

/// Seconds as a wall time, when they are one.
fn duration(seconds: Option<f64>) -> Option<Duration> {
    seconds
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
}

impl Conclusion {
    /// What the folder `dir` records of its run's end: its `verdict.json`, or an older
    /// folder's last report; `None` when it records nothing (a run that never wrote a report,
    /// a folder of another program). A `verdict.json` that cannot be read or parsed is an
    /// error that names it, never "no verdict"; an older report that is not one is nothing.
    pub fn read(dir: &Path) -> anyhow::Result<Option<Conclusion>> {
        let folder = super::run_folder::RunFolder::at(dir);
        let path = folder.file(VERDICT_FILE);
        if let Some(text) = folder.read_file(VERDICT_FILE)? {
            let file: VerdictFile = serde_json::from_str(&text)
                .with_context(|| format!("{}: not a run's verdict", path.display()))?;
            return Ok(Some(Conclusion {
                finished: file.finished,
                verdict: Some(file.verdict),
                elapsed: duration(file.elapsed_seconds).map(|total| Elapsed {
                    total,
                    session: duration(file.session_seconds),
                    shards_sum: duration(file.shards_elapsed_seconds),
                }),
            }));
        }
        let Some(text) = folder.read_file(OLDER_REPORT_FILE)? else {
            return Ok(None);
        };
        // A report of this version has no verdict of its own to give (`verdict.json` has it);
        // one of an older version does.
        let Ok(older) = serde_json::from_str::<OlderReport>(&text) else {
            return Ok(None);
        };
        Ok(Some(Conclusion {
            finished: older.finished,
            verdict: older.verdict,
            elapsed: duration(older.totals.and_then(|t| t.elapsed_seconds)).map(Elapsed::total),
        }))
    }

    /// Record the end of the run in `dir`, whole or not at all; a conclusion without a
    /// verdict (a run that goes on) removes the one an earlier end left.
    pub fn write(&self, dir: &Path) -> anyhow::Result<()> {
        let Some(verdict) = &self.verdict else {
            return Conclusion::clear(dir);
        };
        let (elapsed_seconds, session_seconds, shards_elapsed_seconds) =
            Elapsed::seconds(self.elapsed);
        let file = VerdictFile {
            finished: self.finished,
            verdict: verdict.clone(),
            elapsed_seconds,
            session_seconds,
            shards_elapsed_seconds,
        };
        let path = dir.join(VERDICT_FILE);
        let text = serde_json::to_string_pretty(&file).expect("JSON of plain values") + "\n";
        super::journal::write_durably(&path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))
    }

    /// A run goes on in `dir`: the verdict of its earlier end, if any, no longer holds.
    pub fn clear(dir: &Path) -> anyhow::Result<()> {
        let path = dir.join(VERDICT_FILE);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e).with_context(|| format!("cannot remove {}", path.display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ended(outcome: Outcome, exit_code: i32) -> Conclusion {
        Conclusion {
            finished: true,
            verdict: Some(RunVerdict {
                exit_code,
                outcome,
                reasons: vec!["the test accepted H1".into()],
                start_failures: BTreeMap::from([("base".to_string(), 2)]),
            }),
            elapsed: Some(Elapsed {
                total: Duration::from_millis(61_300),
                session: Some(Duration::from_millis(1_700)),
                shards_sum: None,
            }),
        }
    }

    /// A fresh folder of this test's own.
    fn folder(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("verdict-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_written_verdict_reads_back_and_a_run_that_goes_on_clears_it() {
        let dir = folder("written");
        assert_eq!(Conclusion::read(&dir).unwrap(), None);
        let conclusion = ended(Outcome::Pass, 0);
        conclusion.write(&dir).unwrap();
        assert_eq!(Conclusion::read(&dir).unwrap(), Some(conclusion));
        // The schema names every key written, and what it requires is there.
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../../../reports/verdict.schema.json")).unwrap();
        let written: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(VERDICT_FILE)).unwrap())
                .unwrap();
        for (node, value) in [
            (&schema, &written),
            (&schema["properties"]["verdict"], &written["verdict"]),
        ] {
            let keys = value.as_object().unwrap().keys();
            for key in keys {
                assert!(
                    node["properties"].get(key).is_some(),
                    "`{key}` not in the schema"
                );
            }
            for key in node["required"].as_array().unwrap() {
                assert!(value.get(key.as_str().unwrap()).is_some(), "{key} required");
            }
        }
        // The verdict is the run's, not the last report's: a report that says otherwise is
        // not read while verdict.json is there.
        std::fs::write(
            dir.join(OLDER_REPORT_FILE),
            r#"{"finished": false, "verdict": null}"#,
        )
        .unwrap();
        assert_eq!(
            Conclusion::read(&dir).unwrap(),
            Some(ended(Outcome::Pass, 0))
        );
        let going_on = Conclusion {
            finished: false,
            verdict: None,
            elapsed: None,
        };
        going_on.write(&dir).unwrap();
        assert!(!dir.join(VERDICT_FILE).exists());
        // Then the folder's report is all there is.
        assert_eq!(Conclusion::read(&dir).unwrap(), Some(going_on));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_older_folder_s_report_is_read_for_its_verdict() {
        let dir = folder("older");
        std::fs::write(
            dir.join(OLDER_REPORT_FILE),
            r#"{"schema_version": 9, "finished": true,
                "verdict": {"exit_code": 1, "outcome": "fail", "reasons": ["the test accepted H0"]},
                "totals": {"games": 12, "elapsed_seconds": 61.3}}"#,
        )
        .unwrap();
        let read = Conclusion::read(&dir).unwrap().unwrap();
        assert!(read.finished);
        assert_eq!(read.verdict.unwrap().outcome, Outcome::Fail);
        assert_eq!(
            read.elapsed.map(|e| e.total),
            Some(Duration::from_secs_f64(61.3))
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_outcome_s_key_is_its_name_in_the_files() {
        for o in [
            Outcome::Pass,
            Outcome::Fail,
            Outcome::Undecided,
            Outcome::Interrupted,
            Outcome::Incomplete,
            Outcome::ShardDone,
            Outcome::Unmeasured,
        ] {
            assert_eq!(serde_json::to_value(o).unwrap(), o.key());
        }
    }

    #[test]
    fn a_verdict_that_cannot_be_read_is_an_error_naming_it_not_no_verdict() {
        let dir = folder("corrupt");
        std::fs::write(dir.join(VERDICT_FILE), "{\"finished\": tr").unwrap();
        let e = Conclusion::read(&dir).unwrap_err();
        assert!(format!("{e:#}").contains(VERDICT_FILE), "{e:#}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
