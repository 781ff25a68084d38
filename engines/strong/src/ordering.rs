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
/// the trained evaluation. FFO #20-#39, 1 thread (`harness solve`): without it 173.8 M nodes,
/// 9.4-10.1 s; from 20 empties on 168.5 M, 8.7 s; 18: 163.5 M, 8.5 s; 16: 153.2 M, 8.5 s;
/// 14: 146.6 M, 8.0 s; 12: 140.7 M, 8.3 s (the evaluation costs more than it saves). The
/// hand-written evaluation turns it off ([`crate::eval::Evaluator::order_eval_empties`]):
/// with it from 18 empties on the run took 472.6 M nodes against 447.7 M. At 12-13 empties the
/// evaluation added to the fastest-first key (`- value * 96`) shrinks FFO #40-#49 by 4.4% and
/// #20-#39 by 7.2%, but costs as much time as it saves (nodes per second -4 to -7%; see
/// `docs/measurements.md`, eleventh session), so below 14 empties the key stays fastest first.
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
