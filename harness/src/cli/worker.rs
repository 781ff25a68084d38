//! `harness worker`: the process an engine runs in, started by the coordinator with its
//! channel on standard input (hidden).

use super::exit;
use crate::host::sandbox::Confinement;
use crate::host::worker::Setup;
use std::path::PathBuf;

/// Internal: an engine worker process (started by the coordinator).
#[derive(clap::Args)]
pub struct Args {
    /// The coordinator's process id (the worker's parent; also what marks a run's workers in
    /// a process list).
    #[arg(long)]
    coordinator: u32,
    /// The plugin library to load.
    #[arg(long)]
    plugin: PathBuf,
    /// Address-space limit in bytes, set before the plugin loads.
    #[arg(long)]
    memory_limit: Option<u64>,
    /// A `cgroup.procs` file of a cgroup the coordinator made for this worker, joined before
    /// the plugin loads (repeated).
    #[arg(long)]
    cgroup: Vec<PathBuf>,
    /// Confine the worker before the plugin loads: `strict` (what the kernel enforces) or
    /// `required` (refuse to load where it cannot enforce it all). Absent: no sandbox.
    #[arg(long, value_parser = ["strict", "required"], requires = "scratch")]
    sandbox: Option<String>,
    /// The largest file the worker and what it starts may write, in bytes (`RLIMIT_FSIZE`),
    /// set before the plugin loads.
    #[arg(long)]
    file_size_limit: Option<u64>,
    /// The sandbox's scratch folder (its only writable place by default).
    #[arg(long)]
    scratch: Option<PathBuf>,
    /// A file or folder the sandboxed engine may read and execute (repeated).
    #[arg(long)]
    sandbox_read: Vec<PathBuf>,
    /// A file or folder the sandboxed engine may write (repeated).
    #[arg(long)]
    sandbox_write: Vec<PathBuf>,
}

/// Serve the coordinator until it says quit or goes away.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let sandbox = args.sandbox.zip(args.scratch).map(|(mode, scratch)| {
        let confinement = Confinement {
            required: mode == "required",
            read: args.sandbox_read,
            write: args.sandbox_write,
            // The coordinator chose the environment and checks the disk; the worker has the one
            // already and sets its per-file guard from --file-size-limit.
            env: Vec::new(),
            disk_limit: 0,
            cpu_threads: None,
            log_limit: 0,
        };
        (confinement, scratch)
    });
    crate::host::worker::run(&Setup {
        coordinator: args.coordinator,
        plugin: args.plugin,
        cgroups: args.cgroup,
        memory_limit: args.memory_limit,
        file_size_limit: args.file_size_limit,
        sandbox,
    })?;
    Ok(exit::SUCCESS)
}
