//! The coordinator: plays a tournament's schedule on a pool of engine workers.
//!
//! It is async and runs on the tokio runtime of `harness run`. Its loop hands out the scheduled
//! games in order and keeps at most `concurrency` of them in flight, each game a task
//! ([`play_scheduled`]) that borrows one worker per engine from the [`WorkerPool`] and plays it
//! ([`super::game`]). The loop waits on two things only: a game task ending, and the run
//! control changing (pause, finish, stop from the live view or a signal). It is the journal's
//! only writer: each finished game is appended (and synced) at once, the running totals (and
//! with them the sequential test) are updated, the caller is told through [`Progress`], and only
//! then is the next game started, so the decision is never more than one game per slot behind.
//! The statistics at the end are computed afresh from the records.
//!
//! The loop runs on the thread that called `block_on` (the runtime's worker threads carry the
//! games), so its blocking steps, the journal's write and fsync and the reports the caller
//! writes on [`Progress`], hold up no game's clock.
//!
//! Before the first game the output folder is prepared ([`super::resume`]: an earlier run's
//! games are kept and checked, another tournament's refused) and every engine is started once
//! ([`WorkerPool::start`]), so bad input stops the run before anything is written.
//!
//! The loop's state is a [`Coordinator`]: the games to play and in flight ([`Slots`]), and the
//! results of finished ones ([`Results`]: journal, totals, the test's decision, the claims
//! on further games), which need no engine and are tested on their own.
//!
//! A run may add a [`GameHook`] to the loop ([`run`]): options set on each side's worker
//! before each game, and a look at each journaled game. `harness tune` plays θ ± c·Δ this way
//! and updates θ as results come in; the loop itself is the one `harness run` uses.

use super::adjudication::Adjudicator;
use super::affinity::CoreSlots;
use super::game::{play_scheduled, FromGame, GameContext, GameOptions};
use super::pool::{StartFailure, WorkerPool, START_FAILURES_IN_A_ROW};
pub use super::results::Progress;
use super::results::{Claims, Results};
use super::resume::{self, OutputFolder};
use anyhow::bail;
use anyhow::Context;
use harness_core::events::{ControlState, Event, EventSink, RunControl};
use harness_core::plan::config::Tournament;
use harness_core::plan::schedule::ScheduledGame;
use harness_core::record::journal::{write_durably, Journal, JSONL_FILE};
use harness_core::record::run_clock::{Elapsed, SessionClock};
use harness_core::record::tournament_record::TOURNAMENT_FILE;
use harness_core::record::GameRecord;
use harness_core::stats::sprt::SprtStatus;
use std::collections::{BTreeMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Who watches a run: the live event stream and the scheduling control (both unused by the
/// plain progress output).
#[derive(Clone, Default)]
pub struct Observer {
    pub events: EventSink,
    pub control: std::sync::Arc<RunControl>,
}

/// What a finished run hands back.
pub struct RunSummary {
    pub records: Vec<GameRecord>,
    pub out_dir: PathBuf,
    /// The sequential test's final state, when the tournament has one (and this run is not a
    /// shard, which never decides).
    pub sprt: Option<SprtStatus>,
    /// Games this run was to play (its shard's, or the whole schedule).
    pub planned: usize,
    /// The stop file appeared: pairs begun were finished, no new one was started.
    pub stopped_by_file: bool,
    /// Per engine, the games of this session it could not be started for (each was played
    /// again with a new worker).
    pub start_failures: BTreeMap<String, u64>,
    /// The run's time at its end: its earlier sessions' and this one's (`clock.json`).
    pub elapsed: Elapsed,
}

/// What a run adds to the loop of games. Both calls come from the loop's thread, in order: a
/// game's options when it is claimed (games are claimed in schedule order), a game after it is
/// journaled. An error stops the run as a fatal error does (no new game; the games in flight
/// finish and are kept).
pub trait GameHook: Send {
    /// The options to set on [Black, White]'s workers before game `g`.
    fn options(&mut self, g: &ScheduledGame) -> anyhow::Result<GameOptions>;
    /// `record` is in the journal.
    fn finished(&mut self, record: &GameRecord) -> anyhow::Result<()>;
}

/// `harness run`'s hook: nothing to add.
pub struct NoHook;

impl GameHook for NoHook {
    fn options(&mut self, _: &ScheduledGame) -> anyhow::Result<GameOptions> {
        Ok(Default::default())
    }
    fn finished(&mut self, _: &GameRecord) -> anyhow::Result<()> {
        Ok(())
    }
}

/// Play the tournament `t`, with plugins named by bare name looked up in `plugin_dir`. The
/// games of an earlier run in the output folder are kept and the run resumes after them.
/// `hook` adds to the loop (`harness run`'s: [`NoHook`]). `observer` receives the live event
/// stream and may pause or stop the scheduling of games; `progress` hears of resumption, every
/// completed pair and the end.
pub async fn run(
    t: &Tournament,
    plugin_dir: &Path,
    observer: &Observer,
    hook: &mut dyn GameHook,
    mut progress: impl FnMut(Progress),
) -> anyhow::Result<RunSummary> {
    let mut coordinator = Coordinator::prepare(t, plugin_dir, observer, &mut progress).await?;
    coordinator.play(hook, &mut progress).await;
    coordinator.finish(&mut progress).await
}

/// The state of a run between its preparation and its end.
struct Coordinator<'t> {
    t: &'t Tournament,
    slots: Slots,
    results: Results<'t>,
    control: Arc<RunControl>,
    events: EventSink,
    /// The run's time: its earlier sessions' and this one's, kept in `clock.json`.
    clock: SessionClock,
    /// A failed write of the clock was said (once: the journal is the record).
    clock_warned: bool,
}

impl<'t> Coordinator<'t> {
    /// Everything before the first game: the schedule, the earlier games (checked), the output
    /// folder, every engine started, `tournament.json` and the journal; the caller hears
    /// `Started` (and `Resuming`).
    async fn prepare(
        t: &'t Tournament,
        plugin_dir: &Path,
        observer: &Observer,
        progress: &mut impl FnMut(Progress),
    ) -> anyhow::Result<Coordinator<'t>> {
        // The session's time counts from here: its engines' start and pre-flight are part of it.
        let session_started = Instant::now();
        let openings = t.openings.load()?;
        let schedule = t.schedule(openings.openings.len());
        let tournament_json = resume::tournament_text(t, &openings, plugin_dir);
        let previous = resume::earlier_games(t, &tournament_json, &schedule, &openings)?;
        let done: HashSet<usize> = previous.iter().map(|r| r.game).collect();
        let planned = schedule.games_of(t.shard).count();
        let todo: Vec<ScheduledGame> = schedule
            .games_of(t.shard)
            .filter(|g| !done.contains(&g.index))
            .copied()
            .collect();
        let core_slots = if t.affinity {
            Some(CoreSlots::plan(t)?)
        } else {
            None
        };
        let folder = OutputFolder::create(&t.out)?;
        super::resume::check_free_space(&t.out, super::resume::space_needed(t))
            .inspect_err(|_| folder.abandon())?;
        // The run's id, made when it first starts (a shard's is its shards' folder's).
        let out = harness_core::record::run_folder::RunFolder::at(&t.out);
        let id_dir = match t.shard {
            Some(_) => out.run_dir(),
            None => &t.out,
        };
        harness_core::record::run_id::ensure(id_dir).inspect_err(|_| folder.abandon())?;
        let pool = WorkerPool::start(t, plugin_dir, &folder.logs())
            .await
            .inspect_err(|e| folder.abandon_unless_it_explains(e))?;
        // Every engine answers a move before the first game (not needed when nothing is left
        // to play).
        if let Some(first) = todo.first() {
            let answered =
                super::preflight::ask_each_engine(t, &pool, &openings.openings[first.opening])
                    .await
                    .inspect_err(|e| folder.abandon_unless_it_explains(e))?;
            for warning in super::preflight::warnings(&answered) {
                progress(Progress::Warning(warning));
            }
        }
        let pinned_path = t.out.join(TOURNAMENT_FILE);
        let written =
            harness_core::record::tournament_record::TournamentRecord::written_text(&t.out)?;
        // The games held were played under the fair-play conditions this kernel gave then; a
        // timed resume that plays more under others would mix two kinds of game in one result
        // (a finished run shows its result wherever it is run again; under depth and node
        // limits, as in the ledger's classes, the time an engine gets changes no game).
        let changed = resume::fair_play_changes(&written, pool.enforced());
        let timed = super::pool::is_timed(t);
        if timed && !previous.is_empty() && !todo.is_empty() && !changed.is_empty() {
            bail!(
                "{}: cannot resume: its {} games were played under other fair-play conditions than this machine gives ({}); \
                 resume where they hold (the same kernel, cgroups and user namespaces), or give another `out`",
                t.out.display(),
                previous.len(),
                changed.join("; ")
            );
        }
        progress(Progress::Started);
        let extended = resume::extension(&written, &tournament_json, false);
        // An extended run's folder now pins the tournament with its new pairs, a run resumed
        // with new build claims for its plugins the new claims, and one resumed with a mended
        // engine (one that had not made a move) the engine's new definition.
        if previous.is_empty()
            || written.is_empty()
            || extended.is_some()
            || resume::claims_changed(&written, &tournament_json)
            || resume::mends_unmeasured_engines(&written, &tournament_json, &previous)
        {
            let recorded = resume::with_enforced(&tournament_json, pool.enforced());
            write_durably(&pinned_path, recorded.as_bytes())
                .with_context(|| format!("cannot write {}", pinned_path.display()))?;
        }
        let held = previous.len();
        let journal = Journal::open(&t.out)?;
        // The run's earlier sessions' time (an older folder's is in its verdict, read before the
        // verdict is cleared); this session counts when it has games to play.
        let mut clock = SessionClock::start(&t.out, session_started)?;
        if !todo.is_empty() {
            clock.plays()?;
        }
        // The run goes on: the verdict of an earlier end of this folder no longer holds.
        harness_core::record::verdict_record::Conclusion::clear(&t.out)?;
        let results = Results::new(t, journal, previous, planned);
        if held > 0 {
            progress(Progress::Resuming {
                held,
                planned,
                to_play: todo.len(),
                journal: &t.out.join(JSONL_FILE),
                extended,
                decided: results.decided.as_ref().map(|s| s.decision),
            });
        }
        observer.events.send(Event::RunStarted {
            engines: t.engines.iter().map(|e| e.name.clone()).collect(),
            total_games: planned,
            already_played: results.records.clone(),
            time_control: t.time_description(),
            sprt: results.sprt_of_run().map(|s| s.params),
            elapsed_before: clock.total(),
        });
        let context = Arc::new(GameContext {
            openings: openings.openings,
            names: t.engines.iter().map(|e| e.name.clone()).collect(),
            time: (0..t.engines.len())
                .map(|i| t.played_time_rules(i))
                .collect(),
            pool,
            adjudicator: t.adjudication.as_ref().map(|a| Adjudicator {
                solver: t.engines.len(),
                at_empties: a.exact_at_empties,
                timeout: a.solve_timeout,
            }),
            events: observer.events.clone(),
            control: observer.control.clone(),
        });
        Ok(Coordinator {
            t,
            slots: Slots::new(context, todo, t.concurrency, core_slots),
            results,
            control: observer.control.clone(),
            events: observer.events.clone(),
            clock,
            clock_warned: false,
        })
    }

    /// The loop: start games while slots are free and the control allows, take each finished
    /// one, until nothing is in flight and nothing more may start.
    async fn play(&mut self, hook: &mut dyn GameHook, progress: &mut impl FnMut(Progress)) {
        let mut control_changes = self.control.subscribe();
        loop {
            let state = *control_changes.borrow_and_update();
            // Paused: start nothing, wait; finishing or stopping: start nothing new.
            if state == ControlState::Running {
                if let Err(e) = self.slots.start_games(&mut self.results.claims, hook) {
                    self.results.fatal.get_or_insert(e);
                    self.results.claims.closed = true;
                }
            }
            if self.slots.in_flight.is_empty() && state != ControlState::Paused {
                break;
            }
            let joined = tokio::select! {
                joined = self.slots.in_flight.join_next(), if !self.slots.in_flight.is_empty() => joined,
                _ = control_changes.changed() => continue,
            };
            let message = match joined {
                None => continue,
                Some(Ok((slot, FromGame::StartFailed { game, failures }))) => {
                    self.slots.free.push(slot);
                    self.start_failed(game, failures, progress);
                    continue;
                }
                Some(Ok((slot, message))) => {
                    self.slots.free.push(slot);
                    message
                }
                Some(Err(e)) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Some(Err(e)) => {
                    self.results
                        .fatal
                        .get_or_insert(anyhow::anyhow!("a game's task was cancelled: {e}"));
                    self.results.claims.closed = true;
                    continue;
                }
            };
            let journaled = self.results.records.len();
            self.results
                .take(message, &self.events, &self.clock, &mut *progress);
            if let Err(e) = self.clock.save_now_and_then() {
                self.clock_trouble(e, progress);
            }
            let record = self.results.records.get(journaled);
            if let Some(record) = record.filter(|_| self.results.write_error.is_none()) {
                if let Err(e) = hook.finished(record) {
                    self.results.fatal.get_or_insert(e);
                    self.results.claims.closed = true;
                }
            }
        }
    }

    /// The clock could not be written: said once; the run goes on (its games are in the
    /// journal; only the time a killed session played would be lost).
    fn clock_trouble(&mut self, e: anyhow::Error, progress: &mut impl FnMut(Progress)) {
        if !std::mem::replace(&mut self.clock_warned, true) {
            progress(Progress::Warning(format!(
                "{e:#}; the run's elapsed time may be short if this session is killed"
            )));
        }
    }

    /// A game whose engine(s) could not be started: not a result. Each failure is counted
    /// and said; the game is played again, unless an engine failed to start
    /// [`START_FAILURES_IN_A_ROW`] times in a row, which stops the run (no new game; those in
    /// flight finish and are kept).
    fn start_failed(
        &mut self,
        game: ScheduledGame,
        failures: Vec<StartFailure>,
        progress: &mut impl FnMut(Progress),
    ) {
        let mut cannot_start = None;
        for f in failures {
            let name = &self.t.engines[f.engine].name;
            *self.results.start_failures.entry(name.clone()).or_default() += 1;
            progress(Progress::Warning(format!(
                "engine `{name}` could not be started for game {}: {}; the game is played again with a new worker",
                game.index + 1,
                f.error
            )));
            if f.gave_up && cannot_start.is_none() {
                let when = format!("{START_FAILURES_IN_A_ROW} times in a row");
                cannot_start = Some(
                    self.slots
                        .context
                        .pool
                        .cannot_start(f.engine, &f.error, &when),
                );
            }
        }
        match cannot_start {
            Some(e) => {
                self.results.fatal.get_or_insert(e.into());
                self.results.claims.closed = true;
            }
            None => self.slots.retry.push_back(game),
        }
    }

    /// The end: the workers shut down, an error that stopped the run returned, otherwise the
    /// caller hears `Finished` and gets the summary (the test's final LLR over every game,
    /// with the decision taken at the crossing).
    async fn finish(mut self, progress: &mut impl FnMut(Progress)) -> anyhow::Result<RunSummary> {
        if let Err(e) = self.clock.end() {
            self.clock_trouble(e, progress);
        }
        let Coordinator {
            t,
            slots,
            results,
            events,
            clock,
            ..
        } = self;
        slots.context.pool.shutdown().await;
        let planned = results.planned;
        let sprt_of_run = results.sprt_of_run();
        let Results {
            mut records,
            write_error,
            fatal,
            claims,
            decided,
            start_failures,
            ..
        } = results;
        if let Some(e) = write_error {
            return Err(e.context(format!(
                "cannot append to the journal in {}",
                t.out.display()
            )));
        }
        if let Some(e) = fatal {
            return Err(e.context(format!(
                "the run stopped; its {} finished games are kept in {} (running again resumes them once the cause is mended)",
                records.len(),
                t.out.display()
            )));
        }
        records.sort_by_key(|r| r.game);
        progress(Progress::Finished {
            records: &records,
            elapsed: clock.elapsed(),
            complete: records.len() >= planned,
        });
        events.send(Event::RunFinished);
        let mut final_sprt = sprt_of_run.and_then(|_| t.sprt_status(&records));
        if let (Some(f), Some(decided)) = (final_sprt.as_mut(), decided.as_ref()) {
            f.decision = decided.decision;
        }
        Ok(RunSummary {
            sprt: final_sprt,
            planned,
            stopped_by_file: claims.stopped_by_file,
            records,
            out_dir: t.out.clone(),
            start_failures,
            elapsed: clock.elapsed(),
        })
    }
}

/// The games to play and those in flight, each in a slot (its cores, when pinned).
struct Slots {
    context: Arc<GameContext>,
    todo: Vec<ScheduledGame>,
    /// Games handed out whose engine could not be started: played again before new ones.
    retry: VecDeque<ScheduledGame>,
    /// At most this many games at once.
    size: usize,
    free: Vec<usize>,
    core_slots: Option<CoreSlots>,
    in_flight: tokio::task::JoinSet<(usize, FromGame)>,
}

impl Slots {
    fn new(
        context: Arc<GameContext>,
        todo: Vec<ScheduledGame>,
        concurrency: usize,
        core_slots: Option<CoreSlots>,
    ) -> Slots {
        let size = concurrency.max(1).min(todo.len().max(1));
        Slots {
            context,
            todo,
            retry: VecDeque::new(),
            size,
            free: (0..size).rev().collect(),
            core_slots,
            in_flight: tokio::task::JoinSet::new(),
        }
    }

    /// Start the games the claims allow while a slot is free, each with the options `hook`
    /// gives it.
    fn start_games(&mut self, claims: &mut Claims, hook: &mut dyn GameHook) -> anyhow::Result<()> {
        while self.in_flight.len() < self.size {
            let again = self
                .retry
                .pop_front()
                .filter(|g| !claims.closed && claims.max_pair.is_none_or(|m| g.pair <= m));
            let Some(g) = again.or_else(|| claims.claim(&self.todo)) else {
                break;
            };
            let options = hook.options(&g)?;
            let slot = self.free.pop().expect("a slot per game in flight");
            let cores = self.core_slots.as_ref().map(|c| c.cores(slot).to_vec());
            let game = play_scheduled(self.context.clone(), g, cores, options);
            self.in_flight.spawn(async move { (slot, game.await) });
        }
        Ok(())
    }
}
