//! One tournament over several machines, as a cluster runs it: a stop file that starts no new
//! pair, the watcher (`merge --watch`) that follows the shards' journals, decides their
//! sequential test and stops every shard, and SIGTERM (what a batch system sends) that stops a
//! run without false forfeits. The merge of shard folders is the `merge` module's.

use crate::support::{
    artifacts, deterministic_gauntlet, engine, harness, read_games, s, spawn_harness,
    start_timed_match, TempDir, TournamentFile,
};
use std::process::Command;

#[test]
fn a_stop_file_starts_no_new_pair() {
    let dir = TempDir::new("stop-file");
    dir.write("t.toml", &deterministic_gauntlet(4, 2));
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
