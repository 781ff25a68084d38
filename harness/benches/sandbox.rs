//! What the engine workers' sandbox costs: `cargo bench -p harness --bench sandbox` (after
//! `cargo build --release --workspace`, which builds the plugins beside the harness binary).
//! Prints figures; not a test (names after `--` run only those measures). Each measure alternates the sandbox on (`strict`) and off, so
//! that drift in the machine's speed falls on both alike.
//!
//! 1. Worker start-up: `harness info greedy`, which starts one worker, loads the plugin in it
//!    and quits; the same process either way but for the sandbox, so the difference of the
//!    medians is what the sandbox adds to a worker's start (the cgroups the coordinator makes
//!    and removes, the scratch folder, the scrubbed environment, dropping capabilities,
//!    Landlock's ruleset, the seccomp filter);
//! 2. games per second of a depth-2 match, minimax against greedy, 400 games, one at a time
//!    (workers are reused across games: this is the cost of the sandbox while engines play,
//!    seccomp on every system call, Landlock on every file opened, the coordinator's looks at
//!    the worker's disk use);
//! 3. nodes per second of `strong` (`harness bench strong --depth 8`, one thread);
//! 4. what stopping engines between their turns costs (`host::turns`): greedy against greedy
//!    under a move time of 10 ms (greedy answers at once, so a move is the harness's own
//!    work), 400 games at concurrency 1 and 1,000 at concurrency 64, each engine stopped
//!    between turns or not (`ponder = true`), with the sandbox on (stopped by the cgroup
//!    freezer where the harness runs as root) and off (by `SIGSTOP`): moves per second, and
//!    the time each move was charged (p50 and p99 over the games of the mean of each game).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const HARNESS: &str = env!("CARGO_BIN_EXE_harness");

/// The wall time of a command that must succeed, and its standard output.
fn timed(args: &[&str]) -> (Duration, String) {
    let started = Instant::now();
    let out = Command::new(HARNESS)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::inherit())
        .output()
        .expect("the harness binary starts");
    let elapsed = started.elapsed();
    assert!(out.status.success(), "harness {args:?} failed");
    (elapsed, String::from_utf8_lossy(&out.stdout).into_owned())
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// `name`'s plugin beside the harness binary, which must have been built.
fn plugin(name: &str) -> PathBuf {
    let dir = Path::new(HARNESS).parent().expect("the binary's folder");
    let path = dir.join(format!("lib{name}.so"));
    assert!(
        path.is_file(),
        "{} missing: run `cargo build --release --workspace` first",
        path.display()
    );
    path
}

/// Run `measure` `rounds` times with the sandbox on and off, alternating; the medians.
fn both(rounds: usize, mut measure: impl FnMut(&str) -> f64) -> (f64, f64) {
    let (mut on, mut off) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        on.push(measure("strict"));
        off.push(measure("off"));
    }
    (median(on), median(off))
}

fn startup() {
    let greedy = plugin("greedy");
    let (on, off) = both(40, |mode| {
        let (t, _) = timed(&["info", greedy.to_str().unwrap(), "--sandbox", mode]);
        t.as_secs_f64() * 1e3
    });
    println!(
        "worker start-up (harness info, median of 40): sandbox {on:.2} ms, off {off:.2} ms: +{:.2} ms, ratio {:.3}",
        on - off,
        on / off
    );
}

/// The wall time of a match between the `--engine` specs `engines` under `(time, pairs,
/// concurrency)` with the sandbox `mode`, written to `out`.
fn timed_match(
    engines: &[String; 2],
    (time, pairs, concurrency): (&str, usize, usize),
    mode: &str,
    out: &Path,
) -> Duration {
    let (pairs, concurrency) = (pairs.to_string(), concurrency.to_string());
    let args = [
        "run",
        "--engine",
        &engines[0],
        "--engine",
        &engines[1],
        "--format",
        "match",
        "--time",
        time,
        "--pairs",
        &pairs,
        "--concurrency",
        &concurrency,
        "--no-tui",
        "--sandbox",
        mode,
        "--out",
        out.to_str().unwrap(),
    ];
    timed(&args).0
}

fn games_per_second() {
    let (minimax, greedy) = (plugin("minimax"), plugin("greedy"));
    let root = std::env::temp_dir().join(format!("sandbox-bench-{}", std::process::id()));
    let engines = [
        format!("name=mm,plugin={}", minimax.display()),
        format!("name=greedy,plugin={}", greedy.display()),
    ];
    let (on, off) = both(9, |mode| {
        let out = root.join(mode);
        let _ = std::fs::remove_dir_all(&out);
        let t = timed_match(&engines, ("depth=2", 50, 1), mode, &out);
        400.0 / t.as_secs_f64()
    });
    let _ = std::fs::remove_dir_all(&root);
    println!(
        "depth-2 match, 400 games one at a time (median of 9): sandbox {on:.1} games/s, off {off:.1} games/s, ratio {:.3}",
        on / off
    );
}

fn nodes_per_second() {
    let strong = plugin("strong");
    let (on, off) = both(5, |mode| {
        let args = [
            "bench",
            strong.to_str().unwrap(),
            "--depth",
            "8",
            "--sandbox",
            mode,
        ];
        let (_, out) = timed(&args);
        let last = out.lines().last().unwrap_or_default();
        // `bench: N nodes, X nodes/s`
        last.split(", ")
            .nth(1)
            .and_then(|x| x.split(' ').next()?.parse::<f64>().ok())
            .unwrap_or_else(|| panic!("no speed in `{last}`"))
    });
    println!(
        "strong, bench depth 8 (median of 5): sandbox {:.0} knodes/s, off {:.0} knodes/s, ratio {:.3}",
        on / 1e3,
        off / 1e3,
        on / off
    );
}

/// Searched moves and the time charged for each, per game, from a journal: `(moves, µs per
/// move)` of every game.
fn charged_per_move(journal: &Path) -> Vec<(u64, f64)> {
    let text = std::fs::read_to_string(journal).expect("the run's journal");
    text.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .map(|g| {
            let moves = g["moves"]
                .as_array()
                .map_or(0, |m| m.iter().filter(|m| m["time_ms"].is_u64()).count())
                as u64;
            let us = g["time_us"]["black"].as_u64().unwrap_or(0)
                + g["time_us"]["white"].as_u64().unwrap_or(0);
            (moves, us as f64 / moves.max(1) as f64)
        })
        .collect()
}

/// One fair-play configuration, three times: (moves per second, p50 and p99 of the µs
/// charged per move), medians of the three.
fn fair_play_run(mode: &str, ponder: bool, concurrency: usize, games: usize) -> (f64, f64, f64) {
    let greedy = plugin("greedy");
    let root = std::env::temp_dir().join(format!("fair-bench-{}", std::process::id()));
    let engines =
        ["a", "b"].map(|name| format!("name={name},plugin={},ponder={ponder}", greedy.display()));
    let (mut rates, mut p50s, mut p99s) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..3 {
        let _ = std::fs::remove_dir_all(&root);
        let t = timed_match(&engines, ("0.01/move", games / 2, concurrency), mode, &root);
        let mut per_game = charged_per_move(&root.join("games.jsonl"));
        let moves: u64 = per_game.iter().map(|(m, _)| m).sum();
        rates.push(moves as f64 / t.as_secs_f64());
        per_game.sort_by(|a, b| a.1.total_cmp(&b.1));
        let at = |q: f64| per_game[((per_game.len() - 1) as f64 * q) as usize].1;
        p50s.push(at(0.5));
        p99s.push(at(0.99));
    }
    let _ = std::fs::remove_dir_all(&root);
    (median(rates), median(p50s), median(p99s))
}

fn fair_play() {
    for (concurrency, games) in [(1, 400), (64, 1000)] {
        for mode in ["strict", "off"] {
            let (stopped, p50, p99) = fair_play_run(mode, false, concurrency, games);
            let (free, q50, q99) = fair_play_run(mode, true, concurrency, games);
            println!(
                "stops between turns, sandbox {mode}, concurrency {concurrency}, {games} games of greedy at 10 ms a move (median of 3): stopped {stopped:.0} moves/s, charged p50 {p50:.0} µs p99 {p99:.0} µs; not stopped {free:.0} moves/s, p50 {q50:.0} µs p99 {q99:.0} µs; moves/s ratio {:.3}",
                stopped / free
            );
        }
    }
}

/// Every measure, or those whose names the command line gives
/// (`cargo bench -p harness --bench sandbox -- fair_play`).
fn main() {
    let asked: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let measures: [(&str, fn()); 4] = [
        ("startup", startup),
        ("games_per_second", games_per_second),
        ("nodes_per_second", nodes_per_second),
        ("fair_play", fair_play),
    ];
    for (name, measure) in measures {
        if asked.is_empty() || asked.iter().any(|a| a == name) {
            measure();
        }
    }
}
