//! Benchmark of the scale-out tools on a large tournament: `cargo bench -p harness --bench scale_out`.
//!
//! 1. `harness merge` (the real binary) of 16 shard folders holding 200,000 games in all:
//!    wall time and peak memory (the child's VmHWM, read from /proc while it runs);
//! 2. one `merge --watch` interval: the shard journals grow by 16,000 games between two looks;
//!    the time of a look (`JournalFollower::poll` of every shard + the running test) as the
//!    games already read grow, against re-reading every journal from its start (what a watcher
//!    without offsets would do), measured in the same run.
//!
//! The games are random legal games with engine-like move annotations (score, depth, nodes,
//! time), about the size of real records. Data goes to `target/bench-scale-out` (kept between
//! runs; delete it to regenerate). Set `SCALE_OUT_GAMES` for a smaller run.

use harness_core::plan::config;
use harness_core::plan::schedule::Shard;
use harness_core::record::journal::{read_journal, JSONL_FILE};
use harness_core::record::merge::JournalFollower;
use harness_core::record::tournament_record::TOURNAMENT_FILE;
use harness_core::stats::running::RunningTotals;
use othello_board::playout::SplitMix64;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod common;

use common::{record, TOURNAMENT};

const SHARDS: usize = 16;

/// The shard folders of a sharded run of `games` games (written once).
fn generate(root: &Path, games: usize) -> Vec<PathBuf> {
    let t = config::parse(TOURNAMENT, "bench.toml", root).expect("a valid tournament");
    let openings = t.openings.load().expect("built-in openings");
    let folders: Vec<PathBuf> = (0..SHARDS)
        .map(|i| root.join(format!("out/shard-{i}-of-{SHARDS}")))
        .collect();
    let done = root.join("out/.complete");
    if std::fs::read_to_string(&done).ok().as_deref() == Some(&games.to_string()) {
        return folders;
    }
    let _ = std::fs::remove_dir_all(root.join("out"));
    let mut writers = Vec::new();
    for (i, folder) in folders.iter().enumerate() {
        std::fs::create_dir_all(folder).unwrap();
        let mut sharded = t.clone();
        sharded.shard = Some(Shard {
            index: i,
            count: SHARDS,
        });
        let tournament_json = harness::play::resume::tournament_text(&sharded, &openings, root);
        std::fs::write(folder.join(TOURNAMENT_FILE), tournament_json).unwrap();
        writers.push(std::io::BufWriter::new(
            std::fs::File::create(folder.join(JSONL_FILE)).unwrap(),
        ));
    }
    let mut rng = SplitMix64(7);
    for game in 0..games {
        // One pairing: the round is the pair.
        let shard = game / 2 % SHARDS;
        let line = serde_json::to_string(&record(game, &mut rng)).unwrap();
        writeln!(writers[shard], "{line}").unwrap();
    }
    for w in &mut writers {
        w.flush().unwrap();
    }
    std::fs::write(done, games.to_string()).unwrap();
    folders
}

fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn bench_merge(root: &Path, folders: &[PathBuf], games: usize) {
    let bytes: u64 = folders
        .iter()
        .map(|f| std::fs::metadata(f.join(JSONL_FILE)).map_or(0, |m| m.len()))
        .sum();
    println!(
        "merge: {SHARDS} shards, {games} games, {:.0} MB of journals",
        bytes as f64 / 1e6
    );
    for run in 1..=2 {
        let out = root.join("merged");
        let _ = std::fs::remove_dir_all(&out);
        let started = Instant::now();
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_harness"))
            .arg("merge")
            .arg(root.join("out"))
            .arg("--out")
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .spawn()
            .expect("the harness binary starts");
        let mut peak = 0;
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            peak = peak.max(vm_hwm_kib(child.id()).unwrap_or(0));
            std::thread::sleep(Duration::from_millis(5));
        };
        let elapsed = started.elapsed();
        assert!(status.code().is_some(), "merge died: {status}");
        let merged = std::fs::metadata(out.join(JSONL_FILE)).map_or(0, |m| m.len());
        println!(
            "  run {run}: {:.2} s, peak RSS {:.0} MB (exit {:?}), merged journal {:.0} MB",
            elapsed.as_secs_f64(),
            peak as f64 / 1024.0,
            status.code(),
            merged as f64 / 1e6
        );
    }
}

fn bench_watch(root: &Path, games: usize) {
    let dir = root.join("watch");
    let _ = std::fs::remove_dir_all(&dir);
    let paths: Vec<PathBuf> = (0..SHARDS)
        .map(|i| {
            let folder = dir.join(format!("shard-{i}-of-{SHARDS}"));
            std::fs::create_dir_all(&folder).unwrap();
            folder.join(JSONL_FILE)
        })
        .collect();
    let mut files: Vec<std::fs::File> = paths
        .iter()
        .map(|p| std::fs::File::create(p).unwrap())
        .collect();
    let mut followers: Vec<JournalFollower> = paths
        .iter()
        .map(|p| JournalFollower::new(p.clone()))
        .collect();
    let t = config::parse(TOURNAMENT, "bench.toml", root).unwrap();
    let sprt = t.sprt.unwrap().params;
    let mut totals = RunningTotals::new(games / 2, Some((sprt, "candidate", "baseline")));
    let per_interval = 16_000.min(games);
    let mut rng = SplitMix64(9);
    let mut game = 0;
    println!("watch: {SHARDS} journals growing by {per_interval} games between two looks");
    println!(
        "  {:>8} {:>14} {:>22} {:>8}",
        "games", "look (ms)", "re-read all (ms)", "ratio"
    );
    while game + per_interval <= games {
        for _ in 0..per_interval {
            let line = serde_json::to_string(&record(game, &mut rng)).unwrap();
            writeln!(files[game / 2 % SHARDS], "{line}").unwrap();
            game += 1;
        }
        for f in &mut files {
            f.flush().unwrap();
        }
        let t0 = Instant::now();
        let mut new = 0;
        for follower in &mut followers {
            for r in follower.poll().unwrap().records {
                totals.add(&r);
                new += 1;
            }
        }
        let status = totals.sprt_status().unwrap();
        let look = t0.elapsed();
        assert_eq!(new, per_interval);
        // The baseline: every journal read again from its start.
        let t1 = Instant::now();
        let all: usize = paths.iter().map(|p| read_journal(p).unwrap().len()).sum();
        let reread = t1.elapsed();
        assert_eq!(all, game);
        println!(
            "  {:>8} {:>14.1} {:>22.1} {:>7.1}x   (LLR {:+.2})",
            game,
            look.as_secs_f64() * 1e3,
            reread.as_secs_f64() * 1e3,
            reread.as_secs_f64() / look.as_secs_f64(),
            status.llr
        );
    }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing else is taken.
    let games: usize = std::env::var("SCALE_OUT_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-scale-out");
    std::fs::create_dir_all(&root).unwrap();
    let started = Instant::now();
    let folders = generate(&root, games);
    println!(
        "data ready in {:.1} s ({})",
        started.elapsed().as_secs_f64(),
        root.display()
    );
    bench_merge(&root, &folders, games);
    bench_watch(&root, games);
}
