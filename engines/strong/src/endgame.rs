//! Exact endgame solving: the final disc difference (empties to the winner), side to move's
//! view, in discs.
//!
//! Layers, from the leaves up (as Edax's endgame.c):
//! - `score_1`: one empty square: no move generation; flips are counted only there, for the
//!   side to move, else for the opponent, else the game ends with the square unplayed;
//! - `nws_2`, `nws_3`, `nws_4`: null-window solvers on 2-4 given squares: a move is tried by
//!   computing its flips directly (zero flips = illegal), never by generating moves; squares
//!   are ordered by quasi-parity (a square alone in its quadrant first);
//! - `nws_shallow` (5..=[`SHALLOW_EMPTIES`] empties): move generation, quasi-parity then static
//!   square order, stability cutoff, no transposition table (too cheap to pay for it);
//! - `nws_deep`: transposition table, stability cutoff, Enhanced Transposition Cutoff (at
//!   [`ETC_EMPTIES`] and above), fastest-first ordering (fewest opponent replies first);
//! - `end_pvs`: principal variation search for windows wider than one (root and PV nodes),
//!   which calls the null-window solvers for every move but the first.
//!
//! All null-window functions take `alpha` and answer "is the score above `alpha`?" fail-soft:
//! a result above `alpha` is a lower bound, one at or below `alpha` an upper bound.
//!
//! Every function is generic over the move-generation kernel `K` (see [`crate::kernel`]):
//! each node's body is `#[inline(always)]` and entered through [`Kernel::enter`], so it is
//! compiled with the kernel's instruction sets. The public `end_nws`/`end_pvs` choose the
//! searcher's kernel once.

use crate::bits::{
    corner_stability, parity_mask, potential_mobility, quadrant, weighted_mobility, SQUARE_CLASSES,
    SQUARE_VALUE,
};
use crate::flips::count_last_flip;
use crate::kernel::{with_kernel, Kernel};
use crate::mpc::{end_mpc_shallow, END_MPC_MAX_EMPTIES, END_MPC_MIN_EMPTIES, SELECTIVITY};
use crate::ordering::pick_best;
use crate::score::{END_INF, MID_INF, SCALE};
use crate::search::Searcher;
use crate::stability::stability_cutoff;
use crate::tt::{hash, KIND_END, KIND_END_SELECTIVE, NO_MOVE};
use othello_sdk::board::Board;

/// Up to this many empties the shallow solver (no hash table) is used.
pub const SHALLOW_EMPTIES: u32 = 7;
/// Weight of the child's evaluation (per evaluation unit) in the ordering by evaluation (from
/// [`ORDER_EVAL_EMPTIES`](crate::ordering::ORDER_EVAL_EMPTIES) empties on, with the trained
/// evaluation).
const ORDER_EVAL_WEIGHT: i32 = 1 << 8;
/// From this many empties on, solver nodes use the transposition table.
pub const TT_EMPTIES: u32 = 8;
/// From this many empties on, nodes try Enhanced Transposition Cutoff.
pub const ETC_EMPTIES: u32 = 12;

/// The flips of a move of the side to move, by kernel `k`.
#[inline(always)]
fn flip<K: Kernel>(k: K, b: &Board, sq: u32) -> u64 {
    k.flips(b.player, b.opponent, sq)
}

/// The exact score with one empty square `x`.
#[inline(always)]
pub fn score_1(b: &Board, x: u32) -> i32 {
    let n_p = b.player.count_ones() as i32;
    let f = count_last_flip(b.player, x) as i32;
    if f != 0 {
        return 2 * (n_p + 1 + f) - 64;
    }
    let g = count_last_flip(b.opponent, x) as i32;
    if g != 0 {
        return 2 * (n_p - g) - 64;
    }
    // Nobody can play x: 63 discs, the empty square goes to the winner (no draw possible).
    if 2 * n_p > 63 {
        2 * n_p - 62
    } else {
        2 * n_p - 64
    }
}

/// Order `xs` by quasi-parity: squares of quadrants holding an odd number of them first
/// (stable, so the caller's static order decides within a group).
#[inline(always)]
fn parity_sort<const N: usize>(xs: &mut [u32; N]) {
    let mut counts = 0u32; // 4 x 4-bit counters
    for &x in xs.iter() {
        counts += 1 << (4 * quadrant(x));
    }
    let odd = |x: u32| (counts >> (4 * quadrant(x))) & 1;
    let mut out = *xs;
    let mut k = 0;
    for &x in xs.iter() {
        if odd(x) == 1 {
            out[k] = x;
            k += 1;
        }
    }
    for &x in xs.iter() {
        if odd(x) == 0 {
            out[k] = x;
            k += 1;
        }
    }
    *xs = out;
}

/// The empty squares of `b` (exactly N of them), lowest first.
#[inline(always)]
fn empties_of<const N: usize>(b: &Board) -> [u32; N] {
    let mut e = b.empty();
    let mut xs = [0u32; N];
    for x in xs.iter_mut() {
        *x = e.trailing_zeros();
        e &= e - 1;
    }
    xs
}

impl Searcher<'_> {
    /// Whether a table entry of `kind` may decide a node of this search: exact entries always;
    /// in a selective search also selective entries of its level or a less selective one.
    #[inline]
    fn end_entry_usable(&self, kind: u8) -> bool {
        kind == KIND_END
            || matches!(self.end_selectivity, Some(level)
                if kind >= KIND_END_SELECTIVE && (kind - KIND_END_SELECTIVE) as usize >= level)
    }

    /// The kind of the entries this search stores.
    #[inline]
    fn end_kind(&self) -> u8 {
        match self.end_selectivity {
            None => KIND_END,
            Some(level) => KIND_END_SELECTIVE + level as u8,
        }
    }

    /// Selective endgame (Multi-ProbCut on the solver, as Egaroucid and Edax do before the
    /// exact search): a shallow midgame search predicts the exact score; when the prediction
    /// lies `t` standard deviations beyond `alpha` in either direction, the null-window answer
    /// is taken as decided. `None`: no cut (exact search, too few empties, or no evidence).
    ///
    /// The shallow search's first move sets an incremental evaluation to `b` (from scratch),
    /// the rest of it is incremental.
    fn end_probcut<K: Kernel>(&mut self, k: K, b: &Board, n: u32, alpha: i32) -> Option<i32> {
        let level = self.end_selectivity?;
        if n < END_MPC_MIN_EMPTIES {
            return None;
        }
        let t = SELECTIVITY[level].0;
        if !t.is_finite() {
            return None;
        }
        let row = (n.min(END_MPC_MAX_EMPTIES) - END_MPC_MIN_EMPTIES) as usize;
        let (a, bias, sigma) = self.eval.mpc_tables().1[row];
        let ds = end_mpc_shallow(n);
        let margin = t * sigma;
        // The predicting searches are plain (no midgame Multi-ProbCut of their own).
        let midgame_mpc = self.mpc.take();
        let cut = self.end_probcut_tests(k, b, ds, alpha, a, bias, margin);
        self.mpc = midgame_mpc;
        cut
    }

    /// The two tests of [`Searcher::end_probcut`].
    #[allow(clippy::too_many_arguments)]
    fn end_probcut_tests<K: Kernel>(
        &mut self,
        k: K,
        b: &Board,
        ds: u32,
        alpha: i32,
        a: f64,
        bias: f64,
        margin: f64,
    ) -> Option<i32> {
        // Above alpha: the prediction of alpha + 1 discs, with the margin, is exceeded.
        let hi = ((((alpha + 1) * SCALE) as f64 + margin - bias) / a).ceil() as i32;
        if hi < MID_INF - 1 {
            let v = self.mid_search_k(k, *b, ds, hi - 1, hi);
            if self.aborted {
                return Some(0);
            }
            if v >= hi {
                return Some(alpha + 1);
            }
        }
        let lo = (((alpha * SCALE) as f64 - margin - bias) / a).floor() as i32;
        if lo > -MID_INF + 1 {
            let v = self.mid_search_k(k, *b, ds, lo, lo + 1);
            if self.aborted {
                return Some(0);
            }
            if v <= lo {
                return Some(alpha);
            }
        }
        None
    }

    /// Null-window solve of any position, with the searcher's kernel.
    pub fn end_nws(&mut self, b: Board, alpha: i32) -> i32 {
        with_kernel!(self.kernel, k => self.end_nws_k(k, b, alpha))
    }

    /// Principal variation search with window `(alpha, beta)`, exact inside it, fail-soft,
    /// with the searcher's kernel.
    pub fn end_pvs(&mut self, b: Board, alpha: i32, beta: i32) -> i32 {
        with_kernel!(self.kernel, k => self.end_pvs_k(k, b, alpha, beta))
    }

    /// Null-window solve of any position (dispatch on the number of empties).
    #[inline(always)]
    pub(crate) fn end_nws_k<K: Kernel>(&mut self, k: K, b: Board, alpha: i32) -> i32 {
        match b.empties() {
            0 => {
                self.nodes += 1;
                b.final_score()
            }
            1 => {
                self.nodes += 1;
                score_1(&b, b.empty().trailing_zeros())
            }
            2 => {
                let xs = empties_of::<2>(&b);
                self.nws_2(k, b, alpha, xs[0], xs[1])
            }
            3 => {
                let mut xs = empties_of::<3>(&b);
                parity_sort(&mut xs);
                self.nws_3(k, b, alpha, xs)
            }
            4 => self.nws_4(k, b, alpha),
            n if n <= SHALLOW_EMPTIES => self.nws_shallow(k, b, alpha),
            _ => self.nws_deep(k, b, alpha),
        }
    }

    /// Two empties `x1`, `x2`.
    #[inline(always)]
    fn nws_2<K: Kernel>(&mut self, k: K, b: Board, alpha: i32, x1: u32, x2: u32) -> i32 {
        k.enter(
            #[inline(always)]
            move |k| self.nws_2_node(k, b, alpha, x1, x2),
        )
    }

    #[inline(always)]
    fn nws_2_node<K: Kernel>(&mut self, k: K, b: Board, alpha: i32, x1: u32, x2: u32) -> i32 {
        self.nodes += 1;
        if let Some(v) = self.moves_2(k, &b, alpha, x1, x2) {
            return v;
        }
        // Pass: the opponent's view with the negated window.
        if let Some(v) = self.moves_2(k, &b.pass(), -alpha - 1, x1, x2) {
            return -v;
        }
        b.final_score()
    }

    /// The side to move's best over its moves at x1, x2 (`None`: no move).
    #[inline(always)]
    fn moves_2<K: Kernel>(&mut self, k: K, b: &Board, alpha: i32, x1: u32, x2: u32) -> Option<i32> {
        let mut best = -END_INF;
        let f = flip(k, b, x1);
        if f != 0 {
            self.nodes += 1;
            best = -score_1(&b.play_with_flips(x1, f), x2);
            if best > alpha {
                return Some(best);
            }
        }
        let f = flip(k, b, x2);
        if f != 0 {
            self.nodes += 1;
            let v = -score_1(&b.play_with_flips(x2, f), x1);
            return Some(v.max(best));
        }
        (best > -END_INF).then_some(best)
    }

    /// Three empties, in parity order.
    #[inline(always)]
    fn nws_3<K: Kernel>(&mut self, k: K, b: Board, alpha: i32, xs: [u32; 3]) -> i32 {
        k.enter(
            #[inline(always)]
            move |k| self.nws_3_node(k, b, alpha, xs),
        )
    }

    #[inline(always)]
    fn nws_3_node<K: Kernel>(&mut self, k: K, b: Board, alpha: i32, xs: [u32; 3]) -> i32 {
        self.nodes += 1;
        if let Some(v) = self.moves_3(k, &b, alpha, xs) {
            return v;
        }
        if let Some(v) = self.moves_3(k, &b.pass(), -alpha - 1, xs) {
            return -v;
        }
        b.final_score()
    }

    #[inline(always)]
    fn moves_3<K: Kernel>(&mut self, k: K, b: &Board, alpha: i32, xs: [u32; 3]) -> Option<i32> {
        let mut best = -END_INF;
        let rest = [[xs[1], xs[2]], [xs[0], xs[2]], [xs[0], xs[1]]];
        for i in 0..3 {
            let f = flip(k, b, xs[i]);
            if f != 0 {
                let child = b.play_with_flips(xs[i], f);
                let v = -self.nws_2(k, child, -alpha - 1, rest[i][0], rest[i][1]);
                if v > best {
                    best = v;
                    if v > alpha {
                        return Some(v);
                    }
                }
            }
        }
        (best > -END_INF).then_some(best)
    }

    /// Four empties: parity order, then the 3-empties solver on the rest (kept in order).
    #[inline(always)]
    fn nws_4<K: Kernel>(&mut self, k: K, b: Board, alpha: i32) -> i32 {
        k.enter(
            #[inline(always)]
            move |k| self.nws_4_node(k, b, alpha),
        )
    }

    #[inline(always)]
    fn nws_4_node<K: Kernel>(&mut self, k: K, b: Board, alpha: i32) -> i32 {
        self.nodes += 1;
        let mut xs = empties_of::<4>(&b);
        parity_sort(&mut xs);
        if let Some(v) = self.moves_4(k, &b, alpha, xs) {
            return v;
        }
        if let Some(v) = self.moves_4(k, &b.pass(), -alpha - 1, xs) {
            return -v;
        }
        b.final_score()
    }

    #[inline(always)]
    fn moves_4<K: Kernel>(&mut self, k: K, b: &Board, alpha: i32, xs: [u32; 4]) -> Option<i32> {
        let mut best = -END_INF;
        for i in 0..4 {
            let f = flip(k, b, xs[i]);
            if f != 0 {
                let child = b.play_with_flips(xs[i], f);
                let mut rest = [0u32; 3];
                let mut r = 0;
                for (j, &x) in xs.iter().enumerate() {
                    if j != i {
                        rest[r] = x;
                        r += 1;
                    }
                }
                parity_sort(&mut rest);
                let v = -self.nws_3(k, child, -alpha - 1, rest);
                if v > best {
                    best = v;
                    if v > alpha {
                        return Some(v);
                    }
                }
            }
        }
        (best > -END_INF).then_some(best)
    }

    /// 5..=SHALLOW_EMPTIES empties: move generation, parity + static order, no hash table.
    #[inline(always)]
    fn nws_shallow<K: Kernel>(&mut self, k: K, b: Board, alpha: i32) -> i32 {
        k.enter(
            #[inline(always)]
            move |k| self.nws_shallow_node(k, b, alpha),
        )
    }

    #[inline(always)]
    fn nws_shallow_node<K: Kernel>(&mut self, k: K, b: Board, alpha: i32) -> i32 {
        self.nodes += 1;
        let moves = k.moves(b.player, b.opponent);
        if moves == 0 {
            let passed = b.pass();
            if k.moves(passed.player, passed.opponent) == 0 {
                return b.final_score();
            }
            return -self.nws_shallow(k, passed, -alpha - 1);
        }
        if let Some(cap) = stability_cutoff(&b, alpha) {
            return cap;
        }
        let n = b.empties();
        let parity = parity_mask(b.empty());
        let mut best = -END_INF;
        for group in [moves & parity, moves & !parity] {
            for class in SQUARE_CLASSES {
                let mut m = group & class;
                while m != 0 {
                    let x = m.trailing_zeros();
                    m &= m - 1;
                    let child = b.play_with_flips(x, flip(k, &b, x));
                    let v = if n == 5 {
                        -self.nws_4(k, child, -alpha - 1)
                    } else {
                        -self.nws_shallow(k, child, -alpha - 1)
                    };
                    if v > best {
                        best = v;
                        if v > alpha {
                            return v;
                        }
                    }
                }
            }
        }
        best
    }

    /// The moves of `b` with fastest-first ordering keys (higher = earlier): the hash move
    /// first, then fewest opponent replies (corners counted twice), fewest opponent potential
    /// moves, quasi-parity, square value.
    #[inline(always)]
    fn end_order<K: Kernel>(
        &mut self,
        k: K,
        b: &Board,
        moves: u64,
        tt_move: u8,
        out: &mut Vec<(u32, u64, i32)>,
    ) {
        let parity = parity_mask(b.empty());
        let use_eval = b.empties() >= self.eval.order_eval_empties();
        let mut m = moves;
        while m != 0 {
            let x = m.trailing_zeros();
            m &= m - 1;
            let f = flip(k, b, x);
            let child = b.play_with_flips(x, f);
            let key = if x as u8 == tt_move {
                1 << 30
            } else if use_eval {
                // Far from the end: the evaluation of the child leads, mobility breaks ties.
                let mob = weighted_mobility(k.moves(child.player, child.opponent)) as i32;
                ((36 - mob) << 15) - self.eval.evaluate_after(b, x, f, &child) * ORDER_EVAL_WEIGHT
            } else {
                // Edax's weights: opponent mobility dominates, then the mover's discs made
                // safe around corners, then opponent potential mobility, parity, square.
                let mob = weighted_mobility(k.moves(child.player, child.opponent)) as i32;
                let pot = potential_mobility(&child) as i32;
                let par = ((parity >> x) & 1) as i32;
                ((36 - mob) << 15)
                    + ((corner_stability(child.opponent) as i32) << 11)
                    + ((36 - pot) << 5)
                    + (par << 4)
                    + SQUARE_VALUE[x as usize]
            };
            out.push((x, f, key));
        }
    }

    /// Null-window solve with the transposition table (more than SHALLOW_EMPTIES empties).
    #[inline(always)]
    fn nws_deep<K: Kernel>(&mut self, k: K, b: Board, alpha: i32) -> i32 {
        k.enter(
            #[inline(always)]
            move |k| self.nws_deep_node(k, b, alpha),
        )
    }

    #[inline(always)]
    fn nws_deep_node<K: Kernel>(&mut self, k: K, b: Board, alpha: i32) -> i32 {
        self.nodes += 1;
        if self.nodes >= self.next_poll {
            self.poll();
        }
        if self.aborted {
            return 0;
        }
        let moves = k.moves(b.player, b.opponent);
        if moves == 0 {
            let passed = b.pass();
            if k.moves(passed.player, passed.opponent) == 0 {
                return b.final_score();
            }
            return -self.nws_deep(k, passed, -alpha - 1);
        }
        if let Some(cap) = stability_cutoff(&b, alpha) {
            return cap;
        }
        let n = b.empties();
        let h = hash(&b);
        let mut tt_move = NO_MOVE;
        let probe = if n >= TT_EMPTIES {
            self.tt_probe(h)
        } else {
            None
        };
        if let Some(e) = probe {
            if self.end_entry_usable(e.kind) {
                if e.lower > alpha {
                    return e.lower;
                }
                if e.upper <= alpha {
                    return e.upper;
                }
            }
            tt_move = e.mv;
        }
        // Enhanced Transposition Cutoff: a child already known to score at most -alpha - 1
        // (from its side) proves this node above alpha without searching anything.
        if n >= ETC_EMPTIES && self.use_tt {
            let mut m = moves;
            while m != 0 {
                let x = m.trailing_zeros();
                m &= m - 1;
                let child = b.play_with_flips(x, flip(k, &b, x));
                if let Some(e) = self.tt_probe(hash(&child)) {
                    if self.end_entry_usable(e.kind) && -e.upper > alpha {
                        let kind = self.end_kind();
                        self.tt_store(h, kind, n, alpha, alpha + 1, -e.upper, x as u8, 64);
                        return -e.upper;
                    }
                }
            }
        }

        if let Some(v) = self.end_probcut(k, &b, n, alpha) {
            return v;
        }

        let mut list = self.take_list();
        self.end_order(k, &b, moves, tt_move, &mut list);
        let mut best = -END_INF;
        let mut best_move = NO_MOVE;
        for i in 0..list.len() {
            // Young brothers wait: the first move did not cut off; share the others.
            if i == 1 {
                if let Some(r) = self.split(k, &b, &mut list, 1, alpha, alpha + 1, best, best_move)
                {
                    (best, best_move) = r;
                    if self.aborted {
                        self.give_list(list);
                        return 0;
                    }
                    break;
                }
            }
            pick_best(&mut list, i);
            let (x, f, _) = list[i];
            let child = b.play_with_flips(x, f);
            let v = -self.end_nws_k(k, child, -alpha - 1);
            if self.aborted {
                self.give_list(list);
                return 0;
            }
            if v > best {
                best = v;
                best_move = x as u8;
                if v > alpha {
                    break;
                }
            }
        }
        self.give_list(list);
        if n >= TT_EMPTIES {
            let kind = self.end_kind();
            self.tt_store(h, kind, n, alpha, alpha + 1, best, best_move, 64);
        }
        best
    }

    /// Principal variation search with window `(alpha, beta)`, exact inside it, fail-soft.
    #[inline(always)]
    pub(crate) fn end_pvs_k<K: Kernel>(&mut self, k: K, b: Board, alpha: i32, beta: i32) -> i32 {
        if beta - alpha <= 1 {
            return self.end_nws_k(k, b, alpha);
        }
        k.enter(
            #[inline(always)]
            move |k| self.end_pvs_node(k, b, alpha, beta),
        )
    }

    #[inline(always)]
    fn end_pvs_node<K: Kernel>(&mut self, k: K, b: Board, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes >= self.next_poll {
            self.poll();
        }
        if self.aborted {
            return 0;
        }
        let moves = k.moves(b.player, b.opponent);
        if moves == 0 {
            let passed = b.pass();
            if k.moves(passed.player, passed.opponent) == 0 {
                return b.final_score();
            }
            return -self.end_pvs_k(k, passed, -beta, -alpha);
        }
        let n = b.empties();
        let h = hash(&b);
        let mut tt_move = NO_MOVE;
        if let Some(e) = self.tt_probe(h) {
            let usable = self.end_entry_usable(e.kind);
            if usable && (e.lower >= beta || e.lower == e.upper) {
                return e.lower;
            }
            if usable && e.upper <= alpha {
                return e.upper;
            }
            tt_move = e.mv;
        }
        let (a0, b0) = (alpha, beta);
        let mut list = self.take_list();
        self.end_order(k, &b, moves, tt_move, &mut list);
        let mut best = -END_INF;
        let mut best_move = NO_MOVE;
        for i in 0..list.len() {
            if i == 1 {
                if let Some(r) = self.split(k, &b, &mut list, 1, alpha, beta, best, best_move) {
                    (best, best_move) = r;
                    if self.aborted {
                        self.give_list(list);
                        return 0;
                    }
                    break;
                }
            }
            pick_best(&mut list, i);
            let (x, f, _) = list[i];
            let child = b.play_with_flips(x, f);
            let mut v;
            if i == 0 {
                v = -self.end_pvs_k(k, child, -beta, -alpha);
            } else {
                v = -self.end_nws_k(k, child, -alpha - 1);
                if v > alpha && v < beta && !self.aborted {
                    v = -self.end_pvs_k(k, child, -beta, -alpha);
                }
            }
            if self.aborted {
                self.give_list(list);
                return 0;
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
        let kind = self.end_kind();
        self.tt_store(h, kind, n, a0, b0, best, best_move, 64);
        best
    }
}
