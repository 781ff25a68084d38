//! A game as it was played: the position it started from and every move since.
//!
//! Engines with opening books and bridges to protocols that replay games (GTP has no way to set
//! a position) need the game, not only its current position; ABI 1.1 passes this to
//! `search_game`.

use crate::transcript::{replay, ReplayError};
use crate::{Move, Position};

/// A start position and the moves played from it, passes included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameHistory {
    pub start: Position,
    pub moves: Vec<Move>,
}

impl GameHistory {
    /// A game that has not started: no moves yet.
    pub fn new(start: Position) -> GameHistory {
        GameHistory {
            start,
            moves: Vec::new(),
        }
    }

    /// The position after every move (a missing forced pass is inserted); an error names the
    /// first move that cannot be played.
    pub fn position(&self) -> Result<Position, ReplayError> {
        replay(self.start, &self.moves).map(|(_, pos)| pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_transcript;

    #[test]
    fn position_replays_the_moves() {
        let mut game = GameHistory::new(Position::START);
        assert_eq!(game.position(), Ok(Position::START));
        game.moves = parse_transcript("f5d6c3").unwrap();
        let expected = Position::START
            .play("f5".parse().unwrap())
            .and_then(|p| p.play("d6".parse().unwrap()))
            .and_then(|p| p.play("c3".parse().unwrap()))
            .unwrap();
        assert_eq!(game.position(), Ok(expected));
        game.moves.push("a1".parse().unwrap());
        assert!(matches!(
            game.position(),
            Err(ReplayError::Illegal { index: 4, .. })
        ));
    }
}
