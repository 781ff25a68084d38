//! `harness sprt`: the sequential test from result counts alone, exit code as for `run`.

use super::output::{say, say_raw};
use crate::show::table;
use harness_core::stats::sprt::{Model, Sample, SprtParams, Unit};

/// Compute a sequential test from result counts alone (exit code as for `run`).
#[derive(clap::Args)]
pub struct Args {
    /// Game results: wins,draws,losses.
    #[arg(long, value_parser = counts::<3>, conflicts_with = "penta", required_unless_present = "penta")]
    wdl: Option<Counts>,
    /// Pair results: LL,LD,WL+DD,WD,WW.
    #[arg(long, value_parser = counts::<5>)]
    penta: Option<Counts>,
    /// H0: the candidate is not stronger than this (Elo of the model).
    #[arg(long, allow_negative_numbers = true)]
    elo0: f64,
    /// H1: the candidate is stronger by at least this.
    #[arg(long, allow_negative_numbers = true)]
    elo1: f64,
    /// Chance of accepting H1 when H0 holds.
    #[arg(long, default_value_t = 0.05)]
    alpha: f64,
    /// Chance of accepting H0 when H1 holds.
    #[arg(long, default_value_t = 0.05)]
    beta: f64,
    /// What the Elo bounds mean: logistic Elo or normalised Elo.
    #[arg(long, value_enum, default_value_t = ModelArg::Logistic)]
    model: ModelArg,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ModelArg {
    Logistic,
    Normalized,
}

/// Comma-separated result counts.
#[derive(Clone, Debug)]
struct Counts(Vec<u64>);

/// `N` comma-separated counts.
fn counts<const N: usize>(text: &str) -> Result<Counts, String> {
    let parts: Vec<u64> = text
        .split(',')
        .map(|p| {
            p.trim()
                .parse::<u64>()
                .map_err(|_| format!("`{p}` is not a count"))
        })
        .collect::<Result<_, _>>()?;
    if parts.len() != N {
        return Err(format!(
            "expected {N} comma-separated counts, got {}",
            parts.len()
        ));
    }
    Ok(Counts(parts))
}

/// The test from counts alone: the Elo estimate, the LLR and the decision.
pub fn run(args: Args) -> anyhow::Result<i32> {
    let Args {
        wdl,
        penta,
        elo0,
        elo1,
        alpha,
        beta,
        model,
    } = args;
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
    let status = params.status_of_sample(&sample);
    if let Some((elo, los)) = harness_core::stats::score_estimate(&scores) {
        say!("Elo      {elo}  ({})", unit.as_str());
        say!("LOS      {:.1}%", 100.0 * los);
    }
    if let Some(nelo) = harness_core::stats::sprt::normalized_elo(&sample, unit) {
        say!("nElo     {nelo}");
    }
    say_raw!("{}", table::sprt_summary(&status, "candidate", "baseline"));
    Ok(crate::cli::exit::of_decision(status.decision))
}
