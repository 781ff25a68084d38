//! `tournament.json`: what a run folder records of the tournament its games belong to. Written
//! once when a run first starts (again when it is extended or its build claims change, and by
//! `merge`), it pins the folder: a resumed run, a shard merged, a ledger entry, a served page
//! all read the tournament from here. One type, [`TournamentRecord`], with one reader
//! ([`TournamentRecord::read`] / [`TournamentRecord::parse`]) and one writer
//! ([`TournamentRecord::text`]); its schema is `reports/tournament.schema.json`.
//!
//! What decides the games is typed here (engines, digests, options, time, openings, shard);
//! the parts only the planner interprets (the tournament file's text, the sandbox settings, a
//! tune's table, the clock scale) are kept as JSON values it reads back. A key this version
//! does not know (written by a newer harness) is kept as read, so nothing is lost on rewrite.
//!
//! The text is JSON with its keys sorted at every level and two-space indents, as every version
//! has written it, so that a folder's file and a freshly made one compare byte for byte.

use anyhow::Context;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::Path;

/// The file's name in a run folder.
pub const TOURNAMENT_FILE: &str = "tournament.json";

/// A run folder's `tournament.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TournamentRecord {
    /// `match`, `round-robin` or `gauntlet`.
    pub format: String,
    /// Pairs per pairing.
    pub pairs: u64,
    /// The `[time]` table's control as written (`depth=2`, `1+0.05`, …).
    pub time: String,
    pub margin_ms: u64,
    pub stall_timeout_ms: u64,
    /// How a clock's margin is used: `charged` (a move's time past the clock, within the
    /// margin, is charged to the clock, which may go below zero). Absent in folders of
    /// versions before it, whose rule forgave that time (the clock never went below zero):
    /// such a run does not resume under the new rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin_rule: Option<String>,
    pub openings: OpeningsRecord,
    /// The `[sprt]` table, when the run has a test (`null` when it has none).
    pub sprt: Option<SprtRecord>,
    pub engines: Vec<EngineRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adjudication: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nps_reference: Option<NpsReference>,
    /// The shard this folder plays, for one shard of a sharded run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardRecord>,
    /// A tune's table as the planner pins it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tune: Option<Value>,
    /// The clock scale this run measured for itself (not compared on resume).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_scale: Option<Value>,
    /// What the kernel enforced of each engine's sandbox, by engine name. Not part of the
    /// tournament's identity; a resume compares its fair-play terms (the CPU cap, the
    /// namespaces) with what the resumed run's workers get.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_enforced: Option<Value>,
    /// How each engine's workers were stopped between turns (`cgroup.freeze`,
    /// `freezer.state`, `SIGSTOP`, `none (ponder = true)`, …), by engine name. A resume
    /// compares whether each engine was stopped at all, not by which route.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stop_routes: BTreeMap<String, String>,
    /// The tournament file's text and the command, which the tournament is rebuilt from
    /// (absent in folders of the earliest versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<Value>,
    /// Keys of a newer version, kept as read.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Where the openings come from and which were drawn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpeningsRecord {
    /// `{"builtin": NAME}` or `{"file": PATH}`.
    pub source: Value,
    /// `"sequential"` or `{"shuffled": {"seed": N}}`.
    pub order: Value,
    pub start: u64,
    /// How many openings the set holds.
    pub count: u64,
    /// FNV-1a of the openings' texts joined by newlines, 16 hex digits.
    pub fnv1a: String,
}

/// The sequential test's table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtRecord {
    /// The test's parameters as `stats::sprt::SprtParams` writes them.
    pub params: Value,
    pub fail_on_crash: bool,
    pub fail_on_forfeit: bool,
}

/// One engine of the tournament.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EngineRecord {
    pub name: String,
    /// How the plugin was named: `{"name": N}` (a shipped engine) or `{"path": P}`.
    pub plugin: Value,
    /// FNV-1a of the plugin file: with the options, the player.
    pub plugin_fnv1a: String,
    /// The plugin's options as `[[KEY, VALUE], …]`.
    pub options: Value,
    /// The sandbox setting (absent in folders of versions before it: the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_limit: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bench: Option<u64>,
    /// Which commit claims the plugin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<Build>,
    /// The engine's own time rules, when it has some.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<EngineTime>,
    /// FNV-1a of each file the engine's options name by a path, and of the program a command
    /// line runs (`external`'s `Command`: the script, the program), by absolute path: with
    /// the plugin's digest, the player, so an edited script is another engine on resume and
    /// in the ledger. Absent when the options name no file.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub command_fnv1a: BTreeMap<String, String>,
    /// `ponder = true`: the engine ran between its turns (absent: it was stopped there, or
    /// the folder is of a version before the stop).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ponder: bool,
    /// The `threads` key: the cores the engine declares, which its CPU is capped at (absent:
    /// not given; the `Threads` option, in `options`, or 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threads: Option<u32>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl EngineRecord {
    /// The player's digest: the plugin's, and with [`EngineRecord::command_fnv1a`] the files
    /// its options name folded in (`PLUGIN+FILES`); the plugin's alone when they name none, as
    /// in folders of earlier versions.
    pub fn player_digest(&self) -> String {
        if self.command_fnv1a.is_empty() {
            return self.plugin_fnv1a.clone();
        }
        let files: Vec<String> = self
            .command_fnv1a
            .iter()
            .map(|(path, digest)| format!("{path}={digest}"))
            .collect();
        format!(
            "{}+{:016x}",
            self.plugin_fnv1a,
            super::digest::fnv1a(files.join("\n").as_bytes())
        )
    }
}

/// An engine's `build = { commit, ref, date, label }`: all optional text, as the user's CI
/// knows it (`git rev-parse HEAD`, the branch, the commit's date, a release name).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Build {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub git_ref: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
}

/// An engine's own time rules.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineTime {
    pub control: String,
    pub margin_ms: u64,
    pub stall_timeout_ms: u64,
}

/// The engine whose measured speed scales the clocks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NpsReference {
    pub nodes_per_second: u64,
    pub engine: String,
}

/// Shard `index` of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShardRecord {
    pub index: usize,
    pub count: usize,
}

impl TournamentRecord {
    /// The record in `text`.
    pub fn parse(text: &str) -> anyhow::Result<TournamentRecord> {
        serde_json::from_str(text).context("not a tournament.json of this harness")
    }

    /// The record of the run folder `dir`; an error naming the file when it is missing or
    /// unreadable.
    pub fn read(dir: &Path) -> anyhow::Result<TournamentRecord> {
        let path = dir.join(TOURNAMENT_FILE);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "{}: no {TOURNAMENT_FILE}: not an output folder of `harness run` or `merge`",
                dir.display()
            )
        })?;
        TournamentRecord::parse(&text).with_context(|| path.display().to_string())
    }

    /// The text of `dir`'s `tournament.json` as written, empty when the folder has none (a
    /// new run); any other failure to read it is an error naming the file, never "none" (a
    /// run that took it for none would write its own over it).
    pub fn written_text(dir: &Path) -> anyhow::Result<String> {
        let path = dir.join(TOURNAMENT_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => Ok(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
            Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
        }
    }

    /// The file's text.
    pub fn text(&self) -> String {
        let value = serde_json::to_value(self).expect("JSON of plain values");
        serde_json::to_string_pretty(&value).expect("JSON of plain values") + "\n"
    }

    /// The record as a JSON value (keys sorted), for comparisons that leave parts out.
    pub fn value(&self) -> Value {
        serde_json::to_value(self).expect("JSON of plain values")
    }

    /// The engines' names, in the tournament's order.
    pub fn engine_names(&self) -> Vec<&str> {
        self.engines.iter().map(|e| e.name.as_str()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A record of the format every version since the ledger has written (keys sorted, the
    /// optional tables present), read and written back byte for byte; a key of a newer
    /// version survives the round trip.
    #[test]
    fn a_written_record_reads_back_and_writes_the_same_text() {
        let text = r#"{
  "definition": {
    "base_dir": "",
    "command": [],
    "overrides": {},
    "source": "t.toml",
    "text": "[tournament]\n"
  },
  "engines": [
    {
      "build": {
        "commit": "abc1234",
        "label": "v1"
      },
      "name": "a",
      "options": [
        [
          "Depth",
          "2"
        ]
      ],
      "plugin": {
        "name": "minimax"
      },
      "plugin_fnv1a": "00112233aabbccdd",
      "sandbox": {
        "mode": "default"
      },
      "time": {
        "control": "1+0.05",
        "margin_ms": 200,
        "stall_timeout_ms": 60000
      }
    }
  ],
  "format": "match",
  "future_key": [
    1
  ],
  "margin_ms": 200,
  "openings": {
    "count": 3,
    "fnv1a": "0123456789abcdef",
    "order": {
      "shuffled": {
        "seed": 7
      }
    },
    "source": {
      "builtin": "xot-small"
    },
    "start": 0
  },
  "pairs": 6,
  "shard": {
    "count": 2,
    "index": 1
  },
  "sprt": null,
  "stall_timeout_ms": 60000,
  "time": "depth=2"
}
"#;
        let record = TournamentRecord::parse(text).unwrap();
        assert_eq!(
            record.engines[0].build.as_ref().unwrap().label.as_deref(),
            Some("v1")
        );
        assert_eq!(record.shard, Some(ShardRecord { index: 1, count: 2 }));
        assert_eq!(record.openings.count, 3);
        assert_eq!(record.other["future_key"], serde_json::json!([1]));
        assert_eq!(record.text(), text);
        // The schema names every key written, and what it requires is there.
        let schema: Value =
            serde_json::from_str(include_str!("../../../../reports/tournament.schema.json"))
                .unwrap();
        let mut written = record.value();
        written.as_object_mut().unwrap().remove("future_key");
        for (node, value) in [
            (&schema, &written),
            (
                &schema["properties"]["engines"]["items"],
                &written["engines"][0],
            ),
        ] {
            for key in value.as_object().unwrap().keys() {
                assert!(
                    node["properties"].get(key).is_some(),
                    "`{key}` not in the schema"
                );
            }
            for key in node["required"].as_array().unwrap() {
                assert!(value.get(key.as_str().unwrap()).is_some(), "{key} required");
            }
        }
        let error = TournamentRecord::parse("{\"format\": 3}").unwrap_err();
        assert!(
            format!("{error:#}").contains("tournament.json"),
            "{error:#}"
        );
    }
}
