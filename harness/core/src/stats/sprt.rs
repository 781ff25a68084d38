//! The sequential probability ratio test (SPRT) that decides "stronger or not" with known error
//! rates, in its generalised form (GSPRT) on the empirical result distribution.
//!
//! # The test
//! Results are a sample from a discrete distribution over score values `a_i` with unknown
//! probabilities: per game (trinomial: 0, ½, 1), per game pair (pentanomial: 0, ¼, ½, ¾, 1), or
//! per pair of disc differences (discs: the sum of the two games' disc differences, mapped to
//! `[0, 1]`). H0 and H1 each fix one number of that distribution: its expected score (logistic
//! Elo) or its normalised t-value `(μ − ½)/σ` (normalised Elo). With `n_i` observations of
//! value `a_i` (`N` in all, `p̂_i = n_i / N`), the generalised log-likelihood ratio is
//!
//! ```text
//! LLR = N · Σ p̂_i · ln(p1_i / p0_i)
//! ```
//!
//! where `pk` is the distribution closest to the data (maximum likelihood) among those satisfying
//! hypothesis `k`. Zero counts are replaced by 1e-3 before anything else, so an unseen outcome
//! keeps a small non-zero probability (fishtest's regularisation).
//!
//! # Maximum likelihood under a constraint
//! Maximise `Σ p̂_i ln p_i` subject to `Σ p_i = 1` and one constraint `g(p) = 0`. Lagrange's
//! condition `p̂_i / p_i = λ + ν ∂g/∂p_i`, summed against `p_i`, gives `λ = 1 − ν Σ p_j ∂g/∂p_j`,
//! hence
//!
//! ```text
//! p_i = p̂_i / (1 + ν v_i),   v_i = ∂g/∂p_i − Σ_j p_j ∂g/∂p_j
//! ```
//!
//! and `ν` is the root of `Σ p̂_i v_i / (1 + ν v_i) = 0` (that sum is `Σ p_i v_i`, zero exactly
//! when the constraint holds). The function is strictly decreasing in `ν` on the interval where
//! every `1 + ν v_i > 0`, so the root is unique and bisection finds it.
//! - Expected score `g = Σ p_i a_i − s`: `v_i = a_i − s` is fixed, one root solves it.
//! - t-value `g = μ − r − t σ` with `σ² = Σ p_i a_i² − μ²`: `∂g/∂p_i = a_i − t (a_i² − 2 μ a_i)/(2σ)`
//!   depends on the solution, so iterate: from the current `p`, take
//!   `v_i = a_i − r − t σ/2 − t (a_i − μ)² / (2σ)` (the gradient shifted by a constant that is
//!   zero under the constraint), solve for `ν`, update `p`, until `p` stops moving.
//!
//! # Hypotheses in each model
//! - **logistic**: `s_k = 1 / (1 + 10^(−elo_k/400))`, constraint on the expected score.
//! - **normalised**: normalised Elo `nElo = t_game · 800 / ln 10` where `t_game = (μ − ½)/σ_game`.
//!   A pair is two games, so its t-value is `√2` times the per-game one: the constraint is
//!   `t = √2 · nElo_k · ln 10 / 800` for pentanomial and disc samples, `nElo_k · ln 10 / 800` for
//!   trinomial ones.
//!
//! # Decision
//! With `A = ln(β/(1−α))` and `B = ln((1−β)/α)`: `LLR ≥ B` accepts H1 (stronger by at least
//! `elo1`), `LLR ≤ A` accepts H0 (not stronger than `elo0`), otherwise the test continues.

use super::{pair_observation, result_half_points, MatchStats};
use crate::record::GameOutcome;
use serde::{Deserialize, Serialize};

/// Count given to outcomes never seen, so every probability stays positive.
const ZERO_COUNT: f64 = 1e-3;
/// Normalised Elo per unit of t-value: `800 / ln 10`.
pub const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

impl Model {
    /// The name the tournament file and `report.json` use: `logistic` or `normalized`.
    pub fn as_str(self) -> &'static str {
        match self {
            Model::Logistic => "logistic",
            Model::Normalized => "normalized",
        }
    }
}

impl Unit {
    /// The name the tournament file and `report.json` use: `trinomial`, `pentanomial` or
    /// `discs`.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Trinomial => "trinomial",
            Unit::Pentanomial => "pentanomial",
            Unit::Discs => "discs",
        }
    }
}

pub use crate::record::decision_record::{Decision, Model, SprtParams, Unit};

/// Parameters no test can have, with the parameter at fault.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SprtParamError {
    #[error("must be a finite number")]
    NotFinite { key: &'static str },
    #[error("must be greater than elo0 ({elo0}); H1 is the stronger hypothesis")]
    Bounds { elo0: f64, elo1: f64 },
    #[error("must be between 0 and 0.5 (exclusive)")]
    Rate { key: &'static str, value: f64 },
    #[error("the disc test works on normalised Elo: set model = \"normalized\"")]
    DiscsNeedNormalized,
}

impl SprtParamError {
    /// The parameter at fault, as the tournament file names it (`elo1`, `alpha`, `unit`, …).
    pub fn key(&self) -> &'static str {
        match self {
            SprtParamError::NotFinite { key } | SprtParamError::Rate { key, .. } => key,
            SprtParamError::Bounds { .. } => "elo1",
            SprtParamError::DiscsNeedNormalized => "unit",
        }
    }
}

impl SprtParams {
    /// A test's parameters, checked: every rule a test has is here, so the tournament file,
    /// `harness sprt` and `harness sprt-sim` refuse the same things. The bounds are finite with
    /// `elo0 < elo1`, `0 < α, β < 0.5`, and the disc unit goes with the normalised model.
    pub fn new(
        elo0: f64,
        elo1: f64,
        alpha: f64,
        beta: f64,
        model: Model,
        unit: Unit,
    ) -> Result<SprtParams, SprtParamError> {
        for (key, value) in [("elo0", elo0), ("elo1", elo1)] {
            if !value.is_finite() {
                return Err(SprtParamError::NotFinite { key });
            }
        }
        if elo0 >= elo1 {
            return Err(SprtParamError::Bounds { elo0, elo1 });
        }
        for (key, value) in [("alpha", alpha), ("beta", beta)] {
            if !(value > 0.0 && value < 0.5) {
                return Err(SprtParamError::Rate { key, value });
            }
        }
        if (model, unit) == (Model::Logistic, Unit::Discs) {
            return Err(SprtParamError::DiscsNeedNormalized);
        }
        Ok(SprtParams {
            elo0,
            elo1,
            alpha,
            beta,
            model,
            unit,
        })
    }

    /// `(A, B)`: the lower bound `ln(β/(1−α))` and the upper bound `ln((1−β)/α)`.
    pub fn bounds(&self) -> (f64, f64) {
        (
            (self.beta / (1.0 - self.alpha)).ln(),
            ((1.0 - self.beta) / self.alpha).ln(),
        )
    }

    /// The decision for a log-likelihood ratio.
    pub fn decide(&self, llr: f64) -> Decision {
        let (a, b) = self.bounds();
        if llr >= b {
            Decision::AcceptH1
        } else if llr <= a {
            Decision::AcceptH0
        } else {
            Decision::Continue
        }
    }

    /// The LLR of a sample of this test's unit.
    pub fn llr(&self, sample: &Sample) -> f64 {
        match self.model {
            Model::Logistic => llr_logistic(self.elo0, self.elo1, sample),
            Model::Normalized => llr_normalized(self.elo0, self.elo1, sample, self.unit),
        }
    }
}

/// Observations: counts per score value, values in `[0, 1]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub values: Vec<f64>,
    pub counts: Vec<f64>,
}

impl Sample {
    /// Games as wins, draws, losses.
    pub fn trinomial(wins: u64, draws: u64, losses: u64) -> Sample {
        Sample {
            values: vec![0.0, 0.5, 1.0],
            counts: vec![losses as f64, draws as f64, wins as f64],
        }
    }

    /// Pairs as LL, LD, WL+DD, WD, WW.
    pub fn pentanomial(counts: [u64; 5]) -> Sample {
        Sample {
            values: vec![0.0, 0.25, 0.5, 0.75, 1.0],
            counts: counts.iter().map(|&c| c as f64).collect(),
        }
    }

    /// Pairs by their summed disc difference (−128..=128), mapped to `(d + 128) / 256`. The two
    /// extreme outcomes (−128 and +128) are always part of the support, with a zero count when
    /// unseen (then regularised like any zero count): without them a sample whose pairs all lie on
    /// one side of ½ could satisfy no hypothesis at all.
    pub fn discs(pair_sums: &[i64]) -> Sample {
        let mut hist = std::collections::BTreeMap::new();
        hist.insert(-128, 0.0);
        hist.insert(128, 0.0);
        for &d in pair_sums {
            *hist.entry(d.clamp(-128, 128)).or_insert(0.0) += 1.0;
        }
        Sample {
            values: hist.keys().map(|&d| (d + 128) as f64 / 256.0).collect(),
            counts: hist.values().copied().collect(),
        }
    }

    /// Total observations (before regularisation).
    pub fn total(&self) -> f64 {
        self.counts.iter().sum()
    }

    /// The regularised empirical distribution: (N, p̂).
    fn pdf(&self) -> (f64, Vec<f64>) {
        let counts: Vec<f64> = self
            .counts
            .iter()
            .map(|&c| if c > 0.0 { c } else { ZERO_COUNT })
            .collect();
        let n: f64 = counts.iter().sum();
        (n, counts.iter().map(|c| c / n).collect())
    }

    /// Mean and variance of a distribution over this sample's values.
    fn moments(&self, p: &[f64]) -> (f64, f64) {
        let mu: f64 = p.iter().zip(&self.values).map(|(p, a)| p * a).sum();
        let var: f64 = p
            .iter()
            .zip(&self.values)
            .map(|(p, a)| p * (a - mu) * (a - mu))
            .sum();
        (mu, var)
    }
}

/// The counts a sequential test reads, for candidate `a` against baseline `b`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MatchTally {
    pub a: String,
    pub b: String,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Complete pairs by `a`'s pair score: LL, LD, WL+DD, WD, WW.
    pub pentanomial: [u64; 5],
    /// Per complete pair, in the order added: the sum of its two disc differences from `a`'s view.
    pub pair_disc_sums: Vec<i64>,
}

impl MatchTally {
    pub fn new(a: &str, b: &str) -> MatchTally {
        MatchTally {
            a: a.to_string(),
            b: b.to_string(),
            ..MatchTally::default()
        }
    }

    /// Count a game, if it is one between `a` and `b`.
    pub fn add_game(&mut self, game: &GameOutcome) {
        let (a, b) = (self.a.as_str(), self.b.as_str());
        let diff = if game.black == a && game.white == b {
            i64::from(game.black_disc_diff)
        } else if game.black == b && game.white == a {
            -i64::from(game.black_disc_diff)
        } else {
            return;
        };
        match result_half_points(diff) {
            2 => self.wins += 1,
            1 => self.draws += 1,
            _ => self.losses += 1,
        }
    }

    /// Count two games as a pair, if they form one between `a` and `b`.
    pub fn add_pair(&mut self, first: &GameOutcome, second: &GameOutcome) {
        let opponent_is_b = [&first.black, &first.white].contains(&&self.b);
        if !opponent_is_b {
            return;
        }
        if let Some(seen) = pair_observation(first, second, &self.a) {
            self.pentanomial[usize::from(seen.half_points[0] + seen.half_points[1])] += 1;
            self.pair_disc_sums.push(seen.disc_sum);
        }
    }

    /// Complete pairs counted.
    pub fn pairs(&self) -> u64 {
        self.pentanomial.iter().sum()
    }
}

impl From<&MatchStats> for MatchTally {
    fn from(m: &MatchStats) -> MatchTally {
        MatchTally {
            a: m.a.clone(),
            b: m.b.clone(),
            wins: m.wins.into(),
            draws: m.draws.into(),
            losses: m.losses.into(),
            pentanomial: m.pentanomial.map(u64::from),
            pair_disc_sums: m.pair_disc_sums.clone(),
        }
    }
}

/// The state of a test after the games played so far.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtStatus {
    pub params: SprtParams,
    pub llr: f64,
    /// `A = ln(β/(1−α))`.
    pub lower: f64,
    /// `B = ln((1−β)/α)`.
    pub upper: f64,
    pub decision: Decision,
    /// Complete pairs (pentanomial, discs) or games (trinomial) the LLR is computed from.
    pub observations: u64,
}

impl SprtParams {
    /// The sample of this test's unit from a match's statistics (candidate = `stats.a`).
    pub fn sample(&self, stats: &MatchStats) -> Sample {
        self.sample_of(&MatchTally::from(stats))
    }

    /// The sample of this test's unit from running counts (candidate = `tally.a`).
    pub fn sample_of(&self, tally: &MatchTally) -> Sample {
        match self.unit {
            Unit::Trinomial => Sample::trinomial(tally.wins, tally.draws, tally.losses),
            Unit::Pentanomial => Sample::pentanomial(tally.pentanomial),
            Unit::Discs => Sample::discs(&tally.pair_disc_sums),
        }
    }

    /// The test on `records`: `candidate` against `baseline`, every game between them.
    pub fn status_of_records(
        &self,
        records: &[crate::record::GameRecord],
        candidate: &str,
        baseline: &str,
    ) -> SprtStatus {
        let outcomes = crate::record::outcomes(records);
        self.status(&super::match_stats(&outcomes, candidate, baseline))
    }

    /// The test's state for a match's statistics.
    pub fn status(&self, stats: &MatchStats) -> SprtStatus {
        self.status_of(&MatchTally::from(stats))
    }

    /// The test's state for running counts.
    pub fn status_of(&self, tally: &MatchTally) -> SprtStatus {
        self.status_of_sample(&self.sample_of(tally))
    }

    /// The test's state for a sample of its unit (`harness sprt` from counts alone).
    pub fn status_of_sample(&self, sample: &Sample) -> SprtStatus {
        let llr = self.llr(sample);
        let (lower, upper) = self.bounds();
        SprtStatus {
            params: *self,
            llr,
            lower,
            upper,
            decision: self.decide(llr),
            observations: sample.total() as u64,
        }
    }
}

/// The expected score of a logistic Elo difference.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Root of `Σ p̂_i v_i / (1 + ν v_i)`, the multiplier of the constrained maximum likelihood.
/// `None` when all `v_i` have one sign (the constraint is outside the values' range).
fn multiplier(phat: &[f64], v: &[f64]) -> Option<f64> {
    let vmax = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let vmin = v.iter().copied().fold(f64::INFINITY, f64::min);
    if vmax <= 0.0 || vmin >= 0.0 {
        return None;
    }
    // 1 + ν v_i > 0 for all i  <=>  −1/vmax < ν < −1/vmin.
    let (mut lo, mut hi) = (-1.0 / vmax, -1.0 / vmin);
    let f = |nu: f64| -> f64 {
        phat.iter()
            .zip(v)
            .map(|(p, v)| p * v / (1.0 + nu * v))
            .sum()
    };
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// The maximum-likelihood distribution with expected score `s`.
fn mle_with_mean(sample: &Sample, phat: &[f64], s: f64) -> Vec<f64> {
    let v: Vec<f64> = sample.values.iter().map(|a| a - s).collect();
    match multiplier(phat, &v) {
        Some(nu) => phat
            .iter()
            .zip(&v)
            .map(|(p, v)| p / (1.0 + nu * v))
            .collect(),
        None => phat.to_vec(),
    }
}

/// The maximum-likelihood distribution with t-value `(μ − r)/σ = t`.
fn mle_with_t(sample: &Sample, phat: &[f64], r: f64, t: f64) -> Vec<f64> {
    // Start from the uniform distribution: positive everywhere, a well-defined σ.
    let k = phat.len();
    let mut p = vec![1.0 / k as f64; k];
    for _ in 0..1000 {
        let (mu, var) = sample.moments(&p);
        let sigma = var.sqrt().max(1e-12);
        let v: Vec<f64> = sample
            .values
            .iter()
            .map(|a| a - r - t * sigma / 2.0 - t * (a - mu) * (a - mu) / (2.0 * sigma))
            .collect();
        let Some(nu) = multiplier(phat, &v) else {
            return p;
        };
        let next: Vec<f64> = phat
            .iter()
            .zip(&v)
            .map(|(p, v)| p / (1.0 + nu * v))
            .collect();
        let moved = next
            .iter()
            .zip(&p)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        p = next;
        if moved < 1e-12 {
            break;
        }
    }
    p
}

fn llr_between(n: f64, phat: &[f64], p0: &[f64], p1: &[f64]) -> f64 {
    n * phat
        .iter()
        .zip(p0.iter().zip(p1))
        .map(|(h, (a, b))| h * (b / a).ln())
        .sum::<f64>()
}

/// GSPRT LLR for logistic Elo bounds.
pub fn llr_logistic(elo0: f64, elo1: f64, sample: &Sample) -> f64 {
    if sample.total() == 0.0 {
        return 0.0;
    }
    let (n, phat) = sample.pdf();
    let p0 = mle_with_mean(sample, &phat, score_of_elo(elo0));
    let p1 = mle_with_mean(sample, &phat, score_of_elo(elo1));
    llr_between(n, &phat, &p0, &p1)
}

/// GSPRT LLR for normalised Elo bounds.
pub fn llr_normalized(nelo0: f64, nelo1: f64, sample: &Sample, unit: Unit) -> f64 {
    if sample.total() == 0.0 {
        return 0.0;
    }
    let scale = match unit {
        Unit::Trinomial => 1.0,
        Unit::Pentanomial | Unit::Discs => std::f64::consts::SQRT_2,
    };
    let (n, phat) = sample.pdf();
    let p0 = mle_with_t(sample, &phat, 0.5, scale * nelo0 / NELO_PER_T);
    let p1 = mle_with_t(sample, &phat, 0.5, scale * nelo1 / NELO_PER_T);
    llr_between(n, &phat, &p0, &p1)
}

/// Normalised Elo of a sample with a 95% interval: `(μ − ½)/σ_game · 800/ln 10`.
/// `None` for an empty sample or one without spread.
pub fn normalized_elo(sample: &Sample, unit: Unit) -> Option<crate::stats::Estimate> {
    normalized_elo_counting(sample, unit, sample.total())
}

/// [`normalized_elo`] with the interval of `independent` observations, fewer than the sample's
/// when they are not independent (pairs clustered by opening, [`crate::stats::openings`]); the
/// value is the sample's.
pub fn normalized_elo_counting(
    sample: &Sample,
    unit: Unit,
    independent: f64,
) -> Option<crate::stats::Estimate> {
    let n = sample.total();
    if n < 1.0 {
        return None;
    }
    let p: Vec<f64> = sample.counts.iter().map(|c| c / n).collect();
    let (mu, var) = sample.moments(&p);
    if var <= 0.0 {
        return None;
    }
    let per_game = match unit {
        Unit::Trinomial => 1.0,
        Unit::Pentanomial | Unit::Discs => std::f64::consts::SQRT_2,
    };
    let sigma_game = var.sqrt() * per_game;
    let value = (mu - 0.5) / sigma_game * NELO_PER_T;
    // The t-value's standard error is about 1/sqrt(N) per unit.
    let half = 1.959964 / independent.sqrt() / per_game * NELO_PER_T;
    Some(crate::stats::Estimate {
        value,
        low: value - half,
        high: value + half,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `as_str` spells a model and a unit as serde does (the file and `report.json`).
    #[test]
    fn names_are_the_serialized_ones() {
        let json = |v: serde_json::Value| v.as_str().map(str::to_string);
        for m in [Model::Logistic, Model::Normalized] {
            assert_eq!(
                json(serde_json::to_value(m).unwrap()).as_deref(),
                Some(m.as_str())
            );
        }
        for u in [Unit::Trinomial, Unit::Pentanomial, Unit::Discs] {
            assert_eq!(
                json(serde_json::to_value(u).unwrap()).as_deref(),
                Some(u.as_str())
            );
        }
    }

    /// One rule set for the file, `harness sprt` and `harness sprt-sim` (sprt-sim
    /// once accepted elo0 > elo1).
    #[test]
    fn parameters_are_checked_in_one_place() {
        use Model::{Logistic, Normalized};
        use Unit::{Discs, Pentanomial};
        let new = SprtParams::new;
        assert!(new(0.0, 5.0, 0.05, 0.05, Logistic, Pentanomial).is_ok());
        assert!(new(-5.0, 0.0, 0.05, 0.05, Normalized, Discs).is_ok());
        let key = |r: Result<SprtParams, SprtParamError>| r.unwrap_err().key();
        assert_eq!(
            key(new(5.0, 0.0, 0.05, 0.05, Logistic, Pentanomial)),
            "elo1"
        );
        assert_eq!(
            key(new(5.0, 5.0, 0.05, 0.05, Logistic, Pentanomial)),
            "elo1"
        );
        assert_eq!(
            key(new(f64::NAN, 5.0, 0.05, 0.05, Logistic, Pentanomial)),
            "elo0"
        );
        assert_eq!(
            key(new(0.0, f64::INFINITY, 0.05, 0.05, Logistic, Pentanomial)),
            "elo1"
        );
        assert_eq!(
            key(new(0.0, 5.0, 0.0, 0.05, Logistic, Pentanomial)),
            "alpha"
        );
        assert_eq!(key(new(0.0, 5.0, 0.05, 0.5, Logistic, Pentanomial)), "beta");
        assert_eq!(
            key(new(0.0, 5.0, 0.05, f64::NAN, Logistic, Pentanomial)),
            "beta"
        );
        assert_eq!(key(new(0.0, 5.0, 0.05, 0.05, Logistic, Discs)), "unit");
    }

    fn params(model: Model, unit: Unit) -> SprtParams {
        SprtParams {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model,
            unit,
        }
    }

    /// The issue's reference values (fishtest's published examples): W-D-L 25-7-18 with
    /// pairs LL 3, LD 2, WL 10, DD 1, WD 3, WW 6.
    #[test]
    fn reproduces_reference_small_sample() {
        let penta = Sample::pentanomial([3, 2, 11, 3, 6]);
        let l = params(Model::Logistic, Unit::Pentanomial).llr(&penta);
        let n = params(Model::Normalized, Unit::Pentanomial).llr(&penta);
        assert!((l - 0.1167).abs() < 1e-4, "logistic pentanomial {l}");
        assert!((n - 0.1060).abs() < 1e-4, "normalized pentanomial {n}");
        let elo = crate::stats::elo_from_score((25.0 + 3.5) / 50.0);
        assert!((elo - 48.963).abs() < 1e-3, "{elo}");
    }

    /// 1630-190-1780 with pairs 400, 80, 900, 20, 70, 330: H0 accepted (logistic) and continue
    /// (normalised).
    #[test]
    fn reproduces_reference_large_sample() {
        let penta = Sample::pentanomial([400, 80, 920, 70, 330]);
        let pl = params(Model::Logistic, Unit::Pentanomial);
        let pn = params(Model::Normalized, Unit::Pentanomial);
        let l = pl.llr(&penta);
        let n = pn.llr(&penta);
        assert!((l - -2.9649).abs() < 1e-4, "logistic pentanomial {l}");
        assert!((n - -2.7097).abs() < 1e-4, "normalized pentanomial {n}");
        assert_eq!(pl.decide(l), Decision::AcceptH0);
        assert_eq!(pn.decide(n), Decision::Continue);
        let elo = crate::stats::elo_from_score((1630.0 + 95.0) / 3600.0);
        assert!((elo - -14.485).abs() < 1e-3, "{elo}");
    }

    #[test]
    fn bounds_follow_alpha_and_beta() {
        let (a, b) = params(Model::Logistic, Unit::Trinomial).bounds();
        assert!((a - (0.05f64 / 0.95).ln()).abs() < 1e-12);
        assert!((b - (0.95f64 / 0.05).ln()).abs() < 1e-12);
        assert!((a + 2.944439).abs() < 1e-6 && (b - 2.944439).abs() < 1e-6);
    }

    /// Swapping the engines mirrors the sample; the LLR of [e0, e1] becomes that of [−e1, −e0]
    /// with the sign flipped (the two hypotheses trade places).
    #[test]
    fn swapping_engines_mirrors_the_test() {
        for model in [Model::Logistic, Model::Normalized] {
            let s = Sample::pentanomial([7, 12, 40, 15, 9]);
            let mirrored = Sample::pentanomial([9, 15, 40, 12, 7]);
            let p = SprtParams {
                elo0: -3.0,
                elo1: 4.0,
                ..params(model, Unit::Pentanomial)
            };
            let q = SprtParams {
                elo0: -4.0,
                elo1: 3.0,
                ..p
            };
            let a = p.llr(&s);
            let b = q.llr(&mirrored);
            assert!((a + b).abs() < 1e-9, "{model:?}: {a} vs {b}");
        }
    }

    /// The LLR grows with the evidence: more of the same results, further from zero.
    #[test]
    fn llr_scales_with_sample_size() {
        let p = params(Model::Logistic, Unit::Trinomial);
        let one = p.llr(&Sample::trinomial(60, 20, 40));
        let two = p.llr(&Sample::trinomial(120, 40, 80));
        assert!(one > 0.0 && (two - 2.0 * one).abs() < 1e-6 * two.abs().max(1.0));
    }

    #[test]
    fn degenerate_samples_are_finite() {
        for model in [Model::Logistic, Model::Normalized] {
            for unit in [Unit::Trinomial, Unit::Pentanomial] {
                let p = params(model, unit);
                for s in [
                    Sample::trinomial(10, 0, 0),
                    Sample::trinomial(0, 10, 0),
                    Sample::trinomial(0, 0, 10),
                    Sample::trinomial(0, 0, 0),
                    Sample::pentanomial([0, 0, 0, 0, 30]),
                    Sample::pentanomial([0, 0, 30, 0, 0]),
                ] {
                    let llr = p.llr(&s);
                    assert!(llr.is_finite(), "{model:?} {unit:?} {s:?}: {llr}");
                }
            }
        }
        let all_wins = params(Model::Logistic, Unit::Trinomial).llr(&Sample::trinomial(400, 0, 0));
        assert!(all_wins > 0.0);
        let all_losses =
            params(Model::Logistic, Unit::Trinomial).llr(&Sample::trinomial(0, 0, 400));
        assert!(all_losses < 0.0);
    }

    /// Under the constraint the MLE really has the asked expected score / t-value.
    #[test]
    fn constrained_mle_meets_its_constraint() {
        let s = Sample::pentanomial([5, 9, 30, 12, 8]);
        let (_, phat) = s.pdf();
        let p = mle_with_mean(&s, &phat, 0.55);
        let (mu, _) = s.moments(&p);
        assert!((mu - 0.55).abs() < 1e-9 && (p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        let p = mle_with_t(&s, &phat, 0.5, 0.12);
        let (mu, var) = s.moments(&p);
        assert!(((mu - 0.5) / var.sqrt() - 0.12).abs() < 1e-9);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
}

#[cfg(test)]
mod disc_tests {
    use super::*;

    /// The t-constrained MLE converges on disc samples too (many distinct values, few pairs).
    #[test]
    fn t_constrained_mle_converges_on_disc_samples() {
        let mut state = 12345u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut worst: f64 = 0.0;
        for n in [2usize, 3, 5, 8, 13, 30, 100] {
            for _ in 0..20 {
                let sums: Vec<i64> = (0..n).map(|_| (next() % 120) as i64 - 30).collect();
                let s = Sample::discs(&sums);
                let (_, phat) = s.pdf();
                for t in [0.0, 0.0614, -0.0614] {
                    let p = mle_with_t(&s, &phat, 0.5, t);
                    let (mu, var) = s.moments(&p);
                    let got = (mu - 0.5) / var.sqrt();
                    worst = worst.max((got - t).abs());
                }
            }
        }
        assert!(worst < 1e-6, "worst constraint error {worst}");
    }
}
