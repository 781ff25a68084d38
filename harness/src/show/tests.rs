//! Games for the views' tests: pairs of A against B on numbered openings, built as
//! `stats::openings`' tests build theirs (its reference values are asserted on them here).

use harness_core::record::GameOutcome;

/// Pairs as (opening, A's first game, A's second game): A has Black in the first and wins it
/// by that many discs (a loss when negative), and the second, with White, likewise.
pub(crate) fn games(pairs: &[(u64, i32, i32)]) -> Vec<GameOutcome> {
    let game = |pair: u64, opening: u64, black: &str, white: &str, d: i32| GameOutcome {
        pair,
        black: black.into(),
        white: white.into(),
        black_disc_diff: d,
        forfeit: false,
        opening: Some(opening),
    };
    (0..)
        .zip(pairs)
        .flat_map(|(i, &(opening, a, b))| {
            [
                game(i, opening, "A", "B", a),
                game(i, opening, "B", "A", -b),
            ]
        })
        .collect()
}

/// `stats::openings`' ten pairs on five openings, two per opening.
pub(crate) fn ten_pairs_on_five_openings() -> Vec<GameOutcome> {
    games(&[
        (0, 10, 4),
        (0, 6, 0),
        (1, 8, -8),
        (1, 0, 0),
        (2, -2, 0),
        (2, 12, 0),
        (3, 20, 2),
        (3, 4, 6),
        (4, -6, 10),
        (4, 0, -14),
    ])
}
