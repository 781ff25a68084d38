//! The command line: `harness run`, `stats`, `sprt`, … Each command reads its inputs, calls
//! the stages below and maps the outcome to an exit code.

mod inspect;
mod merge;
mod output;
mod run;
mod sprt;

use crate::stats::verdict::exit;
use clap::{Parser, Subcommand};
use std::path::PathBuf;

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

#[derive(Subcommand)]
enum Command {
    /// Play the tournament of a tournament file (default: ./tournament.toml, or the embedded
    /// default when there is none).
    Run {
        /// The tournament file (default: ./tournament.toml, else the embedded default).
        file: Option<PathBuf>,
        /// Folder where bare plugin names are looked up (default: the harness binary's folder).
        #[arg(long)]
        plugin_dir: Option<PathBuf>,
        /// Output folder, overriding the file's `out`.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Discard the games of an earlier run in the output folder and start over (without
        /// it, a run resumes where the earlier one stopped).
        #[arg(long)]
        restart: bool,
        /// Print plain progress lines instead of the live terminal UI (the UI opens only when
        /// stdout is a terminal and the `CI` variable is unset).
        #[arg(long)]
        no_tui: bool,
        /// Play one shard of the schedule: `I/N` (the rounds r with r mod N = I), `auto` (a
        /// Slurm array task: SLURM_ARRAY_TASK_ID of SLURM_ARRAY_TASK_COUNT) or `auto/N` (a
        /// Kubernetes Indexed Job: JOB_COMPLETION_INDEX of N). Output in <out>/shard-I-of-N.
        #[arg(long, value_name = "I/N|auto|auto/N")]
        shard: Option<String>,
        /// Once this file exists, start no new pair, finish those begun and exit 3 (overrides
        /// the file's `stop-file`).
        #[arg(long, value_name = "PATH")]
        stop_file: Option<PathBuf>,
        /// Games played at once (overrides the file).
        #[arg(long, value_name = "N")]
        concurrency: Option<usize>,
        /// Game pairs per engine pairing (overrides the file).
        #[arg(long, value_name = "N")]
        pairs: Option<u32>,
        /// Time control (overrides the file): BASE[+INC] seconds (`10+0.1`), `0.5/move`,
        /// `depth=6` or `nodes=100000`.
        #[arg(long, value_name = "SPEC")]
        time: Option<String>,
        /// Draw the openings shuffled with this seed (overrides the file's order and seed).
        #[arg(long, value_name = "N")]
        openings_seed: Option<u64>,
        /// Check everything without playing: the file, the openings, the output folder, every
        /// plugin loaded in a worker with its options; print the schedule's size and exit.
        #[arg(long)]
        dry_run: bool,
    },
    /// Merge the output folders of a tournament's shards (or folders holding shard-I-of-N
    /// folders) into one: journal in game order, GGF, reports, tables; exit code as for `run`.
    /// With --watch: follow the shards' journals, evaluate the sequential test every interval
    /// and, when it decides, write decision.json and the stop file and run --on-decision.
    Merge {
        /// Shard output folders, or folders holding shard-I-of-N folders.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// The merged folder (default: the folder the shard folders are in).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Follow the shards as they play and stop them when the test decides.
        #[arg(long)]
        watch: bool,
        /// Seconds between two looks at the journals (with --watch).
        #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
        interval: f64,
        /// The file the shards watch (`run --stop-file`): written when the test decides.
        #[arg(long, value_name = "PATH")]
        stop_file: Option<PathBuf>,
        /// A shell command run when the test decides (e.g. `scancel --state=PENDING $JOB`).
        #[arg(long, value_name = "CMD")]
        on_decision: Option<String>,
    },
    /// Step through the finished games of a run on the board (full-screen on a terminal;
    /// otherwise the game's final board as text).
    Replay {
        /// The output folder or its games.jsonl.
        file: PathBuf,
        /// Game number as shown on screen (the journal's `game` + 1); default: the first game.
        game: Option<usize>,
    },
    /// Recompute the statistics of a finished or interrupted run from its games.jsonl (or its
    /// output folder).
    Stats {
        /// An output folder or its games.jsonl.
        file: PathBuf,
    },
    /// Count the leaves of the game tree from the start position.
    Perft {
        /// Plies from the start position (at most 15: about 1e12 leaves, tens of minutes;
        /// each ply more multiplies the time by about 8).
        #[arg(value_parser = clap::value_parser!(u32).range(0..=15))]
        depth: u32,
        /// 1: a pass counts as a move; 2: a pass counts as zero moves.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
        mode: u8,
    },
    /// Load a plugin and print its metadata and options.
    Info {
        /// A library path, or a bare name (lib<NAME>.so next to the harness binary, as in a
        /// tournament file).
        plugin: String,
        /// Folder where a bare name is looked up.
        #[arg(long)]
        plugin_dir: Option<PathBuf>,
    },
    /// Solve every position of an OBF file exactly with an engine (in a worker process) and
    /// check the scores: exit code 1 if one is wrong.
    Solve {
        /// An OBF file: one position per line, with its moves' exact scores (e.g. the FFO suite).
        file: PathBuf,
        /// Plugin: a library path or a bare name (looked up next to the harness binary).
        #[arg(long)]
        engine: String,
        /// Engine option NAME=VALUE (repeatable).
        #[arg(long = "option", value_parser = parse_option)]
        options: Vec<(String, String)>,
        /// Sets the engine option `Threads`.
        #[arg(long, value_name = "N")]
        threads: Option<u32>,
        /// Folder where a bare plugin name is looked up.
        #[arg(long)]
        plugin_dir: Option<PathBuf>,
        /// Seconds to wait for one position before giving up.
        #[arg(long, value_name = "SECONDS", default_value_t = 3600.0)]
        timeout: f64,
    },
    /// Serve a plugin over the NBoard protocol on stdin/stdout (for the NBoard GUI).
    Nboard {
        #[command(flatten)]
        seat: SeatArgs,
    },
    /// Serve a plugin over GTP (Go Text Protocol, 8x8 Othello) on stdin/stdout.
    Gtp {
        #[command(flatten)]
        seat: SeatArgs,
    },
    /// Compute a sequential test from result counts alone (exit code as for `run`).
    Sprt {
        /// Game results: wins,draws,losses.
        #[arg(long, value_parser = counts::<3>, conflicts_with = "penta", required_unless_present = "penta")]
        wdl: Option<Counts>,
        /// Pair results: LL,LD,WL+DD,WD,WW.
        #[arg(long, value_parser = counts::<5>)]
        penta: Option<Counts>,
        /// H0: the candidate is not stronger than this (Elo of the model).
        #[arg(long, allow_negative_numbers = true)]
        elo0: f64,
        /// H1: the candidate is stronger by at least this.
        #[arg(long, allow_negative_numbers = true)]
        elo1: f64,
        /// Chance of accepting H1 when H0 holds.
        #[arg(long, default_value_t = 0.05)]
        alpha: f64,
        /// Chance of accepting H0 when H1 holds.
        #[arg(long, default_value_t = 0.05)]
        beta: f64,
        /// What the Elo bounds mean: logistic Elo or normalised Elo.
        #[arg(long, value_enum, default_value_t = ModelArg::Logistic)]
        model: ModelArg,
    },
    /// Resampling study: how many games each sequential test needs on a journal's real pairs.
    SprtSim {
        /// A games.jsonl (or its output folder) of a match.
        journal: PathBuf,
        /// The candidate's name (default: Black of the first game).
        #[arg(long)]
        candidate: Option<String>,
        /// H0 of the logistic Elo tests: the candidate is not stronger than this.
        #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
        elo0: f64,
        /// H1 of the logistic Elo tests: the candidate is stronger by at least this.
        #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
        elo1: f64,
        /// H0 of the normalised tests (pentanomial and discs), in normalised Elo.
        #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
        nelo0: f64,
        /// H1 of the normalised tests (pentanomial and discs), in normalised Elo.
        #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
        nelo1: f64,
        /// Simulated tests per kind of test.
        #[arg(long, default_value_t = 200)]
        runs: usize,
        /// A simulated test that has not decided after this many pairs counts as undecided.
        #[arg(long, default_value_t = 20_000)]
        max_pairs: usize,
        /// Pairs between two evaluations of the LLR.
        #[arg(long, default_value_t = 10)]
        check_every: usize,
        /// Seed of the resampling.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Internal: an engine worker process (started by the coordinator).
    #[command(hide = true)]
    Worker {
        /// The coordinator's Unix socket to connect to.
        #[arg(long)]
        connect: PathBuf,
        /// The plugin library to load.
        #[arg(long)]
        plugin: PathBuf,
        /// Address-space limit in bytes, set before the plugin loads.
        #[arg(long)]
        memory_limit: Option<u64>,
    },
}

/// `harness replay`: full-screen on a terminal; otherwise the final board as text.
fn replay(file: &std::path::Path, game: Option<usize>) -> anyhow::Result<()> {
    use crate::show::tui::replay;
    use std::io::IsTerminal;
    let mut opened = replay::open(file, game)?;
    if std::io::stdout().is_terminal() {
        replay::interactive(opened)
    } else {
        output::say_raw!("{}", replay::as_text(&mut opened));
        Ok(())
    }
}

/// Parse a `NAME=VALUE` engine option (for the command line).
pub fn parse_option(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((n, v)) if !n.trim().is_empty() => Ok((n.trim().to_string(), v.trim().to_string())),
        _ => Err(format!("`{text}` is not NAME=VALUE")),
    }
}

/// Comma-separated result counts.
#[derive(Clone, Debug)]
struct Counts(Vec<u64>);

/// `N` comma-separated counts.
fn counts<const N: usize>(text: &str) -> Result<Counts, String> {
    let parts: Vec<u64> = text
        .split(',')
        .map(|p| {
            p.trim()
                .parse::<u64>()
                .map_err(|_| format!("`{p}` is not a count"))
        })
        .collect::<Result<_, _>>()?;
    if parts.len() != N {
        return Err(format!(
            "expected {N} comma-separated counts, got {}",
            parts.len()
        ));
    }
    Ok(Counts(parts))
}

/// The engine of a front-end session.
#[derive(clap::Args)]
struct SeatArgs {
    /// Plugin: a library path or a bare name (looked up next to the harness binary).
    #[arg(long)]
    engine: String,
    /// Engine option NAME=VALUE (repeatable).
    #[arg(long = "option", value_parser = parse_option)]
    options: Vec<(String, String)>,
    /// Folder where a bare plugin name is looked up.
    #[arg(long)]
    plugin_dir: Option<PathBuf>,
    /// Search every move to this depth (overrides the protocol's own settings).
    #[arg(long)]
    depth: Option<u32>,
    /// Search every move for this many seconds.
    #[arg(long, conflicts_with = "depth")]
    move_time: Option<f64>,
}

impl SeatArgs {
    fn frontend(self) -> crate::tools::frontend::FrontendArgs {
        crate::tools::frontend::FrontendArgs {
            engine: self.engine,
            plugin_dir: self.plugin_dir,
            options: self.options,
            depth: self.depth,
            move_time: self.move_time,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ModelArg {
    Logistic,
    Normalized,
}

/// Parse the command line, run the command, and return the process exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run {
            file,
            plugin_dir,
            out,
            restart,
            no_tui,
            shard,
            stop_file,
            concurrency,
            pairs,
            time,
            openings_seed,
            dry_run,
        } => run::run(run::RunArgs {
            file,
            plugin_dir,
            out,
            restart,
            no_tui,
            shard,
            stop_file,
            overrides: crate::plan::config::Overrides {
                concurrency,
                pairs,
                time,
                openings_seed,
            },
            dry_run,
        }),
        Command::Replay { file, game } => replay(&file, game).map(|()| exit::H1),
        Command::Merge {
            dirs,
            out,
            watch,
            interval,
            stop_file,
            on_decision,
        } => merge::merge(merge::MergeArgs {
            dirs,
            out,
            watch,
            interval,
            stop_file,
            on_decision,
        }),
        Command::Stats { file } => inspect::stats(&file).map(|()| exit::H1),
        Command::Perft { depth, mode } => {
            inspect::perft(depth, mode);
            Ok(exit::H1)
        }
        Command::Info { plugin, plugin_dir } => {
            inspect::info(&plugin, plugin_dir.as_deref()).map(|()| exit::H1)
        }
        Command::Solve {
            file,
            engine,
            options,
            threads,
            plugin_dir,
            timeout,
        } => crate::tools::solve::main(&crate::tools::solve::SolveArgs {
            file,
            engine,
            plugin_dir,
            options,
            threads,
            timeout: std::time::Duration::from_secs_f64(timeout.max(0.001)),
        }),
        Command::Sprt {
            wdl,
            penta,
            elo0,
            elo1,
            alpha,
            beta,
            model,
        } => sprt::sprt_from_counts(wdl, penta, elo0, elo1, alpha, beta, model),
        Command::SprtSim {
            journal,
            candidate,
            elo0,
            elo1,
            nelo0,
            nelo1,
            runs,
            max_pairs,
            check_every,
            seed,
        } => sprt::sprt_sim(
            &journal,
            candidate,
            [elo0, elo1, nelo0, nelo1],
            runs,
            max_pairs,
            check_every,
            seed,
        )
        .map(|()| exit::H1),
        Command::Nboard { seat } => crate::tools::frontend::nboard::serve(
            &seat.frontend(),
            std::io::BufReader::new(std::io::stdin()),
            std::io::stdout().lock(),
        )
        .map(|()| exit::H1),
        Command::Gtp { seat } => crate::tools::frontend::gtp::serve(
            &seat.frontend(),
            std::io::BufReader::new(std::io::stdin()),
            std::io::stdout().lock(),
        )
        .map(|()| exit::H1),
        Command::Worker {
            connect,
            plugin,
            memory_limit,
        } => crate::host::worker::run(&connect, &plugin, memory_limit).map(|()| exit::H1),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            exit::ERROR
        }
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
