//! `harness run`: play a tournament, show it (live view or plain lines), keep its reports
//! fresh, print the tables and turn the outcome into the exit code.
//!
//! This is where the stages meet: the command makes the tournament from its flags and hands it
//! to a [`Conductor`] (`play`), which checks, restarts, plays and journals, and reaches the
//! verdict; the command hands the progress to the views (`show`) and writes the reports, which
//! only read records.

use super::exit;
use super::output::{say, say_raw};
use super::tournament_flags::{default_folder, OutputFlags, TournamentFlags};
use crate::host::HostError;
use crate::play::conductor::{Conductor, Ending, Played};
use crate::play::tournament::{NoHook, Progress};
use crate::show::tui::live::ui_loop;
use crate::show::tui::terminal::{restore, Screen};
use crate::show::{progress, report, table};
use crate::tools::bench::{self, BenchSpec};
use anyhow::Context;
use harness_core::events::{ControlState, Event, EventSink, RunControl};
use harness_core::plan::config::{self, Tournament};
use harness_core::record::journal;
use harness_core::record::verdict_record::Elapsed;
use harness_core::record::GameRecord;
use harness_core::stats::verdict::Outcome;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Play a tournament: a tournament file's (default: ./tournament.toml, or the embedded
/// default when there is none), edited or made whole by the command line (`--engine`, …).
///
/// Mixing a file and flags: a flag replaces the file's value of its key; `--engine` replaces
/// every `[[engine]]` table of the file and the output folder (out/<names joined by -vs->).
#[derive(clap::Args)]
pub struct Args {
    /// The tournament file (default: ./tournament.toml, else the embedded default).
    file: Option<PathBuf>,
    #[command(flatten)]
    flags: TournamentFlags,
    #[command(flatten)]
    output: OutputFlags,
    /// Start over: after checking everything as --dry-run does (each engine started and asked
    /// for a move), move the games and reports of an earlier run in the output folder into a
    /// discarded-<time> folder inside it (without it, a run resumes where the earlier one
    /// stopped).
    #[arg(long)]
    restart: bool,
    /// Play one shard of the schedule: `I/N` (the rounds r with r mod N = I), `auto` (a
    /// Slurm array task: SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT) or `auto/N` (a
    /// Kubernetes Indexed Job: JOB_COMPLETION_INDEX of N). Output in <out>/shard-I-of-N.
    #[arg(long, value_name = "I/N|auto|auto/N")]
    shard: Option<String>,
    /// Once this file exists, start no new pair, finish those begun and exit 3 (overrides
    /// the file's `stop-file`).
    #[arg(long, value_name = "PATH")]
    stop_file: Option<PathBuf>,
    /// Check everything without playing a game: the file, the openings, the output folder,
    /// and each engine started in a worker with its options and asked for one move in the
    /// first game's position (the pre-flight); print the schedule's size and exit.
    #[arg(long)]
    dry_run: bool,
    /// Record the run in this results ledger when it ends (a file path, sqlite://PATH, or
    /// postgres://USER@HOST/DB, which also takes the games as they finish; default: the
    /// HARNESS_LEDGER variable); checked before the first game.
    #[arg(long, value_name = "URL")]
    ledger: Option<String>,
    #[command(flatten)]
    ledger_choice: super::run_ledger::LedgerChoice,
    /// How the verdict becomes the exit code: `verdict` (0 pass, 1 fail, 2 error, 3
    /// undecided or interrupted) or `bisect`, `git bisect run`'s convention (0 no regression:
    /// H1 accepted; 1 regression: H0 accepted or a fail-on rule broken; 125 undecided: skip;
    /// 128 an error and 130 an interruption: bisect stops). `bisect` needs an [sprt] table.
    #[arg(long, value_enum, default_value = "verdict")]
    exit_codes: exit::Convention,
    /// Serve the run in a browser while it plays: `--serve` on 127.0.0.1:8080, `--serve=ADDR`
    /// elsewhere (port 0: a free one; a non-loopback address needs --token). The URL is
    /// printed on a line of its own once the run is about to start (after its first line);
    /// serving stops when the run ends.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, require_equals = true,
          default_missing_value = crate::web::DEFAULT_ADDRESS)]
    serve: Option<String>,
    /// The token a browser presents once (`?token=T`) to a server on a non-loopback address.
    /// On the command line it is visible to every process of the machine, engines included:
    /// prefer --token-file or the HARNESS_WEB_TOKEN variable.
    #[arg(long, value_name = "T", requires = "serve")]
    token: Option<String>,
    /// A file whose first line is the token (else the HARNESS_WEB_TOKEN variable).
    #[arg(
        long,
        value_name = "FILE",
        requires = "serve",
        conflicts_with = "token"
    )]
    token_file: Option<std::path::PathBuf>,
}

/// Play a tournament; the exit code is the verdict (see `stats::verdict`), in the convention
/// `--exit-codes` names.
pub fn run(args: Args) -> anyhow::Result<i32> {
    if args.exit_codes == exit::Convention::Bisect {
        // Checked before anything is played, with the usual error code: the flag is misused.
        let plugin_dir = args.output.plugin_dir()?;
        let t = args.tournament(&plugin_dir)?;
        anyhow::ensure!(
            t.sprt.is_some(),
            "{}: --exit-codes bisect needs an [sprt] table (or --sprt): a bisection step is a sequential test of the commit against a known-good baseline",
            t.source
        );
        // An error is `git bisect run`'s "stop": 128, not 2 (which it reads as a bad commit);
        // an engine that cannot start leaves the commit untested: skip it (125).
        return Ok(play_run(args).unwrap_or_else(|e| {
            eprintln!("error: {e:#}");
            if crate::play::pool::CannotStart::is_cause_of(&e) {
                exit::BISECT_SKIP
            } else {
                exit::BISECT_ERROR
            }
        }));
    }
    play_run(args)
}

fn play_run(args: Args) -> anyhow::Result<i32> {
    let plugin_dir = args.output.plugin_dir()?;
    let mut t = args.tournament(&plugin_dir)?;
    if args.flags.print_toml {
        say_raw!("{}", t.definition.text);
        return Ok(super::exit::SUCCESS);
    }
    let folder_note = if args.output.out_is_default(&args.flags, &t) {
        let unnumbered = args.shard.is_some().then_some(
            "a shard's folder is never numbered (the N jobs of its run must agree on one)",
        );
        default_folder(&mut t, &plugin_dir, unnumbered)?
    } else {
        String::new()
    };
    let names: Vec<String> = t.engines.iter().map(|e| e.name.clone()).collect();
    let named = |e| name_the_flag(e, &names, &args.flags.engines);
    crate::play::pool::resolve_version_managers(&mut t);
    startup_bench(&mut t, &plugin_dir).map_err(named)?;
    say_warnings(&t);
    let conductor = Conductor::new(&t, &plugin_dir)?;
    if args.dry_run {
        return dry_run(&conductor, &t, args.restart, &folder_note).map_err(named);
    }
    warn_if_oversubscribed(&t);
    let mut ledger = super::run_ledger::RunLedger::for_run(
        args.ledger.as_deref(),
        &args.ledger_choice,
        t.shard.is_some(),
    )?;
    if args.restart {
        restart(&conductor, &[]).map_err(named)?;
    }
    // The live view only on an interactive terminal, never in CI or when piped.
    let tui = args.output.live_view();
    if let Some(ledger) = &mut ledger {
        ledger.follow(&t.out);
    }
    let web = match &args.serve {
        Some(address) => {
            let token = super::secrets::web_token(args.token.clone(), args.token_file.as_deref())?;
            Some(serve_run(address, token, &t)?)
        }
        None => None,
    };
    let events = web.as_ref().map(|(_, events)| events.clone());
    let opening = Opening {
        folder_note,
        served: web.as_ref().map(|(served, _)| served.announcement.clone()),
    };
    let played = play(&conductor, &t, tui, events, &opening).map_err(named)?;
    let code = conclude(&t, &played, args.exit_codes);
    if let Some((served, events)) = web {
        // The events end once the run has written its verdict: the browser's last snapshot is
        // the finished run, with its wall time; the viewers get it before the server stops.
        drop(events);
        served.server.finish(SERVE_GRACE);
    }
    let error_code = match args.exit_codes {
        exit::Convention::Verdict => exit::ERROR,
        exit::Convention::Bisect => exit::BISECT_ERROR,
    };
    Ok(super::run_ledger::RunLedger::record_or_fail(
        ledger.as_mut(),
        &t.out,
        &args.ledger_choice,
        code,
        error_code,
    ))
}

/// An engine's refused option or failed bench, when the engine came from an `--engine`: the
/// error names that flag too.
fn name_the_flag(e: anyhow::Error, names: &[String], flags: &[String]) -> anyhow::Error {
    let engine = e.chain().find_map(|c| match c.downcast_ref::<HostError>() {
        Some(HostError::Option { engine, .. }) => Some(engine.clone()),
        _ => None,
    });
    let engine = engine.or_else(|| {
        let text = e.to_string();
        let name = text.strip_prefix("engine `")?.split('`').next()?;
        Some(name.to_string())
    });
    let flag = engine
        .and_then(|n| names.iter().position(|x| *x == n))
        .and_then(|i| flags.get(i));
    match flag {
        Some(flag) => e.context(format!("--engine {flag}")),
        None => e,
    }
}

impl Args {
    /// The tournament: the file (or ./tournament.toml, or the embedded default) with the
    /// command line's values, output folder, stop file and shard.
    fn tournament(&self, plugin_dir: &Path) -> anyhow::Result<Tournament> {
        let mut t = self.flags.tournament(self.file.as_deref(), plugin_dir)?;
        anyhow::ensure!(
            t.tune.is_none(),
            "{}: the file has a [tune] table: it is for `harness tune`, which plays its iterations (`run` plays tournaments)",
            t.source
        );
        let n = t.engines.len();
        let fits = match t.format {
            config::Format::Match => n == 2,
            config::Format::Gauntlet | config::Format::RoundRobin => n >= 2,
        };
        anyhow::ensure!(
            fits,
            "{}: a {} needs {} engines, found {n}",
            t.source,
            t.format,
            if t.format == config::Format::Match {
                "exactly 2"
            } else {
                "at least 2"
            }
        );
        self.output.place(&mut t, &self.stop_file, &self.shard)?;
        Ok(t)
    }
}

/// Before anything is written: every engine with `bench = N` is benched and refused when its
/// signature differs, and with `[time] nps-reference` the engine `nps-engine` names is benched
/// and this run's clocks are scaled by reference / measured ([`config::ClockScale`]). Each
/// bench says what it measured and what it cost.
fn startup_bench(t: &mut Tournament, plugin_dir: &Path) -> anyhow::Result<()> {
    let nps_engine = t.nps.map(|n| n.engine);
    let mut measured = None;
    for (i, e) in t.engines.iter().enumerate() {
        if e.bench.is_none() && nps_engine != Some(i) {
            continue;
        }
        let spec = BenchSpec {
            name: e.name.clone(),
            plugin: e.plugin.resolve(plugin_dir),
            options: e.options.clone(),
            depth: bench::DEFAULT_DEPTH,
            sandbox: crate::host::sandbox::Confinement::of(&e.sandbox, Some(e.declared_threads())),
        };
        let started = Instant::now();
        let b = bench::run(&spec, &mut std::io::sink())
            .with_context(|| format!("engine `{}`: cannot bench its plugin", e.name))?;
        say!(
            "engine `{}`: {} ({:.2} s at start-up)",
            e.name,
            b.line(),
            started.elapsed().as_secs_f64()
        );
        if let Some(expected) = e.bench {
            anyhow::ensure!(
                b.nodes == expected,
                "engine `{}`: key `bench`: its plugin benches {} nodes, the tournament says bench = {expected} (another build, or other options; `harness bench` prints the signature)",
                e.name,
                b.nodes
            );
        }
        if nps_engine == Some(i) {
            measured = Some(b.nodes_per_second());
        }
    }
    if let (Some(nps), Some(measured)) = (t.nps, measured) {
        let scale =
            config::ClockScale::new(&t.engines[nps.engine].name, nps.nodes_per_second, measured);
        say!("clocks {}", scale.describe());
        t.clock_scale = Some(scale);
    }
    Ok(())
}

/// The tournament's warnings ([`Tournament::warnings`]), each once on standard error. An
/// opening set that does not load is left to the run to report.
pub(super) fn say_warnings(t: &Tournament) {
    if let Ok(openings) = t.openings.load() {
        for w in t.warnings(openings.openings.len()) {
            eprintln!("warning: {w}");
        }
    }
}

/// More threads at once than cores: said once, as engines on a clock then search less than
/// their time allows (depth and node limits do not care). A game uses the declared threads of
/// its engine that declares the most (one engine of a game thinks at a time, the other
/// stopped), and those of the next one too where an engine ponders.
pub(super) fn warn_if_oversubscribed(t: &Tournament) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut threads: Vec<usize> = t
        .engines
        .iter()
        .map(|e| e.declared_threads() as usize)
        .collect();
    threads.sort_unstable_by(|a, b| b.cmp(a));
    let at_once = if t.engines.iter().any(|e| e.ponder) {
        2
    } else {
        1
    };
    let per_game: usize = threads.iter().take(at_once).sum();
    let wanted = t.concurrency.saturating_mul(per_game);
    if wanted > cores {
        eprintln!(
            "warning: {} games at once of up to {per_game} declared threads each ({wanted} threads) on {cores} cores: engines share the cores, and those on a clock search less than their time allows",
            t.concurrency
        );
    }
}

/// `--restart`: the conductor checks everything before the earlier games move, so a refused
/// restart leaves them where they were; then they are set aside with the reports (and what
/// `extra` names: a tune's files), and where is said.
pub(super) fn restart(conductor: &Conductor, extra: &[&str]) -> anyhow::Result<()> {
    let mut also = vec![
        report::JSON_FILE,
        report::MARKDOWN_FILE,
        report::HTML_FILE,
        crate::tools::analyze::CACHE_FILE,
    ];
    also.extend(extra);
    if let Some(aside) = conductor.restart(&also)? {
        say!(
            "--restart: the earlier run's games and reports were moved to {}",
            aside.display()
        );
    }
    Ok(())
}

/// How long `run --serve` waits, after the run has ended, for its viewers to receive the last
/// snapshot before its server stops.
const SERVE_GRACE: Duration = Duration::from_secs(2);

/// A run's browser view: its server, and what the run says of it once it is about to start.
struct Served {
    server: crate::web::WebServer,
    announcement: Announcement,
}

/// What `run --serve` says once its run is about to start (not before: a run refused at its
/// start would have printed the URL of a run that never plays): the run page's URL, on a line
/// of its own, and, for a server that wants a token, how to give it.
#[derive(Clone)]
struct Announcement {
    url: String,
    token: Option<String>,
}

/// What a run says on its first lines, once it is about to start: what its header says of a
/// default output folder ([`default_folder`]) and its browser view's announcement.
struct Opening {
    folder_note: String,
    served: Option<Announcement>,
}

/// The browser view of the run `t` about to be played, on `address`: the server and the
/// sender its model hears the coordinator's events on.
fn serve_run(
    address: &str,
    token: Option<String>,
    t: &Tournament,
) -> anyhow::Result<(Served, mpsc::Sender<Event>)> {
    let address = crate::web::address(address, token.as_deref())?;
    let (tx, rx) = mpsc::channel::<Event>();
    let run = crate::web::server::ServedRun {
        dir: t.out.clone(),
        feed: crate::web::feed::start(crate::web::feed::Source::Events {
            events: rx,
            name: crate::web::feed::run_name(t),
            dir: t.out.clone(),
        }),
    };
    let guarded = token.is_some();
    let server = crate::web::WebServer::start(address, token, vec![run], None)?;
    let announcement = Announcement {
        // The run's own page (the index would list this one run).
        url: format!("{}run/0", server.url),
        token: crate::web::token_reminder(&server, guarded),
    };
    Ok((
        Served {
            server,
            announcement,
        },
        tx,
    ))
}

/// Play the run's games with the live view or plain lines, refreshing the reports; what the
/// games left.
fn play(
    conductor: &Conductor,
    t: &Tournament,
    tui: bool,
    web: Option<mpsc::Sender<Event>>,
    opening: &Opening,
) -> anyhow::Result<Played> {
    let header = header_line(t, &opening.folder_note);
    let mut reports = ReportRefresh::new(t);
    if tui {
        let reports = &mut reports;
        run_live(conductor.control(), web, |events, lines| {
            conductor.play(events, &mut NoHook, |p| {
                if let Progress::Started = p {
                    // The live view's log shows what plain lines would print first.
                    if !opening.folder_note.is_empty() {
                        let _ = lines.send(format!(
                            "output in {}{}",
                            t.out.display(),
                            opening.folder_note
                        ));
                    }
                    if let Some(served) = &opening.served {
                        let _ = lines.send(served.url.clone());
                        if let Some(token) = &served.token {
                            let _ = lines.send(token.clone());
                        }
                    }
                }
                if let Some(line) = progress_line(&p, t) {
                    let _ = lines.send(line);
                }
                reports.hear(&p);
            })
        })
        .map(|(played, _)| played)
    } else {
        conductor.play(EventSink::none().and(web), &mut NoHook, |p| {
            if let Progress::Started = p {
                say!("{header}");
                if let Some(served) = &opening.served {
                    say!("{}", served.url);
                    if let Some(token) = &served.token {
                        eprintln!("{token}");
                    }
                }
            }
            if let Some(line) = progress_line(&p, t) {
                say!("{line}");
            }
            reports.hear(&p);
        })
    }
}

/// The tables, the test, the broken fail-on rules and how the run ended; the exit code.
fn conclude(t: &Tournament, played: &Played, convention: exit::Convention) -> i32 {
    let summary = &played.summary;
    say_raw!(
        "{}",
        table::final_tables(&summary.records, &t.engine_names())
    );
    let elapsed = summary.elapsed;
    say!(
        "\n{} games in {}; journal: {}",
        summary.records.len(),
        crate::show::text::elapsed_words(
            elapsed.total.as_secs_f64(),
            elapsed.session.map(|d| d.as_secs_f64()),
            None
        ),
        summary.out_dir.join(journal::JSONL_FILE).display()
    );
    let ending = Ending::of_played(t, played);
    let v = &ending.verdict;
    if let Some(status) = &summary.sprt {
        say_raw!(
            "{}",
            table::test_summary(
                status,
                (&t.engines[0].name, &t.engines[1].name),
                harness_core::stats::verdict::decision_measures(
                    status.decision,
                    &ending.never_moved
                )
            )
        );
    }
    for b in &ending.broken {
        say!("FAIL: {b}");
    }
    match v.outcome {
        Outcome::Interrupted => say!("{}", v.reasons.join("; ")),
        Outcome::Unmeasured => say!("{}: {}", v.outcome.label(), v.reasons.join("; ")),
        _ => {}
    }
    let code = convention.code(v.outcome);
    let conclusion = ending.record(code, summary.start_failures.clone());
    let finished = v.outcome != Outcome::Interrupted;
    super::reports::write_reports(
        t,
        &summary.records,
        Some(elapsed),
        finished,
        Some(&conclusion),
    );
    code
}

/// The plain line for a piece of progress, if it has one.
fn progress_line(p: &Progress, t: &Tournament) -> Option<String> {
    match *p {
        Progress::Resuming {
            held,
            planned,
            to_play,
            journal,
            extended,
            decided,
        } => Some(progress::resuming_line(
            held, planned, to_play, journal, extended, decided,
        )),
        Progress::GameFinished {
            record,
            finished,
            planned,
        } => Some(progress::game_line(record, finished, planned)),
        Progress::PairFinished {
            pair,
            sprt,
            records,
            ..
        } => {
            let mut line = progress::pair_line(pair, sprt);
            if progress::elo_due(pair.pairs_done) {
                // From the view of the engine listed first in the tournament, in every line.
                let rank = |name: &str| t.engines.iter().position(|e| e.name == name);
                let (a, b) = if rank(&pair.a) <= rank(&pair.b) {
                    (&pair.a, &pair.b)
                } else {
                    (&pair.b, &pair.a)
                };
                line.push('\n');
                line.push_str(&progress::elo_line(records, a, b, pair.pairs_done));
            }
            Some(line)
        }
        Progress::Warning(ref warning) => Some(format!("warning: {warning}")),
        Progress::Started | Progress::Finished { .. } => None,
    }
}

/// The run's first line, printed once every engine has started (so that a load error is the
/// first thing a broken tournament prints).
fn header_line(t: &Tournament, folder_note: &str) -> String {
    let names: Vec<&str> = t.engines.iter().map(|e| e.name.as_str()).collect();
    format!(
        "{}: {} of {} ({}), {} pairs per pairing, {} games at once, output in {}{folder_note}{}",
        t.source,
        t.format,
        names.join(", "),
        t.time_description(),
        t.pairs,
        t.concurrency,
        t.out.display(),
        t.shard
            .map(|s| format!(
                " (shard {s}: rounds r with r mod {} = {})",
                s.count, s.index
            ))
            .unwrap_or_default()
    )
}

/// How often the reports are rewritten during a run.
const REPORT_REFRESH: Duration = Duration::from_secs(2);

/// Rewrites report.json, report.md and report.html now and then during a run (they only read
/// the records); the run's conclusion writes them a last time, with its verdict. A report costs time proportional to the games, so long
/// runs refresh less often. A failure is a warning, never fatal: the journal is the record.
pub(super) struct ReportRefresh<'t> {
    tournament: &'t Tournament,
    last: Instant,
    cost: Duration,
}

impl<'t> ReportRefresh<'t> {
    pub(super) fn new(tournament: &'t Tournament) -> ReportRefresh<'t> {
        ReportRefresh {
            tournament,
            last: Instant::now(),
            cost: Duration::ZERO,
        }
    }

    pub(super) fn hear(&mut self, p: &Progress) {
        match *p {
            Progress::PairFinished {
                records, elapsed, ..
            } if self.last.elapsed() >= REPORT_REFRESH.max(self.cost * 20) => {
                let t0 = Instant::now();
                self.write(records, elapsed, false);
                self.cost = t0.elapsed();
                self.last = Instant::now();
            }
            // The last reports come with the verdict, from whoever concludes the run.
            _ => {}
        }
    }

    fn write(&self, records: &[GameRecord], elapsed: Elapsed, finished: bool) {
        super::reports::write_reports(self.tournament, records, Some(elapsed), finished, None);
    }
}

/// Play with the live screen: `play` runs the coordinator's loop (its games on the runtime) on
/// a thread of its own with the sink whose events go to the view (and to `also`), and may send
/// plain progress lines; the view pauses or stops the run through `control`; the view reads keys and draws on this thread. `harness run` plays its tournament this
/// way, `harness tune` its tune. Returns the coordinator's summary and how long the run took
/// (without the time the finished screen stayed open). The terminal is restored before this
/// returns, whatever happens.
pub(super) fn run_live<T: Send>(
    control: Arc<RunControl>,
    also: Option<mpsc::Sender<Event>>,
    play: impl FnOnce(EventSink, mpsc::Sender<String>) -> anyhow::Result<T> + Send,
) -> anyhow::Result<(T, Duration)> {
    let (tx, rx) = mpsc::channel::<Event>();
    let (line_tx, line_rx) = mpsc::channel::<String>();
    let events = EventSink::new(tx).and(also);
    let failed = AtomicBool::new(false);
    let mut screen = Screen::enter()?;
    std::thread::scope(|scope| {
        let failed = &failed;
        let coordinator = scope.spawn(move || {
            let started = Instant::now();
            let result = play(events, line_tx);
            if result.is_err() {
                failed.store(true, Ordering::SeqCst);
            }
            (result, started.elapsed())
        });
        let ui = std::panic::catch_unwind(AssertUnwindSafe(|| {
            ui_loop(
                &mut screen.terminal,
                &rx,
                &line_rx,
                &control,
                || coordinator.is_finished(),
                failed,
            )
        }));
        // Whatever went wrong in the view, the coordinator must end before the process does:
        // a failed view stops the scheduling; games in flight are abandoned, never half-written.
        if !matches!(ui, Ok(Ok(()))) {
            control.set(ControlState::Stopping);
        }
        restore();
        let (result, elapsed) = match coordinator.join() {
            Ok(r) => r,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        match ui {
            Err(panic) => std::panic::resume_unwind(panic),
            Ok(Err(e)) => Err(anyhow::Error::new(e)
                .context("the terminal UI failed; the run was stopped (--no-tui avoids it)")),
            Ok(Ok(())) => Ok((result?, elapsed)),
        }
    })
}

/// `run --dry-run` (and `tune --dry-run`): everything a run checks before its first game
/// ([`Conductor::dry_run`]), said with the run's header, and whether the output folder would be
/// resumed, refused or (with `--restart`) set aside. Nothing is written.
pub(super) fn dry_run(
    conductor: &Conductor,
    t: &Tournament,
    restart: bool,
    folder_note: &str,
) -> anyhow::Result<i32> {
    let checked = conductor.dry_run(restart)?;
    say!("{}", header_line(t, folder_note));
    say!(
        "dry run: {} engines started with their options, each answered a move; {} openings; {} games in {} pairs over {} pairing(s){}; output folder {}{}",
        t.engines.len(),
        checked.openings,
        checked.planned,
        checked.planned / 2,
        t.pairings().len(),
        t.shard.map(|s| format!(" (shard {s})")).unwrap_or_default(),
        t.out.display(),
        match (checked.held, restart) {
            (true, false) => " (holds games of this tournament: a run resumes them)",
            (true, true) => " (holds games: --restart moves them into a discarded-<time> folder inside it and starts over)",
            (false, _) => "",
        }
    );
    Ok(super::exit::H1)
}
