//! `report.html`: one self-contained page (inline CSS, inline SVG charts drawn with plotters'
//! SVG backend), no external assets.

use super::{disc_differences, elo_trajectory, headline, EloPoint, Report, TrajectoryPoint};
use crate::record::GameRecord;
use crate::show::standings::{Column, Interval, MISSING};
use crate::show::text::duration_hms;
use plotters::prelude::*;
use std::fmt::Write;

const FONT: &str = "sans-serif";
const CHART_SIZE: (u32, u32) = (560, 330);
const BLUE: RGBColor = RGBColor(31, 119, 180);
const GREEN: RGBColor = RGBColor(44, 160, 44);
const RED: RGBColor = RGBColor(214, 39, 40);
const GREY: RGBColor = RGBColor(120, 120, 120);
const GRID: RGBColor = RGBColor(235, 235, 235);
/// Tables longer than this are folded into a `<details>` element.
const FOLD_ROWS: usize = 40;

const CSS: &str = "
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
fn esc(text: &str) -> String {
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
    let t = &report.tournament;
    let mut s = String::new();
    let title = format!("{} – {}", t.engines.join(" vs "), t.format);
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n",
        esc(&title)
    );
    let _ = writeln!(s, "<h1>Othello tournament report</h1>");
    let class = match report.sprt.as_ref().map(|s| s.decision) {
        Some(crate::stats::sprt::Decision::AcceptH1) => "headline h1",
        Some(crate::stats::sprt::Decision::AcceptH0) => "headline h0",
        _ => "headline",
    };
    let _ = writeln!(
        s,
        "<div class=\"{class}\">{}</div>",
        inline_markdown(&headline(report))
    );
    let mut meta = vec![
        format!("<b>Engines</b> {}", esc(&t.engines.join(", "))),
        format!("<b>Format</b> {}", esc(&t.format)),
        format!("<b>Time control</b> {}", esc(&t.time_control)),
        format!(
            "<b>Games</b> {} of {}{}",
            report.totals.games,
            t.planned_games,
            if report.finished { "" } else { " (running)" }
        ),
        format!("<b>Complete pairs</b> {}", report.totals.complete_pairs),
        format!(
            "<b>Openings</b> {}, {}",
            esc(&t.openings),
            esc(&t.opening_order)
        ),
    ];
    if let Some(e) = report.totals.elapsed_seconds {
        meta.push(format!("<b>Elapsed</b> {}", duration_hms(e)));
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

    // Sequential test.
    if let Some(sp) = &report.sprt {
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
    }

    // Pairings.
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

    // Joint rating.
    if let Some(r) = &report.ratings {
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

    // Charts per pairing.
    for p in &report.pairings {
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
    }

    // Openings.
    let _ = writeln!(s, "<h2>Openings</h2>");
    if report.openings.is_empty() {
        let _ = writeln!(s, "<p>No games yet.</p>");
    } else {
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

    // Each engine's searches.
    let _ = writeln!(
        s,
        "<h2>Engines</h2><div class=\"scroll\"><table><thead><tr><th class=\"l\">engine</th>\
         <th>games</th><th>moves</th><th>mean depth</th><th>ms/move</th><th>nodes/s</th>\
         <th>s/game</th></tr></thead><tbody>"
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
         passes aside); time as the harness measured it, nodes as the engine reported them.</p>"
    );

    // Forfeits.
    let _ = writeln!(s, "<h2>Forfeits</h2>");
    if report.forfeits.is_empty() {
        let _ = writeln!(s, "<p>No forfeits.</p>");
    } else {
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
                f.games
                    .iter()
                    .map(|g| (g + 1).to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                esc(&f.example)
            );
        }
        let _ = writeln!(s, "</tbody></table></div>");
    }
    let _ = writeln!(
        s,
        "<footer>Written by the harness from the games journal (report schema version {}).\
         </footer>\n</main>\n</body>\n</html>",
        report.schema_version
    );
    Ok(s)
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

/// An empty chart with a message, for when there is nothing to plot yet.
fn placeholder(message: &str) -> anyhow::Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, CHART_SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        root.draw(&Text::new(
            message.to_string(),
            (
                CHART_SIZE.0 as i32 / 2 - 4 * message.len() as i32,
                CHART_SIZE.1 as i32 / 2,
            ),
            (FONT, 16).into_font().color(&GREY),
        ))?;
        root.present()?;
    }
    Ok(svg)
}

/// A legend entry drawn above a chart: a line, or a filled box for a band.
enum Key {
    Line(RGBColor),
    Band(RGBColor),
}

/// The title and the legend of a chart, drawn in a band above the plot (so that no legend ever
/// covers data); returns the area left for the plot.
fn heading<'a>(
    root: &DrawingArea<SVGBackend<'a>, plotters::coord::Shift>,
    title: &str,
    keys: &[(Key, String)],
) -> anyhow::Result<DrawingArea<SVGBackend<'a>, plotters::coord::Shift>> {
    let (top, plot) = root.split_vertically(52);
    let width = CHART_SIZE.0 as i32;
    // Text widths are estimated (about 0.55 em per character): the band is not laid out by a
    // browser.
    let text_width = |text: &str, size: i32| (text.chars().count() as i32 * size * 11) / 20;
    top.draw(&Text::new(
        title.to_string(),
        ((width - text_width(title, 18)) / 2, 6),
        (FONT, 18).into_font(),
    ))?;
    let total: i32 = keys
        .iter()
        .map(|(_, label)| 24 + text_width(label, 13) + 18)
        .sum::<i32>()
        - 18;
    let mut x = ((width - total) / 2).max(4);
    let y = 38;
    for (key, label) in keys {
        match key {
            Key::Line(color) => top.draw(&PathElement::new(
                [(x, y), (x + 18, y)],
                color.stroke_width(2),
            ))?,
            Key::Band(color) => top.draw(&Rectangle::new(
                [(x, y - 5), (x + 18, y + 5)],
                color.mix(0.18).filled(),
            ))?,
        }
        top.draw(&Text::new(
            label.clone(),
            (x + 24, y - 7),
            (FONT, 13).into_font(),
        ))?;
        x += 24 + text_width(label, 13) + 18;
    }
    Ok(plot)
}

/// Tick labels of a count axis: whole numbers only (a fractional tick would print a repeated,
/// rounded number), and at most 11 of them.
fn whole(x: &f64) -> String {
    if (x - x.round()).abs() < 1e-9 {
        format!("{x:.0}")
    } else {
        String::new()
    }
}

/// How many ticks a count axis from 0 to `max` gets: one per unit up to 10, else about 10.
fn count_ticks(max: f64) -> usize {
    (max.round() as usize + 1).clamp(2, 11)
}

fn llr_chart(traj: &[TrajectoryPoint], lower: f64, upper: f64) -> anyhow::Result<String> {
    let mut points: Vec<(f64, f64)> = vec![(0.0, 0.0)];
    points.extend(traj.iter().map(|p| (f64::from(p.pairs), p.llr)));
    let xmax = points.last().map(|p| p.0).unwrap_or(0.0).max(1.0);
    let lo = points.iter().map(|p| p.1).fold(lower, f64::min);
    let hi = points.iter().map(|p| p.1).fold(upper, f64::max);
    let pad = 0.08 * (hi - lo);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, CHART_SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let plot = heading(
            &root,
            "SPRT log-likelihood ratio",
            &[
                (Key::Line(BLUE), "LLR".to_string()),
                (Key::Line(GREEN), format!("H1 bound {upper:.2}")),
                (Key::Line(RED), format!("H0 bound {lower:.2}")),
            ],
        )?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(14)
            .margin_top(4)
            .x_label_area_size(42)
            .y_label_area_size(52)
            .build_cartesian_2d(0.0..xmax, (lo - pad)..(hi + pad))?;
        chart
            .configure_mesh()
            .x_desc("complete pairs")
            .y_desc("LLR")
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .light_line_style(WHITE)
            .bold_line_style(GRID)
            .x_labels(count_ticks(xmax))
            .x_label_formatter(&whole)
            .draw()?;
        for (y, color) in [(upper, GREEN), (lower, RED)] {
            chart.draw_series(LineSeries::new(
                [(0.0, y), (xmax, y)],
                color.stroke_width(2),
            ))?;
        }
        chart.draw_series(LineSeries::new(
            [(0.0, 0.0), (xmax, 0.0)],
            GREY.stroke_width(1),
        ))?;
        chart.draw_series(LineSeries::new(points, BLUE.stroke_width(2)))?;
        root.present()?;
    }
    Ok(svg)
}

fn elo_chart(points: &[EloPoint]) -> anyhow::Result<String> {
    let Some(last) = points.last() else {
        return placeholder("No complete pair yet");
    };
    // The first pairs give huge intervals (a 2-0 pair alone is about +2400 Elo): scale the axis
    // to the final interval and zero, widened, and clamp what lies outside to the edges.
    let pad = (last.elo.high - last.elo.low).clamp(20.0, 500.0);
    let lo = (last.elo.low.min(0.0) - pad).max(-2450.0);
    let hi = (last.elo.high.max(0.0) + pad).min(2450.0);
    let clamp = |y: f64| y.clamp(lo, hi);
    let xmax = f64::from(last.pairs).max(1.0);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, CHART_SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let plot = heading(
            &root,
            "Elo over pairs",
            &[
                (Key::Line(BLUE), format!("Elo {:+.1}", last.elo.value)),
                (Key::Band(BLUE), "95% interval".to_string()),
            ],
        )?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(14)
            .margin_top(4)
            .x_label_area_size(42)
            .y_label_area_size(58)
            .build_cartesian_2d(0.0..xmax, lo..hi)?;
        chart
            .configure_mesh()
            .x_desc("complete pairs")
            .y_desc("Elo")
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .light_line_style(WHITE)
            .bold_line_style(GRID)
            .x_labels(count_ticks(xmax))
            .x_label_formatter(&whole)
            .y_label_formatter(&|y| format!("{y:+.0}"))
            .draw()?;
        let mut band: Vec<(f64, f64)> = points
            .iter()
            .map(|p| (f64::from(p.pairs), clamp(p.elo.high)))
            .collect();
        band.extend(
            points
                .iter()
                .rev()
                .map(|p| (f64::from(p.pairs), clamp(p.elo.low))),
        );
        chart.draw_series(std::iter::once(Polygon::new(band, BLUE.mix(0.18).filled())))?;
        chart.draw_series(LineSeries::new(
            [(0.0, 0.0), (xmax, 0.0)],
            GREY.stroke_width(1),
        ))?;
        chart.draw_series(LineSeries::new(
            points
                .iter()
                .map(|p| (f64::from(p.pairs), clamp(p.elo.value))),
            BLUE.stroke_width(2),
        ))?;
        // Every point is marked while they are few (the first one included: a line alone
        // would leave it unmarked), only the last once there are many.
        let marked = if points.len() <= 30 {
            points
        } else {
            &points[points.len() - 1..]
        };
        chart.draw_series(
            marked
                .iter()
                .map(|p| Circle::new((f64::from(p.pairs), clamp(p.elo.value)), 3, BLUE.filled())),
        )?;
        root.present()?;
    }
    Ok(svg)
}

/// Bars 8 discs wide, centred on multiples of 8 (so a draw sits in the middle bar).
fn disc_histogram(discs: &[i32]) -> anyhow::Result<String> {
    if discs.is_empty() {
        return placeholder("No games yet");
    }
    const WIDTH: i32 = 8;
    let mut counts = [0u32; 17];
    for &d in discs {
        let bin = ((d.clamp(-64, 64) + 68).div_euclid(WIDTH)) as usize;
        counts[bin.min(16)] += 1;
    }
    let ymax = f64::from(counts.iter().copied().max().unwrap_or(1)) * 1.15 + 0.5;
    let mean = discs.iter().map(|&d| f64::from(d)).sum::<f64>() / discs.len() as f64;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, CHART_SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let plot = heading(
            &root,
            "Disc difference per game",
            &[(Key::Line(BLUE), format!("mean {mean:+.1}"))],
        )?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(14)
            .margin_top(4)
            .x_label_area_size(42)
            .y_label_area_size(52)
            .build_cartesian_2d(-68.0..68.0, 0.0..ymax)?;
        chart
            .configure_mesh()
            .x_desc("final disc difference")
            .y_desc("games")
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .light_line_style(WHITE)
            .bold_line_style(GRID)
            .disable_x_mesh()
            .x_labels(9)
            .x_label_formatter(&|x| format!("{x:+.0}"))
            .y_label_formatter(&|y| {
                if y.fract().abs() < 1e-9 {
                    format!("{y:.0}")
                } else {
                    String::new()
                }
            })
            .draw()?;
        chart.draw_series(
            counts
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(i, &c)| {
                    let left = f64::from(i as i32 * WIDTH - 68);
                    let color = match (i as i32 * WIDTH - 64).signum() {
                        1 => GREEN,
                        -1 => RED,
                        _ => GREY,
                    };
                    Rectangle::new(
                        [
                            (left + 0.6, 0.0),
                            (left + f64::from(WIDTH) - 0.6, f64::from(c)),
                        ],
                        color.mix(0.75).filled(),
                    )
                }),
        )?;
        chart.draw_series(LineSeries::new(
            [(mean, 0.0), (mean, ymax)],
            BLUE.stroke_width(2),
        ))?;
        root.present()?;
    }
    Ok(svg)
}

#[cfg(test)]
mod chart_tests {
    use super::*;
    use crate::stats::Estimate;

    fn points(n: u32) -> Vec<EloPoint> {
        (1..=n)
            .map(|pairs| EloPoint {
                pairs,
                elo: Estimate {
                    value: 100.0 + f64::from(pairs),
                    low: 0.0,
                    high: 200.0,
                },
            })
            .collect()
    }

    /// The text of every `<text>` element of an svg.
    fn texts(svg: &str) -> Vec<&str> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| t.split_once('>').map(|(_, rest)| rest))
            .filter_map(|t| t.split_once("</text>").map(|(text, _)| text.trim()))
            .collect()
    }

    /// With 4 pairs the x axis reads 0 1 2 3 4, each once (it read "0 0 1 2 2 2 3 4 4"), every
    /// point is marked, and the legend is drawn above the plot, not over it.
    #[test]
    fn few_pairs_get_whole_ticks_marked_points_and_a_legend_above() {
        let svg = elo_chart(&points(4)).unwrap();
        let labels = texts(&svg);
        for tick in ["0", "1", "2", "3", "4"] {
            assert_eq!(
                labels.iter().filter(|t| **t == tick).count(),
                1,
                "{tick} in {labels:?}"
            );
        }
        assert_eq!(svg.matches("<circle").count(), 4, "every point marked");
        // The legend's label sits in the band above the plot area (y < 52).
        let legend = svg
            .split("<text")
            .find(|t| t.contains("Elo +104.0"))
            .expect("the legend");
        let y: f64 = legend
            .split("y=\"")
            .nth(1)
            .and_then(|v| v.split('"').next())
            .and_then(|v| v.parse().ok())
            .expect("a y coordinate");
        assert!(y < 52.0, "legend at y = {y}");
        // Many pairs: ten-odd ticks, only the last point marked.
        let svg = elo_chart(&points(300)).unwrap();
        assert!(texts(&svg).len() < 40);
        assert_eq!(svg.matches("<circle").count(), 1);
    }
}
