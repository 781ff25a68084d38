//! The runs of the other kinds, each checked as the first ones: a fail-on rule broken, games
//! adjudicated and then analysed, a run stopped by SIGINT and resumed, a round robin of three
//! engines (their joint ratings), and `run --serve`'s own server against its final report.

use super::read::{self, assert_agree, of_snapshot};
use super::{run, run_args, ENGINES};
use crate::support::{artifacts, harness, read_games, spawn_harness, wait_for_games, TempDir};
use harness_core::record::Termination;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Command, Stdio};

/// `fail-on = "crash"` broken: a candidate that crashes late in most games fails the run (exit
/// code 1) however the games went; the `FAIL` line of the run's output, report.json,
/// report.md, report.html and the ledger's run give the same verdict and reasons, and every
/// view counts the forfeits as the lost games they are.
#[test]
fn a_broken_fail_on_rule() {
    let dir = TempDir::new("views-fail-on");
    let d = dir.path();
    let faulty = "name=cand,plugin=faulty,Fault=segfault,StrikeAt=26,fail-on=crash";
    let out = run(
        d,
        &[faulty, "name=base,plugin=heuristic,Depth=2"],
        "--format match --pairs 4 --out failed",
    );
    assert_eq!(out.status.code(), Some(1), "{out}");
    let seen = read::check(d, "failed", ("cand", "base"), Some(1));
    let verdict = &seen.report["verdict"];
    assert_eq!(verdict["outcome"], "fail");
    let crashes = read_games(&d.join("failed"))
        .iter()
        .filter(|r| r.termination == Termination::Crash && r.forfeited_by() == Some("cand"))
        .count();
    assert!(crashes > 0, "the candidate never crashed");
    let reason = verdict["reasons"][0].as_str().unwrap();
    assert!(
        reason.starts_with(&format!("cand forfeited {crashes} game(s)")),
        "{reason}"
    );
    assert!(out.stdout.contains(&format!("FAIL: {reason}")), "{out}");
    assert_eq!(seen.report["totals"]["forfeits"], crashes);
}

/// A run that measured nothing: `old` answers the pre-flight (with an illegal move) and then
/// forfeits every game before its first move, and the forfeits alone take the test past H1's
/// bound. Every view gives the run's verdict as `unmeasured` with its reasons and exit code 2
/// (report.md, report.html, the ledger's run, the run's own last lines), the terminal
/// included, and none but the test's own line calls the result H1 accepted; every view counts
/// the forfeits as the lost games they are.
#[test]
fn a_run_that_measured_nothing() {
    let dir = TempDir::new("views-unmeasured");
    let d = dir.path();
    let out = run(
        d,
        &[
            "name=new,plugin=greedy",
            "name=old,plugin=faulty,Fault=illegal,StrikeAt=1",
        ],
        "--format match --time depth=1 --openings xot-large --pairs 20 --sprt elo0=0,elo1=100 --out unmeasured",
    );
    assert_eq!(out.status.code(), Some(2), "{out}");
    let seen = read::check(d, "unmeasured", ("new", "old"), Some(2));
    let verdict = &seen.report["verdict"];
    assert_eq!(verdict["outcome"], "unmeasured", "{verdict}");
    let reason = verdict["reasons"][0].as_str().unwrap();
    assert!(reason.starts_with("old never made a move"), "{reason}");
    assert!(
        out.stdout.contains(&format!("UNMEASURED: {reason}")),
        "{out}"
    );
    let forfeits = read_games(&d.join("unmeasured"))
        .iter()
        .filter(|r| r.forfeited_by() == Some("old"))
        .count();
    assert_eq!(seen.report["totals"]["forfeits"], forfeits);
    assert_eq!(
        forfeits,
        seen.report["totals"]["games"].as_u64().unwrap() as usize
    );
    // The test's decision is the test's; the run's is "no measurement", never a pass.
    for (view, text) in [("report.md", &seen.md), ("the run's lines", &out.stdout)] {
        assert!(
            text.contains("No measurement") || text.contains("no measurement"),
            "{view}: {text}"
        );
    }
    let printed = read::of_results_table(&out.stdout, ("new", "old"), true);
    assert_agree(
        "unmeasured",
        &[seen.facts[0].clone(), ("the run's own tables", printed)],
    );
}

/// Games adjudicated by the exact solver at 12 empties, then the run analysed from 16: every
/// view counts the adjudicated games alike before and after, and the analysis changes no
/// result, interval, decision, verdict or elapsed time that any view states; `harness stats`
/// gives the analysis report.json gives.
#[test]
fn adjudicated_then_analysed() {
    let dir = TempDir::new("views-adjudicated");
    let d = dir.path();
    assert_eq!(
        super::play(d, "--pairs 6 --adjudication 12 --out adjudicated"),
        Some(0)
    );
    let before = read::check(d, "adjudicated", ("cand", "base"), Some(0));
    let adjudicated = |report: &Value| {
        report["openings"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|o| o["games"].as_array().unwrap())
            .filter(|g| g["termination"] == "adjudicated")
            .count()
    };
    let journal = read_games(&d.join("adjudicated"))
        .iter()
        .filter(|r| r.termination == Termination::Adjudicated)
        .count();
    assert!(journal > 0, "no game was adjudicated");
    assert_eq!(adjudicated(&before.report), journal, "report.json");
    // The 12 games are all among the browser's recent results.
    let recent = before.snapshot["recent"].as_array().unwrap();
    assert_eq!(recent.len(), 12);
    let shown = recent
        .iter()
        .filter(|g| g["termination"] == "adjudicated")
        .count();
    assert_eq!(shown, journal, "the browser's recent games");

    harness(
        d,
        &[
            "analyze",
            "adjudicated",
            "--from-empties",
            "16",
            "--jobs",
            "2",
        ],
    )
    .assert_success();
    let after = read::check(d, "adjudicated", ("cand", "base"), None);
    assert_eq!(after.facts, before.facts, "the analysis changed a view");
    for key in ["verdict", "totals", "pairings", "sprt", "openings"] {
        assert_eq!(
            after.report[key], before.report[key],
            "the analysis changed report.json's {key}"
        );
    }
    assert_eq!(after.snapshot["elapsed_s"], before.snapshot["elapsed_s"]);
    // The analysis itself, per engine: moves analysed and the share that were best.
    let analysis = &after.report["analysis"];
    assert_eq!(analysis["from_empties"], 16);
    for e in analysis["engines"].as_array().unwrap() {
        let name = e["engine"].as_str().unwrap();
        let (moves, best) = (
            e["all"]["moves"].as_u64().unwrap(),
            e["all"]["best"].as_f64(),
        );
        let best = format!("{:.1}%", 100.0 * best.unwrap() / moves.max(1) as f64);
        let row = after
            .stats
            .lines()
            .skip_while(|l| !l.starts_with("Analysis"))
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("no analysis row of {name}:\n{}", after.stats));
        let words: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(
            (words[2], words[3]),
            (moves.to_string().as_str(), best.as_str()),
            "harness stats' analysis of {name}"
        );
    }
}

/// A run stopped by SIGINT (exit code 3, verdict interrupted in every view that states one),
/// then run again to its end: every view agrees on the whole run, its verdict and its elapsed
/// time.
#[test]
fn stopped_by_sigint_then_resumed() {
    let dir = TempDir::new("views-resumed");
    let d = dir.path();
    // 0.02 s a move: about half a second a game, so that the stop comes mid-run.
    let flags = "--format match --pairs 6 --time 0.02/move --out resumed";
    let args = run_args(&ENGINES, flags);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let child = spawn_harness(d, &args, true);
    wait_for_games(&d.join("resumed/games.jsonl"), 4);
    let kill = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(kill.success());
    let stopped = child.wait_with_output().unwrap();
    assert_eq!(
        stopped.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&stopped.stdout)
    );
    let seen = read::check(d, "resumed", ("cand", "base"), Some(3));
    assert_eq!(seen.report["verdict"]["outcome"], "interrupted");
    assert!(seen.report["totals"]["games"].as_u64().unwrap() < 12);
    let first = seen.report["totals"]["elapsed_seconds"].as_f64().unwrap();
    // Time between the sessions is not the run's.
    std::thread::sleep(std::time::Duration::from_secs(2));

    let started = std::time::Instant::now();
    let out = run(d, &ENGINES, flags);
    let wall = started.elapsed().as_secs_f64();
    assert_eq!(out.status.code(), Some(0), "{out}");
    let seen = read::check(d, "resumed", ("cand", "base"), Some(0));
    assert_eq!(seen.report["totals"]["games"], 12);
    assert_eq!(seen.report["verdict"]["outcome"], "pass");
    // One clock: the resume added its own time to the first session's, every view says the
    // total (the browser's is checked against report.json by `read::check`).
    let totals = seen.report["totals"].clone();
    let total = totals["elapsed_seconds"].as_f64().unwrap();
    let own = totals["session_seconds"].as_f64().unwrap();
    assert!(
        (total - own - first).abs() < 1e-3 && own <= wall,
        "first session {first} s, then {totals} (the resume took {wall} s)"
    );
    let words = format!("{}, this session {}", read::hms(total), read::hms(own));
    assert!(
        out.stdout.contains(&format!("12 games in {words};")),
        "{out}"
    );
    assert!(seen.md.contains(&format!("games, {words}")), "{}", seen.md);
    let verdict = read::json(&d.join("resumed/verdict.json"));
    assert_eq!(verdict["elapsed_seconds"], totals["elapsed_seconds"]);
    assert_eq!(verdict["session_seconds"], totals["session_seconds"]);

    // Run again with nothing left to play: the run's time is kept, and no session is added.
    let clock = std::fs::read_to_string(d.join("resumed/clock.json")).unwrap();
    let out = run(d, &ENGINES, flags);
    assert_eq!(out.status.code(), Some(0), "{out}");
    assert!(
        out.stdout
            .contains(&format!("12 games in {};", read::hms(total))),
        "{out}"
    );
    let report = read::json(&d.join("resumed/report.json"));
    assert_eq!(
        report["totals"]["elapsed_seconds"],
        totals["elapsed_seconds"]
    );
    assert!(
        report["totals"].get("session_seconds").is_none(),
        "{report}"
    );
    assert_eq!(
        std::fs::read_to_string(d.join("resumed/clock.json")).unwrap(),
        clock
    );
}

/// A round robin of three engines: every pairing's row agrees in every view, and so does the
/// joint rating (each engine's rank, Elo and interval) in report.json, `harness stats`,
/// report.md, the browser and `ledger stats`.
#[test]
fn a_round_robin_of_three() {
    let dir = TempDir::new("views-round-robin");
    let d = dir.path();
    let engines = [ENGINES[0], ENGINES[1], "name=mm,plugin=minimax,Depth=1"];
    let out = run(d, &engines, "--format round-robin --pairs 3 --out rr");
    assert_eq!(out.status.code(), Some(0), "{out}");
    let seen = read::check(d, "rr", ("cand", "base"), Some(0));
    for pairing in [("cand", "mm"), ("base", "mm")] {
        assert_agree(&format!("rr, {pairing:?}"), &seen.pairing(pairing));
    }
    let ratings = seen.report["ratings"]["engines"].as_array().unwrap();
    assert_eq!(ratings.len(), 3);
    let rows: Vec<String> = ratings
        .iter()
        .map(|r| rating_row(r["rank"].as_u64().unwrap(), r))
        .collect();
    // The text tables: `rank engine Elo [low, high] games score`.
    for (view, text) in [
        ("harness stats", &seen.stats),
        ("ledger stats", &seen.ledger_stats),
    ] {
        let shown: Vec<String> = text
            .lines()
            .skip_while(|l| !l.starts_with("Joint rating"))
            .skip(2)
            .take(3)
            .map(|l| l.split_whitespace().take(5).collect::<Vec<_>>().join(" "))
            .collect();
        assert_eq!(shown, rows, "{view}'s joint rating");
    }
    let md: Vec<String> = seen
        .md
        .lines()
        .skip_while(|l| !l.starts_with("Joint rating"))
        .skip(4)
        .take(3)
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            cells[1..5].join(" ")
        })
        .collect();
    assert_eq!(md, rows, "report.md's joint rating");
    let browser: Vec<String> = seen.snapshot["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .zip(1..)
        .map(|(r, rank)| rating_row(rank, r))
        .collect();
    assert_eq!(browser, rows, "the browser's joint rating");
}

/// `run --serve`: the last snapshot the run's own server streams (`/run/0/events`, read until
/// the server closes at the run's end) is the finished run, and it says what the final
/// report.json says, its elapsed time (the run's, start included) too: the server stops only
/// once the run has written its verdict and the streams have sent the last snapshot.
#[test]
fn run_serve_ends_on_the_final_report() {
    let dir = TempDir::new("views-run-serve");
    let d = dir.path();
    let args = run_args(
        &ENGINES,
        "--format match --pairs 6 --out live --serve=127.0.0.1:0",
    );
    let mut child = Command::new(&artifacts().harness)
        .args(&args)
        .current_dir(d)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let page = loop {
        let line = lines.next().expect("the URL line").unwrap();
        if line.starts_with("http://") && line.ends_with("/run/0") {
            break line;
        }
    };
    let drain = std::thread::spawn(move || lines.map_while(Result::ok).collect::<Vec<_>>());
    let snapshots = event_stream(&format!("{page}/events"));
    let status = child.wait().unwrap();
    let output = drain.join().unwrap().join("\n");
    assert_eq!(status.code(), Some(0), "{output}");
    let last = snapshots.last().expect("no snapshot streamed");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("live/report.json")).unwrap())
            .unwrap();
    let games = report["totals"]["games"].as_u64().unwrap();
    assert_eq!(
        (last["done"].as_u64(), last["finished"].as_bool()),
        (Some(games), Some(true)),
        "the last snapshot of {} streamed is not the finished run",
        snapshots.len()
    );
    let json = read::of_pairing(&report["pairings"][0], None, &report["repeated_openings"]);
    assert_eq!(
        of_snapshot(last),
        json,
        "the served run against report.json"
    );
    read::assert_elapsed_agrees("live", last, &report, 0.01);
}

/// The snapshots of a server-sent event stream at `url`, read until the server closes it
/// (asked over HTTP/1.0, so the body is the events as sent, ended by the close).
fn event_stream(url: &str) -> Vec<Value> {
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_at(rest.find('/').unwrap());
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    write!(stream, "GET {path} HTTP/1.0\r\nHost: {host}\r\n\r\n").unwrap();
    let mut body = Vec::new();
    loop {
        let mut buf = [0u8; 65536];
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => body.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
    let body = String::from_utf8_lossy(&body);
    assert!(
        body.starts_with("HTTP/1.0 200") || body.starts_with("HTTP/1.1 200"),
        "{body}"
    );
    body.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .map(|data| serde_json::from_str(data.trim()).unwrap())
        .collect()
}

/// A joint rating's row as the text tables print its first columns: `2 mm -552.6 [-1063.9,
/// -41.4]`.
fn rating_row(rank: u64, r: &Value) -> String {
    let f = |k: &str| format!("{:+.1}", r[k].as_f64().unwrap());
    format!(
        "{rank} {} {} [{}, {}]",
        r["name"].as_str().unwrap(),
        f("elo"),
        f("low"),
        f("high")
    )
}
