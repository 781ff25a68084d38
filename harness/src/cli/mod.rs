//! The command line: `harness run`, `stats`, `sprt`, … One file per command (as mini-redis
//! has one per command): its `#[derive(clap::Args)]` struct and the `run` that reads its inputs,
//! calls the stages below and maps the outcome to an exit code (`exit`).

mod analyze;
mod bench;
mod check;
mod exit;
mod frontend;
mod info;
mod ledger;
mod merge;
mod output;
mod perft;
mod replay;
mod reports;
mod run;
mod run_ledger;
mod secrets;
mod serve;
mod solve;
mod sprt;
mod sprt_sim;
mod stats;
mod supervise;
mod tournament_flags;
mod tune;
mod worker;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "harness",
    version,
    about = "Othello engine tournaments: paired openings, plugin engines, Elo and disc statistics"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Every command; the help of each is its `Args`' doc comment.
#[derive(Subcommand)]
enum Command {
    Run(run::Args),
    Merge(merge::Args),
    Replay(replay::Args),
    Stats(stats::Args),
    Analyze(analyze::Args),
    Bench(bench::Args),
    Check(check::Args),
    Tune(tune::Args),
    Ledger(ledger::Args),
    /// Serve run folders (and a ledger's history) in a browser, live while they play.
    Serve(serve::Args),
    Perft(perft::Args),
    Info(info::Args),
    Solve(solve::Args),
    /// Serve a plugin over the NBoard protocol on stdin/stdout (for the NBoard GUI).
    Nboard(frontend::Args),
    /// Serve a plugin over GTP (Go Text Protocol, 8x8 Othello) on stdin/stdout.
    Gtp(frontend::Args),
    Sprt(sprt::Args),
    SprtSim(sprt_sim::Args),
    #[command(hide = true)]
    Worker(worker::Args),
    #[command(hide = true)]
    Supervise(supervise::Args),
}

/// Parse the command line, run the command, and return the process exit code.
pub fn main() -> i32 {
    let result = match Cli::parse().command {
        Command::Run(args) => run::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Stats(args) => stats::run(args),
        Command::Analyze(args) => analyze::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Check(args) => check::run(args),
        Command::Tune(args) => tune::run(args),
        Command::Ledger(args) => ledger::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Perft(args) => perft::run(args),
        Command::Info(args) => info::run(args),
        Command::Solve(args) => solve::run(args),
        Command::Nboard(args) => frontend::nboard(args),
        Command::Gtp(args) => frontend::gtp(args),
        Command::Sprt(args) => sprt::run(args),
        Command::SprtSim(args) => sprt_sim::run(args),
        Command::Worker(args) => worker::run(args),
        Command::Supervise(args) => supervise::run(args),
    };
    result.unwrap_or_else(|e| {
        eprintln!("error: {e:#}");
        exit::ERROR
    })
}

/// The plugin `harness bench` and `check` work on, with its options.
#[derive(clap::Args)]
struct OnePlugin {
    /// Plugin: a library path or a bare name (looked up next to the harness binary).
    plugin: String,
    /// Engine option NAME=VALUE (repeatable); `Threads` is always 1.
    #[arg(long = "option", value_parser = parse_option)]
    options: Vec<(String, String)>,
    /// Folder where a bare plugin name is looked up.
    #[arg(long)]
    plugin_dir: Option<std::path::PathBuf>,
}

/// `--sandbox MODE`: how the plugin's worker is confined (`strict`, the default: what the
/// kernel enforces; `required`: all of it or exit 2; `off`: not at all).
#[derive(clap::Args)]
struct SandboxFlag {
    /// The plugin's sandbox: `strict` (default), `required` or `off`.
    #[arg(long = "sandbox", value_name = "MODE", default_value = "strict", value_parser = harness_core::plan::config::SandboxMode::parse)]
    mode: harness_core::plan::config::SandboxMode,
}

impl OnePlugin {
    /// The plugin file, which must exist, and the options.
    fn locate(&self) -> anyhow::Result<(std::path::PathBuf, Vec<(String, String)>)> {
        let (plugin, options) = crate::tools::tool_engine(
            &self.plugin,
            self.plugin_dir.as_deref(),
            &self.options,
            None,
        )?;
        anyhow::ensure!(plugin.is_file(), "no plugin file {}", plugin.display());
        Ok((plugin, options))
    }
}

/// The longest wait any flag of seconds may ask for (`--timeout`, `--interval`,
/// `--move-time`): a million seconds, about 11.6 days.
pub const MOST_SECONDS: f64 = 1e6;

/// Parse a flag of seconds (`--timeout 600`, `--interval 0.5`): a finite number above 0 and at
/// most [`MOST_SECONDS`]. The one parser of every such flag, so that `inf`, `nan`, `-1` or
/// `1e300` are refused alike with a message, never clamped or panicked on.
pub fn parse_seconds(text: &str) -> Result<std::time::Duration, String> {
    let value: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !value.is_finite() || value <= 0.0 || value > MOST_SECONDS {
        return Err(format!(
            "`{text}`: give a number of seconds above 0 and at most {MOST_SECONDS:.0}"
        ));
    }
    Ok(std::time::Duration::from_secs_f64(value))
}

/// Parse a `NAME=VALUE` engine option (for the command line).
pub fn parse_option(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((n, v)) if !n.trim().is_empty() => Ok((n.trim().to_string(), v.trim().to_string())),
        _ => Err(format!("`{text}` is not NAME=VALUE")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command and every argument says what it is in `--help` (a flag without a
    /// description is one a user has to guess at).
    #[test]
    fn every_command_and_argument_is_described() {
        use clap::CommandFactory;
        let cli = Cli::command();
        let mut missing = Vec::new();
        for cmd in cli.get_subcommands() {
            if cmd.get_about().is_none() {
                missing.push(cmd.get_name().to_string());
            }
            for arg in cmd.get_arguments() {
                if arg.get_help().is_none() && arg.get_id() != "help" {
                    missing.push(format!("{} {}", cmd.get_name(), arg.get_id()));
                }
            }
        }
        assert!(missing.is_empty(), "without a description: {missing:?}");
    }

    #[test]
    fn options() {
        assert_eq!(
            parse_option("Hash=128"),
            Ok(("Hash".to_string(), "128".to_string()))
        );
        assert!(parse_option("Hash").is_err());
        assert!(parse_option("=3").is_err());
    }
}
