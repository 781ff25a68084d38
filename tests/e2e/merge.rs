//! `harness merge`: the shard folders of one tournament merged into one journal in game order,
//! with the statistics of an unsharded run of the same deterministic engines (the engines'
//! wall-time columns aside); a shard killed and played again, a folder given twice, a second
//! merge of a folder that replaces the first, the merge's Engines table, and the folders a
//! merge refuses (conflicting records, another tournament's shards, bad folders).

use crate::support::{
    check_ggf, check_record, deterministic_gauntlet, entries, games_of, harness, match_file,
    play_shards, read_games, spawn_harness, wait_for_games, Output, TempDir,
};
use std::collections::BTreeMap;
use std::path::Path;

/// The merged journal (and its GGF copy, line for line) holds games 0..`games` in game order,
/// each a valid record: the order the merge promises, looked at as written, not sorted first.
fn assert_in_game_order(out: &Path, games: usize) {
    let records = read_games(out);
    let numbers: Vec<usize> = records.iter().map(|g| g.game).collect();
    assert_eq!(numbers, (0..games).collect::<Vec<_>>(), "games.jsonl order");
    for g in &records {
        check_record(g);
    }
    check_ggf(out, &records);
}

fn shard(dir: &TempDir, spec: &str) -> Output {
    harness(dir.path(), &["run", "t.toml", "--no-tui", "--shard", spec])
}

#[test]
fn four_shards_merge_to_the_statistics_of_one_run() {
    let dir = TempDir::new("shards-merge");
    dir.write("t.toml", &deterministic_gauntlet(6, 11));
    harness(dir.path(), &["run", "t.toml", "--no-tui", "--out", "full"]).assert_success();
    for i in 0..4 {
        let run = shard(&dir, &format!("{i}/4"));
        run.assert_success();
        assert!(run.stdout.contains(&format!("shard {i}/4")), "{run}");
        // A shard plays whole rounds only: both games of each of its pairs, every pairing.
        let games = read_games(&dir.join(format!("out/shard-{i}-of-4")));
        assert_eq!(games.len() % 4, 0, "{} games", games.len());
        let fingerprint =
            std::fs::read_to_string(dir.join(format!("out/shard-{i}-of-4/tournament.json")))
                .unwrap();
        assert!(fingerprint.contains("\"shard\""), "{fingerprint}");
    }
    let merge = harness(dir.path(), &["merge", "out"]);
    merge.assert_success();
    assert!(merge.stdout.contains("24 games of 24 planned"), "{merge}");
    let full = harness(dir.path(), &["stats", "full"]);
    let merged = harness(dir.path(), &["stats", "out"]);
    full.assert_success();
    assert_eq!(
        untimed(&full.stdout),
        untimed(&merged.stdout),
        "stats differ"
    );
    assert_eq!(games_of(&dir.join("full")), games_of(&dir.join("out")));
    assert_in_game_order(&dir.join("out"), 24);
    // The merged folder is the unsharded tournament's: a run into it resumes and plays nothing.
    let again = harness(dir.path(), &["run", "t.toml", "--no-tui"]);
    again.assert_success();
    assert!(
        again.stdout.contains("24 of 24 games already in"),
        "{again}"
    );
    assert!(dir.join("out/report.json").exists() && dir.join("out/games.ggf").exists());
}

/// A shard killed mid-run and run again (what a requeue does) continues where it stopped; the
/// merge is the same as without the kill; a folder given twice counts its games once.
#[test]
fn a_killed_shard_rerun_and_a_duplicate_merge_the_same() {
    let dir = TempDir::new("shards-kill");
    dir.write("t.toml", &deterministic_gauntlet(8, 5));
    harness(dir.path(), &["run", "t.toml", "--no-tui", "--out", "full"]).assert_success();
    shard(&dir, "0/2").assert_success();
    let folder = dir.join("out/shard-1-of-2");
    let journal = folder.join("games.jsonl");
    // Killed after its third game; should the shard have finished before the kill landed (a
    // busy machine), its folder is cleared and it is tried again.
    let mut before = 16;
    for _ in 0..5 {
        let _ = std::fs::remove_dir_all(&folder);
        let mut child = spawn_harness(
            dir.path(),
            &["run", "t.toml", "--no-tui", "--shard", "1/2"],
            false,
        );
        wait_for_games(&journal, 3);
        child.kill().expect("SIGKILL");
        child.wait().expect("reaped");
        before = harness_core::record::journal::read_journal(&journal)
            .unwrap()
            .len();
        if before < 16 {
            break;
        }
    }
    assert!(before < 16, "the shard finished before every kill");
    shard(&dir, "1/2").assert_resumed(before, 16);
    let merge = harness(
        dir.path(),
        &[
            "merge",
            "out/shard-0-of-2",
            "out/shard-1-of-2",
            "out/shard-1-of-2",
            "--out",
            "merged",
        ],
    );
    merge.assert_success();
    assert!(
        merge.stdout.contains("(16 found twice and kept once)"),
        "{merge}"
    );
    assert_in_game_order(&dir.join("merged"), 32);
    assert_eq!(
        untimed(&harness(dir.path(), &["stats", "full"]).stdout),
        untimed(&harness(dir.path(), &["stats", "merged"]).stdout)
    );
}

/// The output of `harness stats` less what docs/guide/cluster.md allows to differ between two runs of the
/// same games, the Engines block's wall-time columns (ms/move, nodes/s, s/game): each row of
/// that block keeps its engine, games, moves and depth; every other line stays as printed.
fn untimed(stats: &str) -> String {
    let mut in_engines = false;
    let mut kept = String::new();
    for line in stats.lines() {
        if line.starts_with("Engines (") {
            in_engines = true;
        } else if line.trim().is_empty() {
            in_engines = false;
        } else if in_engines {
            let untimed: Vec<&str> = line.split_whitespace().take(4).collect();
            kept.push_str(&untimed.join(" "));
            kept.push('\n');
            continue;
        }
        kept.push_str(line);
        kept.push('\n');
    }
    assert!(kept.contains("Engines ("), "no Engines block:\n{stats}");
    kept
}

#[test]
fn merge_refuses_conflicts_foreign_shards_and_bad_folders() {
    let dir = TempDir::new("shards-refuse");
    dir.write("t.toml", &deterministic_gauntlet(2, 3));
    shard(&dir, "0/2").assert_success();
    shard(&dir, "1/2").assert_success();
    // A conflict: the same game with another result.
    let copy = dir.join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    let shard0 = dir.join("out/shard-0-of-2");
    std::fs::copy(shard0.join("tournament.json"), copy.join("tournament.json")).unwrap();
    let journal = std::fs::read_to_string(shard0.join("games.jsonl")).unwrap();
    let first = journal.lines().next().unwrap();
    let mut record: serde_json::Value = serde_json::from_str(first).unwrap();
    let game = record["game"].as_u64().unwrap() + 1;
    record["score"] = serde_json::json!(-(record["score"].as_i64().unwrap()) - 2);
    std::fs::write(copy.join("games.jsonl"), format!("{record}\n")).unwrap();
    harness(
        dir.path(),
        &["merge", "out/shard-0-of-2", "copy", "--out", "m1"],
    )
    .assert_error()
    .assert_stderr_has(&[
        &format!("game {game} is recorded differently"),
        "shard-0-of-2",
        "copy",
    ]);
    assert!(!dir.join("m1").exists(), "nothing written");
    // A shard of another tournament (other engine options).
    std::fs::write(
        dir.join("other.toml"),
        deterministic_gauntlet(2, 3).replace("Depth = 3", "Depth = 4"),
    )
    .unwrap();
    harness(
        dir.path(),
        &[
            "run",
            "other.toml",
            "--no-tui",
            "--shard",
            "0/2",
            "--out",
            "other",
        ],
    )
    .assert_success();
    harness(
        dir.path(),
        &[
            "merge",
            "out/shard-1-of-2",
            "other/shard-0-of-2",
            "--out",
            "m2",
        ],
    )
    .assert_error()
    .assert_stderr_has(&[
        "out/shard-1-of-2",
        "other/shard-0-of-2",
        "different tournaments",
    ]);
    // A missing folder, an empty one, an output folder that is a shard.
    harness(dir.path(), &["merge", "nowhere"])
        .assert_error()
        .assert_stderr_has(&["nowhere: no such folder"]);
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    harness(dir.path(), &["merge", "empty"])
        .assert_error()
        .assert_stderr_has(&["empty: neither an output folder"]);
    let shard1 = std::fs::read(dir.join("out/shard-1-of-2/games.jsonl")).unwrap();
    harness(
        dir.path(),
        &["merge", "out/shard-0-of-2", "--out", "out/shard-1-of-2"],
    )
    .assert_error()
    .assert_stderr_has(&["is shard 1/2 of a run"]);
    assert_eq!(
        std::fs::read(dir.join("out/shard-1-of-2/games.jsonl")).unwrap(),
        shard1
    );
    // Half the shards: the missing games are listed and the exit code says "not over".
    let half = harness(dir.path(), &["merge", "out/shard-0-of-2", "--out", "half"]);
    assert_eq!(half.status.code(), Some(3), "{half}");
    assert!(half.stdout.contains("missing: 4 games"), "{half}");
}

/// A first merge writes into the folder of shard folders; a second one (after the last shard
/// played) must still see the shards and replace the first, writing nothing next to the folder.
#[test]
fn a_second_merge_of_a_folder_replaces_the_first() {
    let dir = TempDir::new("remerge");
    dir.write("t.toml", &match_file(6));
    play_shards(&dir, 0..2, 3);
    let first = harness(dir.path(), &["merge", "out/arena"]);
    assert_eq!(first.status.code(), Some(3), "games missing: {first}");
    assert!(first.stdout.contains("8 games of 12 planned"), "{first}");
    play_shards(&dir, 2..3, 3);
    let second = harness(dir.path(), &["merge", "out/arena"]);
    second.assert_success();
    assert!(
        second
            .stdout
            .contains("merged 3 folders into out/arena/games.jsonl: 12 games of 12"),
        "{second}"
    );
    assert!(!second.stdout.contains("missing:"), "{second}");
    assert_eq!(
        entries(&dir.join("out")),
        ["arena"],
        "nothing beside the folder"
    );
    assert_eq!(read_games(&dir.join("out/arena")).len(), 12);
    // The merged journal is in game order.
    let order: Vec<usize> = read_games(&dir.join("out/arena"))
        .iter()
        .map(|g| g.game)
        .collect();
    assert_eq!(order, (0..12).collect::<Vec<_>>());
}

/// The merge's Engines table (printed, and in report.json) counts the searched moves and
/// depths that `harness stats` finds in the merged journal.
#[test]
fn the_merge_reports_searched_moves_and_depths() {
    let dir = TempDir::new("merge-usage");
    dir.write("t.toml", &match_file(2));
    play_shards(&dir, 0..2, 2);
    let merge = harness(dir.path(), &["merge", "out/arena"]);
    merge.assert_success();
    let stats = harness(dir.path(), &["stats", "out/arena"]);
    stats.assert_success();
    // Each engine's row, found by its name: games, moves and depth, the columns that do not
    // depend on timing.
    let usage = |text: &str| -> BTreeMap<String, Vec<String>> {
        let start = text.find("\nEngines (").expect("an Engines table");
        let mut lines = text[start + 1..].lines().skip(1);
        let header: Vec<&str> = lines.next().expect("a header").split_whitespace().collect();
        assert_eq!(header[..4], ["engine", "games", "moves", "depth"], "{text}");
        lines
            .take_while(|l| !l.trim().is_empty())
            .map(|l| {
                let cells: Vec<String> = l.split_whitespace().map(str::to_string).collect();
                (cells[0].clone(), cells[1..4].to_vec())
            })
            .collect()
    };
    let merged = usage(&merge.stdout);
    assert_eq!(
        merged.keys().collect::<Vec<_>>(),
        ["greedy", "mm"],
        "{merge}"
    );
    assert_eq!(merged, usage(&stats.stdout), "{merge}\n{stats}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/arena/report.json")).unwrap())
            .unwrap();
    for e in report["engines"].as_array().expect("engines") {
        assert!(e["moves"].as_u64().unwrap() > 0, "{e}");
        assert!(e["mean_depth"].as_f64().is_some(), "{e}");
    }
}
