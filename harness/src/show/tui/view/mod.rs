//! Drawing: the live screen (the spectated game, the tournament panel, the footer, the help
//! overlay and the quit prompt) and the replay screen with the same game view. Everything reads
//! the model of `state`; nothing here changes it.
//!
//! - `board`: the board as text, with the disc glyphs;
//! - `game`: one game (board, players and clocks, search reports, moves, eval chart);
//! - `tournament`: the tournament panel of the live screen;
//! - `tune`: a tune's parameters in that panel.

mod board;
mod game;
#[cfg(test)]
mod tests;
mod tournament;
mod tune;

pub use board::{board_lines, BLACK_DISC, LEGAL, WHITE_DISC};

use super::state::{State, LINGER};
use crate::show::run_model::GameState;
use game::{draw_game, move_lines};
use harness_core::events::ControlState;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Clear, Paragraph};
use ratatui::Frame;
use std::time::Instant;
use tournament::draw_tournament;

/// UI-only state of the live screen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overlay {
    pub help: bool,
    /// The quit prompt: finish / stop / cancel.
    pub quit_prompt: bool,
}

/// Whether the screen is large enough for the big layout (board with a grid, chart).
pub fn is_large(area: Rect) -> bool {
    area.width >= 110 && area.height >= 36
}

fn status_text(s: &State) -> (&'static str, Color) {
    if s.run.run_finished {
        return ("FINISHED", Color::Green);
    }
    match s.run.control {
        ControlState::Running => ("RUNNING", Color::Green),
        ControlState::Paused => ("PAUSED", Color::Yellow),
        ControlState::Finishing => ("FINISHING", Color::Yellow),
        ControlState::Stopping => ("STOPPING", Color::Red),
    }
}

fn footer(s: &State, now: Instant) -> Line<'static> {
    let (status, colour) = status_text(s);
    let follow = if s.following() { "on" } else { "off" };
    let keys = if s.still {
        // A still of a folder: what it could not read, else nothing to press.
        s.run.folder_error.clone().unwrap_or_default()
    } else if s.run.run_finished {
        let left = s
            .run
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
        let pause = if s.run.control == ControlState::Paused {
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

/// A screen's rows: the game on top (taller on a large screen), the rest below it, the footer
/// line.
fn rows(area: Rect) -> [Rect; 3] {
    let top_h = if is_large(area) { 20 } else { 11 };
    Layout::vertical([
        Constraint::Length(top_h),
        Constraint::Min(0),
        Constraint::Length(1),
    ])
    .areas(area)
}

/// The live screen of `s` at `width` x `height` as text, one line per row with its trailing
/// blanks cut (what `stats DIR --screen` prints, and what the tests read).
pub fn screen_text(s: &State, width: u16, height: u16, now: Instant) -> String {
    let backend = ratatui::backend::TestBackend::new(width, height);
    let mut terminal = ratatui::Terminal::new(backend).expect("a test backend never fails");
    terminal
        .draw(|f| draw_live(f, s, Overlay::default(), now))
        .expect("a test backend never fails");
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..height {
        let line: String = (0..width).map(|x| buffer[(x, y)].symbol()).collect();
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The board's title in `width` columns: `Game N · following · finished`, dropping
/// "following", then "finished", rather than cutting a word.
fn game_title(game: usize, following: bool, finished: bool, width: u16) -> String {
    let follow = if following { " · following" } else { "" };
    let done = if finished { " · finished" } else { "" };
    [
        format!(" Game {game}{follow}{done} "),
        format!(" Game {game}{done} "),
        format!(" Game {game} "),
    ]
    .into_iter()
    .find(|t| t.chars().count() <= usize::from(width))
    .unwrap_or_else(|| format!(" {game} "))
}

/// The live screen.
pub fn draw_live(f: &mut Frame, s: &State, overlay: Overlay, now: Instant) {
    let area = f.area();
    let large = is_large(area);
    let [top, bottom, foot] = rows(area);
    // Compact: the tournament panel takes the whole bottom; large: the eval chart beside it.
    let [side, panel] = if large {
        Layout::horizontal([Constraint::Percentage(40), Constraint::Min(40)]).areas(bottom)
    } else {
        Layout::horizontal([Constraint::Length(0), Constraint::Min(40)]).areas(bottom)
    };
    match s.spectated() {
        Some(g) => {
            let width = game::board_width(large) - 2;
            let title = game_title(g.game + 1, s.following(), g.is_finished(), width);
            draw_game(f, top, large.then_some(side), g, now, large, true, title);
        }
        None => {
            let text = if s.run.run_started.is_none() {
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

/// A box of `w` × `h` with `text`, in the middle of `area` over what is drawn there.
fn draw_box(f: &mut Frame, area: Rect, title: &str, text: Text, (w, h): (u16, u16)) {
    let r = centered(area, w, h);
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(text).block(Block::bordered().title(title)),
        r,
    );
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
    draw_box(f, area, " Help ", text, (64, 12));
}

fn draw_quit(f: &mut Frame, area: Rect) {
    let text = Text::from(vec![
        Line::from("Quit the tournament?"),
        Line::from(""),
        Line::from("f   finish the games in flight, then quit"),
        Line::from("s   stop now (games in flight are not recorded)"),
        Line::from("Esc cancel"),
    ]);
    draw_box(f, area, " Quit ", text, (52, 7));
}

/// The replay screen: game `index` of `count`, shown up to its current ply.
pub fn draw_replay(f: &mut Frame, g: &GameState, index: usize, count: usize, total_moves: usize) {
    let area = f.area();
    let large = is_large(area);
    let [top, bottom, foot] = rows(area);
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
