//! Engines that crash or hang cost their games, not the run: every game is still recorded.

use crate::support::{
    artifacts, check_ggf, check_normal_record, check_record, check_schedule, engine, engine_moves,
    harness, read_games, s, workers_of, Running, TempDir, TournamentFile,
};
use harness_core::record::{GameRecord, Termination};
use othello_board::{Color, Position};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The colour `name` played in `r`.
fn color_of(r: &GameRecord, name: &str) -> Color {
    if r.black == name {
        Color::Black
    } else {
        assert_eq!(r.white, name, "game {}", r.game);
        Color::White
    }
}

/// Forfeits of `name` in `records`: each by `name`'s colour, with `name` to move in the position
/// where it happened.
fn assert_forfeits_by(records: &[GameRecord], name: &str, termination: Termination) {
    for r in records {
        let pos = check_record(r);
        let color = color_of(r, name);
        assert_eq!(r.termination, termination, "game {}: {}", r.game, r.reason);
        assert_eq!(r.forfeit_by, Some(color), "game {}", r.game);
        assert_eq!(
            pos.side_to_move, color,
            "game {}: forfeit when not to move",
            r.game
        );
        let expected = if color == Color::Black { -64 } else { 64 };
        assert_eq!(r.score, expected, "game {}", r.game);
        assert!(
            r.reason.contains(name),
            "game {}: reason `{}`",
            r.game,
            r.reason
        );
    }
}

#[test]
fn crashing_engine_forfeits_each_game_and_the_run_completes() {
    let a = artifacts();
    let dir = TempDir::new("crasher");
    let toml = TournamentFile::new("match", 2, "depth = 2")
        .engine(engine("crasher", s(&a.crasher), "CrashAt = 3"))
        .engine(engine("greedy", s(&a.greedy), ""))
        .text();
    dir.write("c.toml", &toml);
    let run = harness(dir.path(), &["run", "c.toml"]);
    run.assert_success().assert_no_workers_left();
    let records = read_games(&dir.join("out"));
    assert_eq!(records.len(), 4, "every game is recorded");
    check_schedule(&records, &[("crasher", "greedy")], 2);
    assert_forfeits_by(&records, "crasher", Termination::Crash);
    for r in &records {
        assert!(
            r.reason.contains("SIGSEGV"),
            "game {}: reason `{}`",
            r.game,
            r.reason
        );
        // It dies in its third search of every game, also in games played by a restarted
        // worker (which must get the option again).
        let played = engine_moves(r, color_of(r, "crasher")).len();
        assert_eq!(played, 2, "game {}: moves before the crash", r.game);
    }
    check_ggf(&dir.join("out"), &records);
    assert!(run.stdout.contains("crasher: 4 x crash"), "{run}");
}

/// `fail-on` on an engine: its crashes fail a run that has no sequential test (exit code 1,
/// a FAIL line), every game is still played and recorded; the same forfeits under
/// `fail-on = "crash"` of another engine, or of nobody, leave the exit code 0.
#[test]
fn fail_on_crash_fails_the_run_after_every_game_is_recorded() {
    let a = artifacts();
    let dir = TempDir::new("fail-on");
    let gauntlet = |rule_for_crasher: &str, rule_for_greedy: &str| {
        TournamentFile::new("gauntlet", 1, "depth = 1")
            .engine(engine("greedy", s(&a.greedy), "") + rule_for_greedy)
            .engine(engine("crasher", s(&a.crasher), "CrashAt = 2") + rule_for_crasher)
            .engine(engine("minimax", s(&a.minimax), "Depth = 1"))
            .text()
    };
    dir.write("fail.toml", &gauntlet("fail-on = \"crash\"\n", ""));
    let run = harness(dir.path(), &["run", "fail.toml", "--out", "fail"]);
    assert_eq!(run.status.code(), Some(1), "{run}");
    assert!(
        run.stdout.contains("FAIL: crasher forfeited 2 game(s)"),
        "{run}"
    );
    run.assert_no_workers_left();
    let records = read_games(&dir.join("fail"));
    assert_eq!(records.len(), 4, "every game is played");
    check_schedule(&records, &[("greedy", "crasher"), ("greedy", "minimax")], 1);

    // The rule belongs to the engine it is written under: on greedy, which never forfeits,
    // the crasher's forfeits are ordinary lost games.
    dir.write("pass.toml", &gauntlet("", "fail-on = \"forfeit\"\n"));
    let run = harness(dir.path(), &["run", "pass.toml", "--out", "pass"]);
    run.assert_success();
    assert!(!run.stdout.contains("FAIL"), "{run}");
}

#[test]
fn hanging_engine_loses_on_time_and_the_run_goes_on() {
    let a = artifacts();
    let dir = TempDir::new("hanger");
    let toml = TournamentFile::new(
        "match",
        2,
        r#"move-time = 0.1
margin = 0.2"#,
    )
    .engine(engine("hanger", s(&a.hanger), "HangAt = 2"))
    .engine(engine("greedy", s(&a.greedy), ""))
    .text();
    dir.write("h.toml", &toml);
    let run = harness(dir.path(), &["run", "h.toml"]);
    run.assert_success().assert_no_workers_left();
    // Each game ends 0.3 s into the hanger's second search; allow for a slow machine.
    assert!(
        run.elapsed < Duration::from_secs(15),
        "4 games took {:?}",
        run.elapsed
    );
    let records = read_games(&dir.join("out"));
    assert_eq!(records.len(), 4);
    check_schedule(&records, &[("hanger", "greedy")], 2);
    assert_forfeits_by(&records, "hanger", Termination::TimeForfeit);
    for r in &records {
        assert_eq!(
            engine_moves(r, color_of(r, "hanger")).len(),
            1,
            "game {}",
            r.game
        );
        assert!(
            r.reason.contains("lost on time"),
            "game {}: {}",
            r.game,
            r.reason
        );
        // The last move of a hanging search is not in the record: the forfeit position is
        // where the hanger was to move.
        let at: Position = r.forfeit_position.as_deref().unwrap().parse().unwrap();
        assert_eq!(at.side_to_move, color_of(r, "hanger"));
    }
    check_ggf(&dir.join("out"), &records);
}

/// Under a depth limit there is no clock: a search that never answers is cut by the stall
/// timeout. One that hangs in its second search of each game forfeits each game; one that
/// hangs in its first never answers the pre-flight's move, and the run stops before its first
/// game, as soon as a game would have called it stalled.
#[test]
fn hanging_engine_under_a_depth_limit_stalls() {
    let a = artifacts();
    let dir = TempDir::new("staller");
    let toml = |hang_at: u32| {
        TournamentFile::new(
            "match",
            1,
            r#"depth = 3
stall-timeout = 0.5"#,
        )
        .engine(engine(
            "hanger",
            s(&a.hanger),
            &format!("HangAt = {hang_at}"),
        ))
        .engine(engine("minimax", s(&a.minimax), ""))
        .text()
    };
    dir.write("s.toml", &toml(2));
    let run = harness(dir.path(), &["run", "s.toml"]);
    run.assert_success().assert_no_workers_left();
    assert!(
        run.elapsed < Duration::from_secs(10),
        "took {:?}",
        run.elapsed
    );
    let records = read_games(&dir.join("out"));
    assert_eq!(records.len(), 2);
    assert_forfeits_by(&records, "hanger", Termination::Stalled);
    for r in &records {
        assert_eq!(
            engine_moves(r, color_of(r, "hanger")).len(),
            1,
            "game {}",
            r.game
        );
    }

    dir.write(
        "first.toml",
        &toml(1).replace("out = \"out\"", "out = \"first\""),
    );
    let stopped = harness(dir.path(), &["run", "first.toml"]);
    stopped
        .assert_error()
        .assert_no_workers_left()
        .assert_stderr_has(&[
            "engine `hanger` cannot start (at the pre-flight's move)",
            "stalled: no answer within 500 ms",
        ]);
    assert!(stopped.elapsed < Duration::from_secs(10), "{stopped}");
    assert!(!dir.join("first/games.jsonl").exists(), "{stopped}");
}

/// Engines that answer with an occupied square, a value that is no move or a pass they do not
/// need forfeit at their first move, each with the reason (their answer to the pre-flight's
/// move is a warning). One that fails every search with an error status cannot answer the
/// pre-flight's move: the run stops before its first game, with the engine's message.
#[test]
fn rule_breaking_engines_forfeit_with_the_reason() {
    let a = artifacts();
    let dir = TempDir::new("misbehaver");
    let cases = [
        ("occupied", 1, Termination::IllegalMove, "illegal move: d4"),
        (
            "out-of-range",
            2,
            Termination::IllegalMove,
            "illegal move: value 99",
        ),
        ("passing", 4, Termination::IllegalMove, "illegal move: PA"),
    ];
    let mut file = TournamentFile::new("gauntlet", 1, "nodes = 1000").engine(engine(
        "greedy",
        s(&a.greedy),
        "",
    ));
    for (name, mode, _, _) in &cases {
        file = file.engine(engine(name, s(&a.misbehaver), &format!("Mode = {mode}")));
    }
    let toml = file.text();
    dir.write("m.toml", &toml);
    // None of them ever made a move: the run measured nothing of them (exit code 2), its games
    // are all there.
    let run = harness(dir.path(), &["run", "m.toml"]);
    run.assert_error();
    for (name, ..) in &cases {
        let silent = format!("{name} never made a move in its 2 game(s)");
        assert!(run.stdout.contains(&silent), "{run}");
    }
    let records = read_games(&dir.join("out"));
    let pairings: Vec<(&str, &str)> = cases.iter().map(|c| ("greedy", c.0)).collect();
    check_schedule(&records, &pairings, 1);
    for (name, _, termination, reason) in cases {
        let games: Vec<GameRecord> = records
            .iter()
            .filter(|r| r.black == name || r.white == name)
            .cloned()
            .collect();
        assert_eq!(games.len(), 2, "{name}");
        assert_forfeits_by(&games, name, termination);
        for r in &games {
            assert!(r.reason.contains(reason), "{name}: reason `{}`", r.reason);
            assert!(engine_moves(r, color_of(r, name)).is_empty());
        }
    }
    check_ggf(&dir.join("out"), &records);

    let erroring = TournamentFile::new("match", 1, "nodes = 1000")
        .out(Some("erroring"))
        .engine(engine("greedy", s(&a.greedy), ""))
        .engine(engine("erroring", s(&a.misbehaver), "Mode = 3"))
        .text();
    dir.write("e.toml", &erroring);
    harness(dir.path(), &["run", "e.toml"])
        .assert_error()
        .assert_stderr_has(&[
            "engine `erroring` cannot start (at the pre-flight's move)",
            "Misbehaver failed search 1 on purpose",
        ]);
    assert!(!dir.join("erroring/games.jsonl").exists());
}

/// A coordinator killed mid-run (SIGKILL: no chance to clean up) leaves every finished game
/// complete in the journal, its workers notice and exit, and the partial journal can be read
/// by `harness stats`; running the tournament again resumes it to the same games as an
/// uninterrupted run.
#[test]
fn killed_run_keeps_its_finished_games_and_its_workers_exit() {
    let a = artifacts();
    let dir = TempDir::new("killed");
    dir.write("k.toml", &kill_test_tournament());
    // The run, killed however the test ends.
    let mut run = Running(
        Command::new(&a.harness)
            .args(["run", "k.toml"])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let child = &mut run.0;
    let journal = dir.join("out/games.jsonl");
    let started = Instant::now();
    // Whole lines only: a line being written when the journal is read is no finished game,
    // and the kill may tear it.
    let finished = || {
        std::fs::read_to_string(&journal)
            .map(|t| t.matches('\n').count())
            .unwrap_or(0)
    };
    while finished() < 3 {
        assert!(child.try_wait().unwrap().is_none(), "the run ended early");
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no games after 60 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let pid = child.id();
    assert!(
        !workers_of(pid).is_empty(),
        "workers are found while the run plays"
    );
    drop(run);

    let killed = Instant::now();
    while !workers_of(pid).is_empty() {
        assert!(
            killed.elapsed() < Duration::from_secs(10),
            "workers outlive their coordinator: {:#?}",
            workers_of(pid)
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    // The kill may tear the line being written, nothing before it.
    let records = harness_core::record::journal::read_journal(&journal).unwrap();
    assert!(
        records.len() >= 3 && records.len() < 100,
        "{} games",
        records.len()
    );
    for r in &records {
        check_normal_record(r);
    }
    let stats = harness(dir.path(), &["stats", "out"]);
    stats.assert_success();
    assert!(
        stats
            .stdout
            .contains(&format!("Results ({} games)", records.len())),
        "{stats}"
    );

    // Running it again resumes: the finished games stay as they are, the rest is played, and
    // the journal ends up holding exactly the games of an uninterrupted run.
    let resumed = harness(dir.path(), &["run", "k.toml"]);
    resumed.assert_success();
    assert!(resumed.stdout.contains("resuming:"), "{resumed}");
    let after = harness_core::record::journal::read_journal(&journal).unwrap();
    assert_eq!(after.len(), 100, "{resumed}");
    assert_eq!(
        &after[..records.len()],
        &records[..],
        "finished games were rewritten"
    );
    let ggf = std::fs::read_to_string(dir.join("out/games.ggf")).unwrap();
    assert_eq!(ggf.lines().count(), 100);

    harness(dir.path(), &["run", "k.toml", "--out", "fresh"]).assert_success();
    let fresh =
        harness_core::record::journal::read_journal(&dir.join("fresh/games.jsonl")).unwrap();
    assert_eq!(
        games_key(&after),
        games_key(&fresh),
        "a resumed run differs from an uninterrupted one"
    );
}

/// Killed with SIGKILL at several points of a real tournament (after 2, 25 and 60 finished
/// games), resumed each time: the final journal holds exactly the games of an uninterrupted
/// run, each once.
#[test]
fn killed_at_several_points_resumes_to_the_uninterrupted_games() {
    let a = artifacts();
    let dir = TempDir::new("killed-thrice");
    dir.write("k.toml", &kill_test_tournament());
    let journal = dir.join("out/games.jsonl");
    let finished = || {
        std::fs::read_to_string(&journal)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    for kill_at in [2, 25, 60] {
        let mut child = Command::new(&a.harness)
            .args(["run", "k.toml"])
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        while finished() < kill_at && child.try_wait().unwrap().is_none() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "stuck before {kill_at} games"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
    harness(dir.path(), &["run", "k.toml"]).assert_success();
    let resumed = harness_core::record::journal::read_journal(&journal).unwrap();
    let mut games: Vec<usize> = resumed.iter().map(|r| r.game).collect();
    games.sort_unstable();
    assert_eq!(
        games,
        (0..100).collect::<Vec<_>>(),
        "a game missing or recorded twice"
    );

    harness(dir.path(), &["run", "k.toml", "--out", "fresh"]).assert_success();
    let fresh =
        harness_core::record::journal::read_journal(&dir.join("fresh/games.jsonl")).unwrap();
    assert_eq!(
        games_key(&resumed),
        games_key(&fresh),
        "the resumed games differ from an uninterrupted run"
    );
}

/// The 50-pair deterministic match (heuristic vs minimax at depth 4) the kill tests interrupt.
fn kill_test_tournament() -> String {
    let a = artifacts();
    TournamentFile::new("match", 50, "depth = 4")
        .openings(r#"builtin = "xot-large""#)
        .engine(engine("heuristic", s(&a.heuristic), ""))
        .engine(engine("minimax", s(&a.minimax), ""))
        .text()
}

/// What must equal between a resumed and an uninterrupted run: each game's moves and score.
fn games_key(records: &[GameRecord]) -> Vec<(usize, Vec<String>, i32)> {
    let mut v: Vec<(usize, Vec<String>, i32)> = records
        .iter()
        .map(|r| {
            (
                r.game,
                r.moves.iter().map(|m| m.mv.clone()).collect(),
                r.score,
            )
        })
        .collect();
    v.sort();
    v
}
