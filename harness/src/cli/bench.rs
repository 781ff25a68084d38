//! `harness bench`: a plugin's signature (total nodes of fixed-depth searches) and speed.

use super::exit;
use super::output::Stdout;
use crate::tools::bench::{BenchSpec, DEFAULT_DEPTH};

/// Search the 16 built-in bench positions at a fixed depth (each after `new_game`, with
/// `Threads = 1`) and print the total nodes, the build's signature, and the nodes per second.
/// The last line reads `bench: N nodes, X nodes/s`.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    engine: super::OnePlugin,
    /// Depth of every search, in plies.
    #[arg(long, default_value_t = DEFAULT_DEPTH, value_parser = clap::value_parser!(u32).range(1..=60))]
    depth: u32,
    #[command(flatten)]
    sandbox: super::SandboxFlag,
}

/// One line per position, then the totals.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let (plugin, options) = args.engine.locate()?;
    let spec = BenchSpec {
        name: args.engine.plugin.clone(),
        plugin,
        options,
        depth: args.depth,
        sandbox: crate::tools::confinement(args.sandbox.mode),
    };
    crate::tools::bench::run(&spec, &mut Stdout)?;
    Ok(exit::SUCCESS)
}
