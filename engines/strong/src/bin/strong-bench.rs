//! Benchmark of the search core without the ABI: exact solve of every position of OBF files.
//!
//! `strong-bench [--hash MIB] FILE.obf...` (default: the FFO #20-#39 file of this crate) prints
//! per position: number, empties, best move, score, the file's best score, ok/wrong, time,
//! nodes, nodes/s; then the totals.
//!
//! `strong-bench --move-time S [--no-selective | --midgame] [FILE.obf...]`: each position
//! searched for S seconds (as under a clock: midgame iterations, then the selective endgame
//! stages, then the exact solve if time allows; `--midgame`: midgame iterations only, as a
//! clock gives them above the read-ahead threshold); a position counts as right when the move
//! played is one of the file's best moves.
//!
//! `strong-bench --mpc-data N`: the data behind the Multi-ProbCut parameters of
//! `strong::mpc::MPC_TABLE`: N random positions (random games stopped at 20-50 empties), searched
//! without selectivity at every depth 0..=10; for each depth d, a least-squares fit
//! `v_d = a v_s + b` on the value at the shallow depth `mpc_shallow(d)`, with the residual
//! standard deviation, printed as a Rust table.
//!
//! `strong-bench --end-mpc-data N`: the data behind the selective endgame's parameters
//! (`strong::mpc::END_MPC_TABLE`): per number of empties, N random positions solved exactly
//! against a midgame search of depth `end_mpc_shallow(n)`, fitted the same way.
//!
//! `--positions random|selfplay` (with `--mpc-data` and `--end-mpc-data`; default `random`):
//! where those positions come from: random games, or the committed depth-10 self-play games
//! after their random openings (the positions the engine meets in play; the tables in
//! `strong::mpc` are fitted on these).
//!
//! `strong-bench --values D FILE.obf`: each position's value (discs, side to move's view) by a
//! midgame search of depth D, one `<move> <value>` line per position (to compare evaluations
//! and search depths against exact scores).
//!
//! `--eval simple|trained|FILE` (any mode; default `trained`): the evaluation searched with,
//! the interim hand-written one, the embedded pattern weights or a weight file.
//!
//! `--kernel K[,K2...]` (solve mode and `--nps`; default: the fastest this CPU has, see
//! `strong::kernel`): the move-generation kernels (`portable`, `bmi2`, `avx2`, `avx512`) the
//! search runs on. With two or more, each position is searched with each kernel in turn (the
//! order alternating from one position to the next, so that all see the same machine load),
//! and the totals end with each kernel's node rate relative to the first.
//!
//! `strong-bench --nps D N`: the midgame search speed of both evaluations: the same N random
//! positions (20-50 empties) searched to depth D with the interim and with the trained
//! evaluation, alternating, and the ratio of their node rates.
//!
//! `strong-bench --solve-times N`: the cost of an exact solve (as the engine runs it: `think`) by number of empties (14-22),
//! with each evaluation, on N realistic positions per row (from the committed self-play games),
//! the data behind the exact-solve thresholds of `strong::time::solve_empties_for`.
//!
//! `strong-bench --evaluate TRANSCRIPT [--eval E]`: the interim evaluation and E (default
//! `trained`) of the position after the moves.
//!
//! `strong-bench --perft N`: perft N from the start (pass is a move) with this crate's inlined
//! portable move generator and flips, and with the rules crate's `perft`, which runs the
//! fastest SIMD kernel of the CPU (the one the search runs on by default), for comparison.

// The self-play file reader of the `train` tool (this tool does not read the final scores).
#[path = "train/selfplay_file.rs"]
#[allow(dead_code)]
mod selfplay_file;

use othello_sdk::board::ObfLine;
use std::sync::Arc;
use std::time::Instant;
use strong::eval::EvalSource;
use strong::eval::Evaluator;
use strong::search::Searcher;
use strong::time::Plan;
use strong::tt::Tt;

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
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut hash = 256;
    if let Some(i) = args.iter().position(|a| a == "--hash") {
        hash = args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or(hash);
        args.drain(i..(i + 2).min(args.len()));
    }
    let mut eval = "trained".to_string();
    if let Some(i) = args.iter().position(|a| a == "--eval") {
        eval = args.get(i + 1).cloned().unwrap_or(eval);
        args.drain(i..(i + 2).min(args.len()));
    }
    let make_eval = evaluator(&eval);
    let mut positions = "random".to_string();
    if let Some(i) = args.iter().position(|a| a == "--positions") {
        positions = args.get(i + 1).cloned().unwrap_or(positions);
        args.drain(i..(i + 2).min(args.len()));
    }
    let source = PositionSource::named(&positions);
    let mut kernels = vec![strong::kernel::default_kernel()];
    if let Some(i) = args.iter().position(|a| a == "--kernel") {
        let list = args.get(i + 1).cloned().unwrap_or_default();
        kernels = list
            .split(',')
            .map(|name| {
                strong::kernel::kernel_named(name).unwrap_or_else(|| {
                    eprintln!("strong-bench: kernel `{name}` unknown or not run by this CPU");
                    std::process::exit(2)
                })
            })
            .collect();
        args.drain(i..(i + 2).min(args.len()));
    }
    if let Some(i) = args.iter().position(|a| a == "--nps") {
        let d = args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or(10);
        let n = args.get(i + 2).and_then(|v| v.parse().ok()).unwrap_or(100);
        if kernels.len() > 1 {
            nps_kernels(d, n, &kernels, &make_eval);
        } else {
            nps(d, n, kernels[0]);
        }
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--values") {
        // `--values D FILE.obf`: each position's value (discs, side to move's view) by a
        // midgame search of depth D with no time limit, one line per position.
        let depth: u32 = args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or(1);
        let file = args.get(i + 2).expect("an OBF file");
        strong::stability::init();
        let tt = Arc::new(Tt::new(hash));
        let text = std::fs::read_to_string(file).expect("readable file");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let obf: ObfLine = line.parse().expect("OBF line");
            tt.clear();
            let mut s = Searcher::new(tt.clone(), make_eval(), None);
            let out = s.think(obf.position.board, &Plan::depth(depth), &mut |_| {});
            println!("{} {:+.2}", out.mv, out.info.score);
        }
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--evaluate") {
        // `--evaluate TRANSCRIPT`: the interim evaluation and `--eval` of the position.
        let moves = othello_sdk::board::parse_transcript(args.get(i + 1).map_or("", |s| s))
            .expect("a transcript");
        let (_, p) = othello_sdk::board::replay(othello_sdk::board::Position::START, &moves)
            .expect("a legal transcript");
        for name in ["simple", eval.as_str()] {
            let v = evaluator(name)().evaluate(&p.board);
            println!(
                "{name:<8} {:+.2} discs ({} to move)",
                v as f64 / 100.0,
                p.side_to_move
            );
        }
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--solve-times") {
        let n = args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or(10);
        solve_times(n);
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--end-mpc-data") {
        let n = args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or(60);
        end_mpc_data(n, &make_eval, &source);
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--mpc-data") {
        let n = args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or(200);
        mpc_data(n, &make_eval, &source);
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--perft") {
        let depth = args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or(12);
        perft_compare(depth);
        return;
    }
    // `--move-time S [--no-selective]`: solve under a time limit instead, with or without the
    // selective endgame stages, and count the best moves found.
    let mut move_time = None;
    if let Some(i) = args.iter().position(|a| a == "--move-time") {
        move_time = args.get(i + 1).and_then(|v| v.parse::<f64>().ok());
        args.drain(i..(i + 2).min(args.len()));
    }
    let selective = !take_flag(&mut args, "--no-selective");
    // `--midgame`: with `--move-time`, search as the midgame does (no read to the end).
    let midgame = take_flag(&mut args, "--midgame");
    let plan = match move_time {
        Some(t) => Plan {
            solve_empties: if midgame { 0 } else { 64 },
            hard_time: Some(std::time::Duration::from_secs_f64(t)),
            soft_time: Some(std::time::Duration::from_secs_f64(t * 0.4)),
            selective_endgame: selective,
            ..Plan::solve()
        },
        None => Plan::solve(),
    };
    if args.is_empty() {
        args.push(concat!(env!("CARGO_MANIFEST_DIR"), "/data/fforum-20-39.obf").to_string());
    }
    strong::stability::init();
    let tt = Arc::new(Tt::new(hash));
    let (mut total_nodes, mut total_time, mut wrong, mut n) = (0u64, 0f64, 0, 0);
    // Per kernel: nodes and seconds.
    let mut per_kernel = vec![(0u64, 0f64); kernels.len()];
    let mut runs = 0usize;
    for file in &args {
        let text = std::fs::read_to_string(file).expect("readable file");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let obf: ObfLine = line.parse().expect("OBF line");
            n += 1;
            for j in 0..kernels.len() {
                // Alternate the order of the kernels from one position to the next.
                let ki = if n % 2 == 0 { kernels.len() - 1 - j } else { j };
                runs += 1;
                tt.clear();
                let mut s = Searcher::new(tt.clone(), make_eval(), None);
                s.kernel = kernels[ki];
                let t = Stopwatch::start();
                let out = s.think(obf.position.board, &plan, &mut |_| {});
                let (secs, cpu) = t.read();
                let score = out.info.score as i32;
                let expected = obf.best_score().unwrap_or(score);
                let move_ok = obf
                    .move_scores
                    .iter()
                    .any(|&(m, s)| m == out.mv && s == expected);
                // Under a time limit only the move counts (the score may be a selective one).
                let ok = (move_time.is_some() || score == expected)
                    && (obf.move_scores.is_empty() || move_ok);
                if !ok {
                    wrong += 1;
                }
                total_nodes += out.info.nodes;
                total_time += secs;
                per_kernel[ki].0 += out.info.nodes;
                per_kernel[ki].1 += cpu;
                let label = if kernels.len() > 1 {
                    format!(" {:<8}", kernels[ki].name())
                } else {
                    String::new()
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
            }
        }
    }
    let total_cpu: f64 = per_kernel.iter().map(|k| k.1).sum();
    println!(
        "total: {n} positions, {runs} searches, {wrong} wrong, {total_time:.3} s ({total_cpu:.3} s CPU), {total_nodes} nodes, {:.1} Mn/s",
        total_nodes as f64 / total_time.max(1e-9) / 1e6
    );
    if kernels.len() > 1 {
        let rate = |k: usize| per_kernel[k].0 as f64 / per_kernel[k].1.max(1e-9);
        for (k, id) in kernels.iter().enumerate() {
            println!(
                "kernel {:<8} {:8.3} s CPU {:>13} nodes {:6.2} Mn/s, node rate {:.3} x {}",
                id.name(),
                per_kernel[k].1,
                per_kernel[k].0,
                rate(k) / 1e6,
                rate(k) / rate(0),
                kernels[0].name()
            );
        }
    }
    if wrong > 0 {
        std::process::exit(1);
    }
}

/// Whether `flag` is among `args`; removes it.
fn take_flag(args: &mut Vec<String>, flag: &str) -> bool {
    let at = args.iter().position(|a| a == flag);
    if let Some(i) = at {
        args.remove(i);
    }
    at.is_some()
}

/// Perft with the inlined generator of `strong::flips` (bulk counting at the last ply).
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

/// Generate Multi-ProbCut data and fit it (see the module docs).
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
    /// `--positions random|selfplay` (default `random`).
    fn named(name: &str) -> PositionSource {
        match name {
            "random" => PositionSource::Random,
            "selfplay" => PositionSource::SelfPlay(selfplay_games()),
            _ => {
                eprintln!("strong-bench: --positions {name}: expected `random` or `selfplay`");
                std::process::exit(2)
            }
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
