//! The matches that tests of several modules play, and how they run them: tournament files of
//! deterministic engines (fixed depths, so two runs of one file play the same games), the
//! `--engine` command lines of a match or a tune, and the harness run on a list or a line of
//! arguments.

use super::{artifacts, engine, harness, s, Output, TempDir, TournamentFile};
use std::path::Path;

/// A match of deterministic engines (fixed depths) into `out/arena`.
pub fn match_file(pairs: usize) -> String {
    let a = artifacts();
    TournamentFile::new("match", pairs, "depth = 2")
        .out(Some("out/arena"))
        .engine(engine("mm", s(&a.minimax), "Depth = 2"))
        .engine(engine("greedy", s(&a.greedy), ""))
        .text()
}

/// A gauntlet of deterministic engines on shuffled openings.
pub fn deterministic_gauntlet(pairs: usize, seed: u32) -> String {
    let a = artifacts();
    TournamentFile::new("gauntlet", pairs, "depth = 2")
        .openings(&format!(
            "builtin = \"xot-small\"\norder = \"shuffled\"\nseed = {seed}"
        ))
        .engine(engine("minimax", s(&a.minimax), "Depth = 3"))
        .engine(engine("greedy", s(&a.greedy), ""))
        .engine(engine("heuristic", s(&a.heuristic), "Depth = 2"))
        .text()
}

/// Play shards `indices` of `count` of `t.toml` in `dir`.
pub fn play_shards(dir: &TempDir, indices: std::ops::Range<usize>, count: usize) {
    for i in indices {
        let spec = format!("{i}/{count}");
        harness(dir.path(), &["run", "t.toml", "--no-tui", "--shard", &spec]).assert_success();
    }
}

/// `--engine name=NAME,plugin=PATH[,rest]` for a plugin of the artifacts.
pub fn engine_flag(name: &str, plugin: &Path, rest: &str) -> String {
    format!("name={name},plugin={}{rest}", s(plugin))
}

/// `harness run` of a match between two `--engine` flags on the command line, then the
/// flags of `extra` (split at spaces).
pub fn match_of(first: String, second: String, extra: &str) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "run".into(),
        "--engine".into(),
        first,
        "--engine".into(),
        second,
        "--format".into(),
        "match".into(),
        "--no-tui".into(),
    ];
    args.extend(extra.split_whitespace().map(String::from));
    args
}

/// A heuristic-against-minimax match (the probe's `M0`), then `extra`.
pub fn match_args(extra: &str) -> Vec<String> {
    let a = artifacts();
    match_of(
        engine_flag("h", &a.heuristic, ""),
        engine_flag("m", &a.minimax, ",Depth=3"),
        extra,
    )
}

/// `harness tune` of the `--engine` flag `engine` under 2,000 nodes a move with the `--tune`
/// flag `spec`, then `extra` (split at spaces).
pub fn tune_of(dir: &Path, engine: &str, spec: &str, extra: &str) -> Output {
    let mut args = vec![
        "tune",
        "--engine",
        engine,
        "--time",
        "nodes=2000",
        "--tune",
        spec,
        "--no-tui",
    ];
    args.extend(extra.split_whitespace());
    harness(dir, &args)
}

/// The harness with the arguments `args`.
pub fn run(dir: &Path, args: &[String]) -> Output {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    harness(dir, &refs)
}

/// The harness with the arguments of `line` (split at spaces).
pub fn harness_line(dir: &Path, line: &str) -> Output {
    harness(dir, &line.split_whitespace().collect::<Vec<_>>())
}
