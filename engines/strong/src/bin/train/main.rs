//! The training pipeline of the pattern evaluation (see the crate README, "Training").
//!
//! ```text
//! train wthor    --wthor DIR [--verify N]          read, replay and check the WTHOR games
//! train selfplay --games N --out FILE [...]         generate self-play transcripts
//! train label    --depth D --eval FILE --out FILE [...]   search labels for midgame positions
//! train fit      --wthor DIR --selfplay FILE --out data/eval.weights [...]
//! ```
//!
//! `fit` prints, per phase, the validation mean absolute error (discs) of the new weights
//! and of the interim hand-written evaluation on the same held-out positions.

mod data;
mod fit;
mod search_labels;
mod selfplay;

use clap::{Parser, Subcommand};
use data::Sample;
use othello_sdk::board::{Position, WthorError};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use strong::eval::{EvalSource, HandEval};
use strong::pattern::model::{Model, DEFAULT_SHAPES};
use strong::pattern::{weights, Weights};
use strong::score::SCALE;

#[derive(Parser)]
#[command(about = "Train the strong engine's pattern evaluation")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Read every WTHOR game, replay and check it; optionally solve the 24-empty position of
    /// N games to check the database's theoretical scores.
    Wthor {
        #[arg(long, default_value = "../shared/data/wthor")]
        wthor: PathBuf,
        #[arg(long, default_value_t = 0)]
        verify: usize,
        /// Solve N positions of each of these numbers of empties and report how far the
        /// labels are from the exact scores (the label noise the fit cannot remove).
        #[arg(long)]
        label_noise: Vec<u32>,
        #[arg(long, default_value_t = 200)]
        noise_samples: usize,
    },
    /// Generate self-play games (transcripts with their results).
    Selfplay {
        #[arg(long)]
        games: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value_t = 6)]
        depth: u32,
        #[arg(long, default_value_t = 16)]
        solve_empties: u32,
        #[arg(long, default_value_t = 8)]
        min_random: usize,
        #[arg(long, default_value_t = 30)]
        max_random: usize,
        /// `simple` (the interim evaluation) or a weight file.
        #[arg(long, default_value = "simple")]
        eval: String,
        #[arg(long)]
        out: PathBuf,
    },
    /// Search a sample of the training positions to a fixed depth and write their values
    /// (search labels, see `search_labels`); `fit --search-labels` blends them in.
    Label {
        #[arg(long, default_value = "../shared/data/wthor")]
        wthor: PathBuf,
        /// Self-play files (repeatable), as for `fit`.
        #[arg(long)]
        selfplay: Vec<PathBuf>,
        #[arg(long, default_value_t = 10)]
        validation_percent: u64,
        #[arg(long, default_value_t = 8)]
        depth: u32,
        #[arg(long, default_value_t = 25)]
        min_empties: u32,
        #[arg(long, default_value_t = 56)]
        max_empties: u32,
        /// One position in N (by a hash of the board).
        #[arg(long, default_value_t = 8)]
        every: u64,
        /// Which one in N: those whose hash is this modulo N (`0..N`; the parts are disjoint).
        #[arg(long, default_value_t = 0)]
        part: u64,
        /// `simple`, `trained` (the embedded weights) or a weight file.
        #[arg(long, default_value = "trained")]
        eval: String,
        #[arg(long)]
        out: PathBuf,
    },
    /// Fit the weights and write the weight file.
    Fit {
        #[arg(long, default_value = "../shared/data/wthor")]
        wthor: PathBuf,
        /// Self-play files (repeatable).
        #[arg(long)]
        selfplay: Vec<PathBuf>,
        #[arg(long, default_value_t = 30)]
        phases: usize,
        /// Comma-separated shape names (default: Edax's set).
        #[arg(long)]
        shapes: Option<String>,
        #[arg(long, default_value_t = 300)]
        steps: usize,
        #[arg(long, default_value_t = 1.0)]
        lr: f32,
        #[arg(long, default_value_t = 1e-4)]
        l2: f32,
        /// WTHOR positions within this many empties get exact solver labels (0 = none).
        #[arg(long, default_value_t = 16)]
        exact_empties: u32,
        /// Where the solved labels are cached.
        #[arg(long, default_value = "target/train-cache/wthor-exact.labels")]
        exact_cache: PathBuf,
        /// Percentage of games held out for validation.
        #[arg(long, default_value_t = 10)]
        validation_percent: u64,
        /// Search-label files of `train label` (repeatable).
        #[arg(long)]
        search_labels: Vec<PathBuf>,
        /// The search value's share of a relabelled training position's label (0-1).
        #[arg(long, default_value_t = 0.5)]
        search_weight: f32,
        /// Fit only these phases (for quick experiments; no file is written).
        #[arg(long)]
        only: Vec<usize>,
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Wthor {
            wthor,
            verify,
            label_noise,
            noise_samples,
        } => check_wthor(&wthor, verify, &label_noise, noise_samples),
        Command::Selfplay {
            games,
            seed,
            depth,
            solve_empties,
            min_random,
            max_random,
            eval,
            out,
        } => {
            let params = selfplay::SelfPlayParams {
                games,
                seed,
                depth,
                solve_empties,
                min_random,
                max_random: max_random.max(min_random),
            };
            run_selfplay(&params, &eval, &out)
        }
        Command::Label {
            wthor,
            selfplay,
            validation_percent,
            depth,
            min_empties,
            max_empties,
            every,
            part,
            eval,
            out,
        } => {
            let sources = Sources {
                wthor: &wthor,
                exact: None,
                selfplay: &selfplay,
                percent: validation_percent,
            };
            let params = search_labels::LabelParams {
                depth,
                min_empties,
                max_empties,
                every,
                part,
            };
            run_label(&sources, &params, &eval, &out)
        }
        Command::Fit {
            wthor,
            selfplay,
            phases,
            shapes,
            steps,
            lr,
            l2,
            exact_empties,
            exact_cache,
            validation_percent,
            search_labels,
            search_weight,
            only,
            out,
        } => {
            let exact = (exact_empties > 0).then_some((exact_empties, exact_cache.as_path()));
            let names: Vec<String> = match shapes {
                Some(s) => s.split(',').map(|x| x.trim().to_string()).collect(),
                None => DEFAULT_SHAPES.iter().map(|s| s.to_string()).collect(),
            };
            let params = fit::FitParams {
                steps,
                learning_rate: lr,
                l2,
            };
            let sources = Sources {
                wthor: &wthor,
                exact,
                selfplay: &selfplay,
                percent: validation_percent,
            };
            let blend = SearchLabels {
                files: &search_labels,
                weight: search_weight,
            };
            run_fit(
                &sources,
                &blend,
                phases,
                &names,
                &params,
                &only,
                out.as_deref(),
            )
        }
    };
    if let Err(e) = result {
        eprintln!("train: {e}");
        std::process::exit(2);
    }
}

fn check_wthor(dir: &Path, verify: usize, noise: &[u32], count: usize) -> Result<(), String> {
    let t = Instant::now();
    let mut samples = Vec::new();
    let stats = data::wthor_samples(dir, 10, None, &mut samples)?;
    println!(
        "{} games read, {} rejected, {} positions; theoretical = actual result in {} games ({:.1}%); {:.1} s",
        stats.games,
        stats.rejected,
        stats.samples,
        stats.theory_agrees,
        100.0 * stats.theory_agrees as f64 / stats.games.max(1) as f64,
        t.elapsed().as_secs_f64()
    );
    if verify > 0 {
        verify_theoretical(dir, verify)?;
    }
    for &empties in noise {
        let set: Vec<&Sample> = samples
            .iter()
            .filter(|s| s.board.empties() == empties)
            .collect();
        let step = (set.len() / count.max(1)).max(1);
        let picked: Vec<&Sample> = set.into_iter().step_by(step).take(count).collect();
        let total: i64 = picked
            .par_iter()
            .map(|s| {
                let tt = Arc::new(strong::tt::Tt::new(4));
                let mut sr = strong::search::Searcher::new(tt, Box::new(HandEval::default()), None);
                (sr.solve(s.board) - s.label as i32).abs() as i64
            })
            .sum();
        println!(
            "{empties} empties: labels differ from exact scores by {:.2} discs on average ({} positions)",
            total as f64 / picked.len().max(1) as f64,
            picked.len()
        );
    }
    Ok(())
}

/// Solve the position at the theoretical-score depth of `count` games spread over the
/// database and compare with the recorded theoretical score.
fn verify_theoretical(dir: &Path, count: usize) -> Result<(), String> {
    let mut games = Vec::new();
    let files = data::wtb_files(dir)?;
    for f in &files {
        let (h, g) = data::read_wtb_file(f)?;
        let depth = h.theoretical_empties();
        let name = f.display().to_string();
        games.extend(
            g.into_iter()
                .enumerate()
                .map(|(i, g)| (depth, format!("{name} game {i}"), g)),
        );
    }
    let step = (games.len() / count).max(1);
    let tt = Arc::new(strong::tt::Tt::new(256));
    let (mut agree, mut tried) = (0, 0);
    for (depth, name, g) in games.iter().step_by(step).take(count) {
        let r = match g.replay() {
            Ok(r) => r,
            // Left out of training too (see `data::wthor_samples`).
            Err(WthorError::Unfinished { .. }) => continue,
            Err(e) => return Err(format!("{name}: {e}")),
        };
        let mut pos = Position::START;
        for &mv in &r.played {
            if pos.empties() <= *depth && !pos.must_pass() {
                break;
            }
            pos = pos.play(mv).map_err(|e| format!("{name}: {e}"))?;
        }
        if pos.is_game_over() || pos.empties() > *depth {
            continue;
        }
        let mut s = strong::search::Searcher::new(tt.clone(), Box::new(HandEval::default()), None);
        let v = s.solve(pos.board);
        let black = if pos.side_to_move == othello_sdk::board::Color::Black {
            v
        } else {
            -v
        };
        tried += 1;
        if black == g.theoretical_diff_black() {
            agree += 1;
        } else {
            println!(
                "theoretical {} but solved {black}",
                g.theoretical_diff_black()
            );
        }
    }
    println!("theoretical scores verified by exact solve: {agree} of {tried} agree");
    Ok(())
}

/// How a generated file names the evaluation it was made with: `simple`, or the name given
/// and the weights' checksum.
fn eval_label(name: &str, source: &EvalSource) -> String {
    match source {
        EvalSource::Simple => "simple".to_string(),
        EvalSource::Trained(w) => format!("{name} ({:016x})", w.checksum),
    }
}

fn run_selfplay(p: &selfplay::SelfPlayParams, eval: &str, out: &Path) -> Result<(), String> {
    let t = Instant::now();
    let source = EvalSource::named(eval)?;
    let text = selfplay::generate(p, &source, &eval_label(eval, &source));
    std::fs::write(out, text).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    println!(
        "{} games in {:.1} s -> {}",
        p.games,
        t.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(())
}

/// Where the training data comes from.
struct Sources<'a> {
    wthor: &'a Path,
    exact: Option<(u32, &'a Path)>,
    selfplay: &'a [PathBuf],
    percent: u64,
}

/// Search-label files blended into the training labels (`fit --search-labels`).
struct SearchLabels<'a> {
    files: &'a [PathBuf],
    /// The search value's share of a relabelled position's label.
    weight: f32,
}

/// Every sample of the sources (WTHOR first, then the self-play files in order), with the
/// counts printed.
fn read_samples(src: &Sources) -> Result<Vec<Sample>, String> {
    let mut samples: Vec<Sample> = Vec::new();
    let s = data::wthor_samples(src.wthor, src.percent, src.exact, &mut samples)?;
    println!(
        "WTHOR: {} games ({} rejected), {} positions",
        s.games, s.rejected, s.samples
    );
    for f in src.selfplay {
        let s = data::selfplay_samples(f, src.percent, &mut samples)?;
        println!(
            "{}: {} games, {} positions",
            f.display(),
            s.games,
            s.samples
        );
    }
    Ok(samples)
}

fn run_label(
    src: &Sources,
    p: &search_labels::LabelParams,
    eval: &str,
    out: &Path,
) -> Result<(), String> {
    if p.part >= p.every.max(1) {
        return Err(format!(
            "--part {} must be less than --every {}",
            p.part, p.every
        ));
    }
    let t = Instant::now();
    let source = EvalSource::named(eval)?;
    let eval_name = eval_label(eval, &source);
    let samples = read_samples(src)?;
    let boards = search_labels::pick(&samples, p);
    println!(
        "{} positions of {}-{} empties (part {} of {}), depth {}, eval {eval_name}",
        boards.len(),
        p.min_empties,
        p.max_empties,
        p.part,
        p.every,
        p.depth
    );
    let header = format!(
        "search labels: depth {}, eval {eval_name}, {}-{} empties, part {} of {} of the training positions\n\
         sources: {} and {} self-play file(s), {}% held out\n\
         <player hex> <opponent hex> <value, 1/100 disc, side to move's view>",
        p.depth,
        p.min_empties,
        p.max_empties,
        p.part,
        p.every,
        src.wthor.display(),
        src.selfplay.len(),
        src.percent
    );
    let resumed = search_labels::label_resumable(
        out,
        &header,
        &boards,
        p.depth,
        &source,
        search_labels::CHUNK,
    )?;
    println!(
        "{} positions ({resumed} of them from {}) in {:.1} s -> {}",
        boards.len(),
        search_labels::partial_path(out).display(),
        t.elapsed().as_secs_f64(),
        out.display()
    );
    Ok(())
}

fn run_fit(
    src: &Sources,
    blend: &SearchLabels,
    phases: usize,
    names: &[String],
    params: &fit::FitParams,
    only: &[usize],
    out: Option<&Path>,
) -> Result<(), String> {
    let t = Instant::now();
    let name_refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let model = Model::new(&name_refs, phases)?;
    if !(0.0..=1.0).contains(&blend.weight) {
        return Err(format!(
            "--search-weight {} must be within 0-1",
            blend.weight
        ));
    }
    let mut samples = read_samples(src)?;
    for f in blend.files {
        let labels = search_labels::read(f)?;
        let n = search_labels::blend(&mut samples, &labels, blend.weight);
        println!(
            "{}: {} search labels, {n} training positions relabelled (search weight {})",
            f.display(),
            labels.len(),
            blend.weight
        );
    }
    println!(
        "model: {} shapes, {} features, {} phases, {} weights per phase ({} stored); data read in {:.1} s",
        model.shapes.len(),
        model.features(),
        phases,
        model.table_len,
        model.compact_len,
        t.elapsed().as_secs_f64()
    );
    let mut by_phase: Vec<Vec<&Sample>> = vec![Vec::new(); phases];
    for s in &samples {
        by_phase[model.phase(&s.board)].push(s);
    }
    println!("phase  empties  train     valid     MAE-train  MAE-valid  MAE-interim  best-step");
    let mut compact = Vec::with_capacity(phases);
    let (mut sum_err, mut sum_interim, mut sum_n) = (0f64, 0f64, 0usize);
    for (p, set) in by_phase.iter().enumerate() {
        if !only.is_empty() && !only.contains(&p) {
            compact.push(vec![0i16; model.compact_len]);
            continue;
        }
        let fit = fit::fit_phase(&model, set, params);
        let interim = interim_mae(set);
        let empties: Vec<usize> = (1..=60)
            .filter(|&e| model.phase_of_empties[e] as usize == p)
            .collect();
        println!(
            "{p:>5}  {:>2}-{:<2}    {:<8}  {:<8}  {:>9.3}  {:>9.3}  {:>11.3}  {:>9}",
            empties.first().unwrap_or(&0),
            empties.last().unwrap_or(&0),
            fit.train,
            fit.validation,
            fit.train_mae,
            fit.mae,
            interim,
            fit.best_step
        );
        sum_err += fit.mae * fit.validation as f64;
        sum_interim += interim * fit.validation as f64;
        sum_n += fit.validation;
        compact.push(fit.weights);
    }
    println!(
        "all phases: validation MAE {:.3} discs (interim evaluation {:.3}) over {} positions; {:.1} s",
        sum_err / sum_n.max(1) as f64,
        sum_interim / sum_n.max(1) as f64,
        sum_n,
        t.elapsed().as_secs_f64()
    );
    if let Some(out) = out {
        if !only.is_empty() {
            return Err("--only fits part of the phases; no weight file written".into());
        }
        let bytes = weights::write(&model, &compact);
        let check = Weights::parse(&bytes).map_err(|e| e.to_string())?;
        std::fs::write(out, &bytes).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
        println!(
            "{} bytes, checksum {:016x} -> {}",
            bytes.len(),
            check.checksum,
            out.display()
        );
    }
    Ok(())
}

/// The interim evaluation's mean absolute error (discs) on the validation samples.
fn interim_mae(set: &[&Sample]) -> f64 {
    let e = HandEval::default();
    let val: Vec<&&Sample> = set.iter().filter(|s| s.validation).collect();
    let total: f64 = val
        .par_iter()
        .map(|s| ((e.score(&s.board) as f64 / SCALE as f64) - s.label as f64).abs())
        .sum();
    total / val.len().max(1) as f64
}
