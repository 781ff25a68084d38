//! What a worker is told to be: one typed description, written by the coordinator
//! ([`super::engine_host`]) and read by `harness worker`, so that the two sides cannot drift
//! apart through a hand-written command line.
//!
//! It travels as one argument, JSON, after `worker --coordinator PID` (the process list shows
//! which coordinator a worker belongs to from that prefix alone: the tests and the hostile
//! plugins look for it). The coordinator's id appears twice, in the prefix and in the
//! description; the worker refuses a description whose id differs.
//!
//! The coordinator-side settings of a sandbox ([`super::sandbox::Confinement`]: the
//! environment, the disk and log limits, the CPU cap) stay with the coordinator, which applies
//! them from outside; the description holds only what the worker does to itself before the
//! plugin loads.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Everything `harness worker` needs, in the order it uses it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorkerDescription {
    /// The coordinator's process id (what marks a run's workers in a process list, and what
    /// the sandbox probe signals).
    pub coordinator: u32,
    /// The descriptor the channel to the coordinator is on: the worker's standard input (0),
    /// where the supervisor puts it ([`super::supervisor`]).
    pub channel: i32,
    /// The plugin library to load (absolute: a sandboxed worker runs in its scratch folder).
    pub plugin: PathBuf,
    /// The `cgroup.procs` files of the cgroups the coordinator made for this worker, joined
    /// before the plugin loads.
    pub cgroups: Vec<PathBuf>,
    /// The address-space limit in bytes (`RLIMIT_AS`), set before the plugin loads.
    pub memory_limit: Option<u64>,
    /// The largest file the worker and what it starts may write, in bytes (`RLIMIT_FSIZE`).
    pub file_size_limit: Option<u64>,
    /// The sandbox the worker confines itself to before the plugin loads (`None`: off).
    pub sandbox: Option<SelfConfinement>,
}

/// The part of a sandbox a worker applies to itself ([`super::sandbox::confine`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SelfConfinement {
    /// Refuse to load the plugin where the system cannot enforce all of it (`required`);
    /// otherwise run with what it enforces (`strict`).
    pub required: bool,
    /// The scratch folder: the worker's working folder and its one writable place by default.
    pub scratch: PathBuf,
    /// Files and folders the engine may read and execute, beyond the system's.
    pub read: Vec<PathBuf>,
    /// Files and folders the engine may write, beyond the scratch folder.
    pub write: Vec<PathBuf>,
}

/// The channel's descriptor on systems where the supervisor hands it over as standard input.
pub const CHANNEL_ON_STANDARD_INPUT: i32 = 0;

impl WorkerDescription {
    /// The description as the one argument after `worker --coordinator PID`.
    pub fn to_argument(&self) -> String {
        serde_json::to_string(self).expect("a worker description is plain data")
    }

    /// Read the argument of a worker started by the coordinator `coordinator`.
    pub fn from_argument(coordinator: u32, argument: &str) -> Result<Self, String> {
        let description: WorkerDescription = serde_json::from_str(argument).map_err(|e| {
            format!("the worker's description is not one this harness writes ({e}): `harness worker` is started by the harness only")
        })?;
        if description.coordinator != coordinator {
            return Err(format!(
                "the worker's description is for coordinator {}, not {coordinator}",
                description.coordinator
            ));
        }
        Ok(description)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandboxed() -> WorkerDescription {
        WorkerDescription {
            coordinator: 4242,
            channel: CHANNEL_ON_STANDARD_INPUT,
            plugin: PathBuf::from("/opt/engines/libstrong.so"),
            cgroups: vec![PathBuf::from("/sys/fs/cgroup/arena/w3/cgroup.procs")],
            memory_limit: Some(1 << 30),
            file_size_limit: Some(1 << 20),
            sandbox: Some(SelfConfinement {
                required: true,
                scratch: PathBuf::from("/tmp/arena-scratch-3"),
                read: vec![PathBuf::from("/opt/engines/weights dir/eval.bin")],
                write: vec![],
            }),
        }
    }

    /// What the coordinator writes is what the worker reads, paths with spaces included.
    #[test]
    fn a_description_reads_back_as_written() {
        let description = sandboxed();
        let argument = description.to_argument();
        assert_eq!(
            WorkerDescription::from_argument(4242, &argument),
            Ok(description)
        );
    }

    /// A description for another coordinator, or one that is not a description, is refused
    /// with the reason.
    #[test]
    fn a_stranger_s_description_is_refused() {
        let argument = sandboxed().to_argument();
        let err = WorkerDescription::from_argument(7, &argument).unwrap_err();
        assert!(err.contains("for coordinator 4242, not 7"), "{err}");
        let err = WorkerDescription::from_argument(4242, "--plugin x.so").unwrap_err();
        assert!(err.contains("started by the harness only"), "{err}");
    }
}
