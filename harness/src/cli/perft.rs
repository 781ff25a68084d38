//! `harness perft`: the move generator's correctness (the leaf counts of the published table)
//! and its speed.

use super::exit;
use super::output::say;
use othello_board::{Board, PassRule};
use std::time::Instant;

/// Count the leaves of the game tree from the start position.
#[derive(clap::Args)]
pub struct Args {
    /// Plies from the start position (at most 15: about 1e12 leaves, tens of minutes;
    /// each ply more multiplies the time by about 8).
    #[arg(value_parser = clap::value_parser!(u32).range(0..=15))]
    depth: u32,
    /// 1: a pass counts as a move; 2: a pass counts as zero moves.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
    mode: u8,
}

/// Leaves of the game tree from the start position, and their rate.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let Args { depth, mode } = args;
    let rule = if mode == 1 {
        PassRule::PassIsAMove
    } else {
        PassRule::PassIsFree
    };
    let started = Instant::now();
    let leaves = othello_board::perft(Board::START, depth, rule);
    let secs = started.elapsed().as_secs_f64();
    say!(
        "perft {depth} (mode {mode}): {leaves} leaves in {secs:.3} s, {:.3e} leaves/s",
        leaves as f64 / secs.max(1e-9)
    );
    Ok(exit::SUCCESS)
}
