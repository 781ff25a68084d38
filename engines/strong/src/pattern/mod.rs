//! The trained pattern evaluation (the default evaluation of the plugin).
//!
//! - [`shape`]: pattern shapes, their 8-fold symmetric instances, and the orbits of
//!   configurations that share a weight;
//! - [`model`]: features (shape instances), phases, the mobility feature, and the per-square
//!   deltas that update feature indices move by move;
//! - [`weights`]: the versioned, checksummed weight file, expanded into per-phase tables;
//! - [`eval`]: [`PatternEval`], the incremental [`crate::eval::Evaluator`].
//!
//! The weights are produced by the `train` binary (`src/bin/train/`, see the crate README)
//! and embedded from `data/eval.weights`; [`embedded`] checks them once per process. A
//! damaged embedded file makes every search of the plugin fail with the reason (an
//! `EvalFile` is checked when the option is set), never a silent fall-back to another
//! evaluation.

pub mod eval;
pub mod model;
pub mod shape;
pub mod weights;

pub use eval::PatternEval;
pub use weights::{WeightError, Weights};

use std::sync::{Arc, OnceLock};

/// The weight file built into the plugin.
pub static EMBEDDED_WEIGHTS: &[u8] = include_bytes!("../../data/eval.weights");

/// The embedded weights, parsed and checked on first use.
pub fn embedded() -> Result<Arc<Weights>, WeightError> {
    static CELL: OnceLock<Result<Arc<Weights>, WeightError>> = OnceLock::new();
    CELL.get_or_init(|| Weights::parse(EMBEDDED_WEIGHTS).map(Arc::new))
        .clone()
}
