//! Starting a worker: its command line (the sandbox's arguments, its scratch folder and
//! cgroups), the process itself, and the handshake that ends with the plugin loaded, the
//! sandbox's report checked against what the coordinator made, and the options set.

use super::{read_events, EngineHost, HostError, EVENT_QUEUE, STARTUP_TIMEOUT};
use crate::host::plugin::PluginInfo;
use crate::host::protocol::{ProbeTargets, Reply, Request};
use crate::host::sandbox::{
    self, cgroup::WorkerCgroup, scratch::Scratch, Confinement, Enforced, Probed,
};
use crate::host::system;
use crate::host::turns::{BetweenTurns, TurnGate};
use crate::host::worker_description::{
    SelfConfinement, WorkerDescription, CHANNEL_ON_STANDARD_INPUT,
};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;
use tokio::io::BufReader;
use tokio::process::Command;
use tokio::sync::mpsc;

/// Numbers the workers of this coordinator (their scratch folders' and cgroups' names).
static WORKER_COUNTER: AtomicUsize = AtomicUsize::new(0);

/// How to start a worker.
#[derive(Clone, Debug)]
pub struct WorkerSpec {
    pub name: String,
    pub plugin: PathBuf,
    pub options: Vec<(String, String)>,
    /// Where the worker's stderr goes (appended); `None` discards it.
    pub stderr_log: Option<PathBuf>,
    /// The worker's memory limit in bytes: `RLIMIT_AS` of each process, and the limit of its
    /// whole cgroup where one is made (a sandboxed worker).
    pub memory_limit: Option<u64>,
    /// The worker's sandbox (`None`: off). The plugin file and the paths named by `options`
    /// are added to what it may read.
    pub sandbox: Option<Confinement>,
    /// Whether the worker is stopped between its turns ([`crate::host::turns`]).
    pub between_turns: BetweenTurns,
}

/// The worker's supervisor for `spec` ([`crate::host::supervisor`]): the harness binary itself,
/// with `channel` (its end of the socket pair) as standard input, its stderr to `stderr`, in
/// the coordinator's process group (it is not stopped between turns; it starts the worker in a
/// group of its own). After `--` come the worker's `--coordinator PID` and its description. A
/// sandboxed worker runs in its scratch folder, with the sandbox's environment, in namespaces
/// of its own where the system gives them, and joins `cgroup` first thing.
fn worker_command(
    exe: &Path,
    spec: &WorkerSpec,
    (channel, channel_out, stderr, log_start): (Stdio, Stdio, Stdio, u64),
    scratch: Option<&Scratch>,
    cgroup: Option<&WorkerCgroup>,
) -> Command {
    let description = describe_the_worker(spec, log_start, scratch, cgroup);
    let coordinator = description.coordinator.to_string();
    let namespaces = match (&spec.sandbox, scratch) {
        (Some(confinement), Some(scratch)) => {
            Some((scratch.path(), confinement.disk_limit.max(1 << 20)))
        }
        _ => None,
    };
    let mut command = system::launcher(exe, &coordinator, namespaces);
    command
        .arg("--coordinator")
        .arg(&coordinator)
        .arg(description.to_argument())
        .stdin(channel)
        .stdout(channel_out)
        .stderr(stderr)
        .kill_on_drop(true);
    if let (Some(confinement), Some(scratch)) = (&spec.sandbox, scratch) {
        command
            .current_dir(scratch.path())
            .env_clear()
            .envs(sandbox::environment(&confinement.env));
        for variable in system::SCRATCH_VARIABLES {
            command.env(variable, scratch.path());
        }
    }
    command
}

/// What the worker for `spec` is told ([`WorkerDescription`]). A sandboxed worker may read its
/// plugin, the paths its options name and the engine's `sandbox-read`, and no file it writes
/// may pass the disk limit (a log it appends to counts from `log_start`, its length).
fn describe_the_worker(
    spec: &WorkerSpec,
    log_start: u64,
    scratch: Option<&Scratch>,
    cgroup: Option<&WorkerCgroup>,
) -> WorkerDescription {
    // Absolute: a sandboxed worker runs in its scratch folder, not in the coordinator's.
    let plugin = std::path::absolute(&spec.plugin).unwrap_or_else(|_| spec.plugin.clone());
    let sandbox = spec.sandbox.as_ref().zip(scratch);
    WorkerDescription {
        coordinator: std::process::id(),
        channel: CHANNEL_ON_STANDARD_INPUT,
        cgroups: cgroup.map(WorkerCgroup::join_files).unwrap_or_default(),
        memory_limit: spec.memory_limit,
        file_size_limit: sandbox
            .map(|(confinement, _)| log_start.saturating_add(confinement.disk_limit)),
        sandbox: sandbox.map(|(confinement, scratch)| {
            let plugin = plugin.canonicalize().unwrap_or_else(|_| plugin.clone());
            SelfConfinement {
                required: confinement.required,
                scratch: scratch.path().to_path_buf(),
                read: std::iter::once(plugin)
                    .chain(sandbox::option_paths(&spec.options))
                    .chain(confinement.read.iter().cloned())
                    .collect(),
                write: confinement.write.clone(),
            }
        }),
        plugin,
    }
}

/// Say once per process, on stderr, that the kernel enforced less of the sandbox than asked.
fn warn_of_a_partial_sandbox(engine: &str, enforced: &Enforced) {
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        eprintln!(
            "warning: engine `{engine}`: {} enforces only part of the sandbox ({enforced}: {}); engines run with what is available (sandbox = \"required\" refuses to)",
            system::SANDBOX_ENFORCER,
            enforced.missing.join("; ")
        );
    });
}

impl EngineHost {
    /// Start a worker for `spec`, wait for its plugin to load and set the options.
    pub async fn spawn(spec: &WorkerSpec) -> Result<EngineHost, HostError> {
        Ok(Self::spawn_with(spec, None).await?.0)
    }

    /// [`EngineHost::spawn`], with the sandbox probe `targets` tried by the worker before its
    /// plugin loads (`harness check`): the worker, and what its sandbox refused.
    pub async fn spawn_probing(
        spec: &WorkerSpec,
        targets: ProbeTargets,
    ) -> Result<(EngineHost, Probed), HostError> {
        let (host, probed) = Self::spawn_with(spec, Some(targets)).await?;
        let probed = probed.expect("a worker asked to probe answers, or spawning fails");
        Ok((host, probed))
    }

    async fn spawn_with(
        spec: &WorkerSpec,
        probe: Option<ProbeTargets>,
    ) -> Result<(EngineHost, Option<Probed>), HostError> {
        let engine = spec.name.clone();
        let spawn_err = |message: String| HostError::Spawn {
            engine: engine.clone(),
            message,
        };
        let exe = std::env::current_exe().map_err(|e| spawn_err(e.to_string()))?;
        if let Some(confinement) = &spec.sandbox {
            let closed = sandbox::closed_installations(&spec.options, &confinement.read);
            if let Some(first) = closed.first() {
                return Err(spawn_err(sandbox::describe_closed(first)));
            }
        }
        let n = WORKER_COUNTER.fetch_add(1, Ordering::Relaxed);
        let (scratch, cgroup) = match &spec.sandbox {
            Some(confinement) => {
                let scratch = Scratch::make(n).map_err(|e| {
                    spawn_err(format!("cannot make the worker's scratch folder: {e}"))
                })?;
                let (memory, cpu) = (spec.memory_limit, confinement.cpu_threads);
                let cgroup = WorkerCgroup::make(n, sandbox::PROCESS_CAP, memory, cpu)
                    .map_err(|why| note_no_cgroup(&engine, &why))
                    .ok();
                (Some(scratch), cgroup)
            }
            None => (None, None),
        };
        let (ours, channel, channel_out) = system::Channel::make()
            .map_err(|e| spawn_err(format!("cannot make the worker's channel: {e}")))?;
        // A sandboxed worker writes its stderr into a pipe the coordinator copies from, up to
        // its log-limit; any other into the log file itself.
        let (stderr, log_start, copied) = match (&spec.stderr_log, &spec.sandbox) {
            (Some(path), sandbox) => {
                let file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .map_err(|e| spawn_err(format!("{}: {e}", path.display())))?;
                let start = file.metadata().map_or(0, |m| m.len());
                match sandbox {
                    Some(c) => (Stdio::piped(), start, Some((file, c.log_limit))),
                    None => (Stdio::from(file), start, None),
                }
            }
            (None, _) => (Stdio::null(), 0, None),
        };
        // The command (and with it this process's copy of the worker's end) is dropped at the
        // end of the statement: the channel closes when the worker is gone.
        // The worker writes no log file of its own when its stderr is copied.
        let written_from = if copied.is_some() { 0 } else { log_start };
        let mut child = worker_command(
            &exe,
            spec,
            (channel, channel_out, stderr, written_from),
            scratch.as_ref(),
            cgroup.as_ref(),
        )
        .spawn()
        .map_err(|e| spawn_err(e.to_string()))?;
        let group = system::Group::hold(&child, spec.memory_limit, sandbox::PROCESS_CAP)
            .map_err(|e| spawn_err(format!("cannot hold the worker in a job object: {e}")))?;
        let log_copier = match (copied, child.stderr.take()) {
            (Some((file, limit)), Some(pipe)) => {
                Some(crate::host::stderr_log::copy_into(pipe, file, limit))
            }
            _ => None,
        };
        let (read_half, writer) = ours
            .connect(&mut child)
            .map_err(|e| spawn_err(format!("the worker's channel: {e}")))?;
        let (tx, events) = mpsc::channel(EVENT_QUEUE);
        let reader = tokio::spawn(read_events(BufReader::new(read_half), tx, engine.clone()));
        let host = EngineHost {
            name: spec.name.clone(),
            // Both from the supervisor's first message, in `greet` (or the job made here).
            worker: None,
            group,
            stderr_log: spec.stderr_log.clone(),
            log_start,
            log_copier,
            memory_limit: spec.memory_limit,
            plugin: PluginInfo {
                path: spec.plugin.clone(),
                name: String::new(),
                version: String::new(),
                author: String::new(),
                abi_major: 0,
                abi_minor: 0,
                options: Vec::new(),
            },
            child,
            writer,
            events,
            reader,
            alive: true,
            searches: 0,
            tokens: std::hash::RandomState::new(),
            sandbox: None,
            scratch,
            disk_limit: spec.sandbox.as_ref().map(|c| c.disk_limit),
            disk_checked: Instant::now(),
            cgroup,
            gate: TurnGate::new(None, None, None, BetweenTurns::Runs("not started")),
        };
        host.greet(spec, probe).await
    }

    /// The worker's first message (its plugin loaded, or why not), then every option set.
    async fn greet(
        mut self,
        spec: &WorkerSpec,
        probe: Option<ProbeTargets>,
    ) -> Result<(EngineHost, Option<Probed>), HostError> {
        let engine = spec.name.clone();
        let probing = probe.is_some();
        let (namespaces, missing) = self.meet_the_supervisor(spec, probe).await?;
        let mut first = self.next_event(STARTUP_TIMEOUT).await;
        if spec.sandbox.is_some() {
            // The sandbox's report comes before the plugin loads, or the worker failed.
            match first {
                Ok(Reply::Confined { enforced }) => {
                    let mut enforced = *enforced;
                    if namespaces.is_empty() {
                        note_no_namespaces(&engine, &missing);
                    }
                    enforced.namespaces = namespaces;
                    enforced.missing.extend(missing);
                    self.add_what_the_cgroup_holds(&mut enforced);
                    if !enforced.confines_fully() {
                        warn_of_a_partial_sandbox(&engine, &enforced);
                    }
                    self.sandbox = Some(enforced);
                    first = self.next_event(STARTUP_TIMEOUT).await;
                }
                Ok(Reply::Failed { .. }) | Err(_) => {}
                Ok(other) => {
                    self.kill().await;
                    return Err(HostError::Load {
                        engine,
                        message: format!("a sandboxed worker's first message was {other:?}"),
                    });
                }
            }
        }
        let probed = match (probing, first) {
            (true, Ok(Reply::Probed(probed))) => {
                first = self.next_event(STARTUP_TIMEOUT).await;
                Some(*probed)
            }
            (_, other) => {
                first = other;
                None
            }
        };
        if probing && probed.is_none() && matches!(first, Ok(Reply::Hello { .. })) {
            self.kill().await;
            return Err(HostError::Load {
                engine,
                message: "the worker loaded the plugin without the probe it was asked for"
                    .to_string(),
            });
        }
        match first {
            Ok(Reply::Hello { plugin }) => {
                // The path is the coordinator's, and the sandbox's report came before the
                // plugin could speak: a worker's word on either is not taken here.
                self.plugin = PluginInfo {
                    path: spec.plugin.clone(),
                    ..plugin
                };
            }
            Ok(Reply::Failed { message }) => {
                self.kill().await;
                return Err(HostError::Load { engine, message });
            }
            Ok(other) => {
                self.kill().await;
                return Err(HostError::Load {
                    engine,
                    message: format!("unexpected first message {other:?}"),
                });
            }
            Err(e) => {
                return Err(HostError::Load {
                    engine,
                    message: format!("while loading {}: {e}", spec.plugin.display()),
                })
            }
        }
        for (name, value) in &spec.options {
            self.call(Request::SetOption {
                name: name.clone(),
                value: value.clone(),
            })
            .await
            .map_err(|e| match e {
                HostError::EngineError { message, .. } => HostError::Option {
                    engine: engine.clone(),
                    message,
                },
                other => other,
            })?;
        }
        // Started: from here on the worker runs only on its turns.
        self.gate.end_turn().await;
        Ok((self, probed))
    }

    /// The supervisor's message, the channel's first: which process is the worker and its
    /// group (the turn gate's), and what was made of its namespaces and what not; then
    /// `Begin`, after which the worker speaks.
    async fn meet_the_supervisor(
        &mut self,
        spec: &WorkerSpec,
        probe: Option<ProbeTargets>,
    ) -> Result<(Vec<String>, Vec<String>), HostError> {
        let supervising = if system::SUPERVISED {
            self.next_event(STARTUP_TIMEOUT).await?
        } else {
            // Started directly: the worker is the child, and it has no namespaces.
            Reply::Supervising {
                worker: self.child.id().unwrap_or(0),
                group: None,
                namespaces: Vec::new(),
                missing: vec!["namespaces: none on this system".to_string()],
            }
        };
        let Reply::Supervising {
            worker,
            group,
            namespaces,
            missing,
        } = supervising
        else {
            self.kill().await;
            return Err(HostError::Load {
                engine: spec.name.clone(),
                message: format!("the supervisor's first message was {supervising:?}"),
            });
        };
        self.worker = Some(worker);
        if let Some(announced) = group.and_then(system::Group::of) {
            self.group = Some(announced);
        }
        self.gate = TurnGate::new(
            Some(worker),
            self.group.clone().filter(system::Group::stops),
            self.cgroup.as_ref(),
            spec.between_turns,
        );
        let begun =
            crate::host::protocol::send_async(&mut self.writer, &Request::Begin { probe }).await;
        if let Err(e) = begun {
            let e = HostError::Spawn {
                engine: spec.name.clone(),
                message: format!("cannot write to the worker: {e}"),
            };
            return Err(self.die(e).await);
        }
        Ok((namespaces, missing))
    }

    /// What the coordinator's own cgroups (or, without one, the supervisor's namespaces) hold
    /// of this worker, in `enforced` (a worker's word on its cgroup is not taken): the process
    /// cap and how the worker's processes end, where the worker is in its cgroup; what is
    /// missing otherwise.
    fn add_what_the_cgroup_holds(&self, enforced: &mut Enforced) {
        enforced.process_cap = None;
        enforced.contained_by = None;
        let made = |piece: &str| enforced.namespaces.iter().any(|n| n == piece);
        let Some(cgroup) = &self.cgroup else {
            // Where its namespaces hold it, the end of their init ends everything; a job
            // object (Windows) holds everything the worker starts, and caps their number.
            if let (Some(job), Some(_)) = (system::CONTAINER, &self.group) {
                enforced.contained_by = Some(job.to_string());
                enforced.process_cap = Some(sandbox::PROCESS_CAP);
                enforced
                    .missing
                    .push("no cgroup: its CPU is not capped".to_string());
            } else if made("pid") {
                enforced.contained_by = Some("pid namespace".to_string());
                if made("task cap") {
                    enforced.process_cap = Some(sandbox::PROCESS_CAP);
                }
                enforced.missing.push(
                    "no cgroup: memory-limit caps each process, not the worker as a whole, and its CPU is not capped"
                        .to_string(),
                );
            } else {
                enforced.missing.push(format!(
                    "no cgroup: what the engine starts is ended {}, and its CPU is not capped",
                    system::ENDED_WITHOUT_CGROUP
                ));
            }
            return;
        };
        let pid = self.worker.unwrap_or(0);
        if !cgroup.holds(pid) {
            enforced
                .missing
                .push("the worker is not in the cgroup made for it".to_string());
            return;
        }
        enforced.process_cap = cgroup.pids_cap;
        enforced.cpu_cap_percent = cgroup.cpu_cap_percent;
        enforced.contained_by = Some(cgroup.kill_route().to_string());
        enforced.missing.extend(cgroup.missing.iter().cloned());
    }
}

/// Say once per process, on stderr, that a sandboxed worker got no namespaces of its own (the
/// record says so too, for every worker).
fn note_no_namespaces(engine: &str, missing: &[String]) {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        eprintln!(
            "note: engine `{engine}`: {}",
            missing
                .first()
                .map_or("no namespaces of its own", String::as_str)
        );
    });
}

/// Say once per process, on stderr, that no cgroup could be made for a sandboxed worker (the
/// record says so too, for every worker).
fn note_no_cgroup(engine: &str, why: &str) {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        eprintln!(
            "note: engine `{engine}`: {why}; the processes an engine starts are ended {}",
            system::ENDED_WITHOUT_CGROUP
        );
    });
}
