//! The sequential test gates a run: exit code 1 when H0 is accepted (the candidate is weaker),
//! 0 when H1 is, 3 when the game budget runs out undecided, and the run stops early; a run that
//! fails a `fail-on` rule reports FAIL with the rule, not the test's decision; `sprt-sim`
//! refuses flags it cannot work with.

use crate::support::{
    artifacts, check_record, check_schedule, engine, engine_flag, harness, match_file, match_of,
    read_games, report_json, run, s, TempDir, TournamentFile,
};

/// A match of minimax at depth `candidate` against minimax at depth `baseline`, with a
/// sequential test on [0, 50] Elo and at most `pairs` pairs.
fn gate(
    label: &str,
    candidate: u32,
    baseline: u32,
    pairs: usize,
    extra: &str,
) -> (TempDir, crate::support::Output) {
    let a = artifacts();
    let dir = TempDir::new(label);
    let toml = TournamentFile::new("match", pairs, "move-time = 10.0")
        .openings("builtin = \"xot-small\"\norder = \"shuffled\"\nseed = 3")
        .table(&format!(
            "[sprt]\nelo0 = 0\nelo1 = 50\nalpha = 0.05\nbeta = 0.05\n{extra}\n"
        ))
        .engine(engine(
            "candidate",
            s(&a.minimax),
            &format!("Depth = {candidate}"),
        ))
        .engine(engine(
            "baseline",
            s(&a.minimax),
            &format!("Depth = {baseline}"),
        ))
        .text();
    dir.write("t.toml", &toml);
    let run = harness(dir.path(), &["run", "t.toml"]);
    (dir, run)
}

/// A test on `candidate`'s depth against `baseline`'s that decides: exit code `code`, the
/// decision `says` printed, and the run stopped long before its budget of 400 games, with only
/// complete pairs played: the first pairs of the schedule, each with both its games.
fn assert_decided(
    label: &str,
    (candidate, baseline): (u32, u32),
    extra: &str,
    code: i32,
    says: &str,
) {
    let (dir, run) = gate(label, candidate, baseline, 200, extra);
    assert_eq!(run.status.code(), Some(code), "{run}");
    assert!(run.stdout.contains(says), "{run}");
    let games = read_games(&dir.join("out"));
    assert!(games.len() < 200, "{} games:\n{run}", games.len());
    check_schedule(&games, &[("candidate", "baseline")], games.len() / 2);
    for g in &games {
        check_record(g);
    }
}

#[test]
fn weaker_candidate_is_rejected_with_exit_code_1() {
    assert_decided("sprt-weaker", (1, 4), "", 1, "H0 accepted");
}

/// Running a decided test again into its folder (a CI retry) keeps the decision: nothing new is
/// played, the exit code is the same.
#[test]
fn resumed_decided_test_plays_nothing_more() {
    let (dir, run) = gate("sprt-resume-decided", 1, 4, 200, "");
    assert_eq!(run.status.code(), Some(1), "{run}");
    let before = read_games(&dir.join("out")).len();
    let again = crate::support::harness(dir.path(), &["run", "t.toml"]);
    assert_eq!(again.status.code(), Some(1), "{again}");
    assert!(again.stdout.contains("resuming:"), "{again}");
    assert!(again.stdout.contains("H0 accepted"), "{again}");
    assert_eq!(read_games(&dir.join("out")).len(), before, "{again}");
}

#[test]
fn stronger_candidate_is_accepted_with_exit_code_0() {
    let normalized = "model = \"normalized\"";
    assert_decided("sprt-stronger", (4, 1), normalized, 0, "H1 accepted");
}

#[test]
fn budget_exhausted_undecided_gives_exit_code_3() {
    let (dir, run) = gate("sprt-undecided", 3, 3, 2, "");
    assert_eq!(run.status.code(), Some(3), "{run}");
    assert!(run.stdout.contains("undecided"), "{run}");
    assert_eq!(read_games(&dir.join("out")).len(), 4);
}

#[test]
fn sprt_needs_a_match_and_valid_bounds() {
    let a = artifacts();
    let dir = TempDir::new("sprt-bad");
    let base = format!(
        "[tournament]\nformat = \"gauntlet\"\npairs = 2\nout = \"out\"\n\n[time]\ndepth = 1\n\n[openings]\nbuiltin = \"xot-small\"\n\n[sprt]\nelo0 = 0\nelo1 = 5\n{}{}{}",
        engine("a", s(&a.greedy), ""),
        engine("b", s(&a.minimax), ""),
        engine("c", s(&a.minimax), "Depth = 2"),
    );
    dir.write("t.toml", &base);
    harness(dir.path(), &["run", "t.toml"])
        .assert_error()
        .assert_stderr_has(&["t.toml:12", "sprt", "match"]);
    let bounds = base
        .replace("gauntlet", "match")
        .replace("elo1 = 5", "elo1 = -5")
        .replace(&engine("c", s(&a.minimax), "Depth = 2"), "");
    dir.write("u.toml", &bounds);
    harness(dir.path(), &["run", "u.toml"])
        .assert_error()
        .assert_stderr_has(&["u.toml:14", "elo1"]);
}

#[test]
fn sprt_from_counts_reproduces_reference_values() {
    let dir = TempDir::new("sprt-counts");
    let run = harness(
        dir.path(),
        &[
            "sprt",
            "--penta",
            "400,80,920,70,330",
            "--elo0",
            "0",
            "--elo1",
            "5",
        ],
    );
    assert_eq!(run.status.code(), Some(1), "{run}");
    assert!(run.stdout.contains("LLR -2.965"), "{run}");
    let run = harness(
        dir.path(),
        &[
            "sprt",
            "--penta",
            "3,2,11,3,6",
            "--elo0",
            "0",
            "--elo1",
            "5",
            "--model",
            "normalized",
        ],
    );
    assert_eq!(run.status.code(), Some(3), "{run}");
    assert!(run.stdout.contains("LLR +0.106"), "{run}");
}

/// The documented CI example parses as it is.
#[test]
fn documented_gate_example_is_a_valid_tournament_file() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/examples/sprt-gate.toml");
    let t = harness_core::plan::config::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let sprt = t.sprt.expect("the example has an [sprt] table");
    assert_eq!((sprt.params.elo0, sprt.params.elo1), (-5.0, 0.0));
    assert!(sprt.fail_on_crash);
}

/// One pair of `candidate` against `baseline` (engine tables), with an `[sprt]` table holding
/// `sprt` if given; returns the run's exit code and output, after checking every game was
/// played and recorded.
fn fail_rule_run(
    label: &str,
    candidate: String,
    baseline: String,
    sprt: Option<&str>,
) -> (i32, String) {
    let dir = TempDir::new(label);
    let mut file = TournamentFile::new("match", 1, "depth = 1");
    if let Some(rules) = sprt {
        file = file.table(&format!("[sprt]\nelo0 = 0\nelo1 = 50\n{rules}\n"));
    }
    dir.write("t.toml", &file.engine(candidate).engine(baseline).text());
    let run = harness(dir.path(), &["run", "t.toml", "--no-tui"]);
    run.assert_no_workers_left();
    let games = read_games(&dir.join("out"));
    assert_eq!(games.len(), 2, "{label}: every game is recorded:\n{run}");
    for g in &games {
        check_record(g);
    }
    (run.status.code().expect("an exit code"), run.stdout.clone())
}

/// The fail-on rules on engines that really crash (segfault) or forfeit (an illegal move): the
/// `[sprt]` table's `fail-on-crash` fails the run (exit 1) on the candidate's crash but not on
/// its illegal move, `fail-on-forfeit` on any forfeit of the candidate, neither on the
/// baseline's; an engine's `fail-on = "forfeit"` fails a run without a test on its illegal move,
/// where `fail-on = "crash"` does not, and keeps failing it under a test whose own rule is only
/// `fail-on-crash` (the test's rule makes an engine's stricter, never looser). Without a rule,
/// one pair decides nothing: exit 3 (with a test) or 0, which is what a rule changes.
#[test]
fn fail_on_rules_fail_the_run_on_real_crashes_and_forfeits() {
    let a = artifacts();
    let faulty = |name: &str, fault: &str, extra: &str| {
        engine(
            name,
            s(&a.faulty),
            &format!("Fault = \"{fault}\", StrikeAt = 3"),
        ) + extra
    };
    let greedy = |name: &str| engine(name, s(&a.greedy), "");
    let crash = || faulty("candidate", "segfault", "");
    let illegal = || faulty("candidate", "illegal", "");
    let cases: [(&str, String, String, Option<&str>, i32); 8] = [
        ("no-rule", crash(), greedy("baseline"), Some(""), 3),
        (
            "crash-on-crash",
            crash(),
            greedy("baseline"),
            Some("fail-on-crash = true"),
            1,
        ),
        (
            "crash-on-illegal",
            illegal(),
            greedy("baseline"),
            Some("fail-on-crash = true"),
            3,
        ),
        (
            "forfeit-on-illegal",
            illegal(),
            greedy("baseline"),
            Some("fail-on-forfeit = true"),
            1,
        ),
        (
            "baseline-crash",
            greedy("candidate"),
            faulty("baseline", "segfault", ""),
            Some("fail-on-crash = true\nfail-on-forfeit = true"),
            3,
        ),
        (
            "engine-forfeit",
            faulty("candidate", "illegal", "fail-on = \"forfeit\"\n"),
            greedy("baseline"),
            None,
            1,
        ),
        (
            "engine-forfeit-under-sprt-crash",
            faulty("candidate", "illegal", "fail-on = \"forfeit\"\n"),
            greedy("baseline"),
            Some("fail-on-crash = true"),
            1,
        ),
        (
            "engine-crash-on-illegal",
            faulty("candidate", "illegal", "fail-on = \"crash\"\n"),
            greedy("baseline"),
            None,
            0,
        ),
    ];
    for (label, candidate, baseline, sprt, expected) in cases {
        let (code, stdout) = fail_rule_run(label, candidate, baseline, sprt);
        assert_eq!(code, expected, "{label}:\n{stdout}");
        let failed = stdout.contains("FAIL: candidate forfeited 2 game(s)");
        assert_eq!(failed, expected == 1, "{label}: the FAIL line:\n{stdout}");
    }
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

/// `sprt-sim` refuses flags it cannot work with (it panicked on the first two, and accepted
/// bounds `harness sprt` refuses).
#[test]
fn sprt_sim_refuses_impossible_flags() {
    let dir = TempDir::new("sprt-sim-flags");
    dir.write("t.toml", &match_file(2));
    harness(dir.path(), &["run", "t.toml", "--no-tui"]).assert_success();
    for (flags, message) in [
        (&["--runs", "0"][..], "--runs: must be at least 1"),
        (
            &["--check-every", "0"][..],
            "--check-every: must be at least 1",
        ),
        (
            &["--elo0", "5", "--elo1", "0"][..],
            "--elo1: must be greater than elo0",
        ),
        (
            &["--nelo0", "5", "--nelo1", "0"][..],
            "--nelo1: must be greater than elo0",
        ),
    ] {
        let mut args = vec!["sprt-sim", "out/arena"];
        args.extend_from_slice(flags);
        harness(dir.path(), &args)
            .assert_error()
            .assert_stderr_has(&[message]);
    }
}
