//! The results ledger (`harness ledger`, SQLite): runs recorded from their folders, each game
//! once however often a folder is added (again, resumed, as shards and then merged), 8
//! processes adding at once, and a file that is not a ledger refused and left untouched.

use crate::support::{artifacts, harness, s, screenshot_path, Browser, Output, TempDir};
use serde_json::Value;
use std::path::Path;

/// A depth-2 match of minimax against greedy with `flags` (split at spaces).
pub fn play(dir: &Path, flags: &str) -> Output {
    let a = artifacts();
    let first = format!("name=mm,plugin={},Depth=2", s(&a.minimax));
    let second = format!("name=g,plugin={}", s(&a.greedy));
    let mut args = vec![
        "run", "--engine", &first, "--engine", &second, "--format", "match", "--no-tui", "--time",
        "depth=2",
    ];
    args.extend(flags.split_whitespace());
    harness(dir, &args)
}

/// [`play`] with the two engines in the other order: every game has other colours.
pub fn play_swapped(dir: &Path, flags: &str) -> Output {
    let a = artifacts();
    let first = format!("name=g,plugin={}", s(&a.greedy));
    let second = format!("name=mm,plugin={},Depth=2", s(&a.minimax));
    let mut args = vec![
        "run", "--engine", &first, "--engine", &second, "--format", "match", "--no-tui", "--time",
        "depth=2",
    ];
    args.extend(flags.split_whitespace());
    harness(dir, &args)
}

/// A depth-1 match of greedy against itself into `out`, with HARNESS_LEDGER set to `ledger`
/// and `extra` flags.
fn greedy_with_env_ledger(dir: &Path, out: &str, ledger: &str, extra: &[&str]) -> Output {
    let a = artifacts();
    let (x, y) = (
        format!("name=x,plugin={}", s(&a.greedy)),
        format!("name=y,plugin={}", s(&a.greedy)),
    );
    let mut cmd = std::process::Command::new(&a.harness);
    cmd.args([
        "run", "--engine", &x, "--engine", &y, "--format", "match", "--no-tui", "--time",
        "depth=1", "--pairs", "1", "--out", out,
    ])
    .args(extra)
    .env("HARNESS_LEDGER", ledger)
    .current_dir(dir);
    crate::support::run_with_timeout(cmd, crate::support::HARNESS_TIMEOUT)
}

/// `ledger runs --json` of the ledger `db`.
pub fn runs(dir: &Path, db: &str) -> Vec<Value> {
    let out = harness(dir, &["ledger", "runs", "--json", "--ledger", db]);
    out.assert_success();
    out.stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON run"))
        .collect()
}

/// Added twice, resumed and added again, shards then their merge: every game once; the run's
/// id is its folder's `run-id`, the shards' the one of the folder that holds them.
#[test]
fn every_game_is_recorded_once() {
    let dir = TempDir::new("ledger-once");
    play(dir.path(), "--pairs 2 --out a").assert_success();
    let add = |folder: &str| harness(dir.path(), &["ledger", "add", folder, "--ledger", "l.db"]);
    add("a").assert_success();
    let again = add("a");
    again.assert_success();
    assert!(again.stdout.contains("4 games, 0 new"), "{again}");
    // Extended to 3 pairs: two games more, the same run.
    play(dir.path(), "--pairs 3 --out a").assert_success();
    assert!(add("a").stdout.contains("6 games, 2 new"));
    let id = std::fs::read_to_string(dir.join("a/run-id")).unwrap();
    let listed = runs(dir.path(), "l.db");
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["id"], id.trim());
    assert_eq!(listed[0]["games"], 6);
    assert_eq!(listed[0]["verdict"]["outcome"], "pass");
    // The conditions an object, the folder absolute; a unique prefix of the id names the run.
    assert_eq!(
        listed[0]["conditions"]["time"], "depth 2",
        "{:#}",
        listed[0]
    );
    let folder = listed[0]["folder"].as_str().unwrap();
    assert!(
        folder.starts_with('/') && folder.ends_with("/a"),
        "{folder}"
    );
    let table = harness(dir.path(), &["ledger", "runs", "--ledger", "l.db"]);
    assert!(table.stdout.contains(folder), "{table}");
    let prefix = &id.trim()[..14];
    harness(dir.path(), &["ledger", "stats", prefix, "--ledger", "l.db"]).assert_success();
    // Shards, then their merge: one run (the shards' folder's id), 4 games.
    for i in 0..2 {
        play(dir.path(), &format!("--pairs 2 --out sh --shard {i}/2")).assert_success();
    }
    add("sh").assert_success();
    harness(dir.path(), &["merge", "sh"]).assert_success();
    let merged = add("sh");
    merged.assert_success();
    assert!(merged.stdout.contains("\nsh: run "), "{merged}");
    assert!(merged.stdout.contains(": 4 games, 0 new"), "{merged}");
    let listed = runs(dir.path(), "l.db");
    assert_eq!(listed.len(), 2, "{listed:?}");
    let sharded = std::fs::read_to_string(dir.join("sh/run-id")).unwrap();
    let run = listed
        .iter()
        .find(|r| r["id"] == sharded.trim())
        .expect("the sharded run");
    assert_eq!(run["games"], 4);
}

/// Eight processes add eight folders into one file at once: every game once, no error.
#[test]
fn eight_writers_at_once() {
    let dir = TempDir::new("ledger-concurrent");
    eight_writers(&dir, "l.db");
}

/// Eight processes add eight new folders into the ledger `url` at once: every game once.
pub fn eight_writers(dir: &TempDir, url: &str) {
    for i in 0..8 {
        play(dir.path(), &format!("--pairs 1 --out r{i}")).assert_success();
    }
    let children: Vec<_> = (0..8)
        .map(|i| {
            std::process::Command::new(&artifacts().harness)
                .args(["ledger", "add", &format!("r{i}"), "--ledger", url])
                .current_dir(dir.path())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("the harness starts")
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let listed = runs(dir.path(), url);
    assert_eq!(listed.len(), 8);
    assert!(listed.iter().all(|r| r["games"] == 2), "{listed:?}");
}

/// A file that is not a ledger (text, or an SQLite database of something else) is refused
/// with exit 2 and left byte for byte as it was; no ledger named is an error too.
#[test]
fn a_file_that_is_not_a_ledger_is_refused_untouched() {
    let dir = TempDir::new("ledger-bad");
    play(dir.path(), "--pairs 1 --out a").assert_success();
    dir.write("notes.txt", "not a database\n");
    let before = std::fs::read(dir.join("notes.txt")).unwrap();
    harness(dir.path(), &["ledger", "add", "a", "--ledger", "notes.txt"])
        .assert_error()
        .assert_stderr_has(&["notes.txt", "not a ledger"]);
    assert_eq!(std::fs::read(dir.join("notes.txt")).unwrap(), before);
    // An SQLite database of something else (made by Python's sqlite3), and a ledger of a
    // newer schema: refused, unchanged.
    let sqlite = |script: &str| {
        let status = std::process::Command::new("python3")
            .args([
                "-c",
                &format!("import sqlite3; c = sqlite3.connect('other.db'); {script}; c.commit()"),
            ])
            .current_dir(dir.path())
            .status()
            .expect("python3 runs");
        assert!(status.success());
    };
    sqlite("c.execute('CREATE TABLE birds (name TEXT)')");
    let other = std::fs::read(dir.join("other.db")).unwrap();
    harness(
        dir.path(),
        &["ledger", "add", "a", "--ledger", "sqlite://other.db"],
    )
    .assert_error()
    .assert_stderr_has(&["other.db", "not a ledger"]);
    assert_eq!(std::fs::read(dir.join("other.db")).unwrap(), other);
    harness(dir.path(), &["ledger", "add", "a", "--ledger", "new.db"]).assert_success();
    std::fs::rename(dir.join("new.db"), dir.join("other.db")).unwrap();
    let _ = std::fs::remove_file(dir.join("new.db-wal"));
    let _ = std::fs::remove_file(dir.join("new.db-shm"));
    sqlite("c.execute('PRAGMA user_version = 99')");
    let newer = std::fs::read(dir.join("other.db")).unwrap();
    harness(dir.path(), &["ledger", "runs", "--ledger", "other.db"])
        .assert_error()
        .assert_stderr_has(&["schema version 99", "newer harness"]);
    assert_eq!(std::fs::read(dir.join("other.db")).unwrap(), newer);
    harness(dir.path(), &["ledger", "runs"])
        .assert_error()
        .assert_stderr_has(&["--ledger", "HARNESS_LEDGER"]);
}

/// `ledger stats RUN` prints the Results table and the sequential test of a run from the
/// ledger alone, byte for byte as `harness stats` prints them from its folder (a round robin's
/// joint rating included); an unknown run is an error.
#[test]
fn ledger_stats_equals_harness_stats() {
    let dir = TempDir::new("ledger-stats");
    play(dir.path(), "--pairs 30 --sprt elo0=-50,elo1=0 --out s");
    harness(dir.path(), &["ledger", "add", "s", "--ledger", "l.db"]).assert_success();
    let id = std::fs::read_to_string(dir.join("s/run-id")).unwrap();
    let from_ledger = harness(
        dir.path(),
        &["ledger", "stats", id.trim(), "--ledger", "l.db"],
    );
    from_ledger.assert_success();
    let from_folder = harness(dir.path(), &["stats", "s"]);
    from_folder.assert_success();
    let (results, test) = from_ledger
        .stdout
        .split_once("\nSPRT ")
        .expect("the test's summary");
    assert!(
        from_folder.stdout.starts_with(results),
        "{from_ledger}\n{from_folder}"
    );
    assert!(
        from_folder.stdout.ends_with(&format!("\nSPRT {test}")),
        "{from_ledger}\n{from_folder}"
    );
    harness(dir.path(), &["ledger", "stats", "nope", "--ledger", "l.db"])
        .assert_error()
        .assert_stderr_has(&["no run `nope`"]);
}

/// `run --ledger` checks the ledger before the first game (a file that is not one: exit 2,
/// nothing played, the file unchanged) and records the run when it ends; `HARNESS_LEDGER`
/// names it too; `merge --ledger` records a merged run; a shard says it leaves an SQLite
/// ledger to the merge.
#[test]
fn run_and_merge_record_themselves() {
    let dir = TempDir::new("ledger-run");
    dir.write("notes.txt", "not a database\n");
    let refused = play(dir.path(), "--pairs 1 --out a --ledger notes.txt");
    refused
        .assert_error()
        .assert_stderr_has(&["notes.txt", "not a ledger"]);
    assert!(!dir.join("a/games.jsonl").exists(), "a game was played");
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "not a database\n"
    );
    let recorded = play(dir.path(), "--pairs 1 --out a --ledger l.db");
    recorded.assert_success();
    assert!(
        recorded.stdout.contains("recorded (2 games, 2 new)"),
        "{recorded}"
    );
    let env_run = greedy_with_env_ledger(dir.path(), "b", "sqlite://l.db", &[]);
    env_run.assert_success();
    for i in 0..2 {
        let shard = play(
            dir.path(),
            &format!("--pairs 2 --out sh --shard {i}/2 --ledger l.db"),
        );
        shard.assert_success();
        assert!(
            shard
                .stdout
                .contains("a shard does not write an SQLite ledger"),
            "{shard}"
        );
    }
    let merged = harness(dir.path(), &["merge", "sh", "--ledger", "l.db"]);
    merged.assert_success();
    assert!(
        merged.stdout.contains("recorded (4 games, 4 new)"),
        "{merged}"
    );
    let listed = runs(dir.path(), "l.db");
    assert_eq!(listed.len(), 3, "{listed:?}");
}

/// `build.commit` and friends on `--engine` (the `build` table in a file) say which commit
/// claims a plugin; the ledger keeps them with the plugin's digest, so one build claimed by two
/// commits (a commit that changed nothing) shows as one digest under both. An unknown key of
/// `build` is refused.
#[test]
fn build_metadata_is_recorded_with_the_digest() {
    let dir = TempDir::new("ledger-build");
    for (commit, out) in [("aaa1111", "c1"), ("bbb2222", "c2")] {
        let a = artifacts();
        let cand = format!(
            "name=cand,plugin={},build.commit={commit},build.ref=main,build.date=2026-11-27,build.label=step",
            s(&a.greedy)
        );
        let base = format!("name=base,plugin={}", s(&a.minimax));
        harness(
            dir.path(),
            &[
                "run", "--engine", &cand, "--engine", &base, "--format", "match", "--no-tui",
                "--time", "depth=1", "--pairs", "1", "--out", out, "--ledger", "l.db",
            ],
        )
        .assert_success();
    }
    let listed = runs(dir.path(), "l.db");
    assert_eq!(listed.len(), 2);
    let mut commits: Vec<&str> = listed
        .iter()
        .map(|r| r["engines"][0]["build"]["commit"].as_str().unwrap())
        .collect();
    commits.sort();
    assert_eq!(commits, ["aaa1111", "bbb2222"]);
    assert_eq!(
        listed[0]["engines"][0]["digest"],
        listed[1]["engines"][0]["digest"]
    );
    assert_eq!(listed[0]["engines"][0]["build"]["ref"], "main");
    assert_eq!(listed[0]["engines"][1]["build"], serde_json::json!({}));
    let bad = format!("name=cand,plugin={},build.sha=1", s(&artifacts().greedy));
    let base = format!("name=base,plugin={}", s(&artifacts().minimax));
    harness(
        dir.path(),
        &[
            "run", "--engine", &bad, "--engine", &base, "--format", "match", "--no-tui", "--out",
            "bad",
        ],
    )
    .assert_error()
    .assert_stderr_has(&["build.sha=1", "sha"]);
}

/// `ledger history`: one row per player in commit order, rated jointly against the first
/// (heuristic, a stronger build, above greedy); one digest claimed by two commits is one row
/// listing both; a run under other conditions is a series of its own, never mixed in;
/// `--anchor` moves the zero.
#[test]
fn history_rates_builds_in_commit_order_per_conditions() {
    let dir = TempDir::new("ledger-history");
    let a = artifacts();
    let step = |plugin: &Path, commit: &str, date: &str, time: &str, out: &str| {
        let cand = format!(
            "name=cand,plugin={},build.commit={commit},build.date={date}",
            s(plugin)
        );
        let base = format!("name=base,plugin={},Depth=1", s(&a.minimax));
        harness(
            dir.path(),
            &[
                "run",
                "--engine",
                &cand,
                "--engine",
                &base,
                "--format",
                "match",
                "--no-tui",
                "--time",
                time,
                "--pairs",
                "20",
                "--openings",
                "xot-large",
                "--out",
                out,
                "--ledger",
                "l.db",
            ],
        )
        .assert_success();
    };
    step(&a.greedy, "c1", "2026-11-01", "depth=1", "r1");
    step(&a.heuristic, "c2", "2026-11-02", "depth=1", "r2");
    step(&a.greedy, "c3", "2026-11-03", "depth=1", "r3");
    step(&a.greedy, "c9", "2026-11-04", "depth=2", "r9");
    let rows = |extra: &[&str]| -> Vec<Value> {
        let mut args = vec![
            "ledger", "history", "--json", "--ledger", "l.db", "--engine", "cand",
        ];
        args.extend(extra);
        let out = harness(dir.path(), &args);
        out.assert_success();
        out.stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    let all = rows(&[]);
    assert_eq!(all.len(), 3, "{all:#?}");
    assert_eq!(all[0]["commits"], serde_json::json!(["c1", "c3"]));
    assert_eq!(all[0]["elo"], 0.0);
    assert_eq!(all[0]["runs"], 2);
    assert_eq!(all[1]["commits"], serde_json::json!(["c2"]));
    assert!(all[1]["elo"].as_f64().unwrap() > 0.0, "{:#}", all[1]);
    assert_eq!(all[2]["commits"], serde_json::json!(["c9"]));
    assert_ne!(
        all[2]["series"], all[0]["series"],
        "other conditions, another series"
    );
    // Recorded in another order (the latest build first): the same rows, in commit order.
    harness(
        dir.path(),
        &["ledger", "add", "r3", "r2", "r1", "r9", "--ledger", "l2.db"],
    )
    .assert_success();
    let reordered = harness(
        dir.path(),
        &[
            "ledger", "history", "--json", "--ledger", "l2.db", "--engine", "cand",
        ],
    );
    let reordered: Vec<Value> = reordered
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let commits =
        |rows: &[Value]| -> Vec<Value> { rows.iter().map(|r| r["commits"].clone()).collect() };
    assert_eq!(commits(&reordered), commits(&all));
    let anchored = rows(&["--anchor", "c2"]);
    assert_eq!(anchored[1]["elo"], 0.0);
    assert!(anchored[0]["elo"].as_f64().unwrap() < 0.0);
    let table = harness(dir.path(), &["ledger", "history", "--ledger", "l.db"]);
    table.assert_success();
    assert!(table.stdout.contains("c1,c3"), "{table}");
    history_page_in_a_browser(&dir);
}

/// `ledger history --html`, opened in a real Chromium: a heading, a chart and a table per
/// series; every rated build a point drawn on the page, every build a row.
fn history_page_in_a_browser(dir: &TempDir) {
    let json = harness(
        dir.path(),
        &["ledger", "history", "--json", "--ledger", "l.db"],
    );
    let rows: Vec<Value> = json
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let series: std::collections::BTreeSet<String> = rows
        .iter()
        .map(|r| format!("{}/{}", r["series"], r["engine"]))
        .collect();
    let rated = rows.iter().filter(|r| !r["elo"].is_null()).count();
    let page = harness(
        dir.path(),
        &[
            "ledger",
            "history",
            "--ledger",
            "l.db",
            "--html",
            "history.html",
        ],
    );
    page.assert_success();
    let Some(mut browser) = Browser::start("ledger history --html", dir) else {
        return;
    };
    browser.goto(&format!("file://{}", dir.join("history.html").display()));
    let seen = browser.eval(
        "({ headings: document.querySelectorAll('h2').length, \
            charts: document.querySelectorAll('figure svg').length, \
            drawn: [...document.querySelectorAll('figure svg circle')] \
              .filter(c => c.getBoundingClientRect().width > 0).length, \
            rows: document.querySelectorAll('table.builds tbody tr').length })",
    );
    assert_eq!(seen["headings"], series.len(), "{seen} {series:?}");
    assert_eq!(seen["charts"], series.len(), "{seen}");
    assert_eq!(seen["drawn"], rated, "{seen}");
    assert_eq!(seen["rows"], rows.len(), "{seen}");
    assert!(rated >= 4, "{rows:#?}");
    for width in [1400, 800] {
        let shot = screenshot_path(dir, &format!("ledger-history-{width}.png"));
        browser.screenshot(width, &shot);
        assert!(std::fs::metadata(&shot).unwrap().len() > 10_000);
    }
}

/// The CI flow the project documents (`docs/examples/github-actions-ledger.yml`, with a local
/// ledger): two runs of a weaker candidate (greedy, two commits of one binary) against a
/// baseline labelled v1.0 (heuristic at depth 2); `ledger history --anchor v1.0` rates the
/// candidate against the baseline from the joint fit (negative, within `harness stats`'
/// interval of each run) and its page says so; without `--anchor` the output says what the
/// numbers are relative to; an anchor that matches nothing is exit 2 listing the builds.
#[test]
fn the_documented_ci_flow_shows_a_weaker_candidate_below_its_baseline() {
    let dir = TempDir::new("ledger-ci-flow");
    let a = artifacts();
    for i in 1..=2 {
        let candidate = format!("name=candidate,plugin={},build.commit=c{i}", s(&a.greedy));
        let baseline = format!(
            "name=baseline,plugin={},Depth=2,build.label=v1.0",
            s(&a.heuristic)
        );
        let (openings, out) = (format!("xot-large,seed={i}"), format!("out{i}"));
        harness(
            dir.path(),
            &[
                "run",
                "--engine",
                &candidate,
                "--engine",
                &baseline,
                "--format",
                "match",
                "--time",
                "depth=2",
                "--openings",
                &openings,
                "--pairs",
                "30",
                "--out",
                &out,
                "--ledger",
                "l.db",
                "--no-tui",
            ],
        )
        .assert_success();
    }
    let history = |extra: &[&str]| {
        let mut args = vec![
            "ledger",
            "history",
            "--ledger",
            "l.db",
            "--engine",
            "candidate",
        ];
        args.extend(extra);
        harness(dir.path(), &args)
    };
    let json = history(&["--anchor", "v1.0", "--json", "--html", "page.html"]);
    json.assert_success();
    let rows: Vec<Value> = json
        .stdout
        .lines()
        .filter(|l| l.starts_with('{'))
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 1, "{json}");
    let row = &rows[0];
    assert_eq!(row["commits"], serde_json::json!(["c1", "c2"]));
    assert_eq!(row["games"], 120, "{row:#}");
    assert_eq!(row["anchor"]["named"], true);
    assert!(
        row["anchor"]["build"]
            .as_str()
            .unwrap()
            .starts_with("baseline@v1.0 "),
        "{row:#}"
    );
    let elo = row["elo"].as_f64().unwrap();
    assert!(elo < 0.0 && row["high"].as_f64().unwrap() < 0.0, "{row:#}");
    for out in ["out1", "out2"] {
        harness(dir.path(), &["stats", out]).assert_success();
        let (low, high) = crate::support::first_pairing_elo_interval(&dir.join(out), "candidate");
        assert!(
            low <= elo && elo <= high,
            "history {elo:.1} outside {out}'s [{low:.1}, {high:.1}]"
        );
    }
    let page = std::fs::read_to_string(dir.join("page.html")).unwrap();
    assert!(
        page.contains("Elo against <code>baseline@v1.0 "),
        "the page names its anchor"
    );
    assert!(
        page.contains(&format!("{elo:+.1}")),
        "the page shows the Elo"
    );
    // Without --anchor: the series' first build, said in so many words.
    let plain = history(&[]);
    plain.assert_success();
    assert!(
        plain
            .stdout
            .contains("Elo relative to candidate@c1,c2 (digest "),
        "{plain}"
    );
    assert!(plain.stdout.contains("depth 2, xot-large"), "{plain}");
    // The reviewer's question: c2 against v1.0, head to head and through the joint fit.
    let compared = harness(
        dir.path(),
        &[
            "ledger", "compare", "c2", "v1.0", "--json", "--ledger", "l.db",
        ],
    );
    compared.assert_success();
    let c: Value = serde_json::from_str(compared.stdout.trim()).unwrap();
    assert_eq!(c["head_to_head"]["games"], 120, "{c:#}");
    assert!(c["head_to_head"]["elo"].as_f64().unwrap() < 0.0, "{c:#}");
    assert!(
        (c["joint"]["elo"].as_f64().unwrap() - elo).abs() < 1e-6,
        "{c:#}"
    );
    // An anchor that matches nothing: exit 2, with the builds it could have meant.
    history(&["--anchor", "deadbeef"])
        .assert_error()
        .assert_stderr_has(&["--anchor deadbeef matches no build", "baseline@v1.0"]);
}

/// A shard never claims its run's verdict: it ends `shard-done` with exit 0 after its games
/// (the test not evaluated); the ledger keeps the run's verdict empty and shows each shard's
/// progress until the merge is recorded, whose verdict it then holds.
#[test]
fn a_shard_is_done_without_the_runs_verdict() {
    let dir = TempDir::new("ledger-shard");
    let shard = |i: usize| {
        play(
            dir.path(),
            &format!("--pairs 6 --sprt elo0=0,elo1=10 --out sh --shard {i}/2"),
        )
    };
    shard(0).assert_success();
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("sh/shard-0-of-2/report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        report["verdict"]["outcome"], "shard-done",
        "{:#}",
        report["verdict"]
    );
    assert_eq!(report["verdict"]["exit_code"], 0);
    let reasons = report["verdict"]["reasons"].to_string();
    assert!(reasons.contains("harness merge"), "{reasons}");
    let add = || harness(dir.path(), &["ledger", "add", "sh", "--ledger", "l.db"]);
    add().assert_success();
    let listed = runs(dir.path(), "l.db");
    assert_eq!(listed[0]["verdict"], Value::Null, "{listed:?}");
    assert_eq!(
        (
            listed[0]["games"].as_u64(),
            listed[0]["planned_games"].as_u64()
        ),
        (Some(6), Some(12))
    );
    assert_eq!(
        listed[0]["shards"],
        serde_json::json!([
            {"shard": "0/2", "games": 6, "planned": 6},
            {"shard": "1/2", "games": 0, "planned": 6}
        ])
    );
    let table = harness(dir.path(), &["ledger", "runs", "--ledger", "l.db"]);
    assert!(table.stdout.contains("shards 1/2 done"), "{table}");
    shard(1).assert_success();
    add().assert_success();
    let listed = runs(dir.path(), "l.db");
    assert_eq!(listed[0]["verdict"], Value::Null, "{listed:?}");
    assert_eq!(listed[0]["games"], 12);
    harness(dir.path(), &["merge", "sh"]);
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("sh/report.json")).unwrap())
            .unwrap();
    assert_ne!(merged["verdict"]["outcome"], "shard-done");
    add().assert_success();
    let listed = runs(dir.path(), "l.db");
    assert_eq!(
        listed[0]["verdict"]["outcome"], merged["verdict"]["outcome"],
        "{listed:?}"
    );
    assert!(listed[0].get("shards").is_none(), "{listed:?}");
}

/// Folders `a` and `b` in `dir`, the same run id, other games (a second run whose `run-id` is
/// the first's, as a cache restored twice leaves it): `b` refused by the ledger `url`, exit 2
/// naming the games, nothing of it added.
pub fn conflicting_games_are_refused(dir: &TempDir, url: &str) {
    play(dir.path(), "--pairs 1 --out a").assert_success();
    play_swapped(dir.path(), "--pairs 1 --out b").assert_success();
    std::fs::copy(dir.join("a/run-id"), dir.join("b/run-id")).unwrap();
    harness(dir.path(), &["ledger", "add", "a", "--ledger", url]).assert_success();
    harness(dir.path(), &["ledger", "add", "b", "--ledger", url])
        .assert_error()
        .assert_stderr_has(&["game(s) 1, 2 of this run", "nothing was added", "run-id"]);
    let listed = runs(dir.path(), url);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["games"], 2);
    assert_eq!(
        listed[0]["engines"][0]["name"], "mm",
        "b's engines replaced a's"
    );
    // Adding `a` again is still no conflict.
    let again = harness(dir.path(), &["ledger", "add", "a", "--ledger", url]);
    assert!(again.stdout.contains("2 games, 0 new"), "{again}");
}

/// `--ledger-required`: a run the ledger does not take (its run id's games there are other
/// games) exits 2 after its reports, every game kept, where it would exit 0 without the flag;
/// with no ledger named it is an error before the first game; `--no-ledger` records nothing
/// though HARNESS_LEDGER names a ledger.
#[test]
fn ledger_required_fails_a_run_the_ledger_did_not_take() {
    let dir = TempDir::new("ledger-required");
    play(dir.path(), "--pairs 1 --out a --ledger l.db").assert_success();
    for (flag, code) in [("", 0), ("--ledger-required", 2)] {
        let out = format!("b{code}");
        std::fs::create_dir(dir.join(&out)).unwrap();
        std::fs::copy(dir.join("a/run-id"), dir.join(&out).join("run-id")).unwrap();
        let run = play_swapped(
            dir.path(),
            &format!("--pairs 1 --out {out} --ledger l.db {flag}"),
        );
        assert_eq!(run.status.code(), Some(code), "{run}");
        assert!(run.stderr.contains("THE LEDGER WAS NOT WRITTEN"), "{run}");
        let journal = std::fs::read_to_string(dir.join(&out).join("games.jsonl")).unwrap();
        assert_eq!(journal.lines().count(), 2, "every game kept");
        let report: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(&out).join("report.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(report["verdict"]["outcome"], "pass");
    }
    play(dir.path(), "--pairs 1 --out c --ledger-required")
        .assert_error()
        .assert_stderr_has(&["--ledger-required", "no ledger is named"]);
    assert!(!dir.join("c/games.jsonl").exists(), "a game was played");
    greedy_with_env_ledger(dir.path(), "d", "sqlite://l.db", &["--no-ledger"]).assert_success();
    assert_eq!(
        runs(dir.path(), "l.db").len(),
        1,
        "--no-ledger recorded the run"
    );
}

/// Reading commands never make a ledger (a typo's name: exit 2, no file made, no page
/// written); an unknown --engine is exit 2 listing the known names.
#[test]
fn reading_commands_never_make_a_ledger() {
    let dir = TempDir::new("ledger-reads");
    let reads: [&[&str]; 5] = [
        &["ledger", "history", "--ledger", "reslts.db"],
        &[
            "ledger",
            "history",
            "--ledger",
            "reslts.db",
            "--html",
            "page.html",
        ],
        &["ledger", "runs", "--ledger", "reslts.db"],
        &["ledger", "stats", "x", "--ledger", "reslts.db"],
        &[
            "serve",
            ".",
            "--bind",
            "127.0.0.1:0",
            "--ledger",
            "reslts.db",
        ],
    ];
    for args in reads {
        harness(dir.path(), args)
            .assert_error()
            .assert_stderr_has(&["reslts.db", "no such ledger"]);
        assert!(!dir.join("reslts.db").exists(), "{args:?} made a ledger");
        assert!(!dir.join("page.html").exists(), "{args:?} wrote a page");
    }
    play(dir.path(), "--pairs 1 --out a --ledger l.db").assert_success();
    harness(
        dir.path(),
        &["ledger", "history", "--ledger", "l.db", "--engine", "nope"],
    )
    .assert_error()
    .assert_stderr_has(&["--engine nope", "its engines: g; mm"]);
}

/// A ledger the user cannot write is refused before the first game, naming the cause: a
/// read-only file, and a writable file in a folder that takes no new file (SQLite's journal
/// files go there). As root the harness runs as `nobody`, since root writes anything
/// ([`crate::support::user::unprivileged`]).
#[test]
fn an_unwritable_ledger_is_refused_before_the_first_game() {
    // Root writes anything: the refusal shows only to another user, `nobody`, who runs its
    // staged binaries in a folder it can enter (and not write).
    let Some(user) = crate::support::user::unprivileged() else {
        return;
    };
    let dir = user.readable_dir("ledger-unwritable");
    play(dir.path(), "--pairs 1 --out a --ledger ro.db").assert_success();
    std::fs::create_dir(dir.join("locked")).unwrap();
    harness(
        dir.path(),
        &["ledger", "add", "a", "--ledger", "locked/l.db"],
    )
    .assert_success();
    let mode = |path: &str, bits: u32| {
        std::fs::set_permissions(
            dir.join(path),
            std::os::unix::fs::PermissionsExt::from_mode(bits),
        )
        .unwrap();
    };
    mode("ro.db", 0o444);
    mode("locked/l.db", 0o666);
    mode("locked", 0o555);
    std::fs::create_dir(dir.join("out")).unwrap();
    mode("out", 0o777);
    for name in [
        "ro.db-wal",
        "ro.db-shm",
        "locked/l.db-wal",
        "locked/l.db-shm",
    ] {
        if dir.join(name).exists() {
            mode(name, 0o666);
        }
    }
    let a = user.artifacts();
    let as_user = |ledger: &str, out: &str| {
        let (first, second) = (
            format!("name=mm,plugin={},Depth=2", s(&a.minimax)),
            format!("name=g,plugin={}", s(&a.greedy)),
        );
        let args = [
            "run", "--engine", &first, "--engine", &second, "--format", "match", "--no-tui",
            "--time", "depth=2", "--pairs", "1", "--out", out, "--ledger", ledger,
        ];
        let mut cmd = std::process::Command::new(&a.harness);
        cmd.args(args).current_dir(dir.path());
        user.wrap(&mut cmd);
        crate::support::run_with_timeout(cmd, crate::support::HARNESS_TIMEOUT)
    };
    let read_only = as_user("ro.db", "out/r");
    read_only.assert_error().assert_stderr_has(&[
        "ro.db",
        "cannot be written",
        "does not open for writing",
    ]);
    assert!(!dir.join("out/r/games.jsonl").exists(), "a game was played");
    let locked = as_user("locked/l.db", "out/l");
    locked.assert_error().assert_stderr_has(&[
        "locked/l.db",
        "cannot be written",
        "takes no new file",
    ]);
    assert!(!locked.stderr.contains("not a ledger"), "{locked}");
    assert!(!dir.join("out/l/games.jsonl").exists(), "a game was played");
    mode("locked", 0o755);
}

/// A run resumed with a new build claim for the same plugin (the digest is the player, the
/// build a claim about it) goes on, and its folder and the ledger record the new claim; a
/// changed plugin is still refused.
#[test]
fn a_new_build_claim_for_the_same_plugin_resumes() {
    let dir = TempDir::new("ledger-claim");
    let a = artifacts();
    let claimed = |plugin: &Path, commit: &str| {
        let cand = format!("name=cand,plugin={},build.commit={commit}", s(plugin));
        let base = format!("name=base,plugin={}", s(&a.minimax));
        harness(
            dir.path(),
            &[
                "run", "--engine", &cand, "--engine", &base, "--format", "match", "--no-tui",
                "--time", "depth=1", "--pairs", "1", "--out", "a", "--ledger", "l.db",
            ],
        )
    };
    claimed(&a.greedy, "c1").assert_success();
    claimed(&a.greedy, "c2").assert_success();
    let pinned = std::fs::read_to_string(dir.join("a/tournament.json")).unwrap();
    assert!(
        pinned.contains("\"commit\":\"c2\"") || pinned.contains("\"commit\": \"c2\""),
        "{pinned}"
    );
    let listed = runs(dir.path(), "l.db");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["games"], 2);
    assert_eq!(listed[0]["engines"][0]["build"]["commit"], "c2");
    claimed(&a.heuristic, "c2")
        .assert_error()
        .assert_stderr_has(&["different tournament"]);
}
