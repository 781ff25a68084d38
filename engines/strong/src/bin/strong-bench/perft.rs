//! `perft N` (default 12): perft N from the start (pass is a move) with this crate's inlined
//! portable move generator and flips, and with the rules crate's `perft`, which runs the
//! fastest SIMD kernel of the CPU (the one the search runs on by default), for comparison.

use std::time::Instant;

fn perft_fast(p: u64, o: u64, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = strong::flips::moves(p, o);
    if moves == 0 {
        if strong::flips::moves(o, p) == 0 {
            return 1;
        }
        return perft_fast(o, p, depth - 1);
    }
    if depth == 1 {
        return moves.count_ones() as u64;
    }
    let mut n = 0;
    let mut m = moves;
    while m != 0 {
        let sq = m.trailing_zeros();
        m &= m - 1;
        let f = strong::flips::flips(p, o, sq);
        n += perft_fast(o ^ f, p | f | (1 << sq), depth - 1);
    }
    n
}

pub fn perft_compare(depth: u32) {
    use othello_sdk::board::{perft, Board, PassRule};
    let t = Instant::now();
    let a = perft_fast(Board::START.player, Board::START.opponent, depth.max(1));
    let fast = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let b = perft(Board::START, depth, PassRule::PassIsAMove);
    let slow = t.elapsed().as_secs_f64();
    assert_eq!(a, b, "perft mismatch");
    println!(
        "perft {depth}: {a} leaves; strong::flips {fast:.3} s ({:.3e} leaves/s); othello-board {slow:.3} s ({:.3e} leaves/s)",
        a as f64 / fast.max(1e-9),
        b as f64 / slow.max(1e-9)
    );
}
