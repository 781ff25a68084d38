//! `harness tune`: SPSA tuning of an engine's options (the file's `[tune]` table). The tune
//! plays its match on the coordinator's loop with `play::tune`'s hook, shows each iteration
//! (live view or plain lines), and ends with the final values: printed as an `options = { … }`
//! line, written to `tune-result.toml` and charted in `tune.html`.
//!
//! Over shards: `--shard I/N` plays shard I's iterations around the θ of the shared folder's
//! `tune-theta.json`, and `--aggregate` (once, or `--watch` until every iteration is applied)
//! applies the shards' complete iterations and rewrites that file (`play::tune`, "Over
//! shards", says how, and what it costs against one machine).

use super::exit;
use super::output::{say, say_raw};
use super::run::{run_live, say_warnings, warn_if_oversubscribed};
use super::tournament_flags::{OutputFlags, TournamentFlags};
use crate::play::conductor::{self, Conductor, Played};
use crate::play::tournament::{self, RunSummary};
use crate::play::tune::aggregate::{aggregate_shards as aggregate_shards_of, Ended, Progress};
use crate::play::tune::{check_plugin, options_line, OnLine, TuneHook, Tuner};
use crate::show::report::tune as tune_report;
use anyhow::Context;
use harness_core::events::EventSink;
use harness_core::plan::config::Tournament;
use harness_core::plan::schedule::Shard;
use harness_core::record::journal;
use harness_core::record::tune::{TuneLine, DISPATCH_FILE, THETA_FILE, TUNE_FILE};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Tune an engine's int and float options by SPSA (the file's `[tune]` table): each iteration
/// plays one opening pair of θ+cΔ against θ−cΔ (or each against the opponent) and moves θ.
/// An interrupted tune resumes where it stopped when run again.
#[derive(clap::Args)]
pub struct Args {
    /// The tournament file with a `[tune]` table (default: ./tournament.toml; or none, with
    /// `--engine` and `--tune`).
    file: Option<PathBuf>,
    #[command(flatten)]
    flags: TournamentFlags,
    #[command(flatten)]
    output: OutputFlags,
    /// Play one shard of a sharded tune: `I/N` (the iterations i with (i − 1) mod N = I),
    /// `auto` (a Slurm array task) or `auto/N` (a Kubernetes Indexed Job), into
    /// <out>/shard-I-of-N, around the θ that `--aggregate` writes in <out>/tune-theta.json.
    #[arg(long, value_name = "I/N|auto|auto/N", conflicts_with = "aggregate")]
    shard: Option<String>,
    /// Once this file exists, begin no new game pair, finish the pairs begun and exit 3 (an
    /// iteration against an opponent, two pairs, may be left half played: run again to finish
    /// it); `--aggregate --watch` ends after its next look. Overrides the file's `stop-file`.
    #[arg(long, value_name = "PATH")]
    stop_file: Option<PathBuf>,
    /// Apply the complete iterations of the shards in <out> to θ, in the order of their
    /// numbers, and write <out>/tune-theta.json, tune.jsonl and, once every iteration is
    /// applied, the final values. Plays nothing.
    #[arg(long)]
    aggregate: bool,
    /// With --aggregate: look again every --interval seconds until every iteration is applied
    /// (SIGINT or SIGTERM ends the watch, exit 3).
    #[arg(long, requires = "aggregate")]
    watch: bool,
    /// Seconds between two looks of --aggregate --watch.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value = "5",
        value_parser = super::parse_seconds,
        allow_negative_numbers = true,
        requires = "watch"
    )]
    interval: Duration,
    /// Start over: after checking everything as --dry-run does, move the games, reports and
    /// θ files of an earlier tune in the output folder into a discarded-<time> folder inside
    /// it (without it, a tune resumes where the earlier one stopped).
    #[arg(long, conflicts_with = "aggregate")]
    restart: bool,
    /// Check everything without playing a game: the file, the openings, the output folder,
    /// the plugin's declaration of each tuned option, and each engine started in a worker and
    /// asked for one move (the pre-flight); print what the tune would play and exit.
    #[arg(long, conflicts_with = "aggregate")]
    dry_run: bool,
}

/// `--restart`: `run`'s, with a tune's own files set aside too.
fn restart(conductor: &Conductor) -> anyhow::Result<()> {
    let tune_files = [
        TUNE_FILE,
        DISPATCH_FILE,
        THETA_FILE,
        RESULT_FILE,
        tune_report::HTML_FILE,
    ];
    super::run::restart(conductor, &tune_files)
}

/// The file with the final values, one `options = { … }` line ready to paste.
pub const RESULT_FILE: &str = "tune-result.toml";

/// Tune; exit 0 when every iteration is applied, 3 when interrupted (run again to resume), 2 on
/// bad input (nothing played).
pub fn run(args: Args) -> anyhow::Result<i32> {
    let plugin_dir = args.output.plugin_dir()?;
    let t = args.tournament(&plugin_dir)?;
    if args.flags.print_toml {
        say_raw!("{}", t.definition.text);
        return Ok(exit::SUCCESS);
    }
    let cfg = t.tune.clone().with_context(|| {
        format!(
            "{}: no [tune] table: `harness tune` needs one (see docs/guide/tuning.md)",
            t.source
        )
    })?;
    let mut m = match_of(&t);
    if args.aggregate {
        return aggregate_shards(&t, &m, &plugin_dir, &args);
    }
    let folder_note = if args.output.out_is_default(&args.flags, &t) {
        let unnumbered = "a tune's folder is never numbered (its shards and its `--aggregate` must find the same one)";
        super::tournament_flags::default_folder(&mut m, &plugin_dir, Some(unnumbered))?
    } else {
        String::new()
    };
    warn_if_oversubscribed(&m);
    say_warnings(&t);
    let conductor = Conductor::new(&m, &plugin_dir)?;
    // The plugin's declarations first: a bad option or range plays nothing.
    let params = conductor
        .block_on(check_plugin(&t, &cfg, &plugin_dir))
        .map_err(|e| match &args.flags.tune {
            Some(flag) => e.context(format!("--tune {flag}")),
            None => e,
        })?;
    if args.dry_run {
        return super::run::dry_run(&conductor, &m, args.restart, &folder_note);
    }
    if args.restart {
        restart(&conductor)?;
    }
    let tuned = t.engines[cfg.engine].name.clone();
    let tui = args.output.live_view();
    let started = Instant::now();
    let open = |events: EventSink, on_line: OnLine| {
        TuneHook::open(
            &m,
            &tuned,
            &cfg,
            params.clone(),
            &plugin_dir,
            events,
            on_line,
        )
    };
    let played = if tui {
        run_live(conductor.control(), None, |events, lines| {
            let warnings = lines.clone();
            let mut hook = open(
                events.clone(),
                Box::new(move |line, tuner| {
                    let _ = lines.send(iteration_line(line, tuner));
                }),
            )?;
            let played = conductor.play(events, &mut hook, |p| {
                say_warning(p, |w| drop(warnings.send(w)))
            })?;
            hook.write_lines()?;
            Ok((played, hook.tuner))
        })
        .map(|(played, _)| played)
    } else {
        say!("{}", header_line(&t, &m, &tuned));
        (|| {
            let mut hook = open(
                EventSink::none(),
                Box::new(|line, tuner| say!("{}", iteration_line(line, tuner))),
            )?;
            if hook.sharded() && !hook.tuner.lines.is_empty() {
                say!(
                    "resuming: {} iterations of this shard already played ({})",
                    hook.tuner.lines.len(),
                    m.out.join(journal::JSONL_FILE).display()
                );
            } else if hook.tuner.applied > 0 {
                say!(
                    "resuming: θ rebuilt from {} ({} of {} iterations applied)",
                    m.out.join(journal::JSONL_FILE).display(),
                    hook.tuner.applied,
                    cfg.schedule.iterations
                );
            }
            let played = conductor.play(EventSink::none(), &mut hook, |p| {
                say_warning(p, |w| say!("{w}"))
            })?;
            hook.write_lines()?;
            Ok((played, hook.tuner))
        })()
    };
    let (Played { summary, signalled }, tuner) = played?;
    write_game_reports(&m, &summary);
    if let Some(code) = unmeasured(&m, &summary) {
        return Ok(code);
    }
    if let Some(shard) = m.shard {
        return conclude_shard(&t, &m, shard, &summary, &tuner, started, signalled);
    }
    conclude(&t, &m, summary.records.len(), &tuner, started, signalled)
}

impl Args {
    /// The tournament file with the command line's values and output folder.
    fn tournament(&self, plugin_dir: &Path) -> anyhow::Result<Tournament> {
        let mut t = self.flags.tournament(self.file.as_deref(), plugin_dir)?;
        self.output.place(&mut t, &self.stop_file, &self.shard)?;
        Ok(t)
    }
}

/// The tune's first line: what is tuned, against whom, how long, where.
fn header_line(t: &Tournament, m: &Tournament, tuned: &str) -> String {
    let cfg = t.tune.as_ref().expect("a [tune] table");
    let names: Vec<&str> = cfg.params.iter().map(|p| p.name.as_str()).collect();
    let opponent = cfg.opponent.map_or("θ−cΔ".to_string(), |o| {
        format!("`{}`", t.engines[o].name)
    });
    format!(
        "{}: tuning {} of `{tuned}` by SPSA, θ+cΔ against {opponent}, {} iterations ({}), {} games at once, output in {}",
        t.source,
        names.join(", "),
        cfg.schedule.iterations,
        m.time_description(),
        m.concurrency,
        m.out.display()
    )
}

/// One applied iteration as a plain line: its number, its result for θ+, θ after it (a
/// shard's: the θ it was played around, as the aggregator had it then).
fn iteration_line(line: &TuneLine, tuner: &Tuner) -> String {
    let theta: Vec<String> = line
        .theta
        .0
        .iter()
        .map(|(n, v)| format!("{n} {v:.3}"))
        .collect();
    if !tuner.applies {
        return format!(
            "iteration {} played: θ+ scored {:+}; around θ: {}",
            line.iteration,
            line.result,
            theta.join(", ")
        );
    }
    format!(
        "iteration {} ({}/{} applied): θ+ scored {:+}; θ: {}",
        line.iteration,
        tuner.applied,
        tuner.schedule.iterations,
        line.result,
        theta.join(", ")
    )
}

/// The games' reports, as `run` writes them (a shard's cover its own games; `merge` of the
/// folder writes those of all).
fn write_game_reports(m: &Tournament, summary: &RunSummary) {
    crate::cli::reports::write_reports(
        m,
        &summary.records,
        Some(summary.elapsed),
        summary.records.len() >= summary.planned,
        None,
    );
}

/// The match a tune plays (θ+ against θ− or its opponent) in the tune's folder, with its
/// engines' version-manager shims resolved as a run resolves them.
fn match_of(t: &Tournament) -> Tournament {
    let mut m = t.tune_match().expect("a [tune] table");
    m.out = t.out.clone();
    crate::play::pool::resolve_version_managers(&mut m);
    m
}

/// The coordinator's warnings (a pre-flight's illegal reply, an engine that could not be
/// started for a game) as `warning: …` lines, to `say`; the rest of its progress is the hook's.
fn say_warning(p: tournament::Progress, say: impl FnOnce(String)) {
    if let tournament::Progress::Warning(w) = p {
        say(format!("warning: {w}"));
    }
}

/// A tune in which θ+ or θ− (or the opponent) never made a move measured nothing, whatever θ
/// did: said, exit code 2. `None` when every engine moved.
fn unmeasured(m: &Tournament, summary: &RunSummary) -> Option<i32> {
    let silent = harness_core::stats::verdict::never_moved(&m.engine_names(), &summary.records);
    if silent.is_empty() {
        return None;
    }
    let reasons: Vec<String> = silent.iter().map(ToString::to_string).collect();
    say!(
        "{}: {}",
        harness_core::stats::verdict::Outcome::Unmeasured.label(),
        reasons.join("; ")
    );
    Some(exit::ERROR)
}

/// A shard's end: what it played; θ is the aggregator's.
fn conclude_shard(
    t: &Tournament,
    m: &Tournament,
    shard: Shard,
    summary: &RunSummary,
    tuner: &Tuner,
    started: Instant,
    signalled: Option<&'static str>,
) -> anyhow::Result<i32> {
    let out = harness_core::record::run_folder::RunFolder::at(&m.out);
    let shared = out.run_dir();
    say!(
        "\nshard {shard}: {} of its games played ({} iterations) in {:.1} s; θ is applied by `harness tune {} --aggregate --out {}`",
        summary.records.len(),
        tuner.lines.len(),
        started.elapsed().as_secs_f64(),
        t.source,
        shared.display()
    );
    if summary.records.len() < summary.planned {
        say!(
            "interrupted{}: {} of {} games of this shard played; run the same command again to resume",
            signalled.map(|s| format!(" by {s}")).unwrap_or_default(),
            summary.records.len(),
            summary.planned
        );
        return Ok(exit::UNDECIDED);
    }
    Ok(exit::SUCCESS)
}

/// `harness tune --aggregate`: the shards' complete iterations applied (once, or every
/// interval until all are), each new θ reported; at the end, the final values.
fn aggregate_shards(
    t: &Tournament,
    m: &Tournament,
    plugin_dir: &Path,
    args: &Args,
) -> anyhow::Result<i32> {
    let cfg = t.tune.as_ref().expect("a [tune] table");
    let started = Instant::now();
    let runtime = conductor::runtime(1)?;
    let params = runtime.block_on(check_plugin(t, cfg, plugin_dir))?;
    drop(runtime);
    let watch = args.watch.then_some(args.interval);
    let iterations = cfg.schedule.iterations;
    let theta_file = m.out.join(THETA_FILE);
    let report = |p: Progress| {
        match p {
        Progress::Retrying(e) => eprintln!("warning: {e:#} (looking again)"),
        Progress::Applied(a) => say!(
            "aggregate: {} shard folders{}, {} games: {} of {iterations} iterations applied ({} complete behind the first one not), worst staleness {}; θ in {}",
            a.shards,
            a.count.map(|n| format!(" of {n}")).unwrap_or_default(),
            a.games,
            a.tuner.applied,
            a.waiting,
            a.tuner.staleness.iter().max().copied().unwrap_or(0),
            theta_file.display()
        ),
    }
    };
    match aggregate_shards_of(t, m, plugin_dir, params, watch, report)? {
        Ended::Complete(a) => conclude(t, m, a.games, &a.tuner, started, None),
        Ended::Pending { applied } => {
            say!("{applied} of {iterations} iterations applied; aggregate again (or pass --watch) as the shards go on");
            Ok(exit::UNDECIDED)
        }
        Ended::Stopped { why, applied: None } => {
            say!("{why}: the aggregator stops");
            Ok(exit::UNDECIDED)
        }
        Ended::Stopped {
            why,
            applied: Some(applied),
        } => {
            say!(
                "{why}: the aggregator stops with {applied} of {iterations} iterations applied; θ is in {}",
                theta_file.display()
            );
            Ok(exit::UNDECIDED)
        }
    }
}

/// The end: the final values printed and written (`tune-result.toml`, `tune.html`), how the
/// tune ended; the exit code.
fn conclude(
    t: &Tournament,
    m: &Tournament,
    games: usize,
    tuner: &Tuner,
    started: Instant,
    signalled: Option<&'static str>,
) -> anyhow::Result<i32> {
    let cfg = t.tune.as_ref().expect("a [tune] table");
    let tuned = &t.engines[cfg.engine];
    let line = options_line(&tuned.options, &tuner.params, &tuner.theta);
    let complete = tuner.applied >= cfg.schedule.iterations;
    write_results(&m.out, t, tuner, &line, complete)?;
    say!(
        "\n{} of {} iterations applied ({} games) in {:.1} s; {}: {}",
        tuner.applied,
        cfg.schedule.iterations,
        games,
        started.elapsed().as_secs_f64(),
        TUNE_FILE,
        m.out.join(TUNE_FILE).display()
    );
    if let Some(worst) = tuner.staleness.iter().max().filter(|&&w| w > 0) {
        say!(
            "stale θ: at worst an iteration began without the updates of {worst} earlier iteration(s)"
        );
    }
    say!(
        "{} values of `{}` for its [[engine]] table:",
        if complete { "final" } else { "current" },
        tuned.name
    );
    say_raw!("{line}\n");
    if !complete {
        say!(
            "interrupted{}: {} of {} iterations applied; run the same command again to resume",
            signalled.map(|s| format!(" by {s}")).unwrap_or_default(),
            tuner.applied,
            cfg.schedule.iterations
        );
        return Ok(exit::UNDECIDED);
    }
    Ok(exit::SUCCESS)
}

/// `tune-result.toml` (the options line, with a comment saying what it is) and `tune.html`
/// (every parameter's trajectory).
fn write_results(
    out: &Path,
    t: &Tournament,
    tuner: &Tuner,
    line: &str,
    complete: bool,
) -> anyhow::Result<()> {
    let cfg = t.tune.as_ref().expect("a [tune] table");
    let tuned = &t.engines[cfg.engine].name;
    let state = if complete {
        "final"
    } else {
        "interrupted tune, current"
    };
    let text = format!(
        "# harness tune of `{tuned}` ({}): {state} values after {} of {} iterations\n{line}\n",
        t.source, tuner.applied, cfg.schedule.iterations
    );
    journal::write_durably(&out.join(RESULT_FILE), text.as_bytes())
        .with_context(|| format!("cannot write {}", out.join(RESULT_FILE).display()))?;
    let html = tune_report::html(tuned, &tuner.params, &tuner.lines, line)?;
    journal::write_durably(&out.join(tune_report::HTML_FILE), html.as_bytes()).with_context(|| {
        format!(
            "cannot write {}",
            out.join(tune_report::HTML_FILE).display()
        )
    })
}
