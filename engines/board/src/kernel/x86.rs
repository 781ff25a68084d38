//! The x86-64 kernels: `Bmi2`, `Avx2` and `Avx512` (see the parent module for the design).
//!
//! Each kernel is a token whose constructor checks the CPU; its `Kernel` methods call
//! `#[target_feature]` functions in the submodules `bmi2`, `avx2` and `avx512`, which hold the
//! code and its explanation.

use super::Kernel;

// The feature lists below are literals (attributes take no macros): keep the three lists of
// each kernel (token check here, its module's functions, its perft entry) in step.

/// Defines a token kernel: a zero-sized type whose only constructor checks the CPU features,
/// and whose methods call the `#[target_feature]` functions of `$module`.
macro_rules! token_kernel {
    ($(#[$doc:meta])* $name:ident, $label:literal, $module:ident, [$($feature:tt),*]) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $name {
            _cpu_checked: (),
        }

        impl $name {
            /// The kernel, if this CPU has its instruction set extensions.
            #[inline]
            pub fn new() -> Option<Self> {
                if true $(&& std::arch::is_x86_feature_detected!($feature))* {
                    Some($name { _cpu_checked: () })
                } else {
                    None
                }
            }
        }

        impl Kernel for $name {
            const NAME: &'static str = $label;

            #[inline(always)]
            fn moves(self, p: u64, o: u64) -> u64 {
                // SAFETY: a value of this type exists only if `new` found every feature that
                // `$module` is compiled with on this CPU.
                unsafe { $module::moves(p, o) }
            }

            #[inline(always)]
            fn flips(self, p: u64, o: u64, sq: u32) -> u64 {
                // SAFETY: as for `moves`.
                unsafe { $module::flips(p, o, sq) }
            }

            #[inline(always)]
            fn count(self, x: u64) -> u32 {
                // SAFETY: as for `moves`; every kernel here has POPCNT.
                unsafe { $module::count(x) }
            }

            #[inline(always)]
            fn play_moves(self, p: u64, o: u64, sq: u32) -> (u64, u64) {
                // SAFETY: as for `moves`.
                unsafe { $module::play_moves(p, o, sq) }
            }

            #[inline(always)]
            fn play_moves2(self, p: u64, o: u64, a: u32, b: u32) -> [(u64, u64); 2] {
                // SAFETY: as for `moves`.
                unsafe { $module::play_moves2(p, o, a, b) }
            }

            #[inline(always)]
            fn enter<R>(self, f: impl FnOnce(Self) -> R) -> R {
                // SAFETY: as for `moves`: `$module::enter` only enables the features.
                unsafe { $module::enter(self, f) }
            }
        }
    };
}

token_kernel!(
    /// Scalar kernel for x86-64 with BMI2: the portable Kogge-Stone moves with POPCNT, flips
    /// by PEXT/PDEP line lookup.
    Bmi2,
    "bmi2",
    bmi2,
    ["popcnt", "lzcnt", "bmi1", "bmi2"]
);

token_kernel!(
    /// AVX2 kernel: four directions per 256-bit vector for moves and flips.
    Avx2,
    "avx2",
    avx2,
    ["popcnt", "lzcnt", "bmi1", "bmi2", "avx2"]
);

token_kernel!(
    /// AVX-512 (F, VL, CD) kernel: the AVX2 scheme with `vplzcntq`, mask registers and
    /// `vpternlogq`, on 256-bit vectors.
    Avx512,
    "avx512",
    avx512,
    ["popcnt", "lzcnt", "bmi1", "bmi2", "avx2", "avx512f", "avx512vl", "avx512cd"]
);

/// Scalar x86-64 code with BMI2.
mod bmi2 {
    use std::arch::x86_64::{_pdep_u64, _pext_u64};

    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2")]
    #[inline]
    pub fn play_moves2(p: u64, o: u64, a: u32, b: u32) -> [(u64, u64); 2] {
        [play_moves(p, o, a), play_moves(p, o, b)]
    }

    /// The four lines (row, column, a1-h8 diagonal, h1-a8 diagonal) through each square,
    /// each including the square, and the square's rank among the bits of each line.
    #[derive(Clone, Copy)]
    struct Lines {
        masks: [u64; 4],
        pos: [u8; 4],
    }

    static LINES: [Lines; 64] = build_lines();

    const fn build_lines() -> [Lines; 64] {
        let mut t = [Lines {
            masks: [0; 4],
            pos: [0; 4],
        }; 64];
        let mut sq = 0;
        while sq < 64 {
            let (c, r) = ((sq % 8) as i32, (sq / 8) as i32);
            let mut other: i32 = 0;
            while other < 64 {
                let (c2, r2) = (other % 8, other / 8);
                let on = [r2 == r, c2 == c, c2 - r2 == c - r, c2 + r2 == c + r];
                let mut l = 0;
                while l < 4 {
                    if on[l] {
                        t[sq].masks[l] |= 1 << other;
                    }
                    l += 1;
                }
                other += 1;
            }
            let mut l = 0;
            while l < 4 {
                t[sq].pos[l] = (t[sq].masks[l] & ((1u64 << sq) - 1)).count_ones() as u8;
                l += 1;
            }
            sq += 1;
        }
        t
    }

    /// `OUTFLANK[i][o]`: on a line gathered into a byte, with the move at bit `i` and the
    /// opponent's discs `o`, the first square that is not the opponent's on each side of `i`
    /// after at least one opponent disc: the squares that would close a run.
    static OUTFLANK: [[u8; 256]; 8] = build_outflank();

    /// `FLIPPED[i][x]`: the bits strictly between `i` and each of the (at most two, one per
    /// side) bits of `x`.
    static FLIPPED: [[u8; 256]; 8] = build_flipped();

    const fn build_outflank() -> [[u8; 256]; 8] {
        let mut t = [[0u8; 256]; 8];
        let mut i = 0;
        while i < 8 {
            let mut o = 0;
            while o < 256 {
                let mut out = 0u32;
                let mut j = i + 1;
                while j < 8 && o & (1 << j) != 0 {
                    j += 1;
                }
                if j > i + 1 && j < 8 {
                    out |= 1 << j;
                }
                let mut j = i as i32 - 1;
                while j >= 0 && o & (1 << j) != 0 {
                    j -= 1;
                }
                if j < i as i32 - 1 && j >= 0 {
                    out |= 1 << j;
                }
                t[i][o] = out as u8;
                o += 1;
            }
            i += 1;
        }
        t
    }

    const fn build_flipped() -> [[u8; 256]; 8] {
        let mut t = [[0u8; 256]; 8];
        let mut i = 0;
        while i < 8 {
            let mut x = 0;
            while x < 256 {
                let mut f = 0u32;
                let mut j = 0;
                while j < 8 {
                    if x & (1 << j) != 0 {
                        let (lo, hi) = if j < i { (j, i) } else { (i, j) };
                        let mut k = lo + 1;
                        while k < hi {
                            f |= 1 << k;
                            k += 1;
                        }
                    }
                    j += 1;
                }
                t[i][x] = f as u8;
                x += 1;
            }
            i += 1;
        }
        t
    }

    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2")]
    #[inline]
    pub fn moves(p: u64, o: u64) -> u64 {
        crate::board::moves(p, o)
    }

    /// `Kernel::enter`: `f` runs (and inlines) with this module's features.
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2")]
    #[inline]
    pub fn enter<K, R>(k: K, f: impl FnOnce(K) -> R) -> R {
        f(k)
    }

    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2")]
    #[inline]
    pub fn count(x: u64) -> u32 {
        x.count_ones()
    }

    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2")]
    #[inline]
    pub fn play_moves(p: u64, o: u64, sq: u32) -> (u64, u64) {
        let f = flips(p, o, sq);
        (f, moves(o ^ f, p | f | (1 << sq)))
    }

    /// Flips by line lookup. Idea: the flips along a line depend only on the move's position
    /// on it and the discs on it, so PEXT gathers the opponent's and the player's discs of
    /// each of the four lines into a byte; `OUTFLANK` gives the squares that would close a run
    /// of opponent discs, the player's byte keeps those that do, `FLIPPED` gives the discs
    /// in between, and PDEP puts them back on the board.
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2")]
    #[inline]
    pub fn flips(p: u64, o: u64, sq: u32) -> u64 {
        let lines = &LINES[sq as usize];
        let mut f = 0;
        for l in 0..4 {
            let mask = lines.masks[l];
            let pos = lines.pos[l] as usize;
            let out = OUTFLANK[pos][_pext_u64(o, mask) as usize] & _pext_u64(p, mask) as u8;
            f |= _pdep_u64(FLIPPED[pos][out as usize] as u64, mask);
        }
        f
    }
}

/// AVX2: one direction per 64-bit lane.
mod avx2 {
    use crate::board::RAYS;

    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    #[inline]
    pub fn play_moves2(p: u64, o: u64, a: u32, b: u32) -> [(u64, u64); 2] {
        [play_moves(p, o, a), play_moves(p, o, b)]
    }
    use std::arch::x86_64::*;

    /// Columns b..g, for the lanes whose shifts cross columns.
    pub(super) const INNER: i64 = 0x7E7E_7E7E_7E7E_7E7E;

    /// The OR of the four lanes, in every lane: two swaps (the 128-bit halves, then the
    /// 64-bit halves of each) with an OR after each.
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    #[inline]
    pub(super) fn or_lanes(v: __m256i) -> __m256i {
        let v = _mm256_or_si256(v, _mm256_permute4x64_epi64::<0b01_00_11_10>(v));
        _mm256_or_si256(v, _mm256_shuffle_epi32::<0b01_00_11_10>(v))
    }

    /// The OR of the four lanes, as a scalar.
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    #[inline]
    pub(super) fn or_lanes_scalar(v: __m256i) -> u64 {
        let x = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        let x = _mm_or_si128(x, _mm_unpackhi_epi64(x, x));
        _mm_cvtsi128_si64(x) as u64
    }

    /// Rays of square `sq` towards higher indices (steps 1, 7, 8, 9 in lanes 0..4) and towards
    /// lower indices (same steps).
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    #[inline]
    pub(super) fn rays(sq: u32) -> (__m256i, __m256i) {
        let r = &RAYS.0[sq as usize];
        // Four scalar reads of an aligned 32-byte block: compiled to one vector load each.
        let up = _mm256_set_epi64x(r[3] as i64, r[2] as i64, r[1] as i64, r[0] as i64);
        let down = _mm256_set_epi64x(r[7] as i64, r[6] as i64, r[5] as i64, r[4] as i64);
        (up, down)
    }

    /// `Kernel::enter`: `f` runs (and inlines) with this module's features.
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    #[inline]
    pub fn enter<K, R>(k: K, f: impl FnOnce(K) -> R) -> R {
        f(k)
    }

    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    #[inline]
    pub fn count(x: u64) -> u32 {
        x.count_ones()
    }

    /// The squares just beyond a run of opponent discs that starts at a player disc, in any
    /// direction, occupied or not; `pp` and `oo` hold the player's and the opponent's discs
    /// in every lane.
    ///
    /// Idea: Kogge-Stone as in the portable kernel, the four directions (steps 1, 7, 8, 9) in
    /// the four lanes, shifted left (up) and right (down) by per-lane counts. From each player
    /// disc, runs of opponent discs grow one step, one more, then two by two through pairs of
    /// opponent discs (`pairs`), which reaches the longest possible run, 6; the square one
    /// step past a run ends it.
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    #[inline]
    pub(super) fn run_ends(pp: __m256i, oo: __m256i) -> u64 {
        let step = _mm256_set_epi64x(9, 8, 7, 1);
        let step2 = _mm256_set_epi64x(18, 16, 14, 2);
        // Opponent discs a run may go through: columns b..g except for the vertical lane, so
        // that no shift carries a disc from one edge column to the other.
        let oo = _mm256_and_si256(oo, _mm256_set_epi64x(INNER, -1, INNER, INNER));
        let mut up = _mm256_and_si256(oo, _mm256_sllv_epi64(pp, step));
        let mut down = _mm256_and_si256(oo, _mm256_srlv_epi64(pp, step));
        up = _mm256_or_si256(up, _mm256_and_si256(oo, _mm256_sllv_epi64(up, step)));
        down = _mm256_or_si256(down, _mm256_and_si256(oo, _mm256_srlv_epi64(down, step)));
        let pairs_up = _mm256_and_si256(oo, _mm256_sllv_epi64(oo, step));
        let pairs_down = _mm256_srlv_epi64(pairs_up, step);
        up = _mm256_or_si256(up, _mm256_and_si256(pairs_up, _mm256_sllv_epi64(up, step2)));
        down = _mm256_or_si256(
            down,
            _mm256_and_si256(pairs_down, _mm256_srlv_epi64(down, step2)),
        );
        up = _mm256_or_si256(up, _mm256_and_si256(pairs_up, _mm256_sllv_epi64(up, step2)));
        down = _mm256_or_si256(
            down,
            _mm256_and_si256(pairs_down, _mm256_srlv_epi64(down, step2)),
        );
        let ends = _mm256_or_si256(_mm256_sllv_epi64(up, step), _mm256_srlv_epi64(down, step));
        or_lanes_scalar(ends)
    }

    /// Legal moves: the ends of runs that are empty.
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    #[inline]
    pub fn moves(p: u64, o: u64) -> u64 {
        run_ends(_mm256_set1_epi64x(p as i64), _mm256_set1_epi64x(o as i64)) & !(p | o)
    }

    /// Flips, in every lane; `pp` and `oo` as for [`run_ends`].
    ///
    /// Idea: the four rays towards higher indices in one vector, the four towards lower
    /// indices in another. On each ray the run ends at the first square that is not an
    /// opponent disc (the blocker); the run flips when the blocker is a player disc.
    /// Up rays: the nearest square is the lowest bit, so the blocker is `b & -b` of the
    /// non-opponent squares `b`, and the run is the ray below it. Down rays: the blocker is the
    /// highest bit of `b`; AVX2 has no per-lane leading-zero count, so `b` is smeared
    /// downwards along the ray (three shifts by 1, 2 and 4 steps), and the ray above the smear
    /// is the run, the bit of `b` just above the smear shifted by one step the blocker.
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    #[inline]
    pub(super) fn flips_vec(pp: __m256i, oo: __m256i, sq: u32) -> __m256i {
        let zero = _mm256_setzero_si256();
        let (up_ray, down_ray) = rays(sq);

        let b = _mm256_andnot_si256(oo, up_ray);
        let blocker = _mm256_and_si256(b, _mm256_sub_epi64(zero, b));
        let closed = _mm256_and_si256(blocker, pp);
        // `closed - 1` is the ray below the blocker when the run is closed; when it is not
        // (`closed == 0`) the comparison clears the lane.
        let up = _mm256_andnot_si256(
            _mm256_cmpeq_epi64(closed, zero),
            _mm256_and_si256(_mm256_add_epi64(closed, _mm256_set1_epi64x(-1)), up_ray),
        );

        let step = _mm256_set_epi64x(9, 8, 7, 1);
        let b = _mm256_andnot_si256(oo, down_ray);
        let mut smear = _mm256_or_si256(b, _mm256_srlv_epi64(b, step));
        smear = _mm256_or_si256(
            smear,
            _mm256_srlv_epi64(smear, _mm256_set_epi64x(18, 16, 14, 2)),
        );
        smear = _mm256_or_si256(
            smear,
            _mm256_srlv_epi64(smear, _mm256_set_epi64x(36, 32, 28, 4)),
        );
        let run = _mm256_andnot_si256(smear, down_ray);
        let closed = _mm256_andnot_si256(_mm256_srlv_epi64(smear, step), _mm256_and_si256(b, pp));
        let down = _mm256_andnot_si256(_mm256_cmpeq_epi64(closed, zero), run);

        or_lanes(_mm256_or_si256(up, down))
    }

    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    #[inline]
    pub fn flips(p: u64, o: u64, sq: u32) -> u64 {
        let f = flips_vec(
            _mm256_set1_epi64x(p as i64),
            _mm256_set1_epi64x(o as i64),
            sq,
        );
        _mm256_extract_epi64::<0>(f) as u64
    }

    /// Flips of the move at `sq`, and the moves of the board after it. Idea: the flips are
    /// already in every lane, so the new board is built in the vector registers and its
    /// moves computed without going through scalar registers and back.
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2")]
    #[inline]
    pub fn play_moves(p: u64, o: u64, sq: u32) -> (u64, u64) {
        let pp = _mm256_set1_epi64x(p as i64);
        let oo = _mm256_set1_epi64x(o as i64);
        let f = flips_vec(pp, oo, sq);
        let x = _mm256_set1_epi64x(1 << sq);
        let next_p = _mm256_xor_si256(oo, f);
        let next_o = _mm256_or_si256(_mm256_or_si256(pp, f), x);
        let empty = !(p | o | (1 << sq));
        (
            _mm256_extract_epi64::<0>(f) as u64,
            run_ends(next_p, next_o) & empty,
        )
    }
}

/// AVX-512 on 256-bit vectors (F, VL, CD).
mod avx512 {
    use super::avx2::{or_lanes, or_lanes_scalar, rays, INNER};
    use std::arch::x86_64::*;

    /// `vpternlogq` truth table of `a | (b & c)`.
    const A_OR_B_AND_C: i32 = 0xF8;

    /// `Kernel::enter`: `f` runs (and inlines) with this module's features.
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd")]
    #[inline]
    pub fn enter<K, R>(k: K, f: impl FnOnce(K) -> R) -> R {
        f(k)
    }

    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd")]
    #[inline]
    pub fn count(x: u64) -> u32 {
        x.count_ones()
    }

    /// Run ends as in the AVX2 kernel, each `x |= mask & shifted` step one `vpternlogq`.
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd")]
    #[inline]
    fn run_ends(pp: __m256i, oo: __m256i) -> u64 {
        let step = _mm256_set_epi64x(9, 8, 7, 1);
        let step2 = _mm256_set_epi64x(18, 16, 14, 2);
        let oo = _mm256_and_si256(oo, _mm256_set_epi64x(INNER, -1, INNER, INNER));
        let mut up = _mm256_and_si256(oo, _mm256_sllv_epi64(pp, step));
        let mut down = _mm256_and_si256(oo, _mm256_srlv_epi64(pp, step));
        up = _mm256_ternarylogic_epi64::<A_OR_B_AND_C>(up, oo, _mm256_sllv_epi64(up, step));
        down = _mm256_ternarylogic_epi64::<A_OR_B_AND_C>(down, oo, _mm256_srlv_epi64(down, step));
        let pairs_up = _mm256_and_si256(oo, _mm256_sllv_epi64(oo, step));
        let pairs_down = _mm256_srlv_epi64(pairs_up, step);
        up = _mm256_ternarylogic_epi64::<A_OR_B_AND_C>(up, pairs_up, _mm256_sllv_epi64(up, step2));
        down = _mm256_ternarylogic_epi64::<A_OR_B_AND_C>(
            down,
            pairs_down,
            _mm256_srlv_epi64(down, step2),
        );
        up = _mm256_ternarylogic_epi64::<A_OR_B_AND_C>(up, pairs_up, _mm256_sllv_epi64(up, step2));
        down = _mm256_ternarylogic_epi64::<A_OR_B_AND_C>(
            down,
            pairs_down,
            _mm256_srlv_epi64(down, step2),
        );
        let ends = _mm256_or_si256(_mm256_sllv_epi64(up, step), _mm256_srlv_epi64(down, step));
        or_lanes_scalar(ends)
    }

    /// Legal moves: the ends of runs that are empty.
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd")]
    #[inline]
    pub fn moves(p: u64, o: u64) -> u64 {
        run_ends(_mm256_set1_epi64x(p as i64), _mm256_set1_epi64x(o as i64)) & !(p | o)
    }

    /// Flips in every lane: as in the AVX2 kernel, but the blocker of each down ray (the
    /// highest non-opponent bit) comes from one per-lane leading-zero count, and a lane counts
    /// only when its blocker is a player disc, a mask register from `vptestmq`.
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd")]
    #[inline]
    fn flips_vec(pp: __m256i, oo: __m256i, sq: u32) -> __m256i {
        let zero = _mm256_setzero_si256();
        let (up_ray, down_ray) = rays(sq);

        let b = _mm256_andnot_si256(oo, up_ray);
        let blocker = _mm256_and_si256(b, _mm256_sub_epi64(zero, b));
        let closed = _mm256_test_epi64_mask(blocker, pp);
        let up = _mm256_maskz_and_epi64(
            closed,
            _mm256_add_epi64(blocker, _mm256_set1_epi64x(-1)),
            up_ray,
        );

        // The non-opponent squares of the down rays, moved up one bit with bit 0 set: the
        // count below is then at most 63 in every lane (63 when the ray has no blocker), so
        // both shifts stay in range without a special case for an empty `b`.
        let b = _mm256_andnot_si256(oo, down_ray);
        let b = _mm256_or_si256(_mm256_add_epi64(b, b), _mm256_set1_epi64x(1));
        let lz = _mm256_lzcnt_epi64(b);
        let blocker = _mm256_srlv_epi64(_mm256_set1_epi64x(1 << 62), lz);
        let closed = _mm256_test_epi64_mask(blocker, pp);
        let down = _mm256_maskz_andnot_epi64(
            closed,
            _mm256_srlv_epi64(_mm256_set1_epi64x(i64::MAX), lz),
            down_ray,
        );

        or_lanes(_mm256_or_si256(up, down))
    }

    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd")]
    #[inline]
    pub fn flips(p: u64, o: u64, sq: u32) -> u64 {
        let f = flips_vec(
            _mm256_set1_epi64x(p as i64),
            _mm256_set1_epi64x(o as i64),
            sq,
        );
        _mm256_extract_epi64::<0>(f) as u64
    }

    /// Run ends of two boards at once, board A in the low 256 bits and board B in the high
    /// ones: the same instructions as [`run_ends`] on 512-bit vectors.
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd")]
    #[inline]
    fn run_ends2(pp: __m512i, oo: __m512i) -> [u64; 2] {
        let step = _mm512_set_epi64(9, 8, 7, 1, 9, 8, 7, 1);
        let step2 = _mm512_set_epi64(18, 16, 14, 2, 18, 16, 14, 2);
        let oo = _mm512_and_si512(
            oo,
            _mm512_set_epi64(INNER, -1, INNER, INNER, INNER, -1, INNER, INNER),
        );
        let mut up = _mm512_and_si512(oo, _mm512_sllv_epi64(pp, step));
        let mut down = _mm512_and_si512(oo, _mm512_srlv_epi64(pp, step));
        up = _mm512_ternarylogic_epi64::<A_OR_B_AND_C>(up, oo, _mm512_sllv_epi64(up, step));
        down = _mm512_ternarylogic_epi64::<A_OR_B_AND_C>(down, oo, _mm512_srlv_epi64(down, step));
        let pairs_up = _mm512_and_si512(oo, _mm512_sllv_epi64(oo, step));
        let pairs_down = _mm512_srlv_epi64(pairs_up, step);
        up = _mm512_ternarylogic_epi64::<A_OR_B_AND_C>(up, pairs_up, _mm512_sllv_epi64(up, step2));
        down = _mm512_ternarylogic_epi64::<A_OR_B_AND_C>(
            down,
            pairs_down,
            _mm512_srlv_epi64(down, step2),
        );
        up = _mm512_ternarylogic_epi64::<A_OR_B_AND_C>(up, pairs_up, _mm512_sllv_epi64(up, step2));
        down = _mm512_ternarylogic_epi64::<A_OR_B_AND_C>(
            down,
            pairs_down,
            _mm512_srlv_epi64(down, step2),
        );
        let ends = _mm512_or_si512(_mm512_sllv_epi64(up, step), _mm512_srlv_epi64(down, step));
        // OR of the four lanes of each half: swap the 64-bit halves of each 128-bit block,
        // then the 128-bit blocks of each half.
        let e = _mm512_or_si512(ends, _mm512_shuffle_epi32::<_MM_PERM_BADC>(ends));
        let e = _mm512_or_si512(e, _mm512_shuffle_i64x2::<0b10_11_00_01>(e, e));
        [
            _mm_cvtsi128_si64(_mm512_castsi512_si128(e)) as u64,
            _mm_cvtsi128_si64(_mm256_castsi256_si128(_mm512_extracti64x4_epi64::<1>(e))) as u64,
        ]
    }

    /// Two moves `a` and `b` of the same board: `play_moves` of each, the two new boards'
    /// moves computed together in one 512-bit vector.
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd")]
    #[inline]
    pub fn play_moves2(p: u64, o: u64, a: u32, b: u32) -> [(u64, u64); 2] {
        let pp = _mm256_set1_epi64x(p as i64);
        let oo = _mm256_set1_epi64x(o as i64);
        let fa = flips_vec(pp, oo, a);
        let fb = flips_vec(pp, oo, b);
        let f = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(fa), fb);
        let x = _mm512_inserti64x4::<1>(
            _mm512_castsi256_si512(_mm256_set1_epi64x(1 << a)),
            _mm256_set1_epi64x(1 << b),
        );
        let next_p = _mm512_xor_si512(_mm512_set1_epi64(o as i64), f);
        let next_o = _mm512_or_si512(_mm512_or_si512(_mm512_set1_epi64(p as i64), f), x);
        let [ma, mb] = run_ends2(next_p, next_o);
        let empty = !(p | o);
        [
            (_mm256_extract_epi64::<0>(fa) as u64, ma & empty & !(1 << a)),
            (_mm256_extract_epi64::<0>(fb) as u64, mb & empty & !(1 << b)),
        ]
    }

    /// As the AVX2 kernel's `play_moves`; the new opponent mask is one `vpternlogq`.
    #[target_feature(enable = "popcnt,lzcnt,bmi1,bmi2,avx2,avx512f,avx512vl,avx512cd")]
    #[inline]
    pub fn play_moves(p: u64, o: u64, sq: u32) -> (u64, u64) {
        let pp = _mm256_set1_epi64x(p as i64);
        let oo = _mm256_set1_epi64x(o as i64);
        let f = flips_vec(pp, oo, sq);
        let x = _mm256_set1_epi64x(1 << sq);
        let next_p = _mm256_xor_si256(oo, f);
        let next_o = _mm256_or_si256(_mm256_or_si256(pp, f), x);
        let empty = !(p | o | (1 << sq));
        (
            _mm256_extract_epi64::<0>(f) as u64,
            run_ends(next_p, next_o) & empty,
        )
    }
}
