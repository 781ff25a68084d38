//! `harness`: run Othello engine tournaments. See `harness --help`.

use anyhow::Context;
use clap::{Parser, Subcommand};
use harness::{config, journal, table, tournament};
use othello_board::{perft, Board, PassRule};
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
    /// Internal: an engine worker process (started by the coordinator).
    #[command(hide = true)]
    Worker {
        #[arg(long)]
        connect: PathBuf,
        #[arg(long)]
        plugin: PathBuf,
    },
}

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Run {
            file,
            plugin_dir,
            out,
        } => run(file, plugin_dir, out),
        Command::Stats { file } => stats(&file),
        Command::Perft { depth, mode } => {
            run_perft(depth, mode);
            Ok(())
        }
        Command::Info { plugin } => info(&plugin),
        Command::Worker { connect, plugin } => harness::host::worker::run(&connect, &plugin),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(2);
    }
}

fn run(
    file: Option<PathBuf>,
    plugin_dir: Option<PathBuf>,
    out: Option<PathBuf>,
) -> anyhow::Result<()> {
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
    let started = Instant::now();
    let summary = tournament::run(&t, &plugin_dir, |line| println!("{line}"))?;
    print!("{}", table::final_tables(&summary.records));
    println!(
        "\n{} games in {:.1} s; journal: {}",
        summary.records.len(),
        started.elapsed().as_secs_f64(),
        summary.out_dir.join(journal::JSONL_FILE).display()
    );
    Ok(())
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
    let (_, info) = harness::host::Plugin::load(plugin)
        .with_context(|| format!("cannot use {}", plugin.display()))?;
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
