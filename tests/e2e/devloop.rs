//! The engine developer's loop: a whole match from one command line (`run --engine …`),
//! `harness bench` and the signature a tournament can require (`bench = N`), NPS-scaled clocks
//! over shards, and the bad input of each, refused with exit 2 naming the flag or the key and
//! with nothing written.

use crate::support::{artifacts, games_of, harness, read_games, s, Output, TempDir};
use std::path::Path;

/// `--engine name=NAME,plugin=PATH[,rest]`.
fn engine_flag(name: &str, plugin: &Path, rest: &str) -> String {
    let rest = if rest.is_empty() {
        String::new()
    } else {
        format!(",{rest}")
    };
    format!("name={name},plugin={}{rest}", s(plugin))
}

/// `harness run` in `dir` with the arguments, `--no-tui` added.
fn run(dir: &TempDir, args: &[&str]) -> Output {
    let mut all = vec!["run", "--no-tui"];
    all.extend_from_slice(args);
    harness(dir.path(), &all)
}

/// The signature on the last line of `harness bench`'s output.
fn signature(bench: &Output) -> u64 {
    let last = bench.stdout.lines().last().unwrap_or("");
    let nodes = last
        .strip_prefix("bench: ")
        .and_then(|rest| rest.split(" nodes, ").next())
        .unwrap_or_else(|| panic!("no `bench: N nodes, X nodes/s` line:\n{bench}"));
    assert!(last.ends_with(" nodes/s"), "{bench}");
    nodes.parse().unwrap()
}

/// The command shape, from an empty folder: a match with a sequential test on a
/// built-in set. The same command resumes; `--print-toml` is a file that plays the same
/// tournament; `tournament.json` keeps the command; `merge` rebuilds it.
#[test]
fn a_match_from_one_command_line() {
    let a = artifacts();
    let dir = TempDir::new("devloop-match");
    let new = engine_flag("new", &a.minimax, "Depth=2,Pruning=alphabeta");
    let old = engine_flag("old", &a.greedy, "");
    let args = [
        "--engine",
        &new,
        "--engine",
        &old,
        "--format",
        "match",
        "--time",
        "1+0.05",
        "--pairs",
        "3",
        "--sprt",
        "elo0=0,elo1=5",
        "--openings",
        "xot-large,order=sequential",
    ];
    // Three pairs cannot decide a test on [0, 5] Elo: every run of it ends undecided (exit 3).
    let first = run(&dir, &args);
    assert_eq!(first.status.code(), Some(3), "{first}");
    // The header names the command line as the tournament's source, not the embedded default.
    assert!(
        first
            .stdout
            .lines()
            .next()
            .is_some_and(|l| l.starts_with("<command line>: match of new, old (1s+0.05s)")),
        "{first}"
    );
    assert!(first.stdout.contains("SPRT"), "{first}");
    let out = dir.join("out/new-vs-old");
    let games = games_of(&out);
    assert_eq!(games.len(), 6);
    let json = std::fs::read_to_string(out.join("tournament.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let command: Vec<&str> = v["definition"]["command"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    assert_eq!(command[..2], ["run", "--no-tui"]);
    assert_eq!(command[2..], args);
    assert_eq!(
        v["engines"][0]["options"][0],
        serde_json::json!(["Depth", "2"])
    );
    assert_eq!(v["openings"]["source"]["builtin"], "xot-large");

    // The same command again finds every game played.
    let again = run(&dir, &args);
    assert_eq!(again.status.code(), Some(3), "{again}");
    assert!(again.stdout.contains("6 of 6 games already"), "{again}");
    assert_eq!(games_of(&out), games);

    // --print-toml prints the equivalent file and plays nothing; that file plays the same
    // tournament (its folder resumes).
    let mut printing = args.to_vec();
    printing.push("--print-toml");
    let printed = run(&dir, &printing);
    printed.assert_success();
    assert!(
        printed.stdout.contains("[[engine]]\nname = \"new\""),
        "{printed}"
    );
    assert!(printed.stdout.contains("options.Depth = 2"), "{printed}");
    dir.write("printed.toml", &printed.stdout);
    let from_file = run(&dir, &["printed.toml", "--out", "out/new-vs-old"]);
    assert_eq!(from_file.status.code(), Some(3), "{from_file}");
    assert!(
        from_file.stdout.contains("6 of 6 games already"),
        "{from_file}"
    );

    // merge rebuilds the tournament from tournament.json.
    let merged = harness(dir.path(), &["merge", "out/new-vs-old", "--out", "merged"]);
    assert_eq!(merged.status.code(), Some(3), "{merged}");
    assert!(merged.stdout.contains("6 games of 6 planned"), "{merged}");
    assert_eq!(games_of(&dir.join("merged")), games);
}

/// Over a file: `--engine` replaces its engines and their folder, other flags one key each,
/// and a file value keeps its line in an error.
#[test]
fn the_command_line_over_a_file() {
    let a = artifacts();
    let dir = TempDir::new("devloop-file");
    dir.write(
        "t.toml",
        &format!(
            "[tournament]\nformat = \"round-robin\"\npairs = 5\n\n[time]\ndepth = 1\n\n[openings]\nbuiltin = \"xot-small\"\n\n[[engine]]\nname = \"x\"\nplugin = \"{}\"\n",
            s(&a.greedy)
        ),
    );
    let one = engine_flag("one", &a.greedy, "");
    let two = engine_flag("two", &a.minimax, "Depth=1,time=depth=1");
    let three = engine_flag("three", &a.greedy, "Random=true,Seed=3");
    let played = run(
        &dir,
        &[
            "t.toml", "--engine", &one, "--engine", &two, "--engine", &three, "--pairs", "1",
        ],
    );
    played.assert_success();
    let games = read_games(&dir.join("out/one-vs-two-vs-three"));
    assert_eq!(games.len(), 6, "{played}");
    // A gauntlet with one --engine is refused: the file's format needs more engines.
    let refused = run(&dir, &["t.toml", "--engine", &one, "--out", "none"]);
    refused
        .assert_error()
        .assert_stderr_has(&["--engine: key `format`", "round-robin", "line 2"]);
    assert!(!dir.join("none").exists());
}

/// Each bad input of the issue: exit 2, the flag or the key named, nothing written.
#[test]
fn bad_command_lines_are_refused_and_write_nothing() {
    let a = artifacts();
    let dir = TempDir::new("devloop-bad");
    let good = engine_flag("old", &a.greedy, "");
    let missing = dir.join("libnowhere.so");
    let cases: Vec<(Vec<String>, Vec<String>)> = vec![
        // A key the plugin does not have (every other key is an option).
        (
            vec![engine_flag("new", &a.minimax, "Hahs=64"), good.clone()],
            vec!["--engine name=new".into(), "Hahs".into()],
        ),
        // An [[engine]] key with a bad value.
        (
            vec![
                engine_flag("new", &a.minimax, "fail-on=never"),
                good.clone(),
            ],
            vec!["--engine name=new".into(), "key `fail-on`".into()],
        ),
        (
            vec![engine_flag("old", &a.minimax, ""), good.clone()],
            vec![format!("--engine {good}: key `name`"), "duplicate".into()],
        ),
        (
            vec![format!("name=new,plugin={}", s(&missing)), good.clone()],
            vec![
                "--engine name=new".into(),
                "key `plugin`".into(),
                "no plugin file".into(),
            ],
        ),
        (
            vec![engine_flag("new", &a.minimax, "bench=12345"), good.clone()],
            vec![
                "--engine name=new".into(),
                "key `bench`".into(),
                "bench = 12345".into(),
            ],
        ),
    ];
    for (engines, fragments) in cases {
        let mut args = vec!["--format", "match", "--time", "depth=1", "--out", "o"];
        for e in &engines {
            args.extend(["--engine", e.as_str()]);
        }
        let r = run(&dir, &args);
        let fragments: Vec<&str> = fragments.iter().map(String::as_str).collect();
        r.assert_error().assert_stderr_has(&fragments);
        assert!(
            !dir.join("o").exists(),
            "written for a bad command line:\n{r}"
        );
    }
    // nps-reference without an engine to bench, or naming none of the tournament's.
    let new = engine_flag("new", &a.minimax, "");
    let nps_cases = [
        ("1+0.1,nps-reference=100000", "key `nps-reference`"),
        (
            "1+0.1,nps-reference=100000,nps-engine=zz",
            "key `nps-engine`",
        ),
        (
            "depth=2,nps-reference=100000,nps-engine=new",
            "key `nps-reference`",
        ),
    ];
    for (time, key) in nps_cases {
        let args = [
            "--engine", &new, "--engine", &good, "--format", "match", "--time", time, "--out", "o",
        ];
        let r = run(&dir, &args);
        r.assert_error()
            .assert_stderr_has(&[&format!("--time {time}: {key}")]);
        assert!(!dir.join("o").exists(), "{r}");
    }
}

/// `harness bench`: the same signature run after run, another with other options, and the
/// signature on the last line; a tournament requiring the right signature plays.
#[test]
fn bench_signatures_and_the_bench_key() {
    let a = artifacts();
    let dir = TempDir::new("devloop-bench");
    let bench = |extra: &[&str]| {
        let mut args = vec!["bench", s(&a.minimax), "--depth", "5"];
        args.extend_from_slice(extra);
        let b = harness(dir.path(), &args);
        b.assert_success();
        b
    };
    let first = bench(&[]);
    // 16 positions, one line each, between the header and the total.
    assert_eq!(first.stdout.lines().count(), 18, "{first}");
    let n = signature(&first);
    assert!(n > 0);
    assert_eq!(signature(&bench(&[])), n);
    let unpruned = signature(&bench(&["--option", "Pruning=none"]));
    assert!(unpruned > n, "{unpruned} vs {n}");
    harness(
        dir.path(),
        &["bench", "nowhere", "--plugin-dir", s(dir.path())],
    )
    .assert_error()
    .assert_stderr_has(&["no plugin file"]);

    // The start-up bench is at the default depth: the signature `harness bench` prints then.
    let with_options = ["bench", s(&a.minimax), "--option", "Depth=1"];
    let default = signature(&harness(dir.path(), &with_options));
    let new = engine_flag("new", &a.minimax, &format!("Depth=1,bench={default}"));
    let old = engine_flag("old", &a.greedy, "");
    let args = [
        "--engine", &new, "--engine", &old, "--format", "match", "--time", "depth=1", "--pairs",
        "1",
    ];
    let r = run(&dir, &args);
    r.assert_success();
    assert!(
        r.stdout
            .contains(&format!("engine `new`: bench: {default} nodes")),
        "{r}"
    );
}

/// NPS-scaled clocks: each shard benches on its own and plays its own clock; the factors are in
/// each shard's tournament.json and report; merge says their spread, and the games (of engines
/// whose moves do not depend on the clock) are those of an unsharded run; the merged reports
/// state the spread of the scales.
#[test]
fn nps_scaled_shards_play_their_own_clocks_and_merge_exactly() {
    let a = artifacts();
    let dir = TempDir::new("devloop-nps");
    dir.write(
        "t.toml",
        &format!(
            "[tournament]\nformat = \"match\"\npairs = 4\n\n[time]\nbase = 20\nincrement = 0.5\nnps-reference = 5000000\nnps-engine = \"minimax\"\n\n[openings]\nbuiltin = \"xot-small\"\norder = \"shuffled\"\nseed = 5\n\n[[engine]]\nname = \"minimax\"\nplugin = \"{}\"\noptions = {{ Depth = 2 }}\n\n[[engine]]\nname = \"greedy\"\nplugin = \"{}\"\n",
            s(&a.minimax),
            s(&a.greedy)
        ),
    );
    run(&dir, &["t.toml", "--out", "full"]).assert_success();
    let mut factors = Vec::new();
    for i in 0..2 {
        let r = run(&dir, &["t.toml", "--shard", &format!("{i}/2")]);
        r.assert_success();
        assert!(r.stdout.contains("clocks scaled x"), "{r}");
        let folder = dir.join(format!("out/t/shard-{i}-of-2"));
        let json = std::fs::read_to_string(folder.join("tournament.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let scale = &v["clock_scale"];
        assert_eq!(scale["engine"], "minimax", "{json}");
        assert_eq!(scale["reference_nps"], 5_000_000, "{json}");
        let factor = scale["factor"].as_f64().unwrap();
        let measured = scale["measured_nps"].as_f64().unwrap();
        assert!((factor - 5e6 / measured).abs() < 1e-9, "{json}");
        let report = std::fs::read_to_string(folder.join("report.md")).unwrap();
        assert!(report.contains(&format!("scaled x{factor:.3}")), "{report}");
        factors.push(factor);
    }
    // Two measures of a speed on a busy machine: different clocks (nodes/s are whole numbers
    // in the millions, so equal factors would mean one measure was copied).
    assert_ne!(factors[0], factors[1]);
    let merged = harness(dir.path(), &["merge", "out/t"]);
    merged.assert_success();
    assert!(
        merged.stdout.contains("clock scale over 2 of 2 folders: x"),
        "{merged}"
    );
    // The merged reports state the scaling of the clocks, with the shards' spread, and keep
    // it when rewritten from the folder alone (as `harness analyze` does).
    let (lowest, highest) = (factors[0].min(factors[1]), factors[0].max(factors[1]));
    let spread = format!("scaled x{lowest:.3} to x{highest:.3} over 2 shards");
    for rewrite in [false, true] {
        if rewrite {
            harness(dir.path(), &["analyze", "out/t", "--from-empties", "4"]).assert_success();
        }
        let md = std::fs::read_to_string(dir.join("out/t/report.md")).unwrap();
        assert!(md.contains(&spread), "{spread}: {md}");
        let json = std::fs::read_to_string(dir.join("out/t/report.json")).unwrap();
        assert!(json.contains(&spread), "{spread}: {json}");
    }
    assert_eq!(games_of(&dir.join("out/t")), games_of(&dir.join("full")));
}

/// The row of `item` in `harness check`'s table.
fn check_row<'a>(check: &'a Output, item: &str) -> &'a str {
    check
        .stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some(item))
        .unwrap_or_else(|| panic!("no row `{item}`:\n{check}"))
}

/// `harness check` passes every shipped plugin that needs no outside program (CI runs it
/// here), the C example included.
#[test]
fn check_passes_every_shipped_plugin() {
    let a = artifacts();
    let dir = TempDir::new("devloop-check");
    for plugin in [
        &a.greedy,
        &a.minimax,
        &a.heuristic,
        &a.strong,
        &a.first_move,
    ] {
        assert_check_passes(&harness(dir.path(), &["check", s(plugin)]));
    }
}

/// A `harness check` that passed every item it checks (exit 0, and its last line says so).
fn assert_check_passes(check: &crate::support::Output) {
    check.assert_success();
    assert!(
        check
            .stdout
            .contains("check: 19 passed, 0 failed, 2 not checked"),
        "{check}"
    );
}

/// The sandbox items of `harness check` pass because the sandbox refuses each attempt: with
/// `--sandbox off` the write, the connection, the signal, the Unix socket, the resource limit
/// on the coordinator and the environment go through and each item fails; as root, the device
/// node and the capabilities too (an ordinary user has neither to begin with).
#[test]
fn the_sandbox_items_fail_without_the_sandbox() {
    let a = artifacts();
    let dir = TempDir::new("devloop-check-sandbox");
    let mut items = vec![
        "sandbox-write",
        "sandbox-connect",
        "sandbox-signal",
        "sandbox-socket",
        "sandbox-prlimit",
        "sandbox-environment",
        "sandbox-namespaces",
    ];
    if crate::support::is_root() {
        items.extend(["sandbox-device", "sandbox-capabilities"]);
    }
    let strict = harness(dir.path(), &["check", s(&a.greedy)]);
    for item in [
        "sandbox-capabilities",
        "sandbox-environment",
        "sandbox-namespaces",
    ] {
        let row = check_row(&strict, item);
        assert!(row.contains("pass"), "{row}\n{strict}");
    }
    for item in [
        "sandbox-write",
        "sandbox-connect",
        "sandbox-signal",
        "sandbox-socket",
        "sandbox-prlimit",
        "sandbox-device",
    ] {
        let row = check_row(&strict, item);
        assert!(
            row.contains("pass") && row.contains("refused"),
            "{row}\n{strict}"
        );
    }
    let off = harness(dir.path(), &["check", s(&a.greedy), "--sandbox", "off"]);
    assert_eq!(off.status.code(), Some(1), "{off}");
    for item in items {
        let row = check_row(&off, item);
        assert!(
            row.contains("FAIL") && row.contains("the sandbox is off"),
            "{row}\n{off}"
        );
    }
}

/// `harness check` of the `external` plugin driving a real program over NBoard: this harness's
/// own front-end serving minimax. At depth 3 (`Depth`, NBoard's `set depth`) it passes; NBoard
/// has no stop command, so at the default depth 10 the `stop` item fails (2 s without an
/// answer under a 50 ms move time), as it should.
#[test]
fn check_passes_the_external_plugin_over_nboard() {
    let a = artifacts();
    let dir = TempDir::new("devloop-check-external");
    let command = format!(
        "Command={} nboard --engine {}",
        s(&a.harness),
        s(&a.minimax)
    );
    let check = harness(
        dir.path(),
        &[
            "check",
            s(&a.external),
            "--option",
            &command,
            "--option",
            "Protocol=nboard",
            "--option",
            "Depth=3",
        ],
    );
    assert_check_passes(&check);
}

/// Each fault of the `faulty` fixture, striking in the first search of every game, fails the
/// check (exit 1) on the item that catches it, with its reason; without a fault it passes.
/// `allocate` runs under a 256 MiB limit (`--memory-limit`; not the others: a panic's backtrace,
/// printed with `RUST_BACKTRACE` set, is slow to build in so little), which it hits; a destroy
/// that never returns fails `destroy` alone. (`info-flood` fails `limits` but floods 2 s per
/// search, and `sleep` fails `stop` as `loop` does: left out to keep the test short.)
#[test]
fn each_fault_fails_the_check_on_its_item() {
    let a = artifacts();
    let dir = TempDir::new("devloop-check-faulty");
    let check = |fault: &str| {
        let option = format!("Fault={fault}");
        let mut args = vec![
            "check",
            s(&a.faulty),
            "--option",
            &option,
            "--option",
            "StrikeAt=1",
        ];
        if fault == "allocate" {
            args.extend(["--memory-limit", "256MiB"]);
        }
        harness(dir.path(), &args)
    };
    let clean = check("none");
    clean.assert_success();
    assert!(clean.stdout.contains("0 failed"), "{clean}");
    for (fault, item, reason) in [
        ("loop", "stop", "lost on time"),
        ("segfault", "stop", "crashed: killed by signal 11"),
        ("abort", "limits", "crashed"),
        ("exit", "determinism", "crashed: exited"),
        ("panic", "new-game", "deliberate panic"),
        ("illegal", "passes-and-end", "illegal move"),
        ("out-of-range", "passes-and-end", "illegal move 99"),
        ("bad-pass", "passes-and-end", "illegal move 64"),
        ("allocate", "stop", "memory limit of 256 MiB hit"),
        (
            "spin-between-turns",
            "between-turns",
            "it runs when it is not asked",
        ),
        (
            "destroy-hang",
            "destroy",
            "did not finish within 2 s of the quit",
        ),
    ] {
        let c = check(fault);
        assert_eq!(c.status.code(), Some(1), "{fault}:\n{c}");
        let row = check_row(&c, item);
        assert!(
            row.contains("FAIL") && row.contains(reason),
            "{fault}: {row}\n{c}"
        );
        assert!(
            check_row(&c, "option-ranges").contains("pass"),
            "{fault}:\n{c}"
        );
        // A fault in the first search of a game is what a run's pre-flight stops on; the
        // hanging destroy costs `destroy` and nothing else, the spinning threads
        // `between-turns` and nothing else.
        let preflight = check_row(&c, "pre-flight");
        if fault == "destroy-hang" || fault == "spin-between-turns" {
            assert!(preflight.contains("pass"), "{c}");
            assert!(
                c.stdout
                    .contains("check: 18 passed, 1 failed, 2 not checked"),
                "{c}"
            );
        } else {
            assert!(
                preflight.contains("FAIL")
                    && preflight.contains("would stop before its first game"),
                "{fault}: {preflight}\n{c}"
            );
        }
    }
}

/// `harness check`'s sandbox probes run in the confined worker before its plugin loads, so
/// that no code of the plugin can answer for them: faulty sets a variable in its environment
/// when its library loads (its worker's log shows it there during a game), and the check's
/// `sandbox-environment` item, probed before that, does not see it.
#[test]
fn the_sandbox_probes_of_check_run_before_the_plugin_loads() {
    let a = artifacts();
    let user = crate::support::user::User::Invoker;
    let dir = user.dir("devloop-check-before-load");
    user.hostile(&dir, ("environ", "FAULTY_LOADED", "strict"), |_| {})
        .assert_log_says("environ", &["has FAULTY_LOADED=1"]);
    let check = harness(dir.path(), &["check", s(&a.faulty)]);
    let row = check_row(&check, "sandbox-environment");
    assert!(
        row.contains("pass") && !row.contains("FAULTY_LOADED"),
        "{row}\n{check}"
    );
}
