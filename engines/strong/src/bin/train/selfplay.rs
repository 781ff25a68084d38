//! Self-play games for training: a random opening, then the engine's own play at a fixed
//! midgame depth, then perfect play (exact solves) from `solve_empties` on.
//!
//! Every game is seeded by (seed, game number), so a file is reproducible whatever the number
//! of threads. The file keeps transcripts only (about 130 bytes a game); the positions and
//! labels are derived again by replaying them (`data::selfplay_samples`).

use othello_sdk::board::playout::{random_move, SplitMix64};
use othello_sdk::board::{write_transcript, Move, Position};
use rayon::prelude::*;
use std::sync::Arc;
use strong::eval::EvalSource;
use strong::search::Searcher;
use strong::time::Plan;
use strong::tt::Tt;

/// How the games are generated.
#[derive(Clone, Debug)]
pub struct SelfPlayParams {
    pub games: usize,
    pub seed: u64,
    /// Midgame search depth.
    pub depth: u32,
    /// Exact solve from this many empties.
    pub solve_empties: u32,
    /// Random plies at the start: uniform in `min_random..=max_random`.
    pub min_random: usize,
    pub max_random: usize,
}

/// One game: the number of random plies, the moves (passes included) and the final score.
pub fn play_game(p: &SelfPlayParams, index: usize, eval: &EvalSource) -> (usize, Vec<Move>, i32) {
    let mut rng = SplitMix64(p.seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let tt = Arc::new(Tt::new(16));
    let plan = Plan {
        max_depth: p.depth,
        solve_empties: p.solve_empties,
        ..Plan::solve()
    };
    'retry: loop {
        let random = p.min_random + rng.below((p.max_random - p.min_random + 1) as u64) as usize;
        let mut pos = Position::START;
        let mut moves = Vec::with_capacity(64);
        let mut squares = 0;
        while squares < random {
            if pos.is_game_over() {
                continue 'retry;
            }
            let mv = random_move(&pos, &mut rng);
            squares += !mv.is_pass() as usize;
            moves.push(mv);
            pos = pos.play(mv).expect("random moves are legal");
        }
        while !pos.is_game_over() {
            let mv = if pos.must_pass() {
                Move::PASS
            } else {
                let mut s = Searcher::new(tt.clone(), eval.evaluator(), None);
                s.think(pos.board, &plan, &mut |_| {}).mv
            };
            moves.push(mv);
            pos = pos.play(mv).expect("the engine plays legal moves");
        }
        return (random, moves, pos.final_score_black());
    }
}

/// Generate `p.games` games on all cores; returns the file text.
pub fn generate(p: &SelfPlayParams, eval: &EvalSource, eval_name: &str) -> String {
    let done = std::sync::atomic::AtomicUsize::new(0);
    let started = std::time::Instant::now();
    let lines: Vec<String> = (0..p.games)
        .into_par_iter()
        .map(|i| {
            let (random, moves, score) = play_game(p, i, eval);
            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            if n.is_multiple_of(500) {
                eprintln!("{n} games, {:.0} s", started.elapsed().as_secs_f64());
            }
            format!("{random} {} {score}", write_transcript(&moves))
        })
        .collect();
    let mut text = format!(
        "# self-play: {} games, seed {}, depth {}, exact from {} empties, {}..={} random plies, eval {}\n\
         # <random plies> <transcript> <final score, Black's view>\n",
        p.games, p.seed, p.depth, p.solve_empties, p.min_random, p.max_random, eval_name
    );
    for l in lines {
        text.push_str(&l);
        text.push('\n');
    }
    text
}
