//! A tune's parameters as the live view keeps them: each one's current value and its
//! trajectory, thinned to a bounded number of points however long the tune runs.

/// The most points kept per parameter: when full, every other point is dropped and the
/// sampling step doubles (the trajectory keeps its shape at any length).
const MAX_POINTS: usize = 256;

/// The parameters of a running tune and their trajectories.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneTrace {
    pub names: Vec<String>,
    /// θ now.
    pub current: Vec<f64>,
    pub applied: u64,
    pub iterations: u64,
    /// One series per parameter, a point every `step` iterations.
    pub history: Vec<Vec<f64>>,
    step: u64,
}

impl TuneTrace {
    /// Take θ after `applied` iterations into `trace` (a new trace when there is none, or
    /// when the parameters changed).
    pub fn hear(
        trace: &mut Option<TuneTrace>,
        applied: u64,
        iterations: u64,
        theta: Vec<(String, f64)>,
    ) {
        let (names, values): (Vec<String>, Vec<f64>) = theta.into_iter().unzip();
        let t = match trace {
            Some(t) if t.names == names => t,
            _ => trace.insert(TuneTrace {
                history: vec![Vec::new(); names.len()],
                names,
                current: Vec::new(),
                applied,
                iterations,
                step: 1,
            }),
        };
        if applied.is_multiple_of(t.step) {
            for (series, v) in t.history.iter_mut().zip(&values) {
                series.push(*v);
            }
            if t.history.first().is_some_and(|s| s.len() >= MAX_POINTS) {
                for series in &mut t.history {
                    *series = series.iter().step_by(2).copied().collect();
                }
                t.step *= 2;
            }
        }
        t.current = values;
        t.applied = applied;
        t.iterations = iterations;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_trajectories_are_thinned() {
        let mut trace = None;
        for i in 0..=10_000u64 {
            TuneTrace::hear(&mut trace, i, 10_000, vec![("A".into(), i as f64)]);
        }
        let t = trace.unwrap();
        assert_eq!(t.current, [10_000.0]);
        assert!(t.history[0].len() < MAX_POINTS);
        assert!(t.history[0].len() > MAX_POINTS / 4);
        assert_eq!(t.history[0][0], 0.0);
        assert!(t.history[0]
            .windows(2)
            .all(|w| w[1] - w[0] == t.step as f64));
    }
}
