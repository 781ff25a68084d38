//! The command line's values that replace the file's (`run --concurrency/--pairs/--time/
//! --openings-seed/--sandbox`), checked by the same [`super::rules`] as the file's.

use super::{rules, OpeningOrder, SandboxMode, Tournament};
use serde::{Deserialize, Serialize};

/// Values of the command line (`run --concurrency/--pairs/--time/--openings-seed`) that
/// replace the file's. They are kept in the definition, so `tournament.json` says what was
/// played; `pairs`, `time` and the seed are part of the tournament, so resuming with other
/// ones is refused like a changed file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Overrides {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairs: Option<u32>,
    /// As given: `10+0.1` (a clock: base + increment, seconds), `0.5/move`, `depth=6`,
    /// `nodes=100000`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings_seed: Option<u64>,
    /// `--sandbox MODE`: every engine's sandbox and the tournament's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxMode>,
}

impl Overrides {
    pub fn is_empty(&self) -> bool {
        *self == Overrides::default()
    }

    /// Replace the tournament's values with these, checked as the file's are; the definition
    /// keeps them.
    pub fn apply(self, t: &mut Tournament) -> Result<(), String> {
        if let Some(n) = self.concurrency {
            t.concurrency = rules::concurrency(n).map_err(|e| format!("--concurrency {n}: {e}"))?;
        }
        if let Some(pairs) = self.pairs {
            t.pairs = rules::pairs(pairs, t.pairings().len())
                .map_err(|e| format!("--pairs {pairs}: {e}"))?;
        }
        if let Some(spec) = &self.time {
            t.time.control = rules::parse_time_spec(spec)?;
        }
        if let Some(seed) = self.openings_seed {
            t.openings.order = OpeningOrder::Shuffled { seed };
        }
        if let Some(mode) = self.sandbox {
            t.sandbox = mode;
            for e in &mut t.engines {
                e.sandbox.mode = mode;
            }
        }
        t.definition.overrides = self;
        Ok(())
    }
}
