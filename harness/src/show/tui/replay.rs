//! `harness replay`: step through the finished games of a journal with the live board view.

use super::terminal::Screen;
use super::view::{board_lines, draw_replay};
use crate::show::run_model::{ExactMark, GameState};
use anyhow::Context;
use harness_core::record::analysis::{read_analysis, AnalysedGame};
use harness_core::record::journal;
use harness_core::record::GameRecord;
use ratatui::crossterm::event::{self, Event as TermEvent, KeyCode, KeyEventKind, KeyModifiers};
use std::path::Path;

/// Where a replay stands: a game of the journal and a move in it.
#[derive(Clone, Debug)]
pub struct Replay {
    pub records: Vec<GameRecord>,
    pub index: usize,
    /// Moves played on the board shown.
    pub ply: usize,
    /// The exact analysis of the games (`analysis.jsonl` beside the journal), by game number.
    pub analysis: std::collections::HashMap<usize, AnalysedGame>,
}

impl Replay {
    /// Records sorted by game number; `game` is 1-based as shown on screen (the journal's
    /// `game` + 1); the replay starts after the opening.
    pub fn new(mut records: Vec<GameRecord>, game: Option<usize>) -> anyhow::Result<Replay> {
        anyhow::ensure!(!records.is_empty(), "no finished games");
        records.sort_by_key(|r| r.game);
        let index = match game {
            None => 0,
            Some(n) => records
                .iter()
                .position(|r| r.game + 1 == n)
                .with_context(|| {
                    format!(
                        "no game {n} in the journal (games {}..={})",
                        records[0].game + 1,
                        records[records.len() - 1].game + 1
                    )
                })?,
        };
        let mut r = Replay {
            records,
            index,
            ply: 0,
            analysis: Default::default(),
        };
        r.go_to_opening_end();
        Ok(r)
    }

    pub fn record(&self) -> &GameRecord {
        &self.records[self.index]
    }

    fn go_to_opening_end(&mut self) {
        self.ply = self.record().moves.iter().take_while(|m| m.book).count();
    }

    /// The game on the board, its analysed moves marked.
    pub fn game(&self) -> GameState {
        let mut g = GameState::from_record(self.record(), self.ply);
        let marks = self.marks();
        for (entry, mark) in g.moves.iter_mut().zip(marks) {
            entry.exact = mark;
        }
        g
    }

    /// The exact marks of the record's moves (none before the analysed part, or without an
    /// analysis of the game). The analysed moves are the record's last ones.
    pub fn marks(&self) -> Vec<Option<ExactMark>> {
        let r = self.record();
        let mut marks = vec![None; r.moves.len()];
        let Some(a) = self.analysis.get(&r.game).filter(|a| a.error.is_none()) else {
            return marks;
        };
        let Some(first) = r.moves.len().checked_sub(a.moves.len()) else {
            return marks;
        };
        let Some(final_value) = a.final_value else {
            return marks;
        };
        for (i, m) in a.moves.iter().enumerate() {
            let after = a.moves.get(i + 1).map_or(final_value, |n| n.value);
            let side = if m.color == "black" { 1 } else { -1 };
            marks[first + i] = Some(ExactMark {
                value: m.value,
                after,
                loss: m.loss,
                lost_result: (side * after).signum() < (side * m.value).signum(),
            });
        }
        marks
    }

    /// Apply a key; false to quit.
    pub fn key(&mut self, code: KeyCode) -> bool {
        let last = self.record().moves.len();
        match code {
            KeyCode::Char('q') | KeyCode::Esc => return false,
            KeyCode::Right | KeyCode::Char('l') | KeyCode::Char(' ') => {
                self.ply = (self.ply + 1).min(last)
            }
            KeyCode::Left | KeyCode::Char('h') | KeyCode::Backspace => {
                self.ply = self.ply.saturating_sub(1)
            }
            KeyCode::Home => self.ply = 0,
            KeyCode::End => self.ply = last,
            KeyCode::PageDown | KeyCode::Down | KeyCode::Char('n')
                if self.index + 1 < self.records.len() =>
            {
                self.index += 1;
                self.go_to_opening_end();
            }
            KeyCode::PageUp | KeyCode::Up | KeyCode::Char('p') if self.index > 0 => {
                self.index -= 1;
                self.go_to_opening_end();
            }
            _ => {}
        }
        true
    }
}

/// The finished games of a journal (or of the output folder holding it), opened at `game`
/// (numbered from 1, as on screen; default the first).
pub fn open(file: &Path, game: Option<usize>) -> anyhow::Result<Replay> {
    let path = if file.is_dir() {
        file.join(journal::JSONL_FILE)
    } else {
        file.to_path_buf()
    };
    let records = journal::read_journal(&path)?;
    let mut replay = Replay::new(records, game).with_context(|| format!("{}", path.display()))?;
    let folder = path.parent().unwrap_or(Path::new("."));
    replay.analysis = read_analysis(folder)?
        .into_iter()
        .map(|a| (a.game, a))
        .collect();
    Ok(replay)
}

/// Where the move list of a replay shows that the adjudication's solver took over.
pub const SOLVER_MARK: &str = "[solver]";

/// The replay's game as text: who played, the final board and the moves (for a reader that is
/// not a terminal).
pub fn as_text(replay: &mut Replay) -> String {
    use std::fmt::Write;
    replay.ply = replay.record().moves.len();
    let g = replay.game();
    let r = replay.record();
    let mut text = String::new();
    let _ = writeln!(
        text,
        "game {}: {} (black) vs {} (white), {} ({:+})",
        r.game + 1,
        r.black,
        r.white,
        r.result,
        r.score
    );
    for line in board_lines(&g.position, g.last_move(), false, false) {
        let _ = writeln!(text, "{line}");
    }
    let marks = replay.marks();
    let solver_from = r.adjudication.as_ref().and_then(|a| a.first_move);
    let moves: Vec<String> = r
        .moves
        .iter()
        .zip(&marks)
        .enumerate()
        .map(|(i, (m, mark))| {
            let took_over = if solver_from == Some(i) {
                format!("{SOLVER_MARK} ")
            } else {
                String::new()
            };
            format!("{took_over}{}{}", m.mv, mark.map_or("", |k| k.symbol()))
        })
        .collect();
    let _ = writeln!(text, "{}", moves.join(" "));
    if let (Some(first), Some(a)) = (solver_from, &r.adjudication) {
        let _ = writeln!(
            text,
            "adjudicated at {} empties: from move {} on ({SOLVER_MARK}) the exact solver played, not the engines",
            a.empties,
            first + 1
        );
    }
    // The analysed moves that lost discs, with the exact values around them.
    let marked: Vec<String> = marks
        .iter()
        .enumerate()
        .filter_map(|(i, mark)| {
            let k = mark.filter(|k| k.loss > 0)?;
            Some(format!(
                "{}. {}{} {:+} → {:+} ({} discs)",
                i + 1,
                r.moves[i].mv,
                k.symbol(),
                k.value,
                k.after,
                k.loss
            ))
        })
        .collect();
    if let Some(a) = replay.analysis.get(&r.game).filter(|a| a.error.is_none()) {
        let _ = writeln!(
            text,
            "exact from {} empties ({:+}, Black's view): {}",
            a.from_empties,
            a.value.unwrap_or_default(),
            if marked.is_empty() {
                "every move best".to_string()
            } else {
                marked.join(", ")
            }
        );
    }
    text
}

/// Step through the games full-screen until the viewer quits.
pub fn interactive(mut replay: Replay) -> anyhow::Result<()> {
    let mut screen = Screen::enter()?;
    loop {
        let g = replay.game();
        let (index, count, total) = (
            replay.index,
            replay.records.len(),
            replay.record().moves.len(),
        );
        screen
            .terminal
            .draw(|f| draw_replay(f, &g, index, count, total))?;
        if let TermEvent::Key(k) = event::read()? {
            if k.kind != KeyEventKind::Press {
                continue;
            }
            let ctrl_c =
                k.modifiers.contains(KeyModifiers::CONTROL) && k.code == KeyCode::Char('c');
            if ctrl_c || !replay.key(k.code) {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::show::run_model::tests::record;

    #[test]
    fn replay_steps_through_moves_and_games() {
        let recs = vec![record(5, "a", "b", 2), record(1, "b", "a", -2)];
        let mut r = Replay::new(recs.clone(), Some(6)).unwrap();
        assert_eq!((r.index, r.ply), (1, 2));
        assert!(r.key(KeyCode::Right));
        assert_eq!(r.ply, 3);
        r.key(KeyCode::Right);
        assert_eq!(r.ply, 3);
        r.key(KeyCode::Home);
        assert_eq!(r.game().moves.len(), 0);
        r.key(KeyCode::End);
        assert!(r.game().is_finished());
        r.key(KeyCode::PageUp);
        assert_eq!((r.record().game, r.ply), (1, 2));
        r.key(KeyCode::PageUp);
        assert_eq!(r.index, 0);
        assert!(!r.key(KeyCode::Char('q')));
        assert!(Replay::new(recs, Some(99)).is_err());
    }
}
