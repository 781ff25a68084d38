//! Perft speed of every kernel this CPU has, in one run: `cargo bench -p othello-board --bench
//! perft [-- DEPTH...]` (default depth 12; pass is a move). Prints leaves/s per kernel and the
//! ratio to the portable kernel. Each count is checked against the portable kernel's.

use othello_board::{perft_with, Board, KernelId, PassRule};
use std::time::Instant;

fn main() {
    let depths: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let depths = if depths.is_empty() { vec![12] } else { depths };
    println!("fastest kernel on this CPU: {}", KernelId::fastest());
    for depth in depths {
        let mut portable_rate = None;
        let mut expected = None;
        for kernel in KernelId::ALL {
            let started = Instant::now();
            let Some(leaves) = perft_with(kernel, Board::START, depth, PassRule::PassIsAMove)
            else {
                println!(
                    "perft {depth} {:>8}: not available on this CPU",
                    kernel.name()
                );
                continue;
            };
            let secs = started.elapsed().as_secs_f64();
            let rate = leaves as f64 / secs.max(1e-9);
            assert_eq!(
                *expected.get_or_insert(leaves),
                leaves,
                "{kernel} disagrees"
            );
            let ratio = rate / *portable_rate.get_or_insert(rate);
            println!(
                "perft {depth} {:>8}: {leaves} leaves in {secs:7.3} s, {rate:.3e} leaves/s, {ratio:.2}x portable",
                kernel.name()
            );
        }
    }
}
