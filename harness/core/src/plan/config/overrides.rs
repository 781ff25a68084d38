//! The command line's values that replace the file's (`run --concurrency/--pairs/--time/
//! --openings-seed/--sandbox`), checked by the same [`super::rules`] as the file's.

use super::{rules, OpeningOrder, Tournament};

pub use crate::record::tournament_record::Overrides;

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
