//! Score units and bounds, shared by the evaluations and the searches.
//!
//! Scores are from the side to move's view, in one of two units. Midgame scores (evaluations
//! and midgame search results) are fixed-point: [`SCALE`] units per disc of final disc
//! difference; exact endgame scores are discs. Invariant: every evaluation lies within
//! `±EVAL_MAX`, strictly inside `±64 * SCALE`, so an exact score times `SCALE` always
//! outranks an evaluation; [`MID_INF`] is above every midgame score (and fits the table's
//! `i16` bounds) and [`END_INF`] above every exact score. [`to_discs`] converts for reporting.

/// Evaluation units per disc.
pub const SCALE: i32 = 100;
/// Largest evaluation magnitude (below a 64-disc win).
pub const EVAL_MAX: i32 = 64 * SCALE - 1;

/// Above every midgame score (and within an i16 for the table).
pub const MID_INF: i32 = 30_000;
/// Above every final score.
pub const END_INF: i32 = 100;

// The invariant of the module docs, checked at compile time.
const _: () = assert!(EVAL_MAX < 64 * SCALE && 64 * SCALE < MID_INF && MID_INF <= i16::MAX as i32);
const _: () = assert!(64 < END_INF);

/// Discs from evaluation units.
pub fn to_discs(score: i32) -> f64 {
    score as f64 / SCALE as f64
}
