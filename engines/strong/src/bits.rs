//! Bitboard helpers the search needs beyond the rules crate: square classes, neighbourhoods,
//! (weighted) mobility, potential mobility and quadrant parity.
//!
//! Invariant: pure functions and constants over the rules crate's square indexing (a1 = 0,
//! h1 = 7, a8 = 56, h8 = 63); no state.

use othello_sdk::board::Board;

/// a1, h1, a8, h8.
pub const CORNERS: u64 = 0x8100_0000_0000_0081;
/// X-squares b2, g2, b7, g7 (diagonal neighbours of the corners).
pub const X_SQUARES: u64 = (1 << 9) | (1 << 14) | (1 << 49) | (1 << 54);
/// C-squares b1, g1, a2, h2, a7, h7, b8, g8 (edge neighbours of the corners).
pub const C_SQUARES: u64 =
    (1 << 1) | (1 << 6) | (1 << 8) | (1 << 15) | (1 << 48) | (1 << 55) | (1 << 57) | (1 << 62);
/// The 28 edge squares.
pub const EDGES: u64 = 0xFF81_8181_8181_81FF;
/// Edge squares that are neither corners nor C-squares (A- and B-squares).
pub const EDGES_AB: u64 = EDGES & !CORNERS & !C_SQUARES;
/// Everything else: the 36 inner squares but the X-squares.
pub const INNER: u64 = !EDGES & !X_SQUARES;

/// Square classes from most to least promising, the static part of move ordering in the
/// shallow endgame (the order of Edax's presorted empty list): corners, A/B edge squares,
/// inner squares, C-squares, X-squares.
pub const SQUARE_CLASSES: [u64; 5] = [CORNERS, EDGES_AB, INNER, C_SQUARES, X_SQUARES];

/// The four 4x4 quadrants (a1-d4, e1-h4, a5-d8, e5-h8).
pub const QUADRANTS: [u64; 4] = [
    0x0000_0000_0F0F_0F0F,
    0x0000_0000_F0F0_F0F0,
    0x0F0F_0F0F_0000_0000,
    0xF0F0_F0F0_0000_0000,
];

/// Quadrant (0..3) of a square: bit 2 of the index is "column >= 4", bit 5 is "row >= 4".
#[inline(always)]
pub const fn quadrant(sq: u32) -> u32 {
    ((sq >> 4) & 2) | ((sq >> 2) & 1)
}

/// Union of the quadrants holding an odd number of the `empty` squares: under quasi-parity,
/// moves there are tried first (playing last in a region keeps its discs).
#[inline]
pub fn parity_mask(empty: u64) -> u64 {
    let mut m = 0;
    for q in QUADRANTS {
        // Branch-free: all ones when the count is odd.
        m |= q & 0u64.wrapping_sub(((empty & q).count_ones() & 1) as u64);
    }
    m
}

/// Squares adjacent (8-neighbourhood) to any bit of `x`, possibly including `x` itself.
#[inline(always)]
pub fn neighbours(x: u64) -> u64 {
    // Horizontal neighbours must not wrap between columns a and h.
    let h = ((x >> 1) & 0x7F7F_7F7F_7F7F_7F7F) | ((x << 1) & 0xFEFE_FEFE_FEFE_FEFE);
    let hx = h | x;
    h | (hx << 8) | (hx >> 8)
}

/// Potential mobility of the side to move: empty squares next to an opponent disc.
#[inline(always)]
pub fn potential_mobility(b: &Board) -> u32 {
    (neighbours(b.opponent) & b.empty()).count_ones()
}

/// Mobility with corners counted twice (a corner move is worth more than a move count says).
#[inline(always)]
pub fn weighted_mobility(moves: u64) -> u32 {
    moves.count_ones() + (moves & CORNERS).count_ones()
}

/// Discs of `p` made safe by its corners: owned corners and the owned edge squares next to
/// them (Edax's `get_corner_stability`, an ordering term).
#[inline(always)]
pub fn corner_stability(p: u64) -> u32 {
    let s = (((0x0100_0000_0000_0001 & p) << 1)
        | ((0x8000_0000_0000_0080 & p) >> 1)
        | ((0x0000_0000_0000_0081 & p) << 8)
        | ((0x8100_0000_0000_0000 & p) >> 8)
        | CORNERS)
        & p;
    s.count_ones()
}

/// Static square values used as a tie-break in move ordering.
pub const SQUARE_VALUE: [i32; 64] = {
    const ROW0: [i32; 8] = [18, 4, 16, 12, 12, 16, 4, 18];
    const ROW1: [i32; 8] = [4, 2, 6, 8, 8, 6, 2, 4];
    const ROW2: [i32; 8] = [16, 6, 14, 10, 10, 14, 6, 16];
    const ROW3: [i32; 8] = [12, 8, 10, 0, 0, 10, 8, 12];
    let rows = [ROW0, ROW1, ROW2, ROW3, ROW3, ROW2, ROW1, ROW0];
    let mut v = [0; 64];
    let mut i = 0;
    while i < 64 {
        v[i] = rows[i / 8][i % 8];
        i += 1;
    }
    v
};

/// Iterate the set bits of a mask as square indices, lowest first.
#[inline(always)]
pub fn squares(mut mask: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        if mask == 0 {
            return None;
        }
        let sq = mask.trailing_zeros();
        mask &= mask - 1;
        Some(sq)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_partition_the_board() {
        let all: u64 = SQUARE_CLASSES.iter().fold(0, |a, m| {
            assert_eq!(a & m, 0);
            a | m
        });
        assert_eq!(all, u64::MAX);
        for sq in 0..64u32 {
            assert_ne!(QUADRANTS[quadrant(sq) as usize] & (1 << sq), 0, "{sq}");
        }
    }

    #[test]
    fn neighbours_do_not_wrap() {
        // h1 (7): neighbours g1, g2, h2 only.
        assert_eq!(
            neighbours(1 << 7) & !(1 << 7),
            (1 << 6) | (1 << 14) | (1 << 15)
        );
        // a2 (8): a1, b1, b2, a3, b3.
        let n = neighbours(1 << 8) & !(1 << 8);
        assert_eq!(n, (1 << 0) | (1 << 1) | (1 << 9) | (1 << 16) | (1 << 17));
    }
}
