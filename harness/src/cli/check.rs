//! `harness check`: a plugin's compliance suite, a table of passed and failed items.

use super::output::Stdout;
use crate::stats::verdict::exit;
use crate::tools::check::{CheckSpec, Outcome};

/// Check a plugin's compliance: how fast it stops, depth and node limits, passes and the end of
/// the game, determinism, new_game, option ranges, memory growth. Prints a table of items;
/// exit code 1 when one fails.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    engine: super::OnePlugin,
}

/// The table on standard output; exit 1 on any failed item.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let (plugin, options) = args.engine.locate()?;
    let spec = CheckSpec {
        name: args.engine.plugin.clone(),
        plugin,
        options,
    };
    let results = crate::tools::check::run(&spec, &mut Stdout)?;
    let failed = results.iter().any(|(_, o)| matches!(o, Outcome::Fail(_)));
    Ok(if failed { exit::FAILURE } else { exit::SUCCESS })
}
