//! `harness worker`: the process an engine runs in, started by the coordinator (hidden).

use super::exit;
use std::path::PathBuf;

/// Internal: an engine worker process (started by the coordinator).
#[derive(clap::Args)]
pub struct Args {
    /// The coordinator's Unix socket to connect to.
    #[arg(long)]
    connect: PathBuf,
    /// The plugin library to load.
    #[arg(long)]
    plugin: PathBuf,
    /// Address-space limit in bytes, set before the plugin loads.
    #[arg(long)]
    memory_limit: Option<u64>,
}

/// Serve the coordinator until it says quit or goes away.
pub fn run(args: Args) -> anyhow::Result<i32> {
    crate::host::worker::run(&args.connect, &args.plugin, args.memory_limit)?;
    Ok(exit::SUCCESS)
}
