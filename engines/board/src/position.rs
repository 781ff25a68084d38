//! A board with the colour to move, its text form and the move rules stated by colour.
//!
//! Board strings are 64 squares from a1 to h8 (`X`, `x`, `*`, `b`, `B` Black; `O`, `o`, `w`,
//! `W` White; `-`, `.` empty), optionally followed by white space and the side to move (`X`,
//! `*`, `b`, `B` Black; `O`, `w`, `W` White). White space between squares is ignored so that
//! row-separated forms (GGF `BO[8 -------- … *]`) read too.

use crate::{Board, Move, Square};
use std::fmt;
use std::str::FromStr;

/// A player colour. Black moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Color {
    Black,
    White,
}

impl Color {
    pub const fn opposite(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// `0` for Black, `1` for White (the ABI's encoding).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The board-string letter: `X` or `O`.
    pub const fn letter(self) -> char {
        match self {
            Color::Black => 'X',
            Color::White => 'O',
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Color::Black => "Black",
            Color::White => "White",
        })
    }
}

/// A position: the discs and who is to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// Discs as (side to move, opponent).
    pub board: Board,
    pub side_to_move: Color,
}

/// A move that the rules do not allow in a position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{mv} is not legal for {side} in {position}")]
pub struct IllegalMove {
    pub mv: Move,
    pub side: Color,
    /// The position as a board string.
    pub position: String,
}

/// A board string that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParsePositionError {
    #[error("unexpected character `{0}` in a board string")]
    BadCharacter(char),
    #[error("a board string needs 64 squares, found {0}")]
    WrongLength(usize),
    #[error("the side to move is missing after the 64 squares")]
    MissingSide,
    #[error("unexpected text `{0}` after the side to move")]
    TrailingText(String),
}

impl Position {
    /// The standard start: d4 and e5 White, d5 and e4 Black, Black to move.
    pub const START: Position = Position {
        board: Board::START,
        side_to_move: Color::Black,
    };

    /// A position from colour masks. `None` if the masks overlap.
    pub fn from_colors(black: u64, white: u64, side_to_move: Color) -> Option<Position> {
        if black & white != 0 {
            return None;
        }
        let board = match side_to_move {
            Color::Black => Board::new(black, white),
            Color::White => Board::new(white, black),
        };
        Some(Position {
            board,
            side_to_move,
        })
    }

    pub fn black(&self) -> u64 {
        match self.side_to_move {
            Color::Black => self.board.player,
            Color::White => self.board.opponent,
        }
    }

    pub fn white(&self) -> u64 {
        match self.side_to_move {
            Color::Black => self.board.opponent,
            Color::White => self.board.player,
        }
    }

    /// Disc counts as (black, white).
    pub fn disc_counts(&self) -> (u32, u32) {
        (self.black().count_ones(), self.white().count_ones())
    }

    pub fn empties(&self) -> u32 {
        self.board.empties()
    }

    /// Legal moves of the side to move as a mask.
    pub fn legal_moves(&self) -> u64 {
        self.board.moves()
    }

    /// Whether the side to move has no move but the game goes on (it must pass).
    pub fn must_pass(&self) -> bool {
        !self.board.has_moves() && self.board.pass().has_moves()
    }

    pub fn is_game_over(&self) -> bool {
        self.board.is_game_over()
    }

    /// Whether `mv` is legal: a square among the legal moves, or a pass when there is none
    /// and the game is not over.
    pub fn is_legal(&self, mv: Move) -> bool {
        match mv.square() {
            Some(sq) => self.board.moves() & sq.bit() != 0,
            None => self.must_pass(),
        }
    }

    /// The position after `mv`, or the reason it is illegal.
    pub fn play(&self, mv: Move) -> Result<Position, IllegalMove> {
        if !self.is_legal(mv) {
            return Err(IllegalMove {
                mv,
                side: self.side_to_move,
                position: self.to_string(),
            });
        }
        let board = match mv.square() {
            Some(sq) => {
                let flips = self.board.flips(sq.index());
                self.board.play_with_flips(sq.index(), flips)
            }
            None => self.board.pass(),
        };
        Ok(Position {
            board,
            side_to_move: self.side_to_move.opposite(),
        })
    }

    /// Final disc difference from Black's view, empties to the winner.
    pub fn final_score_black(&self) -> i32 {
        let s = self.board.final_score();
        match self.side_to_move {
            Color::Black => s,
            Color::White => -s,
        }
    }

    /// The colour on `sq`, if any.
    pub fn color_at(&self, sq: Square) -> Option<Color> {
        if self.black() & sq.bit() != 0 {
            Some(Color::Black)
        } else if self.white() & sq.bit() != 0 {
            Some(Color::White)
        } else {
            None
        }
    }

    /// The 64 squares without the side: `X`, `O`, `-`.
    pub fn squares_string(&self) -> String {
        (0..64)
            .map(|i| match self.color_at(Square::new(i).unwrap()) {
                Some(c) => c.letter(),
                None => '-',
            })
            .collect()
    }

    /// Read the 64 squares and, if `with_side`, the side letter that follows; returns the
    /// position and the unread rest of the text.
    pub(crate) fn parse_prefix(text: &str) -> Result<(Position, &str), ParsePositionError> {
        let (mut black, mut white, mut n) = (0u64, 0u64, 0usize);
        let mut rest = text;
        for (i, ch) in text.char_indices() {
            if n == 64 {
                rest = &text[i..];
                break;
            }
            match ch {
                'X' | 'x' | '*' | 'b' | 'B' => black |= 1 << n,
                'O' | 'o' | 'w' | 'W' => white |= 1 << n,
                '-' | '.' => {}
                c if c.is_whitespace() => continue,
                c => return Err(ParsePositionError::BadCharacter(c)),
            }
            n += 1;
            rest = &text[i + ch.len_utf8()..];
        }
        if n < 64 {
            return Err(ParsePositionError::WrongLength(n));
        }
        let rest = rest.trim_start();
        let mut chars = rest.chars();
        let side = match chars.next() {
            Some('X' | 'x' | '*' | 'b' | 'B') => Color::Black,
            Some('O' | 'o' | 'w' | 'W') => Color::White,
            Some(c) => return Err(ParsePositionError::BadCharacter(c)),
            None => return Err(ParsePositionError::MissingSide),
        };
        let position = Position::from_colors(black, white, side).expect("disjoint by construction");
        Ok((position, chars.as_str()))
    }
}

impl fmt::Display for Position {
    /// `<64 squares> <X|O>`, the Edax/OBF one-line form.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}",
            self.squares_string(),
            self.side_to_move.letter()
        )
    }
}

impl FromStr for Position {
    type Err = ParsePositionError;

    fn from_str(s: &str) -> Result<Position, ParsePositionError> {
        let (position, rest) = Position::parse_prefix(s.trim())?;
        if !rest.trim().is_empty() {
            return Err(ParsePositionError::TrailingText(rest.trim().to_string()));
        }
        Ok(position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_text() {
        let s = Position::START.to_string();
        assert_eq!(
            s,
            "---------------------------OX------XO--------------------------- X"
        );
        assert_eq!(s.parse::<Position>().unwrap(), Position::START);
        let alt = "...........................wb......bw........................... b";
        assert_eq!(alt.parse::<Position>().unwrap(), Position::START);
        let rows = "-------- -------- -------- ---O*--- ---*O--- -------- -------- -------- *";
        assert_eq!(rows.parse::<Position>().unwrap(), Position::START);
    }

    #[test]
    fn bad_board_strings_are_errors() {
        assert_eq!(
            "---".parse::<Position>(),
            Err(ParsePositionError::WrongLength(3))
        );
        let squares = "-".repeat(64);
        assert_eq!(
            squares.parse::<Position>(),
            Err(ParsePositionError::MissingSide)
        );
        assert!(format!("{squares} Q").parse::<Position>().is_err());
        assert!(format!("{squares} X extra").parse::<Position>().is_err());
        assert!(format!("{}Z X", "-".repeat(63))
            .parse::<Position>()
            .is_err());
    }

    #[test]
    fn play_checks_legality_and_passes() {
        let f5: Move = "f5".parse().unwrap();
        let p = Position::START.play(f5).unwrap();
        assert_eq!(p.side_to_move, Color::White);
        assert_eq!(p.disc_counts(), (4, 1));
        assert!(Position::START.play("a1".parse().unwrap()).is_err());
        assert!(Position::START.play(Move::PASS).is_err());
        // White to move with no legal move while Black has one: pass is the only legal move.
        let pos: Position = format!("XO{} O", "-".repeat(62)).parse().unwrap();
        assert!(pos.must_pass());
        assert!(pos.play(Move::PASS).is_ok());
    }
}
