//! Exact-solver analysis (`harness analyze`) and adjudication by exact solve
//! (`[adjudication]`): real games of real plugins, solved by the real strong engine.
//!
//! The analysis is checked by its identity (the exact value at the first analysed position
//! minus the final score is Black's losses minus White's, move by move), by resuming a killed
//! analysis into the same file an uninterrupted one writes, and by its bad inputs; the
//! adjudication by replaying every record, by a sharded run that must equal the whole run, and
//! by the analysis of its own games (an adjudicated game's line is perfect play).
//!
//! What the analysis says is what happened: the adjudication solver's moves are no engine's, a
//! rewrite of the reports keeps the analysis, `analyze` marks no stopped or live run finished,
//! `--restart` sets the analysis aside with its games, a game it could not score has no value,
//! and a merged journal older than its shards is refused.

use crate::support::{
    artifacts, check_ggf, check_record, engine, engine_flag, harness, harness_line, match_args,
    match_of, read_games, report_json, run, s, spawn_harness, wait_for_games, TempDir,
    TournamentFile,
};
use harness_core::record::analysis::{read_analysis, AnalysedGame};
use harness_core::record::{GameRecord, Termination};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A match of two deterministic engines at fixed depths, which err often: `pairs` pairs into
/// `out/m`, plus `extra` tables.
fn weak_match(pairs: usize, extra: &str) -> String {
    let a = artifacts();
    TournamentFile::new("match", pairs, "depth = 2")
        .out(Some("out/m"))
        .engine(engine("mm", s(&a.minimax), "Depth = 2"))
        .engine(engine("greedy", s(&a.greedy), ""))
        .table(extra)
        .text()
}

/// The identity of every analysed game, move by move: a move's loss is the drop of its
/// mover's exact value (the next move's value, or the line's final value), never negative; so
/// the value at the start minus the final value is Black's losses minus White's. The decisive
/// error is the first move that worsened its mover's result.
fn check_identity(g: &AnalysedGame) {
    let ctx = format!("game {}", g.game);
    assert!(g.error.is_none(), "{ctx}: {:?}", g.error);
    let (value, final_value) = (g.value.expect("a value"), g.final_value.expect("a value"));
    assert_eq!(value, g.moves[0].value, "{ctx}: the start value");
    let outcome = |v: i32| v.signum();
    let mut decisive = None;
    for (i, m) in g.moves.iter().enumerate() {
        let after = g.moves.get(i + 1).map_or(final_value, |n| n.value);
        let (drop, before_result, after_result) = match m.color.as_str() {
            "black" => (m.value - after, outcome(m.value), outcome(after)),
            "white" => (after - m.value, -outcome(m.value), -outcome(after)),
            c => panic!("{ctx}: colour {c}"),
        };
        assert_eq!(i64::from(m.loss), i64::from(drop), "{ctx}, move {i}: {m:?}");
        if m.square == "pass" {
            assert_eq!(m.loss, 0, "{ctx}: a pass loses nothing");
        }
        if decisive.is_none() && after_result < before_result {
            decisive = Some(i);
        }
    }
    assert_eq!(g.decisive, decisive, "{ctx}: the decisive error");
    let lost = |color: &str| -> i32 {
        g.moves
            .iter()
            .filter(|m| m.color == color)
            .map(|m| m.loss as i32)
            .sum()
    };
    assert_eq!(
        value - final_value,
        lost("black") - lost("white"),
        "{ctx}: value - final value = black's losses - white's"
    );
}

/// The analysis of a run of real games: the identity on every game (whose final value is its
/// journal score), the empties of each move, a table in `harness stats` and an `analysis`
/// section in report.json.
#[test]
fn the_analysis_of_real_games_keeps_the_identity() {
    let dir = TempDir::new("analyze-identity");
    dir.write("t.toml", &weak_match(5, ""));
    harness(dir.path(), &["run", "t.toml", "--no-tui"]).assert_success();
    let out = dir.join("out/m");
    let run = harness(dir.path(), &["analyze", "out/m", "--from-empties", "14"]);
    run.assert_success();
    assert!(
        run.stdout
            .contains("10 games: 10 analysed, 0 with an error"),
        "{run}"
    );
    let mut records = read_games(&out);
    records.sort_by_key(|r| r.game);
    let games = read_analysis(&out).unwrap();
    assert_eq!(games.len(), records.len());
    let mut losses = 0;
    for (g, r) in games.iter().zip(&records) {
        assert_eq!(g.game, r.game);
        check_identity(g);
        assert_eq!(
            g.final_value,
            Some(r.score),
            "game {}: a game played out",
            g.game
        );
        assert!(g.moves[0].empties <= 14, "game {}", g.game);
        for pair in g.moves.windows(2) {
            let step = u32::from(pair[0].square != "pass");
            assert_eq!(pair[1].empties + step, pair[0].empties, "game {}", g.game);
        }
        losses += g.moves.iter().map(|m| m.loss).sum::<u32>();
    }
    assert!(losses > 0, "depth-2 engines lose discs from 14 empties");
    let stats = harness(dir.path(), &["stats", "out/m"]);
    stats.assert_success();
    assert!(
        stats.stdout.contains("Analysis (exact, from 14 empties"),
        "{stats}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let engines = report["analysis"]["engines"].as_array().expect("analysis");
    assert_eq!(engines.len(), 2, "{report}");
}

/// A killed analysis resumes from its cache and writes what an uninterrupted one writes; a
/// third run solves nothing.
#[test]
fn a_killed_analysis_resumes_from_its_cache() {
    let dir = TempDir::new("analyze-resume");
    dir.write("t.toml", &weak_match(5, ""));
    harness(dir.path(), &["run", "t.toml", "--no-tui"]).assert_success();
    // An uninterrupted analysis of a copy of the journal, for comparison.
    std::fs::create_dir_all(dir.join("copy")).unwrap();
    std::fs::copy(dir.join("out/m/games.jsonl"), dir.join("copy/games.jsonl")).unwrap();
    let args = ["--from-empties", "18", "--jobs", "1"];
    let whole = harness(dir.path(), &[&["analyze", "copy"][..], &args].concat());
    whole.assert_success();
    // Killed once a part of the positions is in the cache.
    let mut child = spawn_harness(
        dir.path(),
        &[&["analyze", "out/m"][..], &args].concat(),
        false,
    );
    let cache = dir.join("out/m/analysis-cache.jsonl");
    let started = Instant::now();
    while cached_lines(&cache) < 20 {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no solve cached"
        );
        assert!(child.try_wait().unwrap().is_none(), "ended before the kill");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        !dir.join("out/m/analysis.jsonl").exists(),
        "killed before the end"
    );
    let held = cached_lines(&cache) - 1;
    let resumed = harness(dir.path(), &[&["analyze", "out/m"][..], &args].concat());
    resumed.assert_success();
    let said = resumed
        .stdout
        .split_once("positions from 18 empties (")
        .and_then(|(_, rest)| rest.split_once(" in the cache"))
        .map(|(n, _)| n.parse::<usize>().unwrap())
        .unwrap_or_else(|| panic!("{resumed}"));
    assert!(said + 1 >= held, "{said} cached of {held} lines: {resumed}");
    assert_eq!(
        std::fs::read_to_string(dir.join("out/m/analysis.jsonl")).unwrap(),
        std::fs::read_to_string(dir.join("copy/analysis.jsonl")).unwrap(),
        "the resumed analysis is the uninterrupted one"
    );
    let again = harness(dir.path(), &[&["analyze", "out/m"][..], &args].concat());
    again.assert_success();
    assert!(again.stdout.contains(", 0 to solve)"), "{again}");
    assert!(again.stdout.contains(" 0 solved, 0 failed, in"), "{again}");
}

/// Lines of the solve cache (its header included), 0 before it exists.
fn cached_lines(cache: &Path) -> usize {
    std::fs::read_to_string(cache).map_or(0, |t| t.lines().count())
}

/// Every bad input of `analyze` is an error (exit 2) that says what is wrong, and writes
/// nothing; a torn last journal line is left out and said.
#[test]
fn analyze_refuses_bad_input_and_overwrites_nothing() {
    let a = artifacts();
    let dir = TempDir::new("analyze-bad");
    // No journal, and an empty one.
    std::fs::create_dir_all(dir.join("empty")).unwrap();
    harness(dir.path(), &["analyze", "empty"])
        .assert_error()
        .assert_stderr_has(&["no journal"]);
    dir.write("empty/games.jsonl", "");
    harness(dir.path(), &["analyze", "empty"])
        .assert_error()
        .assert_stderr_has(&["holds no game"]);
    assert_eq!(
        std::fs::read_dir(dir.join("empty")).unwrap().count(),
        1,
        "nothing written"
    );
    dir.write("t.toml", &weak_match(2, ""));
    harness(dir.path(), &["run", "t.toml", "--no-tui"]).assert_success();
    // Empties out of range.
    for n in ["0", "31"] {
        harness(dir.path(), &["analyze", "out/m", "--from-empties", n])
            .assert_error()
            .assert_stderr_has(&["give 1 to 30"]);
    }
    // A solver that does not honour depth limits.
    let analyze_with = |solver: &str| {
        harness(
            dir.path(),
            &[
                "analyze",
                "out/m",
                "--from-empties",
                "10",
                "--engine",
                solver,
            ],
        )
    };
    analyze_with(s(&a.greedy))
        .assert_error()
        .assert_stderr_has(&["FFO #1", "does not solve exactly at a depth of the empties"]);
    assert!(!dir.join("out/m/analysis.jsonl").exists());
    // A good analysis, then the cache of another solver: a copy of the strong plugin with one
    // more byte (still loadable, another digest).
    harness(dir.path(), &["analyze", "out/m", "--from-empties", "10"]).assert_success();
    let analysis = std::fs::read(dir.join("out/m/analysis.jsonl")).unwrap();
    let mut other = std::fs::read(&a.strong).unwrap();
    other.push(0);
    std::fs::write(dir.join("libother.so"), other).unwrap();
    let other = s(&dir.join("libother.so")).to_string();
    analyze_with(&other)
        .assert_error()
        .assert_stderr_has(&["a cache of another solver", "nothing was written"]);
    assert_eq!(
        std::fs::read(dir.join("out/m/analysis.jsonl")).unwrap(),
        analysis
    );
    // A torn last journal line: left out, and said.
    let journal = dir.join("out/m/games.jsonl");
    let mut text = std::fs::read_to_string(&journal).unwrap();
    text.push_str("{\"game\": 9");
    std::fs::write(&journal, text).unwrap();
    let torn = harness(dir.path(), &["analyze", "out/m", "--from-empties", "10"]);
    torn.assert_success();
    assert!(torn.stdout.contains("its last line is torn"), "{torn}");
    assert!(torn.stdout.contains("4 games: 4 analysed"), "{torn}");
}

/// The adjudication table used below: games end by exact solve at 14 empties.
const ADJUDICATE_AT_14: &str = "[adjudication]\nexact-at-empties = 14\n";

/// Two shards of an adjudicated match, merged, hold the games of the whole run; every game
/// that reached 14 empties ended there, with the solver's perfect line (each record replays to
/// its score, `:s` in the GGF); and the analysis of those games finds no loss in that line.
#[test]
fn adjudication_in_a_sharded_run_is_the_whole_run() {
    let dir = TempDir::new("adjudicate");
    dir.write("t.toml", &weak_match(4, ADJUDICATE_AT_14));
    let whole = harness(
        dir.path(),
        &["run", "t.toml", "--no-tui", "--out", "out/whole"],
    );
    whole.assert_success();
    assert!(whole.stdout.contains("adjudicated"), "{whole}");
    for shard in ["0/2", "1/2"] {
        harness(dir.path(), &["run", "t.toml", "--no-tui", "--shard", shard]).assert_success();
    }
    harness(dir.path(), &["merge", "out/m"]).assert_success();
    let merged = read_games(&dir.join("out/m"));
    let mut whole = read_games(&dir.join("out/whole"));
    whole.sort_by_key(|r| r.game);
    assert_eq!(merged.len(), 8);
    check_ggf(&dir.join("out/m"), &merged);
    let key = |r: &GameRecord| {
        let moves: Vec<(String, Option<f64>)> =
            r.moves.iter().map(|m| (m.mv.clone(), m.score)).collect();
        (
            r.game,
            moves,
            r.score,
            r.termination,
            r.adjudication.clone(),
        )
    };
    let mut sorted = merged.clone();
    sorted.sort_by_key(|r| r.game);
    assert_eq!(sorted.len(), whole.len());
    for (m, w) in sorted.iter().zip(&whole) {
        assert_eq!(key(m), key(w), "the shards play the whole run's games");
    }
    let mut adjudicated = 0;
    for r in &merged {
        check_record(r);
        let a = r.adjudication.as_ref();
        if r.termination == Termination::Adjudicated {
            adjudicated += 1;
            assert!(a.unwrap().empties <= 14, "game {}: {a:?}", r.game);
        } else {
            assert!(a.is_none(), "game {}: {a:?}", r.game);
        }
    }
    assert!(adjudicated >= 6, "{adjudicated} of 8 adjudicated");
    // The analysis from 14 empties starts where the adjudication did: same value, no loss.
    harness(dir.path(), &["analyze", "out/m", "--from-empties", "14"]).assert_success();
    for g in read_analysis(&dir.join("out/m")).unwrap() {
        let r = merged.iter().find(|r| r.game == g.game).unwrap();
        check_identity(&g);
        if r.termination == Termination::Adjudicated {
            assert_eq!(g.value, Some(r.score), "game {}", g.game);
            assert!(g.moves.iter().all(|m| m.loss == 0), "game {}", g.game);
        }
    }
    let stats = harness(dir.path(), &["stats", "out/m"]);
    stats.assert_success();
}

/// A solver that cannot answer in time leaves each game to be played out; the record says why,
/// and the run goes on.
#[test]
fn a_failed_adjudication_is_played_out_and_recorded() {
    let dir = TempDir::new("adjudicate-fail");
    let table = "[adjudication]\nexact-at-empties = 30\nsolve-timeout = 0.2\n";
    dir.write("t.toml", &weak_match(1, table));
    let run = harness(dir.path(), &["run", "t.toml", "--no-tui"]);
    run.assert_success();
    assert!(
        run.stdout.contains("adjudication failed, played out"),
        "{run}"
    );
    for r in read_games(&dir.join("out/m")) {
        check_record(&r);
        assert_eq!(r.termination, Termination::Normal, "game {}", r.game);
        let a = r.adjudication.expect("the attempt is recorded");
        assert_eq!((a.first_move, a.value), (None, None));
        assert!(a.failed.is_some_and(|why| !why.is_empty()));
    }
}

/// A solver that does not solve exactly is refused before the first game, with the tournament
/// file named; nothing is played.
#[test]
fn an_inexact_adjudication_solver_is_refused_before_any_game() {
    let a = artifacts();
    let dir = TempDir::new("adjudicate-inexact");
    let table = format!(
        "[adjudication]\nexact-at-empties = 12\nsolver = {}\n",
        crate::support::toml_string(s(&a.greedy))
    );
    dir.write("t.toml", &weak_match(1, &table));
    harness(dir.path(), &["run", "t.toml", "--no-tui"])
        .assert_error()
        .assert_stderr_has(&[
            "t.toml",
            "[adjudication] solver",
            "does not solve exactly at a depth of the empties",
        ]);
    assert!(!dir.join("out/m/games.jsonl").exists());
}

/// Moves an adjudication's exact solver played belong to no engine: analysed from 12 empties,
/// games adjudicated at 14 hold no engine move in the analysed part. The game's values stay;
/// the moves are flagged `solver`, left out of every engine's figures (the line under the
/// table says how many), and `replay` marks where the solver took over.
#[test]
fn the_solvers_moves_are_not_credited_to_the_engines() {
    let dir = TempDir::new("solver-moves");
    let args = match_args("--time depth=2 --pairs 3 --adjudication 14 --out adj1");
    let out = run(dir.path(), &args);
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    let analyze = harness_line(dir.path(), "analyze adj1 --from-empties 12");
    assert_eq!(analyze.status.code(), Some(0), "{}", analyze.stderr);
    let records = read_games(&dir.join("adj1"));
    let analysis = read_analysis(&dir.join("adj1")).unwrap();
    let mut solver_moves = 0;
    for g in &analysis {
        let r = records.iter().find(|r| r.game == g.game).unwrap();
        let first = r.adjudication.as_ref().and_then(|a| a.first_move);
        let Some(first) = first else { continue };
        assert!(g.error.is_none(), "game {}: {:?}", g.game, g.error);
        assert!(g.value.is_some(), "the game's value stays");
        // Analysed moves are the record's last ones; from `first` on they are the solver's.
        let offset = r.moves.len() - g.moves.len();
        for (k, m) in g.moves.iter().enumerate() {
            assert_eq!(m.solver, offset + k >= first, "game {} move {k}", g.game);
            solver_moves += usize::from(m.solver && m.square != "pass");
        }
    }
    assert!(
        solver_moves > 0,
        "no game was adjudicated before 12 empties"
    );
    let report = report_json(&dir.join("adj1"));
    let a = &report["analysis"];
    assert_eq!(a["solver"]["moves"], solver_moves, "{a:#}");
    for e in a["engines"].as_array().unwrap() {
        let own: usize = analysis
            .iter()
            .flat_map(|g| {
                let color = if g.black == e["engine"] {
                    "black"
                } else {
                    "white"
                };
                g.moves.iter().filter(move |m| {
                    (g.black == e["engine"] || g.white == e["engine"])
                        && m.color == color
                        && !m.solver
                        && m.square != "pass"
                })
            })
            .count();
        assert_eq!(
            e["all"]["moves"], own,
            "{}: only its own moves",
            e["engine"]
        );
    }
    let md = std::fs::read_to_string(dir.join("adj1/report.md")).unwrap();
    assert!(
        md.contains(&format!(
            "{solver_moves} moves of the adjudication's exact solver are left out"
        )),
        "{md}"
    );
    let stats = harness_line(dir.path(), "stats adj1");
    assert!(stats.stdout.contains("left out of the engines' figures"));
    let adjudicated = records
        .iter()
        .find(|r| {
            r.adjudication
                .as_ref()
                .is_some_and(|a| a.first_move.is_some())
        })
        .unwrap();
    let game = (adjudicated.game + 1).to_string();
    let replay = harness(dir.path(), &["replay", "adj1", &game]);
    let shown = replay.stdout;
    assert!(shown.contains("[solver] "), "{shown}");
    assert!(
        shown.contains("the exact solver played, not the engines"),
        "{shown}"
    );
}

/// A rewrite of the reports keeps the analysis: `run` on a finished, analysed folder rewrites
/// report.json with it, and report.md keeps "Where games were lost". The solve cache serves a
/// solver named by another path to the same file.
#[test]
fn a_rewrite_keeps_the_analysis() {
    let dir = TempDir::new("keep-analysis");
    let args = match_args("--time depth=2 --pairs 2 --out k");
    assert_eq!(run(dir.path(), &args).status.code(), Some(0));
    let analyze = harness_line(dir.path(), "analyze k --from-empties 10");
    assert_eq!(analyze.status.code(), Some(0), "{}", analyze.stderr);
    assert_eq!(run(dir.path(), &args).status.code(), Some(0));
    let report = report_json(&dir.join("k"));
    assert_eq!(report["analysis"]["games"], 4, "{:#}", report["analysis"]);
    assert_eq!(report["analysis"]["games_not_covered"], 0);
    let md = std::fs::read_to_string(dir.join("k/report.md")).unwrap();
    assert!(md.contains("Where games were lost"), "{md}");
    // The cache is keyed on the solver's file, not on how its path was written.
    let strong = artifacts().strong.clone();
    let roundabout = strong
        .parent()
        .unwrap()
        .join("..")
        .join(strong.parent().unwrap().file_name().unwrap())
        .join(strong.file_name().unwrap());
    let again = harness(
        dir.path(),
        &[
            "analyze",
            "k",
            "--from-empties",
            "10",
            "--engine",
            s(&roundabout),
        ],
    );
    assert_eq!(again.status.code(), Some(0), "{}", again.stderr);
    assert!(
        again.stdout.contains(" in the cache, 0 to solve)"),
        "{}",
        again.stdout
    );
}

/// `analyze` leaves a run's own word on its end: a run stopped by SIGINT stays stopped (not
/// "finished", its verdict `interrupted`), and a live run stays live.
#[test]
fn analyze_does_not_mark_a_stopped_or_live_run_finished() {
    let a = artifacts();
    let dir = TempDir::new("analyze-live");
    let args = match_of(
        engine_flag("h", &a.heuristic, ""),
        engine_flag("g", &a.greedy, ""),
        "--pairs 200 --time 0.03/move --sprt elo0=0,elo1=5 --out si",
    );
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut child = spawn_harness(dir.path(), &refs, false);
    wait_for_games(&dir.join("si/games.jsonl"), 6);
    // Live: the analysis rewrites the reports of a run that goes on.
    let analyze = harness_line(dir.path(), "analyze si --from-empties 6");
    assert_eq!(analyze.status.code(), Some(0), "{}", analyze.stderr);
    let live = report_json(&dir.join("si"));
    assert_eq!(live["finished"], false);
    assert_eq!(live["verdict"], Value::Null);
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    assert_eq!(child.wait().unwrap().code(), Some(3));
    let stopped = report_json(&dir.join("si"));
    assert_eq!(stopped["finished"], false);
    assert_eq!(stopped["verdict"]["outcome"], "interrupted");
    assert_eq!(stopped["verdict"]["exit_code"], 3);
    let analyze = harness_line(dir.path(), "analyze si --from-empties 6");
    assert_eq!(analyze.status.code(), Some(0));
    let after = report_json(&dir.join("si"));
    assert_eq!(after["finished"], false);
    assert_eq!(after["verdict"], stopped["verdict"]);
    let md = std::fs::read_to_string(dir.join("si/report.md")).unwrap();
    assert!(
        md.starts_with("## Othello tournament report\n\n**INTERRUPTED**"),
        "{md}"
    );
}

/// `--restart` sets the analysis aside with the games it describes: no stale marks on new
/// games, no engine of the old tournament in the new tables.
#[test]
fn restart_sets_the_analysis_aside() {
    let dir = TempDir::new("restart-analysis");
    let old = match_args("--time depth=2 --pairs 1 --out r");
    assert_eq!(run(dir.path(), &old).status.code(), Some(0));
    let analyze = harness_line(dir.path(), "analyze r --from-empties 8");
    assert_eq!(analyze.status.code(), Some(0));
    assert!(dir.join("r/analysis.jsonl").exists());
    let a = artifacts();
    let new = match_of(
        engine_flag("g", &a.greedy, ""),
        engine_flag("m", &a.minimax, ",Depth=3"),
        "--time depth=2 --pairs 1 --out r --restart",
    );
    assert_eq!(run(dir.path(), &new).status.code(), Some(0));
    assert!(!dir.join("r/analysis.jsonl").exists());
    assert!(!dir.join("r/analysis-cache.jsonl").exists());
    let aside: Vec<_> = std::fs::read_dir(dir.join("r"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("discarded-"))
        .collect();
    assert_eq!(aside.len(), 1);
    assert!(aside[0].path().join("analysis.jsonl").exists());
    assert!(aside[0].path().join("analysis-cache.jsonl").exists());
    let stats = harness_line(dir.path(), "stats r").stdout;
    assert!(!stats.contains("Analysis"), "{stats}");
    assert!(!stats.contains("\nh "), "{stats}");
}

/// A game the analysis could not score has no value (null), not 0, which reads as a draw.
#[test]
fn a_game_not_analysed_has_no_value() {
    let a = artifacts();
    let dir = TempDir::new("null-value");
    let args = match_of(
        engine_flag("h", &a.heuristic, ""),
        engine_flag("f", &a.faulty, ",Fault=segfault,StrikeAt=3"),
        "--pairs 1 --time depth=2 --out nv",
    );
    assert_eq!(run(dir.path(), &args).status.code(), Some(0));
    let analyze = harness_line(dir.path(), "analyze nv --from-empties 10");
    assert_eq!(analyze.status.code(), Some(0), "{}", analyze.stderr);
    let said = analyze.stdout;
    assert!(
        said.contains("2 games: 0 analysed, 2 with an error"),
        "{said}"
    );
    let lines = std::fs::read_to_string(dir.join("nv/analysis.jsonl")).unwrap();
    for line in lines.lines() {
        let g: Value = serde_json::from_str(line).unwrap();
        assert!(g["error"].is_string(), "{g}");
        assert_eq!(g["value"], Value::Null, "{g}");
        assert_eq!(g["final_value"], Value::Null, "{g}");
    }
}

/// `analyze` of a folder whose merged journal is older than its shards refuses, saying so,
/// where it analysed the merged games alone; after a new merge it analyses them all.
#[test]
fn analyze_refuses_a_stale_merge() {
    let dir = TempDir::new("stale-merge");
    let shard = |i: &str| match_args(&format!("--time depth=2 --pairs 4 --out sh --shard {i}"));
    assert_eq!(run(dir.path(), &shard("0/2")).status.code(), Some(0));
    // Half the games are in: the merge says it is incomplete (exit 3) and writes its journal.
    assert_eq!(harness_line(dir.path(), "merge sh").status.code(), Some(3));
    assert_eq!(read_games(&dir.join("sh")).len(), 4);
    assert_eq!(run(dir.path(), &shard("1/2")).status.code(), Some(0));
    let stale = harness_line(dir.path(), "analyze sh --from-empties 6");
    stale.assert_error().assert_stderr_has(&["its merged journal holds 4 games, but its shard folders hold 4 more: run `harness merge sh` first"]);
    assert!(!dir.join("sh/analysis.jsonl").exists());
    assert_eq!(harness_line(dir.path(), "merge sh").status.code(), Some(0));
    let fresh = harness_line(dir.path(), "analyze sh --from-empties 6");
    assert_eq!(fresh.status.code(), Some(0), "{}", fresh.stderr);
    assert_eq!(read_analysis(&dir.join("sh")).unwrap().len(), 8);
}
