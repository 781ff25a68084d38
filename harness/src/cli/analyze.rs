//! `harness analyze`: where a run's games were lost, from exact solves (`tools::analyze`).

use super::exit;
use super::output::{say, say_raw};
use crate::show::table;
use crate::tools::analyze::AnalyzeArgs;
use harness_core::record::analysis::ANALYSIS_FILE;
use harness_core::stats::analysis::{engine_errors, solver_part};
use std::path::PathBuf;
use std::time::Duration;

/// Solve every position of a run's games from N empties to the end with an exact solver, score
/// each move played against the exact values, and write analysis.jsonl and the reports; a
/// killed analysis resumes from the folder's cache of solved positions.
#[derive(clap::Args)]
pub struct Args {
    /// The run's output folder (a plain, resumed or merged run, or a folder of shard folders).
    dir: PathBuf,
    /// Analyse from the first position with this many empties or fewer (1 to 30).
    #[arg(long, value_name = "N", default_value_t = 24)]
    from_empties: u32,
    /// The solver: a plugin path or a bare name; any plugin that honours depth limits.
    #[arg(long, default_value = "strong")]
    engine: String,
    /// Solver option NAME=VALUE (repeatable).
    #[arg(long = "option", value_parser = super::parse_option)]
    options: Vec<(String, String)>,
    /// Solves at once, each in its own worker (default: the number of cores).
    #[arg(long, value_name = "J")]
    jobs: Option<usize>,
    /// Sets the solver's option `Threads`.
    #[arg(long, value_name = "T")]
    threads: Option<u32>,
    /// Seconds one solve may take before it counts as failed.
    #[arg(long, value_name = "SECONDS", default_value = "600", value_parser = super::parse_seconds, allow_negative_numbers = true)]
    timeout: Duration,
    /// Folder where a bare plugin name is looked up.
    #[arg(long)]
    plugin_dir: Option<PathBuf>,
    #[command(flatten)]
    sandbox: super::SandboxFlag,
}

/// Analyse, print the per-engine table, write analysis.jsonl and refresh the reports.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let analyze = AnalyzeArgs {
        dir: args.dir.clone(),
        from_empties: args.from_empties,
        engine: args.engine,
        plugin_dir: args.plugin_dir,
        options: args.options,
        jobs: args.jobs.unwrap_or(cores).max(1),
        threads: args.threads,
        timeout: args.timeout,
        sandbox: args.sandbox.mode,
    };
    let summary = crate::tools::analyze::run(&analyze, |line| say!("{line}"))?;
    let errors = engine_errors(&summary.games);
    say_raw!("{}", table::analysis_table(&errors, args.from_empties));
    if let Some(note) = solver_part(&summary.games).note() {
        say!("{note}");
    }
    let failed = summary.games.iter().filter(|g| g.error.is_some()).count();
    say!(
        "\n{} games: {} analysed, {failed} with an error; {} positions: {} from the cache, {} solved, {} failed, in {:.1} s ({} nodes); {}",
        summary.games.len(),
        summary.games.len() - failed,
        summary.positions,
        summary.cached,
        summary.solved,
        summary.failed.len(),
        summary.elapsed.as_secs_f64(),
        summary.nodes,
        args.dir.join(ANALYSIS_FILE).display()
    );
    for g in summary.games.iter().filter(|g| g.error.is_some()).take(10) {
        say!(
            "  game {}: {}",
            g.game + 1,
            g.error.as_deref().unwrap_or_default()
        );
    }
    super::reports::refresh_reports(&args.dir)?;
    Ok(exit::SUCCESS)
}
