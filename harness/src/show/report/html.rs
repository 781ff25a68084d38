//! `report.html`: one self-contained page (inline CSS, the inline SVG charts of `chart`), no
//! external assets.

use super::chart::{disc_histogram, elo_chart, llr_chart};
use super::verdict_line;
use super::{
    disc_differences, elo_trajectory, headline, OpeningResult, RatingsReport, Report, SprtReport,
};
use crate::show::standings::{Column, Interval, Standing, MISSING};
use crate::show::text::duration_hms;
use harness_core::record::GameRecord;
use harness_core::stats::verdict::Outcome;
use std::fmt::Write;

/// Tables longer than this are folded into a `<details>` element.
const FOLD_ROWS: usize = 40;

pub(super) const CSS: &str = "
body { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', Arial, sans-serif;
  color: #1f2328; background: #ffffff; margin: 0; line-height: 1.45; font-size: 15px; }
main { max-width: 1240px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 24px; margin: 0 0 6px; }
h2 { font-size: 19px; margin: 32px 0 10px; padding-bottom: 4px; border-bottom: 1px solid #d8dee4; }
h3 { font-size: 16px; margin: 20px 0 8px; }
.headline { font-size: 18px; padding: 12px 16px; border-radius: 6px; background: #f6f8fa;
  border-left: 5px solid #6e7781; margin: 14px 0; }
.headline.h1 { border-left-color: #2c9f2c; background: #eef8ee; }
.headline.h0 { border-left-color: #d62728; background: #fcefef; }
.meta { color: #57606a; }
.warning { padding: 8px 14px; border-radius: 6px; background: #fff8c5; border-left: 5px solid #bf8700; }
.meta span { margin-right: 18px; white-space: nowrap; }
table { border-collapse: collapse; margin: 8px 0; font-size: 14px; }
.scroll { overflow-x: auto; max-width: 100%; }
th, td { padding: 5px 9px; border-bottom: 1px solid #e4e8ec; text-align: right; white-space: nowrap; }
th { background: #f6f8fa; font-weight: 600; white-space: normal; vertical-align: bottom; }
td.l, th.l { text-align: left; }
td.wrap { white-space: normal; text-align: left; max-width: 520px; }
tbody tr:nth-child(even) { background: #fbfcfd; }
.charts { display: flex; flex-wrap: wrap; gap: 16px; }
figure { margin: 0; border: 1px solid #e4e8ec; border-radius: 6px; padding: 6px; background: #fff;
  width: 560px; max-width: 100%; }
figure svg { display: block; max-width: 100%; height: auto; }
figcaption { font-size: 13px; color: #57606a; padding: 4px 6px 2px; }
.pos { color: #1a7f37; } .neg { color: #cf222e; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
footer { margin-top: 36px; color: #8c959f; font-size: 13px; }
";

/// Escapes text for HTML element content and attribute values.
pub fn esc(text: &str) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' => s.push_str("&quot;"),
            '\'' => s.push_str("&#39;"),
            c => s.push(c),
        }
    }
    s
}

/// The headline's `**bold**` as `<strong>`, everything else escaped.
fn inline_markdown(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in text.split("**").enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<strong>{}</strong>", esc(part));
        } else {
            out.push_str(&esc(part));
        }
    }
    out
}

fn interval(i: &Option<Interval>) -> String {
    i.as_ref().map_or(MISSING.to_string(), |i| esc(&i.text()))
}

fn signed_class(x: f64) -> &'static str {
    if x > 0.0 {
        "pos"
    } else if x < 0.0 {
        "neg"
    } else {
        ""
    }
}

/// Renders the page. `records` are the same records the report was built from (the charts
/// need the per-pair prefixes).
pub fn html(report: &Report, records: &[GameRecord]) -> anyhow::Result<String> {
    let mut s = String::new();
    page_head(&mut s, report);
    summary(&mut s, report);
    if let Some(sp) = &report.sprt {
        sprt_section(&mut s, sp)?;
    }
    results_section(&mut s, report);
    if let Some(r) = &report.ratings {
        ratings_section(&mut s, r);
    }
    for p in &report.pairings {
        pairing_charts(&mut s, p, records)?;
    }
    openings_section(&mut s, report);
    engines_section(&mut s, report);
    if let Some(a) = &report.analysis {
        analysis_section(&mut s, a);
    }
    forfeits_section(&mut s, report);
    page_foot(&mut s, report);
    Ok(s)
}

/// The page up to its title: the document head with the style sheet.
fn page_head(s: &mut String, report: &Report) {
    let t = &report.tournament;
    let title = format!("{} – {}", t.engines.join(" vs "), t.format);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n",
        esc(&title)
    );
    let _ = writeln!(s, "<h1>Othello tournament report</h1>");
}

/// The headline (the test's decision, or the leading result) and the run's facts.
fn summary(s: &mut String, report: &Report) {
    let t = &report.tournament;
    let class = match (
        report.verdict.as_ref().map(|v| v.outcome),
        report.sprt.as_ref().map(|s| s.decision),
    ) {
        (Some(Outcome::Fail | Outcome::Unmeasured), _) => "headline h0",
        (_, Some(harness_core::stats::sprt::Decision::AcceptH1)) => "headline h1",
        (_, Some(harness_core::stats::sprt::Decision::AcceptH0)) => "headline h0",
        _ => "headline",
    };
    let verdict = verdict_line(report)
        .map(|line| format!("{}<br>", inline_markdown(&line)))
        .unwrap_or_default();
    let _ = writeln!(
        s,
        "<div class=\"{class}\">{verdict}{}</div>",
        inline_markdown(&headline(report))
    );
    let mut meta = vec![
        format!("<b>Engines</b> {}", esc(&t.engines.join(", "))),
        format!("<b>Format</b> {}", esc(&t.format)),
        format!("<b>Time control</b> {}", esc(&t.time_control)),
        format!("<b>Sandbox</b> {}", esc(&t.sandbox_line())),
        format!(
            "<b>Games</b> {} of {}{}",
            report.totals.games,
            t.planned_games,
            super::status_note(report)
                .map(|n| format!(" ({n})"))
                .unwrap_or_default()
        ),
        format!("<b>Complete pairs</b> {}", report.totals.complete_pairs),
        format!(
            "<b>Openings</b> {}, {}",
            esc(&t.openings),
            esc(&t.opening_order)
        ),
    ];
    if let Some(e) = report.totals.elapsed_seconds {
        let t = &report.totals;
        meta.push(format!(
            "<b>Elapsed</b> {}",
            esc(&crate::show::text::elapsed_words(
                e,
                t.session_seconds,
                t.shards_elapsed_seconds
            ))
        ));
    }
    meta.push(format!(
        "<b>Engine time</b> {}",
        duration_hms(report.totals.engine_seconds)
    ));
    meta.push(format!("<b>File</b> <code>{}</code>", esc(&t.source)));
    let _ = writeln!(
        s,
        "<p class=\"meta\">{}</p>",
        meta.iter()
            .map(|m| format!("<span>{m}</span>"))
            .collect::<Vec<_>>()
            .join(" ")
    );
}

/// The sequential test: its parameters and state, and the LLR chart.
fn sprt_section(s: &mut String, sp: &SprtReport) -> anyhow::Result<()> {
    let p = &sp.params;
    let _ = writeln!(s, "<h2>Sequential test (SPRT)</h2>");
    let _ = writeln!(
        s,
        "<div class=\"scroll\"><table><thead><tr><th class=\"l\">candidate</th><th class=\"l\">baseline</th>\
         <th>model</th><th>unit</th><th>Elo bounds</th><th>α</th><th>β</th>\
         <th>LLR</th><th>bounds</th><th>decision</th><th>games</th><th>pairs</th></tr></thead>\
         <tbody><tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td>\
         <td>[{}, {}]</td><td>{}</td><td>{}</td><td><b>{:.3}</b></td><td>[{:.3}, {:.3}]</td>\
         <td>{}</td><td>{}</td><td>{}</td></tr></tbody></table></div>",
        esc(&sp.candidate),
        esc(&sp.baseline),
        p.model.as_str(),
        p.unit.as_str(),
        p.elo0,
        p.elo1,
        p.alpha,
        p.beta,
        sp.llr,
        sp.lower_bound,
        sp.upper_bound,
        crate::show::text::decision_label(sp.decision),
        sp.games,
        sp.pairs
    );
    let svg = llr_chart(&sp.trajectory, sp.lower_bound, sp.upper_bound)?;
    let _ = writeln!(
        s,
        "<div class=\"charts\"><figure>{svg}<figcaption>Log-likelihood ratio after each \
         complete pair. Reaching the upper line accepts H1 (the Elo of {} against {} is \
         at least {}), the lower line accepts H0 (at most {}).</figcaption></figure></div>",
        esc(&sp.candidate),
        esc(&sp.baseline),
        p.elo1,
        p.elo0
    );
    Ok(())
}

/// The standings of every pairing, with notes on the columns.
fn results_section(s: &mut String, report: &Report) {
    let _ = writeln!(s, "<h2>Results</h2>");
    let headers: String = Column::ALL
        .iter()
        .map(|&c| match c {
            Column::Engine | Column::Opponent => format!("<th class=\"l\">{}</th>", c.header()),
            _ => format!("<th>{}</th>", c.header()),
        })
        .collect();
    let _ = writeln!(
        s,
        "<div class=\"scroll\"><table><thead><tr>{headers}</tr></thead><tbody>"
    );
    for p in &report.pairings {
        let _ = write!(s, "<tr>");
        for &c in &Column::ALL {
            let text = esc(&p.cell(c));
            let _ = match c {
                Column::Engine => write!(s, "<td class=\"l\"><b>{text}</b></td>"),
                Column::Opponent => write!(s, "<td class=\"l\">{text}</td>"),
                Column::Elo => {
                    let class = p.elo.map(|e| signed_class(e.value)).unwrap_or("");
                    write!(s, "<td class=\"{class}\"><b>{text}</b></td>")
                }
                Column::Pentanomial => write!(s, "<td><code>{text}</code></td>"),
                _ => write!(s, "<td>{text}</td>"),
            };
        }
        let _ = writeln!(s, "</tr>");
    }
    let _ = writeln!(s, "</tbody></table></div>");
    if let Some(r) = &report.repeated_openings {
        let _ = writeln!(
            s,
            "<p class=\"warning\" id=\"repeated-openings\"><b>Warning:</b> {}.<br>{}.</p>",
            esc(&r.warning),
            esc(&r.sprt)
        );
    }
    let trinomial: Vec<String> = report
        .pairings
        .iter()
        .map(|p| {
            format!(
                "{} vs {} {}",
                esc(&p.a),
                esc(&p.b),
                interval(&p.elo_trinomial)
            )
        })
        .collect();
    let _ = writeln!(
        s,
        "<p class=\"meta\">Elo [95%] per game (trinomial, ignoring the pairing, for comparison): \
         {}. nElo: normalised Elo of the pair results. Pair ratio: pairs won / pairs lost.</p>",
        trinomial.join("; ")
    );
    if report.pairings.iter().any(|p| p.incomplete_games > 0) {
        let _ = writeln!(
            s,
            "<p class=\"meta\">Games outside a complete pair count in W-D-L, score and the \
             trinomial Elo only.</p>"
        );
    }
}

/// The joint rating of more than two engines.
fn ratings_section(s: &mut String, r: &RatingsReport) {
    let _ = writeln!(
        s,
        "<h3>Joint rating (Bradley-Terry, {} = 0)</h3>",
        esc(r.anchor.as_deref().unwrap_or("mean"))
    );
    let _ = writeln!(
        s,
        "<div class=\"scroll\"><table><thead><tr><th>rank</th><th class=\"l\">engine</th><th>Elo</th>\
         <th>95% interval</th><th>games</th><th>score</th></tr></thead><tbody>"
    );
    for e in &r.engines {
        let _ = writeln!(
            s,
            "<tr><td>{}</td><td class=\"l\">{}</td><td class=\"{}\"><b>{:+.1}</b></td>\
             <td>[{:+.1}, {:+.1}]</td><td>{}</td><td>{:.1}%</td></tr>",
            e.rank,
            esc(&e.name),
            signed_class(e.elo),
            e.elo,
            e.low,
            e.high,
            e.games,
            100.0 * e.score
        );
    }
    let _ = writeln!(s, "</tbody></table></div>");
}

/// A pairing's charts: its Elo over pairs and its disc differences.
fn pairing_charts(s: &mut String, p: &Standing, records: &[GameRecord]) -> anyhow::Result<()> {
    let _ = writeln!(
        s,
        "<h3>{} vs {}</h3><div class=\"charts\">",
        esc(&p.a),
        esc(&p.b)
    );
    let elo = elo_trajectory(&p.a, &p.b, records);
    let svg = elo_chart(&elo)?;
    let _ = writeln!(
        s,
        "<figure>{svg}<figcaption>Elo of {} against {} (pentanomial) after each complete \
         pair, with its 95% interval.{}</figcaption></figure>",
        esc(&p.a),
        esc(&p.b),
        if p.pentanomial.iter().filter(|&&c| c > 0).count() == 1 {
            " Every pair scored the same: the interval is the Jeffreys one (see the \
             statistics' documentation), since the sample shows no spread."
        } else {
            ""
        }
    );
    let discs = disc_differences(&p.a, &p.b, records);
    let svg = disc_histogram(&discs)?;
    let _ = writeln!(
        s,
        "<figure>{svg}<figcaption>Final disc difference per game from {}'s view ({} games \
         played out; forfeits are left out of the disc statistics and counted as results, \
         ±64, in the score).</figcaption></figure></div>",
        esc(&p.a),
        discs.len()
    );
    Ok(())
}

/// Every game pair: its opening, its two games and the first engine's points and discs
/// (folded when long).
fn openings_section(s: &mut String, report: &Report) {
    let _ = writeln!(s, "<h2>Openings</h2>");
    if report.openings.is_empty() {
        let _ = writeln!(s, "<p>No games yet.</p>");
        return;
    }
    let fold = report.openings.len() > FOLD_ROWS;
    if fold {
        let _ = writeln!(
            s,
            "<details><summary>{} game pairs</summary>",
            report.openings.len()
        );
    }
    let _ = writeln!(
        s,
        "<div class=\"scroll\"><table><thead><tr><th class=\"l\">engine</th><th class=\"l\">opponent</th><th>pair</th>\
         <th>opening #</th><th class=\"l\">opening</th><th>game 1</th><th>game 2</th>\
         <th>points</th><th>discs</th></tr></thead><tbody>"
    );
    for o in &report.openings {
        opening_row(s, o);
    }
    let _ = writeln!(s, "</tbody></table></div>");
    if fold {
        let _ = writeln!(s, "</details>");
    }
    let _ = writeln!(
        s,
        "<p class=\"meta\">Game columns: Black, Black's disc difference, White. Points and \
         discs are the first engine's over the pair.</p>"
    );
}

/// One game pair of the openings table.
fn opening_row(s: &mut String, o: &OpeningResult) {
    let game = |i: usize| {
        o.games
            .get(i)
            .map(|g| {
                let forfeit = if g.termination.is_forfeit() {
                    format!(" ({})", g.termination.as_str())
                } else {
                    String::new()
                };
                format!(
                    "{} {:+} {}{}",
                    esc(&short(&g.black)),
                    g.score,
                    esc(&short(&g.white)),
                    forfeit
                )
            })
            .unwrap_or_else(|| MISSING.into())
    };
    let _ = writeln!(
        s,
        "<tr><td class=\"l\">{}</td><td class=\"l\">{}</td><td>{}</td><td>{}</td>\
         <td class=\"l\"><code>{}</code></td><td>{}</td><td>{}</td><td class=\"{}\">{}</td>\
         <td class=\"{}\">{}</td></tr>",
        esc(&o.a),
        esc(&o.b),
        o.pair + 1,
        o.opening_index + 1,
        esc(&o.opening),
        game(0),
        game(1),
        o.a_points.map(|p| signed_class(p - 1.0)).unwrap_or(""),
        o.a_points
            .map(|p| format!("{p}–{}", 2.0 - p))
            .unwrap_or_else(|| MISSING.into()),
        o.a_discs.map(|d| signed_class(d as f64)).unwrap_or(""),
        o.a_discs
            .map(|d| format!("{d:+}"))
            .unwrap_or_else(|| MISSING.into()),
    );
}

/// Each engine's searches.
fn engines_section(s: &mut String, report: &Report) {
    let _ = writeln!(
        s,
        "<h2>Engines</h2><div class=\"scroll\"><table><thead><tr><th class=\"l\">engine</th>\
         <th>games</th><th>moves</th><th>mean depth</th><th>ms/move</th><th>nodes/s</th>\
         <th>s/game</th><th>CPU s off turn</th></tr></thead><tbody>"
    );
    for u in &report.engines {
        let [name, rest @ ..] = super::usage_cells(u);
        let _ = writeln!(
            s,
            "<tr><td class=\"l\">{}</td><td>{}</td></tr>",
            esc(&name),
            rest.join("</td><td>")
        );
    }
    let _ = writeln!(
        s,
        "</tbody></table></div><p class=\"meta\">Searched moves only (book moves and forced \
         passes aside); time as the harness measured it, nodes as the engine reported them; CPU \
         off turn: what the engine's worker used between its answer and its next request.</p>"
    );
}

/// Where games were lost: each engine's errors against exact solves, overall and by empties.
fn analysis_section(s: &mut String, a: &super::AnalysisReport) {
    let _ = writeln!(
        s,
        "<h2>Where games were lost</h2><div class=\"scroll\"><table><thead><tr>\
         <th class=\"l\">engine</th><th class=\"l\">empties</th><th>moves</th>\
         <th>best moves</th><th>discs lost</th><th>points thrown</th></tr></thead><tbody>"
    );
    for e in &a.engines {
        let rows = std::iter::once((format!("all from {}", a.from_empties), &e.all)).chain(
            e.buckets
                .iter()
                .map(|(hi, lo, b)| (format!("{hi}-{lo}"), b)),
        );
        for (range, b) in rows {
            let _ = writeln!(
                s,
                "<tr><td class=\"l\">{}</td><td class=\"l\">{range}</td><td>{}</td><td>{:.1}%</td>\
                 <td>{}</td><td>{:.1}</td></tr>",
                esc(&e.engine),
                b.moves,
                100.0 * b.best_share(),
                b.discs_lost,
                b.points_thrown
            );
        }
    }
    let _ = writeln!(
        s,
        "</tbody></table></div><p class=\"meta\">{} games scored against exact solves from \
         {} empties ({} could not be); a best move loses 0 discs; a move that turns its side's \
         exact result from a win into a draw throws ½ point, into a loss 1.</p>",
        a.games, a.from_empties, a.games_with_error
    );
    for note in a.notes() {
        let _ = writeln!(s, "<p class=\"meta\">{}.</p>", esc(&note));
    }
}

/// Forfeits by engine and termination, with their games and the first reason.
fn forfeits_section(s: &mut String, report: &Report) {
    let _ = writeln!(s, "<h2>Forfeits</h2>");
    if report.forfeits.is_empty() {
        let _ = writeln!(s, "<p>No forfeits.</p>");
        return;
    }
    let _ = writeln!(
        s,
        "<div class=\"scroll\"><table><thead><tr><th class=\"l\">engine</th><th class=\"l\">termination</th>\
         <th>count</th><th class=\"l\">games</th><th class=\"l\">first reason</th></tr></thead><tbody>"
    );
    for f in &report.forfeits {
        let _ = writeln!(
            s,
            "<tr><td class=\"l\">{}</td><td class=\"l\"><code>{}</code></td><td>{}</td>\
             <td class=\"wrap\">{}</td><td class=\"wrap\">{}</td></tr>",
            esc(&f.engine),
            f.termination.as_str(),
            f.count,
            super::game_numbers(&f.games),
            esc(&f.example)
        );
    }
    let _ = writeln!(s, "</tbody></table></div>");
}

/// The footer and the end of the page.
fn page_foot(s: &mut String, report: &Report) {
    let _ = writeln!(
        s,
        "<footer>Written by the harness from the games journal (report schema version {}).\
         </footer>\n</main>\n</body>\n</html>",
        report.schema_version
    );
}

/// Engine names in the openings table, shortened when very long.
fn short(name: &str) -> String {
    if name.chars().count() > 18 {
        let mut s: String = name.chars().take(17).collect();
        s.push('…');
        s
    } else {
        name.to_string()
    }
}
