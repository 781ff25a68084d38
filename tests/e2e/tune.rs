//! `harness tune`: SPSA on a real plugin option with a known best value, against itself and
//! against an opponent, a tune killed with SIGKILL and resumed (the same θ sequence as an
//! uninterrupted one), bad `[tune]` tables refused before any game, and a tune file refused by
//! `run`; `tune --dry-run` plays nothing, `tune --restart` sets the earlier tune aside.
//!
//! The tuned option is `minimax`'s `Depth` under a node limit far above what its searches use
//! (so the option, not the time control, sets the depth, and every game is deterministic): a
//! deeper full-width search of the same evaluation wins more often, so the best value in a
//! range is its top.

use crate::support::{
    artifacts, engine_flag, harness, s, spawn_harness, tune_of, Running, TempDir,
};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, Instant};

/// A tune of `minimax`'s Depth in 1..=5 from 2, against itself, one game at a time.
fn tune_file(iterations: u32, params: &str) -> String {
    format!(
        r#"[tournament]
format = "match"
concurrency = 1
out = "out"

[time]
nodes = 100000000

[openings]
builtin = "xot-small"

[[engine]]
name = "mm"
plugin = "{}"
options = {{ Pruning = "alphabeta" }}

[tune]
engine = "mm"
iterations = {iterations}
seed = 11

[tune.params]
{params}
"#,
        s(&artifacts().minimax)
    )
}

const DEPTH: &str = "Depth = { start = 2, min = 1, max = 5, c-end = 1.0, r-end = 0.1 }";

/// The lines of `tune.jsonl`.
fn tune_lines(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("tune.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a tune.jsonl line is JSON"))
        .collect()
}

#[test]
fn a_tune_moves_depth_up_to_its_best_value() {
    let dir = TempDir::new("tune-depth");
    dir.write("t.toml", &tune_file(30, DEPTH));
    let run = harness(dir.path(), &["tune", "t.toml", "--no-tui"]);
    run.assert_success();
    let lines = tune_lines(&dir.join("out"));
    assert_eq!(lines.len(), 30, "{run}");
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["iteration"], i as u64 + 1);
        let d = l["delta"]["Depth"].as_i64().unwrap();
        assert!(d == 1 || d == -1, "{l}");
        // Integer option: the values played are whole numbers in the range.
        for side in ["plus", "minus"] {
            let v = l[side]["Depth"].as_f64().unwrap();
            assert!(v.fract() == 0.0 && (1.0..=5.0).contains(&v), "{l}");
        }
        assert!((-2.0..=2.0).contains(&l["result"].as_f64().unwrap()), "{l}");
        assert!(l["theta"]["Depth"].is_number(), "{l}");
    }
    // Two games per iteration, θ+ and θ− each Black once.
    let games = crate::support::read_games(&dir.join("out"));
    assert_eq!(games.len(), 60);
    assert!(games.iter().all(|g| [&g.black, &g.white]
        .iter()
        .all(|n| *n == "mm+" || *n == "mm-")));
    let last = lines.last().unwrap()["theta"]["Depth"].as_f64().unwrap();
    assert!(
        last > 4.0,
        "θ ended at {last}, not near the top of 1..5:\n{run}"
    );
    // The final values: printed, and written ready to paste.
    assert!(
        run.stdout
            .contains("options = { Pruning = \"alphabeta\", Depth = 5 }"),
        "{run}"
    );
    let result = std::fs::read_to_string(dir.join("out/tune-result.toml")).unwrap();
    assert!(
        result.contains("options = { Pruning = \"alphabeta\", Depth = 5 }"),
        "{result}"
    );
    let page = std::fs::read_to_string(dir.join("out/tune.html")).unwrap();
    assert_eq!(page.matches("<svg").count(), 1);
    // Run again: nothing left to play, the same θ.
    let again = harness(dir.path(), &["tune", "t.toml", "--no-tui"]);
    again.assert_success();
    assert_eq!(tune_lines(&dir.join("out")), lines, "{again}");
}

/// Against an opponent, each iteration is a gauntlet round: the opponent plays a pair against
/// θ+ and one against θ− on the same opening, and the result is half the difference.
#[test]
fn a_tune_against_an_opponent_plays_both_sides_against_it() {
    let dir = TempDir::new("tune-opponent");
    let base = format!(
        "[[engine]]\nname = \"base\"\nplugin = \"{}\"\noptions = {{ Depth = 3 }}\n\n[tune]",
        s(&artifacts().minimax)
    );
    let text = tune_file(6, DEPTH).replacen("[tune]", &base, 1).replace(
        "engine = \"mm\"\n",
        "engine = \"mm\"\nopponent = \"base\"\n",
    );
    dir.write("t.toml", &text);
    let run = harness(dir.path(), &["tune", "t.toml", "--no-tui"]);
    run.assert_success();
    assert!(run.stdout.contains("against `base`"), "{run}");
    let lines = tune_lines(&dir.join("out"));
    assert_eq!(lines.len(), 6, "{run}");
    for l in &lines {
        let r = l["result"].as_f64().unwrap();
        assert!((r * 2.0).fract() == 0.0 && (-2.0..=2.0).contains(&r), "{l}");
    }
    let games = crate::support::read_games(&dir.join("out"));
    assert_eq!(games.len(), 24);
    for (i, round) in games.chunks(4).enumerate() {
        let sides: Vec<(&str, &str)> = round
            .iter()
            .map(|g| (g.black.as_str(), g.white.as_str()))
            .collect();
        assert_eq!(
            sides,
            [
                ("base", "mm+"),
                ("mm+", "base"),
                ("base", "mm-"),
                ("mm-", "base")
            ],
            "round {i}"
        );
        assert!(
            round.iter().all(|g| g.opening == round[0].opening),
            "round {i}"
        );
    }
}

#[test]
fn a_killed_tune_resumes_with_the_same_thetas() {
    let iterations = 150;
    let dir = TempDir::new("tune-resume");
    dir.write("t.toml", &tune_file(iterations, DEPTH));
    harness(
        dir.path(),
        &["tune", "t.toml", "--no-tui", "--out", "whole"],
    )
    .assert_success();
    let whole = tune_lines(&dir.join("whole"));
    assert_eq!(whole.len(), iterations as usize);

    let args = ["tune", "t.toml", "--no-tui", "--out", "cut"];
    let mut child = spawn_harness(dir.path(), &args, false);
    let started = Instant::now();
    while tune_lines(&dir.join("cut")).len() < 10 {
        assert!(started.elapsed() < Duration::from_secs(60), "no progress");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let cut = tune_lines(&dir.join("cut")).len();
    assert!(
        cut < iterations as usize,
        "the tune ended before the kill ({cut} iterations)"
    );
    let resumed = harness(dir.path(), &args);
    resumed.assert_success();
    assert!(
        resumed.stdout.contains("resuming: θ rebuilt from"),
        "{resumed}"
    );
    assert_eq!(tune_lines(&dir.join("cut")), whole, "{resumed}");
}

/// A bad `[tune]` table: exit 2, an error naming the file, the line and the key, no output.
fn tune_bad(label: &str, params: &str, iterations: u32, fragments: &[&str]) {
    let dir = TempDir::new(label);
    dir.write("t.toml", &tune_file(iterations, params));
    let run = harness(dir.path(), &["tune", "t.toml", "--no-tui"]);
    run.assert_error().assert_stderr_has(fragments);
    assert!(
        !dir.join("out").exists(),
        "output written for a bad tune:\n{run}"
    );
}

#[test]
fn bad_tunes_are_refused_before_any_game() {
    tune_bad(
        "tune-undeclared",
        "Width = { start = 2, min = 1, max = 5, c-end = 1, r-end = 0.1 }",
        5,
        &[
            "t.toml:23: key `tune.params.Width`",
            "declares no option `Width`",
            "Depth",
        ],
    );
    tune_bad(
        "tune-wrong-type",
        "Pruning = { start = 2, min = 1, max = 5, c-end = 1, r-end = 0.1 }",
        5,
        &[
            "t.toml:23: key `tune.params.Pruning`",
            "only int and float options",
        ],
    );
    tune_bad(
        "tune-outside-range",
        "Depth = { start = 2, min = 1, max = 30, c-end = 1, r-end = 0.1 }",
        5,
        &[
            "t.toml:23: key `tune.params.Depth`",
            "outside the plugin's 1..20",
        ],
    );
    tune_bad(
        "tune-c-end",
        "Depth = { start = 2, min = 1, max = 5, c-end = 0, r-end = 0.1 }",
        5,
        &["t.toml:23: key `tune.params.Depth.c-end`", "more than 0"],
    );
    tune_bad(
        "tune-r-end",
        "Depth = { start = 2, min = 1, max = 5, c-end = 1, r-end = -0.1 }",
        5,
        &["t.toml:23: key `tune.params.Depth.r-end`", "more than 0"],
    );
    tune_bad(
        "tune-no-iterations",
        DEPTH,
        0,
        &["t.toml:19: key `tune.iterations`", "at least 1"],
    );
    // Gains whose powers overflow (θ would be NaN): refused with the key, never run.
    tune_bad(
        "tune-huge-c-end",
        "Depth = { start = 2, min = 1, max = 5, c-end = 1e200, r-end = 0.1 }",
        5,
        &["t.toml:23: key `tune.params`", "not finite numbers above 0"],
    );
    for (key, value, fragment) in [
        ("alpha", "1e308", "must be from 0 to 1"),
        ("gamma", "400", "must be from 0 to 1"),
        ("A", "1e308", "must be from 0 to 1e9"),
        ("alpha", "nan", "must be a number"),
    ] {
        let dir = TempDir::new(&format!("tune-gain-{key}"));
        let text = tune_file(5, DEPTH).replace("seed = 11", &format!("seed = 11\n{key} = {value}"));
        dir.write("t.toml", &text);
        let run = harness(dir.path(), &["tune", "t.toml", "--no-tui"]);
        run.assert_error()
            .assert_stderr_has(&[&format!("key `tune.{key}`"), fragment]);
        assert!(!dir.join("out").exists(), "{run}");
    }
    // A file without a [tune] table.
    let dir = TempDir::new("tune-no-table");
    let text = tune_file(5, DEPTH).replace("concurrency", "pairs = 1\nconcurrency");
    let second = format!(
        "[[engine]]\nname = \"b\"\nplugin = \"{}\"\n",
        s(&artifacts().minimax)
    );
    dir.write(
        "t.toml",
        &(text[..text.find("[tune]").unwrap()].to_string() + &second),
    );
    let run = harness(dir.path(), &["tune", "t.toml", "--no-tui"]);
    run.assert_error()
        .assert_stderr_has(&["t.toml: no [tune] table"]);
}

/// The dispatches of every shard of a sharded tune in `out`, by iteration.
fn shard_dispatches(out: &Path) -> std::collections::BTreeMap<u64, Value> {
    let mut all = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(out).unwrap() {
        let path = entry.unwrap().path();
        if !path.is_dir() {
            continue;
        }
        let text = std::fs::read_to_string(path.join("tune-dispatch.jsonl")).unwrap_or_default();
        for line in text.lines() {
            let d: Value = serde_json::from_str(line).expect("a dispatch line is JSON");
            let i = d["iteration"].as_u64().unwrap();
            assert!(all.insert(i, d).is_none(), "iteration {i} begun twice");
        }
    }
    all
}

/// `harness tune t.toml --aggregate --watch` in `dir`, looking every 50 ms, with `extra`
/// flags; what it says goes to `aggregate.log`.
fn watching_aggregator(dir: &TempDir, extra: &[&str]) -> Running {
    let log = std::fs::File::create(dir.join("aggregate.log")).unwrap();
    Running(
        std::process::Command::new(&artifacts().harness)
            .args([
                "tune",
                "t.toml",
                "--aggregate",
                "--watch",
                "--interval",
                "0.05",
            ])
            .args(extra)
            .current_dir(dir.path())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap(),
    )
}

/// A tune over three shards played at once, with the aggregator watching: every iteration is
/// applied once and in order, with the Δ and values its shard played; the shards played around
/// the aggregator's θ (gain indices above 1); a shard killed with SIGKILL and run again resumes
/// its iterations; a second aggregation writes the same θ and `tune.jsonl` (θ is a function of
/// the shards' files); and `merge` of the folder sees the tune's games.
#[test]
fn a_sharded_tune_applies_each_iteration_once_in_order() {
    let iterations = 150;
    let dir = TempDir::new("tune-shards");
    dir.write("t.toml", &tune_file(iterations, DEPTH));
    let mut watcher = watching_aggregator(&dir, &[]);
    let shard = |i: usize| format!("{i}/3");
    let args = |spec: &str| -> Vec<String> {
        ["tune", "t.toml", "--no-tui", "--shard", spec]
            .iter()
            .map(|a| a.to_string())
            .collect()
    };
    let spawn = |i: usize| {
        let a = args(&shard(i));
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        spawn_harness(dir.path(), &a, false)
    };
    // Shard 2 is killed after a few games, then run again once the others are going.
    let mut killed = spawn(2);
    let journal = dir.join("out/shard-2-of-3/games.jsonl");
    let started = Instant::now();
    let games = |p: &Path| {
        std::fs::read_to_string(p)
            .unwrap_or_default()
            .lines()
            .count()
    };
    while games(&journal) < 10 {
        assert!(started.elapsed() < Duration::from_secs(60), "no progress");
        std::thread::sleep(Duration::from_millis(2));
    }
    killed.kill().unwrap(); // SIGKILL
    killed.wait().unwrap();
    let cut = games(&journal);
    assert!(cut < 100, "shard 2 ended before the kill ({cut} games)");
    let mut others = [spawn(0), spawn(1)];
    let a = args(&shard(2));
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let rerun = harness(dir.path(), &a);
    rerun.assert_success();
    assert!(rerun.stdout.contains("resuming:"), "{rerun}");
    for child in &mut others {
        assert!(child.wait().unwrap().success());
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = watcher.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "the aggregator did not end");
        std::thread::sleep(Duration::from_millis(20));
    };
    let watched = std::fs::read_to_string(dir.join("aggregate.log")).unwrap();
    assert!(status.success(), "{watched}");
    assert!(watched.contains("final values of `mm`"), "{watched}");

    let out = dir.join("out");
    let lines = tune_lines(&out);
    let dispatches = shard_dispatches(&out);
    assert_eq!(lines.len(), iterations as usize, "{watched}");
    assert_eq!(dispatches.len(), iterations as usize);
    for (i, l) in lines.iter().enumerate() {
        let n = i as u64 + 1;
        assert_eq!(l["iteration"], n, "applied out of order");
        // Each iteration was played around θ after its first k − 1 iterations.
        let d = &dispatches[&n];
        let k = d["k"].as_u64().unwrap();
        assert!(k <= n, "{d}");
        if k > 1 {
            assert_eq!(d["theta"], lines[k as usize - 2]["theta"], "iteration {n}");
        }
    }
    // The shards read the aggregator's θ: later iterations were dispatched with gains of
    // iterations already applied.
    let fresh = dispatches
        .values()
        .filter(|d| d["k"].as_u64() > Some(1))
        .count();
    assert!(fresh > 0, "every iteration was played around the start");
    let theta: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("tune-theta.json")).unwrap())
            .unwrap();
    assert_eq!(theta["applied"], iterations);
    assert_eq!(theta["theta"], lines.last().unwrap()["theta"]);

    // Aggregating again changes nothing.
    let before = std::fs::read(out.join("tune.jsonl")).unwrap();
    let again = harness(dir.path(), &["tune", "t.toml", "--aggregate"]);
    again.assert_success();
    assert_eq!(std::fs::read(out.join("tune.jsonl")).unwrap(), before);
    assert_eq!(
        serde_json::from_str::<Value>(
            &std::fs::read_to_string(out.join("tune-theta.json")).unwrap()
        )
        .unwrap(),
        theta
    );
    // The tune's games merge as a sharded run's.
    let merged = harness(dir.path(), &["merge", "out"]);
    merged.assert_success();
    assert!(
        merged.stdout.contains(&format!(
            "{} games of {} planned",
            2 * iterations,
            2 * iterations
        )),
        "{merged}"
    );
    assert_eq!(
        crate::support::read_games(&out).len(),
        2 * iterations as usize
    );

    // A folder of shards is no folder for a tune of one machine.
    harness(dir.path(), &["tune", "t.toml", "--no-tui"])
        .assert_error()
        .assert_stderr_has(&["holds the shards of a sharded tune"]);
    // The shards played again from scratch beside the old θ file: refused, not mixed in.
    for i in 0..3 {
        std::fs::remove_dir_all(out.join(format!("shard-{i}-of-3"))).unwrap();
    }
    let a = args(&shard(0));
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    harness(dir.path(), &a)
        .assert_error()
        .assert_stderr_has(&["tune-theta.json", "left from an earlier tune"]);
}

/// A watching aggregator whose shards will not all come back (one never ran) ends at its stop
/// file: one more look, exit 3, θ after the iterations up to the first one missing, and the
/// count in its last line. The shard played later and one more aggregation finish the tune.
/// (Slurm's merge job writes that file once every shard has ended.)
#[test]
fn a_watching_aggregator_ends_at_its_stop_file_with_the_iterations_it_has() {
    let dir = TempDir::new("tune-stop");
    dir.write("t.toml", &tune_file(8, DEPTH));
    let shard = |spec: &str| harness(dir.path(), &["tune", "t.toml", "--no-tui", "--shard", spec]);
    shard("0/2").assert_success(); // iterations 1, 3, 5, 7; shard 1 (2, 4, 6, 8) not yet
    let mut watcher = watching_aggregator(&dir, &["--stop-file", "stop"]);
    let theta_file = dir.join("out/tune-theta.json");
    let deadline = Instant::now() + Duration::from_secs(60);
    while !theta_file.exists() {
        assert!(Instant::now() < deadline, "the aggregator wrote no θ");
        std::thread::sleep(Duration::from_millis(10));
    }
    // Watching, and waiting for iteration 2, which no running shard will play.
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        watcher.0.try_wait().unwrap().is_none(),
        "the aggregator ended by itself"
    );
    dir.write("stop", "");
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = watcher.0.try_wait().unwrap() {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "the aggregator did not end at its stop file"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    let said = std::fs::read_to_string(dir.join("aggregate.log")).unwrap();
    assert_eq!(status.code(), Some(3), "{said}");
    assert!(
        said.contains("stop: the aggregator stops with 1 of 8 iterations applied"),
        "{said}"
    );
    let theta: Value =
        serde_json::from_str(&std::fs::read_to_string(&theta_file).unwrap()).unwrap();
    assert_eq!(theta["applied"], 1);
    assert_eq!(tune_lines(&dir.join("out")).len(), 1);

    // The missing shard, then one more aggregation: the tune ends.
    shard("1/2").assert_success();
    let done = harness(dir.path(), &["tune", "t.toml", "--aggregate"]);
    done.assert_success();
    assert!(done.stdout.contains("final values of `mm`"), "{done}");
    assert_eq!(tune_lines(&dir.join("out")).len(), 8);
}

/// `harness tune` from the command line alone (`--engine`, `--time`, `--openings`, `--tune`)
/// plays the same tune as the file: the same `tune.jsonl`, line for line; a bad `params` key
/// or range names the `--tune` flag.
#[test]
fn a_tune_from_the_command_line_is_the_files_tune() {
    let dir = TempDir::new("tune-flags");
    dir.write("t.toml", &tune_file(20, DEPTH));
    harness(dir.path(), &["tune", "t.toml", "--no-tui", "--out", "file"]).assert_success();
    let engine = format!(
        "name=mm,plugin={},Pruning=alphabeta",
        s(&artifacts().minimax)
    );
    let tune = "mm,iterations=20,seed=11,params.Depth.start=2,params.Depth.min=1,\
                params.Depth.max=5,params.Depth.c-end=1.0,params.Depth.r-end=0.1";
    let flags = [
        "tune",
        "--engine",
        &engine,
        "--time",
        "nodes=100000000",
        "--openings",
        "xot-small,order=sequential",
        "--concurrency",
        "1",
        "--tune",
        tune,
        "--no-tui",
        "--out",
        "flags",
    ];
    let run = harness(dir.path(), &flags);
    run.assert_success();
    let from_file = tune_lines(&dir.join("file"));
    assert_eq!(from_file.len(), 20);
    assert_eq!(tune_lines(&dir.join("flags")), from_file, "{run}");

    let bad_key = tune.replace("params.Depth.start=2", "params.Depth=2");
    let mut args = flags.to_vec();
    args[10] = &bad_key;
    harness(dir.path(), &args)
        .assert_error()
        .assert_stderr_has(&["--tune", "key `params.Depth`", "params.OPTION.KEY"]);
    let bad_range = tune.replace("params.Depth.max=5", "params.Depth.max=50");
    args[10] = &bad_range;
    harness(dir.path(), &args)
        .assert_error()
        .assert_stderr_has(&["--tune mm,", "outside the plugin's 1..20"]);
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
    out.assert_error()
        .assert_stderr_has(&["t.toml: the file has a [tune] table: it is for `harness tune`"]);
    assert!(!dir.join("out").exists());
}

/// A tune without `--out` plays into its default folder (`out/mm`), and takes no numbered one
/// as `run` does (its shards and its aggregator must find the same folder): where the default
/// holds another tune's games it stops with exit 2 and asks for --out, writing nothing; the
/// same tune again resumes there.
#[test]
fn a_tune_takes_no_numbered_default_folder() {
    let dir = TempDir::new("tune-default-folder");
    let mm = engine_flag("mm", &artifacts().minimax, "");
    let tune = |start: u32| {
        let spec = format!(
            "mm,iterations=2,params.Depth.start={start},params.Depth.min=1,params.Depth.max=5,params.Depth.c-end=1.0,params.Depth.r-end=0.1"
        );
        tune_of(dir.path(), &mm, &spec, "")
    };
    assert_eq!(tune(2).status.code(), Some(0));
    assert!(dir.join("out/mm/tune.jsonl").exists());
    tune(3).assert_error().assert_stderr_has(&[
        "out/mm: the default output folder holds games of another tournament",
        "a tune's folder is never numbered",
        "give --out",
    ]);
    assert!(!dir.join("out/mm-2").exists());
    let again = tune(2);
    assert_eq!(again.status.code(), Some(0), "{}", again.stderr);
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
    refused
        .assert_error()
        .assert_stderr_has(&["pass --restart"]);
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
