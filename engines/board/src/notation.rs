//! Squares and moves in text: `f5`, `F5`, and the pass `PA`/`pa`.
//!
//! A [`Square`] is an index 0..63 (a1 = 0, h8 = 63). A [`Move`] is a square or a pass; its wire
//! value (the one the engine ABI uses) is the square index, with 64 for a pass.

use std::fmt;
use std::str::FromStr;

/// A square index 0..63: a1 = 0, b1 = 1, …, h1 = 7, a2 = 8, …, h8 = 63.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    /// The square with index `index`, or `None` if it is not below 64.
    pub const fn new(index: u32) -> Option<Square> {
        if index < 64 {
            Some(Square(index as u8))
        } else {
            None
        }
    }

    /// The square at column `col` (0 = a) and row `row` (0 = row 1).
    pub const fn at(col: u32, row: u32) -> Option<Square> {
        if col < 8 && row < 8 {
            Some(Square((row * 8 + col) as u8))
        } else {
            None
        }
    }

    pub const fn index(self) -> u32 {
        self.0 as u32
    }

    /// The one-bit mask of this square.
    pub const fn bit(self) -> u64 {
        1u64 << self.0
    }

    /// Column 0..7 (a..h).
    pub const fn col(self) -> u32 {
        self.0 as u32 % 8
    }

    /// Row 0..7 (1..8).
    pub const fn row(self) -> u32 {
        self.0 as u32 / 8
    }

    /// Iterate over the squares of a mask, lowest index first.
    pub fn iter(mut mask: u64) -> impl Iterator<Item = Square> {
        std::iter::from_fn(move || {
            if mask == 0 {
                return None;
            }
            let sq = mask.trailing_zeros();
            mask &= mask - 1;
            Some(Square(sq as u8))
        })
    }
}

impl fmt::Display for Square {
    /// Lower-case coordinates, `f5`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let col = (b'a' + self.col() as u8) as char;
        let row = (b'1' + self.row() as u8) as char;
        write!(f, "{col}{row}")
    }
}

/// A move: a square, or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(u8);

impl Move {
    /// The pass; its wire value is 64.
    pub const PASS: Move = Move(64);

    /// The move placing a disc on `sq`.
    pub const fn at(sq: Square) -> Move {
        Move(sq.0)
    }

    /// The move with wire value `value` (0..63 a square, 64 the pass), or `None`.
    pub const fn from_wire(value: i64) -> Option<Move> {
        if value >= 0 && value <= 64 {
            Some(Move(value as u8))
        } else {
            None
        }
    }

    /// Wire value: 0..63 for a square, 64 for the pass.
    pub const fn wire(self) -> u32 {
        self.0 as u32
    }

    pub const fn is_pass(self) -> bool {
        self.0 == 64
    }

    /// The square, or `None` for the pass.
    pub const fn square(self) -> Option<Square> {
        Square::new(self.0 as u32)
    }
}

impl From<Square> for Move {
    fn from(sq: Square) -> Move {
        Move::at(sq)
    }
}

impl fmt::Display for Move {
    /// `f5` for a square, `PA` for the pass (the GGF spelling).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.square() {
            Some(sq) => sq.fmt(f),
            None => f.write_str("PA"),
        }
    }
}

/// A move or square that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{text}` is not a move (expected a square a1..h8 or PA for a pass)")]
pub struct ParseMoveError {
    pub text: String,
}

impl FromStr for Square {
    type Err = ParseMoveError;

    /// `f5` or `F5`.
    fn from_str(s: &str) -> Result<Square, ParseMoveError> {
        let err = || ParseMoveError {
            text: s.to_string(),
        };
        let b = s.as_bytes();
        if b.len() != 2 {
            return Err(err());
        }
        let col = b[0].to_ascii_lowercase().wrapping_sub(b'a') as u32;
        let row = b[1].wrapping_sub(b'1') as u32;
        Square::at(col, row).ok_or_else(err)
    }
}

impl FromStr for Move {
    type Err = ParseMoveError;

    /// `f5`, `F5`, or a pass spelled `pa`, `PA` (any case) or `pass`.
    fn from_str(s: &str) -> Result<Move, ParseMoveError> {
        if s.eq_ignore_ascii_case("pa") || s.eq_ignore_ascii_case("pass") {
            return Ok(Move::PASS);
        }
        s.parse::<Square>().map(Move::at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_round_trip_through_text() {
        for i in 0..64 {
            let sq = Square::new(i).unwrap();
            assert_eq!(sq.to_string().parse::<Square>().unwrap(), sq);
            assert_eq!(sq.to_string().to_uppercase().parse::<Square>().unwrap(), sq);
        }
        assert_eq!("a1".parse::<Square>().unwrap().index(), 0);
        assert_eq!("h1".parse::<Square>().unwrap().index(), 7);
        assert_eq!("F5".parse::<Square>().unwrap().index(), 37);
        assert_eq!("h8".parse::<Square>().unwrap().index(), 63);
    }

    #[test]
    fn pass_and_errors() {
        assert_eq!("pa".parse::<Move>().unwrap(), Move::PASS);
        assert_eq!("PA".parse::<Move>().unwrap(), Move::PASS);
        assert_eq!(Move::PASS.to_string(), "PA");
        assert_eq!(Move::PASS.wire(), 64);
        for bad in ["", "i1", "a9", "a0", "f", "f55", "zz"] {
            assert!(bad.parse::<Move>().is_err(), "{bad}");
        }
        assert_eq!(Move::from_wire(65), None);
        assert_eq!(Move::from_wire(-1), None);
    }
}
