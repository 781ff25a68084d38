//! Minimax: the "naive" fixed-depth opponent of student papers on Othello.
//!
//! A full-width negamax search to a fixed depth whose only evaluation is the disc difference
//! (side to move minus opponent). A finished game scores its final result with the empty
//! squares given to the winner ([`Board::final_score`]). A pass counts as a ply: a side with
//! no move whose opponent can move searches the passed position one ply shallower, negated.
//!
//! Moves are tried in square order (a1 first). Among equally scored moves the lowest square
//! wins, with or without pruning (alpha-beta only replaces the best move on a strictly better
//! score), so both `Pruning` settings return the same move and score.
//!
//! Options:
//! - `Depth` (int, default 7, 1..=20): search depth in plies. A depth limit from the host
//!   (`limits.depth`) overrides it.
//! - `Pruning` (enum `none` | `alphabeta`, default `alphabeta`): plain negamax, or negamax with
//!   alpha-beta pruning (same result, far fewer nodes).
//!
//! The stop flag is polled every 1024 nodes and the host's node limit is honoured; an
//! interrupted search returns the best of the root moves searched completely (the first legal
//! move if none was). Info is reported at the root each time the best move changes and once at
//! the end.
#![forbid(unsafe_code)]

use othello_sdk::board::{Board, Move, Square};
use othello_sdk::{
    Engine, Metadata, OptionSpec, OptionValue, SearchContext, SearchInfo, SearchOutcome,
    SearchRequest,
};

/// Deepest search accepted (a host depth limit beyond it is clamped; no game needs more).
const MAX_DEPTH: u32 = 60;
/// PV table size: one row per ply, plies never exceed the depth.
const MAX_PLY: usize = MAX_DEPTH as usize + 1;
/// Above any disc score (|score| <= 64).
const INF: i32 = 1000;
/// Nodes between two polls of the stop flag.
const POLL_INTERVAL: u64 = 1024;

/// The minimax engine.
#[derive(Clone, Debug)]
pub struct Minimax {
    depth: u32,
    pruning: bool,
}

/// The state of one search: counters, limits and the triangular PV table.
struct Searcher<'c, 'a> {
    ctx: &'c SearchContext<'a>,
    nodes: u64,
    /// The node count at which to poll the stop flag and the node limit next.
    next_poll: u64,
    node_limit: u64,
    aborted: bool,
    /// `pv[ply][ply..pv_len[ply]]` is the principal variation found from `ply`.
    pv: [[Move; MAX_PLY]; MAX_PLY],
    pv_len: [usize; MAX_PLY],
}

impl<'c, 'a> Searcher<'c, 'a> {
    fn new(ctx: &'c SearchContext<'a>, node_limit: Option<u64>) -> Self {
        let node_limit = node_limit.unwrap_or(u64::MAX);
        Searcher {
            ctx,
            nodes: 0,
            next_poll: POLL_INTERVAL.min(node_limit),
            node_limit,
            aborted: false,
            pv: [[Move::PASS; MAX_PLY]; MAX_PLY],
            pv_len: [0; MAX_PLY],
        }
    }

    /// Called every `POLL_INTERVAL` nodes and at the node limit: decide whether to abort.
    #[cold]
    fn poll(&mut self) {
        if self.ctx.stopped() || self.nodes >= self.node_limit {
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

    /// Negamax value of `b` (side to move's view) searched `depth` plies deep. With `PRUNE`,
    /// alpha-beta in the fail-soft form: the result is exact inside (alpha, beta), an upper
    /// bound when <= alpha and a lower bound when >= beta. Without `PRUNE` the window is
    /// ignored and every value is exact. The value is meaningless once `self.aborted` is set.
    fn negamax<const PRUNE: bool>(
        &mut self,
        b: Board,
        depth: u32,
        ply: usize,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
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
                // Game over: exact result, empties to the winner.
                return b.final_score();
            }
            if depth == 0 {
                return b.disc_difference();
            }
            // The pass is a ply of its own.
            let v = -self.negamax::<PRUNE>(passed, depth - 1, ply + 1, -beta, -alpha);
            self.update_pv(ply, Move::PASS);
            return v;
        }
        if depth == 0 {
            return b.disc_difference();
        }

        let mut best = -INF;
        let mut rest = moves;
        while rest != 0 {
            let sq = rest.trailing_zeros();
            rest &= rest - 1;
            let child = b.play_with_flips(sq, b.flips(sq));
            let v = -self.negamax::<PRUNE>(child, depth - 1, ply + 1, -beta, -alpha);
            if self.aborted {
                return 0;
            }
            // Strictly better only: among equal scores the lowest square stays.
            if v > best {
                best = v;
                self.update_pv(ply, Move::at(Square::new(sq).expect("sq < 64")));
                if PRUNE {
                    alpha = alpha.max(v);
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// Search the root to `depth` and return (move, score, completed): the best of the root
    /// moves searched completely, its exact score and whether all were. The root is not a
    /// finished game and has at least one legal move. Reports info on each new best move.
    fn root<const PRUNE: bool>(&mut self, b: Board, depth: u32) -> (Option<Move>, i32, bool) {
        self.nodes += 1;
        let mut best: Option<Move> = None;
        let mut best_score = -INF;
        let mut rest = b.moves();
        while rest != 0 {
            let sq = rest.trailing_zeros();
            rest &= rest - 1;
            let child = b.play_with_flips(sq, b.flips(sq));
            // Full window at the root so that every improving score is exact.
            let v = -self.negamax::<PRUNE>(child, depth - 1, 1, -INF, -best_score);
            if self.aborted {
                return (best, best_score, false);
            }
            if v > best_score {
                best_score = v;
                let mv = Move::at(Square::new(sq).expect("sq < 64"));
                best = Some(mv);
                self.update_pv(0, mv);
                self.ctx.report(&self.info(depth, best_score));
            }
        }
        (best, best_score, true)
    }

    fn info(&self, depth: u32, score: i32) -> SearchInfo {
        SearchInfo {
            depth,
            selectivity: 100,
            score: score as f64,
            nodes: self.nodes,
            pv: self.pv[0][..self.pv_len[0]].to_vec(),
        }
    }
}

impl Minimax {
    /// Search `b` (side to move = `b.player`) to `depth` plies.
    fn search_board(
        &self,
        b: Board,
        depth: u32,
        nodes: Option<u64>,
        ctx: &SearchContext,
    ) -> SearchOutcome {
        let moves = b.moves();
        if moves == 0 {
            // No legal move (the root is never a finished game): pass.
            let info = SearchInfo {
                depth: 0,
                selectivity: 100,
                score: b.disc_difference() as f64,
                nodes: 1,
                pv: vec![Move::PASS],
            };
            ctx.report(&info);
            return SearchOutcome {
                mv: Move::PASS,
                info,
            };
        }
        let depth = depth.clamp(1, MAX_DEPTH);
        let mut s = Searcher::new(ctx, nodes);
        let (best, score, _complete) = if self.pruning {
            s.root::<true>(b, depth)
        } else {
            s.root::<false>(b, depth)
        };
        let info = match best {
            Some(_) => s.info(depth, score),
            // Interrupted before the first root move finished: the lowest legal square.
            None => {
                let mv = Move::at(Square::new(moves.trailing_zeros()).expect("moves != 0"));
                SearchInfo {
                    depth: 0,
                    selectivity: 100,
                    score: b.disc_difference() as f64,
                    nodes: s.nodes,
                    pv: vec![mv],
                }
            }
        };
        ctx.report(&info);
        SearchOutcome {
            mv: info.pv[0],
            info,
        }
    }
}

impl Engine for Minimax {
    fn metadata() -> Metadata {
        Metadata {
            name: "Minimax",
            version: env!("CARGO_PKG_VERSION"),
            author: "othello-tournament baselines",
        }
    }

    fn options() -> Vec<OptionSpec> {
        vec![
            OptionSpec::int("Depth", 7, 1, 20, "search depth in plies (a pass is a ply)"),
            OptionSpec::enumeration(
                "Pruning",
                "alphabeta",
                &["none", "alphabeta"],
                "none = plain minimax, alphabeta = same result with alpha-beta pruning",
            ),
        ]
    }

    fn new() -> Self {
        Minimax {
            depth: 7,
            pruning: true,
        }
    }

    fn set_option(&mut self, name: &str, value: &OptionValue) -> Result<(), String> {
        match (name, value) {
            ("Depth", OptionValue::Int(d)) => self.depth = *d as u32,
            ("Pruning", OptionValue::Enum(p)) => self.pruning = *p == "alphabeta",
            _ => return Err(format!("option {name}: unexpected value {value:?}")),
        }
        Ok(())
    }

    fn search(&mut self, request: &SearchRequest, ctx: &SearchContext) -> SearchOutcome {
        let depth = request.limits.depth.unwrap_or(self.depth);
        self.search_board(request.position.board, depth, request.limits.nodes, ctx)
    }
}

othello_sdk::export_engine!(Minimax);

#[cfg(test)]
mod tests {
    use super::*;
    use othello_sdk::board::playout::random_positions;
    use othello_sdk::board::Position;
    use othello_sdk::Limits;
    use std::sync::atomic::AtomicU32;

    fn engine(depth: i64, pruning: &'static str) -> Minimax {
        let mut e = Minimax::new();
        e.set_option("Depth", &OptionValue::Int(depth)).unwrap();
        e.set_option("Pruning", &OptionValue::Enum(pruning))
            .unwrap();
        e
    }

    fn run_with(
        e: &mut Minimax,
        position: Position,
        limits: Limits,
        stop: &AtomicU32,
    ) -> SearchOutcome {
        let ctx = SearchContext::detached(stop);
        e.search(&SearchRequest::new(position, limits), &ctx)
    }

    fn run(e: &mut Minimax, position: Position) -> SearchOutcome {
        run_with(e, position, Limits::default(), &AtomicU32::new(0))
    }

    /// Replay a PV from `p`, checking every move is legal; returns the final position.
    fn replay_pv(p: Position, pv: &[Move]) -> Position {
        pv.iter()
            .fold(p, |q, &mv| q.play(mv).unwrap_or_else(|e| panic!("PV: {e}")))
    }

    #[test]
    fn alphabeta_and_plain_minimax_agree_on_move_and_score() {
        let depth = if cfg!(debug_assertions) { 4 } else { 5 };
        let (mut ab, mut mm) = (engine(depth, "alphabeta"), engine(depth, "none"));
        let positions = random_positions(120, 2024);
        assert!(positions.len() >= 100);
        let (mut ab_nodes, mut mm_nodes) = (0, 0);
        for p in positions {
            let (a, m) = (run(&mut ab, p), run(&mut mm, p));
            assert_eq!(a.mv, m.mv, "{p}");
            assert_eq!(a.info.score, m.info.score, "{p}");
            assert!(p.is_legal(a.mv), "{p}");
            replay_pv(p, &a.info.pv);
            replay_pv(p, &m.info.pv);
            ab_nodes += a.info.nodes;
            mm_nodes += m.info.nodes;
        }
        assert!(
            ab_nodes < mm_nodes,
            "pruning saved nothing: {ab_nodes} vs {mm_nodes}"
        );
    }

    #[test]
    fn depth_one_maximises_the_disc_difference_after_the_move() {
        let mut e = engine(1, "none");
        for p in random_positions(300, 99) {
            let out = run(&mut e, p);
            if p.legal_moves() == 0 {
                assert_eq!(out.mv, Move::PASS);
                continue;
            }
            // Reference: score of each move = disc difference after it (final score if the
            // game is then over), lowest square first among equals.
            let mut best = (i32::MIN, Move::PASS);
            for sq in Square::iter(p.legal_moves()) {
                let child = p.board.play(sq.index()).unwrap();
                let s = if child.is_game_over() {
                    -child.final_score()
                } else {
                    -child.disc_difference()
                };
                if s > best.0 {
                    best = (s, Move::at(sq));
                }
            }
            assert_eq!((out.info.score as i32, out.mv), best, "{p}");
            assert_eq!(out.info.depth, 1);
        }
    }

    #[test]
    fn legal_moves_on_random_positions_and_pass_when_forced() {
        let mut e = engine(3, "alphabeta");
        for p in random_positions(300, 5) {
            let out = run(&mut e, p);
            assert!(p.is_legal(out.mv), "{} illegal in {p}", out.mv);
            assert_eq!(out.mv.is_pass(), p.legal_moves() == 0);
            assert_eq!(out.info.pv.first(), Some(&out.mv));
        }
        let p: Position = format!("XO{} O", "-".repeat(62)).parse().unwrap();
        assert!(p.must_pass());
        assert_eq!(run(&mut e, p).mv, Move::PASS);
    }

    #[test]
    fn a_pass_counts_as_a_ply_and_game_over_scores_the_final_result() {
        // White to move must pass; Black then takes c1 and wins 3-0 with 61 empties: +64.
        let p: Position = format!("XO{} O", "-".repeat(62)).parse().unwrap();
        let black: Position = p.play(Move::PASS).unwrap();
        let mut e = engine(2, "none");
        let out = run(&mut e, black);
        assert_eq!(out.mv, "c1".parse().unwrap());
        assert_eq!(out.info.score, 64.0);
    }

    #[test]
    fn host_depth_overrides_the_option() {
        let mut e = engine(7, "alphabeta");
        let limits = Limits {
            depth: Some(2),
            ..Limits::default()
        };
        let out = run_with(&mut e, Position::START, limits, &AtomicU32::new(0));
        assert_eq!(out.info.depth, 2);
    }

    #[test]
    fn stop_flag_and_node_limit_return_a_legal_move() {
        let mut e = engine(20, "none");
        let p = random_positions(1, 3)[0];
        // Stopped from the start: the first legal square.
        let stop = AtomicU32::new(1);
        let t = std::time::Instant::now();
        let out = run_with(&mut e, Position::START, Limits::default(), &stop);
        assert!(t.elapsed().as_millis() < 500);
        assert_eq!(out.mv, "d3".parse().unwrap());
        // Node limit: stops at the limit, with a legal move.
        let limits = Limits {
            nodes: Some(50_000),
            ..Limits::default()
        };
        let out = run_with(&mut e, p, limits, &AtomicU32::new(0));
        assert!(p.is_legal(out.mv));
        assert!(out.info.nodes <= 50_000, "{}", out.info.nodes);
    }
}
