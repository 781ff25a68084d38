//! `harness supervise`: the process between the coordinator and a worker, and the init of a
//! worker's namespaces (hidden; [`crate::host::supervisor`]).

use super::exit;
use crate::host::supervisor::{self, Supervision};
use std::ffi::OsString;
use std::path::PathBuf;

/// Internal: a worker's supervisor (started by the coordinator), or its namespaces' init.
#[derive(clap::Args)]
pub struct Args {
    /// The coordinator's process id (the supervisor's parent).
    #[arg(long, required_unless_present = "init")]
    coordinator: Option<u32>,
    /// Run the worker in namespaces of its own, with a `tmpfs` of `--scratch-size` bytes on
    /// its scratch folder (where the system gives them; the worker says what was made).
    #[arg(long, requires_all = ["scratch", "scratch_size"])]
    namespaces: bool,
    /// Be the init of the namespaces (PID 1), started by the supervisor.
    #[arg(long, requires_all = ["scratch", "scratch_size"])]
    init: bool,
    /// The worker's scratch folder.
    #[arg(long)]
    scratch: Option<PathBuf>,
    /// The size of the scratch folder's `tmpfs`, in bytes.
    #[arg(long)]
    scratch_size: Option<u64>,
    /// The worker's flags (`harness worker …`).
    #[arg(last = true)]
    worker: Vec<OsString>,
}

/// Supervise a worker until it ends (or be its namespaces' init); the exit repeats the
/// worker's.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let scratch = args.scratch.zip(args.scratch_size);
    if args.init {
        let (scratch, size) = scratch.expect("clap requires both with --init");
        supervisor::init(&scratch, size, &args.worker)?;
    } else {
        supervisor::run(&Supervision {
            coordinator: args.coordinator.expect("clap requires it without --init"),
            namespaces: scratch.filter(|_| args.namespaces),
            worker: args.worker,
        })?;
    }
    Ok(exit::SUCCESS)
}
