//! `harness sprt` (the sequential test from result counts alone) and `harness sprt-sim` (the
//! resampling study of how many games each test needs).

use super::output::{say, say_raw};
use super::{Counts, ModelArg};
use crate::record::{journal, outcomes};
use crate::show::table;
use crate::stats::sprt::{Model, Sample, SprtParams, Unit};
use crate::stats::verdict;
use anyhow::Context;
use std::path::Path;

/// `harness sprt-sim`: the resampling study of `crate::stats::sprt_sim`.
pub fn sprt_sim(
    journal_path: &Path,
    candidate: Option<String>,
    [elo0, elo1, nelo0, nelo1]: [f64; 4],
    runs: usize,
    max_pairs: usize,
    check_every: usize,
    seed: u64,
) -> anyhow::Result<()> {
    use crate::stats::sprt_sim::{complete_pairs, effect_sizes, simulate, SimulationConfig};
    // The flags first: a bad one is refused before the journal is read.
    let p = |elo0, elo1, model, unit, flags: &str| {
        SprtParams::new(elo0, elo1, 0.05, 0.05, model, unit).map_err(|e| {
            let key = if e.key() == "elo1" { "elo1" } else { "elo0" };
            anyhow::anyhow!("--{flags}{key}: {e}")
        })
    };
    let tests = [
        p(elo0, elo1, Model::Logistic, Unit::Trinomial, "")?,
        p(elo0, elo1, Model::Logistic, Unit::Pentanomial, "")?,
        p(nelo0, nelo1, Model::Normalized, Unit::Trinomial, "n")?,
        p(nelo0, nelo1, Model::Normalized, Unit::Pentanomial, "n")?,
        p(nelo0, nelo1, Model::Normalized, Unit::Discs, "n")?,
    ];
    anyhow::ensure!(runs >= 1, "--runs: must be at least 1");
    anyhow::ensure!(max_pairs >= 1, "--max-pairs: must be at least 1");
    anyhow::ensure!(check_every >= 1, "--check-every: must be at least 1");
    let path = if journal_path.is_dir() {
        journal_path.join(journal::JSONL_FILE)
    } else {
        journal_path.to_path_buf()
    };
    let records = journal::read_journal(&path)?;
    let first = records
        .first()
        .with_context(|| format!("{}: no games", path.display()))?;
    let a = candidate.unwrap_or_else(|| first.black.clone());
    let b = if first.black == a {
        first.white.clone()
    } else {
        first.black.clone()
    };
    let pairs = complete_pairs(&outcomes(&records), &a, &b);
    anyhow::ensure!(
        !pairs.is_empty(),
        "{}: no complete pairs of {a} against {b}",
        path.display()
    );
    let stats = crate::stats::match_stats(&outcomes(&records), &a, &b);
    say!(
        "{a} vs {b}: {} complete pairs; Elo {}; discs/game {}",
        pairs.len(),
        stats.elo.map(|e| e.to_string()).unwrap_or_default(),
        stats.disc_diff.map(|e| e.to_string()).unwrap_or_default()
    );
    for (unit, t) in effect_sizes(&pairs) {
        say!("  effect size (mean - centre)/sd per {unit:?} observation: {t:+.4}");
    }
    let cfg = SimulationConfig {
        runs,
        max_pairs,
        check_every,
        seed,
    };
    say!("{runs} runs, at most {max_pairs} pairs each, LLR checked every {check_every} pairs, alpha = beta = 0.05");
    say!(
        "{:<24} {:>14} {:>12} {:>12} {:>7} {:>7} {:>10}",
        "test",
        "bounds",
        "mean games",
        "median",
        "H1",
        "H0",
        "undecided"
    );
    for s in simulate(&pairs, &tests, cfg) {
        say!(
            "{:<24} {:>14} {:>12.0} {:>12.0} {:>6.1}% {:>6.1}% {:>9.1}%",
            format!("{:?}/{:?}", s.params.model, s.params.unit),
            format!("[{}, {}]", s.params.elo0, s.params.elo1),
            s.mean_games,
            s.median_games,
            100.0 * s.accepted_h1,
            100.0 * s.accepted_h0,
            100.0 * s.undecided
        );
    }
    Ok(())
}

/// `harness sprt`: the test from counts alone.
pub fn sprt_from_counts(
    wdl: Option<Counts>,
    penta: Option<Counts>,
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    model: ModelArg,
) -> anyhow::Result<i32> {
    let model = match model {
        ModelArg::Logistic => Model::Logistic,
        ModelArg::Normalized => Model::Normalized,
    };
    let (unit, sample, scores) = match (wdl, penta) {
        (Some(Counts(c)), _) => {
            let (w, d, l) = (c[0], c[1], c[2]);
            let scores: Vec<f64> = [(w, 1.0), (d, 0.5), (l, 0.0)]
                .iter()
                .flat_map(|&(n, v)| std::iter::repeat_n(v, n as usize))
                .collect();
            (Unit::Trinomial, Sample::trinomial(w, d, l), scores)
        }
        (None, Some(Counts(c))) => {
            let counts = [c[0], c[1], c[2], c[3], c[4]];
            let scores: Vec<f64> = counts
                .iter()
                .zip([0.0, 0.25, 0.5, 0.75, 1.0])
                .flat_map(|(&n, v)| std::iter::repeat_n(v, n as usize))
                .collect();
            (Unit::Pentanomial, Sample::pentanomial(counts), scores)
        }
        (None, None) => anyhow::bail!("give --wdl W,D,L or --penta LL,LD,WL+DD,WD,WW"),
    };
    let params = SprtParams::new(elo0, elo1, alpha, beta, model, unit)
        .map_err(|e| anyhow::anyhow!("--{}: {e}", e.key()))?;
    let llr = params.llr(&sample);
    let (lower, upper) = params.bounds();
    let status = crate::stats::sprt::SprtStatus {
        params,
        llr,
        lower,
        upper,
        decision: params.decide(llr),
        observations: sample.total() as u64,
    };
    if let Some((elo, los)) = crate::stats::score_estimate(&scores) {
        say!("Elo      {elo}  ({unit:?})");
        say!("LOS      {:.1}%", 100.0 * los);
    }
    if let Some(nelo) = crate::stats::sprt::normalized_elo(&sample, unit) {
        say!("nElo     {nelo}");
    }
    say_raw!("{}", table::sprt_summary(&status, "candidate", "baseline"));
    Ok(verdict::exit_code(Some(status.decision), &[]))
}
