//! The run files every view reads (`tournament.json`, `decision.json`) keep reading the way
//! earlier versions wrote them: a folder written by the harness at 53145f6 (the fixture
//! `tests/fixtures/run-53145f6`, made by that version's `harness run`) reads, reports, and
//! joins the ledger series that version started, and a run of this version under the same
//! conditions joins it too.

use crate::support::{harness, TempDir};
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
