//! Nothing misleading: what a run, its analysis and its reports say must be what happened. Each
//! test reproduces a result that was once wrong or misleading (the solver's moves counted as
//! the engines', a failed gate whose report said "H1 accepted", an analysis dropped or made
//! stale by a rewrite, a live run marked finished) and checks the files a user reads.

use crate::support::{
    artifacts, harness, read_games, s, spawn_harness, wait_for_games, Output, TempDir,
};
use harness_core::record::analysis::read_analysis;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// `--engine name=NAME,plugin=PATH[,rest]` for a plugin of the artifacts.
fn engine_flag(name: &str, plugin: &Path, rest: &str) -> String {
    format!("name={name},plugin={}{rest}", s(plugin))
}

/// `harness run` of a match between two `--engine` flags on the command line, then the
/// flags of `extra` (split at spaces).
fn match_of(first: String, second: String, extra: &str) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "run".into(),
        "--engine".into(),
        first,
        "--engine".into(),
        second,
        "--format".into(),
        "match".into(),
        "--no-tui".into(),
    ];
    args.extend(extra.split_whitespace().map(String::from));
    args
}

/// A heuristic-against-minimax match (the probe's `M0`), then `extra`.
fn match_args(extra: &str) -> Vec<String> {
    let a = artifacts();
    match_of(
        engine_flag("h", &a.heuristic, ""),
        engine_flag("m", &a.minimax, ",Depth=3"),
        extra,
    )
}

/// The harness with the arguments of `line` (split at spaces).
fn harness_line(dir: &Path, line: &str) -> Output {
    harness(dir, &line.split_whitespace().collect::<Vec<_>>())
}

fn run(dir: &Path, args: &[String]) -> Output {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    harness(dir, &refs)
}

/// `harness tune` of the `--engine` flag `engine` under 2,000 nodes a move with the `--tune`
/// flag `spec`, then `extra` (split at spaces).
fn tune_of(dir: &Path, engine: &str, spec: &str, extra: &str) -> Output {
    let mut args = vec![
        "tune",
        "--engine",
        engine,
        "--time",
        "nodes=2000",
        "--tune",
        spec,
        "--no-tui",
    ];
    args.extend(extra.split_whitespace());
    harness(dir, &args)
}

/// An error exit (2) whose message holds `fragment`.
fn assert_refused(out: &Output, fragment: &str) {
    assert_eq!(out.status.code(), Some(2), "{}", out.stdout);
    assert!(out.stderr.contains(fragment), "{}", out.stderr);
}

fn report_json(out: &Path) -> Value {
    let text = std::fs::read_to_string(out.join("report.json")).expect("report.json");
    serde_json::from_str(&text).expect("report.json is JSON")
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

/// A run that fails its gate says so in its reports: `verdict` in report.json with the exit
/// code, report.md opening with `**FAIL**: <the rule>` and the test's decision on the line
/// below, and no "running" anywhere in a finished run's report.
#[test]
fn a_failed_gate_reports_fail_not_h1() {
    let a = artifacts();
    let dir = TempDir::new("failed-gate");
    let args = match_of(
        engine_flag("h", &a.heuristic, ""),
        engine_flag("f", &a.faulty, ",Fault=segfault,StrikeAt=5,fail-on=crash"),
        "--pairs 50 --sprt elo0=0,elo1=50 --time depth=2 --out fo2",
    );
    let out = run(dir.path(), &args);
    assert_eq!(out.status.code(), Some(1), "{}", out.stdout);
    let report = report_json(&dir.join("fo2"));
    assert_eq!(report["finished"], true);
    assert_eq!(report["verdict"]["exit_code"], 1);
    assert_eq!(report["verdict"]["outcome"], "fail");
    let reasons = report["verdict"]["reasons"].as_array().unwrap();
    assert!(reasons[0].as_str().unwrap().starts_with("f forfeited "));
    let md = std::fs::read_to_string(dir.join("fo2/report.md")).unwrap();
    let lines: Vec<&str> = md.lines().filter(|l| !l.is_empty()).collect();
    assert!(lines[1].starts_with("**FAIL**: f forfeited "), "{md}");
    assert!(lines[2].starts_with("**H1 accepted**"), "{md}");
    assert!(!md.contains("running"), "{md}");
    let html = std::fs::read_to_string(dir.join("fo2/report.html")).unwrap();
    assert!(html.contains("<strong>FAIL</strong>: f forfeited "));
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

/// Seconds flags refuse infinite, huge, negative and not-a-number values with a message and
/// exit code 2 (they panicked, or were clamped silently).
#[test]
fn seconds_flags_refuse_absurd_values() {
    let dir = TempDir::new("seconds");
    let a = artifacts();
    let strong = s(&a.strong);
    let cases: Vec<Vec<&str>> = vec![
        vec!["analyze", ".", "--timeout", "inf"],
        vec!["analyze", ".", "--timeout", "1e300"],
        vec!["analyze", ".", "--timeout", "-1"],
        vec!["analyze", ".", "--timeout", "nan"],
        vec!["solve", "x.obf", "--engine", strong, "--timeout", "inf"],
        vec!["nboard", "--engine", strong, "--move-time", "inf"],
        vec!["merge", ".", "--watch", "--interval", "inf"],
        vec!["tune", "--aggregate", "--watch", "--interval", "inf"],
    ];
    for args in cases {
        let out = harness(dir.path(), &args);
        let err = out.stderr;
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("give a number of seconds above 0 and at most 1000000"),
            "{args:?}: {err}"
        );
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
    assert_refused(&stale, "its merged journal holds 4 games, but its shard folders hold 4 more: run `harness merge sh` first");
    assert!(!dir.join("sh/analysis.jsonl").exists());
    assert_eq!(harness_line(dir.path(), "merge sh").status.code(), Some(0));
    let fresh = harness_line(dir.path(), "analyze sh --from-empties 6");
    assert_eq!(fresh.status.code(), Some(0), "{}", fresh.stderr);
    assert_eq!(read_analysis(&dir.join("sh")).unwrap().len(), 8);
}

/// `--dry-run` checks the cores `affinity` needs, as the run does; and `--restart` checks all
/// that `--dry-run` does before it moves the earlier games, so a refused restart leaves them.
#[test]
fn dry_run_and_restart_check_the_cores_affinity_needs() {
    let a = artifacts();
    let dir = TempDir::new("affinity-dry-run");
    let pinned = |extra: &str| {
        match_of(
            engine_flag("a", &a.strong, ",Threads=64"),
            engine_flag("b", &a.greedy, ""),
            &format!("--time depth=1 --pairs 1 --concurrency 4 --affinity --out af {extra}"),
        )
    };
    let dry = run(dir.path(), &pinned("--dry-run"));
    assert_refused(&dry, "needs 4 games at once × 64 thread(s) = 256 cores");
    let plain = match_of(
        engine_flag("a", &a.greedy, ""),
        engine_flag("b", &a.greedy, ""),
        "--time depth=1 --pairs 1 --out af",
    );
    assert_eq!(run(dir.path(), &plain).status.code(), Some(0));
    let before = std::fs::read(dir.join("af/games.jsonl")).unwrap();
    let restart = run(dir.path(), &pinned("--restart"));
    assert_eq!(restart.status.code(), Some(2), "{}", restart.stdout);
    assert!(restart.stderr.contains("256 cores"), "{}", restart.stderr);
    assert_eq!(std::fs::read(dir.join("af/games.jsonl")).unwrap(), before);
    let names: Vec<String> = std::fs::read_dir(dir.join("af"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !names.iter().any(|n| n.starts_with("discarded-")),
        "{names:?}"
    );
}

/// Said once before the first game: more pairs than openings (deterministic engines then
/// replay the same games), an engine option `Depth` under a depth limit, and a tuned `Depth`
/// that the time control overrides.
#[test]
fn warnings_for_repeated_openings_and_an_overridden_depth() {
    let dir = TempDir::new("warnings");
    dir.write("two.txt", "f5\nf5d6\n");
    let out = run(
        dir.path(),
        &match_args("--time depth=2 --pairs 3 --openings two.txt --out w"),
    );
    assert_eq!(out.status.code(), Some(0), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("3 pairs per pairing from 2 openings: openings repeat"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains(
            "engine `m`: option `Depth = 3` is likely overridden by the time control `depth 2`"
        ),
        "{}",
        out.stderr
    );
    let quiet = run(
        dir.path(),
        &match_args("--time nodes=20000 --pairs 2 --out q"),
    );
    assert!(!quiet.stderr.contains("warning"), "{}", quiet.stderr);
    let mm = engine_flag("mm", &artifacts().minimax, "");
    let tune = harness(
        dir.path(),
        &[
            "tune", "--engine", &mm, "--time", "depth=2", "--tune",
            "mm,iterations=2,params.Depth.start=2,params.Depth.min=1,params.Depth.max=5,params.Depth.c-end=1.0,params.Depth.r-end=0.1",
            "--no-tui", "--out", "t",
        ],
    );
    assert_eq!(tune.status.code(), Some(0), "{}", tune.stderr);
    assert!(
        tune.stderr.contains(
            "engine `mm`: the tuned option `Depth` is overridden by the time control `depth 2`"
        ),
        "{}",
        tune.stderr
    );
}

/// `run` refuses a file with a `[tune]` table (it played one pair into the tune's folder,
/// which `tune` then refused), and plays nothing.
#[test]
fn run_refuses_a_tune_file() {
    let a = artifacts();
    let dir = TempDir::new("run-tune-file");
    dir.write(
        "t.toml",
        &format!(
            "[tournament]\nformat = \"match\"\nout = \"out\"\n[time]\ndepth = 2\n[openings]\nbuiltin = \"xot-small\"\n\
             [[engine]]\nname = \"mm\"\nplugin = \"{}\"\n[[engine]]\nname = \"g\"\nplugin = \"{}\"\n\
             [tune]\nengine = \"mm\"\nopponent = \"g\"\niterations = 2\n[tune.params]\n\
             Pruning = {{ start = 1, min = 0, max = 1, c-end = 1, r-end = 0.1 }}\n",
            s(&a.heuristic),
            s(&a.greedy)
        ),
    );
    let out = harness(dir.path(), &["run", "t.toml", "--no-tui"]);
    assert_refused(
        &out,
        "t.toml: the file has a [tune] table: it is for `harness tune`",
    );
    assert!(!dir.join("out").exists());
}

/// `tune --dry-run` checks without playing; `tune --restart` sets the earlier tune's games and
/// θ files aside and plays anew (tune refusals told of a `--restart` it did not have).
#[test]
fn tune_has_dry_run_and_restart() {
    let dir = TempDir::new("tune-restart");
    let mm = engine_flag("mm", &artifacts().minimax, "");
    let tune = |iterations: u32, extra: &str| {
        let spec = format!(
            "mm,iterations={iterations},params.Depth.start=2,params.Depth.min=1,params.Depth.max=5,params.Depth.c-end=1.0,params.Depth.r-end=0.1"
        );
        tune_of(dir.path(), &mm, &spec, &format!("--out t {extra}"))
    };
    let dry = tune(2, "--dry-run");
    assert_eq!(dry.status.code(), Some(0), "{}", dry.stderr);
    assert!(dry.stdout.contains("dry run: "), "{}", dry.stdout);
    assert!(!dir.join("t").exists(), "a dry run writes nothing");
    assert_eq!(tune(2, "").status.code(), Some(0));
    let refused = tune(4, "");
    assert_refused(&refused, "pass --restart");
    let restarted = tune(4, "--restart");
    assert_eq!(restarted.status.code(), Some(0), "{}", restarted.stderr);
    let lines = std::fs::read_to_string(dir.join("t/tune.jsonl")).unwrap();
    assert_eq!(lines.lines().count(), 4, "{lines}");
    let aside: Vec<_> = std::fs::read_dir(dir.join("t"))
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("discarded-"))
        .collect();
    assert_eq!(aside.len(), 1);
    let old = std::fs::read_to_string(aside[0].path().join("tune.jsonl")).unwrap();
    assert_eq!(old.lines().count(), 2);
}

/// Messages that name the real rule: the range of `exact-at-empties` (1 to 30, not a u32's),
/// a decimal called a decimal, a negative value checked rather than mistaken for a flag, a
/// `--tune` error without a line of a document the user never saw, and every missing table
/// in one error.
#[test]
fn messages_name_the_real_rule() {
    let dir = TempDir::new("messages");
    for (value, fragment) in [
        ("x", "\"x\" is text: expected a whole number from 1 to 30"),
        (
            "20.5",
            "`20.5` is a decimal number: expected a whole number from 1 to 30",
        ),
        (
            "-1",
            "is out of range: expected a whole number from 1 to 30",
        ),
        ("31", "exact-at-empties"),
    ] {
        let out = run(
            dir.path(),
            &match_args(&format!(
                "--time depth=2 --pairs 1 --out m --adjudication {value}"
            )),
        );
        assert_eq!(out.status.code(), Some(2), "{value}: {}", out.stderr);
        assert!(out.stderr.contains(fragment), "{value}: {}", out.stderr);
        assert!(!out.stderr.contains("tip:"), "{value}: {}", out.stderr);
    }
    let a = artifacts();
    dir.write(
        "adj.toml",
        &format!(
            "[tournament]\nformat = \"match\"\npairs = 1\n[time]\ndepth = 2\n[openings]\nbuiltin = \"xot-small\"\n\
             [adjudication]\nexact-at-empties = \"20\"\n\
             [[engine]]\nname = \"a\"\nplugin = \"{0}\"\n[[engine]]\nname = \"b\"\nplugin = \"{0}\"\n",
            s(&a.greedy)
        ),
    );
    let quoted = harness_line(dir.path(), "run adj.toml --no-tui");
    assert!(
        quoted
            .stderr
            .contains("\"20\" is text: expected a whole number from 1 to 30"),
        "{}",
        quoted.stderr
    );
    let mm = engine_flag("mm", &a.minimax, "");
    let width = "mm,iterations=2,params.Width.start=2,params.Width.min=1,params.Width.max=5,params.Width.c-end=1.0,params.Width.r-end=0.1";
    let tune = tune_of(dir.path(), &mm, width, "");
    assert_refused(&tune, "declares no option `Width`");
    assert!(!tune.stderr.contains("<command line>:"), "{}", tune.stderr);
    dir.write("bare.toml", "[tournament]\nformat = \"match\"\npairs = 1\n");
    let bare = harness_line(dir.path(), "run bare.toml --no-tui");
    assert_refused(
        &bare,
        "bare.toml: missing [time] and [openings]: every tournament file has",
    );
}

/// `check` of a plugin that does not load is one error (exit 2), as `info` and `bench` say
/// it; a solver that fails the exact proof is told why without blaming depth limits alone;
/// `merge --watch` of a folder where no shard has begun says so; a progress line counts the
/// pairs done apart from the pair's number.
#[test]
fn rough_edges_of_check_analyze_merge_and_progress() {
    let a = artifacts();
    let dir = TempDir::new("rough-edges");
    let check = harness(dir.path(), &["check", s(&a.not_a_plugin)]);
    assert_eq!(check.status.code(), Some(2), "{}", check.stdout);
    assert!(!check.stdout.contains("FAIL"), "{}", check.stdout);
    assert_eq!(check.stderr.lines().count(), 1, "{}", check.stderr);
    assert!(check
        .stderr
        .contains("cannot check a plugin that does not start"));
    let played = run(dir.path(), &match_args("--time depth=2 --pairs 2 --out p"));
    assert!(
        played.stdout.contains("pair    1 (1/2 done)")
            || played.stdout.contains("pair    2 (1/2 done)"),
        "{}",
        played.stdout
    );
    assert!(played.stdout.contains("(2/2 done)"), "{}", played.stdout);
    let solver = harness(
        dir.path(),
        &[
            "analyze",
            "p",
            "--from-empties",
            "8",
            "--engine",
            s(&a.minimax),
        ],
    );
    assert_refused(&solver, "counts a pass as a ply");
    let mut watch = std::process::Command::new(&a.harness)
        .args([
            "merge",
            "--watch",
            "nowhere",
            "--interval",
            "0.2",
            "--stop-file",
            "stop",
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(watch.stdout.take().unwrap()),
        &mut first,
    )
    .unwrap();
    let _ = watch.kill();
    let _ = watch.wait();
    assert!(
        first.contains("no shard has begun in nowhere yet (no such folder yet)"),
        "{first}"
    );
}
