//! Perft: count the leaves of the game tree to a fixed depth.
//!
//! A finished game is a leaf wherever it ends. The two published conventions differ only in
//! passes: with [`PassRule::PassIsAMove`] (Mode 1) a pass uses one ply of depth; with
//! [`PassRule::PassIsFree`] (Mode 2, Egaroucid's) it uses none. The last ply is counted in bulk:
//! the number of leaves below a node at depth 1 is its number of moves, without playing them.
//! At depth 2 each move is played and the new board's moves counted in one kernel call
//! ([`Kernel::play_moves`], or [`Kernel::play_moves2`] for two moves at once, which the
//! AVX-512 kernel does in one 512-bit vector: about 3% faster), so no node below depth 2 is
//! built as a `Board` except on a pass.
//!
//! Speed: the recursion is written once, generic over the [`Kernel`] (`node`), and compiled
//! once per kernel inside a `#[target_feature]` entry (`perft_avx512`, ...), so the kernel's
//! SIMD code inlines into every node and nothing is dispatched below the root. [`perft`] uses
//! [`KernelId::fastest`]; [`perft_with`] runs any kernel, for tests and the benchmark
//! (`cargo bench -p othello-board --bench perft`).

#[cfg(target_arch = "x86_64")]
use crate::kernel as x86;
use crate::kernel::{Kernel, KernelId, Portable};
use crate::Board;

/// How a pass counts against the depth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassRule {
    /// Mode 1: a pass is a move.
    PassIsAMove,
    /// Mode 2: a pass is zero moves.
    PassIsFree,
}

/// Leaves of the tree of depth `depth` below `board`, with the fastest kernel this CPU has
/// ([`KernelId::fastest`]).
pub fn perft(board: Board, depth: u32, rule: PassRule) -> u64 {
    perft_with(KernelId::fastest(), board, depth, rule)
        .expect("the fastest kernel is available by construction")
}

/// Leaves of the tree of depth `depth` below `board` with the given kernel; `None` if this CPU
/// cannot run it.
pub fn perft_with(kernel: KernelId, board: Board, depth: u32, rule: PassRule) -> Option<u64> {
    match kernel {
        KernelId::Portable => Some(perft_portable(Portable, board, depth, rule)),
        #[cfg(target_arch = "x86_64")]
        KernelId::Bmi2 => x86::Bmi2::new().map(|k| {
            // SAFETY: `k` exists only on a CPU with the features `perft_bmi2` enables.
            unsafe { perft_bmi2(k, board, depth, rule) }
        }),
        #[cfg(target_arch = "x86_64")]
        KernelId::Avx2 => x86::Avx2::new().map(|k| {
            // SAFETY: `k` exists only on a CPU with the features `perft_avx2` enables.
            unsafe { perft_avx2(k, board, depth, rule) }
        }),
        #[cfg(target_arch = "x86_64")]
        KernelId::Avx512 => x86::Avx512::new().map(|k| {
            // SAFETY: `k` exists only on a CPU with the features `perft_avx512` enables.
            unsafe { perft_avx512(k, board, depth, rule) }
        }),
        #[cfg(not(target_arch = "x86_64"))]
        _ => None,
    }
}

/// One node of perft, generic over the kernel; `deeper` is the same kernel's entry, called for
/// the children at depth 3 and more. `inline(always)`: each entry below compiles the whole node
/// with its kernel's target features, so the kernel's functions inline into it.
///
/// The last two plies are counted without recursion: at depth 1 the leaves are the moves
/// (bulk counting); at depth 2 each child's moves are counted straight from the kernel.
#[inline(always)]
fn node<K: Kernel>(
    k: K,
    board: Board,
    depth: u32,
    rule: PassRule,
    deeper: impl Fn(Board, u32) -> u64,
) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = k.moves(board.player, board.opponent);
    if moves == 0 {
        let passed = board.pass();
        if k.moves(passed.player, passed.opponent) == 0 {
            return 1; // game over: a leaf whatever the remaining depth
        }
        return match rule {
            PassRule::PassIsAMove => deeper(passed, depth - 1),
            PassRule::PassIsFree => deeper(passed, depth),
        };
    }
    if depth == 1 {
        return k.count(moves) as u64;
    }
    let mut leaves = 0;
    let mut rest = moves;
    if depth == 2 {
        // Two moves at a time: the kernel may compute both new boards' moves at once.
        let count = |sq: u32, (flips, replies): (u64, u64)| {
            if replies != 0 {
                k.count(replies) as u64
            } else {
                pass_at_depth_one(k, board.play_with_flips(sq, flips), rule)
            }
        };
        while rest != 0 {
            let a = rest.trailing_zeros();
            rest &= rest - 1;
            if rest == 0 {
                leaves += count(a, k.play_moves(board.player, board.opponent, a));
                break;
            }
            let b = rest.trailing_zeros();
            rest &= rest - 1;
            let [ra, rb] = k.play_moves2(board.player, board.opponent, a, b);
            leaves += count(a, ra) + count(b, rb);
        }
        return leaves;
    }
    while rest != 0 {
        let sq = rest.trailing_zeros();
        rest &= rest - 1;
        let child = board.play_with_flips(sq, k.flips(board.player, board.opponent, sq));
        leaves += deeper(child, depth - 1);
    }
    leaves
}

/// Leaves at depth 1 below `board`, which has no moves: 1 if the game is over; otherwise
/// with pass is a move 1 (the pass is the leaf), with pass is free the opponent's moves.
#[inline(never)]
#[cold]
fn pass_at_depth_one<K: Kernel>(k: K, board: Board, rule: PassRule) -> u64 {
    let replies = k.moves(board.opponent, board.player);
    if replies == 0 {
        return 1;
    }
    match rule {
        PassRule::PassIsAMove => 1,
        PassRule::PassIsFree => k.count(replies) as u64,
    }
}

fn perft_portable(k: Portable, board: Board, depth: u32, rule: PassRule) -> u64 {
    node(k, board, depth, rule, |b, d| perft_portable(k, b, d, rule))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2")]
fn perft_bmi2(k: x86::Bmi2, board: Board, depth: u32, rule: PassRule) -> u64 {
    node(k, board, depth, rule, |b, d| perft_bmi2(k, b, d, rule))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
fn perft_avx2(k: x86::Avx2, board: Board, depth: u32, rule: PassRule) -> u64 {
    node(k, board, depth, rule, |b, d| perft_avx2(k, b, d, rule))
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd")]
fn perft_avx512(k: x86::Avx512, board: Board, depth: u32, rule: PassRule) -> u64 {
    node(k, board, depth, rule, |b, d| perft_avx512(k, b, d, rule))
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

    /// Every kernel against the table, one test each so that they run in parallel; a kernel
    /// the CPU lacks is skipped with a note.
    fn kernel_matches_published_counts(kernel: KernelId) {
        if !kernel.is_available() {
            eprintln!("note: skipped perft with the {kernel} kernel, this CPU lacks it");
            return;
        }
        for depth in 0..=MAX_TESTED_DEPTH {
            let (mode1, mode2) = match depth {
                0 => (1, 1),
                d => PUBLISHED[d as usize - 1],
            };
            for (rule, expected) in [
                (PassRule::PassIsAMove, mode1),
                (PassRule::PassIsFree, mode2),
            ] {
                assert_eq!(
                    perft_with(kernel, Board::START, depth, rule),
                    Some(expected),
                    "{kernel} {rule:?} depth {depth}"
                );
            }
        }
    }

    #[test]
    fn portable_perft_matches_published_counts() {
        kernel_matches_published_counts(KernelId::Portable);
    }

    #[test]
    fn bmi2_perft_matches_published_counts() {
        kernel_matches_published_counts(KernelId::Bmi2);
    }

    #[test]
    fn avx2_perft_matches_published_counts() {
        kernel_matches_published_counts(KernelId::Avx2);
    }

    #[test]
    fn avx512_perft_matches_published_counts() {
        kernel_matches_published_counts(KernelId::Avx512);
    }

    #[test]
    fn perft_of_a_finished_game_is_one_leaf() {
        // Only black discs: nobody can move.
        let board = Board::new(0xFFFF, 0);
        for kernel in KernelId::available() {
            for rule in [PassRule::PassIsAMove, PassRule::PassIsFree] {
                assert_eq!(perft_with(kernel, board, 5, rule), Some(1), "{kernel}");
            }
        }
    }
}
