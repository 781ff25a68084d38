//! The tournament file: a TOML description of who plays, how long, from which openings.
//!
//! This module reads and validates the file into a [`Tournament`]; it does not load plugins,
//! read opening files or play games. The invariant it keeps: a `Tournament` value is always
//! valid — the format has the engines it needs, exactly one time control is set and every
//! duration is finite and in range, engine names are unique and non-empty, exactly one opening
//! source is named, and relative paths are already resolved against the tournament file's
//! folder. Anything else is a [`ConfigError`] naming the file, the line and the key.
//!
//! Raw, then checked (as ripgrep's flags and fastchess's config): one file per job.
//! - this file: the checked types ([`Tournament`] and its parts) and the entry points
//!   ([`load`], [`parse`], [`embedded_default`]);
//! - [`raw`]: the file as written, a serde mirror with spans;
//! - [`validate`]: raw into checked, every rule that needs the file's context;
//! - [`rules`]: the rules a value obeys wherever it comes from (the file or the command line):
//!   seconds, sizes, pair and game counts, concurrency, the command line's time spec;
//! - [`error`]: [`ConfigError`], and serde's messages in the words of a tournament file;
//! - [`overrides`]: the command line's values that replace the file's;
//! - [`plugin`]: how a plugin named in a file or on the command line is found;
//! - [`nps_scaling`]: NPS-scaled clocks (`[time] nps-reference`, `nps-engine`, the factor a run
//!   measured);
//! - [`command_line`] and [`compose`]: a tournament from the command line (`run --engine …`),
//!   alone or over a file, as one TOML document checked by the same validator;
//! - [`tune`]: the `[tune]` table of `harness tune`, and the match a tune plays;
//! - [`sandbox`]: an engine's sandbox setting (`sandbox`, `sandbox-read`, `sandbox-write`, `sandbox-env`).

pub mod command_line;
mod compose;
mod error;
mod nps_scaling;
mod overrides;
mod plugin;
mod raw;
pub mod rules;
pub mod sandbox;
mod tune;
mod validate;
mod warnings;

pub use command_line::CommandLine;
pub use compose::{compose, Base, Composed};
pub use error::ConfigError;
pub use nps_scaling::{ClockScale, NpsReference};
pub use overrides::Overrides;
pub use plugin::{default_plugin_dir, PluginRef};
pub use rules::{parse_bytes, parse_time_spec, MAX_CONCURRENCY, MAX_GAMES};
pub use sandbox::{Sandbox, SandboxMode};
pub use tune::{minus_name, plus_name, TuneConfig};

use crate::plan::openings::{self, OpeningError, OpeningSet};
pub use crate::plan::schedule::OpeningOrder;
use crate::plan::schedule::{PairedSchedule, Shard};
use crate::record::GameRecord;
use crate::stats::sprt::SprtStatus;
use crate::stats::verdict::FailOn;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The repository's `tournament.toml`, compiled in: what the harness runs with no file given.
pub const DEFAULT_TOURNAMENT: &str = include_str!("../../../../../tournament.toml");

/// The `source` of [`embedded_default`].
pub const EMBEDDED_SOURCE: &str = "<embedded default tournament.toml>";

/// The `source` of a tournament composed from the command line alone (`--engine` and no file):
/// what its header and its errors name.
pub const COMMAND_LINE_SOURCE: &str = "<command line>";

/// Margin used when `[time]` gives none, in seconds.
pub const DEFAULT_MARGIN_SECS: f64 = 0.2;

/// Stall timeout used when `[time]` gives none, in seconds.
pub const DEFAULT_STALL_TIMEOUT_SECS: f64 = 60.0;

/// A validated tournament.
#[derive(Clone, Debug, PartialEq)]
pub struct Tournament {
    /// The file path as given, or [`EMBEDDED_SOURCE`], or [`COMMAND_LINE_SOURCE`].
    pub source: String,
    pub format: Format,
    /// Game pairs per engine pairing (each pair: one opening, played twice, colours swapped).
    pub pairs: u32,
    /// Games played at once (at least 1).
    pub concurrency: usize,
    /// Pin each game's workers to cores of their own (`play::affinity`).
    pub affinity: bool,
    /// Output folder, resolved against the tournament file's folder.
    pub out: PathBuf,
    /// The `[time]` table: the rules of every engine without a `time` table of its own.
    pub time: TimeRules,
    pub openings: OpeningsConfig,
    /// At least two; exactly two for [`Format::Match`].
    pub engines: Vec<EngineConfig>,
    /// The sequential test of a match, if any: `pairs` is then the most the run may play.
    pub sprt: Option<SprtConfig>,
    /// Games end by an exact solve once they reach few enough empties (`[adjudication]`).
    pub adjudication: Option<AdjudicationConfig>,
    /// Once this file exists, no new pair is started (`stop-file`, or `--stop-file`): how a
    /// watcher stops the shards of a distributed test.
    pub stop_file: Option<PathBuf>,
    /// The part of the schedule this run plays (`--shard`; never in the file). Its output
    /// folder is then `out` itself, which the command line has pointed at the shard's folder.
    pub shard: Option<Shard>,
    /// `[time] nps-reference` and `nps-engine`: every clock is scaled by the reference speed
    /// over the speed this run measures.
    pub nps: Option<NpsReference>,
    /// The factor this run measured for `nps` (never in the file: each run benches).
    pub clock_scale: Option<ClockScale>,
    /// The text the tournament was read from and the folder its relative paths are resolved
    /// against: kept in `tournament.json`, so that `merge` can rebuild the tournament exactly.
    pub definition: Definition,
    /// The `[tune]` table, if any (`harness tune`; `harness run` plays the file without it).
    pub tune: Option<TuneConfig>,
    /// `[tournament] sandbox`: the default of every engine, and the adjudication solver's.
    pub sandbox: SandboxMode,
}

pub use crate::record::tournament_record::Definition;

impl Definition {
    /// The tournament again, overrides applied.
    pub fn parse(&self) -> anyhow::Result<Tournament> {
        let mut t = parse(&self.text, &self.source, &self.base_dir)?;
        self.overrides
            .clone()
            .apply(&mut t)
            .map_err(anyhow::Error::msg)?;
        Ok(t)
    }

    /// Whether the text sets the output folder (`[tournament] out`). A file without it plays
    /// into `out/<its stem>`; the text composed for `--engine` flags always has the `out` that
    /// is theirs (`out/<names joined by -vs->`), so the caller asks the flags first.
    pub fn sets_out(&self) -> bool {
        self.text
            .parse::<toml::Table>()
            .ok()
            .and_then(|t| t.get("tournament")?.get("out").cloned())
            .is_some()
    }
}

/// The `[sprt]` table: a sequential test of the first engine (the candidate) against the
/// second (the baseline) in a match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtConfig {
    pub params: crate::stats::sprt::SprtParams,
    /// A crash of the candidate fails the run (exit code 1) whatever the test says.
    pub fail_on_crash: bool,
    /// Any forfeit of the candidate (time, stall, illegal move, error, crash) fails the run.
    pub fail_on_forfeit: bool,
}

/// The `[adjudication]` table: a game that reaches `exact_at_empties` empties or fewer ends
/// with its exact perfect-play result, found by the solver (a plugin that honours depth
/// limits, hosted in a worker of its own), as a chess tablebase ends a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdjudicationConfig {
    pub exact_at_empties: u32,
    pub solver: PluginRef,
    /// The solver's options in file order, values as text.
    pub solver_options: Vec<(String, String)>,
    /// Longest wait for one exact solve; a solve that takes longer leaves the game to be
    /// played out.
    pub solve_timeout: Duration,
}

/// The solver `[adjudication]` uses when it names none.
pub const DEFAULT_SOLVER: &str = "strong";

/// `solve-timeout` when `[adjudication]` gives none, in seconds.
pub const DEFAULT_SOLVE_TIMEOUT_SECS: f64 = 60.0;

/// Who plays whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Exactly two engines, one pairing.
    Match,
    /// The first engine against each of the others.
    Gauntlet,
    /// Every engine against every other.
    RoundRobin,
}

impl Format {
    /// Engine index pairs that play each other among `n` engines: match `[(0, 1)]`, gauntlet
    /// `(0, i)` for each later engine, round robin every `(i, j)` with `i < j`.
    pub fn pairings(self, n: usize) -> Vec<(usize, usize)> {
        match self {
            Format::Match => vec![(0, 1)],
            Format::Gauntlet => (1..n).map(|i| (0, i)).collect(),
            Format::RoundRobin => (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .collect(),
        }
    }

    /// The spelling used in the tournament file.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Match => "match",
            Format::Gauntlet => "gauntlet",
            Format::RoundRobin => "round-robin",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// How long an engine may think.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeControl {
    /// A game clock per side: `base` to start with, `increment` added after each move.
    Clock { base: Duration, increment: Duration },
    /// A fixed time per move.
    MoveTime(Duration),
    /// A fixed search depth in plies.
    Depth(u32),
    /// A fixed node budget per move.
    Nodes(u64),
}

impl fmt::Display for TimeControl {
    /// `10s+0.1s`, `0.5s/move`, `depth 6`, `100000 nodes`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimeControl::Clock { base, increment } => {
                write!(f, "{}s", base.as_secs_f64())?;
                if !increment.is_zero() {
                    write!(f, "+{}s", increment.as_secs_f64())?;
                }
                Ok(())
            }
            TimeControl::MoveTime(t) => write!(f, "{}s/move", t.as_secs_f64()),
            TimeControl::Depth(d) => write!(f, "depth {d}"),
            TimeControl::Nodes(n) => write!(f, "{n} nodes"),
        }
    }
}

/// The time rules one engine plays under: its control, and the coordinator's margin and stall
/// timeout for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimeRules {
    pub control: TimeControl,
    /// How far the engine may exceed its budget before it forfeits on time.
    pub margin: Duration,
    /// How long a depth- or node-limited search may go without an answer.
    pub stall_timeout: Duration,
}

/// Where the openings come from and how they are drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningsConfig {
    pub source: OpeningSource,
    pub order: OpeningOrder,
    /// 1-based position in the draw sequence of the first opening used.
    pub start: usize,
}

impl OpeningsConfig {
    /// Read the opening set: the file, or the embedded set.
    pub fn load(&self) -> Result<OpeningSet, OpeningError> {
        match &self.source {
            OpeningSource::File(path) => openings::load_openings(path),
            OpeningSource::Builtin(name) => openings::builtin(name)
                .ok_or_else(|| OpeningError::UnknownBuiltin { name: name.clone() }),
        }
    }
}

/// An opening file (resolved path) or the name of an embedded set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpeningSource {
    File(PathBuf),
    Builtin(String),
}

/// One `[[engine]]` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// Display name, unique within the tournament.
    pub name: String,
    pub plugin: PluginRef,
    /// Engine options in file order, values as text.
    pub options: Vec<(String, String)>,
    /// Which of this engine's forfeits fail the run (exit code 1), in any format.
    pub fail_on: FailOn,
    /// The address-space limit of the engine's worker (and what it starts), in bytes.
    pub memory_limit: Option<u64>,
    /// The engine's own time rules (its `time` table), in place of the tournament's `[time]`.
    pub time: Option<TimeRules>,
    /// The `harness bench` signature the plugin must give at start (`bench`), if any.
    pub bench: Option<u64>,
    /// Which commit claims this build (`build`), for the results ledger; never compared
    /// with the plugin (its digest is what identifies it).
    pub build: Option<Build>,
    /// How its worker is confined (`sandbox`, `sandbox-read`, `sandbox-write`, `sandbox-env`).
    pub sandbox: Sandbox,
    /// The engine runs between its turns (`ponder = true`): it is not stopped while its
    /// opponent thinks. Off by default; the report says which engines pondered.
    pub ponder: bool,
    /// The cores the engine declares it uses (`threads`), where its table says: for a plugin
    /// without a `Threads` option (an `external` program). See [`declared_threads`].
    pub threads: Option<u32>,
}

/// The most threads an engine may declare (`threads`, or its `Threads` option as read here).
pub const MAX_THREADS: u32 = 1024;

/// The cores an engine declares it uses, which its worker's CPU is capped at (with some slack)
/// where a cgroup can be made: its `threads` key, else its `Threads` option, else 1.
pub fn declared_threads(threads: Option<u32>, options: &[(String, String)]) -> u32 {
    threads
        .or_else(|| {
            let (_, value) = options.iter().find(|(k, _)| k == "Threads")?;
            value.trim().parse::<u32>().ok()
        })
        .unwrap_or(1)
        .clamp(1, MAX_THREADS)
}

impl EngineConfig {
    /// [`declared_threads`] of this engine.
    pub fn declared_threads(&self) -> u32 {
        declared_threads(self.threads, &self.options)
    }
}

pub use crate::record::tournament_record::Build;

impl Tournament {
    /// The time rules of engine number `engine`: its own `time` table, or the `[time]` table.
    pub fn time_rules(&self, engine: usize) -> TimeRules {
        self.engines[engine].time.unwrap_or(self.time)
    }

    /// The time rules engine number `engine` plays under in this run: [`Self::time_rules`]
    /// with its clock scaled by the factor this run measured ([`ClockScale`]), if any.
    pub fn played_time_rules(&self, engine: usize) -> TimeRules {
        let rules = self.time_rules(engine);
        self.clock_scale.as_ref().map_or(rules, |s| s.scale(rules))
    }

    /// The time controls as a person reads them: the `[time]` control when every engine plays
    /// under it, else each engine's (`strong 40s+0.2s, light 60s/move`), so that time odds
    /// show at a glance; with the clock scale of this run, if any (`… scaled x0.84 …`).
    pub fn time_description(&self) -> String {
        let scale = self
            .clock_scale
            .as_ref()
            .map(|s| format!(" {}", s.describe()))
            .unwrap_or_default();
        if self.engines.iter().all(|e| e.time.is_none()) {
            return format!("{}{scale}", self.time.control);
        }
        self.engines
            .iter()
            .enumerate()
            .map(|(i, e)| format!("{} {}", e.name, self.time_rules(i).control))
            .collect::<Vec<_>>()
            .join(", ")
            + &scale
    }

    /// Engine index pairs that play each other: match `[(0, 1)]`, gauntlet `(0, i)` for each
    /// later engine, round robin every `(i, j)` with `i < j`.
    pub fn pairings(&self) -> Vec<(usize, usize)> {
        self.format.pairings(self.engines.len())
    }

    /// The fail-on rule of every engine, in file order (the rule itself is
    /// [`crate::stats::verdict::fail_rules`]).
    pub fn fail_rules(&self) -> Vec<(String, FailOn)> {
        let own: Vec<(String, FailOn)> = self
            .engines
            .iter()
            .map(|e| (e.name.clone(), e.fail_on))
            .collect();
        let candidate = self.sprt.map(|s| (s.fail_on_crash, s.fail_on_forfeit));
        crate::stats::verdict::fail_rules(own, candidate)
    }

    /// The state of the sequential test (candidate = first engine) on these records.
    pub fn sprt_status(&self, records: &[GameRecord]) -> Option<SprtStatus> {
        let sprt = self.sprt.as_ref()?;
        let (a, b) = (&self.engines[0].name, &self.engines[1].name);
        Some(sprt.params.status_of_records(records, a, b))
    }

    /// The run's sequential test on `records` (in journal order), decided as
    /// [`crate::stats::test_decision`] says; `recorded` is the watcher's decision, if any.
    pub fn test_status(
        &self,
        records: &[GameRecord],
        recorded: Option<crate::stats::sprt::Decision>,
    ) -> Option<SprtStatus> {
        let sprt = self.sprt.as_ref()?;
        let names = (self.engines[0].name.as_str(), self.engines[1].name.as_str());
        Some(crate::stats::test_decision::decided(
            sprt.params,
            names,
            records,
            recorded,
        ))
    }

    /// The schedule of this tournament, whose opening set has `openings` openings.
    pub fn schedule(&self, openings: usize) -> PairedSchedule {
        PairedSchedule::new(
            &self.pairings(),
            self.pairs,
            openings,
            &self.openings.order,
            self.openings.start,
        )
    }

    /// The engines' names, in the tournament's order.
    pub fn engine_names(&self) -> Vec<String> {
        self.engines.iter().map(|e| e.name.clone()).collect()
    }

    /// Total number of games: two per pair, `pairs` pairs per pairing.
    pub fn game_count(&self) -> usize {
        self.pairings().len() * self.pairs as usize * 2
    }
}

/// Read and validate a tournament file. Relative paths in it are resolved against its folder;
/// errors name `path` as given.
pub fn load(path: &Path) -> Result<Tournament, ConfigError> {
    let source = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Read {
        path: source.clone(),
        error,
    })?;
    let base_dir = path.parent().unwrap_or(Path::new(""));
    parse(&text, &source, base_dir)
}

/// Validate a tournament from text. `source` names the file in errors (and gives the default
/// output folder `out/<stem>`); relative paths are resolved against `base_dir`.
pub fn parse(text: &str, source: &str, base_dir: &Path) -> Result<Tournament, ConfigError> {
    // A missing table is said with every other missing one, not one at a time at 1:1.
    let raw: raw::RawFile = toml::from_str(text).map_err(|e| {
        let missing = e.message().contains("missing field");
        missing
            .then(|| error::missing_tables(text, source))
            .flatten()
            .unwrap_or_else(|| error::toml_error(text, source, &e))
    })?;
    validate::Validator { text, source }.tournament(raw, base_dir)
}

/// The compiled-in default tournament ([`DEFAULT_TOURNAMENT`]), paths resolved against the
/// current folder. Its openings are a built-in set, so it works from anywhere.
pub fn embedded_default() -> Tournament {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    parse(DEFAULT_TOURNAMENT, EMBEDDED_SOURCE, &cwd)
        .expect("the embedded default tournament is valid (checked by a test)")
}

#[cfg(test)]
mod tests;
