//! SPSA, the tuning method of fishtest (Stockfish's testing framework): the gains, the
//! perturbation of one iteration and the update of θ from a game pair's result. Pure functions,
//! no I/O; `play::tune` drives them and `record::tune` keeps what they produced.
//!
//! **Gains.** Each parameter has `c-end` and `r-end`; the run has `iterations` N, `A`, `alpha` α
//! and `gamma` γ. As fishtest does (its `parse_spsa_params`):
//!
//! ```text
//! c   = c_end · N^γ                 a   = r_end · c_end² · (A + N)^α
//! c_k = c / k^γ                     a_k = a / (A + k)^α
//! ```
//!
//! so that at the last iteration c_N = c_end and a_N / c_N² = r_end: `c-end` is the size of the
//! last perturbations (in the parameter's own units) and `r-end` the last learning rate (the
//! step per unit of result, relative to c_end²). Both decay slowly (γ = 0.101, α = 0.602 by
//! default; A = 10% of the iterations, fishtest's "A ratio" 0.1).
//!
//! **An iteration** k draws Δ ∈ {−1, +1}^p, plays θ+ = θ + c_k Δ against θ− = θ − c_k Δ (each
//! clipped to the parameter's range), and with the pair's result r (wins − losses of θ+, in
//! −2..2) moves
//!
//! ```text
//! θ ← clip(θ + (a_k / c_k) · r · Δ)
//! ```
//!
//! which is fishtest's `θ + R·c·result·flip` with R = a_k / c_k². θ itself stays a real number.
//!
//! **Integer options** get θ± by stochastic rounding, as fishtest's worker does
//! (`floor(value + U[0, 1))`): 4.3 becomes 5 with probability 0.3 and 4 otherwise, so that the
//! value played is θ± on average and small steps of θ are not lost to rounding.
//!
//! **Reproducible draws.** Δ and the rounding draws of iteration i come from ChaCha8 seeded with
//! the run's seed, on stream i: they depend on nothing but the seed and the iteration's number,
//! whatever order iterations are dispatched or resumed in. Values are taken from raw 64-bit
//! words (a sign bit, 53-bit fractions), not from a distribution of the `rand` crate that could
//! change between its versions.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// fishtest's default α (the decay of the learning rate).
pub const DEFAULT_ALPHA: f64 = 0.602;
/// fishtest's default γ (the decay of the perturbation).
pub const DEFAULT_GAMMA: f64 = 0.101;
/// fishtest's default `A` as a share of the iterations ("SPSA A ratio").
pub const DEFAULT_A_RATIO: f64 = 0.1;

/// The run-wide constants of the gain sequences.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// N: the iterations the gains are planned for (the last has c_N = c_end).
    pub iterations: u64,
    /// A: the stability constant of a_k.
    pub big_a: f64,
    pub alpha: f64,
    pub gamma: f64,
}

impl Schedule {
    /// fishtest's `A` for `iterations` when none is given: `int(0.1 · N)`.
    pub fn default_a(iterations: u64) -> f64 {
        (DEFAULT_A_RATIO * iterations as f64).floor()
    }
}

/// One tuned parameter: its start, its range, its end gains, and whether the option is an
/// integer (then θ± are rounded stochastically).
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub start: f64,
    pub min: f64,
    pub max: f64,
    pub c_end: f64,
    pub r_end: f64,
    pub integer: bool,
}

/// The gains of one parameter at iteration k.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gains {
    /// c_k: the perturbation.
    pub c: f64,
    /// a_k: the learning rate (θ moves by a_k / c_k per unit of result).
    pub a: f64,
}

impl Param {
    /// c_k and a_k (k ≥ 1).
    pub fn gains(&self, s: &Schedule, k: u64) -> Gains {
        let n = s.iterations as f64;
        let c = self.c_end * n.powf(s.gamma);
        let a = self.r_end * self.c_end * self.c_end * (s.big_a + n).powf(s.alpha);
        let k = k.max(1) as f64;
        Gains {
            c: c / k.powf(s.gamma),
            a: a / (s.big_a + k).powf(s.alpha),
        }
    }

    /// Why this parameter's gains cannot be used under `s`, if they cannot: a perturbation
    /// or a step that is not a finite number above 0 at the first or the last iteration
    /// (exponents or an `A` so large that the powers overflow). θ then would be NaN.
    pub fn gains_problem(&self, s: &Schedule) -> Option<String> {
        for k in [1, s.iterations.max(1)] {
            let g = self.gains(s, k);
            let step = g.a / g.c;
            let usable = |x: f64| x.is_finite() && x > 0.0;
            if !(usable(g.c) && usable(g.a) && step.is_finite()) {
                return Some(format!(
                    "`{}`: at iteration {k} its gains are c = {}, a = {}: not finite numbers above 0 (alpha {}, gamma {}, A {} overflow them)",
                    self.name, g.c, g.a, s.alpha, s.gamma, s.big_a
                ));
            }
        }
        None
    }

    fn clip(&self, v: f64) -> f64 {
        v.clamp(self.min, self.max)
    }
}

/// What one iteration plays: Δ and the values of θ+ and θ− (rounded for integer options).
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub delta: Vec<i8>,
    pub plus: Vec<f64>,
    pub minus: Vec<f64>,
}

/// The random draws of iteration `iteration` of a run seeded `seed`: stream `iteration`.
fn draws(seed: u64, iteration: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(iteration);
    rng
}

/// A uniform number in [0, 1) from the top 53 bits of a word.
fn unit(rng: &mut ChaCha8Rng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// `v` rounded down or up at random, up with probability `v - floor(v)`.
pub fn stochastic_round(v: f64, u: f64) -> f64 {
    (v + u).floor()
}

/// The probe of iteration `iteration` (its Δ and rounding draws) at gain index `k` around
/// `theta`.
pub fn probe(
    params: &[Param],
    s: &Schedule,
    seed: u64,
    iteration: u64,
    k: u64,
    theta: &[f64],
) -> Probe {
    let mut rng = draws(seed, iteration);
    let delta: Vec<i8> = params
        .iter()
        .map(|_| if rng.next_u64() >> 63 == 1 { 1 } else { -1 })
        .collect();
    let mut plus = Vec::with_capacity(params.len());
    let mut minus = Vec::with_capacity(params.len());
    for ((p, &t), &d) in params.iter().zip(theta).zip(&delta) {
        let step = p.gains(s, k).c * f64::from(d);
        let (hi, lo) = (p.clip(t + step), p.clip(t - step));
        // Two draws per parameter whether it is an integer or not, so that the draws of one
        // parameter never depend on the type of another.
        let (u_plus, u_minus) = (unit(&mut rng), unit(&mut rng));
        if p.integer {
            plus.push(p.clip(stochastic_round(hi, u_plus)));
            minus.push(p.clip(stochastic_round(lo, u_minus)));
        } else {
            plus.push(hi);
            minus.push(lo);
        }
    }
    Probe { delta, plus, minus }
}

/// θ after an iteration at gain index `k` whose probe had `delta` and whose pair scored
/// `result` (wins − losses of θ+).
pub fn update(
    params: &[Param],
    s: &Schedule,
    theta: &mut [f64],
    k: u64,
    delta: &[i8],
    result: f64,
) {
    for ((p, t), &d) in params.iter().zip(theta.iter_mut()).zip(delta) {
        let g = p.gains(s, k);
        let next = *t + g.a / g.c * result * f64::from(d);
        // Gains the config checks are finite; should one overflow all the same, θ stays
        // where it was rather than becoming NaN.
        if next.is_finite() {
            *t = p.clip(next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(c_end: f64, r_end: f64, integer: bool) -> Param {
        Param {
            name: "x".into(),
            start: 0.0,
            min: -1000.0,
            max: 1000.0,
            c_end,
            r_end,
            integer,
        }
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} != {b}");
    }

    /// Reference values computed with fishtest's formulas in Python (`c_end * N**gamma`, …).
    #[test]
    fn gains_follow_fishtest() {
        let s = Schedule {
            iterations: 2000,
            big_a: Schedule::default_a(2000),
            alpha: DEFAULT_ALPHA,
            gamma: DEFAULT_GAMMA,
        };
        assert_eq!(s.big_a, 200.0);
        let p = param(1.0, 0.05, true);
        let g1 = p.gains(&s, 1);
        close(g1.c, 2.154785426252358);
        close(g1.a, 0.21114676484427486);
        let g10 = p.gains(&s, 10);
        close(g10.c, 1.7076703172049241);
        close(g10.a, 0.20565176574857405);
        // The last iteration: c_N = c_end, a_N / c_N² = r_end.
        let gn = p.gains(&s, 2000);
        close(gn.c, 1.0);
        close(gn.a / (gn.c * gn.c), 0.05);
        let s = Schedule {
            iterations: 10_000,
            big_a: 1000.0,
            ..s
        };
        let g = param(20.0, 0.002, false).gains(&s, 1);
        close(g.c, 50.70257260995816);
        close(g.a, 3.3864687225559824);
    }

    #[test]
    fn probes_are_reproducible_and_symmetric() {
        let s = Schedule {
            iterations: 100,
            big_a: 10.0,
            alpha: DEFAULT_ALPHA,
            gamma: DEFAULT_GAMMA,
        };
        let params = vec![param(2.0, 0.05, false), param(2.0, 0.05, false)];
        let theta = [10.0, -3.0];
        let a = probe(&params, &s, 11, 5, 3, &theta);
        assert_eq!(a, probe(&params, &s, 11, 5, 3, &theta));
        // Another iteration or seed draws afresh somewhere in 32 tries.
        assert!((6..38).any(|i| probe(&params, &s, 11, i, 3, &theta).delta != a.delta));
        let c = params[0].gains(&s, 3).c;
        for (i, t) in theta.iter().enumerate() {
            let d = f64::from(a.delta[i]);
            close(a.plus[i], t + c * d);
            close(a.minus[i], t - c * d);
        }
        // Both signs occur.
        let signs: Vec<i8> = (1..200)
            .flat_map(|i| probe(&params, &s, 1, i, 1, &theta).delta)
            .collect();
        let ups = signs.iter().filter(|&&d| d == 1).count();
        assert!((150..250).contains(&ups), "{ups} of {}", signs.len());
    }

    #[test]
    fn integers_round_stochastically_to_the_mean() {
        assert_eq!(stochastic_round(4.3, 0.69), 4.0);
        assert_eq!(stochastic_round(4.3, 0.71), 5.0);
        assert_eq!(stochastic_round(-4.3, 0.29), -5.0);
        assert_eq!(stochastic_round(-4.3, 0.31), -4.0);
        // θ = 4, c_k close to 0.3: θ+ is 5 in about 30% of the iterations, θ− 3.
        let s = Schedule {
            iterations: 1,
            big_a: 0.0,
            alpha: DEFAULT_ALPHA,
            gamma: DEFAULT_GAMMA,
        };
        let params = vec![param(0.3, 0.05, true)];
        let (mut sum, n) = (0.0, 4000);
        for i in 0..n {
            let p = probe(&params, &s, 3, i, 1, &[4.0]);
            assert!(p.plus[0].fract() == 0.0 && p.minus[0].fract() == 0.0);
            sum += (p.plus[0] - 4.0) * f64::from(p.delta[0]);
        }
        let mean = sum / n as f64;
        assert!((mean - 0.3).abs() < 0.03, "{mean}");
    }

    #[test]
    fn updates_move_along_delta_and_stay_in_range() {
        let s = Schedule {
            iterations: 2000,
            big_a: 200.0,
            alpha: DEFAULT_ALPHA,
            gamma: DEFAULT_GAMMA,
        };
        let mut p = param(1.0, 0.05, true);
        p.max = 10.1;
        p.min = -10.1;
        let params = vec![p.clone(), p];
        let mut theta = vec![5.0, 5.0];
        update(&params, &s, &mut theta, 1, &[1, -1], 2.0);
        // a_1 / c_1 · 2 = 0.21114676484427486 / 2.154785426252358 · 2.
        let step = 0.21114676484427486 / 2.154785426252358 * 2.0;
        close(theta[0], 5.0 + step);
        close(theta[1], 5.0 - step);
        update(&params, &s, &mut theta, 1, &[1, -1], 0.0);
        close(theta[0], 5.0 + step);
        for _ in 0..100 {
            update(&params, &s, &mut theta, 1, &[1, -1], 2.0);
        }
        assert_eq!(theta[0], 10.1);
        assert_eq!(theta[1], -10.1);
    }

    /// Exponents or an `A` that overflow the gains are named, and an update with such gains
    /// leaves θ as it was: θ is never NaN.
    #[test]
    fn overflowing_gains_are_refused_and_never_reach_theta() {
        let fine = Schedule {
            iterations: 100,
            big_a: 10.0,
            alpha: DEFAULT_ALPHA,
            gamma: DEFAULT_GAMMA,
        };
        let p = param(1.0, 0.05, false);
        assert_eq!(p.gains_problem(&fine), None);
        for s in [
            Schedule {
                gamma: 400.0,
                ..fine
            },
            Schedule {
                alpha: 1e308,
                ..fine
            },
            Schedule {
                big_a: 1e308,
                alpha: 2.0,
                ..fine
            },
        ] {
            let problem = p.gains_problem(&s).expect("overflowing gains");
            assert!(problem.contains("not finite numbers above 0"), "{problem}");
            let mut theta = vec![3.0];
            update(std::slice::from_ref(&p), &s, &mut theta, 1, &[1], 2.0);
            assert!(theta[0].is_finite(), "{theta:?}");
        }
    }
}
