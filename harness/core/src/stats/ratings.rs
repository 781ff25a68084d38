//! Joint ratings of more than two engines: the Bradley-Terry model fitted by maximum
//! likelihood.
//!
//! [`ratings`] fits the Bradley-Terry model on the logistic Elo scale,
//! `P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400))`, by maximum likelihood over all games, with a
//! draw counting as half a win for each side. Writing `r = R * ln(10) / 400` (natural units),
//! `p_ij = sigma(r_i - r_j)` with `sigma` the logistic function, `n_ij` the games and `s_ij` the
//! points of `i` against `j`, the log-likelihood is
//!
//! ```text
//! L(r) = sum_{i<j} [ s_ij ln p_ij + s_ji ln p_ji ]
//! dL/dr_i = S_i - sum_j n_ij p_ij              (points scored minus points expected)
//! -d2L/dr_i dr_j = -n_ij p_ij p_ji  (i != j),   -d2L/dr_i^2 = sum_j n_ij p_ij p_ji
//! ```
//!
//! `L` is concave and invariant under adding a constant to every rating, so one rating is held
//! fixed while solving. It is maximised by Newton's method (step = inverse of the negative Hessian
//! times the gradient), with each step capped and halved until the likelihood does not decrease,
//! until the largest step is below 1e-9 Elo. The ratings are then shifted so the `anchor` engine
//! is at 0, or so that their mean is 0 when there is no anchor (or the anchor never played).
//!
//! **Degenerate data.** The maximum-likelihood estimate exists and is unique (up to the shift)
//! exactly when the "scored against" graph (an edge `i -> j` when `i` won or drew at least one game
//! against `j`) is strongly connected (Zermelo; Ford 1957). Otherwise, for example when an engine
//! won or lost every game or when the engines form groups that never met, some difference is
//! infinite. Only in that case a prior is added: every engine gets one virtual draw against a
//! virtual opponent fixed at rating 0. This is the posterior mode under a mild prior that pulls
//! ratings toward a common centre; it makes the objective strictly concave, so the solution is
//! unique, finite and ties separate groups together. The prior is deliberately *not* added when the
//! data are well behaved, so that ordinary results are the exact MLE (75% between two engines is
//! exactly `Elo(0.75)` = 190.85 apart). The price is a small jump in the ratings at the moment
//! the data stop being degenerate (typically early in a run, or never for a truly lopsided match).
//!
//! **Intervals** come from the observed Fisher information `F = -Hessian` at the solution (with the
//! prior's terms when it was used): the covariance of the estimates is `F^-1`. Without the prior
//! `F` is singular along the shift direction, so the first engine is fixed, the reduced matrix
//! inverted and padded with a zero row and column; with the prior `F` is invertible and is inverted
//! directly. Either way this gives a covariance `C` whose contrasts are correct, and the reported
//! ratings are contrasts:
//! - anchored at `a`: `Var(r_i - r_a) = C_ii + C_aa - 2 C_ia` (the anchor itself gets `[0, 0]`;
//!   this equals fixing the anchor and inverting the reduced matrix);
//! - mean zero: `Var(r_i - mean r) = (P C P)_ii` with `P = I - 11^T / k` the centring projection,
//!   which equals the Moore-Penrose pseudo-inverse of `F` in the unregularised case.
//!
//! The 95% interval is `R_i ± 1.959964 * sqrt(Var) * 400 / ln(10)` (a Wald interval, symmetric in
//! Elo), relative to the anchor or to the mean.

use super::{finite_or_zero, ratio, result_half_points, saturating_u32, ELO_PER_NAT, Z95};
use crate::record::GameOutcome;
use serde::Serialize;
use std::collections::HashMap;

/// Newton stops once the largest rating change of an iteration is below this many Elo.
const RATING_TOLERANCE_ELO: f64 = 1e-9;

/// Largest Newton step (natural units, about 700 Elo) before the line search.
const MAX_NEWTON_STEP: f64 = 4.0;

/// Safety bound on Newton iterations; convergence normally takes well under 30.
const MAX_NEWTON_ITERATIONS: usize = 500;

/// One engine's line in the joint rating list computed by [`ratings`].
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rating {
    /// Engine display name.
    pub name: String,
    /// Bradley-Terry rating on the Elo scale, relative to the anchor (or to the mean).
    pub elo: f64,
    /// Lower end of the 95% interval of `elo`.
    pub low: f64,
    /// Upper end of the 95% interval of `elo`.
    pub high: f64,
    /// Games the engine played against other engines (self-play excluded).
    pub games: u32,
    /// The engine's score fraction over those games, `(wins + draws / 2) / games`.
    pub score: f64,
}

/// Joint Bradley-Terry ratings of all engines, sorted by rating, best first.
///
/// Maximum likelihood on game scores (a draw is half a win for each side) on the logistic Elo
/// scale, anchored so that `anchor` is at 0, or so that the mean is 0 when `anchor` is `None` or
/// names an engine without games. Intervals are 95% Wald intervals from the observed Fisher
/// information. When the MLE does not exist (an engine won or lost everything, or groups never
/// met) every engine gets one virtual draw against a virtual 0-rated opponent; see the module
/// docs. Engines with no game against another engine are left out. Ties keep the order of first
/// appearance. Never panics and never returns NaN.
pub fn ratings(outcomes: &[GameOutcome], anchor: Option<&str>) -> Vec<Rating> {
    RatingFit::new(outcomes).ratings(anchor)
}

/// One joint fit of a set of games, which [`RatingFit::ratings`] can anchor at any engine
/// without fitting again (the anchor only shifts the ratings and picks which differences the
/// intervals are of).
pub struct RatingFit {
    names: Vec<String>,
    index: HashMap<String, usize>,
    games: Vec<Vec<u64>>,
    half_points: Vec<Vec<u64>>,
    theta: Vec<f64>,
    cov: Vec<Vec<f64>>,
}

impl RatingFit {
    /// The maximum-likelihood ratings and their covariance.
    pub fn new(outcomes: &[GameOutcome]) -> RatingFit {
        // Engines that played at least one game against another engine, by first appearance.
        let mut names: Vec<String> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for o in outcomes.iter().filter(|o| o.black != o.white) {
            for name in [&o.black, &o.white] {
                if !index.contains_key(name.as_str()) {
                    index.insert(name.clone(), names.len());
                    names.push(name.clone());
                }
            }
        }
        let k = names.len();

        // Per ordered engine pair: games and points (in half points, to stay exact).
        let mut games = vec![vec![0u64; k]; k];
        let mut half_points = vec![vec![0u64; k]; k];
        for o in outcomes.iter().filter(|o| o.black != o.white) {
            let (ib, iw) = (index[o.black.as_str()], index[o.white.as_str()]);
            let hp_black = result_half_points(i64::from(o.black_disc_diff));
            games[ib][iw] += 1;
            games[iw][ib] += 1;
            half_points[ib][iw] += hp_black;
            half_points[iw][ib] += 2 - hp_black;
        }
        let mut matchups = Vec::new();
        for i in 0..k {
            for j in (i + 1)..k {
                if games[i][j] > 0 {
                    matchups.push(Matchup {
                        i,
                        j,
                        games: games[i][j] as f64,
                        points_i: half_points[i][j] as f64 / 2.0,
                    });
                }
            }
        }
        let (theta, cov) = if k == 0 {
            (Vec::new(), Vec::new())
        } else {
            let model = BradleyTerry {
                k,
                matchups,
                prior: !strongly_connected(&half_points),
            };
            let theta = model.solve();
            let cov = model.covariance(&theta);
            (theta, cov)
        };
        RatingFit {
            names,
            index,
            games,
            half_points,
            theta,
            cov,
        }
    }

    /// The ratings anchored at `anchor` (see [`ratings`]), best first.
    pub fn ratings(&self, anchor: Option<&str>) -> Vec<Rating> {
        let k = self.names.len();
        if k == 0 {
            return Vec::new();
        }
        let (theta, cov) = (&self.theta, &self.cov);
        let anchor_index = anchor.and_then(|name| self.index.get(name).copied());
        let (centre, variances): (f64, Vec<f64>) = match anchor_index {
            Some(a) => (
                theta[a],
                (0..k)
                    .map(|i| cov[i][i] + cov[a][a] - 2.0 * cov[i][a])
                    .collect(),
            ),
            None => {
                let kf = k as f64;
                let total: f64 = cov.iter().flatten().sum();
                (
                    theta.iter().sum::<f64>() / kf,
                    (0..k)
                        .map(|i| {
                            cov[i][i] - 2.0 * cov[i].iter().sum::<f64>() / kf + total / (kf * kf)
                        })
                        .collect(),
                )
            }
        };
        let mut out: Vec<Rating> = (0..k)
            .map(|i| {
                let elo = finite_or_zero((theta[i] - centre) * ELO_PER_NAT);
                let variance = variances[i];
                let half = if variance.is_finite() && variance > 0.0 {
                    Z95 * variance.sqrt() * ELO_PER_NAT
                } else {
                    0.0
                };
                let played: u64 = self.games[i].iter().sum();
                let points: u64 = self.half_points[i].iter().sum();
                Rating {
                    name: self.names[i].clone(),
                    elo,
                    low: elo - half,
                    high: elo + half,
                    games: saturating_u32(played),
                    score: ratio(points as f64 / 2.0, played as f64),
                }
            })
            .collect();
        out.sort_by(|x, y| y.elo.total_cmp(&x.elo));
        out
    }
}

// ---------------------------------------------------------------------------------------------
// Bradley-Terry internals. Ratings are in natural units (`r = R * ln 10 / 400`) here.

/// All games between engines `i < j`: how many, and how many points `i` scored.
struct Matchup {
    i: usize,
    j: usize,
    games: f64,
    points_i: f64,
}

struct BradleyTerry {
    k: usize,
    matchups: Vec<Matchup>,
    /// Whether every engine gets one virtual draw against a virtual opponent rated 0.
    prior: bool,
}

impl BradleyTerry {
    /// Indices of the free ratings: all with the prior, all but the first (fixed at 0) without.
    fn free(&self) -> std::ops::Range<usize> {
        if self.prior {
            0..self.k
        } else {
            1..self.k
        }
    }

    fn log_likelihood(&self, theta: &[f64]) -> f64 {
        let mut l = 0.0;
        for m in &self.matchups {
            let x = theta[m.i] - theta[m.j];
            l += m.points_i * ln_sigmoid(x) + (m.games - m.points_i) * ln_sigmoid(-x);
        }
        if self.prior {
            for &t in theta {
                l += 0.5 * ln_sigmoid(t) + 0.5 * ln_sigmoid(-t);
            }
        }
        l
    }

    /// Gradient of the log-likelihood and the observed Fisher information (negative Hessian).
    fn gradient_and_information(&self, theta: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
        let k = self.k;
        let mut g = vec![0.0; k];
        let mut info = vec![vec![0.0; k]; k];
        for m in &self.matchups {
            let p = sigmoid(theta[m.i] - theta[m.j]);
            let residual = m.points_i - m.games * p;
            g[m.i] += residual;
            g[m.j] -= residual;
            let w = m.games * p * (1.0 - p);
            info[m.i][m.i] += w;
            info[m.j][m.j] += w;
            info[m.i][m.j] -= w;
            info[m.j][m.i] -= w;
        }
        if self.prior {
            for i in 0..k {
                let p = sigmoid(theta[i]);
                g[i] += 0.5 - p;
                info[i][i] += p * (1.0 - p);
            }
        }
        (g, info)
    }

    /// Restricts a square matrix to the free indices.
    fn reduce(&self, info: &[Vec<f64>]) -> Vec<Vec<f64>> {
        self.free()
            .map(|i| self.free().map(|j| info[i][j]).collect())
            .collect()
    }

    /// Maximises the (penalised) log-likelihood by damped Newton iterations.
    fn solve(&self) -> Vec<f64> {
        let mut theta = vec![0.0; self.k];
        let free: Vec<usize> = self.free().collect();
        if free.is_empty() {
            return theta;
        }
        for _ in 0..MAX_NEWTON_ITERATIONS {
            let (g, info) = self.gradient_and_information(&theta);
            let Some(inverse) = invert(self.reduce(&info)) else {
                break;
            };
            let mut step: Vec<f64> = inverse
                .iter()
                .map(|row| row.iter().zip(&free).map(|(c, &j)| c * g[j]).sum())
                .collect();
            let largest = step.iter().fold(0.0f64, |acc, s| acc.max(s.abs()));
            if !largest.is_finite() {
                break;
            }
            let mut length = largest;
            if largest > MAX_NEWTON_STEP {
                let shrink = MAX_NEWTON_STEP / largest;
                step.iter_mut().for_each(|s| *s *= shrink);
                length = MAX_NEWTON_STEP;
            }
            // Backtracking: halve until the likelihood does not decrease. Near the optimum the
            // comparison is dominated by rounding, so tiny steps are taken as they are.
            let start = self.log_likelihood(&theta);
            let mut t = 1.0;
            let candidate = loop {
                let mut candidate = theta.clone();
                for (s, &j) in step.iter().zip(&free) {
                    candidate[j] += t * s;
                }
                if t * length * ELO_PER_NAT < 1e-6 || self.log_likelihood(&candidate) >= start {
                    break candidate;
                }
                t /= 2.0;
            };
            if candidate.iter().any(|x| !x.is_finite()) {
                break;
            }
            theta = candidate;
            if t * length * ELO_PER_NAT < RATING_TOLERANCE_ELO {
                break;
            }
        }
        theta
    }

    /// Covariance of the estimates: the inverse observed Fisher information, padded with a zero
    /// row and column for the fixed first engine when there is no prior. Only contrasts of it are
    /// meaningful without the prior. Falls back to zeros if the matrix cannot be inverted.
    fn covariance(&self, theta: &[f64]) -> Vec<Vec<f64>> {
        let k = self.k;
        let mut cov = vec![vec![0.0; k]; k];
        let (_, info) = self.gradient_and_information(theta);
        let free: Vec<usize> = self.free().collect();
        if let Some(inverse) = invert(self.reduce(&info)) {
            for (a, &i) in free.iter().enumerate() {
                for (b, &j) in free.iter().enumerate() {
                    cov[i][j] = inverse[a][b];
                }
            }
        }
        cov
    }
}

/// Whether every engine can reach every other along "scored at least half a point against"
/// edges, i.e. whether the Bradley-Terry MLE exists. `half_points[i][j]` is i's score against j.
fn strongly_connected(half_points: &[Vec<u64>]) -> bool {
    let k = half_points.len();
    let reaches_all = |forward: bool| {
        let mut seen = vec![false; k];
        let mut stack = vec![0usize];
        seen[0] = true;
        while let Some(i) = stack.pop() {
            for j in 0..k {
                let edge = if forward {
                    half_points[i][j]
                } else {
                    half_points[j][i]
                };
                if edge > 0 && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        seen.into_iter().all(|s| s)
    };
    k > 0 && reaches_all(true) && reaches_all(false)
}

fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// `ln(sigmoid(x)) = -softplus(-x)`, stable for large `|x|`.
fn ln_sigmoid(x: f64) -> f64 {
    let y = -x;
    -(y.max(0.0) + (-y.abs()).exp().ln_1p())
}

/// Inverse of a small square matrix by Gauss-Jordan elimination with partial pivoting; `None`
/// when it is (numerically) singular or not finite.
fn invert(mut m: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = m.len();
    let scale = m.iter().flatten().fold(0.0f64, |acc, x| acc.max(x.abs()));
    if !scale.is_finite() || scale == 0.0 {
        return None;
    }
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| m[x][col].abs().total_cmp(&m[y][col].abs()))?;
        if m[pivot][col].abs() <= scale * 1e-14 {
            return None;
        }
        m.swap(col, pivot);
        inv.swap(col, pivot);
        let p = m[col][col];
        for j in 0..n {
            m[col][j] /= p;
            inv[col][j] /= p;
        }
        for row in 0..n {
            if row != col {
                let factor = m[row][col];
                if factor != 0.0 {
                    for j in 0..n {
                        m[row][j] -= factor * m[col][j];
                        inv[row][j] -= factor * inv[col][j];
                    }
                }
            }
        }
    }
    inv.iter().flatten().all(|x| x.is_finite()).then_some(inv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::tests::{close, game};

    fn find<'r>(list: &'r [Rating], name: &str) -> &'r Rating {
        list.iter().find(|r| r.name == name).unwrap()
    }

    #[test]
    fn ratings_two_engines_at_75_percent() {
        // A beats B 3 - 1 (two pairs, WL and WW).
        let outcomes = vec![
            game(1, "B", "A", -2),
            game(1, "A", "B", 2),
            game(2, "A", "B", 2),
            game(2, "B", "A", 2),
        ];
        let list = ratings(&outcomes, Some("B"));
        assert_eq!(list.len(), 2);
        assert_eq!((list[0].name.as_str(), list[1].name.as_str()), ("A", "B"));
        // MLE: 4 p = 3 -> p = 0.75 -> R_A - R_B = Elo(0.75) = 190.848501887865.
        // Fisher (natural units, B fixed): n p (1 - p) = 4 * 0.75 * 0.25 = 0.75 -> var = 4/3;
        // se = sqrt(4/3) * 400 / ln 10 = 1.1547005 * 173.7177928 = 200.5920288275292;
        // 190.8485019 -/+ 1.959964 * 200.5920288 = -202.3046533010544 / 584.0016570767845.
        close(list[0].elo, 190.848501887865, 1e-6);
        close(list[0].low, -202.3046533010544, 1e-6);
        close(list[0].high, 584.0016570767845, 1e-6);
        assert_eq!((list[1].elo, list[1].low, list[1].high), (0.0, 0.0, 0.0));
        assert_eq!((list[0].games, list[1].games), (4, 4));
        close(list[0].score, 0.75, 1e-12);
        close(list[1].score, 0.25, 1e-12);

        // Mean zero: +-190.848501887865 / 2 = +-95.42425094393249.
        let list = ratings(&outcomes, None);
        close(find(&list, "A").elo, 95.42425094393249, 1e-6);
        close(find(&list, "B").elo, -95.42425094393249, 1e-6);
    }

    /// A 3-1 B, B 3-1 C, A 9-1 C: exactly consistent with A = 2 * 190.85, B = 190.85, C = 0,
    /// since 10^(381.697/400) = 9 -> P = 0.9 and every score equals its expectation.
    fn consistent_round_robin() -> Vec<GameOutcome> {
        let mut v = Vec::new();
        let mut pair = 0;
        let mut play = |v: &mut Vec<GameOutcome>, x: &str, y: &str, x_wins: u32, y_wins: u32| {
            let total = x_wins + y_wins;
            for g in 0..total {
                let x_won = g < x_wins;
                // Alternate colours so the games form pairs.
                if g % 2 == 0 {
                    v.push(game(pair, x, y, if x_won { 10 } else { -10 }));
                } else {
                    v.push(game(pair, y, x, if x_won { -10 } else { 10 }));
                    pair += 1;
                }
            }
        };
        play(&mut v, "C", "B", 1, 3);
        play(&mut v, "B", "A", 1, 3);
        play(&mut v, "C", "A", 1, 9);
        v
    }

    #[test]
    fn ratings_three_engines_anchored() {
        let list = ratings(&consistent_round_robin(), Some("C"));
        let names: Vec<&str> = list.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, vec!["A", "B", "C"]);
        // Fisher weights w = n p (1 - p): AB 4 * 0.1875 = 0.75, BC 0.75, AC 10 * 0.09 = 0.9.
        // C fixed: F = [[0.75 + 0.9, -0.75], [-0.75, 0.75 + 0.75]] = [[1.65, -0.75], [-0.75, 1.5]],
        // det = 2.475 - 0.5625 = 1.9125, F^-1 = [[1.5, 0.75], [0.75, 1.65]] / 1.9125.
        // var_A = 0.7843137, var_B = 0.8627451 (natural units^2).
        // A: 381.69700377572997 -/+ 1.959964 * sqrt(0.7843137) * 173.7177928 = -/+ 301.5347...
        close(list[0].elo, 381.69700377572997, 1e-6);
        close(list[0].low, 80.16229849095186, 1e-6);
        close(list[0].high, 683.2317090605081, 1e-6);
        // B: 190.84850188786498 -/+ 1.959964 * sqrt(0.8627451) * 173.7177928.
        close(list[1].elo, 190.84850188786498, 1e-6);
        close(list[1].low, -125.40376504518929, 1e-6);
        close(list[1].high, 507.10076882091926, 1e-6);
        assert_eq!((list[2].elo, list[2].low, list[2].high), (0.0, 0.0, 0.0));
        // Games and scores: A 14 games, 3 + 9 = 12 points; B 8 games, 1 + 3 = 4; C 14, 1 + 1 = 2.
        assert_eq!((list[0].games, list[1].games, list[2].games), (14, 8, 14));
        close(list[0].score, 12.0 / 14.0, 1e-12);
        close(list[1].score, 0.5, 1e-12);
        close(list[2].score, 2.0 / 14.0, 1e-12);
    }

    #[test]
    fn ratings_three_engines_mean_zero() {
        let list = ratings(&consistent_round_robin(), None);
        let names: Vec<&str> = list.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, vec!["A", "B", "C"]);
        // Mean of (381.697, 190.8485, 0) is 190.8485 -> A +190.8485, B 0, C -190.8485.
        // Covariance with C fixed and padded: [[vA, cAB, 0], [cAB, vB, 0], [0, 0, 0]],
        // vA = 1.5 / 1.9125 = 0.7843137, vB = 1.65 / 1.9125 = 0.8627451,
        // cAB = 0.75 / 1.9125 = 0.3921569; row sums A 1.1764706, B 1.2549020, C 0;
        // total = 0.7843137 + 0.8627451 + 2 * 0.3921569 = 2.4313725, total / 9 = 0.2701525.
        // (PCP)_ii = C_ii - (2/3) rowsum_i + total / 9:
        //   A: 0.7843137 - 0.7843137 + 0.2701525 = 0.2701525
        //   B: 0.8627451 - 0.8366013 + 0.2701525 = 0.2962963
        //   C: 0         - 0         + 0.2701525 = 0.2701525 (A and C are symmetric: w_AB = w_BC)
        // Half widths: 1.959964 * sqrt(0.2701525) * 173.7177928 = 176.96887777944704,
        //              1.959964 * sqrt(0.2962963) * 173.7177928 = 185.33417471931466.
        let b = 190.84850188786498;
        let (ha, hb) = (176.96887777944704, 185.33417471931466);
        for (r, value, half) in [(&list[0], b, ha), (&list[1], 0.0, hb), (&list[2], -b, ha)] {
            close(r.elo, value, 1e-6);
            close(r.low, value - half, 1e-6);
            close(r.high, value + half, 1e-6);
        }
    }

    #[test]
    fn ratings_undefeated_engine_is_finite() {
        // A beats B in the only game: no MLE -> one virtual draw each against a 0-rated opponent.
        // By symmetry R_A = -R_B = x (natural units); A's equation: sigma(2x) + sigma(x) = 1 + 0.5,
        // solved by bisection: x = 0.7563076126159646 -> A = x * 173.7177928 = 131.38408911221424.
        // Information with prior: w = sigma(2x)(1 - sigma(2x)) = 0.1479527,
        // q = sigma(x)(1 - sigma(x)) = 0.2174011, F = [[w + q, -w], [-w, w + q]];
        // mean zero: var_A = 1 / (2 (2w + q)) = 0.9740769 -> half = 336.03848299806447.
        let outcomes = vec![game(1, "A", "B", 2)];
        let list = ratings(&outcomes, None);
        assert_eq!(list[0].name, "A");
        close(list[0].elo, 131.38408911221424, 1e-6);
        close(list[0].high - list[0].elo, 336.03848299806447, 1e-6);
        close(list[1].elo, -131.38408911221424, 1e-6);
        close(list[1].elo - list[1].low, 336.03848299806447, 1e-6);
        // Anchored at B: A - B = 2x = 262.7681782244285, Var(r_A - r_B) = 2 / (2w + q)
        // -> half = 672.0769659961289.
        let list = ratings(&outcomes, Some("B"));
        close(list[0].elo, 262.7681782244285, 1e-6);
        close(list[0].low, 262.7681782244285 - 672.0769659961289, 1e-6);
        close(list[0].high, 262.7681782244285 + 672.0769659961289, 1e-6);
        assert_eq!((list[1].elo, list[1].low, list[1].high), (0.0, 0.0, 0.0));

        // A round robin where A wins everything; B and C split.
        let outcomes = vec![
            game(1, "A", "B", 10),
            game(1, "B", "A", -10),
            game(2, "C", "A", -64),
            game(2, "A", "C", 64),
            game(3, "B", "C", 10),
            game(3, "C", "B", 10),
        ];
        let list = ratings(&outcomes, Some("C"));
        assert_eq!(list[0].name, "A");
        assert_eq!(list[0].score, 1.0);
        for r in &list {
            assert!(
                r.elo.is_finite() && r.low.is_finite() && r.high.is_finite(),
                "{r:?}"
            );
            assert!(r.low <= r.elo && r.elo <= r.high);
        }
        assert!(list[0].elo > 100.0 && list[0].low > -1000.0 && list[0].high < 2000.0);
        close(find(&list, "B").elo, 0.0, 1e-6); // B and C are interchangeable.
    }

    #[test]
    fn ratings_degenerate_inputs() {
        assert!(ratings(&[], None).is_empty());
        // Only self-play: no engine has a real game.
        assert!(ratings(&[game(1, "A", "A", 3)], Some("A")).is_empty());
        // All draws: everyone at 0; unknown anchor falls back to mean zero.
        let outcomes = vec![game(1, "A", "B", 0), game(1, "B", "A", 0)];
        for anchor in [None, Some("nobody"), Some("A")] {
            let list = ratings(&outcomes, anchor);
            assert_eq!(list.len(), 2);
            for r in &list {
                close(r.elo, 0.0, 1e-9);
                assert!(r.low.is_finite() && r.high.is_finite() && r.low <= r.high);
                // Only the anchor itself has a zero-width interval.
                assert_eq!(r.low < r.high, anchor != Some(r.name.as_str()));
            }
        }
        // Two groups that never met: the prior joins them; no NaN.
        let outcomes = vec![
            game(1, "A", "B", 5),
            game(1, "B", "A", 5),
            game(2, "C", "D", 5),
            game(2, "D", "C", -5),
        ];
        let list = ratings(&outcomes, Some("A"));
        assert_eq!(list.len(), 4);
        for r in &list {
            assert!(
                r.elo.is_finite() && r.low.is_finite() && r.high.is_finite(),
                "{r:?}"
            );
        }
        close(find(&list, "A").elo, 0.0, 1e-12);
        close(find(&list, "B").elo, 0.0, 1e-6);
        // C won both against D.
        assert!(find(&list, "C").elo > find(&list, "D").elo);
    }

    #[test]
    fn strong_connectivity_decides_the_prior() {
        // A -> B -> C -> A (each won once): strongly connected.
        assert!(strongly_connected(&[
            vec![0, 2, 0],
            vec![0, 0, 2],
            vec![2, 0, 0],
        ]));
        // A beat B, B and C drew: nobody scored against A.
        assert!(!strongly_connected(&[
            vec![0, 2, 0],
            vec![0, 0, 1],
            vec![0, 1, 0],
        ]));
    }
}
