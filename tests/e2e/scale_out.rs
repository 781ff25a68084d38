//! One tournament over several machines: `run --shard`, `--stop-file`, `merge` and
//! `merge --watch`, with deterministic engines (fixed depths), so a sharded run and an
//! unsharded one play the same games and their statistics are byte-identical (the engines'
//! wall-time columns aside).

use crate::support::{
    artifacts, check_ggf, check_record, engine, games_of, harness, read_games, s, spawn_harness,
    start_timed_match, wait_for_games, Output, TempDir, TournamentFile,
};
use std::path::Path;
use std::process::Command;

/// A gauntlet of deterministic engines on shuffled openings.
fn deterministic(pairs: usize, seed: u32) -> String {
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
    dir.write("t.toml", &deterministic(6, 11));
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
    dir.write("t.toml", &deterministic(8, 5));
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
    dir.write("t.toml", &deterministic(2, 3));
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
        deterministic(2, 3).replace("Depth = 3", "Depth = 4"),
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

#[test]
fn a_stop_file_starts_no_new_pair() {
    let dir = TempDir::new("stop-file");
    dir.write("t.toml", &deterministic(4, 2));
    dir.write("stop", "");
    let run = harness(
        dir.path(),
        &["run", "t.toml", "--no-tui", "--stop-file", "stop"],
    );
    assert_eq!(run.status.code(), Some(3), "{run}");
    assert!(
        run.stdout.contains("stopped by stop: 0 of 16 games played"),
        "{run}"
    );
    assert!(read_games(&dir.join("out")).is_empty());
    // Without it, the same folder plays everything.
    std::fs::remove_file(dir.join("stop")).unwrap();
    harness(
        dir.path(),
        &["run", "t.toml", "--no-tui", "--stop-file", "stop"],
    )
    .assert_success();
    assert_eq!(read_games(&dir.join("out")).len(), 16);
}

/// The distributed test: two shards of a lopsided match play while a watcher follows their
/// journals; it decides H0, writes decision.json (with the LLR `harness sprt` computes from the
/// same counts) and the stop file, runs its command; the shards stop and exit 3; the merge
/// keeps the watcher's decision as its exit code.
#[test]
fn the_watcher_decides_and_stops_every_shard() {
    let a = artifacts();
    let dir = TempDir::new("watch");
    let toml = TournamentFile::new("match", 300, "move-time = 10.0")
        .openings("builtin = \"xot-small\"\norder = \"shuffled\"\nseed = 4")
        .table("[sprt]\nelo0 = 0\nelo1 = 50\n")
        .engine(engine("candidate", s(&a.minimax), "Depth = 1"))
        .engine(engine("baseline", s(&a.minimax), "Depth = 4"))
        .text();
    dir.write("t.toml", &toml);
    let shards: Vec<_> = (0..2)
        .map(|i| {
            spawn_harness(
                dir.path(),
                &[
                    "run",
                    "t.toml",
                    "--no-tui",
                    "--shard",
                    &format!("{i}/2"),
                    "--stop-file",
                    "stop",
                ],
                false,
            )
        })
        .collect();
    let watching = [
        "merge",
        "out",
        "--watch",
        "--interval",
        "0.2",
        "--stop-file",
        "stop",
    ];
    let watch = harness(
        dir.path(),
        &[&watching[..], &["--on-decision", "touch decided.flag"]].concat(),
    );
    let codes: Vec<Option<i32>> = shards
        .into_iter()
        .map(|mut c| c.wait().expect("a shard ends").code())
        .collect();
    assert_eq!(watch.status.code(), Some(1), "H0: {watch}");
    assert!(
        dir.join("decided.flag").exists(),
        "the command ran: {watch}"
    );
    assert!(dir.join("stop").exists());
    assert_eq!(
        codes,
        vec![Some(3), Some(3)],
        "both shards stopped undecided"
    );
    let decision: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/decision.json")).unwrap())
            .unwrap();
    assert_eq!(decision["decision"], "accept_h0");
    let penta: Vec<String> = decision["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.to_string())
        .collect();
    let sprt = harness(
        dir.path(),
        &[
            "sprt",
            "--penta",
            &penta.join(","),
            "--elo0",
            "0",
            "--elo1",
            "50",
        ],
    );
    let llr = format!("LLR {:+.3}", decision["llr"].as_f64().unwrap());
    assert!(sprt.stdout.contains(&llr), "{llr} not in:\n{sprt}");
    // Far fewer than the 600 planned games were played.
    let merge = harness(dir.path(), &["merge", "out"]);
    assert_eq!(merge.status.code(), Some(1), "{merge}");
    assert!(read_games(&dir.join("out")).len() < 300);
    // A watcher started again (a requeued job) keeps the decision taken at the crossing: it
    // sees the shards (not the merged folder as one shard) and rewrites nothing.
    let recorded = std::fs::read(dir.join("out/decision.json")).unwrap();
    let again = harness(dir.path(), &watching);
    assert_eq!(again.status.code(), Some(1), "{again}");
    assert!(
        again.stdout.contains("already decided: H0 accepted"),
        "{again}"
    );
    assert_eq!(
        std::fs::read(dir.join("out/decision.json")).unwrap(),
        recorded
    );
}

/// SIGTERM (what Slurm sends every process of a job it requeues or cancels) stops a run
/// cleanly: the workers ignore it, the coordinator abandons the games in flight, so no game is
/// journaled as a crash; the run prints its tables, says it was interrupted and exits 3, and
/// report.json says it is not finished.
#[test]
fn sigterm_stops_a_run_without_false_forfeits() {
    let (dir, child) = start_timed_match("sigterm", 200, 4);
    // The harness and its workers, as a batch system does.
    let pid = child.id().to_string();
    let group: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let fields: Vec<&str> = stat.rsplit(')').next()?.split_whitespace().collect();
            (fields.get(1) == Some(&pid.as_str()) || e.file_name().to_str() == Some(&pid))
                .then(|| e.file_name().to_string_lossy().into_owned())
        })
        .collect();
    // The workers first: the coordinator stops (and reaps its workers) within milliseconds of
    // its own signal, and `kill` fails on a process that is gone.
    let mut group = group;
    group.sort_by_key(|p| *p == pid);
    let status = Command::new("kill")
        .arg("-TERM")
        .args(&group)
        .status()
        .unwrap();
    assert!(status.success(), "kill -TERM {group:?}");
    let games = crate::support::assert_stopped_by("SIGTERM", &dir, child);
    assert!(games.len() < 400);
}
