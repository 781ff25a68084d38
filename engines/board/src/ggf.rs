//! GGF game text for a [`GameHistory`]: the form the NBoard protocol's `set game` carries.
//!
//! Only what defines the game is read and written: the board `BO[8 <64 squares> <side>]` and the
//! moves `B[f5/eval/time]`, `W[…]` in order (`PA` for a pass; the eval and time after the move are
//! ignored). Other properties (players, clocks, result) are skipped when reading. The full GGF
//! of a tournament game, with players and results, is written by the harness.

use crate::{GameHistory, Move, Position, ReplayError};
use std::fmt::Write;

/// What is wrong with a GGF game text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GgfError {
    #[error("not a GGF game: it must start with `(;` and end with `;)`")]
    NotAGame,
    #[error("property `{0}` has no closing `]`")]
    Unclosed(String),
    #[error("no board (`BO[8 …]`)")]
    NoBoard,
    #[error("bad board `{0}`")]
    BadBoard(String),
    #[error("bad move `{0}`")]
    BadMove(String),
    #[error("the moves do not replay: {0}")]
    Replay(#[from] ReplayError),
}

/// The value of a `BO` property: `8 ` + 64 squares (`*` Black, `O` White, `-` empty) + ` ` +
/// the side to move (`*` or `O`).
pub fn ggf_board(position: &Position) -> String {
    let squares: String = position
        .squares_string()
        .chars()
        .map(|c| match c {
            'X' => '*',
            'O' => 'O',
            _ => '-',
        })
        .collect();
    let side = match position.side_to_move {
        crate::Color::Black => '*',
        crate::Color::White => 'O',
    };
    format!("8 {squares} {side}")
}

/// A one-line GGF game of `history` (no players, clocks or result).
pub fn write_ggf(history: &GameHistory) -> String {
    let mut s = String::with_capacity(64 + 8 * history.moves.len());
    let _ = write!(
        s,
        "(;GM[Othello]PC[othello-arena]TY[8]BO[{}]",
        ggf_board(&history.start)
    );
    let mut color = history.start.side_to_move;
    for mv in &history.moves {
        let tag = match color {
            crate::Color::Black => 'B',
            crate::Color::White => 'W',
        };
        let text = if mv.is_pass() {
            "PA".to_string()
        } else {
            mv.to_string().to_uppercase()
        };
        let _ = write!(s, "{tag}[{text}]");
        color = color.opposite();
    }
    s.push_str(";)");
    s
}

/// Read a GGF game: its start board and its moves, passes made explicit (a missing forced pass
/// is inserted), checked by replaying them.
pub fn parse_ggf(text: &str) -> Result<GameHistory, GgfError> {
    let text = text.trim();
    let body = text
        .strip_prefix("(;")
        .and_then(|t| t.strip_suffix(";)"))
        .ok_or(GgfError::NotAGame)?;
    let mut start = None;
    let mut moves = Vec::new();
    let mut rest = body;
    while let Some(open) = rest.find('[') {
        let name = rest[..open].trim();
        let after = &rest[open + 1..];
        let close = after
            .find(']')
            .ok_or_else(|| GgfError::Unclosed(name.to_string()))?;
        let value = &after[..close];
        match name {
            "BO" => {
                let board = value
                    .trim()
                    .strip_prefix("8 ")
                    .ok_or_else(|| GgfError::BadBoard(value.to_string()))?;
                let position: Position = board
                    .parse()
                    .map_err(|_| GgfError::BadBoard(value.to_string()))?;
                start = Some(position);
            }
            "B" | "W" => {
                let mv_text = value.split('/').next().unwrap_or("").trim();
                let mv: Move = mv_text
                    .parse()
                    .map_err(|_| GgfError::BadMove(value.to_string()))?;
                moves.push(mv);
            }
            _ => {}
        }
        rest = &after[close + 1..];
    }
    let start = start.ok_or(GgfError::NoBoard)?;
    let (played, _) = crate::replay(start, &moves)?;
    Ok(GameHistory {
        start,
        moves: played,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_transcript;

    #[test]
    fn round_trip_and_nboard_sample() {
        let history = GameHistory {
            start: Position::START,
            moves: parse_transcript("f5d6c3d3c4").unwrap(),
        };
        let text = write_ggf(&history);
        assert!(text.starts_with("(;GM[Othello]"), "{text}");
        assert!(text.contains("B[F5]W[D6]B[C3]W[D3]B[C4];)"), "{text}");
        assert_eq!(parse_ggf(&text).unwrap(), history);

        // As NBoard sends it: rows without spaces, evals and times after the moves, other
        // properties.
        let nboard = "(;GM[Othello]PC[NBoard]DT[2014-02-21 20:52:27 GMT]PB[/Users/Chris]PW[]RE[?]TI[0]TY[8]BO[8 ---------------------------O*------*O--------------------------- *]B[F5]W[F6]B[E6/1.00/0.5]W[F4//1.2];)";
        let game = parse_ggf(nboard).unwrap();
        assert_eq!(game.start, Position::START);
        assert_eq!(game.moves, parse_transcript("f5f6e6f4").unwrap());
    }

    #[test]
    fn errors_name_the_problem() {
        assert_eq!(parse_ggf("GM[Othello]"), Err(GgfError::NotAGame));
        assert_eq!(parse_ggf("(;GM[Othello];)"), Err(GgfError::NoBoard));
        assert!(matches!(
            parse_ggf("(;BO[8 xyz *]B[F5];)"),
            Err(GgfError::BadBoard(_))
        ));
        let start = ggf_board(&Position::START);
        assert!(matches!(
            parse_ggf(&format!("(;BO[{start}]B[A1];)")),
            Err(GgfError::Replay(_))
        ));
        assert!(matches!(
            parse_ggf(&format!("(;BO[{start}]B[Z9];)")),
            Err(GgfError::BadMove(_))
        ));
        assert!(matches!(
            parse_ggf(&format!("(;BO[{start}]B[F5;)")),
            Err(GgfError::Unclosed(_))
        ));
    }
}
