//! The command line: `harness run`, `stats`, `sprt`, … Each command reads its inputs, calls
//! the stages below and maps the outcome to an exit code.

use crate::plan::config;
use crate::play::tournament;
use crate::record::journal;
use crate::show::table;
use crate::stats::sprt::{Decision, Model, Sample, SprtParams, Unit};
use anyhow::Context;
use clap::{Parser, Subcommand};
use othello_board::{perft, Board, PassRule};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Parser)]
#[command(
    name = "harness",
    version,
    about = "Othello engine tournaments: paired openings, plugin engines, Elo and disc statistics"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Play the tournament of a tournament file (default: ./tournament.toml, or the embedded
    /// default when there is none).
    Run {
        file: Option<PathBuf>,
        /// Folder where bare plugin names are looked up (default: the harness binary's folder).
        #[arg(long)]
        plugin_dir: Option<PathBuf>,
        /// Output folder, overriding the file's `out`.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Discard the games of an earlier run in the output folder and start over (without
        /// it, a run resumes where the earlier one stopped).
        #[arg(long)]
        restart: bool,
        /// Print plain progress lines instead of the live terminal UI (the UI opens only when
        /// stdout is a terminal and the `CI` variable is unset).
        #[arg(long)]
        no_tui: bool,
    },
    /// Step through the finished games of a run on the board (full-screen on a terminal;
    /// otherwise the game's final board as text).
    Replay {
        /// The output folder or its games.jsonl.
        file: PathBuf,
        /// Game number as shown on screen (the journal's `game` + 1); default: the first game.
        game: Option<usize>,
    },
    /// Recompute the statistics of a finished or interrupted run from its games.jsonl (or its
    /// output folder).
    Stats { file: PathBuf },
    /// Count the leaves of the game tree from the start position.
    Perft {
        depth: u32,
        /// 1: a pass counts as a move; 2: a pass counts as zero moves.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u8).range(1..=2))]
        mode: u8,
    },
    /// Load a plugin and print its metadata and options.
    Info { plugin: PathBuf },
    /// Solve every position of an OBF file exactly with an engine (in a worker process) and
    /// check the scores: exit code 1 if one is wrong.
    Solve {
        file: PathBuf,
        /// Plugin: a library path or a bare name (looked up next to the harness binary).
        #[arg(long)]
        engine: String,
        /// Engine option NAME=VALUE (repeatable).
        #[arg(long = "option", value_parser = crate::tools::solve::parse_option)]
        options: Vec<(String, String)>,
        /// Sets the engine option `Threads`.
        #[arg(long)]
        threads: Option<u32>,
        /// Folder where a bare plugin name is looked up.
        #[arg(long)]
        plugin_dir: Option<PathBuf>,
        /// Seconds to wait for one position before giving up.
        #[arg(long, default_value_t = 3600.0)]
        timeout: f64,
    },
    /// Serve a plugin over the NBoard protocol on stdin/stdout (for the NBoard GUI).
    Nboard {
        #[command(flatten)]
        seat: SeatArgs,
    },
    /// Serve a plugin over GTP (Go Text Protocol, 8x8 Othello) on stdin/stdout.
    Gtp {
        #[command(flatten)]
        seat: SeatArgs,
    },
    /// Compute a sequential test from result counts alone (exit code as for `run`).
    Sprt {
        /// Game results: wins,draws,losses.
        #[arg(long, value_parser = counts::<3>, conflicts_with = "penta", required_unless_present = "penta")]
        wdl: Option<Counts>,
        /// Pair results: LL,LD,WL+DD,WD,WW.
        #[arg(long, value_parser = counts::<5>)]
        penta: Option<Counts>,
        #[arg(long, allow_negative_numbers = true)]
        elo0: f64,
        #[arg(long, allow_negative_numbers = true)]
        elo1: f64,
        #[arg(long, default_value_t = 0.05)]
        alpha: f64,
        #[arg(long, default_value_t = 0.05)]
        beta: f64,
        #[arg(long, value_enum, default_value_t = ModelArg::Logistic)]
        model: ModelArg,
    },
    /// Resampling study: how many games each sequential test needs on a journal's real pairs.
    SprtSim {
        /// A games.jsonl (or its output folder) of a match.
        journal: PathBuf,
        /// The candidate's name (default: Black of the first game).
        #[arg(long)]
        candidate: Option<String>,
        /// Logistic Elo bounds of the Elo tests.
        #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
        elo0: f64,
        #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
        elo1: f64,
        /// Normalised Elo bounds of the normalised tests (pentanomial and discs).
        #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
        nelo0: f64,
        #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
        nelo1: f64,
        #[arg(long, default_value_t = 200)]
        runs: usize,
        #[arg(long, default_value_t = 20_000)]
        max_pairs: usize,
        #[arg(long, default_value_t = 10)]
        check_every: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Internal: an engine worker process (started by the coordinator).
    #[command(hide = true)]
    Worker {
        #[arg(long)]
        connect: PathBuf,
        #[arg(long)]
        plugin: PathBuf,
    },
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

/// The engine of a front-end session.
#[derive(clap::Args)]
struct SeatArgs {
    /// Plugin: a library path or a bare name (looked up next to the harness binary).
    #[arg(long)]
    engine: String,
    /// Engine option NAME=VALUE (repeatable).
    #[arg(long = "option", value_parser = crate::tools::solve::parse_option)]
    options: Vec<(String, String)>,
    /// Folder where a bare plugin name is looked up.
    #[arg(long)]
    plugin_dir: Option<PathBuf>,
    /// Search every move to this depth (overrides the protocol's own settings).
    #[arg(long)]
    depth: Option<u32>,
    /// Search every move for this many seconds.
    #[arg(long, conflicts_with = "depth")]
    move_time: Option<f64>,
}

impl SeatArgs {
    fn frontend(self) -> crate::tools::frontend::FrontendArgs {
        crate::tools::frontend::FrontendArgs {
            engine: self.engine,
            plugin_dir: self.plugin_dir,
            options: self.options,
            depth: self.depth,
            move_time: self.move_time,
        }
    }
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ModelArg {
    Logistic,
    Normalized,
}

/// Exit codes: the decision of a sequential test, or an error.
mod exit {
    /// Success; with an SPRT: H1 accepted (the candidate is stronger).
    pub const H1: i32 = 0;
    /// H0 accepted (not stronger), or the candidate crashed/forfeited with `fail-on-…` set.
    pub const H0: i32 = 1;
    /// Any error: bad input, a missing or mismatched plugin, an unwritable output folder.
    pub const ERROR: i32 = 2;
    /// The game budget (`pairs`) ran out before the test decided.
    pub const UNDECIDED: i32 = 3;
}

/// Parse the command line, run the command, and return the process exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run {
            file,
            plugin_dir,
            out,
            restart,
            no_tui,
        } => run(file, plugin_dir, out, restart, no_tui),
        Command::Replay { file, game } => {
            crate::show::tui::replay::main(&file, game).map(|()| exit::H1)
        }
        Command::Stats { file } => stats(&file).map(|()| exit::H1),
        Command::Perft { depth, mode } => {
            run_perft(depth, mode);
            Ok(exit::H1)
        }
        Command::Info { plugin } => info(&plugin).map(|()| exit::H1),
        Command::Solve {
            file,
            engine,
            options,
            threads,
            plugin_dir,
            timeout,
        } => crate::tools::solve::main(&crate::tools::solve::SolveArgs {
            file,
            engine,
            plugin_dir,
            options,
            threads,
            timeout: std::time::Duration::from_secs_f64(timeout.max(0.001)),
        }),
        Command::Sprt {
            wdl,
            penta,
            elo0,
            elo1,
            alpha,
            beta,
            model,
        } => sprt_from_counts(wdl, penta, elo0, elo1, alpha, beta, model),
        Command::SprtSim {
            journal,
            candidate,
            elo0,
            elo1,
            nelo0,
            nelo1,
            runs,
            max_pairs,
            check_every,
            seed,
        } => sprt_sim(
            &journal,
            candidate,
            [elo0, elo1, nelo0, nelo1],
            runs,
            max_pairs,
            check_every,
            seed,
        )
        .map(|()| exit::H1),
        Command::Nboard { seat } => crate::tools::frontend::nboard::serve(
            &seat.frontend(),
            std::io::stdin().lock(),
            std::io::stdout().lock(),
        )
        .map(|()| exit::H1),
        Command::Gtp { seat } => crate::tools::frontend::gtp::serve(
            &seat.frontend(),
            std::io::stdin().lock(),
            std::io::stdout().lock(),
        )
        .map(|()| exit::H1),
        Command::Worker { connect, plugin } => {
            crate::host::worker::run(&connect, &plugin).map(|()| exit::H1)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            exit::ERROR
        }
    }
}

/// Play a tournament; the exit code is the sequential test's decision (0 without one).
fn run(
    file: Option<PathBuf>,
    plugin_dir: Option<PathBuf>,
    out: Option<PathBuf>,
    restart: bool,
    no_tui: bool,
) -> anyhow::Result<i32> {
    let mut t = match file {
        Some(f) => config::load(&f)?,
        None if Path::new("tournament.toml").exists() => {
            config::load(Path::new("tournament.toml"))?
        }
        None => config::embedded_default(),
    };
    if let Some(out) = out {
        t.out = out;
    }
    let plugin_dir = match plugin_dir {
        Some(d) => d,
        None => config::default_plugin_dir().context("cannot find the harness binary's folder")?,
    };
    let names: Vec<&str> = t.engines.iter().map(|e| e.name.as_str()).collect();
    println!(
        "{}: {:?} of {} ({}), {} pairs per pairing, {} games at once, output in {}",
        t.source,
        t.format,
        names.join(", "),
        t.time,
        t.pairs,
        t.concurrency,
        t.out.display()
    );
    // The live view only on an interactive terminal, never in CI or when piped.
    let tui = !no_tui && std::io::stdout().is_terminal() && std::env::var_os("CI").is_none();
    let (summary, elapsed) = if tui {
        crate::show::tui::run(&t, &plugin_dir, restart)?
    } else {
        let started = Instant::now();
        let observer = tournament::Observer::default();
        let summary = tournament::run(&t, &plugin_dir, restart, &observer, |line| {
            println!("{line}")
        })?;
        (summary, started.elapsed())
    };
    print!("{}", table::final_tables(&summary.records));
    println!(
        "\n{} games in {:.1} s; journal: {}",
        summary.records.len(),
        elapsed.as_secs_f64(),
        summary.out_dir.join(journal::JSONL_FILE).display()
    );
    if let Some((config, status)) = t.sprt.as_ref().zip(summary.sprt.as_ref()) {
        print!(
            "{}",
            table::sprt_summary(status, &t.engines[0].name, &t.engines[1].name)
        );
        if fails_on_forfeits(&t, Some(config), &summary.records) {
            return Ok(exit::H0);
        }
        return Ok(match status.decision {
            Decision::AcceptH1 => exit::H1,
            Decision::AcceptH0 => exit::H0,
            Decision::Continue => exit::UNDECIDED,
        });
    }
    if fails_on_forfeits(&t, None, &summary.records) {
        return Ok(exit::H0);
    }
    Ok(exit::H1)
}

/// Whether forfeits fail the run: an engine's own `fail-on`, or the candidate's with the
/// `[sprt]` table's `fail-on-crash` / `fail-on-forfeit`. Prints a FAIL line per such engine.
fn fails_on_forfeits(
    t: &config::Tournament,
    sprt: Option<&config::SprtConfig>,
    records: &[crate::record::GameRecord],
) -> bool {
    let mut failed = false;
    for (i, engine) in t.engines.iter().enumerate() {
        let mut rule = engine.fail_on;
        if let (0, Some(sprt)) = (i, sprt) {
            if sprt.fail_on_forfeit {
                rule = config::FailOn::Forfeit;
            } else if sprt.fail_on_crash && rule == config::FailOn::Nothing {
                rule = config::FailOn::Crash;
            }
        }
        let forfeits: Vec<&crate::record::GameRecord> = records
            .iter()
            .filter(|r| r.forfeited_by() == Some(engine.name.as_str()))
            .filter(|r| rule.fails(r.termination))
            .collect();
        if let Some(first) = forfeits.first() {
            println!(
                "FAIL: {} forfeited {} game(s) (first: game {}, {}); the run fails whatever the results say",
                engine.name,
                forfeits.len(),
                first.game + 1,
                first.reason
            );
            failed = true;
        }
    }
    failed
}

/// `harness sprt-sim`: the resampling study of `crate::stats::sprt_sim`.
fn sprt_sim(
    journal_path: &Path,
    candidate: Option<String>,
    [elo0, elo1, nelo0, nelo1]: [f64; 4],
    runs: usize,
    max_pairs: usize,
    check_every: usize,
    seed: u64,
) -> anyhow::Result<()> {
    use crate::stats::sprt_sim::{complete_pairs, effect_sizes, simulate, SimulationConfig};
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
    let pairs = complete_pairs(&tournament::outcomes(&records), &a, &b);
    anyhow::ensure!(
        !pairs.is_empty(),
        "{}: no complete pairs of {a} against {b}",
        path.display()
    );
    let stats = crate::stats::match_stats(&tournament::outcomes(&records), &a, &b);
    println!(
        "{a} vs {b}: {} complete pairs; Elo {}; discs/game {}",
        pairs.len(),
        stats.elo.map(|e| e.to_string()).unwrap_or_default(),
        stats.disc_diff.map(|e| e.to_string()).unwrap_or_default()
    );
    for (unit, t) in effect_sizes(&pairs) {
        println!("  effect size (mean - centre)/sd per {unit:?} observation: {t:+.4}");
    }
    let p = |elo0, elo1, model, unit| SprtParams {
        elo0,
        elo1,
        alpha: 0.05,
        beta: 0.05,
        model,
        unit,
    };
    let tests = [
        p(elo0, elo1, Model::Logistic, Unit::Trinomial),
        p(elo0, elo1, Model::Logistic, Unit::Pentanomial),
        p(nelo0, nelo1, Model::Normalized, Unit::Trinomial),
        p(nelo0, nelo1, Model::Normalized, Unit::Pentanomial),
        p(nelo0, nelo1, Model::Normalized, Unit::Discs),
    ];
    let cfg = SimulationConfig {
        runs,
        max_pairs,
        check_every,
        seed,
    };
    println!("{runs} runs, at most {max_pairs} pairs each, LLR checked every {check_every} pairs, alpha = beta = 0.05");
    println!(
        "{:<24} {:>14} {:>12} {:>12} {:>7} {:>7} {:>10}",
        "test", "bounds", "mean games", "median", "H1", "H0", "undecided"
    );
    for s in simulate(&pairs, &tests, cfg) {
        println!(
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
fn sprt_from_counts(
    wdl: Option<Counts>,
    penta: Option<Counts>,
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    model: ModelArg,
) -> anyhow::Result<i32> {
    anyhow::ensure!(elo0 < elo1, "--elo0 ({elo0}) must be below --elo1 ({elo1})");
    anyhow::ensure!(
        alpha > 0.0 && alpha < 0.5 && beta > 0.0 && beta < 0.5,
        "--alpha and --beta must be between 0 and 0.5"
    );
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
    let params = SprtParams {
        elo0,
        elo1,
        alpha,
        beta,
        model,
        unit,
    };
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
        println!("Elo      {elo}  ({unit:?})");
        println!("LOS      {:.1}%", 100.0 * los);
    }
    if let Some(nelo) = crate::stats::sprt::normalized_elo(&sample, unit) {
        println!("nElo     {nelo}");
    }
    print!("{}", table::sprt_summary(&status, "candidate", "baseline"));
    Ok(match status.decision {
        Decision::AcceptH1 => exit::H1,
        Decision::AcceptH0 => exit::H0,
        Decision::Continue => exit::UNDECIDED,
    })
}

fn stats(file: &Path) -> anyhow::Result<()> {
    let path = if file.is_dir() {
        file.join(journal::JSONL_FILE)
    } else {
        file.to_path_buf()
    };
    let records = journal::read_journal(&path)?;
    anyhow::ensure!(!records.is_empty(), "{}: no finished games", path.display());
    print!("{}", table::final_tables(&records));
    Ok(())
}

fn run_perft(depth: u32, mode: u8) {
    let rule = if mode == 1 {
        PassRule::PassIsAMove
    } else {
        PassRule::PassIsFree
    };
    let started = Instant::now();
    let leaves = perft(Board::START, depth, rule);
    let secs = started.elapsed().as_secs_f64();
    println!(
        "perft {depth} (mode {mode}): {leaves} leaves in {secs:.3} s, {:.3e} leaves/s",
        leaves as f64 / secs.max(1e-9)
    );
}

fn info(plugin: &Path) -> anyhow::Result<()> {
    let (_, info) = crate::host::Plugin::load(plugin)?;
    println!("path     {}", info.path.display());
    println!("name     {}", info.name);
    println!("version  {}", info.version);
    println!("author   {}", info.author);
    println!("abi      {}.{}", info.abi_major, info.abi_minor);
    println!(
        "options  {}",
        if info.options.is_empty() {
            "(none)"
        } else {
            ""
        }
    );
    for o in &info.options {
        let range = match o.kind.as_str() {
            "int" | "float" => format!(" {}..={}", o.min, o.max),
            "enum" => format!(" {{{}}}", o.values.join("|")),
            _ => String::new(),
        };
        println!(
            "  {:<14} {:<6} default {:<10}{range}  {}",
            o.name, o.kind, o.default, o.help
        );
    }
    Ok(())
}
