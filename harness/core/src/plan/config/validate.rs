//! Raw into checked: a [`RawFile`] becomes a [`Tournament`], or a [`ConfigError`] that names
//! the file, the line and the key. The rules a value obeys anywhere are [`super::rules`]; what
//! is here needs the file (spans, the tournament file's folder, keys that depend on others).

use super::error::{line_col, ConfigError};
use super::raw::{
    RawAdjudication, RawEngine, RawFile, RawOpenings, RawOptions, RawOrder, RawSprt, RawTime,
};
use super::{
    rules, sandbox, AdjudicationConfig, Build, Definition, EngineConfig, Format, OpeningOrder,
    OpeningSource, OpeningsConfig, Overrides, PluginRef, Sandbox, SandboxMode, SprtConfig,
    TimeControl, TimeRules, Tournament, DEFAULT_MARGIN_SECS, DEFAULT_SOLVER,
    DEFAULT_SOLVE_TIMEOUT_SECS, DEFAULT_STALL_TIMEOUT_SECS,
};
use crate::plan::openings::BUILTIN_NAMES;
use crate::stats::analysis::MOST_EMPTIES;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toml::Spanned;

/// The file's text and name, for errors.
pub(super) struct Validator<'a> {
    pub(super) text: &'a str,
    pub(super) source: &'a str,
}

impl Validator<'_> {
    pub(super) fn invalid(
        &self,
        span: Range<usize>,
        key: &str,
        message: impl Into<String>,
    ) -> ConfigError {
        ConfigError::Invalid {
            file: self.source.to_string(),
            line: line_col(self.text, span.start).0,
            key: key.to_string(),
            message: message.into(),
        }
    }

    pub(super) fn line(&self, span: &Range<usize>) -> usize {
        line_col(self.text, span.start).0
    }

    pub(super) fn tournament(
        &self,
        raw: RawFile,
        base_dir: &Path,
    ) -> Result<Tournament, ConfigError> {
        let table_span = raw.tournament.span();
        let t = raw.tournament.into_inner();
        let format = *t.format.get_ref();
        let (pairs, pairs_span) = match &t.pairs {
            Some(p) => (*p.get_ref(), p.span()),
            // A tune plays its iterations; `pairs` is not needed.
            None if raw.tune.is_some() => (1, table_span.clone()),
            None => {
                return Err(self.invalid(
                    table_span,
                    "tournament",
                    "missing field `pairs` (game pairs per engine pairing)",
                ))
            }
        };
        if pairs == 0 {
            return Err(self.invalid(pairs_span, "pairs", "must be at least 1"));
        }
        let concurrency = match t.concurrency {
            Some(c) => rules::concurrency(*c.get_ref())
                .map_err(|e| self.invalid(c.span(), "concurrency", e))?,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let out = self.out_folder(t.out, base_dir)?;
        let stop_file = (t.stop_file)
            .map(|f| {
                if f.get_ref().trim().is_empty() {
                    Err(self.invalid(f.span(), "stop-file", "must not be empty"))
                } else {
                    Ok(base_dir.join(f.into_inner()))
                }
            })
            .transpose()?;
        let time_span = raw.time.span();
        let defaults = (
            Duration::from_secs_f64(DEFAULT_MARGIN_SECS),
            Duration::from_secs_f64(DEFAULT_STALL_TIMEOUT_SECS),
        );
        let mut shared_raw = raw.time.into_inner();
        let nps_keys = (
            shared_raw.nps_reference.take(),
            shared_raw.nps_engine.take(),
        );
        let shared = self.time(shared_raw, time_span, defaults)?;
        let openings_span = raw.openings.span();
        let openings = self.openings(raw.openings.into_inner(), openings_span, base_dir)?;
        // A tune plays a match of its own (`Tournament::tune_match`): one engine is enough.
        let tuning = raw.tune.is_some();
        let sandbox = self.sandbox_mode(t.sandbox.as_ref(), SandboxMode::default())?;
        let engines = self.engines(
            raw.engine,
            (format, t.format.span()),
            base_dir,
            shared,
            tuning,
            sandbox,
        )?;
        let nps = self.nps(nps_keys, shared, &engines)?;
        // Checked before anything is allocated: the schedule holds every game.
        let pairings = format.pairings(engines.len()).len();
        let pairs =
            rules::pairs(pairs, pairings).map_err(|e| self.invalid(pairs_span, "pairs", e))?;
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
        let adjudication = (raw.adjudication)
            .map(|a| self.adjudication(a.into_inner(), base_dir))
            .transpose()?;
        let tune = match raw.tune {
            Some(tune) => Some(self.tune(tune, &engines)?),
            None => None,
        };
        Ok(Tournament {
            tune,
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
            adjudication,
            stop_file,
            sandbox,
            shard: None,
            nps,
            clock_scale: None,
            definition: Definition {
                source: self.source.to_string(),
                base_dir: base_dir.to_path_buf(),
                text: self.text.to_string(),
                overrides: Overrides::default(),
                command: None,
            },
        })
    }

    /// The output folder: `out` resolved against the file's folder, or `out/<file stem>`.
    fn out_folder(
        &self,
        out: Option<Spanned<String>>,
        base_dir: &Path,
    ) -> Result<PathBuf, ConfigError> {
        Ok(match out {
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

    /// An options table (`options`, `solver-options`) in file order, values as text. A
    /// relative `WorkingDir` is resolved against `base_dir` (the tournament file's folder, the
    /// current folder for `--engine`), as every relative path of its origin is. For a
    /// `sandboxed` engine, a command line that names a file of `base_dir` by a relative path
    /// is refused: its program starts in the engine's scratch folder (or its `WorkingDir`).
    fn options(
        &self,
        raw: Option<RawOptions>,
        table: &str,
        sandboxed: bool,
        base_dir: &Path,
    ) -> Result<Vec<(String, String)>, ConfigError> {
        let mut options = Vec::new();
        let mut spans = Vec::new();
        for (key, value) in raw.map(|o| o.0).unwrap_or_default() {
            let dotted = format!("{table}.{}", key.get_ref());
            if key.get_ref().trim().is_empty() {
                return Err(self.invalid(key.span(), table, "option names must not be empty"));
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
            spans.push((value.span(), dotted));
            options.push((key.into_inner(), text));
        }
        if let Some((_, dir)) = options
            .iter_mut()
            .find(|(k, _)| k == sandbox::WORKING_DIR_OPTION)
        {
            *dir = sandbox::resolved_working_dir(dir, base_dir);
        }
        if sandboxed {
            let working_dir = options
                .iter()
                .find(|(k, _)| k == sandbox::WORKING_DIR_OPTION)
                .map(|(_, v)| v.as_str());
            for ((_, value), (span, dotted)) in options.iter().zip(spans) {
                if let Some(advice) = sandbox::relative_command_path(value, working_dir, base_dir) {
                    return Err(self.invalid(span, &dotted, advice));
                }
            }
        }
        Ok(options)
    }

    /// The `[adjudication]` table: games end by an exact solve at `exact-at-empties`.
    fn adjudication(
        &self,
        raw: RawAdjudication,
        base_dir: &Path,
    ) -> Result<AdjudicationConfig, ConfigError> {
        let empties = &raw.exact_at_empties;
        if !(1..=MOST_EMPTIES).contains(empties.get_ref()) {
            return Err(self.invalid(
                empties.span(),
                "exact-at-empties",
                format!(
                    "give 1 to {MOST_EMPTIES} (from more empties an exact solve can take hours)"
                ),
            ));
        }
        let solver = match &raw.solver {
            Some(s) if s.get_ref().trim().is_empty() => {
                return Err(self.invalid(s.span(), "solver", "must not be empty"))
            }
            Some(s) => PluginRef::parse(s.get_ref().trim(), base_dir),
            None => PluginRef::Name(DEFAULT_SOLVER.to_string()),
        };
        let solve_timeout = match &raw.solve_timeout {
            Some(t) => self.seconds(t, "solve-timeout", false)?,
            None => Duration::from_secs_f64(DEFAULT_SOLVE_TIMEOUT_SECS),
        };
        Ok(AdjudicationConfig {
            exact_at_empties: *empties.get_ref(),
            solver,
            solver_options: self.options(raw.solver_options, "solver-options", false, base_dir)?,
            solve_timeout,
        })
    }

    /// Seconds as a duration: finite, not negative, zero only if `allow_zero`.
    fn seconds(
        &self,
        value: &Spanned<f64>,
        key: &str,
        allow_zero: bool,
    ) -> Result<Duration, ConfigError> {
        rules::seconds(*value.get_ref(), allow_zero).map_err(|e| self.invalid(value.span(), key, e))
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

    /// A `sandbox` key's mode, or `default` without one.
    fn sandbox_mode(
        &self,
        raw: Option<&Spanned<String>>,
        default: SandboxMode,
    ) -> Result<SandboxMode, ConfigError> {
        match raw {
            None => Ok(default),
            Some(m) => {
                SandboxMode::parse(m.get_ref()).map_err(|e| self.invalid(m.span(), "sandbox", e))
            }
        }
    }

    /// An engine's sandbox: its mode (else the tournament's) and its paths, which must exist.
    fn sandbox(
        &self,
        entry: &RawEngine,
        base_dir: &Path,
        default: SandboxMode,
    ) -> Result<Sandbox, ConfigError> {
        let mode = self.sandbox_mode(entry.sandbox.as_ref(), default)?;
        let paths = |raw: &Option<Spanned<Vec<String>>>, key: &str| match raw {
            None => Ok(Vec::new()),
            Some(list) => sandbox::existing_paths(list.get_ref(), base_dir)
                .map_err(|e| self.invalid(list.span(), key, e)),
        };
        let env = match &entry.sandbox_env {
            None => Vec::new(),
            Some(list) => sandbox::variable_names(list.get_ref())
                .map_err(|e| self.invalid(list.span(), "sandbox-env", e))?,
        };
        let disk_limit = match &entry.disk_limit {
            None => None,
            Some(value) => Some(
                rules::disk_limit(value.get_ref())
                    .map_err(|e| self.invalid(value.span(), "disk-limit", e))?,
            ),
        };
        let log_limit = match &entry.log_limit {
            None => None,
            Some(value) => Some(
                rules::log_limit(value.get_ref())
                    .map_err(|e| self.invalid(value.span(), "log-limit", e))?,
            ),
        };
        Ok(Sandbox {
            mode,
            read: paths(&entry.sandbox_read, "sandbox-read")?,
            write: paths(&entry.sandbox_write, "sandbox-write")?,
            env,
            disk_limit,
            log_limit,
        })
    }

    fn engines(
        &self,
        raw: Option<Spanned<Vec<Spanned<RawEngine>>>>,
        (format, format_span): (Format, Range<usize>),
        base_dir: &Path,
        shared: TimeRules,
        tuning: bool,
        sandbox: SandboxMode,
    ) -> Result<Vec<EngineConfig>, ConfigError> {
        let raw = raw.map(Spanned::into_inner).unwrap_or_default();
        let count = raw.len();
        let (ok, needs) = match format {
            _ if tuning => (count >= 1, "(with a [tune] table) at least 1"),
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
            let engine_sandbox = self.sandbox(&entry, base_dir, sandbox)?;
            let sandboxed = engine_sandbox.mode != SandboxMode::Off;
            let options = self.options(entry.options, "options", sandboxed, base_dir)?;
            let memory_limit = match &entry.memory_limit {
                None => None,
                Some(value) => Some(
                    rules::memory_limit(value.get_ref())
                        .map_err(|e| self.invalid(value.span(), "memory-limit", e))?,
                ),
            };
            // An engine's own time table: a margin or stall timeout it leaves out is the
            // tournament's.
            let time = match entry.time {
                None => None,
                Some(raw) => {
                    let span = raw.span();
                    let fallback = (shared.margin, shared.stall_timeout);
                    let raw = raw.into_inner();
                    self.no_nps_keys(&raw)?;
                    Some(self.time(raw, span, fallback)?)
                }
            };
            let bench = match entry.bench {
                Some(b) if *b.get_ref() == 0 => {
                    return Err(self.invalid(
                        b.span(),
                        "bench",
                        "must be at least 1 (the node count `harness bench` prints)",
                    ))
                }
                b => b.map(Spanned::into_inner),
            };
            let threads = match entry.threads {
                None => None,
                Some(n) => Some(
                    u32::try_from(*n.get_ref())
                        .ok()
                        .filter(|n| (1..=super::MAX_THREADS).contains(n))
                        .ok_or_else(|| {
                            self.invalid(
                                n.span(),
                                "threads",
                                format!("must be from 1 to {}", super::MAX_THREADS),
                            )
                        })?,
                ),
            };
            name_lines.push(self.line(&entry.name.span()));
            engines.push(EngineConfig {
                threads,
                sandbox: engine_sandbox,
                time,
                name: entry.name.into_inner(),
                plugin,
                options,
                fail_on: entry.fail_on.unwrap_or_default(),
                memory_limit,
                bench,
                ponder: entry.ponder.unwrap_or(false),
                build: entry.build.map(|b| Build {
                    commit: b.commit,
                    git_ref: b.git_ref,
                    date: b.date,
                    label: b.label,
                }),
            });
        }
        Ok(engines)
    }
}
