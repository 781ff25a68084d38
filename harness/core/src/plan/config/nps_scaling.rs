//! NPS-scaled clocks: `[time] nps-reference = N` (the nodes per second of the engine named by
//! `nps-engine` on a reference machine, as `harness bench` prints them) makes every run scale
//! every clock and move time by reference / measured, where measured is what the engine's bench
//! gives on the run's own machine. A shard on a machine half as fast plays twice the time, so
//! the engines search about as many nodes everywhere (fishtest's and OpenBench's NPS scaling).
//!
//! The reference is part of the tournament (checked here, kept in `tournament.json` and
//! compared on resume and merge); the measured factor is not: each run measures its own
//! ([`ClockScale`], set by `harness run` before the first game), so shards on different machines
//! and a resumed run on another node stay one tournament. Depth and node limits, margins and
//! stall timeouts are not scaled: the margin covers the harness's own latency, not the engine's.

use super::error::ConfigError;
use super::raw::RawTime;
use super::validate::Validator;
use super::{rules, EngineConfig, TimeControl, TimeRules};
use std::time::Duration;
use toml::Spanned;

/// The most nodes per second a reference may claim (a thousand times today's fastest engines).
const MAX_REFERENCE_NPS: u64 = 1_000_000_000_000;

/// `[time] nps-reference` and `nps-engine`, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NpsReference {
    /// Nodes per second of `harness bench` of the engine on the reference machine.
    pub nodes_per_second: u64,
    /// The engine benched (an index into the tournament's engines).
    pub engine: usize,
}

pub use crate::record::tournament_record::{ClockScale, ShardScales};

impl ClockScale {
    /// The scale of a run that measured `measured_nps` (at least 1) for `engine`.
    pub fn new(engine: &str, reference_nps: u64, measured_nps: u64) -> ClockScale {
        let measured_nps = measured_nps.max(1);
        ClockScale {
            engine: engine.to_string(),
            reference_nps,
            measured_nps,
            factor: reference_nps as f64 / measured_nps as f64,
            shards: None,
        }
    }

    /// The scale of a merge of shards that each scaled their clocks: the mean of their
    /// factors (and of their measured speeds), with the spread; `None` when none was scaled.
    pub fn of_shards(scales: &[ClockScale]) -> Option<ClockScale> {
        let first = scales.first()?;
        let count = scales.len();
        let factors = scales.iter().map(|s| s.factor);
        let lowest = factors.clone().fold(f64::INFINITY, f64::min);
        let highest = factors.clone().fold(0.0, f64::max);
        Some(ClockScale {
            engine: first.engine.clone(),
            reference_nps: first.reference_nps,
            measured_nps: scales.iter().map(|s| s.measured_nps).sum::<u64>() / count as u64,
            factor: factors.sum::<f64>() / count as f64,
            shards: Some(ShardScales {
                lowest,
                highest,
                count,
            }),
        })
    }

    /// `rules` with the clock (base and increment) or the move time scaled; depth and node
    /// limits, the margin and the stall timeout as they are. At most [`rules::MAX_SECONDS`].
    pub fn scale(&self, rules: TimeRules) -> TimeRules {
        let scaled = |d: Duration| {
            Duration::from_secs_f64((d.as_secs_f64() * self.factor).min(rules::MAX_SECONDS))
        };
        let control = match rules.control {
            TimeControl::Clock { base, increment } => TimeControl::Clock {
                base: scaled(base),
                increment: scaled(increment),
            },
            TimeControl::MoveTime(t) => TimeControl::MoveTime(scaled(t)),
            other => other,
        };
        TimeRules { control, ..rules }
    }

    /// `scaled x0.842 (strong: 1234567 nodes/s here, reference 1040000)`; merged,
    /// `scaled x0.495 to x0.505 over 2 shards (strong: 2063000 nodes/s on average, reference
    /// 1040000)`.
    pub fn describe(&self) -> String {
        match self.shards {
            Some(s) => format!(
                "scaled x{:.3} to x{:.3} over {} shards ({}: {} nodes/s on average, reference {})",
                s.lowest, s.highest, s.count, self.engine, self.measured_nps, self.reference_nps
            ),
            None => format!(
                "scaled x{:.3} ({}: {} nodes/s here, reference {})",
                self.factor, self.engine, self.measured_nps, self.reference_nps
            ),
        }
    }
}

impl Validator<'_> {
    /// `nps-reference` and `nps-engine` of the `[time]` table: both or neither; the engine
    /// one of `engines`; some engine on a clock or a move time.
    pub(super) fn nps(
        &self,
        keys: (Option<Spanned<u64>>, Option<Spanned<String>>),
        shared: TimeRules,
        engines: &[EngineConfig],
    ) -> Result<Option<NpsReference>, ConfigError> {
        let (reference, engine) = match keys {
            (None, None) => return Ok(None),
            (Some(r), None) => {
                return Err(self.invalid(
                    r.span(),
                    "nps-reference",
                    "needs `nps-engine`: the engine whose `harness bench` speed it is",
                ))
            }
            (None, Some(e)) => {
                return Err(self.invalid(
                    e.span(),
                    "nps-engine",
                    "is only used with `nps-reference` (the speed to scale the clocks to)",
                ))
            }
            (Some(r), Some(e)) => (r, e),
        };
        let nps = *reference.get_ref();
        if nps == 0 || nps > MAX_REFERENCE_NPS {
            return Err(self.invalid(
                reference.span(),
                "nps-reference",
                format!("must be from 1 to {MAX_REFERENCE_NPS} nodes per second"),
            ));
        }
        let names: Vec<&str> = engines.iter().map(|e| e.name.as_str()).collect();
        let Some(index) = names.iter().position(|n| n == engine.get_ref()) else {
            return Err(self.invalid(
                engine.span(),
                "nps-engine",
                format!(
                    "`{}` is not an engine of this tournament (its engines: {})",
                    engine.get_ref(),
                    names.join(", ")
                ),
            ));
        };
        let timed = |r: TimeRules| {
            matches!(
                r.control,
                TimeControl::Clock { .. } | TimeControl::MoveTime(_)
            )
        };
        if !engines.iter().any(|e| timed(e.time.unwrap_or(shared))) {
            return Err(self.invalid(
                reference.span(),
                "nps-reference",
                "scales clocks and move times, and no engine plays under one (depth and node limits are not scaled)",
            ));
        }
        Ok(Some(NpsReference {
            nodes_per_second: nps,
            engine: index,
        }))
    }

    /// An engine's own `time` table has no `nps-reference` or `nps-engine`: one reference
    /// scales every clock of a tournament.
    pub(super) fn no_nps_keys(&self, raw: &RawTime) -> Result<(), ConfigError> {
        let spans = [
            (
                "nps-reference",
                raw.nps_reference.as_ref().map(Spanned::span),
            ),
            ("nps-engine", raw.nps_engine.as_ref().map(Spanned::span)),
        ];
        for (key, span) in spans {
            if let Some(span) = span {
                return Err(self.invalid(
                    span,
                    key,
                    "belongs to the [time] table only: one reference scales every clock of the tournament",
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;
    use std::path::Path;

    const MATCH: &str = "[tournament]\nformat = \"match\"\npairs = 1\n[openings]\nbuiltin = \"xot-small\"\n[[engine]]\nname = \"a\"\nplugin = \"greedy\"\n[[engine]]\nname = \"b\"\nplugin = \"greedy\"\nbench = 1234\n[time]\n";

    fn parsed(time: &str) -> Result<super::super::Tournament, ConfigError> {
        parse(&format!("{MATCH}{time}"), "t.toml", Path::new(""))
    }

    #[test]
    fn reference_and_engine_are_checked() {
        let t = parsed("base = 10\nnps-reference = 2000000\nnps-engine = \"b\"\n").unwrap();
        assert_eq!(
            t.nps,
            Some(NpsReference {
                nodes_per_second: 2_000_000,
                engine: 1
            })
        );
        assert_eq!(t.engines[1].bench, Some(1234));
        for (time, line, key) in [
            ("base = 10\nnps-reference = 5\n", 15, "nps-reference"),
            ("base = 10\nnps-engine = \"a\"\n", 15, "nps-engine"),
            (
                "base = 10\nnps-reference = 0\nnps-engine = \"a\"\n",
                15,
                "nps-reference",
            ),
            (
                "base = 10\nnps-reference = 5\nnps-engine = \"c\"\n",
                16,
                "nps-engine",
            ),
            (
                "depth = 3\nnps-reference = 5\nnps-engine = \"a\"\n",
                15,
                "nps-reference",
            ),
        ] {
            let e = parsed(time).unwrap_err();
            assert_eq!(e.line(), Some(line), "{e}");
            assert!(e.to_string().contains(&format!("key `{key}`")), "{e}");
        }
        let own = "[tournament]\nformat = \"match\"\npairs = 1\n[time]\nbase = 1\n[openings]\nbuiltin = \"xot-small\"\n[[engine]]\nname = \"a\"\nplugin = \"greedy\"\ntime = { move-time = 1, nps-engine = \"a\" }\n[[engine]]\nname = \"b\"\nplugin = \"greedy\"\n";
        let e = parse(own, "t.toml", Path::new("")).unwrap_err();
        assert!(e.to_string().contains("[time] table only"), "{e}");
        let zero = parsed("base = 1\n").map(|_| ());
        assert!(zero.is_ok());
        let e = parse(
            &format!("{}base = 1\n", MATCH.replace("bench = 1234", "bench = 0")),
            "t.toml",
            Path::new(""),
        );
        assert!(e.unwrap_err().to_string().contains("key `bench`"));
    }

    #[test]
    fn clocks_and_move_times_scale_and_limits_do_not() {
        let s = ClockScale::new("a", 1_000_000, 2_000_000);
        assert_eq!(s.factor, 0.5);
        let rules = |control| TimeRules {
            control,
            margin: Duration::from_millis(200),
            stall_timeout: Duration::from_secs(60),
        };
        let clock = rules(TimeControl::Clock {
            base: Duration::from_secs(10),
            increment: Duration::from_millis(100),
        });
        assert_eq!(
            s.scale(clock),
            rules(TimeControl::Clock {
                base: Duration::from_secs(5),
                increment: Duration::from_millis(50),
            })
        );
        let mt = rules(TimeControl::MoveTime(Duration::from_secs(1)));
        assert_eq!(
            s.scale(mt).control,
            TimeControl::MoveTime(Duration::from_millis(500))
        );
        for fixed in [TimeControl::Depth(6), TimeControl::Nodes(1000)] {
            assert_eq!(s.scale(rules(fixed)), rules(fixed));
        }
        let mut t = parsed("base = 10\nnps-reference = 2000000\nnps-engine = \"b\"\n").unwrap();
        t.clock_scale = Some(s);
        assert_eq!(
            t.time_rules(0).control,
            TimeControl::Clock {
                base: Duration::from_secs(10),
                increment: Duration::ZERO,
            }
        );
        assert_eq!(
            t.played_time_rules(0).control,
            TimeControl::Clock {
                base: Duration::from_secs(5),
                increment: Duration::ZERO,
            }
        );
        assert!(
            t.time_description().contains("scaled x0.500"),
            "{}",
            t.time_description()
        );
    }

    /// A merge of shards states the spread of their scales; a merge of one scale is that
    /// scale's factor.
    #[test]
    fn the_scales_of_shards_merge_with_their_spread() {
        assert_eq!(ClockScale::of_shards(&[]), None);
        let a = ClockScale::new("strong", 1_000_000, 2_000_000);
        let b = ClockScale::new("strong", 1_000_000, 1_600_000);
        let m = ClockScale::of_shards(&[a.clone(), b]).unwrap();
        assert_eq!(m.measured_nps, 1_800_000);
        assert!((m.factor - (0.5 + 0.625) / 2.0).abs() < 1e-12);
        assert_eq!(
            m.describe(),
            "scaled x0.500 to x0.625 over 2 shards (strong: 1800000 nodes/s on average, reference 1000000)"
        );
        let one = ClockScale::of_shards(std::slice::from_ref(&a)).unwrap();
        assert_eq!(one.factor, a.factor);
        // Written into the merged tournament.json and read back whole.
        let json = serde_json::to_value(&m).unwrap();
        assert_eq!(serde_json::from_value::<ClockScale>(json).unwrap(), m);
    }
}
