//! Bitboard move generation and flipping.
//!
//! Everything here is branch-light integer arithmetic on the two masks; this is the hot path of
//! perft and of every search. `Board` knows nothing about colours: after a move the two masks
//! swap, so the side to move is always `player`.

/// Columns b..g: shifting a row left or right by one must not wrap a disc from column h to
/// column a of the next row, so horizontal and diagonal propagation is masked with this.
const NOT_EDGE_COLUMNS: u64 = 0x7E7E_7E7E_7E7E_7E7E;

/// Two bitboards: the discs of the side to move and the opponent's discs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Board {
    /// Discs of the side to move.
    pub player: u64,
    /// Discs of the side not to move.
    pub opponent: u64,
}

/// For a move at `sq`: the squares of the line leaving `sq` in each of the 8 directions,
/// nearest square first in bit order for the 4 "up" directions (higher indices) and last for
/// the 4 "down" directions. Generated at compile time by walking the board. Lanes 0..4 step
/// by +1, +7, +8, +9 and lanes 4..8 by -1, -7, -8, -9; each half of a row is one 256-bit
/// vector for the SIMD kernels, hence the alignment.
pub(crate) static RAYS: Rays = Rays(build_rays());

/// The ray table, aligned so that each half of a row is one aligned 32-byte load.
#[repr(C, align(64))]
pub(crate) struct Rays(pub(crate) [[u64; 8]; 64]);

/// Direction steps as (column delta, row delta): the first four increase the square index,
/// the last four decrease it.
pub(crate) const STEPS: [(i32, i32); 8] = [
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
    (-1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
];

const fn build_rays() -> [[u64; 8]; 64] {
    let mut rays = [[0u64; 8]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut d = 0;
        while d < 8 {
            let (dc, dr) = STEPS[d];
            let mut c = (sq % 8) as i32 + dc;
            let mut r = (sq / 8) as i32 + dr;
            let mut mask = 0u64;
            while c >= 0 && c < 8 && r >= 0 && r < 8 {
                mask |= 1u64 << (r * 8 + c);
                c += dc;
                r += dr;
            }
            rays[sq][d] = mask;
            d += 1;
        }
        sq += 1;
    }
    rays
}

impl Board {
    /// The standard start position, Black (the side to move) on d5 and e4.
    pub const START: Board = Board {
        player: (1 << 35) | (1 << 28),
        opponent: (1 << 27) | (1 << 36),
    };

    /// A board from two disjoint masks. Panics in debug builds if they overlap.
    #[inline]
    pub const fn new(player: u64, opponent: u64) -> Board {
        debug_assert!(player & opponent == 0);
        Board { player, opponent }
    }

    /// Empty squares.
    #[inline]
    pub const fn empty(&self) -> u64 {
        !(self.player | self.opponent)
    }

    /// Number of empty squares.
    #[inline]
    pub const fn empties(&self) -> u32 {
        self.empty().count_ones()
    }

    /// Legal moves of the side to move, one bit per square (see [`moves`]).
    #[inline(always)]
    pub fn moves(&self) -> u64 {
        moves(self.player, self.opponent)
    }

    /// Whether the side to move has at least one legal move.
    #[inline]
    pub fn has_moves(&self) -> bool {
        self.moves() != 0
    }

    /// The discs flipped by playing at `sq` (0..63); zero if the move is illegal (the square
    /// must also be empty: check with [`Board::moves`]). See [`flips`].
    #[inline(always)]
    pub fn flips(&self, sq: u32) -> u64 {
        flips(self.player, self.opponent, sq)
    }

    /// The board after the side to move plays at `sq` with the given flips (from
    /// [`Board::flips`]); the sides swap, so the opponent is to move.
    #[inline]
    pub const fn play_with_flips(&self, sq: u32, flipped: u64) -> Board {
        Board {
            player: self.opponent ^ flipped,
            opponent: self.player | flipped | (1u64 << sq),
        }
    }

    /// The board after a legal move at `sq`, or `None` if the move is illegal.
    #[inline]
    pub fn play(&self, sq: u32) -> Option<Board> {
        if sq >= 64 || self.moves() & (1u64 << sq) == 0 {
            return None;
        }
        Some(self.play_with_flips(sq, self.flips(sq)))
    }

    /// The board after a pass: the same discs, the other side to move.
    #[inline]
    pub const fn pass(&self) -> Board {
        Board {
            player: self.opponent,
            opponent: self.player,
        }
    }

    /// Whether neither side can move.
    #[inline]
    pub fn is_game_over(&self) -> bool {
        !self.has_moves() && !self.pass().has_moves()
    }

    /// Final disc difference from the side to move's view, empties going to the winner
    /// (the WTHOR and tournament rule). Meaningful when the game is over.
    #[inline]
    pub const fn final_score(&self) -> i32 {
        let p = self.player.count_ones() as i32;
        let o = self.opponent.count_ones() as i32;
        let empties = 64 - p - o;
        let diff = p - o;
        if diff > 0 {
            diff + empties
        } else if diff < 0 {
            diff - empties
        } else {
            0
        }
    }

    /// Disc difference (player minus opponent) without the empties rule.
    #[inline]
    pub const fn disc_difference(&self) -> i32 {
        self.player.count_ones() as i32 - self.opponent.count_ones() as i32
    }
}

/// Legal moves of player `p` against opponent `o`, one bit per square.
///
/// Idea (Kogge-Stone style): for each direction, grow runs of opponent discs out of the
/// player's discs by repeated shift-and-mask; an empty square just beyond such a run is a move.
/// Each doubling step (shift by `2 * dir` through pairs of opponent discs) halves the number of
/// iterations, so a run of up to 6 opponent discs needs four masked shifts. `inline(always)`:
/// search code in other crates calls this in its innermost loops.
#[inline(always)]
pub fn moves(p: u64, o: u64) -> u64 {
    // Vertical runs cannot wrap around a row; the others must not cross columns a/h.
    let inner = o & NOT_EDGE_COLUMNS;
    (run_ends(p, inner, 1) | run_ends(p, o, 8) | run_ends(p, inner, 7) | run_ends(p, inner, 9))
        & !(p | o)
}

/// Flips along a ray towards higher indices: the nearest square is the lowest bit, so the
/// first non-opponent square is `x & -x`; the run below it flips if it holds a player disc.
#[inline(always)]
fn flips_up(p: u64, o: u64, ray: u64) -> u64 {
    let blockers = ray & !o;
    let first = blockers & blockers.wrapping_neg();
    (first.wrapping_sub(1) & ray) & 0u64.wrapping_sub(((first & p) != 0) as u64)
}

/// Flips along a ray towards lower indices: the first non-opponent square is the highest bit,
/// found with `leading_zeros`; `| 1` keeps the shift defined, and bit 0 then only counts if it
/// is on the ray and a player disc.
#[inline(always)]
fn flips_down(p: u64, o: u64, ray: u64) -> u64 {
    let blockers = ray & !o;
    let first = (1u64 << 63) >> (blockers | 1).leading_zeros();
    let run = !(first.wrapping_shl(1).wrapping_sub(1)) & ray;
    run & 0u64.wrapping_sub(((first & p & ray) != 0) as u64)
}

/// The discs player `p` flips by playing at `sq` against opponent `o`; zero if none.
///
/// Idea: along each of the 8 rays leaving `sq`, the first square that is not an opponent disc
/// ends the run; the run flips exactly when that square holds a player disc. The masks make the
/// eight rays straight-line code without branches. `inline(always)` as for [`moves`].
#[inline(always)]
pub fn flips(p: u64, o: u64, sq: u32) -> u64 {
    let r = &RAYS.0[sq as usize];
    flips_up(p, o, r[0])
        | flips_up(p, o, r[1])
        | flips_up(p, o, r[2])
        | flips_up(p, o, r[3])
        | flips_down(p, o, r[4])
        | flips_down(p, o, r[5])
        | flips_down(p, o, r[6])
        | flips_down(p, o, r[7])
}

/// One direction of [`moves`]: squares just beyond a run of `mask` discs that starts at a disc
/// of `p`, in both senses of the shift `dir`.
#[inline(always)]
fn run_ends(p: u64, mask: u64, dir: u32) -> u64 {
    let dir2 = dir * 2;
    let pairs_left = mask & (mask << dir);
    let pairs_right = mask & (mask >> dir);

    let mut left = mask & (p << dir);
    left |= mask & (left << dir);
    left |= pairs_left & (left << dir2);
    left |= pairs_left & (left << dir2);

    let mut right = mask & (p >> dir);
    right |= mask & (right >> dir);
    right |= pairs_right & (right >> dir2);
    right |= pairs_right & (right >> dir2);

    (left << dir) | (right >> dir)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Reference implementation: walk each direction square by square.
    pub(crate) fn slow_flips(b: &Board, sq: u32) -> u64 {
        if (b.player | b.opponent) & (1 << sq) != 0 {
            return 0;
        }
        let mut all = 0;
        for &(dc, dr) in &STEPS {
            let (mut c, mut r) = ((sq % 8) as i32 + dc, (sq / 8) as i32 + dr);
            let mut run = 0;
            while (0..8).contains(&c) && (0..8).contains(&r) {
                let bit = 1u64 << (r * 8 + c);
                if b.opponent & bit != 0 {
                    run |= bit;
                } else {
                    if b.player & bit != 0 {
                        all |= run;
                    }
                    break;
                }
                c += dc;
                r += dr;
            }
        }
        all
    }

    /// `n` random boards (fixed seed), with a quarter to seven eighths of the squares taken.
    pub(crate) fn random_boards(n: usize) -> Vec<Board> {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..n)
            .map(|i| {
                let occupied = match i % 4 {
                    0 => next() & next(),
                    1 => next(),
                    2 => next() | next(),
                    _ => next() | next() | next(),
                };
                let p = occupied & next();
                Board::new(p, occupied & !p)
            })
            .collect()
    }

    #[test]
    fn start_position_has_four_moves() {
        let m = Board::START.moves();
        // d3 = 19, c4 = 26, f5 = 37, e6 = 44
        assert_eq!(m, (1 << 19) | (1 << 26) | (1 << 37) | (1 << 44));
    }

    #[test]
    fn flips_and_moves_agree_with_a_square_by_square_walk() {
        for b in random_boards(20_000) {
            let mut expected_moves = 0;
            for sq in 0..64 {
                let f = slow_flips(&b, sq);
                if f != 0 {
                    expected_moves |= 1 << sq;
                }
                if b.empty() & (1 << sq) != 0 {
                    assert_eq!(b.flips(sq), f, "board {b:?} square {sq}");
                }
            }
            assert_eq!(b.moves(), expected_moves, "board {b:?}");
        }
    }

    #[test]
    fn final_score_gives_empties_to_the_winner() {
        assert_eq!(Board::new(0b111, 0b1000).final_score(), 3 - 1 + 60);
        assert_eq!(Board::new(0b1, 0b110).final_score(), -(2 - 1 + 61));
        assert_eq!(Board::new(0b1, 0b10).final_score(), 0);
    }
}
