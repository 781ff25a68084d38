//! Control groups on a system other than Linux: there are none, so no cgroup is ever made
//! ([`WorkerCgroup::make`] refuses with the reason) and nothing can hold one. The coordinator
//! then contains a worker by its process group alone, and records the reason as missing.

use std::path::PathBuf;

/// A worker's cgroups, of which this system has none: never made, so its methods are never
/// reached with anything in them.
#[derive(Debug)]
pub struct WorkerCgroup {
    pub pids_cap: Option<u32>,
    pub memory_limit: Option<u64>,
    pub cpu_cap_percent: Option<u32>,
    pub missing: Vec<String>,
}

impl WorkerCgroup {
    /// Refused: the reason is what the sandbox records as missing.
    pub fn make(
        _n: usize,
        _pids: u32,
        _memory: Option<u64>,
        _cpu_threads: Option<u32>,
    ) -> Result<WorkerCgroup, String> {
        Err(
            "no cgroups on this system: no cap on the worker's tasks, memory or CPU as a whole"
                .to_string(),
        )
    }

    pub fn join_files(&self) -> Vec<PathBuf> {
        Vec::new()
    }

    pub fn holds(&self, _pid: u32) -> bool {
        false
    }

    pub fn kill_route(&self) -> &'static str {
        "none"
    }

    pub fn memory_limit_hit(&self) -> bool {
        false
    }

    pub fn freezer(&self) -> Option<Freezer> {
        None
    }

    pub fn kill(&self) {}
}

/// A cgroup's freezer, of which this system has none (no value of it exists).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Freezer {}

impl Freezer {
    pub fn set(&self, _frozen: bool) -> std::io::Result<()> {
        match *self {}
    }

    pub fn is_frozen(&self) -> bool {
        match *self {}
    }

    pub fn name(&self) -> &'static str {
        match *self {}
    }
}
