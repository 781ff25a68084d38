//! `harness solve`: exact scores of an OBF file's positions from a plugin, checked.

use super::exit;
use super::output::Stdout;
use crate::tools::solve::SolveArgs;
use std::path::PathBuf;

/// Solve every position of an OBF file exactly with an engine (in a worker process) and
/// check the scores: exit code 1 if one is wrong.
#[derive(clap::Args)]
pub struct Args {
    /// An OBF file: one position per line, with its moves' exact scores (e.g. the FFO suite).
    file: PathBuf,
    /// Plugin: a library path or a bare name (looked up next to the harness binary).
    #[arg(long)]
    engine: String,
    /// Engine option NAME=VALUE (repeatable).
    #[arg(long = "option", value_parser = super::parse_option)]
    options: Vec<(String, String)>,
    /// Sets the engine option `Threads`.
    #[arg(long, value_name = "N")]
    threads: Option<u32>,
    /// Folder where a bare plugin name is looked up.
    #[arg(long)]
    plugin_dir: Option<PathBuf>,
    /// Seconds to wait for one position before giving up.
    #[arg(long, value_name = "SECONDS", default_value = "3600", value_parser = super::parse_seconds, allow_negative_numbers = true)]
    timeout: std::time::Duration,
    #[command(flatten)]
    sandbox: super::SandboxFlag,
}

/// One line per position and the totals on standard output; exit code 1 when a score is wrong.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let solve = SolveArgs {
        file: args.file,
        engine: args.engine,
        plugin_dir: args.plugin_dir,
        options: args.options,
        threads: args.threads,
        timeout: args.timeout,
        sandbox: args.sandbox.mode,
    };
    let summary = crate::tools::solve::run(&solve, &mut Stdout)?;
    Ok(if summary.wrong > 0 {
        exit::FAILURE
    } else {
        exit::SUCCESS
    })
}
