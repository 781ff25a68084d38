//! Evaluation: a swappable trait, the interim hand-written evaluation, and [`EvalSource`],
//! which names the evaluation a search gets (the interim one or trained pattern weights).
//!
//! The trait is below both evaluations: [`HandEval`] here and the trained
//! [`crate::pattern::PatternEval`] implement it. [`EvalSource`], which names either, lives in
//! its own file (`eval/source.rs`, re-exported here) above the pattern module: this file
//! imports nothing from `pattern`, so the two modules do not import each other.
//!
//! Evaluations are in [`crate::score`] units ([`SCALE`](crate::score::SCALE) per disc, side
//! to move's view), within `±EVAL_MAX`, so that exact (solved) scores dominate.
//!
//! The trait has incremental hooks (`on_play`/`on_undo`) that the midgame search calls around
//! every move, so a pattern evaluation with incrementally updated indices (Edax, Egaroucid)
//! can replace [`HandEval`] without touching the search.

use crate::bits::{neighbours, weighted_mobility, CORNERS};
use crate::mpc::{EndMpcTable, MpcTable};
use crate::score::EVAL_MAX;
use crate::stability::stable_edges;
use othello_sdk::board::Board;

mod source;
pub use source::EvalSource;

/// A position evaluation, side to move's view, in [`SCALE`](crate::score::SCALE) units per
/// disc, within `±EVAL_MAX`. Called on positions where the game is not over.
pub trait Evaluator: Send {
    fn evaluate(&mut self, b: &Board) -> i32;
    /// The evaluation of `child`, reached from `parent` by playing `sq` flipping `flips`
    /// (move ordering calls this for every child; an incremental evaluation can derive the
    /// child's features from the parent's).
    fn evaluate_after(&mut self, _parent: &Board, _sq: u32, _flips: u64, child: &Board) -> i32 {
        self.evaluate(child)
    }
    /// Called before the search descends into the child reached by playing `sq` (flipping
    /// `flips`) in `b`; `b.pass()` is signalled with `sq == 64` and `flips == 0`.
    fn on_play(&mut self, _b: &Board, _sq: u32, _flips: u64) {}
    /// Called after returning from that child.
    fn on_undo(&mut self, _b: &Board, _sq: u32, _flips: u64) {}
    /// A copy for another search thread.
    fn boxed_clone(&self) -> Box<dyn Evaluator>;
    /// The Multi-ProbCut tables fitted for this evaluation (midgame, endgame): how well a
    /// shallow search predicts a deep one depends on the evaluation.
    fn mpc_tables(&self) -> (&'static MpcTable, &'static EndMpcTable) {
        (&crate::mpc::MPC_TABLE, &crate::mpc::END_MPC_TABLE)
    }
    /// From how many empties on the exact solver orders moves by this evaluation.
    fn order_eval_empties(&self) -> u32 {
        crate::ordering::ORDER_EVAL_EMPTIES
    }
}

/// Weights of [`HandEval`] at the opening (60 empties) and at the end (0 empties), linearly
/// interpolated on the number of empties; units are [`SCALE`](crate::score::SCALE) per disc.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    /// Per corner owned (mine minus theirs).
    pub corner: [i32; 2],
    /// Per legal move (corners count twice), mine minus theirs.
    pub mobility: [i32; 2],
    /// Per empty square next to an opponent disc, mine minus theirs.
    pub potential_mobility: [i32; 2],
    /// Per X-square disc next to an empty corner (a penalty: negative).
    pub x_square: [i32; 2],
    /// Per C-square disc next to an empty corner (a penalty: negative).
    pub c_square: [i32; 2],
    /// Per stable edge disc (exact edge stability, corners included).
    pub stable_edge: [i32; 2],
    /// Per disc of plain disc difference.
    pub disc: [i32; 2],
    /// Bonus for the side to move when an odd number of squares is empty (it plays last).
    pub parity: [i32; 2],
}

/// Hand-chosen weights (not fitted): a corner ~ 8 discs, a move ~ 1.5 discs, an X-square next
/// to an empty corner ~ -5 discs; disc difference and parity only matter late.
pub const DEFAULT_WEIGHTS: Weights = Weights {
    corner: [800, 500],
    mobility: [150, 80],
    potential_mobility: [40, 15],
    x_square: [-500, -200],
    c_square: [-150, -50],
    stable_edge: [120, 150],
    disc: [-10, 100],
    parity: [0, 200],
};

/// The interim evaluation: mobility, potential mobility, corners, X- and C-squares, exact
/// edge stability, disc difference and parity, with phase-interpolated weights.
#[derive(Clone, Debug)]
pub struct HandEval {
    /// Weights per number of empties (0..=60), interpolated once.
    table: Vec<[i32; 8]>,
}

impl Default for HandEval {
    fn default() -> Self {
        HandEval::new(DEFAULT_WEIGHTS)
    }
}

impl HandEval {
    pub fn new(w: Weights) -> HandEval {
        let lerp = |x: [i32; 2], empties: i32| (x[0] * empties + x[1] * (60 - empties)) / 60;
        let table = (0..=64)
            .map(|e: i32| {
                let e = e.min(60);
                [
                    lerp(w.corner, e),
                    lerp(w.mobility, e),
                    lerp(w.potential_mobility, e),
                    lerp(w.x_square, e),
                    lerp(w.c_square, e),
                    lerp(w.stable_edge, e),
                    lerp(w.disc, e),
                    lerp(w.parity, e),
                ]
            })
            .collect();
        HandEval { table }
    }

    /// The evaluation (free function form, for ordering code that has no `&mut`).
    #[inline]
    pub fn score(&self, b: &Board) -> i32 {
        let (p, o) = (b.player, b.opponent);
        let empty = b.empty();
        let n = empty.count_ones() as usize;
        let w = &self.table[n];

        let mobility = weighted_mobility(crate::flips::moves(b.player, b.opponent)) as i32
            - weighted_mobility(crate::flips::moves(b.opponent, b.player)) as i32;
        // Empty squares next to the other side's discs: future moves.
        let potential = (neighbours(o) & empty).count_ones() as i32
            - (neighbours(p) & empty).count_ones() as i32;
        let corners = (p & CORNERS).count_ones() as i32 - (o & CORNERS).count_ones() as i32;
        // X- and C-squares are only a liability next to an empty corner.
        let ec = empty & CORNERS;
        let x_risky = x_of_corners(ec);
        let c_risky = c_of_corners(ec);
        let xs = (p & x_risky).count_ones() as i32 - (o & x_risky).count_ones() as i32;
        let cs = (p & c_risky).count_ones() as i32 - (o & c_risky).count_ones() as i32;
        let stable =
            stable_edges(p, o).count_ones() as i32 - stable_edges(o, p).count_ones() as i32;
        let discs = p.count_ones() as i32 - o.count_ones() as i32;
        let parity = if n & 1 == 1 { 1 } else { -1 };

        let s = w[0] * corners
            + w[1] * mobility
            + w[2] * potential
            + w[3] * xs
            + w[4] * cs
            + w[5] * stable
            + w[6] * discs
            + w[7] * parity;
        s.clamp(-EVAL_MAX, EVAL_MAX)
    }
}

/// X-squares diagonal to the corners in `c`.
#[inline(always)]
fn x_of_corners(c: u64) -> u64 {
    ((c & 1) << 9) | ((c & (1 << 7)) << 7) | ((c & (1 << 56)) >> 7) | ((c & (1 << 63)) >> 9)
}

/// C-squares next to the corners in `c`.
#[inline(always)]
fn c_of_corners(c: u64) -> u64 {
    let a1 = c & 1;
    let h1 = (c >> 7) & 1;
    let a8 = (c >> 56) & 1;
    let h8 = (c >> 63) & 1;
    (a1 * ((1 << 1) | (1 << 8)))
        | (h1 * ((1 << 6) | (1 << 15)))
        | (a8 * ((1 << 48) | (1 << 57)))
        | (h8 * ((1 << 55) | (1 << 62)))
}

impl Evaluator for HandEval {
    #[inline]
    fn evaluate(&mut self, b: &Board) -> i32 {
        self.score(b)
    }

    fn boxed_clone(&self) -> Box<dyn Evaluator> {
        Box::new(self.clone())
    }

    fn mpc_tables(&self) -> (&'static MpcTable, &'static EndMpcTable) {
        (
            &crate::mpc::MPC_TABLE_SIMPLE,
            &crate::mpc::END_MPC_TABLE_SIMPLE,
        )
    }

    /// Never: it orders endgame moves worse than mobility alone (see `ORDER_EVAL_EMPTIES`).
    fn order_eval_empties(&self) -> u32 {
        61
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bits::{C_SQUARES, X_SQUARES};
    use crate::score::SCALE;

    #[test]
    fn corner_masks() {
        assert_eq!(x_of_corners(CORNERS), X_SQUARES);
        assert_eq!(c_of_corners(CORNERS), C_SQUARES);
    }

    #[test]
    fn symmetric_start_is_near_zero_and_bounded() {
        let e = HandEval::default();
        assert!(e.score(&Board::START).abs() < SCALE);
        let b = Board::new(0xFFFF_FFFF_FFFF_FF00, 0x7E);
        assert!(e.score(&b).abs() <= EVAL_MAX);
    }
}
