//! A worker's control groups, made and ended by the coordinator.
//!
//! The coordinator makes a cgroup of its own for each sandboxed worker before the worker
//! starts ([`WorkerCgroup::make`]), and tells the worker where to join (the description's `cgroups`, the
//! folders' `cgroup.procs` files): the worker writes itself in as the first thing it does,
//! before the plugin loads, so everything the plugin starts is born inside, whatever it does
//! with sessions and process groups. The coordinator never takes a cgroup path from a worker.
//!
//! What a cgroup gives, in the order it is looked for:
//! - the end of everything inside at once ([`WorkerCgroup::kill`]): cgroup v2's
//!   `cgroup.kill`; else v1's freezer (freeze, SIGKILL every task, thaw); else a v1 folder's
//!   task list, SIGKILLed until empty;
//! - a cap on tasks, root included: `pids.max` (v2 where the controller is enabled, else v1);
//! - with `memory-limit`, the limit for the worker and all it starts together: v2's
//!   `memory.max`, else v1's `memory.limit_in_bytes`;
//! - a cap on the CPU of the worker and all it starts, at the engine's declared threads and
//!   [`CPU_SLACK_PERCENT`] of a core more: v2's `cpu.max`, else v1's `cpu.cfs_quota_us` (the
//!   kernel's bandwidth control: past its quota in a [`CPU_PERIOD_US`] period, every task
//!   inside waits for the next period).
//!
//! Machines of both cgroup versions are served, also mixed (a v1 hierarchy per controller
//! beside an empty v2 one, where v2 still gives `cgroup.kill`). Making a cgroup needs the right
//! to write the hierarchy (root, or a delegated subtree); where none can be made the worker
//! runs in its process group alone, and [`WorkerCgroup::make`] says what is missing.
//!
//! A killed cgroup's folders are removed once their tasks are gone, by one thread for all the
//! coordinator's workers; the folders of a
//! coordinator killed outright are removed by the next coordinator's first cgroup (same pid
//! namespace, process id no longer alive).

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// The start of a worker cgroup's folder name; the pid namespace, the coordinator's process id
/// and the worker's number follow.
const PREFIX: &str = "othello-harness-";

/// How often, and how many times, the removal of a killed cgroup's folders is tried while its
/// tasks exit (the kernel gives v1 no event for it), by one thread for all of them.
const REMOVAL_INTERVAL: Duration = Duration::from_millis(10);
const REMOVAL_TRIES: u32 = 300;

/// The CPU a worker may use beyond its declared threads, in percent of one core: room for the
/// worker's own reader and writer threads (a 1-thread engine searching flat out is never held
/// back by them), not for another search thread.
pub const CPU_SLACK_PERCENT: u32 = 25;

/// The period of the CPU cap, in microseconds (the kernel's default): the quota is
/// `threads × period + slack` of CPU time in each.
const CPU_PERIOD_US: u64 = 100_000;

/// The CPU cap of `threads` declared threads, in percent of one core.
pub fn cpu_cap_percent(threads: u32) -> u32 {
    threads
        .saturating_mul(100)
        .saturating_add(CPU_SLACK_PERCENT)
}

/// One mounted cgroup hierarchy and this process's folder in it.
#[derive(Clone, Debug)]
struct Hierarchy {
    /// `None` for v2, else v1's controllers (`pids`, `freezer`, `memory`, …).
    controllers: Option<Vec<String>>,
    /// This process's cgroup folder in the hierarchy.
    own: PathBuf,
}

impl Hierarchy {
    fn v1_has(&self, controller: &str) -> bool {
        self.controllers
            .as_ref()
            .is_some_and(|c| c.iter().any(|c| c == controller))
    }
}

/// The hierarchies mounted here, with this process's folder in each, from
/// `/proc/self/mountinfo` (where each is mounted, and which of its folders the mount shows)
/// and `/proc/self/cgroup` (where in each this process is).
fn hierarchies() -> Vec<Hierarchy> {
    let (Ok(mountinfo), Ok(membership)) = (
        std::fs::read_to_string("/proc/self/mountinfo"),
        std::fs::read_to_string("/proc/self/cgroup"),
    ) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for line in mountinfo.lines() {
        let Some((mount, fs)) = line.split_once(" - ") else {
            continue;
        };
        let mut fields = mount.split(' ');
        let (root, mount_point) = (fields.nth(3).unwrap_or("/"), fields.next().unwrap_or(""));
        let mut fs = fs.split(' ');
        let (kind, super_options) = (fs.next(), fs.nth(1).unwrap_or_default());
        let controllers = match kind {
            Some("cgroup2") => None,
            Some("cgroup") => Some(
                super_options
                    .split(',')
                    .filter(|o| ["pids", "freezer", "memory", "cpu"].contains(o))
                    .map(str::to_string)
                    .collect::<Vec<_>>(),
            ),
            _ => continue,
        };
        if controllers.as_ref().is_some_and(Vec::is_empty) {
            continue;
        }
        let path = membership.lines().find_map(|l| {
            let mut parts = l.splitn(3, ':');
            let (_, listed, path) = (parts.next()?, parts.next()?, parts.next()?);
            let matches = match &controllers {
                None => listed.is_empty(),
                Some(wanted) => listed.split(',').any(|c| wanted.iter().any(|w| w == c)),
            };
            matches.then(|| path.to_string())
        });
        let Some(path) = path else {
            continue;
        };
        // The path is the hierarchy's; the mount shows the folder `root` of it.
        let inside = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .trim_start_matches('/');
        found.push(Hierarchy {
            controllers,
            own: Path::new(mount_point).join(inside),
        });
    }
    found
}

/// How [`WorkerCgroup::kill`] ends everything inside.
#[derive(Clone, Debug, PartialEq, Eq)]
enum KillRoute {
    /// v2: write `1` to this `cgroup.kill`.
    V2(PathBuf),
    /// v1: freeze this freezer folder, SIGKILL its tasks, thaw.
    Freezer(PathBuf),
    /// v1 without a freezer: SIGKILL this folder's tasks until none is left.
    EachTask(PathBuf),
}

/// The cgroups of one worker. Dropping it kills what is inside and removes the folders.
#[derive(Debug)]
pub struct WorkerCgroup {
    /// Every folder made, one per hierarchy.
    folders: Vec<PathBuf>,
    kill: KillRoute,
    /// The cap on tasks, where one is set.
    pub pids_cap: Option<u32>,
    /// The memory limit of the whole cgroup in bytes, where one is set.
    pub memory_limit: Option<u64>,
    /// The CPU cap of the whole cgroup in percent of one core, where one is set.
    pub cpu_cap_percent: Option<u32>,
    /// What was asked and could not be had, and why.
    pub missing: Vec<String>,
}

/// This coordinator's name for its worker number `n` (unique on the machine's pid namespace).
fn folder_name(n: usize) -> String {
    format!(
        "{PREFIX}{}-{}-{n}",
        super::scratch::pid_namespace(),
        std::process::id()
    )
}

fn make_folder(parent: &Path, name: &str) -> std::io::Result<PathBuf> {
    let dir = parent.join(name);
    match std::fs::create_dir(&dir) {
        Ok(()) => Ok(dir),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(dir),
        Err(e) => Err(e),
    }
}

impl WorkerCgroup {
    /// Make the cgroups of worker number `n`: a cap of `pids` tasks and, when given, a memory
    /// limit of `memory` bytes and a CPU cap at `cpu_threads` ([`cpu_cap_percent`]). `Err`
    /// says why none could be made.
    pub fn make(
        n: usize,
        pids: u32,
        memory: Option<u64>,
        cpu_threads: Option<u32>,
    ) -> Result<WorkerCgroup, String> {
        let all = hierarchies();
        static SWEPT: std::sync::Once = std::sync::Once::new();
        SWEPT.call_once(|| all.iter().for_each(|h| sweep(&h.own)));
        let name = folder_name(n);
        let mut folders = Vec::new();
        let mut kill = None;
        let (mut pids_cap, mut memory_limit, mut cpu_cap) = (None, None, None);
        let cpu = cpu_threads.map(|threads| {
            let percent = cpu_cap_percent(threads);
            (percent, u64::from(percent) * CPU_PERIOD_US / 100)
        });
        let mut refusals = Vec::new();
        let v2 = all.iter().find(|h| h.controllers.is_none());
        if let Some(h) = v2 {
            match make_folder(&h.own, &name) {
                Ok(dir) => {
                    if dir.join("cgroup.kill").exists() {
                        kill = Some(KillRoute::V2(dir.join("cgroup.kill")));
                    }
                    if std::fs::write(dir.join("pids.max"), pids.to_string()).is_ok() {
                        pids_cap = Some(pids);
                    }
                    if let Some(bytes) = memory {
                        if std::fs::write(dir.join("memory.max"), bytes.to_string()).is_ok() {
                            memory_limit = Some(bytes);
                        }
                    }
                    if let Some((percent, quota)) = cpu {
                        let max = format!("{quota} {CPU_PERIOD_US}");
                        if std::fs::write(dir.join("cpu.max"), max).is_ok() {
                            cpu_cap = Some(percent);
                        }
                    }
                    folders.push(dir);
                }
                Err(e) => refusals.push(format!("{}: {e}", h.own.join(&name).display())),
            }
        }
        let v1 = |controller: &str| all.iter().find(|h| h.v1_has(controller));
        let mut v1_folder = |controller: &str, folders: &mut Vec<PathBuf>| {
            let h = v1(controller)?;
            let dir = h.own.join(&name);
            if folders.contains(&dir) {
                return Some(dir);
            }
            match make_folder(&h.own, &name) {
                Ok(dir) => {
                    folders.push(dir.clone());
                    Some(dir)
                }
                Err(e) => {
                    refusals.push(format!("{}: {e}", dir.display()));
                    None
                }
            }
        };
        if pids_cap.is_none() {
            if let Some(dir) = v1_folder("pids", &mut folders) {
                if std::fs::write(dir.join("pids.max"), pids.to_string()).is_ok() {
                    pids_cap = Some(pids);
                }
            }
        }
        if kill.is_none() {
            if let Some(dir) = v1_folder("freezer", &mut folders) {
                kill = Some(KillRoute::Freezer(dir));
            }
        }
        if let (Some(bytes), None) = (memory, memory_limit) {
            if let Some(dir) = v1_folder("memory", &mut folders) {
                if std::fs::write(dir.join("memory.limit_in_bytes"), bytes.to_string()).is_ok() {
                    memory_limit = Some(bytes);
                }
            }
        }
        if let (Some((percent, quota)), None) = (cpu, cpu_cap) {
            if let Some(dir) = v1_folder("cpu", &mut folders) {
                let period =
                    std::fs::write(dir.join("cpu.cfs_period_us"), CPU_PERIOD_US.to_string());
                if period.is_ok()
                    && std::fs::write(dir.join("cpu.cfs_quota_us"), quota.to_string()).is_ok()
                {
                    cpu_cap = Some(percent);
                }
            }
        }
        let kill = match (kill, folders.first()) {
            (Some(route), _) => route,
            (None, Some(dir)) => KillRoute::EachTask(dir.clone()),
            (None, None) => {
                return Err(if all.is_empty() {
                    "no cgroup hierarchy is mounted".to_string()
                } else {
                    format!("no cgroup can be made: {}", refusals.join("; "))
                })
            }
        };
        let mut missing = Vec::new();
        if pids_cap.is_none() {
            missing.push("no process cap: no pids controller can be used here".to_string());
        }
        if memory.is_some() && memory_limit.is_none() {
            missing.push(
                "no memory cgroup: memory-limit binds each process alone (RLIMIT_AS)".to_string(),
            );
        }
        if cpu.is_some() && cpu_cap.is_none() {
            missing.push(
                "no CPU cap: no cpu controller can be used here (the engine may use more cores than it declares)"
                    .to_string(),
            );
        }
        Ok(WorkerCgroup {
            folders,
            kill,
            pids_cap,
            memory_limit,
            cpu_cap_percent: cpu_cap,
            missing,
        })
    }

    /// The `cgroup.procs` files the worker writes itself into.
    pub fn join_files(&self) -> Vec<PathBuf> {
        self.folders
            .iter()
            .map(|d| d.join("cgroup.procs"))
            .collect()
    }

    /// Whether the process `pid` is in every folder of this cgroup (the coordinator's check
    /// that its worker joined).
    pub fn holds(&self, pid: u32) -> bool {
        let wanted = i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw);
        wanted.is_some_and(|pid| self.folders.iter().all(|dir| tasks_of(dir).contains(&pid)))
    }

    /// How the coordinator ends the cgroup, in words (for `harness check` and the record).
    pub fn kill_route(&self) -> &'static str {
        match self.kill {
            KillRoute::V2(_) => "cgroup.kill",
            KillRoute::Freezer(_) => "freezer",
            KillRoute::EachTask(_) => "task list",
        }
    }

    /// Whether the cgroup's memory limit was hit (an out-of-memory kill inside it).
    pub fn memory_limit_hit(&self) -> bool {
        self.folders.iter().any(|dir| {
            ["memory.events", "memory.oom_control"].iter().any(|file| {
                std::fs::read_to_string(dir.join(file)).is_ok_and(|text| {
                    text.lines().any(|l| {
                        l.strip_prefix("oom_kill ")
                            .and_then(|n| n.trim().parse::<u64>().ok())
                            .is_some_and(|n| n > 0)
                    })
                })
            })
        })
    }

    /// How everything inside is stopped between the engine's turns, where this cgroup can:
    /// v2's `cgroup.freeze` (kernel 5.2), else the v1 freezer folder made for the kill.
    pub fn freezer(&self) -> Option<Freezer> {
        let v2 = self
            .folders
            .iter()
            .find(|dir| dir.join("cgroup.freeze").exists())
            .map(|dir| Freezer::V2(dir.clone()));
        v2.or_else(|| match &self.kill {
            KillRoute::Freezer(dir) => Some(Freezer::V1(dir.clone())),
            _ => None,
        })
    }

    /// SIGKILL everything inside, at once: nothing the worker started survives, whatever
    /// session or process group it made.
    pub fn kill(&self) {
        match &self.kill {
            KillRoute::V2(file) => {
                let _ = std::fs::write(file, "1");
            }
            KillRoute::Freezer(dir) => {
                // Frozen tasks cannot fork; SIGKILL takes them as they thaw.
                let state = dir.join("freezer.state");
                let _ = std::fs::write(&state, "FROZEN");
                kill_tasks(dir);
                let _ = std::fs::write(&state, "THAWED");
            }
            KillRoute::EachTask(dir) => kill_tasks(dir),
        }
    }
}

/// A cgroup's freezer: what stops every task inside at once, whatever process group or
/// session it made, and says when the stop is complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Freezer {
    /// cgroup v2: `1` or `0` to `cgroup.freeze`; `cgroup.events` says `frozen 1` once every
    /// task is stopped.
    V2(PathBuf),
    /// cgroup v1: `FROZEN` or `THAWED` to `freezer.state`, which reads `FREEZING` until every
    /// task is stopped.
    V1(PathBuf),
}

impl Freezer {
    /// Ask for every task inside to stop (`true`) or to go on (`false`).
    pub fn set(&self, frozen: bool) -> std::io::Result<()> {
        match self {
            Freezer::V2(dir) => {
                std::fs::write(dir.join("cgroup.freeze"), if frozen { "1" } else { "0" })
            }
            Freezer::V1(dir) => std::fs::write(
                dir.join("freezer.state"),
                if frozen { "FROZEN" } else { "THAWED" },
            ),
        }
    }

    /// Whether every task inside is stopped, as the kernel reports it.
    pub fn is_frozen(&self) -> bool {
        match self {
            Freezer::V2(dir) => std::fs::read_to_string(dir.join("cgroup.events"))
                .is_ok_and(|e| e.lines().any(|l| l.trim() == "frozen 1")),
            Freezer::V1(dir) => std::fs::read_to_string(dir.join("freezer.state"))
                .is_ok_and(|s| s.trim() == "FROZEN"),
        }
    }

    /// How the route is named in the record and by `harness check`.
    pub fn name(&self) -> &'static str {
        match self {
            Freezer::V2(_) => "cgroup.freeze",
            Freezer::V1(_) => "freezer.state",
        }
    }
}

/// SIGKILL every task listed in `dir`, again while new ones appear (at most 100 rounds: the
/// pids cap bounds how many can be born meanwhile).
fn kill_tasks(dir: &Path) {
    for _ in 0..100 {
        let tasks = tasks_of(dir);
        if tasks.is_empty() {
            return;
        }
        for pid in tasks {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
}

fn tasks_of(dir: &Path) -> Vec<rustix::process::Pid> {
    std::fs::read_to_string(dir.join("cgroup.procs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.trim().parse::<i32>().ok())
        .filter_map(rustix::process::Pid::from_raw)
        .collect()
}

impl Drop for WorkerCgroup {
    /// Kill what is inside, then hand the folders to the remover ([`remove_when_empty`]),
    /// which removes them once their tasks are gone (the caller does not wait).
    fn drop(&mut self) {
        self.kill();
        let removal = Removal {
            folders: std::mem::take(&mut self.folders),
            kill: self.kill.clone(),
            tries: 0,
        };
        static REMOVER: std::sync::OnceLock<mpsc::Sender<Removal>> = std::sync::OnceLock::new();
        let remover = REMOVER.get_or_init(|| {
            let (send, receive) = mpsc::channel();
            let started = std::thread::Builder::new()
                .name("cgroup-remover".to_string())
                .spawn(move || remove_when_empty(&receive));
            if let Err(e) = started {
                eprintln!("note: no thread to remove the workers' cgroups ({e}); the next run's sweep removes them");
            }
            send
        });
        // A failed send (no remover) leaves the folders to the next coordinator's sweep.
        let _ = remover.send(removal);
    }
}

/// A killed worker cgroup whose folders are still to be removed.
struct Removal {
    folders: Vec<PathBuf>,
    kill: KillRoute,
    /// How many times its removal was tried.
    tries: u32,
}

impl Removal {
    /// Try to remove the folders that are left; `true` when none is (or when the last try is
    /// spent: a folder still busy then is left to the next coordinator's sweep).
    fn try_once(&mut self) -> bool {
        self.folders
            .retain(|dir| std::fs::remove_dir(dir).is_err() && dir.exists());
        self.tries += 1;
        if self.folders.is_empty() || self.tries >= REMOVAL_TRIES {
            return true;
        }
        if let KillRoute::EachTask(dir) | KillRoute::Freezer(dir) = &self.kill {
            kill_tasks(dir);
        }
        false
    }
}

/// The one thread that removes every killed worker cgroup of this process: each removal is
/// tried at once and then every [`REMOVAL_INTERVAL`], all pending removals in one pass, so that
/// ending hundreds of workers at once takes this thread alone, not one each.
fn remove_when_empty(queue: &mpsc::Receiver<Removal>) {
    let mut pending: Vec<Removal> = Vec::new();
    loop {
        if pending.is_empty() {
            match queue.recv() {
                Ok(removal) => pending.push(removal),
                Err(_) => return,
            }
        }
        pending.extend(queue.try_iter());
        pending.retain_mut(|removal| !removal.try_once());
        if !pending.is_empty() {
            std::thread::sleep(REMOVAL_INTERVAL);
        }
    }
}

/// Remove the worker cgroups under `parent` of coordinators of this pid namespace that are
/// gone, killing what is left inside first.
fn sweep(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let ours = format!("{PREFIX}{}-", super::scratch::pid_namespace());
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(&ours)) else {
            continue;
        };
        if super::scratch::coordinator_gone(rest) {
            let dir = entry.path();
            let _ = std::fs::write(dir.join("cgroup.kill"), "1");
            kill_tasks(&dir);
            let _ = std::fs::remove_dir(&dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where a cgroup can be made (root, or a delegated subtree), a process put in it is held
    /// by it and ended by its kill, and the folders are gone soon after.
    #[test]
    fn a_process_in_a_worker_cgroup_is_held_and_ended_by_its_kill() {
        let Ok(cgroup) = WorkerCgroup::make(usize::MAX, 64, Some(256 << 20), Some(1)) else {
            return;
        };
        let mut child = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .unwrap();
        for procs in cgroup.join_files() {
            std::fs::write(procs, child.id().to_string()).unwrap();
        }
        assert!(cgroup.holds(child.id()));
        assert!(!cgroup.holds(std::process::id()));
        let folders = cgroup.folders.clone();
        drop(cgroup);
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(child.wait().unwrap().signal(), Some(9));
        let gone = (0..300).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            folders.iter().all(|f| !f.exists())
        });
        assert!(gone, "{folders:?}");
    }

    #[test]
    fn this_process_has_a_folder_in_each_hierarchy_it_finds() {
        for h in hierarchies() {
            assert!(
                h.own.join("cgroup.procs").exists(),
                "{h:?}: no cgroup.procs"
            );
        }
    }
}
