//! `harness check`: a plugin's compliance suite, a table of passed and failed items.

use super::exit;
use super::output::Stdout;
use crate::tools::check::{CheckSpec, Outcome};
use harness_core::plan::config::rules::{parse_bytes, MIN_MEMORY_LIMIT};

/// Check a plugin's compliance: how fast it stops, depth and node limits, passes and the end of
/// the game, determinism, new_game, option ranges, memory growth, destroy. Prints a table of
/// items; exit code 1 when one fails.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    engine: super::OnePlugin,
    /// Each worker's address-space limit (bytes, or a size such as 512MiB or 4GiB): a plugin
    /// that allocates without end fails its item with the limit named.
    #[arg(long, default_value = "2GiB", value_parser = parse_memory_limit)]
    memory_limit: u64,
    #[command(flatten)]
    sandbox: super::SandboxFlag,
}

/// A `--memory-limit`: a size of at least [`MIN_MEMORY_LIMIT`].
fn parse_memory_limit(text: &str) -> Result<u64, String> {
    let bytes = parse_bytes(text)?;
    if bytes < MIN_MEMORY_LIMIT {
        return Err(format!(
            "{bytes} bytes is below the least a worker needs, {} MiB",
            MIN_MEMORY_LIMIT >> 20
        ));
    }
    Ok(bytes)
}

/// The table on standard output; exit 1 on any failed item.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let (plugin, options) = args.engine.locate()?;
    // The workers' stderr, read for the reason of a crash, then removed.
    let stderr_log = std::env::temp_dir().join(format!("othello-check-{}.log", std::process::id()));
    let spec = CheckSpec {
        name: args.engine.plugin.clone(),
        plugin,
        options,
        memory_limit: args.memory_limit,
        stderr_log: stderr_log.clone(),
        sandbox: args.sandbox.mode,
    };
    let results = crate::tools::check::run(&spec, &mut Stdout);
    let _ = std::fs::remove_file(&stderr_log);
    let failed = results?.iter().any(|(_, o)| matches!(o, Outcome::Fail(_)));
    Ok(if failed { exit::FAILURE } else { exit::SUCCESS })
}
