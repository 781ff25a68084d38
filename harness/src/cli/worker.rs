//! `harness worker`: the process an engine runs in, started by the coordinator's supervisor
//! with its channel on standard input (hidden). Its one argument after `--coordinator PID` is
//! its description ([`crate::host::worker_description`]).

use super::exit;
use crate::host::worker_description::WorkerDescription;

/// Internal: an engine worker process (started by the coordinator).
#[derive(clap::Args)]
pub struct Args {
    /// The coordinator's process id (the worker's mark in a process list).
    #[arg(long)]
    coordinator: u32,
    /// The worker's description, as JSON (written by the coordinator).
    description: String,
}

/// Serve the coordinator until it says quit or goes away.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let description = WorkerDescription::from_argument(args.coordinator, &args.description)
        .map_err(anyhow::Error::msg)?;
    crate::host::worker::run(&description)?;
    Ok(exit::SUCCESS)
}
