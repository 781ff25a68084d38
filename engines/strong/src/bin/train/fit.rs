//! The fit: one weight set per phase, by full-batch Adam on the mean squared error in discs.
//!
//! A phase's samples are turned into compact weight ids once (one per feature, then the
//! mobility entry; see `strong::pattern::model`). Each step computes the exact gradient over
//! all training samples of the phase: fixed chunks in parallel (rayon), summed in chunk order
//! so that a run gives the same weights on any number of threads. A small L2 penalty keeps
//! configurations seen a few times near zero. The step whose validation error is lowest is
//! kept (early stopping), then the weights are rounded to evaluation units (1/100 disc).

use crate::data::Sample;
use rayon::prelude::*;
use strong::pattern::model::Model;

/// Optimiser settings.
#[derive(Clone, Debug)]
pub struct FitParams {
    pub steps: usize,
    pub learning_rate: f32,
    pub l2: f32,
}

/// One phase's result.
pub struct PhaseFit {
    pub weights: Vec<i16>,
    pub train: usize,
    pub validation: usize,
    /// Validation mean absolute error of the rounded weights, in discs.
    pub mae: f64,
    /// Training mean absolute error, in discs.
    pub train_mae: f64,
    pub best_step: usize,
}

/// Compact ids of the samples, `stride` per sample.
fn ids_of(model: &Model, samples: &[&Sample]) -> Vec<u32> {
    let stride = model.features() + 1;
    let mut ids = vec![0u32; samples.len() * stride];
    ids.par_chunks_mut(stride * 1024)
        .zip(samples.par_chunks(1024))
        .for_each(|(out, chunk)| {
            let mut buf = Vec::with_capacity(stride);
            for (k, s) in chunk.iter().enumerate() {
                model.compact_ids(&s.board, &mut buf);
                out[k * stride..(k + 1) * stride].copy_from_slice(&buf);
            }
        });
    ids
}

/// Mean absolute error of `w` (discs) over samples given by ids and labels.
fn mae(w: &[f32], ids: &[u32], labels: &[f32], stride: usize) -> f64 {
    let total: f64 = ids
        .par_chunks(stride * 4096)
        .zip(labels.par_chunks(4096))
        .map(|(ids, labels)| {
            let mut e = 0f64;
            for (row, &y) in ids.chunks_exact(stride).zip(labels) {
                let p: f32 = row.iter().map(|&i| w[i as usize]).sum();
                e += (p - y).abs() as f64;
            }
            e
        })
        .collect::<Vec<_>>()
        .iter()
        .sum();
    total / labels.len().max(1) as f64
}

/// Fit one phase.
pub fn fit_phase(model: &Model, samples: &[&Sample], params: &FitParams) -> PhaseFit {
    let stride = model.features() + 1;
    let (train, val): (Vec<&Sample>, Vec<&Sample>) =
        samples.iter().copied().partition(|s| !s.validation);
    let train_ids = ids_of(model, &train);
    let val_ids = ids_of(model, &val);
    let train_y: Vec<f32> = train.iter().map(|s| s.label as f32).collect();
    let val_y: Vec<f32> = val.iter().map(|s| s.label as f32).collect();
    let n = model.compact_len;
    let mut w = vec![0f32; n];
    let (mut m, mut v) = (vec![0f32; n], vec![0f32; n]);
    let (b1, b2, eps) = (0.9f32, 0.999f32, 1e-8f32);
    let mut best = (f64::INFINITY, 0usize, w.clone());
    const CHUNK: usize = 8192;
    for step in 1..=params.steps {
        let grads: Vec<Vec<f32>> = train_ids
            .par_chunks(stride * CHUNK)
            .zip(train_y.par_chunks(CHUNK))
            .map(|(ids, ys)| {
                let mut g = vec![0f32; n];
                for (row, &y) in ids.chunks_exact(stride).zip(ys) {
                    let p: f32 = row.iter().map(|&i| w[i as usize]).sum();
                    let err = p - y;
                    for &i in row {
                        g[i as usize] += err;
                    }
                }
                g
            })
            .collect();
        let scale = 1.0 / train_y.len().max(1) as f32;
        let lr = params.learning_rate * (1.0 - (step - 1) as f32 / params.steps as f32);
        let t = step as i32;
        let (c1, c2) = (1.0 - b1.powi(t), 1.0 - b2.powi(t));
        for i in 0..n {
            let mut g = params.l2 * w[i];
            for part in &grads {
                g += part[i] * scale;
            }
            m[i] = b1 * m[i] + (1.0 - b1) * g;
            v[i] = b2 * v[i] + (1.0 - b2) * g * g;
            w[i] -= lr * (m[i] / c1) / ((v[i] / c2).sqrt() + eps);
        }
        if val.is_empty() {
            // Nothing held out: no early stopping, the last step is kept.
            best = (0.0, step, w.clone());
        } else if step % 10 == 0 || step == params.steps {
            let e = mae(&rounded(&w), &val_ids, &val_y, stride);
            if e < best.0 {
                best = (e, step, w.clone());
            }
        }
    }
    let weights: Vec<i16> = best
        .2
        .iter()
        .map(|&x| (x * 100.0).round().clamp(-32000.0, 32000.0) as i16)
        .collect();
    let as_f: Vec<f32> = weights.iter().map(|&x| x as f32 / 100.0).collect();
    PhaseFit {
        train_mae: mae(&as_f, &train_ids, &train_y, stride),
        mae: mae(&as_f, &val_ids, &val_y, stride),
        weights,
        train: train.len(),
        validation: val.len(),
        best_step: best.1,
    }
}

/// `w` rounded to evaluation units, in discs (what the engine will compute).
fn rounded(w: &[f32]) -> Vec<f32> {
    w.iter().map(|&x| (x * 100.0).round() / 100.0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_sdk::board::playout::{random_positions, SplitMix64};

    /// Labels made by a model of the same form are learnt back: the optimiser, the gradient
    /// and the rounding all have to be right for the validation error to come out small.
    #[test]
    fn recovers_a_known_model() {
        let model = Model::new(&["diag4", "diag5"], 1).unwrap();
        let mut rng = SplitMix64(3);
        let truth: Vec<f32> = (0..model.compact_len)
            .map(|i| {
                if i < model.compact_len - 1024 {
                    rng.below(11) as f32 - 5.0
                } else {
                    0.0
                }
            })
            .collect();
        let samples: Vec<Sample> = random_positions(6000, 11)
            .into_iter()
            .enumerate()
            .map(|(k, p)| {
                let mut ids = Vec::new();
                model.compact_ids(&p.board, &mut ids);
                let y: f32 = ids.iter().map(|&i| truth[i as usize]).sum();
                Sample {
                    board: p.board,
                    label: y as i8,
                    validation: k % 10 == 0,
                }
            })
            .collect();
        let refs: Vec<&Sample> = samples.iter().collect();
        let zero_error = {
            let v: Vec<f32> = samples
                .iter()
                .filter(|s| s.validation)
                .map(|s| s.label as f32)
                .collect();
            v.iter().map(|x| x.abs() as f64).sum::<f64>() / v.len() as f64
        };
        let fit = fit_phase(
            &model,
            &refs,
            &FitParams {
                steps: 300,
                learning_rate: 0.3,
                l2: 0.0,
            },
        );
        assert!(zero_error > 5.0, "labels too small to test: {zero_error}");
        assert!(
            fit.mae < 1.0,
            "validation MAE {} (predicting 0: {zero_error})",
            fit.mae
        );
    }
}
