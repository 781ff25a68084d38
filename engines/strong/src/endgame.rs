//! Exact endgame solving: the final disc difference (empties to the winner), side to move's
//! view, in discs.
//!
//! Layers, from the leaves up (as Edax's endgame.c, with Egaroucid's per-thread table near the
//! leaves):
//! - `score_1`: one empty square: no move generation; flips are counted only there, for the
//!   side to move, else for the opponent, else the game ends with the square unplayed;
//! - `nws_2`, `nws_3`, `nws_4`: null-window solvers on 2-4 given squares: a move is tried by
//!   computing its flips directly (zero flips = illegal), never by generating moves; squares
//!   are ordered by quasi-parity (a square alone in its quadrant first);
//! - `nws_near` (5 to [`LOCAL_EMPTIES`] - 1 empties): move generation, fastest-first ordering
//!   (fewest opponent replies first), stability cutoff, and the thread's own small table
//!   ([`crate::tt::LocalTable`], in the core's cache) instead of the shared one: a probe of the
//!   shared table is a memory round trip, dear at nodes this small; from 7 empties the
//!   children's entries are read before ordering, so a child whose bounds decide the node is
//!   never entered;
//! - `nws_deep`: the shared transposition table, stability cutoff, Enhanced Transposition
//!   Cutoff (at [`ETC_EMPTIES`] and above), ordering by the evaluation, or by one- and two-ply
//!   probes far from the end ([`PROBE1_EMPTIES`], [`PROBE2_EMPTIES`]; deeper at PV nodes,
//!   [`PV_PROBE_DEPTH`]), with mobility;
//! - `end_pvs`: principal variation search for windows wider than one (root and PV nodes),
//!   which calls the null-window solvers for every move but the first.
//!
//! At every node with a table the stored best move is searched first, before the others are
//! ordered: when it cuts off (most of the time) the ordering work is saved. A midgame entry's
//! move is trusted only from a search of [`MID_MOVE_MIN_DEPTH`] plies or more (the probes and
//! the shallow ends of the midgame iterations leave 0-2 ply entries whose moves are worse than
//! the solver's own ordering).
//!
//! All null-window functions take `alpha` and answer "is the score above `alpha`?" fail-soft:
//! a result above `alpha` is a lower bound, one at or below `alpha` an upper bound.
//!
//! Every function is generic over the move-generation kernel `K` (see [`crate::kernel`]):
//! each node's body is `#[inline(always)]` and entered through [`Kernel::enter`], so it is
//! compiled with the kernel's instruction sets. The public `end_nws`/`end_pvs` choose the
//! searcher's kernel once.

use crate::bits::{
    corner_stability, parity_mask, potential_mobility, quadrant, weighted_mobility, SQUARE_VALUE,
};
use crate::flips::count_last_flip;
use crate::kernel::{with_kernel, Kernel};
use crate::mpc::{end_mpc_shallow, ProbCut, END_MPC_MAX_EMPTIES, END_MPC_MIN_EMPTIES, SELECTIVITY};
use crate::ordering::{pick_best, MoveEntry};
use crate::score::{END_INF, SCALE};
use crate::search::Searcher;
use crate::stability::{opponent_stable_count, stability_cutoff, stability_cutoff_below};
use crate::tt::{hash, TtData, KIND_END, KIND_END_SELECTIVE, KIND_MID, NO_MOVE};
use othello_sdk::board::Board;

/// Nodes with fewer empties (down to 5) are solved by `nws_near`, with the thread's own table:
/// the shared table's probes cost more time than they save this near the end (figures:
/// `docs/measurements.md`, "Figures behind the constants").
pub const LOCAL_EMPTIES: u32 = 10;
/// From this many empties on, nodes try Enhanced Transposition Cutoff: from fewer, the tree
/// is smaller but the time is not shorter (figures: `docs/measurements.md`, "Figures behind the constants").
pub const ETC_EMPTIES: u32 = 12;
/// From this many empties on, children are ordered by a one-ply probe (the best of their own
/// children's evaluations) instead of their evaluation.
pub const PROBE1_EMPTIES: u32 = 16;
/// From this many empties on, by a two-ply midgame search: the start, like the one-ply
/// probe's and the value weight, that made the smallest trees in one sweep (figures, and the
/// three-ply probes tried: `docs/measurements.md`, "Figures behind the constants").
pub const PROBE2_EMPTIES: u32 = 22;
/// Depth of the ordering probes at PV nodes (`end_pvs`) from [`PROBE2_EMPTIES`] on, instead
/// of two plies: PV nodes are few, and the first move of each is searched with the whole
/// window, so a better first choice there saves a larger subtree than at a null-window node
/// (figures: `docs/measurements.md`, "Figures behind the constants").
const PV_PROBE_DEPTH: u32 = 4;
/// Weight of mobility (per weighted opponent move) in the ordering keys of `nws_deep`.
const MOBILITY_WEIGHT: i32 = 1 << 15;
/// Weight of the child's evaluation or probe value (per evaluation unit, 100 per disc): a disc
/// weighs about 0.8 opponent moves.
const VALUE_WEIGHT: i32 = 1 << 8;
/// Half-widths (evaluation units) of the window of the ordering probes around the node's
/// bound: below and above it, from the child's side.
const PROBE_MARGIN: (i32, i32) = (6 * SCALE, 16 * SCALE);
/// Null-window nodes with `alpha` in `WIPEOUT_ALPHA..64` ask whether the side to move can leave
/// the opponent at most one disc, and those with `alpha` in `-64..-WIPEOUT_ALPHA` whether it
/// can keep one (or two): a race to a wipeout, where the evaluation (saturated near ±64) and
/// its probes order moves no better than chance. There the attacker orders fastest first
/// with fewer opponent discs first among equals ([`WIPEOUT_DISC_WEIGHT`]), the defender by
/// its own stable discs first, since one of them ends the race ([`stable_first_key`]). Only
/// such races see these bounds (figures, step by step on FFO #59: `docs/measurements.md`, "Figures behind the constants").
pub const WIPEOUT_ALPHA: i32 = 60;
/// The attacker's key per opponent disc left, in a wipeout race: one weighted reply
/// ([`fastest_first_key`]'s mobility unit), the weight that made the smallest tree (figures:
/// `docs/measurements.md`, "Figures behind the constants").
const WIPEOUT_DISC_WEIGHT: i32 = 1 << 15;

/// Shallowest midgame entry whose best move the solver tries first.
pub const MID_MOVE_MIN_DEPTH: u8 = 3;

/// The flips of a move of the side to move, by kernel `k`.
#[inline(always)]
fn flip<K: Kernel>(k: K, b: &Board, sq: u32) -> u64 {
    k.flips(b.player, b.opponent, sq)
}

/// Edax's fastest-first key of the move `x` leading to `child` (higher = earlier): opponent
/// mobility (corners twice) dominates, then the mover's discs made safe around corners, then
/// opponent potential mobility, quasi-parity, the square's static value.
#[inline(always)]
fn fastest_first_key<K: Kernel>(k: K, child: &Board, x: u32, parity: u64) -> i32 {
    let mob = weighted_mobility(k.moves(child.player, child.opponent)) as i32;
    let pot = potential_mobility(child) as i32;
    let par = ((parity >> x) & 1) as i32;
    ((36 - mob) << 15)
        + ((corner_stability(child.opponent) as i32) << 11)
        + ((36 - pot) << 5)
        + (par << 4)
        + SQUARE_VALUE[x as usize]
}

/// Whether a null-window node with `alpha` is the attacker's side of a wipeout race (see
/// [`WIPEOUT_ALPHA`]).
#[inline(always)]
fn attacks_wipeout(alpha: i32) -> bool {
    (WIPEOUT_ALPHA..64).contains(&alpha)
}

/// Whether a null-window node with `alpha` is the defender's side of a wipeout race.
#[inline(always)]
fn defends_wipeout(alpha: i32) -> bool {
    (-64..-WIPEOUT_ALPHA).contains(&alpha)
}

/// The defender's key in a wipeout race: its stable discs after the move dominate (one of
/// them is a disc it keeps to the end), then the fastest-first key.
#[inline(always)]
fn stable_first_key<K: Kernel>(k: K, child: &Board, x: u32, parity: u64) -> i32 {
    (opponent_stable_count(child.player, child.opponent) << 24)
        + fastest_first_key(k, child, x, parity)
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
        let lo = (((alpha * SCALE) as f64 - margin - bias) / a).floor() as i32;
        match self.probcut_tests(k, b, ds, hi, lo) {
            ProbCut::Aborted => Some(0),
            ProbCut::High => Some(alpha + 1),
            ProbCut::Low => Some(alpha),
            ProbCut::Neither => None,
        }
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
            n if n < LOCAL_EMPTIES => self.nws_near(k, b, alpha),
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

    /// 5 to LOCAL_EMPTIES - 1 empties: fastest-first ordering, the thread's local table.
    #[inline(always)]
    fn nws_near<K: Kernel>(&mut self, k: K, b: Board, alpha: i32) -> i32 {
        k.enter(
            #[inline(always)]
            move |k| self.nws_near_node(k, b, alpha),
        )
    }

    #[inline(always)]
    fn nws_near_node<K: Kernel>(&mut self, k: K, b: Board, alpha: i32) -> i32 {
        self.nodes += 1;
        let moves = k.moves(b.player, b.opponent);
        if moves == 0 {
            let passed = b.pass();
            if k.moves(passed.player, passed.opponent) == 0 {
                return b.final_score();
            }
            return -self.nws_near(k, passed, -alpha - 1);
        }
        if let Some(cap) = stability_cutoff(&b, alpha) {
            return cap;
        }
        if let Some(floor) = stability_cutoff_below(&b, alpha) {
            return floor;
        }
        let n = b.empties();
        let slot = self.local.slot(&b);
        let mut tt_move = NO_MOVE;
        if self.use_tt {
            if let Some(e) = self.local.probe(&b, slot) {
                if e.lower > alpha {
                    return e.lower;
                }
                if e.upper <= alpha {
                    return e.upper;
                }
                tt_move = e.mv;
            }
        }
        // A child with 4 empties goes to the last-4 solver.
        let child_nws = |s: &mut Self, child: Board| {
            if n == 5 {
                -s.nws_4(k, child, -alpha - 1)
            } else {
                -s.nws_near(k, child, -alpha - 1)
            }
        };
        let mut best = -END_INF;
        let mut best_move = NO_MOVE;
        let mut rest = moves;
        if tt_move < 64 && moves & (1u64 << tt_move) != 0 {
            let x = tt_move as u32;
            best = child_nws(self, b.play_with_flips(x, flip(k, &b, x)));
            best_move = tt_move;
            rest &= !(1u64 << x);
        }
        if best <= alpha && rest != 0 {
            let parity = parity_mask(b.empty());
            // From 7 empties on, each child is first looked up in the local table: one whose
            // bounds already decide this node ends it, one already known to fail low is not
            // entered again (its bound joins `best`). Entering it only to read the same entry
            // would cost a call, a move generation and a node. Nearer the end a probe costs
            // about what it saves (figures: `docs/measurements.md`, "Figures behind the constants").
            let probe_children = self.use_tt && n > 6;
            let defends = defends_wipeout(alpha);
            // At most 9 empty squares, so at most 9 moves.
            let mut list = [MoveEntry::default(); 10];
            let mut len = 0;
            while rest != 0 {
                let x = rest.trailing_zeros();
                rest &= rest - 1;
                let f = flip(k, &b, x);
                let child = b.play_with_flips(x, f);
                if probe_children {
                    if let Some(e) = self.local.probe(&child, self.local.slot(&child)) {
                        if -e.upper > alpha {
                            best = -e.upper;
                            best_move = x as u8;
                            break;
                        }
                        if -e.lower <= alpha {
                            if -e.lower > best {
                                best = -e.lower;
                                best_move = x as u8;
                            }
                            continue;
                        }
                    }
                }
                let key = if defends {
                    stable_first_key(k, &child, x, parity)
                } else {
                    fastest_first_key(k, &child, x, parity)
                };
                list[len] = MoveEntry {
                    sq: x,
                    flips: f,
                    key,
                };
                len += 1;
            }
            if best > alpha {
                len = 0;
            }
            for i in 0..len {
                pick_best(&mut list[..len], i);
                let MoveEntry {
                    sq: x, flips: f, ..
                } = list[i];
                let v = child_nws(self, b.play_with_flips(x, f));
                if v > best {
                    best = v;
                    best_move = x as u8;
                    if v > alpha {
                        break;
                    }
                }
            }
        }
        if self.use_tt {
            self.local.store(&b, slot, alpha, best, best_move);
        }
        best
    }

    /// The move to try first from a table entry: any solver entry's, a midgame entry's only
    /// from a search deep enough (see [`MID_MOVE_MIN_DEPTH`]).
    #[inline(always)]
    fn first_move(e: &TtData) -> u8 {
        if e.kind != KIND_MID || e.depth >= MID_MOVE_MIN_DEPTH {
            e.mv
        } else {
            NO_MOVE
        }
    }

    /// The moves of `b` (but the one already searched) with ordering keys, higher = earlier:
    /// in a wipeout race (null-window `alpha` near ±64, see [`WIPEOUT_ALPHA`]) by the race's
    /// keys; near the end fastest first; from [`crate::ordering::ORDER_EVAL_EMPTIES`] empties on
    /// (trained evaluation) the child's evaluation and its mobility; from
    /// [`PROBE1_EMPTIES`] a one-ply probe instead of the evaluation, from [`PROBE2_EMPTIES`] a
    /// two-ply search ([`PV_PROBE_DEPTH`] plies at PV nodes, `pv`), both with a window around
    /// the node's bound `alpha`. The evaluator must
    /// hold `b` (the callers sync it from [`Self::sync_empties`] empties on).
    #[inline(always)]
    fn end_order<K: Kernel>(
        &mut self,
        k: K,
        b: &Board,
        moves: u64,
        alpha: i32,
        pv: bool,
        out: &mut Vec<MoveEntry>,
    ) {
        let parity = parity_mask(b.empty());
        let n = b.empties();
        let use_eval = n >= self.order_eval_empties;
        // The probes' window, from the child's side: about -alpha.
        let lo = -alpha * SCALE - PROBE_MARGIN.0;
        let hi = -alpha * SCALE + PROBE_MARGIN.1;
        let mut m = moves;
        while m != 0 {
            let x = m.trailing_zeros();
            m &= m - 1;
            let f = flip(k, b, x);
            let child = b.play_with_flips(x, f);
            let key = if attacks_wipeout(alpha) {
                let left = child.player.count_ones() as i32;
                fastest_first_key(k, &child, x, parity) - left * WIPEOUT_DISC_WEIGHT
            } else if defends_wipeout(alpha) {
                stable_first_key(k, &child, x, parity)
            } else if !use_eval {
                fastest_first_key(k, &child, x, parity)
            } else {
                let replies = k.moves(child.player, child.opponent);
                let mob = weighted_mobility(replies) as i32;
                let value = if n >= PROBE1_EMPTIES {
                    self.eval.on_play(b, x, f);
                    let v = if n >= PROBE2_EMPTIES {
                        let depth = if pv { PV_PROBE_DEPTH } else { 2 };
                        self.mid_search_k(k, child, depth, lo, hi)
                    } else {
                        self.order_probe_1(k, &child, replies, hi)
                    };
                    self.eval.on_undo(b, x, f);
                    v
                } else {
                    self.eval.evaluate_after(b, x, f, &child)
                };
                (36 - mob) * MOBILITY_WEIGHT - value * VALUE_WEIGHT
            };
            out.push(MoveEntry {
                sq: x,
                flips: f,
                key,
            });
        }
    }

    /// One-ply probe for move ordering: the value of `c` (its side to move's view, evaluation
    /// units) as the best of its children's evaluations, fail-soft: it stops at a child
    /// reaching `hi`. `moves` are `c`'s moves; the evaluator holds `c`. Every position
    /// evaluated counts as a node.
    #[inline(always)]
    fn order_probe_1<K: Kernel>(&mut self, k: K, c: &Board, moves: u64, hi: i32) -> i32 {
        if moves == 0 {
            let passed = c.pass();
            if k.moves(passed.player, passed.opponent) == 0 {
                return c.final_score() * SCALE;
            }
            self.nodes += 1;
            return -self.eval.evaluate(&passed);
        }
        self.mid_leaf_parent(k, c, moves, hi)
    }

    /// Search the child reached by `x` (flipping `f`) with the evaluator following, when `b`
    /// is far enough from the end for the child to order its moves by evaluation.
    #[inline(always)]
    fn end_child<K: Kernel>(
        &mut self,
        k: K,
        b: &Board,
        x: u32,
        f: u64,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        let child = b.play_with_flips(x, f);
        let sync = b.empties() >= self.sync_empties();
        if sync {
            self.eval.on_play(b, x, f);
        }
        let v = -self.end_pvs_k(k, child, -beta, -alpha);
        if sync {
            self.eval.on_undo(b, x, f);
        }
        v
    }

    /// From this many empties on the solver keeps the evaluator on its path: their children
    /// order their moves by evaluation.
    #[inline(always)]
    pub(crate) fn sync_empties(&self) -> u32 {
        self.order_eval_empties + 1
    }

    /// Null-window solve with the shared transposition table (LOCAL_EMPTIES empties or more).
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
        if let Some(floor) = stability_cutoff_below(&b, alpha) {
            return floor;
        }
        let n = b.empties();
        let h = hash(&b);
        let mut tt_move = NO_MOVE;
        if let Some(e) = self.tt_probe(h) {
            if self.end_entry_usable(e.kind) {
                if e.lower > alpha {
                    return e.lower;
                }
                if e.upper <= alpha {
                    return e.upper;
                }
            }
            tt_move = Self::first_move(&e);
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

        let mut best = -END_INF;
        let mut best_move = NO_MOVE;
        let mut rest = moves;
        let mut searched = 0;
        if tt_move < 64 && moves & (1u64 << tt_move) != 0 {
            let x = tt_move as u32;
            best = self.end_child(k, &b, x, flip(k, &b, x), alpha, alpha + 1);
            if self.aborted {
                return 0;
            }
            best_move = tt_move;
            rest &= !(1u64 << x);
            searched = 1;
        }
        if best <= alpha && rest != 0 {
            let mut list = self.take_list();
            self.end_order(k, &b, rest, alpha, false, &mut list);
            let mut i = 0;
            while i < list.len() {
                // Young brothers wait: the first move did not cut off; share the others
                // (checked at every move, so that a thread idle later still gets some).
                if searched >= 1 && self.pool.is_some() {
                    if let Some(r) =
                        self.split(k, &b, &mut list, i, None, alpha, alpha + 1, best, best_move)
                    {
                        (best, best_move) = r;
                        break;
                    }
                }
                pick_best(&mut list, i);
                let MoveEntry {
                    sq: x, flips: f, ..
                } = list[i];
                let v = self.end_child(k, &b, x, f, alpha, alpha + 1);
                if self.aborted {
                    break;
                }
                searched += 1;
                if v > best {
                    best = v;
                    best_move = x as u8;
                    if v > alpha {
                        break;
                    }
                }
                i += 1;
            }
            self.give_list(list);
            if self.aborted {
                return 0;
            }
        }
        let kind = self.end_kind();
        self.tt_store(h, kind, n, alpha, alpha + 1, best, best_move, 64);
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
            tt_move = Self::first_move(&e);
        }
        let (a0, b0) = (alpha, beta);
        let mut list = self.take_list();
        // The table move first (key above every other), then the solver's order.
        let rest = if tt_move < 64 && moves & (1u64 << tt_move) != 0 {
            let x = tt_move as u32;
            list.push(MoveEntry {
                sq: x,
                flips: flip(k, &b, x),
                key: i32::MAX,
            });
            moves & !(1u64 << x)
        } else {
            moves
        };
        self.end_order(k, &b, rest, alpha, true, &mut list);
        let mut best = -END_INF;
        let mut best_move = NO_MOVE;
        for i in 0..list.len() {
            if i >= 1 && self.pool.is_some() {
                if let Some(r) = self.split(k, &b, &mut list, i, None, alpha, beta, best, best_move)
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
            let MoveEntry {
                sq: x, flips: f, ..
            } = list[i];
            let mut v;
            if i == 0 {
                v = self.end_child(k, &b, x, f, alpha, beta);
            } else {
                v = self.end_child(k, &b, x, f, alpha, alpha + 1);
                if v > alpha && v < beta && !self.aborted {
                    v = self.end_child(k, &b, x, f, alpha, beta);
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
