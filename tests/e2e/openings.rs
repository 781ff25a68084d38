//! Repeated openings, in every view: real runs of two deterministic engines (a depth limit)
//! that play more pairs than their opening file has lines. Each view of the folder says so
//! (`harness stats`, `report.md`, `report.html`, `report.json`, the browser's run snapshot,
//! `ledger runs` and `ledger stats`), and the Elo interval counts the openings, not the
//! pairs: wider than the same journal read as if every pair had its own opening, or, with
//! fewer than 5 openings, not given at all.

use crate::support::{artifacts, engine, harness, http_get, s, Browser, TempDir, TournamentFile};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

/// Five openings (black's f5, then each of white's answers and one line further).
const FIVE: &str = "f5d6\nf5f6\nf5f4\nf5d6c3\nf5f6e6\n";

/// minimax against greedy at depth 2 (both replay a game move for move, and they are close
/// enough for a normal interval), `pairs` pairs from the opening file `openings`, into `out`.
fn deterministic_match(dir: &TempDir, openings: &str, pairs: usize) {
    let a = artifacts();
    dir.write("book.txt", openings);
    let toml = TournamentFile::new("match", pairs, "depth = 2")
        .openings(r#"file = "book.txt""#)
        .engine(engine("minimax", s(&a.minimax), ""))
        .engine(engine("greedy", s(&a.greedy), ""))
        .text();
    dir.write("t.toml", &toml);
    harness(dir.path(), &["run", "t.toml", "--no-tui"]).assert_success();
}

fn report_json(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("report.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The Elo cell of minimax's row in a `harness stats` table: `(value, Some((low, high)))`,
/// or `(value, None)` for `[no interval]`.
fn elo_cell(table: &str) -> (f64, Option<(f64, f64)>) {
    let line = table
        .lines()
        .find(|l| l.starts_with("minimax") && l.contains('['))
        .unwrap_or_else(|| panic!("no row of minimax:\n{table}"));
    let cells: Vec<&str> = line.split_whitespace().collect();
    let value: f64 = cells[5].parse().unwrap_or_else(|_| panic!("{line}"));
    let open = line.find('[').unwrap();
    let close = open + line[open..].find(']').unwrap();
    let inside = &line[open + 1..close];
    if inside == "no interval" {
        return (value, None);
    }
    let (low, high) = inside.split_once(", ").unwrap_or_else(|| panic!("{line}"));
    (value, Some((low.parse().unwrap(), high.parse().unwrap())))
}

/// The journal of `out` copied to `into`, every pair given an opening of its own (index =
/// pair number): the same games as statistics without repeats count them.
fn as_if_independent(out: &Path, into: &Path) {
    std::fs::create_dir_all(into).unwrap();
    let text = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let lines: Vec<String> = text
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v["opening"]["index"] = v["pair"].clone();
            v.to_string()
        })
        .collect();
    std::fs::write(into.join("games.jsonl"), lines.join("\n") + "\n").unwrap();
}

/// The run snapshot at `url` once it holds `games` games (the server reads the folder after
/// it prints its address).
fn served_snapshot(url: &str, games: u64) -> Value {
    let started = Instant::now();
    loop {
        let (status, _, body) = http_get(&format!("{url}run/0/state"), &[], 1 << 22);
        if let Ok(snapshot) = serde_json::from_str::<Value>(&body) {
            if snapshot["done"].as_u64() == Some(games) {
                return snapshot;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "no snapshot of {games} games: {status} {body}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// 10 pairs from 5 openings: the interval counts 5 openings and is wider than the naive one
/// of the same games; a journal without repeats has no warning.
#[test]
fn repeated_openings_widen_the_interval() {
    let dir = TempDir::new("openings-clustered");
    deterministic_match(&dir, FIVE, 10);
    let stats = harness(dir.path(), &["stats", "out"]);
    stats.assert_success();
    assert!(
        stats
            .stdout
            .contains("warning: openings repeat: 10 pairs of a pairing from 5 openings;"),
        "{stats}"
    );
    let (value, clustered) = elo_cell(&stats.stdout);
    let (low, high) = clustered.expect("an interval with 5 openings");

    as_if_independent(&dir.join("out"), &dir.join("naive"));
    let naive = harness(dir.path(), &["stats", "naive"]);
    naive.assert_success();
    assert!(!naive.stdout.contains("openings repeat"), "{naive}");
    let (naive_value, naive_interval) = elo_cell(&naive.stdout);
    let (naive_low, naive_high) = naive_interval.unwrap();
    assert_eq!(value, naive_value, "the estimate does not move");
    assert!(
        high - low > naive_high - naive_low,
        "clustered [{low}, {high}] not wider than naive [{naive_low}, {naive_high}]"
    );

    let report = report_json(&dir.join("out"));
    let pairing = &report["pairings"][0];
    assert_eq!(
        (pairing["pairs"].as_u64(), pairing["openings"].as_u64()),
        (Some(10), Some(5))
    );
    assert!(
        pairing["effective_pairs"].as_f64().unwrap() < 10.0,
        "{pairing:#}"
    );
    assert_eq!(pairing["interval_withheld"], Value::Null);
    assert_eq!(report["repeated_openings"]["intervals"], "clustered");
}

/// 6 pairs from 3 openings: every view warns, and none gives an
/// interval in place of the statement.
#[test]
fn too_few_openings_are_said_in_every_view() {
    let dir = TempDir::new("openings-withheld");
    deterministic_match(&dir, "f5d6\nf5f6\nf5f4\n", 6);
    let warning = "openings repeat: 6 pairs of a pairing from 3 openings;";
    let out = dir.join("out");

    let stats = harness(dir.path(), &["stats", "out"]);
    stats.assert_success();
    assert!(
        stats.stdout.contains(&format!("warning: {warning}")),
        "{stats}"
    );
    assert!(stats.stdout.contains("error rates do not hold"), "{stats}");
    assert_eq!(elo_cell(&stats.stdout).1, None, "{stats}");

    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains(&format!("> **Warning:** {warning}")), "{md}");
    assert!(md.contains("[no interval]"), "{md}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("id=\"repeated-openings\""), "report.html");
    assert!(html.contains(warning), "report.html");

    let report = report_json(&out);
    let r = &report["repeated_openings"];
    assert_eq!(
        (r["pairs"].as_u64(), r["openings"].as_u64()),
        (Some(6), Some(3))
    );
    assert_eq!(r["intervals"], "withheld");
    assert!(r["sprt"].as_str().unwrap().contains("LLR"), "{r:#}");
    let pairing = &report["pairings"][0];
    assert!(pairing["interval_withheld"].is_string(), "{pairing:#}");
    assert_eq!(pairing["elo"]["low"], Value::Null, "{pairing:#}");
    assert!(pairing["elo"]["value"].is_number(), "{pairing:#}");
    assert_eq!(pairing["los"], Value::Null, "{pairing:#}");

    // The browser's run snapshot of the served folder, and the page drawn from it.
    let (_server, url) =
        crate::web::start_serving(dir.path(), &["serve", "out", "--bind", "127.0.0.1:0"]);
    let snapshot = served_snapshot(&url, 12);
    assert_eq!(
        snapshot["repeated_openings"], report["repeated_openings"],
        "{snapshot:#}"
    );
    assert!(snapshot["standings"][0]["interval_withheld"].is_string());
    if let Some(mut browser) = Browser::start("too_few_openings_are_said_in_every_view", &dir) {
        browser.goto(&format!("{url}run/0"));
        let shown = browser.wait_for(
            "document.getElementById('repeated-openings')?.textContent",
            Duration::from_secs(20),
        );
        assert!(shown.as_str().unwrap().contains(warning), "{shown}");
    }

    // The ledger's run: listed with the warning under it, in JSON too, and its tables.
    harness(dir.path(), &["ledger", "add", "out", "--ledger", "l.db"]).assert_success();
    let runs = harness(dir.path(), &["ledger", "runs", "--ledger", "l.db"]);
    runs.assert_success();
    assert!(
        runs.stdout.contains(&format!("  warning: {warning}")),
        "{runs}"
    );
    let json = harness(
        dir.path(),
        &["ledger", "runs", "--json", "--ledger", "l.db"],
    );
    let row: Value = serde_json::from_str(json.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(
        row["repeated_openings"], report["repeated_openings"],
        "{row:#}"
    );
    let id = row["id"].as_str().unwrap();
    let ledger_stats = harness(dir.path(), &["ledger", "stats", id, "--ledger", "l.db"]);
    ledger_stats.assert_success();
    assert!(
        ledger_stats.stdout.contains(&format!("warning: {warning}")),
        "{ledger_stats}"
    );
    assert_eq!(elo_cell(&ledger_stats.stdout).1, None, "{ledger_stats}");
}
