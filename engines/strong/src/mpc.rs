//! Multi-ProbCut (Buro): the selectivity levels, and the fitted tables by which a shallow
//! search predicts a deep one, for the midgame search (per node depth) and for the selective
//! endgame (per number of empties); each evaluation brings its own pair of tables
//! ([`crate::eval::Evaluator::mpc_tables`]).
//!
//! Invariant: a midgame table has one row per depth from 0 to [`MPC_MAX_DEPTH`], an endgame
//! table one per number of empties from [`END_MPC_MIN_EMPTIES`] to [`END_MPC_MAX_EMPTIES`]
//! ([`MpcTable`] and [`EndMpcTable`] fix the lengths); every row was fitted against a shallow
//! search of the depth that [`mpc_shallow`] (midgame) or [`end_mpc_shallow`] (endgame) gives
//! for it, so changing one of those functions means refitting its tables (`strong-bench
//! mpc-data`, `end-mpc-data`).

/// Selectivity levels (Edax's): cut probability thresholds `t` in standard deviations and the
/// percentage reported; the last level is no selectivity.
pub const SELECTIVITY: [(f64, u32); 6] = [
    (1.1, 73),
    (1.5, 87),
    (2.0, 95),
    (2.6, 98),
    (3.3, 99),
    (f64::INFINITY, 100),
];

// Midgame: Multi-ProbCut at nodes of depth MPC_MIN_DEPTH..=MPC_MAX_DEPTH.

/// Deepest node depth with Multi-ProbCut parameters.
pub const MPC_MAX_DEPTH: u32 = 10;
/// Shallowest node depth where Multi-ProbCut is tried.
pub const MPC_MIN_DEPTH: u32 = 3;
/// No Multi-ProbCut while a side has this many discs or fewer: a wipeout may be a few plies
/// away, which a shallow search does not see and the fitted error (from ordinary positions)
/// does not cover. Early in the game such nodes are common, so the bar stays low.
pub const MPC_MIN_DISCS: u32 = 4;

/// The depth of the shallow search that predicts a search of depth `d` (about half of it,
/// keeping the parity of the depth where possible, as the evaluation alternates by ply).
pub const fn mpc_shallow(d: u32) -> u32 {
    if d <= 2 {
        0
    } else {
        let s = d / 2;
        s - (d - s) % 2
    }
}

/// Multi-ProbCut: `v_d ~ a * v_s + b`, residual standard deviation `sigma`, per depth `d`
/// (index), in evaluation units (100 per disc); fitted by `strong-bench mpc-data 2000
/// --positions selfplay` with the trained pattern evaluation (2,000 positions at 20-50
/// empties from the committed self-play games, after their random openings, searched without
/// selectivity at depths 0-10; least squares per depth, `sigma` the residual standard
/// deviation). The prediction error is 3.8-5.1 discs at depths 3-10 (4.1-6.0 with the
/// previous weights, fitted on less self-play: a better evaluation is also a more consistent
/// one from depth to depth); `a` is near 1 because the evaluation is calibrated in discs.
/// Each evaluation brings its own table ([`crate::eval::Evaluator::mpc_tables`]), so new
/// weights mean a refit.
///
/// The positions matter: fitted on random games (uniform random moves) the errors came out
/// wide enough that few nodes were cut; fitted on the engine's own positions the table plays
/// better (figures: `docs/measurements.md`, "Figures behind the constants").
pub const MPC_TABLE: MpcTable = [
    (1.0, 0.0, 0.0),        // d = 0: unused
    (1.0, 0.0, 0.0),        // d = 1: unused
    (0.958, -93.5, 486.3),  // d = 2, shallow 0 (unused: below MPC_MIN_DEPTH)
    (0.969, -100.9, 430.5), // d = 3, shallow 1
    (0.988, -30.9, 378.6),  // d = 4, shallow 2
    (0.957, -146.0, 506.7), // d = 5, shallow 1
    (0.980, -48.1, 447.5),  // d = 6, shallow 2
    (0.984, -82.6, 405.9),  // d = 7, shallow 3
    (0.995, -15.1, 375.2),  // d = 8, shallow 4
    (0.985, -102.4, 471.5), // d = 9, shallow 3
    (0.996, -25.7, 443.1),  // d = 10, shallow 4
];

/// [`MPC_TABLE`] for the interim hand evaluation (`Eval=simple`), fitted the same way with it
/// (`strong-bench mpc-data 400 --eval simple`): its scores are compressed, `a > 1`, and the
/// prediction error is 3-6 discs.
pub const MPC_TABLE_SIMPLE: MpcTable = [
    (1.0, 0.0, 0.0),        // d = 0: unused
    (1.0, 0.0, 0.0),        // d = 1: unused
    (1.011, 31.2, 492.2),   // d = 2, shallow 0 (unused: below MPC_MIN_DEPTH)
    (1.041, -70.4, 346.9),  // d = 3, shallow 1
    (1.048, 2.6, 314.9),    // d = 4, shallow 2
    (1.109, -106.7, 526.6), // d = 5, shallow 1
    (1.122, 32.0, 497.3),   // d = 6, shallow 2
    (1.146, -57.8, 437.6),  // d = 7, shallow 3
    (1.167, 43.5, 381.5),   // d = 8, shallow 4
    (1.243, -96.5, 565.4),  // d = 9, shallow 3
    (1.271, 42.6, 515.3),   // d = 10, shallow 4
];

/// A Multi-ProbCut table: `(a, b, sigma)` per depth.
pub type MpcTable = [(f64, f64, f64); MPC_MAX_DEPTH as usize + 1];

// Selective endgame: Multi-ProbCut at the exact solver's null-window nodes.

/// Selective endgame search (Multi-ProbCut at null-window solver nodes): from this many
/// empties on...
pub const END_MPC_MIN_EMPTIES: u32 = 14;
/// ...to this many (larger nodes use this row of the table).
pub const END_MPC_MAX_EMPTIES: u32 = 24;

/// The depth of the midgame search that predicts the exact score of a node with `n` empties:
/// 2 at 14-17 empties, 4 at 18-21, 6 at 22-25, 8 beyond.
pub const fn end_mpc_shallow(n: u32) -> u32 {
    let d = (n.saturating_sub(10) / 4) * 2;
    if d < 2 {
        2
    } else if d > 8 {
        8
    } else {
        d
    }
}

/// `exact * SCALE ~ a * v_s + b` with residual standard deviation `sigma` (evaluation units),
/// per number of empties from [`END_MPC_MIN_EMPTIES`]; fitted with the trained pattern
/// evaluation by `strong-bench end-mpc-data 40 --positions selfplay` (40 positions per row
/// from the committed self-play games, 10 minutes). The prediction error is 4.2-7.9 discs
/// (4.9-8.4 with the previous weights; 6.5-10 on random positions; the interim hand
/// evaluation's was 13-17).
pub const END_MPC_TABLE: EndMpcTable = [
    (1.065, 30.5, 627.0),   // 14 empties, shallow 2
    (0.918, -97.0, 787.6),  // 15 empties, shallow 2
    (0.965, -114.1, 564.3), // 16 empties, shallow 2
    (1.005, 113.1, 684.3),  // 17 empties, shallow 2
    (0.960, 63.9, 597.2),   // 18 empties, shallow 4
    (0.993, 3.2, 457.7),    // 19 empties, shallow 4
    (1.095, 18.3, 589.4),   // 20 empties, shallow 4
    (0.946, 173.1, 555.7),  // 21 empties, shallow 4
    (1.065, -29.6, 418.4),  // 22 empties, shallow 6
    (0.994, 319.8, 557.7),  // 23 empties, shallow 6
    (1.090, 52.0, 496.7),   // 24 empties, shallow 6
];

/// [`END_MPC_TABLE`] for the interim hand evaluation (`Eval=simple`), fitted with it by
/// `strong-bench end-mpc-data 60 --eval simple`: its prediction error is 13-17 discs.
pub const END_MPC_TABLE_SIMPLE: EndMpcTable = [
    (0.824, 539.2, 1320.3), // 14 empties, shallow 2
    (0.757, 919.8, 1623.0), // 15 empties, shallow 2
    (0.822, 458.5, 1720.3), // 16 empties, shallow 2
    (0.879, 750.1, 1347.0), // 17 empties, shallow 2
    (0.973, 701.1, 1334.5), // 18 empties, shallow 4
    (1.013, 175.5, 1679.3), // 19 empties, shallow 4
    (1.092, 325.1, 1544.0), // 20 empties, shallow 4
    (1.064, 454.8, 1287.1), // 21 empties, shallow 4
    (1.036, 531.6, 1513.7), // 22 empties, shallow 6
    (1.036, 531.6, 1513.7), // 23: the row of 22
    (1.036, 531.6, 1513.7), // 24: the row of 22
];

/// A selective-endgame table: `(a, b, sigma)` per number of empties from 14 to 24.
pub type EndMpcTable = [(f64, f64, f64); (END_MPC_MAX_EMPTIES - END_MPC_MIN_EMPTIES + 1) as usize];

/// What a ProbCut test's shallow searches found (`Searcher::probcut_tests`).
pub(crate) enum ProbCut {
    /// The search was aborted meanwhile.
    Aborted,
    /// The shallow value reached the upper bound: the deep one is predicted above beta.
    High,
    /// It stayed at or below the lower bound: the deep one is predicted below alpha.
    Low,
    /// Neither: search the node.
    Neither,
}
