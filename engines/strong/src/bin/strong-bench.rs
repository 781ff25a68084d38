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
//! `solve` (also what `strong-bench` alone runs; default file: the FFO #20-#39 file of this
//! crate): an exact solve of every position of OBF files, printing per position: number,
//! empties, best move, score, the file's best score, ok/wrong, time, nodes, nodes/s; then the
//! totals (exit code 1 if a score or move is wrong). `--move-time S`: each position searched
//! for S seconds instead (as under a clock: midgame iterations, then the selective endgame
//! stages, then the exact solve if time allows; `--no-selective`: without the selective
//! stages; `--midgame`: midgame iterations only, as a clock gives them above the read-ahead
//! threshold); a position counts as right when the move played is one of the file's best
//! moves. `--kernel K[,K2...]` (default: the fastest this CPU has, see `strong::kernel`): the
//! move-generation kernels (`portable`, `bmi2`, `avx2`, `avx512`) the search runs on; with two
//! or more, each position is searched with each kernel in turn (the order alternating from one
//! position to the next, so that all see the same machine load), and the totals end with each
//! kernel's node rate relative to the first. `--threads N` searches with N threads (Young
//! Brothers Wait in the solver, see `strong::parallel`); `--threads 1,2,4,8,16` is a sweep:
//! each position is searched with each count in turn, and every file ends with a table of
//! time, nodes, node rate, speed-up and efficiency against the first count. `--counters` adds
//! what the threads did (split points offered and taken, idle time, nodes thrown away, lock
//! waits, the node rate of a busy thread), per search and per file. `--reports`: every iteration's report too;
//! `--root-moves`: every root move's solver search (window, score, nodes). `--depth D`: a
//! midgame search of depth D instead, not judged (with `--threads 1,2`, the midgame's time to
//! depth).
//!
//! `values D FILE.obf`: each position's value (discs, side to move's view) by a midgame search
//! of depth D, one `<move> <value>` line per position (to compare evaluations and search
//! depths against exact scores).
//!
//! `evaluate TRANSCRIPT`: the interim evaluation and `--eval`'s of the position after the
//! moves.
//!
//! `nps D N` (default 10 100): the midgame search speed of both evaluations: the same N random
//! positions (20-50 empties) searched to depth D with the interim and with the trained
//! evaluation, alternating, and the ratio of their node rates; with `--kernel A,B...`, of the
//! `--eval` evaluation on each kernel instead.
//!
//! `solve-times N` (default 10): the cost of an exact solve (as the engine runs it: `think`)
//! by number of empties (14-22), with each evaluation, on N realistic positions per row (from
//! the committed self-play games), the data behind the exact-solve thresholds of
//! `strong::time::solve_empties_for`.
//!
//! `mpc-data N` (default 200): the data behind the Multi-ProbCut parameters of
//! `strong::mpc::MPC_TABLE`: N positions (games stopped at 20-50 empties), searched without
//! selectivity at every depth 0..=10; for each depth d, a least-squares fit `v_d = a v_s + b`
//! on the value at the shallow depth `mpc_shallow(d)`, with the residual standard deviation,
//! printed as a Rust table.
//!
//! `end-mpc-data N` (default 60): the data behind the selective endgame's parameters
//! (`strong::mpc::END_MPC_TABLE`): per number of empties, N positions solved exactly against a
//! midgame search of depth `end_mpc_shallow(n)`, fitted the same way.
//!
//! `--positions random|selfplay` (`mpc-data`, `end-mpc-data`; default `random`): where those
//! positions come from: random games, or the committed depth-10 self-play games after their
//! random openings (the positions the engine meets in play; the tables in `strong::mpc` are
//! fitted on these).
//!
//! `perft N` (default 12): perft N from the start (pass is a move) with this crate's inlined
//! portable move generator and flips, and with the rules crate's `perft`, which runs the
//! fastest SIMD kernel of the CPU (the one the search runs on by default), for comparison.
//!
//! `--hash MIB` (default 256) sizes the table of `solve` and `values`; `--eval
//! simple|trained|FILE` (default `trained`) is the evaluation searched with: the interim
//! hand-written one, the embedded pattern weights or a weight file.

// The self-play file reader of the `train` tool (this tool does not read the final scores).
#[path = "train/selfplay_file.rs"]
#[allow(dead_code)]
mod selfplay_file;

use clap::{Args, Parser, Subcommand, ValueEnum};
use othello_sdk::board::ObfLine;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use strong::eval::EvalSource;
use strong::eval::Evaluator;
use strong::kernel::KernelId;
use strong::parallel::{ParallelStats, SearchTeam};
use strong::search::Searcher;
use strong::time::Plan;
use strong::tt::Tt;

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

#[derive(Args, Default)]
struct SolveArgs {
    /// OBF files (default: the FFO #20-#39 file of this crate).
    files: Vec<PathBuf>,
    /// Move-generation kernels, comma-separated (default: the fastest this CPU has).
    #[arg(long, value_parser = parse_kernels)]
    kernel: Option<Kernels>,
    /// Search each position for S seconds as under a clock; only the move counts.
    #[arg(long, value_name = "S")]
    move_time: Option<f64>,
    /// A midgame search of depth D instead (no exact solve, no time limit): only time and
    /// nodes count (e.g. with `--threads 1,2`: the midgame's time to depth).
    #[arg(long, value_name = "D", conflicts_with = "move_time")]
    depth: Option<u32>,
    /// With `--move-time`: no selective endgame stages before the exact solve.
    #[arg(long, requires = "move_time", conflicts_with = "midgame")]
    no_selective: bool,
    /// With `--move-time`: midgame iterations only (no read to the end).
    #[arg(long, requires = "move_time")]
    midgame: bool,
    /// Print every iteration's report (depth, selectivity, score, nodes so far, PV).
    #[arg(long)]
    reports: bool,
    /// Print every root move's solver search (window, score, nodes; one thread only).
    #[arg(long)]
    root_moves: bool,
    /// Search threads, or a comma-separated sweep (`1,2,4,8,16`): each position is searched
    /// with each count in turn, and a table per file compares them.
    #[arg(long, value_delimiter = ',', value_parser = clap::value_parser!(u32).range(1..=64))]
    threads: Vec<u32>,
    /// Count what the threads of a parallel search do (split points, idle and waiting time,
    /// nodes thrown away, lock waits) and print it per search and per file.
    #[arg(long)]
    counters: bool,
}

/// Where the Multi-ProbCut fits draw their positions from (`--positions`).
#[derive(Clone, Copy, ValueEnum)]
enum Positions {
    /// Random games (uniform random moves) stopped at the wanted number of empties.
    Random,
    /// The committed depth-10 self-play games, after their random openings.
    Selfplay,
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

/// CPU time of this thread (Linux: `/proc/thread-self/schedstat`, nanoseconds on a CPU), or
/// `None` where that file is missing. A loaded machine stretches wall time; CPU time much
/// less, so speed comparisons use it when they can.
fn thread_cpu_seconds() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// Measures one search: wall seconds and, where available, CPU seconds.
struct Stopwatch {
    wall: Instant,
    cpu: Option<f64>,
}

impl Stopwatch {
    fn start() -> Stopwatch {
        Stopwatch {
            cpu: thread_cpu_seconds(),
            wall: Instant::now(),
        }
    }

    /// (wall seconds, CPU seconds or wall seconds if unknown).
    fn read(&self) -> (f64, f64) {
        let wall = self.wall.elapsed().as_secs_f64();
        let cpu = match (self.cpu, thread_cpu_seconds()) {
            (Some(a), Some(b)) => b - a,
            _ => wall,
        };
        (wall, cpu)
    }
}

fn main() {
    let cli = Cli::parse();
    let make_eval = evaluator(&cli.eval);
    match cli
        .command
        .unwrap_or_else(|| Command::Solve(SolveArgs::default()))
    {
        Command::Solve(args) => solve_files(args, cli.hash, &make_eval),
        Command::Values { depth, file } => values(depth, &file, cli.hash, &make_eval),
        Command::Evaluate { transcript } => evaluate(&transcript, &cli.eval),
        Command::Nps {
            depth,
            count,
            kernel,
        } => match Kernels::or_default(kernel).as_slice() {
            [one] => nps(depth, count, *one),
            kernels => nps_kernels(depth, count, kernels, &make_eval),
        },
        Command::SolveTimes { count } => solve_times(count),
        Command::MpcData { count, positions } => {
            mpc_data(count, &make_eval, &PositionSource::new(positions))
        }
        Command::EndMpcData { count, positions } => {
            end_mpc_data(count, &make_eval, &PositionSource::new(positions))
        }
        Command::Perft { depth } => perft_compare(depth),
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

/// `values D FILE.obf`: each position's value (discs, side to move's view) by a midgame search
/// of depth D with no time limit, one line per position.
fn values(depth: u32, file: &Path, hash: usize, make_eval: &dyn Fn() -> Box<dyn Evaluator>) {
    strong::stability::init();
    let tt = Arc::new(Tt::new(hash));
    for obf in read_obf(file) {
        tt.clear();
        let mut s = Searcher::new(tt.clone(), make_eval(), None);
        let out = s.think(obf.position.board, &Plan::depth(depth), &mut |_| {});
        println!("{} {:+.2}", out.mv, out.info.score);
    }
}

/// `evaluate TRANSCRIPT`: the interim evaluation and `eval` of the position after the moves.
fn evaluate(transcript: &str, eval: &str) {
    use othello_sdk::board::{parse_transcript, replay, Position};
    let (_, p) = parse_transcript(transcript)
        .map_err(|e| e.to_string())
        .and_then(|moves| replay(Position::START, &moves).map_err(|e| e.to_string()))
        .unwrap_or_else(|e| {
            eprintln!("strong-bench: transcript `{transcript}`: {e}");
            std::process::exit(2)
        });
    for name in ["simple", eval] {
        let v = evaluator(name)().evaluate(&p.board);
        println!(
            "{name:<8} {:+.2} discs ({} to move)",
            v as f64 / 100.0,
            p.side_to_move
        );
    }
}

/// The plan of `solve`: an exact solve, or a clock-like search of `--move-time` seconds (with
/// or without the selective endgame stages, or midgame iterations only).
fn solve_plan(args: &SolveArgs) -> Plan {
    if let Some(d) = args.depth {
        return Plan::depth(d);
    }
    match args.move_time {
        Some(t) => Plan {
            solve_empties: if args.midgame { 0 } else { 64 },
            hard_time: Some(std::time::Duration::from_secs_f64(t)),
            soft_time: Some(std::time::Duration::from_secs_f64(t * 0.4)),
            selective_endgame: !args.no_selective,
            ..Plan::solve()
        },
        None => Plan::solve(),
    }
}

/// One way `solve` searches every position: a kernel and a number of threads.
#[derive(Clone, Copy)]
struct Variant {
    kernel: KernelId,
    threads: usize,
}

/// What `solve` adds up, per variant and per file.
#[derive(Clone, Copy, Default)]
struct Sums {
    nodes: u64,
    /// Wall seconds.
    wall: f64,
    /// CPU seconds of the searching thread (the master alone when there are several).
    cpu: f64,
    stats: Option<ParallelStats>,
}

impl Sums {
    fn add(&mut self, nodes: u64, wall: f64, cpu: f64, stats: Option<ParallelStats>) {
        self.nodes += nodes;
        self.wall += wall;
        self.cpu += cpu;
        self.stats = match (self.stats, stats) {
            (Some(a), Some(b)) => Some(a.merged(&b)),
            (a, b) => a.or(b),
        };
    }
}

/// What `solve` adds up over its searches.
struct SolveTotals {
    positions: usize,
    runs: usize,
    wrong: usize,
    /// Per variant.
    all: Vec<Sums>,
    /// Per file, per variant.
    files: Vec<(PathBuf, Vec<Sums>)>,
}

/// The variants `solve` runs: several kernels on one thread count, or one kernel on several
/// thread counts.
fn solve_variants(kernels: Option<Kernels>, threads: &[u32]) -> Vec<Variant> {
    let kernels = Kernels::or_default(kernels);
    let threads: Vec<usize> = match threads {
        [] => vec![1],
        t => t.iter().map(|&n| n as usize).collect(),
    };
    if kernels.len() > 1 && threads.len() > 1 {
        eprintln!("strong-bench: compare kernels or thread counts, not both at once");
        std::process::exit(2);
    }
    kernels
        .iter()
        .flat_map(|&kernel| {
            threads
                .iter()
                .map(move |&threads| Variant { kernel, threads })
        })
        .collect()
}

/// One search of `solve`: the outcome, wall and CPU seconds, and the threads' counters.
fn solve_one(
    obf: &ObfLine,
    v: Variant,
    tt: &Arc<Tt>,
    plan: &Plan,
    args: &SolveArgs,
    make_eval: &dyn Fn() -> Box<dyn Evaluator>,
) -> (othello_sdk::SearchOutcome, f64, f64, Option<ParallelStats>) {
    tt.clear();
    let t = Stopwatch::start();
    let reports = args.reports;
    let mut report = |info: &othello_sdk::SearchInfo| {
        if reports {
            print_report(info, t.read().0);
        }
    };
    if v.threads > 1 {
        let team = SearchTeam {
            threads: v.threads,
            tt: tt.clone(),
            ctx: None,
            counting: args.counters,
        };
        let kernel = v.kernel;
        let configure = move |s: &mut Searcher| s.kernel = kernel;
        let (out, stats) = team.think(obf.position.board, plan, make_eval, &configure, &mut report);
        let (wall, cpu) = t.read();
        return (out, wall, cpu, stats);
    }
    let mut s = Searcher::new(tt.clone(), make_eval(), None);
    s.kernel = v.kernel;
    if args.root_moves {
        s.root_trace = Some(Vec::new());
    }
    let out = s.think(obf.position.board, plan, &mut report);
    let (wall, cpu) = t.read();
    print_root_moves(s.root_trace.take().unwrap_or_default());
    (out, wall, cpu, None)
}

/// `solve [FILE.obf...]`: every position searched with every variant (see the module docs);
/// exit code 1 if one is wrong.
fn solve_files(args: SolveArgs, hash: usize, make_eval: &dyn Fn() -> Box<dyn Evaluator>) {
    let plan = solve_plan(&args);
    let timed = args.move_time.is_some();
    let variants = solve_variants(args.kernel.clone(), &args.threads);
    let mut files = args.files.clone();
    if files.is_empty() {
        files.push(concat!(env!("CARGO_MANIFEST_DIR"), "/data/fforum-20-39.obf").into());
    }
    strong::stability::init();
    let tt = Arc::new(Tt::new(hash));
    let mut totals = SolveTotals {
        positions: 0,
        runs: 0,
        wrong: 0,
        all: vec![Sums::default(); variants.len()],
        files: Vec::new(),
    };
    for file in &files {
        let mut per_file = vec![Sums::default(); variants.len()];
        for obf in read_obf(file) {
            totals.positions += 1;
            let n = totals.positions;
            for j in 0..variants.len() {
                // Alternate the order of the variants from one position to the next.
                let vi = if n.is_multiple_of(2) {
                    variants.len() - 1 - j
                } else {
                    j
                };
                let v = variants[vi];
                let (out, secs, cpu, stats) = solve_one(&obf, v, &tt, &plan, &args, make_eval);
                let score = out.info.score as i32;
                let expected = obf.best_score().unwrap_or(score);
                let move_ok = obf
                    .move_scores
                    .iter()
                    .any(|&(m, s)| m == out.mv && s == expected);
                // Under a time limit only the move counts (the score may be a selective one).
                let ok = args.depth.is_some()
                    || (timed || score == expected) && (obf.move_scores.is_empty() || move_ok);
                totals.runs += 1;
                totals.wrong += usize::from(!ok);
                totals.all[vi].add(out.info.nodes, secs, cpu, stats);
                per_file[vi].add(out.info.nodes, secs, cpu, stats);
                let label = match variants.len() {
                    1 => String::new(),
                    _ if args.threads.len() > 1 => format!(" t{:<3}", v.threads),
                    _ => format!(" {:<8}", v.kernel.name()),
                };
                println!(
                    "#{n:<3}{label} {:>2} empties  {:<4} {:+3} (file {:+3}) {:<5} {:8.3} s {:>13} nodes {:>6.1} Mn/s",
                    obf.position.empties(),
                    out.mv.to_string(),
                    score,
                    expected,
                    if ok { "ok" } else { "WRONG" },
                    secs,
                    out.info.nodes,
                    out.info.nodes as f64 / secs.max(1e-9) / 1e6
                );
                if let Some(st) = stats {
                    println!("     {}", counters_line(&st));
                }
            }
        }
        totals.files.push((file.clone(), per_file));
    }
    print_solve_totals(&totals, &variants, args.threads.len() > 1);
    if totals.wrong > 0 {
        std::process::exit(1);
    }
}

/// The counters of a parallel search (or of several, added up) on one line.
fn counters_line(st: &ParallelStats) -> String {
    format!(
        "counters: {} splits offered, {} taken, {} joins ({} by waiting masters), {} moves by helpers; helpers idle {:.1}%, \
         masters waiting {:.1}%; thrown away {:.2}% of the nodes; {} lock waits; busy {:.1} Mn/s per thread",
        st.offered,
        st.taken,
        st.joins,
        st.master_joins,
        st.helper_moves,
        100.0 * st.helper_idle_share(),
        100.0 * st.split_wait_share(),
        100.0 * st.thrown_nodes as f64 / (st.master_nodes + st.helper_nodes).max(1) as f64,
        st.lock_waits,
        st.busy_node_rate() / 1e6,
    )
}

/// One report of `solve --reports`: depth@selectivity, score, nodes, seconds, PV.
fn print_report(info: &othello_sdk::SearchInfo, secs: f64) {
    let pv: Vec<String> = info.pv.iter().map(|m| m.to_string()).collect();
    println!(
        "     depth {:>2}@{:>3}%  {:+7.2}  {:>13} nodes {:8.3} s  {}",
        info.depth,
        info.selectivity,
        info.score,
        info.nodes,
        secs,
        pv.join(" ")
    );
}

/// `solve --root-moves`: the solver's searches of root moves, in order.
fn print_root_moves(trace: Vec<strong::search::RootMoveTrace>) {
    for t in trace.iter().filter(|t| t.depth.is_none()) {
        let sq = othello_sdk::board::Square::new(t.sq).expect("square");
        println!(
            "     root {sq} ({:+3}, {:+3}): {:+3} {:>13} nodes",
            t.window.0, t.window.1, t.score, t.nodes
        );
    }
}

/// The totals of `solve`; with two or more kernels each one's node rate against the first;
/// with a thread sweep, a table per file (time, nodes, node rate, speed-up and efficiency
/// against the first thread count).
fn print_solve_totals(totals: &SolveTotals, variants: &[Variant], sweep: bool) {
    let wall: f64 = totals.all.iter().map(|v| v.wall).sum();
    let cpu: f64 = totals.all.iter().map(|v| v.cpu).sum();
    let nodes: u64 = totals.all.iter().map(|v| v.nodes).sum();
    println!(
        "total: {} positions, {} searches, {} wrong, {wall:.3} s ({cpu:.3} s CPU), {nodes} nodes, {:.1} Mn/s",
        totals.positions,
        totals.runs,
        totals.wrong,
        nodes as f64 / wall.max(1e-9) / 1e6
    );
    if sweep {
        for (file, sums) in &totals.files {
            print_sweep(file, variants, sums);
        }
        if totals.files.len() > 1 {
            print_sweep(Path::new("all files"), variants, &totals.all);
        }
    } else if variants.len() > 1 {
        let rate = |v: &Sums| v.nodes as f64 / v.cpu.max(1e-9);
        for (v, sums) in variants.iter().zip(&totals.all) {
            println!(
                "kernel {:<8} {:8.3} s CPU {:>13} nodes {:6.2} Mn/s, node rate {:.3} x {}",
                v.kernel.name(),
                sums.cpu,
                sums.nodes,
                rate(sums) / 1e6,
                rate(sums) / rate(&totals.all[0]),
                variants[0].kernel.name()
            );
        }
    }
}

/// One file's thread sweep, against its first thread count.
fn print_sweep(file: &Path, variants: &[Variant], sums: &[Sums]) {
    println!("{}:", file.display());
    println!("  threads     time s        nodes   Mn/s  speed-up  efficiency  nodes x");
    let (base, base_threads) = (&sums[0], variants[0].threads as f64);
    for (v, s) in variants.iter().zip(sums) {
        let speed_up = base.wall / s.wall.max(1e-9);
        println!(
            "  {:>7} {:>10.3} {:>12} {:>6.1} {:>9.2} {:>11.2} {:>8.3}",
            v.threads,
            s.wall,
            s.nodes,
            s.nodes as f64 / s.wall.max(1e-9) / 1e6,
            speed_up,
            speed_up * base_threads / v.threads as f64,
            s.nodes as f64 / base.nodes.max(1) as f64,
        );
        if let Some(st) = &s.stats {
            println!("          {}", counters_line(st));
        }
    }
}

fn perft_fast(p: u64, o: u64, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = strong::flips::moves(p, o);
    if moves == 0 {
        if strong::flips::moves(o, p) == 0 {
            return 1;
        }
        return perft_fast(o, p, depth - 1);
    }
    if depth == 1 {
        return moves.count_ones() as u64;
    }
    let mut n = 0;
    let mut m = moves;
    while m != 0 {
        let sq = m.trailing_zeros();
        m &= m - 1;
        let f = strong::flips::flips(p, o, sq);
        n += perft_fast(o ^ f, p | f | (1 << sq), depth - 1);
    }
    n
}

fn perft_compare(depth: u32) {
    use othello_sdk::board::{perft, Board, PassRule};
    let t = Instant::now();
    let a = perft_fast(Board::START.player, Board::START.opponent, depth.max(1));
    let fast = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let b = perft(Board::START, depth, PassRule::PassIsAMove);
    let slow = t.elapsed().as_secs_f64();
    assert_eq!(a, b, "perft mismatch");
    println!(
        "perft {depth}: {a} leaves; strong::flips {fast:.3} s ({:.3e} leaves/s); othello-board {slow:.3} s ({:.3e} leaves/s)",
        a as f64 / fast.max(1e-9),
        b as f64 / slow.max(1e-9)
    );
}

/// A xorshift generator for the data commands (reproducible runs).
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    }
}

/// A position after a random game stopped at `target` empties, with a move to play; `None`
/// when the game ended before.
fn random_position(
    next: &mut impl FnMut() -> u64,
    target: u32,
) -> Option<othello_sdk::board::Board> {
    let mut b = othello_sdk::board::Board::START;
    while b.empties() > target {
        let m = b.moves();
        if m == 0 {
            if b.pass().moves() == 0 {
                return None;
            }
            b = b.pass();
            continue;
        }
        let mut mm = m;
        for _ in 0..(next() % m.count_ones() as u64) {
            mm &= mm - 1;
        }
        let sq = mm.trailing_zeros();
        b = b.play_with_flips(sq, b.flips(sq));
    }
    (b.moves() != 0).then_some(b)
}

/// Where the Multi-ProbCut fits draw their positions from.
enum PositionSource {
    /// Random games (uniform random moves) stopped at the wanted number of empties.
    Random,
    /// The committed self-play games of the trained engine (`data/training/selfplay-d10-*`),
    /// after their random opening plies: the positions the engine meets in play.
    SelfPlay(Vec<selfplay_file::SelfPlayGame>),
}

impl PositionSource {
    /// The source `--positions` names.
    fn new(positions: Positions) -> PositionSource {
        match positions {
            Positions::Random => PositionSource::Random,
            Positions::Selfplay => PositionSource::SelfPlay(selfplay_games()),
        }
    }

    /// A position with `target` empties and a move to play, or `None` (draw again).
    fn draw(
        &self,
        next: &mut impl FnMut() -> u64,
        target: u32,
    ) -> Option<othello_sdk::board::Board> {
        use othello_sdk::board::Position;
        match self {
            PositionSource::Random => random_position(next, target),
            PositionSource::SelfPlay(games) => {
                let game = &games[(next() % games.len() as u64) as usize];
                let mut p = Position::START;
                for (ply, &mv) in game.moves.iter().enumerate() {
                    if p.empties() == target {
                        // Positions of the random opening are not the engine's own.
                        return (ply >= game.random_plies && !p.must_pass()).then_some(p.board);
                    }
                    p = p.play(mv).ok()?;
                }
                None
            }
        }
    }
}

/// Every game of the committed depth-10 self-play files (`data/training/selfplay-d10-*`).
fn selfplay_games() -> Vec<selfplay_file::SelfPlayGame> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/data/training");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("the training folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("selfplay-d10-"))
        })
        .collect();
    files.sort();
    let mut games = Vec::new();
    for f in files {
        games.extend(selfplay_file::read_selfplay(&f).unwrap_or_else(|e| {
            eprintln!("strong-bench: {e}");
            std::process::exit(1)
        }));
    }
    games
}

/// Least squares `y = a x + b` and the residual standard deviation.
fn fit(pts: &[(f64, f64)]) -> (f64, f64, f64) {
    let n = pts.len() as f64;
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let a = if sxx > 0.0 { sxy / sxx } else { 1.0 };
    let b = my - a * mx;
    let var = pts.iter().map(|p| (p.1 - a * p.0 - b).powi(2)).sum::<f64>() / (n - 2.0).max(1.0);
    (a, b, var.sqrt())
}

/// `--end-mpc-data N`: for every number of empties of `mpc::END_MPC_TABLE`, N random
/// positions solved exactly (disc score times SCALE) against a midgame search of depth
/// `end_mpc_shallow(n)`; one least-squares line per number of empties, printed as a table.
fn end_mpc_data(count: usize, make_eval: &dyn Fn() -> Box<dyn Evaluator>, source: &PositionSource) {
    use strong::mpc::{end_mpc_shallow, END_MPC_MAX_EMPTIES, END_MPC_MIN_EMPTIES};
    use strong::score::{MID_INF, SCALE};
    let mut next = rng(0x0E4D_6A3C_5B2F_1987);
    let tt = Arc::new(Tt::new(64));
    println!("// empties: (a, b, sigma), fitted on {count} positions each");
    for n in END_MPC_MIN_EMPTIES..=END_MPC_MAX_EMPTIES {
        let ds = end_mpc_shallow(n);
        let mut pts = Vec::new();
        while pts.len() < count {
            let Some(b) = source.draw(&mut next, n) else {
                continue;
            };
            tt.clear();
            let mut s = Searcher::new(tt.clone(), make_eval(), None);
            s.mpc = None;
            let shallow = s.mid_search(b, ds, -MID_INF, MID_INF);
            let exact = s.solve(b) * SCALE;
            pts.push((shallow as f64, exact as f64));
        }
        let (a, b, sigma) = fit(&pts);
        println!("    ({a:.3}, {b:.1}, {sigma:.1}), // {n} empties, shallow {ds}");
    }
}

fn mpc_data(count: usize, make_eval: &dyn Fn() -> Box<dyn Evaluator>, source: &PositionSource) {
    use strong::mpc::{mpc_shallow, MPC_MAX_DEPTH};
    use strong::score::MID_INF;
    let max_d = MPC_MAX_DEPTH;
    let mut next = rng(0x5DEE_CE66_D1CE_4E5B);
    let tt = Arc::new(Tt::new(64));
    // values[i][d] for position i
    let mut values: Vec<Vec<i32>> = Vec::new();
    while values.len() < count {
        let target = 20 + (next() % 31) as u32;
        let Some(b) = source.draw(&mut next, target) else {
            continue;
        };
        tt.clear();
        let mut s = Searcher::new(tt.clone(), make_eval(), None);
        s.mpc = None;
        let v: Vec<i32> = (0..=max_d)
            .map(|d| s.mid_search(b, d, -MID_INF, MID_INF))
            .collect();
        values.push(v);
    }
    println!("// depth: (a, b, sigma), fitted on {count} positions");
    for d in 2..=max_d {
        let ds = mpc_shallow(d);
        let pts: Vec<(f64, f64)> = values
            .iter()
            .map(|v| (v[ds as usize] as f64, v[d as usize] as f64))
            .collect();
        let (a, b, sigma) = fit(&pts);
        println!("    ({a:.3}, {b:.1}, {sigma:.1}), // d = {d}, shallow {ds}");
    }
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

/// `count` random positions of 20-50 empties (the `--nps` set).
fn nps_positions(count: usize) -> Vec<othello_sdk::board::Board> {
    let mut next = rng(0x1234_5678_9ABC_DEF1);
    let mut positions = Vec::new();
    while positions.len() < count {
        let target = 20 + (next() % 31) as u32;
        if let Some(b) = random_position(&mut next, target) {
            positions.push(b);
        }
    }
    positions
}

/// `--nps D N --kernel A,B...`: fixed-depth midgame searches of the same positions on each
/// kernel, alternating position by position.
fn nps_kernels(
    depth: u32,
    count: usize,
    kernels: &[strong::kernel::KernelId],
    make_eval: &dyn Fn() -> Box<dyn Evaluator>,
) {
    use strong::score::MID_INF;
    strong::stability::init();
    let positions = nps_positions(count);
    let tt = Arc::new(Tt::new(64));
    let mut totals = vec![(0u64, 0f64); kernels.len()];
    for (i, b) in positions.iter().enumerate() {
        for j in 0..kernels.len() {
            let k = if i % 2 == 0 { j } else { kernels.len() - 1 - j };
            tt.clear();
            let mut s = Searcher::new(tt.clone(), make_eval(), None);
            s.kernel = kernels[k];
            let t = Stopwatch::start();
            s.mid_search(*b, depth, -MID_INF, MID_INF);
            totals[k].0 += s.nodes;
            totals[k].1 += t.read().1;
        }
    }
    let rate = |k: usize| totals[k].0 as f64 / totals[k].1;
    for (k, id) in kernels.iter().enumerate() {
        println!(
            "{:<8} depth {depth}, {count} positions: {} nodes, {:.3} s CPU, {:.2} Mn/s, node rate {:.3} x {}",
            id.name(),
            totals[k].0,
            totals[k].1,
            rate(k) / 1e6,
            rate(k) / rate(0),
            kernels[0].name()
        );
    }
}

/// `--nps D N`: fixed-depth midgame searches of the same positions with both evaluations.
fn nps(depth: u32, count: usize, kernel: strong::kernel::KernelId) {
    use strong::score::MID_INF;
    strong::stability::init();
    let positions = nps_positions(count);
    let evals = both_evaluations();
    let tt = Arc::new(Tt::new(64));
    let mut totals = [(0u64, 0f64); 2];
    // Alternate position by position so that both see the same machine load.
    for b in &positions {
        for (k, (_, make)) in evals.iter().enumerate() {
            tt.clear();
            let mut s = Searcher::new(tt.clone(), make(), None);
            s.kernel = kernel;
            let t = Stopwatch::start();
            s.mid_search(*b, depth, -MID_INF, MID_INF);
            totals[k].0 += s.nodes;
            totals[k].1 += t.read().1;
        }
    }
    for (k, (name, _)) in evals.iter().enumerate() {
        let (n, t) = totals[k];
        println!(
            "{name:<8} depth {depth}, {count} positions: {n} nodes, {t:.3} s, {:.2} Mn/s",
            n as f64 / t / 1e6
        );
    }
    let rate = |k: usize| totals[k].0 as f64 / totals[k].1;
    println!(
        "trained / simple: node rate {:.3}, time to depth {:.3}, nodes {:.3}",
        rate(1) / rate(0),
        totals[1].1 / totals[0].1,
        totals[1].0 as f64 / totals[0].0 as f64
    );
}

/// `--solve-times N`: median and mean exact-solve time per number of empties, both evaluations.
fn solve_times(count: usize) {
    use othello_sdk::board::{parse_transcript, replay, Position};
    strong::stability::init();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/training/selfplay-d8-e18.txt"
    );
    let text = std::fs::read_to_string(path).expect("the self-play file");
    let games: Vec<Vec<othello_sdk::board::Move>> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            l.split_whitespace()
                .nth(1)
                .map(|t| parse_transcript(t).expect("transcript"))
        })
        .collect();
    let evals = both_evaluations();
    let tt = Arc::new(Tt::new(64));
    println!("empties  simple median/mean (s)   trained median/mean (s)");
    for n in 14..=22u32 {
        // The position at `n` empties of games spread over the file.
        let mut positions = Vec::new();
        for moves in games.iter().step_by(37) {
            let (played, _) = replay(Position::START, moves).expect("the self-play file replays");
            let mut p = Position::START;
            for &mv in &played {
                if p.empties() == n && !p.must_pass() {
                    positions.push(p.board);
                    break;
                }
                p = p.play(mv).expect("replayed moves are legal");
            }
            if positions.len() == count {
                break;
            }
        }
        let mut row = format!("{n:>7}");
        for (_, make) in &evals {
            let mut times: Vec<f64> = positions
                .iter()
                .map(|b| {
                    tt.clear();
                    let mut s = Searcher::new(tt.clone(), make(), None);
                    let t = Instant::now();
                    s.think(*b, &Plan::solve(), &mut |_| {});
                    t.elapsed().as_secs_f64()
                })
                .collect();
            times.sort_by(f64::total_cmp);
            let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
            row += &format!("   {:>9.4} / {:>9.4}", times[times.len() / 2], mean);
        }
        println!("{row}");
    }
}
