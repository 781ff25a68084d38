//! The 8 symmetries of the board (the dihedral group of the square).
//!
//! With a1 = bit 0 and h8 = bit 63, a board is 8 bytes, one per row: swapping bytes flips the
//! rows, reversing the bits of each byte mirrors the columns, and a transpose (a1-h8 diagonal)
//! is three "delta swaps". Every other symmetry is a composition of these.

use crate::{Board, Move, Square};

/// A symmetry of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symmetry {
    Identity,
    /// Row 1 <-> row 8.
    FlipVertical,
    /// Column a <-> column h.
    MirrorHorizontal,
    /// Reflection in the a1-h8 diagonal: (col, row) -> (row, col).
    Transpose,
    /// Reflection in the h1-a8 diagonal: (col, row) -> (7 - row, 7 - col).
    AntiTranspose,
    /// Rotation by 180 degrees.
    Rotate180,
    /// Quarter turn: (col, row) -> (7 - row, col).
    Rotate90,
    /// Three-quarter turn: (col, row) -> (row, 7 - col).
    Rotate270,
}

impl Symmetry {
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::FlipVertical,
        Symmetry::MirrorHorizontal,
        Symmetry::Transpose,
        Symmetry::AntiTranspose,
        Symmetry::Rotate180,
        Symmetry::Rotate90,
        Symmetry::Rotate270,
    ];

    /// Apply to a mask.
    pub fn apply(self, b: u64) -> u64 {
        match self {
            Symmetry::Identity => b,
            Symmetry::FlipVertical => b.swap_bytes(),
            Symmetry::MirrorHorizontal => mirror(b),
            Symmetry::Transpose => transpose(b),
            Symmetry::AntiTranspose => transpose(b.reverse_bits()),
            Symmetry::Rotate180 => b.reverse_bits(),
            Symmetry::Rotate90 => mirror(transpose(b)),
            Symmetry::Rotate270 => transpose(mirror(b)),
        }
    }

    /// Apply to both masks of a board.
    pub fn apply_board(self, b: Board) -> Board {
        Board::new(self.apply(b.player), self.apply(b.opponent))
    }

    /// Apply to a move (a pass stays a pass).
    pub fn apply_move(self, mv: Move) -> Move {
        match mv.square() {
            Some(sq) => {
                let bit = self.apply(sq.bit());
                Move::at(Square::new(bit.trailing_zeros()).expect("one bit"))
            }
            None => mv,
        }
    }

    /// The symmetry that undoes this one.
    pub fn inverse(self) -> Symmetry {
        match self {
            Symmetry::Rotate90 => Symmetry::Rotate270,
            Symmetry::Rotate270 => Symmetry::Rotate90,
            s => s,
        }
    }
}

/// Reverse the bit order inside every byte: column a <-> h.
fn mirror(b: u64) -> u64 {
    b.reverse_bits().swap_bytes()
}

/// Reflect in the a1-h8 diagonal with three delta swaps (bits at distance 7, 14, 28).
fn transpose(mut b: u64) -> u64 {
    let mut t = 0x00AA_00AA_00AA_00AA & (b ^ (b >> 7));
    b ^= t ^ (t << 7);
    t = 0x0000_CCCC_0000_CCCC & (b ^ (b >> 14));
    b ^= t ^ (t << 14);
    t = 0x0000_0000_F0F0_F0F0 & (b ^ (b >> 28));
    b ^= t ^ (t << 28);
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_coordinates(s: Symmetry, col: u32, row: u32) -> (u32, u32) {
        match s {
            Symmetry::Identity => (col, row),
            Symmetry::FlipVertical => (col, 7 - row),
            Symmetry::MirrorHorizontal => (7 - col, row),
            Symmetry::Transpose => (row, col),
            Symmetry::AntiTranspose => (7 - row, 7 - col),
            Symmetry::Rotate180 => (7 - col, 7 - row),
            Symmetry::Rotate90 => (7 - row, col),
            Symmetry::Rotate270 => (row, 7 - col),
        }
    }

    #[test]
    fn each_symmetry_moves_each_square_as_its_definition_says() {
        for s in Symmetry::ALL {
            for sq in Square::iter(u64::MAX) {
                let (c, r) = by_coordinates(s, sq.col(), sq.row());
                assert_eq!(s.apply(sq.bit()), 1u64 << (r * 8 + c), "{s:?} {sq}");
                assert_eq!(s.inverse().apply(s.apply(sq.bit())), sq.bit());
            }
        }
    }

    #[test]
    fn symmetries_preserve_the_rules() {
        let b = Board::START.play(37).unwrap().play(43).unwrap();
        for s in Symmetry::ALL {
            let t = s.apply_board(b);
            assert_eq!(t.moves(), s.apply(b.moves()));
            for sq in Square::iter(b.moves()) {
                let tsq = s.apply_move(Move::at(sq)).square().unwrap();
                assert_eq!(t.flips(tsq.index()), s.apply(b.flips(sq.index())));
            }
        }
    }
}
