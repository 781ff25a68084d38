//! `harness worker`: the process an engine runs in, started by the coordinator with its
//! channel on standard input (hidden).

use super::exit;
use crate::host::sandbox::Confinement;
use crate::host::worker::Setup;
use std::path::PathBuf;

/// Internal: an engine worker process (started by the coordinator).
#[derive(clap::Args)]
pub struct Args {
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
            // The coordinator chose the environment; the worker has it already.
            env: Vec::new(),
        };
        (confinement, scratch)
    });
    crate::host::worker::run(&Setup {
        plugin: args.plugin,
        cgroups: args.cgroup,
        memory_limit: args.memory_limit,
        sandbox,
    })?;
    Ok(exit::SUCCESS)
}
