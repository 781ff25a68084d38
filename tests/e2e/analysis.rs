//! Exact-solver analysis (`harness analyze`) and adjudication by exact solve
//! (`[adjudication]`): real games of real plugins, solved by the real strong engine.
//!
//! The analysis is checked by its identity (the exact value at the first analysed position
//! minus the final score is Black's losses minus White's, move by move), by resuming a killed
//! analysis into the same file an uninterrupted one writes, and by its bad inputs; the
//! adjudication by replaying every record, by a sharded run that must equal the whole run, and
//! by the analysis of its own games (an adjudicated game's line is perfect play).

use crate::support::{
    artifacts, check_ggf, check_record, engine, harness, read_games, s, spawn_harness, TempDir,
    TournamentFile,
};
use harness_core::record::analysis::{read_analysis, AnalysedGame};
use harness_core::record::{GameRecord, Termination};
use std::path::Path;
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
