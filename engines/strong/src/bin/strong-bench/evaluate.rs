//! `evaluate TRANSCRIPT`: the interim evaluation and `--eval`'s of the position after the
//! moves.

use crate::evaluator;

/// `evaluate TRANSCRIPT`: the interim evaluation and `eval` of the position after the moves.
pub fn evaluate(transcript: &str, eval: &str) {
    use othello_sdk::board::{parse_transcript, replay, Position};
    let (_, p) = parse_transcript(transcript)
        .map_err(|e| e.to_string())
        .and_then(|moves| replay(Position::START, &moves).map_err(|e| e.to_string()))
        .unwrap_or_else(|e| {
            eprintln!("strong-bench: transcript `{transcript}`: {e}");
            std::process::exit(2)
        });
    for name in ["simple", eval] {
        let v = evaluator(name)().evaluate(&p.board);
        println!(
            "{name:<8} {:+.2} discs ({} to move)",
            v as f64 / 100.0,
            p.side_to_move
        );
    }
}
