//! Greedy: the benchmark opponent of survey papers on Othello playing programs.
//!
//! Rule: take a corner if one is legal, otherwise play the move that flips the most discs.
//! When several corners are legal the one flipping the most discs is taken. There is no
//! search beyond the move itself (depth 1).
//!
//! Ties (several moves flipping the same, largest number of discs) are broken by the lowest
//! square index (a1 = 0 … h8 = 63) by default, which makes the engine fully deterministic.
//!
//! Options:
//! - `Random` (bool, default `false`): break ties at random instead, with a SplitMix64
//!   generator written in this crate.
//! - `Seed` (int, default 0, 0..=2^31-1): the generator's seed. The generator is reseeded from
//!   `Seed` by `new_game` (and when `Seed` is set) and advanced once per search, so a game
//!   replays identically with the same seed.
//!
//! Reported info: depth 1, nodes = legal moves examined, score = disc difference after the
//! chosen move from the side to move's view, PV = the move.
#![forbid(unsafe_code)]

use othello_sdk::board::playout::SplitMix64;
use othello_sdk::board::{Board, Move, Square};
use othello_sdk::{
    Engine, Metadata, OptionSpec, OptionValue, SearchContext, SearchInfo, SearchOutcome,
    SearchRequest,
};

/// a1, h1, a8, h8.
const CORNERS: u64 = 0x8100_0000_0000_0081;

/// The greedy engine.
#[derive(Clone, Debug)]
pub struct Greedy {
    random: bool,
    seed: u64,
    rng: SplitMix64,
}

/// The move the greedy rule picks in `board` (side to move = `board.player`), and the number
/// of discs it flips; `None` when there is no legal move. `draw` chooses among the tied
/// squares: it gets their count `n >= 1` and returns an index `< n` (lowest square first).
pub fn greedy_choice(board: &Board, draw: impl FnOnce(u32) -> u32) -> Option<(Square, u32)> {
    let moves = board.moves();
    if moves == 0 {
        return None;
    }
    // Corners first: if any corner is legal, only corners are candidates.
    let corners = moves & CORNERS;
    let mut candidates = if corners != 0 { corners } else { moves };

    // One pass over the candidates: keep the mask of squares with the best flip count so far.
    let mut best_count = 0;
    let mut best = 0u64;
    while candidates != 0 {
        let sq = candidates.trailing_zeros();
        candidates &= candidates - 1;
        let n = board.flips(sq).count_ones();
        if n > best_count {
            best_count = n;
            best = 0;
        }
        if n == best_count {
            best |= 1u64 << sq;
        }
    }

    // Pick the k-th tied square, lowest index first.
    let k = draw(best.count_ones()).min(best.count_ones() - 1);
    for _ in 0..k {
        best &= best - 1;
    }
    Some((Square::new(best.trailing_zeros())?, best_count))
}

impl Greedy {
    fn reseed(&mut self) {
        self.rng = SplitMix64(self.seed);
    }
}

impl Engine for Greedy {
    fn metadata() -> Metadata {
        Metadata {
            name: "Greedy",
            version: env!("CARGO_PKG_VERSION"),
            author: "othello-tournament baselines",
        }
    }

    fn options() -> Vec<OptionSpec> {
        vec![
            OptionSpec::bool(
                "Random",
                false,
                "break ties at random (seeded by Seed) instead of lowest square first",
            ),
            OptionSpec::int(
                "Seed",
                0,
                0,
                i32::MAX as i64,
                "seed of the tie-breaking generator, reapplied at each new game",
            ),
        ]
    }

    fn new() -> Self {
        Greedy {
            random: false,
            seed: 0,
            rng: SplitMix64(0),
        }
    }

    fn set_option(&mut self, name: &str, value: &OptionValue) -> Result<(), String> {
        match (name, value) {
            ("Random", OptionValue::Bool(b)) => self.random = *b,
            ("Seed", OptionValue::Int(s)) => {
                self.seed = *s as u64;
                self.reseed();
            }
            _ => return Err(format!("option {name}: unexpected value {value:?}")),
        }
        Ok(())
    }

    fn new_game(&mut self) {
        self.reseed();
    }

    fn search(&mut self, request: &SearchRequest, ctx: &SearchContext) -> SearchOutcome {
        let board = request.position.board;
        // Advance the generator once per search (when in use) so the sequence of draws depends
        // only on the seed and the number of moves played since the last new game.
        let r = if self.random { self.rng.next_u64() } else { 0 };
        let choice = greedy_choice(&board, |n| (r % n as u64) as u32);
        let (mv, score) = match choice {
            // After the move: own discs + flips + 1, opponent discs - flips.
            Some((sq, flips)) => (Move::at(sq), board.disc_difference() + 2 * flips as i32 + 1),
            None => (Move::PASS, board.disc_difference()),
        };
        let info = SearchInfo {
            depth: 1,
            selectivity: 100,
            score: score as f64,
            nodes: board.moves().count_ones() as u64,
            pv: vec![mv],
        };
        ctx.report(&info);
        SearchOutcome { mv, info }
    }
}

othello_sdk::export_engine!(Greedy);

#[cfg(test)]
mod tests {
    use super::*;
    use othello_sdk::board::playout::random_positions;
    use othello_sdk::board::{Color, Position};
    use othello_sdk::Limits;
    use std::sync::atomic::AtomicU32;

    fn run(engine: &mut Greedy, position: Position) -> SearchOutcome {
        let stop = AtomicU32::new(0);
        let ctx = SearchContext::detached(&stop);
        let request = SearchRequest {
            position,
            limits: Limits::default(),
            game: None,
        };
        engine.search(&request, &ctx)
    }

    fn sq(name: &str) -> Move {
        name.parse().unwrap()
    }

    #[test]
    fn takes_a_corner_when_one_is_legal() {
        // Black (X) to move. a1 flips only b2 (diagonal to c3); c4 flips d4 e4 f4 (row to g4).
        let text = concat!(
            "--------", // row 1
            "-O------", // row 2: b2 White
            "--X-----", // row 3: c3 Black
            "---OOOX-", // row 4: d4 e4 f4 White, g4 Black
            "--------", "--------", "--------", "--------", " X"
        );
        let p: Position = text.parse().unwrap();
        assert_eq!(p.board.flips(sq("a1").wire()).count_ones(), 1);
        assert_eq!(p.board.flips(sq("c4").wire()).count_ones(), 3);
        let out = run(&mut Greedy::new(), p);
        assert_eq!(out.mv, sq("a1"));
        // Black 2 - White 4 before; after a1: Black 4 - White 3.
        assert_eq!(out.info.score, 1.0);
        let after = p.play(out.mv).unwrap();
        assert_eq!(out.info.score, -after.board.disc_difference() as f64);
        assert_eq!(out.info.depth, 1);
        assert_eq!(out.info.pv, vec![out.mv]);
    }

    #[test]
    fn plays_the_most_flipping_move_otherwise() {
        // Black (X) to move, no corner legal. c4 flips d4 e4 f4 (3); e5 flips d4 only.
        let text = concat!(
            "--------", // row 1
            "--------", // row 2
            "--X-----", // row 3: c3 Black
            "---OOOX-", // row 4: d4 e4 f4 White, g4 Black
            "---O----", // row 5: d5 White
            "--------", "--------", "--------", " X"
        );
        let p: Position = text.parse().unwrap();
        let out = run(&mut Greedy::new(), p);
        assert_eq!(out.mv, sq("c4"));
        // Black 2 - White 4 before; after c4: Black 6 - White 1.
        assert_eq!(out.info.score, 5.0);
        // Cross-check against a brute-force maximum over the legal moves.
        let best = Square::iter(p.legal_moves())
            .map(|s| p.board.flips(s.index()).count_ones())
            .max()
            .unwrap();
        assert_eq!(best, 3);
    }

    #[test]
    fn ties_go_to_the_lowest_square_by_default() {
        // Start position: four moves, each flipping one disc; d3 (19) is the lowest.
        let out = run(&mut Greedy::new(), Position::START);
        assert_eq!(out.mv, sq("d3"));
    }

    #[test]
    fn random_ties_are_reproducible_per_seed_and_game() {
        let mut a = Greedy::new();
        a.set_option("Random", &OptionValue::Bool(true)).unwrap();
        a.set_option("Seed", &OptionValue::Int(42)).unwrap();
        let positions = random_positions(40, 7);
        let play = |e: &mut Greedy| {
            e.new_game();
            positions.iter().map(|p| run(e, *p).mv).collect::<Vec<_>>()
        };
        let first = play(&mut a);
        let second = play(&mut a);
        assert_eq!(first, second, "new_game reseeds");
        // Different seeds differ somewhere on the start position (4 tied moves).
        let mut seen = std::collections::HashSet::new();
        for seed in 0..16 {
            a.set_option("Seed", &OptionValue::Int(seed)).unwrap();
            a.new_game();
            seen.insert(run(&mut a, Position::START).mv);
        }
        assert!(seen.len() > 1, "random tie-breaking never varied: {seen:?}");
        // Random choices are still greedy: same flip count as the deterministic choice.
        let mut d = Greedy::new();
        for p in &positions {
            let (r, g) = (run(&mut a, *p), run(&mut d, *p));
            assert_eq!(r.info.score, g.info.score, "{p}");
        }
    }

    #[test]
    fn legal_moves_on_random_positions_and_pass_when_forced() {
        let mut e = Greedy::new();
        e.set_option("Random", &OptionValue::Bool(true)).unwrap();
        for p in random_positions(500, 1) {
            let out = run(&mut e, p);
            assert!(p.is_legal(out.mv), "{} illegal in {p}", out.mv);
            assert_eq!(out.mv.is_pass(), p.legal_moves() == 0);
        }
        // White to move with no legal move, Black can move: must pass.
        let p: Position = format!("XO{} O", "-".repeat(62)).parse().unwrap();
        assert!(p.must_pass());
        let out = run(&mut Greedy::new(), p);
        assert_eq!(out.mv, Move::PASS);
        assert_eq!(p.side_to_move, Color::White);
    }
}
