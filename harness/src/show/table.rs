//! Text output of a run: the final tables and the SPRT summary (the progress line per pair is
//! written by the coordinator from its running totals).
//!
//! Everything here reads finished records (through the statistics); nothing drives games.

use crate::show::standings::{Column, Standing};
use crate::show::text::rate_compact;
use harness_core::record::outcomes;
use harness_core::record::GameRecord;
use harness_core::stats;
use std::fmt::Write;

/// The final report: one block per engine pairing, then the joint rating for more than two
/// engines, then forfeits by reason.
/// Records are taken in schedule order (by game number), whatever order they finished in, so
/// the table of a run and `harness stats` on its journal are the same. `engines` is the
/// tournament's engine order (empty where the tournament is not known: then the order in
/// which the games name them): pairings are oriented and listed by it, and the joint rating is
/// anchored on its first engine, as the reports and the browser do.
pub fn final_tables(records: &[GameRecord], engines: &[String]) -> String {
    final_tables_within(records, engines, terminal_width())
}

/// The width of the terminal standard output is, when it is one (a pipe or a file gets every
/// column).
pub fn terminal_width() -> Option<usize> {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return None;
    }
    ratatui::crossterm::terminal::size()
        .ok()
        .map(|(w, _)| usize::from(w))
}

/// [`final_tables`] with the results table cut to `width` columns, when given: columns are
/// dropped by priority (pair ratio, normalised Elo, pentanomial counts, draws, LOS, discs,
/// score) until a row fits; names, games, W-D-L and Elo always stay.
pub fn final_tables_within(
    records: &[GameRecord],
    engines: &[String],
    width: Option<usize>,
) -> String {
    let sorted = harness_core::record::in_game_order(records);
    let (mut s, w) = results_tables_within(&sorted, engines, width);
    let _ = write!(s, "{}", usage_table(&sorted, w));
    s + &forfeit_lines(&sorted)
}

/// The results table (and, for more than two engines, the joint rating) of `records`: the
/// part of [`final_tables`] that needs only each game's result, as the results ledger keeps
/// it. Returns the text and the width of its name columns.
pub fn results_tables_within(
    records: &[GameRecord],
    engines: &[String],
    width: Option<usize>,
) -> (String, usize) {
    let sorted = harness_core::record::in_game_order(records);
    let records = &sorted[..];
    let outcomes = outcomes(records);
    let names = crate::show::standings::engine_order(engines, records);
    let rank = |name: &str| names.iter().position(|n| n == name).unwrap_or(usize::MAX);
    // Each pairing that played, its earlier engine first, in the engines' order.
    let mut matches: Vec<stats::MatchStats> = stats::all_matches(&outcomes)
        .into_iter()
        .map(|m| match rank(&m.a) <= rank(&m.b) {
            true => m,
            false => stats::match_stats(&outcomes, &m.b, &m.a),
        })
        .collect();
    matches.sort_by_key(|m| (rank(&m.a), rank(&m.b)));
    let mut s = String::new();
    let _ = writeln!(s, "\nResults ({} games)", records.len());
    // Name columns as wide as the longest name (at least 14), so long names keep the columns.
    let w = records
        .iter()
        .flat_map(|r| [r.black.chars().count(), r.white.chars().count()])
        .max()
        .unwrap_or(0)
        .max(14);
    let shown = columns(w, width);
    let header = row(&shown, |c| c.header().to_string(), w);
    let _ = writeln!(s, "{header}");
    let _ = writeln!(s, "{}", "-".repeat(header.chars().count()));
    for m in &matches {
        let standing = Standing::of(m);
        let _ = writeln!(s, "{}", row(&shown, |c| standing.cell(c), w));
    }
    let hidden = Column::ALL.len() - shown.len();
    if hidden > 0 {
        let _ = writeln!(
            s,
            "({hidden} columns left out to fit {} columns; pipe the output for all)",
            width.unwrap_or(0)
        );
    }
    let left_out: u32 = matches.iter().map(|m| m.disc_pairs_with_forfeit).sum();
    if left_out > 0 {
        let _ = writeln!(
            s,
            "discs/game: over the pairs played out; {left_out} pair(s) with a forfeit left out \
             (a forfeit counts as a result, ±64, in the score and the Elo)"
        );
    }
    let repeated = stats::openings::RepeatedOpenings::of(matches.iter().map(|m| m.clusters()));
    if let Some(repeated) = repeated {
        let _ = write!(s, "\n{}", repeated.lines());
    }
    if names.len() > 2 {
        // Anchored on the first engine, once it has played (the mean until then).
        let anchor = names.first().map(String::as_str);
        let ratings = stats::ratings(&outcomes, anchor);
        let anchored = anchor.filter(|a| ratings.iter().any(|r| r.name == *a));
        let _ = writeln!(
            s,
            "\nJoint rating (Bradley-Terry, {} = 0)",
            anchored.unwrap_or("mean")
        );
        let _ = writeln!(
            s,
            "{:<4} {:<w$} {:>9} {:>21} {:>6} {:>6}",
            "rank", "engine", "Elo", "95% interval", "games", "score"
        );
        for (i, r) in ratings.iter().enumerate() {
            let _ = writeln!(
                s,
                "{:<4} {:<w$} {:>+9.1} {:>21} {:>6} {:>5.1}%",
                i + 1,
                r.name,
                r.elo,
                format!("[{:+.1}, {:+.1}]", r.low, r.high),
                r.games,
                100.0 * r.score
            );
        }
    }
    (s, w)
}

/// The forfeits by engine and reason under the final tables (nothing without a forfeit).
fn forfeit_lines(records: &[GameRecord]) -> String {
    let mut s = String::new();
    let mut reasons: std::collections::BTreeMap<(String, String), usize> = Default::default();
    for r in records.iter().filter(|r| r.termination.is_forfeit()) {
        let who = match r.forfeit_by {
            Some(othello_board::Color::Black) => r.black.clone(),
            Some(othello_board::Color::White) => r.white.clone(),
            None => "?".to_string(),
        };
        *reasons
            .entry((who, r.termination.as_str().to_string()))
            .or_default() += 1;
    }
    if !reasons.is_empty() {
        let _ = writeln!(s, "\nForfeits");
        for ((who, why), n) in reasons {
            let _ = writeln!(s, "  {who}: {n} x {why}");
        }
    }
    s
}

/// Each engine's searches: moves, mean depth, time per move, nodes per second, time per game.
fn usage_table(records: &[GameRecord], w: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nEngines (searched moves; book moves and forced passes aside)"
    );
    let _ = writeln!(
        s,
        "{:<w$} {:>6} {:>8} {:>7} {:>9} {:>10} {:>7} {:>12}",
        "engine", "games", "moves", "depth", "ms/move", "nodes/s", "s/game", "CPU off turn"
    );
    let or_dash = |v: Option<String>| v.unwrap_or_else(|| "-".to_string());
    for u in stats::usage::engine_usage(records) {
        let _ = writeln!(
            s,
            "{:<w$} {:>6} {:>8} {:>7} {:>9} {:>10} {:>7.2} {:>12}",
            u.engine,
            u.games,
            u.moves,
            or_dash(u.mean_depth.map(|d| format!("{d:.1}"))),
            or_dash(u.ms_per_move.map(|t| format!("{t:.1}"))),
            or_dash(u.nodes_per_second.map(rate_compact)),
            u.seconds_per_game,
            or_dash(u.cpu_between_turns_seconds.map(|c| format!("{c:.3} s")))
        );
    }
    s
}

/// The width of a column's cells; `w` is the width of the name columns.
fn column_width(c: Column, w: usize) -> usize {
    match c {
        Column::Engine | Column::Opponent => w,
        Column::Games => 5,
        Column::Wdl => 11,
        Column::Score => 6,
        Column::Elo => 27,
        Column::NormalizedElo => 24,
        Column::Los => 6,
        Column::Draws => 6,
        Column::PairRatio => 10,
        Column::Discs => 25,
        Column::Pentanomial => 20,
    }
}

/// The columns shown within `width` (all of them without a width), in the usual order.
fn columns(w: usize, width: Option<usize>) -> Vec<Column> {
    // Least wanted first.
    const DROP: [Column; 7] = [
        Column::PairRatio,
        Column::NormalizedElo,
        Column::Pentanomial,
        Column::Draws,
        Column::Los,
        Column::Discs,
        Column::Score,
    ];
    let mut shown = Column::ALL.to_vec();
    let total = |cols: &[Column]| cols.iter().map(|&c| column_width(c, w) + 1).sum::<usize>() - 1;
    for drop in DROP {
        if width.is_none_or(|max| total(&shown) <= max) {
            break;
        }
        shown.retain(|&c| c != drop);
    }
    shown
}

/// One line of the table: each shown column's cell, names left-aligned, numbers right-aligned.
fn row(shown: &[Column], cell: impl Fn(Column) -> String, w: usize) -> String {
    shown
        .iter()
        .map(|&c| {
            let width = column_width(c, w);
            match c {
                Column::Engine | Column::Opponent => format!("{:<width$}", cell(c)),
                _ => format!("{:>width$}", cell(c)),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The sequential test's lines of a run's final tables: [`sprt_summary`], or where the
/// decision does not measure the run (`measures` false: an H1 reached where an engine never
/// moved, `stats::verdict::decision_measures`), [`sprt_summary_unmeasured`].
pub fn test_summary(
    status: &harness_core::stats::sprt::SprtStatus,
    (candidate, baseline): (&str, &str),
    measures: bool,
) -> String {
    if measures {
        sprt_summary(status, candidate, baseline)
    } else {
        sprt_summary_unmeasured(status)
    }
}

/// The sequential test's state in words: the LLR against its bounds and the decision.
pub fn sprt_summary(
    status: &harness_core::stats::sprt::SprtStatus,
    candidate: &str,
    baseline: &str,
) -> String {
    use harness_core::stats::sprt::Decision;
    let p = &status.params;
    let meaning = super::text::decision_meaning(status.decision, p, candidate, baseline);
    let label = super::text::decision_label(status.decision);
    let verdict = match (status.decision, meaning) {
        (Decision::AcceptH1 | Decision::AcceptH0, Some(m)) => {
            let why = super::text::decision_evidence(
                status.decision,
                status.llr,
                (status.lower, status.upper),
                3,
                (">=", "<="),
            );
            format!("{label}: {m} ({why})")
        }
        _ => format!(
            "undecided: LLR {:.3} is between {:.3} and {:.3}",
            status.llr, status.lower, status.upper
        ),
    };
    format!("\n{}\n{verdict}\n", sprt_line(status))
}

/// The test's line of the final tables: its parameters, LLR, bounds and observations.
fn sprt_line(status: &harness_core::stats::sprt::SprtStatus) -> String {
    let p = &status.params;
    format!(
        "SPRT {}/{} elo0 {} elo1 {} alpha {} beta {}: LLR {:+.3} [{:+.3}, {:+.3}] after {} observations",
        p.model.as_str(), p.unit.as_str(), p.elo0, p.elo1, p.alpha, p.beta, status.llr, status.lower, status.upper, status.observations
    )
}

/// [`sprt_summary`] of a run that measured nothing (an engine never made a move): the test's
/// line, and that its decision, if it took one, does not count.
pub fn sprt_summary_unmeasured(status: &harness_core::stats::sprt::SprtStatus) -> String {
    format!(
        "\n{}\n{}\n",
        sprt_line(status),
        super::text::unmeasured_decision(status.decision)
    )
}

/// The exact-solver analysis per engine (`harness analyze`, `harness stats` of an analysed
/// folder): moves analysed and the share that were best, discs lost per game, points thrown
/// away, games already lost or won at the first analysed position; then the same by empties
/// bucket.
pub fn analysis_table(errors: &[harness_core::stats::analysis::EngineErrors], from: u32) -> String {
    use std::fmt::Write;
    let w = errors
        .iter()
        .map(|e| e.engine.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\nAnalysis (exact, from {from} empties; a best move loses 0 discs)"
    );
    let _ = writeln!(
        s,
        "{:<w$} {:>6} {:>8} {:>6} {:>11} {:>8} {:>11} {:>10}",
        "engine", "games", "moves", "best", "discs/game", "thrown", "lost at N", "won at N"
    );
    for e in errors {
        let _ = writeln!(
            s,
            "{:<w$} {:>6} {:>8} {:>5.1}% {:>11.2} {:>8.1} {:>11} {:>10}",
            e.engine,
            e.games,
            e.all.moves,
            100.0 * e.all.best_share(),
            e.discs_per_game(),
            e.all.points_thrown,
            e.lost_before,
            e.won_before
        );
    }
    let _ = writeln!(
        s,
        "{:<w$} {:>9} {:>8} {:>6} {:>11} {:>8}",
        "by empties", "", "moves", "best", "discs lost", "thrown"
    );
    for e in errors {
        for (hi, lo, b) in &e.buckets {
            let _ = writeln!(
                s,
                "{:<w$} {:>9} {:>8} {:>5.1}% {:>11} {:>8.1}",
                e.engine,
                format!("{hi}-{lo}"),
                b.moves,
                100.0 * b.best_share(),
                b.discs_lost,
                b.points_thrown
            );
        }
    }
    s
}

#[cfg(test)]
mod width_tests {
    use super::*;
    use crate::show::run_model::tests::record;

    fn records() -> Vec<GameRecord> {
        (0..8)
            .map(|g| {
                let (b, w) = if g % 2 == 0 {
                    ("alpha", "beta")
                } else {
                    ("beta", "alpha")
                };
                record(g, b, w, if g % 3 == 0 { 10 } else { -4 })
            })
            .collect()
    }

    /// At 80 columns every line of the results table fits, the Elo stays and the note says
    /// what was left out; piped (no width) every column is there, nElo and pair ratio included.
    #[test]
    fn the_results_table_fits_the_terminal() {
        let text = final_tables_within(&records(), &[], Some(80));
        let table: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.starts_with("engine"))
            .take_while(|l| !l.is_empty())
            .collect();
        assert!(table.len() >= 3, "{text}");
        for line in &table {
            assert!(
                line.chars().count() <= 80,
                "{} columns: {line}",
                line.chars().count()
            );
        }
        assert!(
            table[0].contains("Elo [95%]") && table[0].contains("W-D-L"),
            "{text}"
        );
        assert!(text.contains("left out to fit 80 columns"), "{text}");
        let all = final_tables_within(&records(), &[], None);
        assert!(
            all.contains("nElo [95%]") && all.contains("pair ratio"),
            "{all}"
        );
        assert!(!all.contains("left out"), "{all}");
    }
}
