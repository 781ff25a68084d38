//! Perft: count the leaves of the game tree to a fixed depth.
//!
//! A finished game is a leaf wherever it ends. The two published conventions differ only in
//! passes: with [`PassRule::PassIsAMove`] (Mode 1) a pass uses one ply of depth; with
//! [`PassRule::PassIsFree`] (Mode 2, Egaroucid's) it uses none. The last ply is counted in bulk:
//! the number of leaves below a node at depth 1 is its number of moves, without playing them.

use crate::Board;

/// How a pass counts against the depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassRule {
    /// Mode 1: a pass is a move.
    PassIsAMove,
    /// Mode 2: a pass is zero moves.
    PassIsFree,
}

/// Leaves of the tree of depth `depth` below `board`.
pub fn perft(board: Board, depth: u32, rule: PassRule) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = board.moves();
    if moves == 0 {
        let passed = board.pass();
        if !passed.has_moves() {
            return 1; // game over: a leaf whatever the remaining depth
        }
        return match rule {
            PassRule::PassIsAMove => perft(passed, depth - 1, rule),
            PassRule::PassIsFree => perft(passed, depth, rule),
        };
    }
    if depth == 1 {
        return moves.count_ones() as u64;
    }
    let mut leaves = 0;
    let mut rest = moves;
    while rest != 0 {
        let sq = rest.trailing_zeros();
        rest &= rest - 1;
        let child = board.play_with_flips(sq, board.flips(sq));
        leaves += perft(child, depth - 1, rule);
    }
    leaves
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The published counts (Egaroucid's technical explanation), depths 1..15:
    /// (Mode 1: pass is a move, Mode 2: pass is zero moves).
    pub const PUBLISHED: [(u64, u64); 15] = [
        (4, 4),
        (12, 12),
        (56, 56),
        (244, 244),
        (1_396, 1_396),
        (8_200, 8_200),
        (55_092, 55_092),
        (390_216, 390_216),
        (3_005_288, 3_005_320),
        (24_571_284, 24_571_420),
        (212_258_800, 212_260_880),
        (1_939_886_636, 1_939_899_208),
        (18_429_641_748, 18_429_791_868),
        (184_042_084_512, 184_043_158_384),
        (1_891_832_540_064, 1_891_845_643_044),
    ];

    /// Depth 9 is where the two conventions first differ; debug builds stop there, release
    /// builds (`cargo test --release`) go to 11.
    const MAX_TESTED_DEPTH: u32 = if cfg!(debug_assertions) { 9 } else { 11 };

    #[test]
    fn perft_matches_published_counts_in_both_modes() {
        for depth in 1..=MAX_TESTED_DEPTH {
            let (mode1, mode2) = PUBLISHED[depth as usize - 1];
            assert_eq!(
                perft(Board::START, depth, PassRule::PassIsAMove),
                mode1,
                "mode 1 depth {depth}"
            );
            assert_eq!(
                perft(Board::START, depth, PassRule::PassIsFree),
                mode2,
                "mode 2 depth {depth}"
            );
        }
    }
}
