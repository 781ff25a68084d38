//! The charts of `report.html`: inline SVG drawn with plotters' SVG backend (the LLR of the
//! sequential test, a pairing's Elo over pairs, its disc differences), each a fixed-size
//! picture with its title and legend in a band above the plot.

use super::{EloPoint, TrajectoryPoint};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::ops::Range;

const FONT: &str = "sans-serif";
const CHART_SIZE: (u32, u32) = (560, 330);
const BLUE: RGBColor = RGBColor(31, 119, 180);
const GREEN: RGBColor = RGBColor(44, 160, 44);
const RED: RGBColor = RGBColor(214, 39, 40);
const GREY: RGBColor = RGBColor(120, 120, 120);
const GRID: RGBColor = RGBColor(235, 235, 235);

/// The drawing area of a chart's picture.
type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
/// A chart's plot, both axes in numbers.
type Plot<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;
/// A tick label's text.
type Label<'f> = &'f dyn Fn(&f64) -> String;

/// A picture of [`CHART_SIZE`] on white, painted by `paint`, as SVG text.
fn svg(paint: impl FnOnce(&Area) -> anyhow::Result<()>) -> anyhow::Result<String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, CHART_SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        paint(&root)?;
        root.present()?;
    }
    Ok(svg)
}

/// An empty chart with a message, for when there is nothing to plot yet.
fn placeholder(message: &str) -> anyhow::Result<String> {
    svg(|root| {
        root.draw(&Text::new(
            message.to_string(),
            (
                CHART_SIZE.0 as i32 / 2 - 4 * message.len() as i32,
                CHART_SIZE.1 as i32 / 2,
            ),
            (FONT, 16).into_font().color(&GREY),
        ))?;
        Ok(())
    })
}

/// What differs between the charts' frames: title, legend and axes. The rest of the frame
/// (margins, fonts, a light grid) is the same for every chart.
struct Frame<'f> {
    title: &'f str,
    keys: &'f [(Key, String)],
    x: Range<f64>,
    x_desc: &'f str,
    x_ticks: usize,
    x_label: Label<'f>,
    /// Vertical grid lines (the histogram's bars go without).
    x_grid: bool,
    y: Range<f64>,
    y_desc: &'f str,
    /// The y tick labels, when not plotters' own.
    y_label: Option<Label<'f>>,
    /// Room for the y tick labels.
    y_label_width: u32,
}

/// A chart: the frame (title and legend above the plot, axes, grid), then what `plot` draws in
/// it.
fn chart(
    frame: Frame,
    plot: impl FnOnce(&mut Plot) -> anyhow::Result<()>,
) -> anyhow::Result<String> {
    svg(|root| {
        let area = heading(root, frame.title, frame.keys)?;
        let mut chart = ChartBuilder::on(&area)
            .margin(14)
            .margin_top(4)
            .x_label_area_size(42)
            .y_label_area_size(frame.y_label_width)
            .build_cartesian_2d(frame.x, frame.y)?;
        let mut mesh = chart.configure_mesh();
        mesh.x_desc(frame.x_desc)
            .y_desc(frame.y_desc)
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .light_line_style(WHITE)
            .bold_line_style(GRID)
            .x_labels(frame.x_ticks)
            .x_label_formatter(frame.x_label);
        if let Some(label) = frame.y_label {
            mesh.y_label_formatter(label);
        }
        if !frame.x_grid {
            mesh.disable_x_mesh();
        }
        mesh.draw()?;
        plot(&mut chart)
    })
}

/// A legend entry drawn above a chart: a line, or a filled box for a band.
enum Key {
    Line(RGBColor),
    Band(RGBColor),
}

/// The title and the legend of a chart, drawn in a band above the plot (so that no legend ever
/// covers data); returns the area left for the plot.
fn heading<'a>(root: &Area<'a>, title: &str, keys: &[(Key, String)]) -> anyhow::Result<Area<'a>> {
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

/// The LLR after each complete pair, between the two bounds that decide the test.
pub(super) fn llr_chart(
    traj: &[TrajectoryPoint],
    lower: f64,
    upper: f64,
) -> anyhow::Result<String> {
    let mut points: Vec<(f64, f64)> = vec![(0.0, 0.0)];
    points.extend(traj.iter().map(|p| (f64::from(p.pairs), p.llr)));
    let xmax = points.last().map(|p| p.0).unwrap_or(0.0).max(1.0);
    let lo = points.iter().map(|p| p.1).fold(lower, f64::min);
    let hi = points.iter().map(|p| p.1).fold(upper, f64::max);
    let pad = 0.08 * (hi - lo);
    let frame = Frame {
        title: "SPRT log-likelihood ratio",
        keys: &[
            (Key::Line(BLUE), "LLR".to_string()),
            (Key::Line(GREEN), format!("H1 bound {upper:.2}")),
            (Key::Line(RED), format!("H0 bound {lower:.2}")),
        ],
        x: 0.0..xmax,
        x_desc: "complete pairs",
        x_ticks: count_ticks(xmax),
        x_label: &whole,
        x_grid: true,
        y: (lo - pad)..(hi + pad),
        y_desc: "LLR",
        y_label: None,
        y_label_width: 52,
    };
    chart(frame, |chart| {
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
        Ok(())
    })
}

/// A pairing's Elo after each complete pair, with its 95% interval as a band.
pub(super) fn elo_chart(points: &[EloPoint]) -> anyhow::Result<String> {
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
    let frame = Frame {
        title: "Elo over pairs",
        keys: &[
            (Key::Line(BLUE), format!("Elo {:+.1}", last.elo.value)),
            (Key::Band(BLUE), "95% interval".to_string()),
        ],
        x: 0.0..xmax,
        x_desc: "complete pairs",
        x_ticks: count_ticks(xmax),
        x_label: &whole,
        x_grid: true,
        y: lo..hi,
        y_desc: "Elo",
        y_label: Some(&|y| format!("{y:+.0}")),
        y_label_width: 58,
    };
    chart(frame, |chart| {
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
        Ok(())
    })
}

/// Bars 8 discs wide, centred on multiples of 8 (so a draw sits in the middle bar).
pub(super) fn disc_histogram(discs: &[i32]) -> anyhow::Result<String> {
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
    let frame = Frame {
        title: "Disc difference per game",
        keys: &[(Key::Line(BLUE), format!("mean {mean:+.1}"))],
        x: -68.0..68.0,
        x_desc: "final disc difference",
        x_ticks: 9,
        x_label: &|x| format!("{x:+.0}"),
        x_grid: false,
        y: 0.0..ymax,
        y_desc: "games",
        y_label: Some(&|y| {
            if y.fract().abs() < 1e-9 {
                format!("{y:.0}")
            } else {
                String::new()
            }
        }),
        y_label_width: 52,
    };
    chart(frame, |chart| {
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
        Ok(())
    })
}

/// A tuned parameter's value after each applied iteration (`points`: iteration, value), from
/// its start at iteration 0, between its range's bounds.
pub(super) fn trajectory_chart(
    name: &str,
    start: f64,
    range: (f64, f64),
    points: &[(f64, f64)],
) -> anyhow::Result<String> {
    let xmax = points.last().map_or(1.0, |p| p.0).max(1.0);
    let (lo, hi) = range;
    let pad = (hi - lo) * 0.04;
    let last = points.last().map_or(start, |p| p.1);
    let title = format!("{name} over iterations");
    let frame = Frame {
        title: &title,
        keys: &[
            (Key::Line(BLUE), format!("θ (now {last:.3})")),
            (Key::Line(GREY), format!("start {start}")),
        ],
        x: 0.0..xmax,
        x_desc: "iterations applied",
        x_ticks: count_ticks(xmax),
        x_label: &whole,
        x_grid: true,
        y: lo - pad..hi + pad,
        y_desc: name,
        y_label: None,
        y_label_width: 58,
    };
    chart(frame, |chart| {
        chart.draw_series(LineSeries::new(
            [(0.0, start), (xmax, start)],
            GREY.stroke_width(1),
        ))?;
        chart.draw_series(LineSeries::new(
            std::iter::once((0.0, start)).chain(points.iter().copied()),
            BLUE.stroke_width(2),
        ))?;
        Ok(())
    })
}

/// An Elo with its 95% interval: (value, low, high).
pub(super) type EloBar = (f64, f64, f64);

/// Elo over commits: one point per player in commit order with its 95% interval as a bar,
/// joined by a line; `points` are (tick label, Elo and interval, or `None` for a player with no
/// rated game, which keeps its place on the axis unmarked).
pub(super) fn commits_chart(points: &[(String, Option<EloBar>)]) -> anyhow::Result<String> {
    let rated: Vec<(f64, EloBar)> = points
        .iter()
        .enumerate()
        .filter_map(|(i, (_, r))| r.map(|r| (i as f64, r)))
        .collect();
    if rated.is_empty() {
        return placeholder("No rated build yet");
    }
    let lo = rated.iter().map(|p| p.1 .1).fold(0.0f64, f64::min);
    let hi = rated.iter().map(|p| p.1 .2).fold(0.0f64, f64::max);
    let pad = ((hi - lo) * 0.08).max(5.0);
    let xmax = (points.len() as f64 - 0.5).max(0.5);
    let label = |x: &f64| {
        let i = x.round();
        if (x - i).abs() > 1e-9 || i < 0.0 {
            return String::new();
        }
        points
            .get(i as usize)
            .map_or(String::new(), |p| p.0.clone())
    };
    let frame = Frame {
        title: "Elo over commits",
        keys: &[
            (Key::Line(BLUE), "Elo against the anchor".to_string()),
            (Key::Line(GREY), "95% interval".to_string()),
        ],
        x: -0.5..xmax,
        x_desc: "builds in commit order",
        x_ticks: points.len().clamp(1, 8),
        x_label: &label,
        x_grid: false,
        y: (lo - pad).max(-2450.0)..(hi + pad).min(2450.0),
        y_desc: "Elo",
        y_label: Some(&|y| format!("{y:+.0}")),
        y_label_width: 58,
    };
    chart(frame, |chart| {
        chart.draw_series(LineSeries::new(
            [(-0.5, 0.0), (xmax, 0.0)],
            GREY.stroke_width(1),
        ))?;
        chart.draw_series(rated.iter().map(|&(x, (_, low, high))| {
            PathElement::new(vec![(x, low), (x, high)], GREY.stroke_width(2))
        }))?;
        chart.draw_series(LineSeries::new(
            rated.iter().map(|&(x, (elo, _, _))| (x, elo)),
            BLUE.stroke_width(2),
        ))?;
        chart.draw_series(
            rated
                .iter()
                .map(|&(x, (elo, _, _))| Circle::new((x, elo), 4, BLUE.filled())),
        )?;
        Ok(())
    })
}

#[cfg(test)]
mod chart_tests {
    use super::*;
    use harness_core::stats::Estimate;

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
