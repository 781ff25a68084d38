//! `tournament.json`: what a run folder records of the tournament its games belong to. Written
//! once when a run first starts (again when it is extended or its build claims change, and by
//! `merge`), it pins the folder: a resumed run, a shard merged, a ledger entry, a served page
//! all read the tournament from here. One type, [`TournamentRecord`], with one reader
//! ([`TournamentRecord::read`] / [`TournamentRecord::parse`]) and one writer
//! ([`TournamentRecord::text`]); its schema is `reports/tournament.schema.json`.
//!
//! Every field is typed here, down to the leaves: engines, digests, options, time, openings,
//! the test, the adjudication, the sandbox settings and what the kernel enforced of them, a
//! tune's table, the clock scale and the definition the tournament is rebuilt from. The
//! planner's own types for these parts (`Sandbox`, `SandboxMode`, `Definition`, `ClockScale`,
//! `SprtParams`, …) are defined in this layer and re-exported where they are used, so the
//! record and the plan cannot drift apart. Each type keeps the keys a newer harness wrote that
//! this version does not know (`other`), so nothing is lost on rewrite; a resume compares
//! records as types ([`TournamentRecord::essence`]).
//!
//! The text is JSON with its keys sorted at every level and two-space indents, as every version
//! has written it, so that a folder's file and a freshly made one compare byte for byte.

use anyhow::Context;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

pub use super::decision_record::SprtParams;
pub use super::tune::TuneRecord;

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
    pub adjudication: Option<AdjudicationRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nps_reference: Option<NpsReference>,
    /// The shard this folder plays, for one shard of a sharded run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<ShardRecord>,
    /// A tune's table as the planner pins it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tune: Option<TuneRecord>,
    /// The clock scale this run measured for itself (not compared on resume).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_scale: Option<ClockScale>,
    /// What the kernel enforced of each engine's sandbox, by engine name. Not part of the
    /// tournament's identity; a resume compares its fair-play terms (the CPU cap, the
    /// namespaces) with what the resumed run's workers get.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_enforced: Option<BTreeMap<String, EnforcedRecord>>,
    /// How each engine's workers were stopped between turns (`cgroup.freeze`,
    /// `freezer.state`, `SIGSTOP`, `none (ponder = true)`, …), by engine name. A resume
    /// compares whether each engine was stopped at all, not by which route.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub stop_routes: BTreeMap<String, String>,
    /// The tournament file's text and the command, which the tournament is rebuilt from
    /// (absent in folders of the earliest versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub definition: Option<Definition>,
    /// Keys of a newer version, kept as read.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Where the openings come from and which were drawn.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OpeningsRecord {
    pub source: OpeningSourceRecord,
    pub order: OpeningOrderRecord,
    pub start: u64,
    /// How many openings the set holds.
    pub count: u64,
    /// FNV-1a of the openings' texts joined by newlines, 16 hex digits.
    pub fnv1a: String,
    /// Keys of a newer version, kept as read.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// How a plugin was named: `{"name": N}` (a shipped engine, found beside the harness) or
/// `{"path": P}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PluginRecord {
    Name(String),
    Path(String),
}

impl fmt::Display for PluginRecord {
    /// The name or the path, as the user gave it.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PluginRecord::Name(text) | PluginRecord::Path(text) => f.write_str(text),
        }
    }
}

/// Where a run's openings came from: `{"builtin": NAME}` or `{"file": PATH}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpeningSourceRecord {
    Builtin(String),
    File(String),
}

impl fmt::Display for OpeningSourceRecord {
    /// `xot-large`, or `openings of FILE`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpeningSourceRecord::Builtin(name) => f.write_str(name),
            OpeningSourceRecord::File(file) => write!(f, "openings of {file}"),
        }
    }
}

/// The order the openings are drawn in: `"sequential"` or `{"shuffled": {"seed": N}}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpeningOrderRecord {
    Sequential,
    Shuffled { seed: u64 },
}

impl fmt::Display for OpeningOrderRecord {
    /// `sequential` or `shuffled (seed N)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpeningOrderRecord::Sequential => f.write_str("sequential"),
            OpeningOrderRecord::Shuffled { seed } => write!(f, "shuffled (seed {seed})"),
        }
    }
}

/// An engine's sandbox setting: its mode and what it may use beyond the defaults (each list
/// and limit absent when not given).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxRecord {
    pub mode: SandboxMode,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disk_limit: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_limit: Option<u64>,
    /// Keys of a newer version, kept as read.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The `[adjudication]` table: the solver (its plugin, digest and options), from how many
/// empties, its time, and its sandbox when not the default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdjudicationRecord {
    pub exact_at_empties: u32,
    pub solver: PluginRecord,
    pub solver_fnv1a: String,
    pub solver_options: Vec<(String, String)>,
    pub solve_timeout_ms: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxMode>,
    /// Keys of a newer version, kept as read.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// What the kernel enforced of one engine's sandbox: its record, or `"off"` for an engine
/// run without one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EnforcedRecord {
    Confined(Enforced),
    Unconfined(String),
}

impl EnforcedRecord {
    /// The record of an engine run without a sandbox.
    pub fn off() -> EnforcedRecord {
        EnforcedRecord::Unconfined("off".to_string())
    }

    /// What was enforced, where a sandbox was.
    pub fn enforced(&self) -> Option<&Enforced> {
        match self {
            EnforcedRecord::Confined(e) => Some(e),
            EnforcedRecord::Unconfined(_) => None,
        }
    }
}

impl fmt::Display for EnforcedRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnforcedRecord::Confined(e) => e.fmt(f),
            EnforcedRecord::Unconfined(word) => f.write_str(word),
        }
    }
}

/// One engine's sandbox: its mode and the paths it may read and write beyond the defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sandbox {
    pub mode: SandboxMode,
    /// `sandbox-read`: files and folders it may read (and execute), absolute.
    pub read: Vec<PathBuf>,
    /// `sandbox-write`: files and folders it may write, absolute.
    pub write: Vec<PathBuf>,
    /// `sandbox-env`: environment variables it gets beyond the sandbox's short list.
    pub env: Vec<String>,
    /// `disk-limit`: the most bytes its scratch folder and log may hold together (`None`: the
    /// sandbox's default, `host::sandbox::DISK_LIMIT`).
    pub disk_limit: Option<u64>,
    /// `log-limit`: the most bytes of the engine's stderr the coordinator copies into its log
    /// for each worker (`None`: the sandbox's default, `host::sandbox::LOG_LIMIT`).
    pub log_limit: Option<u64>,
}

impl Sandbox {
    /// The setting as `tournament.json` keeps it (and compares it on resume).
    pub fn pin(&self) -> SandboxRecord {
        let texts = |paths: &[PathBuf]| paths.iter().map(|p| p.display().to_string()).collect();
        SandboxRecord {
            mode: self.mode,
            read: texts(&self.read),
            write: texts(&self.write),
            env: self.env.clone(),
            disk_limit: self.disk_limit,
            log_limit: self.log_limit,
            other: Default::default(),
        }
    }
}

/// How far an engine's worker is confined.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Confined as far as the kernel can; what it cannot enforce is warned of once.
    #[default]
    Strict,
    /// Confined in full, or the engine does not start (exit 2).
    Required,
    /// Not confined: the engine runs with the user's rights.
    Off,
}

/// The factor one run scales its clocks by: reference / measured nodes per second.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockScale {
    /// The engine benched.
    pub engine: String,
    pub reference_nps: u64,
    pub measured_nps: u64,
    pub factor: f64,
    /// A merged run's: the lowest and highest factor of its shards (each measured its own),
    /// and how many shards were scaled. Absent for one run's own scale.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shards: Option<ShardScales>,
}

/// The spread of the clock scales of a merged run's shards.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardScales {
    pub lowest: f64,
    pub highest: f64,
    pub count: usize,
}

/// A tournament file's text, the folder its relative paths are resolved against, and the
/// command line's overrides.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Definition {
    pub source: String,
    pub base_dir: PathBuf,
    pub text: String,
    #[serde(default)]
    pub overrides: Overrides,
    /// The `harness run` arguments a tournament from the command line was built from (its
    /// `text` is their equivalent file); absent for a file alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
}

/// Values of the command line (`run --concurrency/--pairs/--time/--openings-seed`) that
/// replace the file's. They are kept in the definition, so `tournament.json` says what was
/// played; `pairs`, `time` and the seed are part of the tournament, so resuming with other
/// ones is refused like a changed file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overrides {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairs: Option<u32>,
    /// As given: `10+0.1` (a clock: base + increment, seconds), `0.5/move`, `depth=6`,
    /// `nodes=100000`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings_seed: Option<u64>,
    /// `--sandbox MODE`: every engine's sandbox and the tournament's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxMode>,
}

/// What the kernel enforced in a worker.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Enforced {
    /// The kernel's Landlock ABI version (0: no Landlock).
    pub landlock_abi: u32,
    /// Every Landlock right asked for is enforced (false on a kernel older than ABI 6).
    pub landlock_full: bool,
    /// The seccomp filter is installed.
    pub seccomp: bool,
    /// The cap on tasks, where a pids cgroup holds the worker.
    pub process_cap: Option<u32>,
    /// The capabilities the worker holds once confined, as the kernel reports them (0: none;
    /// absent in records older than this field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<u64>,
    /// How the coordinator ends everything the worker started, where a cgroup holds it
    /// (`cgroup.kill`, `freezer` or `task list`; absent: the worker's process group only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contained_by: Option<String>,
    /// The cap on the CPU of the worker and all it starts, in percent of one core (`125`: a
    /// core and a quarter), where a cpu cgroup holds it (absent in records older than this
    /// field, and where none could be made: `missing` says so).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_cap_percent: Option<u32>,
    /// The namespaces made for the worker and what was set up in them (`user`, `pid`, `ipc`,
    /// `mount`, `proc`, `tmpfs`, `task cap`; empty: none, or a record older than this field).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub namespaces: Vec<String>,
    /// What could not be enforced, and why.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
    /// Keys of a newer version, kept as read.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

impl Enforced {
    /// Landlock (every right asked for), seccomp and no capability held: what `required`
    /// demands, and short of which `strict` warns. A missing cgroup is recorded, not warned
    /// of (no cgroup can be made without root or a delegated subtree).
    pub fn confines_fully(&self) -> bool {
        self.landlock_full && self.seccomp && self.capabilities.is_none_or(|c| c == 0)
    }
}

impl fmt::Display for Enforced {
    /// `Landlock ABI 7, seccomp, at most 256 tasks, no capabilities, CPU at most 125% of a
    /// core, contained by cgroup.kill`, or what is missing.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.landlock_abi, self.landlock_full) {
            (0, _) => f.write_str("no Landlock")?,
            (abi, true) => write!(f, "Landlock ABI {abi}")?,
            (abi, false) => write!(f, "Landlock ABI {abi} (partial)")?,
        }
        f.write_str(if self.seccomp {
            ", seccomp"
        } else {
            ", no seccomp"
        })?;
        match self.process_cap {
            Some(cap) => write!(f, ", at most {cap} tasks")?,
            None => f.write_str(", no process cap")?,
        }
        match self.capabilities {
            Some(0) => f.write_str(", no capabilities")?,
            Some(held) => write!(f, ", capabilities {held:#x} held")?,
            None => {}
        }
        if let Some(percent) = self.cpu_cap_percent {
            write!(f, ", CPU at most {percent}% of a core")?;
        }
        if let Some(route) = &self.contained_by {
            write!(f, ", contained by {route}")?;
        }
        match self.namespaces.as_slice() {
            [] => Ok(()),
            made => write!(f, ", namespaces: {}", made.join(" ")),
        }
    }
}

/// The sequential test's table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtRecord {
    pub params: SprtParams,
    pub fail_on_crash: bool,
    pub fail_on_forfeit: bool,
    /// Keys of a newer version, kept as read.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// One engine of the tournament.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EngineRecord {
    pub name: String,
    pub plugin: PluginRecord,
    /// FNV-1a of the plugin file: with the options, the player.
    pub plugin_fnv1a: String,
    /// The plugin's options as `[[KEY, VALUE], …]`.
    pub options: Vec<(String, String)>,
    /// The sandbox setting (absent in folders of versions before it: the default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxRecord>,
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
    /// Keys of a newer version, kept as read.
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// The engine whose measured speed scales the clocks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NpsReference {
    pub nodes_per_second: u64,
    pub engine: String,
    /// Keys of a newer version, kept as read.
    #[serde(flatten)]
    pub other: Map<String, Value>,
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
        let text = super::run_folder::RunFolder::at(dir).read_file(TOURNAMENT_FILE)?;
        Ok(text.unwrap_or_default())
    }

    /// The file's text.
    pub fn text(&self) -> String {
        let value = serde_json::to_value(self).expect("JSON of plain values");
        serde_json::to_string_pretty(&value).expect("JSON of plain values") + "\n"
    }

    /// What of the record decides the games, as a resume compares it: all but the
    /// definition (a file's comments, `concurrency` and `out` may change between a run and
    /// its resumption), the clock scale each run measures for itself, what the kernel
    /// enforced and how the engines were stopped (compared once the workers have started),
    /// and each engine's build claim (a claim about which commit made the same plugin); an
    /// engine's sandbox absent (a folder of a version before it) is the default it was
    /// played under. With `any_shard` (shards merged, whose build claims must agree), the
    /// shard is left out instead of the claims.
    pub fn essence(&self, any_shard: bool) -> TournamentRecord {
        let mut r = self.clone();
        r.definition = None;
        r.clock_scale = None;
        r.sandbox_enforced = None;
        r.stop_routes.clear();
        for engine in &mut r.engines {
            engine.sandbox.get_or_insert_with(SandboxRecord::default);
            if !any_shard {
                engine.build = None;
            }
        }
        if any_shard {
            r.shard = None;
        }
        r
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
        "mode": "strict"
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
        let mut written = serde_json::to_value(&record).unwrap();
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

    /// Every shape of `tournament.json` earlier versions wrote (`tests/fixtures/tournament-json`)
    /// reads into the types and writes back byte for byte: no field is lost or reworded by
    /// the typed record, and a record is the same tournament as itself, with no changes.
    #[test]
    fn files_of_earlier_versions_read_and_write_back_byte_for_byte() {
        let dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/tournament-json");
        let mut read = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let record = TournamentRecord::parse(&text)
                .unwrap_or_else(|e| panic!("{}: {e:#}", path.display()));
            assert_eq!(record.text(), text, "{}", path.display());
            assert!(
                record.other.is_empty(),
                "{}: {:?}",
                path.display(),
                record.other.keys()
            );
            let essence = record.essence(false);
            assert_eq!(essence, essence.clone().essence(false));
            read += 1;
        }
        assert_eq!(read, 4, "the fixtures in {}", dir.display());
        // The fields that were JSON values read as their types.
        let text =
            std::fs::read_to_string(dir.join("adjudicated-sprt-file-openings.json")).unwrap();
        let r = TournamentRecord::parse(&text).unwrap();
        let adjudication = r.adjudication.as_ref().unwrap();
        assert_eq!(adjudication.sandbox, Some(SandboxMode::Off));
        assert_eq!(adjudication.solver, PluginRecord::Name("strong".into()));
        assert_eq!(r.openings.order, OpeningOrderRecord::Sequential);
        assert_eq!(
            r.openings.source,
            OpeningSourceRecord::File("op.txt".into())
        );
        let enforced = r.sandbox_enforced.as_ref().unwrap();
        assert_eq!(enforced["adjudication-solver"], EnforcedRecord::off());
        assert!(enforced["g"].enforced().is_some());
        let sandbox = r.engines[0].sandbox.as_ref().unwrap();
        assert_eq!(
            (sandbox.read.len(), sandbox.disk_limit),
            (1, Some(100 << 20))
        );
        assert!(r.clock_scale.as_ref().is_some_and(|c| c.factor > 0.0));
        let tune =
            TournamentRecord::parse(&std::fs::read_to_string(dir.join("tune.json")).unwrap())
                .unwrap()
                .tune
                .unwrap();
        assert_eq!((tune.opponent, tune.params.len()), (Some(1), 1));
    }
}
