//! `nps D N` (default 10 100): the midgame search speed of both evaluations: the same N random
//! positions (20-50 empties) searched to depth D with the interim and with the trained
//! evaluation, alternating, and the ratio of their node rates; with `--kernel A,B...`, of the
//! `--eval` evaluation on each kernel instead.

use crate::both_evaluations;
use crate::position_source::{random_position, rng};
use crate::stopwatch::Stopwatch;
use std::sync::Arc;
use strong::eval::Evaluator;
use strong::search::Searcher;
use strong::tt::Tt;

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
pub fn nps_kernels(
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
pub fn nps(depth: u32, count: usize, kernel: strong::kernel::KernelId) {
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
