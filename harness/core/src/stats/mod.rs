//! Statistics of a tournament: per-match Elo estimates, joint ratings, the sequential test and
//! the run's verdict.
//!
//! Everything here is a pure function of finished games ([`GameOutcome`]s or records), so the
//! final table of a run, `harness stats FILE` (which re-reads the journal) and `harness merge`
//! compute identical numbers. This module (match statistics) and its parts:
//! - [`ratings`]: the joint Bradley-Terry rating of more than two engines;
//! - [`openings`]: pairs that share an opening, and what the intervals count when openings
//!   repeat (the rule for everything below when a pairing plays an opening more than once);
//! - [`sprt`]: the sequential probability ratio test; [`sprt_sim`]: its resampling study;
//! - [`running`]: totals kept game by game while a run goes on (constant work per game);
//! - [`verdict`]: the fail-on rules and the decision, mapped to the exit code;
//! - [`usage`]: each engine's searches: mean depth, time per move, nodes per second;
//! - [`spsa`]: the SPSA tuning method's gains, perturbations and updates (`harness tune`).
//!
//! # The statistical unit: the game pair
//!
//! Every opening is played twice by the same two engines with the colours swapped. The two
//! games of such a *pair* are strongly correlated (a lopsided opening helps whoever has the good
//! side, once for each engine), so treating the games as independent draws would overstate the
//! noise: the opening's bias cancels inside a pair. All interval estimates below that are labelled
//! "paired" therefore use one number per complete pair, never one per game.
//!
//! Two outcomes with the same [`GameOutcome::pair`] between the same two engines form a complete
//! pair when there are exactly two of them and each engine had Black once. Any other group (a lone
//! game whose partner was never played, or a malformed group: two games with the same colours, or
//! three or more games under one id) is *incomplete*: its games count in the win/draw/loss totals,
//! the score, the draw ratio and the trinomial estimate, but not in the pentanomial counts, the
//! pentanomial Elo, the LOS or the disc difference, and they are reported in
//! [`MatchStats::incomplete_games`]. Pair ids are only compared among the games of one engine
//! pair, so a journal may reuse an opening index as the pair id across different matches.
//!
//! Self-play games (`black == white`) carry no information about the strength of one engine
//! relative to another; every function here ignores them.
//!
//! # Score to Elo
//!
//! Under the logistic Elo model a player rated `D` points above its opponent is expected to score
//! `x = 1 / (1 + 10^(-D/400))`. Solving for `D`:
//!
//! ```text
//! 1/x = 1 + 10^(-D/400)  =>  10^(-D/400) = 1/x - 1  =>  Elo(x) = D = -400 * log10(1/x - 1)
//! ```
//!
//! `Elo(1/2) = 0`, `Elo(1 - x) = -Elo(x)` and `Elo` diverges at 0 and 1. A score of exactly 0 or
//! 1 is therefore clamped to `[1e-6, 1 - 1e-6]` first, so a clean sweep reports about ±2400 Elo
//! (a large finite number) and never infinity or NaN. See [`elo_from_score`].
//!
//! # Pentanomial model (the headline Elo of a match)
//!
//! For each of the `N` complete pairs, the pair score is `s_i = (points of the two games) / 2`,
//! one of `0, 0.25, 0.5, 0.75, 1` (LL, LD, WL or DD, WD, WW: the five categories counted in
//! [`MatchStats::pentanomial`]). The `s_i` are independent, identically distributed draws from a
//! five-point distribution, so by the central limit theorem their mean is approximately normal:
//!
//! ```text
//! mu  = (1/N) * sum s_i
//! var = (1/N) * sum (s_i - mu)^2        (population variance, as fishtest and fastchess use)
//! se  = sqrt(var / N)                    (standard error of mu)
//! Elo = Elo(mu),  95% interval = [Elo(mu - 1.959964 se), Elo(mu + 1.959964 se)]
//! ```
//!
//! The interval is built on the score scale, where the normal approximation holds, and then
//! mapped through the monotone `Elo` function, so it is not symmetric in Elo. Both ends are
//! clamped like the value. 1.959964 is the 97.5% quantile of the standard normal distribution.
//!
//! The likelihood of superiority is the probability, under the same normal approximation, that the
//! true expected score exceeds one half: `LOS = Phi((mu - 0.5) / se)` with `Phi` the standard
//! normal CDF. When `se == 0` (every pair had the same score) the normal law degenerates to a point
//! mass at `mu`, giving `LOS = 1` if `mu > 0.5`, `0` if `mu < 0.5` and `0.5` if `mu == 0.5`.
//!
//! # Samples where the normal interval fails
//!
//! With no spread (every pair won, every game drawn, every pair WL) the interval above has zero
//! width, and near the ends of the score scale (15 wins of 16) it leaves the possible scores:
//! `+2400 [+2400, +2400]` for 16 wins of 16, which no finite sample justifies. Where
//! `se == 0` or a bound falls outside `(0, 1)`, the estimate is the **Jeffreys interval**
//! instead (Brown, Cai and DasGupta 2001 recommend it over the normal one for exactly these
//! cases): the `N` observations (pairs, or games for the trinomial model) count as Bernoulli
//! trials with `N mu` successes, the most spread-out law with that mean, and the expected score
//! gets the posterior `Beta(N mu + 1/2, N (1 - mu) + 1/2)` of the Jeffreys prior. The value is
//! its median, the interval its 2.5% and 97.5% quantiles, the LOS its mass above 1/2, all
//! mapped to Elo. It is always finite, never of zero width, and shrinks as the sample grows:
//! 8 pairs all won give `+621.5 [+179.7, +1690.2]`, 16 give `+740.4 [+310.8, +1807.9]`; 4 pairs
//! all drawn give `+0.0 [-241.9, +241.9]`. (Fishtest regularises empty pentanomial bins with a
//! small count for its LLR; that keeps the LLR finite but leaves the interval of a one-sided
//! sample as degenerate as before, so it is not used here.)
//!
//! # Trinomial model (for comparison)
//!
//! The same construction over single games (score 0, 0.5 or 1 per game, mean and population
//! variance over games), ignoring the pairing. It uses all games between the two engines, paired
//! or not. Comparing its interval with the pentanomial one shows how much the pairing reduces
//! the noise.
//!
//! # Disc difference
//!
//! For each complete pair played out (neither game forfeited: a forfeit's ±64 is a result, not a
//! disc count, so such pairs count in the score and the Elo but not here), `d_i` is the sum of
//! the two games' final disc differences from A's view
//! (Black's difference for the game where A had Black, its negation for the other). The `d_i` are
//! independent, but their variance is unknown and `N` may be small, so the interval is Student's t
//! with `N - 1` degrees of freedom and the *sample* variance (denominator `N - 1`, the unbiased
//! estimate that the t distribution assumes):
//!
//! ```text
//! m = (1/N) sum d_i,  s^2 = (1/(N-1)) sum (d_i - m)^2,  h = t_{0.975, N-1} * s / sqrt(N)
//! per-game estimate = m / 2,  95% interval = [(m - h) / 2, (m + h) / 2]
//! ```
//!
//! Dividing by two turns "discs per pair" into "discs per game". A game's disc difference lies
//! in `[-64, 64]`, and so does its mean: the interval is clipped to that range (with few pairs
//! and a large spread the t interval reaches beyond it). With one complete pair there is no
//! variance estimate and the t interval has infinite width: this module then still reports the
//! mean, with the whole range `[-64, +64]` as its interval (the value is informative, the
//! interval honestly is not). With no complete pair the estimate is `None`.
//!

pub mod analysis;
pub mod openings;
pub mod ratings;
pub mod running;
pub mod sprt;
pub mod sprt_sim;
pub mod spsa;
pub mod test_decision;
pub mod usage;
pub mod verdict;

pub use ratings::{ratings, Rating};

use crate::record::GameOutcome;
use std::collections::HashMap;
use std::fmt;

use serde::Serialize;
use statrs::distribution::{Beta, ContinuousCDF, Normal, StudentsT};

/// The 97.5% quantile of the standard normal distribution, used for every 95% normal interval.
pub(crate) const Z95: f64 = 1.959964;

/// Scores are clamped into `[SCORE_CLAMP, 1 - SCORE_CLAMP]` before conversion to Elo.
const SCORE_CLAMP: f64 = 1e-6;

/// Elo points per natural-log-odds unit: `400 / ln(10)`.
pub(crate) const ELO_PER_NAT: f64 = 400.0 / std::f64::consts::LN_10;

/// A point estimate with its 95% interval `[low, high]`.
///
/// `low <= value <= high` always holds. Displayed as
/// `+88.7 [+12.3, +170.2]`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// The point estimate.
    pub value: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

impl fmt::Display for Estimate {
    /// Formats as `+88.7 [+12.3, +170.2]`: one decimal, explicit signs, `+inf`/`-inf` for
    /// infinite bounds. Width and alignment flags apply to the whole text (`{:>24}`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // What prints as zero prints as `+0.0`: a negative zero, or a tiny negative value from
        // rounding (a quantile a hair below 1/2), must not show as `-0.0`.
        let z = |x: f64| if x.abs() < 0.05 { 0.0 } else { x };
        let text = format!(
            "{:+.1} [{:+.1}, {:+.1}]",
            z(self.value),
            z(self.low),
            z(self.high)
        );
        f.pad(&text)
    }
}

/// Head-to-head statistics of engine `a` against engine `b`, everything from `a`'s point of view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MatchStats {
    /// The engine whose point of view the numbers take ("A").
    pub a: String,
    /// The opponent ("B").
    pub b: String,
    /// Games between A and B, in either colour, complete pairs or not.
    pub games: u32,
    /// Games A won.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games A lost.
    pub losses: u32,
    /// A's score fraction `(wins + draws / 2) / games`, in `0..=1`; 0 when there are no games.
    pub score: f64,
    /// Complete pairs by A's pair score of 0, 0.5, 1, 1.5 and 2 points, i.e. the categories
    /// LL, LD, WL+DD, WD, WW in that order.
    pub pentanomial: [u32; 5],
    /// Number of complete pairs (the sum of `pentanomial`).
    pub pairs: u32,
    /// Elo difference A - B with 95% interval from the pentanomial model; `None` without any
    /// complete pair.
    pub elo: Option<Estimate>,
    /// Elo difference A - B with 95% interval from the trinomial (per-game) model over all games;
    /// `None` without games.
    pub elo_trinomial: Option<Estimate>,
    /// Likelihood of superiority of A from the pentanomial model, in `0..=1`; `None` without any
    /// complete pair.
    pub los: Option<f64>,
    /// Fraction of the games that were drawn; 0 when there are no games.
    pub draw_ratio: f64,
    /// Mean final disc difference per game from A's view with a paired Student's t 95% interval,
    /// over the complete pairs without a forfeit (a forfeit's ±64 is a result, not a disc
    /// count), the interval within `[-64, 64]`; `None` without any such pair, the whole range
    /// with exactly one.
    pub disc_diff: Option<Estimate>,
    /// Complete pairs left out of `disc_diff` because one of their games was forfeited.
    pub disc_pairs_with_forfeit: u32,
    /// Games between A and B that are not part of a complete pair (partner missing or malformed
    /// pair id); excluded from `pentanomial`, `elo`, `los` and `disc_diff`.
    pub incomplete_games: u32,
    /// Per complete pair, in pair order: the sum of the two games' disc differences from A's
    /// view (the sample of the disc-difference sequential test, forfeits at ±64 included).
    #[serde(skip)]
    pub pair_disc_sums: Vec<i64>,
    /// Distinct openings among the complete pairs (a pair of unknown opening counts as one of
    /// its own): fewer than `pairs` when openings repeat ([`openings`]).
    pub openings: u32,
    /// The number of independent pairs the pentanomial interval counts: `pairs` when no
    /// opening repeats, fewer when they do ([`openings`]).
    pub effective_pairs: f64,
}

impl MatchStats {
    /// How the complete pairs spread over openings.
    pub fn clusters(&self) -> openings::PairClusters {
        openings::PairClusters {
            pairs: self.pairs,
            openings: self.openings,
        }
    }
}

/// Converts an expected score fraction into an Elo difference: `-400 * log10(1/x - 1)`.
///
/// `x` is first clamped into `[1e-6, 1 - 1e-6]`, so 0 and 1 give about ∓2400 instead of
/// infinities; NaN input gives 0.
pub fn elo_from_score(x: f64) -> f64 {
    if x.is_nan() {
        return 0.0;
    }
    let x = x.clamp(SCORE_CLAMP, 1.0 - SCORE_CLAMP);
    -400.0 * (1.0 / x - 1.0).log10()
}

/// Computes the head-to-head statistics of engine `a` against engine `b` from A's point of view.
///
/// Only games between `a` and `b` (in either colour) are used; pairs are identified by
/// [`GameOutcome::pair`] among those games. With `a == b` (self-play) or no such games the result
/// is empty: zero counts, zero fractions and `None` estimates.
pub fn match_stats(outcomes: &[GameOutcome], a: &str, b: &str) -> MatchStats {
    let games = outcomes
        .iter()
        .filter(|o| a != b && ((o.black == a && o.white == b) || (o.black == b && o.white == a)));
    match_stats_of(games, a, b)
}

/// Computes [`MatchStats`] for every unordered pair of engines that played each other.
///
/// Engines are numbered by the order in which their names first appear in `outcomes` (Black
/// before White within a game). For each pair, A is the engine that appeared first. The result is
/// ordered by A's number, then B's. Self-play games are ignored.
pub fn all_matches(outcomes: &[GameOutcome]) -> Vec<MatchStats> {
    let names = NameIndex::new(outcomes);
    let mut buckets: HashMap<(usize, usize), Vec<&GameOutcome>> = HashMap::new();
    for o in outcomes {
        if o.black == o.white {
            continue;
        }
        let (ib, iw) = (names.index(&o.black), names.index(&o.white));
        buckets.entry((ib.min(iw), ib.max(iw))).or_default().push(o);
    }
    let mut keys: Vec<(usize, usize)> = buckets.keys().copied().collect();
    keys.sort_unstable();
    keys.into_iter()
        .map(|key| {
            let (a, b) = (&names.names[key.0], &names.names[key.1]);
            match_stats_of(buckets[&key].iter().copied(), a, b)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Match statistics internals.

/// Names in order of first appearance (Black before White), self-play included.
struct NameIndex {
    names: Vec<String>,
    index: HashMap<String, usize>,
}

impl NameIndex {
    fn new(outcomes: &[GameOutcome]) -> Self {
        let mut names = Vec::new();
        let mut index = HashMap::new();
        for o in outcomes {
            for name in [&o.black, &o.white] {
                if !index.contains_key(name) {
                    index.insert(name.clone(), names.len());
                    names.push(name.clone());
                }
            }
        }
        NameIndex { names, index }
    }

    fn index(&self, name: &str) -> usize {
        self.index[name]
    }
}

/// One complete pair from engine A's view: the unit of every paired statistic.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairObservation {
    /// The pair id shared by the two games.
    pub pair: u64,
    /// A's half points in each game, in the order the games were given (0 loss, 1 draw, 2 win).
    pub half_points: [u8; 2],
    /// Sum of the two games' disc differences from A's view.
    pub disc_sum: i64,
    /// One of the games ended by a forfeit (its ±64 is a result, not a disc count).
    pub forfeit: bool,
    /// The opening the pair started from (its first game's), when known.
    pub opening: Option<u64>,
}

/// The two games as a pair seen by `a`, if they form one: same pair id, and `a` played Black in
/// exactly one of them (with the opponent the same in both). `None` otherwise.
pub fn pair_observation(
    first: &GameOutcome,
    second: &GameOutcome,
    a: &str,
) -> Option<PairObservation> {
    let swapped = first.pair == second.pair
        && first.black == second.white
        && first.white == second.black
        && (first.black == a || first.white == a);
    if !swapped {
        return None;
    }
    let (d0, d1) = (disc_diff_for(first, a), disc_diff_for(second, a));
    Some(PairObservation {
        pair: first.pair,
        half_points: [result_half_points(d0) as u8, result_half_points(d1) as u8],
        disc_sum: d0 + d1,
        forfeit: first.forfeit || second.forfeit,
        opening: first.opening,
    })
}

/// The complete pairs among games that all involve `a`, grouped by pair id in order of first
/// appearance (so results are deterministic), and the number of games left out: a pair id with
/// one game, three or more, or two games that are not colour-swapped (see the module docs).
pub fn complete_pairs<'g>(
    games: impl IntoIterator<Item = &'g GameOutcome>,
    a: &str,
) -> (Vec<PairObservation>, u32) {
    let mut group_of: HashMap<u64, usize> = HashMap::new();
    let mut groups: Vec<Vec<&GameOutcome>> = Vec::new();
    for o in games {
        let g = *group_of.entry(o.pair).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(o);
    }
    let mut pairs = Vec::new();
    let mut incomplete = 0;
    for group in &groups {
        match group[..] {
            [first, second] => match pair_observation(first, second, a) {
                Some(p) => pairs.push(p),
                None => incomplete += 2,
            },
            _ => incomplete += group.len() as u32,
        }
    }
    (pairs, incomplete)
}

/// Half points (0, 1 or 2) scored by the side whose disc difference this is.
pub(crate) fn result_half_points(disc_diff: i64) -> u64 {
    match disc_diff.signum() {
        1 => 2,
        0 => 1,
        _ => 0,
    }
}

/// Disc difference of one game from `a`'s point of view (widened so negation cannot overflow).
fn disc_diff_for(o: &GameOutcome, a: &str) -> i64 {
    let d = i64::from(o.black_disc_diff);
    if o.black == a {
        d
    } else {
        -d
    }
}

/// [`MatchStats`] from games already known to be between `a` and `b`.
fn match_stats_of<'g>(
    games: impl IntoIterator<Item = &'g GameOutcome>,
    a: &str,
    b: &str,
) -> MatchStats {
    let mut stats = MatchStats {
        a: a.to_string(),
        b: b.to_string(),
        games: 0,
        wins: 0,
        draws: 0,
        losses: 0,
        score: 0.0,
        pentanomial: [0; 5],
        pairs: 0,
        elo: None,
        elo_trinomial: None,
        los: None,
        draw_ratio: 0.0,
        disc_diff: None,
        incomplete_games: 0,
        pair_disc_sums: Vec::new(),
        disc_pairs_with_forfeit: 0,
        openings: 0,
        effective_pairs: 0.0,
    };

    let mut game_scores: Vec<f64> = Vec::new();
    let mut mine: Vec<&GameOutcome> = Vec::new();
    for o in games {
        let half_points = result_half_points(disc_diff_for(o, a));
        match half_points {
            2 => stats.wins += 1,
            1 => stats.draws += 1,
            _ => stats.losses += 1,
        }
        stats.games += 1;
        game_scores.push(half_points as f64 / 2.0);
        mine.push(o);
    }

    let (pairs, incomplete) = complete_pairs(mine, a);
    stats.incomplete_games = incomplete;
    let mut pair_scores: Vec<f64> = Vec::new();
    let mut pair_disc_sums: Vec<f64> = Vec::new();
    let mut played_out_disc_sums: Vec<f64> = Vec::new();
    for p in &pairs {
        let hp = p.half_points[0] + p.half_points[1];
        stats.pentanomial[hp as usize] += 1;
        pair_scores.push(f64::from(hp) / 4.0);
        pair_disc_sums.push(p.disc_sum as f64);
        // The disc estimate counts games that were played out: a forfeit's ±64 is a result,
        // not a disc count (the sequential test's sample keeps it: it is the engine's loss).
        if p.forfeit {
            stats.disc_pairs_with_forfeit += 1;
        } else {
            played_out_disc_sums.push(p.disc_sum as f64);
        }
    }
    stats.pairs = pair_scores.len() as u32;

    let games_f = f64::from(stats.games);
    stats.score = ratio(
        f64::from(stats.wins) + f64::from(stats.draws) / 2.0,
        games_f,
    );
    stats.draw_ratio = ratio(f64::from(stats.draws), games_f);
    stats.elo_trinomial = score_estimate(&game_scores).map(|(elo, _)| elo);
    let clusters = openings::Clusters::of(&pairs.iter().collect::<Vec<_>>());
    stats.openings = clusters.sizes().openings;
    stats.effective_pairs = f64::from(stats.pairs);
    if clusters.sizes().repeated() {
        // Pairs from one opening are one cluster (see `openings`).
        if let Some((elo, los, effective)) = openings::score_estimate(&pair_scores, &clusters) {
            stats.elo = Some(elo);
            stats.los = los;
            stats.effective_pairs = effective;
        }
        let played_out: Vec<&PairObservation> = pairs.iter().filter(|p| !p.forfeit).collect();
        stats.disc_diff = openings::disc_estimate(
            &played_out_disc_sums,
            &openings::Clusters::of(&played_out),
            clusters.sizes().withheld(),
        );
    } else {
        if let Some((elo, los)) = score_estimate(&pair_scores) {
            stats.elo = Some(elo);
            stats.los = Some(los);
        }
        stats.disc_diff = paired_disc_estimate(&played_out_disc_sums);
    }
    stats.pair_disc_sums = pair_disc_sums.iter().map(|&d| d as i64).collect();
    stats
}

/// Elo estimate with normal 95% interval and LOS from i.i.d. scores in `0..=1` (pair scores for
/// the pentanomial model, game scores for the trinomial one). `None` for an empty sample.
pub fn score_estimate(scores: &[f64]) -> Option<(Estimate, f64)> {
    if scores.is_empty() {
        return None;
    }
    let n = scores.len() as f64;
    let mu = scores.iter().sum::<f64>() / n;
    let var = scores.iter().map(|s| (s - mu) * (s - mu)).sum::<f64>() / n;
    Some(estimate_from_moments(mu, var, n))
}

/// [`score_estimate`] of pair scores given as pentanomial counts (LL, LD, WL+DD, WD, WW): the
/// same estimate without a list of scores, in constant time.
pub fn pentanomial_estimate(counts: &[u64; 5]) -> Option<(Estimate, f64)> {
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return None;
    }
    let n = n as f64;
    let score = |i: usize| i as f64 / 4.0;
    let mu = (0..5).map(|i| counts[i] as f64 * score(i)).sum::<f64>() / n;
    let var = (0..5)
        .map(|i| counts[i] as f64 * (score(i) - mu) * (score(i) - mu))
        .sum::<f64>()
        / n;
    Some(estimate_from_moments(mu, var, n))
}

/// The Elo estimate, its interval and the LOS from a sample's mean, population variance and
/// size: the normal interval where it holds, the Jeffreys interval where it does not (no
/// spread, or a bound outside the possible scores; see the module docs).
fn estimate_from_moments(mu: f64, var: f64, n: f64) -> (Estimate, f64) {
    let se = (var / n).sqrt();
    let (low, high) = (mu - Z95 * se, mu + Z95 * se);
    if !(se > 0.0 && low >= SCORE_CLAMP && high <= 1.0 - SCORE_CLAMP) {
        if let Some(jeffreys) = jeffreys_estimate(mu * n, n) {
            return jeffreys;
        }
    }
    let estimate = Estimate {
        value: elo_from_score(mu),
        low: elo_from_score(low),
        high: elo_from_score(high),
    };
    let los = if se > 0.0 {
        Normal::standard().cdf((mu - 0.5) / se)
    } else if mu > 0.5 {
        1.0
    } else if mu < 0.5 {
        0.0
    } else {
        0.5
    };
    (estimate, los)
}

/// The Jeffreys estimate of a score from `points` out of `n` (scores in 0..=1 treated as
/// Bernoulli trials, the most spread-out law with that mean): the posterior
/// Beta(points + 1/2, n - points + 1/2) of the expected score; its median as the value, its
/// 2.5% and 97.5% quantiles as the interval, P(score > 1/2) as the LOS.
fn jeffreys_estimate(points: f64, n: f64) -> Option<(Estimate, f64)> {
    let posterior = Beta::new(points + 0.5, n - points + 0.5).ok()?;
    let quantile = |p: f64| elo_from_score(posterior.inverse_cdf(p));
    let estimate = Estimate {
        value: quantile(0.5),
        low: quantile(0.025),
        high: quantile(0.975),
    };
    let finite = [estimate.value, estimate.low, estimate.high]
        .iter()
        .all(|x| x.is_finite());
    finite.then(|| (estimate, 1.0 - posterior.cdf(0.5)))
}

/// Mean disc difference per game with a Student's t 95% interval, from per-pair sums.
fn paired_disc_estimate(pair_sums: &[f64]) -> Option<Estimate> {
    /// The most discs one game can be won by.
    const MOST: f64 = 64.0;
    if pair_sums.is_empty() {
        return None;
    }
    let n = pair_sums.len() as f64;
    let mean = pair_sums.iter().sum::<f64>() / n;
    if pair_sums.len() == 1 {
        return Some(Estimate {
            value: mean / 2.0,
            low: -MOST,
            high: MOST,
        });
    }
    let sample_var = pair_sums
        .iter()
        .map(|d| (d - mean) * (d - mean))
        .sum::<f64>()
        / (n - 1.0);
    let se = (sample_var / n).sqrt();
    let t = t_quantile_975(n - 1.0);
    let half = t * se;
    Some(Estimate {
        value: mean / 2.0,
        low: ((mean - half) / 2.0).max(-MOST),
        high: ((mean + half) / 2.0).min(MOST),
    })
}

/// The 97.5% quantile of Student's t distribution with `df >= 1` degrees of freedom.
///
/// statrs inverts the regularised incomplete beta function, which is accurate for moderate `df`
/// but loses accuracy beyond about 1e4 and can stall beyond about 1e7 degrees of freedom. Above
/// 1000 the Cornish-Fisher expansion around the normal quantile is used instead; its first
/// neglected term is below 3e-9 there.
fn t_quantile_975(df: f64) -> f64 {
    const Z: f64 = 1.959963984540054;
    if df > 1000.0 || !df.is_finite() {
        let z3 = Z * Z * Z;
        let z5 = z3 * Z * Z;
        return Z + (z3 + Z) / (4.0 * df) + (5.0 * z5 + 16.0 * z3 + 3.0 * Z) / (96.0 * df * df);
    }
    StudentsT::new(0.0, 1.0, df.max(1.0))
        .map(|dist| dist.inverse_cdf(0.975))
        .ok()
        .filter(|t| t.is_finite() && *t > 0.0)
        .unwrap_or(Z95)
}

/// `num / den`, or 0 when `den` is 0.
pub(crate) fn ratio(num: f64, den: f64) -> f64 {
    if den > 0.0 {
        num / den
    } else {
        0.0
    }
}

pub(crate) fn finite_or_zero(x: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        0.0
    }
}

pub(crate) fn saturating_u32(x: u64) -> u32 {
    u32::try_from(x).unwrap_or(u32::MAX)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn game(pair: u64, black: &str, white: &str, black_disc_diff: i32) -> GameOutcome {
        GameOutcome {
            pair,
            black: black.to_string(),
            white: white.to_string(),
            black_disc_diff,
            forfeit: false,
            opening: None,
        }
    }

    pub(crate) fn close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "expected {expected}, got {actual}"
        );
    }

    fn close_estimate(actual: Estimate, value: f64, low: f64, high: f64) {
        close(actual.value, value, 1e-6);
        close(actual.low, low, 1e-6);
        close(actual.high, high, 1e-6);
    }

    fn assert_no_nan(s: &MatchStats) {
        let mut numbers = vec![s.score, s.draw_ratio];
        for e in [s.elo, s.elo_trinomial, s.disc_diff].into_iter().flatten() {
            numbers.extend([e.value, e.low, e.high]);
        }
        numbers.extend(s.los);
        assert!(numbers.iter().all(|x| !x.is_nan()), "NaN in {s:?}");
    }

    /// Two complete pairs (WL and WD for A) and one game whose partner is missing.
    fn two_pairs_and_a_loner() -> Vec<GameOutcome> {
        vec![
            // Pair 1: A wins with Black by 10; B wins with Black by 6 -> A: W, L, discs +10 - 6 = +4.
            game(1, "A", "B", 10),
            game(1, "B", "A", 6),
            // Pair 2: A wins with Black by 20; B draws with Black -> A: W, D, discs +20 + 0 = +20.
            game(2, "A", "B", 20),
            game(2, "B", "A", 0),
            // Pair 3: only one game, A wins with Black by 64 (a forfeit): incomplete.
            game(3, "A", "B", 64),
            // Games with another engine are not part of A vs B.
            game(4, "A", "C", -30),
            game(4, "C", "A", 30),
        ]
    }

    #[test]
    fn elo_from_score_matches_formula_and_clamps() {
        // Elo(0.75) = -400 log10(1/0.75 - 1) = -400 log10(1/3) = 400 log10 3 = 190.848501887865
        close(elo_from_score(0.75), 190.848501887865, 1e-9);
        close(elo_from_score(0.25), -190.848501887865, 1e-9);
        assert_eq!(elo_from_score(0.5), 0.0);
        // Clamped: Elo(1 - 1e-6) = -400 log10(1e-6 / 0.999999) = 2400 + 400 log10(0.999999)
        // = 2400 - 0.000173718 = 2399.999826281142
        close(elo_from_score(1.0), 2399.999826281142, 1e-6);
        close(elo_from_score(0.0), -2399.999826281142, 1e-6);
        close(elo_from_score(f64::INFINITY), 2399.999826281142, 1e-6);
        assert_eq!(elo_from_score(f64::NAN), 0.0);
    }

    #[test]
    fn pentanomial_hand_example() {
        let s = match_stats(&two_pairs_and_a_loner(), "A", "B");
        assert_eq!((s.a.as_str(), s.b.as_str()), ("A", "B"));
        // W/D/L counts include the incomplete game: W L W D W.
        assert_eq!((s.games, s.wins, s.draws, s.losses), (5, 3, 1, 1));
        close(s.score, 3.5 / 5.0, 1e-12);
        close(s.draw_ratio, 0.2, 1e-12);
        // WL -> 1 point (index 2), WD -> 1.5 points (index 3).
        assert_eq!(s.pentanomial, [0, 0, 1, 1, 0]);
        assert_eq!(s.pairs, 2);
        assert_eq!(s.incomplete_games, 1);

        // Pair scores 0.5 and 0.75: mu = 0.625, var = (0.125^2 + 0.125^2) / 2 = 0.015625,
        // se = sqrt(0.015625 / 2) = 0.08838834764831845.
        // Elo(0.625) = -400 log10(0.6) = 88.73949984654251.
        // mu -/+ 1.959964 se = 0.4517620205898112 / 0.7982379794101888
        // -> Elo = -33.62376039091523 / 238.917187469489.
        let elo = s.elo.unwrap();
        close_estimate(elo, 88.73949984654251, -33.62376039091523, 238.917187469489);
        // LOS = Phi(0.125 / 0.0883883) = Phi(sqrt 2) = Phi(1.41421356) = 0.9213503964748574.
        close(s.los.unwrap(), 0.9213503964748574, 1e-9);

        // Trinomial over all 5 games: scores 1, 0, 1, 0.5, 1 -> mu = 0.7,
        // var = (0.09 + 0.49 + 0.09 + 0.04 + 0.09) / 5 = 0.16, se = sqrt(0.16 / 5) = 0.178885438.
        // 0.7 + 1.959964 se = 1.0506 leaves the scores: the Jeffreys interval of 3.5 points in 5,
        // Beta(4, 2): median and 2.5%/97.5% quantiles (scipy.stats.beta.ppf) as Elo.
        let tri = s.elo_trinomial.unwrap();
        close_estimate(
            tri,
            135.91090481306236,
            -160.99507651890013,
            501.71441588562453,
        );

        // Disc: pair sums +4 and +20 -> mean 12 (6 per game); sample sd: deviations -8, +8,
        // s^2 = 128 / 1, s = 11.3137, se = s / sqrt 2 = 8; t_{0.975,1} = 12.706204736174698;
        // h = 101.64963789; per game 6 -/+ 50.82481894469879.
        let disc = s.disc_diff.unwrap();
        close_estimate(disc, 6.0, -44.82481894469879, 56.82481894469879);
    }

    #[test]
    fn symmetry_of_the_two_points_of_view() {
        let outcomes = two_pairs_and_a_loner();
        let ab = match_stats(&outcomes, "A", "B");
        let ba = match_stats(&outcomes, "B", "A");
        assert_eq!((ba.a.as_str(), ba.b.as_str()), ("B", "A"));
        assert_eq!((ba.games, ba.wins, ba.draws, ba.losses), (5, 1, 1, 3));
        assert_eq!(ba.pentanomial, [0, 1, 1, 0, 0]);
        let mut reversed = ab.pentanomial;
        reversed.reverse();
        assert_eq!(ba.pentanomial, reversed);
        assert_eq!(
            (ba.pairs, ba.incomplete_games),
            (ab.pairs, ab.incomplete_games)
        );
        close(ba.score, 1.0 - ab.score, 1e-12);
        close(ba.draw_ratio, ab.draw_ratio, 1e-12);
        close(ba.los.unwrap(), 1.0 - ab.los.unwrap(), 1e-9);
        for (x, y) in [
            (ab.elo, ba.elo),
            (ab.elo_trinomial, ba.elo_trinomial),
            (ab.disc_diff, ba.disc_diff),
        ] {
            let (x, y) = (x.unwrap(), y.unwrap());
            close(y.value, -x.value, 1e-9);
            close(y.low, -x.high, 1e-9);
            close(y.high, -x.low, 1e-9);
        }
        close(ba.elo.unwrap().value, -88.73949984654251, 1e-6);
    }

    #[test]
    fn all_wins_is_finite_and_not_degenerate() {
        // Three pairs, A wins all six games by 8 discs.
        let outcomes: Vec<GameOutcome> = (0..3)
            .flat_map(|p| [game(p, "A", "B", 8), game(p, "B", "A", -8)])
            .collect();
        let s = match_stats(&outcomes, "A", "B");
        assert_no_nan(&s);
        assert_eq!(s.pentanomial, [0, 0, 0, 0, 3]);
        // mu = 1, se = 0: the normal interval would be +2400 [+2400, +2400]. Jeffreys instead
        // (reference values from scipy.stats.beta): 3 of 3 pairs, Beta(3.5, 0.5); 6 of 6 games,
        // Beta(6.5, 0.5). Finite, not of zero width, and the value inside its interval.
        close_estimate(
            s.elo.unwrap(),
            456.47426138496553,
            -24.76763968211918,
            1528.8022905879768,
        );
        close_estimate(
            s.elo_trinomial.unwrap(),
            572.5752300883997,
            122.7188713140003,
            1642.0388355069122,
        );
        close(s.los.unwrap(), 0.9668544997362263, 1e-9);
        // Every pair sum is 16 -> 8 per game, sample variance 0 -> zero-width interval.
        close_estimate(s.disc_diff.unwrap(), 8.0, 8.0, 8.0);

        let reverse = match_stats(&outcomes, "B", "A");
        assert_no_nan(&reverse);
        close_estimate(
            reverse.elo.unwrap(),
            -456.4742613849657,
            -1528.8022905878581,
            24.767639682119068,
        );
        close(reverse.los.unwrap(), 0.03314550026377361, 1e-9);
    }

    #[test]
    fn all_draws_is_zero_with_an_honest_width() {
        let outcomes: Vec<GameOutcome> = (0..4)
            .flat_map(|p| [game(p, "A", "B", 0), game(p, "B", "A", 0)])
            .collect();
        let s = match_stats(&outcomes, "A", "B");
        assert_no_nan(&s);
        assert_eq!(s.pentanomial, [0, 0, 4, 0, 0]);
        assert_eq!(s.draw_ratio, 1.0);
        assert_eq!(s.score, 0.5);
        // No spread: Jeffreys, 2 points of 4 pairs (Beta(2.5, 2.5)) and 4 of 8 games
        // (Beta(4.5, 4.5)); scipy.stats.beta reference values.
        close_estimate(s.elo.unwrap(), 0.0, -341.6344866766892, 341.63448667668894);
        close_estimate(
            s.elo_trinomial.unwrap(),
            0.0,
            -241.94925615674157,
            241.9492561567414,
        );
        close(s.los.unwrap(), 0.5, 1e-9);
        close_estimate(s.disc_diff.unwrap(), 0.0, 0.0, 0.0);
        assert_eq!(s.elo.unwrap().to_string(), "+0.0 [-341.6, +341.6]");
        assert_eq!(
            match_stats(&outcomes, "B", "A").elo.unwrap().to_string(),
            "+0.0 [-341.6, +341.6]"
        );
    }

    #[test]
    fn disc_difference_t_interval_three_pairs() {
        let outcomes = vec![
            // Pair sums from A's view: 6 + 4 = 10, 2 + 2 = 4, -1 - 1 = -2.
            game(7, "A", "B", 6),
            game(7, "B", "A", -4),
            game(8, "B", "A", -2),
            game(8, "A", "B", 2),
            game(9, "A", "B", -1),
            game(9, "B", "A", 1),
        ];
        let s = match_stats(&outcomes, "A", "B");
        assert_eq!(s.pairs, 3);
        // m = (10 + 4 - 2) / 3 = 4; deviations 6, 0, -6 -> s^2 = 72 / 2 = 36, s = 6;
        // se = 6 / sqrt 3 = 3.4641016; h = t_{0.975,2} * se = 4.302653 * 3.4641016 = 14.904827;
        // per game: 4/2 = 2, [(4 - 14.904827)/2, (4 + 14.904827)/2] = [-5.4524136, 9.4524136].
        close_estimate(
            s.disc_diff.unwrap(),
            2.0,
            -5.452413603338654,
            9.452413603338654,
        );
        // Pentanomial: pair 7 WW, pair 8 WW, pair 9 LL.
        assert_eq!(s.pentanomial, [1, 0, 0, 0, 2]);
    }

    /// A forfeit's ±64 counts in the result (pentanomial, score, the test's disc sample) but
    /// not in the disc estimate, which is over the pairs played out.
    #[test]
    fn forfeited_pairs_are_left_out_of_the_disc_estimate() {
        let mut crash = game(1, "b", "a", 64);
        crash.forfeit = true;
        let games = vec![
            game(0, "a", "b", 10),
            game(0, "b", "a", -4),
            game(1, "a", "b", 6),
            crash,
            game(2, "a", "b", 2),
            game(2, "b", "a", 0),
        ];
        let s = match_stats(&games, "a", "b");
        assert_eq!(s.pentanomial.iter().sum::<u32>(), 3);
        assert_eq!(s.disc_pairs_with_forfeit, 1);
        assert_eq!(s.pair_disc_sums, vec![14, -58, 2]);
        // Pairs 0 and 2: (10 + 4) / 2 and (2 + 0) / 2 discs per game.
        close(s.disc_diff.unwrap().value, 4.0, 1e-12);
    }

    #[test]
    fn disc_difference_single_pair_has_the_whole_range() {
        let outcomes = vec![game(1, "A", "B", 10), game(1, "B", "A", 2)];
        let s = match_stats(&outcomes, "A", "B");
        let disc = s.disc_diff.unwrap();
        // (10 - 2) / 2 = 4 per game.
        assert_eq!(disc.value, 4.0);
        assert_eq!((disc.low, disc.high), (-64.0, 64.0));
        assert_eq!(disc.to_string(), "+4.0 [-64.0, +64.0]");
        // Two pairs far apart: the discs' interval stays within what a game can score.
        let wide = vec![
            game(1, "A", "B", 64),
            game(1, "B", "A", -64),
            game(2, "A", "B", -60),
            game(2, "B", "A", 60),
        ];
        let d = match_stats(&wide, "A", "B").disc_diff.unwrap();
        assert_eq!((d.low, d.high), (-64.0, 64.0), "{d}");
        // One pair with score 0.5: se = 0 -> Jeffreys, 0.5 of 1 (Beta(1, 1)), LOS 0.5.
        close_estimate(s.elo.unwrap(), 0.0, -636.4258428105996, 636.4258428105987);
        close(s.los.unwrap(), 0.5, 1e-9);
    }

    #[test]
    fn t_quantiles() {
        // Tables: t_{0.975,1} = 12.7062047, t_{0.975,2} = 4.3026527, t_{0.975,10} = 2.2281389,
        // t_{0.975,1000} = 1.9623391 (library), 1001 = 1.9623367 (expansion); the normal limit
        // is 1.9599640 (df = 1e9 via the expansion, also no stall).
        close(t_quantile_975(1.0), 12.7062047, 1e-6);
        close(t_quantile_975(2.0), 4.3026527, 1e-6);
        close(t_quantile_975(10.0), 2.2281389, 1e-6);
        close(t_quantile_975(1000.0), 1.9623391, 1e-6);
        close(t_quantile_975(1001.0), 1.9623367, 1e-6);
        close(t_quantile_975(1e9), 1.9599640, 1e-6);
    }

    #[test]
    fn malformed_and_missing_pairs_are_incomplete() {
        let outcomes = vec![
            // Same colours twice under one id: not a pair.
            game(1, "A", "B", 5),
            game(1, "A", "B", 5),
            // Three games under one id: not a pair.
            game(2, "A", "B", 5),
            game(2, "B", "A", 5),
            game(2, "A", "B", 5),
            // A proper pair: A wins both -> WW.
            game(3, "B", "A", -1),
            game(3, "A", "B", 1),
            // Same id used by another match: irrelevant for A vs B.
            game(3, "A", "C", 1),
            // Self-play is ignored.
            game(4, "A", "A", 1),
        ];
        let s = match_stats(&outcomes, "A", "B");
        assert_eq!((s.games, s.wins, s.draws, s.losses), (7, 6, 0, 1));
        assert_eq!(s.incomplete_games, 5);
        assert_eq!(s.pairs, 1);
        assert_eq!(s.pentanomial, [0, 0, 0, 0, 1]);
        close(s.disc_diff.unwrap().value, 1.0, 1e-12);

        let self_play = match_stats(&outcomes, "A", "A");
        assert_eq!(self_play.games, 0);
        assert_no_nan(&self_play);
    }

    #[test]
    fn empty_match_is_empty_and_finite() {
        let s = match_stats(&[], "A", "B");
        assert_no_nan(&s);
        assert_eq!((s.games, s.pairs, s.incomplete_games), (0, 0, 0));
        assert_eq!((s.score, s.draw_ratio), (0.0, 0.0));
        assert_eq!(
            (s.elo, s.elo_trinomial, s.los, s.disc_diff),
            (None, None, None, None)
        );
        // Only an incomplete game: trinomial exists, pentanomial does not.
        let s = match_stats(&[game(1, "A", "B", 3)], "A", "B");
        assert_eq!((s.pairs, s.incomplete_games), (0, 1));
        assert!(s.elo.is_none() && s.los.is_none() && s.disc_diff.is_none());
        // One win: mu = 1, se = 0 -> Jeffreys, 1 of 1 (Beta(1.5, 0.5)).
        close_estimate(
            s.elo_trinomial.unwrap(),
            283.9682577868389,
            -305.80438547882306,
            1365.4867633409601,
        );
    }

    #[test]
    fn all_matches_orders_and_orients_by_first_appearance() {
        let outcomes = vec![
            game(1, "C", "A", 4),
            game(1, "A", "C", -4),
            game(2, "B", "A", 0),
            game(2, "A", "B", 2),
            game(3, "B", "C", 2),
            game(4, "D", "D", 2),
        ];
        // Appearance order: C, A, B, D. Pairs: (C, A), (A, B), (C, B); D only played itself.
        let all = all_matches(&outcomes);
        let names: Vec<(&str, &str)> = all.iter().map(|s| (s.a.as_str(), s.b.as_str())).collect();
        assert_eq!(names, vec![("C", "A"), ("C", "B"), ("A", "B")]);
        for s in &all {
            assert_eq!(*s, match_stats(&outcomes, &s.a, &s.b));
        }
        assert_eq!(all[0].pentanomial, [0, 0, 0, 0, 1]);
        assert_eq!(all[1].losses, 1);
        assert_eq!(all[2].pentanomial, [0, 0, 0, 1, 0]);
        assert!(all_matches(&[]).is_empty());
    }

    #[test]
    fn pentanomial_counts_give_the_estimate_of_their_scores() {
        for counts in [
            [3, 1, 4, 1, 5],
            [0, 0, 7, 0, 0],
            [1, 0, 0, 0, 0],
            [2, 9, 6, 5, 3],
        ] {
            let scores: Vec<f64> = (0..5)
                .flat_map(|i| std::iter::repeat_n(i as f64 / 4.0, counts[i] as usize))
                .collect();
            let (a, la) = score_estimate(&scores).unwrap();
            let (b, lb) = pentanomial_estimate(&counts).unwrap();
            close_estimate(b, a.value, a.low, a.high);
            close(lb, la, 1e-12);
        }
        assert!(pentanomial_estimate(&[0; 5]).is_none());
    }

    #[test]
    fn display_format() {
        let e = Estimate {
            value: 88.73949984654251,
            low: -33.62376039091523,
            high: 238.917187469489,
        };
        assert_eq!(e.to_string(), "+88.7 [-33.6, +238.9]");
        let e = Estimate {
            value: 88.7,
            low: 12.3,
            high: 170.2,
        };
        assert_eq!(e.to_string(), "+88.7 [+12.3, +170.2]");
        assert_eq!(format!("{e:>24}"), "   +88.7 [+12.3, +170.2]");
        let e = Estimate {
            value: -0.0,
            low: -1.26,
            high: 0.0,
        };
        assert_eq!(e.to_string(), "+0.0 [-1.3, +0.0]");
    }
}
