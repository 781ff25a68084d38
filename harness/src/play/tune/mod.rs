//! SPSA tuning on the coordinator's loop (`harness tune`): a [`GameHook`] that gives each game
//! the values of θ + c·Δ and θ − c·Δ and updates θ as the games come in.
//!
//! A tune plays its tournament's [`Tournament::tune_match`]: one round (an opening, both
//! colours) per iteration; iteration i is round i − 1. The first game of a round that is
//! claimed begins its iteration: Δ and the values are drawn ([`harness_core::stats::spsa`]) around
//! the θ of that moment and written to `tune-dispatch.jsonl` before the game starts; the
//! round's other games use the same values. When the last game of a round is journaled, its
//! result updates θ and a line goes to `tune.jsonl`.
//!
//! **Options reach the workers between games** (`set_option` before `new_game`, which the ABI
//! allows outside a search), on the workers the run already has: a new worker per
//! configuration would start a process and load the plugin twice per game.
//!
//! **Stale θ.** An iteration uses the θ of its dispatch, as fishtest's workers do, with the gain
//! index k = (iterations applied then) + 1. Results are applied in the order their iterations
//! complete, which is the order of the journal. An iteration dispatched while others are in
//! flight misses their updates: at most `concurrency − 1` of them, as each iteration in flight
//! holds a game slot (games are claimed in order, so only the one being dispatched can have
//! games not yet started).
//!
//! **Resume.** θ is a function of the journal: replaying `games.jsonl` in its order against the
//! iterations of `tune-dispatch.jsonl` gives every update again, and `tune.jsonl` is rewritten
//! from it; an iteration begun but not complete finishes with the values it began with.
//!
//! **Over shards** (`harness tune --shard I/N`, the same layout as `run --shard`: shard I plays
//! the iterations i with (i − 1) mod N = I into `<out>/shard-I-of-N`). A shard does not move θ:
//! when it begins an iteration it reads θ and the count of iterations applied from
//! `<out>/tune-theta.json` (θ = start while there is none), and journals that dispatch as a
//! single machine does. One process, `harness tune --aggregate` ([`aggregate`]), applies the
//! complete iterations to θ in the order of their numbers, up to the first one not complete,
//! and replaces `tune-theta.json` atomically. θ is therefore a pure function of the shards'
//! files: an aggregator killed, restarted or run twice writes the same θ, and nothing of its
//! own needs to survive.
//!
//! What this gives up against one machine is freshness: an iteration misses the updates of
//! every earlier iteration still in flight on any shard, of those complete but waiting behind
//! an earlier one not complete, and of those complete since the aggregator's last look. With N
//! shards of c games at once, shards of equal speed and an aggregator that looks every s
//! seconds while the tune completes r iterations a second, that is about N·c + r·s iterations;
//! a shard that lags L iterations behind the others adds L. The staleness of every iteration
//! (iteration − k, with k its gain index) is in the aggregator's summary, so the bound is
//! checked, not assumed.

pub mod aggregate;

use crate::host::engine_host::WorkerSpec;
use crate::host::EngineHost;
use crate::play::game::GameOptions;
use crate::play::resume::{same_tournament, tournament_text};
use crate::play::tournament::GameHook;
use anyhow::{bail, Context};
use harness_core::events::{Event, EventSink};
use harness_core::plan::config::{minus_name, plus_name, Tournament, TuneConfig};
use harness_core::plan::schedule::ScheduledGame;
use harness_core::record::journal::{read_journal, JSONL_FILE};
use harness_core::record::tournament_record::TournamentRecord;
use harness_core::record::tune::{
    read_lines, rewrite_lines, Dispatch, LineWriter, ThetaFile, TuneLine, Values, DISPATCH_FILE,
    THETA_FILE, TUNE_FILE,
};
use harness_core::record::GameRecord;
use harness_core::stats::spsa::{self, Param, Schedule};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The tune's state, driven by its games: θ, the iterations begun and the results of those not
/// complete. No I/O: the hook and the aggregator feed it.
#[derive(Clone, Debug)]
pub struct Tuner {
    pub params: Vec<Param>,
    pub schedule: Schedule,
    seed: u64,
    /// The tune match's names of θ+ and θ−.
    plus: String,
    minus: String,
    /// Games of one round: 2 against itself, 4 against an opponent.
    round_games: usize,
    /// Pairs of one round.
    round_pairs: usize,
    pub theta: Vec<f64>,
    /// Iterations applied to θ.
    pub applied: u64,
    /// Iterations begun and not yet applied, by number.
    pub begun: BTreeMap<u64, Dispatch>,
    /// Iterations not complete: games seen, θ+'s wins − losses, θ−'s wins − losses.
    partial: HashMap<u64, (usize, i32, i32)>,
    /// Every applied iteration, in order (a shard's: every iteration it completed, with the θ
    /// it was dispatched around).
    pub lines: Vec<TuneLine>,
    /// False in a shard of a sharded tune: θ is the aggregator's, read from its file, and a
    /// complete iteration leaves θ as it is.
    pub applies: bool,
    /// For each applied iteration, the earlier iterations whose updates its θ lacked: begun
    /// and not yet applied at its dispatch (iteration − k; at most `concurrency − 1`, as each
    /// holds a game in flight). Later iterations that complete first are applied before it, as
    /// in fishtest, and are not counted here.
    pub staleness: Vec<u64>,
}

impl Tuner {
    /// A tune of `cfg` (with `params` as checked against the plugin) from θ = start.
    pub fn new(cfg: &TuneConfig, params: Vec<Param>, tuned: &str) -> Tuner {
        let round_pairs = if cfg.opponent.is_some() { 2 } else { 1 };
        Tuner {
            theta: params.iter().map(|p| p.start).collect(),
            params,
            schedule: cfg.schedule,
            seed: cfg.seed,
            plus: plus_name(tuned),
            minus: minus_name(tuned),
            round_games: 2 * round_pairs,
            round_pairs,
            applied: 0,
            begun: BTreeMap::new(),
            partial: HashMap::new(),
            lines: Vec::new(),
            applies: true,
            staleness: Vec::new(),
        }
    }

    pub fn names(&self) -> Vec<&str> {
        self.params.iter().map(|p| p.name.as_str()).collect()
    }

    /// θ with its parameters' names.
    pub fn theta_values(&self) -> Values<f64> {
        Values::of(&self.names(), &self.theta)
    }

    /// The iteration a scheduled game belongs to (1-based).
    pub fn iteration_of(&self, g: &ScheduledGame) -> u64 {
        g.round as u64 + 1
    }

    /// The iteration of the games of pair `pair` (their round, plus one).
    pub fn iteration_of_pair(&self, pair: usize) -> u64 {
        (pair / self.round_pairs) as u64 + 1
    }

    /// Begin `iteration` around `theta`, which holds `applied` iterations.
    pub fn begin(&mut self, iteration: u64, theta: &[f64], applied: u64) -> Dispatch {
        let k = applied + 1;
        let p = spsa::probe(&self.params, &self.schedule, self.seed, iteration, k, theta);
        let names = self.names();
        let d = Dispatch {
            iteration,
            k,
            theta: Values::of(&names, theta),
            delta: Values::of(&names, &p.delta),
            plus: Values::of(&names, &p.plus),
            minus: Values::of(&names, &p.minus),
        };
        self.begun.insert(iteration, d.clone());
        d
    }

    /// The options the engine named `engine` plays a game of iteration `d` with: θ+'s or θ−'s
    /// values (integers without a fraction), none for an opponent.
    pub fn options_of(&self, d: &Dispatch, engine: &str) -> Vec<(String, String)> {
        let values = if engine == self.plus {
            &d.plus
        } else if engine == self.minus {
            &d.minus
        } else {
            return Vec::new();
        };
        self.params
            .iter()
            .zip(&values.0)
            .map(|(p, (name, v))| (name.clone(), option_text(p, *v)))
            .collect()
    }

    /// A journaled game; the line of its iteration when it completes it.
    pub fn take(&mut self, r: &GameRecord) -> anyhow::Result<Option<TuneLine>> {
        let iteration = self.iteration_of_pair(r.pair);
        let sign = r.score.signum();
        let wl = |name: &str| {
            if r.black == name {
                sign
            } else if r.white == name {
                -sign
            } else {
                0
            }
        };
        let entry = self.partial.entry(iteration).or_default();
        entry.0 += 1;
        entry.1 += wl(&self.plus);
        entry.2 += wl(&self.minus);
        if entry.0 < self.round_games {
            return Ok(None);
        }
        let (_, plus_wl, minus_wl) = self.partial.remove(&iteration).expect("just seen");
        let Some(d) = self.begun.remove(&iteration) else {
            bail!(
                "game {} completes iteration {iteration}, which {DISPATCH_FILE} does not hold",
                r.game + 1
            );
        };
        // Against itself θ−'s record mirrors θ+'s, and this is θ+'s wins − losses.
        let result = f64::from(plus_wl - minus_wl) / 2.0;
        // A shard's line keeps the θ it played around; θ moves only where results are applied.
        let theta = if self.applies {
            spsa::update(
                &self.params,
                &self.schedule,
                &mut self.theta,
                d.k,
                &d.delta.values(),
                result,
            );
            self.staleness.push(d.iteration - d.k);
            self.applied += 1;
            self.theta_values()
        } else {
            d.theta
        };
        let line = TuneLine {
            iteration,
            delta: d.delta,
            plus: d.plus,
            minus: d.minus,
            result,
            theta,
        };
        self.lines.push(line.clone());
        Ok(Some(line))
    }

    /// The events that show θ's whole trajectory so far in the live view: the start, then θ
    /// after each applied iteration (a resumed tune shows where it has been, also when nothing
    /// is left to play). A shard's θ is the aggregator's: only its current value.
    pub fn trajectory(&self) -> Vec<Event> {
        let iterations = self.schedule.iterations;
        if !self.applies {
            return vec![self.event()];
        }
        let start: Vec<f64> = self.params.iter().map(|p| p.start).collect();
        std::iter::once(Event::Tuned {
            applied: 0,
            iterations,
            theta: Values::of(&self.names(), &start).0,
        })
        .chain(self.lines.iter().zip(1..).map(|(l, applied)| Event::Tuned {
            applied,
            iterations,
            theta: l.theta.0.clone(),
        }))
        .collect()
    }

    /// The event that shows θ in the live view.
    pub fn event(&self) -> Event {
        Event::Tuned {
            applied: self.applied,
            iterations: self.schedule.iterations,
            theta: self.theta_values().0,
        }
    }
}

/// An option's value as text: an integer option's value without a fraction.
pub fn option_text(p: &Param, v: f64) -> String {
    if p.integer {
        format!("{}", v.round() as i64)
    } else {
        format!("{v}")
    }
}

/// The final values as a line to paste into the tuned engine's `[[engine]]` table (integer
/// options rounded to the nearest whole number), with the engine's other options kept.
pub fn options_line(base: &[(String, String)], params: &[Param], theta: &[f64]) -> String {
    let tuned: Vec<(String, String)> = params
        .iter()
        .zip(theta)
        .map(|(p, &v)| {
            let text = if p.integer {
                option_text(p, v)
            } else {
                // A float keeps a point, so that TOML reads it as a float.
                let t = format!("{:.6}", v);
                let t = t.trim_end_matches('0');
                format!("{t}{}", if t.ends_with('.') { "0" } else { "" })
            };
            (p.name.clone(), text)
        })
        .collect();
    let kept = base
        .iter()
        .filter(|(n, _)| !params.iter().any(|p| &p.name == n))
        .map(|(n, v)| {
            let quoted = v.parse::<f64>().is_err() && v != "true" && v != "false";
            (n.clone(), if quoted { format!("{v:?}") } else { v.clone() })
        });
    let all: Vec<String> = kept
        .chain(tuned)
        .map(|(n, v)| format!("{n} = {v}"))
        .collect();
    format!("options = {{ {} }}", all.join(", "))
}

/// Check the tuned options against the plugin's declarations (each declared, int or float,
/// with a range inside the plugin's; an int's range in whole numbers) by loading it in a
/// worker, before any game: the parameters with their types, or an error naming the file, the
/// line and the key.
pub async fn check_plugin(
    t: &Tournament,
    cfg: &TuneConfig,
    plugin_dir: &Path,
) -> anyhow::Result<Vec<Param>> {
    let e = &t.engines[cfg.engine];
    let spec = WorkerSpec {
        name: e.name.clone(),
        plugin: e.plugin.resolve(plugin_dir),
        options: e.options.clone(),
        stderr_log: None,
        memory_limit: e.memory_limit,
        sandbox: crate::host::sandbox::Confinement::of(&e.sandbox, Some(e.declared_threads())),
        between_turns: super::pool::between_turns(t, e.ponder),
    };
    if !spec.plugin.exists() {
        bail!(
            "{}: engine `{}`: plugin not found at {} (build the engines with `cargo build --release --workspace`, or give a path)",
            t.source,
            e.name,
            spec.plugin.display()
        );
    }
    let host = EngineHost::spawn(&spec)
        .await
        .map_err(|err| anyhow::Error::new(err).context(t.source.clone()))?;
    let declared = host.plugin.options.clone();
    host.shutdown().await;
    let mut params = cfg.params.clone();
    for (p, line) in params.iter_mut().zip(&cfg.lines) {
        // A tune from the command line alone has no file to point into: the caller names
        // the `--tune` flag instead.
        let place = if t.source == harness_core::plan::config::COMMAND_LINE_SOURCE {
            String::new()
        } else {
            format!("{}:{line}: ", t.source)
        };
        let at =
            |message: String| anyhow::anyhow!("{place}key `tune.params.{}`: {message}", p.name);
        let Some(o) = declared.iter().find(|o| o.name == p.name) else {
            let names: Vec<&str> = declared.iter().map(|o| o.name.as_str()).collect();
            return Err(at(format!(
                "engine `{}` ({}) declares no option `{}` (its options: {})",
                e.name,
                spec.plugin.display(),
                p.name,
                names.join(", ")
            )));
        };
        p.integer = match o.kind.as_str() {
            "int" => true,
            "float" => false,
            other => {
                return Err(at(format!(
                    "is a {other} option of engine `{}`: only int and float options can be tuned",
                    e.name
                )))
            }
        };
        if p.min < o.min || p.max > o.max {
            return Err(at(format!(
                "the range {}..{} is outside the plugin's {}..{} for `{}`",
                p.min, p.max, o.min, o.max, p.name
            )));
        }
        if p.integer && (p.min.fract() != 0.0 || p.max.fract() != 0.0) {
            return Err(at(format!(
                "`{}` is an int option: min and max must be whole numbers",
                p.name
            )));
        }
    }
    Ok(params)
}

/// Whether the output folder of `t` may be read as this tune's: no games yet, or games of the
/// same tournament (otherwise the coordinator refuses it, and nothing here touches it).
fn folder_is_ours(t: &Tournament, plugin_dir: &Path) -> anyhow::Result<bool> {
    if !t.out.join(JSONL_FILE).exists() {
        return Ok(true);
    }
    let openings = t.openings.load()?;
    let written = TournamentRecord::written_text(&t.out)?;
    Ok(same_tournament(
        &written,
        &tournament_text(t, &openings, plugin_dir),
        false,
    ))
}

/// What hears each applied iteration (the command's plain lines or the live view's).
pub type OnLine = Box<dyn FnMut(&TuneLine, &Tuner) + Send>;

/// The hook of `harness tune`.
pub struct TuneHook {
    pub tuner: Tuner,
    /// The tune match's output folder.
    out: PathBuf,
    /// A shard's: the folder of the shard folders, where the aggregator writes θ.
    shared: Option<PathBuf>,
    /// What `tune-theta.json` must pin: this tune (a file of another tune is refused).
    pin: harness_core::record::tune::TuneRecord,
    /// Engine names of the tune match, by index.
    names: Vec<String>,
    /// Opened at the first game (the coordinator has prepared the folder by then).
    dispatch: Option<LineWriter>,
    lines: Option<LineWriter>,
    events: EventSink,
    on_line: OnLine,
}

impl TuneHook {
    /// The hook of the tune match `m` of engine `tuned` (the tournament file's `cfg`, with
    /// `params` checked against the plugin). An earlier run's games in `m.out` rebuild θ
    /// (nothing is read from a folder of another tournament: the coordinator refuses it).
    /// `on_line` hears every applied iteration.
    pub fn open(
        m: &Tournament,
        tuned: &str,
        cfg: &TuneConfig,
        params: Vec<Param>,
        plugin_dir: &Path,
        events: EventSink,
        on_line: OnLine,
    ) -> anyhow::Result<TuneHook> {
        let mut tuner = Tuner::new(cfg, params, tuned);
        let shared = m.shard.map(|_| {
            harness_core::record::run_folder::RunFolder::at(&m.out)
                .run_dir()
                .to_path_buf()
        });
        tuner.applies = shared.is_none();
        // A folder holds a tune played on one machine or the shards of one, never both: their
        // θ files and tune.jsonl would overwrite each other's.
        match &shared {
            Some(dir) if dir.join(DISPATCH_FILE).exists() => bail!(
                "{} holds a tune played on one machine (its {DISPATCH_FILE}): a sharded tune needs a folder of its own",
                dir.display()
            ),
            None if !aggregate::shard_folders(&m.out)?.is_empty() => bail!(
                "{} holds the shards of a sharded tune: aggregate them with --aggregate, or play this tune into another folder",
                m.out.display()
            ),
            _ => {}
        }
        if folder_is_ours(m, plugin_dir)? {
            for d in read_lines::<Dispatch>(&m.out.join(DISPATCH_FILE))? {
                tuner.begun.insert(d.iteration, d);
            }
            let journal = m.out.join(JSONL_FILE);
            if journal.exists() {
                for r in read_journal(&journal)? {
                    tuner.take(&r).with_context(|| {
                        format!("cannot rebuild θ from {}", m.out.join(JSONL_FILE).display())
                    })?;
                }
            }
        }
        for e in tuner.trajectory() {
            events.send(e);
        }
        Ok(TuneHook {
            tuner,
            out: m.out.clone(),
            shared,
            pin: cfg.pin(),
            names: m.engines.iter().map(|e| e.name.clone()).collect(),
            dispatch: None,
            lines: None,
            events,
            on_line,
        })
    }

    /// `tune.jsonl` as the journal makes it: after the run, so that it holds every applied
    /// iteration even when the run had nothing left to play (a shard writes none: θ is the
    /// aggregator's).
    pub fn write_lines(&self) -> anyhow::Result<()> {
        if self.shared.is_some() {
            return Ok(());
        }
        rewrite_lines(&self.out.join(TUNE_FILE), &self.tuner.lines)
    }

    /// Whether this is a shard of a sharded tune.
    pub fn sharded(&self) -> bool {
        self.shared.is_some()
    }

    /// A shard's θ: the aggregator's file, as it is now (θ = start while there is none).
    /// A file that cannot be read (a shared file system's hiccup, an aggregator's crash) is
    /// tried again a few times, then the last θ read is kept (staler, never wrong); a file of
    /// another tune, or one that claims iterations not played yet, is an error.
    fn read_shared_theta(&mut self, iteration: u64) -> anyhow::Result<()> {
        let Some(dir) = &self.shared else {
            return Ok(());
        };
        let path = dir.join(THETA_FILE);
        let mut tries = 0;
        let file = loop {
            match ThetaFile::read(dir) {
                Ok(Some(file)) => break file,
                Ok(None) => return Ok(()),
                Err(_) if tries < 4 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                Err(e) => {
                    eprintln!(
                        "warning: {e:#}; iteration {iteration} begins around the θ read before ({} iterations applied)",
                        self.tuner.applied
                    );
                    return Ok(());
                }
            }
        };
        if file.applied >= iteration {
            bail!(
                "{}: says {} iterations are applied, but iteration {iteration} only begins now: it is left from an earlier tune; remove it (and that tune's shard folders) or use another output folder",
                path.display(),
                file.applied
            );
        }
        if file.tune != self.pin {
            bail!(
                "{}: written for another tune (its [tune] table differs from this one's); remove it or use another output folder",
                path.display()
            );
        }
        let names: Vec<&str> = file.theta.0.iter().map(|(n, _)| n.as_str()).collect();
        if names != self.tuner.names() {
            bail!(
                "{}: its parameters ({}) are not this tune's ({})",
                path.display(),
                names.join(", "),
                self.tuner.names().join(", ")
            );
        }
        self.tuner.theta = file.theta.values();
        self.tuner.applied = file.applied;
        Ok(())
    }

    /// The files, at the first game: `tune.jsonl` rewritten from the journal, both opened for
    /// appending; the live view hears θ.
    fn open_files(&mut self) -> anyhow::Result<()> {
        if self.dispatch.is_some() {
            return Ok(());
        }
        if self.shared.is_none() {
            let path = self.out.join(TUNE_FILE);
            rewrite_lines(&path, &self.tuner.lines)?;
            self.lines = Some(LineWriter::open(&path)?);
        }
        self.dispatch = Some(LineWriter::open(&self.out.join(DISPATCH_FILE))?);
        Ok(())
    }
}

impl GameHook for TuneHook {
    fn options(&mut self, g: &ScheduledGame) -> anyhow::Result<GameOptions> {
        self.open_files()?;
        let iteration = self.tuner.iteration_of(g);
        if !self.tuner.begun.contains_key(&iteration) {
            self.read_shared_theta(iteration)?;
            if self.shared.is_some() {
                self.events.send(self.tuner.event());
            }
            let (theta, applied) = (self.tuner.theta.clone(), self.tuner.applied);
            let d = self.tuner.begin(iteration, &theta, applied);
            self.dispatch.as_mut().expect("opened").append(&d)?;
        }
        let d = &self.tuner.begun[&iteration];
        Ok([
            self.tuner.options_of(d, &self.names[g.black]),
            self.tuner.options_of(d, &self.names[g.white]),
        ])
    }

    fn finished(&mut self, record: &GameRecord) -> anyhow::Result<()> {
        if let Some(line) = self.tuner.take(record)? {
            if self.shared.is_none() {
                let lines = self.lines.as_mut().context("tune.jsonl is not open")?;
                // tune.jsonl is rebuilt from the journal and the dispatches at every start.
                lines.append_derived(&line)?;
            }
            self.events.send(self.tuner.event());
            (self.on_line)(&line, &self.tuner);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> (Tournament, TuneConfig) {
        let text = "[tournament]\nformat = \"match\"\npairs = 1\n[time]\ndepth = 1\n\
                    [openings]\nbuiltin = \"xot-small\"\n[[engine]]\nname = \"h\"\n\
                    plugin = \"heuristic\"\n[[engine]]\nname = \"base\"\nplugin = \"heuristic\"\n\
                    [tune]\nengine = \"h\"\niterations = 100\nseed = 5\n[tune.params]\n\
                    Corners = { start = 600, min = -1000, max = 1000, c-end = 20, r-end = 0.002 }\n\
                    TimeShare = { start = 0.5, min = 0.1, max = 1.0, c-end = 0.05, r-end = 0.002 }\n";
        let t = harness_core::plan::config::parse(text, "t.toml", Path::new("")).unwrap();
        let cfg = t.tune.clone().unwrap();
        (t, cfg)
    }

    fn game(game: usize, pair: usize, black: &str, white: &str, score: i32) -> GameRecord {
        let mut r = GameRecord::skeleton(game, black, white, score);
        r.pair = pair;
        r
    }

    /// θ+ wins both games of iteration 1: θ moves along Δ by a_1 / c_1 · 2, and the options
    /// the two sides played are θ ± c_1·Δ, the integer one rounded.
    #[test]
    fn an_iteration_moves_theta_along_delta() {
        let (_, cfg) = config();
        let mut params = cfg.params.clone();
        params[0].integer = true;
        let mut tuner = Tuner::new(&cfg, params.clone(), "h");
        let d = tuner.begin(1, &tuner.theta.clone(), 0);
        assert_eq!(d.k, 1);
        let plus = tuner.options_of(&d, "h+");
        let minus = tuner.options_of(&d, "h-");
        assert_eq!(plus[0].0, "Corners");
        assert!(plus[0].1.parse::<i64>().is_ok(), "{plus:?}");
        assert!(tuner.options_of(&d, "base").is_empty());
        let c = params[1].gains(&cfg.schedule, 1).c;
        let d1 = f64::from(d.delta.0[1].1);
        assert_eq!(plus[1].1, format!("{}", 0.5 + c * d1));
        assert_eq!(minus[1].1, format!("{}", 0.5 - c * d1));
        assert_eq!(tuner.take(&game(0, 0, "h+", "h-", 10)).unwrap(), None);
        let line = tuner.take(&game(1, 0, "h-", "h+", -4)).unwrap().unwrap();
        assert_eq!((line.iteration, line.result), (1, 2.0));
        for (i, p) in params.iter().enumerate() {
            let g = p.gains(&cfg.schedule, 1);
            let expected =
                (p.start + g.a / g.c * 2.0 * f64::from(d.delta.0[i].1)).clamp(p.min, p.max);
            assert_eq!(line.theta.0[i].1, expected);
        }
        assert_eq!((tuner.applied, tuner.staleness.clone()), (1, vec![0]));
        // A game of an iteration never begun is an error that says so.
        tuner.take(&game(2, 1, "h+", "h-", 0)).unwrap();
        let e = tuner.take(&game(3, 1, "h-", "h+", 0)).unwrap_err();
        assert!(e.to_string().contains("iteration 2"), "{e}");
    }

    /// Iteration 2 begun before iteration 1 is applied lacks its update (staleness 1) and keeps
    /// the gains of its dispatch (k = 1); applied first, it does not make iteration 1 stale.
    #[test]
    fn an_iteration_begun_in_flight_counts_what_it_lacked() {
        let (_, cfg) = config();
        let mut tuner = Tuner::new(&cfg, cfg.params.clone(), "h");
        let start = tuner.theta.clone();
        tuner.begin(1, &start, 0);
        let d2 = tuner.begin(2, &start, 0);
        assert_eq!(d2.k, 1);
        tuner.take(&game(2, 1, "h+", "h-", 4)).unwrap();
        let line = tuner.take(&game(3, 1, "h-", "h+", -4)).unwrap().unwrap();
        assert_eq!(line.iteration, 2);
        tuner.take(&game(0, 0, "h+", "h-", 0)).unwrap();
        let line = tuner.take(&game(1, 0, "h-", "h+", 0)).unwrap().unwrap();
        assert_eq!(line.iteration, 1);
        assert_eq!(tuner.staleness, [1, 0]);
        assert_eq!(tuner.applied, 2);
    }

    /// Against an opponent a round is four games; the result is half the difference of θ+'s
    /// and θ−'s records against it.
    #[test]
    fn against_an_opponent_a_round_is_two_pairs() {
        let (_, mut cfg) = config();
        cfg.opponent = Some(1);
        let mut tuner = Tuner::new(&cfg, cfg.params.clone(), "h");
        tuner.begin(1, &tuner.theta.clone(), 0);
        // Pair 0: base vs h+ (h+ wins one, draws one); pair 1: base vs h- (h- loses both).
        let games = [
            game(0, 0, "base", "h+", -2),
            game(1, 0, "h+", "base", 0),
            game(2, 1, "base", "h-", 8),
        ];
        for g in &games {
            assert_eq!(tuner.take(g).unwrap(), None);
        }
        let line = tuner.take(&game(3, 1, "h-", "base", -8)).unwrap().unwrap();
        assert_eq!(line.result, (1.0 - (-2.0)) / 2.0);
    }

    /// The live view of a resumed tune gets the whole trajectory: the start, then θ after each
    /// applied iteration, also when nothing is left to play.
    #[test]
    fn the_trajectory_starts_at_the_start_and_ends_at_theta() {
        let (_, cfg) = config();
        let mut tuner = Tuner::new(&cfg, cfg.params.clone(), "h");
        for (i, pair) in [(1u64, 0usize), (2, 1)] {
            tuner.begin(i, &tuner.theta.clone(), i - 1);
            tuner.take(&game(2 * pair, pair, "h+", "h-", 6)).unwrap();
            tuner
                .take(&game(2 * pair + 1, pair, "h-", "h+", 0))
                .unwrap();
        }
        let events = tuner.trajectory();
        let thetas: Vec<(u64, Vec<f64>)> = events
            .into_iter()
            .map(|e| match e {
                Event::Tuned { applied, theta, .. } => {
                    (applied, theta.into_iter().map(|(_, v)| v).collect())
                }
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(thetas.len(), 3);
        assert_eq!(thetas[0], (0, vec![600.0, 0.5]));
        assert_eq!(thetas[2], (2, tuner.theta.clone()));
        assert_ne!(thetas[1].1, thetas[0].1);
    }

    #[test]
    fn the_options_line_pastes_into_a_tournament_file() {
        let (_, cfg) = config();
        let mut params = cfg.params.clone();
        params[0].integer = true;
        let base = vec![
            ("Depth".to_string(), "3".to_string()),
            ("Corners".to_string(), "600".to_string()),
            ("Eval".to_string(), "simple".to_string()),
        ];
        assert_eq!(
            options_line(&base, &params, &[612.7, 0.5]),
            "options = { Depth = 3, Eval = \"simple\", Corners = 613, TimeShare = 0.5 }"
        );
    }
}
