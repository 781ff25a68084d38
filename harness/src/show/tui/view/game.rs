//! One game on screen: the board, the players with their clocks and search reports, the move
//! list and the engines' evaluations over the game.

use super::board::{board_lines, disc};
use crate::show::run_model::GameState;
use crate::show::text::{count_compact, disc_difference, duration_clock, SCORES_VIEW};
use harness_core::search_terms::SearchInfo;
use othello_board::{Color as Side, Move};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::symbols;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Paragraph, Wrap};
use ratatui::Frame;
use std::time::Instant;

/// `e6 d3 c4` from raw PV move values.
fn pv_text(pv: &[Move], max: usize) -> String {
    pv.iter()
        .take(max)
        .map(|m| m.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// One side's live search info: `d12/100 +2.50 1.23M n 4.5M nps pv e6 d3`.
fn search_line(side: Side, info: Option<&SearchInfo>, name: &str, wide: bool) -> Line<'static> {
    let mut spans = vec![Span::styled(
        format!("{} ", disc(side)),
        Style::new().bold(),
    )];
    match info {
        None => spans.push(Span::raw(format!("{name}: no search info yet"))),
        Some(i) => {
            let nps = i
                .nps()
                .map(|n| format!(" {} nps", count_compact(n)))
                .unwrap_or_default();
            spans.push(Span::raw(format!(
                "depth {}@{}% {:+.2} {} nodes{nps}",
                i.depth,
                i.selectivity,
                i.score,
                count_compact(i.nodes)
            )));
            let pv = pv_text(&i.pv, if wide { 8 } else { 4 });
            if !pv.is_empty() {
                spans.push(Span::styled(
                    format!(" pv {pv}"),
                    Style::new().fg(Color::Cyan),
                ));
            }
        }
    }
    Line::from(spans)
}

/// The players, clocks, discs, side to move, opening and search info of a game.
fn game_info(
    g: &GameState,
    now: Instant,
    large: bool,
    live: bool,
    width: usize,
) -> Vec<Line<'static>> {
    let (b, w) = g.discs();
    let clocks = g.clocks_at(now);
    let stm = g.side_to_move();
    let over = g.is_finished() || g.position.is_game_over();
    let mut lines = Vec::new();
    let name_w = g.names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
    for (side, count) in [(Side::Black, b), (Side::White, w)] {
        let to_move = !over && stm == side;
        // A side without a clock (time per move, depth, nodes) gets blanks where the other
        // side's clock stands, so the columns stay aligned.
        let clock = match clocks[side.index()] {
            Some(left) => format!("  {:>7}", duration_clock(left)),
            None if g.has_clock() => " ".repeat(9),
            None => String::new(),
        };
        let mut spans = vec![
            Span::styled(format!("{} ", disc(side)), Style::new().bold()),
            Span::styled(
                format!("{:<name_w$}", g.names[side.index()]),
                if to_move {
                    Style::new().bold().fg(Color::Yellow)
                } else {
                    Style::new()
                },
            ),
            Span::raw(format!("  {:<5} {count:>2} discs{clock}", side.to_string())),
        ];
        if to_move {
            spans.push(Span::styled("  ◀ to move", Style::new().fg(Color::Yellow)));
        }
        lines.push(Line::from(spans));
    }
    // Numbered as the move list numbers them: the opening's moves count.
    lines.push(Line::from(format!(
        "Game {} (pair {}), {} moves played, opening {}",
        g.game + 1,
        g.pair + 1,
        g.moves.len(),
        if g.opening.is_empty() {
            "-"
        } else {
            &g.opening
        },
    )));
    match (&g.record, g.moves.last()) {
        (Some(r), _) => lines.push(Line::styled(
            format!(
                "Result {}, {}, {}{}",
                r.result,
                disc_difference(r.score),
                termination_text(r),
                if r.reason.is_empty() {
                    String::new()
                } else {
                    format!(": {}", r.reason)
                }
            ),
            Style::new().bold().fg(Color::Magenta),
        )),
        (None, Some(m)) => lines.push(Line::from(format!(
            "Last move {} {}{}",
            disc(m.color),
            m.mv,
            m.score
                .map(|s| format!(" ({s:+.2}, depth {})", m.depth.unwrap_or(0)))
                .unwrap_or_default()
        ))),
        (None, None) => lines.push(Line::from("Start position")),
    }
    if live {
        if large {
            lines.push(Line::from(""));
            lines.push(Line::styled("Search", Style::new().bold()));
        }
        if !large {
            lines.push(inline_moves(g, width));
        }
        for side in [Side::Black, Side::White] {
            lines.push(search_line(
                side,
                g.thinking[side.index()].as_ref(),
                &g.names[side.index()],
                large,
            ));
        }
    }
    lines
}

/// The newest moves that fit in `width` columns on one line: `Moves …22.c3 +2.50 23.d3 -1.00`
/// (older moves give way, never the newest).
fn inline_moves(g: &GameState, width: usize) -> Line<'static> {
    let room = width.saturating_sub("Moves …".chars().count());
    let mut shown: Vec<String> = Vec::new();
    let mut used = 0;
    for (i, m) in g.moves.iter().enumerate().rev() {
        let score = m.score.map(|s| format!(" {s:+.2}")).unwrap_or_default();
        let text = format!("{}.{}{score}", i + 1, m.mv);
        let needed = text.chars().count() + usize::from(!shown.is_empty());
        if used + needed > room {
            break;
        }
        used += needed;
        shown.push(text);
    }
    let cut = if shown.len() < g.moves.len() {
        "…"
    } else {
        ""
    };
    shown.reverse();
    Line::from(format!("Moves {cut}{}", shown.join(" ")))
}

pub(super) fn termination_text(r: &harness_core::record::GameRecord) -> String {
    r.termination.as_str().to_string()
}

/// The move list, ending at the last move (or at `cursor` moves, for replay).
pub(super) fn move_lines(g: &GameState, height: usize) -> Vec<Line<'static>> {
    let mut lines: Vec<Line> = g
        .moves
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let detail = if m.book {
                "book".to_string()
            } else if m.forced && m.mv.is_pass() {
                "forced".to_string()
            } else if m.forced {
                // A move of an adjudication's perfect line: the exact value, no time.
                format!(
                    "{:>6} exact",
                    m.score.map(|s| format!("{s:+.0}")).unwrap_or_default()
                )
            } else {
                format!(
                    "{:>6} {:>6}",
                    m.score.map(|s| format!("{s:+.2}")).unwrap_or_default(),
                    m.time_ms.map(|t| format!("{t}ms")).unwrap_or_default()
                )
            };
            let style = if i + 1 == g.moves.len() {
                Style::new().bold().fg(Color::Yellow)
            } else if m.book {
                Style::new().fg(Color::DarkGray)
            } else {
                Style::new()
            };
            // An analysed move that lost discs: `?` (or `??`, a result) and the exact values.
            let exact = m
                .exact
                .filter(|k| k.loss > 0)
                .map(|k| format!(" {} {:+}→{:+}", k.symbol(), k.value, k.after))
                .unwrap_or_default();
            Line::styled(
                format!(
                    "{:>3}. {} {:<3} {detail}{exact}",
                    i + 1,
                    disc(m.color),
                    m.mv
                ),
                style,
            )
        })
        .collect();
    let skip = lines.len().saturating_sub(height);
    lines.drain(..skip);
    lines
}

/// Both engines' scores by move, from Black's view.
fn eval_chart<'a>(g: &GameState, data: &'a [Vec<(f64, f64)>; 2]) -> Chart<'a> {
    let max_abs = data
        .iter()
        .flatten()
        .map(|&(_, s)| s.abs())
        .fold(4.0f64, f64::max)
        .min(64.0)
        .ceil();
    let x_max = (g.moves.len().max(60)) as f64;
    let datasets = [Side::Black, Side::White]
        .into_iter()
        .map(|side| {
            Dataset::default()
                .name(format!("{} {}", disc(side), g.names[side.index()]))
                .marker(symbols::Marker::Braille)
                .graph_type(GraphType::Line)
                .style(match side {
                    Side::Black => Style::new().fg(Color::Cyan),
                    Side::White => Style::new().fg(Color::Magenta),
                })
                .data(&data[side.index()])
        })
        .collect();
    // The key is in the title, in each line's colour: a legend inside the plot covered the
    // first moves' scores.
    let title = Line::from(vec![
        Span::raw(format!(
            " Eval ({SCORES_VIEW}{}): ",
            crate::show::text::out_of_range_note(g.scores_out_of_range())
        )),
        Span::styled(
            format!("{} {}", disc(Side::Black), g.names[Side::Black.index()]),
            Style::new().fg(Color::Cyan),
        ),
        Span::raw("  "),
        Span::styled(
            format!("{} {} ", disc(Side::White), g.names[Side::White.index()]),
            Style::new().fg(Color::Magenta),
        ),
    ]);
    Chart::new(datasets)
        .block(Block::bordered().title(title))
        .legend_position(None)
        .x_axis(
            Axis::default()
                .bounds([0.0, x_max])
                .labels(["0".to_string(), format!("{}", x_max as u32)]),
        )
        .y_axis(Axis::default().bounds([-max_abs, max_abs]).labels([
            format!("{:+}", -max_abs),
            "0".to_string(),
            format!("{max_abs:+}"),
        ]))
}

/// The board's columns, its frame included.
pub(super) fn board_width(large: bool) -> u16 {
    if large {
        40
    } else {
        29
    }
}

/// A game: board, info, moves and (large) the eval chart, in `area`. `live` adds the search
/// info. Returns nothing; draws what fits.
#[allow(clippy::too_many_arguments)]
pub(super) fn draw_game(
    f: &mut Frame,
    game_area: Rect,
    chart_area: Option<Rect>,
    g: &GameState,
    now: Instant,
    large: bool,
    live: bool,
    title: String,
) {
    let board_w = board_width(large);
    let moves_w = if large { 30 } else { 0 };
    let [board_a, info_a, moves_a] = Layout::horizontal([
        Constraint::Length(board_w),
        Constraint::Min(20),
        Constraint::Length(moves_w),
    ])
    .areas(game_area);
    let board = board_lines(&g.position, g.last_move(), !g.is_finished(), large);
    f.render_widget(
        Paragraph::new(board).block(Block::bordered().title(title)),
        board_a,
    );
    let info = game_info(g, now, large, live, info_a.width.saturating_sub(2).into());
    // Compact: one row per line (cut at the edge) so that both search lines fit.
    let info = Paragraph::new(info).block(Block::bordered().title(" Players "));
    let info = if large {
        info.wrap(Wrap { trim: true })
    } else {
        info
    };
    f.render_widget(info, info_a);
    if moves_w > 0 {
        let lines = move_lines(g, moves_a.height.saturating_sub(2) as usize);
        f.render_widget(
            Paragraph::new(lines).block(Block::bordered().title(" Moves ")),
            moves_a,
        );
    }
    if let Some(chart_area) = chart_area {
        let data = g.eval_history();
        f.render_widget(eval_chart(g, &data), chart_area);
    }
}
