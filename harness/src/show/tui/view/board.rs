//! The board as text: disc glyphs that read without colour, coordinates, the last move and the
//! legal moves. Shared by the live screen and the replay.

use othello_board::{Color as Side, Move, Position, Square};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};

/// Disc glyphs: distinct shapes, so that the board reads without colour.
pub const BLACK_DISC: &str = "●";
pub const WHITE_DISC: &str = "○";
/// A legal move of the side to move.
pub const LEGAL: &str = "+";

pub(super) fn disc(side: Side) -> &'static str {
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
