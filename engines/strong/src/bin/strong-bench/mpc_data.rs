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
//! `--positions random|selfplay` (both; default `random`): where those positions come from:
//! random games, or the committed depth-10 self-play games after their random openings (the
//! positions the engine meets in play; the tables in `strong::mpc` are fitted on these).

use crate::position_source::{rng, PositionSource};
use std::sync::Arc;
use strong::eval::Evaluator;
use strong::search::Searcher;
use strong::tt::Tt;

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
pub fn end_mpc_data(
    count: usize,
    make_eval: &dyn Fn() -> Box<dyn Evaluator>,
    source: &PositionSource,
) {
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

pub fn mpc_data(count: usize, make_eval: &dyn Fn() -> Box<dyn Evaluator>, source: &PositionSource) {
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
