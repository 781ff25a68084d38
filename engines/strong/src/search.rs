//! The search driver: one [`Searcher`] per search thread (counters, limits, the shared
//! transposition table, the evaluation), and [`Searcher::think`], which runs iterative
//! deepening with aspiration windows in the midgame, then an exact solve when the position is
//! within reach, reporting depth, selectivity, score, nodes and PV after every iteration.
//!
//! `Searcher` is the type of the search's one recursion (see the crate docs): the midgame
//! (`midgame.rs`), the solver (`endgame.rs`) and the split points (`parallel.rs`) are its
//! methods too. Invariant: once `aborted` is set, every score computed afterwards is
//! meaningless and is dropped on the way up; `think` reports only completed iterations.

use crate::eval::Evaluator;
use crate::kernel::{default_kernel, with_kernel, KernelId};
use crate::mpc::{END_MPC_MIN_EMPTIES, SELECTIVITY};
use crate::ordering::MoveEntry;
use crate::parallel::{HelperPool, SplitPoint};
use crate::score::{to_discs, END_INF, MID_INF, SCALE};
use crate::time::{extended_soft, Plan};
use crate::tt::{hash, LocalTable, Tt, TtData, LOCAL_TABLE_BITS, NO_MOVE};
use othello_sdk::board::{Board, Move, Square};
use othello_sdk::{SearchContext, SearchInfo, SearchOutcome};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Nodes between two checks of the stop flag, the clock and the node limit (about 0.1-0.3 ms
/// at this engine's speed; nodes are only counted, not checked, below the hashed levels).
pub const POLL_INTERVAL: u64 = 4096;
/// Default selectivity level (index into [`SELECTIVITY`]): t = 1.5, reported as 87%.
pub const DEFAULT_SELECTIVITY: usize = 1;

/// Half-width of the midgame aspiration window, evaluation units.
const ASPIRATION: i32 = 2 * SCALE;
/// Half-width of the solver's aspiration window at the root, discs: the exact solve starts
/// with the window (g - 3, g + 3) around the guess g (the last midgame iteration's score, or
/// the previous endgame stage's), so that most of the tree is settled by null-window proofs
/// near the true score instead of a wide window. A failed window costs a second root pass
/// from the bound the first proved, so the width trades the saving against the misses
/// (figures: `docs/measurements.md`, "Figures behind the constants").
const END_ASPIRATION: i32 = 3;

/// The state of one search thread.
pub struct Searcher<'a> {
    pub tt: Arc<Tt>,
    pub eval: Box<dyn Evaluator>,
    /// Nodes visited (every position entered, leaves included).
    pub nodes: u64,
    pub(crate) next_poll: u64,
    node_limit: u64,
    started: Instant,
    hard_time: Option<Duration>,
    ctx: Option<&'a SearchContext<'a>>,
    /// Set once the search must unwind; every result computed after it is meaningless.
    pub aborted: bool,
    /// Use the transposition table (off only to test that it changes no exact score).
    pub use_tt: bool,
    /// Recycled move lists (no allocation per node).
    lists: Vec<Vec<MoveEntry>>,
    /// The YBWC pool of the exact solver's threads (see [`crate::parallel`]), if several.
    pub pool: Option<&'a HelperPool>,
    /// The split points this thread is searching moves of, innermost last (their cutoff
    /// flags abort its search).
    pub(crate) splits: Vec<Arc<SplitPoint>>,
    /// The search must stop for good (stop flag, time, node limit, halt), as opposed to a
    /// cutoff at a split point.
    pub(crate) global_stop: bool,
    /// Multi-ProbCut threshold `t` (standard deviations) in midgame searches; `None` = off.
    pub mpc: Option<f64>,
    /// Selectivity reported for midgame iterations (percent).
    pub selectivity: u32,
    /// Selective endgame: `Some(level)` (index into [`SELECTIVITY`]) makes the solver
    /// cut null-window nodes by Multi-ProbCut at that level (results are then probable, not
    /// exact, and go to the table as selective entries); `None` = exact.
    pub end_selectivity: Option<usize>,
    /// The move-generation kernel the search runs on (default: the fastest this CPU has).
    pub kernel: KernelId,
    /// This thread's table for solver nodes near the leaves.
    pub(crate) local: LocalTable,
    /// From how many empties on the solver orders moves by the evaluation (the evaluation's
    /// own threshold, read once).
    pub(crate) order_eval_empties: u32,
    /// When `Some`, every root move's search is recorded here (diagnostics: `strong-bench
    /// solve --root-moves`).
    pub root_trace: Option<Vec<RootMoveTrace>>,
}

/// One search of a root move, as [`Searcher::root_trace`] records it.
#[derive(Clone, Copy, Debug)]
pub struct RootMoveTrace {
    pub sq: u32,
    /// The midgame depth, or `None` for the solver (exact or selective).
    pub depth: Option<u32>,
    /// The root's window (alpha, beta) for this move.
    pub window: (i32, i32),
    /// The move's score (fail-soft: a bound outside the window).
    pub score: i32,
    /// Nodes of this search.
    pub nodes: u64,
}

/// One completed (or partially completed) root iteration.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RootResult {
    pub(crate) score: i32,
    pub(crate) sq: u32,
}

impl<'a> Searcher<'a> {
    pub fn new(tt: Arc<Tt>, eval: Box<dyn Evaluator>, ctx: Option<&'a SearchContext<'a>>) -> Self {
        let order_eval_empties = eval.order_eval_empties();
        Searcher {
            tt,
            eval,
            nodes: 0,
            next_poll: POLL_INTERVAL,
            node_limit: u64::MAX,
            started: Instant::now(),
            hard_time: None,
            ctx,
            aborted: false,
            use_tt: true,
            lists: Vec::new(),
            pool: None,
            splits: Vec::new(),
            global_stop: false,
            mpc: Some(SELECTIVITY[DEFAULT_SELECTIVITY].0),
            selectivity: SELECTIVITY[DEFAULT_SELECTIVITY].1,
            end_selectivity: None,
            kernel: default_kernel(),
            local: LocalTable::new(LOCAL_TABLE_BITS),
            order_eval_empties,
            root_trace: None,
        }
    }

    /// Limits of the next search (time counted from now).
    pub fn set_limits(&mut self, hard_time: Option<Duration>, node_limit: Option<u64>) {
        self.started = Instant::now();
        self.hard_time = hard_time;
        self.node_limit = node_limit.unwrap_or(u64::MAX);
        self.next_poll = (self.nodes + POLL_INTERVAL).min(self.node_limit);
        self.aborted = false;
        self.global_stop = false;
    }

    /// Set the selectivity level (index into [`SELECTIVITY`]; the last is none).
    pub fn set_selectivity(&mut self, level: usize) {
        let (t, pct) = SELECTIVITY[level.min(SELECTIVITY.len() - 1)];
        self.mpc = t.is_finite().then_some(t);
        self.selectivity = pct;
    }

    /// Check the stop flag, the clock and the node limit.
    #[cold]
    pub(crate) fn poll(&mut self) {
        let out_of_time = self.hard_time.is_some_and(|t| self.started.elapsed() >= t);
        let stopped = self.ctx.is_some_and(|c| c.stopped());
        if out_of_time || stopped || self.nodes >= self.node_limit {
            self.global_stop = true;
        }
        self.aborted = self.global_stop || self.splits.iter().any(|sp| sp.cut_off());
        self.next_poll = (self.nodes + POLL_INTERVAL).min(self.node_limit.max(self.nodes + 1));
    }

    #[inline(always)]
    pub(crate) fn tt_probe(&self, h: u64) -> Option<TtData> {
        if self.use_tt {
            self.tt.probe(h)
        } else {
            None
        }
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(crate) fn tt_store(
        &self,
        h: u64,
        kind: u8,
        depth: u32,
        alpha: i32,
        beta: i32,
        score: i32,
        mv: u8,
        bound: i32,
    ) {
        if self.use_tt {
            self.tt.store(h, kind, depth, alpha, beta, score, mv, bound);
        }
    }

    #[inline(always)]
    pub(crate) fn take_list(&mut self) -> Vec<MoveEntry> {
        self.lists.pop().unwrap_or_else(|| Vec::with_capacity(32))
    }

    #[inline(always)]
    pub(crate) fn give_list(&mut self, mut l: Vec<MoveEntry>) {
        l.clear();
        self.lists.push(l);
    }

    /// Exact score of `b` (discs), searched from scratch with a full window.
    pub fn solve(&mut self, b: Board) -> i32 {
        self.end_pvs(b, -64, 64)
    }

    /// One root iteration over `root` (in order, the first with the full window, the others
    /// with null windows and a re-search when they fail high). `depth == None`: exact solve
    /// (disc units), else a midgame search (evaluation units). Returns the best move with its
    /// score and whether every move was searched; after an abort the best of the moves
    /// completed so far is returned if the first one (the previous best) completed.
    fn root(
        &mut self,
        b: Board,
        root: &[MoveEntry],
        depth: Option<u32>,
        mut alpha: i32,
        beta: i32,
    ) -> (Option<RootResult>, bool) {
        self.nodes += 1;
        let mut best: Option<RootResult> = None;
        for (i, &MoveEntry { sq, flips: f, .. }) in root.iter().enumerate() {
            let child = b.play_with_flips(sq, f);
            let full = |s: &mut Self, a: i32, bb: i32| {
                let before = s.nodes;
                let v = match depth {
                    None => -s.end_pvs(child, -bb, -a),
                    Some(d) => {
                        s.eval.on_play(&b, sq, f);
                        let v = -s.mid_search(child, d - 1, -bb, -a);
                        s.eval.on_undo(&b, sq, f);
                        v
                    }
                };
                if let Some(trace) = &mut s.root_trace {
                    trace.push(RootMoveTrace {
                        sq,
                        depth,
                        window: (a, bb),
                        score: v,
                        nodes: s.nodes - before,
                    });
                }
                v
            };
            let v = if i == 0 {
                full(self, alpha, beta)
            } else {
                let v = full(self, alpha, alpha + 1);
                if v > alpha && v < beta && !self.aborted {
                    full(self, alpha, beta)
                } else {
                    v
                }
            };
            if self.aborted {
                return (best.filter(|_| i > 0), false);
            }
            if best.is_none_or(|r| v > r.score) {
                best = Some(RootResult { score: v, sq });
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        break;
                    }
                }
            }
        }
        (best, true)
    }

    /// One root iteration of the solver (exact, or selective as `end_selectivity` says): with
    /// an aspiration window of [`END_ASPIRATION`] discs around `guess` when there is one,
    /// widened on the failing side from the bound the failed search proved (fail-soft: a
    /// root score at or below the window's low end is an upper bound of the true score, one
    /// at or above its high end a lower bound). After a fail high the move that failed high
    /// goes first. Returns what [`Searcher::root`] returns for the last window searched.
    pub(crate) fn end_root(
        &mut self,
        b: Board,
        root: &mut [MoveEntry],
        guess: Option<i32>,
    ) -> (Option<RootResult>, bool) {
        let (mut lo, mut hi) = match guess {
            Some(g) => (g - END_ASPIRATION, g + END_ASPIRATION),
            None => (-END_INF, END_INF),
        };
        loop {
            let (result, complete) = self.root(b, root, None, lo, hi);
            match result {
                Some(r) if complete && r.score <= lo && lo > -END_INF => {
                    (lo, hi) = (-END_INF, r.score + 1);
                }
                Some(r) if complete && r.score >= hi && hi < END_INF => {
                    (lo, hi) = (r.score - 1, END_INF);
                    move_to_front(root, r.sq);
                }
                _ => return (result, complete),
            }
        }
    }

    /// The principal variation: `first`, then the best moves stored in the table.
    fn pv(&self, b: Board, first: u32) -> Vec<Move> {
        let mut pv = vec![Move::at(Square::new(first).expect("square"))];
        let mut b = b.play_with_flips(first, b.flips(first));
        while pv.len() < 60 {
            let moves = b.moves();
            if moves == 0 {
                if b.pass().moves() == 0 {
                    break;
                }
                pv.push(Move::PASS);
                b = b.pass();
                continue;
            }
            match self.tt.probe(hash(&b)) {
                Some(e) if e.mv != NO_MOVE && e.mv < 64 && moves & (1u64 << e.mv) != 0 => {
                    let sq = e.mv as u32;
                    pv.push(Move::at(Square::new(sq).expect("square")));
                    b = b.play_with_flips(sq, b.flips(sq));
                }
                _ => break,
            }
        }
        pv
    }

    /// Search `b` under `plan`, calling `report` after each completed iteration: the root
    /// moves ordered, midgame iterative deepening ([`Searcher::midgame_iterations`]), then, if
    /// the position is within the plan's exact-solve reach, the endgame stages
    /// ([`Searcher::endgame_stages`]).
    pub fn think(
        &mut self,
        b: Board,
        plan: &Plan,
        report: &mut dyn FnMut(&SearchInfo),
    ) -> SearchOutcome {
        self.tt.new_search();
        self.set_limits(plan.hard_time, plan.node_limit);
        let moves = b.moves();
        if moves == 0 {
            return self.pass_outcome(b, report);
        }
        let exact = b.empties() <= plan.solve_empties;
        let root = self.root_moves(b, moves, plan);
        let mut progress = Progress::new(root, self.nodes);
        self.midgame_iterations(b, plan, exact, &mut progress, report);
        if exact {
            self.endgame_stages(b, plan, &mut progress, report);
        }
        self.outcome(progress)
    }

    /// No legal move (the host never sends a finished game): pass.
    fn pass_outcome(&mut self, b: Board, report: &mut dyn FnMut(&SearchInfo)) -> SearchOutcome {
        let info = SearchInfo {
            depth: 0,
            selectivity: 100,
            score: to_discs(self.eval.evaluate(&b)),
            nodes: 1,
            pv: vec![Move::PASS],
        };
        report(&info);
        SearchOutcome {
            mv: Move::PASS,
            info,
        }
    }

    /// The root moves, ordered as inner nodes are.
    fn root_moves(&mut self, b: Board, moves: u64, plan: &Plan) -> Vec<MoveEntry> {
        let mut root = Vec::new();
        with_kernel!(self.kernel, k => self.mid_order(k, &b, moves, 2.min(plan.max_depth), NO_MOVE, &mut root));
        root.sort_by_key(|e| -e.key);
        root
    }

    /// Midgame iterative deepening (before an exact solve, only as deep as helps ordering, and
    /// without selectivity), each iteration reported once complete.
    fn midgame_iterations(
        &mut self,
        b: Board,
        plan: &Plan,
        exact: bool,
        progress: &mut Progress,
        report: &mut dyn FnMut(&SearchInfo),
    ) {
        let n = b.empties();
        let mid_depth = if exact {
            n.saturating_sub(12).min(plan.max_depth).min(12)
        } else {
            plan.max_depth.min(n - 1).max(1)
        };
        let mut clock = TimeExtension::new(plan);
        // Before an exact solve the midgame iterations only order moves: no selectivity.
        let mpc = self.mpc;
        if exact {
            self.mpc = None;
        }
        for depth in 1..=mid_depth {
            if depth > 1 && clock.soft_time.is_some_and(|t| self.started.elapsed() >= t) {
                break;
            }
            let (result, complete) = self.aspiration_root(b, &progress.root, depth, progress.guess);
            if let (Some(r), true) = (result, complete) {
                if clock.after_iteration(plan, depth, r) {
                    // Unstable: the whole move may take longer, not only the start of
                    // iterations.
                    self.hard_time = plan.max_hard_time.or(self.hard_time);
                }
            }
            if let Some(r) = result {
                progress.best_sq = r.sq;
                progress.guess = r.score;
                move_to_front(&mut progress.root, r.sq);
                progress.info = SearchInfo {
                    depth: if complete { depth } else { depth - 1 },
                    selectivity: if self.mpc.is_some() {
                        self.selectivity
                    } else {
                        100
                    },
                    score: to_discs(r.score),
                    nodes: self.nodes - progress.start_nodes,
                    pv: self.pv(b, r.sq),
                };
            }
            if !complete {
                break;
            }
            report(&progress.info);
        }
        self.mpc = mpc;
    }

    /// One midgame iteration of depth `depth`: an aspiration window around the previous score
    /// `guess` (full from the start at depths 1-2), re-searched wide on the failing side.
    fn aspiration_root(
        &mut self,
        b: Board,
        root: &[MoveEntry],
        depth: u32,
        guess: i32,
    ) -> (Option<RootResult>, bool) {
        let (mut lo, mut hi) = if depth <= 2 {
            (-MID_INF, MID_INF)
        } else {
            (guess - ASPIRATION, guess + ASPIRATION)
        };
        loop {
            let (r, complete) = self.root(b, root, Some(depth), lo, hi);
            match r {
                Some(r) if complete && r.score <= lo && lo > -MID_INF => lo = -MID_INF,
                Some(r) if complete && r.score >= hi && hi < MID_INF => hi = MID_INF,
                _ => return (r, complete),
            }
        }
    }

    /// The exact solve; under a time limit, selective endgame searches first (73% ... 99%, as
    /// Egaroucid): each is much cheaper than the exact one and leaves a better move (and
    /// ordering) if the exact solve does not finish in time. The last level is exact.
    fn endgame_stages(
        &mut self,
        b: Board,
        plan: &Plan,
        progress: &mut Progress,
        report: &mut dyn FnMut(&SearchInfo),
    ) {
        let n = b.empties();
        let exact_level = SELECTIVITY.len() - 1;
        let first = if plan.selective_endgame && n >= END_MPC_MIN_EMPTIES {
            0
        } else {
            exact_level
        };
        // The first guess of the solver's score: the last completed midgame iteration's.
        let mut end_guess = (progress.info.depth > 0)
            .then(|| (to_discs(progress.guess).round() as i32).clamp(-64, 64));
        for (level, &(_, percent)) in SELECTIVITY.iter().enumerate().skip(first) {
            if self.aborted {
                break;
            }
            self.end_selectivity = (level < exact_level).then_some(level);
            let (result, complete) = self.end_root(b, &mut progress.root, end_guess);
            self.end_selectivity = None;
            match result {
                Some(r) if complete => {
                    end_guess = Some(r.score);
                    progress.best_sq = r.sq;
                    move_to_front(&mut progress.root, r.sq);
                    progress.info = SearchInfo {
                        depth: n,
                        selectivity: percent,
                        score: r.score as f64,
                        nodes: self.nodes - progress.start_nodes,
                        pv: self.pv(b, r.sq),
                    };
                    report(&progress.info);
                }
                // An interrupted exact solve: its best completed move is at least as good as
                // the first (the previous stage's choice) on exact terms.
                Some(r) if level == exact_level && r.score > -END_INF => {
                    progress.best_sq = r.sq;
                    progress.info.pv = self.pv(b, r.sq);
                }
                _ => {}
            }
        }
    }

    /// The move to play and the last report, with the search's total node count; the PV is
    /// the move alone when the last report's PV does not start with it.
    fn outcome(&self, progress: Progress) -> SearchOutcome {
        let mut info = progress.info;
        info.nodes = self.nodes - progress.start_nodes;
        let mv = Move::at(Square::new(progress.best_sq).expect("square"));
        if info.pv.first() != Some(&mv) {
            info.pv = vec![mv];
        }
        SearchOutcome { mv, info }
    }
}

/// What [`Searcher::think`]'s stages hand on to each other.
struct Progress {
    /// The root moves, the best so far first.
    root: Vec<MoveEntry>,
    /// The last report (or, before any, the first root move as the PV).
    info: SearchInfo,
    /// The move to play if the search stopped now.
    best_sq: u32,
    /// The last midgame iteration's score (evaluation units; 0 before any).
    guess: i32,
    /// The thread's node count when the search started.
    start_nodes: u64,
}

impl Progress {
    fn new(root: Vec<MoveEntry>, start_nodes: u64) -> Progress {
        let first = root[0].sq;
        Progress {
            info: SearchInfo {
                depth: 0,
                selectivity: 100,
                score: 0.0,
                nodes: 0,
                pv: vec![Move::at(Square::new(first).expect("square"))],
            },
            root,
            best_sq: first,
            guess: 0,
            start_nodes,
        }
    }
}

/// The time extension of the midgame iterations: the soft limit grows while the best move
/// keeps changing or the score falls (see [`crate::time::extended_soft`]).
struct TimeExtension {
    /// No iteration starts after this time.
    soft_time: Option<Duration>,
    /// How often the best move changed lately (halved every iteration).
    instability: f64,
    /// The last completed iteration.
    previous: Option<RootResult>,
}

impl TimeExtension {
    fn new(plan: &Plan) -> TimeExtension {
        TimeExtension {
            soft_time: plan.soft_time,
            instability: 0.0,
            previous: None,
        }
    }

    /// Account for a completed iteration of `depth` with result `r`; returns whether the
    /// search is unstable (the best move changed lately or the score fell), so that the hard
    /// limit may grow too.
    fn after_iteration(&mut self, plan: &Plan, depth: u32, r: RootResult) -> bool {
        let mut unstable = false;
        if let (Some(p), Some(base)) = (self.previous, plan.soft_time) {
            if depth >= 4 {
                let changed = p.sq != r.sq;
                self.instability = self.instability * 0.5 + if changed { 1.0 } else { 0.0 };
                let fail_low = r.score <= p.score - SCALE;
                self.soft_time = Some(extended_soft(
                    base,
                    plan.max_soft_time.unwrap_or(base),
                    self.instability,
                    fail_low,
                ));
                unstable = self.instability > 0.0 || fail_low;
            }
        }
        self.previous = Some(r);
        unstable
    }
}

/// Move `sq` to the front of the root list, keeping the others in order.
fn move_to_front(root: &mut [MoveEntry], sq: u32) {
    if let Some(i) = root.iter().position(|e| e.sq == sq) {
        root[..=i].rotate_right(1);
    }
}
