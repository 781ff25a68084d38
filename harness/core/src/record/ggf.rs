//! GGF (Generic Game Format) output: one game per line, as GGS and Othello tools read it.
//!
//! `(;GM[Othello]PC[…]DT[…]PB[…]PW[…]RE[…]TI[…]TY[8]BO[8 <64 squares> <side>]B[f5/eval/time]W[…]…;)`
//! Squares in `BO` use `*` for Black, `O` for White, `-` for empty; passes are `PA`. The result
//! `RE` is Black's disc difference with a flag for forfeits (`:t` time, `:r` any other forfeit,
//! treated as a resignation; `:s`, a score agreed without playing out, for a game adjudicated
//! by exact solve). Engine moves carry the engine's score and the time in seconds; the
//! adjudication's moves carry the exact value and no time.

use crate::record::{GameRecord, Termination};
use othello_board::Position;
use std::fmt::Write;

/// GGF text of a record (no trailing newline).
pub fn write_game(r: &GameRecord) -> String {
    let mut s = String::with_capacity(512);
    s.push_str("(;GM[Othello]PC[othello-harness]");
    let _ = write!(s, "PB[{}]PW[{}]", escape(&r.black), escape(&r.white));
    let flag = match r.termination {
        Termination::Normal => "",
        Termination::Adjudicated => ":s",
        Termination::TimeForfeit => ":t",
        _ => ":r",
    };
    let _ = write!(s, "RE[{:+}.000{flag}]TY[8]", r.score);
    let start: Position = r.start_position().unwrap_or(Position::START);
    let _ = write!(s, "BO[{}]", othello_board::ggf_board(&start));
    let mut color = start.side_to_move;
    for m in &r.moves {
        let tag = if color == othello_board::Color::Black {
            'B'
        } else {
            'W'
        };
        let _ = write!(s, "{tag}[{}", m.mv.to_uppercase());
        if m.score.is_some() || m.time_ms.is_some() {
            let eval = m.score.map(|e| format!("{e:.2}")).unwrap_or_default();
            let time = m
                .time_ms
                .map(|t| format!("{:.3}", t as f64 / 1000.0))
                .unwrap_or_default();
            let _ = write!(s, "/{eval}/{time}");
        }
        s.push(']');
        color = color.opposite();
    }
    s.push_str(";)");
    s
}

/// GGF values end at `]`; names from the tournament file must not break a record.
fn escape(text: &str) -> String {
    text.replace(['[', ']'], "_").replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{OpeningRef, PerColor, PlayedMove};

    #[test]
    fn writes_a_one_line_ggf_game() {
        let moves = vec![
            PlayedMove {
                mv: "f5".into(),
                book: true,
                score: None,
                depth: None,
                nodes: None,
                time_ms: None,
            },
            PlayedMove {
                mv: "d6".into(),
                book: false,
                score: Some(-1.5),
                depth: Some(3),
                nodes: Some(10),
                time_ms: Some(20),
            },
            PlayedMove {
                mv: "PA".into(),
                book: false,
                score: None,
                depth: None,
                nodes: None,
                time_ms: None,
            },
        ];
        let r = GameRecord {
            opening: OpeningRef {
                index: 0,
                line: 1,
                text: "f5".into(),
            },
            moves,
            discs: PerColor {
                black: 40,
                white: 24,
            },
            ..GameRecord::skeleton(0, "a[1]", "b", 16)
        };
        let g = write_game(&r);
        assert!(g.starts_with("(;GM[Othello]"));
        assert!(g.ends_with(";)"));
        assert!(g.contains("PB[a_1_]PW[b]RE[+16.000]"));
        assert!(
            g.contains("BO[8 ---------------------------O*------*O--------------------------- *]")
        );
        assert!(g.contains("B[F5]W[D6/-1.50/0.020]B[PA]"));
        assert!(!g.contains('\n'));
    }
}
