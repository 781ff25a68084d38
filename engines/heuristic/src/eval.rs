//! The 10-feature evaluation and the static move order.
//!
//! Every feature is "mine minus the opponent's" from the side to move's view, except parity
//! (a +1/0/-1 verdict for the side to move). The score is the dot product with [`WEIGHTS`];
//! one disc of difference is worth 100, so internal scores convert to discs by dividing by 100
//! (held to ±64 in what the engine reports).

use othello_sdk::board::Board;

/// a1, h1, a8, h8.
pub const CORNERS: u64 = 0x8100_0000_0000_0081;
/// The 8 C-squares, the edge squares next to a corner: b1 g1 a2 h2 a7 h7 b8 g8.
pub const C_SQUARES: u64 = 0x4281_0000_0000_8142;
/// The 4 X-squares, diagonal to a corner: b2 g2 b7 g7.
pub const X_SQUARES: u64 = 0x0042_0000_0000_4200;
/// The 24 edge squares other than the corners (C-squares included).
pub const EDGES: u64 = 0xFF81_8181_8181_81FF & !CORNERS;
/// The 16 centre squares c3..f6.
pub const CENTRE: u64 = 0x0000_3C3C_3C3C_0000;
/// Edge squares that are neither corners nor C-squares (a3-a6, h3-h6, c1-f1, c8-f8).
pub const PLAIN_EDGES: u64 = EDGES & !C_SQUARES;
/// The rest: b3-b6, g3-g6, c2-f2, c7-f7.
pub const REGULAR: u64 = !(CORNERS | EDGES | CENTRE | X_SQUARES);

/// Square classes in the order moves are tried, with the paper's static scores:
/// corners 1000 > edges 100 > centre 10 > regular 1 > C-squares -500 > X-squares -1000.
/// Within a class, lower square indices come first. The classes partition the board.
pub const MOVE_ORDER: [(u64, i32); 6] = [
    (CORNERS, 1000),
    (PLAIN_EDGES, 100),
    (CENTRE, 10),
    (REGULAR, 1),
    (C_SQUARES, -500),
    (X_SQUARES, -1000),
];

/// Feature indices into [`features`] and [`WEIGHTS`].
pub const CORNER: usize = 0;
pub const EDGE: usize = 1;
pub const STABILITY: usize = 2;
pub const X_SQUARE: usize = 3;
pub const C_SQUARE: usize = 4;
pub const FRONTIER: usize = 5;
pub const MOBILITY: usize = 6;
pub const POTENTIAL_MOBILITY: usize = 7;
pub const DISCS: usize = 8;
pub const PARITY: usize = 9;

/// The paper's weights, in feature order (the defaults of the weight options).
pub const WEIGHTS: [i32; 10] = [600, 70, 90, -50, -5, -10, 100, 6, 100, 18];

/// The option that sets each weight, in feature order (`harness tune` tunes them).
pub const WEIGHT_OPTIONS: [&str; 10] = [
    "Corners",
    "Edges",
    "Stability",
    "XSquares",
    "CSquares",
    "Frontier",
    "Mobility",
    "PotentialMobility",
    "Discs",
    "Parity",
];

/// The range of every weight option: with |weight| <= 1000 the evaluation stays far below
/// [`WIN_BONUS`] (each feature is at most 64 in size, ten features: under 640,000).
pub const WEIGHT_RANGE: (i64, i64) = (-1000, 1000);

/// Internal units per disc (the weight of the disc difference).
pub const UNITS_PER_DISC: i32 = 100;

/// Added (with the winner's sign) to a finished game's score: far above any evaluation
/// (|evaluation| < 25,000), so a won game beats every unfinished line and a lost one is worse.
pub const WIN_BONUS: i32 = 1_000_000;

/// Squares adjacent (8 directions) to any square of `x`; may include squares of `x` itself.
#[inline]
fn neighbours(x: u64) -> u64 {
    // Sideways shifts must not wrap between column a of one row and column h of another.
    let west = (x >> 1) & 0x7F7F_7F7F_7F7F_7F7F;
    let east = (x << 1) & 0xFEFE_FEFE_FEFE_FEFE;
    let row = x | west | east;
    west | east | (row << 8) | (row >> 8)
}

/// The simple stability estimate of the paper: a corner counts 3, another edge disc 1,
/// an interior disc 0.
#[inline]
fn stability(x: u64) -> i32 {
    3 * (x & CORNERS).count_ones() as i32 + (x & EDGES).count_ones() as i32
}

#[inline]
fn diff(mine: u64, theirs: u64, mask: u64) -> i32 {
    (mine & mask).count_ones() as i32 - (theirs & mask).count_ones() as i32
}

/// The 10 feature values of `b` for the side to move, whose legal moves are `moves`.
#[inline]
pub fn features(b: &Board, moves: u64) -> [i32; 10] {
    let (me, you) = (b.player, b.opponent);
    let empty = b.empty();
    let empty_nb = neighbours(empty);
    let discs = b.disc_difference();

    // Parity (the paper's rule): with an even number of moves left the player ahead in discs
    // has the advantage, with an odd number the player behind. `1 - 2 * (empties & 1)` is +1
    // for even and -1 for odd; times the sign of the disc difference gives the verdict for
    // the side to move (0 when discs are level).
    let parity = discs.signum() * (1 - 2 * (b.empties() & 1) as i32);

    [
        diff(me, you, CORNERS),
        diff(me, you, EDGES),
        stability(me) - stability(you),
        diff(me, you, X_SQUARES),
        diff(me, you, C_SQUARES),
        // Frontier discs: discs next to an empty square.
        diff(me, you, empty_nb),
        moves.count_ones() as i32 - b.pass().moves().count_ones() as i32,
        // Potential mobility: empties next to the opponent's discs (where I may one day play)
        // minus empties next to mine.
        (empty & neighbours(you)).count_ones() as i32
            - (empty & neighbours(me)).count_ones() as i32,
        discs,
        parity,
    ]
}

/// The static evaluation of an unfinished position with the default [`WEIGHTS`], side to
/// move's view.
#[inline]
pub fn evaluate(b: &Board, moves: u64) -> i32 {
    evaluate_with(b, moves, &WEIGHTS)
}

/// The static evaluation of an unfinished position with `weights` (in feature order), side to
/// move's view.
#[inline]
pub fn evaluate_with(b: &Board, moves: u64, weights: &[i32; 10]) -> i32 {
    let f = features(b, moves);
    weights.iter().zip(f).map(|(w, x)| w * x).sum()
}

/// The score of a finished game: the final disc difference (empties to the winner) in
/// internal units, plus or minus [`WIN_BONUS`].
#[inline]
pub fn terminal(b: &Board) -> i32 {
    let f = b.final_score();
    f * UNITS_PER_DISC + f.signum() * WIN_BONUS
}

/// An internal score in discs, as the ABI reports scores: finished-game scores lose their
/// bonus first, so a solved line reports its exact final disc difference. An evaluation is
/// the disc difference plus the other features' weights, which are not discs: it is held to
/// the ±64 a disc difference can reach (its order among moves is the search's business, not
/// the report's).
pub fn to_discs(score: i32) -> f64 {
    let s = if score.abs() >= WIN_BONUS / 2 {
        score - score.signum() * WIN_BONUS
    } else {
        score
    };
    (s as f64 / UNITS_PER_DISC as f64).clamp(-64.0, 64.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_sdk::board::Position;

    #[test]
    fn square_classes_partition_the_board() {
        let mut all = 0u64;
        for (mask, _) in MOVE_ORDER {
            assert_eq!(all & mask, 0, "classes overlap");
            all |= mask;
        }
        assert_eq!(all, u64::MAX);
        let counts: Vec<u32> = MOVE_ORDER.iter().map(|(m, _)| m.count_ones()).collect();
        assert_eq!(counts, [4, 16, 16, 16, 8, 4]);
        let sq = |s: &str| s.parse::<othello_sdk::board::Square>().unwrap().bit();
        for s in ["b1", "g1", "a2", "h2", "a7", "h7", "b8", "g8"] {
            assert_ne!(C_SQUARES & sq(s), 0, "{s}");
        }
        for s in ["b2", "g2", "b7", "g7"] {
            assert_ne!(X_SQUARES & sq(s), 0, "{s}");
        }
        assert_ne!(CENTRE & sq("c3"), 0);
        assert_ne!(CENTRE & sq("f6"), 0);
        assert_ne!(PLAIN_EDGES & sq("a3"), 0);
        assert_ne!(REGULAR & sq("b3"), 0);
    }

    #[test]
    fn features_of_a_hand_position() {
        // Black (X) to move.
        let text = concat!(
            "XO-----O", // row 1: a1 X (corner), b1 O (C), h1 O (corner)
            "-X----O-", // row 2: b2 X (X-square), g2 O (X-square)
            "--------", // row 3
            "---OX---", // row 4: d4 O, e4 X
            "---XO---", // row 5: d5 X, e5 O
            "--------", // row 6
            "X-------", // row 7: a7 X (C)
            "--------", // row 8
            " X"
        );
        let p: Position = text.parse().unwrap();
        let b = p.board;
        let f = features(&b, b.moves());
        assert_eq!(f[CORNER], 1 - 1);
        // Edge discs (corners excluded): X a7; O b1.
        assert_eq!(f[EDGE], 1 - 1);
        // Stability: X 3*1 + 1 = 4; O 3*1 + 1 = 4.
        assert_eq!(f[STABILITY], 0);
        assert_eq!(f[X_SQUARE], 1 - 1);
        assert_eq!(f[C_SQUARE], 1 - 1);
        // Discs: X a1 b2 e4 d5 a7 = 5; O b1 h1 g2 d4 e5 = 5.
        assert_eq!(f[DISCS], 0);
        assert_eq!(f[PARITY], 0);
        // Every disc here touches an empty square.
        assert_eq!(f[FRONTIER], 5 - 5);
        let mobility = b.moves().count_ones() as i32 - b.pass().moves().count_ones() as i32;
        assert_eq!(f[MOBILITY], mobility);

        // Remove White's h1 corner: White has 4 discs, 55 empties (odd): the side behind
        // (White) benefits, so parity is -1 for Black.
        let p2 = Position::from_colors(p.black(), p.white() & !(1 << 7), p.side_to_move).unwrap();
        let f2 = features(&p2.board, p2.board.moves());
        assert_eq!(f2[CORNER], 1);
        assert_eq!(f2[STABILITY], 4 - 1);
        assert_eq!(f2[DISCS], 1);
        assert_eq!(p2.board.empties(), 55);
        assert_eq!(f2[PARITY], -1);
    }

    #[test]
    fn start_position_is_symmetric_and_parity_follows_the_paper() {
        let b = Board::START;
        let f = features(&b, b.moves());
        assert_eq!(f, [0; 10]);
        assert_eq!(evaluate(&b, b.moves()), 0);
        // Potential mobility on a lone pair: X d4, O e4 (60 empties... 62 empties, even).
        let b = Board::new(1 << 27, 1 << 28);
        let f = features(&b, b.moves());
        // Empties around e4 = 7 (d4 is a disc); around d4 = 7.
        assert_eq!(f[POTENTIAL_MOBILITY], 0);
        assert_eq!(f[FRONTIER], 0);
        assert_eq!(f[PARITY], 0);
        // X ahead by one with 61 empties (odd): the side behind benefits -> -1 for X.
        let b = Board::new((1 << 27) | (1 << 26), 1 << 28);
        assert_eq!(features(&b, b.moves())[PARITY], -1);
        // ... and with 60 empties (even): the side ahead benefits -> +1.
        let b = Board::new((1 << 27) | (1 << 26) | (1 << 25), 1 << 28);
        assert_eq!(features(&b, b.moves())[PARITY], 1);
        let b = Board::new(1 << 28, (1 << 27) | (1 << 26) | (1 << 25));
        assert_eq!(features(&b, b.moves())[PARITY], -1);
    }

    #[test]
    fn potential_mobility_counts_empties_next_to_the_opponent() {
        // X on a1 (3 empty neighbours), O on d4 (8 empty neighbours).
        let b = Board::new(1, 1 << 27);
        let f = features(&b, b.moves());
        assert_eq!(f[POTENTIAL_MOBILITY], 8 - 3);
        assert_eq!(f[FRONTIER], 0);
        assert_eq!(f[CORNER], 1);
        assert_eq!(f[STABILITY], 3);
    }

    #[test]
    fn finished_games_dominate_and_convert_back_to_discs() {
        let won = Board::new(0b111, 0b1000); // 3-1, 60 empties: +62
        assert_eq!(terminal(&won), 62 * 100 + WIN_BONUS);
        assert_eq!(to_discs(terminal(&won)), 62.0);
        assert_eq!(to_discs(terminal(&won.pass())), -62.0);
        assert_eq!(to_discs(terminal(&Board::new(1, 2))), 0.0);
        assert_eq!(to_discs(-250), -2.5);
        // An evaluation past what discs can reach is reported at their end.
        assert_eq!(to_discs(12_074), 64.0);
        assert_eq!(to_discs(-9_000), -64.0);
        assert!(terminal(&Board::new(0b11, 0b100)) > 100_000);
    }
}
