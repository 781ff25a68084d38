//! Extending a finished run: `pairs` raised (and only raised) on an output folder plays the new
//! pairs alone, after the games it holds, as if the run had had the larger number from the
//! start; a test that had decided stays decided; a sharded run extends shard by shard.
//!
//! The engines are deterministic at a fixed depth, so an extended run's games must equal, move
//! for move, those of a run given the larger number at once.

use crate::support::{artifacts, games_of, harness, read_games, s, Output, TempDir};
use std::path::Path;

/// `harness run` of minimax against heuristic at depth 2 with `flags` (split at spaces).
fn run(dir: &Path, flags: &str) -> Output {
    let a = artifacts();
    let first = format!("name=m,plugin={},Depth=3", s(&a.minimax));
    let second = format!("name=h,plugin={}", s(&a.heuristic));
    let mut args = vec![
        "run", "--engine", &first, "--engine", &second, "--format", "match", "--no-tui", "--time",
        "depth=2",
    ];
    args.extend(flags.split_whitespace());
    harness(dir, &args)
}

/// 3 pairs, then 5: only the 4 new games are played, and the folder equals a 5-pair run's;
/// tournament.json now pins 5 pairs; fewer pairs than played are refused, the folder intact.
/// An analysis of the 3-pair run says it covers 6 of the 10 games.
#[test]
fn raising_pairs_plays_only_the_new_pairs() {
    let dir = TempDir::new("extend");
    run(dir.path(), "--pairs 5 --out whole").assert_success();
    run(dir.path(), "--pairs 3 --out grown").assert_success();
    harness(dir.path(), &["analyze", "grown", "--from-empties", "6"]).assert_success();
    let kept = read_games(&dir.join("grown"));
    let grown = run(dir.path(), "--pairs 5 --out grown");
    grown.assert_success();
    assert!(
        grown.stdout.contains(
            "resuming: 6 of 10 games already in grown/games.jsonl, 4 to play (extended from 3 to 5 pairs)"
        ),
        "{grown}"
    );
    assert_eq!(&read_games(&dir.join("grown"))[..6], &kept[..]);
    assert_eq!(games_of(&dir.join("grown")), games_of(&dir.join("whole")));
    let pinned = std::fs::read_to_string(dir.join("grown/tournament.json")).unwrap();
    let pinned: serde_json::Value = serde_json::from_str(&pinned).unwrap();
    assert_eq!(pinned["pairs"], 5);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("grown/report.json")).unwrap())
            .unwrap();
    assert_eq!(report["analysis"]["games_not_covered"], 4);
    let md = std::fs::read_to_string(dir.join("grown/report.md")).unwrap();
    assert!(
        md.contains("the analysis covers 6 of the journal's 10 games"),
        "{md}"
    );
    let stats = harness(dir.path(), &["stats", "grown"]);
    assert!(stats
        .stdout
        .contains("the analysis covers 6 of the journal's 10 games"));
    // Down is refused, and says that only an increase extends a run.
    let journal = std::fs::read(dir.join("grown/games.jsonl")).unwrap();
    let shrunk = run(dir.path(), "--pairs 4 --out grown");
    shrunk
        .assert_error()
        .assert_stderr_has(&["pairs 5 → 4", "only `pairs` may change, and only upward"]);
    assert_eq!(
        std::fs::read(dir.join("grown/games.jsonl")).unwrap(),
        journal
    );
}

/// A run whose test decided stays decided when extended: no new pair, the same exit code, and
/// the resuming line says why.
#[test]
fn an_extended_run_whose_test_decided_stays_decided() {
    let dir = TempDir::new("extend-decided");
    // minimax at depth 2 loses nearly every game to heuristic: H0 (exit 1) within a few pairs.
    let sprt = "--sprt elo0=-50,elo1=0 --out d";
    let first = run(dir.path(), &format!("--pairs 60 {sprt}"));
    assert_eq!(first.status.code(), Some(1), "{first}");
    let decided = read_games(&dir.join("d")).len();
    assert!(decided < 120, "the test did not stop the run early");
    let again = run(dir.path(), &format!("--pairs 80 {sprt}"));
    assert_eq!(again.status.code(), Some(1), "{again}");
    assert!(
        again
            .stdout
            .contains("the test had already decided (H0 accepted): it stays decided"),
        "{again}"
    );
    assert_eq!(read_games(&dir.join("d")).len(), decided);
}

/// Shards extend one by one: each raised to 3 pairs plays its new rounds; the merge of the
/// extended shards replaces the merge of the smaller ones and equals a 3-pair run.
#[test]
fn a_sharded_run_extends_shard_by_shard() {
    let dir = TempDir::new("extend-shards");
    run(dir.path(), "--pairs 3 --out whole").assert_success();
    for i in 0..2 {
        run(dir.path(), &format!("--pairs 2 --out sh --shard {i}/2")).assert_success();
    }
    harness(dir.path(), &["merge", "sh"]).assert_success();
    for i in 0..2 {
        run(dir.path(), &format!("--pairs 3 --out sh --shard {i}/2")).assert_success();
    }
    harness(dir.path(), &["merge", "sh"]).assert_success();
    assert_eq!(games_of(&dir.join("sh")), games_of(&dir.join("whole")));
}
