//! Midgame search: NegaScout (principal variation search), fail-soft, with the transposition
//! table, Enhanced Transposition Cutoff near the root, the stability cutoff and move ordering
//! by a shallow search; exact solving takes over where the depth reaches the end of the game.
//!
//! Scores are evaluation units ([`SCALE`] per disc). Exact endgame results are the disc score
//! times `SCALE`, so a proven result always outranks an evaluation.
//!
//! Move ordering (highest key first):
//! 1. the hash move;
//! 2. from depth [`SORT_SEARCH_DEPTH`] on: the negated value of a shallow search of the child
//!    (evaluation at depth 4-6, one ply at 7-9, two plies beyond), minus a mobility term;
//! 3. below that: fastest first: fewest opponent moves (corners twice), fewest opponent
//!    potential moves, then the static square value.
//!
//! Nodes one ply above the leaves, most of the tree, skip the table, the stability test and
//! the ordering: they evaluate each child straight from the incremental feature indices,
//! corners first and X-squares last ([`Searcher::mid_leaf_parent`]), which saves a third of
//! the midgame's time (figures: `docs/measurements.md`, "Figures behind the constants").
//!
//! Generic over the move-generation kernel like the solver (see [`crate::kernel`]): a node is
//! entered through [`Kernel::enter`]; the public [`Searcher::mid_search`] picks the searcher's
//! kernel.

use crate::bits::{potential_mobility, weighted_mobility, SQUARE_CLASSES, SQUARE_VALUE};
use crate::kernel::{with_kernel, Kernel};
use crate::mpc::{mpc_shallow, ProbCut, MPC_MAX_DEPTH, MPC_MIN_DEPTH, MPC_MIN_DISCS};
use crate::ordering::{pick_best, MoveEntry};
use crate::score::{MID_INF, SCALE};
use crate::search::Searcher;
use crate::stability::stability_cutoff;
use crate::tt::{hash, KIND_END, KIND_MID, NO_MOVE};
use othello_sdk::board::Board;

/// From this depth on, children are ordered by a shallow search instead of mobility alone.
pub const SORT_SEARCH_DEPTH: u32 = 4;
/// From this depth on, nodes try Enhanced Transposition Cutoff.
pub const MID_ETC_DEPTH: u32 = 5;

/// Floor of `x / SCALE`.
#[inline(always)]
fn floor_discs(x: i32) -> i32 {
    x.div_euclid(SCALE)
}

/// Ceiling of `x / SCALE`.
#[inline(always)]
fn ceil_discs(x: i32) -> i32 {
    -(-x).div_euclid(SCALE)
}

impl Searcher<'_> {
    /// The moves of `b` with ordering keys for a node of depth `depth`.
    #[inline(always)]
    pub(crate) fn mid_order<K: Kernel>(
        &mut self,
        k: K,
        b: &Board,
        moves: u64,
        depth: u32,
        tt_move: u8,
        out: &mut Vec<MoveEntry>,
    ) {
        let sort_depth = match depth {
            0..SORT_SEARCH_DEPTH => None,
            4..=6 => Some(0),
            7..=9 => Some(1),
            _ => Some(2),
        };
        let mut m = moves;
        while m != 0 {
            let x = m.trailing_zeros();
            m &= m - 1;
            let f = k.flips(b.player, b.opponent, x);
            let child = b.play_with_flips(x, f);
            let key = if x as u8 == tt_move {
                1 << 28
            } else {
                let mob = weighted_mobility(k.moves(child.player, child.opponent)) as i32;
                match sort_depth {
                    None => {
                        -(mob << 8) - ((potential_mobility(&child) as i32) << 2)
                            + SQUARE_VALUE[x as usize]
                    }
                    Some(sd) => {
                        let v = if sd == 0 {
                            if k.moves(child.player, child.opponent) == 0
                                && k.moves(child.opponent, child.player) == 0
                            {
                                child.final_score() * SCALE
                            } else {
                                self.eval.evaluate_after(b, x, f, &child)
                            }
                        } else {
                            self.eval.on_play(b, x, f);
                            let v = self.mid_search_k(k, child, sd, -MID_INF, MID_INF);
                            self.eval.on_undo(b, x, f);
                            v
                        };
                        -v - mob * (SCALE / 4)
                    }
                }
            };
            out.push(MoveEntry {
                sq: x,
                flips: f,
                key,
            });
        }
    }

    /// A node one ply above the leaves, fail-soft: the best of its children's evaluations,
    /// stopping at the first that reaches `beta`. Each child is evaluated straight from this
    /// node's feature indices ([`crate::eval::Evaluator::evaluate_after`]), with no table, no
    /// stability test and no ordering beyond square classes (corners first, X-squares last).
    /// Every child counts as a node, as it would through [`Searcher::mid_search`].
    #[inline(always)]
    pub(crate) fn mid_leaf_parent<K: Kernel>(
        &mut self,
        k: K,
        b: &Board,
        moves: u64,
        beta: i32,
    ) -> i32 {
        let mut best = -MID_INF;
        for class in SQUARE_CLASSES {
            let mut m = moves & class;
            while m != 0 {
                let x = m.trailing_zeros();
                m &= m - 1;
                let f = k.flips(b.player, b.opponent, x);
                let child = b.play_with_flips(x, f);
                self.nodes += 1;
                // The mover keeps at least the disc just played; the opponent may have none.
                let v = if child.player == 0 {
                    64 * SCALE
                } else {
                    -self.eval.evaluate_after(b, x, f, &child)
                };
                if v >= beta {
                    return v;
                }
                best = best.max(v);
            }
        }
        best
    }

    /// Fail-soft NegaScout value of `b` searched `depth` plies (a pass is free), side to
    /// move's view, evaluation units. A window of width one is a null-window search. Runs on
    /// the searcher's kernel.
    pub fn mid_search(&mut self, b: Board, depth: u32, alpha: i32, beta: i32) -> i32 {
        with_kernel!(self.kernel, k => self.mid_search_k(k, b, depth, alpha, beta))
    }

    /// [`Searcher::mid_search`] on kernel `k`.
    #[inline(always)]
    pub(crate) fn mid_search_k<K: Kernel>(
        &mut self,
        k: K,
        b: Board,
        depth: u32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        if depth >= b.empties() {
            // The search reaches the end of the game: solve exactly with the window in discs.
            let v = self.end_pvs_k(k, b, floor_discs(alpha), ceil_discs(beta));
            return v * SCALE;
        }
        k.enter(
            #[inline(always)]
            move |k| self.mid_node(k, b, depth, alpha, beta),
        )
    }

    #[inline(always)]
    fn mid_node<K: Kernel>(&mut self, k: K, b: Board, depth: u32, alpha: i32, beta: i32) -> i32 {
        let n = b.empties();
        self.nodes += 1;
        if self.nodes >= self.next_poll {
            self.poll();
        }
        if self.aborted {
            return 0;
        }
        if depth == 0 {
            // A side to move without discs has lost them all (the mover always has some):
            // the game is over, and no evaluation has seen such positions in training.
            if b.player == 0 {
                return -64 * SCALE;
            }
            return self.eval.evaluate(&b);
        }
        let moves = k.moves(b.player, b.opponent);
        if moves == 0 {
            let passed = b.pass();
            if k.moves(passed.player, passed.opponent) == 0 {
                return b.final_score() * SCALE;
            }
            self.eval.on_play(&b, 64, 0);
            let v = -self.mid_search_k(k, passed, depth, -beta, -alpha);
            self.eval.on_undo(&b, 64, 0);
            return v;
        }
        if depth == 1 {
            return self.mid_leaf_parent(k, &b, moves, beta);
        }
        if let Some(cap) = stability_cutoff(&b, floor_discs(alpha)) {
            return cap * SCALE;
        }
        let pv_node = beta - alpha > 1;
        let h = hash(&b);
        let tt_move = match self.mid_tt_probe(h, depth, alpha, beta, pv_node) {
            Ok(mv) => mv,
            Err(bound) => return bound,
        };
        if depth >= MID_ETC_DEPTH && self.use_tt {
            if let Some(cut) = self.mid_etc(k, &b, moves, depth, beta) {
                return cut;
            }
        }
        if !pv_node
            && (MPC_MIN_DEPTH..=MPC_MAX_DEPTH).contains(&depth)
            && depth + 4 < n
            && b.player.count_ones().min(b.opponent.count_ones()) > MPC_MIN_DISCS
        {
            if let Some(cut) = self.mid_probcut(k, &b, (alpha, beta), depth) {
                return cut;
            }
        }
        let mut list = self.take_list();
        self.mid_order(k, &b, moves, depth, tt_move, &mut list);
        let Some((best, best_move)) = self.mid_children(k, &b, list, depth, alpha, beta) else {
            return 0;
        };
        self.tt_store(h, KIND_MID, depth, alpha, beta, best, best_move, MID_INF);
        best
    }

    /// The table's entry for the node: `Err(bound)` when its bounds decide the node, else
    /// `Ok(move)`, the entry's best move to try first (or [`NO_MOVE`]).
    #[inline(always)]
    fn mid_tt_probe(
        &mut self,
        h: u64,
        depth: u32,
        alpha: i32,
        beta: i32,
        pv_node: bool,
    ) -> Result<u8, i32> {
        let Some(e) = self.tt_probe(h) else {
            return Ok(NO_MOVE);
        };
        let usable = match e.kind {
            KIND_END => Some((e.lower * SCALE, e.upper * SCALE)),
            // Selective endgame entries are neither exact nor in evaluation units.
            KIND_MID if e.depth as u32 >= depth => Some((e.lower, e.upper)),
            _ => None,
        };
        if let Some((lo, up)) = usable {
            if lo >= beta || (lo == up && !pv_node) {
                return Err(lo);
            }
            if up <= alpha {
                return Err(up);
            }
        }
        Ok(e.mv)
    }

    /// Enhanced Transposition Cutoff: a child whose table entry already proves the node fails
    /// high ends it, with that child's bound.
    #[inline(always)]
    fn mid_etc<K: Kernel>(
        &mut self,
        k: K,
        b: &Board,
        moves: u64,
        depth: u32,
        beta: i32,
    ) -> Option<i32> {
        let mut m = moves;
        while m != 0 {
            let x = m.trailing_zeros();
            m &= m - 1;
            let child = b.play_with_flips(x, k.flips(b.player, b.opponent, x));
            if let Some(e) = self.tt_probe(hash(&child)) {
                let up = match e.kind {
                    KIND_END => Some(e.upper * SCALE),
                    KIND_MID if e.depth as u32 + 1 >= depth => Some(e.upper),
                    _ => None,
                };
                if let Some(up) = up {
                    if -up >= beta {
                        return Some(-up);
                    }
                }
            }
        }
        None
    }

    /// Multi-ProbCut (Buro): a shallow search predicts the deep one; if it lands far enough
    /// beyond a bound (t standard deviations of the prediction error), cut: `Some` of the
    /// bound (0 when the search was aborted meanwhile).
    #[inline(always)]
    fn mid_probcut<K: Kernel>(
        &mut self,
        k: K,
        b: &Board,
        (alpha, beta): (i32, i32),
        depth: u32,
    ) -> Option<i32> {
        let t = self.mpc?;
        let (a, bias, sigma) = self.eval.mpc_tables().0[depth as usize];
        let ds = mpc_shallow(depth);
        let margin = t * sigma;
        let hi = ((beta as f64 + margin - bias) / a).ceil() as i32;
        let lo = ((alpha as f64 - margin - bias) / a).floor() as i32;
        match self.probcut_tests(k, b, ds, hi, lo) {
            ProbCut::Aborted => Some(0),
            ProbCut::High => Some(beta),
            ProbCut::Low => Some(alpha),
            ProbCut::Neither => None,
        }
    }

    /// ProbCut's two shallow null-window searches of `b` to depth `ds`, the upper one first:
    /// does the value reach `hi`, or else stay at or below `lo`? A bound out of the
    /// evaluation's range is not tested.
    #[inline(always)]
    pub(crate) fn probcut_tests<K: Kernel>(
        &mut self,
        k: K,
        b: &Board,
        ds: u32,
        hi: i32,
        lo: i32,
    ) -> ProbCut {
        if hi < MID_INF - 1 {
            let v = self.mid_search_k(k, *b, ds, hi - 1, hi);
            if self.aborted {
                return ProbCut::Aborted;
            }
            if v >= hi {
                return ProbCut::High;
            }
        }
        if lo > -MID_INF + 1 {
            let v = self.mid_search_k(k, *b, ds, lo, lo + 1);
            if self.aborted {
                return ProbCut::Aborted;
            }
            if v <= lo {
                return ProbCut::Low;
            }
        }
        ProbCut::Neither
    }

    /// The children of `list` (ordered by [`Searcher::mid_order`]), best key first, the first
    /// with the whole window, the others with a null window first (principal variation
    /// search): the best value and move, or `None` when the search was aborted. The list goes
    /// back to the searcher's pool.
    #[inline(always)]
    fn mid_children<K: Kernel>(
        &mut self,
        k: K,
        b: &Board,
        mut list: Vec<MoveEntry>,
        depth: u32,
        mut alpha: i32,
        beta: i32,
    ) -> Option<(i32, u8)> {
        let mut best = -MID_INF;
        let mut best_move = NO_MOVE;
        for i in 0..list.len() {
            // Young brothers wait (see `crate::parallel`): after the first move, the others
            // may be shared with idle threads.
            if i >= 1 && self.pool.is_some() {
                let d = Some(depth);
                if let Some(r) = self.split(k, b, &mut list, i, d, alpha, beta, best, best_move) {
                    (best, best_move) = r;
                    if self.aborted {
                        self.give_list(list);
                        return None;
                    }
                    break;
                }
            }
            pick_best(&mut list, i);
            let MoveEntry {
                sq: x, flips: f, ..
            } = list[i];
            let child = b.play_with_flips(x, f);
            self.eval.on_play(b, x, f);
            let mut v;
            if i == 0 {
                v = -self.mid_search_k(k, child, depth - 1, -beta, -alpha);
            } else {
                v = -self.mid_search_k(k, child, depth - 1, -alpha - 1, -alpha);
                if v > alpha && v < beta && !self.aborted {
                    v = -self.mid_search_k(k, child, depth - 1, -beta, -alpha);
                }
            }
            self.eval.on_undo(b, x, f);
            if self.aborted {
                self.give_list(list);
                return None;
            }
            if v > best {
                best = v;
                best_move = x as u8;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        self.give_list(list);
        Some((best, best_move))
    }
}
