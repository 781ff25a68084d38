//! The tournament panel of the live screen: progress, the sequential test's gauge, the
//! standings, forfeits, the games in progress and the latest results.

use super::board::disc;
use super::game::termination_text;
use crate::show::run_model::Standings;
use crate::show::standings::{Column, MISSING};
use crate::show::text::{decision_mark, duration_compact};
use crate::show::tui::state::State;
use harness_core::events::ControlState;
use harness_core::stats::sprt::SprtStatus;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, LineGauge, Paragraph};
use ratatui::Frame;
use std::time::Instant;

/// The tournament panel: progress, SPRT, standings, forfeits, games in progress, results.
pub(super) fn draw_tournament(f: &mut Frame, area: Rect, s: &State, now: Instant, large: bool) {
    let block = Block::bordered().title(" Tournament ");
    let inner = block.inner(area);
    f.render_widget(block, area);
    let sprt = s.run.sprt_status();
    let [head, gauge, rest] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(u16::from(sprt.is_some())),
        Constraint::Min(0),
    ])
    .areas(inner);
    f.render_widget(Paragraph::new(progress_line(s, now)), head);
    if let Some(st) = sprt {
        f.render_widget(sprt_gauge(st, s.run.decision_measures()), gauge);
    }
    let mut lines: Vec<Line> = Vec::new();
    if let Some(st) = s.run.standings() {
        lines.extend(standings_lines(st, name_width(s, large)));
    }
    if let Some(t) = &s.run.tune {
        lines.extend(super::tune::tune_lines(t, usize::from(rest.width)));
    }
    lines.extend(forfeit_line(s));
    lines.extend(live_lines(s, large));
    lines.extend(recent_lines(s));
    if !s.last_line.is_empty() && large {
        lines.push(Line::styled(
            s.last_line.clone(),
            Style::new().fg(Color::DarkGray),
        ));
    }
    f.render_widget(Paragraph::new(lines), rest);
}

/// Games done of the total, the time so far and the estimate of the end, the time control.
fn progress_line(s: &State, now: Instant) -> Line<'static> {
    let (done, total) = s.run.progress();
    let pct = if total > 0 {
        100.0 * done as f64 / total as f64
    } else {
        0.0
    };
    let elapsed = s
        .run
        .elapsed(now)
        .map(duration_compact)
        .unwrap_or_else(|| "-".into());
    // Paused, no game starts: an estimate of the end would run on meaninglessly.
    let eta = match s.run.control {
        ControlState::Paused => "  ETA paused".to_string(),
        _ => s
            .run
            .eta(now)
            .map(|d| format!("  ETA {}", duration_compact(d)))
            .unwrap_or_default(),
    };
    Line::from(vec![
        Span::styled(
            format!("{done}/{total} games ({pct:.0}%)"),
            Style::new().bold(),
        ),
        Span::raw(format!("  {elapsed}{eta}  {}", s.run.time_control)),
    ])
}

/// The sequential test's LLR between its bounds, with the decision once there is one.
fn sprt_gauge(st: &SprtStatus, measures: bool) -> LineGauge<'static> {
    let ratio = ((st.llr - st.lower) / (st.upper - st.lower)).clamp(0.0, 1.0);
    let label = format!(
        "SPRT [{}, {}] LLR {:+.2} ({:+.2}, {:+.2}){} ",
        st.params.elo0,
        st.params.elo1,
        st.llr,
        st.lower,
        st.upper,
        decision_mark(st.decision, measures)
    );
    LineGauge::default()
        .ratio(ratio)
        .label(label)
        .filled_style(Style::new().fg(Color::Green))
        .unfilled_style(Style::new().fg(Color::Red))
}

/// The width of an engine's name in the standings: the longest name, within 6 to 8 columns
/// (14 on a large screen).
fn name_width(s: &State, large: bool) -> usize {
    s.run
        .engines
        .iter()
        .map(|e| e.chars().count())
        .max()
        .unwrap_or(6)
        .clamp(6, if large { 14 } else { 8 })
}

/// One row per pairing under a heading, then the joint rating when there is one.
pub(super) fn standings_lines(st: &Standings, name_w: usize) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled(
        format!(
            "{:<pw$} {:>5} {:>9} {:>6} {:>9} {:>5}",
            "pairing",
            "games",
            "W-D-L",
            "score",
            "Elo, 95%",
            "discs",
            pw = 2 * name_w + 3
        ),
        Style::new().add_modifier(Modifier::UNDERLINED),
    )];
    for m in &st.matches {
        lines.push(Line::from(format!(
            "{:<w$.w$} v {:<w$.w$} {:>5} {:>9} {:>6} {:>9} {:>5}",
            m.a,
            m.b,
            m.games,
            m.cell(Column::Wdl),
            m.cell(Column::Score),
            match m.elo {
                None => MISSING.to_string(),
                // Openings repeat and too few are distinct: no interval, as every view says.
                Some(e) if m.interval_withheld.is_some() => {
                    format!("{:+.0} [{}]", e.value, crate::show::standings::WITHHELD)
                }
                Some(e) => e.short_text(),
            },
            m.disc_diff
                .map_or(MISSING.to_string(), |d| format!("{:+.1}", d.value)),
            w = name_w
        )));
    }
    if st.matches.is_empty() {
        lines.push(Line::from("no finished games yet"));
    }
    let repeated = harness_core::stats::openings::RepeatedOpenings::of(
        st.matches.iter().map(|m| m.clusters()),
    );
    if let Some(r) = repeated {
        lines.push(Line::styled(
            format!("warning: {}", r.warning),
            Style::new().add_modifier(Modifier::BOLD),
        ));
    }
    if !st.ratings.is_empty() {
        let r: Vec<String> = st
            .ratings
            .iter()
            .map(|r| {
                let interval = crate::show::standings::short_interval(r.elo, r.low, r.high);
                format!("{} {interval}", r.name)
            })
            .collect();
        lines.push(Line::from(format!("Ratings: {}", r.join("  "))));
    }
    lines
}

/// How many games were forfeited and the last forfeit; nothing without one.
fn forfeit_line(s: &State) -> Option<Line<'static>> {
    let forfeits = s.run.forfeits();
    let &(by, term, reason) = forfeits.last()?;
    Some(Line::styled(
        format!(
            "Forfeits {}: last {by} {}: {reason}",
            forfeits.len(),
            term.as_str()
        ),
        Style::new().fg(Color::Red),
    ))
}

/// The games in progress (the first few, numbered for the digit keys), the shown one marked.
fn live_lines(s: &State, large: bool) -> Vec<Line<'static>> {
    let live_rows = if large { 6 } else { 3 };
    let mut lines = vec![Line::styled(
        format!("In progress ({})", s.run.live.len()),
        Style::new().bold(),
    )];
    for (i, g) in s.run.live.values().enumerate().take(live_rows) {
        let (b, w) = g.discs();
        let marker = if s.shown == Some(g.game) { "▶" } else { " " };
        lines.push(Line::from(format!(
            "{marker}{} g{:<4} {} {b:>2}-{w:<2} {}  {:>2} moves  {} to move",
            if i < 9 {
                format!("{}", i + 1)
            } else {
                " ".into()
            },
            g.game + 1,
            g.names[0],
            g.names[1],
            // Counted as the move list and the game's header count: the opening's too.
            g.moves.len(),
            disc(g.side_to_move()),
        )));
    }
    if s.run.live.len() > live_rows {
        lines.push(Line::from(format!(
            "  … {} more",
            s.run.live.len() - live_rows
        )));
    }
    lines
}

/// The latest finished games, newest first, with how a forfeited one ended.
fn recent_lines(s: &State) -> Vec<Line<'static>> {
    let mut lines = vec![Line::styled("Recent results", Style::new().bold())];
    for g in &s.run.recent {
        if let Some(r) = &g.record {
            let how = if r.termination.is_forfeit() {
                format!(" {}", termination_text(r))
            } else {
                String::new()
            };
            lines.push(Line::from(format!(
                "  g{:<4} {} - {}  {} ({:+}){how}",
                r.game + 1,
                r.black,
                r.white,
                r.result,
                r.score
            )));
        }
    }
    lines
}
