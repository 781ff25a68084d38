//! OBF, Edax's "Othello Board Format" for test positions.
//!
//! One position per line: `<64 squares> <side>;` optionally followed by ` MOVE:SCORE;` items
//! giving exact scores from the side to move's view, best first, e.g.
//! `--XXXXX--OOOXX-O-…--OOOOO-- X; G8:+18; H1:+12;`. Text after a `%` is a comment.

use crate::{Move, ParseMoveError, ParsePositionError, Position};
use std::str::FromStr;

/// One OBF line: a position and the scores of its moves, as listed in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ObfLine {
    pub position: Position,
    pub move_scores: Vec<(Move, i32)>,
}

impl ObfLine {
    /// The best score listed, if any.
    pub fn best_score(&self) -> Option<i32> {
        self.move_scores.iter().map(|&(_, s)| s).max()
    }
}

/// An OBF line that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseObfError {
    #[error(transparent)]
    Position(#[from] ParsePositionError),
    #[error("expected `;` after the side to move")]
    MissingSemicolon,
    #[error("`{0}` is not a MOVE:SCORE item")]
    BadItem(String),
    #[error(transparent)]
    Move(#[from] ParseMoveError),
}

impl FromStr for ObfLine {
    type Err = ParseObfError;

    fn from_str(line: &str) -> Result<ObfLine, ParseObfError> {
        let line = line.split('%').next().unwrap_or("").trim();
        let (position, rest) = Position::parse_prefix(line)?;
        let rest = rest.trim_start();
        let rest = match rest.strip_prefix(';') {
            Some(r) => r,
            None if rest.is_empty() => "",
            None => return Err(ParseObfError::MissingSemicolon),
        };
        let mut move_scores = Vec::new();
        for item in rest.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            let (mv, score) = item
                .split_once(':')
                .ok_or_else(|| ParseObfError::BadItem(item.to_string()))?;
            let mv: Move = mv.trim().parse()?;
            let score: i32 = score
                .trim()
                .trim_start_matches('+')
                .parse()
                .map_err(|_| ParseObfError::BadItem(item.to_string()))?;
            move_scores.push((mv, score));
        }
        Ok(ObfLine {
            position,
            move_scores,
        })
    }
}

impl std::fmt::Display for ObfLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{};", self.position)?;
        for (mv, score) in &self.move_scores {
            write!(f, " {}:{:+};", mv.to_string().to_uppercase(), score)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FFO1: &str = "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12; H7:+6; A2:+6; A3:+4; B1:-4; A4:-22; G2:-24;";

    #[test]
    fn reads_ffo_line() {
        let l: ObfLine = FFO1.parse().unwrap();
        assert_eq!(l.position.empties(), 14);
        assert_eq!(l.move_scores.len(), 8);
        assert_eq!(l.move_scores[0], ("g8".parse().unwrap(), 18));
        assert_eq!(l.best_score(), Some(18));
        assert_eq!(l.to_string(), FFO1);
        for (mv, _) in &l.move_scores {
            assert!(l.position.is_legal(*mv));
        }
    }

    #[test]
    fn bare_position_and_errors() {
        let bare = format!("{} O;", "-".repeat(64));
        assert!(bare.parse::<ObfLine>().unwrap().move_scores.is_empty());
        assert!(format!("{} O; G8+18;", "-".repeat(64))
            .parse::<ObfLine>()
            .is_err());
        assert!(format!("{} O G8:+18;", "-".repeat(64))
            .parse::<ObfLine>()
            .is_err());
    }
}
