//! The pattern evaluation with incrementally updated feature indices.
//!
//! [`PatternEval`] keeps the feature indices of one position (`at`) from both sides' views.
//! The search announces every move it descends into (`on_play`) and every return
//! (`on_undo`): a move updates both index vectors with one lane-wise add per changed square
//! (see [`super::model`]), an undo pops the saved vectors. An evaluation of `at` is then one
//! table read per feature plus the mobility entry. Positions the search evaluates without
//! announcing them (move ordering, probes from the endgame solver) are recognised by
//! comparing boards and computed from scratch, or from `at` when they are one of its
//! children ([`Evaluator::evaluate_after`]); so the evaluator is always right, and fast where
//! the search is hot.

use super::model::{Lanes, Model, LANES, MOBILITY_SIDE};
use super::weights::Weights;
use crate::eval::Evaluator;
use crate::score::EVAL_MAX;
use othello_sdk::board::Board;
use std::sync::Arc;

/// The incremental pattern evaluator of one search thread.
#[derive(Clone)]
pub struct PatternEval {
    weights: Arc<Weights>,
    /// The position whose indices are held.
    at: Board,
    /// Indices of `at` from the side to move's view and from the other side's.
    lanes: (Lanes, Lanes),
    /// Saved state of every position on the current search path.
    stack: Vec<(Board, Lanes, Lanes)>,
}

impl PatternEval {
    pub fn new(weights: Arc<Weights>) -> PatternEval {
        let at = Board::START;
        let lanes = weights.model.lanes(&at);
        PatternEval {
            weights,
            at,
            lanes,
            stack: Vec::with_capacity(64),
        }
    }

    /// Score of a position given its side-to-move lanes.
    #[inline]
    fn score(&self, b: &Board, mine: &Lanes) -> i32 {
        let m: &Model = &self.weights.model;
        let table = &self.weights.tables[m.phase(b)];
        let mut s = 0i32;
        for (&offset, &i) in m.feature_offset.iter().zip(mine.iter()) {
            s += table[offset as usize + i as usize] as i32;
        }
        s += table[m.table_len - MOBILITY_SIDE * MOBILITY_SIDE + Model::mobility_index(b)] as i32;
        s.clamp(-EVAL_MAX, EVAL_MAX)
    }

    /// Hold `b`'s indices.
    fn sync(&mut self, b: &Board) {
        if self.at != *b {
            self.at = *b;
            self.lanes = self.weights.model.lanes(b);
        }
    }
}

/// The side-to-move lanes of the child reached by playing `sq` flipping `flips`, from the
/// parent's lanes from the other side's view (the child's side to move).
#[inline]
fn child_mine(delta: &[Lanes; 64], theirs: &Lanes, sq: u32, mut flips: u64) -> Lanes {
    let mut v = *theirs;
    let d = &delta[sq as usize];
    for l in 0..LANES {
        v[l] = v[l].wrapping_add(2 * d[l]);
    }
    while flips != 0 {
        let d = &delta[flips.trailing_zeros() as usize];
        flips &= flips - 1;
        for l in 0..LANES {
            v[l] = v[l].wrapping_add(d[l]);
        }
    }
    v
}

/// The other-side lanes of that child, from the parent's side-to-move lanes.
#[inline]
fn child_theirs(delta: &[Lanes; 64], mine: &Lanes, sq: u32, mut flips: u64) -> Lanes {
    let mut v = *mine;
    let d = &delta[sq as usize];
    for l in 0..LANES {
        v[l] = v[l].wrapping_add(d[l]);
    }
    while flips != 0 {
        let d = &delta[flips.trailing_zeros() as usize];
        flips &= flips - 1;
        for l in 0..LANES {
            v[l] = v[l].wrapping_sub(d[l]);
        }
    }
    v
}

impl Evaluator for PatternEval {
    #[inline]
    fn evaluate(&mut self, b: &Board) -> i32 {
        if *b == self.at {
            self.score(b, &self.lanes.0)
        } else {
            let (mine, _) = self.weights.model.lanes(b);
            self.score(b, &mine)
        }
    }

    #[inline]
    fn evaluate_after(&mut self, parent: &Board, sq: u32, flips: u64, child: &Board) -> i32 {
        if *parent == self.at && sq < 64 {
            let mine = child_mine(&self.weights.model.delta, &self.lanes.1, sq, flips);
            self.score(child, &mine)
        } else {
            self.evaluate(child)
        }
    }

    fn on_play(&mut self, b: &Board, sq: u32, flips: u64) {
        self.stack.push((self.at, self.lanes.0, self.lanes.1));
        self.sync(b);
        let (mine, theirs) = (self.lanes.0, self.lanes.1);
        if sq == 64 {
            self.lanes = (theirs, mine);
            self.at = b.pass();
        } else {
            let delta = &self.weights.model.delta;
            self.lanes = (
                child_mine(delta, &theirs, sq, flips),
                child_theirs(delta, &mine, sq, flips),
            );
            self.at = b.play_with_flips(sq, flips);
        }
    }

    fn on_undo(&mut self, _b: &Board, _sq: u32, _flips: u64) {
        if let Some((at, mine, theirs)) = self.stack.pop() {
            self.at = at;
            self.lanes = (mine, theirs);
        }
    }

    fn boxed_clone(&self) -> Box<dyn Evaluator> {
        Box::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pattern::model::DEFAULT_SHAPES;
    use crate::pattern::weights::write;
    use othello_sdk::board::playout::SplitMix64;
    use othello_sdk::board::{playout, Symmetry};

    /// A model with pseudo-random weights (symmetric by construction: one per orbit).
    fn random_weights(seed: u64) -> Arc<Weights> {
        let model = Model::new(DEFAULT_SHAPES, 6).unwrap();
        let mut rng = SplitMix64(seed);
        let compact: Vec<Vec<i16>> = (0..model.phases)
            .map(|_| {
                (0..model.compact_len)
                    .map(|_| rng.below(201) as i16 - 100)
                    .collect()
            })
            .collect();
        Arc::new(Weights::parse(&write(&model, &compact)).unwrap())
    }

    fn scratch(w: &Arc<Weights>, b: &Board) -> i32 {
        PatternEval::new(w.clone()).evaluate(b)
    }

    #[test]
    fn incremental_play_and_undo_match_scratch() {
        let w = random_weights(1);
        let mut rng = SplitMix64(99);
        for _ in 0..20 {
            let mut e = PatternEval::new(w.clone());
            let mut path: Vec<(Board, u32, u64)> = Vec::new();
            let mut b = Board::START;
            loop {
                let moves = b.moves();
                if moves == 0 && b.pass().moves() == 0 {
                    break;
                }
                assert_eq!(e.at, b, "the incremental state follows the game");
                assert_eq!(e.evaluate(&b), scratch(&w, &b));
                let (sq, f) = if moves == 0 {
                    (64, 0)
                } else {
                    let k = rng.below(moves.count_ones() as u64) as usize;
                    let sq = othello_sdk::board::Square::iter(moves)
                        .nth(k)
                        .unwrap()
                        .index();
                    (sq, b.flips(sq))
                };
                if sq != 64 {
                    let child = b.play_with_flips(sq, f);
                    assert_eq!(e.evaluate_after(&b, sq, f, &child), scratch(&w, &child));
                }
                e.on_play(&b, sq, f);
                path.push((b, sq, f));
                b = if sq == 64 {
                    b.pass()
                } else {
                    b.play_with_flips(sq, f)
                };
            }
            // Unwind half way and check the state came back.
            for _ in 0..path.len() / 2 {
                let (pb, sq, f) = path.pop().unwrap();
                e.on_undo(&pb, sq, f);
                assert_eq!(e.at, pb);
                if pb.moves() != 0 || pb.pass().moves() != 0 {
                    assert_eq!(e.evaluate(&pb), scratch(&w, &pb));
                }
            }
        }
    }

    #[test]
    fn symmetric_positions_score_alike() {
        let w = random_weights(2);
        for p in playout::random_positions(100, 5) {
            let v = scratch(&w, &p.board);
            for s in Symmetry::ALL {
                assert_eq!(scratch(&w, &s.apply_board(p.board)), v, "{s:?}");
            }
        }
    }
}
