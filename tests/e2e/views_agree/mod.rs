//! Every view of one run tells the same numbers. For real runs of several kinds (a test that
//! decided, a test left undecided, shards merged, a run extended and resumed, openings
//! repeated; in [`kinds`] a fail-on rule broken, games adjudicated then analysed, a run stopped
//! by SIGINT then resumed, a round robin of three engines), every view of the same folder is
//! rendered: `harness stats`, `report.json`, `report.md`, `report.html`, the browser's run
//! snapshot of the served folder, and the ledger (`ledger stats`, `ledger runs`). From each the
//! games, W-D-L, score, Elo with its interval, the discs per game with theirs, the test's
//! decision, the repeated-openings warning and (where the view has them) the verdict with its
//! reasons and the elapsed time are read, and they must agree as printed. A view added to the
//! harness joins [`read::views`].

mod kinds;
mod read;
mod terminal;

use crate::support::{harness, Output, TempDir};
use serde_json::Value;
use std::path::Path;

/// The engines of most runs here: `heuristic` at depth 2 against `greedy`.
const ENGINES: [&str; 2] = [
    "name=cand,plugin=heuristic,Depth=2",
    "name=base,plugin=greedy",
];

/// The command line of a run of `engines` (each an `--engine` value) at depth 2 (unless
/// `flags` give a `--time`), without the terminal view, with `flags`.
fn run_args(engines: &[&str], flags: &str) -> Vec<String> {
    let mut args = vec!["run".to_string()];
    for e in engines {
        args.extend(["--engine".to_string(), e.to_string()]);
    }
    if !flags.contains("--time") {
        args.extend(["--time".to_string(), "depth=2".to_string()]);
    }
    args.push("--no-tui".to_string());
    args.extend(flags.split_whitespace().map(str::to_string));
    args
}

/// A run of `engines` with `flags` (see [`run_args`]).
fn run(dir: &Path, engines: &[&str], flags: &str) -> Output {
    let args = run_args(engines, flags);
    harness(dir, &args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// A match of [`ENGINES`] with `flags`; its exit code.
fn play(dir: &Path, flags: &str) -> Option<i32> {
    run(dir, &ENGINES, &format!("--format match {flags}"))
        .status
        .code()
}

#[test]
fn every_view_of_a_run_tells_the_same_numbers() {
    let dir = TempDir::new("views-agree");
    let d = dir.path();
    // A test that decided (H1 after about 50 pairs), and one left undecided.
    let decided = run(
        d,
        &ENGINES,
        "--format match --pairs 100 --sprt elo0=0,elo1=20 --out decided",
    );
    assert_eq!(decided.status.code(), Some(0), "{decided}");
    let undecided = run(
        d,
        &ENGINES,
        "--format match --pairs 12 --sprt elo0=0,elo1=20 --out undecided",
    );
    assert_eq!(undecided.status.code(), Some(3), "{undecided}");
    // Shards, then their merge.
    for i in 0..2 {
        assert_eq!(
            play(d, &format!("--pairs 6 --out sharded --shard {i}/2")),
            Some(0)
        );
    }
    harness(d, &["merge", "sharded"]).assert_success();
    // A run extended: 4 pairs, then resumed to 8.
    assert_eq!(play(d, "--pairs 4 --out extended"), Some(0));
    assert_eq!(play(d, "--pairs 8 --out extended"), Some(0));
    // Repeated openings: 10 pairs from 5 openings (the intervals count the openings).
    dir.write("five.txt", "f5d6\nf5f6\nf5f4\nf5d6c3\nf5f6e6\n");
    let repeated = run(
        d,
        &ENGINES,
        "--format match --pairs 10 --openings five.txt --out repeated",
    );
    assert_eq!(repeated.status.code(), Some(0), "{repeated}");
    let played = [
        ("decided", Some(&decided)),
        ("undecided", Some(&undecided)),
        ("sharded", None),
        ("extended", None),
        ("repeated", Some(&repeated)),
    ];
    for (folder, output) in played {
        let seen = read::check(d, folder, ("cand", "base"), None);
        // The browser words the test's evidence as report.md does: a decided test's LLR
        // against the bound it crossed, never "between" its bounds.
        if let Some(evidence) = seen.snapshot["sprt"]["evidence"].as_str() {
            let decided = seen.snapshot["sprt"]["decision_key"] != "continue";
            assert!(
                !decided || (seen.md.contains(evidence) && !evidence.contains("between")),
                "{folder}: the browser says `{evidence}`, report.md:\n{}",
                seen.md
            );
        }
        // One clock: the merged run's time is its shards' span with their sum beside it; the
        // extended run's is both sessions'.
        let totals = &seen.report["totals"];
        let clock = |dir: &str| -> Value {
            serde_json::from_str(&std::fs::read_to_string(d.join(dir).join("clock.json")).unwrap())
                .unwrap()
        };
        if folder == "sharded" {
            let shards: Vec<Value> = (0..2)
                .map(|i| clock(&format!("sharded/shard-{i}-of-2")))
                .collect();
            let sum: f64 = shards
                .iter()
                .map(|c| c["elapsed_seconds"].as_f64().unwrap())
                .sum();
            let span = totals["elapsed_seconds"]
                .as_f64()
                .expect("a merged run's span");
            assert!(
                (totals["shards_elapsed_seconds"].as_f64().unwrap() - sum).abs() < 1e-6,
                "{totals}"
            );
            // Played one after the other, the span holds both shards.
            assert!(span + 0.01 >= sum && sum > 0.0, "span {span}, sum {sum}");
            assert!(
                seen.md
                    .contains(&format!("its shards' sum {}", read::hms(sum))),
                "{}",
                seen.md
            );
        }
        if folder == "extended" {
            let c = clock("extended");
            assert_eq!(c["sessions"], 2, "{c}");
            let (total, own) = (
                totals["elapsed_seconds"].as_f64().unwrap(),
                totals["session_seconds"].as_f64().unwrap(),
            );
            assert!(total > own && own > 0.0, "{totals}");
        }
        // The tables the run itself printed at its end say what every other view says.
        if let Some(output) = output {
            let has_test = !seen.report["sprt"].is_null();
            let printed = read::of_results_table(&output.stdout, ("cand", "base"), has_test);
            read::assert_agree(
                folder,
                &[seen.facts[0].clone(), ("the run's own tables", printed)],
            );
        }
    }
}
