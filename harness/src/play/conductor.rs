//! A run's life, from its checks to its verdict: the [`Conductor`] that `harness run` and
//! `harness tune` drive, and the [`Ending`] that they and `harness merge` state.
//!
//! A command parses its flags, makes the tournament and chooses its views; the conductor does
//! the rest, in this order:
//!
//! 1. [`Conductor::new`]: the coordinator's runtime, on which game tasks, worker connections
//!    and deadlines run;
//! 2. [`Conductor::preflight`] (and [`Conductor::dry_run`], which ends there): the openings,
//!    the schedule, the cores `affinity` needs, the output folder, and every engine started in
//!    a worker and asked for a move in the first game's position;
//! 3. [`Conductor::restart`]: an earlier run's games and files set aside, only once the checks
//!    passed, so that a refused restart leaves them where they were;
//! 4. [`Conductor::play`]: the coordinator's loop ([`super::tournament`]) with SIGINT and
//!    SIGTERM heard while it plays (a signal stops the scheduling; the games in flight are
//!    abandoned, finished ones kept); the views hear its [`Progress`] and its events, and may
//!    pause or stop it through [`Conductor::control`];
//! 5. [`Ending::of`]: the verdict, from the records, the test's decision and why the run
//!    stopped early, the same rule for a run, a tune's games and a merge of shards.
//!
//! The views (plain lines, the live screen, the browser) and the reports stay with the command:
//! they are on `show`'s layer, beside this one, and only read what the conductor hands back.

use super::preflight;
use super::resume;
use super::tournament::{self, GameHook, Observer, Progress, RunSummary};
use anyhow::Context;
use harness_core::events::{ControlState, EventSink, RunControl};
use harness_core::plan::config::Tournament;
use harness_core::record::journal;
use harness_core::record::verdict_record::RunVerdict;
use harness_core::record::GameRecord;
use harness_core::stats::sprt::Decision;
use harness_core::stats::verdict::{self, NeverMoved, RuleBroken, Verdict};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

/// One run's life: its tournament, where its plugins are, the coordinator's runtime and the
/// control its views and the stop signals share.
pub struct Conductor<'t> {
    t: &'t Tournament,
    plugin_dir: &'t Path,
    runtime: tokio::runtime::Runtime,
    control: Arc<RunControl>,
}

/// What the checks before the first game found.
pub struct Checked {
    /// Openings in the set.
    pub openings: usize,
    /// Games this run (or its shard) would play.
    pub planned: usize,
    /// The output folder already holds games: a run resumes them (or, restarted, sets them
    /// aside).
    pub held: bool,
}

/// What a run's games left: the coordinator's summary, and the signal that stopped it, if one
/// did.
pub struct Played {
    pub summary: RunSummary,
    pub signalled: Option<&'static str>,
}

impl<'t> Conductor<'t> {
    /// A run of `t`, its plugins named by bare name looked up in `plugin_dir`; nothing is
    /// checked or written yet.
    pub fn new(t: &'t Tournament, plugin_dir: &'t Path) -> anyhow::Result<Conductor<'t>> {
        Ok(Conductor {
            t,
            plugin_dir,
            runtime: runtime(t.concurrency)?,
            control: Arc::new(RunControl::new()),
        })
    }

    /// The scheduling control the run's views share with the stop signals: pause, finish,
    /// stop.
    pub fn control(&self) -> Arc<RunControl> {
        self.control.clone()
    }

    /// Run `work` on the coordinator's runtime (a command's own checks, such as a tune's look
    /// at its plugin's options).
    pub fn block_on<F: std::future::Future>(&self, work: F) -> F::Output {
        self.runtime.block_on(work)
    }

    /// Everything a run checks before its first game, with nothing left in the output folder:
    /// the openings, the schedule, the cores `affinity` needs, that the output folder can be
    /// created and written with room for the run, and every engine started in a worker with
    /// its options, asked to begin a game and to answer one move in the first game's position
    /// ([`preflight`]). Each warning of the answers goes to standard error.
    pub fn preflight(&self) -> anyhow::Result<Checked> {
        let t = self.t;
        let openings = t.openings.load()?;
        let schedule = t.schedule(openings.openings.len());
        let planned = schedule.games_of(t.shard).count();
        if t.affinity {
            super::affinity::CoreSlots::plan(t)?;
        }
        resume::check_writable(&t.out)?;
        resume::check_free_space(&t.out, resume::space_needed(t))?;
        let logs = std::env::temp_dir().join(format!("harness-dry-run-{}", std::process::id()));
        std::fs::create_dir_all(&logs)
            .with_context(|| format!("cannot create {}", logs.display()))?;
        let first = schedule.games_of(t.shard).next().map(|g| g.opening);
        let checked = self.runtime.block_on(async {
            let pool = super::pool::WorkerPool::start(t, self.plugin_dir, &logs).await?;
            let answered = match first {
                Some(opening) => {
                    preflight::ask_each_engine(t, &pool, &openings.openings[opening]).await
                }
                None => Ok(Vec::new()),
            };
            pool.shutdown().await;
            answered
        });
        // The logs of an engine that cannot start are named in its error: kept for the user.
        if !checked
            .as_ref()
            .err()
            .is_some_and(super::pool::CannotStart::is_cause_of)
        {
            let _ = std::fs::remove_dir_all(&logs);
        }
        for warning in preflight::warnings(&checked?) {
            eprintln!("warning: {warning}");
        }
        Ok(Checked {
            openings: openings.openings.len(),
            planned,
            held: t.out.join(journal::JSONL_FILE).exists(),
        })
    }

    /// `--dry-run`: the [`preflight`](Self::preflight), and, unless the run is to restart,
    /// the output folder refused if it holds another tournament's games. Nothing is written.
    pub fn dry_run(&self, restart: bool) -> anyhow::Result<Checked> {
        let checked = self.preflight()?;
        if !restart {
            let t = self.t;
            let openings = t.openings.load()?;
            let tournament_json = resume::tournament_text(t, &openings, self.plugin_dir);
            let path = t
                .out
                .join(harness_core::record::tournament_record::TOURNAMENT_FILE);
            if let Ok(existing) = std::fs::read_to_string(&path) {
                anyhow::ensure!(
                    resume::same_tournament(&existing, &tournament_json, false),
                    "{}: the output folder holds games of a different tournament; a run would be refused (give another `out`, or --restart to set them aside)",
                    t.out.display()
                );
            }
        }
        Ok(checked)
    }

    /// `--restart`: the [`preflight`](Self::preflight) first, so a refused restart leaves the
    /// earlier games where they were; then they, and the files of the run that `also` names
    /// (its reports, a tune's θ), are set aside. Where they went, if there was anything.
    pub fn restart(&self, also: &[&str]) -> anyhow::Result<Option<PathBuf>> {
        self.preflight()?;
        let mut files = vec![
            harness_core::record::decision_record::DECISION_FILE,
            // The analysis describes the games set aside, not the new ones.
            harness_core::record::analysis::ANALYSIS_FILE,
        ];
        files.extend(also);
        resume::set_aside(&self.t.out, &files)
    }

    /// Play the run's games: the coordinator's loop with `hook` in it, its events to `events`
    /// and its progress to `progress`, SIGINT and SIGTERM heard from now until the loop ends.
    /// May be called from a thread of the caller's (the live screen's coordinator thread).
    pub fn play(
        &self,
        events: EventSink,
        hook: &mut dyn GameHook,
        progress: impl FnMut(Progress),
    ) -> anyhow::Result<Played> {
        let signals = StopOnSignals::start(&self.runtime, self.control.clone())?;
        let observer = Observer {
            events,
            control: self.control.clone(),
        };
        let played = self.runtime.block_on(tournament::run(
            self.t,
            self.plugin_dir,
            &observer,
            hook,
            progress,
        ));
        let signalled = signals.stop();
        Ok(Played {
            summary: played?,
            signalled,
        })
    }
}

/// The runtime of a run: game tasks, worker connections, deadlines and signals run on it. Each
/// game's work is a few messages per move, so a few worker threads carry any number of games:
/// two, and one more per 32 games at once up to eight (`docs/architecture.md`, "The runtime",
/// says why eight). The coordinator's own loop runs on the thread that calls `block_on`.
pub fn runtime(concurrency: usize) -> anyhow::Result<tokio::runtime::Runtime> {
    // The runtime's signal driver makes a socket pair and panics when it cannot: at the edge
    // of the descriptor limit, fail here with a message instead (room for more descriptors
    // than the runtime takes, given back at once).
    crate::host::signals::room_for_a_runtime()
        .context("cannot start the coordinator's runtime: no file descriptor left")?;
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(concurrency.div_ceil(32).clamp(2, 8))
        .thread_name("harness-games")
        .enable_all()
        .build()
        .context("cannot start the coordinator's runtime")
}

/// SIGINT (Ctrl-C) and SIGTERM (a batch system's stop, `kill`) stop a run cleanly: no new game,
/// the games in flight abandoned (their workers killed; a resumed run plays them again), the
/// journal consistent, the tables printed and exit code 3. A second signal does the same (the
/// run is already stopping); SIGKILL is the way to end it without tables. The handlers are a
/// task on the run's runtime; the stop reaches every game at once through [`RunControl`].
struct StopOnSignals {
    task: tokio::task::JoinHandle<()>,
    first: Arc<OnceLock<&'static str>>,
}

impl StopOnSignals {
    fn start(
        runtime: &tokio::runtime::Runtime,
        control: Arc<RunControl>,
    ) -> anyhow::Result<StopOnSignals> {
        // Installed now, before any game, so that an early signal is not the default (death).
        let _entered = runtime.enter();
        let mut signals = crate::host::signals::StopSignals::install()?;
        let first = Arc::new(OnceLock::new());
        let seen = first.clone();
        let task = runtime.spawn(async move {
            loop {
                let name = signals.next().await;
                if seen.set(name).is_ok() {
                    eprintln!("{name}: stopping; the games in flight are abandoned, finished games are kept");
                }
                control.set(ControlState::Stopping);
            }
        });
        Ok(StopOnSignals { task, first })
    }

    /// Stop listening; the signal that stopped the run, if one did.
    fn stop(self) -> Option<&'static str> {
        self.task.abort();
        self.first.get().copied()
    }
}

/// How a run ended, as every view states it: who never moved, which fail-on rules broke, and
/// the verdict they and the test's decision make ([`verdict::verdict`]).
pub struct Ending {
    pub never_moved: Vec<NeverMoved>,
    pub broken: Vec<RuleBroken>,
    pub verdict: Verdict,
}

/// Why a run is short of its schedule, in the verdict's terms.
pub enum Short {
    /// It played all it was to play.
    No,
    /// It stopped before its end (`interrupted by SIGINT: 14 of 400 games played`).
    Stopped(String),
    /// A merge of shards that do not hold every game (`the shards hold 12 of 16 games`).
    Missing(String),
}

impl Ending {
    /// The ending of `records` of the run `t`, with its test's `decision` (when it has a test)
    /// and what it is `short` of.
    pub fn of(
        t: &Tournament,
        records: &[GameRecord],
        decision: Option<Decision>,
        short: Short,
    ) -> Ending {
        let never_moved = verdict::never_moved(&t.engine_names(), records);
        let broken = verdict::broken_rules(&t.fail_rules(), records);
        let (stopped, missing) = match short {
            Short::No => (None, None),
            Short::Stopped(why) => (Some(why), None),
            Short::Missing(why) => (None, Some(why)),
        };
        let verdict = verdict::verdict(&verdict::Evidence {
            decision,
            broken: &broken,
            stopped,
            missing,
            shard: t
                .shard
                .map(|s| format!("shard {s}: its {} games played", records.len())),
            never_moved: &never_moved,
        });
        Ending {
            never_moved,
            broken,
            verdict,
        }
    }

    /// The ending of a run's games: short when the stop file or a signal ended it before its
    /// schedule did.
    pub fn of_played(t: &Tournament, played: &Played) -> Ending {
        let summary = &played.summary;
        let short = if summary.stopped_by_file {
            // The decision belongs to whoever wrote the file.
            Short::Stopped(format!(
                "stopped by {}: {} of {} games played, no new pair started (running again resumes)",
                t.stop_file
                    .as_deref()
                    .map_or(String::new(), |f| f.display().to_string()),
                summary.records.len(),
                summary.planned
            ))
        } else if summary.records.len() < summary.planned {
            Short::Stopped(format!(
                "interrupted{}: {} of {} games played; run the same command again to resume",
                played
                    .signalled
                    .map(|s| format!(" by {s}"))
                    .unwrap_or_default(),
                summary.records.len(),
                summary.planned
            ))
        } else {
            Short::No
        };
        let decision = summary.sprt.as_ref().map(|s| s.decision);
        Ending::of(t, &summary.records, decision, short)
    }

    /// What the run's folder keeps of its end (`verdict.json`), with the exit code the
    /// command's convention gives it.
    pub fn record(&self, exit_code: i32, start_failures: BTreeMap<String, u64>) -> RunVerdict {
        RunVerdict {
            exit_code,
            outcome: self.verdict.outcome,
            reasons: self.verdict.reasons.clone(),
            start_failures,
        }
    }
}
