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

use super::affinity::{pin, CoreSlots};
use super::game::{forfeit_before_start, play_game, GameSetup};
use super::pool::WorkerPool;
use super::resume::{self, OutputFolder};
use crate::events::{ControlState, Event, EventSink, RunControl};
use crate::plan::config::{TimeRules, Tournament};
use crate::plan::openings::Opening;
use crate::plan::schedule::ScheduledGame;
use crate::record::journal::{write_durably, Journal, FINGERPRINT_FILE, JSONL_FILE};
use crate::record::GameRecord;
use crate::stats::running::{PairResult, RunningTotals};
use crate::stats::sprt::{Decision, SprtStatus};
use anyhow::Context;
use othello_board::Color;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a game task hands to the coordinator.
enum FromGame {
    Finished(Box<GameRecord>),
    /// The run is being stopped: the game was abandoned, its workers killed.
    Abandoned,
    /// Games cannot go on (neither engine's worker starts): the run ends with this error.
    Fatal(anyhow::Error),
}

/// Who watches a run: the live event stream and the scheduling control (both unused by the
/// plain progress output).
#[derive(Clone, Default)]
pub struct Observer {
    pub events: EventSink,
    pub control: std::sync::Arc<RunControl>,
}

/// What the coordinator tells its caller as the run goes on.
pub enum Progress<'a> {
    /// Every engine started (the tournament is good to play): the moment for the first line.
    Started,
    /// An earlier run's games in the output folder are kept.
    Resuming {
        held: usize,
        planned: usize,
        to_play: usize,
        journal: &'a Path,
    },
    /// A game finished (and is in the journal); `finished` counts the run's games so far,
    /// earlier runs' included.
    GameFinished {
        record: &'a GameRecord,
        finished: usize,
        planned: usize,
    },
    /// A game completed its pair. `records` are the finished games so far (in the order they
    /// finished, without their moves); `sprt` is the test on them.
    PairFinished {
        pair: &'a PairResult,
        sprt: Option<&'a SprtStatus>,
        records: &'a [GameRecord],
        elapsed: Duration,
    },
    /// The run is over (records sorted by game number): the moment to write final files, before
    /// the live view hears it. `complete` when every game of the run's share is in.
    Finished {
        records: &'a [GameRecord],
        elapsed: Duration,
        complete: bool,
    },
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
}

/// Play the tournament `t`, with plugins named by bare name looked up in `plugin_dir`. The
/// games of an earlier run in the output folder are kept and the run resumes after them.
/// `observer` receives the live event stream and may pause or stop the scheduling of games;
/// `progress` hears of resumption, every completed pair and the end.
pub async fn run(
    t: &Tournament,
    plugin_dir: &Path,
    observer: &Observer,
    mut progress: impl FnMut(Progress),
) -> anyhow::Result<RunSummary> {
    let events = &observer.events;
    let control = &observer.control;
    let openings = t.openings.load()?;
    let schedule = t.schedule(openings.openings.len());
    let fingerprint = resume::fingerprint(t, &openings, plugin_dir);
    let previous = resume::earlier_games(t, &fingerprint, &schedule, &openings)?;
    let done: HashSet<usize> = previous.iter().map(|r| r.game).collect();
    let planned = schedule.games_of(t.shard).count();
    let todo: Vec<&ScheduledGame> = schedule
        .games_of(t.shard)
        .filter(|g| !done.contains(&g.index))
        .collect();
    let core_slots = if t.affinity {
        Some(CoreSlots::plan(t)?)
    } else {
        None
    };
    let folder = OutputFolder::create(&t.out)?;
    let pool = WorkerPool::start(t, plugin_dir, &folder.logs())
        .await
        .inspect_err(|_| folder.abandon())?;
    progress(Progress::Started);
    if !previous.is_empty() {
        progress(Progress::Resuming {
            held: previous.len(),
            planned,
            to_play: todo.len(),
            journal: &t.out.join(JSONL_FILE),
        });
    }

    let fingerprint_path = t.out.join(FINGERPRINT_FILE);
    if previous.is_empty() || !fingerprint_path.exists() {
        write_durably(&fingerprint_path, fingerprint.as_bytes())
            .with_context(|| format!("cannot write {}", fingerprint_path.display()))?;
    }

    let mut journal = Journal::open(&t.out)?;
    // A shard does not decide on its own sample: the decision is global (`merge --watch`).
    let sprt_of_run = t.sprt.filter(|_| t.shard.is_none());
    events.send(Event::RunStarted {
        engines: t.engines.iter().map(|e| e.name.clone()).collect(),
        total_games: planned,
        already_played: previous.clone(),
        time_control: t.time_description(),
        sprt: sprt_of_run.map(|s| s.params),
    });
    let mut totals = RunningTotals::new(
        planned / 2,
        sprt_of_run.map(|s| {
            (
                s.params,
                t.engines[0].name.as_str(),
                t.engines[1].name.as_str(),
            )
        }),
    );
    let mut earlier: Vec<&GameRecord> = previous.iter().collect();
    earlier.sort_by_key(|r| r.game);
    for r in earlier {
        totals.add(r);
    }
    let mut claims = Claims {
        next: 0,
        max_pair: None,
        closed: false,
        stop_file: t.stop_file.as_deref(),
        stopped_by_file: false,
    };
    // A resumed run whose test had already decided only completes the pairs it had begun.
    let mut sprt = totals
        .sprt_status()
        .filter(|s| s.decision != Decision::Continue);
    if sprt.is_some() {
        let last_begun = previous.iter().map(|r| r.pair).max();
        claims.max_pair = last_begun;
        claims.closed = last_begun.is_none();
    }
    let started = Instant::now();
    let slots = t.concurrency.max(1).min(todo.len().max(1));
    let context = Arc::new(GameContext {
        openings: openings.openings,
        names: t.engines.iter().map(|e| e.name.clone()).collect(),
        time: (0..t.engines.len()).map(|i| t.time_rules(i)).collect(),
        pool,
        events: events.clone(),
        control: control.clone(),
    });
    let mut records = previous;
    let mut write_error = None;
    let mut fatal: Option<anyhow::Error> = None;
    let mut in_flight = tokio::task::JoinSet::new();
    // Each game in flight holds a slot (its cores, when pinned).
    let mut free_slots: Vec<usize> = (0..slots).rev().collect();
    let mut control_changes = control.subscribe();

    loop {
        let state = *control_changes.borrow_and_update();
        // Paused: start nothing, wait; finishing or stopping: start nothing new.
        if state == ControlState::Running {
            while in_flight.len() < slots {
                let Some(g) = claims.claim(&todo) else { break };
                let slot = free_slots.pop().expect("a slot per game in flight");
                let cores = core_slots.as_ref().map(|c| c.cores(slot).to_vec());
                let game = play_scheduled(context.clone(), *g, cores);
                in_flight.spawn(async move { (slot, game.await) });
            }
        }
        if in_flight.is_empty() && state != ControlState::Paused {
            break;
        }
        let joined = tokio::select! {
            joined = in_flight.join_next(), if !in_flight.is_empty() => joined,
            _ = control_changes.changed() => continue,
        };
        let message = match joined {
            None => continue,
            Some(Ok((slot, message))) => {
                free_slots.push(slot);
                message
            }
            Some(Err(e)) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
            Some(Err(e)) => return Err(anyhow::anyhow!("a game's task was cancelled: {e}")),
        };
        let record = match message {
            // Abandoned by a stop: not recorded, a resumed run plays it again.
            FromGame::Abandoned => continue,
            FromGame::Finished(record) => *record,
            FromGame::Fatal(e) => {
                claims.closed = true;
                fatal.get_or_insert(e);
                continue;
            }
        };
        if write_error.is_none() {
            if let Err(e) = journal.append(&record) {
                write_error = Some(e);
                // Start no more games; those in flight finish and are dropped.
                claims.closed = true;
            }
        }
        let light = record.without_moves();
        if write_error.is_none() {
            progress(Progress::GameFinished {
                record: &light,
                finished: records.len() + 1,
                planned,
            });
            events.send(Event::GameFinished { record });
        }
        let finished_pair = totals.add(&light);
        records.push(light);
        let Some(pair) = finished_pair else {
            continue;
        };
        let status = totals.sprt_status();
        if let Some(status) = &status {
            if status.decision != Decision::Continue && sprt.is_none() {
                // Decided: finish the pairs already begun, start no new pair.
                claims.stop_after_begun(&todo);
                sprt = Some(status.clone());
            }
        }
        progress(Progress::PairFinished {
            pair: &pair,
            sprt: status.as_ref(),
            records: &records,
            elapsed: started.elapsed(),
        });
    }
    context.pool.shutdown().await;
    if let Some(e) = write_error {
        return Err(e.context(format!(
            "cannot append to the journal in {}",
            t.out.display()
        )));
    }
    if let Some(e) = fatal {
        return Err(e.context(format!(
            "the run stopped; its {} finished games are in {} and running it again resumes it",
            records.len(),
            t.out.display()
        )));
    }
    records.sort_by_key(|r| r.game);
    let stopped_by_file = claims.stopped_by_file;
    progress(Progress::Finished {
        records: &records,
        elapsed: started.elapsed(),
        complete: records.len() >= planned,
    });
    events.send(Event::RunFinished);
    // The final LLR counts every finished game, including the pairs completed after the
    // decision; the decision is the one taken when the LLR crossed a bound.
    let mut final_sprt = sprt_of_run.and_then(|_| t.sprt_status(&records));
    if let (Some(f), Some(decided)) = (final_sprt.as_mut(), sprt.as_ref()) {
        f.decision = decided.decision;
    }
    Ok(RunSummary {
        sprt: final_sprt,
        planned,
        stopped_by_file,
        records,
        out_dir: t.out.clone(),
    })
}

/// What every game task shares: the run's fixed facts and its workers.
struct GameContext {
    openings: Vec<Opening>,
    /// Engine display names by engine index.
    names: Vec<String>,
    /// Time rules by engine index.
    time: Vec<TimeRules>,
    pool: WorkerPool,
    events: EventSink,
    control: Arc<RunControl>,
}

/// One game's task: borrow a worker per engine, play, give the healthy workers back.
async fn play_scheduled(
    context: Arc<GameContext>,
    g: ScheduledGame,
    cores: Option<Vec<usize>>,
) -> FromGame {
    let c = &*context;
    let setup = GameSetup {
        scheduled: &g,
        opening: &c.openings[g.opening],
        names: [&c.names[g.black], &c.names[g.white]],
        time: [c.time[g.black], c.time[g.white]],
    };
    let (black, white) = tokio::join!(c.pool.take(g.black), c.pool.take(g.white));
    let record = match (black, white) {
        (Ok(mut b), Ok(mut w)) => {
            if let Some(cores) = &cores {
                for host in [&b, &w] {
                    if let Err(e) = host.pid().map_or(Ok(()), |pid| pin(pid, cores)) {
                        return FromGame::Fatal(anyhow::anyhow!(
                            "game {}: cannot pin engine `{}` to cores {cores:?}: {e}",
                            g.index + 1,
                            host.name
                        ));
                    }
                }
            }
            let Some(r) = play_game(&setup, [&mut b, &mut w], &c.events, &c.control).await else {
                // Abandoned by a stop: its workers may be mid-search.
                tokio::join!(b.kill(), w.kill());
                return FromGame::Abandoned;
            };
            c.pool.give_back(g.black, b);
            c.pool.give_back(g.white, w);
            r
        }
        // Neither engine can start: the machine, not an engine, is at fault (no processes or
        // descriptors left?). Stop handing out games.
        (Err(b), Err(w)) => {
            return FromGame::Fatal(anyhow::anyhow!(
                "game {}: cannot start a worker for either engine ({b}; {w})",
                g.index + 1
            ))
        }
        // A worker that cannot even be restarted forfeits the game; the other engine's healthy
        // worker goes back to the pool.
        (Err(e), Ok(w)) => {
            c.pool.give_back(g.white, w);
            forfeit_before_start(&setup, Color::Black, &e)
        }
        (Ok(b), Err(e)) => {
            c.pool.give_back(g.black, b);
            forfeit_before_start(&setup, Color::White, &e)
        }
    };
    FromGame::Finished(Box::new(record))
}

/// Which scheduled games may still start. Only the coordinator's loop claims games and lowers
/// the limit, so no game can slip past a decision half-checked.
struct Claims<'f> {
    /// Index into the games to play of the next one to hand out.
    next: usize,
    /// Games of a pair above this are not started (set when the SPRT decides).
    max_pair: Option<usize>,
    /// Nothing more is started (a journal write failed, or nothing was begun).
    closed: bool,
    /// Checked before each new pair: once it exists, no new pair is started.
    stop_file: Option<&'f Path>,
    stopped_by_file: bool,
}

impl Claims<'_> {
    fn claim<'g>(&mut self, todo: &[&'g ScheduledGame]) -> Option<&'g ScheduledGame> {
        let g = *todo.get(self.next)?;
        if self.closed || self.max_pair.is_some_and(|m| g.pair > m) {
            return None;
        }
        let new_pair = self
            .next
            .checked_sub(1)
            .is_none_or(|i| todo[i].pair != g.pair);
        if new_pair && self.stop_file.is_some_and(Path::exists) {
            self.stopped_by_file = true;
            self.stop_after_begun(todo);
            return None;
        }
        self.next += 1;
        Some(g)
    }

    /// Let the pairs already begun finish; start no new pair.
    fn stop_after_begun(&mut self, todo: &[&ScheduledGame]) {
        match self.next.checked_sub(1) {
            Some(last) => {
                let pair = todo[last].pair;
                self.max_pair = Some(self.max_pair.map_or(pair, |m| m.min(pair)));
            }
            None => self.closed = true,
        }
    }
}
