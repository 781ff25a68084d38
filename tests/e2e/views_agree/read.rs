//! Reading each view of a run folder: the facts it states of the first pairing and of the
//! run, parsed from the text it prints (or the JSON it sends), and the checks that they agree.

use crate::support::{harness, http_get};
use serde_json::Value;
use std::path::Path;

/// What one view says of the first pairing and of the run.
#[derive(Clone, Debug, PartialEq)]
pub struct Facts {
    pub games: u64,
    pub wdl: String,
    /// The score as printed: `92.5%`.
    pub score: String,
    /// Elo and its 95% interval as printed: `+436.4 [+308.0, +925.1]`.
    pub elo: String,
    /// The mean disc difference per game and its interval, as printed: `+26.8 [-4.0, +57.5]`
    /// (`-` without one).
    pub discs: String,
    /// `H1 accepted`, `H0 accepted`, `no decision`, or none without a test.
    pub decision: Option<String>,
    /// The repeated-openings warning, one sentence, or none.
    pub warning: Option<String>,
}

/// A standings cell of an interval `v` (`{value, low, high}` or null) as every text view
/// prints it: `+1.0 [-2.0, +4.0]`, `+1.0 [no interval]` where the pairing's intervals are
/// withheld, `-` without a value.
fn interval_text(v: &Value, withheld: bool) -> String {
    let f = |k: &str| {
        v[k].as_f64()
            .map_or("-inf".to_string(), |x| format!("{x:+.1}"))
    };
    match v["value"].as_f64() {
        None => "-".to_string(),
        Some(x) if withheld => format!("{x:+.1} [no interval]"),
        Some(_) => format!("{} [{}, {}]", f("value"), f("low"), f("high")),
    }
}

/// The facts of a pairing object (`report.json`'s `pairings[0]`, the snapshot's
/// `standings[0]`), with `decision` and `warning` from elsewhere in the same document.
pub fn of_pairing(p: &Value, decision: Option<String>, warning: &Value) -> Facts {
    let withheld = !p["interval_withheld"].is_null();
    Facts {
        games: p["games"].as_u64().unwrap(),
        wdl: format!("{}-{}-{}", p["wins"], p["draws"], p["losses"]),
        score: format!("{:.1}%", p["score"].as_f64().unwrap() * 100.0),
        elo: interval_text(&p["elo"], withheld),
        discs: interval_text(&p["disc_diff"], withheld),
        decision,
        warning: warning["warning"].as_str().map(str::to_string),
    }
}

/// The decision a text view states: the label `show::text` gives each.
/// The decision of a test in a run that measured nothing, as every view must give it.
pub const NO_MEASUREMENT: &str = "no measurement";

fn decision_in(text: &str, has_test: bool) -> Option<String> {
    if !has_test {
        return None;
    }
    // A decision reached on forfeits alone (an engine never moved) measures nothing.
    if text.contains("reached on forfeits alone") {
        return Some(NO_MEASUREMENT.to_string());
    }
    let label = ["H1 accepted", "H0 accepted"]
        .into_iter()
        .find(|l| text.contains(l))
        .unwrap_or("no decision");
    Some(label.to_string())
}

/// The repeated-openings warning of a text view: the sentence from `openings repeat:` to the
/// end of its line (or paragraph), without the closing full stop.
fn warning_in(text: &str) -> Option<String> {
    let start = text.find("openings repeat: ")?;
    let rest = &text[start..];
    let end = rest.find(['\n', '<']).unwrap_or(rest.len());
    Some(rest[..end].trim_end_matches('.').to_string())
}

/// The cell before the pentanomial counts (the last five words) of a results row: the discs,
/// `-` or a value with its bracketed interval.
fn discs_cell(words: &[&str]) -> String {
    let head = &words[..words.len() - 5];
    if head.last() == Some(&"-") {
        return "-".to_string();
    }
    let open = head.iter().rposition(|w| w.starts_with('[')).unwrap();
    head[open - 1..].join(" ")
}

/// The facts of the Results table of `harness stats` (or `ledger stats`): the row of `a`
/// against `b`.
pub fn of_results_table(text: &str, (a, b): (&str, &str), has_test: bool) -> Facts {
    let row = text
        .lines()
        .find(|l| l.split_whitespace().take(2).eq([a, b]))
        .unwrap_or_else(|| panic!("no row of {a} against {b} in:\n{text}"));
    let t: Vec<&str> = row.split_whitespace().collect();
    Facts {
        games: t[2].parse().unwrap(),
        wdl: t[3].to_string(),
        score: t[4].to_string(),
        elo: format!("{} {} {}", t[5], t[6], t[7]),
        discs: discs_cell(&t),
        decision: decision_in(text, has_test),
        warning: warning_in(text),
    }
}

/// The facts of report.md's results table (the row of `a` against `b`) and its headline.
pub fn of_markdown(md: &str, (a, b): (&str, &str), has_test: bool) -> Facts {
    let row = md
        .lines()
        .find(|l| l.starts_with(&format!("| {a} | {b} |")))
        .unwrap_or_else(|| panic!("no row of {a} against {b} in:\n{md}"));
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    let headline = md
        .lines()
        .filter(|l| l.starts_with("**"))
        .find(|l| {
            !["**FAIL**", "**INTERRUPTED**", "**UNMEASURED**"]
                .iter()
                .any(|verdict| l.starts_with(verdict))
        })
        .unwrap_or_default();
    Facts {
        games: cells[3].parse().unwrap(),
        wdl: cells[4].to_string(),
        score: cells[5].to_string(),
        elo: cells[6].to_string(),
        discs: cells[11].to_string(),
        decision: has_test.then(|| {
            decision_in(headline, true)
                .filter(|_| !headline.contains("No decision"))
                .unwrap_or_else(|| "no decision".into())
        }),
        warning: warning_in(md),
    }
}

/// The text of an HTML page with the entities the reports use turned back into characters.
fn unescaped(html: &str) -> String {
    html.replace("&#39;", "'")
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The run's verdict as report.json states it, and as report.md, report.html and the ledger's
/// run state it: the outcome and the reasons (every view opens a failed or stopped run with
/// `**OUTCOME**: reasons (exit code N)`; a pass or an undecided test reads from the
/// headline), and the ledger's run holds the same verdict.
fn assert_verdicts_agree(folder: &str, report: &Value, [md, html]: [&str; 2], ledger_run: &Value) {
    let verdict = &report["verdict"];
    assert_eq!(ledger_run["verdict"], *verdict, "{folder}: ledger runs");
    let outcome = verdict["outcome"].as_str().unwrap();
    let label = match outcome {
        "fail" => Some("FAIL"),
        "interrupted" => Some("INTERRUPTED"),
        "incomplete" => Some("INCOMPLETE"),
        "unmeasured" => Some("UNMEASURED"),
        _ => None,
    };
    let reasons: Vec<&str> = verdict["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    let line = label.map(|l| {
        format!(
            "{l}**: {} (exit code {})",
            reasons.join("; "),
            verdict["exit_code"]
        )
    });
    match &line {
        Some(line) => {
            assert!(md.contains(line), "{folder}: report.md lacks `{line}`");
            let html_line = line.replacen("**", "</strong>", 1);
            assert!(
                html.contains(&html_line),
                "{folder}: report.html lacks `{html_line}`"
            );
        }
        None => {
            for view in [md, html] {
                for other in ["FAIL", "INTERRUPTED", "INCOMPLETE", "UNMEASURED"] {
                    assert!(
                        !view.contains(&format!("{other}</strong>:"))
                            && !view.contains(&format!("**{other}**:")),
                        "{folder}: a {outcome} run's report says {other}"
                    );
                }
            }
        }
    }
}

/// Every view of one run folder, as read, and the facts of its first pairing in each.
pub struct Seen {
    pub report: Value,
    /// The browser's run snapshot of the served folder.
    pub snapshot: Value,
    /// The text of `harness stats`, report.md and `ledger stats`.
    pub stats: String,
    pub md: String,
    pub ledger_stats: String,
    /// `(view, facts)`, report.json's first.
    pub facts: Vec<(&'static str, Facts)>,
}

impl Seen {
    /// Every view's facts of the pairing `a` against `b`, report.json's first.
    pub fn pairing(&self, (a, b): (&str, &str)) -> Vec<(&'static str, Facts)> {
        let has_test = !self.report["sprt"].is_null();
        let of = |list: &Value| {
            let p = list
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["a"] == a && p["b"] == b)
                .unwrap_or_else(|| panic!("no pairing {a} against {b} in {list}"))
                .clone();
            p
        };
        let first = &self.facts;
        let decision = |name: &str| {
            first
                .iter()
                .find(|(n, _)| *n == name)
                .unwrap()
                .1
                .decision
                .clone()
        };
        vec![
            (
                "report.json",
                of_pairing(
                    &of(&self.report["pairings"]),
                    decision("report.json"),
                    &self.report["repeated_openings"],
                ),
            ),
            (
                "harness stats",
                of_results_table(&self.stats, (a, b), has_test),
            ),
            ("report.md", of_markdown(&self.md, (a, b), has_test)),
            (
                "browser",
                of_pairing(
                    &of(&self.snapshot["standings"]),
                    decision("browser"),
                    &self.snapshot["repeated_openings"],
                ),
            ),
            (
                "ledger stats",
                of_results_table(&self.ledger_stats, (a, b), has_test),
            ),
        ]
    }
}

/// Every view of the run in `dir/folder`, the facts of its first pairing (`a` against `b`)
/// in each. The views that state the run's verdict (report.md, report.html, the ledger's run)
/// and its elapsed time (report.md, report.html, the browser) are checked against report.json
/// here, and report.html is checked to print the facts of report.json.
pub fn views(dir: &Path, folder: &str, pairing: (&str, &str)) -> Seen {
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
    // An H1 in a run that measured nothing (its verdict `unmeasured`) is no measurement.
    let unmeasured = report["verdict"]["outcome"] == "unmeasured";
    let json_decision = has_test.then(|| match report["sprt"]["decision"].as_str().unwrap() {
        "accept_h1" if unmeasured => NO_MEASUREMENT.to_string(),
        key => label(key).to_string(),
    });
    let repeated = &report["repeated_openings"];
    let mut out = vec![(
        "report.json",
        of_pairing(&report["pairings"][0], json_decision.clone(), repeated),
    )];
    let stats = harness(dir, &["stats", folder]);
    stats.assert_success();
    out.push((
        "harness stats",
        of_results_table(&stats.stdout, pairing, has_test),
    ));
    let md = std::fs::read_to_string(dir.join(folder).join("report.md")).unwrap();
    out.push(("report.md", of_markdown(&md, pairing, has_test)));
    // The page: the same figures as printed in the other views, and the decision's label.
    let html = unescaped(&std::fs::read_to_string(dir.join(folder).join("report.html")).unwrap());
    let f = &out[0].1;
    let mut fragments = vec![
        f.wdl.clone(),
        f.score.clone(),
        f.elo.clone(),
        f.discs.clone(),
    ];
    fragments.extend(f.warning.clone());
    fragments.extend(f.decision.clone().filter(|d| d != "no decision"));
    for fragment in fragments {
        assert!(
            html.contains(&fragment) || html.contains(&fragment.replace('-', "−")),
            "{folder}: report.html does not say {fragment}"
        );
    }
    // The elapsed time as the reports print it.
    if let Some(e) = report["totals"]["elapsed_seconds"].as_f64() {
        let printed = hms(e);
        assert!(
            md.contains(&format!("games, {printed}")),
            "{folder}: report.md does not say {printed}"
        );
        assert!(
            html.contains(&format!("<b>Elapsed</b> {printed}")),
            "{folder}: report.html does not say {printed}"
        );
    }
    // The browser, serving the folder.
    let (server, base) =
        crate::web::start_serving(dir, &["serve", folder, "--bind", "127.0.0.1:0"]);
    let snapshot = served_run(&base, report["totals"]["games"].as_u64().unwrap());
    drop(server);
    out.push(("browser", of_snapshot(&snapshot)));
    // The elapsed time is the run's own, not the viewer's.
    // (A merge's report has none: neither has the page.)
    assert_elapsed_agrees(folder, &snapshot, &report, 0.01);
    // The ledger (a new one each time: the folder's run, once).
    let db = dir.join(format!("{folder}.db"));
    let _ = std::fs::remove_file(&db);
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
        run["repeated_openings"], *repeated,
        "{folder}: ledger runs' repeated openings"
    );
    assert_verdicts_agree(folder, &report, [&md, &html], &run);
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
        of_results_table(&ledger_stats.stdout, pairing, has_test),
    ));
    Seen {
        report,
        snapshot,
        stats: stats.stdout.clone(),
        md,
        ledger_stats: ledger_stats.stdout.clone(),
        facts: out,
    }
}

/// The facts of a browser's run snapshot (served folder or `run --serve`).
pub fn of_snapshot(snapshot: &Value) -> Facts {
    let decision = snapshot["sprt"]["decision"].as_str().map(|d| match d {
        _ if d.contains("reached on forfeits alone") => NO_MEASUREMENT.to_string(),
        d => d.to_string(),
    });
    of_pairing(
        &snapshot["standings"][0],
        decision,
        &snapshot["repeated_openings"],
    )
}

/// The browser's elapsed time is report.json's (within `tolerance` seconds), or both have none.
pub fn assert_elapsed_agrees(folder: &str, snapshot: &Value, report: &Value, tolerance: f64) {
    let elapsed = report["totals"]["elapsed_seconds"].as_f64();
    let shown = snapshot["elapsed_s"].as_f64();
    assert!(
        match (shown, elapsed) {
            (Some(x), Some(y)) => (x - y).abs() < tolerance,
            (x, y) => x == y,
        },
        "{folder}: the browser says {shown:?} s elapsed, report.json {elapsed:?} s"
    );
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
pub fn assert_agree(folder: &str, views: &[(&str, Facts)]) {
    let (first, expected) = &views[0];
    for (name, facts) in &views[1..] {
        assert_eq!(facts, expected, "{folder}: {name} disagrees with {first}");
    }
}

/// Every view of `dir/folder` agrees on its first pairing, `a` against `b`; the run's exit
/// code (`exit`, where the test ran it) is the one its verdict gives. Returns what was seen.
pub fn check(dir: &Path, folder: &str, pairing: (&str, &str), exit: Option<i32>) -> Seen {
    let seen = views(dir, folder, pairing);
    assert_agree(folder, &seen.facts);
    super::terminal::check(dir, folder, &seen.report, pairing);
    if let Some(code) = exit {
        assert_eq!(
            seen.report["verdict"]["exit_code"].as_i64(),
            Some(i64::from(code)),
            "{folder}: the exit code and report.json's verdict"
        );
    }
    seen
}

/// An elapsed time as the reports print it, written out here rather than borrowed from the
/// harness: `12.3s` under a minute, `4m 05s`, `1h 02m 03s`.
pub fn hms(secs: f64) -> String {
    if secs < 60.0 {
        return format!("{secs:.1}s");
    }
    let total = secs.round() as u64;
    let (h, m, s) = (total / 3600, total / 60 % 60, total % 60);
    if h > 0 {
        format!("{h}h {m:02}m {s:02}s")
    } else {
        format!("{m}m {s:02}s")
    }
}

/// A JSON file of a run folder.
pub fn json(path: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
