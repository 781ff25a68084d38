//! Move lists, shared by the midgame search and the endgame solver: the entry type, the lazy
//! selection that walks a list best first, and the number of empties from which the solver
//! orders moves by the evaluation.
//!
//! Invariant: an entry is a [`MoveEntry`] whose `flips` are the discs the move at `sq` flips
//! in the node's position; a higher key is tried earlier, and a list is sorted only as
//! far as the search walks it ([`pick_best`]), so a cutoff saves sorting the rest.

/// A move list entry: the square, the discs it flips, and its ordering key (higher first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveEntry {
    pub sq: u32,
    pub flips: u64,
    pub key: i32,
}

/// From this many empties on, endgame move ordering adds the evaluation of each child, with
/// the trained evaluation; nearer the end the evaluation costs as much time as it saves, and
/// the hand-written evaluation, which orders worse, turns it off
/// ([`crate::eval::Evaluator::order_eval_empties`]) (figures: `docs/measurements.md`, "Figures behind the constants").
pub const ORDER_EVAL_EMPTIES: u32 = 14;

/// Selection sort step: bring the highest key of `list[i..]` to `i` (lazily, so a cutoff on an
/// early move saves sorting the rest).
#[inline(always)]
pub fn pick_best(list: &mut [MoveEntry], i: usize) {
    let mut k = i;
    for j in i + 1..list.len() {
        if list[j].key > list[k].key {
            k = j;
        }
    }
    list.swap(i, k);
}
