//! Benchmark of the search core without the ABI: exact solve of every position of OBF files.
//!
//! `strong-bench [--hash MIB] FILE.obf...` (default: the FFO #20-#39 file of this crate) prints
//! per position: number, empties, best move, score, the file's best score, ok/wrong, time,
//! nodes, nodes/s; then the totals.
//!
//! `strong-bench --mpc-data N`: the data behind the Multi-ProbCut parameters of
//! `strong::midgame`: N random positions (random games stopped at 20-50 empties), searched
//! without selectivity at every depth 0..=10; for each depth d, a least-squares fit
//! `v_d = a v_s + b` on the value at the shallow depth `mpc_shallow(d)`, with the residual
//! standard deviation, printed as a Rust table.
//!
//! `strong-bench --perft N`: perft N from the start (pass is a move) with this crate's inlined
//! move generator and flips (the portable ones the search uses), and with the rules crate's
//! `perft`, which runs the fastest SIMD kernel of the CPU, for comparison.

use othello_sdk::board::ObfLine;
use std::sync::Arc;
use std::time::Instant;
use strong::eval::HandEval;
use strong::search::{Plan, Searcher};
use strong::tt::Tt;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut hash = 256;
    if let Some(i) = args.iter().position(|a| a == "--hash") {
        hash = args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or(hash);
        args.drain(i..(i + 2).min(args.len()));
    }
    if let Some(i) = args.iter().position(|a| a == "--mpc-data") {
        let n = args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or(200);
        mpc_data(n);
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--perft") {
        let depth = args.get(i + 1).and_then(|v| v.parse().ok()).unwrap_or(12);
        perft_compare(depth);
        return;
    }
    if args.is_empty() {
        args.push(concat!(env!("CARGO_MANIFEST_DIR"), "/data/fforum-20-39.obf").to_string());
    }
    strong::stability::init();
    let tt = Arc::new(Tt::new(hash));
    let (mut total_nodes, mut total_time, mut wrong, mut n) = (0u64, 0f64, 0, 0);
    for file in &args {
        let text = std::fs::read_to_string(file).expect("readable file");
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let obf: ObfLine = line.parse().expect("OBF line");
            n += 1;
            tt.clear();
            let mut s = Searcher::new(tt.clone(), Box::new(HandEval::default()), None);
            let t = Instant::now();
            let out = s.think(obf.position.board, &Plan::solve(), &mut |_| {});
            let secs = t.elapsed().as_secs_f64();
            let score = out.info.score as i32;
            let expected = obf.best_score().unwrap_or(score);
            let move_ok = obf
                .move_scores
                .iter()
                .any(|&(m, s)| m == out.mv && s == expected);
            let ok = score == expected && (obf.move_scores.is_empty() || move_ok);
            if !ok {
                wrong += 1;
            }
            total_nodes += out.info.nodes;
            total_time += secs;
            println!(
                "#{n:<3} {:>2} empties  {:<4} {:+3} (file {:+3}) {:<5} {:8.3} s {:>13} nodes {:>6.1} Mn/s",
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
    println!(
        "total: {n} positions, {wrong} wrong, {total_time:.3} s, {total_nodes} nodes, {:.1} Mn/s",
        total_nodes as f64 / total_time.max(1e-9) / 1e6
    );
    if wrong > 0 {
        std::process::exit(1);
    }
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
fn mpc_data(count: usize) {
    use othello_sdk::board::Board;
    use strong::midgame::{mpc_shallow, MID_INF, MPC_MAX_DEPTH};
    let max_d = MPC_MAX_DEPTH;
    let mut state = 0x5DEE_CE66_D1CE_4E5Bu64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let tt = Arc::new(Tt::new(64));
    // values[i][d] for position i
    let mut values: Vec<Vec<i32>> = Vec::new();
    while values.len() < count {
        let target = 20 + (next() % 31) as u32;
        let mut b = Board::START;
        let mut ok = true;
        while b.empties() > target {
            let m = b.moves();
            if m == 0 {
                if b.pass().moves() == 0 {
                    ok = false;
                    break;
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
        if !ok || b.moves() == 0 {
            continue;
        }
        tt.clear();
        let mut s = Searcher::new(tt.clone(), Box::new(HandEval::default()), None);
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
        let n = pts.len() as f64;
        let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
        let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
        let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
        let a = if sxx > 0.0 { sxy / sxx } else { 1.0 };
        let b = my - a * mx;
        let var = pts.iter().map(|p| (p.1 - a * p.0 - b).powi(2)).sum::<f64>() / (n - 2.0).max(1.0);
        println!(
            "    ({a:.3}, {b:.1}, {:.1}), // d = {d}, shallow {ds}",
            var.sqrt()
        );
    }
}
