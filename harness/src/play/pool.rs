//! The workers of a run: one [`WorkerSpec`] per engine, and a pool of idle workers.
//!
//! Workers are reused across games: a game borrows one idle worker per engine (or starts one)
//! and gives it back afterwards if it is still healthy, so a failed worker is replaced by a
//! fresh one. Before the first game every engine is started once and asked to begin a game
//! ([`WorkerPool::start`]), so a missing plugin, a plugin of the wrong ABI version, a bad option
//! or an engine that cannot play stops the run with a clear error before anything is written
//! (the pre-flight, [`super::preflight`], then asks each for a move).
//!
//! During the run a game gets each engine's worker through [`WorkerPool::start_for_game`]:
//! an engine is *started* for a game once its worker is up, has taken the game's options and
//! has answered `new_game` (an external program's handshake happens there). A failed start is
//! not a result: the game is played again with a new worker. Each start is an attempt with a
//! number of its own per engine, taken when it begins; [`START_FAILURES_IN_A_ROW`] failed
//! attempts with consecutive numbers (so in the order of the attempts, whatever the
//! concurrency) mean the engine cannot start, and the run stops.

use crate::host::engine_host::WorkerSpec;
use crate::host::sandbox::{Confinement, Enforced};
use crate::host::stderr_log::{self, LogTail};
use crate::host::turns::{self, BetweenTurns};
use crate::host::{EngineHost, HostError};
use anyhow::bail;
use harness_core::plan::config::{Sandbox, TimeControl, Tournament};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Mutex;

/// Failed starts of one engine in a row (in the order of the attempts) after which the run
/// stops: the engine cannot start.
pub const START_FAILURES_IN_A_ROW: u64 = 3;

/// An engine's worker that could not be started for a game.
#[derive(Debug)]
pub struct StartFailure {
    /// The engine's index in the tournament.
    pub engine: usize,
    pub error: HostError,
    /// This failure completed [`START_FAILURES_IN_A_ROW`] failed attempts in a row.
    pub gave_up: bool,
}

/// An engine that cannot start: at the pre-flight, or [`START_FAILURES_IN_A_ROW`] times in a
/// row during the run. The run stops with it (exit code 2; 125 under `--exit-codes bisect`,
/// which skips the commit), naming the engine, the cause and the end of its stderr log.
#[derive(Debug)]
pub struct CannotStart {
    pub engine: String,
    /// What failed, in words (the host's error).
    pub cause: String,
    /// `at the pre-flight`, `3 times in a row`: when.
    pub when: String,
    /// The end of the engine's stderr log, when it has one.
    pub log: Option<LogTail>,
}

impl std::fmt::Display for CannotStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "engine `{}` cannot start ({}): {}",
            self.engine, self.when, self.cause
        )?;
        if let Some(log) = &self.log {
            write!(
                f,
                "
  {log}"
            )?;
        }
        Ok(())
    }
}

impl std::error::Error for CannotStart {}

impl CannotStart {
    /// Whether `e` is (or was caused by) an engine that cannot start.
    pub fn is_cause_of(e: &anyhow::Error) -> bool {
        e.chain().any(|c| c.is::<CannotStart>())
    }
}

/// The numbers of each engine's start attempts and which of them failed.
#[derive(Debug, Default)]
struct StartAttempts {
    /// Per engine: the number the next attempt takes.
    next: Vec<u64>,
    /// Per engine: the numbers of the attempts that failed.
    failed: Vec<BTreeSet<u64>>,
}

impl StartAttempts {
    fn new(engines: usize) -> StartAttempts {
        StartAttempts {
            next: vec![0; engines],
            failed: vec![BTreeSet::new(); engines],
        }
    }

    /// An attempt of `engine` begins: its number.
    fn begin(&mut self, engine: usize) -> u64 {
        let n = self.next[engine];
        self.next[engine] += 1;
        n
    }

    /// Attempt `n` of `engine` failed: whether it completes a run of
    /// [`START_FAILURES_IN_A_ROW`] failed attempts with consecutive numbers. Attempts still
    /// under way between two failures break the run until they fail too.
    fn failed(&mut self, engine: usize, n: u64) -> bool {
        let failed = &mut self.failed[engine];
        failed.insert(n);
        let k = START_FAILURES_IN_A_ROW;
        // The runs of k consecutive numbers that contain n start at n-k+1 … n.
        (n.saturating_sub(k - 1)..=n).any(|first| (first..first + k).all(|m| failed.contains(&m)))
    }
}

/// The adjudication solver's display name (in its messages and its stderr log's name).
pub const SOLVER_NAME: &str = "adjudication-solver";

/// Whether an engine of `t` plays under a clock or a move time: where the time an engine gets
/// can change a game (under depth and node limits it cannot).
pub fn is_timed(t: &Tournament) -> bool {
    (0..t.engines.len()).any(|e| {
        matches!(
            t.time_rules(e).control,
            TimeControl::Clock { .. } | TimeControl::MoveTime(_)
        )
    })
}

/// Whether an engine's workers are stopped between turns in the run `t`: unless it ponders,
/// or no engine plays under a clock or a move time ([`crate::host::turns`]).
pub fn between_turns(t: &Tournament, ponder: bool) -> BetweenTurns {
    match (ponder, is_timed(t)) {
        (true, _) => BetweenTurns::Runs(turns::PONDERS),
        (false, false) => BetweenTurns::Runs(turns::UNTIMED),
        (false, true) => BetweenTurns::Stopped,
    }
}

/// How an engine's first worker ran: what the kernel enforced of its sandbox (`None`: the
/// sandbox is off) and how it is stopped between turns.
#[derive(Clone, Debug)]
pub struct StartedAs {
    pub name: String,
    pub sandbox: Option<Enforced>,
    pub stop_route: String,
}

/// Idle workers per engine index (the adjudication solver, if any, is the last index). The lock is never held across an await.
pub struct WorkerPool {
    specs: Vec<WorkerSpec>,
    idle: Mutex<Vec<Vec<EngineHost>>>,
    attempts: Mutex<StartAttempts>,
    /// How each engine's first worker ran (the adjudication solver last).
    enforced: Vec<StartedAs>,
}

impl WorkerPool {
    /// Resolve every engine's plugin and start one worker for each. Errors name the
    /// tournament file and the engine.
    pub async fn start(
        t: &Tournament,
        plugin_dir: &Path,
        logs: &Path,
    ) -> anyhow::Result<WorkerPool> {
        let mut specs = Vec::new();
        for e in &t.engines {
            let plugin = e.plugin.resolve(plugin_dir);
            if !plugin.exists() {
                bail!(
                    "{}: engine `{}`: plugin not found at {} (build the engines with `cargo build --release --workspace`, or give a path)",
                    t.source,
                    e.name,
                    plugin.display()
                );
            }
            specs.push(WorkerSpec {
                name: e.name.clone(),
                plugin,
                options: e.options.clone(),
                stderr_log: Some(logs.join(format!("{}.stderr.log", file_name_for(&e.name)))),
                memory_limit: e.memory_limit,
                sandbox: Confinement::of(&e.sandbox, Some(e.declared_threads())),
                between_turns: between_turns(t, e.ponder),
            });
        }
        // The adjudication solver is one more engine, after the tournament's.
        if let Some(a) = &t.adjudication {
            let plugin = a.solver.resolve(plugin_dir);
            if !plugin.exists() {
                bail!(
                    "{}: [adjudication] solver: plugin not found at {}",
                    t.source,
                    plugin.display()
                );
            }
            specs.push(WorkerSpec {
                name: SOLVER_NAME.to_string(),
                plugin,
                options: a.solver_options.clone(),
                stderr_log: Some(logs.join(format!("{SOLVER_NAME}.stderr.log"))),
                memory_limit: None,
                sandbox: Confinement::of(
                    &Sandbox {
                        mode: t.sandbox,
                        ..Sandbox::default()
                    },
                    Some(harness_core::plan::config::declared_threads(
                        None,
                        &a.solver_options,
                    )),
                ),
                between_turns: between_turns(t, false),
            });
        }
        // Start every engine once and begin a game: load errors, bad options and an engine
        // that cannot play (an external program that does not start) end the run before any
        // game.
        let mut idle = Vec::new();
        let mut enforced = Vec::new();
        for spec in &specs {
            let ready = match EngineHost::spawn(spec).await {
                Ok(mut host) => host.new_game().await.map(|()| host),
                Err(e) => Err(e),
            };
            let ready = match (ready, &t.adjudication) {
                // The solver must solve exactly before any game relies on it.
                (Ok(mut host), Some(a)) if idle.len() == t.engines.len() => {
                    match host.prove_exact(a.solve_timeout).await {
                        Ok(()) => Ok(host),
                        Err(e) => bail!("{}: [adjudication] solver: {e:#}", t.source),
                    }
                }
                (ready, _) => ready,
            };
            match ready {
                Ok(host) => {
                    enforced.push(StartedAs {
                        name: spec.name.clone(),
                        sandbox: host.sandbox.clone(),
                        stop_route: host.stop_route(),
                    });
                    idle.push(vec![host]);
                }
                // A refused option is the tournament's mistake, not the engine's start.
                Err(e @ HostError::Option { .. }) => {
                    return Err(anyhow::Error::new(e).context(t.source.clone()))
                }
                Err(e) => {
                    let why = cannot_start(spec, &e, "before the first game");
                    return Err(anyhow::Error::new(why).context(t.source.clone()));
                }
            }
        }
        Ok(WorkerPool {
            attempts: Mutex::new(StartAttempts::new(specs.len())),
            specs,
            idle: Mutex::new(idle),
            enforced,
        })
    }

    /// How each engine's first worker ran (the adjudication solver last).
    pub fn enforced(&self) -> &[StartedAs] {
        &self.enforced
    }

    /// An idle worker of engine `engine`, or a new one.
    pub async fn take(&self, engine: usize) -> Result<EngineHost, HostError> {
        if let Some(h) = self
            .idle
            .lock()
            .expect("pool lock")
            .get_mut(engine)
            .and_then(Vec::pop)
        {
            return Ok(h);
        }
        EngineHost::spawn(&self.specs[engine]).await
    }

    /// A worker of engine `engine` started for a game: an idle one or a new one, given
    /// `options` and told a game begins (see the module's docs). A failure is counted as an
    /// attempt of the engine's; the worker that failed is gone.
    pub async fn start_for_game(
        &self,
        engine: usize,
        options: &[(String, String)],
    ) -> Result<EngineHost, StartFailure> {
        let attempt = self.attempts.lock().expect("pool lock").begin(engine);
        let started = async {
            let mut host = self.take(engine).await?;
            for (name, value) in options {
                host.set_option(name, value).await?;
            }
            host.new_game().await?;
            Ok(host)
        };
        started.await.map_err(|error| StartFailure {
            engine,
            gave_up: self
                .attempts
                .lock()
                .expect("pool lock")
                .failed(engine, attempt),
            error,
        })
    }

    /// Engine `engine` cannot start (`when`) because of `error`: the error that says so,
    /// with the end of the engine's stderr log.
    pub fn cannot_start(&self, engine: usize, error: &HostError, when: &str) -> CannotStart {
        cannot_start(&self.specs[engine], error, when)
    }

    /// Return a worker after a game; a dead one is dropped.
    pub fn give_back(&self, engine: usize, host: EngineHost) {
        if host.is_alive() {
            self.idle.lock().expect("pool lock")[engine].push(host);
        }
    }

    /// Ask every idle worker to quit (all at once), killing those that do not.
    pub async fn shutdown(&self) {
        let all: Vec<EngineHost> = self
            .idle
            .lock()
            .expect("pool lock")
            .drain(..)
            .flatten()
            .collect();
        let mut quitting = tokio::task::JoinSet::new();
        for h in all {
            quitting.spawn(h.shutdown());
        }
        while quitting.join_next().await.is_some() {}
    }
}

/// The engine of `spec` cannot start (`when`) because of `error`.
fn cannot_start(spec: &WorkerSpec, error: &HostError, when: &str) -> CannotStart {
    CannotStart {
        engine: spec.name.clone(),
        cause: error.to_string(),
        when: when.to_string(),
        log: spec.stderr_log.as_deref().and_then(stderr_log::tail),
    }
}

/// An engine name made safe for a file name.
fn file_name_for(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Resolve the version managers' shims of every engine's command lines
/// ([`crate::host::sandbox::resolve_shim`]): each option whose program is a shim (`python3`
/// from pyenv) gets the program the shim runs for this harness's environment and folder, so
/// the engine runs what the user's shell runs, and `tournament.json` records it (its path, and
/// its file's digest with the engine's). Says each one, with the program's version, on stderr.
pub fn resolve_version_managers(t: &mut Tournament) {
    for e in &mut t.engines {
        for (key, value) in &mut e.options {
            let Some(resolved) = crate::host::sandbox::resolve_shim(value) else {
                continue;
            };
            eprintln!(
                "note: engine `{}`: `{}` in option `{key}` is a {} shim; the engine runs {}{}, as this shell would",
                e.name,
                resolved.word,
                resolved.manager,
                resolved.program.display(),
                resolved
                    .version
                    .as_deref()
                    .map(|v| format!(" ({v})"))
                    .unwrap_or_default()
            );
            *value = resolved.command;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_engine_cannot_start_after_three_failed_attempts_in_a_row() {
        let mut a = StartAttempts::new(2);
        let n: Vec<u64> = (0..6).map(|_| a.begin(0)).collect();
        // 0 fails, 1 succeeds (nothing recorded), 2 and 3 fail: two in a row.
        assert!(!a.failed(0, n[0]));
        assert!(!a.failed(0, n[2]));
        assert!(!a.failed(0, n[3]));
        // 5 fails before 4 ends: not yet three in a row (4 is under way) …
        assert!(!a.failed(0, n[5]));
        // … until 4 fails too, whatever the order the failures came in.
        assert!(a.failed(0, n[4]));
        // Another engine's failures are its own.
        let m: Vec<u64> = (0..2).map(|_| a.begin(1)).collect();
        assert_eq!(m, [0, 1]);
        assert!(!a.failed(1, m[0]) && !a.failed(1, m[1]));
    }
}
