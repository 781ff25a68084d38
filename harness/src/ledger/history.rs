//! Elo over commits: every comparable result in the ledger rated jointly, one row per player.
//!
//! A player is a plugin digest with its options; the build metadata says which commits claim
//! it (one build claimed by two commits is one player listing both). Results are compared only
//! under equal conditions (each engine's time control, the opening set without its seed,
//! adjudication, margins, the NPS reference): each conditions class is a series of its own,
//! never mixed with another. Within a class, every game between two different players is one
//! observation of a joint Bradley-Terry rating (`stats::ratings`), anchored at the first player
//! of the series (in the order of the builds' dates, else the order recorded) or at the one an
//! anchor names. A player matched against itself is listed, with no rating from those games.

use crate::plan::config::Build;
use crate::record::GameOutcome;
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};

/// An engine of a recorded run, as history reads it.
#[derive(Clone, Debug)]
pub struct EngineSeen {
    pub run_id: String,
    /// The order the run was first recorded in (for the order of builds without a date).
    pub recorded: i64,
    pub conditions: String,
    pub name: String,
    pub digest: String,
    pub options: String,
    pub build: Build,
    /// The run's outcome (`pass`, `fail`, …) when it ended, for a run with a test.
    pub verdict: Option<String>,
}

/// A recorded game, as history reads it.
#[derive(Clone, Debug)]
pub struct GameSeen {
    pub run_id: String,
    pub pair: u64,
    pub black: String,
    pub white: String,
    pub score: i32,
    pub forfeit: bool,
}

/// One player of a series.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HistoryRow {
    pub engine: String,
    /// Every commit that claims the player, in the order recorded.
    pub commits: Vec<String>,
    /// Every label, ref and date the builds gave.
    pub labels: Vec<String>,
    pub dates: Vec<String>,
    pub digest: String,
    pub options: serde_json::Value,
    /// Elo against the series' anchor with its 95% interval; null for a player with no game
    /// against another player.
    pub elo: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    pub games: u32,
    pub runs: usize,
    /// The outcomes of the runs with a test in which the player was the candidate.
    pub verdicts: Vec<String>,
    /// The conditions class (canonical JSON) and its number in the output.
    pub conditions: serde_json::Value,
    pub series: usize,
}

/// A player's key: its plugin's digest with its options.
fn player(e: &EngineSeen) -> String {
    format!("{}|{}", e.digest, e.options)
}

/// The rows of every series, series by series (conditions classes in the order first
/// recorded, engine names in the order first seen), players in commit order. `engine` keeps
/// one engine name; `anchor` names the player at 0 by a commit, label, ref or digest prefix.
pub fn history(
    engines: &[EngineSeen],
    games: &[GameSeen],
    engine: Option<&str>,
    anchor: Option<&str>,
) -> Vec<HistoryRow> {
    let mut classes: Vec<&str> = Vec::new();
    for e in engines {
        if !classes.contains(&e.conditions.as_str()) {
            classes.push(&e.conditions);
        }
    }
    let mut rows = Vec::new();
    for (series, class) in classes.iter().enumerate() {
        let in_class: Vec<&EngineSeen> =
            engines.iter().filter(|e| e.conditions == *class).collect();
        let key_of: HashMap<(&str, &str), String> = in_class
            .iter()
            .map(|e| ((e.run_id.as_str(), e.name.as_str()), player(e)))
            .collect();
        let runs: BTreeSet<&str> = in_class.iter().map(|e| e.run_id.as_str()).collect();
        let outcomes: Vec<GameOutcome> = games
            .iter()
            .filter(|g| runs.contains(g.run_id.as_str()))
            .filter_map(|g| {
                let black = key_of.get(&(g.run_id.as_str(), g.black.as_str()))?;
                let white = key_of.get(&(g.run_id.as_str(), g.white.as_str()))?;
                Some(GameOutcome {
                    pair: crate::record::digest::fnv1a(
                        format!("{}#{}", g.run_id, g.pair).as_bytes(),
                    ),
                    black: black.clone(),
                    white: white.clone(),
                    black_disc_diff: g.score,
                    forfeit: g.forfeit,
                })
            })
            .collect();
        let mut names: Vec<&str> = Vec::new();
        for e in &in_class {
            if !names.contains(&e.name.as_str()) && engine.is_none_or(|n| n == e.name) {
                names.push(&e.name);
            }
        }
        // One fit per class; each engine name's series is anchored in it.
        let fit = crate::stats::ratings::RatingFit::new(&outcomes);
        for name in names {
            rows.extend(series_rows(&in_class, &fit, name, anchor, series, class));
        }
    }
    rows
}

/// The players that played as `name` in one class, in commit order, rated against the anchor.
fn series_rows(
    in_class: &[&EngineSeen],
    fit: &crate::stats::ratings::RatingFit,
    name: &str,
    anchor: Option<&str>,
    series: usize,
    class: &str,
) -> Vec<HistoryRow> {
    // Players in the order of their earliest builds' dates, else the order first recorded.
    let mut order: Vec<(String, Option<String>, i64)> = Vec::new();
    for e in in_class.iter().filter(|e| e.name == name) {
        let key = player(e);
        match order.iter_mut().find(|(k, _, _)| *k == key) {
            // A player's place is its earliest build and its first record.
            Some(entry) => {
                entry.1 = match (entry.1.take(), e.build.date.clone()) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                entry.2 = entry.2.min(e.recorded);
            }
            None => order.push((key, e.build.date.clone(), e.recorded)),
        }
    }
    order.sort_by(|a, b| match (&a.1, &b.1) {
        (Some(x), Some(y)) => x.cmp(y).then(a.2.cmp(&b.2)),
        _ => a.2.cmp(&b.2),
    });
    let claims = |key: &str, pick: fn(&Build) -> Option<&String>| -> Vec<String> {
        // In the order of the builds' dates, then as recorded.
        let mut mine: Vec<&&EngineSeen> = in_class
            .iter()
            .filter(|e| e.name == name && player(e) == key)
            .collect();
        mine.sort_by(|a, b| (&a.build.date, &a.recorded).cmp(&(&b.build.date, &b.recorded)));
        let mut out: Vec<String> = Vec::new();
        for e in mine {
            if let Some(v) = pick(&e.build) {
                if !out.contains(v) {
                    out.push(v.clone());
                }
            }
        }
        out
    };
    let named = anchor.and_then(|a| {
        order.iter().find(|(key, _, _)| {
            in_class.iter().any(|e| {
                player(e) == *key
                    && (e.build.commit.as_deref() == Some(a)
                        || e.build.label.as_deref() == Some(a)
                        || e.build.git_ref.as_deref() == Some(a)
                        || e.digest.starts_with(a))
            })
        })
    });
    let anchor_key = named.or(order.first()).map(|(k, _, _)| k.clone());
    let ratings = fit.ratings(anchor_key.as_deref());
    order
        .iter()
        .map(|(key, _, _)| {
            let rating = ratings.iter().find(|r| r.name == *key);
            let mine: Vec<&&EngineSeen> = in_class
                .iter()
                .filter(|e| e.name == name && player(e) == *key)
                .collect();
            let mut labels = claims(key, |b| b.label.as_ref());
            labels.extend(claims(key, |b| b.git_ref.as_ref()));
            HistoryRow {
                engine: name.to_string(),
                commits: claims(key, |b| b.commit.as_ref()),
                labels,
                dates: claims(key, |b| b.date.as_ref()),
                digest: mine[0].digest.clone(),
                options: serde_json::from_str(&mine[0].options).unwrap_or_default(),
                elo: rating.map(|r| r.elo),
                low: rating.map(|r| r.low),
                high: rating.map(|r| r.high),
                games: rating.map_or(0, |r| r.games),
                runs: mine
                    .iter()
                    .map(|e| &e.run_id)
                    .collect::<BTreeSet<_>>()
                    .len(),
                verdicts: mine.iter().filter_map(|e| e.verdict.clone()).collect(),
                conditions: serde_json::from_str(class).unwrap_or_default(),
                series,
            }
        })
        .collect()
}
