//! `tune.html`: a tune's page (`harness tune`): the values to paste, then every parameter's
//! trajectory over the applied iterations, from `tune.jsonl`'s lines alone.

use super::chart::trajectory_chart;
use super::html::{esc, CSS};
use super::MAX_TRAJECTORY_POINTS;
use harness_core::record::tune::TuneLine;
use harness_core::stats::spsa::Param;
use std::fmt::Write;

/// The tune's page in the output folder.
pub const HTML_FILE: &str = "tune.html";

/// The page of a tune of engine `tuned` over `params`, after `lines`, whose final values are
/// `options` (an `options = { … }` line).
pub fn html(
    tuned: &str,
    params: &[Param],
    lines: &[TuneLine],
    options: &str,
) -> anyhow::Result<String> {
    let mut s = String::new();
    let _ = write!(
        s,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>tune of {}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<main>\n\
         <h1>SPSA tune of {}</h1>\n<p>{} iterations applied. The values, for the engine's \
         <code>[[engine]]</code> table:</p>\n<pre>{}</pre>\n",
        esc(tuned),
        esc(tuned),
        lines.len(),
        esc(options)
    );
    // Long tunes are thinned to at most MAX_TRAJECTORY_POINTS points per chart, the last kept.
    let step = lines.len().div_ceil(MAX_TRAJECTORY_POINTS).max(1);
    for (i, p) in params.iter().enumerate() {
        let points: Vec<(f64, f64)> = lines
            .iter()
            .enumerate()
            .filter(|(n, _)| (n + 1) % step == 0 || n + 1 == lines.len())
            .filter_map(|(n, l)| l.theta.0.get(i).map(|(_, v)| ((n + 1) as f64, *v)))
            .collect();
        let svg = trajectory_chart(&p.name, p.start, (p.min, p.max), &points)?;
        let _ = write!(s, "<h2>{}</h2>\n<figure>{svg}</figure>\n", esc(&p.name));
    }
    s.push_str("</main>\n</body>\n</html>\n");
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use harness_core::record::tune::Values;

    #[test]
    fn a_chart_per_parameter_and_the_values() {
        let param = |name: &str| Param {
            name: name.into(),
            start: 2.0,
            min: 1.0,
            max: 6.0,
            c_end: 1.0,
            r_end: 0.05,
            integer: true,
        };
        let params = vec![param("Depth"), param("Other<")];
        let line = |i: u64, v: f64| TuneLine {
            iteration: i,
            delta: Values::of(&["Depth", "Other<"], &[1, -1]),
            plus: Values::of(&["Depth", "Other<"], &[3.0, 1.0]),
            minus: Values::of(&["Depth", "Other<"], &[1.0, 3.0]),
            result: 1.0,
            theta: Values::of(&["Depth", "Other<"], &[v, 4.0 - v]),
        };
        let lines: Vec<TuneLine> = (1..=5).map(|i| line(i, 2.0 + 0.2 * i as f64)).collect();
        let page = html("mm", &params, &lines, "options = { Depth = 3 }").unwrap();
        assert_eq!(page.matches("<svg").count(), 2);
        assert!(page.contains("<pre>options = { Depth = 3 }</pre>"));
        assert!(page.contains("<h2>Other&lt;</h2>"));
        assert!(
            page.contains("θ (now 3.000)"),
            "the last value in the legend"
        );
    }
}
