//! How many games does each sequential test need? A resampling study on real game pairs.
//!
//! The complete pairs of a journal (one candidate against one baseline) are a sample of the
//! population of pairs that match would produce. Each simulated run draws pairs from that sample
//! with replacement, feeds them to every test at once, and notes, per test, after how many pairs
//! its LLR first crossed a bound and which. Repeating this many times estimates each test's
//! expected sample size and decision frequencies at the true strength difference of the two
//! engines, with the same α and β for all tests.
//!
//! The LLR is re-evaluated every `check_every` pairs (as fishtest does in batches), so stopping
//! times are rounded up to that granularity; the comparison between tests is unaffected.

use crate::record::GameOutcome;
use crate::stats::sprt::{Decision, Sample, SprtParams, Unit};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub use crate::stats::PairObservation;

/// The complete pairs between `a` (candidate) and `b`: two games under one pair id, each engine
/// Black once (see [`crate::stats::complete_pairs`]).
pub fn complete_pairs(outcomes: &[GameOutcome], a: &str, b: &str) -> Vec<PairObservation> {
    let between = outcomes
        .iter()
        .filter(|o| (o.black == a && o.white == b) || (o.black == b && o.white == a));
    // In pair order, so that a seeded study resamples the same pairs whatever order the
    // games finished in.
    let mut pairs = crate::stats::complete_pairs(between, a).0;
    pairs.sort_by_key(|p| p.pair);
    pairs
}

/// Parameters of the study.
#[derive(Clone, Copy, Debug)]
pub struct SimulationConfig {
    pub runs: usize,
    pub max_pairs: usize,
    pub check_every: usize,
    pub seed: u64,
}

/// What one test did over all runs.
#[derive(Clone, Debug, PartialEq)]
pub struct TestSummary {
    pub params: SprtParams,
    /// Mean and median number of games until the decision (runs that hit `max_pairs` count
    /// with `max_pairs` pairs).
    pub mean_games: f64,
    pub median_games: f64,
    pub accepted_h1: f64,
    pub accepted_h0: f64,
    pub undecided: f64,
}

/// Running counts of one simulated run, enough for every unit's sample.
#[derive(Clone)]
struct Counts {
    wdl: [u64; 3],
    penta: [u64; 5],
    /// Pairs by disc sum + 128.
    discs: [u64; 257],
}

impl Default for Counts {
    fn default() -> Counts {
        Counts {
            wdl: [0; 3],
            penta: [0; 5],
            discs: [0; 257],
        }
    }
}

impl Counts {
    fn add(&mut self, p: &PairObservation) {
        for hp in p.half_points {
            self.wdl[hp as usize] += 1;
        }
        self.penta[(p.half_points[0] + p.half_points[1]) as usize] += 1;
        self.discs[(p.disc_sum.clamp(-128, 128) + 128) as usize] += 1;
    }

    fn sample(&self, unit: Unit) -> Sample {
        match unit {
            Unit::Trinomial => Sample::trinomial(self.wdl[2], self.wdl[1], self.wdl[0]),
            Unit::Pentanomial => Sample::pentanomial(self.penta),
            Unit::Discs => {
                // The extremes stay in the support, as in `Sample::discs`.
                let (values, counts) = (0..257)
                    .filter(|&i| self.discs[i] > 0 || i == 0 || i == 256)
                    .map(|i| (i as f64 / 256.0, self.discs[i] as f64))
                    .unzip();
                Sample { values, counts }
            }
        }
    }
}

/// Run the study: every test sees the same resampled sequences.
pub fn simulate(
    pairs: &[PairObservation],
    tests: &[SprtParams],
    cfg: SimulationConfig,
) -> Vec<TestSummary> {
    assert!(!pairs.is_empty(), "no complete pairs to resample");
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    // outcomes[test][run] = (pairs used, decision)
    let per_run: Vec<Vec<(usize, Decision)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                scope.spawn(move || {
                    (w..cfg.runs)
                        .step_by(workers)
                        .map(|run| one_run(pairs, tests, cfg, run as u64))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("simulation thread"))
            .collect()
    });
    tests
        .iter()
        .enumerate()
        .map(|(t, params)| {
            let mut games: Vec<f64> = per_run.iter().map(|r| 2.0 * r[t].0 as f64).collect();
            games.sort_by(f64::total_cmp);
            let n = per_run.len() as f64;
            let share = |d: Decision| per_run.iter().filter(|r| r[t].1 == d).count() as f64 / n;
            TestSummary {
                params: *params,
                mean_games: games.iter().sum::<f64>() / n,
                median_games: games[games.len() / 2],
                accepted_h1: share(Decision::AcceptH1),
                accepted_h0: share(Decision::AcceptH0),
                undecided: share(Decision::Continue),
            }
        })
        .collect()
}

fn one_run(
    pairs: &[PairObservation],
    tests: &[SprtParams],
    cfg: SimulationConfig,
    run: u64,
) -> Vec<(usize, Decision)> {
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed ^ run.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut counts = Counts::default();
    let mut result: Vec<Option<(usize, Decision)>> = vec![None; tests.len()];
    for n in 1..=cfg.max_pairs {
        counts.add(&pairs[rng.random_range(0..pairs.len())]);
        if n % cfg.check_every != 0 && n != cfg.max_pairs {
            continue;
        }
        for (t, params) in tests.iter().enumerate() {
            if result[t].is_some() {
                continue;
            }
            let decision = params.decide(params.llr(&counts.sample(params.unit)));
            if decision != Decision::Continue {
                result[t] = Some((n, decision));
            }
        }
        if result.iter().all(Option::is_some) {
            break;
        }
    }
    result
        .into_iter()
        .map(|r| r.unwrap_or((cfg.max_pairs, Decision::Continue)))
        .collect()
}

/// The normalised effect size of each unit in a sample of pairs: `(mean − centre) / sd` per
/// observation unit (game for trinomial, pair for the others). A test's expected sample size
/// scales roughly with `1 / effect²`, so these explain the simulation's ranking.
pub fn effect_sizes(pairs: &[PairObservation]) -> [(Unit, f64); 3] {
    let mut c = Counts::default();
    for p in pairs {
        c.add(p);
    }
    let t = |s: Sample| {
        let n = s.total();
        let mu: f64 = s
            .values
            .iter()
            .zip(&s.counts)
            .map(|(a, c)| a * c)
            .sum::<f64>()
            / n;
        let var: f64 = s
            .values
            .iter()
            .zip(&s.counts)
            .map(|(a, c)| c * (a - mu).powi(2))
            .sum::<f64>()
            / n;
        if var > 0.0 {
            (mu - 0.5) / var.sqrt()
        } else {
            0.0
        }
    };
    [
        (Unit::Trinomial, t(c.sample(Unit::Trinomial))),
        (Unit::Pentanomial, t(c.sample(Unit::Pentanomial))),
        (Unit::Discs, t(c.sample(Unit::Discs))),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::sprt::Model;

    fn pair(a: u8, b: u8, discs: i64) -> PairObservation {
        PairObservation {
            pair: 0,
            half_points: [a, b],
            disc_sum: discs,
            forfeit: false,
            opening: None,
        }
    }

    #[test]
    fn complete_pairs_need_both_colours() {
        let o = |pair, black: &str, white: &str, d| GameOutcome {
            pair,
            black: black.into(),
            white: white.into(),
            black_disc_diff: d,
            forfeit: false,
            opening: None,
        };
        let games = vec![
            o(0, "a", "b", 10),
            o(0, "b", "a", 4),
            o(1, "a", "b", 2),
            o(2, "a", "b", 6),
            o(2, "a", "b", 6),
        ];
        let p = complete_pairs(&games, "a", "b");
        assert_eq!(p, vec![pair(2, 0, 6)]);
    }

    /// A clearly stronger candidate: every test accepts H1 in (nearly) every run, and the
    /// pentanomial test needs no more games than the trinomial one on paired data.
    #[test]
    fn strong_candidate_is_accepted_by_every_test() {
        let pairs: Vec<_> = (0..40)
            .map(|i| match i % 4 {
                0 => pair(2, 2, 30),
                1 => pair(2, 0, 8),
                2 => pair(2, 2, 12),
                _ => pair(0, 2, -4),
            })
            .collect();
        let tests = [
            SprtParams {
                elo0: 0.0,
                elo1: 20.0,
                alpha: 0.05,
                beta: 0.05,
                model: Model::Logistic,
                unit: Unit::Trinomial,
            },
            SprtParams {
                elo0: 0.0,
                elo1: 20.0,
                alpha: 0.05,
                beta: 0.05,
                model: Model::Logistic,
                unit: Unit::Pentanomial,
            },
            SprtParams {
                elo0: 0.0,
                elo1: 20.0,
                alpha: 0.05,
                beta: 0.05,
                model: Model::Normalized,
                unit: Unit::Discs,
            },
        ];
        let cfg = SimulationConfig {
            runs: 40,
            max_pairs: 400,
            check_every: 1,
            seed: 1,
        };
        let s = simulate(&pairs, &tests, cfg);
        for t in &s {
            assert!(t.accepted_h1 > 0.9, "{t:?}");
        }
        let e = effect_sizes(&pairs);
        assert!(e.iter().all(|(_, t)| *t > 0.0), "{e:?}");
    }
}
