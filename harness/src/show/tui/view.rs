//! Drawing: the spectated game (board, clocks, moves, search info, eval chart), the tournament
//! panel, the help overlay and the quit prompt; and the replay screen with the same board view.
//! Everything reads the model of `state`; nothing here changes it.

use super::state::{GameState, State, LINGER};
use crate::events::ControlState;
use crate::search::SearchInfo;
use crate::show::standings::{Column, MISSING};
use crate::show::text::{count_compact, duration_clock, duration_compact};
use othello_board::{Color as Side, Move, Position, Square};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::symbols;
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Axis, Block, Chart, Clear, Dataset, GraphType, LineGauge, Paragraph, Wrap};
use ratatui::Frame;
use std::time::Instant;

/// Disc glyphs: distinct shapes, so that the board reads without colour.
pub const BLACK_DISC: &str = "●";
pub const WHITE_DISC: &str = "○";
/// A legal move of the side to move.
pub const LEGAL: &str = "+";

/// UI-only state of the live screen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overlay {
    pub help: bool,
    /// The quit prompt: finish / stop / cancel.
    pub quit_prompt: bool,
}

fn disc(side: Side) -> &'static str {
    match side {
        Side::Black => BLACK_DISC,
        Side::White => WHITE_DISC,
    }
}

fn disc_style(side: Side) -> Style {
    match side {
        Side::Black => Style::new().fg(Color::Black).bg(Color::Green).bold(),
        Side::White => Style::new().fg(Color::White).bg(Color::Green).bold(),
    }
}

/// Whether the screen is large enough for the big layout (board with a grid, chart).
pub fn is_large(area: Rect) -> bool {
    area.width >= 110 && area.height >= 36
}

/// The board as text lines: coordinates a-h / 1-8, discs, the last move in brackets, legal
/// moves as `+`. `large` draws a grid with 4-column cells; otherwise 3-column cells.
pub fn board_lines(
    pos: &Position,
    last: Option<Move>,
    legal: bool,
    large: bool,
) -> Vec<Line<'static>> {
    let last_sq = last.and_then(Move::square);
    let moves = if legal && !pos.is_game_over() {
        pos.legal_moves()
    } else {
        0
    };
    let board = Style::new().bg(Color::Green).fg(Color::Black);
    let grid = Style::new().bg(Color::Green).fg(Color::DarkGray);
    let mut lines = Vec::new();
    let letters: Vec<String> = (b'a'..=b'h').map(|c| (c as char).to_string()).collect();
    let header = if large {
        format!("     {}", letters.join("   "))
    } else {
        format!("    {}", letters.join("  "))
    };
    lines.push(Line::from(header.trim_end().to_string()));
    let rule = |l: &str, m: &str, r: &str| {
        let mut s = String::from(l);
        for i in 0..8 {
            s.push_str("───");
            s.push_str(if i < 7 { m } else { r });
        }
        s
    };
    if large {
        lines.push(Line::from(vec![
            Span::raw("   "),
            Span::styled(rule("┌", "┬", "┐"), grid),
        ]));
    }
    for row in 0..8u32 {
        let mut spans = vec![Span::raw(format!(" {} ", row + 1))];
        if large {
            spans.push(Span::styled("│", grid));
        }
        for col in 0..8u32 {
            let sq = Square::at(col, row).expect("on the board");
            let is_last = last_sq == Some(sq);
            let (glyph, style) = match pos.color_at(sq) {
                Some(c) => (disc(c), disc_style(c)),
                None if moves & sq.bit() != 0 => (LEGAL, board.fg(Color::LightGreen)),
                None if large => (" ", board),
                None => ("·", board),
            };
            let style = if is_last {
                style.bg(Color::Yellow)
            } else {
                style
            };
            let (l, r) = if is_last { ("[", "]") } else { (" ", " ") };
            spans.push(Span::styled(format!("{l}{glyph}{r}"), style));
            if large {
                spans.push(Span::styled("│", grid));
            }
        }
        lines.push(Line::from(spans));
        if large {
            let r = if row < 7 {
                rule("├", "┼", "┤")
            } else {
                rule("└", "┴", "┘")
            };
            lines.push(Line::from(vec![Span::raw("   "), Span::styled(r, grid)]));
        }
    }
    lines
}

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
                "Result {} ({:+} discs), {}{}",
                r.result,
                r.score,
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

fn termination_text(r: &crate::record::GameRecord) -> String {
    format!("{:?}", r.termination).to_lowercase()
}

/// The move list, ending at the last move (or at `cursor` moves, for replay).
fn move_lines(g: &GameState, height: usize) -> Vec<Line<'static>> {
    let mut lines: Vec<Line> = g
        .moves
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let detail = if m.book {
                "book".to_string()
            } else if m.forced {
                "forced".to_string()
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
            Line::styled(
                format!("{:>3}. {} {:<3} {detail}", i + 1, disc(m.color), m.mv),
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
        Span::raw(" Eval (discs, Black's view): "),
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

/// The tournament panel: progress, SPRT, standings, forfeits, games in progress, results.
fn draw_tournament(f: &mut Frame, area: Rect, s: &State, now: Instant, large: bool) {
    let block = Block::bordered().title(" Tournament ");
    let inner = block.inner(area);
    f.render_widget(block, area);
    let sprt = s.sprt_status();
    let [head, gauge, rest] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(u16::from(sprt.is_some())),
        Constraint::Min(0),
    ])
    .areas(inner);

    let (done, total) = s.progress();
    let pct = if total > 0 {
        100.0 * done as f64 / total as f64
    } else {
        0.0
    };
    let elapsed = s
        .elapsed(now)
        .map(duration_compact)
        .unwrap_or_else(|| "-".into());
    // Paused, no game starts: an estimate of the end would run on meaninglessly.
    let eta = match s.control {
        ControlState::Paused => "  ETA paused".to_string(),
        _ => s
            .eta(now)
            .map(|d| format!("  ETA {}", duration_compact(d)))
            .unwrap_or_default(),
    };
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(
                format!("{done}/{total} games ({pct:.0}%)"),
                Style::new().bold(),
            ),
            Span::raw(format!("  {elapsed}{eta}  {}", s.time_control)),
        ])),
        head,
    );
    if let Some(st) = sprt {
        let ratio = ((st.llr - st.lower) / (st.upper - st.lower)).clamp(0.0, 1.0);
        let label = format!(
            "SPRT [{}, {}] LLR {:+.2} ({:+.2}, {:+.2}){} ",
            st.params.elo0,
            st.params.elo1,
            st.llr,
            st.lower,
            st.upper,
            crate::show::text::decision_mark(st.decision)
        );
        f.render_widget(
            LineGauge::default()
                .ratio(ratio)
                .label(label)
                .filled_style(Style::new().fg(Color::Green))
                .unfilled_style(Style::new().fg(Color::Red)),
            gauge,
        );
    }

    let mut lines: Vec<Line> = Vec::new();
    let name_w = s
        .engines
        .iter()
        .map(|e| e.chars().count())
        .max()
        .unwrap_or(6)
        .clamp(6, if large { 14 } else { 8 });
    if let Some(st) = s.standings() {
        lines.push(Line::styled(
            format!(
                "{:<pw$} {:>5} {:>9} {:>6} {:>9} {:>5}",
                "pairing",
                "games",
                "W-D-L",
                "score",
                "Elo ±95%",
                "discs",
                pw = 2 * name_w + 3
            ),
            Style::new().add_modifier(Modifier::UNDERLINED),
        ));
        for m in &st.matches {
            lines.push(Line::from(format!(
                "{:<w$.w$} v {:<w$.w$} {:>5} {:>9} {:>6} {:>9} {:>5}",
                m.a,
                m.b,
                m.games,
                m.cell(Column::Wdl),
                m.cell(Column::Score),
                m.elo.map_or(MISSING.to_string(), |e| e.short_text()),
                m.disc_diff
                    .map_or(MISSING.to_string(), |d| format!("{:+.1}", d.value)),
                w = name_w
            )));
        }
        if st.matches.is_empty() {
            lines.push(Line::from("no finished games yet"));
        }
        if !st.ratings.is_empty() {
            let r: Vec<String> = st
                .ratings
                .iter()
                .map(|r| format!("{} {:+.0}±{:.0}", r.name, r.elo, (r.high - r.low) / 2.0))
                .collect();
            lines.push(Line::from(format!("Ratings: {}", r.join("  "))));
        }
    }
    let forfeits = s.forfeits();
    if !forfeits.is_empty() {
        let (by, term, reason) = forfeits[forfeits.len() - 1];
        lines.push(Line::styled(
            format!(
                "Forfeits {}: last {by} {:?}: {reason}",
                forfeits.len(),
                term
            ),
            Style::new().fg(Color::Red),
        ));
    }
    let live_rows = if large { 6 } else { 3 };
    lines.push(Line::styled(
        format!("In progress ({})", s.live.len()),
        Style::new().bold(),
    ));
    for (i, g) in s.live.values().enumerate().take(live_rows) {
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
    if s.live.len() > live_rows {
        lines.push(Line::from(format!("  … {} more", s.live.len() - live_rows)));
    }
    lines.push(Line::styled("Recent results", Style::new().bold()));
    for g in &s.recent {
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
    if !s.last_line.is_empty() && large {
        lines.push(Line::styled(
            s.last_line.clone(),
            Style::new().fg(Color::DarkGray),
        ));
    }
    f.render_widget(Paragraph::new(lines), rest);
}

fn status_text(s: &State) -> (&'static str, Color) {
    if s.run_finished {
        return ("FINISHED", Color::Green);
    }
    match s.control {
        ControlState::Running => ("RUNNING", Color::Green),
        ControlState::Paused => ("PAUSED", Color::Yellow),
        ControlState::Finishing => ("FINISHING", Color::Yellow),
        ControlState::Stopping => ("STOPPING", Color::Red),
    }
}

fn footer(s: &State, now: Instant) -> Line<'static> {
    let (status, colour) = status_text(s);
    let follow = if s.following() { "on" } else { "off" };
    let keys = if s.run_finished {
        let left = s
            .run_ended
            .map_or(LINGER, |t| LINGER.saturating_sub(now.duration_since(t)));
        if s.stay {
            "run finished: q exits and prints the tables".to_string()
        } else {
            format!(
                "run finished: q exits and prints the tables (on its own in {} s; any other key stays)",
                left.as_secs() + 1
            )
        }
    } else {
        let pause = if s.control == ControlState::Paused {
            "p resume"
        } else {
            "p pause"
        };
        format!("←/→ Tab 1-9 game  f follow ({follow})  {pause}  ? help  q quit")
    };
    Line::from(vec![
        Span::styled(
            format!(" {status} "),
            Style::new().bg(colour).fg(Color::Black).bold(),
        ),
        Span::raw(format!(" {keys}")),
    ])
}

/// A game: board, info, moves and (large) the eval chart, in `area`. `live` adds the search
/// info. Returns nothing; draws what fits.
#[allow(clippy::too_many_arguments)]
fn draw_game(
    f: &mut Frame,
    game_area: Rect,
    chart_area: Option<Rect>,
    g: &GameState,
    now: Instant,
    large: bool,
    live: bool,
    title: String,
) {
    let board_w = if large { 40 } else { 29 };
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

/// The live screen.
pub fn draw_live(f: &mut Frame, s: &State, overlay: Overlay, now: Instant) {
    let area = f.area();
    let large = is_large(area);
    let top_h = if large { 20 } else { 11 };
    let [top, bottom, foot] = Layout::vertical([
        Constraint::Length(top_h),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    // Compact: the tournament panel takes the whole bottom; large: the eval chart beside it.
    let [side, panel] = if large {
        Layout::horizontal([Constraint::Percentage(40), Constraint::Min(40)]).areas(bottom)
    } else {
        Layout::horizontal([Constraint::Length(0), Constraint::Min(40)]).areas(bottom)
    };
    match s.spectated() {
        Some(g) => {
            let follow = if s.following() { " · following" } else { "" };
            let done = if g.is_finished() { " · finished" } else { "" };
            let title = format!(" Game {}{follow}{done} ", g.game + 1);
            draw_game(f, top, large.then_some(side), g, now, large, true, title);
        }
        None => {
            let text = if s.run_started.is_none() {
                "Starting the engines…"
            } else {
                "No game in progress"
            };
            f.render_widget(
                Paragraph::new(text).block(Block::bordered().title(" Game ")),
                top,
            );
            if large {
                f.render_widget(Block::bordered(), side);
            }
        }
    }
    draw_tournament(f, panel, s, now, large);
    f.render_widget(Paragraph::new(footer(s, now)), foot);
    if overlay.help {
        draw_help(f, area);
    } else if overlay.quit_prompt {
        draw_quit(f, area);
    }
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

fn draw_help(f: &mut Frame, area: Rect) {
    let text = Text::from(vec![
        Line::from("←/→, Tab/Shift-Tab   previous/next game in progress"),
        Line::from("1-9                  spectate that game in progress"),
        Line::from("f                    follow the latest game (on/off)"),
        Line::from("p                    pause/resume starting new games"),
        Line::from("?                    this help (any key closes it)"),
        Line::from("q                    quit: finish games in flight or stop"),
        Line::from(""),
        Line::from(format!(
            "Board: {BLACK_DISC} Black  {WHITE_DISC} White  {LEGAL} legal move  [ ] last move"
        )),
        Line::from("Scores are in discs; the chart shows them from Black's view."),
    ]);
    let r = centered(area, 64, 12);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(text).block(Block::bordered().title(" Help ")),
        r,
    );
}

fn draw_quit(f: &mut Frame, area: Rect) {
    let text = Text::from(vec![
        Line::from("Quit the tournament?"),
        Line::from(""),
        Line::from("f   finish the games in flight, then quit"),
        Line::from("s   stop now (games in flight are not recorded)"),
        Line::from("Esc cancel"),
    ]);
    let r = centered(area, 52, 7);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(text).block(Block::bordered().title(" Quit ")),
        r,
    );
}

/// The replay screen: game `index` of `count`, shown up to its current ply.
pub fn draw_replay(f: &mut Frame, g: &GameState, index: usize, count: usize, total_moves: usize) {
    let area = f.area();
    let large = is_large(area);
    let top_h = if large { 20 } else { 11 };
    let [top, bottom, foot] = Layout::vertical([
        Constraint::Length(top_h),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area);
    let title = format!(" Game {} · {}/{total_moves} ", g.game + 1, g.moves.len());
    if large {
        draw_game(f, top, Some(bottom), g, Instant::now(), true, false, title);
    } else {
        let [moves_a, chart_a] =
            Layout::horizontal([Constraint::Length(30), Constraint::Min(0)]).areas(bottom);
        draw_game(
            f,
            top,
            Some(chart_a),
            g,
            Instant::now(),
            false,
            false,
            title,
        );
        let lines = move_lines(g, moves_a.height.saturating_sub(2) as usize);
        f.render_widget(
            Paragraph::new(lines).block(Block::bordered().title(" Moves ")),
            moves_a,
        );
    }
    f.render_widget(
        Paragraph::new(Line::from(format!(
            " Replay {}/{count}  ←/→ move  Home/End start/end  PgUp/PgDn game  q quit",
            index + 1
        ))),
        foot,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::{Event, SideClocks};
    use crate::show::tui::state::tests::{moved, record, run_started, started};
    use ratatui::backend::TestBackend;
    use ratatui::Terminal;
    use std::time::Duration;

    fn screen(w: u16, h: u16, draw: impl FnOnce(&mut Frame)) -> String {
        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
        t.draw(draw).unwrap();
        let buf = t.backend().buffer().clone();
        let mut out = String::new();
        for y in 0..h {
            let mut line = String::new();
            for x in 0..w {
                line.push_str(buf[(x, y)].symbol());
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        if std::env::var_os("TUI_PRINT").is_some() {
            eprintln!("{out}");
        }
        out
    }

    const BOTH_CLOCKS: SideClocks = [Some(Duration::from_secs(65)), Some(Duration::from_secs(30))];
    const NO_CLOCKS: SideClocks = [None, None];

    fn live_state(t0: Instant, c: SideClocks) -> State {
        let mut s = State::new();
        s.apply(run_started(8, None), t0);
        s.apply(started(0, c), t0);
        s.apply(started(1, c), t0);
        s.apply(moved(1, Side::Black, "c3", 2.5), t0);
        s.apply(
            Event::Thinking {
                game: 1,
                color: Side::White,
                info: crate::show::tui::state::tests::info(7, -1.25, 2_000_000, 500),
            },
            t0,
        );
        s.apply(
            Event::GameFinished {
                record: record(2, "alpha", "beta", 12),
            },
            t0,
        );
        s.select(1);
        s.refresh();
        s
    }

    fn check_common(text: &str) {
        assert!(text.contains("alpha"), "{text}");
        assert!(text.contains("beta"), "{text}");
        assert!(
            text.contains(BLACK_DISC) && text.contains(WHITE_DISC),
            "{text}"
        );
        assert!(text.contains("Game 2"), "{text}");
        assert!(text.contains("Tournament"), "{text}");
        assert!(text.contains("1/8 games"), "{text}");
        assert!(text.contains("RUNNING"), "{text}");
    }

    #[test]
    fn live_screen_at_80x24() {
        let t0 = Instant::now();
        let s = live_state(t0, BOTH_CLOCKS);
        let text = screen(80, 24, |f| draw_live(f, &s, Overlay::default(), t0));
        check_common(&text);
        // Compact board: coordinates and the rows after f5 d6 c3.
        assert!(text.contains("a  b  c  d  e  f  g  h"), "{text}");
        assert!(text.contains(" 3  ·  · [●] +  ·  +  ·  · "), "{text}");
        assert!(text.contains("Moves 1.f5 2.d6 3.c3 +2.50"), "{text}");
        assert!(text.contains("[●]"), "last move c3 marked:\n{text}");
        assert!(text.contains("1:05.0"), "Black's clock:\n{text}");
        assert!(
            text.contains("30.0s"),
            "White's clock, with its unit:\n{text}"
        );
        assert!(
            text.contains("Game 2 (pair 1), 3 moves played"),
            "numbered as the move list:\n{text}"
        );
        assert!(
            text.contains("g2    beta  5-2  alpha   3 moves"),
            "the games in progress count moves as the game's header:\n{text}"
        );
        assert!(text.contains("(+2.50, depth 5)"), "{text}");
        assert!(text.contains("◀ to move"), "{text}");
        assert!(
            text.contains("depth 7@100% -1.25 2.00M nodes 4.00M nps"),
            "{text}"
        );
        assert_eq!(text.lines().count(), 24);
    }

    /// An engine with its own time per move plays one with a clock: the clock is shown, the
    /// other side's line has none, at both sizes.
    #[test]
    fn a_clock_is_shown_when_only_one_side_has_one() {
        let t0 = Instant::now();
        let s = live_state(t0, [None, Some(Duration::from_secs(30))]);
        for (w, h) in [(80, 24), (120, 40)] {
            let text = screen(w, h, |f| draw_live(f, &s, Overlay::default(), t0));
            let line = |name: &str| {
                text.lines()
                    .find(|l| l.contains(name) && l.contains("discs"))
                    .unwrap_or_default()
                    .to_string()
            };
            // Game 2: beta is Black (no clock), alpha White (30 s, to move).
            assert!(line("alpha").contains("30.0s"), "{w}x{h}:\n{text}");
            assert!(!line("beta").contains(".0s"), "{w}x{h}:\n{text}");
        }
    }

    /// At 80 columns the move line keeps the newest moves and lets the oldest go.
    #[test]
    fn the_compact_move_line_keeps_the_newest_moves() {
        let t0 = Instant::now();
        let mut s = live_state(t0, NO_CLOCKS);
        for (color, m) in [
            (Side::White, "d3"),
            (Side::Black, "c4"),
            (Side::White, "f4"),
            (Side::Black, "f6"),
            (Side::White, "f3"),
        ] {
            s.apply(moved(1, color, m, 0.5), t0);
        }
        s.refresh();
        let text = screen(80, 24, |f| draw_live(f, &s, Overlay::default(), t0));
        let line = text
            .lines()
            .find(|l| l.contains("Moves "))
            .unwrap_or_default();
        assert!(line.contains("8.f3 +0.50"), "the newest move:\n{text}");
        assert!(line.contains("Moves …") && !line.contains("1.f5"), "{line}");
    }

    /// Paused: the footer offers to resume, and the estimate of the end stops.
    #[test]
    fn paused_screens_say_resume_and_stop_the_eta() {
        let t0 = Instant::now();
        let mut s = live_state(t0, NO_CLOCKS);
        for (w, h) in [(80, 24), (120, 40)] {
            s.control = ControlState::Running;
            let text = screen(w, h, |f| draw_live(f, &s, Overlay::default(), t0));
            assert!(
                text.contains("p pause") && !text.contains("p resume"),
                "{text}"
            );
            assert!(!text.contains("ETA paused"), "{text}");
            s.control = ControlState::Paused;
            let text = screen(w, h, |f| draw_live(f, &s, Overlay::default(), t0));
            assert!(
                text.contains("PAUSED") && text.contains("p resume"),
                "{w}x{h}:\n{text}"
            );
            assert!(text.contains("ETA paused"), "{w}x{h}:\n{text}");
        }
    }

    #[test]
    fn live_screen_at_120x40() {
        let t0 = Instant::now();
        let s = live_state(t0, NO_CLOCKS);
        let text = screen(120, 40, |f| draw_live(f, &s, Overlay::default(), t0));
        check_common(&text);
        assert!(text.contains("┌───┬───┬"), "grid board:\n{text}");
        assert!(text.contains("  a   b   c   d   e   f   g   h"), "{text}");
        let eval = text
            .lines()
            .find(|l| l.contains("Eval (discs, Black's view)"))
            .unwrap_or_default();
        // The key is in the title, not over the plot.
        assert!(
            eval.contains("● beta") && eval.contains("○ alpha"),
            "{text}"
        );
        assert!(text.contains("Moves"), "{text}");
        assert!(text.contains("3. ● c3"), "{text}");
        assert!(text.contains("+2.50"), "{text}");
        assert!(text.contains("Search"), "{text}");
        assert!(text.contains("alpha  v beta"), "standings:\n{text}");
        assert!(
            text.contains("g3    alpha - beta  1-0 (+12)"),
            "recent:\n{text}"
        );
    }

    #[test]
    fn overlays_and_sprt_gauge() {
        let t0 = Instant::now();
        let mut s = State::new();
        let p = crate::stats::sprt::SprtParams {
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            model: crate::stats::sprt::Model::Logistic,
            unit: crate::stats::sprt::Unit::Pentanomial,
        };
        s.apply(run_started(8, Some(p)), t0);
        s.apply(Event::Control(ControlState::Paused), t0);
        s.refresh();
        let help = Overlay {
            help: true,
            quit_prompt: false,
        };
        let text = screen(80, 24, |f| draw_live(f, &s, help, t0));
        assert!(
            text.contains("Help") && text.contains("pause/resume"),
            "{text}"
        );
        assert!(text.contains("PAUSED"), "{text}");
        let text = screen(80, 24, |f| draw_live(f, &s, Overlay::default(), t0));
        assert!(
            text.contains("SPRT [0, 5] LLR +0.00 (-2.94, +2.94)"),
            "{text}"
        );
        let quit = Overlay {
            help: false,
            quit_prompt: true,
        };
        let text = screen(120, 40, |f| draw_live(f, &s, quit, t0));
        assert!(text.contains("finish the games in flight"), "{text}");
        assert!(text.contains("stop now"), "{text}");
    }

    #[test]
    fn replay_screen_at_both_sizes() {
        let r = record(4, "alpha", "beta", 20);
        let g = GameState::from_record(&r, 3);
        for (w, h) in [(80, 24), (120, 40)] {
            let text = screen(w, h, |f| draw_replay(f, &g, 0, 1, 3));
            assert!(text.contains("Game 5 · 3/3"), "{text}");
            assert!(text.contains("Replay 1/1"), "{text}");
            assert!(text.contains("Result 1-0 (+20 discs), normal"), "{text}");
            assert!(text.contains("alpha") && text.contains("beta"), "{text}");
            assert!(text.contains("[●]"), "{text}");
        }
    }

    #[test]
    fn board_reads_without_colour() {
        let lines = board_lines(&Position::START, None, true, false);
        let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(text[0], "    a  b  c  d  e  f  g  h");
        assert_eq!(text[4], " 4  ·  ·  +  ○  ●  ·  ·  · ");
        assert_eq!(text[5], " 5  ·  ·  ·  ●  ○  +  ·  · ");
        let big = board_lines(&Position::START, None, false, true);
        assert_eq!(big.len(), 18);
        assert_eq!(big[8].to_string(), " 4 │   │   │   │ ○ │ ● │   │   │   │");
    }
}
