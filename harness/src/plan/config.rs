//! The tournament file: a TOML description of who plays, how long, from which openings.
//!
//! This module reads and validates the file into a [`Tournament`]; it does not load plugins,
//! read opening files or play games. The invariant it keeps: a `Tournament` value is always
//! valid — the format has the engines it needs, exactly one time control is set and every
//! duration is finite and in range, engine names are unique and non-empty, exactly one opening
//! source is named, and relative paths are already resolved against the tournament file's
//! folder. Anything else is a [`ConfigError`] naming the file, the line and the key.

use crate::plan::openings::{self, OpeningError, OpeningSet, BUILTIN_NAMES};
pub use crate::plan::schedule::OpeningOrder;
use crate::plan::schedule::{PairedSchedule, Shard};
use crate::record::{outcomes, GameRecord};
use crate::stats::match_stats;
use crate::stats::sprt::SprtStatus;
use crate::stats::verdict::FailOn;
use serde::de::{Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;

/// The repository's `tournament.toml`, compiled in: what the harness runs with no file given.
pub const DEFAULT_TOURNAMENT: &str = include_str!("../../../tournament.toml");

/// The `source` of [`embedded_default`].
pub const EMBEDDED_SOURCE: &str = "<embedded default tournament.toml>";

/// The most games a tournament may hold (its schedule is built in memory, 48 bytes a game).
pub const MAX_GAMES: u64 = 5_000_000;

/// The most games at once: each holds two worker processes and their sockets.
pub const MAX_CONCURRENCY: usize = 1024;

/// A `concurrency` value checked: from 1 to [`MAX_CONCURRENCY`].
fn check_concurrency(n: usize) -> Result<usize, String> {
    if n == 0 || n > MAX_CONCURRENCY {
        return Err(format!(
            "must be at least 1 and at most {MAX_CONCURRENCY} (each game runs two worker processes)"
        ));
    }
    Ok(n)
}

/// Margin used when `[time]` gives none, in seconds.
pub const DEFAULT_MARGIN_SECS: f64 = 0.2;

/// Stall timeout used when `[time]` gives none, in seconds.
pub const DEFAULT_STALL_TIMEOUT_SECS: f64 = 60.0;

/// A validated tournament.
#[derive(Clone, Debug, PartialEq)]
pub struct Tournament {
    /// The file path as given, or [`EMBEDDED_SOURCE`].
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
    /// Once this file exists, no new pair is started (`stop-file`, or `--stop-file`): how a
    /// watcher stops the shards of a distributed test.
    pub stop_file: Option<PathBuf>,
    /// The part of the schedule this run plays (`--shard`; never in the file). Its output
    /// folder is then `out` itself, which the command line has pointed at the shard's folder.
    pub shard: Option<Shard>,
    /// The text the tournament was read from and the folder its relative paths are resolved
    /// against: kept in `tournament.json`, so that `merge` can rebuild the tournament exactly.
    pub definition: Definition,
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
}

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
}

impl Overrides {
    pub fn is_empty(&self) -> bool {
        *self == Overrides::default()
    }

    /// Replace the tournament's values with these, checked as the file's are; the definition
    /// keeps them.
    pub fn apply(self, t: &mut Tournament) -> Result<(), String> {
        if let Some(n) = self.concurrency {
            t.concurrency = check_concurrency(n).map_err(|e| format!("--concurrency {n}: {e}"))?;
        }
        if let Some(pairs) = self.pairs {
            let most = MAX_GAMES / (2 * t.pairings().len().max(1) as u64);
            if pairs == 0 || u64::from(pairs) > most {
                return Err(format!(
                    "--pairs {pairs}: must be 1 to {most} (a tournament holds at most {MAX_GAMES} games)"
                ));
            }
            t.pairs = pairs;
        }
        if let Some(spec) = &self.time {
            t.time.control = parse_time_spec(spec)?;
        }
        if let Some(seed) = self.openings_seed {
            t.openings.order = OpeningOrder::Shuffled { seed };
        }
        t.definition.overrides = self;
        Ok(())
    }
}

/// A time control as the command line gives it: `10+0.1` or `10` (a clock: seconds per side
/// and per move), `0.5/move`, `depth=6`, `nodes=100000`.
pub fn parse_time_spec(spec: &str) -> Result<TimeControl, String> {
    let bad = || {
        format!(
            "--time `{spec}`: give BASE[+INCREMENT] (seconds), SECONDS/move, depth=N or nodes=N"
        )
    };
    let seconds = |text: &str, zero_ok: bool| -> Result<Duration, String> {
        let x: f64 = text.trim().parse().map_err(|_| bad())?;
        if !x.is_finite() || x < 0.0 || (!zero_ok && x == 0.0) || x > 1e7 {
            return Err(bad());
        }
        Ok(Duration::from_secs_f64(x))
    };
    let spec_t = spec.trim();
    if let Some(d) = spec_t.strip_prefix("depth=") {
        let d: u32 = d.trim().parse().map_err(|_| bad())?;
        return if d == 0 {
            Err(bad())
        } else {
            Ok(TimeControl::Depth(d))
        };
    }
    if let Some(n) = spec_t.strip_prefix("nodes=") {
        let n: u64 = n.trim().parse().map_err(|_| bad())?;
        return if n == 0 {
            Err(bad())
        } else {
            Ok(TimeControl::Nodes(n))
        };
    }
    if let Some(t) = spec_t.strip_suffix("/move") {
        return Ok(TimeControl::MoveTime(seconds(t, false)?));
    }
    let (base, increment) = spec_t.split_once('+').unwrap_or((spec_t, "0"));
    Ok(TimeControl::Clock {
        base: seconds(base, false)?,
        increment: seconds(increment, true)?,
    })
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
}

/// How an engine's plugin library is found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PluginRef {
    /// A bare name: `lib<name>.so` (per OS) in the plugin folder.
    Name(String),
    /// A library path, already resolved against the tournament file's folder.
    Path(PathBuf),
}

impl PluginRef {
    /// The library file: for a name, `plugin_dir/<DLL_PREFIX><name><DLL_SUFFIX>`; a path as is.
    pub fn resolve(&self, plugin_dir: &Path) -> PathBuf {
        match self {
            PluginRef::Name(name) => plugin_dir.join(format!(
                "{}{name}{}",
                std::env::consts::DLL_PREFIX,
                std::env::consts::DLL_SUFFIX
            )),
            PluginRef::Path(path) => path.clone(),
        }
    }

    /// A plugin as written in a tournament file or on the command line: a path when it has a
    /// folder separator or a library suffix, otherwise a bare name. A relative path is taken
    /// relative to `base_dir`.
    pub fn parse(text: &str, base_dir: &Path) -> PluginRef {
        if PluginRef::is_path(text) {
            PluginRef::Path(base_dir.join(text))
        } else {
            PluginRef::Name(text.to_string())
        }
    }

    /// The library file, with bare names looked up in `plugin_dir` or, without one, in
    /// [`default_plugin_dir`].
    pub fn locate(&self, plugin_dir: Option<&Path>) -> std::io::Result<PathBuf> {
        match (self, plugin_dir) {
            (PluginRef::Path(path), _) => Ok(path.clone()),
            (_, Some(dir)) => Ok(self.resolve(dir)),
            (_, None) => Ok(self.resolve(&default_plugin_dir()?)),
        }
    }

    /// Whether `text` names a path rather than a bare plugin name.
    fn is_path(text: &str) -> bool {
        text.contains('/')
            || text.contains('\\')
            || [".so", ".dylib", ".dll"]
                .iter()
                .any(|ext| text.ends_with(ext))
    }
}

/// The folder bare plugin names are looked up in: the folder of the running harness binary
/// (the build output folder). A test binary in `target/<profile>/deps` maps to
/// `target/<profile>`.
pub fn default_plugin_dir() -> std::io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let dir = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    if dir.file_name().is_some_and(|n| n == "deps") {
        if let Some(parent) = dir.parent() {
            return Ok(parent.to_path_buf());
        }
    }
    Ok(dir)
}

impl Tournament {
    /// The time rules of engine number `engine`: its own `time` table, or the `[time]` table.
    pub fn time_rules(&self, engine: usize) -> TimeRules {
        self.engines[engine].time.unwrap_or(self.time)
    }

    /// The time controls as a person reads them: the `[time]` control when every engine plays
    /// under it, else each engine's (`strong 40s+0.2s, light 60s/move`), so that time odds
    /// show at a glance.
    pub fn time_description(&self) -> String {
        if self.engines.iter().all(|e| e.time.is_none()) {
            return self.time.control.to_string();
        }
        self.engines
            .iter()
            .enumerate()
            .map(|(i, e)| format!("{} {}", e.name, self.time_rules(i).control))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Engine index pairs that play each other: match `[(0, 1)]`, gauntlet `(0, i)` for each
    /// later engine, round robin every `(i, j)` with `i < j`.
    pub fn pairings(&self) -> Vec<(usize, usize)> {
        let n = self.engines.len();
        match self.format {
            Format::Match => vec![(0, 1)],
            Format::Gauntlet => (1..n).map(|i| (0, i)).collect(),
            Format::RoundRobin => (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .collect(),
        }
    }

    /// The fail-on rule of every engine, in file order: its own `fail-on`, made stricter for
    /// the candidate (the first engine) by the `[sprt]` table's `fail-on-forfeit` (any
    /// forfeit) or `fail-on-crash` (a crash, when the engine has no rule of its own).
    pub fn fail_rules(&self) -> Vec<(String, FailOn)> {
        self.engines
            .iter()
            .enumerate()
            .map(|(i, engine)| {
                let mut rule = engine.fail_on;
                if let (0, Some(sprt)) = (i, &self.sprt) {
                    if sprt.fail_on_forfeit {
                        rule = FailOn::Forfeit;
                    } else if sprt.fail_on_crash && rule == FailOn::Nothing {
                        rule = FailOn::Crash;
                    }
                }
                (engine.name.clone(), rule)
            })
            .collect()
    }

    /// The state of the sequential test (candidate = first engine) on these records.
    pub fn sprt_status(&self, records: &[GameRecord]) -> Option<SprtStatus> {
        let sprt = self.sprt.as_ref()?;
        let (a, b) = (&self.engines[0].name, &self.engines[1].name);
        Some(sprt.params.status(&match_stats(&outcomes(records), a, b)))
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

    /// Total number of games: two per pair, `pairs` pairs per pairing.
    pub fn game_count(&self) -> usize {
        self.pairings().len() * self.pairs as usize * 2
    }
}

/// A tournament file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: cannot read the tournament file: {error}")]
    Read { path: String, error: std::io::Error },
    /// TOML syntax, an unknown or missing key, or a value of the wrong type or spelling.
    #[error("{file}:{line}:{column}: {}{message}", key_prefix(.key))]
    Toml {
        file: String,
        line: usize,
        column: usize,
        /// The key whose value is wrong, when the message does not name it already.
        key: Option<String>,
        message: String,
    },
    /// A well-typed value that breaks a rule (a zero count, two time controls, …).
    #[error("{file}:{line}: key `{key}`: {message}")]
    Invalid {
        file: String,
        line: usize,
        key: String,
        message: String,
    },
}

impl ConfigError {
    /// The 1-based line the error points at, if it points into the file.
    pub fn line(&self) -> Option<usize> {
        match self {
            ConfigError::Read { .. } => None,
            ConfigError::Toml { line, .. } | ConfigError::Invalid { line, .. } => Some(*line),
        }
    }
}

fn key_prefix(key: &Option<String>) -> String {
    key.as_ref()
        .map(|k| format!("key `{k}`: "))
        .unwrap_or_default()
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
    let raw: RawFile = toml::from_str(text).map_err(|e| toml_error(text, source, &e))?;
    Validator { text, source }.tournament(raw, base_dir)
}

/// The compiled-in default tournament ([`DEFAULT_TOURNAMENT`]), paths resolved against the
/// current folder. Its openings are a built-in set, so it works from anywhere.
pub fn embedded_default() -> Tournament {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    parse(DEFAULT_TOURNAMENT, EMBEDDED_SOURCE, &cwd)
        .expect("the embedded default tournament is valid (checked by a test)")
}

// ---- The file as written ----------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    tournament: Spanned<RawTournament>,
    time: Spanned<RawTime>,
    openings: Spanned<RawOpenings>,
    engine: Option<Spanned<Vec<Spanned<RawEngine>>>>,
    sprt: Option<Spanned<RawSprt>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawSprt {
    elo0: Spanned<f64>,
    elo1: Spanned<f64>,
    alpha: Option<Spanned<f64>>,
    beta: Option<Spanned<f64>>,
    model: Option<Spanned<crate::stats::sprt::Model>>,
    unit: Option<Spanned<crate::stats::sprt::Unit>>,
    fail_on_crash: Option<bool>,
    fail_on_forfeit: Option<bool>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawTournament {
    format: Spanned<Format>,
    pairs: Spanned<u32>,
    concurrency: Option<Spanned<usize>>,
    affinity: Option<bool>,
    out: Option<Spanned<String>>,
    stop_file: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawTime {
    base: Option<Spanned<f64>>,
    increment: Option<Spanned<f64>>,
    move_time: Option<Spanned<f64>>,
    depth: Option<Spanned<u32>>,
    nodes: Option<Spanned<u64>>,
    margin: Option<Spanned<f64>>,
    stall_timeout: Option<Spanned<f64>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
enum RawOrder {
    Sequential,
    Shuffled,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawOpenings {
    file: Option<Spanned<String>>,
    builtin: Option<Spanned<String>>,
    order: Option<Spanned<RawOrder>>,
    seed: Option<Spanned<u64>>,
    start: Option<Spanned<usize>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawEngine {
    name: Spanned<String>,
    plugin: Spanned<String>,
    options: Option<RawOptions>,
    fail_on: Option<FailOn>,
    /// Bytes (an integer) or a size with a unit (text).
    memory_limit: Option<Spanned<toml::Value>>,
    time: Option<Spanned<RawTime>>,
}

/// Engine options in file order.
struct RawOptions(Vec<(Spanned<String>, Spanned<toml::Value>)>);

impl<'de> Deserialize<'de> for RawOptions {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RawOptions, D::Error> {
        struct OptionsVisitor;
        impl<'de> Visitor<'de> for OptionsVisitor {
            type Value = RawOptions;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a table of engine options")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawOptions, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<Spanned<String>, Spanned<toml::Value>>()? {
                    entries.push(entry);
                }
                // The TOML map may come sorted by key; the spans give back the file order.
                entries.sort_by_key(|(key, _)| key.span().start);
                Ok(RawOptions(entries))
            }
        }
        deserializer.deserialize_map(OptionsVisitor)
    }
}

// ---- Validation -------------------------------------------------------------------------

struct Validator<'a> {
    text: &'a str,
    source: &'a str,
}

impl Validator<'_> {
    fn invalid(&self, span: Range<usize>, key: &str, message: impl Into<String>) -> ConfigError {
        ConfigError::Invalid {
            file: self.source.to_string(),
            line: line_col(self.text, span.start).0,
            key: key.to_string(),
            message: message.into(),
        }
    }

    fn line(&self, span: &Range<usize>) -> usize {
        line_col(self.text, span.start).0
    }

    fn tournament(&self, raw: RawFile, base_dir: &Path) -> Result<Tournament, ConfigError> {
        let t = raw.tournament.into_inner();
        let format = *t.format.get_ref();
        let pairs = *t.pairs.get_ref();
        if pairs == 0 {
            return Err(self.invalid(t.pairs.span(), "pairs", "must be at least 1"));
        }
        let concurrency = match t.concurrency {
            Some(c) => check_concurrency(*c.get_ref())
                .map_err(|e| self.invalid(c.span(), "concurrency", e))?,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let out = match t.out {
            Some(out) if out.get_ref().trim().is_empty() => {
                return Err(self.invalid(out.span(), "out", "must not be empty"))
            }
            Some(out) => base_dir.join(out.into_inner()),
            None => {
                let stem = Path::new(self.source)
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "tournament".to_string());
                base_dir.join("out").join(stem)
            }
        };
        let stop_file = match t.stop_file {
            Some(f) if f.get_ref().trim().is_empty() => {
                return Err(self.invalid(f.span(), "stop-file", "must not be empty"))
            }
            Some(f) => Some(base_dir.join(f.into_inner())),
            None => None,
        };
        let time_span = raw.time.span();
        let defaults = (
            Duration::from_secs_f64(DEFAULT_MARGIN_SECS),
            Duration::from_secs_f64(DEFAULT_STALL_TIMEOUT_SECS),
        );
        let shared = self.time(raw.time.into_inner(), time_span, defaults)?;
        let openings_span = raw.openings.span();
        let openings = self.openings(raw.openings.into_inner(), openings_span, base_dir)?;
        let engines = self.engines(raw.engine, format, t.format.span(), base_dir, shared)?;
        let n = engines.len();
        let pairings = match format {
            Format::Match => 1,
            Format::Gauntlet => n - 1,
            Format::RoundRobin => n * (n - 1) / 2,
        };
        // Checked before anything is allocated: the schedule holds every game.
        if pairs as u64 * pairings as u64 * 2 > MAX_GAMES {
            return Err(self.invalid(
                t.pairs.span(),
                "pairs",
                format!(
                    "at most {} with {pairings} engine pairing(s): a tournament holds at most {MAX_GAMES} games",
                    MAX_GAMES / (2 * pairings as u64)
                ),
            ));
        }
        let sprt = match raw.sprt {
            None => None,
            Some(sprt) => {
                if format != Format::Match {
                    return Err(self.invalid(
                        sprt.span(),
                        "sprt",
                        "a sequential test needs format = \"match\" (candidate first, baseline second)",
                    ));
                }
                Some(self.sprt(sprt.into_inner())?)
            }
        };
        Ok(Tournament {
            source: self.source.to_string(),
            format,
            pairs,
            concurrency,
            affinity: t.affinity.unwrap_or(false),
            out,
            time: shared,
            openings,
            engines,
            sprt,
            stop_file,
            shard: None,
            definition: Definition {
                source: self.source.to_string(),
                base_dir: base_dir.to_path_buf(),
                text: self.text.to_string(),
                overrides: Overrides::default(),
            },
        })
    }

    fn sprt(&self, raw: RawSprt) -> Result<SprtConfig, ConfigError> {
        use crate::stats::sprt::{Model, SprtParams, Unit};
        let value =
            |v: &Option<Spanned<f64>>, default: f64| v.as_ref().map_or(default, |v| *v.get_ref());
        let params = SprtParams::new(
            *raw.elo0.get_ref(),
            *raw.elo1.get_ref(),
            value(&raw.alpha, 0.05),
            value(&raw.beta, 0.05),
            raw.model.as_ref().map_or(Model::Logistic, |m| *m.get_ref()),
            raw.unit
                .as_ref()
                .map_or(Unit::Pentanomial, |u| *u.get_ref()),
        )
        .map_err(|e| {
            // The line of the key at fault (a default at fault is the model's: `unit` is given).
            let span = match e.key() {
                "elo0" => Some(raw.elo0.span()),
                "alpha" => raw.alpha.as_ref().map(Spanned::span),
                "beta" => raw.beta.as_ref().map(Spanned::span),
                "unit" => raw.unit.as_ref().map(Spanned::span),
                _ => None,
            }
            .unwrap_or_else(|| raw.elo1.span());
            self.invalid(span, e.key(), e.to_string())
        })?;
        Ok(SprtConfig {
            params,
            fail_on_crash: raw.fail_on_crash.unwrap_or(false),
            fail_on_forfeit: raw.fail_on_forfeit.unwrap_or(false),
        })
    }

    /// Seconds as a duration: finite, not negative, zero only if `allow_zero`.
    fn seconds(
        &self,
        value: &Spanned<f64>,
        key: &str,
        allow_zero: bool,
    ) -> Result<Duration, ConfigError> {
        let secs = *value.get_ref();
        let bad = |m: &str| Err(self.invalid(value.span(), key, m));
        if !secs.is_finite() {
            return bad("must be a finite number of seconds");
        }
        if secs < 0.0 {
            return bad("must not be negative");
        }
        if secs == 0.0 && !allow_zero {
            return bad("must be more than 0 seconds");
        }
        Duration::try_from_secs_f64(secs).or_else(|_| bad("is too large"))
    }

    /// A `[time]` table, or an engine's `time` table; a margin or stall timeout it leaves out is
    /// `fallback`'s.
    fn time(
        &self,
        raw: RawTime,
        span: Range<usize>,
        fallback: (Duration, Duration),
    ) -> Result<TimeRules, ConfigError> {
        let limits = [
            ("base", raw.base.as_ref().map(Spanned::span)),
            ("move-time", raw.move_time.as_ref().map(Spanned::span)),
            ("depth", raw.depth.as_ref().map(Spanned::span)),
            ("nodes", raw.nodes.as_ref().map(Spanned::span)),
        ];
        let given: Vec<(&str, Range<usize>)> = limits
            .into_iter()
            .filter_map(|(k, s)| s.map(|s| (k, s)))
            .collect();
        match given.as_slice() {
            [] => {
                return Err(self.invalid(
                    span,
                    "time",
                    "needs one of `base` (with optional `increment`), `move-time`, `depth` or \
                     `nodes`",
                ))
            }
            [_] => {}
            [(first, first_span), (second, second_span), ..] => {
                return Err(self.invalid(
                    second_span.clone(),
                    second,
                    format!(
                        "conflicts with `{first}` on line {}: give exactly one of `base`, \
                         `move-time`, `depth` or `nodes`",
                        self.line(first_span)
                    ),
                ))
            }
        }
        if let (Some(inc), None) = (&raw.increment, &raw.base) {
            return Err(self.invalid(
                inc.span(),
                "increment",
                "is only allowed with `base` (a clock)",
            ));
        }
        let time = if let Some(base) = &raw.base {
            let increment = match &raw.increment {
                Some(inc) => self.seconds(inc, "increment", true)?,
                None => Duration::ZERO,
            };
            TimeControl::Clock {
                base: self.seconds(base, "base", false)?,
                increment,
            }
        } else if let Some(mt) = &raw.move_time {
            TimeControl::MoveTime(self.seconds(mt, "move-time", false)?)
        } else if let Some(depth) = &raw.depth {
            if *depth.get_ref() == 0 {
                return Err(self.invalid(depth.span(), "depth", "must be at least 1"));
            }
            TimeControl::Depth(*depth.get_ref())
        } else {
            let nodes = raw.nodes.as_ref().expect("exactly one limit is given");
            if *nodes.get_ref() == 0 {
                return Err(self.invalid(nodes.span(), "nodes", "must be at least 1"));
            }
            TimeControl::Nodes(*nodes.get_ref())
        };
        let margin = match &raw.margin {
            Some(m) => self.seconds(m, "margin", true)?,
            None => fallback.0,
        };
        let stall_timeout = match &raw.stall_timeout {
            Some(s) => self.seconds(s, "stall-timeout", false)?,
            None => fallback.1,
        };
        Ok(TimeRules {
            control: time,
            margin,
            stall_timeout,
        })
    }

    fn openings(
        &self,
        raw: RawOpenings,
        span: Range<usize>,
        base_dir: &Path,
    ) -> Result<OpeningsConfig, ConfigError> {
        let source = match (raw.file, raw.builtin) {
            (Some(_), Some(builtin)) => {
                return Err(self.invalid(
                    builtin.span(),
                    "builtin",
                    "give either `file` or `builtin`, not both",
                ))
            }
            (None, None) => {
                return Err(self.invalid(
                    span,
                    "openings",
                    format!(
                        "needs `file` (an opening file) or `builtin` (one of {})",
                        BUILTIN_NAMES.join(", ")
                    ),
                ))
            }
            (Some(file), None) => {
                if file.get_ref().trim().is_empty() {
                    return Err(self.invalid(file.span(), "file", "must not be empty"));
                }
                OpeningSource::File(base_dir.join(file.into_inner()))
            }
            (None, Some(builtin)) => {
                if !BUILTIN_NAMES.contains(&builtin.get_ref().as_str()) {
                    return Err(self.invalid(
                        builtin.span(),
                        "builtin",
                        format!(
                            "unknown built-in opening set `{}` (known: {})",
                            builtin.get_ref(),
                            BUILTIN_NAMES.join(", ")
                        ),
                    ));
                }
                OpeningSource::Builtin(builtin.into_inner())
            }
        };
        let order =
            match (raw.order.map(Spanned::into_inner), raw.seed) {
                (None | Some(RawOrder::Sequential), Some(seed)) => return Err(self.invalid(
                    seed.span(),
                    "seed",
                    "only a shuffled order has a seed: set order = \"shuffled\", or remove `seed`",
                )),
                (None | Some(RawOrder::Sequential), None) => OpeningOrder::Sequential,
                (Some(RawOrder::Shuffled), seed) => OpeningOrder::Shuffled {
                    seed: seed.map_or(0, Spanned::into_inner),
                },
            };
        let start = match raw.start {
            Some(s) if *s.get_ref() == 0 => {
                return Err(self.invalid(s.span(), "start", "must be at least 1 (it is 1-based)"))
            }
            Some(s) => s.into_inner(),
            None => 1,
        };
        Ok(OpeningsConfig {
            source,
            order,
            start,
        })
    }

    fn engines(
        &self,
        raw: Option<Spanned<Vec<Spanned<RawEngine>>>>,
        format: Format,
        format_span: Range<usize>,
        base_dir: &Path,
        shared: TimeRules,
    ) -> Result<Vec<EngineConfig>, ConfigError> {
        let raw = raw.map(Spanned::into_inner).unwrap_or_default();
        let count = raw.len();
        let (ok, needs) = match format {
            Format::Match => (count == 2, "exactly 2"),
            Format::Gauntlet | Format::RoundRobin => (count >= 2, "at least 2"),
        };
        if !ok {
            // Point at the first engine too many, else the format that asks for more.
            let span = match raw.get(2) {
                Some(third) if count > 2 => third.span(),
                _ => format_span,
            };
            return Err(self.invalid(
                span,
                "engine",
                format!("a {format} needs {needs} engines (`[[engine]]` tables), found {count}"),
            ));
        }
        let mut engines: Vec<EngineConfig> = Vec::with_capacity(count);
        let mut name_lines: Vec<usize> = Vec::with_capacity(count);
        for entry in raw {
            let entry = entry.into_inner();
            let name = entry.name.get_ref();
            if name.trim().is_empty() {
                return Err(self.invalid(entry.name.span(), "name", "must not be empty"));
            }
            if let Some(i) = engines.iter().position(|e| &e.name == name) {
                return Err(self.invalid(
                    entry.name.span(),
                    "name",
                    format!(
                        "duplicate engine name `{name}` (also on line {}); names must be unique",
                        name_lines[i]
                    ),
                ));
            }
            let plugin_text = entry.plugin.get_ref().trim();
            if plugin_text.is_empty() {
                return Err(self.invalid(entry.plugin.span(), "plugin", "must not be empty"));
            }
            let plugin = PluginRef::parse(plugin_text, base_dir);
            let mut options = Vec::new();
            for (key, value) in entry.options.map(|o| o.0).unwrap_or_default() {
                let dotted = format!("options.{}", key.get_ref());
                if key.get_ref().trim().is_empty() {
                    return Err(self.invalid(
                        key.span(),
                        "options",
                        "option names must not be empty",
                    ));
                }
                let text = match value.get_ref() {
                    toml::Value::String(s) => s.clone(),
                    toml::Value::Integer(i) => i.to_string(),
                    toml::Value::Float(f) => f.to_string(),
                    toml::Value::Boolean(b) => b.to_string(),
                    other => {
                        return Err(self.invalid(
                            value.span(),
                            &dotted,
                            format!(
                                "an option value must be a string, integer, float or boolean, \
                                 not {}",
                                other.type_str()
                            ),
                        ))
                    }
                };
                options.push((key.into_inner(), text));
            }
            let memory_limit = match &entry.memory_limit {
                None => None,
                Some(text) => Some(
                    match text.get_ref() {
                        toml::Value::String(size) => parse_bytes(size),
                        toml::Value::Integer(bytes) if *bytes > 0 => Ok(*bytes as u64),
                        other => Err(format!(
                            "`{other}`: give bytes (a whole number above 0) or a size such as \"512MiB\" or \"2GiB\""
                        )),
                    }
                        .and_then(|bytes| {
                            if bytes < MIN_MEMORY_LIMIT {
                                Err(format!(
                                    "{bytes} bytes is too little for a worker (its code and thread stacks alone take tens of MiB); at least 64MiB"
                                ))
                            } else {
                                Ok(bytes)
                            }
                        })
                        .map_err(|e| self.invalid(text.span(), "memory-limit", e))?,
                ),
            };
            // An engine's own time table: a margin or stall timeout it leaves out is the
            // tournament's.
            let time = match entry.time {
                None => None,
                Some(raw) => {
                    let span = raw.span();
                    let fallback = (shared.margin, shared.stall_timeout);
                    Some(self.time(raw.into_inner(), span, fallback)?)
                }
            };
            name_lines.push(self.line(&entry.name.span()));
            engines.push(EngineConfig {
                time,
                name: entry.name.into_inner(),
                plugin,
                options,
                fail_on: entry.fail_on.unwrap_or_default(),
                memory_limit,
            });
        }
        Ok(engines)
    }
}

/// The smallest `memory-limit`: a worker's own code, libraries and thread stacks are mapped
/// within it.
const MIN_MEMORY_LIMIT: u64 = 64 << 20;

/// A size in bytes with an optional unit: `B`, decimal `kB`/`KB`, `MB`, `GB`, `TB`, or binary
/// `KiB`, `MiB`, `GiB`, `TiB`; a number without a unit is bytes. `1.5GiB` is allowed.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = (&text[..split], text[split..].trim());
    let scale: u64 = match unit {
        "" | "B" => 1,
        "kB" | "KB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        "KiB" => 1 << 10,
        "MiB" => 1 << 20,
        "GiB" => 1 << 30,
        "TiB" => 1 << 40,
        _ => {
            return Err(format!(
                "`{text}`: unknown unit `{unit}` (B, kB, MB, GB, TB, KiB, MiB, GiB or TiB)"
            ))
        }
    };
    let value: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size such as \"2GiB\" or \"512MiB\""))?;
    let bytes = value * scale as f64;
    if !bytes.is_finite() || bytes < 1.0 || bytes > (1u64 << 60) as f64 {
        return Err(format!("`{text}`: a size from 1 byte to 1 EiB"));
    }
    Ok(bytes as u64)
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.matches('\n').count() + 1;
    let column = before[line_start..].chars().count() + 1;
    (line, column)
}

/// The key a value at byte `offset` belongs to: the `key =` directly in front of it on its
/// line (also inside an inline table). `None` when the offset is not at a value.
fn key_before(text: &str, offset: usize) -> Option<String> {
    let before = text.get(..offset.min(text.len()))?;
    let line = &before[before.rfind('\n').map_or(0, |i| i + 1)..];
    let eq = line.rfind('=')?;
    if !line[eq + 1..].trim().is_empty() {
        return None;
    }
    let key = line[..eq]
        .rsplit(['{', ','])
        .next()?
        .trim()
        .trim_matches(|c| c == '"' || c == '\'');
    (!key.is_empty() && !key.starts_with('[')).then(|| key.to_string())
}

/// A serde message in the words of a tournament file rather than of Rust types:
/// "invalid value: integer `-3`, expected u32" becomes "`-3` is out of range: expected a whole
/// number from 0 to 4294967295".
fn plain_types(message: &str) -> String {
    // An integer too large for any Rust integer is "invalid type: integer … as i128": out of
    // range; any other integer of the wrong type is a number where something else belongs.
    let mut m = match message.strip_prefix("invalid type: integer ") {
        Some(rest) if rest.contains(" as i128") => {
            format!("invalid value: integer {}", rest.replace(" as i128", ""))
        }
        _ => message.to_string(),
    };
    for (serde, plain) in [
        ("invalid value: integer ", "{} is out of range"),
        ("invalid type: integer ", "{} is a whole number"),
        ("invalid type: floating point ", "{} is a decimal number"),
        ("invalid type: string ", "{} is text"),
        ("invalid type: boolean ", "{} is a true/false value"),
    ] {
        if let Some(rest) = m.strip_prefix(serde) {
            if let Some((value, expected)) = rest.split_once(", expected ") {
                m = format!("{}: expected {expected}", plain.replace("{}", value));
            }
        }
    }
    for (rust, plain) in [
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        (
            "expected u32",
            "expected a whole number from 0 to 4294967295",
        ),
        (
            "expected u64",
            "expected a whole number from 0 to 18446744073709551615",
        ),
        (
            "expected usize",
            "expected a whole number from 0 to 18446744073709551615",
        ),
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
    ] {
        if m.ends_with(rust) {
            m = format!("{}{plain}", &m[..m.len() - rust.len()]);
        }
    }
    // The file's tables are `Raw…` structs: "expected struct RawTime".
    if let Some(i) = m.find("expected struct Raw") {
        let example = if m[i..].starts_with("expected struct RawTime") {
            " such as `{ move-time = 0.5 }`"
        } else {
            ""
        };
        m = format!("{}expected a table{example}", &m[..i]);
    }
    m
}

/// Keys whose values start at 1: a range message says so (serde's says "from 0").
const AT_LEAST_ONE: [&str; 5] = ["pairs", "concurrency", "depth", "nodes", "start"];

/// A toml/serde error as a [`ConfigError::Toml`] with file, line, column and (when the
/// message does not name it) the key.
fn toml_error(text: &str, source: &str, err: &toml::de::Error) -> ConfigError {
    let offset = err.span().map_or(0, |s| s.start);
    let (line, column) = line_col(text, offset);
    let message = plain_types(err.message().trim());
    let names_its_key = message.contains("field `") || message.contains("key");
    let key = if names_its_key {
        None
    } else {
        err.span().and_then(|s| key_before(text, s.start))
    };
    let message = match &key {
        Some(k) if AT_LEAST_ONE.contains(&k.as_str()) => {
            message.replace("a whole number from 0 to", "a whole number from 1 to")
        }
        _ => message,
    };
    ConfigError::Toml {
        file: source.to_string(),
        line,
        column,
        key,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A valid file; tests break one thing at a time. Line numbers matter: see the comments.
    const GOOD: &str = r#"[tournament]
format = "round-robin"
pairs = 3
concurrency = 2
out = "results/rr"

[time]
base = 10.0
increment = 0.1
margin = 0.5

[openings]
file = "openings/mine.txt"
order = "shuffled"
seed = 7
start = 5

[[engine]]
name = "alpha"
plugin = "heuristic"
options = { Depth = 7, Pruning = "alphabeta", Ratio = 0.5, Book = true }

[[engine]]
name = "beta"
plugin = "plugins/libbeta.so"

[[engine]]
name = "gamma"
plugin = "greedy"
"#;

    fn good() -> Tournament {
        parse(GOOD, "dir/t.toml", Path::new("dir")).unwrap()
    }

    /// Parse `text` as `bad.toml`, expect an error, check it names the file, `line` and every
    /// fragment, and return the message.
    fn err(text: &str, line: usize, fragments: &[&str]) -> String {
        let e = parse(text, "bad.toml", Path::new("")).expect_err("should not parse");
        let msg = e.to_string();
        assert_eq!(e.line(), Some(line), "{msg}");
        assert!(msg.starts_with(&format!("bad.toml:{line}:")), "{msg}");
        for f in fragments {
            assert!(msg.contains(f), "`{f}` not in: {msg}");
        }
        msg
    }

    fn edit(from: &str, to: &str) -> String {
        assert!(GOOD.contains(from), "{from}");
        GOOD.replacen(from, to, 1)
    }

    /// `tournament.toml` claims every key is in it (set or commented): each table's keys, as
    /// serde lists them for an unknown one, must appear there as `key =` (issue 32: it lacked
    /// `stop-file`, `fail-on` and the `[sprt]` fail keys).
    #[test]
    fn the_default_tournament_mentions_every_key() {
        let probes = [
            ("[tournament]\nzzz = 1\n", "tournament"),
            ("[tournament]\nformat = \"match\"\npairs = 1\n[time]\nzzz = 1\n", "time"),
            ("[tournament]\nformat = \"match\"\npairs = 1\n[time]\ndepth = 1\n[openings]\nzzz = 1\n", "openings"),
            ("[tournament]\nformat = \"match\"\npairs = 1\n[time]\ndepth = 1\n[openings]\nbuiltin = \"xot-small\"\n[[engine]]\nzzz = 1\n", "engine"),
            ("[tournament]\nformat = \"match\"\npairs = 1\n[time]\ndepth = 1\n[openings]\nbuiltin = \"xot-small\"\n[sprt]\nzzz = 1\n", "sprt"),
        ];
        let mut missing = Vec::new();
        for (text, table) in probes {
            let message = parse(text, "probe.toml", Path::new(""))
                .unwrap_err()
                .to_string();
            let listed = message
                .split_once("expected one of ")
                .unwrap_or_else(|| panic!("{table}: {message}"))
                .1;
            for key in listed.split(", ").map(|k| k.trim_matches('`')) {
                let mentioned = DEFAULT_TOURNAMENT.lines().any(|l| {
                    let l = l.trim_start_matches(['#', ' ']);
                    l.starts_with(&format!("{key} =")) || l.contains(&format!("{{ {key} ="))
                });
                if !mentioned {
                    missing.push(format!("{table}.{key}"));
                }
            }
        }
        assert!(
            missing.is_empty(),
            "tournament.toml does not mention {missing:?}"
        );
    }

    /// Regression (issue 32): a seed without a shuffle was silently ignored.
    #[test]
    fn a_seed_needs_a_shuffle() {
        err(
            &edit("order = \"shuffled\"\n", ""),
            14,
            &["key `seed`", "order = \"shuffled\""],
        );
        err(
            &edit("order = \"shuffled\"", "order = \"sequential\""),
            15,
            &["key `seed`"],
        );
    }

    /// Regression (issue 32): `memory-limit = 2147483648` said "expected a string", though
    /// the comment says bytes or a size; `pairs = -3` said "from 0", though 0 is refused.
    #[test]
    fn memory_limits_in_bytes_and_ranges_that_start_at_one() {
        let bytes = edit(
            "plugin = \"plugins/libbeta.so\"\n",
            "plugin = \"plugins/libbeta.so\"\nmemory-limit = 2147483648\n",
        );
        let t = parse(&bytes, "t.toml", Path::new("")).unwrap();
        assert_eq!(t.engines[1].memory_limit, Some(2 << 30));
        err(
            &bytes.replace("2147483648", "-5"),
            26,
            &["key `memory-limit`", "give bytes"],
        );
        err(
            &edit("pairs = 3", "pairs = -3"),
            3,
            &["from 1 to 4294967295"],
        );
        err(
            &edit("concurrency = 2", "concurrency = -1"),
            4,
            &["from 1 to"],
        );
    }

    #[test]
    fn an_engine_may_have_its_own_time_rules() {
        let t = parse(
            &edit(
                "plugin = \"plugins/libbeta.so\"\n",
                "plugin = \"plugins/libbeta.so\"\ntime = { move-time = 3.0, stall-timeout = 9 }\nmemory-limit = \"1GiB\"\n",
            ),
            "t.toml",
            Path::new(""),
        )
        .unwrap();
        let shared = TimeRules {
            control: TimeControl::Clock {
                base: Duration::from_secs(10),
                increment: Duration::from_millis(100),
            },
            margin: Duration::from_millis(500),
            stall_timeout: Duration::from_secs(60),
        };
        assert_eq!(t.time_rules(0), shared);
        // Its own control and stall timeout; the margin it left out is the tournament's.
        assert_eq!(
            t.time_rules(1),
            TimeRules {
                control: TimeControl::MoveTime(Duration::from_secs(3)),
                margin: Duration::from_millis(500),
                stall_timeout: Duration::from_secs(9),
            }
        );
        assert_eq!(t.engines[1].memory_limit, Some(1 << 30));
        assert_eq!(
            t.time_description(),
            "alpha 10s+0.1s, beta 3s/move, gamma 10s+0.1s"
        );
        assert_eq!(good().time_description(), "10s+0.1s");
        // The same rules as the [time] table: exactly one limit.
        err(
            &edit(
                "plugin = \"plugins/libbeta.so\"\n",
                "plugin = \"plugins/libbeta.so\"\ntime = { depth = 3, nodes = 10 }\n",
            ),
            26,
            &["key `nodes`", "conflicts with `depth`"],
        );
        err(
            &edit(
                "plugin = \"plugins/libbeta.so\"\n",
                "plugin = \"plugins/libbeta.so\"\nmemory-limit = \"12MiB\"\n",
            ),
            26,
            &["key `memory-limit`", "at least 64MiB"],
        );
    }

    #[test]
    fn good_file_parses() {
        let t = good();
        assert_eq!(t.source, "dir/t.toml");
        assert_eq!(t.format, Format::RoundRobin);
        assert_eq!(t.pairs, 3);
        assert_eq!(t.concurrency, 2);
        assert_eq!(t.out, Path::new("dir/results/rr"));
        assert_eq!(
            t.time.control,
            TimeControl::Clock {
                base: Duration::from_secs(10),
                increment: Duration::from_millis(100)
            }
        );
        assert_eq!(t.time.control.to_string(), "10s+0.1s");
        assert_eq!(t.time.margin, Duration::from_millis(500));
        assert_eq!(t.time.stall_timeout, Duration::from_secs(60));
        assert_eq!(
            t.openings,
            OpeningsConfig {
                source: OpeningSource::File(PathBuf::from("dir/openings/mine.txt")),
                order: OpeningOrder::Shuffled { seed: 7 },
                start: 5,
            }
        );
        let names: Vec<_> = t.engines.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["alpha", "beta", "gamma"]);
        assert_eq!(t.engines[0].plugin, PluginRef::Name("heuristic".into()));
        assert_eq!(
            t.engines[1].plugin,
            PluginRef::Path(PathBuf::from("dir/plugins/libbeta.so"))
        );
        let options: Vec<(&str, &str)> = t.engines[0]
            .options
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            options,
            [
                ("Depth", "7"),
                ("Pruning", "alphabeta"),
                ("Ratio", "0.5"),
                ("Book", "true")
            ]
        );
        assert!(t.engines[2].options.is_empty());
        assert_eq!(t.pairings(), [(0, 1), (0, 2), (1, 2)]);
        assert_eq!(t.game_count(), 18);
    }

    #[test]
    fn defaults() {
        let text = r#"
[tournament]
format = "match"
pairs = 1
[time]
depth = 4
[openings]
builtin = "xot-large"
[[engine]]
name = "a"
plugin = "a"
[[engine]]
name = "a2"
plugin = "a"
"#;
        let t = parse(text, "some/where/quick.toml", Path::new("some/where")).unwrap();
        assert!(t.concurrency >= 1);
        assert_eq!(t.out, Path::new("some/where/out/quick"));
        assert_eq!(t.time.control, TimeControl::Depth(4));
        assert_eq!(t.time.margin, Duration::from_millis(200));
        assert_eq!(t.time.stall_timeout, Duration::from_secs(60));
        assert_eq!(
            t.openings.source,
            OpeningSource::Builtin("xot-large".into())
        );
        assert_eq!(t.openings.order, OpeningOrder::Sequential);
        assert_eq!(t.openings.start, 1);
        assert_eq!(t.pairings(), [(0, 1)]);
        let shuffled = text.replace(
            "builtin = \"xot-large\"",
            "builtin = \"xot-large\"\norder = \"shuffled\"",
        );
        let t = parse(&shuffled, "q.toml", Path::new("")).unwrap();
        assert_eq!(t.openings.order, OpeningOrder::Shuffled { seed: 0 });
        let t = parse(
            &text.replace("depth = 4", "nodes = 5000"),
            "q",
            Path::new(""),
        )
        .unwrap();
        assert_eq!(t.time.control, TimeControl::Nodes(5000));
        let t = parse(
            &text.replace("depth = 4", "move-time = 1"),
            "q",
            Path::new(""),
        )
        .unwrap();
        assert_eq!(
            t.time.control,
            TimeControl::MoveTime(Duration::from_secs(1))
        );
        let t = parse(&text.replace("depth = 4", "base = 3"), "q", Path::new("")).unwrap();
        assert_eq!(
            t.time.control,
            TimeControl::Clock {
                base: Duration::from_secs(3),
                increment: Duration::ZERO
            }
        );
    }

    #[test]
    fn gauntlet_pairings() {
        let t = parse(&edit("round-robin", "gauntlet"), "g.toml", Path::new("")).unwrap();
        assert_eq!(t.pairings(), [(0, 1), (0, 2)]);
    }

    #[test]
    fn repo_file_and_embedded_default_parse() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tournament.toml");
        let t = load(&path).unwrap();
        assert_eq!(t.format, Format::Gauntlet);
        assert_eq!(
            t.openings.source,
            OpeningSource::Builtin("xot-small".into())
        );
        assert!(matches!(t.openings.order, OpeningOrder::Shuffled { .. }));
        let names: Vec<_> = t.engines.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["strong", "heuristic", "minimax", "greedy"]);
        assert!(matches!(t.time.control, TimeControl::Clock { .. }));
        assert!(t.out.ends_with("out/default"));

        let d = embedded_default();
        assert_eq!(d.source, EMBEDDED_SOURCE);
        assert_eq!(d.engines, t.engines);
        assert_eq!(d.openings, t.openings);
        assert_eq!(d.time, t.time);
        assert!(d.openings.load().unwrap().len() == 3_623);
    }

    #[test]
    fn read_errors_name_the_path() {
        let e = load(Path::new("/nonexistent/t.toml")).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("/nonexistent/t.toml: cannot read"),
            "{e}"
        );
        assert_eq!(e.line(), None);
    }

    #[test]
    fn plugin_resolution() {
        let dir = Path::new("/build/out");
        let name = PluginRef::Name("greedy".into()).resolve(dir);
        let expected = format!(
            "{}greedy{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_SUFFIX
        );
        assert_eq!(name, dir.join(expected));
        let path = PluginRef::Path(PathBuf::from("x/libq.so"));
        assert_eq!(path.resolve(dir), Path::new("x/libq.so"));
        assert!(PluginRef::is_path("engine.dll"));
        assert!(PluginRef::is_path("./engine"));
        assert!(!PluginRef::is_path("engine"));
        assert!(default_plugin_dir().unwrap().is_dir());
    }

    #[test]
    fn command_line_plugin_names_and_paths() {
        let dir = Path::new("/plugins");
        let p = PluginRef::parse("strong", Path::new(""))
            .locate(Some(dir))
            .unwrap();
        assert!(p.starts_with(dir) && p.to_string_lossy().contains("strong"));
        for path in ["./libx.so", "x.dll", "a\\b"] {
            assert_eq!(
                PluginRef::parse(path, Path::new(""))
                    .locate(Some(dir))
                    .unwrap(),
                PathBuf::from(path)
            );
        }
    }

    #[test]
    fn toml_syntax_error() {
        err(&edit("pairs = 3", "pairs = = 3"), 3, &[]);
        err(&edit("[time]", "[time"), 7, &[]);
    }

    #[test]
    fn unknown_keys() {
        err(
            &edit("pairs = 3", "pair = 3"),
            3,
            &["bad.toml:3:1:", "unknown field `pair`"],
        );
        err(
            &edit("margin = 0.5", "margn = 0.5"),
            10,
            &["unknown field `margn`"],
        );
        err(&edit("seed = 7", "sead = 7"), 15, &["unknown field `sead`"]);
        err(
            &edit("name = \"beta\"", "nam = \"beta\""),
            24,
            &["unknown field `nam`"],
        );
        err(
            &format!("{GOOD}\n[extra]\nx = 1\n"),
            31,
            &["unknown field `extra`"],
        );
    }

    #[test]
    fn missing_keys() {
        err(&edit("pairs = 3\n", ""), 1, &["missing field `pairs`"]);
        err(
            &edit("plugin = \"greedy\"\n", ""),
            27,
            &["missing field `plugin`"],
        );
    }

    #[test]
    fn time_specs_of_the_command_line() {
        let secs = Duration::from_secs_f64;
        assert_eq!(
            parse_time_spec("10+0.1"),
            Ok(TimeControl::Clock {
                base: secs(10.0),
                increment: secs(0.1)
            })
        );
        assert_eq!(
            parse_time_spec("60"),
            Ok(TimeControl::Clock {
                base: secs(60.0),
                increment: Duration::ZERO
            })
        );
        assert_eq!(
            parse_time_spec("0.5/move"),
            Ok(TimeControl::MoveTime(secs(0.5)))
        );
        assert_eq!(parse_time_spec("depth=6"), Ok(TimeControl::Depth(6)));
        assert_eq!(parse_time_spec("nodes=1000"), Ok(TimeControl::Nodes(1000)));
        for bad in [
            "", "fast", "0", "-1+1", "depth=0", "nodes=x", "1+-2", "inf", "NaN/move",
        ] {
            assert!(parse_time_spec(bad).is_err(), "{bad}");
        }
    }

    /// Regression (issue 19, bug 4): `pairs = 4000000000` was accepted and the schedule's
    /// allocation aborted the process; now it is an error before anything is allocated.
    #[test]
    fn a_schedule_too_large_is_refused() {
        err(
            &edit("pairs = 3", "pairs = 4000000000"),
            3,
            &[
                "key `pairs`",
                "at most 833333 with 3 engine pairing(s)",
                "5000000 games",
            ],
        );
        err(&edit("pairs = 3", "pairs = 833334"), 3, &["key `pairs`"]);
        assert!(parse(
            &edit("pairs = 3", "pairs = 833333"),
            "t.toml",
            Path::new(".")
        )
        .is_ok());
    }

    #[test]
    fn wrong_types() {
        err(
            &edit("pairs = 3", "pairs = \"3\""),
            3,
            &["key `pairs`", "\"3\" is text: expected a whole number"],
        );
        err(&edit("pairs = 3", "pairs = -1"), 3, &["key `pairs`"]);
        err(&edit("base = 10.0", "base = \"10s\""), 8, &["key `base`"]);
        err(
            &edit("concurrency = 2", "concurrency = 1.5"),
            4,
            &["key `concurrency`"],
        );
        err(
            &edit("Depth = 7", "Depth = [7]"),
            21,
            &["key `options.Depth`", "array"],
        );
        err(&edit("name = \"alpha\"", "name = 1"), 19, &["key `name`"]);
    }

    #[test]
    fn unknown_format_and_order() {
        err(
            &edit("round-robin", "swiss"),
            2,
            &["key `format`", "unknown variant `swiss`", "round-robin"],
        );
        err(
            &edit("\"shuffled\"", "\"random\""),
            14,
            &["key `order`", "unknown variant `random`"],
        );
    }

    #[test]
    fn zero_counts() {
        let m = err(&edit("pairs = 3", "pairs = 0"), 3, &["key `pairs`"]);
        assert_eq!(m, "bad.toml:3: key `pairs`: must be at least 1");
        err(
            &edit("concurrency = 2", "concurrency = 0"),
            4,
            &["key `concurrency`", "at least 1"],
        );
        err(
            &edit("start = 5", "start = 0"),
            16,
            &["key `start`", "at least 1"],
        );
        err(
            &edit("out = \"results/rr\"", "out = \"\""),
            5,
            &["key `out`", "empty"],
        );
    }

    #[test]
    fn time_section_errors() {
        err(
            &edit("base = 10.0\nincrement = 0.1\n", ""),
            7,
            &["key `time`", "needs one of"],
        );
        err(
            &edit("increment = 0.1", "increment = 0.1\ndepth = 3"),
            10,
            &["key `depth`", "conflicts with `base` on line 8"],
        );
        err(
            &edit("base = 10.0", "move-time = 1.0"),
            9,
            &["key `increment`", "only allowed with `base`"],
        );
        err(
            &edit("base = 10.0", "base = -1.0"),
            8,
            &["key `base`", "negative"],
        );
        err(
            &edit("base = 10.0", "base = 0"),
            8,
            &["key `base`", "more than 0"],
        );
        err(
            &edit("base = 10.0", "base = nan"),
            8,
            &["key `base`", "finite"],
        );
        err(
            &edit("increment = 0.1", "increment = -0.1"),
            9,
            &["key `increment`", "negative"],
        );
        err(
            &edit("margin = 0.5", "margin = -0.5"),
            10,
            &["key `margin`", "negative"],
        );
        err(
            &edit("margin = 0.5", "stall-timeout = 0"),
            10,
            &["key `stall-timeout`"],
        );
        let depth = edit("base = 10.0\nincrement = 0.1", "depth = 0");
        err(&depth, 8, &["key `depth`", "at least 1"]);
        let nodes = edit("base = 10.0\nincrement = 0.1", "nodes = 0");
        err(&nodes, 8, &["key `nodes`", "at least 1"]);
    }

    #[test]
    fn openings_errors() {
        let both = edit(
            "order = \"shuffled\"",
            "builtin = \"xot-small\"\norder = \"shuffled\"",
        );
        err(&both, 14, &["key `builtin`", "not both"]);
        let neither = edit("file = \"openings/mine.txt\"\n", "");
        err(&neither, 12, &["key `openings`", "xot-small"]);
        let unknown = edit("file = \"openings/mine.txt\"", "builtin = \"xot-huge\"");
        err(
            &unknown,
            13,
            &["key `builtin`", "`xot-huge`", "xot-small, xot-large"],
        );
    }

    #[test]
    fn engine_count_errors() {
        let none = GOOD[..GOOD.find("[[engine]]").unwrap()].to_string();
        err(&none, 2, &["key `engine`", "at least 2", "found 0"]);
        let one = GOOD[..GOOD.find("\n[[engine]]\nname = \"beta\"").unwrap()].to_string();
        err(
            &one,
            2,
            &["key `engine`", "round-robin needs at least 2", "found 1"],
        );
        let gauntlet_one = one.replace("round-robin", "gauntlet");
        err(
            &gauntlet_one,
            2,
            &["a gauntlet needs at least 2", "found 1"],
        );
        err(
            &edit("round-robin", "match"),
            27,
            &["key `engine`", "a match needs exactly 2", "found 3"],
        );
        err(
            &one.replace("round-robin", "match"),
            2,
            &["exactly 2", "found 1"],
        );
    }

    #[test]
    fn engine_name_errors() {
        let dup = edit("name = \"gamma\"", "name = \"alpha\"");
        err(
            &dup,
            28,
            &["key `name`", "duplicate engine name `alpha`", "line 19"],
        );
        err(
            &edit("name = \"beta\"", "name = \" \""),
            24,
            &["key `name`", "empty"],
        );
        err(
            &edit("plugin = \"greedy\"", "plugin = \"\""),
            29,
            &["key `plugin`", "empty"],
        );
        let table = edit("Book = true", "Book = { x = 1 }");
        err(&table, 21, &["key `options.Book`", "table"]);
    }
}

#[cfg(test)]
mod messages {
    use super::plain_types;

    #[test]
    fn serde_type_names_become_words() {
        assert_eq!(
            plain_types("invalid value: integer `-3`, expected u32"),
            "`-3` is out of range: expected a whole number from 0 to 4294967295"
        );
        assert_eq!(
            plain_types("invalid type: floating point `1.5`, expected u64"),
            "`1.5` is a decimal number: expected a whole number from 0 to 18446744073709551615"
        );
        assert_eq!(
            plain_types("invalid type: string \"ten\", expected u32"),
            "\"ten\" is text: expected a whole number from 0 to 4294967295"
        );
        assert_eq!(
            plain_types("invalid type: integer `99999999999999999999` as i128, expected usize"),
            "`99999999999999999999` is out of range: expected a whole number from 0 to 18446744073709551615"
        );
        assert_eq!(plain_types("unknown field `x`"), "unknown field `x`");
        // Regression (issue 32): `time = 5` said "out of range: expected struct RawTime".
        assert_eq!(
            plain_types("invalid type: integer `5`, expected struct RawTime"),
            "`5` is a whole number: expected a table such as `{ move-time = 0.5 }`"
        );
    }
}

#[cfg(test)]
mod byte_sizes {
    use super::parse_bytes;

    #[test]
    fn sizes_with_and_without_units() {
        assert_eq!(parse_bytes("2GiB"), Ok(2 << 30));
        assert_eq!(parse_bytes("512 MiB"), Ok(512 << 20));
        assert_eq!(parse_bytes("1.5GB"), Ok(1_500_000_000));
        assert_eq!(parse_bytes("4096"), Ok(4096));
        assert_eq!(parse_bytes("64kB"), Ok(64_000));
        for bad in ["", "GiB", "2 gigs", "-1GiB", "1e400", "0", "2..5MiB"] {
            assert!(parse_bytes(bad).is_err(), "{bad:?} accepted");
        }
    }
}
