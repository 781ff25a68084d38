//! Every view's statistics of one journal agree: for generated journals (two or three engines,
//! game pairs with random results, openings that may repeat, games missing, records in any
//! finishing order), `report.json`'s pairings and joint rating (`show::report::build`), the
//! text table of `harness stats` and `ledger stats` (`show::table::results_tables_within`)
//! and the browser's run snapshot (`snapshot::run` of the model fed the records one by one)
//! print the same cells, the same ratings and the same repeated-openings warning.

use super::snapshot;
use crate::show::report::{self, ReportInput};
use crate::show::run_model::RunModel;
use crate::show::standings::{Column, Standing};
use crate::show::table;
use harness_core::events::Event;
use harness_core::record::{GameRecord, OpeningRef};
use proptest::prelude::*;
use std::path::Path;
use std::time::Instant;

/// The tournament of `engines` (a match of two, or a round robin).
fn tournament(engines: &[&str]) -> harness_core::plan::config::Tournament {
    let format = if engines.len() == 2 {
        "match"
    } else {
        "round-robin"
    };
    let mut text = format!(
        "[tournament]\nformat = \"{format}\"\npairs = 100\n\n[time]\ndepth = 2\n\n[openings]\nbuiltin = \"xot-small\"\n"
    );
    for e in engines {
        text += &format!("\n[[engine]]\nname = \"{e}\"\nplugin = \"greedy\"\n");
    }
    harness_core::plan::config::parse(&text, "test.toml", Path::new("."))
        .expect("a valid tournament")
}

/// One generated pair: its opening, the first engine's disc difference in each game, and
/// which of its games are in the journal.
type PairSpec = (usize, i32, i32, (bool, bool));

/// The journal of `pairs` between `engines` as a schedule plays them: pair `p` is games `2p`
/// and `2p + 1` of the pairings in turn, the pairing's first engine Black in the first; any of
/// them may be missing (game 0 too: a run stopped while it played). The records come in the
/// finishing order `order` gives.
fn journal(engines: &[&str], pairs: &[PairSpec], order: &[usize]) -> Vec<GameRecord> {
    let pairings: Vec<(usize, usize)> = (0..engines.len())
        .flat_map(|i| (i + 1..engines.len()).map(move |j| (i, j)))
        .collect();
    let mut records = Vec::new();
    for (p, &(opening, first, second, (keep_first, keep_second))) in pairs.iter().enumerate() {
        let (a, b) = pairings[p % pairings.len()];
        let (a, b) = (engines[a], engines[b]);
        let game = |n: usize, black: &str, white: &str, score: i32| GameRecord {
            pair: p,
            opening: OpeningRef {
                index: opening,
                line: opening + 1,
                text: format!("opening {opening}"),
            },
            ..GameRecord::skeleton(n, black, white, score)
        };
        if keep_first {
            records.push(game(2 * p, a, b, first));
        }
        if keep_second {
            records.push(game(2 * p + 1, b, a, -second));
        }
    }
    // A finishing order: each record moved to the place `order` names.
    for (i, &to) in order.iter().enumerate() {
        if !records.is_empty() {
            let (i, to) = (i % records.len(), to % records.len());
            records.swap(i, to);
        }
    }
    records
}

/// The browser's run snapshot of a model that heard the records in journal order.
fn browser(engines: &[&str], records: &[GameRecord]) -> serde_json::Value {
    let now = Instant::now();
    let mut state = RunModel::new();
    state.apply(
        Event::RunStarted {
            engines: engines.iter().map(|e| e.to_string()).collect(),
            total_games: 1000,
            already_played: Vec::new(),
            time_control: "depth 2".into(),
            sprt: None,
            elapsed_before: std::time::Duration::ZERO,
        },
        now,
    );
    for r in records {
        state.apply(
            Event::GameFinished {
                record: Box::new(r.clone()),
            },
            now,
        );
    }
    state.refresh();
    serde_json::to_value(snapshot::run(&state, now)).expect("plain values")
}

/// The cells of a standings row, as the text table prints them (words split on spaces).
fn words(s: &Standing) -> Vec<String> {
    Column::ALL
        .iter()
        .flat_map(|&c| {
            s.cell(c)
                .split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A joint rating as the text table prints its first columns.
fn rating_words(name: &str, elo: f64, low: f64, high: f64) -> String {
    format!("{name} {elo:+.1} [{low:+.1}, {high:+.1}]")
}

fn check(engines: &[&str], records: &[GameRecord]) -> Result<(), TestCaseError> {
    let t = tournament(engines);
    let report = report::build(&ReportInput {
        tournament: &t,
        records,
        elapsed: None,
        finished: true,
        analysis: None,
        verdict: None,
        sandbox_enforced: &[],
        test: None,
    });
    let names: Vec<String> = engines.iter().map(|e| e.to_string()).collect();
    let (text, _) = table::results_tables_within(records, &names, None);
    let snapshot = browser(engines, records);
    let shown: Vec<Standing> = report
        .pairings
        .iter()
        .filter(|p| p.games > 0)
        .cloned()
        .collect();

    // The browser's standings: the same rows, each with the same cells.
    let browser_rows = snapshot["standings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    prop_assert_eq!(browser_rows.len(), shown.len(), "{}", snapshot);
    for (json, row) in browser_rows.iter().zip(&shown) {
        let row = serde_json::to_value(row).unwrap();
        prop_assert_eq!(json, &row, "the browser's row against report.json's");
    }
    // The text table: a row per pairing, the report's cells in it.
    for row in &shown {
        let line = text.lines().find(|l| {
            l.split_whitespace()
                .take(2)
                .eq([row.a.as_str(), row.b.as_str()])
        });
        prop_assert!(line.is_some(), "no row {} {} in\n{}", row.a, row.b, text);
        let printed: Vec<String> = line
            .unwrap()
            .split_whitespace()
            .map(str::to_string)
            .collect();
        prop_assert_eq!(printed, words(row), "{}", text);
    }
    // The repeated-openings warning.
    let warning = report.repeated_openings.as_ref().map(|r| r.warning.clone());
    prop_assert_eq!(
        snapshot["repeated_openings"]["warning"]
            .as_str()
            .map(str::to_string),
        warning.clone()
    );
    let in_text = text
        .lines()
        .find_map(|l| l.strip_prefix("warning: openings repeat"))
        .map(|rest| format!("openings repeat{rest}"));
    prop_assert_eq!(in_text, warning, "{}", text);
    // The joint rating of a tournament of three, before the third engine has played too.
    prop_assert_eq!(
        report.ratings.is_some(),
        text.contains("Joint rating"),
        "{}",
        text
    );
    if let Some(ratings) = &report.ratings {
        let expected: Vec<String> = ratings
            .engines
            .iter()
            .map(|r| rating_words(&r.name, r.elo, r.low, r.high))
            .collect();
        let browser: Vec<String> = snapshot["ratings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let f = |k: &str| r[k].as_f64().unwrap();
                rating_words(r["name"].as_str().unwrap(), f("elo"), f("low"), f("high"))
            })
            .collect();
        prop_assert_eq!(&browser, &expected, "the browser's ratings");
        let printed: Vec<String> = text
            .lines()
            .skip_while(|l| !l.starts_with("Joint rating"))
            .skip(2)
            .map(|l| {
                l.split_whitespace()
                    .skip(1)
                    .take(4)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        prop_assert_eq!(&printed, &expected, "{}", text);
    }
    Ok(())
}

fn pairs() -> impl Strategy<Value = Vec<PairSpec>> {
    let keep = prop_oneof![
        8 => Just((true, true)),
        1 => Just((true, false)),
        1 => Just((false, true)),
    ];
    prop::collection::vec((0usize..12, -64i32..=64, -64i32..=64, keep), 1..40)
}

proptest! {
    #[test]
    fn every_view_of_a_journal_prints_the_same_statistics(
        three in any::<bool>(),
        pairs in pairs(),
        order in prop::collection::vec(0usize..80, 0..80),
    ) {
        let engines: &[&str] = if three { &["A", "B", "C"] } else { &["A", "B"] };
        let records = journal(engines, &pairs, &order);
        check(engines, &records)?;
    }
}
