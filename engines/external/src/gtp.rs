//! The GTP side of the bridge: replay the game with `clear_board` and `play` (GTP cannot set a
//! position, so the game must start from the standard position), then `genmove`.
//!
//! The program's board is kept in step incrementally: when the new game extends the moves
//! already sent, only the new ones are played. Time: with a clock the program gets
//! `time_settings MAIN 0 0` once per game and `time_left COLOR SECONDS 0` before each
//! `genmove`; with a fixed move time, `time_settings 0 SECONDS 1` (one move per byo-yomi
//! period). GTP has no depth; give a program its depth on its command line. GTP cannot
//! interrupt `genmove`, so the stop flag is not passed on: the host's clock decides.

use crate::program::Program;
use othello_sdk::board::{Color, GameHistory, Move, Position};
use othello_sdk::Limits;
use std::time::{Duration, Instant};

/// A program speaking GTP.
pub struct GtpSession {
    program: Program,
    /// The moves the program has on its board since its last `clear_board`; `None` before one.
    board: Option<Vec<Move>>,
    time_settings_sent: bool,
}

fn color_word(c: Color) -> &'static str {
    match c {
        Color::Black => "b",
        Color::White => "w",
    }
}

fn vertex(mv: Move) -> String {
    if mv.is_pass() {
        "pass".to_string()
    } else {
        mv.to_string().to_uppercase()
    }
}

impl GtpSession {
    /// Check the program answers `protocol_version` within `startup` and accepts an 8x8 board.
    pub fn start(program: Program, startup: Duration) -> Result<Self, String> {
        let mut session = GtpSession {
            program,
            board: None,
            time_settings_sent: false,
        };
        let deadline = Some(Instant::now() + startup);
        session
            .command("protocol_version", deadline)
            .map_err(|e| format!("{e} (during the GTP handshake)"))?;
        session.command("boardsize 8", deadline)?;
        Ok(session)
    }

    pub fn is_running(&mut self) -> bool {
        self.program.is_running()
    }

    /// A new game: the next search starts from `clear_board`.
    pub fn new_game(&mut self) {
        self.board = None;
        self.time_settings_sent = false;
    }

    /// Send a command and read its answer: `= text` (returned) or `? message` (an error),
    /// ended by an empty line.
    fn command(&mut self, command: &str, deadline: Option<Instant>) -> Result<String, String> {
        self.program.send(command)?;
        let first = loop {
            let line = self.program.receive(deadline)?;
            if !line.trim().is_empty() {
                break line;
            }
        };
        let after_status: String = first.chars().skip(1).collect();
        let mut text = after_status
            .trim_start_matches(|c: char| c.is_ascii_digit())
            .trim()
            .to_string();
        loop {
            let line = self.program.receive(deadline)?;
            if line.trim().is_empty() {
                break;
            }
            text.push('\n');
            text.push_str(&line);
        }
        match first.chars().next() {
            Some('=') => Ok(text),
            Some('?') => Err(format!(
                "`{}` refused `{command}`: {text}",
                self.program.command
            )),
            _ => Err(format!(
                "`{}` answered `{command}` with `{first}`, not a GTP response",
                self.program.command
            )),
        }
    }

    /// Bring the program's board to `game`.
    fn replay(&mut self, game: &GameHistory) -> Result<(), String> {
        if game.start != Position::START {
            return Err(
                "GTP cannot set up a position: the game must begin at the standard start position"
                    .to_string(),
            );
        }
        let known = match &self.board {
            Some(sent) if game.moves.starts_with(sent) => sent.len(),
            _ => {
                self.command("clear_board", None)?;
                self.board = Some(Vec::new());
                0
            }
        };
        let mut color = game.start.side_to_move;
        for (i, &mv) in game.moves.iter().enumerate() {
            if i >= known {
                self.command(&format!("play {} {}", color_word(color), vertex(mv)), None)?;
                self.board.get_or_insert_with(Vec::new).push(mv);
            }
            color = color.opposite();
        }
        Ok(())
    }

    /// Ask for a move in the position at the end of `game`, `side` to move.
    pub fn search(
        &mut self,
        game: &GameHistory,
        side: Color,
        limits: &Limits,
    ) -> Result<Move, String> {
        self.replay(game)?;
        if let Some(clock) = limits.clock {
            if !self.time_settings_sent {
                let main = clock.time_left[side.index()].as_secs_f64();
                self.command(&format!("time_settings {main:.3} 0 0"), None)?;
                self.time_settings_sent = true;
            }
            let left = clock.time_left[side.index()].as_secs_f64();
            self.command(&format!("time_left {} {left:.3} 0", color_word(side)), None)?;
        } else if let Some(t) = limits.move_time {
            if !self.time_settings_sent {
                self.command(&format!("time_settings 0 {:.3} 1", t.as_secs_f64()), None)?;
                self.time_settings_sent = true;
            }
        }
        let answer = self.command(&format!("genmove {}", color_word(side)), None)?;
        let mv: Move = answer.trim().parse().map_err(|_| {
            format!(
                "`{}` answered genmove with `{answer}`, not a move",
                self.program.command
            )
        })?;
        // The program has played its move on its own board.
        self.board.get_or_insert_with(Vec::new).push(mv);
        Ok(mv)
    }
}
