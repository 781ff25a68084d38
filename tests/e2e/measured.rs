//! Runs that measured nothing never pass: an engine that cannot start stops the run before the
//! first game (the pre-flight), a game whose engine could not be started is not a result (and
//! three such starts in a row stop the run), and a run in which an engine never made a move of
//! its own ends `unmeasured`, exit code 2, whatever the test decided.

use crate::support::{
    artifacts, engine_flag, match_of, read_games, report_json, run, s, spawn_harness,
    wait_for_games, TempDir,
};
use std::time::{Duration, Instant};

/// The README's gate with a baseline whose script does not exist, as a new user wrote it.
fn gate_with_a_missing_baseline(dir: &TempDir, extra: &str) -> Vec<String> {
    let missing = dir.join("missing.py");
    match_of(
        "name=new,plugin=heuristic".to_string(),
        format!(
            "name=old,plugin=external,Command=python3 {},Protocol=gtp",
            s(&missing)
        ),
        &format!(
            "--time depth=2 --pairs 40 --sprt elo0=0,elo1=100 --openings xot-large --out out/gate {extra}"
        ),
    )
}

/// A gate whose baseline cannot start exits 2 before any game, naming the engine, the cause
/// from the end of its stderr log and the log's path, and never says H1; `--dry-run` says the
/// same, and under `--exit-codes bisect` it is 125 (skip the commit), not 128.
#[test]
fn a_gate_whose_baseline_cannot_start_stops_before_any_game_and_never_says_h1() {
    let dir = TempDir::new("measured-gate");
    let out = run(dir.path(), &gate_with_a_missing_baseline(&dir, ""));
    out.assert_error().assert_stderr_has(&[
        "engine `old` cannot start",
        "can't open file",
        "missing.py",
        "out/gate/logs/old.stderr.log, ends with:",
    ]);
    assert!(!out.stdout.contains("H1"), "{out}");
    assert!(!dir.join("out/gate/games.jsonl").exists(), "{out}");
    assert!(!dir.join("out/gate/report.json").exists(), "{out}");
    // The log it names is there to read.
    let log = std::fs::read_to_string(dir.join("out/gate/logs/old.stderr.log")).unwrap();
    assert!(log.contains("can't open file"), "{log}");

    let dry = run(dir.path(), &gate_with_a_missing_baseline(&dir, "--dry-run"));
    dry.assert_error()
        .assert_stderr_has(&["engine `old` cannot start", "can't open file"]);

    let bisect = run(
        dir.path(),
        &gate_with_a_missing_baseline(&dir, "--exit-codes bisect"),
    );
    assert_eq!(bisect.status.code(), Some(125), "{bisect}");
    bisect.assert_stderr_has(&["engine `old` cannot start"]);
}

/// An engine that starts, answers the pre-flight (illegally: a warning) and then forfeits every
/// game before its first move measured nothing: with a test that accepts H1 on the forfeits,
/// and without a test, the run ends `unmeasured` with exit code 2 (125 under bisect), and
/// the terminal, `verdict.json`, `report.json` and `report.md` all say so.
#[test]
fn a_run_in_which_an_engine_never_moved_is_unmeasured_whatever_the_test_says() {
    let a = artifacts();
    let dir = TempDir::new("measured-never-moved");
    let args = |extra: &str| {
        match_of(
            engine_flag("new", &a.greedy, ""),
            engine_flag("old", &a.faulty, ",Fault=illegal,StrikeAt=1"),
            &format!("--time depth=1 --openings xot-large {extra}"),
        )
    };
    // 20 pairs: the forfeits alone take the test past H1's bound after about 12.
    let gate = run(
        dir.path(),
        &args("--sprt elo0=0,elo1=100 --pairs 20 --out out/gate"),
    );
    assert_eq!(gate.status.code(), Some(2), "{gate}");
    assert!(!gate.stdout.contains("H1 accepted: new"), "{gate}");
    assert!(
        gate.stdout
            .contains("no measurement: the test's H1 accepted was reached on forfeits alone"),
        "{gate}"
    );
    assert!(
        gate.stdout
            .contains("UNMEASURED: old never made a move in its"),
        "{gate}"
    );
    assert!(
        gate.stdout
            .contains("answered the pre-flight's move request with an illegal move"),
        "{gate}"
    );
    let games = read_games(&dir.join("out/gate"));
    assert!(!games.is_empty(), "{gate}");
    assert!(
        games.iter().all(|g| g.forfeited_by() == Some("old")),
        "{gate}"
    );
    let report = report_json(&dir.join("out/gate"));
    assert_eq!(report["verdict"]["outcome"], "unmeasured", "{report}");
    assert_eq!(report["verdict"]["exit_code"], 2, "{report}");
    let verdict = std::fs::read_to_string(dir.join("out/gate/verdict.json")).unwrap();
    assert!(verdict.contains("\"outcome\": \"unmeasured\""), "{verdict}");
    let md = std::fs::read_to_string(dir.join("out/gate/report.md")).unwrap();
    assert!(md.contains("**UNMEASURED**: old never made a move"), "{md}");
    assert!(
        md.contains("**No measurement**") && !md.contains("**H1 accepted**"),
        "{md}"
    );

    let plain = run(dir.path(), &args("--pairs 10 --out out/plain"));
    assert_eq!(plain.status.code(), Some(2), "{plain}");
    assert!(plain.stdout.contains("UNMEASURED"), "{plain}");

    // A fix of the engine that never moved is accepted on resume (its games are kept); a
    // change of the engine that played is not.
    let rerun = |new: &std::path::Path| {
        run(
            dir.path(),
            &match_of(
                engine_flag("new", new, ""),
                engine_flag("old", &a.faulty, ",Fault=none,StrikeAt=1"),
                "--time depth=1 --pairs 10 --openings xot-large --out out/plain",
            ),
        )
    };
    let mended = rerun(&a.greedy);
    assert!(
        mended.stdout.contains("resuming: 20 of 20 games"),
        "{mended}"
    );
    let other = rerun(&a.minimax);
    other
        .assert_error()
        .assert_stderr_has(&["a different tournament"]);

    let bisect = run(
        dir.path(),
        &args("--sprt elo0=0,elo1=100 --pairs 20 --out out/bisect --exit-codes bisect"),
    );
    assert_eq!(bisect.status.code(), Some(125), "{bisect}");
}

/// During a run, a game whose engine could not be started is not a result: the games in the
/// journal are played games only, and after three failed starts of one engine in a row the run
/// stops with exit code 2, "engine X cannot start", keeping its games; once the engine is
/// mended, running again resumes them.
#[test]
fn a_game_whose_engine_cannot_start_is_not_a_result_and_three_in_a_row_stop_the_run() {
    let a = artifacts();
    let dir = TempDir::new("measured-start-failures");
    // A copy of the faulty plugin that crashes in each game (a forfeit: its worker is gone, so
    // every game starts a new one) and is taken away once the run has games.
    let plugin = dir.join("libfaulty_copy.so");
    std::fs::copy(&a.faulty, &plugin).unwrap();
    let args = match_of(
        engine_flag("f", &plugin, ",Fault=segfault,StrikeAt=3"),
        engine_flag("greedy", &a.greedy, ""),
        "--time depth=1 --pairs 5000 --concurrency 1 --openings xot-large --out out/m",
    );
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let child = spawn_harness(dir.path(), &refs, true);
    wait_for_games(&dir.join("out/m/games.jsonl"), 2);
    std::fs::rename(&plugin, dir.join("away.so")).unwrap();
    let started = Instant::now();
    // A run that never gives up would play its 10,000 games of failed starts: killed after a
    // minute (and the test fails on its exit status).
    let pid = child.id().to_string();
    let ended = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let ended = ended.clone();
        std::thread::spawn(move || {
            while !ended.load(std::sync::atomic::Ordering::Relaxed) {
                if started.elapsed() > Duration::from_secs(60) {
                    // The harness is not reaped before `ended`: its pid is still its own.
                    let _ = std::process::Command::new("kill")
                        .args(["-KILL", &pid])
                        .status();
                    return;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    let out = child.wait_with_output().expect("the harness ends");
    ended.store(true, std::sync::atomic::Ordering::Relaxed);
    watchdog.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("engine `f` cannot start (3 times in a row)"),
        "{stderr}"
    );
    assert!(stderr.contains("finished games are kept"), "{stderr}");
    // Each failed start was said, and none of them is in the journal.
    assert!(
        stdout.contains("engine `f` could not be started for game"),
        "{stdout}"
    );
    let games = read_games(&dir.join("out/m"));
    assert!(games.len() >= 2 && games.len() < 10_000, "{}", games.len());
    for g in &games {
        assert!(
            g.reason.is_empty() || g.reason.contains("crashed"),
            "a start failure recorded as a result: game {}: {}",
            g.game + 1,
            g.reason
        );
    }
    // Mended, the run resumes the games it kept (and, its stop file there, plays no more).
    std::fs::rename(dir.join("away.so"), &plugin).unwrap();
    let stop = dir.write("stop", "");
    let again = run(
        dir.path(),
        &[args, vec!["--stop-file".into(), s(&stop).into()]].concat(),
    );
    assert_eq!(again.status.code(), Some(3), "{again}");
    let resumed = format!("resuming: {} of 10000 games", games.len());
    assert!(again.stdout.contains(&resumed), "{again}");
}
