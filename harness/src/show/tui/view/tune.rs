//! The tune's lines of the tournament panel: θ after so many iterations, then each parameter's
//! value and its trajectory as a sparkline (the whole tune so far, lowest to highest value).

use crate::show::tui::tune::TuneTrace;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

/// The eight heights of a sparkline.
const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

/// A heading, then one line per parameter: name, value, trajectory in `width` columns.
pub(super) fn tune_lines(t: &TuneTrace, width: usize) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(
        format!("θ after {} of {} iterations", t.applied, t.iterations),
        Style::new().bold(),
    )];
    let name_w = t.names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    let spark_w = width.saturating_sub(name_w + 14).clamp(8, 60);
    for ((name, value), series) in t.names.iter().zip(&t.current).zip(&t.history) {
        lines.push(Line::from(vec![
            Span::raw(format!("  {name:<name_w$} {value:>9.2}  ")),
            Span::styled(sparkline(series, spark_w), Style::new().fg(Color::Cyan)),
        ]));
    }
    lines
}

/// `series` in at most `width` characters: evenly spaced samples, each a bar between the
/// series' lowest and highest value.
pub(super) fn sparkline(series: &[f64], width: usize) -> String {
    if series.is_empty() || width == 0 {
        return String::new();
    }
    let n = series.len().min(width);
    let samples = (0..n).map(|i| series[i * (series.len() - 1) / (n - 1).max(1)]);
    let (lo, hi) = series
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &v| {
            (l.min(v), h.max(v))
        });
    samples
        .map(|v| {
            let x = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
            BARS[((x * 7.0).round() as usize).min(7)]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::sparkline;

    #[test]
    fn sparklines_span_the_range() {
        assert_eq!(
            sparkline(&[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], 8),
            "▁▂▃▄▅▆▇█"
        );
        // A flat series sits halfway (bar 4 of 0..=7, rounded up).
        assert_eq!(sparkline(&[3.0; 5], 10), "▅▅▅▅▅");
        // A long series keeps its first and last values.
        let long: Vec<f64> = (0..1000).map(f64::from).collect();
        let s = sparkline(&long, 10);
        assert_eq!(s.chars().count(), 10);
        assert!(s.starts_with('▁') && s.ends_with('█'));
    }
}
