//! Benchmark and data tool of the search core, without the ABI.
//!
//! ```text
//! strong-bench [--hash MIB] [--eval E] [COMMAND]
//! strong-bench solve [FILE.obf...] [--kernel K,...] [--threads N,...] [--counters]
//!     [--move-time S [--no-selective | --midgame]] [--reports] [--root-moves]
//! strong-bench values D FILE.obf
//! strong-bench evaluate TRANSCRIPT
//! strong-bench nps [D] [N] [--kernel K,...]
//! strong-bench solve-times [N]
//! strong-bench mpc-data [N] [--positions random|selfplay]
//! strong-bench end-mpc-data [N] [--positions random|selfplay]
//! strong-bench perft [N]
//! ```
//!
//! A module a command, whose docs say what it prints: [`solve`] (also what `strong-bench`
//! alone runs), [`values`], [`evaluate`], [`nps`], [`solve_times`], [`mpc_data`] (`mpc-data`
//! and `end-mpc-data`, the two Multi-ProbCut fits) and [`perft`]; [`position_source`] is where
//! `nps` and the fits draw their positions from, [`stopwatch`] how `solve` and `nps` time a
//! search. This file holds the command line and what its options name (kernels,
//! evaluations, OBF files).
//!
//! `--hash MIB` (default 256) sizes the table of `solve` and `values`; `--eval
//! simple|trained|FILE` (default `trained`) is the evaluation searched with: the interim
//! hand-written one, the embedded pattern weights or a weight file.

mod evaluate;
mod mpc_data;
mod nps;
mod perft;
mod position_source;
mod solve;
mod solve_times;
mod stopwatch;
mod values;

use clap::{Parser, Subcommand};
use othello_sdk::board::ObfLine;
use position_source::{PositionSource, Positions};
use solve::SolveArgs;
use std::path::{Path, PathBuf};
use strong::eval::EvalSource;
use strong::eval::Evaluator;
use strong::kernel::KernelId;

#[derive(Parser)]
#[command(about = "Benchmarks and data of the strong engine's search core (no ABI)")]
struct Cli {
    /// Transposition table size (MiB) of `solve` and `values`.
    #[arg(long, global = true, default_value_t = 256)]
    hash: usize,
    /// The evaluation searched with: `simple`, `trained` (the embedded weights) or a weight
    /// file.
    #[arg(long, global = true, default_value = "trained")]
    eval: String,
    /// What to run (default: `solve` of the FFO #20-#39 file).
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Solve every position of OBF files (exactly, or for a fixed time) and check the scores.
    Solve(SolveArgs),
    /// Each position's value by a midgame search of depth D, one `<move> <value>` line each.
    Values { depth: u32, file: PathBuf },
    /// The interim evaluation and `--eval`'s of the position after a transcript.
    Evaluate { transcript: String },
    /// Midgame speed: N random positions to depth D with both evaluations (or, with
    /// `--kernel A,B...`, on each kernel).
    Nps {
        #[arg(default_value_t = 10)]
        depth: u32,
        #[arg(default_value_t = 100)]
        count: usize,
        #[arg(long, value_parser = parse_kernels)]
        kernel: Option<Kernels>,
    },
    /// The cost of an exact solve by number of empties (14-22), N positions a row.
    SolveTimes {
        #[arg(default_value_t = 10)]
        count: usize,
    },
    /// Fit the midgame Multi-ProbCut table (`mpc::MPC_TABLE`) on N positions.
    MpcData {
        #[arg(default_value_t = 200)]
        count: usize,
        #[arg(long, value_enum, default_value_t = Positions::Random)]
        positions: Positions,
    },
    /// Fit the selective endgame's table (`mpc::END_MPC_TABLE`) on N positions a row.
    EndMpcData {
        #[arg(default_value_t = 60)]
        count: usize,
        #[arg(long, value_enum, default_value_t = Positions::Random)]
        positions: Positions,
    },
    /// Perft N from the start with this crate's generator and with the rules crate's.
    Perft {
        #[arg(default_value_t = 12)]
        depth: u32,
    },
}

/// The kernels `--kernel` names, at least one.
#[derive(Clone)]
struct Kernels(Vec<KernelId>);

/// `--kernel A,B...`: each name a kernel this CPU runs.
fn parse_kernels(list: &str) -> Result<Kernels, String> {
    list.split(',')
        .map(|name| {
            strong::kernel::kernel_named(name)
                .ok_or_else(|| format!("kernel `{name}` unknown or not run by this CPU"))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Kernels)
}

impl Kernels {
    /// The kernels named, or the fastest this CPU has.
    fn or_default(kernels: Option<Kernels>) -> Vec<KernelId> {
        kernels.map_or_else(|| vec![strong::kernel::default_kernel()], |k| k.0)
    }
}

fn main() {
    let cli = Cli::parse();
    let make_eval = evaluator(&cli.eval);
    match cli
        .command
        .unwrap_or_else(|| Command::Solve(SolveArgs::default()))
    {
        Command::Solve(args) => solve::solve_files(args, cli.hash, &make_eval),
        Command::Values { depth, file } => values::values(depth, &file, cli.hash, &make_eval),
        Command::Evaluate { transcript } => evaluate::evaluate(&transcript, &cli.eval),
        Command::Nps {
            depth,
            count,
            kernel,
        } => match Kernels::or_default(kernel).as_slice() {
            [one] => nps::nps(depth, count, *one),
            kernels => nps::nps_kernels(depth, count, kernels, &make_eval),
        },
        Command::SolveTimes { count } => solve_times::solve_times(count),
        Command::MpcData { count, positions } => {
            mpc_data::mpc_data(count, &make_eval, &PositionSource::new(positions))
        }
        Command::EndMpcData { count, positions } => {
            mpc_data::end_mpc_data(count, &make_eval, &PositionSource::new(positions))
        }
        Command::Perft { depth } => perft::perft_compare(depth),
    }
}

/// The lines of an OBF file, parsed; a file that cannot be read or a line that does not parse
/// ends the tool with a message naming it.
fn read_obf(file: &Path) -> Vec<ObfLine> {
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| {
        eprintln!("strong-bench: {}: {e}", file.display());
        std::process::exit(2)
    });
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| {
            l.parse().unwrap_or_else(|e| {
                eprintln!("strong-bench: {}:{}: {e}", file.display(), n + 1);
                std::process::exit(2)
            })
        })
        .collect()
}

/// Makes a fresh evaluator for each search.
type MakeEval = Box<dyn Fn() -> Box<dyn Evaluator>>;

/// The evaluation named on the command line: `simple`, `trained` (embedded) or a weight file.
fn evaluator(name: &str) -> MakeEval {
    let source = EvalSource::named(name).unwrap_or_else(|e| {
        eprintln!("strong-bench: {e}");
        std::process::exit(2)
    });
    Box::new(move || source.evaluator())
}

/// The interim and the embedded trained evaluation, by name, in that order.
fn both_evaluations() -> [(&'static str, MakeEval); 2] {
    [
        ("simple", evaluator("simple")),
        ("trained", evaluator("trained")),
    ]
}
