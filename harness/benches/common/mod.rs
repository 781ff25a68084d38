//! What the benchmarks share: a large tournament file and random legal games the size of real
//! records (engine-like move annotations: score, depth, nodes, time).

use harness_core::record::{GameRecord, OpeningRef, PerColor, PlayedMove, Termination};
use othello_board::playout::{random_move, SplitMix64};
use othello_board::Position;

/// A match of 100,000 pairs with a sequential test.
pub const TOURNAMENT: &str = r#"
[tournament]
format = "match"
pairs = 100000
concurrency = 2
out = "out"

[time]
base = 10.0
increment = 0.1

[openings]
builtin = "xot-small"

[sprt]
elo0 = 0
elo1 = 5

[[engine]]
name = "candidate"
plugin = "strong"

[[engine]]
name = "baseline"
plugin = "strong"
"#;

/// A random legal game from the start position as a record of game `game`.
pub fn record(game: usize, rng: &mut SplitMix64) -> GameRecord {
    let mut pos = Position::START;
    let mut moves = Vec::new();
    while !pos.is_game_over() {
        let mv = random_move(&pos, rng);
        let engine = !mv.is_pass() || pos.legal_moves() != 0;
        moves.push(PlayedMove {
            mv: mv.to_string(),
            book: moves.len() < 8,
            score: engine.then(|| (rng.below(6400) as f64 - 3200.0) / 100.0),
            depth: engine.then(|| 8 + rng.below(12) as i32),
            nodes: engine.then(|| rng.below(50_000_000)),
            time_ms: engine.then(|| rng.below(400)),
        });
        pos = pos.play(mv).expect("a legal move");
    }
    let score = pos.final_score_black();
    let (black, white) = pos.disc_counts();
    let (b, w) = if game.is_multiple_of(2) {
        ("candidate", "baseline")
    } else {
        ("baseline", "candidate")
    };
    GameRecord {
        game,
        pair: game / 2,
        black: b.into(),
        white: w.into(),
        opening: OpeningRef {
            index: game / 2 % 3623,
            line: game / 2 % 3623 + 1,
            text: moves[..8]
                .iter()
                .map(|m| m.mv.as_str())
                .collect::<Vec<_>>()
                .join(" "),
        },
        start: Position::START.to_string(),
        moves,
        discs: PerColor { black, white },
        score,
        result: GameRecord::result_text(score).into(),
        termination: Termination::Normal,
        forfeit_by: None,
        reason: String::new(),
        forfeit_position: None,
        time_loss: None,
        time_ms: PerColor {
            black: 9000,
            white: 9100,
        },
        time_us: PerColor::default(),
        adjudication: None,
        nodes: PerColor {
            black: 400_000_000,
            white: 410_000_000,
        },
        cpu_between_turns_us: None,
        searched: Default::default(),
    }
}
