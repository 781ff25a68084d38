//! Move-generation kernels: the same two functions, `moves` and `flips`, written for several
//! instruction sets, chosen once at run time.
//!
//! # Design
//!
//! A [`Kernel`] is a zero-sized value with two methods, [`Kernel::moves`] and
//! [`Kernel::flips`], and two fused ones with default bodies, [`Kernel::play_moves`] (a move's
//! flips and the moves after it, kept in vector registers in between) and
//! [`Kernel::play_moves2`] (two of those at once). Code that wants speed is generic over
//! `K: Kernel`, so each kernel gets its own monomorphised copy of the hot loop, with no
//! dispatch inside it:
//!
//! - [`Portable`]: the plain Rust functions [`crate::moves`] and [`crate::flips`]
//!   (Kogge-Stone moves, eight branch-free rays for flips); every target, no unsafe.
//! - `Bmi2` (x86-64): the portable moves compiled with POPCNT/LZCNT/BMI, and flips by line
//!   lookup: PEXT gathers the four lines through the square into bytes, two small tables give
//!   the flipped bytes, PDEP scatters them back.
//! - `Avx2` (x86-64): the four directions of a line in the four 64-bit lanes of one 256-bit
//!   vector, as in Edax and Egaroucid: moves by Kogge-Stone in all four lanes at once, flips
//!   with the four "up" rays in one vector and the four "down" rays in another.
//! - `Avx512` (x86-64 with AVX-512 F/VL/CD): the AVX2 scheme with 256-bit AVX-512
//!   instructions: `vplzcntq` finds the first blocker of the down rays in one instruction,
//!   mask registers replace compare-and-blend, `vpternlogq` fuses the and/or pairs;
//!   `play_moves2` runs the moves of two new boards in one 512-bit vector.
//!
//! Measured on Zen 4 (AMD EPYC), perft 12 from the start: portable 4.2e8 leaves/s, bmi2
//! 4.4e8, avx2 9.1e8, avx512 1.12e9 (`cargo bench -p othello-board --bench perft`). PEXT
//! flips are no faster than the portable rays there, and mixing AVX-512 moves with PEXT flips
//! was slower than AVX-512 for both.
//!
//! The x86 kernels are tokens: their only constructor (`new`) checks the CPU, so holding one
//! proves that its instructions exist, and their methods are safe to call. Inside a function
//! compiled without the features (plain `cargo build --release` targets baseline x86-64) the
//! methods are ordinary calls; inside a function with `#[target_feature]` enabling them they
//! inline. Perft therefore runs its whole recursion in one `#[target_feature]` function per
//! kernel (see [`crate::perft`]); [`KernelId`] names the kernels at run time, and
//! [`KernelId::fastest`] is the one [`crate::perft`] uses, detected once and cached.
//!
//! Code outside this crate gets the same effect without `unsafe` through [`Kernel::enter`]:
//! a token runs the closure it is given inside a `#[target_feature]` function of its own, so a
//! search generic over `K: Kernel` whose recursion goes through `enter` is compiled for the
//! kernel's instruction sets at every node (the `strong` engine does this).
//!
//! `unsafe` here is limited to two kinds of places, each with its `// SAFETY:` argument: the
//! token methods calling their `#[target_feature]` implementations (`enter` included), and
//! the perft dispatch calling a kernel's perft entry; all rest on the token's CPU check.

#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(target_arch = "x86_64")]
pub use x86::{Avx2, Avx512, Bmi2};

use std::sync::atomic::{AtomicU8, Ordering};

/// One implementation of move generation and flips. Implementors are zero-sized `Copy` tokens:
/// pass them by value.
pub trait Kernel: Copy + Send + Sync + 'static {
    /// Short name, for benchmarks and messages.
    const NAME: &'static str;

    /// Legal moves of player `p` against opponent `o`, one bit per square (as [`crate::moves`]).
    fn moves(self, p: u64, o: u64) -> u64;

    /// The discs player `p` flips by playing at the empty square `sq` against opponent `o`;
    /// zero if none (as [`crate::flips`]).
    fn flips(self, p: u64, o: u64, sq: u32) -> u64;

    /// For the legal move `sq`: its flips, and the moves of the board after it (from the view
    /// of the side then to move, the opponent). SIMD kernels keep the new board in vector
    /// registers between the two.
    #[inline(always)]
    fn play_moves(self, p: u64, o: u64, sq: u32) -> (u64, u64) {
        let f = self.flips(p, o, sq);
        (f, self.moves(o ^ f, p | f | (1 << sq)))
    }

    /// [`Kernel::play_moves`] of two moves `a` and `b` of the same board; a SIMD kernel may
    /// compute both at once.
    #[inline(always)]
    fn play_moves2(self, p: u64, o: u64, a: u32, b: u32) -> [(u64, u64); 2] {
        [self.play_moves(p, o, a), self.play_moves(p, o, b)]
    }

    /// Number of set bits, with the POPCNT instruction where the kernel has it.
    #[inline(always)]
    fn count(self, x: u64) -> u32 {
        x.count_ones()
    }

    /// Run `f` compiled with this kernel's instruction sets: an x86 token calls it from a
    /// `#[target_feature]` function, so whatever `f` inlines (the kernel's methods, and every
    /// `#[inline(always)]` function it calls) is compiled with those features too, and plain
    /// Rust code in it may use them (`count_ones` becomes POPCNT). This is how a recursive
    /// search generic over the kernel gets the SIMD code into its nodes: each recursive step
    /// goes through `enter`, with the node's body `#[inline(always)]` inside the closure (the
    /// pattern of [`crate::perft`], open to code outside this crate). [`Portable`] simply
    /// calls `f`.
    #[inline(always)]
    fn enter<R>(self, f: impl FnOnce(Self) -> R) -> R {
        f(self)
    }
}

/// The plain Rust kernel, for every target.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Portable;

impl Kernel for Portable {
    const NAME: &'static str = "portable";

    #[inline(always)]
    fn moves(self, p: u64, o: u64) -> u64 {
        crate::board::moves(p, o)
    }

    #[inline(always)]
    fn flips(self, p: u64, o: u64, sq: u32) -> u64 {
        crate::board::flips(p, o, sq)
    }
}

/// The kernels by name, for choosing one at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KernelId {
    /// [`Portable`].
    Portable,
    /// `Bmi2` (x86-64 with BMI1/BMI2/LZCNT/POPCNT).
    Bmi2,
    /// `Avx2` (x86-64 with AVX2 and the BMI set).
    Avx2,
    /// `Avx512` (x86-64 with AVX-512 F/VL/CD, AVX2 and the BMI set).
    Avx512,
}

impl KernelId {
    /// Every kernel, slowest first in intent (the measured order is in the benchmark).
    pub const ALL: [KernelId; 4] = [
        KernelId::Portable,
        KernelId::Bmi2,
        KernelId::Avx2,
        KernelId::Avx512,
    ];

    /// The kernel's short name.
    pub const fn name(self) -> &'static str {
        match self {
            KernelId::Portable => "portable",
            KernelId::Bmi2 => "bmi2",
            KernelId::Avx2 => "avx2",
            KernelId::Avx512 => "avx512",
        }
    }

    /// Whether this CPU can run the kernel.
    pub fn is_available(self) -> bool {
        match self {
            KernelId::Portable => true,
            #[cfg(target_arch = "x86_64")]
            KernelId::Bmi2 => Bmi2::new().is_some(),
            #[cfg(target_arch = "x86_64")]
            KernelId::Avx2 => Avx2::new().is_some(),
            #[cfg(target_arch = "x86_64")]
            KernelId::Avx512 => Avx512::new().is_some(),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The kernels this CPU can run.
    pub fn available() -> Vec<KernelId> {
        Self::ALL.into_iter().filter(|k| k.is_available()).collect()
    }

    /// The fastest kernel this CPU can run (measured on Zen 4: see the board crate's perft
    /// benchmark). Detected on the first call, then cached.
    pub fn fastest() -> KernelId {
        static CACHE: AtomicU8 = AtomicU8::new(u8::MAX);
        let cached = CACHE.load(Ordering::Relaxed);
        if let Some(&k) = Self::ALL.get(cached as usize) {
            return k;
        }
        let best = Self::PREFERENCE
            .into_iter()
            .find(|k| k.is_available())
            .unwrap_or(KernelId::Portable);
        CACHE.store(best as u8, Ordering::Relaxed);
        best
    }

    /// Order of preference for [`KernelId::fastest`], best first.
    const PREFERENCE: [KernelId; 4] = [
        KernelId::Avx512,
        KernelId::Avx2,
        KernelId::Bmi2,
        KernelId::Portable,
    ];
}

impl std::fmt::Display for KernelId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::tests::{random_boards, slow_flips};
    use crate::Board;

    /// Checks kernel `k` against the portable kernel and the square-by-square walk: moves, and
    /// flips on every empty square, of many random boards and of the start position.
    fn check<K: Kernel>(k: K) {
        let mut boards = random_boards(if cfg!(debug_assertions) {
            4_000
        } else {
            40_000
        });
        boards.push(Board::START);
        boards.push(Board::new(0, 0));
        boards.push(Board::new(!0 ^ 1, 0));
        boards.push(Board::new(0, !0 ^ (1 << 27)));
        for b in boards {
            let (p, o) = (b.player, b.opponent);
            let mut expected_moves = 0;
            for sq in 0..64 {
                if b.empty() & (1 << sq) == 0 {
                    continue;
                }
                let f = slow_flips(&b, sq);
                if f != 0 {
                    expected_moves |= 1 << sq;
                }
                assert_eq!(k.flips(p, o, sq), f, "{} flips {b:?} square {sq}", K::NAME);
                if f != 0 {
                    let next = Board::new(o ^ f, p | f | (1 << sq));
                    let expected = (f, Portable.moves(next.player, next.opponent));
                    assert_eq!(k.play_moves(p, o, sq), expected, "{} {b:?} {sq}", K::NAME);
                }
                assert_eq!(Portable.flips(p, o, sq), f, "portable flips {b:?} {sq}");
            }
            assert_eq!(k.moves(p, o), expected_moves, "{} moves {b:?}", K::NAME);
            // Pairs of legal moves: each square with the next one.
            let mut rest = expected_moves;
            while rest.count_ones() >= 2 {
                let a = rest.trailing_zeros();
                rest &= rest - 1;
                let c = rest.trailing_zeros();
                let expected = [Portable.play_moves(p, o, a), Portable.play_moves(p, o, c)];
                assert_eq!(
                    k.play_moves2(p, o, a, c),
                    expected,
                    "{} {b:?} {a} {c}",
                    K::NAME
                );
            }
            assert_eq!(Portable.moves(p, o), expected_moves, "portable moves {b:?}");
            assert_eq!(k.count(p), p.count_ones());
        }
    }

    #[test]
    fn portable_kernel_matches_the_reference() {
        check(Portable);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn x86_kernels_match_the_reference_when_the_cpu_has_them() {
        match Bmi2::new() {
            Some(k) => check(k),
            None => eprintln!("note: skipped the bmi2 kernel, this CPU lacks BMI2"),
        }
        match Avx2::new() {
            Some(k) => check(k),
            None => eprintln!("note: skipped the avx2 kernel, this CPU lacks AVX2"),
        }
        match Avx512::new() {
            Some(k) => check(k),
            None => eprintln!("note: skipped the avx512 kernel, this CPU lacks AVX-512 F/VL/CD"),
        }
    }

    #[test]
    fn fastest_is_available_and_stable() {
        let k = KernelId::fastest();
        assert!(k.is_available());
        assert_eq!(KernelId::fastest(), k);
        assert!(KernelId::available().contains(&KernelId::Portable));
    }
}
