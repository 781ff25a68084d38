//! Heuristic: the alpha-beta engine of student papers on Othello, with iterative deepening
//! and a hand-weighted 10-feature evaluation.
//!
//! Search: negamax alpha-beta (fail-soft), iterative deepening from depth 1. A pass counts as
//! a ply. Moves are tried in a static order by square class, as in the paper: corners (score
//! 1000) > edges (100) > the 16 centre squares c3-f6 (10) > regular squares (1) > C-squares
//! (-500) > X-squares (-1000), lowest square first within a class; at the root the best move
//! of the previous iteration goes first.
//!
//! Evaluation (module [`eval`]): a weighted sum, side to move's view, of corners 600, edges 70,
//! stability 90 (the paper's simple estimate `3 * corners + edge discs`), X-squares -50,
//! C-squares -5, frontier discs -10, mobility 100, potential mobility 6, disc difference 100,
//! parity 18; each is mine minus the opponent's except parity, which is +1/0/-1 by the paper's
//! rule "with an even number of moves left the player ahead in discs has the advantage, with
//! an odd number the player behind". A finished game scores its final result (empties to the
//! winner) at 100 per disc plus a bonus of 1,000,000 for the winner, so wins dominate.
//! Reported scores are in discs: internal score / 100 (the disc-difference weight), bonus
//! removed for finished games.
//!
//! Limits:
//! - time: the budget is `limits.time_budget(side, moves_to_go)` with `moves_to_go` the
//!   number of moves the side to move still has to play if nobody passes,
//!   `max(ceil(empties / 2), 1)` (an even split of the clock over the rest of the game; the
//!   SDK also caps it at half the clock). The engine uses `TimeShare` of it (90% by default):
//!   it starts no new iteration once `elapsed + 3 * last iteration time` would exceed that,
//!   and aborts a running iteration when it is spent or the host raises the stop flag. After
//!   an abort it plays the best move of the interrupted iteration if its first root move (the
//!   previous best) was searched completely, otherwise that of the last completed iteration.
//! - depth: `limits.depth` from the host is searched exactly (still under the clock if one is
//!   given). Otherwise the `Depth` option if non-zero, otherwise as deep as the clock allows;
//!   with no time limit at all (no clock, move time or node limit) the default depth is 6.
//! - nodes: `limits.nodes` aborts the search like the clock.
//!
//! The search also stops early once an iteration reached the end of the game on every line.
//! Info is reported after each completed iteration.
//!
//! Options:
//! - `Depth` (int, default 0, 0..=30): fixed search depth; 0 = use the clock (depth 6 when
//!   there is no limit).
//! - `TimeShare` (float, default 0.9, 0.1..=1.0): the fraction of the time budget used.
//! - `Corners`, `Edges`, `Stability`, `XSquares`, `CSquares`, `Frontier`, `Mobility`,
//!   `PotentialMobility`, `Discs`, `Parity` (int, -1000..=1000): the evaluation's weights,
//!   defaults [`eval::WEIGHTS`] (for `harness tune`).
#![forbid(unsafe_code)]

pub mod eval;

use eval::{evaluate_with, terminal, to_discs, MOVE_ORDER, WEIGHTS, WEIGHT_OPTIONS, WEIGHT_RANGE};
use othello_sdk::board::{Board, Color, Move, Square};
use othello_sdk::{
    Engine, Limits, Metadata, OptionSpec, OptionValue, SearchContext, SearchInfo, SearchOutcome,
    SearchRequest,
};
use std::time::Duration;

/// Deepest iteration (a host depth limit beyond it is clamped; no game needs more).
const MAX_DEPTH: u32 = 60;
/// PV table size: one row per ply, plies never exceed the depth.
const MAX_PLY: usize = MAX_DEPTH as usize + 1;
/// Depth when nothing limits the search.
const DEFAULT_DEPTH: u32 = 6;
/// Above any score (finished games are within WIN_BONUS + 6400).
const INF: i32 = 10_000_000;
/// Nodes between two polls of the stop flag and the clock.
const POLL_INTERVAL: u64 = 1024;
/// Expected time of an iteration relative to the previous one, for the decision to start one.
const ITERATION_GROWTH: u32 = 3;

/// The heuristic engine.
#[derive(Clone, Debug)]
pub struct Heuristic {
    /// 0 = use the clock.
    depth: u32,
    time_share: f64,
    /// The evaluation's weights, in feature order (options `Corners` … `Parity`).
    weights: [i32; 10],
}

/// The outcome of one root iteration.
struct RootResult {
    /// Best root move among those searched completely, with its exact score.
    best: Option<(Move, i32)>,
    /// Whether every root move was searched.
    complete: bool,
}

/// The state of one search: counters, limits and the triangular PV table.
struct Searcher<'c, 'a> {
    ctx: &'c SearchContext<'a>,
    nodes: u64,
    /// The node count at which to poll the stop flag, the clock and the node limit next.
    next_poll: u64,
    node_limit: u64,
    time_limit: Option<Duration>,
    aborted: bool,
    /// The evaluation's weights, in feature order.
    weights: [i32; 10],
    /// Set when a line was cut by the depth limit (an evaluated, unfinished leaf); if an
    /// iteration never sets it, the search reached the end of the game everywhere.
    depth_cut: bool,
    /// `pv[ply][ply..pv_len[ply]]` is the principal variation found from `ply`.
    pv: [[Move; MAX_PLY]; MAX_PLY],
    pv_len: [usize; MAX_PLY],
}

impl<'c, 'a> Searcher<'c, 'a> {
    fn new(
        ctx: &'c SearchContext<'a>,
        node_limit: Option<u64>,
        time_limit: Option<Duration>,
        weights: [i32; 10],
    ) -> Self {
        let node_limit = node_limit.unwrap_or(u64::MAX);
        Searcher {
            ctx,
            nodes: 0,
            next_poll: POLL_INTERVAL.min(node_limit),
            node_limit,
            time_limit,
            aborted: false,
            weights,
            depth_cut: false,
            pv: [[Move::PASS; MAX_PLY]; MAX_PLY],
            pv_len: [0; MAX_PLY],
        }
    }

    /// Called every `POLL_INTERVAL` nodes and at the node limit: decide whether to abort.
    #[cold]
    fn poll(&mut self) {
        let out_of_time = self.time_limit.is_some_and(|t| self.ctx.elapsed() >= t);
        if out_of_time || self.ctx.stopped() || self.nodes >= self.node_limit {
            self.aborted = true;
        }
        self.next_poll = (self.nodes + POLL_INTERVAL).min(self.node_limit);
    }

    /// Set the PV at `ply` to `mv` followed by the child's PV.
    #[inline]
    fn update_pv(&mut self, ply: usize, mv: Move) {
        self.pv[ply][ply] = mv;
        let child_len = self.pv_len[ply + 1];
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len.max(ply + 1);
    }

    /// Fail-soft alpha-beta negamax value of `b` searched `depth` plies deep, side to move's
    /// view: exact inside (alpha, beta), an upper bound when <= alpha, a lower bound when
    /// >= beta. Meaningless once `self.aborted` is set.
    fn negamax(&mut self, b: Board, depth: u32, ply: usize, mut alpha: i32, beta: i32) -> i32 {
        self.nodes += 1;
        if self.nodes >= self.next_poll {
            self.poll();
        }
        self.pv_len[ply] = ply;
        if self.aborted {
            return 0;
        }

        let moves = b.moves();
        if moves == 0 {
            let passed = b.pass();
            if !passed.has_moves() {
                return terminal(&b);
            }
            if depth == 0 {
                self.depth_cut = true;
                return evaluate_with(&b, moves, &self.weights);
            }
            // The pass is a ply of its own.
            let v = -self.negamax(passed, depth - 1, ply + 1, -beta, -alpha);
            self.update_pv(ply, Move::PASS);
            return v;
        }
        if depth == 0 {
            self.depth_cut = true;
            return evaluate_with(&b, moves, &self.weights);
        }

        let mut best = -INF;
        // Static order: class by class, lowest square first within a class.
        'classes: for (class, _) in MOVE_ORDER {
            let mut rest = moves & class;
            while rest != 0 {
                let sq = rest.trailing_zeros();
                rest &= rest - 1;
                let child = b.play_with_flips(sq, b.flips(sq));
                let v = -self.negamax(child, depth - 1, ply + 1, -beta, -alpha);
                if self.aborted {
                    return 0;
                }
                if v > best {
                    best = v;
                    self.update_pv(ply, Move::at(Square::new(sq).expect("sq < 64")));
                    alpha = alpha.max(v);
                    if alpha >= beta {
                        break 'classes;
                    }
                }
            }
        }
        best
    }

    /// One iteration at the root: the moves in `order` (all legal moves, previous best first),
    /// searched with a full window so that every improving score is exact.
    fn root(&mut self, b: Board, depth: u32, order: &[u32]) -> RootResult {
        self.nodes += 1;
        let mut best: Option<(Move, i32)> = None;
        let mut best_score = -INF;
        for &sq in order {
            let child = b.play_with_flips(sq, b.flips(sq));
            let v = -self.negamax(child, depth - 1, 1, -INF, -best_score);
            if self.aborted {
                return RootResult {
                    best,
                    complete: false,
                };
            }
            if v > best_score {
                best_score = v;
                let mv = Move::at(Square::new(sq).expect("sq < 64"));
                best = Some((mv, v));
                self.update_pv(0, mv);
            }
        }
        RootResult {
            best,
            complete: true,
        }
    }

    fn info(&self, depth: u32, score: i32) -> SearchInfo {
        SearchInfo {
            depth,
            selectivity: 100,
            score: to_discs(score),
            nodes: self.nodes,
            pv: self.pv[0][..self.pv_len[0]].to_vec(),
        }
    }
}

/// The legal moves of `b` in static order (see [`eval::MOVE_ORDER`]), as square indices.
fn ordered_moves(b: &Board) -> Vec<u32> {
    let moves = b.moves();
    let mut out = Vec::with_capacity(moves.count_ones() as usize);
    for (class, _) in MOVE_ORDER {
        out.extend(Square::iter(moves & class).map(|s| s.index()));
    }
    out
}

impl Heuristic {
    /// Depth cap and time limit of a search under `limits` from a position with `empties`
    /// empty squares, `side` to move.
    fn plan(&self, limits: &Limits, side: Color, empties: u32) -> (u32, Option<Duration>) {
        let moves_to_go = empties.div_ceil(2).max(1);
        let time_limit = limits
            .time_budget(side, moves_to_go)
            .map(|budget| budget.mul_f64(self.time_share));
        let depth = match limits.depth {
            Some(d) => d,
            None if self.depth > 0 => self.depth,
            None if time_limit.is_none() && limits.nodes.is_none() => DEFAULT_DEPTH,
            None => MAX_DEPTH,
        };
        (depth.clamp(1, MAX_DEPTH), time_limit)
    }
}

impl Engine for Heuristic {
    fn metadata() -> Metadata {
        Metadata {
            name: "Heuristic",
            version: env!("CARGO_PKG_VERSION"),
            author: "othello-tournament baselines",
        }
    }

    fn options() -> Vec<OptionSpec> {
        let mut options = vec![
            OptionSpec::int(
                "Depth",
                0,
                0,
                30,
                "fixed search depth in plies; 0 = iterative deepening under the clock (6 with no limit)",
            ),
            OptionSpec::float(
                "TimeShare",
                0.9,
                0.1,
                1.0,
                "fraction of the per-move time budget the engine uses",
            ),
        ];
        let (low, high) = WEIGHT_RANGE;
        for (name, default) in WEIGHT_OPTIONS.iter().zip(WEIGHTS) {
            options.push(OptionSpec::int(
                name,
                i64::from(default),
                low,
                high,
                "evaluation weight of this feature, internal units (100 per disc)",
            ));
        }
        options
    }

    fn new() -> Self {
        Heuristic {
            depth: 0,
            time_share: 0.9,
            weights: WEIGHTS,
        }
    }

    fn set_option(&mut self, name: &str, value: &OptionValue) -> Result<(), String> {
        match (name, value) {
            ("Depth", OptionValue::Int(d)) => self.depth = *d as u32,
            ("TimeShare", OptionValue::Float(f)) => self.time_share = *f,
            (_, OptionValue::Int(w)) if WEIGHT_OPTIONS.contains(&name) => {
                let i = WEIGHT_OPTIONS
                    .iter()
                    .position(|o| *o == name)
                    .expect("listed");
                self.weights[i] = *w as i32;
            }
            _ => return Err(format!("option {name}: unexpected value {value:?}")),
        }
        Ok(())
    }

    fn search(&mut self, request: &SearchRequest, ctx: &SearchContext) -> SearchOutcome {
        let position = request.position;
        let b = position.board;
        let mut order = ordered_moves(&b);
        if order.is_empty() {
            // No legal move (the root is never a finished game): pass.
            let info = SearchInfo {
                depth: 0,
                selectivity: 100,
                score: to_discs(evaluate_with(&b, 0, &self.weights)),
                nodes: 1,
                pv: vec![Move::PASS],
            };
            ctx.report(&info);
            return SearchOutcome {
                mv: Move::PASS,
                info,
            };
        }

        let (max_depth, time_limit) =
            self.plan(&request.limits, position.side_to_move, b.empties());
        let mut s = Searcher::new(ctx, request.limits.nodes, time_limit, self.weights);
        // Until an iteration finishes: the first move in static order.
        let first = Move::at(Square::new(order[0]).expect("legal square"));
        let mut info = SearchInfo {
            depth: 0,
            selectivity: 100,
            score: to_discs(evaluate_with(&b, b.moves(), &self.weights)),
            nodes: 0,
            pv: vec![first],
        };
        let mut last_iteration = Duration::ZERO;

        for depth in 1..=max_depth {
            if depth > 1 {
                // Start another iteration only if it can be expected to finish in time.
                let elapsed = ctx.elapsed();
                let late =
                    time_limit.is_some_and(|t| elapsed + last_iteration * ITERATION_GROWTH > t);
                if late || ctx.stopped() {
                    break;
                }
            }
            let started = ctx.elapsed();
            s.depth_cut = false;
            let r = s.root(b, depth, &order);
            if let Some((mv, score)) = r.best {
                // A complete iteration, or a partial one whose first move (the previous best)
                // was searched: its best is at least as well founded as the last iteration's.
                let completed = if r.complete { depth } else { depth - 1 };
                info = s.info(completed, score);
                debug_assert_eq!(info.pv.first(), Some(&mv));
                // The best move goes first in the next iteration.
                let i = order
                    .iter()
                    .position(|&q| Move::at(Square::new(q).expect("sq")) == mv);
                order[..=i.expect("best move is in the list")].rotate_right(1);
            }
            if !r.complete {
                break;
            }
            ctx.report(&info);
            last_iteration = ctx.elapsed() - started;
            if !s.depth_cut {
                // Every line reached the end of the game: deeper iterations change nothing.
                break;
            }
        }
        info.nodes = s.nodes;
        SearchOutcome {
            mv: info.pv[0],
            info,
        }
    }
}

othello_sdk::export_engine!(Heuristic);

#[cfg(test)]
mod tests {
    use super::*;
    use othello_sdk::board::playout::{random_game, random_positions, SplitMix64};
    use othello_sdk::board::Position;
    use othello_sdk::Clock;
    use std::sync::atomic::AtomicU32;
    use std::time::Instant;

    /// The weight options default to the paper's weights and change the evaluation the search
    /// uses: with the corner weight negated, a move that takes a corner scores lower.
    #[test]
    fn weight_options_set_the_evaluation() {
        let options = Heuristic::options();
        for (name, w) in WEIGHT_OPTIONS.iter().zip(WEIGHTS) {
            let o = options.iter().find(|o| o.name == *name).expect("declared");
            let (low, high) = WEIGHT_RANGE;
            let kind = othello_sdk::OptionKind::Int {
                default: i64::from(w),
                min: low,
                max: high,
            };
            assert_eq!(o.kind, kind, "{name}");
        }
        let mut e = Heuristic::new();
        assert_eq!(e.weights, WEIGHTS);
        e.set_option("Corners", &OptionValue::Int(-600)).unwrap();
        e.set_option("Parity", &OptionValue::Int(7)).unwrap();
        let mut expected = WEIGHTS;
        expected[eval::CORNER] = -600;
        expected[eval::PARITY] = 7;
        assert_eq!(e.weights, expected);
        assert!(e.set_option("Corners", &OptionValue::Float(1.0)).is_err());
    }

    fn engine(depth: i64) -> Heuristic {
        let mut e = Heuristic::new();
        e.set_option("Depth", &OptionValue::Int(depth)).unwrap();
        e
    }

    fn run_with(
        e: &mut Heuristic,
        position: Position,
        limits: Limits,
        stop: &AtomicU32,
    ) -> SearchOutcome {
        let ctx = SearchContext::detached(stop);
        e.search(&SearchRequest::new(position, limits), &ctx)
    }

    fn run(e: &mut Heuristic, position: Position) -> SearchOutcome {
        run_with(e, position, Limits::default(), &AtomicU32::new(0))
    }

    /// Search `position` under `limits` in a thread of its own, with the stop flag raised from
    /// the start when `stopped`; returns the answer and the time the search took. A search still
    /// running after `bound` is stopped (so that a broken limit fails the test, not hangs it).
    fn timed_search(
        e: &mut Heuristic,
        position: Position,
        limits: Limits,
        stopped: bool,
        bound: Duration,
    ) -> (SearchOutcome, Duration) {
        let stop = AtomicU32::new(u32::from(stopped));
        std::thread::scope(|scope| {
            let started = Instant::now();
            let stop = &stop;
            let search = scope.spawn(move || {
                let out = run_with(e, position, limits, stop);
                (out, started.elapsed())
            });
            while !search.is_finished() && started.elapsed() < bound {
                std::thread::sleep(Duration::from_millis(2));
            }
            stop.store(1, std::sync::atomic::Ordering::Relaxed);
            search.join().expect("the search thread")
        })
    }

    fn clock(ms: u64) -> Limits {
        Limits {
            clock: Some(Clock {
                time_left: [Duration::from_millis(ms); 2],
                increment: [Duration::ZERO; 2],
            }),
            ..Limits::default()
        }
    }

    /// Exact negamax to the end of the game (few empties only).
    fn solve(b: Board) -> i32 {
        let moves = b.moves();
        if moves == 0 {
            return if b.pass().has_moves() {
                -solve(b.pass())
            } else {
                b.final_score()
            };
        }
        Square::iter(moves)
            .map(|s| -solve(b.play(s.index()).unwrap()))
            .max()
            .unwrap()
    }

    #[test]
    fn legal_moves_on_random_positions_and_pass_when_forced() {
        let mut e = engine(3);
        for p in random_positions(300, 11) {
            let out = run(&mut e, p);
            assert!(p.is_legal(out.mv), "{} illegal in {p}", out.mv);
            assert_eq!(out.mv.is_pass(), p.legal_moves() == 0);
            // The PV replays legally.
            out.info.pv.iter().fold(p, |q, &mv| q.play(mv).unwrap());
        }
        let p: Position = format!("XO{} O", "-".repeat(62)).parse().unwrap();
        assert!(p.must_pass());
        assert_eq!(run(&mut e, p).mv, Move::PASS);
    }

    /// Under a 10-minute clock (a budget of tens of seconds) a raised stop flag ends the search
    /// at once. The bound is generous for a loaded machine; a search that did not look at the
    /// flag would run for its whole budget. The real latency is measured by `cargo bench -p
    /// heuristic --bench timing`.
    #[test]
    fn raised_stop_flag_returns_a_legal_move_at_once() {
        let mut e = Heuristic::new();
        let bound = Duration::from_secs(2);
        for p in random_positions(20, 3) {
            let (out, spent) = timed_search(&mut e, p, clock(600_000), true, bound);
            assert!(spent < bound, "{spent:?} in {p}");
            assert!(p.is_legal(out.mv), "{p}");
        }
    }

    #[test]
    fn fixed_depth_is_deterministic() {
        let mut e = engine(5);
        for p in random_positions(20, 8) {
            let (a, b) = (run(&mut e, p), run(&mut e, p));
            // Same move, score, PV, depth and node count.
            assert_eq!(a, b, "{p}");
            assert!(p.is_legal(a.mv));
        }
    }

    #[test]
    fn no_limit_searches_the_default_depth_and_host_depth_is_exact() {
        let mut e = Heuristic::new();
        let out = run(&mut e, Position::START);
        assert_eq!(out.info.depth, DEFAULT_DEPTH);
        let limits = Limits {
            depth: Some(3),
            ..Limits::default()
        };
        let out = run_with(&mut engine(8), Position::START, limits, &AtomicU32::new(0));
        assert_eq!(out.info.depth, 3);
        assert_eq!(out.info.pv.len(), 3);
    }

    /// A clock or a move time ends a search that nothing else would end (iterative deepening to
    /// depth 60). The bounds are generous for a loaded machine, a second past the budget; the
    /// real overrun is measured by `cargo bench -p heuristic --bench timing`.
    #[test]
    fn clock_limits_the_search() {
        let mut e = Heuristic::new();
        let p = random_positions(1, 21)[0];
        // 30 moves to go on a 3 s clock: ~100 ms budget, 90 ms used.
        let p = if p.empties() > 40 { p } else { Position::START };
        let bound = Duration::from_millis(3_000 / 30 + 1_000);
        let (out, spent) = timed_search(&mut e, p, clock(3_000), false, bound);
        assert!(p.is_legal(out.mv));
        assert!(spent < bound, "{spent:?}");
        assert!(out.info.depth >= 1);
        // A fixed move time.
        let limits = Limits {
            move_time: Some(Duration::from_millis(40)),
            ..Limits::default()
        };
        let bound = Duration::from_millis(40 + 1_000);
        let (out, spent) = timed_search(&mut e, Position::START, limits, false, bound);
        assert!(spent < bound, "{spent:?}");
        assert!(Position::START.is_legal(out.mv));
    }

    #[test]
    fn node_limit_is_honoured() {
        let limits = Limits {
            nodes: Some(20_000),
            ..Limits::default()
        };
        let p = Position::START;
        let out = run_with(&mut Heuristic::new(), p, limits, &AtomicU32::new(0));
        assert!(out.info.nodes <= 20_000);
        assert!(p.is_legal(out.mv));
    }

    #[test]
    fn endgames_within_reach_score_the_exact_result() {
        let mut rng = SplitMix64(77);
        let mut e = engine(12);
        for _ in 0..30 {
            let game = random_game(&mut rng);
            // A position with at most 6 empties.
            let p = *game
                .iter()
                .find(|p| p.empties() <= 6)
                .unwrap_or(game.last().unwrap());
            let out = run(&mut e, p);
            assert_eq!(out.info.score, solve(p.board) as f64, "{p}");
            let after = p.play(out.mv).unwrap();
            assert_eq!(
                -solve(after.board),
                solve(p.board),
                "{p}: {} is not optimal",
                out.mv
            );
        }
    }
}
