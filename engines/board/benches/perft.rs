//! Perft speed of every kernel this CPU has, in one run: `cargo bench -p othello-board --bench
//! perft [-- [--rounds N] DEPTH...]` (default depth 12, 3 rounds; pass is a move). The kernels
//! take turns, round after round, so that they share whatever else the machine is doing; each
//! one's best round is kept. Prints leaves/s per kernel and the ratio to the portable kernel.
//! Every count is checked against the published one.

use othello_board::{perft_with, Board, KernelId, PassRule};
use std::time::Instant;

/// Published perft counts from the start, pass is a move, depths 12..=14.
const PUBLISHED: [(u32, u64); 3] = [
    (12, 1_939_886_636),
    (13, 18_429_641_748),
    (14, 184_042_084_512),
];

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut rounds = 3;
    if let Some(i) = args.iter().position(|a| a == "--rounds") {
        rounds = args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .unwrap_or(rounds);
        args.drain(i..(i + 2).min(args.len()));
    }
    let depths: Vec<u32> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let depths = if depths.is_empty() { vec![12] } else { depths };
    let kernels = KernelId::available();
    for k in KernelId::ALL {
        if !kernels.contains(&k) {
            println!("{k}: not available on this CPU");
        }
    }
    println!("fastest kernel on this CPU: {}", KernelId::fastest());
    for depth in depths {
        let mut best = vec![f64::INFINITY; kernels.len()];
        let mut leaves = 0;
        for _ in 0..rounds {
            for (i, &kernel) in kernels.iter().enumerate() {
                let started = Instant::now();
                let n = perft_with(kernel, Board::START, depth, PassRule::PassIsAMove)
                    .expect("available");
                best[i] = best[i].min(started.elapsed().as_secs_f64());
                if let Some(&(_, expected)) = PUBLISHED.iter().find(|(d, _)| *d == depth) {
                    assert_eq!(n, expected, "{kernel} perft {depth}");
                }
                assert!(leaves == 0 || leaves == n, "{kernel} disagrees");
                leaves = n;
            }
        }
        let portable = leaves as f64 / best[0];
        for (i, kernel) in kernels.iter().enumerate() {
            let rate = leaves as f64 / best[i];
            println!(
                "perft {depth} {:>8}: {leaves} leaves, best of {rounds} {:7.3} s, {rate:.3e} leaves/s, {:.2}x portable",
                kernel.name(),
                best[i],
                rate / portable
            );
        }
    }
}
