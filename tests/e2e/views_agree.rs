//! Every view of one run tells the same numbers. For real runs of several kinds (a test that
//! decided, a test left undecided, shards merged, a run extended and resumed, openings
//! repeated), every view of the same folder is rendered: `harness stats`, `report.json`,
//! `report.md`, `report.html`, the browser's run snapshot of the served folder, and the ledger
//! (`ledger stats`, `ledger runs`). From each the games, W-D-L, score, Elo with its interval,
//! the test's decision and (where the view has them) the verdict and the elapsed time are
//! read, and they must agree as
//! printed. A view added to the harness joins [`views`].

use crate::support::{harness, http_get, TempDir};
use serde_json::Value;
use std::path::Path;

/// What one view says of the first pairing and of the run.
#[derive(Clone, Debug, PartialEq)]
struct Facts {
    games: u64,
    wdl: String,
    /// The score as printed: `92.5%`.
    score: String,
    /// Elo and its 95% interval as printed: `+436.4 [+308.0, +925.1]`.
    elo: String,
    /// `H1 accepted`, `H0 accepted`, `no decision`, or none without a test.
    decision: Option<String>,
}

/// The Elo interval `v` (`{value, low, high}`) printed as every text view prints it.
fn elo_text(v: &Value) -> String {
    let f = |k: &str| {
        v[k].as_f64()
            .map_or("-".to_string(), |x| format!("{x:+.1}"))
    };
    format!("{} [{}, {}]", f("value"), f("low"), f("high"))
}

/// The facts of a pairing object (`report.json`'s `pairings[0]`, the snapshot's
/// `standings[0]`), with `decision` from elsewhere.
fn of_pairing(p: &Value, decision: Option<String>) -> Facts {
    Facts {
        games: p["games"].as_u64().unwrap(),
        wdl: format!("{}-{}-{}", p["wins"], p["draws"], p["losses"]),
        score: format!("{:.1}%", p["score"].as_f64().unwrap() * 100.0),
        elo: elo_text(&p["elo"]),
        decision,
    }
}

/// The decision a text view states: the label `show::text` gives each.
fn decision_in(text: &str, has_test: bool) -> Option<String> {
    if !has_test {
        return None;
    }
    let label = ["H1 accepted", "H0 accepted"]
        .into_iter()
        .find(|l| text.contains(l))
        .unwrap_or("no decision");
    Some(label.to_string())
}

/// The facts of the Results table of `harness stats` (or `ledger stats`): the row of `a`.
fn of_results_table(text: &str, a: &str, has_test: bool) -> Facts {
    let row = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(a))
        .unwrap_or_else(|| panic!("no row of {a} in:\n{text}"));
    let t: Vec<&str> = row.split_whitespace().collect();
    Facts {
        games: t[2].parse().unwrap(),
        wdl: t[3].to_string(),
        score: t[4].to_string(),
        elo: format!("{} {} {}", t[5], t[6], t[7]),
        decision: decision_in(text, has_test),
    }
}

/// The facts of report.md's results table (the row of `a`) and its headline.
fn of_markdown(md: &str, a: &str, has_test: bool) -> Facts {
    let row = md
        .lines()
        .find(|l| l.starts_with(&format!("| {a} |")))
        .unwrap_or_else(|| panic!("no row of {a} in:\n{md}"));
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    let headline = md.lines().find(|l| l.starts_with("**")).unwrap_or_default();
    Facts {
        games: cells[3].parse().unwrap(),
        wdl: cells[4].to_string(),
        score: cells[5].to_string(),
        elo: cells[6].to_string(),
        decision: has_test.then(|| {
            decision_in(headline, true)
                .filter(|_| !headline.contains("No decision"))
                .unwrap_or_else(|| "no decision".into())
        }),
    }
}

/// Every view of the run in `dir/folder`, by name, with the verdict and elapsed time of the
/// views that have them.
fn views(dir: &Path, folder: &str, a: &str) -> Vec<(&'static str, Facts)> {
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(folder).join("report.json")).unwrap(),
    )
    .unwrap();
    let has_test = !report["sprt"].is_null();
    let label = |key: &str| match key {
        "accept_h1" => "H1 accepted",
        "accept_h0" => "H0 accepted",
        _ => "no decision",
    };
    let json_decision =
        has_test.then(|| label(report["sprt"]["decision"].as_str().unwrap()).to_string());
    let mut out = vec![(
        "report.json",
        of_pairing(&report["pairings"][0], json_decision.clone()),
    )];
    let stats = harness(dir, &["stats", folder]);
    stats.assert_success();
    out.push((
        "harness stats",
        of_results_table(&stats.stdout, a, has_test),
    ));
    let md = std::fs::read_to_string(dir.join(folder).join("report.md")).unwrap();
    out.push(("report.md", of_markdown(&md, a, has_test)));
    // The page: the same figures as printed in the other views, and the decision's label.
    let html = std::fs::read_to_string(dir.join(folder).join("report.html")).unwrap();
    let f = &out[0].1;
    for fragment in [&f.wdl, &f.score, &f.elo.replace('-', "−")] {
        assert!(
            html.contains(fragment.as_str()) || html.contains(&fragment.replace('−', "-")),
            "{folder}: report.html does not say {fragment}"
        );
    }
    if let Some(d) = &json_decision {
        if d != "no decision" {
            assert!(
                html.contains(d.as_str()),
                "{folder}: report.html does not say {d}"
            );
        }
    }
    // The browser, serving the folder.
    let (_server, base) =
        crate::web::start_serving(dir, &["serve", folder, "--bind", "127.0.0.1:0"]);
    let snapshot = served_run(&base, report["totals"]["games"].as_u64().unwrap());
    let browser_decision =
        has_test.then(|| snapshot["sprt"]["decision"].as_str().unwrap().to_string());
    out.push((
        "browser",
        of_pairing(&snapshot["standings"][0], browser_decision),
    ));
    // The elapsed time is the run's own, not the viewer's.
    // (A merge's report has none: neither has the page.)
    let elapsed = report["totals"]["elapsed_seconds"].as_f64();
    let shown = snapshot["elapsed_s"].as_f64();
    assert!(
        match (shown, elapsed) {
            (Some(x), Some(y)) => (x - y).abs() < 0.01,
            (x, y) => x == y,
        },
        "{folder}: the browser says {shown:?} s elapsed, report.json {elapsed:?} s"
    );
    // The ledger.
    let db = dir.join(format!("{folder}.db"));
    let db = crate::support::s(&db);
    harness(dir, &["ledger", "add", folder, "--ledger", db]).assert_success();
    let runs = harness(dir, &["ledger", "runs", "--json", "--ledger", db]);
    runs.assert_success();
    let run: Value = serde_json::from_str(runs.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(
        run["games"], report["totals"]["games"],
        "{folder}: ledger runs"
    );
    assert_eq!(
        run["verdict"]["outcome"], report["verdict"]["outcome"],
        "{folder}: ledger runs"
    );
    let ledger_stats = harness(
        dir,
        &[
            "ledger",
            "stats",
            run["id"].as_str().unwrap(),
            "--ledger",
            db,
        ],
    );
    ledger_stats.assert_success();
    out.push((
        "ledger stats",
        of_results_table(&ledger_stats.stdout, a, has_test),
    ));
    out
}

/// The served run's snapshot once it holds all `games`.
fn served_run(base: &str, games: u64) -> Value {
    let started = std::time::Instant::now();
    loop {
        let (status, _, body) = http_get(&format!("{base}run/0/state"), &[], 1 << 22);
        assert_eq!(status, 200, "{body}");
        // Nothing yet: the server answers before its model has read the folder.
        let v: Value = serde_json::from_str(&body).unwrap_or_default();
        if v["done"].as_u64() == Some(games) && v["finished"] == true {
            return v;
        }
        assert!(
            started.elapsed().as_secs() < 30,
            "the served run never showed {games} games: {v}"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
}

/// Every view agrees with report.json.
fn assert_agree(folder: &str, views: &[(&str, Facts)]) {
    let (first, expected) = &views[0];
    for (name, facts) in &views[1..] {
        assert_eq!(facts, expected, "{folder}: {name} disagrees with {first}");
    }
}

/// `heuristic` at depth 2 against `greedy`, with `flags`; its exit code.
fn play(dir: &Path, flags: &str) -> Option<i32> {
    let mut args = vec![
        "run",
        "--engine",
        "name=cand,plugin=heuristic,Depth=2",
        "--engine",
        "name=base,plugin=greedy",
        "--format",
        "match",
        "--time",
        "depth=2",
        "--no-tui",
    ];
    args.extend(flags.split_whitespace());
    harness(dir, &args).status.code()
}

#[test]
fn every_view_of_a_run_tells_the_same_numbers() {
    let dir = TempDir::new("views-agree");
    let d = dir.path();
    // A test that decided (H1 after about 50 pairs), and one left undecided.
    assert_eq!(
        play(d, "--pairs 100 --sprt elo0=0,elo1=20 --out decided"),
        Some(0)
    );
    assert_eq!(
        play(d, "--pairs 12 --sprt elo0=0,elo1=20 --out undecided"),
        Some(3)
    );
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
    assert_eq!(
        play(d, "--pairs 10 --openings five.txt --out repeated"),
        Some(0)
    );
    for folder in ["decided", "undecided", "sharded", "extended", "repeated"] {
        let views = views(d, folder, "cand");
        assert_agree(folder, &views);
    }
}
