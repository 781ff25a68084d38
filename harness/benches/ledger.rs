//! Benchmark of the results ledger: `cargo bench -p harness --bench ledger`.
//!
//! A run folder of 20,000 games (random legal games with engine-like move annotations, the
//! size of real records; `LEDGER_GAMES` for another number) is recorded into a new SQLite
//! ledger: the time to read the folder (journal and tournament.json), the time to add it,
//! the time to add it again (every game already there), the time to list the runs, and the
//! ledger's size per game and per million games. Data goes to `target/bench-ledger`.
//!
//! With `LEDGER_BENCH_POSTGRES=postgres://…` (an empty database, or one this bench filled
//! before), the same folder is added to that PostgreSQL ledger too, first and again.

use harness_core::plan::config;
use harness_core::record::journal::JSONL_FILE;
use harness_core::record::tournament_record::TOURNAMENT_FILE;
use harness_ledger::sqlite::SqliteLedger;
use harness_ledger::LedgerStore;
use harness_ledger::RunEntry;
use othello_board::playout::SplitMix64;
use std::io::Write;
use std::path::Path;
use std::time::Instant;

mod common;

use common::{record, TOURNAMENT};

fn main() {
    let games: usize = std::env::var("LEDGER_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/bench-ledger");
    let _ = std::fs::remove_dir_all(&root);
    let folder = root.join("run");
    std::fs::create_dir_all(&folder).unwrap();
    let mut t = config::parse(
        &TOURNAMENT.replace("pairs = 100000", &format!("pairs = {}", games.div_ceil(2))),
        "bench.toml",
        &root,
    )
    .expect("a valid tournament");
    t.out = folder.clone();
    let openings = t.openings.load().expect("built-in openings");
    let tournament_json = harness::play::resume::tournament_text(&t, &openings, &root);
    std::fs::write(folder.join(TOURNAMENT_FILE), tournament_json).unwrap();
    let mut journal =
        std::io::BufWriter::new(std::fs::File::create(folder.join(JSONL_FILE)).unwrap());
    let mut rng = SplitMix64(7);
    for game in 0..games {
        serde_json::to_writer(&mut journal, &record(game, &mut rng)).unwrap();
        journal.write_all(b"\n").unwrap();
    }
    drop(journal);
    let journal_bytes = std::fs::metadata(folder.join(JSONL_FILE)).unwrap().len();

    let started = Instant::now();
    let entry = RunEntry::read(&folder).expect("the run");
    let read = started.elapsed();
    let db = root.join("ledger.db");
    let started = Instant::now();
    let mut ledger = SqliteLedger::open(&db, harness_ledger::Access::Write).expect("a new ledger");
    let added = ledger.add(&entry).expect("added");
    let add = started.elapsed();
    let started = Instant::now();
    let again = ledger.add(&entry).expect("added again");
    let add_again = started.elapsed();
    let started = Instant::now();
    let runs = ledger.runs().expect("listed");
    let list = started.elapsed();
    drop(ledger);
    let size: u64 = ["ledger.db", "ledger.db-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(root.join(f)).ok())
        .map(|m| m.len())
        .sum();
    println!(
        "ledger bench: a folder of {games} games ({:.1} MB of journal)",
        journal_bytes as f64 / 1e6
    );
    println!(
        "  read the folder (journal, tournament.json): {:>8.3} s",
        read.as_secs_f64()
    );
    println!(
        "  add it to a new SQLite ledger:              {:>8.3} s ({added} games new)",
        add.as_secs_f64()
    );
    println!(
        "  add it again (every game already there):   {:>8.3} s ({again} new)",
        add_again.as_secs_f64()
    );
    println!(
        "  list the runs:                               {:>8.3} s ({} run)",
        list.as_secs_f64(),
        runs.len()
    );
    println!(
        "  ledger size: {:.1} MB, {:.0} bytes per game, {:.0} MB per million games",
        size as f64 / 1e6,
        size as f64 / games as f64,
        size as f64 / games as f64
    );
    if let Ok(url) = std::env::var("LEDGER_BENCH_POSTGRES") {
        postgres_bench(&url, &entry);
    }
    history_bench(&root, &entry);
}

/// The folder added to the PostgreSQL ledger `url`: under a new run id, then again.
fn postgres_bench(url: &str, entry: &RunEntry) {
    let mut entry = entry.clone();
    entry.id = format!("bench-{}", std::process::id());
    let started = Instant::now();
    let url = harness_ledger::LedgerUrl::parse(url).expect("a PostgreSQL URL");
    let mut ledger = harness_ledger::open(&url, harness_ledger::Access::Write).expect("the server");
    let connect = started.elapsed();
    let started = Instant::now();
    let added = ledger.add(&entry).expect("added");
    let add = started.elapsed();
    let started = Instant::now();
    let again = ledger.add(&entry).expect("added again");
    let add_again = started.elapsed();
    println!(
        "  PostgreSQL {}: connect {:.3} s, add {:.3} s ({added} new), again {:.3} s ({again} new)",
        url,
        connect.as_secs_f64(),
        add.as_secs_f64(),
        add_again.as_secs_f64()
    );
}

/// `ledger history` over 5,000 runs of 500 builds: each run is a copy of `template`'s first
/// 10 games under another id, its candidate one of 500 builds (other digests).
fn history_bench(root: &Path, template: &RunEntry) {
    let db = root.join("history.db");
    let mut ledger = SqliteLedger::open(&db, harness_ledger::Access::Write).expect("a new ledger");
    let started = Instant::now();
    for run in 0..5000 {
        let mut entry = template.clone();
        entry.id = format!("run-{run:05}");
        entry.games.truncate(10);
        let build = run % 500;
        entry.engines[0].digest = format!("{build:016x}");
        entry.engines[0].build.commit = Some(format!("c{build:03}"));
        entry.engines[0].build.date =
            Some(format!("2026-{:02}-{:02}", 1 + build / 50, 1 + build % 28));
        ledger.add(&entry).expect("added");
    }
    let filled = started.elapsed();
    let started = Instant::now();
    let (engines, games) = ledger.history_input().expect("read");
    let read = started.elapsed();
    let started = Instant::now();
    let rows = harness_ledger::history::history(&engines, &games, None, None)
        .expect("no engine or anchor asked for")
        .rows;
    let rated = started.elapsed();
    println!(
        "ledger history bench: 5000 runs of 500 builds, {} games (filled in {:.2} s)",
        games.len(),
        filled.as_secs_f64()
    );
    println!(
        "  read every engine and game from the ledger: {:>8.3} s",
        read.as_secs_f64()
    );
    println!(
        "  rate them (joint Bradley-Terry), {} rows:  {:>8.3} s",
        rows.len(),
        rated.as_secs_f64()
    );
    println!(
        "  history in all:                             {:>8.3} s",
        (read + rated).as_secs_f64()
    );
}
