//! Repeated openings: which pairs are independent, and what the intervals count.
//!
//! A pairing that plays more pairs than it has openings plays some openings twice or more.
//! Engines that search deterministically (a depth or node limit) then replay the same games,
//! and even under a clock two pairs from one opening share that opening's bias. Such pairs are
//! not independent draws, and an interval that counts each of them as one is too narrow: 6
//! pairs of deterministic engines on 3 openings hold the information of 3 pairs, not 6.
//!
//! # The rule
//!
//! Within one pairing, the complete pairs that start from the same opening (the journal's
//! `opening.index`) form one **cluster**. A pairing's openings *repeat* when it has fewer
//! clusters `G` than complete pairs `N`. Pairs whose opening is not known (statistics of bare
//! outcomes, the ledger's history across runs) each form a cluster of their own.
//!
//! - **No opening repeats** (every cluster one pair): the statistics are computed exactly as
//!   [`super`] describes, by the same code; nothing here is used.
//! - **Openings repeat, `G >= MIN_OPENINGS`**: the point estimates (Elo, normalised Elo, discs)
//!   are unchanged, and the standard error of each mean is the *cluster-robust* one:
//!
//!   ```text
//!   mu     = (1/N) sum_i s_i                         (the mean over pairs, as before)
//!   CR0    = (1/N^2) sum_c (S_c - n_c mu)^2          (S_c: sum of the pair scores of cluster c,
//!                                                     n_c: its pairs)
//!   se^2   = max(CR0, var / N)                       (var: population variance over pairs)
//!   N_eff  = var / se^2                              (effective pairs, at most N)
//!   ```
//!
//!   and the interval, the LOS and the Jeffreys fallback are those of [`super`] with `N_eff`
//!   pairs in place of `N` (so `se = sqrt(var / N_eff)`; with no spread at all, `N_eff = G`).
//!   The normalised Elo's half width becomes `1.959964 / sqrt(N_eff)` in t units. The disc
//!   difference (Student's t over pair sums, sample variance) takes
//!   `se^2 = max(G/(G-1) CR0, s^2 / N)` and `G - 1` degrees of freedom.
//! - **Openings repeat, `G < MIN_OPENINGS`**: no interval. The point estimates stay; every
//!   interval bound is absent (infinite here, `null` in JSON), the LOS is absent, and each view
//!   says why in its place.
//!
//! The joint rating of more than two engines ([`super::ratings`], a fit over single games) is
//! not clustered: its intervals count every game as independent, repeated openings or not.
//!
//! ## Why the ratio estimator with CR0
//!
//! The estimate is the mean over pairs, `sum S_c / sum n_c` (a ratio estimator over clusters),
//! not the mean of the cluster means: the value a report prints must not move because an
//! opening was played once more, and the score, the W-D-L and the pentanomial counts count
//! pairs. Its linearised variance is the sum of the clusters' squared residuals over `N^2`
//! (CR0, the cluster-robust "sandwich" variance; Cameron and Miller 2015, "A Practitioner's
//! Guide to Cluster-Robust Inference", section IIC). With every cluster a single pair it is
//! `(1/N^2) sum_i (s_i - mu)^2 = var / N`, today's variance with the population convention
//! that [`super`] uses, so the rule has no jump where openings start to repeat. The same holds
//! for the disc difference: `G/(G-1) CR0` with singletons is `s^2 / N`, Student's t with
//! `N - 1` degrees of freedom. Repeating an opening never adds information, so the variance
//! is never taken below the naive one (the `max`): a smaller CR0 comes only from the noise of
//! a variance estimated over few clusters. With deterministic engines that repeat each opening
//! `k` times, the result is exactly the interval of the run that plays each opening once.
//!
//! ## Why at least five openings
//!
//! CR0 estimates a variance from `G` cluster totals: about `G - 1` degrees of freedom, and a
//! bias of `(G - 1) / G`. For normal cluster totals the nominal 95% interval then covers the
//! true mean with probability `P(|t_{G-1}| < 1.96 sqrt((G-1)/G))`: 60% for 2 openings, 75% for
//! 3, 81% for 4, 85% for 5, 90% for 10, 93% for 20. With one opening the variance is
//! identically zero. Below 5 the interval would claim 95% and deliver four in five or worse,
//! so none is given; from 5 on it is a usable, somewhat optimistic interval, as the
//! unclustered interval of as few pairs is (the reports show the number of openings beside it).
//!
//! ## The sequential test
//!
//! The SPRT's log-likelihood ratio is unchanged: it counts every complete pair as an
//! independent observation, as before. Its error rates rest on that independence, so with
//! repeated openings they do not hold (a replayed pair adds its LLR again without new
//! information, and the test decides early); every view says so beside the warning. It is not
//! rescaled by `N_eff / N`: that factor is itself estimated from a few clusters and moves with
//! each pair, it would give no stated error rates either, and the test's decision must be the
//! one the run made live, which the exit code, `merge` and the ledger all repeat.

use super::{estimate_from_moments, t_quantile_975, Estimate, PairObservation};
use serde::Serialize;
use std::collections::HashMap;

/// Fewer distinct openings than this in a pairing whose openings repeat: no interval (see the
/// module docs).
pub const MIN_OPENINGS: u32 = 5;

/// How the complete pairs of one pairing spread over openings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct PairClusters {
    /// Complete pairs.
    pub pairs: u32,
    /// Distinct openings among them (a pair of unknown opening counts as one of its own).
    pub openings: u32,
}

impl PairClusters {
    /// Some opening holds more than one pair.
    pub fn repeated(self) -> bool {
        self.openings < self.pairs
    }

    /// Openings repeat and there are too few of them for an interval.
    pub fn withheld(self) -> bool {
        self.repeated() && self.openings < MIN_OPENINGS
    }

    /// Why the intervals are not given, in the words every view uses; `None` when they are.
    pub fn withheld_reason(self) -> Option<String> {
        self.withheld().then(|| {
            format!(
                "{} pairs from {} {}: fewer than {MIN_OPENINGS} distinct openings are too few for an interval",
                self.pairs,
                self.openings,
                plural(self.openings, "opening", "openings")
            )
        })
    }
}

fn plural(n: u32, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// The cluster of each pair of a list: numbers `0..count` by first appearance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clusters {
    of_pair: Vec<usize>,
    count: usize,
}

impl Clusters {
    /// The clusters of `pairs` by opening; a pair of unknown opening is a cluster alone.
    pub fn of(pairs: &[&PairObservation]) -> Clusters {
        let mut number: HashMap<u64, usize> = HashMap::new();
        let mut count = 0;
        let of_pair = pairs
            .iter()
            .map(|p| {
                let mut fresh = || {
                    count += 1;
                    count - 1
                };
                match p.opening {
                    Some(opening) => *number.entry(opening).or_insert_with(fresh),
                    None => fresh(),
                }
            })
            .collect();
        Clusters { of_pair, count }
    }

    /// Pairs and distinct openings.
    pub fn sizes(&self) -> PairClusters {
        PairClusters {
            pairs: super::saturating_u32(self.of_pair.len() as u64),
            openings: super::saturating_u32(self.count as u64),
        }
    }

    /// The CR0 variance of the mean of `values` (one per pair, in the clusters' order):
    /// `(1/N^2) sum_c (S_c - n_c mu)^2`. 0 for an empty list.
    pub fn variance_of_mean(&self, values: &[f64]) -> f64 {
        let n = values.len() as f64;
        if values.is_empty() {
            return 0.0;
        }
        let mean = values.iter().sum::<f64>() / n;
        let mut residual = vec![0.0; self.count];
        for (v, &c) in values.iter().zip(&self.of_pair) {
            residual[c] += v - mean;
        }
        residual.iter().map(|r| r * r).sum::<f64>() / (n * n)
    }
}

/// The pentanomial estimate of pair scores in `0..=1` clustered by opening: the Elo estimate,
/// the LOS (`None` when withheld) and the effective number of pairs. `None` for no pairs.
/// When the interval is withheld its bounds are dropped and the value kept: the estimate is
/// the same with or without its interval (a clean sweep is the Jeffreys median, not the
/// clamped ±2400 of `Elo(1)`).
pub fn score_estimate(scores: &[f64], clusters: &Clusters) -> Option<(Estimate, Option<f64>, f64)> {
    if scores.is_empty() {
        return None;
    }
    let n = scores.len() as f64;
    let mu = scores.iter().sum::<f64>() / n;
    let var = scores.iter().map(|s| (s - mu) * (s - mu)).sum::<f64>() / n;
    let se2 = clusters.variance_of_mean(scores).max(var / n);
    let effective = if se2 > 0.0 {
        var / se2
    } else {
        clusters.count as f64
    };
    let (estimate, los) = estimate_from_moments(mu, var, effective);
    if clusters.sizes().withheld() {
        return Some((whole_range(estimate.value), None, n));
    }
    Some((estimate, Some(los), effective))
}

/// The disc difference per game from per-pair disc sums clustered by opening: Student's t
/// with `G - 1` degrees of freedom on `max(G/(G-1) CR0, s^2/N)`, clipped to `[-64, 64]`; the
/// whole range with one cluster, no bounds when withheld. `None` for no pairs.
pub fn disc_estimate(sums: &[f64], clusters: &Clusters, withheld: bool) -> Option<Estimate> {
    const MOST: f64 = 64.0;
    if sums.is_empty() {
        return None;
    }
    let n = sums.len() as f64;
    let mean = sums.iter().sum::<f64>() / n;
    if withheld {
        return Some(whole_range(mean / 2.0));
    }
    if clusters.count < 2 || sums.len() < 2 {
        return Some(Estimate {
            value: mean / 2.0,
            low: -MOST,
            high: MOST,
        });
    }
    let g = clusters.count as f64;
    let sample_var = sums.iter().map(|d| (d - mean) * (d - mean)).sum::<f64>() / (n - 1.0);
    let se2 = (g / (g - 1.0) * clusters.variance_of_mean(sums)).max(sample_var / n);
    let half = t_quantile_975(g - 1.0) * se2.sqrt();
    Some(Estimate {
        value: mean / 2.0,
        low: ((mean - half) / 2.0).max(-MOST),
        high: ((mean + half) / 2.0).min(MOST),
    })
}

/// A value without an interval: both bounds infinite (absent in every view).
fn whole_range(value: f64) -> Estimate {
    Estimate {
        value,
        low: f64::NEG_INFINITY,
        high: f64::INFINITY,
    }
}

/// The run's repeated openings, as every view says them: the pairing with the fewest distinct
/// openings among those whose openings repeat.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RepeatedOpenings {
    /// That pairing's complete pairs.
    pub pairs: u32,
    /// Its distinct openings.
    pub openings: u32,
    /// `clustered` (the intervals count openings, not pairs) or `withheld` (too few openings
    /// for an interval).
    pub intervals: &'static str,
    /// The warning, one sentence.
    pub warning: String,
    /// What it means for the sequential test, one sentence.
    pub sprt: String,
}

impl RepeatedOpenings {
    /// The fact from each pairing's clusters; `None` when no pairing repeats an opening.
    pub fn of(pairings: impl IntoIterator<Item = PairClusters>) -> Option<RepeatedOpenings> {
        let worst = pairings
            .into_iter()
            .filter(|c| c.repeated())
            .min_by_key(|c| (c.openings, std::cmp::Reverse(c.pairs)))?;
        let (pairs, openings) = (worst.pairs, worst.openings);
        let from = format!(
            "openings repeat: {pairs} pairs of a pairing from {openings} {}",
            plural(openings, "opening", "openings")
        );
        let (intervals, warning) = match worst.withheld_reason() {
            Some(_) => (
                "withheld",
                format!(
                    "{from}; pairs from one opening are not independent (deterministic engines replay the same games), and fewer than {MIN_OPENINGS} distinct openings are too few for an interval: each pairing's Elo, nElo, LOS and discs are given without one"
                ),
            ),
            None => (
                "clustered",
                format!(
                    "{from}; pairs from one opening are not independent (deterministic engines replay the same games), so each pairing's intervals count the pairs of one opening as one cluster, not as independent pairs"
                ),
            ),
        };
        Some(RepeatedOpenings {
            pairs,
            openings,
            intervals,
            warning,
            sprt: "the sequential test's LLR still counts every pair as independent (it is unchanged), so with repeated openings its error rates do not hold: read its decision as indicative".to_string(),
        })
    }

    /// The warning and the test's sentence as lines of text, each starting `warning: `.
    pub fn lines(&self) -> String {
        format!("warning: {}\nwarning: {}\n", self.warning, self.sprt)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::record::GameOutcome;
    use crate::stats::tests::close;
    use crate::stats::{match_stats, paired_disc_estimate, MatchStats};
    use proptest::prelude::*;

    /// The two games of pair `pair` on `opening` between A and B: A has Black in the first
    /// and wins it by `first` discs (a loss when negative), and wins the second, with White,
    /// by `second`. The pair's disc sum is `first + second`.
    fn pair_games(pair: u64, opening: Option<u64>, first: i32, second: i32) -> [GameOutcome; 2] {
        let game = |black: &str, white: &str, d: i32| GameOutcome {
            pair,
            black: black.into(),
            white: white.into(),
            black_disc_diff: d,
            forfeit: false,
            opening,
        };
        [game("A", "B", first), game("B", "A", -second)]
    }

    /// Pairs as (opening, A's first game, A's second game).
    pub(crate) fn games(pairs: &[(u64, i32, i32)]) -> Vec<GameOutcome> {
        (0..)
            .zip(pairs)
            .flat_map(|(i, &(opening, a, b))| pair_games(i, Some(opening), a, b))
            .collect()
    }

    /// Ten pairs on five openings, two per opening, pair scores (A's view) and disc sums:
    /// opening 0: WW 14, WD 6; 1: WL 0, DD 0; 2: LD -2, WD 12; 3: WW 22, WW 10;
    /// 4: LW 4, DL -14.
    pub(crate) fn ten_pairs_on_five_openings() -> Vec<GameOutcome> {
        games(&[
            (0, 10, 4),
            (0, 6, 0),
            (1, 8, -8),
            (1, 0, 0),
            (2, -2, 0),
            (2, 12, 0),
            (3, 20, 2),
            (3, 4, 6),
            (4, -6, 10),
            (4, 0, -14),
        ])
    }

    fn interval(e: Estimate) -> (f64, f64, f64) {
        (e.value, e.low, e.high)
    }

    fn close3(actual: (f64, f64, f64), expected: (f64, f64, f64)) {
        close(actual.0, expected.0, 1e-9);
        close(actual.1, expected.1, 1e-9);
        close(actual.2, expected.2, 1e-9);
    }

    /// Reference values computed apart, in Python (plain floats, `statistics.NormalDist`):
    ///
    /// ```text
    /// clusters = [[1,.75],[.5,.5],[.25,.75],[1,1],[.5,.25]]; s = flattened; n = 10
    /// mu = .65; var = sum((v-mu)**2)/n = .0775; naive = var/n = .00775
    /// cr0 = sum((sum(c)-len(c)*mu)**2)/n**2 = .01175; se2 = max(cr0, naive)
    /// neff = var/se2 = 6.595744680851063; se = 0.108397416943394
    /// elo(mu), elo(mu -/+ 1.959964 se) = 107.53812491703204, -43.626047230540905,
    ///                                    318.91670577449025  (naive: -15.6756, +266.4269)
    /// LOS = NormalDist().cdf((mu-.5)/se) = 0.9167896602597599
    /// nElo = (mu-.5)/(sqrt(var)*sqrt(2))*800/ln 10 = 132.3730904572678,
    ///   half = 1.959964/sqrt(neff)/sqrt(2)*800/ln 10 -> [-55.115773230665695, 319.8619541452013]
    /// discs: sums = [[14,6],[0,0],[-2,12],[22,10],[4,-14]], m = 5.2, s2/n = 10.0622,
    ///   cr1 = 5/4 * cr0 = 13.54, h = t(4) sqrt(13.54), t(4) = 2.7764451051977987
    ///   -> 2.6 [-2.5082062922388446, 7.708206292238845]  (naive t(9): [-0.9879, +6.1879])
    /// ```
    #[test]
    fn ten_pairs_on_five_openings_give_the_cluster_robust_reference() {
        let m = match_stats(&ten_pairs_on_five_openings(), "A", "B");
        assert_eq!((m.pairs, m.openings), (10, 5));
        assert!(m.clusters().repeated() && !m.clusters().withheld());
        close(m.effective_pairs, 6.595744680851063, 1e-9);
        close3(
            interval(m.elo.unwrap()),
            (107.53812491703204, -43.626047230540905, 318.91670577449025),
        );
        close(m.los.unwrap(), 0.9167896602597599, 1e-9);
        close3(
            interval(m.disc_diff.unwrap()),
            (2.6, -2.5082062922388446, 7.708206292238845),
        );
        // The normalised Elo is the table's (`show::standings`' tests).
    }

    /// A run that plays each opening twice with engines that replay the same games is
    /// reported exactly as the run that plays each opening once.
    #[test]
    fn a_replayed_run_counts_as_the_run_played_once() {
        let once = [(0, 10, 4), (1, 8, -8), (2, -2, 0), (3, 20, 2), (4, 0, -14)];
        let twice: Vec<_> = once.iter().chain(&once).copied().collect();
        let (a, b) = (
            match_stats(&games(&once), "A", "B"),
            match_stats(&games(&twice), "A", "B"),
        );
        assert_eq!((a.openings, b.openings, b.pairs), (5, 5, 10));
        close3(interval(b.elo.unwrap()), interval(a.elo.unwrap()));
        close(b.los.unwrap(), a.los.unwrap(), 1e-12);
        close3(
            interval(b.disc_diff.unwrap()),
            interval(a.disc_diff.unwrap()),
        );
        close(b.effective_pairs, 5.0, 1e-12);
    }

    /// Pairs of one opening that cancel out (a cluster total at the mean) would make CR0
    /// smaller than the naive variance: the naive one is kept.
    #[test]
    fn the_interval_is_never_narrower_than_the_naive_one() {
        // Opening k: one pair WW, one LL; every cluster's total is at the mean, CR0 = 0.
        let pairs: Vec<(u64, i32, i32)> =
            (0..5).flat_map(|k| [(k, 10, 10), (k, -10, -10)]).collect();
        let m = match_stats(&games(&pairs), "A", "B");
        let scores: Vec<f64> = (0..10)
            .map(|i| if i % 2 == 0 { 1.0 } else { 0.0 })
            .collect();
        let naive = crate::stats::score_estimate(&scores).unwrap();
        assert_eq!(m.elo.unwrap(), naive.0);
        close(m.effective_pairs, 10.0, 1e-12);
    }

    /// A clean sweep's Elo is the same estimate with or without its interval: 6 pairs all
    /// won on 3 openings withhold the interval and keep the Jeffreys median of 3 clusters all
    /// won, the median of Beta(3.5, 0.5) = 0.9326217269725905, +456.474261384966 Elo (by an
    /// independent incomplete-beta bisection), not the clamped +2400 of `Elo(1)`.
    #[test]
    fn a_withheld_interval_keeps_the_estimate() {
        let three = [(0, 10, 8), (1, 4, 2), (2, 6, 30)];
        let six: Vec<_> = three.iter().chain(&three).copied().collect();
        let m = match_stats(&games(&six), "A", "B");
        assert!(m.clusters().withheld());
        let elo = m.elo.unwrap();
        close(elo.value, 456.474261384966, 1e-6);
        assert_eq!((elo.low, elo.high), (f64::NEG_INFINITY, f64::INFINITY));
    }

    #[test]
    fn too_few_openings_withhold_the_intervals() {
        // 6 pairs on 3 openings, as the deterministic example of the issue.
        let three = [(0, 10, -4), (1, -8, -8), (2, -2, 0)];
        let six: Vec<_> = three.iter().chain(&three).copied().collect();
        let m = match_stats(&games(&six), "A", "B");
        assert_eq!((m.pairs, m.openings), (6, 3));
        let elo = m.elo.unwrap();
        // Elo(mu) with mu = (0.5 + 0 + 0.25) / 3 = 0.25: -400 log10(3) = -190.848501887865.
        close(elo.value, -190.848501887865, 1e-9);
        assert_eq!((elo.low, elo.high), (f64::NEG_INFINITY, f64::INFINITY));
        assert_eq!(m.los, None);
        let discs = m.disc_diff.unwrap();
        close(discs.value, (6.0 - 16.0 - 2.0) / 3.0 / 2.0, 1e-12);
        assert_eq!((discs.low, discs.high), (f64::NEG_INFINITY, f64::INFINITY));
        // How the table says it: `show::standings`' tests.
        // One opening (a match from the start position) and four: withheld; five: given.
        for (openings, withheld) in [(1, true), (4, true), (5, false)] {
            let pairs: Vec<(u64, i32, i32)> = (0..12)
                .map(|i| (i % openings, 4 - (i as i32 % 3) * 4, 2))
                .collect();
            let m = match_stats(&games(&pairs), "A", "B");
            assert_eq!(m.clusters().withheld(), withheld, "{openings} openings");
            assert_eq!(
                m.elo.unwrap().low.is_finite(),
                !withheld,
                "{openings} openings"
            );
        }
    }

    #[test]
    fn the_run_fact_names_the_pairing_with_fewest_openings() {
        let c = |pairs, openings| PairClusters { pairs, openings };
        assert_eq!(RepeatedOpenings::of([c(6, 6), c(10, 10)]), None);
        let r = RepeatedOpenings::of([c(6, 6), c(12, 6), c(6, 3)]).unwrap();
        assert_eq!((r.pairs, r.openings, r.intervals), (6, 3, "withheld"));
        assert!(r
            .warning
            .starts_with("openings repeat: 6 pairs of a pairing from 3 openings;"));
        let r = RepeatedOpenings::of([c(12, 6)]).unwrap();
        assert_eq!(r.intervals, "clustered");
        assert!(r.lines().lines().all(|l| l.starts_with("warning: ")));
        assert!(r.sprt.contains("error rates do not hold"), "{}", r.sprt);
    }

    /// Today's figures of a sample: what `match_stats` gave before openings were read.
    fn todays(m: &MatchStats, outcomes: &[GameOutcome]) {
        let bare: Vec<GameOutcome> = outcomes
            .iter()
            .map(|o| GameOutcome {
                opening: None,
                ..o.clone()
            })
            .collect();
        assert_eq!(*m, match_stats(&bare, "A", "B"));
        let (pairs, _) = crate::stats::complete_pairs(outcomes, "A");
        let scores: Vec<f64> = pairs
            .iter()
            .map(|p| f64::from(p.half_points[0] + p.half_points[1]) / 4.0)
            .collect();
        let sums: Vec<f64> = pairs.iter().map(|p| p.disc_sum as f64).collect();
        let (elo, los) = crate::stats::score_estimate(&scores).unwrap();
        assert_eq!((m.elo, m.los), (Some(elo), Some(los)));
        assert_eq!(m.disc_diff, paired_disc_estimate(&sums));
        assert_eq!(m.effective_pairs, f64::from(m.pairs));
    }

    proptest! {
        /// Without a repeated opening the statistics are exactly today's: the same numbers as
        /// the unclustered formulas, bit for bit, and as the outcomes without openings.
        #[test]
        fn without_repeats_the_figures_are_todays(
            pairs in prop::collection::vec((-64i32..=64, -64i32..=64), 1..40),
            shift in 0u64..1000,
        ) {
            let list: Vec<(u64, i32, i32)> = (0..)
                .zip(&pairs)
                .map(|(i, &(a, b))| (shift + 7 * i, a, b))
                .collect();
            let outcomes = games(&list);
            let m = match_stats(&outcomes, "A", "B");
            prop_assert_eq!(m.openings, m.pairs);
            todays(&m, &outcomes);
        }

        /// The clustered formulas with every cluster a single pair reduce to today's (the rule
        /// has no jump where openings start to repeat).
        #[test]
        fn singleton_clusters_reduce_to_todays_formulas(
            points in prop::collection::vec(0u8..=4, 2..40),
            sums in prop::collection::vec(-128i32..=128, 2..40),
        ) {
            let scores: Vec<f64> = points.iter().map(|&p| f64::from(p) / 4.0).collect();
            let singletons = |n: usize| Clusters { of_pair: (0..n).collect(), count: n };
            let (elo, los, n) = score_estimate(&scores, &singletons(scores.len())).unwrap();
            let (todays_elo, todays_los) = crate::stats::score_estimate(&scores).unwrap();
            for (x, y) in [(elo.value, todays_elo.value), (elo.low, todays_elo.low),
                           (elo.high, todays_elo.high), (los.unwrap(), todays_los)] {
                prop_assert!((x - y).abs() <= 1e-6 * (1.0 + y.abs()), "{x} vs {y}");
            }
            prop_assert!((n - scores.len() as f64).abs() < 1e-9 * n || n == scores.len() as f64);
            let sums: Vec<f64> = sums.iter().map(|&d| f64::from(d)).collect();
            let mine = disc_estimate(&sums, &singletons(sums.len()), false).unwrap();
            let today = paired_disc_estimate(&sums).unwrap();
            for (x, y) in [(mine.value, today.value), (mine.low, today.low), (mine.high, today.high)] {
                prop_assert!((x - y).abs() <= 1e-9 * (1.0 + y.abs()), "{x} vs {y}");
            }
        }

        /// Engines that replay their games: every opening played `k` times gives the figures
        /// of the run that plays it once.
        #[test]
        fn replaying_each_opening_changes_no_interval(
            pairs in prop::collection::vec((-64i32..=64, -64i32..=64), 5..20),
            k in 2usize..4,
        ) {
            let once: Vec<(u64, i32, i32)> =
                (0..).zip(&pairs).map(|(i, &(a, b))| (i, a, b)).collect();
            let again: Vec<_> = (0..k).flat_map(|_| once.iter().copied()).collect();
            let (a, b) = (match_stats(&games(&once), "A", "B"), match_stats(&games(&again), "A", "B"));
            let (ea, eb) = (a.elo.unwrap(), b.elo.unwrap());
            for (x, y) in [(eb.value, ea.value), (eb.low, ea.low), (eb.high, ea.high)] {
                prop_assert!((x - y).abs() <= 1e-6 * (1.0 + y.abs()), "{x} vs {y}");
            }
            let (da, db) = (a.disc_diff.unwrap(), b.disc_diff.unwrap());
            for (x, y) in [(db.low, da.low), (db.high, da.high)] {
                prop_assert!((x - y).abs() <= 1e-9 * (1.0 + y.abs()), "{x} vs {y}");
            }
        }
    }
}
