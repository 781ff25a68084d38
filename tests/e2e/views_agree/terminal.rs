//! The terminal's view of a run folder (`harness stats DIR --screen WxH`: the live screen,
//! drawn by the same code as `run`'s, as text) against report.json, at 120x40 and at 80x24.
//! The terminal prints at its own precision (Elo to the unit, the discs without their
//! interval); the expected cells are written out here from report.json's numbers, not
//! borrowed from the harness.

use crate::support::harness;
use serde_json::Value;
use std::path::Path;

// What the terminal does not show of what the other views state, and why:
//
// | fact                          | why the terminal leaves it out                              |
// |-------------------------------|-------------------------------------------------------------|
// | the discs' interval           | the column has room for the mean only                       |
// | the warning past the edge     | the sentence is cut at the frame: its visible start is read |
// | the verdict and its reasons   | the tables printed when the screen closes say them          |
// | Elo's and the score's decimals| the terminal rounds Elo to the unit (compared rounded)      |

/// The sizes checked: the large layout and the smallest common terminal.
const SIZES: [(u16, u16); 2] = [(120, 40), (80, 24)];

/// The Elo cell as the terminal prints it: `+89 ±79` where the rounded interval is symmetric,
/// else `+642 [+202, +1710]`; `+456 [no interval]` where it is withheld; `-` without one.
fn elo_cell(p: &Value) -> String {
    let e = &p["elo"];
    let Some(value) = e["value"].as_f64() else {
        return "-".to_string();
    };
    if !p["interval_withheld"].is_null() {
        return format!("{value:+.0} [no interval]");
    }
    let low = e["low"].as_f64().unwrap_or(f64::NEG_INFINITY);
    let high = e["high"].as_f64().unwrap_or(f64::INFINITY);
    let (below, above) = ((value - low).round(), (high - value).round());
    if below.is_finite() && below == above {
        format!("{value:+.0} ±{above:.0}")
    } else {
        format!("{value:+.0} [{low:+.0}, {high:+.0}]")
    }
}

/// A span as the terminal's progress line prints it: `12s`, `3m05s`, `1h02m`.
fn compact(secs: f64) -> String {
    let s = secs as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, (s / 60) % 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// The screen's rows without their frames.
fn rows(screen: &str) -> Vec<String> {
    screen
        .lines()
        .map(|l| l.replace(['│', '┌', '┐', '└', '┘', '─'], " "))
        .collect()
}

/// The terminal of `dir/folder` at each size says what report.json says of the pairing `a`
/// against `b`: games, W-D-L, score, Elo with its interval (or the mark of a withheld one),
/// the mean discs, the test's decision, the games done and the run's elapsed time; no number
/// is cut at the panel's edge.
pub fn check(dir: &Path, folder: &str, report: &Value, (a, b): (&str, &str)) {
    let p = report["pairings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["a"] == a && p["b"] == b)
        .unwrap_or_else(|| panic!("{folder}: no pairing {a} against {b}"));
    let discs = p["disc_diff"]["value"]
        .as_f64()
        .map_or("-".to_string(), |d| format!("{d:+.1}"));
    let expected = format!(
        "{a} v {b} {} {}-{}-{} {:.1}% {} {discs}",
        p["games"],
        p["wins"],
        p["draws"],
        p["losses"],
        p["score"].as_f64().unwrap() * 100.0,
        elo_cell(p),
    );
    let games = report["totals"]["games"].as_u64().unwrap();
    let unmeasured = report["verdict"]["outcome"] == "unmeasured";
    let decision = match report["sprt"]["decision"].as_str() {
        Some("accept_h1") if unmeasured => Some(super::read::NO_MEASUREMENT),
        Some("accept_h1") => Some("H1 accepted"),
        Some("accept_h0") => Some("H0 accepted"),
        _ => None,
    };
    for (w, h) in SIZES {
        let size = format!("{w}x{h}");
        let out = harness(dir, &["stats", folder, "--screen", &size]);
        out.assert_success();
        let screen = &out.stdout;
        let rows = rows(screen);
        // The tournament panel is the screen's right-hand part: a row is read from its
        // pairing on (the evaluation chart may be drawn to its left).
        let row = rows
            .iter()
            .map(|r| r.split_whitespace().collect::<Vec<_>>().join(" "))
            .find_map(|r| {
                let at = r.find(&format!("{a} v {b} "))?;
                Some(r[at..].to_string())
            })
            .unwrap_or_else(|| panic!("{folder} at {size}: no row of {a} v {b}:\n{screen}"));
        assert_eq!(
            row, expected,
            "{folder} at {size}: the terminal's row\n{screen}"
        );
        // The progress line: every game done, and the run's own time.
        let progress = rows
            .iter()
            .find(|r| r.contains(&format!("{games}/")) && r.contains(" games ("))
            .unwrap_or_else(|| panic!("{folder} at {size}: no progress line:\n{screen}"));
        if let Some(e) = report["totals"]["elapsed_seconds"].as_f64() {
            let words: Vec<&str> = progress.split_whitespace().collect();
            let after = words
                .iter()
                .position(|w| w.starts_with('(') && w.ends_with("%)"));
            assert_eq!(
                after.and_then(|i| words.get(i + 1)).copied(),
                Some(compact(e).as_str()),
                "{folder} at {size}: the terminal's elapsed time, report.json {e} s:\n{progress}"
            );
        }
        // The test's decision, worded as every view words it.
        let gauge = rows
            .iter()
            .find_map(|r| r.find("SPRT [").map(|at| &r[at..]));
        match (report["sprt"].is_null(), gauge) {
            (true, None) => {}
            (true, Some(g)) => panic!("{folder} at {size}: a test shown without one: {g}"),
            (false, None) => panic!("{folder} at {size}: no test line:\n{screen}"),
            (false, Some(g)) => {
                for label in ["H1 accepted", "H0 accepted", super::read::NO_MEASUREMENT] {
                    assert_eq!(
                        g.contains(label),
                        decision == Some(label),
                        "{folder} at {size}: the test line `{g}`, report.json {decision:?}"
                    );
                }
            }
        }
        // The repeated-openings warning: its visible start is report.json's sentence.
        if let Some(warning) = report["repeated_openings"]["warning"].as_str() {
            let shown = rows
                .iter()
                .find_map(|r| r.split_once("warning: ").map(|(_, w)| w.trim().to_string()))
                .unwrap_or_else(|| panic!("{folder} at {size}: no warning:\n{screen}"));
            assert!(
                warning.starts_with(shown.trim_end_matches('.')),
                "{folder} at {size}: the terminal warns `{shown}`, report.json `{warning}`"
            );
        }
    }
}
