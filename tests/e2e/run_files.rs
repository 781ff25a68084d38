//! The run files every view reads (`tournament.json`, `decision.json`, `verdict.json`) keep
//! reading the way earlier versions wrote them: a folder written by the harness at 53145f6
//! (the fixture `tests/fixtures/run-53145f6`, made by that version's `harness run`, before
//! `verdict.json`) reads, reports, and joins the ledger series that version started, and a run
//! of this version under the same conditions joins it too. A run's end is its `verdict.json`,
//! never what a report says.

use crate::support::{harness, spawn_harness, start_timed_match, wait_for_games, TempDir};
use serde_json::Value;
use std::path::Path;

/// The conditions class 53145f6 stored for the fixture's run in its ledger, as it stored it.
const CONDITIONS_53145F6: &str = r#"{"adjudication":null,"engine_time":[null,null],"margin_ms":200,"nps_reference":null,"openings":{"count":3623,"fnv1a":"920f820784ce6a94","source":{"builtin":"xot-small"}},"stall_timeout_ms":60000,"time":"depth 1"}"#;
/// The `[sprt]` table 53145f6 stored for it.
const SPRT_53145F6: &str = r#"{"fail_on_crash":false,"fail_on_forfeit":false,"params":{"alpha":0.05,"beta":0.05,"elo0":0.0,"elo1":10.0,"model":"logistic","unit":"pentanomial"}}"#;

/// One column of every run in the SQLite ledger `db`, in recording order.
fn column(db: &Path, sql: &str) -> Vec<String> {
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            &format!(
                "import sqlite3, sys\nfor (v,) in sqlite3.connect(sys.argv[1]).execute({sql:?}): print(v)"
            ),
            crate::support::s(db),
        ])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn a_folder_of_53145f6_reads_and_joins_its_ledger_series() {
    let dir = TempDir::new("run-files-53145f6");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/run-53145f6");
    std::fs::create_dir(dir.join("old")).unwrap();
    for file in ["tournament.json", "games.jsonl", "run-id", "report.json"] {
        std::fs::copy(fixture.join(file), dir.join("old").join(file)).unwrap();
    }
    let stats = harness(dir.path(), &["stats", "old"]);
    stats.assert_success();
    assert!(
        stats.stdout.contains("cand") && stats.stdout.contains("LLR"),
        "{stats}"
    );
    harness(dir.path(), &["ledger", "add", "old", "--ledger", "l.db"]).assert_success();
    let db = dir.join("l.db");
    assert_eq!(
        column(&db, "SELECT conditions FROM runs"),
        [CONDITIONS_53145F6]
    );
    assert_eq!(column(&db, "SELECT sprt FROM runs"), [SPRT_53145F6]);
    // Its verdict is the one its report kept (the folder has no verdict.json).
    let verdict: Value = serde_json::from_str(&column(&db, "SELECT verdict FROM runs")[0]).unwrap();
    assert_eq!(verdict["outcome"], "undecided");
    assert_eq!(verdict["exit_code"], 3);
    // The stored tournament is the folder's file, byte for byte (read and written back).
    let stored = column(&db, "SELECT tournament FROM runs").join("\n");
    let file = std::fs::read_to_string(dir.join("old/tournament.json")).unwrap();
    assert_eq!(stored.trim_end(), file.trim_end());
    // This version's run under the same conditions is in the same series (its test
    // undecided after 2 pairs: exit 3).
    let new = harness(
        dir.path(),
        &[
            "run",
            "--engine",
            "name=cand,plugin=greedy,build.commit=c2",
            "--engine",
            "name=base,plugin=heuristic,Depth=1,build.label=v1.0",
            "--format",
            "match",
            "--time",
            "depth=1",
            "--openings",
            "xot-small",
            "--pairs",
            "2",
            "--sprt",
            "elo0=0,elo1=10",
            "--no-tui",
            "--out",
            "new",
            "--ledger",
            "l.db",
        ],
    );
    assert_eq!(new.status.code(), Some(3), "{new}");
    assert_eq!(
        column(&db, "SELECT conditions FROM runs"),
        [CONDITIONS_53145F6, CONDITIONS_53145F6]
    );
    assert_eq!(
        column(&db, "SELECT sprt FROM runs"),
        [SPRT_53145F6, SPRT_53145F6]
    );
    // One series: both builds of `cand` under one conditions class (their plugins are other
    // binaries, so no games connect them; the history lists both).
    let history = harness(
        dir.path(),
        &[
            "ledger", "history", "--ledger", "l.db", "--engine", "cand", "--json",
        ],
    );
    history.assert_success();
    let rows: Vec<serde_json::Value> = history
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 2, "c1 and c2 in one series: {history}");
    assert_eq!(rows[0]["conditions"], rows[1]["conditions"], "{history}");
}

/// The JSON file `name` of the folder `dir`.
fn json(dir: &Path, name: &str) -> Value {
    let text = std::fs::read_to_string(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// A run that ends writes `verdict.json` with the verdict and wall time its report states;
/// the ledger and `analyze` take the verdict from there, not from a report that says otherwise;
/// a run of the folder that goes on (here an extension, killed while it plays) holds none.
#[test]
fn a_run_s_end_is_its_verdict_file() {
    let (dir, child) = start_timed_match("verdict-file", 1, 0);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let folder = dir.join("out");
    let ended = json(&folder, "verdict.json");
    let report = json(&folder, "report.json");
    assert_eq!(ended["verdict"]["outcome"], "pass");
    assert_eq!(ended["verdict"], report["verdict"]);
    assert_eq!(ended["finished"], true);
    assert_eq!(
        ended["elapsed_seconds"],
        report["totals"]["elapsed_seconds"]
    );

    // A report that says otherwise is not the run's word.
    let mut lying = report.clone();
    lying["verdict"]["outcome"] = "fail".into();
    lying["verdict"]["exit_code"] = 1.into();
    std::fs::write(folder.join("report.json"), lying.to_string()).unwrap();
    harness(dir.path(), &["ledger", "add", "out", "--ledger", "l.db"]).assert_success();
    let stored: Value =
        serde_json::from_str(&column(&dir.join("l.db"), "SELECT verdict FROM runs")[0]).unwrap();
    assert_eq!(stored, ended["verdict"]);
    harness(dir.path(), &["analyze", "out", "--from-empties", "4"]).assert_success();
    assert_eq!(json(&folder, "report.json")["verdict"], ended["verdict"]);
    assert_eq!(json(&folder, "verdict.json"), ended);

    // Extended, the run goes on: the verdict of its first end no longer holds.
    let mut extension = spawn_harness(
        dir.path(),
        &["run", "t.toml", "--pairs", "4", "--no-tui"],
        false,
    );
    wait_for_games(&folder.join("games.jsonl"), 3);
    extension.kill().unwrap();
    extension.wait().unwrap();
    assert!(
        !folder.join("verdict.json").exists(),
        "an extended run that goes on still holds its first end's verdict"
    );
}

/// A run file that is there but cannot be read is an error that names it, never "none": a run
/// whose `tournament.json` cannot be read stops before it touches the folder (it once took the
/// file for missing and wrote its own over it), and a `verdict.json` that is not one stops
/// `ledger add` (it once read as "no verdict": the ledger recorded a finished run as one that
/// goes on).
#[test]
fn a_run_file_that_cannot_be_read_is_an_error_naming_it() {
    use crate::support::{match_args, run};
    let dir = TempDir::new("run-files-unreadable");
    let d = dir.path();
    run(d, &match_args("--pairs 2 --out x")).assert_success();
    let journal = std::fs::read_to_string(d.join("x/games.jsonl")).unwrap();
    // A folder where the file should be: reading it fails with something other than "not
    // found", whoever runs the test (root reads a file of mode 000).
    let pinned = d.join("x/tournament.json");
    let text = std::fs::read_to_string(&pinned).unwrap();
    std::fs::remove_file(&pinned).unwrap();
    std::fs::create_dir(&pinned).unwrap();
    run(d, &match_args("--pairs 3 --out x"))
        .assert_error()
        .assert_stderr_has(&["cannot read", "x/tournament.json"]);
    assert!(pinned.is_dir(), "the run wrote over what it could not read");
    assert_eq!(
        std::fs::read_to_string(d.join("x/games.jsonl")).unwrap(),
        journal
    );
    std::fs::remove_dir(&pinned).unwrap();
    std::fs::write(&pinned, text).unwrap();

    std::fs::write(d.join("x/verdict.json"), "{\"finished\": tr").unwrap();
    harness(d, &["ledger", "add", "x", "--ledger", "l.db"])
        .assert_error()
        .assert_stderr_has(&["x/verdict.json", "not a run's verdict"]);
}
