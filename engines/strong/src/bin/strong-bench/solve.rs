//! `solve [FILE.obf...]` (also what `strong-bench` alone runs; default file: the FFO #20-#39
//! file of this crate): an exact solve of every position of OBF files, printing per position:
//! number, empties, best move, score, the file's best score, ok/wrong, time, nodes, nodes/s;
//! then the totals (exit code 1 if a score or move is wrong).
//!
//! `--move-time S`: each position searched for S seconds instead (as under a clock: midgame
//! iterations, then the selective endgame stages, then the exact solve if time allows;
//! `--no-selective`: without the selective stages; `--midgame`: midgame iterations only, as a
//! clock gives them above the read-ahead threshold); a position counts as right when the move
//! played is one of the file's best moves. `--depth D`: a midgame search of depth D instead,
//! not judged (with `--threads 1,2`, the midgame's time to depth).
//!
//! `--kernel K[,K2...]` (default: the fastest this CPU has, see `strong::kernel`): the
//! move-generation kernels (`portable`, `bmi2`, `avx2`, `avx512`) the search runs on; with two
//! or more, each position is searched with each kernel in turn (the order alternating from one
//! position to the next, so that all see the same machine load), and the totals end with each
//! kernel's node rate relative to the first.
//!
//! `--threads N` searches with N threads (Young Brothers Wait in the solver, see
//! `strong::parallel`); `--threads 1,2,4,8,16` is a sweep: each position is searched with each
//! count in turn, and every file ends with a table of time, nodes, node rate, speed-up and
//! efficiency against the first count. `--counters` adds what the threads did (split points
//! offered and taken, idle time, nodes thrown away, lock waits, the node rate of a busy
//! thread), per search and per file.
//!
//! `--reports`: every iteration's report too; `--root-moves`: every root move's solver search
//! (window, score, nodes).

use crate::stopwatch::Stopwatch;
use crate::{parse_kernels, read_obf, Kernels};
use clap::Args;
use othello_sdk::board::ObfLine;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use strong::eval::Evaluator;
use strong::kernel::KernelId;
use strong::parallel::{ParallelStats, SearchTeam};
use strong::search::Searcher;
use strong::time::Plan;
use strong::tt::Tt;

#[derive(Args, Default)]
pub struct SolveArgs {
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
pub fn solve_files(args: SolveArgs, hash: usize, make_eval: &dyn Fn() -> Box<dyn Evaluator>) {
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
