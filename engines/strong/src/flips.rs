//! Flips and moves for the solver, and the flip count at the last empty square.
//!
//! `flips` and `moves` are the rules crate's (`othello_board::flips`, `othello_board::moves`),
//! which are `#[inline(always)]` so that they inline into this crate's search loops: a call
//! across the crate boundary was a quarter of the solver's time.
//!
//! `count_last_flip` (Edax's idea): with one empty square left every other square is occupied,
//! so along each line through the square the opponent owns everything the player does not.
//! The flips along a line then depend only on the player's discs on it: gather the line into
//! a byte (rows by shifting, columns and diagonals by one multiplication each) and look up a
//! table `COUNT_FLIP[position on the line][player byte]`. No move generation, no flip masks.

pub use othello_sdk::board::{flips, moves};

/// `COUNT_FLIP[pos][line]`: discs flipped on a full 8-square line by a move at `pos` when the
/// player owns `line` and the opponent every other square.
static COUNT_FLIP: [[u8; 256]; 8] = build_count_flip();

const fn build_count_flip() -> [[u8; 256]; 8] {
    let mut t = [[0u8; 256]; 8];
    let mut pos = 0;
    while pos < 8 {
        let mut line = 0;
        while line < 256 {
            let mut n = 0;
            // towards lower positions
            let mut j = pos as i32 - 1;
            while j >= 0 && line & (1 << j) == 0 {
                j -= 1;
            }
            if j >= 0 {
                n += pos as i32 - j - 1;
            }
            // towards higher positions
            let mut j = pos + 1;
            while j < 8 && line & (1 << j) == 0 {
                j += 1;
            }
            if j < 8 {
                n += (j - pos - 1) as i32;
            }
            t[pos][line] = n as u8;
            line += 1;
        }
        pos += 1;
    }
    t
}

/// Masks of the two diagonals through each square.
static DIAGS: [[u64; 2]; 64] = build_diags();

const fn build_diags() -> [[u64; 2]; 64] {
    let mut d = [[0u64; 2]; 64];
    let mut sq = 0;
    while sq < 64 {
        let (c, r) = ((sq % 8) as i32, (sq / 8) as i32);
        let mut other: i32 = 0;
        while other < 64 {
            let (c2, r2) = (other % 8, other / 8);
            // The a1-h8 direction (+9/-9) keeps column minus row; the h1-a8 one (+7/-7) keeps
            // column plus row. Both masks include the square itself.
            if c2 - r2 == c - r {
                d[sq][0] |= 1u64 << other;
            }
            if c2 + r2 == c + r {
                d[sq][1] |= 1u64 << other;
            }
            other += 1;
        }
        sq += 1;
    }
    d
}

/// Number of discs the player `p` flips by playing at `x` when `x` is the only empty square.
#[inline(always)]
pub fn count_last_flip(p: u64, x: u32) -> u32 {
    let col = (x & 7) as usize;
    let row = (x >> 3) as usize;
    // Row: a plain shift.
    let row_line = ((p >> (row * 8)) & 0xFF) as usize;
    // Column: bit r of the top byte is row r (the multiplier's partial products never collide).
    let col_line =
        (((p >> col) & 0x0101_0101_0101_0101).wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize;
    // Diagonals: one square per column, so summing the 8 rows into the top byte keeps each
    // disc at its column, without carries. Squares off the diagonal read as "not player",
    // which never closes a run: exactly right.
    let d = &DIAGS[x as usize];
    let d9 = ((p & d[0]).wrapping_mul(0x0101_0101_0101_0101) >> 56) as usize;
    let d7 = ((p & d[1]).wrapping_mul(0x0101_0101_0101_0101) >> 56) as usize;
    (COUNT_FLIP[col][row_line] as u32)
        + (COUNT_FLIP[row][col_line] as u32)
        + (COUNT_FLIP[col][d9] as u32)
        + (COUNT_FLIP[col][d7] as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_sdk::board::Board;

    fn rng(mut s: u64) -> impl FnMut() -> u64 {
        move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        }
    }

    #[test]
    fn flips_match_the_rules_crate() {
        let mut next = rng(0x2545_F491_4F6C_DD1D);
        for _ in 0..20_000 {
            let occ = next() | next();
            let p = occ & next();
            let b = Board::new(p, occ & !p);
            for sq in 0..64 {
                if b.empty() & (1 << sq) != 0 {
                    assert_eq!(flips(b.player, b.opponent, sq), b.flips(sq));
                }
            }
        }
    }

    #[test]
    fn moves_match_the_rules_crate() {
        let mut next = rng(0x1234_5678_9ABC_DEF1);
        for _ in 0..50_000 {
            let occ = next() | next();
            let p = occ & next();
            let b = Board::new(p, occ & !p);
            assert_eq!(moves(b.player, b.opponent), b.moves());
        }
    }

    #[test]
    fn last_flip_counts_match_flips() {
        let mut next = rng(0x9E37_79B9_7F4A_7C15);
        for i in 0..100_000 {
            let x = (i % 64) as u32;
            let p = next() & !(1u64 << x);
            let o = !p & !(1u64 << x);
            let b = Board::new(p, o);
            assert_eq!(count_last_flip(p, x), b.flips(x).count_ones(), "{p:x} {x}");
        }
    }
}
