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

use crate::eval::{Evaluator, HandEval};
use std::path::Path;
use std::sync::{Arc, OnceLock};

/// The weight file built into the plugin.
pub static EMBEDDED_WEIGHTS: &[u8] = include_bytes!("../../data/eval.weights");

/// The embedded weights, parsed and checked on first use.
pub fn embedded() -> Result<Arc<Weights>, WeightError> {
    static CELL: OnceLock<Result<Arc<Weights>, WeightError>> = OnceLock::new();
    CELL.get_or_init(|| Weights::parse(EMBEDDED_WEIGHTS).map(Arc::new))
        .clone()
}

/// An evaluation to give searches: the one the plugin's `Eval`/`EvalFile` options choose,
/// and what `--eval` names in the `train` and `strong-bench` tools.
#[derive(Clone)]
pub enum EvalSource {
    /// The interim hand-written evaluation ([`HandEval`]).
    Simple,
    /// Trained pattern weights ([`PatternEval`]).
    Trained(Arc<Weights>),
}

impl EvalSource {
    /// Trained weights from a weight file, or the embedded ones when `file` is empty. The
    /// error names the file (or says the embedded weights) and the reason.
    pub fn trained(file: &str) -> Result<EvalSource, String> {
        if file.is_empty() {
            embedded()
                .map(EvalSource::Trained)
                .map_err(|e| format!("embedded evaluation weights: {e}"))
        } else {
            Weights::load(Path::new(file))
                .map(|w| EvalSource::Trained(Arc::new(w)))
                .map_err(|e| e.to_string())
        }
    }

    /// `simple`, `trained` (the embedded weights) or the path of a weight file.
    pub fn named(name: &str) -> Result<EvalSource, String> {
        match name {
            "simple" => Ok(EvalSource::Simple),
            "trained" => EvalSource::trained(""),
            file => EvalSource::trained(file),
        }
    }

    /// A fresh evaluator (one per search thread).
    pub fn evaluator(&self) -> Box<dyn Evaluator> {
        match self {
            EvalSource::Simple => Box::new(HandEval::default()),
            EvalSource::Trained(w) => Box::new(PatternEval::new(w.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eval_sources_by_name() {
        assert!(matches!(
            EvalSource::named("simple"),
            Ok(EvalSource::Simple)
        ));
        let Ok(EvalSource::Trained(w)) = EvalSource::named("trained") else {
            panic!("the embedded weights load");
        };
        assert_eq!(w.checksum, embedded().unwrap().checksum);
        let missing = "/nonexistent/eval.weights";
        let err = EvalSource::named(missing)
            .err()
            .expect("a missing file is an error");
        assert!(err.contains(missing), "{err}");
    }
}
