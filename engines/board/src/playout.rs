//! Random legal play: a small seeded generator and random positions for tests and tools.
//!
//! Not part of the rules, but every engine's tests need "many varied legal positions", and
//! they should all mean the same thing by it.

use crate::{Move, Position, Square};

/// SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit counter passed through a mixing
/// function. Tiny, seedable, and the same sequence on every platform and version.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        Self::mix(self.0)
    }

    /// The generator's mixing function on its own: a bijection of `u64` whose every output
    /// bit depends on every input bit, so it also serves as a hash whose low bits are even.
    /// Inlined across crates: the strong engine hashes every search node with it.
    #[inline]
    pub fn mix(mut z: u64) -> u64 {
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `n` (`n > 0`); the tiny modulo bias does not matter for test data.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// A uniformly random legal move (the pass when it is the only one). The game must not be over.
pub fn random_move(p: &Position, rng: &mut SplitMix64) -> Move {
    let moves = p.legal_moves();
    if moves == 0 {
        return Move::PASS;
    }
    let k = rng.below(moves.count_ones() as u64) as usize;
    Move::at(
        Square::iter(moves)
            .nth(k)
            .expect("k is below the move count"),
    )
}

/// Every unfinished position of one random game from the start.
pub fn random_game(rng: &mut SplitMix64) -> Vec<Position> {
    let mut p = Position::START;
    let mut out = Vec::with_capacity(64);
    while !p.is_game_over() {
        out.push(p);
        p = p.play(random_move(&p, rng)).expect("random_move is legal");
    }
    out
}

/// `n` unfinished positions from random games, one position of each game picked at random, so
/// all stages of the game are represented. Reproducible from `seed`.
pub fn random_positions(n: usize, seed: u64) -> Vec<Position> {
    let mut rng = SplitMix64(seed);
    (0..n)
        .map(|_| {
            let game = random_game(&mut rng);
            game[rng.below(game.len() as u64) as usize]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_positions_are_reproducible_legal_and_varied() {
        let a = random_positions(200, 7);
        assert_eq!(a, random_positions(200, 7));
        assert_ne!(a, random_positions(200, 8));
        assert!(a.iter().all(|p| !p.is_game_over()));
        let empties: std::collections::BTreeSet<u32> = a.iter().map(|p| p.empties()).collect();
        assert!(empties.len() > 30, "stages: {empties:?}");
    }
}
