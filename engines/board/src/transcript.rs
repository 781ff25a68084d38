//! Move transcripts: `f5d6c3d3c4…`, two characters per move, passes implicit.
//!
//! A transcript names only the squares played; replaying it inserts a pass whenever the side to
//! move has no legal move (the WTHOR and XOT convention). Explicit `PA` tokens are accepted
//! too and must then be legal passes.

use crate::{Move, ParseMoveError, Position};

/// A transcript that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TranscriptError {
    #[error("move {index}: {source}")]
    BadMove {
        /// 1-based position of the move in the transcript.
        index: usize,
        source: ParseMoveError,
    },
    #[error("a transcript has two characters per move; `{0}` is left over")]
    OddLength(String),
}

/// A transcript that does not replay from its start position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReplayError {
    #[error("move {index} ({mv}) is illegal")]
    Illegal { index: usize, mv: Move },
    #[error("move {index} ({mv}) comes after the end of the game")]
    AfterGameOver { index: usize, mv: Move },
}

/// Read a transcript into its moves (squares and any explicit passes). White space between
/// moves is allowed.
pub fn parse_transcript(text: &str) -> Result<Vec<Move>, TranscriptError> {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let mut moves = Vec::with_capacity(compact.len() / 2);
    let chars: Vec<char> = compact.chars().collect();
    for (i, pair) in chars.chunks(2).enumerate() {
        let token: String = pair.iter().collect();
        if pair.len() < 2 {
            return Err(TranscriptError::OddLength(token));
        }
        let mv = token
            .parse::<Move>()
            .map_err(|source| TranscriptError::BadMove {
                index: i + 1,
                source,
            })?;
        moves.push(mv);
    }
    Ok(moves)
}

/// Replay `moves` from `start`, inserting the forced passes. Returns every move actually
/// played (passes included) and the final position.
pub fn replay(start: Position, moves: &[Move]) -> Result<(Vec<Move>, Position), ReplayError> {
    let mut pos = start;
    let mut played = Vec::with_capacity(moves.len() + 2);
    for (i, &mv) in moves.iter().enumerate() {
        let index = i + 1;
        if pos.is_game_over() {
            return Err(ReplayError::AfterGameOver { index, mv });
        }
        if pos.must_pass() && !mv.is_pass() {
            pos = pos.play(Move::PASS).expect("a forced pass is legal");
            played.push(Move::PASS);
        }
        pos = pos
            .play(mv)
            .map_err(|_| ReplayError::Illegal { index, mv })?;
        played.push(mv);
    }
    Ok((played, pos))
}

/// Write moves as a transcript, leaving out passes: `f5d6c3`.
pub fn write_transcript(moves: &[Move]) -> String {
    moves
        .iter()
        .filter(|m| !m.is_pass())
        .map(|m| m.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcript_round_trip() {
        let moves = parse_transcript("f5d6C3 d3c4").unwrap();
        assert_eq!(write_transcript(&moves), "f5d6c3d3c4");
        let (played, pos) = replay(Position::START, &moves).unwrap();
        assert_eq!(played.len(), 5);
        assert_eq!(pos.empties(), 55);
    }

    #[test]
    fn malformed_transcripts() {
        assert!(matches!(
            parse_transcript("f5d"),
            Err(TranscriptError::OddLength(_))
        ));
        assert!(matches!(
            parse_transcript("f5z9"),
            Err(TranscriptError::BadMove { index: 2, .. })
        ));
        let moves = parse_transcript("f5f5").unwrap();
        assert_eq!(
            replay(Position::START, &moves),
            Err(ReplayError::Illegal {
                index: 2,
                mv: moves[1]
            })
        );
    }

    #[test]
    fn shortest_game_ends_after_nine_moves_and_rejects_more() {
        // A known 9-move wipe-out: Black takes every disc.
        let moves = parse_transcript("e6f4e3f6g5d6e7f5c5").unwrap();
        let (_, end) = replay(Position::START, &moves).unwrap();
        assert!(end.is_game_over());
        assert_eq!(end.final_score_black(), 64);
        let more = parse_transcript("e6f4e3f6g5d6e7f5c5a1").unwrap();
        assert!(matches!(
            replay(Position::START, &more),
            Err(ReplayError::AfterGameOver { index: 10, .. })
        ));
    }
}
