//! `solve-times N` (default 10): the cost of an exact solve (as the engine runs it: `think`)
//! by number of empties (14-22), with each evaluation, on N realistic positions per row (from
//! the committed self-play games), the data behind the exact-solve thresholds of
//! `strong::time::solve_empties_for`.

use crate::both_evaluations;
use std::sync::Arc;
use std::time::Instant;
use strong::search::Searcher;
use strong::time::Plan;
use strong::tt::Tt;

/// `--solve-times N`: median and mean exact-solve time per number of empties, both evaluations.
pub fn solve_times(count: usize) {
    use othello_sdk::board::{parse_transcript, replay, Position};
    strong::stability::init();
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/data/training/selfplay-d8-e18.txt"
    );
    let text = std::fs::read_to_string(path).expect("the self-play file");
    let games: Vec<Vec<othello_sdk::board::Move>> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            l.split_whitespace()
                .nth(1)
                .map(|t| parse_transcript(t).expect("transcript"))
        })
        .collect();
    let evals = both_evaluations();
    let tt = Arc::new(Tt::new(64));
    println!("empties  simple median/mean (s)   trained median/mean (s)");
    for n in 14..=22u32 {
        // The position at `n` empties of games spread over the file.
        let mut positions = Vec::new();
        for moves in games.iter().step_by(37) {
            let (played, _) = replay(Position::START, moves).expect("the self-play file replays");
            let mut p = Position::START;
            for &mv in &played {
                if p.empties() == n && !p.must_pass() {
                    positions.push(p.board);
                    break;
                }
                p = p.play(mv).expect("replayed moves are legal");
            }
            if positions.len() == count {
                break;
            }
        }
        let mut row = format!("{n:>7}");
        for (_, make) in &evals {
            let mut times: Vec<f64> = positions
                .iter()
                .map(|b| {
                    tt.clear();
                    let mut s = Searcher::new(tt.clone(), make(), None);
                    let t = Instant::now();
                    s.think(*b, &Plan::solve(), &mut |_| {});
                    t.elapsed().as_secs_f64()
                })
                .collect();
            times.sort_by(f64::total_cmp);
            let mean = times.iter().sum::<f64>() / times.len().max(1) as f64;
            row += &format!("   {:>9.4} / {:>9.4}", times[times.len() / 2], mean);
        }
        println!("{row}");
    }
}
