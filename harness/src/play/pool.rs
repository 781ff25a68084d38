//! The workers of a run: one [`WorkerSpec`] per engine, and a pool of idle workers.
//!
//! Workers are reused across games: a game borrows one idle worker per engine (or starts one)
//! and gives it back afterwards if it is still healthy, so a failed worker is replaced by a
//! fresh one. Before the first game every engine is started once and asked to begin a game
//! ([`WorkerPool::start`]), so a missing plugin, a plugin of the wrong ABI version, a bad option
//! or an engine that cannot play stops the run with a clear error before anything is written.

use crate::host::engine_host::WorkerSpec;
use crate::host::sandbox::{Confinement, Enforced};
use crate::host::{EngineHost, HostError};
use crate::plan::config::{Sandbox, SandboxMode, Tournament};
use anyhow::bail;
use std::path::Path;
use std::sync::Mutex;

/// The adjudication solver's display name (in its messages and its stderr log's name).
pub const SOLVER_NAME: &str = "adjudication-solver";

/// Idle workers per engine index (the adjudication solver, if any, is the last index). The lock is never held across an await.
pub struct WorkerPool {
    specs: Vec<WorkerSpec>,
    idle: Mutex<Vec<Vec<EngineHost>>>,
    /// What the kernel enforced of each engine's first worker's sandbox, by name (`None`:
    /// the sandbox is off).
    enforced: Vec<(String, Option<Enforced>)>,
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
                sandbox: confinement(&e.sandbox),
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
                sandbox: confinement(&Sandbox {
                    mode: t.sandbox,
                    ..Sandbox::default()
                }),
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
                    enforced.push((spec.name.clone(), host.sandbox.clone()));
                    idle.push(vec![host]);
                }
                Err(e) => return Err(anyhow::Error::new(e).context(t.source.clone())),
            }
        }
        Ok(WorkerPool {
            specs,
            idle: Mutex::new(idle),
            enforced,
        })
    }

    /// What the kernel enforced of each engine's sandbox (the adjudication solver last).
    pub fn enforced(&self) -> &[(String, Option<Enforced>)] {
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

/// The worker sandbox of an engine's setting (`None`: `sandbox = "off"`).
pub fn confinement(sandbox: &Sandbox) -> Option<Confinement> {
    (sandbox.mode != SandboxMode::Off).then(|| Confinement {
        required: sandbox.mode == SandboxMode::Required,
        read: sandbox.read.clone(),
        write: sandbox.write.clone(),
        env: sandbox.env.clone(),
        disk_limit: sandbox
            .disk_limit
            .unwrap_or(crate::host::sandbox::DISK_LIMIT),
    })
}
