//! `harness sprt-sim`: the resampling study of how many games each sequential test needs on a
//! journal's real game pairs (`stats::sprt_sim`).

use super::exit;
use super::output::say;
use anyhow::Context;
use harness_core::record::{journal, outcomes};
use harness_core::stats::sprt::{Model, SprtParams, Unit};
use std::path::PathBuf;

/// Resampling study: how many games each sequential test needs on a journal's real pairs.
#[derive(clap::Args)]
pub struct Args {
    /// A games.jsonl (or its output folder) of a match.
    journal: PathBuf,
    /// The candidate's name (default: Black of the first game).
    #[arg(long)]
    candidate: Option<String>,
    /// H0 of the logistic Elo tests: the candidate is not stronger than this.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    elo0: f64,
    /// H1 of the logistic Elo tests: the candidate is stronger by at least this.
    #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
    elo1: f64,
    /// H0 of the normalised tests (pentanomial and discs), in normalised Elo.
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    nelo0: f64,
    /// H1 of the normalised tests (pentanomial and discs), in normalised Elo.
    #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
    nelo1: f64,
    /// Simulated tests per kind of test.
    #[arg(long, default_value_t = 200)]
    runs: usize,
    /// A simulated test that has not decided after this many pairs counts as undecided.
    #[arg(long, default_value_t = 20_000)]
    max_pairs: usize,
    /// Pairs between two evaluations of the LLR.
    #[arg(long, default_value_t = 10)]
    check_every: usize,
    /// Seed of the resampling.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The study: each kind of test run `runs` times on pairs drawn from the journal's.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let Args {
        journal: journal_path,
        candidate,
        elo0,
        elo1,
        nelo0,
        nelo1,
        runs,
        max_pairs,
        check_every,
        seed,
    } = args;
    use harness_core::stats::sprt_sim::{complete_pairs, effect_sizes, simulate, SimulationConfig};
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
    let path = journal::journal_path(&journal_path);
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
    let stats = harness_core::stats::match_stats(&outcomes(&records), &a, &b);
    say!(
        "{a} vs {b}: {} complete pairs; Elo {}; discs/game {}",
        pairs.len(),
        stats.elo.map(|e| e.to_string()).unwrap_or_default(),
        stats.disc_diff.map(|e| e.to_string()).unwrap_or_default()
    );
    for (unit, t) in effect_sizes(&pairs) {
        say!(
            "  effect size (mean - centre)/sd per {} observation: {t:+.4}",
            unit.as_str()
        );
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
            format!("{}/{}", s.params.model.as_str(), s.params.unit.as_str()),
            format!("[{}, {}]", s.params.elo0, s.params.elo1),
            s.mean_games,
            s.median_games,
            100.0 * s.accepted_h1,
            100.0 * s.accepted_h0,
            100.0 * s.undecided
        );
    }
    Ok(exit::SUCCESS)
}
