//! [`EvalSource`]: the evaluation a search gets, as the plugin's `Eval`/`EvalFile` options and
//! the tools' `--eval` name it: the interim [`HandEval`] or trained pattern weights
//! ([`PatternEval`]).
//!
//! Invariant: a `Trained` source holds weights that loaded and passed their checks (the
//! embedded ones or a weight file); a file that does not is an error naming it, never a
//! fall-back to another evaluation.

use super::{Evaluator, HandEval};
use crate::pattern::{self, PatternEval};
use std::path::Path;
use std::sync::Arc;

/// An evaluation to give searches: the one the plugin's `Eval`/`EvalFile` options choose,
/// and what `--eval` names in the `train` and `strong-bench` tools.
#[derive(Clone)]
pub enum EvalSource {
    /// The interim hand-written evaluation ([`HandEval`]).
    Simple,
    /// Trained pattern weights ([`PatternEval`]).
    Trained(Arc<pattern::Weights>),
}

impl EvalSource {
    /// Trained weights from a weight file, or the embedded ones when `file` is empty. The
    /// error names the file (or says the embedded weights) and the reason.
    pub fn trained(file: &str) -> Result<EvalSource, String> {
        if file.is_empty() {
            pattern::embedded()
                .map(EvalSource::Trained)
                .map_err(|e| format!("embedded evaluation weights: {e}"))
        } else {
            pattern::Weights::load(Path::new(file))
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
        assert_eq!(w.checksum, crate::pattern::embedded().unwrap().checksum);
        let missing = "/nonexistent/eval.weights";
        let err = EvalSource::named(missing)
            .err()
            .expect("a missing file is an error");
        assert!(err.contains(missing), "{err}");
    }
}
