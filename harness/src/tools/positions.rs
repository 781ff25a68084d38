//! The positions `harness bench` searches and `harness check` plays from, and the rule that
//! chose them.
//!
//! The bench set ([`BENCH`]) is written out, so that no change elsewhere (an opening file, the
//! board crate) can change a signature: 16 positions, the first 4 openings of the built-in
//! `xot-large` set (8 moves, 52 empties) each followed by 0, 12, 24 and 36 moves of
//! [`playout_move`] (and a forced pass, when one follows), so that the opening, the midgame,
//! the late midgame and the endgame (52, 40, 28 and 16 empties) weigh alike. A test derives
//! them again from that rule.

use harness_core::plan::openings;
use othello_board::{GameHistory, Move, Position, Square};

/// The bench positions (`<64 squares> <side to move>`, X = Black): see the module docs.
pub const BENCH: [&str; 16] = [
    "----------X------O-X-----OXXX----O-OXX-----O-------------------- X",
    "-X-X----XXXXO----X-X-----OXOOOO--O-XOOO----X-OO----X------------ X",
    "-X-X-X--XXXXXXX--X-XOX--XXXOOOO--X-XOOO-X--OOOO----OO------O---- X",
    "OOOX-X--XXXOXXX--X-XOX-XXXXXXOOOOOOOOOO-XXXOXXO----XXXX---XXX--- X",
    "------------O-------XOX----OXOO----XXO--------O----------------- X",
    "----OOX---OOOOO---OOXOOO---XOOO----XOO-X----O-O----------------- X",
    "--XXXXXX--OXXXOX--OOXXXX--OOOXXX---OOXXX----OOO-------O--------- X",
    "OXXXXXXXOXXXXXXXOXXXXXXXO-XXXXXX--XXXXXX----OOOO------OX-------- X",
    "-------------------XO------XO----XXXOX-----O-O----O------------- X",
    "---------OX------XXXXX----XOXO---XXXOO----OOOO----OOO------O---- X",
    "X--------XX------XXXXX----XOXXX--XXXXX----XXXOXO--OOOOOO--OOOOXO X",
    "X--------XX------XXXXX----XXXXX-OXXXXX-OOOOOOOOOOOOOOOOOOOOOOOOO O",
    "-------------------XO----OOOO-----XXOX----X--O------------------ X",
    "-----------O-------OOX---OXOXO--OOXOOX---XXOXXX---OOO----------- X",
    "--XXX---O-XXX---XOXXXX---OOOXO--OOOOOX--XOOOOXX-OOOOO----------- X",
    "XXXXXXX-XOXXXXX-XOXOOXX-XOOOXX--XOOXXX--XOXOOOOOXOOOO---XO------ X",
];

/// Openings of `xot-large` the bench set starts from, and the playout lengths after each.
pub const BENCH_OPENINGS: usize = 4;
pub const BENCH_PLAYOUTS: [usize; 4] = [0, 12, 24, 36];

/// The bench positions, parsed.
pub fn bench_positions() -> Vec<Position> {
    BENCH
        .iter()
        .map(|text| text.parse().expect("the bench positions are valid"))
        .collect()
}

/// The move of the deterministic playout: the legal move that leaves the opponent the fewest
/// moves (ties to the lowest square), or the pass when there is none.
pub fn playout_move(p: &Position) -> Move {
    let mut best: Option<(u32, Move)> = None;
    for sq in Square::iter(p.legal_moves()) {
        let mv = Move::at(sq);
        let replies = p.play(mv).map_or(0, |q| q.legal_moves().count_ones());
        if best.is_none_or(|(r, _)| replies < r) {
            best = Some((replies, mv));
        }
    }
    best.map_or(Move::PASS, |(_, mv)| mv)
}

/// The game from the first `opening` openings of `set` played on with [`playout_move`] until
/// the end: the openings' moves, then every playout move, passes included.
pub fn playout_games(set: &str, count: usize) -> Vec<GameHistory> {
    let openings = openings::builtin(set).expect("a built-in opening set");
    openings
        .openings
        .iter()
        .take(count)
        .map(|o| {
            let mut game = GameHistory {
                start: o.start,
                moves: o.moves.clone(),
            };
            let mut p = o.position();
            while !p.is_game_over() {
                let mv = playout_move(&p);
                p = p.play(mv).expect("the playout plays legal moves");
                game.moves.push(mv);
            }
            game
        })
        .collect()
}

/// The positions of `game` after its first `n` moves, for each `n` in `plies`.
pub fn prefix(game: &GameHistory, n: usize) -> GameHistory {
    GameHistory {
        start: game.start,
        moves: game.moves[..n.min(game.moves.len())].to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The written-out set is the rule's: the first openings of xot-large, played on.
    #[test]
    fn the_bench_set_follows_its_rule() {
        let opening_moves = openings::builtin("xot-large").unwrap().openings[0]
            .moves
            .len();
        let mut derived = Vec::new();
        for game in playout_games("xot-large", BENCH_OPENINGS) {
            for n in BENCH_PLAYOUTS {
                let mut p = prefix(&game, opening_moves + n).position().unwrap();
                if p.must_pass() {
                    p = p.play(Move::PASS).unwrap();
                }
                derived.push(p.to_string());
            }
        }
        let written: Vec<String> = BENCH.iter().map(|p| p.to_string()).collect();
        assert_eq!(written, derived, "derived:\n{}", derived.join("\n"));
        let empties: Vec<u32> = bench_positions().iter().map(|p| p.empties()).collect();
        assert!(empties.iter().all(|e| (12..=52).contains(e)), "{empties:?}");
        assert!(bench_positions()
            .iter()
            .all(|p| !p.is_game_over() && !p.must_pass()));
    }
}
